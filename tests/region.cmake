# Registering existing memory (shmemx_register, pe/region.c): at 1, 2, 4
# PEs, again under SYMM_TRANSPORT=ucx (symm_pe_test), and across network
# namespaces (transport.cmake's netns tests). The misuses that end the job,
# each with its message; an injected UCX registration failure on one PE.
symm_pe_test(region)
# SHMEM_DEBUG's deep checks accept registered addresses (and a size that
# differs stays an error returned on every PE, not a collective mismatch).
symm_pe_test(region_debug PROGRAM region NPS 2 4 ENV SHMEM_DEBUG=1)
set(SYMM_REGION $<TARGET_FILE:region>)
symm_expect_fail(region_atomic_rw 2
  "symm: shmem_long_atomic_add: atomic on PE 1: registered region 0 \\(0x[0-9a-f]+, 64 bytes, access 'rw'\\) was registered without SHMEMX_ACCESS_ATOMIC \\(PE 0\\)"
  ${SYMM_REGION} atomic_rw)
symm_expect_fail(region_past_end 2
  "symm: shmem_putmem: dest 0x[0-9a-f]+ \\+ 16 bytes runs 8 bytes past the end of registered region 0 \\(64 bytes\\) \\(PE 0\\)"
  ${SYMM_REGION} past_end)
symm_expect_fail(region_readonly_put 2
  "symm: shmem_putmem: put to PE 1: registered region 0 \\(0x[0-9a-f]+, 64 bytes, access 'r'\\) was registered without SHMEMX_ACCESS_WRITE \\(PE 0\\)"
  ${SYMM_REGION} readonly_put)
# (Not where the UCX runs are off: the ThreadSanitizer stage, UCX being
# uninstrumented, would see its progress thread's writes as races.)
if(SYMM_HAVE_UCX AND SYMM_TEST_UCX)
  symm_expect_fail(region_atomic_rw_ucx 2
    "symm: shmem_long_atomic_add: atomic on PE 1: registered region 0 .* was registered without SHMEMX_ACCESS_ATOMIC \\(PE 0\\)"
    ${SYMM_REGION} atomic_rw)
  set_tests_properties(region_atomic_rw_ucx PROPERTIES ENVIRONMENT "SYMM_TRANSPORT=ucx"
    LABELS ucx)
  # UCX as the one atomic agent: every atomic on a region, this PE's own
  # and mapped peers' included, goes through UCX with the region's key.
  symm_pe_test(region_netamo PROGRAM region NPS 2 4 NOUCX
    ENV SYMM_TRANSPORT=ucx SYMM_ATOMICS=network)
  symm_pe_test(region_fault PROGRAM region NPS 2 4 ARGS fault NOUCX
    ENV SYMM_TRANSPORT=ucx "SYMM_FAULT=ucx_reg@1#1")
endif()
