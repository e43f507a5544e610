/*
 * team_threads.c - SHMEM_THREAD_MULTIPLE: two threads of every PE split two
 * different parent teams at the same time, over and over, and use each new
 * team at once (a barrier and a sum reduction, checked). Both splits of a
 * PE choose team slots concurrently (team/team.c reserves them): if two
 * live teams of one PE shared a slot, their barriers and reductions would
 * mix and the sums come out wrong, or hang.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "check.h"

#define ROUNDS 30

static shmem_team_t parent[2];
static int me, npes;
static int failures;

static void *splitter(void *arg)
{
    int k = (int)(long)arg;
    static long src[2], dst[2];
    for (int r = 0; r < ROUNDS; r++) {
        shmem_team_t t;
        /* Thread 0 splits the even PEs of parent 0, thread 1 all PEs of
         * parent 1: the teams overlap on the even PEs. */
        int stride = k == 0 ? 2 : 1, size = k == 0 ? (npes + 1) / 2 : npes;
        if (shmem_team_split_strided(parent[k], 0, stride, size, NULL, 0, &t) != 0) {
            __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
            continue;
        }
        if (t == SHMEM_TEAM_INVALID)
            continue; /* not a member */
        int n = shmem_team_n_pes(t);
        src[k] = shmem_team_my_pe(t) + 1 + r;
        shmem_team_sync(t);
        if (shmem_long_sum_reduce(t, &dst[k], &src[k], 1) != 0)
            __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
        long want = (long)n * (n + 1) / 2 + (long)n * r;
        if (dst[k] != want) {
            fprintf(stderr, "PE %d thread %d round %d: sum %ld, want %ld\n", me, k, r, dst[k],
                    want);
            __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
        }
        shmem_team_destroy(t);
    }
    return NULL;
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "THREAD_MULTIPLE provided");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int k = 0; k < 2; k++)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &parent[k]) == 0,
              "parent team %d", k);
    pthread_t th[2];
    int nth = getenv("TEAM_THREADS_ONE") ? 1 : 2; /* 1: the same sequence, one thread */
    for (int k = 2 - nth; k < 2; k++)
        pthread_create(&th[k], NULL, splitter, (void *)(long)k);
    for (int k = 2 - nth; k < 2; k++)
        pthread_join(th[k], NULL);
    CHECK(failures == 0, "%d failures", failures);
    shmem_team_destroy(parent[0]);
    shmem_team_destroy(parent[1]);
    shmem_finalize();
    printf("team_threads: ok on %d PEs\n", npes);
    return 0;
}
