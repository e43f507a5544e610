# ucx.cmake - the UCX network transport (src/transport/ucx/), built when the
# UCX headers are found (Debian: libucx-dev; option SYMM_UCX, default ON).
# libucp itself is loaded at run time (dlopen of libucp.so.0) by jobs that
# have PEs on other nodes or set SYMM_TRANSPORT=ucx, so libsymm has no link
# dependency on UCX and other programs never load it (nor its memory hooks).
# Without the headers symm reaches only node-local PEs, and a job spanning
# nodes fails at init saying so.
option(SYMM_UCX "Build the UCX network transport when the UCX headers are found" ON)
set(SYMM_HAVE_UCX OFF)
if(SYMM_UCX)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(UCX QUIET ucx)
  endif()
  if(UCX_FOUND)
    set(SYMM_HAVE_UCX ON)
    message(STATUS "symm: UCX ${UCX_VERSION} network transport (libucp.so.0 loaded at run time)")
  else()
    message(STATUS "symm: UCX headers not found (libucx-dev): node-local transport only")
  endif()
endif()
if(SYMM_HAVE_UCX)
  target_compile_definitions(symm_obj PRIVATE SYMM_HAVE_UCX)
  target_include_directories(symm_obj SYSTEM PRIVATE ${UCX_INCLUDE_DIRS})
  target_link_libraries(symm PRIVATE ${CMAKE_DL_LIBS})
  target_link_libraries(symm_static INTERFACE ${CMAKE_DL_LIBS})
endif()
