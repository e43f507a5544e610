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

# The bootstrap alone at scale (bench/boot_scale.c, docs/performance.md):
# here a small run whose every allgathered byte is checked, a star-shaped
# fan-out and a deep one.
add_executable(boot_scale ${PROJECT_SOURCE_DIR}/bench/boot_scale.c)
target_link_libraries(boot_scale PRIVATE symm_static)
target_include_directories(boot_scale PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
add_test(NAME boot_scale_k16 COMMAND boot_scale -t 1 -r 3 1 2 4 40)
add_test(NAME boot_scale_k2 COMMAND boot_scale -k 2 -t 1 -r 3 7 40)
set_tests_properties(boot_scale_k16 boot_scale_k2 PROPERTIES TIMEOUT 120)

# A connect retried while rank 0 does not listen yet may be given the job's
# port as its own, and TCP joins the socket to itself: the bootstrap retries
# (scripts/self_connect.sh, in a network namespace whose few ephemeral ports
# include the job's). Star at 1, 2 and 4 PEs; a tree of fan-out 2 at 5.
# Skipped (77) only where no network namespace can be made (no root or no
# CAP_SYS_ADMIN), as the netns tests are; scripts/test.sh runs as root.
foreach(np 1 2 4)
  add_test(NAME boot_self_connect.np${np}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/self_connect.sh ${np} $<TARGET_FILE:coll>)
  set_tests_properties(boot_self_connect.np${np} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME boot_self_connect_tree.np5
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/self_connect.sh 5 $<TARGET_FILE:coll>)
set_tests_properties(boot_self_connect_tree.np5 PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
  ENVIRONMENT "SYMM_BOOT_TREE_K=2")

# Rank 0's port held by another socket for 3.5 s: it says so once and keeps
# trying, and the job runs (scripts/port_taken.sh).
add_test(NAME boot_port_taken
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/port_taken.sh $<TARGET_FILE:coll>)
set_tests_properties(boot_port_taken PROPERTIES TIMEOUT 90)
