/*
 * active_errors.c - misuse of the deprecated active-set collectives that
 * must end the job with a message (checked by tests/coll.cmake with
 * symm_expect_fail). The last PE does the wrong thing while the others wait
 * in a barrier; reaching the end of main means the error was not detected
 * (exit 0, which expect_fail.sh reports as a failure).
 */
#include <stdio.h>
#include <string.h>

#include <shmem.h>

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static int isrc[4], idst[4], iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 4];
static long lsrc[4], ldst[16];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int n = shmem_n_pes(), culprit = shmem_my_pe() == n - 1;
    shmem_barrier_all();
    if (strcmp(mode, "barrier_outside") == 0) {
        /* the active set is every PE but the caller */
        if (culprit)
            shmem_barrier(0, 0, n - 1, pSync);
    } else if (strcmp(mode, "broadcast_outside") == 0) {
        /* the even PEs, called by an odd one */
        if (culprit)
            shmem_broadcast64(ldst, lsrc, 1, 0, 0, 1, n / 2, pSync);
    } else if (strcmp(mode, "to_all_outside") == 0) {
        if (culprit)
            shmem_int_sum_to_all(idst, isrc, 1, 0, 0, n - 1, iwrk, pSync);
    } else if (strcmp(mode, "barrier_beyond") == 0) {
        /* n + 1 PEs from 0 */
        if (culprit)
            shmem_barrier(0, 0, n + 1, pSync);
    } else if (strcmp(mode, "fcollect_beyond") == 0) {
        /* stride 2 from PE 1: the last member would be 1 + 2(n-1) */
        if (culprit)
            shmem_fcollect32(idst, isrc, 1, 1, 1, n, pSync);
    } else if (strcmp(mode, "broadcast_bad_root") == 0) {
        /* an active set of the caller alone, root 1 */
        if (culprit)
            shmem_broadcast32(idst, isrc, 1, 1, n - 1, 0, 1, pSync);
    } else if (strcmp(mode, "to_all_negative") == 0) {
        if (culprit)
            shmem_int_sum_to_all(idst, isrc, -1, n - 1, 0, 1, iwrk, pSync);
    } else if (strcmp(mode, "null_psync") == 0) {
        if (culprit)
            shmem_collect64(ldst, lsrc, 1, n - 1, 0, 1, NULL);
    } else if (strcmp(mode, "size_zero") == 0) {
        if (culprit)
            shmem_sync(0, 0, 0, pSync);
    } else {
        fprintf(stderr, "active_errors: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    printf("active_errors %s: the error was NOT detected\n", mode);
    return 0;
}
