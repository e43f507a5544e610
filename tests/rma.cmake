# RMA tests: every typed/sized/untyped family, strided transfers, sizes.
symm_pe_test(rma_types)
symm_pe_test(rma_strided)
symm_pe_test(rma_sizes)
# Ordering and point-to-point synchronization (barrier, sync_all,
# wait_until/test for every P2P type and operator, fence, quiet).
symm_pe_test(sync)
# A long wait sleeps (SYMM_WAIT_IDLE_US): wait_until woken by a peer's put
# 300 ms later, and a barrier that waits for late PEs, use under half their
# time on the CPU (pe/idle_wait.c).
symm_pe_test(idle_wait)
target_link_libraries(idle_wait PRIVATE Threads::Threads)
