# ucx.cmake - the UCX network transport (src/transport/ucx/): the plugin
# libsymm-ucx.so (runtime/plugin.h), built when UCX's headers and libraries
# are found (Debian: libucx-dev; option SYMM_UCX, default ON) and linked
# with libucp, libuct and libucs. libsymm opens it only for jobs that have
# PEs on other nodes or set SYMM_TRANSPORT=ucx, so libsymm has no link
# dependency on UCX and other programs never load it (nor its memory
# hooks). Without it symm reaches only node-local PEs, and a job spanning
# nodes fails at init saying so. Sets SYMM_HAVE_UCX (cmake variable) when
# built: the tests over UCX are registered then.
option(SYMM_UCX "Build the UCX network transport plugin when UCX is found" ON)
set(SYMM_HAVE_UCX OFF)
if(SYMM_UCX)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(UCX QUIET ucx)
  endif()
  if(UCX_FOUND)
    find_library(SYMM_UCP_LIBRARY ucp HINTS ${UCX_LIBRARY_DIRS})
    find_library(SYMM_UCT_LIBRARY uct HINTS ${UCX_LIBRARY_DIRS})
    find_library(SYMM_UCS_LIBRARY ucs HINTS ${UCX_LIBRARY_DIRS})
  endif()
  if(UCX_FOUND AND SYMM_UCP_LIBRARY AND SYMM_UCT_LIBRARY AND SYMM_UCS_LIBRARY)
    set(SYMM_HAVE_UCX ON)
    file(GLOB _symm_ucx_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/transport/ucx/*.c)
    # net_rule.c and runtime/atomics.c keep no state: the plugin has its own copy.
    symm_add_plugin(symm_ucx ucx ${_symm_ucx_sources} ${PROJECT_SOURCE_DIR}/src/transport/net_rule.c
      ${PROJECT_SOURCE_DIR}/src/runtime/atomics.c)
    target_include_directories(symm_ucx SYSTEM PRIVATE ${UCX_INCLUDE_DIRS})
    target_link_libraries(symm_ucx PRIVATE ${SYMM_UCP_LIBRARY} ${SYMM_UCT_LIBRARY}
      ${SYMM_UCS_LIBRARY} pthread)
    message(STATUS "symm: UCX ${UCX_VERSION} network transport plugin: yes (${SYMM_UCP_LIBRARY})")
  else()
    message(STATUS "symm: UCX network transport plugin: no (UCX not found; install libucx-dev): node-local transport only")
  endif()
endif()
