/*
 * launch_pmix.c - a plain OpenSHMEM program started by a launcher other than
 * oshrun (mpirun, srun --mpi=pmix): shmem_init must find the launcher's rank
 * and size (PMIx bootstrap), then a put ring, a barrier and a reduction.
 *
 *   mpirun -np N launch_pmix N [late PE SECONDS]
 *
 * "late" makes PE (by PMIX_RANK) sleep before shmem_init, so that the others'
 * bootstrap times out and must name it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static long from_left = -1;

int main(int argc, char **argv)
{
    const char *prank = getenv("PMIX_RANK");
    int want_n = argc > 1 ? atoi(argv[1]) : -1;

    if (argc > 4 && strcmp(argv[2], "late") == 0 && prank != NULL &&
        atoi(prank) == atoi(argv[3]))
        sleep((unsigned)atoi(argv[4]));

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (prank != NULL)
        CHECK_EQ("shmem_my_pe() vs PMIX_RANK", atoi(prank), me);
    if (want_n > 0)
        CHECK_EQ("shmem_n_pes() vs mpirun -np", want_n, n);

    long *ring = shmem_calloc((size_t)n, sizeof(long));
    CHECK(ring != NULL, "shmem_calloc failed");
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long v = 1000 + me;
    shmem_long_put(&ring[me], &v, 1, right);
    shmem_long_p(&from_left, v, right);
    shmem_barrier_all();
    CHECK_EQ("ring[left]", 1000 + left, ring[left]);
    CHECK_EQ("from_left", 1000 + left, from_left);

    static long src, dst;
    src = me;
    CHECK_EQ("reduce status", 0, shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1));
    CHECK_EQ("sum of PE numbers", (long)n * (n - 1) / 2, dst);

    shmem_free(ring);
    shmem_finalize();
    if (me == 0)
        printf("launch_pmix: %d PEs ok\n", n);
    return 0;
}
