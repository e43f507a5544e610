/*
 * acl_mpi.c - aclshmem's MPI mode: the program initialises MPI and hands
 * aclshmemx_init_attr a communicator. Two instances: 1 over MPI_COMM_WORLD,
 * 2 over a split of it with the ranks reversed; a put in each, checked.
 * Started by mpirun (tests/acl.cmake registers it where symm has its MPI
 * bootstrap and Open MPI's mpirun is found).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <aclshmem.h>

#define CHECK(cond, what)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "FAIL: %s (PE %d) [acl_mpi.c:%d]\n", what, aclshmem_my_pe(),    \
                    __LINE__);                                                              \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
        }                                                                                   \
    } while (0)

static void start(MPI_Comm *comm, uint64_t id)
{
    aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    attr.comm_args = comm;
    attr.local_mem_size = 8 << 20;
    attr.instance_id = id;
    CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr) == ACLSHMEM_SUCCESS, "init");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm world, rev;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);

    start(&world, 1);
    CHECK(aclshmem_my_pe() == rank && aclshmem_n_pes() == size, "PE numbers, instance 1");
    int32_t *a = (int32_t *)aclshmem_calloc(1, sizeof(int32_t));
    start(&rev, 2);
    int me2 = aclshmem_my_pe();
    CHECK(me2 == size - 1 - rank && aclshmem_n_pes() == size, "PE numbers, instance 2");
    int32_t *b = (int32_t *)aclshmem_calloc(1, sizeof(int32_t));

    aclshmem_int32_p(b, 200 + me2, (me2 + 1) % size);
    aclshmem_barrier_all();
    CHECK(*b == 200 + (me2 + size - 1) % size, "put in instance 2");
    CHECK(aclshmemx_instance_ctx_set(1) == ACLSHMEM_SUCCESS, "switch to 1");
    aclshmem_int32_p(a, 100 + rank, (rank + 1) % size);
    aclshmem_barrier_all();
    CHECK(*a == 100 + (rank + size - 1) % size, "put in instance 1");

    CHECK(aclshmemx_finalize(2) == ACLSHMEM_SUCCESS, "finalize 2");
    aclshmem_free(a);
    CHECK(aclshmem_finalize() == ACLSHMEM_SUCCESS, "finalize 1");
    if (rank == 0)
        printf("aclshmem MPI mode, two instances of %d PEs: ok\n", size);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&world);
    MPI_Finalize();
    return 0;
}
