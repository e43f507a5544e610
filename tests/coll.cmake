# Team collectives (pe/coll.c): every routine with every type of its table,
# on WORLD, SHARED, stride 2, stride -1, split_2d rows and columns and
# single-PE teams; reductions out of place and in place, small and large.
# Odd team sizes matter, so 3 PEs too. Registered as two runs (each well
# under 5 s at 4 PEs on 2 cores): the data collectives, and the reductions.
symm_pe_test(coll NPS 1 2 3 4 TIMEOUT 60 ARGS data)
symm_pe_test(coll_reduce PROGRAM coll NPS 1 2 3 4 TIMEOUT 60 ARGS reduce)
# The reductions again with every size sliced (each PE reduces 1/n, then
# all gather; symm slices at 3 PEs and more) and with none sliced (every PE
# reduces the whole vector).
symm_pe_test(coll_slice0 PROGRAM coll NPS 1 2 3 4 TIMEOUT 60 ARGS reduce
  ENV SYMM_REDUCE_SLICE_MIN=0)
symm_pe_test(coll_noslice PROGRAM coll NPS 1 2 3 4 TIMEOUT 60 ARGS reduce
  ENV SYMM_REDUCE_SLICE_MIN=1G)
# The pipelined reduction over the network (reduce/reduce_pipe.c) with
# segments of a few elements and two receives in flight: many segments a
# slice, the 128-segment cap on the large vectors, slots reused, members'
# segments of different lengths, in place with members before this one.
symm_pe_test(coll_pipe PROGRAM coll NPS 2 3 4 TIMEOUT 60 ARGS reduce UCXONLY
  ENV SYMM_REDUCE_SLICE_MIN=0 SYMM_COLL_SEGMENT=40 SYMM_COLL_WINDOW=2)
# The flat exchange (fcollect, alltoall) in segments of a few bytes, two
# receives in flight, eager and by rendezvous.
symm_pe_test(coll_pipe_data PROGRAM coll NPS 2 3 4 TIMEOUT 60 ARGS data UCXONLY
  ENV SYMM_COLL_NODE_AWARE=0 SYMM_COLL_SEGMENT=40 SYMM_COLL_WINDOW=2)
symm_pe_test(coll_pipe_rndv PROGRAM coll NPS 2 4 TIMEOUT 60 ARGS data UCXONLY
  ENV SYMM_COLL_NODE_AWARE=0 SYMM_COLL_SEGMENT=400 SYMM_COLL_WINDOW=2 SYMM_COLL_EAGER_MAX=0
  SYMM_COLL_EXCHANGE_EAGER_MAX=0)
# shmemx_reduce_private (private buffers; refused with -2 where peers are
# mapped), segments of 4K so the large vector is pipelined in many.
symm_pe_test(reduce_private NPS 1 2 3 4 TIMEOUT 60 ENV SYMM_COLL_SEGMENT=4K)
# Every routine and type again (up to 7 elements) under SHMEM_DEBUG's deep
# argument checks: none may fire.
symm_pe_test(coll_debug PROGRAM coll NPS 1 2 3 4 TIMEOUT 60 ARGS quick ENV SHMEM_DEBUG=1)

# Back-to-back collectives of every kind and size on two teams and an
# active set, one PE lagging before some, each result checked at once and
# its buffers reused (pe/coll_skew.c): over the network nothing but the
# message tags keeps consecutive collectives apart.
symm_pe_test(coll_skew NPS 1 2 3 4 TIMEOUT 120)

# Barriers (pe/coll_barrier.c): 10000 barrier_all with a put to a neighbour
# checked after each; team_sync on split teams interleaved with barrier_all.
symm_pe_test(coll_barrier NPS 1 2 3 4 TIMEOUT 60)
# Both barrier forms of node-local teams of 3 or more, whatever this
# machine's core count makes auto pick (team/team_barrier.c): with 3-5 PEs
# on few cores auto takes central, on many dissemination. No UCX runs:
# with every peer reached through UCX no team is node-local, SYMM_BARRIER
# does not apply, and coll_barrier.ucx.* already runs that barrier.
symm_pe_test(coll_barrier_dissem PROGRAM coll_barrier NPS 3 4 5 TIMEOUT 60 NOUCX
  ENV SYMM_BARRIER=dissemination)
symm_pe_test(coll_barrier_central PROGRAM coll_barrier NPS 3 4 5 TIMEOUT 60 NOUCX
  ENV SYMM_BARRIER=central)

# The deprecated active-set collectives (pe/active.c): barrier, sync,
# broadcast/collect/fcollect/alltoall/alltoalls 32 and 64, every to_all, on
# several active sets; pSync back at SHMEM_SYNC_VALUE after each call.
symm_pe_test(active NPS 1 2 3 4 TIMEOUT 60)
# A PE outside an active set that calls its collective returns at once,
# nothing sent or waited for (as in Open MPI; SHMEM_DEBUG: an error, below).
symm_pe_test(active_outside NPS 1 2 3 4 TIMEOUT 60)
# to_all with every reduction sliced.
symm_pe_test(active_slice0 PROGRAM active NPS 1 2 3 4 TIMEOUT 60 ENV SYMM_REDUCE_SLICE_MIN=0)
# SHMEM_DEBUG matches every active-set collective on every member: no false alarm.
symm_pe_test(active_debug PROGRAM active NPS 2 3 4 TIMEOUT 60 ENV SHMEM_DEBUG=1)

# Active-set misuse (pe/active_errors.c): a PE outside the active set, an
# active set reaching past the last PE, a root outside it, a negative
# nreduce, a NULL pSync, an empty active set.
add_executable(active_errors pe/active_errors.c)
target_link_libraries(active_errors PRIVATE symm)
set(SYMM_ACTIVE_ERRORS $<TARGET_FILE:active_errors>)
# Outside the set: an error only under SHMEM_DEBUG (else the call returns).
symm_expect_fail(active_barrier_outside 2
  "symm: shmem_barrier: called by a PE outside the active set \\(PE_start 0, logPE_stride 0, PE_size 1; SHMEM_DEBUG: .*\\) \\(PE 1\\)"
  ${SYMM_ACTIVE_ERRORS} barrier_outside)
symm_expect_fail(active_broadcast_outside 4
  "symm: shmem_broadcast64: called by a PE outside the active set \\(PE_start 0, logPE_stride 1, PE_size 2; SHMEM_DEBUG: .*\\) \\(PE 3\\)"
  ${SYMM_ACTIVE_ERRORS} broadcast_outside)
symm_expect_fail(active_to_all_outside 3
  "symm: shmem_int_sum_to_all: called by a PE outside the active set \\(PE_start 0, logPE_stride 0, PE_size 2; SHMEM_DEBUG: .*\\) \\(PE 2\\)"
  ${SYMM_ACTIVE_ERRORS} to_all_outside)
set_tests_properties(active_barrier_outside active_broadcast_outside active_to_all_outside
  PROPERTIES ENVIRONMENT SHMEM_DEBUG=1)
symm_expect_fail(active_barrier_beyond 2
  "symm: shmem_barrier: active set \\(PE_start 0, logPE_stride 0, PE_size 3\\) reaches PE 2, outside \\[0,2\\) \\(PE 1\\)"
  ${SYMM_ACTIVE_ERRORS} barrier_beyond)
symm_expect_fail(active_barrier_beyond_np1 1
  "symm: shmem_barrier: active set \\(PE_start 0, logPE_stride 0, PE_size 2\\) reaches PE 1, outside \\[0,1\\)"
  ${SYMM_ACTIVE_ERRORS} barrier_beyond)
symm_expect_fail(active_fcollect_beyond 4
  "symm: shmem_fcollect32: active set \\(PE_start 1, logPE_stride 1, PE_size 4\\) reaches PE 7, outside \\[0,4\\) \\(PE 3\\)"
  ${SYMM_ACTIVE_ERRORS} fcollect_beyond)
symm_expect_fail(active_broadcast_bad_root 2
  "symm: shmem_broadcast32: PE_root 1 outside \\[0,1\\)"
  ${SYMM_ACTIVE_ERRORS} broadcast_bad_root)
symm_expect_fail(active_to_all_negative 2
  "symm: shmem_int_sum_to_all: nreduce -1 is negative \\(PE 1\\)"
  ${SYMM_ACTIVE_ERRORS} to_all_negative)
symm_expect_fail(active_null_psync 2
  "symm: shmem_collect64: pSync is NULL \\(PE 1\\)"
  ${SYMM_ACTIVE_ERRORS} null_psync)
symm_expect_fail(active_size_zero 2
  "symm: shmem_sync: invalid active set: PE_start 0, logPE_stride 0, PE_size 0 \\(PE 1\\)"
  ${SYMM_ACTIVE_ERRORS} size_zero)

# shmem_sync by its team and its active-set signature, and the complex sum
# and product reductions (team and to_all), as C and as C++ (pe/sync_complex.c):
# C picks shmem_sync by argument count, C++ by overload, and C++ has the
# complex routines with std::complex. The C++ build is a custom command for
# the reason tests/CMakeLists.txt gives (symm_cxx_program).
symm_pe_test(sync_complex)
symm_cxx_program(sync_complex_cxx SOURCES pe/sync_complex.c)
set(sc_cxx_bin ${sync_complex_cxx_bin})
if(sc_cxx_bin)
  foreach(np ${SYMM_TEST_NPS})
    add_test(NAME sync_complex_cxx.np${np}
      COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} ${sc_cxx_bin})
    set_tests_properties(sync_complex_cxx.np${np} PROPERTIES TIMEOUT 60)
  endforeach()
endif()

# Small collectives back to back around the slot form's limit (pe/coll_ll.c:
# up to 304 bytes per member in node-local teams of 2-8 PEs go through
# slots, larger ones and 9 PEs through the staged forms), and around the
# staged forms' (`stage`: up to 8 KiB staged per member, larger ones by the
# pull forms), roots changing, a PE lagging, a root running ahead of a
# sleeping member; and the collective programs with the slot form off
# (SYMM_COLL_LL_MAX=0: every small collective staged, as a 9-PE team runs
# them) and with both off (SYMM_COLL_STAGE_MAX=0 too: the pull forms at
# every size). These have no UCX variant: with every peer through UCX no
# member is mapped, neither form applies, and coll.ucx, coll_skew.ucx and
# active.ucx already run that same code.
symm_pe_test(coll_ll NPS 1 2 3 4 8 9 TIMEOUT 90)
symm_pe_test(coll_stage PROGRAM coll_ll NPS 1 2 3 4 9 TIMEOUT 90 NOUCX ARGS stage
             ENV SYMM_COLL_STAGE_MAX=8192)
# A member reading its peers' staged copies late (SYMM_FAULT=stage_lag):
# a peer running ahead must not overwrite a copy still being read.
symm_pe_test(coll_stage_lag PROGRAM coll_ll NPS 2 3 4 TIMEOUT 90 NOUCX ARGS stage
             ENV SYMM_FAULT=stage_lag@1 SYMM_COLL_STAGE_MAX=8192)
symm_pe_test(coll_stage_off PROGRAM coll_ll NPS 2 4 TIMEOUT 90 NOUCX ARGS stage
             ENV SYMM_COLL_STAGE_MAX=0)
symm_pe_test(coll_ll_off PROGRAM coll NPS 2 3 4 TIMEOUT 60 NOUCX ARGS quick ENV SYMM_COLL_LL_MAX=0)
symm_pe_test(coll_skew_ll_off PROGRAM coll_skew NPS 2 4 TIMEOUT 120 NOUCX ENV SYMM_COLL_LL_MAX=0)
symm_pe_test(active_ll_off PROGRAM active NPS 2 4 TIMEOUT 60 NOUCX ENV SYMM_COLL_LL_MAX=0)
symm_pe_test(coll_pull PROGRAM coll NPS 2 3 4 TIMEOUT 60 NOUCX ARGS quick
             ENV SYMM_COLL_LL_MAX=0 SYMM_COLL_STAGE_MAX=0)
symm_pe_test(coll_skew_pull PROGRAM coll_skew NPS 2 4 TIMEOUT 120 NOUCX
             ENV SYMM_COLL_LL_MAX=0 SYMM_COLL_STAGE_MAX=0)

# SHMEM_DEBUG's check on two active sets sharing PE 2 (pe/active_sig_slots.c):
# PE 2 moves on from one set's call to the other's while PE 0 still looks
# for its signature of the first.
symm_pe_test(active_sig_slots NPS 3 4 TIMEOUT 60 ENV SHMEM_DEBUG=1 SYMM_HANG_TIMEOUT=20)
# A SYMM_BARRIER that names no form ends init with the variable and value.
symm_expect_fail(coll_barrier_bad 2 "symm: shmem_init: SYMM_BARRIER='ring' is not one of auto, dissemination, central"
  ${CMAKE_COMMAND} -E env SYMM_BARRIER=ring $<TARGET_FILE:empty>)
# So does a SYMM_COLL_STAGE_MAX that is neither auto nor a size.
symm_expect_fail(coll_stage_bad 2 "symm: shmem_init: SYMM_COLL_STAGE_MAX='big' is neither auto nor a size"
  ${CMAKE_COMMAND} -E env SYMM_COLL_STAGE_MAX=big $<TARGET_FILE:empty>)
