/*
 * v16_api.c - the 1.6 routines through their public headers, built as C
 * and as C++ (tests/v16.cmake): shmem.h's declarations of ibput/ibget,
 * pe_quiet, the scans and the sessions, and pshmem.h's profiling names for
 * them, each called and its result checked. Written in the common subset
 * of C and C++.
 */
#include <pshmem.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static int src[16], dst[16];
static long scan_src[4], scan_dst[4];

static void fail(const char *what, int i, long want, long got)
{
    fprintf(stderr, "FAIL: %s [%d] expected %ld got %ld (PE %d)\n", what, i, want, got,
            shmem_my_pe());
    shmem_global_exit(1);
}

int main(void)
{
    pshmem_init();
    int me = shmem_my_pe(), n = pshmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < 16; i++) {
        src[i] = me * 100 + i;
        dst[i] = -1;
    }
    shmem_barrier_all();
    /* 4 blocks of 2 from every 4th element of src to every 3rd of dst. */
    shmem_int_ibput(dst, src, 3, 4, 2, 4, right);
    shmem_pe_quiet(&right, 1);
    pshmem_barrier_all();
    for (int b = 0; b < 4; b++)
        for (int e = 0; e < 2; e++)
            if (dst[3 * b + e] != left * 100 + 4 * b + e)
                fail("shmem_int_ibput", 3 * b + e, left * 100 + 4 * b + e, dst[3 * b + e]);
    int got[8];
    pshmem_int_ibget(got, src, 2, 3, 2, 4, right); /* blocks of 2 every 3rd -> every 2nd */
    for (int b = 0; b < 4; b++)
        for (int e = 0; e < 2; e++)
            if (got[2 * b + e] != right * 100 + 3 * b + e)
                fail("pshmem_int_ibget", 2 * b + e, right * 100 + 3 * b + e, got[2 * b + e]);
    pshmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, &left, 1);

    shmem_ctx_session_config_t cfg;
    cfg.total_ops = 8;
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, &cfg,
                            SHMEM_CTX_SESSION_TOTAL_OPS);
    pshmem_ctx_session_start(SHMEM_CTX_DEFAULT, 0, NULL, 0);
    for (int i = 0; i < 4; i++)
        scan_src[i] = me + i;
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    pshmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    if (shmem_long_sum_inscan(SHMEM_TEAM_WORLD, scan_dst, scan_src, 4) != 0)
        fail("shmem_long_sum_inscan rc", 0, 0, 1);
    for (int i = 0; i < 4; i++) {
        long want = (long)me * (me + 1) / 2 + (long)(me + 1) * i;
        if (scan_dst[i] != want)
            fail("shmem_long_sum_inscan", i, want, scan_dst[i]);
    }
    if (pshmem_long_sum_exscan(SHMEM_TEAM_WORLD, scan_dst, scan_src, 4) != 0)
        fail("pshmem_long_sum_exscan rc", 0, 0, 1);
    for (int i = 0; i < 4; i++) {
        long want = (long)(me - 1) * me / 2 + (long)me * i;
        if (scan_dst[i] != want)
            fail("pshmem_long_sum_exscan", i, want, scan_dst[i]);
    }
    /* pshmem_sync by argument count (C) or overload (C++), as shmem_sync. */
    static long psync[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    pshmem_barrier_all();
    if (pshmem_sync(SHMEM_TEAM_WORLD) != 0)
        fail("pshmem_sync(team) rc", 0, 0, 1);
    pshmem_sync(0, 0, n, psync);
    if (me == 0)
        printf("v16_api: ok at %d PEs\n", n);
    pshmem_finalize();
    return 0;
}
