# CPU streams (src/stream, include/symm_stream.h): install the public header
# (shmemx.h includes it) and build the overlap benchmark, symm-stream-bench:
# compute + a put one after the other, against the put on a stream while the
# caller computes.
install(FILES ${PROJECT_SOURCE_DIR}/include/symm_stream.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

add_executable(symm-stream-bench ${PROJECT_SOURCE_DIR}/bench/stream_overlap.c)
target_link_libraries(symm-stream-bench PRIVATE symm)
set_target_properties(symm-stream-bench PROPERTIES
  BUILD_RPATH "${PROJECT_BINARY_DIR}"
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS symm-stream-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
