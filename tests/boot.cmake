# The bootstrap in isolation: forked jobs of 1..16 PEs without oshrun
# (barrier, allgather, fd passing, bad secret refused, timeouts naming PEs).
add_executable(test_boot unit/test_boot.c)
target_link_libraries(test_boot PRIVATE symm_static)
target_include_directories(test_boot PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME test_boot COMMAND test_boot)
set_tests_properties(test_boot PROPERTIES TIMEOUT 120)

# aclshmem DEFAULT mode's job secret: known answers, key sources, refusals.
add_executable(test_secret unit/test_secret.c)
target_link_libraries(test_secret PRIVATE symm_static)
target_include_directories(test_secret PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME boot_secret COMMAND test_secret)
set_tests_properties(boot_secret PROPERTIES TIMEOUT 30)

# The tree bootstrap (src/boot/tcp/tcp_tree.c), forced at 1..64 PEs (oversubscribed),
# fan-out 16 and 2, oshrun-style and unique-id jobs, and its failures: a PE
# that never starts, skips a barrier, dies, or calls otherwise; a star PE in
# a tree job; an impostor at the directory. With TLS (the default) and
# without.
add_executable(test_boot_tree unit/test_boot_tree.c)
target_link_libraries(test_boot_tree PRIVATE symm_static)
target_include_directories(test_boot_tree PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME test_boot_tree COMMAND test_boot_tree)
add_test(NAME test_boot_tree_tls_off COMMAND test_boot_tree)
set_tests_properties(test_boot_tree PROPERTIES TIMEOUT 180)
set_tests_properties(test_boot_tree_tls_off PROPERTIES TIMEOUT 180 ENVIRONMENT SYMM_BOOT_TLS=0)
