/*
 * active_outside.c - every PE calls the deprecated active-set collectives
 * on the set of even PEs (PE_start 0, logPE_stride 1): the odd PEs, outside
 * it, must return at once with their dest untouched, as in Open MPI (the
 * spec leaves it undefined; Open MPI's verifier suite expects it), and the
 * even PEs get their own results. Exit 1 on any wrong value.
 */
#include <stdio.h>

#include <shmem.h>

#define N 8
static long pSync[4][SHMEM_REDUCE_SYNC_SIZE]; /* one per collective: none reused early */
static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static long src[N], dst[N * 8];

static int check(const char *what, long got, long want)
{
    if (got == want)
        return 0;
    printf("PE %d: %s: got %ld, want %ld\n", shmem_my_pe(), what, got, want);
    return 1;
}

int main(void)
{
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
            pSync[k][i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), size = (n + 1) / 2, in = me % 2 == 0, bad = 0;
    for (int i = 0; i < N; i++)
        src[i] = (long)(me + 1) * 100 + i;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N * 8; i++)
            dst[i] = -7;
        shmem_barrier_all();
        shmem_long_max_to_all(dst, src, N, 0, 1, size, pWrk, pSync[0]);
        /* the largest even PE: 2 (size - 1) */
        for (int i = 0; i < N; i++)
            bad |= check("max_to_all", dst[i], in ? (long)(2 * (size - 1) + 1) * 100 + i : -7);
        shmem_barrier(0, 1, size, pSync[1]);
        shmem_barrier_all();
        shmem_broadcast64(dst, src, N, 0, 0, 1, size, pSync[2]);
        /* the root's dest is not written; others get PE 0's source */
        for (int i = 0; i < N; i++)
            bad |= check("broadcast64", dst[i], in && me != 0 ? 100 + i : me == 0 ? dst[i] : -7);
        shmem_barrier_all();
        shmem_fcollect64(dst, src, N, 0, 1, size, pSync[3]);
        for (int k = 0; k < size; k++)
            for (int i = 0; i < N; i++)
                bad |= check("fcollect64", dst[k * N + i], in ? (long)(2 * k + 1) * 100 + i : -7);
        shmem_barrier_all();
    }
    shmem_finalize();
    return bad;
}
