# Point-to-point synchronization and signals: wait_until/test families for
# every P2P type, put-with-signal in every form, and their error paths.
symm_pe_test(p2p)
symm_pe_test(signal)

# ---- error paths of atomics, signals, locks, contexts, wait/test ----------
add_executable(errors3 pe/errors3.c)
target_link_libraries(errors3 PRIVATE symm)
target_include_directories(errors3 PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
set(SYMM_ERRORS3 $<TARGET_FILE:errors3>)
set(SYMM_HEX3 "0x[0-9a-f]+")

# symm_error3_test(NAME NP REGEX MODE [ENV VAR=VAL...])
function(symm_error3_test name np regex mode)
  cmake_parse_arguments(E "" "" "ENV" ${ARGN})
  symm_expect_fail(errors3_${name} ${np} "${regex}" ${SYMM_ERRORS3} ${mode})
  if(E_ENV)
    set_tests_properties(errors3_${name} PROPERTIES ENVIRONMENT "${E_ENV}")
  endif()
endfunction()

# Signal operators other than SHMEM_SIGNAL_SET / SHMEM_SIGNAL_ADD.
symm_error3_test(sig_op_mem 2
  "symm: shmem_putmem_signal: invalid signal operator 7 .*\\(PE 1\\)" sig_op_mem)
symm_error3_test(sig_op_typed_nbi 4
  "symm: shmem_ctx_int_put_signal_nbi: invalid signal operator -1 .*\\(PE 3\\)" sig_op_typed_nbi)
symm_error3_test(sig_op_zero_len 2
  "symm: shmem_put64_signal: invalid signal operator 2 .*\\(PE 1\\)" sig_op_zero_len)

# Target PE out of range: the routine, the bad PE, the range, the caller.
symm_error3_test(amo_pe_npes 4
  "symm: shmem_long_atomic_fetch_add: target PE 4 outside \\[0,4\\) \\(PE 3\\)" amo_pe_npes)
symm_error3_test(amo_pe_npes_np1 1
  "symm: shmem_long_atomic_fetch_add: target PE 1 outside \\[0,1\\) \\(PE 0\\)" amo_pe_npes)
symm_error3_test(amo_pe_negative_ctx 2
  "symm: shmem_ctx_int_atomic_inc: target PE -1 outside \\[0,2\\) \\(PE 1\\)" amo_pe_negative_ctx)
symm_error3_test(amo_pe_deprecated 2
  "symm: shmem_int_cswap: target PE 4 outside \\[0,2\\) \\(PE 1\\)" amo_pe_deprecated)
symm_error3_test(signal_add_pe 2
  "symm: shmem_signal_add: target PE 2 outside \\[0,2\\) \\(PE 1\\)" signal_add_pe)

# Not symmetric (checked always, not only with SHMEM_DEBUG).
symm_error3_test(amo_stack 2
  "symm: shmem_long_atomic_add: dest ${SYMM_HEX3} is not a symmetric address.* \\(PE 1\\)" amo_stack)
symm_error3_test(amo_stack_debug 2
  "symm: shmem_long_atomic_add: dest ${SYMM_HEX3} is not a symmetric address.* \\(PE 1\\)" amo_stack
  ENV SHMEM_DEBUG=1)
symm_error3_test(amo_malloc_fetch 2
  "symm: shmem_long_atomic_fetch: [a-z]+ ${SYMM_HEX3} is not a symmetric address" amo_malloc_fetch)

# SHMEM_DEBUG: misaligned AMO targets.
symm_error3_test(amo_misaligned_debug 2
  "symm: shmem_long_atomic_fetch_add: dest ${SYMM_HEX3} is not aligned to its 8-byte type \\(PE 1\\)"
  amo_misaligned ENV SHMEM_DEBUG=1)
symm_error3_test(amo_misaligned_swap_debug 2
  "symm: shmem_uint32_atomic_swap: dest ${SYMM_HEX3} is not aligned to its 4-byte type" amo_misaligned_swap
  ENV SHMEM_DEBUG=1)

# Locks on non-symmetric addresses.
symm_error3_test(set_lock_stack 2
  "symm: shmem_set_lock: lock ${SYMM_HEX3} is not a symmetric address.* \\(PE 1\\)" set_lock_stack)
symm_error3_test(test_lock_malloc 2
  "symm: shmem_test_lock: lock ${SYMM_HEX3} is not a symmetric address" test_lock_malloc)
symm_error3_test(clear_lock_stack 2
  "symm: shmem_clear_lock: lock ${SYMM_HEX3} is not a symmetric address" clear_lock_stack)

# Contexts.
symm_error3_test(ctx_destroy_default 2
  "symm: shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed \\(PE 1\\)" ctx_destroy_default)

# Comparison operators outside SHMEM_CMP_EQ..SHMEM_CMP_GE.
symm_error3_test(wait_any_bad_cmp 2
  "symm: shmem_int_wait_until_any: invalid comparison operator 9 .*\\(PE 1\\)" wait_any_bad_cmp)
symm_error3_test(test_some_vector_bad_cmp 2
  "symm: shmem_long_test_some_vector: invalid comparison operator -2" test_some_vector_bad_cmp)
symm_error3_test(wait_all_bad_cmp_empty 2
  "symm: shmem_int_wait_until_all: invalid comparison operator 6" wait_all_bad_cmp_empty)
symm_error3_test(signal_wait_bad_cmp 2
  "symm: shmem_signal_wait_until: invalid comparison operator 42" signal_wait_bad_cmp)

# A team context numbers PEs within its team (shmem_team_create_ctx).
symm_error3_test(team_ctx_amo_pe 4
  "symm: shmem_ctx_long_atomic_add: target PE 2 outside \\[0,2\\) of the context's team \\(PE 3\\)"
  team_ctx_amo_pe)
symm_error3_test(team_ctx_signal_pe 4
  "symm: shmem_ctx_putmem_signal: target PE 2 outside \\[0,2\\) of the context's team \\(PE 3\\)"
  team_ctx_signal_pe)

# Any-scans rotate their start (pe/p2p_fair.c): consecutive test_any /
# wait_until_any calls (and _vector) over several satisfied variables return
# each of them, so a loop until every index has been seen ends.
symm_pe_test(p2p_fair)

# Ping-pongs polled with test, test_any, test_all_vector, signal_fetch,
# aclshmem's test and test_lock (issue 47.2): at 4 PEs on 2 cores the
# polling PEs must give their core away as waits do; 2000 round trips per
# mode within the timeout (a hang bound, not a speed check).
symm_pe_test(poll_pingpong)
