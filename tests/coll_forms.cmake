# Every form of every collective forced (SYMM_<COLL>_ALGORITHM, the tables
# of coll/coll_dispatch.c) wherever it can run, the automatic choice
# elsewhere: pe/coll checks every routine and type on WORLD, SHARED, strided
# and split teams and single PEs. Forced, a form runs at sizes the automatic
# choice never gives it (split and the slices at a few elements, pull over
# the network). Each on one node (4 PEs), through UCX to every peer (4 PEs)
# and over two emulated nodes of 2 (SYMM_NODE_SIZE=2, where the node forms
# and split can run). Every size the automatic choice gives a form is tested
# by the other collective tests; here the small ones (coll quick) that only
# forcing gives it. (/tmp runs of coll data and reduce, 3 and 4 PEs, in the
# three layouts, passed for every form.)
set(_form_ll SYMM_BROADCAST_ALGORITHM=ll SYMM_FCOLLECT_ALGORITHM=ll SYMM_ALLTOALL_ALGORITHM=ll
  SYMM_REDUCE_ALGORITHM=ll)
set(_form_stage SYMM_FCOLLECT_ALGORITHM=stage SYMM_COLLECT_ALGORITHM=stage
  SYMM_ALLTOALL_ALGORITHM=stage SYMM_REDUCE_ALGORITHM=stage)
set(_form_flag SYMM_BROADCAST_ALGORITHM=flag)
set(_form_nodes SYMM_BROADCAST_ALGORITHM=nodes SYMM_FCOLLECT_ALGORITHM=nodes
  SYMM_COLLECT_ALGORITHM=nodes SYMM_ALLTOALL_ALGORITHM=nodes SYMM_REDUCE_ALGORITHM=nodes)
set(_form_split SYMM_FCOLLECT_ALGORITHM=split SYMM_ALLTOALL_ALGORITHM=split)
set(_form_msg SYMM_BROADCAST_ALGORITHM=msg SYMM_FCOLLECT_ALGORITHM=msg SYMM_COLLECT_ALGORITHM=msg
  SYMM_ALLTOALL_ALGORITHM=msg SYMM_SCAN_ALGORITHM=msg SYMM_REDUCE_ALGORITHM=msg_whole)
set(_form_msg_slice SYMM_REDUCE_ALGORITHM=msg_slice)
set(_form_pull SYMM_BROADCAST_ALGORITHM=pull SYMM_FCOLLECT_ALGORITHM=pull
  SYMM_COLLECT_ALGORITHM=pull SYMM_ALLTOALL_ALGORITHM=pull SYMM_SCAN_ALGORITHM=pull
  SYMM_REDUCE_ALGORITHM=pull_whole)
set(_form_pull_slice SYMM_REDUCE_ALGORITHM=pull_slice)
set(_form_timeout 120)
if(SYMM_SANITIZE OR SYMM_TSAN)
  set(_form_timeout 360)
endif()
foreach(form ll stage flag nodes split msg msg_slice pull pull_slice)
  symm_pe_test(coll_form_${form} PROGRAM coll NPS 4 TIMEOUT ${_form_timeout} ARGS quick
    ENV ${_form_${form}})
  if(SYMM_HAVE_UCX)
    add_test(NAME coll_form_${form}.nodes.np4
      COMMAND ${SYMM_OSHRUN} --timeout ${_form_timeout} -np 4 $<TARGET_FILE:coll> quick)
    set_tests_properties(coll_form_${form}.nodes.np4 PROPERTIES TIMEOUT ${_form_timeout}
      LABELS ucx ENVIRONMENT "SYMM_NODE_SIZE=2;${_form_${form}}")
  endif()
endforeach()
# A name no table has fails init, naming the variable, the value and the
# choices.
symm_expect_fail(coll_form_bad 2
  "symm: shmem_init: SYMM_SCAN_ALGORITHM='ll' is not one of auto, msg, pull"
  $<TARGET_FILE:coll> quick)
set_tests_properties(coll_form_bad PROPERTIES ENVIRONMENT SYMM_SCAN_ALGORITHM=ll)
symm_expect_fail(coll_heads_bad 2
  "symm: shmem_init: SYMM_COLL_HEADS='star' is not one of auto, direct, ring, bruck"
  $<TARGET_FILE:coll> quick)
set_tests_properties(coll_heads_bad PROPERTIES ENVIRONMENT SYMM_COLL_HEADS=star)
