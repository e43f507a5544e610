# The launcher's own tests: exit codes, signals, timeouts, output integrity,
# binding, the environment contract with the library (tests/launcher/).
add_executable(lt_child launcher/lt_child.c)
add_test(NAME launcher
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/launcher/run_tests.sh $<TARGET_FILE:oshrun> $<TARGET_FILE:lt_child>)
set_tests_properties(launcher PROPERTIES TIMEOUT 300 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
