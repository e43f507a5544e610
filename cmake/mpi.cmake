# The MPI bootstrap (src/boot/mpi.c): built when an MPI is found (Debian:
# libopenmpi-dev). The library neither includes mpi.h nor links libmpi: it
# finds the functions and Open MPI's predefined handles at run time in the
# libmpi the program loaded itself, so programs without MPI never need
# libmpi. Supports Open MPI's ABI. Sets SYMM_HAVE_MPI (cmake variable, and the
# C macro in the library and symm-info) when built; the tests use MPI::MPI_C.
option(SYMM_WITH_MPI "Build the MPI bootstrap when an MPI is found" ON)
set(SYMM_HAVE_MPI OFF)
if(SYMM_WITH_MPI)
  find_package(MPI QUIET COMPONENTS C)
  if(MPI_C_FOUND)
    set(SYMM_HAVE_MPI ON)
    target_compile_definitions(symm_obj PRIVATE SYMM_HAVE_MPI)
    target_link_libraries(symm PRIVATE ${CMAKE_DL_LIBS})
    target_link_libraries(symm_static INTERFACE ${CMAKE_DL_LIBS})
    function(_symm_mpi_tell_info)
      if(TARGET symm-info)
        target_compile_definitions(symm-info PRIVATE SYMM_HAVE_MPI)
      endif()
    endfunction()
    cmake_language(DEFER CALL _symm_mpi_tell_info)
    message(STATUS "symm: MPI bootstrap: yes (MPI ${MPI_C_VERSION}, ${MPI_C_LIBRARIES}; libmpi found at run time, Open MPI ABI)")
  else()
    message(STATUS "symm: MPI bootstrap: no (no MPI found; install libopenmpi-dev)")
  endif()
endif()
