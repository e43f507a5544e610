# The PMIx and MPI bootstraps (src/boot/pmix.c, src/boot/mpi.c) and the
# choice among bootstraps (SYMM_BOOTSTRAP, src/boot/boot.c).
#  - launch_select_*: the choice and its errors; no launcher needed.
#  - launch_no_link_deps: libsymm.so needs neither libpmix nor libmpi.
#  - pmix_*: plain OpenSHMEM programs started by Open MPI's mpirun (its
#    ORTE/PRRTE is the PMIx server): bootstrap chosen automatically or with
#    SYMM_BOOTSTRAP=pmix, at 1, 2 and 4 PEs (4 is oversubscribed on 2 cores);
#    a PE that never arrives is named.
#  - mpi_*: an MPI program with SYMM_BOOTSTRAP=mpi (and with the automatic
#    choice, PMIx shared with MPI), the MPI bootstrap on split communicators,
#    a late PE named.
# The mpirun tests are registered only when the bootstrap is built and an
# Open MPI mpirun is found. Every job runs under mpirun --timeout and a ctest
# TIMEOUT, so a hang is a failure.

set(SYMM_EXPECT_FAIL ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_fail.sh)

# ---- the choice, without a launcher --------------------------------------
add_test(NAME launch_select_bogus
  COMMAND ${SYMM_EXPECT_FAIL} "SYMM_BOOTSTRAP='bogus' is not one of auto, tcp, pmix, mpi"
          $<TARGET_FILE:symm-demo>)
add_test(NAME launch_select_tcp_without_oshrun
  COMMAND ${SYMM_EXPECT_FAIL} "SYMM_BOOTSTRAP=tcp, but none of .*start the job with oshrun"
          $<TARGET_FILE:symm-demo>)
add_test(NAME launch_select_mpi_without_mpi
  COMMAND ${SYMM_EXPECT_FAIL} "no MPI library in this process"
          $<TARGET_FILE:symm-demo>)
add_test(NAME launch_select_pmix_without_server
  COMMAND ${SYMM_EXPECT_FAIL} "PMIx_Init failed|PMIx bootstrap plugin cannot be loaded"
          $<TARGET_FILE:symm-demo>)
# A singleton asked for explicitly, even in a PMIx launcher's environment.
add_test(NAME launch_select_singleton COMMAND $<TARGET_FILE:symm-demo>)
set_tests_properties(launch_select_bogus PROPERTIES ENVIRONMENT "SYMM_BOOTSTRAP=bogus")
set_tests_properties(launch_select_tcp_without_oshrun PROPERTIES ENVIRONMENT "SYMM_BOOTSTRAP=tcp")
set_tests_properties(launch_select_mpi_without_mpi PROPERTIES ENVIRONMENT "SYMM_BOOTSTRAP=mpi")
set_tests_properties(launch_select_pmix_without_server PROPERTIES ENVIRONMENT "SYMM_BOOTSTRAP=pmix")
set_tests_properties(launch_select_singleton PROPERTIES
  ENVIRONMENT "SYMM_BOOTSTRAP=singleton;PMIX_RANK=0;PMIX_NAMESPACE=symm-test")
set_tests_properties(launch_select_bogus launch_select_tcp_without_oshrun
  launch_select_mpi_without_mpi launch_select_pmix_without_server launch_select_singleton
  PROPERTIES TIMEOUT 30)
# Without the PMIx plugin, a PMIx launcher's environment is an error that
# says so, never N singletons (SYMM_PLUGIN_DIR, when set, is the only place
# plugins are looked for).
add_test(NAME launch_select_pmix_env_no_plugin
  COMMAND ${SYMM_EXPECT_FAIL}
    "PMIx launcher .*PMIx bootstrap plugin cannot be loaded: libsymm-boot-pmix.so is not in /nonexistent"
    $<TARGET_FILE:symm-demo>)
set_tests_properties(launch_select_pmix_env_no_plugin PROPERTIES TIMEOUT 30
  ENVIRONMENT "PMIX_RANK=0;PMIX_NAMESPACE=symm-test;SYMM_PLUGIN_DIR=/nonexistent")

find_program(SYMM_READELF NAMES readelf ${CMAKE_READELF})
if(SYMM_READELF)
  add_test(NAME launch_no_link_deps
    COMMAND sh -c "! ${SYMM_READELF} -d \"$1\" | grep -E 'NEEDED.*(libpmix|libmpi|libuc[pst])'" sh
            $<TARGET_FILE:symm>)
  set_tests_properties(launch_no_link_deps PROPERTIES TIMEOUT 30)
endif()

# ---- under Open MPI's mpirun ---------------------------------------------
if(NOT SYMM_HAVE_PMIX AND NOT SYMM_HAVE_MPI)
  return()
endif()
find_program(SYMM_MPIRUN NAMES mpirun mpiexec HINTS ${MPIEXEC_EXECUTABLE})
if(NOT SYMM_MPIRUN)
  message(STATUS "symm: PMIx/MPI bootstrap tests: no mpirun found, not registered")
  return()
endif()
execute_process(COMMAND ${SYMM_MPIRUN} --version OUTPUT_VARIABLE _symm_mpirun_ver
  ERROR_VARIABLE _symm_mpirun_ver TIMEOUT 20)
if(NOT _symm_mpirun_ver MATCHES "Open MPI|OpenRTE|PRRTE")
  message(STATUS "symm: PMIx/MPI bootstrap tests: ${SYMM_MPIRUN} is not Open MPI's, not registered")
  return()
endif()

# Under the sanitizers: what libpmix and Open MPI never free is theirs.
set(SYMM_LAUNCH_LSAN_SUPP ${CMAKE_CURRENT_BINARY_DIR}/launch_lsan.supp)
file(WRITE ${SYMM_LAUNCH_LSAN_SUPP}
  "leak:libpmix.so\nleak:libmpi.so\nleak:libopen-pal.so\nleak:libopen-rte.so\n"
  "leak:mca_\nleak:libhwloc.so\nleak:libevent\n")

# Quiet and fast in containers: root allowed, no UCX (its memory hooks would
# also see the data remap), shared-memory MPI transports only.
set(SYMM_MPIRUN_ENV
  LSAN_OPTIONS=suppressions=${SYMM_LAUNCH_LSAN_SUPP}
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
  OMPI_MCA_osc=^ucx OMPI_MCA_btl_vader_single_copy_mechanism=none
  OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none)

# Each job gets its own TMPDIR: concurrent mpiruns race to create and remove
# the shared session directory /tmp/ompi.<host>.<uid> ("A call to mkdir was
# unable to create the desired directory ... File exists", orte_init fails).
function(symm_mpirun_env name env out)
  set(tmp ${CMAKE_CURRENT_BINARY_DIR}/mpirun-tmp/${name})
  file(MAKE_DIRECTORY ${tmp})
  set(${out} ${SYMM_MPIRUN_ENV} TMPDIR=${tmp} ${env} PARENT_SCOPE)
endfunction()

# symm_mpirun_test(NAME NP TIMEOUT ENV PROGRAM ARGS...)
function(symm_mpirun_test name np timeout env)
  symm_mpirun_env(${name} "${env}" e)
  add_test(NAME ${name}
    COMMAND ${SYMM_MPIRUN} --timeout ${timeout} -np ${np} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} ENVIRONMENT "${e}")
endfunction()

# symm_mpirun_fail(NAME NP REGEX ENV PROGRAM ARGS...): must fail, output matching REGEX.
function(symm_mpirun_fail name np regex env)
  symm_mpirun_env(${name} "${env}" e)
  add_test(NAME ${name}
    COMMAND ${SYMM_EXPECT_FAIL} "${regex}" ${SYMM_MPIRUN} --timeout 50 -np ${np} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 ENVIRONMENT "${e}")
endfunction()

if(SYMM_HAVE_PMIX)
  add_executable(launch_pmix pe/launch_pmix.c)
  target_link_libraries(launch_pmix PRIVATE symm)
  target_include_directories(launch_pmix PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/pe)
  foreach(np 1 2 4)
    symm_mpirun_test(pmix_launch.np${np} ${np} 60 "" $<TARGET_FILE:launch_pmix> ${np})
    symm_mpirun_test(pmix_launch_forced.np${np} ${np} 60 "SYMM_BOOTSTRAP=pmix"
      $<TARGET_FILE:launch_pmix> ${np})
  endforeach()
  symm_mpirun_test(pmix_demo.np4 4 60 "SYMM_BOOTSTRAP=pmix" $<TARGET_FILE:symm-demo>)
  symm_mpirun_fail(pmix_late_pe_named 4 "waiting for PE\\(s\\) 1 in bootstrap" "SYMM_BOOT_TIMEOUT=2"
    $<TARGET_FILE:launch_pmix> 4 late 1 40)

  # The suite's own programs, once tests/*.cmake have defined them.
  function(_symm_pmix_suite_tests)
    foreach(prog rma_types coll empty)
      if(TARGET ${prog})
        set(args "")
        if(prog STREQUAL "coll")
          set(args data)
        endif()
        foreach(np 2 4)
          symm_mpirun_test(pmix_${prog}.np${np} ${np} 120 "SYMM_BOOTSTRAP=pmix"
            $<TARGET_FILE:${prog}> ${args})
        endforeach()
      endif()
    endforeach()
  endfunction()
  cmake_language(DEFER CALL _symm_pmix_suite_tests)
endif()

if(SYMM_HAVE_MPI AND TARGET MPI::MPI_C)
  # Open MPI's components leak and are unloaded by MPI_Finalize, so their
  # leaks cannot be told apart by module: no leak check for MPI programs.
  set(noleak "ASAN_OPTIONS=detect_leaks=0")
  add_executable(launch_mpi pe/launch_mpi.c)
  target_link_libraries(launch_mpi PRIVATE symm MPI::MPI_C)
  target_include_directories(launch_mpi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/pe)
  add_executable(launch_mpi_boot pe/launch_mpi_boot.c)
  target_link_libraries(launch_mpi_boot PRIVATE symm_static MPI::MPI_C)
  target_include_directories(launch_mpi_boot PRIVATE ${PROJECT_SOURCE_DIR}/src)
  foreach(np 1 2 4)
    symm_mpirun_test(mpi_launch.np${np} ${np} 60 "${noleak};SYMM_BOOTSTRAP=mpi"
      $<TARGET_FILE:launch_mpi>)
  endforeach()
  foreach(np 1 3 4)
    symm_mpirun_test(mpi_boot_split.np${np} ${np} 60 "${noleak}"
      $<TARGET_FILE:launch_mpi_boot> split)
  endforeach()
  if(SYMM_HAVE_PMIX)
    # No SYMM_BOOTSTRAP: PMIx, shared with the MPI library in one process.
    foreach(np 2 4)
      symm_mpirun_test(mpi_launch_auto.np${np} ${np} 60 "${noleak}" $<TARGET_FILE:launch_mpi>)
    endforeach()
  endif()
  symm_mpirun_fail(mpi_late_pe_named 4 "waiting for PE\\(s\\) 1 in bootstrap barrier" "${noleak}"
    $<TARGET_FILE:launch_mpi_boot> late 1 40)
  symm_mpirun_fail(mpi_late_init 2 "timed out after .* duplicating the MPI communicator"
    "${noleak};SYMM_BOOTSTRAP=mpi;SYMM_BOOT_TIMEOUT=2" $<TARGET_FILE:launch_mpi> late 1 40)
endif()
