# Memory tests: symmetric global data (three link modes) and the heap.

symm_pe_test(globals)

# The same test as a non-PIE executable: the data segment is at a fixed
# address, not where a PIE's would be.
symm_pe_test(globals_nopie SOURCES pe/globals.c)
set_target_properties(globals_nopie PROPERTIES POSITION_INDEPENDENT_CODE OFF)
target_compile_options(globals_nopie PRIVATE -fno-pie)
target_link_options(globals_nopie PRIVATE -no-pie)

# And statically linked against libsymm.a and libc.a (libsymm's own state
# then lives in the segment it remaps). symm_pe_test links the shared
# library, so this one is registered by hand, the same way. Skipped when
# the toolchain cannot link a static executable (no libc.a).
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_LINK_OPTIONS -static)
check_c_source_compiles("int main(void) { return 0; }" SYMM_CAN_LINK_STATIC)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(SYMM_CAN_LINK_STATIC AND NOT SYMM_SANITIZE AND NOT SYMM_TSAN) # sanitizers cannot link -static
  add_executable(globals_static pe/globals.c)
  target_link_libraries(globals_static PRIVATE symm_static)
  target_link_options(globals_static PRIVATE -static)
  target_include_directories(globals_static PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  foreach(np ${SYMM_TEST_NPS})
    add_test(NAME globals_static.np${np}
      COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} $<TARGET_FILE:globals_static>)
    set_tests_properties(globals_static.np${np} PROPERTIES TIMEOUT 60)
  endforeach()
else()
  message(STATUS "globals_static: skipped (no static libc, or a sanitizer build)")
endif()

symm_pe_test(heap)
symm_pe_test(heap_debug PROGRAM heap ENV SHMEM_DEBUG=1)
symm_pe_test(heap_grow PROGRAM heap ENV SHMEM_SYMMETRIC_SIZE=1M ARGS grow)
symm_pe_test(heap_exhaust PROGRAM heap
  ENV SHMEM_SYMMETRIC_SIZE=1M SYMM_MAX_SYMMETRIC_SIZE=4M ARGS exhaust)
# An initial heap above the default maximum (64G) raises the maximum; an
# explicit maximum below it fails init (errors.cmake). Not over UCX: that
# would register 65 GiB per PE.
symm_pe_test(heap_big PROGRAM heap NPS 1 2 NOUCX ENV SHMEM_SYMMETRIC_SIZE=65G ARGS big)

# Agreed failures (pe/agree.c): a step injected to fail on PE 1 (SYMM_FAULT,
# PE 0 at one PE) fails on every PE, which stay in step afterwards.
symm_pe_test(agree_grow SOURCES pe/agree.c ENV SHMEM_SYMMETRIC_SIZE=1M
  "SYMM_FAULT=ftruncate@1#2" ARGS grow)
symm_pe_test(agree_grow_ucx PROGRAM agree_grow ENV SHMEM_SYMMETRIC_SIZE=1M
  "SYMM_FAULT=ucx_reg@1#1" ARGS grow)
symm_pe_test(agree_calloc PROGRAM agree_grow ENV "SYMM_FAULT=calloc@1#3" ARGS calloc)
symm_pe_test(agree_team PROGRAM agree_grow ENV "SYMM_FAULT=team@1#1" ARGS team)
# Init: PE 1's heap cannot be sized; every PE fails init at once naming it
# (not after SYMM_BOOT_TIMEOUT: 20 s here, the test allows 10). The others'
# line usually comes out, but oshrun may end them first, once PE 1 exits:
# either PE 1's reason or another PE's line naming PE 1 must be there.
foreach(np 2 4)
  add_test(NAME agree_init.np${np}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_fail.sh
            "symm: shmem_init: (PE 1 failed: symmetric heap of [0-9]+ bytes: ftruncate: No space left on device \\(PE [023]\\)|symmetric heap of [0-9]+ bytes: ftruncate: No space left on device \\(PE 1\\))"
            ${SYMM_OSHRUN} --timeout 30 -np ${np} $<TARGET_FILE:empty>)
  set_tests_properties(agree_init.np${np} PROPERTIES TIMEOUT 10
    ENVIRONMENT "SYMM_FAULT=ftruncate@1#1;SYMM_BOOT_TIMEOUT=20")
endforeach()
add_test(NAME agree_init.np1
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_fail.sh
          "symm: shmem_init: symmetric heap of [0-9]+ bytes: ftruncate: No space left on device \\(PE 0\\)"
          ${SYMM_OSHRUN} --timeout 30 -np 1 $<TARGET_FILE:empty>)
set_tests_properties(agree_init.np1 PROPERTIES TIMEOUT 10 ENVIRONMENT "SYMM_FAULT=ftruncate@1#1")

# shmem_align for every power of two from 1 B to 1 GiB (pe/heap_align.c):
# aligned addresses on every PE at one offset, both ends written and put to
# a neighbour, the padding reused, the heap's use back after each free; a
# non-power-of-two and a too-large alignment fail with their messages.
symm_pe_test(heap_align)
symm_expect_fail(heap_align_not_pow2 1
  "symm: shmem_align: alignment 3 is not a power of two" $<TARGET_FILE:heap_align> not-pow2)
symm_expect_fail(heap_align_too_large 1
  "symm: shmem_align: alignment 1099511627776 is larger than the symmetric heap's base alignment 1073741824"
  $<TARGET_FILE:heap_align> too-large)

# One address per heap on a node (SYMM_SAME_ADDRESS, transport/shm.c): the
# KV-cache flow, a list across heaps and growth (pe/same_address.c); then
# the fallbacks: turned off, off on one PE only (the choice is the job's),
# a conflict on one PE's first try (agreed on the second range), and a
# conflict on every try (each process's own range, SHMEM_INFO says why).
symm_pe_test(same_address NOUCX)
symm_pe_test(same_address_off PROGRAM same_address NOUCX NPS 2 ARGS off ENV SYMM_SAME_ADDRESS=0)
add_test(NAME same_address_off_one.np4
  COMMAND ${SYMM_OSHRUN} --timeout 60 -np 4 bash -c
          "if [ \"$SYMM_RANK\" = 2 ]; then export SYMM_SAME_ADDRESS=0; fi; exec \"$0\" off"
          $<TARGET_FILE:same_address>)
add_test(NAME same_address_retry.np4
  COMMAND ${SYMM_OSHRUN} --timeout 60 -np 4 $<TARGET_FILE:same_address>)
add_test(NAME same_address_conflict.np4
  COMMAND ${SYMM_OSHRUN} --timeout 60 -np 4 $<TARGET_FILE:same_address> off)
set_tests_properties(same_address_off_one.np4 same_address_retry.np4 same_address_conflict.np4
  PROPERTIES TIMEOUT 60)
set_tests_properties(same_address_retry.np4 PROPERTIES
  ENVIRONMENT "SYMM_FAULT=same_address@1#1;SHMEM_INFO=1"
  PASS_REGULAR_EXPRESSION "node-local heaps: at one address in every process.*same_address \\(one address\\): ok on 4 PEs")
set_tests_properties(same_address_conflict.np4 PROPERTIES
  ENVIRONMENT "SYMM_FAULT=same_address@1;SHMEM_INFO=1"
  PASS_REGULAR_EXPRESSION "own address \\(no range was free in every process of a node\\).*same_address \\(fallback\\): ok on 4 PEs")
set_tests_properties(same_address_off_one.np4 PROPERTIES
  ENVIRONMENT "SHMEM_INFO=1"
  PASS_REGULAR_EXPRESSION "own address \\(SYMM_SAME_ADDRESS=0 on some PE\\).*same_address \\(fallback\\): ok on 4 PEs")

# The heap on 2 MiB huge pages (SYMM_HUGEPAGES): reserves pages through
# vm.nr_hugepages for the run (root), alone (another job's heap could take
# them), and skips where it cannot.
add_executable(hugepages pe/hugepages.c)
target_link_libraries(hugepages PRIVATE symm)
add_test(NAME hugepages
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/hugepages_test.sh ${SYMM_OSHRUN} $<TARGET_FILE:hugepages>)
set_tests_properties(hugepages PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
