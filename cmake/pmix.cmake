# The PMIx bootstrap (src/boot/pmix.c): built when pmix.h is found (Debian:
# libpmix-dev). libpmix itself is loaded at run time (dlopen of libpmix.so.2,
# the soname of every PMIx since v2) only when a job runs under PMIx, so the
# library has no link dependency on it and programs never need it otherwise.
# Sets SYMM_HAVE_PMIX (cmake variable, and the C macro in the library and
# symm-info) when built.
option(SYMM_WITH_PMIX "Build the PMIx bootstrap when pmix.h is found" ON)
set(SYMM_HAVE_PMIX OFF)
if(SYMM_WITH_PMIX)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(SYMM_PMIX_PC QUIET pmix)
  endif()
  find_path(SYMM_PMIX_INCLUDE_DIR pmix.h
    HINTS ${SYMM_PMIX_PC_INCLUDE_DIRS}
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/pmix2/include /usr/include/pmix /opt/pmix/include)
  if(SYMM_PMIX_INCLUDE_DIR)
    set(SYMM_HAVE_PMIX ON)
    # The header only (-isystem: its warnings are not ours), on pmix.c only.
    set(_symm_pmix_opts "")
    foreach(_d ${SYMM_PMIX_INCLUDE_DIR} ${SYMM_PMIX_PC_INCLUDE_DIRS})
      list(APPEND _symm_pmix_opts "-isystem" "${_d}")
    endforeach()
    set_source_files_properties(${PROJECT_SOURCE_DIR}/src/boot/pmix.c PROPERTIES
      COMPILE_OPTIONS "${_symm_pmix_opts}")
    target_compile_definitions(symm_obj PRIVATE SYMM_HAVE_PMIX)
    target_link_libraries(symm PRIVATE ${CMAKE_DL_LIBS})
    target_link_libraries(symm_static INTERFACE ${CMAKE_DL_LIBS})
    # symm-info (defined after the cmake/ parts) lists the built bootstraps.
    function(_symm_pmix_tell_info)
      if(TARGET symm-info)
        target_compile_definitions(symm-info PRIVATE SYMM_HAVE_PMIX)
      endif()
    endfunction()
    cmake_language(DEFER CALL _symm_pmix_tell_info)
    message(STATUS "symm: PMIx bootstrap: yes (${SYMM_PMIX_INCLUDE_DIR}/pmix.h; libpmix.so.2 loaded at run time)")
  else()
    message(STATUS "symm: PMIx bootstrap: no (pmix.h not found; install libpmix-dev)")
  endif()
endif()
