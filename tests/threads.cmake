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
# team (team/team.c reserves the slots a split chooses). Node-local only:
# over UCX one sum in ~10 runs comes out one round stale (a source read
# before its owner's new value), an open bug of concurrent team collectives
# on the network path (TEAM_THREADS_ONE=1, the same splits in one thread,
# never fails: it takes the two threads).
symm_pe_test(team_threads NPS 1 2 3 4 TIMEOUT 90 NOUCX)
target_link_libraries(team_threads PRIVATE Threads::Threads)

# shmem_quiet on the default context from several threads at once: each
# caller's get_nbi and put_nbi are complete when its quiet returns (the
# stress tester found a quiet that returned while another thread's quiet
# still waited for its get; pe/threads_quiet.c).
symm_pe_test(threads_quiet)
target_link_libraries(threads_quiet PRIVATE Threads::Threads)
