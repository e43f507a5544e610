# SHMEM_THREAD_MULTIPLE: 4 pthreads per PE on counters, puts and their own
# contexts. Race-free by design (shared state changes only through AMOs,
# each thread writes only its own slots), so a ThreadSanitizer build
# (SYMM_TSAN, set by that build) runs this same test with no variant of
# its own; there, any report fails it.
find_package(Threads REQUIRED)
if(SYMM_TSAN)
  symm_pe_test(threads ENV TSAN_OPTIONS=halt_on_error=1:exitcode=66)
else()
  symm_pe_test(threads)
endif()
target_link_libraries(threads PRIVATE Threads::Threads)

# Two threads of every PE split two parents at once, 30 times, and use each
# team (team/team.c reserves the slots a split chooses). Over UCX a sum
# once came out a round stale in ~1 run in 10 at 3 PEs, 4 in 10 at 4: a
# reduction read its peers' sources with non-blocking gets and one quiet
# of the shared default context, and that quiet returned while the other
# thread's quiet still waited for those gets (the reduction summed a
# buffer still holding an earlier round's values). Since bf91053
# collectives across the network exchange messages and issue no such gets;
# since the fix in transport/ucx/ucx_rma.c a quiet waits for every request
# kept before it began, whichever thread waits for them (quiet_threads).
symm_pe_test(team_threads NPS 1 2 3 4 TIMEOUT 90)
target_link_libraries(team_threads PRIVATE Threads::Threads)

# Four threads of every PE issue non-blocking gets and puts on the default
# context and quiet it at the same time; each checks its own at once (over
# UCX, before the fix in ucx_rma.c, 40 of 40 runs at 3 and 4 PEs failed;
# the stress tester found the same race with seed 24).
symm_pe_test(quiet_threads NPS 1 2 3 4)
target_link_libraries(quiet_threads PRIVATE Threads::Threads)
