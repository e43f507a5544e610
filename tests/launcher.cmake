# The launcher's own tests: exit codes, signals, timeouts, output integrity,
# binding, the environment contract with the library (tests/launcher/).
add_executable(lt_child launcher/lt_child.c)
add_test(NAME launcher
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/launcher/run_tests.sh $<TARGET_FILE:oshrun> $<TARGET_FILE:lt_child>)
set_tests_properties(launcher PROPERTIES TIMEOUT 300 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")

# The compiler wrapper as build systems and test suites drive it (CC=oshcc,
# make CC=oshcc, cmake -DCMAKE_C_COMPILER=oshcc): no self-recursion, libm
# linked, the --showme:* queries.
# (Not in sanitized builds: a program oshcc builds is not, and cannot load
# a sanitized libsymm.)
if(NOT SYMM_SANITIZE AND NOT SYMM_TSAN)
  add_test(NAME oshcc_wrapper
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/oshcc_test.sh ${PROJECT_BINARY_DIR})
  set_tests_properties(oshcc_wrapper PROPERTIES TIMEOUT 300)
endif()
