# Several nodes emulated on this machine (SYMM_NODE_SIZE=k: each k
# consecutive PEs of the host form a node, mapped to each other only; the
# others are reached through UCX as if on other machines; SYMM_NODE_CYCLIC
# deals the PEs out in turn instead, so a node's members are not
# consecutive in the world or in strided teams). The collectives'
# correctness programs run over 1, 2, 3, 4 and 8 emulated nodes of 1-3 PEs:
# coll (quick: every routine and type, nelems up to 7, collect with some PEs
# contributing 0 elements; on WORLD, SHARED = the emulated node, stride 2,
# stride -1, split_2d rows and columns, single PEs), coll_skew (back to
# back, a PE lagging), active (whole-world active sets run on the world
# team's node-aware forms) and team (TEST_PES_PER_NODE: SHARED must be the
# emulated node). The heads' exchange runs as chosen (auto: direct up to 8
# nodes), past SYMM_COLL_DIRECT_NODES (Bruck for these small blocks at 8
# nodes), and forced to the ring and to Bruck at 2-8 nodes; coll data (nelems
# up to 1001) with SYMM_COLL_EAGER_MAX=0 and SYMM_COLL_EXCHANGE_EAGER_MAX=0
# sends every block by rendezvous; with SYMM_COLL_EAGER_MAX=1K alone,
# broadcasts send blocks past 1 KiB by rendezvous and exchanges send them
# eagerly (SYMM_COLL_EXCHANGE_EAGER_MAX), and with that at 4K too, an
# exchange's round goes eagerly or by rendezvous by its size.
if(SYMM_HAVE_UCX)
  set(nodes_t 120)
  if(SYMM_SANITIZE OR SYMM_TSAN)
    set(nodes_t 360)
  endif()
  # symm_nodes_test(NAME PROGRAM NP K [ENV var=value...] [ARGS arg...]):
  # test NAME.npNP.kK, PROGRAM under oshrun -np NP with SYMM_NODE_SIZE=K.
  function(symm_nodes_test name prog np k)
    cmake_parse_arguments(T "" "" "ENV;ARGS" ${ARGN})
    add_test(NAME ${name}.np${np}.k${k}
      COMMAND ${SYMM_OSHRUN} --timeout ${nodes_t} -np ${np} $<TARGET_FILE:${prog}> ${T_ARGS})
    # No UCX_TLS: symm leaves out UCX's shared-memory transports here
    # (every unmapped peer is on another node), as on a cluster, and UCX
    # must not warn about it (it did while symm named knem and xpmem,
    # which this UCX lacks).
    set_tests_properties(${name}.np${np}.k${k} PROPERTIES TIMEOUT ${nodes_t} LABELS ucx
      ENVIRONMENT "SYMM_NODE_SIZE=${k};${T_ENV}" FAIL_REGULAR_EXPRESSION "UCX +WARN")
  endfunction()

  foreach(npk 3:3 4:1 4:2 6:2 6:3 8:1 8:2 9:3)
    string(REPLACE ":" ";" npk ${npk})
    list(GET npk 0 np)
    list(GET npk 1 k)
    symm_nodes_test(coll_nodes coll ${np} ${k} ARGS quick)
  endforeach()
  foreach(npk 4:2 6:2 8:2)
    string(REPLACE ":" ";" npk ${npk})
    list(GET npk 0 np)
    list(GET npk 1 k)
    symm_nodes_test(coll_nodes_cyclic coll ${np} ${k} ARGS quick ENV SYMM_NODE_CYCLIC=1)
  endforeach()
  symm_nodes_test(coll_nodes_ring coll 4 1 ARGS quick ENV SYMM_COLL_HEADS=ring)
  symm_nodes_test(coll_nodes_ring coll 6 2 ARGS quick ENV SYMM_COLL_HEADS=ring SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_nodes_ring coll 8 2 ARGS quick ENV SYMM_COLL_HEADS=ring)
  symm_nodes_test(coll_nodes_bruck coll 4 1 ARGS quick ENV SYMM_COLL_HEADS=bruck)
  symm_nodes_test(coll_nodes_bruck coll 6 2 ARGS quick ENV SYMM_COLL_HEADS=bruck)
  symm_nodes_test(coll_nodes_bruck coll 8 2 ARGS quick ENV SYMM_COLL_HEADS=bruck SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_nodes_bruck coll 9 3 ARGS quick ENV SYMM_COLL_HEADS=bruck SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_nodes_rndv coll 4 1 ARGS data
    ENV SYMM_COLL_HEADS=ring SYMM_COLL_EAGER_MAX=0 SYMM_COLL_EXCHANGE_EAGER_MAX=0)
  symm_nodes_test(coll_nodes_rndv coll 6 2 ARGS data
    ENV SYMM_COLL_HEADS=bruck SYMM_COLL_EAGER_MAX=0 SYMM_COLL_EXCHANGE_EAGER_MAX=0
        SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_nodes_xeager coll 2 1 ARGS data ENV SYMM_COLL_EAGER_MAX=1K)
  symm_nodes_test(coll_nodes_xeager coll 4 2 ARGS data
    ENV SYMM_COLL_EAGER_MAX=1K SYMM_COLL_EXCHANGE_EAGER_MAX=4K)
  # The split fcollect and alltoall (no head; SYMM_COLL_SPLIT_MIN=1 sends
  # every block that way): nodes of 2, of 3 dealt cyclically, uneven nodes
  # (5 PEs in nodes of 2, 2 and 1: member r mod L of a smaller node), by
  # rendezvous in short segments, back to back with a PE lagging.
  symm_nodes_test(coll_nodes_split coll 4 2 ARGS quick ENV SYMM_COLL_SPLIT_MIN=1)
  symm_nodes_test(coll_nodes_split coll 5 2 ARGS quick ENV SYMM_COLL_SPLIT_MIN=1)
  symm_nodes_test(coll_nodes_split coll 6 3 ARGS quick ENV SYMM_COLL_SPLIT_MIN=1 SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_nodes_split_rndv coll 4 2 ARGS data
    ENV SYMM_COLL_SPLIT_MIN=1 SYMM_COLL_EAGER_MAX=0 SYMM_COLL_EXCHANGE_EAGER_MAX=0
        SYMM_COLL_SEGMENT=40 SYMM_COLL_WINDOW=2)
  symm_nodes_test(coll_skew_nodes_split coll_skew 4 2 ENV SYMM_COLL_SPLIT_MIN=1)
  symm_nodes_test(coll_skew_nodes_split coll_skew 6 3 ENV SYMM_COLL_SPLIT_MIN=1 SYMM_NODE_CYCLIC=1)
  # The heads' pipelined reduction at every size, in 40-byte segments: the
  # head makes each segment of its node's partial as the pipeline first
  # reads it (nodes of 2; of 3 dealt cyclically; uneven: 2, 2 and 1).
  symm_nodes_test(coll_nodes_pipe coll 4 2 ARGS quick
    ENV SYMM_REDUCE_SLICE_MIN=0 SYMM_COLL_SEGMENT=40 SYMM_COLL_WINDOW=2)
  symm_nodes_test(coll_nodes_pipe coll 5 2 ARGS quick
    ENV SYMM_REDUCE_SLICE_MIN=0 SYMM_COLL_SEGMENT=40)
  symm_nodes_test(coll_nodes_pipe coll 6 3 ARGS quick
    ENV SYMM_REDUCE_SLICE_MIN=0 SYMM_COLL_SEGMENT=40 SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_skew_nodes coll_skew 4 2)
  symm_nodes_test(coll_skew_nodes coll_skew 6 2 ENV SYMM_COLL_HEADS=bruck SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_skew_nodes coll_skew 8 2 ENV SYMM_COLL_HEADS=ring)
  # The node-aware barrier (team/team_barrier.c): 10000 barrier_all checked by a
  # put to a neighbour, team_sync on split and 2-D teams; a node whose head
  # has no other member (5 PEs in nodes of 2); cyclic nodes. Past 4 PEs a
  # fifth of the iterations (quick): 5 to 8 oversubscribed PEs polling tcp
  # took 13-20 s each beside another test.
  symm_nodes_test(coll_barrier_nodes coll_barrier 4 2)
  symm_nodes_test(coll_barrier_nodes coll_barrier 5 2 ARGS quick)
  symm_nodes_test(coll_barrier_nodes coll_barrier 6 3 ARGS quick ENV SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_barrier_nodes coll_barrier 8 2 ARGS quick)
  # Long waits sleep and are woken by the network (pe/idle_wait.c).
  symm_nodes_test(idle_wait_nodes idle_wait 4 2)
  # Not under ThreadSanitizer (its stage runs the "amo" tests): UCX's memory
  # hooks trip its interceptors, as test.sh says.
  if(NOT SYMM_TSAN)
    # Teams split and destroyed back to back, each taking the slot the last
    # one freed, with node-aware barriers (pe/team_reuse.c).
    symm_nodes_test(team_reuse_nodes team_reuse 4 2)
    symm_nodes_test(team_reuse_nodes team_reuse 6 3 ARGS 500)
    # A fence orders an atomic through UCX before a CPU load or put after
    # it to a mapped peer (SYMM_ATOMICS=network: updates to the neighbour
    # on the same node go through UCX, fetches are loads;
    # pe/amo_fence_order.c). Under ASan 300 rounds (2000 took 24 s at 4
    # PEs); the plain build keeps 2000.
    set(_fence_rounds 2000)
    if(SYMM_SANITIZE)
      set(_fence_rounds 300)
    endif()
    symm_nodes_test(amo_fence_order_netamo amo_fence_order 4 2 ARGS ${_fence_rounds}
      ENV SYMM_ATOMICS=network)
    symm_nodes_test(amo_fence_order_netamo amo_fence_order 6 3 ARGS ${_fence_rounds}
      ENV SYMM_ATOMICS=network)
  endif()
  symm_nodes_test(coll_active_nodes active 4 2)
  symm_nodes_test(coll_active_nodes active 6 3 ENV SYMM_NODE_CYCLIC=1)
  symm_nodes_test(coll_active_nodes active 8 1)
  # auto past the direct limit: 8 nodes of 1 and 4 of 2 by Bruck (small),
  # and 4 of 2 by the ring (SYMM_COLL_RING_MIN=0).
  symm_nodes_test(coll_nodes_auto coll 8 1 ARGS quick ENV SYMM_COLL_DIRECT_NODES=2)
  symm_nodes_test(coll_nodes_auto coll 8 2 ARGS quick ENV SYMM_COLL_DIRECT_NODES=2)
  symm_nodes_test(coll_nodes_autoring coll 8 2 ARGS quick
    ENV SYMM_COLL_DIRECT_NODES=2 SYMM_COLL_RING_MIN=0)
  foreach(npk 4:2 6:3 9:3)
    string(REPLACE ":" ";" npk ${npk})
    list(GET npk 0 np)
    list(GET npk 1 k)
    symm_nodes_test(team_nodes team ${np} ${k} ENV TEST_PES_PER_NODE=${k})
  endforeach()
endif()
# A negative node size is refused at init, on every PE.
symm_expect_fail(node_size_bad 2 "SYMM_NODE_SIZE=-1: expected 0 \\(off\\) or a node size >= 1"
  ${CMAKE_COMMAND} -E env SYMM_NODE_SIZE=-1 $<TARGET_FILE:empty>)
# A PE spinning on shmem_test_lock while the holder gets from it over tcp,
# without a progress thread: test_lock drives progress as the tests do
# (the stress tester hung on it, seed 25; one emulated node per PE).
if(SYMM_HAVE_UCX AND NOT SYMM_TSAN)
  symm_nodes_test(lock_noprogress lock 3 1 ENV SYMM_PROGRESS_THREAD=0)
endif()
# Contexts whose AMOs reach node-local peers through UCX (SYMM_ATOMICS=
# network): finalize closes their workers' endpoints to those peers
# without forcing, which completes only as the closing worker runs (the
# stress tester hung in shmem_finalize; so did ctx, amo and threads here).
if(SYMM_HAVE_UCX AND NOT SYMM_TSAN)
  symm_nodes_test(ctx_fini_netamo ctx 4 2 ENV SYMM_ATOMICS=network)
endif()
