# The network transport (UCX): pe/remote.c with every peer unmapped, the
# SYMM_TRANSPORT errors, and the two-namespace jobs (root only; skipped with
# their reason elsewhere). The rest of the suite runs again under
# SYMM_TRANSPORT=ucx through symm_pe_test (label ucx).
symm_pe_test(remote NOUCX)
symm_expect_fail(transport_bad 2 "SYMM_TRANSPORT='bogus' is not one of auto, shm, ucx"
  ${CMAKE_COMMAND} -E env SYMM_TRANSPORT=bogus $<TARGET_FILE:empty>)
# Every choice variable (an ENUM row of env_def.h) is parsed at init: a bad
# value fails init on every PE naming the choices, whether or not the job
# would have used it.
symm_expect_fail(hugepages_bad 2 "SYMM_HUGEPAGES='maybe' is not one of auto, on, off"
  ${CMAKE_COMMAND} -E env SYMM_HUGEPAGES=maybe $<TARGET_FILE:empty>)
symm_expect_fail(progress_thread_bad 2 "SYMM_PROGRESS_THREAD='2' is not one of auto, 0, 1"
  ${CMAKE_COMMAND} -E env SYMM_PROGRESS_THREAD=2 $<TARGET_FILE:empty>)
if(SYMM_HAVE_UCX)
  symm_pe_test(remote_ucx PROGRAM remote NPS 2 4 ENV SYMM_TRANSPORT=ucx ARGS remote NOUCX
    TIMEOUT 120)
  # Atomics on PEs that compute without calling symm: over tcp (atomics
  # emulated in software) they finish only through the progress thread.
  symm_pe_test(remote_progress PROGRAM remote NPS 2 4 ARGS progress NOUCX TIMEOUT 60
    ENV SYMM_TRANSPORT=ucx UCX_TLS=tcp SYMM_PROGRESS_THREAD=1)
  # First contacts of every PE with every other at once, straight after
  # init (endpoints are made on first use).
  symm_pe_test(remote_connect PROGRAM remote NPS 2 4 ARGS connect NOUCX TIMEOUT 120
    ENV SYMM_TRANSPORT=ucx)
  add_test(NAME netns
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh
      "$<TARGET_FILE:remote> remote" $<TARGET_FILE:rma_sizes> $<TARGET_FILE:amo>
      $<TARGET_FILE:signal> $<TARGET_FILE:p2p> $<TARGET_FILE:lock> $<TARGET_FILE:coll_barrier>
      $<TARGET_FILE:ctx> $<TARGET_FILE:threads> $<TARGET_FILE:coll> $<TARGET_FILE:coll_skew>
      $<TARGET_FILE:region>)
  set_tests_properties(netns PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS ucx)
  # Two PEs per namespace: every group mixes mapped peers (memcpy) and
  # network peers (UCX) in one collective.
  add_test(NAME netns_mixed
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh
      $<TARGET_FILE:coll> $<TARGET_FILE:team> $<TARGET_FILE:active> $<TARGET_FILE:amo>
      $<TARGET_FILE:rma_sizes> $<TARGET_FILE:coll_barrier> $<TARGET_FILE:coll_skew>
      $<TARGET_FILE:region>)
  # Sanitized builds: each program may take several times longer over UCX
  # (coll ran past 120 s under ASan once); the same 3x as the .ucx tests.
  set(netns_t 120)
  set(netns_total 600)
  if(SYMM_SANITIZE OR SYMM_TSAN)
    set(netns_t 360)
    set(netns_total 1500)
  endif()
  set_tests_properties(netns_mixed PROPERTIES TIMEOUT ${netns_total} SKIP_RETURN_CODE 77
    LABELS ucx ENVIRONMENT "NETNS_PPN=2;NETNS_TIMEOUT=${netns_t}")
  # The same mixed groups with node-aware collectives off: every member
  # exchanges messages with every other, mapped or not.
  add_test(NAME netns_mixed_flat
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh
      $<TARGET_FILE:coll_skew> $<TARGET_FILE:coll>)
  set_tests_properties(netns_mixed_flat PROPERTIES TIMEOUT ${netns_total} SKIP_RETURN_CODE 77
    LABELS ucx ENVIRONMENT "NETNS_PPN=2;NETNS_TIMEOUT=${netns_t};SYMM_COLL_NODE_AWARE=0")
  # Node-aware collectives where a node's members are not consecutive in
  # the team (ranks dealt out in turn: 0, 2 | 1, 3); active: whole-world
  # active sets run on the world team's node-aware algorithms, the root's
  # dest untouched, from every root.
  add_test(NAME netns_mixed_cyclic
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh
      $<TARGET_FILE:coll> $<TARGET_FILE:coll_skew> $<TARGET_FILE:active>)
  set_tests_properties(netns_mixed_cyclic PROPERTIES TIMEOUT ${netns_total} SKIP_RETURN_CODE 77
    LABELS ucx ENVIRONMENT "NETNS_PPN=2;NETNS_CYCLIC=1;NETNS_TIMEOUT=${netns_t}")
  # More than two nodes (scripts/netns_cluster.sh's bridge): the reductions
  # on 3 nodes of 2 PEs and 4 of 1, the pipelined form's segments short,
  # eager and by rendezvous.
  add_test(NAME netns_cluster_reduce
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_cluster_test.sh $<TARGET_FILE:coll> reduce)
  set_tests_properties(netns_cluster_reduce PROPERTIES TIMEOUT ${netns_total}
    SKIP_RETURN_CODE 77 LABELS ucx ENVIRONMENT "NETNS_TIMEOUT=${netns_t}")
  # A PE on the other "node" dies: its peer ends with a message naming it.
  add_test(NAME netns_death
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh "$<TARGET_FILE:remote> die")
  set_tests_properties(netns_death PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS ucx
    ENVIRONMENT "NETNS_EXPECT_FAIL=PE 1 \\([^,]+, pid [0-9]+\\) died or became unreachable: connection lost")
  add_test(NAME netns_death_coll
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh "$<TARGET_FILE:remote> die_coll")
  set_tests_properties(netns_death_coll PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS ucx
    ENVIRONMENT "SYMM_UCX_BULK_EP=1;NETNS_EXPECT_FAIL=PE 1 \\([^,]+, pid [0-9]+\\) died or became unreachable: connection lost")
  # Every collective message on the second endpoint (SYMM_UCX_BULK_EP) where
  # the peer is on the other "node", mapped peers in the same groups.
  add_test(NAME netns_bulk
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh "$<TARGET_FILE:coll> data"
      $<TARGET_FILE:coll_skew>)
  set_tests_properties(netns_bulk PROPERTIES TIMEOUT ${netns_total} SKIP_RETURN_CODE 77
    LABELS ucx ENVIRONMENT "NETNS_PPN=2;NETNS_TIMEOUT=${netns_t};SYMM_UCX_BULK_EP=1;SYMM_COLL_EAGER_MAX=0;SYMM_COLL_EXCHANGE_EAGER_MAX=0")
  # SYMM_UCX_BULK_EP=auto by the namespace's TCP congestion control, as
  # symm-info states it; a bad value fails init on every PE, naming it.
  add_test(NAME ucx_bulk_rule
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/bulk_rule.sh $<TARGET_FILE:symm-info>)
  set_tests_properties(ucx_bulk_rule PROPERTIES TIMEOUT 30 SKIP_RETURN_CODE 77 LABELS ucx)
  symm_expect_fail(ucx_bulk_ep_bad 2 "SYMM_UCX_BULK_EP='bogus' is not one of auto, 0, 1"
    ${CMAKE_COMMAND} -E env SYMM_UCX_BULK_EP=bogus SYMM_NODE_SIZE=1 $<TARGET_FILE:empty>)
  # 2 PEs per "node", one SIGKILLed mid-barrier: its node-local peer names
  # it (core/watch.c), the other node's PEs lose their connection to it.
  add_test(NAME netns_kill
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh "$<TARGET_FILE:errors> kill_self")
  set_tests_properties(netns_kill PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS ucx
    ENVIRONMENT "NETNS_PPN=2;NETNS_TIMEOUT=60;NETNS_EXPECT_FAIL=symm: PE 3 \\([^,]+, pid [0-9]+\\) died: .*PE 2 in shmem_barrier_all")
  # 2 PEs per "node": PE 3 waits for a value nobody writes, the others in a
  # barrier. One report for the job (ops/fail_report.h) names every PE's
  # call, the other node's read through UCX over TCP (core/watch.c); and a
  # collective mismatch across the namespaces is printed once.
  add_test(NAME netns_hang
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_once.sh
      "has waited [0-9]+ s \\(SYMM_HANG_TIMEOUT\\) in one call"
      --match "PE 0 \\([^)]*\\): in shmem_barrier_all on SHMEM_TEAM_WORLD"
      --match "PE 1 \\([^)]*\\): in shmem_barrier_all on SHMEM_TEAM_WORLD"
      --match "PE 2 \\([^)]*\\): in shmem_barrier_all on SHMEM_TEAM_WORLD"
      --match "PE 3 \\([^)]*\\): in shmem_int_wait_until\\(data\\+[0-9]+, SHMEM_CMP_EQ 42. now 0\\)"
      ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh "$<TARGET_FILE:errors> hang")
  set_tests_properties(netns_hang PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS ucx
    ENVIRONMENT "NETNS_PPN=2;NETNS_TIMEOUT=60;SYMM_HANG_TIMEOUT=1")
  add_test(NAME netns_mismatch
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_once.sh "collective mismatch"
      --match "collective mismatch on SHMEM_TEAM_WORLD call #[0-9]+: PE [0-9]+ in shmem_"
      ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh "$<TARGET_FILE:errors> coll_mismatch")
  set_tests_properties(netns_mismatch PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS ucx
    ENVIRONMENT "NETNS_PPN=2;NETNS_TIMEOUT=60;SHMEM_DEBUG=1")
else()
  symm_expect_fail(transport_ucx_missing 2 "built without UCX"
    ${CMAKE_COMMAND} -E env SYMM_TRANSPORT=ucx $<TARGET_FILE:empty>)
endif()
