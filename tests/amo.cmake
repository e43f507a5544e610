# Atomic memory operations: every type of every AMO class (from the type
# tables), heap and globals, plain names and ctx_ names (SHMEM_CTX_DEFAULT,
# a created context, a context of the world team reversed), blocking and
# _nbi, the deprecated names and the C11 generic selections.
symm_pe_test(amo)
# The deprecated names are called on purpose.
target_compile_options(amo PRIVATE -Wno-deprecated-declarations)
# shmem.h in a C99 program: the untyped long shmem_swap (C11 and C++ make
# the name the deprecated generic, generic.cmake checks its selection).
symm_pe_test(amo_c99)
set_target_properties(amo_c99 PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)
# Distributed locks: mutual exclusion (heap and global lock words),
# shmem_test_lock; and FIFO order of acquisition (mode fifo, which reads
# the queue tail of symm's MCS lock to know when a PE is in line).
symm_pe_test(lock)
symm_pe_test(lock_fifo PROGRAM lock ARGS fifo TIMEOUT 30)
# Communication contexts: options, RMA/AMO on created contexts, quiet,
# fence, destroy, get_team, invalid options, SHMEM_CTX_INVALID, and team
# contexts (PE numbers within the team).
symm_pe_test(ctx)
# One atomic agent per word (SYMM_ATOMICS, runtime/atomics.h): every PE,
# the owner included, hammers the same words with fetch_inc, add, inc,
# compare_swap, the lock and signals (pe/amo_agent.c); exact totals and
# distinct fetched values. As is (CPU atomics), under SYMM_TRANSPORT=ucx
# (auto: UCX here emulates atomics or uses shared memory, so still CPU),
# and with SYMM_ATOMICS=network, where every update, the owner's own too,
# goes through UCX; the decision printed by SHMEM_INFO is checked.
symm_pe_test(amo_agent TIMEOUT 120)
# A fence orders atomics against the loads and puts after it (its
# SYMM_ATOMICS=network runs, where that is at stake, are in nodes.cmake).
symm_pe_test(amo_fence_order)
set(expect_ok ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_status.sh 0 --match)
add_test(NAME amo_agent_decide_local
  COMMAND ${expect_ok} "symm: atomics: cpu \\(every PE is node-local\\)"
    ${SYMM_OSHRUN} --timeout 60 -np 2 $<TARGET_FILE:amo_agent> 50)
set_tests_properties(amo_agent_decide_local PROPERTIES TIMEOUT 60 ENVIRONMENT "SHMEM_INFO=1")
symm_expect_fail(amo_agent_bad 2 "SYMM_ATOMICS='bogus' is not one of auto, cpu, network"
  ${CMAKE_COMMAND} -E env SYMM_ATOMICS=bogus $<TARGET_FILE:empty>)
# symm-info states the rule, the variable and what UCX here offers (it
# loads UCX to ask, whose memory hooks crash ThreadSanitizer's interceptors).
if(NOT SYMM_TSAN)
add_test(NAME amo_agent_symm_info
  COMMAND ${expect_ok} "atomics \\(SYMM_ATOMICS=network\\).*"
    ${CMAKE_COMMAND} -E env SYMM_ATOMICS=network $<TARGET_FILE:symm-info>)
symm_expect_fail(amo_agent_symm_info_bad 1 "SYMM_ATOMICS='sometimes' is not one of auto, cpu, network"
  ${CMAKE_COMMAND} -E env SYMM_ATOMICS=sometimes $<TARGET_FILE:symm-info>)
endif()
if(SYMM_HAVE_UCX AND SYMM_TEST_UCX)
  set(ucx_t 150)
  if(SYMM_SANITIZE OR SYMM_TSAN)
    set(ucx_t 450)
  endif()
  foreach(np 2 4)
    add_test(NAME amo_agent.net.np${np}
      COMMAND ${expect_ok} "symm: atomics: network \\(SYMM_ATOMICS=network"
        ${SYMM_OSHRUN} --timeout ${ucx_t} -np ${np} $<TARGET_FILE:amo_agent>)
    set_tests_properties(amo_agent.net.np${np} PROPERTIES TIMEOUT ${ucx_t} LABELS ucx
      ENVIRONMENT "SHMEM_INFO=1;SYMM_TRANSPORT=ucx;SYMM_ATOMICS=network")
  endforeach()
  # auto over UCX without device atomics, and the user's UCX_ATOMIC_MODE=cpu
  # and SYMM_ATOMICS=cpu: the CPU path, said so.
  add_test(NAME amo_agent_decide_ucx
    COMMAND ${expect_ok} "symm: atomics: cpu \\(UCX atomics applied by the target CPU; SYMM_TRANSPORT=ucx\\)"
      ${SYMM_OSHRUN} --timeout ${ucx_t} -np 2 $<TARGET_FILE:amo_agent> 50)
  add_test(NAME amo_agent_decide_ucx_cpu_mode
    COMMAND ${expect_ok} "symm: atomics: cpu \\(UCX_ATOMIC_MODE=cpu; SYMM_TRANSPORT=ucx\\)"
      ${SYMM_OSHRUN} --timeout ${ucx_t} -np 2 $<TARGET_FILE:amo_agent> 50)
  add_test(NAME amo_agent_decide_ucx_forced_cpu
    COMMAND ${expect_ok} "symm: atomics: cpu \\(SYMM_ATOMICS=cpu;"
      ${SYMM_OSHRUN} --timeout ${ucx_t} -np 2 $<TARGET_FILE:amo_agent> 50)
  set_tests_properties(amo_agent_decide_ucx amo_agent_decide_ucx_cpu_mode
    amo_agent_decide_ucx_forced_cpu PROPERTIES TIMEOUT ${ucx_t} LABELS ucx)
  set_tests_properties(amo_agent_decide_ucx PROPERTIES
    ENVIRONMENT "SHMEM_INFO=1;SYMM_TRANSPORT=ucx")
  set_tests_properties(amo_agent_decide_ucx_cpu_mode PROPERTIES
    ENVIRONMENT "SHMEM_INFO=1;SYMM_TRANSPORT=ucx;UCX_ATOMIC_MODE=cpu")
  set_tests_properties(amo_agent_decide_ucx_forced_cpu PROPERTIES
    ENVIRONMENT "SHMEM_INFO=1;SYMM_TRANSPORT=ucx;SYMM_ATOMICS=cpu")
  # Two namespaces of 2 PEs (mapped and network peers on the same words):
  # auto stays cpu (UCX over tcp emulates atomics on the target CPU), and
  # SYMM_ATOMICS=network sends the mapped peers' and the owner's updates
  # through UCX too. PE 0's SHMEM_INFO line must not say the other path.
  foreach(mode auto network)
    if(mode STREQUAL "auto")
      set(wrong "symm: atomics: network")
    else()
      set(wrong "symm: atomics: cpu")
    endif()
    add_test(NAME netns_amo_agent_${mode}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/netns_test.sh "$<TARGET_FILE:amo_agent> 200")
    set_tests_properties(netns_amo_agent_${mode} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
      LABELS ucx FAIL_REGULAR_EXPRESSION "${wrong}"
      ENVIRONMENT "NETNS_PPN=2;NETNS_TIMEOUT=240;SHMEM_INFO=1;SYMM_ATOMICS=${mode}")
  endforeach()
endif()
