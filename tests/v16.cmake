# OpenSHMEM 1.6 additions: blocked strided RMA, pe_quiet, scans, sessions,
# the pshmem.h profiling header, and shmem.h from C++.
symm_pe_test(rma_block)
symm_pe_test(pe_quiet)
symm_pe_test(scan)
symm_expect_fail(rma_block_bad_stride 2 "symm: shmem_int_ibput: dst stride 0 is below 1 \\(target PE 0\\) \\(PE 1\\)"
  $<TARGET_FILE:rma_block> bad_stride)
symm_expect_fail(rma_block_null_source 2 "symm: shmem_long_ibput: source is NULL with 3 blocks of 2 elements \\(target PE 0\\) \\(PE 1\\)"
  $<TARGET_FILE:rma_block> null_source)
symm_expect_fail(rma_block_bad_pe 2 "symm: shmem_ibget64: target PE 2 outside \\[0,2\\) \\(PE 1\\)"
  $<TARGET_FILE:rma_block> bad_pe)
symm_expect_fail(pe_quiet_bad_pe 4 "symm: shmem_pe_quiet: target_pes\\[1\\] = 6 is outside \\[0,4\\) \\(PE 3\\)"
  $<TARGET_FILE:pe_quiet> bad_pe)
