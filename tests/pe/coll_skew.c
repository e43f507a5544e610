/*
 * coll_skew.c - back-to-back collectives with no synchronisation of the
 * caller's, PEs deliberately out of step: what the barriers around every
 * collective used to protect, now that collectives over the network have
 * none (coll/coll_msg.h, messages).
 *
 * One loop of ITERS steps; step i calls one collective, chosen by i, on one
 * of three groups (the world team, a strided team of every other PE, an
 * active set of all PEs with alternating pSync arrays), with sizes cycling
 * across the eager and rendezvous ranges (1 .. 40000 longs) and the root
 * moving. Before some steps one PE sleeps, so its peers run ahead into the
 * next collectives. Each PE checks its dest against values computed here
 * from (PE, step, index) right after the call and then overwrites source
 * and dest for the next step at once: a peer still writing into my dest, or
 * reading my source, after the collective returned shows up as a wrong
 * value. Covered: broadcast (root != 0, in place on the root), fcollect,
 * collect with different sizes per PE (some zero), alltoall, sum reductions
 * of long and double (integer values: exact in any order), in place too,
 * xor of int, and the deprecated active-set forms of each.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

#include "pe/check.h"

#define ITERS 336
#define MAXN 40000 /* longs per PE: 320 KB, past the eager limit */

static const size_t sizes[] = {1, 7, 1000, 9000, 3, MAXN, 64};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static long val(int pe, int step, size_t k) { return (long)((pe * 131 + step * 7 + (long)k) % 1000); }

/* Who the group's members are: world PE of index j. */
typedef struct grp {
    shmem_team_t team; /* SHMEM_TEAM_INVALID: the active set */
    int size, me, stride;
} grp_t;

static long *src, *dst;
static double *dsrc;
static long psync[2][SHMEM_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + MAXN];
static double dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + MAXN];

static int wpe(const grp_t *g, int j) { return j * g->stride; }

/* Elements member j contributes to step i's collect (0 for some). */
static size_t ccount(int j, int i, size_t n) { return (size_t)((j + i) % 4) * (n / 4 + 1) / 2; }

static void step(const grp_t *g, int i, int kind, size_t n, const char *gname)
{
    int me = g->me, w = shmem_my_pe(), sz = g->size, as = g->team == SHMEM_TEAM_INVALID;
    long *ps = psync[i & 1];
    for (size_t k = 0; k < n * (size_t)sz; k++)
        src[k] = val(w, i, k);
    for (size_t k = 0; k <= n * (size_t)sz; k++)
        dst[k] = -1;
    switch (kind) {
    case 0: { /* broadcast, root moves; in place on the root every other time */
        int root = (i / 24) % sz; /* the same root a few times in a row: it runs ahead */
        long *s = (i & 2) && me == root ? dst : src;
        if (s == dst)
            for (size_t k = 0; k < n; k++)
                dst[k] = val(w, i, k);
        if (as)
            shmem_broadcast64(dst, s, n, root, 0, 0, sz, ps);
        else
            shmem_long_broadcast(g->team, dst, s, n, root);
        if (!as || me != root)
            for (size_t k = 0; k < n; k++)
                CHECK(dst[k] == val(wpe(g, root), i, k),
                      "%s step %d broadcast of %zu from %d: dst[%zu] = %ld, expected %ld", gname,
                      i, n, root, k, dst[k], val(wpe(g, root), i, k));
        break;
    }
    case 1: /* fcollect */
        if (as)
            shmem_fcollect64(dst, src, n, 0, 0, sz, ps);
        else
            shmem_long_fcollect(g->team, dst, src, n);
        for (int j = 0; j < sz; j++)
            for (size_t k = 0; k < n; k++)
                CHECK(dst[(size_t)j * n + k] == val(wpe(g, j), i, k),
                      "%s step %d fcollect of %zu: block %d [%zu] = %ld, expected %ld", gname, i,
                      n, j, k, dst[(size_t)j * n + k], val(wpe(g, j), i, k));
        break;
    case 2: { /* collect, a different size on every PE */
        size_t mine = ccount(me, i, n), off = 0;
        if (as)
            shmem_collect64(dst, src, mine, 0, 0, sz, ps);
        else
            shmem_long_collect(g->team, dst, src, mine);
        for (int j = 0; j < sz; j++) {
            size_t c = ccount(j, i, n);
            for (size_t k = 0; k < c; k++)
                CHECK(dst[off + k] == val(wpe(g, j), i, k),
                      "%s step %d collect: block %d (%zu) [%zu] = %ld, expected %ld", gname, i, j,
                      c, k, dst[off + k], val(wpe(g, j), i, k));
            off += c;
        }
        CHECK(dst[off] == -1, "%s step %d collect wrote past its %zu elements", gname, i, off);
        break;
    }
    case 3: /* alltoall: block j of my source is (me, j) */
        if (as)
            shmem_alltoall64(dst, src, n, 0, 0, sz, ps);
        else
            shmem_long_alltoall(g->team, dst, src, n);
        for (int j = 0; j < sz; j++)
            for (size_t k = 0; k < n; k++)
                CHECK(dst[(size_t)j * n + k] == val(wpe(g, j), i, (size_t)me * n + k),
                      "%s step %d alltoall of %zu: block %d [%zu] = %ld, expected %ld", gname, i,
                      n, j, k, dst[(size_t)j * n + k], val(wpe(g, j), i, (size_t)me * n + k));
        break;
    case 4: { /* long sum, in place every other time */
        long *d = (i & 2) ? src : dst;
        if (as)
            shmem_long_sum_to_all(d, src, (int)n, 0, 0, sz, pwrk, ps);
        else
            shmem_long_sum_reduce(g->team, d, src, n);
        for (size_t k = 0; k < n; k++) {
            long want = 0;
            for (int j = 0; j < sz; j++)
                want += val(wpe(g, j), i, k);
            CHECK(d[k] == want, "%s step %d long sum of %zu%s: [%zu] = %ld, expected %ld", gname,
                  i, n, d == src ? " in place" : "", k, d[k], want);
        }
        break;
    }
    case 5: { /* double sum in place: integer values, exact in any order */
        for (size_t k = 0; k < n; k++)
            dsrc[k] = (double)val(w, i, k);
        if (as)
            shmem_double_sum_to_all(dsrc, dsrc, (int)n, 0, 0, sz, dwrk, ps);
        else
            shmem_double_sum_reduce(g->team, dsrc, dsrc, n);
        for (size_t k = 0; k < n; k++) {
            double want = 0;
            for (int j = 0; j < sz; j++)
                want += (double)val(wpe(g, j), i, k);
            CHECK(dsrc[k] == want, "%s step %d double sum of %zu in place: [%zu] = %g, expected %g",
                  gname, i, n, k, dsrc[k], want);
        }
        break;
    }
    default: { /* int xor */
        int *s = (int *)(void *)src, *d = (int *)(void *)dst;
        for (size_t k = 0; k < n; k++)
            s[k] = (int)(val(w, i, k) * 2654435761u);
        if (as)
            shmem_int_xor_to_all(d, s, (int)n, 0, 0, sz, (int *)(void *)pwrk, ps);
        else
            shmem_int32_xor_reduce(g->team, (int32_t *)d, (const int32_t *)s, n);
        for (size_t k = 0; k < n; k++) {
            int want = 0;
            for (int j = 0; j < sz; j++)
                want ^= (int)(val(wpe(g, j), i, k) * 2654435761u);
            CHECK(d[k] == want, "%s step %d int xor of %zu: [%zu] = %d, expected %d", gname, i, n,
                  k, d[k], want);
        }
        break;
    }
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < SHMEM_SYNC_SIZE; j++)
            psync[k][j] = SHMEM_SYNC_VALUE;
    src = shmem_malloc(sizeof(long) * MAXN * (size_t)npes);
    dst = shmem_malloc(sizeof(long) * (MAXN * (size_t)npes + 1));
    dsrc = shmem_malloc(sizeof(double) * MAXN);
    CHECK(src && dst && dsrc, "shmem_malloc of the buffers");
    shmem_team_t evens = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    grp_t world = {SHMEM_TEAM_WORLD, npes, me, 1};
    grp_t even = {evens, (npes + 1) / 2, me / 2, 2};
    grp_t aset = {SHMEM_TEAM_INVALID, npes, me, 1};
    shmem_barrier_all();
    for (int i = 0; i < ITERS; i++) {
        /* One PE, changing, lags behind before some steps. */
        if (i % 5 == 2 && me == (i / 5) % npes)
            usleep(3000);
        size_t n = sizes[(size_t)i % NSIZES];
        int kind = (i / 12) % 7; /* four in a row on each group: roots run ahead */
        switch (i % 3) {
        case 0:
            step(&world, i, kind, n, "world");
            break;
        case 1:
            if (evens != SHMEM_TEAM_INVALID)
                step(&even, i, kind, n, "evens");
            break;
        default:
            step(&aset, i, kind, n, "active set");
            break;
        }
    }
    shmem_barrier_all();
    if (me == 0)
        printf("coll_skew: %d steps on %d PEs ok\n", ITERS, npes);
    shmem_finalize();
    return 0;
}
