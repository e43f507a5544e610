/*
 * errors.c - programs that must fail, one per mode (argv[1]); the expected
 * exit status and message are checked by tests/errors.cmake.
 *
 * Each mode does one wrong thing on one PE (the last, unless said) while
 * the others wait in a barrier, so the job must be ended as a whole by the
 * failing PE. Reaching the end of main means the error was not detected:
 * that exits 0, which expect_fail.sh reports as a failure.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemx.h>

static char garr[4096];
static int gint;

static int me, npes;

/* The PE that misbehaves; the others wait for the job to end. */
static int culprit(void) { return me == npes - 1; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    char src[64] = {0};

    if (strcmp(mode, "before_init") == 0) {
        shmem_int_p(&gint, 1, 0);
        return 0;
    }
    if (strcmp(mode, "my_pe_before_init") == 0) {
        (void)shmem_my_pe();
        return 0;
    }

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    char *heap = shmem_malloc(4096);

    if (strcmp(mode, "put_pe_npes") == 0) {
        if (culprit())
            shmem_putmem(heap, src, 8, npes);
    } else if (strcmp(mode, "p_pe_npes") == 0) {
        if (culprit())
            shmem_int_p(&gint, 5, npes);
    } else if (strcmp(mode, "get_pe_negative") == 0) {
        long v;
        if (culprit())
            shmem_long_get(&v, (long *)heap, 1, -1);
    } else if (strcmp(mode, "g_pe_negative") == 0) {
        if (culprit())
            (void)shmem_double_g((double *)heap, -2);
    } else if (strcmp(mode, "iput_pe_npes") == 0) {
        if (culprit())
            shmem_int_iput((int *)heap, (const int *)src, 2, 1, 4, npes + 3);
    } else if (strcmp(mode, "put_stack") == 0) {
        char on_stack[64];
        if (culprit())
            shmem_putmem(on_stack, src, sizeof(on_stack), 0);
    } else if (strcmp(mode, "get_malloc") == 0) {
        char *priv = malloc(64);
        if (culprit())
            shmem_getmem(src, priv, 64, 0);
        free(priv);
    } else if (strcmp(mode, "amo_malloc") == 0) {
        int *priv = malloc(sizeof(int));
        if (culprit())
            shmem_int_atomic_inc(priv, 0);
        free(priv);
    } else if (strcmp(mode, "put_null") == 0) {
        if (culprit())
            shmem_putmem(NULL, src, 8, 0);
    } else if (strcmp(mode, "put_null_source") == 0) {
        if (culprit())
            shmem_putmem(heap, NULL, 8, 0);
    } else if (strcmp(mode, "get_null_dest") == 0) {
        if (culprit())
            shmem_getmem(NULL, heap, 8, 0);
    } else if (strcmp(mode, "global_overrun") == 0) {
        /* SHMEM_DEBUG=1: from a global array, further than the whole
         * data segment (never copied: the check comes first). */
        if (culprit())
            shmem_putmem(garr, garr, (size_t)1 << 30, 0);
    } else if (strcmp(mode, "heap_overrun") == 0) {
        /* SHMEM_DEBUG=1: from a heap block, past the end of the heap. */
        if (culprit())
            shmem_putmem(heap, heap, shmemx_heap_size() + 8192, 0);
    } else if (strcmp(mode, "wait_bad_cmp") == 0) {
        if (culprit())
            shmem_int_wait_until(&gint, 17, 0);
    } else if (strcmp(mode, "test_bad_cmp") == 0) {
        if (culprit())
            (void)shmem_long_test((long *)heap, -1, 0);
    } else if (strcmp(mode, "global_exit") == 0) {
        if (culprit())
            shmem_global_exit(3);
        /* The others block here until the launcher ends them. */
        shmem_barrier_all();
        shmem_barrier_all();
    } else if (strcmp(mode, "global_exit_0") == 0) {
        /* Status 0 from one PE while the others are blocked: the job ends
         * with 0 (checked with expect_status.sh 0). */
        if (culprit())
            shmem_global_exit(0);
        shmem_barrier_all();
    } else if (strcmp(mode, "exit_nonzero") == 0) {
        /* A PE that exits with 7 without global_exit ends the job with 7. */
        if (culprit()) {
            fflush(stdout);
            _exit(7);
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "exit_before_finalize") == 0) {
        /* exit(3) (exit handlers run, stdio not flushed by hand) while the
         * others wait in a barrier: the job ends with 3 at once, with the
         * culprit's buffered line and a message naming it. */
        if (culprit()) {
            printf("last words of PE %d\n", me);
            exit(3);
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "kill_self") == 0) {
        /* SIGKILL (an OOM kill) while the others wait in a barrier: they
         * end the job, naming it, in every launch mode. */
        if (culprit()) {
            fflush(stdout);
            usleep(200000); /* the others are in the barrier by then */
            raise(SIGKILL);
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "segv_self") == 0) {
        if (culprit()) {
            usleep(200000);
            raise(SIGSEGV);
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "hang") == 0) {
        /* SYMM_HANG_TIMEOUT: the culprit waits for a value nobody writes,
         * the others in a barrier; the report names both. */
        if (culprit())
            shmem_int_wait_until(&gint, SHMEM_CMP_EQ, 42);
        shmem_barrier_all();
    } else if (strcmp(mode, "hang_compute") == 0) {
        /* SYMM_HANG_TIMEOUT across nodes (SYMM_NODE_SIZE=2): PE 0 waits
         * for a value nobody writes, the rest of its node in a barrier, and
         * the PEs of the upper half compute, never calling symm: the report
         * must still name them (their progress thread answers the reads;
         * without one, "not answering"). */
        if (me == 0) {
            shmem_int_wait_until(&gint, SHMEM_CMP_EQ, 42);
        } else if (me >= npes / 2) {
            volatile unsigned long spin = 0;
            for (;;)
                spin++;
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "coll_mismatch") == 0) {
        /* SHMEM_DEBUG=1: the culprit broadcasts while the others are in a
         * barrier on the same team. */
        static long bsrc[4], bdst[4];
        if (culprit() && npes > 1)
            shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, 4, 0);
        else
            shmem_barrier_all();
        shmem_barrier_all();
    } else if (strcmp(mode, "active_mismatch") == 0) {
        /* SHMEM_DEBUG=1: the same, on the active set of every PE. */
        static long psync[SHMEM_BCAST_SYNC_SIZE], bsrc[4], bdst[4];
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            psync[i] = SHMEM_SYNC_VALUE;
        shmem_barrier_all();
        if (culprit() && npes > 1)
            shmem_broadcast64(bdst, bsrc, 4, 0, 0, 0, npes, psync);
        else
            shmem_barrier(0, 0, npes, psync);
        shmem_barrier_all();
    } else if (strcmp(mode, "malloc_mismatch") == 0) {
        /* SHMEM_DEBUG=1: PEs ask for different sizes. */
        void *p = shmem_malloc(culprit() ? 128 : 64);
        (void)p;
    } else if (strcmp(mode, "free_bad") == 0) {
        if (culprit())
            shmem_free(garr);
    } else if (strcmp(mode, "after_finalize") == 0) {
        shmem_free(heap);
        shmem_finalize();
        shmem_int_p(&gint, 1, 0);
        return 0;
    } else if (strcmp(mode, "init") == 0) {
        /* Nothing wrong: used with a bad environment, init itself fails. */
    } else {
        fprintf(stderr, "errors: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_barrier_all();
    shmem_free(heap);
    shmem_finalize();
    if (strcmp(mode, "init") != 0)
        printf("errors %s: the error was NOT detected\n", mode);
    return 0;
}
