# The seeded randomized stress tester (tests/stress/, docs/stress.md) and
# its runner scripts/stress.sh. The CI slice: fixed seeds, one test per
# group of configurations so ctest -j runs them side by side (the runner
# picks a smaller slice in an ASan build, and in a TSan build only the
# threaded group without UCX, named so that scripts/test.sh's TSan filter
# takes it); and the runner's self-test (an injected failure is reported
# with its seed and replays exactly). The slice holds the seeds that found
# bugs: 24 (ucx-threads2-np3, quiet under threads) and 25 (ucx-noprog-np4,
# test_lock without progress).
find_package(Threads REQUIRED)
file(GLOB SYMM_STRESS_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/stress/*.c)
add_executable(stress ${SYMM_STRESS_SOURCES})
target_link_libraries(stress PRIVATE symm Threads::Threads m)
target_include_directories(stress PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/stress)

set(stress_runner ${PROJECT_SOURCE_DIR}/scripts/stress.sh)
set(stress_args --build ${PROJECT_BINARY_DIR})
if(NOT SYMM_HAVE_UCX)
  list(APPEND stress_args --no-ucx)
endif()
set(stress_t 300)
if(SYMM_SANITIZE OR SYMM_TSAN)
  set(stress_t 900)
endif()
if(SYMM_TSAN)
  set(stress_groups threads)
elseif(SYMM_HAVE_UCX)
  set(stress_groups shm threads ucx nodes)
else()
  set(stress_groups shm threads)
endif()
foreach(g ${stress_groups})
  add_test(NAME stress_slice_${g} COMMAND ${stress_runner} ${stress_args} --slice ${g})
  set_tests_properties(stress_slice_${g} PROPERTIES TIMEOUT ${stress_t} LABELS stress
    FAIL_REGULAR_EXPRESSION "UCX +WARN")
endforeach()
if(NOT SYMM_TSAN)
  add_test(NAME stress_selftest
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/stress_selftest.sh ${stress_runner}
            ${PROJECT_BINARY_DIR})
  set_tests_properties(stress_selftest PROPERTIES TIMEOUT 120 LABELS stress)
endif()
