/*
 * launch_mpi.c - an MPI program that uses OpenSHMEM too: MPI_Init, then
 * shmem_init with SYMM_BOOTSTRAP=mpi (set by the test), so the PEs are
 * MPI_COMM_WORLD's ranks; a put ring, a barrier, an MPI collective in
 * between, shmem_finalize, MPI_Finalize.
 *
 *   SYMM_BOOTSTRAP=mpi mpirun -np N launch_mpi [late RANK SECONDS]
 *
 * "late" makes RANK sleep between MPI_Init and shmem_init.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 3 && strcmp(argv[1], "late") == 0 && rank == atoi(argv[2]))
        sleep((unsigned)atoi(argv[3]));

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK_EQ("shmem_my_pe() vs MPI rank", rank, me);
    CHECK_EQ("shmem_n_pes() vs MPI size", size, n);

    long *ring = shmem_calloc((size_t)n, sizeof(long));
    CHECK(ring != NULL, "shmem_calloc failed");
    long v = 2000 + me;
    shmem_long_put(&ring[me], &v, 1, (me + 1) % n);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    CHECK_EQ("ring[left]", 2000 + left, ring[left]);

    /* MPI still works, interleaved with SHMEM. */
    long sum = 0, mine = ring[left];
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ("MPI_Allreduce of the ring", 2000L * n + (long)n * (n - 1) / 2, sum);
    shmem_barrier_all();

    shmem_free(ring);
    shmem_finalize();
    MPI_Finalize();
    if (me == 0)
        printf("launch_mpi: %d PEs ok\n", n);
    return 0;
}
