# The seeded randomized stress tester (tests/stress/, docs/stress.md) and
# its runner scripts/stress.sh. Registered here: the CI slice (fixed seeds,
# one test per group of configurations so ctest -j runs them side by side),
# smaller under the sanitizers, and the runner's self-test.
find_package(Threads REQUIRED)
file(GLOB SYMM_STRESS_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/stress/*.c)
add_executable(stress ${SYMM_STRESS_SOURCES})
target_link_libraries(stress PRIVATE symm Threads::Threads m)
target_include_directories(stress PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/stress)
