# Single-process unit tests of internal modules, built from the module's
# source with the library's internal headers (no libsymm, no launcher).

# The symmetric heap allocator (src/mem/alloc.c) alone.
add_executable(test_alloc unit/test_alloc.c ${PROJECT_SOURCE_DIR}/src/mem/alloc.c
  ${PROJECT_SOURCE_DIR}/src/runtime/fault.c ${PROJECT_SOURCE_DIR}/src/runtime/log.c)
target_include_directories(test_alloc PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME unit_alloc COMMAND test_alloc)
set_tests_properties(unit_alloc PROPERTIES TIMEOUT 60)

# The SYMM_ATOMICS rule (src/runtime/atomics.c): UCX's reports read, device
# atomics included (no NIC here), and the decision with its reason; the
# variable's values through the configuration's parse (runtime/config.c).
add_executable(test_atomics unit/test_atomics.c ${PROJECT_SOURCE_DIR}/src/runtime/atomics.c
  ${PROJECT_SOURCE_DIR}/src/runtime/fault.c ${PROJECT_SOURCE_DIR}/src/runtime/log.c
  ${PROJECT_SOURCE_DIR}/src/runtime/config.c)
target_include_directories(test_atomics PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_include_directories(test_atomics PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME unit_atomics COMMAND test_atomics)
set_tests_properties(unit_atomics PROPERTIES TIMEOUT 60)

# The watcher's hang figure (runtime/pestatus.h symm_pe_blocked_ms): one
# read of the record, beside a thread that publishes and clears calls.
find_package(Threads REQUIRED)
add_executable(test_pestatus unit/test_pestatus.c)
target_include_directories(test_pestatus PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_pestatus PRIVATE Threads::Threads)
add_test(NAME unit_pestatus COMMAND test_pestatus)
set_tests_properties(unit_pestatus PROPERTIES TIMEOUT 60)

# SHMEM_DEBUG's record of heap blocks (src/mem/blocks.c): lookups, the
# finalize listing, and a reader beside the writer (named for the
# ThreadSanitizer stage of scripts/test.sh, which runs "threads").
add_executable(test_blocks unit/test_blocks.c ${PROJECT_SOURCE_DIR}/src/mem/blocks.c)
target_include_directories(test_blocks PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_blocks PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
add_test(NAME unit_blocks_threads COMMAND test_blocks)
set_tests_properties(unit_blocks_threads PROPERTIES TIMEOUT 60)
