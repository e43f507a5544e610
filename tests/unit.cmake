# Single-process unit tests of internal modules, built from the module's
# source with the library's internal headers (no libsymm, no launcher).

# The symmetric heap allocator (src/mem/alloc.c) alone.
add_executable(test_alloc unit/test_alloc.c ${PROJECT_SOURCE_DIR}/src/mem/alloc.c
  ${PROJECT_SOURCE_DIR}/src/runtime/fault.c ${PROJECT_SOURCE_DIR}/src/runtime/log.c)
target_include_directories(test_alloc PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME unit_alloc COMMAND test_alloc)
set_tests_properties(unit_alloc PROPERTIES TIMEOUT 60)
