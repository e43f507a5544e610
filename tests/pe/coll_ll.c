/*
 * coll_ll.c - small collectives back to back, in the sizes around the slot
 * form's limit (coll/coll_ll.h: up to 304 bytes per member in node-local
 * teams of 2-8 PEs), so slot and staged forms alternate on one team; the
 * root of each broadcast changes, one PE lags now and then (its slots must
 * not be overwritten before it read them: a root may run ahead by at most
 * the ring's depth), and every result is checked at once against values
 * computed here, with dest and source reused at once. Broadcast, fcollect,
 * alltoall, collect (blocks of different sizes) and a sum reduction.
 *
 * With the argument `stage`, the sizes are those around the staged form's
 * limit instead (coll/coll_stage.h: up to 8 KiB staged per member, an
 * alltoall stages all n blocks), so staged and pull forms alternate: a
 * member's staged copy must not be overwritten two staged collectives
 * later while a lagging peer still reads it.
 */
#include <string.h>
#include <time.h>

#include "check.h"

#define ROUNDS 400
#define MAXB 8200
#define MAXC (MAXB + 8 * 16) /* collect's longest block */

static unsigned char src[16 * MAXC], dst[16 * MAXC];
static long lsrc[MAXB / 8], ldst[MAXB / 8];

static unsigned char val(int round, int pe, size_t i)
{
    return (unsigned char)(round * 31 + pe * 7 + (int)i * 3 + 1);
}

static void lag(int round, int me)
{
    if ((round * 7 + me) % 13 == 0) {
        struct timespec ts = {0, 200000}; /* 0.2 ms */
        nanosleep(&ts, NULL);
    }
}

static int stage_sizes;

/* nbytes per member for round r: around the limit, and small. */
static size_t size_of(int r)
{
    static const size_t ll[] = {1, 8, 48, 49, 56, 64, 120, 300, 304, 305, 320};
    static const size_t stage[] = {8, 305, 512, 1024, 2048, 2056, 2736, 4096, 4104, 8184, 8192, 8200};
    if (stage_sizes)
        return stage[r % (int)(sizeof(stage) / sizeof(stage[0]))];
    return ll[r % (int)(sizeof(ll) / sizeof(ll[0]))];
}

/* collect's bytes from member j in a round of nb bytes */
static size_t clen(size_t nb, int j)
{
    return j % 3 == 2 ? 0 : nb + (size_t)j * 8;
}

static void one_round(shmem_team_t team, int r)
{
    int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
    size_t nb = size_of(r);
    int root = r % n;
    lag(r, me);
    /* broadcast */
    for (size_t i = 0; i < nb; i++)
        src[i] = val(r, me, i);
    shmem_broadcastmem(team, dst, src, nb, root);
    for (size_t i = 0; i < nb; i++)
        CHECK(dst[i] == val(r, root, i), "round %d broadcast %zu B byte %zu: %u, want %u", r, nb,
              i, dst[i], val(r, root, i));
    /* fcollect: my block, every member's in order */
    shmem_fcollectmem(team, dst, src, nb);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < nb; i++)
            CHECK(dst[(size_t)j * nb + i] == val(r, j, i), "round %d fcollect %zu B block %d", r,
                  nb, j);
    /* alltoall: block j of my source to member j */
    size_t ab = nb;
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < ab; i++)
            src[(size_t)j * ab + i] = val(r, me * 16 + j, i);
    shmem_alltoallmem(team, dst, src, ab);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < ab; i++)
            CHECK(dst[(size_t)j * ab + i] == val(r, j * 16 + me, i), "round %d alltoall %zu B", r,
                  ab);
    /* collect: member j gives clen(j) bytes, some none; in the `stage`
     * sizes some past what a member stages (8 KiB less its count's line),
     * so staged and unstaged blocks mix in one call */
    for (size_t i = 0; i < clen(nb, me); i++)
        src[i] = val(r, me + 100, i);
    shmem_collectmem(team, dst, src, clen(nb, me));
    size_t off = 0;
    for (int j = 0; j < n; j++) {
        for (size_t i = 0; i < clen(nb, j); i++)
            CHECK(dst[off + i] == val(r, j + 100, i), "round %d collect %zu B block %d byte %zu",
                  r, clen(nb, j), j, i);
        off += clen(nb, j);
    }
    /* sum of longs, in place every third round */
    size_t nl = nb / 8 ? nb / 8 : 1;
    for (size_t i = 0; i < nl; i++)
        lsrc[i] = (long)(me + 1) * (long)(i + 1) + r;
    long *out = r % 3 == 0 ? lsrc : ldst;
    shmem_long_sum_reduce(team, out, lsrc, nl);
    for (size_t i = 0; i < nl; i++) {
        long want = (long)n * (n + 1) / 2 * (long)(i + 1) + (long)n * r;
        CHECK(out[i] == want, "round %d sum of %zu longs [%zu]: %ld, want %ld", r, nl, i, out[i],
              want);
    }
}

int main(int argc, char **argv)
{
    stage_sizes = argc > 1 && strcmp(argv[1], "stage") == 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    /* WORLD, and a split of the even PEs (a second ring on the same PEs). */
    shmem_team_t even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    for (int r = 0; r < ROUNDS; r++) {
        one_round(SHMEM_TEAM_WORLD, r);
        if (even != SHMEM_TEAM_INVALID && r % 4 == 0)
            one_round(even, r);
    }
    /* A root far ahead: 50 broadcasts while a member sleeps; the root must
     * stop at the ring's depth and every value must arrive. */
    static long word, got[50];
    for (int k = 0; k < 50; k++) {
        if (me == npes - 1 && k == 1) {
            struct timespec ts = {0, 20000000}; /* 20 ms */
            nanosleep(&ts, NULL);
        }
        word = me == 0 ? 1000 + k : -1;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &got[k], &word, 1, 0);
    }
    for (int k = 0; k < 50; k++)
        CHECK(got[k] == 1000 + k, "ahead broadcast %d: %ld", k, got[k]);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    shmem_finalize();
    if (me == 0)
        printf("coll_ll%s: ok on %d PEs\n", stage_sizes ? " stage" : "", npes);
    return 0;
}
