# RMA tests: every typed/sized/untyped family, strided transfers, sizes.
symm_pe_test(rma_types)
symm_pe_test(rma_strided)
symm_pe_test(rma_sizes)
# Ordering and point-to-point synchronization (barrier, sync_all,
# wait_until/test for every P2P type and operator, fence, quiet).
symm_pe_test(sync)
