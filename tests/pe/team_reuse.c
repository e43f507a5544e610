/*
 * team_reuse.c - a team's scratch slot taken by the next team as soon as
 * it is destroyed, by a team the slow members of the old one are not in.
 *
 * On emulated nodes the team barrier is node-aware: a member reads its
 * node head's release word after the head has passed. Each round the
 * whole world splits a team, checks a sum over it and destroys it; the
 * even PEs then at once split a team of their own from a team of the even
 * PEs (made once), which takes the slot just freed, and check a sum over
 * it too. Every fourth round the even PEs (the heads, on nodes of 2) come
 * 3 ms late to the destroy, so the odd members' wait outlasts its spin and
 * sleeps. A head that left the destroy at once could zero the slot for its
 * next team before a sleeping member read the release, and that member
 * waited forever (stress seed 1934081243, nodes-heap-small-2x2).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pe/check.h"

#define ROUNDS 400

static long src, dst;

/* The sum over t of (world PE + 1), members start, start + stride, ... */
static void check_sum(shmem_team_t t, int start, int stride, int size, int r, const char *what)
{
    src = shmem_my_pe() + 1;
    CHECK(shmem_long_sum_reduce(t, &dst, &src, 1) == 0, "round %d: reduce on %s failed", r, what);
    long want = 0;
    for (int i = 0; i < size; i++)
        want += start + i * stride + 1;
    CHECK(dst == want, "round %d: sum over %s %ld, expected %ld", r, what, dst, want);
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS, evens = (npes + 1) / 2;
    shmem_team_t even;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, evens, NULL, 0, &even) == 0,
          "split of the even PEs failed");
    for (int r = 0; r < rounds; r++) {
        shmem_team_t t, e;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) == 0,
              "round %d: split of the world failed", r);
        check_sum(t, 0, 1, npes, r, "the world's copy");
        if (me % 2 == 0 && r % 4 == 0)
            usleep(3000);
        shmem_team_destroy(t);
        if (me % 2 == 0) {
            CHECK(shmem_team_split_strided(even, 0, 1, evens, NULL, 0, &e) == 0,
                  "round %d: split of the even PEs' team failed", r);
            check_sum(e, 0, 2, evens, r, "the even PEs' copy");
            shmem_team_destroy(e);
        }
    }
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    shmem_barrier_all();
    if (me == 0)
        printf("team_reuse: ok on %d PEs, %d rounds\n", npes, rounds);
    shmem_finalize();
    return 0;
}
