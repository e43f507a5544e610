# MPI programs of MPICH's ABI under MPICH's mpiexec (hydra), where the
# plugin libsymm-boot-mpi-mpich.so is built (cmake/mpi.cmake, Debian:
# libmpich-dev): the same programs as the Open MPI tests (boot_pmix.cmake),
# built with MPICH's mpi.h and libmpich, so symm's MPI bootstrap works
# under either ABI from one install.
#  - mpich_launch.np1/2/4: SYMM_BOOTSTRAP=mpi, a put ring, barriers and an
#    MPI_Allreduce between them (pe/launch_mpi.c);
#  - mpich_launch_auto.np2/4: no SYMM_BOOTSTRAP: hydra's PMI_SIZE with MPI
#    in the process chooses the MPI bootstrap;
#  - mpich_boot_split.np3/4: the bootstrap over a split communicator
#    (pe/launch_mpi_boot.c);
#  - mpich_late_pe_named: a PE that never arrives is named by PE 0;
#  - mpich_no_mpi_not_singletons: a program without MPI under hydra fails
#    saying how to start it.
if(NOT "mpich" IN_LIST SYMM_MPI_PLUGINS OR NOT SYMM_MPI_mpich_LIBRARIES)
  return()
endif()
find_program(SYMM_MPIEXEC_MPICH NAMES mpiexec.mpich mpiexec.hydra)
if(NOT SYMM_MPIEXEC_MPICH)
  message(STATUS "symm: MPICH job tests: no mpiexec.mpich found, not registered")
  return()
endif()
foreach(prog launch_mpi launch_mpi_boot)
  add_executable(${prog}_mpich pe/${prog}.c)
  target_include_directories(${prog}_mpich SYSTEM PRIVATE ${SYMM_MPI_mpich_INCLUDE_DIRS})
  target_include_directories(${prog}_mpich PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/pe
    ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${prog}_mpich PRIVATE ${SYMM_MPI_mpich_LIBRARIES})
endforeach()
target_link_libraries(launch_mpi_mpich PRIVATE symm)
target_link_libraries(launch_mpi_boot_mpich PRIVATE symm_static)

# MPICH's own leaks are not symm's.
set(_mpich_env "ASAN_OPTIONS=detect_leaks=0" "MPIEXEC_TIMEOUT=50")
function(symm_mpich_test name np env)
  add_test(NAME ${name} COMMAND ${SYMM_MPIEXEC_MPICH} -n ${np} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 ENVIRONMENT "${_mpich_env};${env}")
endfunction()
foreach(np 1 2 4)
  symm_mpich_test(mpich_launch.np${np} ${np} "SYMM_BOOTSTRAP=mpi" $<TARGET_FILE:launch_mpi_mpich>)
endforeach()
foreach(np 2 4)
  symm_mpich_test(mpich_launch_auto.np${np} ${np} "" $<TARGET_FILE:launch_mpi_mpich>)
endforeach()
foreach(np 3 4)
  symm_mpich_test(mpich_boot_split.np${np} ${np} "" $<TARGET_FILE:launch_mpi_boot_mpich> split)
endforeach()
add_test(NAME mpich_late_pe_named
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_fail.sh "waiting for PE\\(s\\) 1 in bootstrap barrier"
    ${SYMM_MPIEXEC_MPICH} -n 4 $<TARGET_FILE:launch_mpi_boot_mpich> late 1 40)
set_tests_properties(mpich_late_pe_named PROPERTIES TIMEOUT 60 ENVIRONMENT "${_mpich_env}")
# A program without MPI under hydra: an error saying how to start it, never
# N singletons.
add_test(NAME mpich_no_mpi_not_singletons
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_fail.sh
    "started by a PMI launcher \\(PMI_SIZE=2.*call MPI_Init before shmem_init"
    ${SYMM_MPIEXEC_MPICH} -n 2 $<TARGET_FILE:symm-demo>)
set_tests_properties(mpich_no_mpi_not_singletons PROPERTIES TIMEOUT 60 ENVIRONMENT "${_mpich_env}")
