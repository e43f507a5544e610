/*
 * coll_barrier.c - barriers under load.
 *
 *  - 10000 shmem_barrier_all in a loop (argument "quick": 2000, and a fifth
 *    of the other loops' iterations); before each, every PE puts a value
 *    that changes every iteration into its right neighbour's slot (two slots,
 *    alternating, so the write of iteration i+2 cannot race the check of
 *    iteration i); after each, the slot holds exactly the left neighbour's
 *    value of this iteration. A barrier that lets a PE through early (a
 *    flag of an earlier barrier taken for this one) shows as a stale value.
 *  - team_sync on split teams (the even PEs, the odd PEs, and the rows and
 *    columns of a 2-D split, which overlap) in a loop, interleaved with
 *    barrier_all: members put into the next member's slot, quiet, team_sync,
 *    check; every few iterations everyone meets in barrier_all, after which
 *    a value put before it by any PE is visible.
 *  - WORLD synchronized in turn by barrier_all, sync_all, team_sync(WORLD)
 *    and a WORLD reduction (these share WORLD's barrier state): every PE's
 *    put of the iteration is seen after each.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define MAXPES 64

static int me, npes, iters_div = 1;

static long val(int it, int pe, int kind)
{
    return (long)(test_hash4(3, (uint64_t)it, (uint64_t)pe, (uint64_t)kind) >> 2);
}

static void barrier_loop(void)
{
    long *slot = shmem_calloc(2, sizeof(long));
    CHECK(slot != NULL, "shmem_calloc expected memory got NULL");
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_barrier_all();
    for (int it = 0; it < 10000 / iters_div; it++) {
        shmem_long_p(&slot[it % 2], val(it, me, 0), right);
        shmem_barrier_all();
        CHECK(slot[it % 2] == val(it, left, 0),
              "after barrier_all %d: slot from PE %d expected %ld got %ld", it, left,
              val(it, left, 0), slot[it % 2]);
    }
    shmem_barrier_all();
    shmem_free(slot);
}

/* One team of the loop: a handle (INVALID on non-members) and its slots. */
typedef struct {
    shmem_team_t t;
    int n, idx, next, prev; /* world PEs of the next and previous member */
    long *slot;             /* [2] */
    const char *name;
} steam_t;

static void steam_init(steam_t *s, shmem_team_t t, const char *name)
{
    s->t = t;
    s->name = name;
    s->slot = shmem_calloc(2, sizeof(long)); /* collective: every PE */
    CHECK(s->slot != NULL, "shmem_calloc expected memory got NULL");
    if (t == SHMEM_TEAM_INVALID)
        return;
    s->n = shmem_team_n_pes(t);
    s->idx = shmem_team_my_pe(t);
    s->next = shmem_team_translate_pe(t, (s->idx + 1) % s->n, SHMEM_TEAM_WORLD);
    s->prev = shmem_team_translate_pe(t, (s->idx + s->n - 1) % s->n, SHMEM_TEAM_WORLD);
}

static void steam_round(steam_t *s, int it, int kind)
{
    if (s->t == SHMEM_TEAM_INVALID)
        return;
    shmem_long_p(&s->slot[it % 2], val(it, me, kind), s->next);
    shmem_quiet(); /* team_sync completes nothing itself */
    CHECK_EQ("team_sync return", 0, shmem_team_sync(s->t));
    CHECK(s->slot[it % 2] == val(it, s->prev, kind),
          "%s, iteration %d: after team_sync slot from PE %d expected %ld got %ld", s->name, it,
          s->prev, val(it, s->prev, kind), s->slot[it % 2]);
}

static void team_sync_loop(void)
{
    shmem_team_t ev, od = SHMEM_TEAM_INVALID, row, col;
    CHECK_EQ("split even", 0,
             shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &ev));
    if (npes > 1)
        CHECK_EQ("split odd", 0,
                 shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &od));
    CHECK_EQ("split_2d", 0, shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, NULL, 0, &col));
    steam_t s[4];
    steam_init(&s[0], ev, "even PEs");
    steam_init(&s[1], od, "odd PEs");
    steam_init(&s[2], row, "split_2d(2) row");
    steam_init(&s[3], col, "split_2d(2) column");
    long *all = shmem_calloc((size_t)npes * 2, sizeof(long));
    CHECK(all != NULL, "shmem_calloc expected memory got NULL");
    shmem_barrier_all();
    for (int it = 0; it < 2000 / iters_div; it++) {
        steam_round(&s[0], it, 1); /* even or odd: each PE in one */
        steam_round(&s[1], it, 2);
        steam_round(&s[2], it, 3); /* row and column overlap */
        steam_round(&s[3], it, 4);
        if (it % 5 == 4) {
            int b = (it / 5) % 2;
            for (int p = 0; p < npes; p++)
                shmem_long_p(&all[b * npes + me], val(it, me, 5), p);
            shmem_barrier_all();
            for (int p = 0; p < npes; p++)
                CHECK(all[b * npes + p] == val(it, p, 5),
                      "iteration %d: after barrier_all slot of PE %d expected %ld got %ld", it, p,
                      val(it, p, 5), all[b * npes + p]);
        }
    }
    shmem_barrier_all();
    shmem_team_destroy(col);
    shmem_team_destroy(row);
    if (od != SHMEM_TEAM_INVALID)
        shmem_team_destroy(od);
    if (ev != SHMEM_TEAM_INVALID)
        shmem_team_destroy(ev);
    shmem_free(all);
    for (int k = 3; k >= 0; k--)
        shmem_free(s[k].slot);
}

/* The ways to synchronize WORLD, mixed: barrier_all, sync_all (after a
 * quiet), team_sync(WORLD) (after a quiet) and a WORLD collective; each
 * must see every PE's put of this iteration. */
static void world_mix(void)
{
    long *slot = shmem_calloc(2 * (size_t)npes, sizeof(long));
    long *src = shmem_malloc(sizeof(long)), *dst = shmem_malloc(sizeof(long));
    CHECK(slot != NULL && src != NULL && dst != NULL, "shmem_calloc expected memory got NULL");
    shmem_barrier_all();
    for (int it = 0; it < 3000 / iters_div; it++) {
        long *mine = &slot[(it % 2) * npes];
        for (int p = 0; p < npes; p++)
            shmem_long_p(&mine[me], val(it, me, 6), (me + p) % npes);
        switch (it % 4) {
        case 0: shmem_barrier_all(); break;
        case 1:
            shmem_quiet();
            shmem_sync_all();
            break;
        case 2:
            shmem_quiet();
            CHECK_EQ("team_sync(WORLD)", 0, shmem_team_sync(SHMEM_TEAM_WORLD));
            break;
        default:
            /* a reduction synchronizes too; quiet first: it completes nothing */
            shmem_quiet();
            *src = 1;
            CHECK_EQ("long_sum_reduce", 0, shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1));
            CHECK_EQ("sum of ones", npes, *dst);
            break;
        }
        for (int p = 0; p < npes; p++)
            CHECK(mine[p] == val(it, p, 6),
                  "iteration %d (sync kind %d): slot of PE %d expected "
                  "%ld got %ld",
                  it, it % 4, p, val(it, p, 6), mine[p]);
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_free(slot);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "quick") == 0)
        iters_div = 5;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "at most %d PEs", MAXPES);
    barrier_loop();
    team_sync_loop();
    world_mix();
    shmem_finalize();
    return 0;
}
