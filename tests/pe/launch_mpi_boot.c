/*
 * launch_mpi_boot.c - the MPI bootstrap on its own (internal API, static
 * library): on a communicator given by the caller (the halves of an
 * MPI_Comm_split) with an fd exchange over it, and a timeout naming the PE
 * that did not arrive.
 *
 *   mpirun -np N launch_mpi_boot split
 *   mpirun -np N launch_mpi_boot late RANK SECONDS   (fails: PE 0 names RANK)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <mpi.h>
#include <errno.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"

int symm_boot_mpi_create(void *comm, double timeout_s, symm_boot_t **boot_p);

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                             \
        fprintf(stderr, " (rank %d) [%s:%d]\n", rank, __FILE__, __LINE__);                 \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size;
    symm_boot_t *boot = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 1 && strcmp(argv[1], "split") == 0) {
        MPI_Comm half;
        int hrank, hsize;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half); /* reversed order */
        MPI_Comm_rank(half, &hrank);
        MPI_Comm_size(half, &hsize);
        if (symm_boot_mpi_create(&half, 30, &boot) != 0)
            FAIL("symm_boot_mpi_create on a split communicator failed");
        if (boot->rank != hrank || boot->size != hsize)
            FAIL("bootstrap rank/size %d/%d, communicator %d/%d", boot->rank, boot->size, hrank,
                 hsize);
        for (int round = 0; round < 3; round++) {
            int mine[2] = {rank, round}, *all = malloc(sizeof(mine) * (size_t)hsize);
            if (boot->ops->allgather(boot, mine, all, sizeof(mine)) != 0)
                FAIL("allgather #%d failed", round);
            for (int r = 0; r < hsize; r++) {
                /* half rank r is world rank (color + 2 * (hsize - 1 - r)) */
                int world = rank % 2 + 2 * (hsize - 1 - r);
                if (all[2 * r] != world || all[2 * r + 1] != round)
                    FAIL("allgather #%d: slot %d holds %d/%d, expected %d/%d", round, r, all[2 * r],
                         all[2 * r + 1], world, round);
            }
            free(all);
            if (boot->ops->barrier(boot) != 0)
                FAIL("barrier #%d failed", round);
        }
        /* Descriptors over this bootstrap: every PE of the half is on this
         * node, and each memfd holds its owner's world rank. */
        int *ranks = malloc(sizeof(int) * (size_t)hsize),
            *fds = malloc(sizeof(int) * (size_t)hsize);
        int mine = memfd_create("pe", MFD_CLOEXEC);
        if (mine < 0 || write(mine, &rank, sizeof(rank)) != sizeof(rank))
            FAIL("memfd: %s", strerror(errno));
        for (int r = 0; r < hsize; r++)
            ranks[r] = r;
        if (symm_boot_fds_exchange(boot, ranks, hsize, hrank, &mine, 1, fds) != 0)
            FAIL("fd exchange over the MPI bootstrap failed");
        for (int r = 0; r < hsize; r++) {
            int v = -1;
            if (pread(fds[r], &v, sizeof(v), 0) != sizeof(v) || v != rank % 2 + 2 * (hsize - 1 - r))
                FAIL("half rank %d's descriptor holds %d", r, v);
            close(fds[r]);
        }
        close(mine);
        free(ranks);
        free(fds);
        symm_boot_destroy(boot);
        MPI_Comm_free(&half);
        if (rank == 0)
            printf("launch_mpi_boot split: %d ranks ok\n", size);
    } else if (argc > 3 && strcmp(argv[1], "late") == 0) {
        if (symm_boot_mpi_create(NULL, 2, &boot) != 0)
            FAIL("symm_boot_mpi_create failed");
        if (rank == atoi(argv[2]))
            sleep((unsigned)atoi(argv[3]));
        int rc = boot->ops->barrier(boot);
        if (rc != 0) {
            fprintf(stderr, "launch_mpi_boot: barrier failed as expected (rank %d)\n", rank);
            fflush(stderr);
            _exit(3);
        }
        symm_boot_destroy(boot);
    } else {
        fprintf(stderr, "usage: launch_mpi_boot split | late RANK SECONDS\n");
        return 2;
    }
    MPI_Finalize();
    return 0;
}
