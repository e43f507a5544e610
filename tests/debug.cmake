# SHMEM_DEBUG's block bounds and leak listing (pe/debug_blocks.c, issue
# 47.4). Under SHMEM_DEBUG an access that starts in a heap block and runs
# past the size asked for is refused, naming the routine, the address, the
# size, the block (address, size, where it was allocated) and the PE; the
# same modes without SHMEM_DEBUG run to the end (the overrun stays inside
# the heap: the block's rounding or the next block). At finalize every PE
# lists the blocks it still has.
add_executable(debug_blocks pe/debug_blocks.c)
target_link_libraries(debug_blocks PRIVATE symm)
target_include_directories(debug_blocks PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
# Its symbols exported (-rdynamic), so dladdr names main and debug_garr.
set_target_properties(debug_blocks PROPERTIES ENABLE_EXPORTS ON)
set(SYMM_DEBUG_BLOCKS $<TARGET_FILE:debug_blocks>)
set(SYMM_HEXD "0x[0-9a-f]+")
# "... past the end of symmetric block ADDR (SIZE bytes, allocated at main+0x.. (PROG))"
# (A site in a function of the program that dladdr cannot name, such as
# a helper not inlined at -O0, reads PROG+0x.. instead.)
set(SYMM_SITE_RE "([A-Za-z_][A-Za-z0-9_]*\\+0x[0-9a-f]+ \\([^)]*debug_blocks\\)|[^ ]*debug_blocks\\+0x[0-9a-f]+)")
set(SYMM_BLOCK_AT "allocated at ${SYMM_SITE_RE}\\) \\(PE")

# symm_debug_test(NAME NP REGEX MODE): fails as REGEX says under SHMEM_DEBUG.
function(symm_debug_test name np regex mode)
  symm_expect_fail(debug_${name} ${np} "${regex}" ${SYMM_DEBUG_BLOCKS} ${mode})
  set_tests_properties(debug_${name} PROPERTIES ENVIRONMENT "SHMEM_DEBUG=1")
endfunction()

# symm_debug_ok(NAME NP MODE [ENV...]): exits 0 and says nothing of blocks.
function(symm_debug_ok name np mode)
  add_test(NAME debug_${name}.np${np}
    COMMAND ${SYMM_OSHRUN} --timeout 30 -np ${np} ${SYMM_DEBUG_BLOCKS} ${mode})
  set_tests_properties(debug_${name}.np${np} PROPERTIES TIMEOUT 40 ENVIRONMENT "${ARGN}"
    PASS_REGULAR_EXPRESSION "debug_blocks ${mode}: done"
    FAIL_REGULAR_EXPRESSION "symmetric block|still allocated|FAIL")
endfunction()

symm_debug_test(put_overrun 2
  "symm: shmem_putmem: dest ${SYMM_HEXD} \\+ 64 bytes runs 28 bytes past the end of symmetric block ${SYMM_HEXD} \\(100 bytes, ${SYMM_BLOCK_AT} 1\\)"
  put)
symm_debug_test(put_overrun_np4 4
  "symm: shmem_putmem: dest ${SYMM_HEXD} \\+ 64 bytes runs 28 bytes past the end of symmetric block ${SYMM_HEXD} \\(100 bytes, ${SYMM_BLOCK_AT} 3\\)"
  put)
symm_debug_test(get_overrun 2
  "symm: shmem_getmem: source ${SYMM_HEXD} \\+ 20 bytes runs 10 bytes past the end of symmetric block ${SYMM_HEXD} \\(100 bytes, ${SYMM_BLOCK_AT} 1\\)"
  get)
symm_debug_test(p_overrun 2
  "symm: shmem_int_p: dest ${SYMM_HEXD} \\+ 4 bytes runs 2 bytes past the end of symmetric block ${SYMM_HEXD} \\(6 bytes, ${SYMM_BLOCK_AT} 1\\)"
  p)
symm_debug_test(iput_overrun 2
  "symm: shmem_long_iput: dest ${SYMM_HEXD} \\+ 104 bytes runs 4 bytes past the end of symmetric block ${SYMM_HEXD} \\(100 bytes, ${SYMM_BLOCK_AT} 1\\)"
  iput)
symm_debug_test(amo_overrun 2
  "symm: shmem_long_atomic_add: dest ${SYMM_HEXD} \\+ 8 bytes runs 4 bytes past the end of symmetric block ${SYMM_HEXD} \\(12 bytes, ${SYMM_BLOCK_AT} 1\\)"
  amo)
symm_debug_test(signal_overrun 2
  "symm: shmem_signal_set: dest ${SYMM_HEXD} \\+ 8 bytes runs 4 bytes past the end of symmetric block ${SYMM_HEXD} \\(4 bytes, ${SYMM_BLOCK_AT} 1\\)"
  signal)
symm_debug_test(fcollect_overrun 2
  "symm: shmem_long_fcollect: dest ${SYMM_HEXD} \\+ 64 bytes runs 8 bytes past the end of symmetric block ${SYMM_HEXD} \\(56 bytes, ${SYMM_BLOCK_AT} [01]\\)"
  fcollect)
symm_debug_test(global_overrun 2
  "symm: shmem_long_put: dest ${SYMM_HEXD} \\+ 40 bytes runs 8 bytes past the end of global debug_garr \\(32 bytes\\) \\(PE 1\\)"
  global)

# Without SHMEM_DEBUG the same overruns stay inside the heap and pass.
foreach(mode put get p iput amo signal)
  symm_debug_ok(${mode}_nodebug 2 ${mode})
endforeach()
# Under SHMEM_DEBUG, accesses up to each block's last byte pass, at 1, 2
# and 4 PEs, and over UCX.
foreach(np 1 2 4)
  symm_debug_ok(clean ${np} clean SHMEM_DEBUG=1)
endforeach()
if(SYMM_HAVE_UCX)
  symm_debug_ok(clean_ucx 4 clean SHMEM_DEBUG=1 SYMM_TRANSPORT=ucx)
  symm_debug_test(put_overrun_ucx 2
    "symm: shmem_putmem: dest ${SYMM_HEXD} \\+ 64 bytes runs 28 bytes past the end of symmetric block ${SYMM_HEXD} \\(100 bytes, ${SYMM_BLOCK_AT} 1\\)"
    put)
  set_tests_properties(debug_put_overrun_ucx PROPERTIES ENVIRONMENT "SHMEM_DEBUG=1;SYMM_TRANSPORT=ucx")
endif()

# At finalize each PE lists its blocks still allocated: count, bytes asked
# for, and the largest (at most 5) with address, size and site, largest
# first. Without SHMEM_DEBUG: nothing.
set(SYMM_LEAK "symm: shmem_finalize: SHMEM_DEBUG: ")
set(SYMM_STILL "${SYMM_LEAK}still allocated: ${SYMM_HEXD}, ")
set(SYMM_SITE "allocated at ${SYMM_SITE_RE}")
foreach(np 1 2 4)
  math(EXPR pe_last "${np} - 1")
  math(EXPR listed "${np} * 3")
  add_test(NAME debug_leak.np${np}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_lines.sh
      --count ${np} "^${SYMM_LEAK}3 symmetric blocks, 5120 bytes, still allocated \\(PE [0-9]\\)$"
      --count 1 "^${SYMM_LEAK}3 symmetric blocks, .* \\(PE ${pe_last}\\)$"
      --count ${np} "^${SYMM_STILL}4096 bytes, ${SYMM_SITE} \\(PE [0-9]\\)$"
      --count ${np} "^${SYMM_STILL}1000 bytes, ${SYMM_SITE} \\(PE [0-9]\\)$"
      --count ${np} "^${SYMM_STILL}24 bytes, ${SYMM_SITE} \\(PE [0-9]\\)$"
      --count ${listed} "still allocated: "
      --count 0 " 777 bytes|FAIL"
      --order "3 symmetric blocks.*\\(PE ${pe_last}\\)$" "4096 bytes, .*\\(PE ${pe_last}\\)$"
      --order "4096 bytes, .*\\(PE ${pe_last}\\)$" " 1000 bytes, .*\\(PE ${pe_last}\\)$"
      --order " 1000 bytes, .*\\(PE ${pe_last}\\)$" " 24 bytes, .*\\(PE ${pe_last}\\)$"
      -- ${SYMM_OSHRUN} --timeout 30 -np ${np} ${SYMM_DEBUG_BLOCKS} leak)
  set_tests_properties(debug_leak.np${np} PROPERTIES TIMEOUT 40 ENVIRONMENT "SHMEM_DEBUG=1")
endforeach()
add_test(NAME debug_leak_many.np2
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_lines.sh
    --count 2 "^${SYMM_LEAK}7 symmetric blocks, 2800 bytes, still allocated; the 5 largest follow \\(PE [01]\\)$"
    --count 10 "still allocated: "
    --count 0 "still allocated: .* (100|200) bytes"
    --order "still allocated: .* 700 bytes.*\\(PE 1\\)$" "still allocated: .* 300 bytes.*\\(PE 1\\)$"
    -- ${SYMM_OSHRUN} --timeout 30 -np 2 ${SYMM_DEBUG_BLOCKS} leak_many)
set_tests_properties(debug_leak_many.np2 PROPERTIES TIMEOUT 40 ENVIRONMENT "SHMEM_DEBUG=1")
# The same program without SHMEM_DEBUG: no listing.
symm_debug_ok(leak_nodebug 2 leak)

# aclshmem: the listing at aclshmem_finalize (pe/acl_host.c's leak part:
# 300 + 40 bytes left); its program exports nothing, so the site is the
# program and an offset.
foreach(np 1 2)
  add_test(NAME debug_acl_leak.np${np}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_lines.sh
      --count ${np} "^symm: aclshmem_finalize: SHMEM_DEBUG: 2 symmetric blocks, 340 bytes, still allocated \\(PE [0-9]\\)$"
      --count ${np} "^symm: aclshmem_finalize: SHMEM_DEBUG: still allocated: ${SYMM_HEXD}, 300 bytes, allocated at [^ ]*acl_host\\+0x[0-9a-f]+ \\(PE [0-9]\\)$"
      --count ${np} "^symm: aclshmem_finalize: SHMEM_DEBUG: still allocated: ${SYMM_HEXD}, 40 bytes, allocated at [^ ]*acl_host\\+0x[0-9a-f]+ \\(PE [0-9]\\)$"
      --count 0 "70 bytes|FAIL"
      -- ${SYMM_OSHRUN} --timeout 30 -np ${np} $<TARGET_FILE:acl_host> leak)
  set_tests_properties(debug_acl_leak.np${np} PROPERTIES TIMEOUT 40 ENVIRONMENT "SHMEM_DEBUG=1")
endforeach()
