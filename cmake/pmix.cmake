# The PMIx bootstrap (src/boot/pmix.c): the plugin libsymm-boot-pmix.so
# (runtime/plugin.h), built when pmix.h and libpmix are found (Debian:
# libpmix-dev) and linked with libpmix. libsymm loads it only for a job
# under a PMIx launcher (or SYMM_BOOTSTRAP=pmix), so programs never need
# libpmix otherwise. Sets SYMM_HAVE_PMIX (cmake variable) when built: the
# tests of PMIx launches are registered then.
option(SYMM_WITH_PMIX "Build the PMIx bootstrap plugin when PMIx is found" ON)
set(SYMM_HAVE_PMIX OFF)
if(SYMM_WITH_PMIX)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(SYMM_PMIX_PC QUIET pmix)
  endif()
  find_path(SYMM_PMIX_INCLUDE_DIR pmix.h
    HINTS ${SYMM_PMIX_PC_INCLUDE_DIRS}
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/pmix2/include /usr/include/pmix /opt/pmix/include)
  find_library(SYMM_PMIX_LIBRARY NAMES pmix libpmix.so.2
    HINTS ${SYMM_PMIX_PC_LIBRARY_DIRS}
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/pmix2/lib /opt/pmix/lib)
  if(SYMM_PMIX_INCLUDE_DIR AND SYMM_PMIX_LIBRARY)
    set(SYMM_HAVE_PMIX ON)
    symm_add_plugin(symm_boot_pmix boot-pmix
      ${PROJECT_SOURCE_DIR}/src/boot/pmix.c ${PROJECT_SOURCE_DIR}/src/boot/boot_io.c)
    # -isystem: the header's warnings are not ours.
    target_include_directories(symm_boot_pmix SYSTEM PRIVATE ${SYMM_PMIX_INCLUDE_DIR}
      ${SYMM_PMIX_PC_INCLUDE_DIRS})
    target_link_libraries(symm_boot_pmix PRIVATE ${SYMM_PMIX_LIBRARY})
    message(STATUS "symm: PMIx bootstrap plugin: yes (${SYMM_PMIX_INCLUDE_DIR}/pmix.h, ${SYMM_PMIX_LIBRARY})")
  else()
    message(STATUS "symm: PMIx bootstrap plugin: no (pmix.h or libpmix not found; install libpmix-dev)")
  endif()
endif()
