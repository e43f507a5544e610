# The MPI bootstrap (src/boot/mpi.c): one plugin per MPI ABI whose compiler
# wrapper is found, each compiled with that MPI's own mpi.h (the include
# directories its wrapper names):
#   libsymm-boot-mpi-openmpi.so  Open MPI's ABI (mpicc.openmpi, or an mpicc
#                                that answers --showme; Debian: libopenmpi-dev)
#   libsymm-boot-mpi-mpich.so    MPICH's ABI, also Intel MPI, Cray MPICH,
#                                MVAPICH (mpicc.mpich, or an mpicc that
#                                answers -compile_info; Debian: libmpich-dev)
# A plugin is not linked with libmpi: it takes MPI's symbols from the
# program, which loaded its MPI itself (src/boot/boot_plugin.c picks the
# plugin of that MPI's ABI). Sets SYMM_HAVE_MPI when some plugin is built,
# SYMM_MPI_PLUGINS to the ABIs built, and for each SYMM_MPI_<abi>_INCLUDE_DIRS
# and _LIBRARIES (from its wrapper), with which the tests build MPI programs
# of that ABI; the tests of jobs under the default mpirun use MPI::MPI_C.
option(SYMM_WITH_MPI "Build the MPI bootstrap plugins for the MPIs found" ON)
set(SYMM_HAVE_MPI OFF)
set(SYMM_MPI_PLUGINS "")
# What a compiler wrapper puts after `prefix` (-I, -L, -l) on its compile
# line (what = compile) or link line (what = link), into out_var. Open MPI's
# wrapper answers --showme:<what>, MPICH's -<what>_info.
function(_symm_mpi_words wrapper what prefix out_var)
  set(vals "")
  foreach(flag --showme:${what} -${what}_info)
    execute_process(COMMAND ${wrapper} ${flag} OUTPUT_VARIABLE line ERROR_QUIET
      RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND line MATCHES "${prefix}")
      separate_arguments(words UNIX_COMMAND "${line}")
      foreach(w ${words})
        if(w MATCHES "^${prefix}(.+)")
          list(APPEND vals "${CMAKE_MATCH_1}")
        endif()
      endforeach()
      break()
    endif()
  endforeach()
  set(${out_var} "${vals}" PARENT_SCOPE)
endfunction()

# The libraries of a wrapper's link line: its -l names found in its -L
# directories, into out_var.
function(_symm_mpi_libraries wrapper out_var)
  _symm_mpi_words(${wrapper} link "-L" hints)
  _symm_mpi_words(${wrapper} link "-l" names)
  set(libs "")
  foreach(n ${names})
    find_library(_symm_mpi_lib_${n} ${n} HINTS ${hints})
    if(_symm_mpi_lib_${n})
      list(APPEND libs "${_symm_mpi_lib_${n}}")
    endif()
  endforeach()
  set(${out_var} "${libs}" PARENT_SCOPE)
endfunction()

if(SYMM_WITH_MPI)
  find_program(SYMM_OMPI_CC NAMES mpicc.openmpi)
  find_program(SYMM_MPICH_CC NAMES mpicc.mpich)
  find_program(SYMM_ANY_MPICC NAMES mpicc)
  # A lone mpicc (not Debian's alternatives) serves the ABI it answers for.
  if(SYMM_ANY_MPICC AND NOT SYMM_OMPI_CC AND NOT SYMM_MPICH_CC)
    execute_process(COMMAND ${SYMM_ANY_MPICC} --showme:version RESULT_VARIABLE _rc
      OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      set(SYMM_OMPI_CC ${SYMM_ANY_MPICC})
    else()
      set(SYMM_MPICH_CC ${SYMM_ANY_MPICC})
    endif()
  endif()
  foreach(abi openmpi mpich)
    if(abi STREQUAL "openmpi")
      set(wrapper ${SYMM_OMPI_CC})
    else()
      set(wrapper ${SYMM_MPICH_CC})
    endif()
    if(NOT wrapper)
      continue()
    endif()
    _symm_mpi_words(${wrapper} compile "-I" _incs)
    find_path(_symm_mpi_h_${abi} mpi.h HINTS ${_incs} NO_DEFAULT_PATH)
    if(NOT _incs OR NOT _symm_mpi_h_${abi})
      message(STATUS "symm: MPI bootstrap plugin for ${abi}: no (${wrapper} names no mpi.h)")
      continue()
    endif()
    set(t symm_boot_mpi_${abi})
    symm_add_plugin(${t} boot-mpi-${abi}
      ${PROJECT_SOURCE_DIR}/src/boot/mpi.c ${PROJECT_SOURCE_DIR}/src/boot/boot_io.c)
    target_include_directories(${t} SYSTEM BEFORE PRIVATE ${_incs})
    target_compile_definitions(${t} PRIVATE SYMM_BOOT_MPI_PLUGIN_NAME="boot-mpi-${abi}")
    list(APPEND SYMM_MPI_PLUGINS ${abi})
    # For the tests that build an MPI program of this ABI.
    set(SYMM_MPI_${abi}_INCLUDE_DIRS "${_incs}")
    _symm_mpi_libraries(${wrapper} SYMM_MPI_${abi}_LIBRARIES)
    set(SYMM_HAVE_MPI ON)
    message(STATUS "symm: MPI bootstrap plugin for ${abi}: yes (${wrapper}: ${_incs})")
  endforeach()
  if(NOT SYMM_HAVE_MPI)
    message(STATUS "symm: MPI bootstrap: no (no MPI compiler wrapper found; install libopenmpi-dev or libmpich-dev)")
  endif()
  # The tests of MPI jobs (of the default mpicc's MPI) link MPI::MPI_C.
  find_package(MPI QUIET COMPONENTS C)
endif()
