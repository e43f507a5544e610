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

# Legacy SMA_ names (pe/env_alias.c checks the heap size they set): alone,
# an alias sets the variable and SHMEM_INFO (SMA_INFO here) lists it; with
# both set and disagreeing, the SHMEM_ name wins with a one-line warning;
# agreeing, no warning.
add_executable(env_alias pe/env_alias.c)
target_link_libraries(env_alias PRIVATE symm)
target_include_directories(env_alias PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME env_alias_alone
  COMMAND ${SYMM_OSHRUN} --timeout 30 -np 2 $<TARGET_FILE:env_alias> 67108864)
set_tests_properties(env_alias_alone PROPERTIES TIMEOUT 40
  ENVIRONMENT "SMA_SYMMETRIC_SIZE=64M;SMA_INFO=1;SMA_VERSION=1;SMA_DEBUG=1"
  PASS_REGULAR_EXPRESSION "SMA_SYMMETRIC_SIZE +64M +\\(alias of SHMEM_SYMMETRIC_SIZE, set\\)"
  FAIL_REGULAR_EXPRESSION "FAIL:|disagree|SHMEM_DEBUG +0 ")
add_test(NAME env_alias_disagree
  COMMAND ${SYMM_OSHRUN} --timeout 30 -np 1 $<TARGET_FILE:env_alias> 33554432)
set_tests_properties(env_alias_disagree PROPERTIES TIMEOUT 40
  ENVIRONMENT "SMA_SYMMETRIC_SIZE=64M;SHMEM_SYMMETRIC_SIZE=32M"
  PASS_REGULAR_EXPRESSION "SMA_SYMMETRIC_SIZE=64M and SHMEM_SYMMETRIC_SIZE=32M disagree: using SHMEM_SYMMETRIC_SIZE"
  FAIL_REGULAR_EXPRESSION "FAIL:")
add_test(NAME env_alias_agree
  COMMAND ${SYMM_OSHRUN} --timeout 30 -np 1 $<TARGET_FILE:env_alias> 33554432)
set_tests_properties(env_alias_agree PROPERTIES TIMEOUT 40
  ENVIRONMENT "SMA_SYMMETRIC_SIZE=32M;SHMEM_SYMMETRIC_SIZE=32768K"
  FAIL_REGULAR_EXPRESSION "FAIL:|disagree")
