# CPU streams (symm_stream.h): ordering, get, waits that hold the stream and
# not the caller, barriers on a stream, 100000 items in flight, two streams,
# destroy draining, the default stream. A stream runs its own thread, so the
# ThreadSanitizer build (SYMM_TSAN) runs the same test; any report fails it.
if(SYMM_TSAN)
  symm_pe_test(stream ENV TSAN_OPTIONS=halt_on_error=1:exitcode=66)
else()
  symm_pe_test(stream)
endif()

# Error paths: checked at enqueue, on the caller's thread, naming the routine.
add_executable(stream_errors pe/stream_errors.c)
target_link_libraries(stream_errors PRIVATE symm)
set(SYMM_STREAM_ERRORS $<TARGET_FILE:stream_errors>)
set(SYMM_SHEX "0x[0-9a-f]+")
function(symm_stream_error_test name np regex)
  symm_expect_fail(stream_errors_${name} ${np} "${regex}" ${SYMM_STREAM_ERRORS} ${name})
endfunction()
symm_stream_error_test(before_init 1
  "symm: shmemx_stream_create: called before shmem_init")
symm_stream_error_test(put_pe 2
  "symm: aclshmemx_putmem_on_stream: target PE 2 outside \\[0,2\\) \\(PE 1\\)")
symm_stream_error_test(get_pe_default 2
  "symm: aclshmemx_getmem_on_stream: target PE -1 outside \\[0,2\\) \\(PE 1\\)")
symm_stream_error_test(put_stack 2
  "symm: aclshmemx_putmem_on_stream: dest ${SYMM_SHEX} is not a symmetric address.* \\(PE 1\\)")
symm_stream_error_test(get_past_end 2
  "symm: aclshmemx_getmem_on_stream: source ${SYMM_SHEX} \\+ [0-9]+ bytes runs [0-9]+ bytes past the end")
symm_stream_error_test(signal_op 2
  "symm: aclshmemx_signal_op_on_stream: invalid signal operator 2 .*\\(PE 1\\)")
symm_stream_error_test(signal_stack 2
  "symm: aclshmemx_signal_op_on_stream: sig_addr ${SYMM_SHEX} is not a symmetric address")
symm_stream_error_test(wait_cmp 2
  "symm: aclshmemx_signal_wait_until_on_stream: invalid comparison operator 6 .*\\(PE 1\\)")
symm_stream_error_test(wait_misaligned 2
  "symm: aclshmemx_signal_wait_until_on_stream: sig_addr ${SYMM_SHEX} is not aligned")
symm_stream_error_test(barrier_team 2
  "symm: aclshmemx_barrier_on_stream: team 1000")
symm_stream_error_test(destroyed 2
  "symm: aclshmemx_quiet_on_stream: stream ${SYMM_SHEX} is not a live stream")
symm_stream_error_test(create_null 2
  "symm: shmemx_stream_create: stream_p is NULL \\(PE 1\\)")
