/*
 * stream_errors.c - error paths of CPU streams: programs that must fail, one
 * per mode (argv[1]); tests/stream.cmake checks the message. The last PE
 * does the wrong thing while the others wait in a barrier, so its error must
 * end the whole job; reaching the end of main exits 0, which
 * expect_fail.sh reports as a failure.
 */
#include <stdint.h>
#include <string.h>

#include <shmemx.h>

static int32_t gsig;

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    uint64_t on_stack = 0, src = 0;

    if (strcmp(mode, "before_init") == 0) {
        shmemx_stream_t s;
        shmemx_stream_create(&s);
        return 0;
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    uint64_t *heap = shmem_calloc(64, sizeof(uint64_t));
    shmemx_stream_t s;
    shmemx_stream_create(&s);

    if (me == npes - 1) {
        if (strcmp(mode, "put_pe") == 0) {
            aclshmemx_putmem_on_stream(heap, &src, 8, npes, s);
        } else if (strcmp(mode, "get_pe_default") == 0) {
            aclshmemx_getmem_on_stream(&src, heap, 8, -1, NULL);
        } else if (strcmp(mode, "put_stack") == 0) {
            aclshmemx_putmem_on_stream(&on_stack, &src, 8, 0, s);
        } else if (strcmp(mode, "get_past_end") == 0) {
            /* checked at enqueue: never runs, so dst needs no room */
            aclshmemx_getmem_on_stream(&src, heap, shmemx_heap_size() + 8, 0, s);
        } else if (strcmp(mode, "signal_op") == 0) {
            aclshmemx_signal_op_on_stream(&gsig, 1, 2, 0, s);
        } else if (strcmp(mode, "signal_stack") == 0) {
            int32_t local = 0;
            aclshmemx_signal_op_on_stream(&local, 1, ACLSHMEM_SIGNAL_SET, 0, s);
        } else if (strcmp(mode, "wait_cmp") == 0) {
            aclshmemx_signal_wait_until_on_stream(&gsig, 6, 0, s);
        } else if (strcmp(mode, "wait_misaligned") == 0) {
            aclshmemx_signal_wait_until_on_stream((int32_t *)((char *)heap + 2), ACLSHMEM_CMP_EQ, 0,
                                                  s);
        } else if (strcmp(mode, "barrier_team") == 0) {
            aclshmemx_barrier_on_stream(1000, s);
        } else if (strcmp(mode, "destroyed") == 0) {
            shmemx_stream_destroy(s);
            aclshmemx_quiet_on_stream(s);
        } else if (strcmp(mode, "create_null") == 0) {
            shmemx_stream_create(NULL);
        }
    }
    shmem_barrier_all();
    shmemx_stream_destroy(s);
    shmem_finalize();
    return 0;
}
