/*
 * amo_histo.c - the remote-add pattern of a histogram kernel (bale's histo):
 * every PE adds 1 to random slots of a table spread over the other PEs,
 * ITERS non-fetching shmem_longlong_atomic_add each, then one quiet. PE 0
 * prints the time per add (the slowest PE's) and checks that the table
 * sums to ITERS x npes. Written to OpenSHMEM 1.4 so Open MPI's OpenSHMEM
 * runs the same source:
 *
 *   oshcc -O2 bench/amo_histo.c -o histo && oshrun -np 2 ./histo [ITERS]
 *   scripts/netns_cluster.sh -n 2 -- ./histo 200000          (across nodes)
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TABLE (1 << 16)

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long long sum_in, sum_out;
static double t_in, t_out;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    int iters = argc > 1 ? atoi(argv[1]) : 200000;
    long long *table = shmem_calloc(TABLE, sizeof(long long));
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    unsigned s = (unsigned)me * 7919u + 1u;
    double t0 = now();
    for (int i = 0; i < iters; i++) {
        s = s * 1103515245u + 12345u;
        int pe = np > 1 ? (me + 1 + (int)((s >> 8) % (unsigned)(np - 1))) % np : 0;
        shmem_longlong_atomic_add(&table[(s >> 4) % TABLE], 1, pe);
    }
    shmem_quiet();
    t_in = now() - t0;
    shmem_barrier_all();
    for (int i = 0; i < TABLE; i++)
        sum_in += table[i];
    shmem_longlong_sum_to_all(&sum_out, &sum_in, 1, 0, 0, np, pwrk, psync);
    shmem_barrier_all();
    shmem_double_max_to_all(&t_out, &t_in, 1, 0, 0, np, dwrk, psync);
    if (me == 0)
        printf("amo_histo %d PEs %d adds each: %.2f us/add, table sum %lld (expected %lld)\n",
               np, iters, t_out / iters, sum_out, (long long)iters * np);
    int bad = sum_out != (long long)iters * np;
    shmem_free(table);
    shmem_finalize();
    return bad;
}
