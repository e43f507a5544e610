# The tree bootstrap (src/boot/tcp/tcp_tree.c) under oshrun and in unique-id
# mode, whole programs at 17..128 PEs (oversubscribed; at the default
# fan-out 16, 17 PEs is a star and 33 on a tree of two levels): init's every
# bootstrap round (node discovery, layout check, descriptor passing, the
# agreements) and finalize go through the tree. test_boot_tree (boot.cmake) checks the collectives' results and
# failures in isolation; the kill tests (faults.cmake) the job's end.
foreach(np 17 33 64)
  add_test(NAME boot_tree_empty.np${np}
    COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} $<TARGET_FILE:empty>)
  set_tests_properties(boot_tree_empty.np${np} PROPERTIES TIMEOUT 70)
endforeach()
add_test(NAME boot_tree_empty_tls_off.np33
  COMMAND ${SYMM_OSHRUN} --timeout 60 -np 33 $<TARGET_FILE:empty>)
set_tests_properties(boot_tree_empty_tls_off.np33 PROPERTIES TIMEOUT 70
  ENVIRONMENT "SYMM_BOOT_TLS=0")
# A deep tree (fan-out 2: every PE but the leaves relays) under a program
# that checks its collectives' results.
add_test(NAME boot_tree_coll_k2.np16
  COMMAND ${SYMM_OSHRUN} --timeout 120 -np 16 $<TARGET_FILE:coll> data)
set_tests_properties(boot_tree_coll_k2.np16 PROPERTIES TIMEOUT 130
  ENVIRONMENT "SYMM_BOOT_TREE_K=2")
# UNIQUEID mode (aclshmem): rank 0's address is all the others know.
foreach(np 4 17 33)
  set(uid_file ${CMAKE_CURRENT_BINARY_DIR}/boot_tree_uid.np${np}.uid)
  add_test(NAME boot_tree_uid.np${np}
    COMMAND bash -c "rm -f '${uid_file}' && exec \"$0\" --timeout 60 -np ${np} \"$1\" '${uid_file}'"
            ${SYMM_OSHRUN} $<TARGET_FILE:acl_uniqueid>)
  set_tests_properties(boot_tree_uid.np${np} PROPERTIES TIMEOUT 70
    ENVIRONMENT "SYMM_BOOT_TREE_K=4")
endforeach()
# 128 PEs: a tree of depth 2 at the default fan-out.
add_test(NAME boot_tree_default.np128
  COMMAND ${SYMM_OSHRUN} --timeout 100 -np 128 $<TARGET_FILE:empty>)
set_tests_properties(boot_tree_default.np128 PROPERTIES TIMEOUT 110)
