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
