/*
 * team.c - teams: queries, translate_pe, split_strided, split_2d, team_sync,
 * team contexts, shmem_team_ptr, destroy/re-split cycles and the team limit.
 *
 * Every team the test makes is checked the same way (verify_team) against
 * the world PEs the test expects it to hold, computed locally from the
 * split's arguments (split_strided: parent index start + k*stride;
 * split_2d: parent index i has x = i % xrange, y = i / xrange; the x-axis
 * team is the PEs of my y ordered by x, the y-axis team those of my x
 * ordered by y):
 *  - n_pes, my_pe, translate_pe to and from SHMEM_TEAM_WORLD and to itself,
 *    -1 for PEs outside it and for out-of-range team PEs;
 *  - get_config: num_contexts as configured (0 when the mask is 0);
 *  - team_sync returns 0; an int fcollect of the world PE numbers gives
 *    exactly the members in order; a long sum reduction of (world PE + 1);
 *  - shmem_team_ptr: non-NULL for every member (one node), equal to
 *    shmem_ptr of the world PE (the local address for myself), NULL out of
 *    range; a value each member stored is read through the pointer;
 *  - a context made with shmem_team_create_ctx: get_team gives the team; a
 *    put to team PE k lands on world PE members[k]; a get from team PE k
 *    reads members[k].
 * Every non-member of a split gets SHMEM_TEAM_INVALID with return value 0.
 * Invalid splits (size 0, size past the parent, stride 0 with size 2, a
 * range past either end, an invalid parent, xrange < 1) return non-zero and
 * SHMEM_TEAM_INVALID on every PE.
 *
 * Mode "limit" (run with SYMM_MAX_TEAMS=4, and =130 for a limit past 64):
 * splits until one fails, which must happen after exactly
 * SYMM_MAX_TEAMS - 2 teams (world and shared hold two slots); all of them
 * work, back to back; split_2d, which needs two slots, fails with one free;
 * a destroy makes a split succeed again.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define MAXPES 64
#define NSLOT MAXPES /* longs of buf per purpose */

static int me, npes;

/* World PE p's index in SHMEM_TEAM_SHARED, -1 if on another node: the
 * launch puts test_pes_per_node consecutive PEs on each node. */
static int shared_of(int p)
{
    int ppn = test_pes_per_node(npes);
    return p / ppn == me / ppn ? p % ppn : -1;
}

static long *buf;  /* symmetric: [0] my tag, [NSLOT..2*NSLOT) ctx puts */
static int *ibuf;  /* symmetric: fcollect source and dest */
static long *lbuf; /* symmetric: reduction source and dest */

static long tag(int world_pe, int k)
{
    return (long)(test_hash4(7, (uint64_t)world_pe, (uint64_t)k, 0) >> 2);
}

/* The world PEs of a team, by translate_pe (calling PE must be a member). */
static int team_world(shmem_team_t t, int *w)
{
    int n = shmem_team_n_pes(t);
    CHECK(n >= 1 && n <= MAXPES, "team_n_pes expected 1..%d got %d", MAXPES, n);
    for (int k = 0; k < n; k++)
        w[k] = shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD);
    return n;
}

/* The member checks of the file comment; called by members only. */
static void verify_team(shmem_team_t t, const int *w, int size, int num_contexts, const char *what)
{
    int myk = -1;
    for (int k = 0; k < size; k++)
        if (w[k] == me)
            myk = k;
    CHECK(myk >= 0, "%s: verify_team called on a PE outside the expected team", what);
    CHECK(t != SHMEM_TEAM_INVALID, "%s: member got SHMEM_TEAM_INVALID", what);
    CHECK(shmem_team_n_pes(t) == size, "%s: team_n_pes expected %d got %d", what, size,
          shmem_team_n_pes(t));
    CHECK(shmem_team_my_pe(t) == myk, "%s: team_my_pe expected %d got %d", what, myk,
          shmem_team_my_pe(t));

    /* translate_pe */
    for (int k = 0; k < size; k++) {
        int got = shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD);
        CHECK(got == w[k], "%s: translate_pe(team %d -> world) expected %d got %d", what, k, w[k],
              got);
        got = shmem_team_translate_pe(SHMEM_TEAM_WORLD, w[k], t);
        CHECK(got == k, "%s: translate_pe(world %d -> team) expected %d got %d", what, w[k], k,
              got);
        got = shmem_team_translate_pe(t, k, t);
        CHECK(got == k, "%s: translate_pe(team %d -> same team) expected %d got %d", what, k, k,
              got);
        got = shmem_team_translate_pe(t, k, SHMEM_TEAM_SHARED);
        int want_sh = shared_of(w[k]);
        CHECK(got == want_sh, "%s: translate_pe(team %d -> shared) expected %d got %d (one node)",
              what, k, want_sh, got);
    }
    for (int p = 0; p < npes; p++) {
        int in = -1;
        for (int k = 0; k < size; k++)
            if (w[k] == p)
                in = k;
        int got = shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, t);
        CHECK(got == in, "%s: translate_pe(world %d -> team) expected %d got %d", what, p, in, got);
    }
    CHECK_EQ("translate_pe(team -1 -> world)", -1,
             shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD));
    CHECK_EQ("translate_pe(team size -> world)", -1,
             shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD));
    CHECK_EQ("translate_pe(team -> invalid)", -1,
             shmem_team_translate_pe(t, 0, SHMEM_TEAM_INVALID));
    CHECK_EQ("translate_pe(invalid -> team)", -1,
             shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, t));

    /* get_config */
    shmem_team_config_t cfg = {.num_contexts = -77};
    CHECK_EQ("team_get_config return", 0, shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &cfg));
    CHECK(cfg.num_contexts == num_contexts, "%s: get_config num_contexts expected %d got %d", what,
          num_contexts, cfg.num_contexts);
    cfg.num_contexts = -77;
    CHECK_EQ("team_get_config(mask 0) return", 0, shmem_team_get_config(t, 0, &cfg));
    CHECK(cfg.num_contexts == -77, "%s: get_config with mask 0 wrote num_contexts %d", what,
          cfg.num_contexts);

    /* team_sync, then a collective that shows who is in the team */
    buf[0] = tag(me, 0);
    CHECK_EQ("team_sync return", 0, shmem_team_sync(t));
    ibuf[0] = me;
    for (int k = 0; k <= size; k++)
        ibuf[MAXPES + k] = -5;
    CHECK_EQ("int_fcollect return", 0, shmem_int_fcollect(t, &ibuf[MAXPES], &ibuf[0], 1));
    for (int k = 0; k < size; k++)
        CHECK(ibuf[MAXPES + k] == w[k], "%s: fcollect of world PEs [%d] expected %d got %d", what,
              k, w[k], ibuf[MAXPES + k]);
    CHECK(ibuf[MAXPES + size] == -5, "%s: fcollect wrote past its %d elements", what, size);
    lbuf[0] = me + 1;
    long want = 0;
    for (int k = 0; k < size; k++)
        want += w[k] + 1;
    CHECK_EQ("long_sum_reduce return", 0, shmem_long_sum_reduce(t, &lbuf[1], &lbuf[0], 1));
    CHECK(lbuf[1] == want, "%s: sum of (world PE + 1) expected %ld got %ld", what, want, lbuf[1]);

    /* shmem_team_ptr (buf[0] was stored before the team_sync above) */
    for (int k = 0; k < size; k++) {
        long *p = shmem_team_ptr(t, buf, k);
        if (shared_of(w[k]) < 0) {
            CHECK(p == NULL, "%s: team_ptr(team PE %d) on another node expected NULL", what, k);
            continue;
        }
        CHECK(p != NULL, "%s: team_ptr(team PE %d) is NULL on one node", what, k);
        if (k == myk)
            CHECK_PTR("team_ptr(myself)", buf, p);
        else
            CHECK_PTR("team_ptr == shmem_ptr of the world PE", shmem_ptr(buf, w[k]), p);
        CHECK(*p == tag(w[k], 0), "%s: *team_ptr(team PE %d) expected %ld got %ld", what, k,
              tag(w[k], 0), *p);
    }
    CHECK_PTR("team_ptr(pe -1)", NULL, shmem_team_ptr(t, buf, -1));
    CHECK_PTR("team_ptr(pe size)", NULL, shmem_team_ptr(t, buf, size));

    /* a team context: team PE numbers on puts and gets */
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK_EQ("team_create_ctx return", 0, shmem_team_create_ctx(t, 0, &ctx));
    CHECK(ctx != SHMEM_CTX_INVALID, "%s: team_create_ctx gave SHMEM_CTX_INVALID", what);
    shmem_team_t back = SHMEM_TEAM_INVALID;
    CHECK_EQ("ctx_get_team return", 0, shmem_ctx_get_team(ctx, &back));
    CHECK(back == t, "%s: ctx_get_team is not the team the context was made from", what);
    for (int k = 0; k < size; k++) {
        long v = tag(me, 100 + k);
        shmem_ctx_long_put(ctx, &buf[NSLOT + myk], &v, 1, k);
    }
    shmem_ctx_quiet(ctx);
    shmem_team_sync(t);
    for (int j = 0; j < size; j++)
        CHECK(buf[NSLOT + j] == tag(w[j], 100 + myk),
              "%s: ctx put from team PE %d (world %d) expected %ld got %ld", what, j, w[j],
              tag(w[j], 100 + myk), buf[NSLOT + j]);
    for (int k = 0; k < size; k++) {
        long got = shmem_ctx_long_g(ctx, &buf[0], k);
        CHECK(got == tag(w[k], 0), "%s: ctx g from team PE %d expected world %d's %ld got %ld",
              what, k, w[k], tag(w[k], 0), got);
    }
    shmem_ctx_destroy(ctx);
    /* Nobody reuses buf (next verify) before every member is done here. */
    shmem_team_sync(t);
}

/* Split parent by (start, stride, size) with num_contexts nc (mask set when
 * nc >= 0); checks the outcome on every parent PE; returns the team
 * (SHMEM_TEAM_INVALID on non-members). */
static shmem_team_t split_check(shmem_team_t parent, int start, int stride, int size, int nc,
                                const char *what)
{
    int pw[MAXPES], w[MAXPES], in = 0;
    int pn = team_world(parent, pw);
    shmem_team_config_t cfg = {.num_contexts = nc >= 0 ? nc : 9};
    shmem_team_t t = SHMEM_TEAM_WORLD; /* must be overwritten */
    int rc = shmem_team_split_strided(parent, start, stride, size, &cfg,
                                      nc >= 0 ? SHMEM_TEAM_NUM_CONTEXTS : 0, &t);
    CHECK(rc == 0, "%s: split_strided(start %d, stride %d, size %d) of a %d-PE parent returned %d",
          what, start, stride, size, pn, rc);
    for (int k = 0; k < size; k++) {
        w[k] = pw[start + k * stride];
        in |= w[k] == me;
    }
    if (!in) {
        CHECK(t == SHMEM_TEAM_INVALID, "%s: non-member got a team, not SHMEM_TEAM_INVALID", what);
        return t;
    }
    verify_team(t, w, size, nc >= 0 ? nc : 0, what);
    return t;
}

static void split_invalid(shmem_team_t parent, int start, int stride, int size, const char *what)
{
    shmem_team_t t = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t);
    CHECK(rc != 0, "%s: invalid split (start %d, stride %d, size %d) returned 0", what, start,
          stride, size);
    CHECK(t == SHMEM_TEAM_INVALID, "%s: invalid split (start %d, stride %d, size %d) gave a team",
          what, start, stride, size);
}

static void destroy(shmem_team_t t)
{
    if (t != SHMEM_TEAM_INVALID)
        shmem_team_destroy(t);
}

static void test_predefined(void)
{
    CHECK_EQ("team_my_pe(WORLD)", me, shmem_team_my_pe(SHMEM_TEAM_WORLD));
    CHECK_EQ("team_n_pes(WORLD)", npes, shmem_team_n_pes(SHMEM_TEAM_WORLD));
    int ppn = test_pes_per_node(npes);
    CHECK_EQ("team_my_pe(SHARED) (my node's PEs)", me % ppn,
             shmem_team_my_pe(SHMEM_TEAM_SHARED));
    CHECK_EQ("team_n_pes(SHARED) (my node's PEs)", ppn, shmem_team_n_pes(SHMEM_TEAM_SHARED));
    CHECK_EQ("team_my_pe(INVALID)", -1, shmem_team_my_pe(SHMEM_TEAM_INVALID));
    CHECK_EQ("team_n_pes(INVALID)", -1, shmem_team_n_pes(SHMEM_TEAM_INVALID));

    shmem_team_config_t cfg = {.num_contexts = -3};
    CHECK_EQ("get_config(WORLD)", 0,
             shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg));
    CHECK(cfg.num_contexts >= 0, "get_config(WORLD) num_contexts expected >= 0 got %d",
          cfg.num_contexts);
    CHECK_EQ("get_config(SHARED)", 0,
             shmem_team_get_config(SHMEM_TEAM_SHARED, SHMEM_TEAM_NUM_CONTEXTS, &cfg));
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0,
          "get_config(INVALID) expected non-zero got 0");

    for (int p = 0; p < npes; p++) {
        CHECK_EQ("translate_pe(world -> world)", p,
                 shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_WORLD));
        /* SHARED is the PEs of my node (shared_of). */
        CHECK_EQ("translate_pe(world -> shared)", shared_of(p),
                 shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED));
        int ppn = test_pes_per_node(npes);
        CHECK_EQ("translate_pe(shared -> world)", p < ppn ? me / ppn * ppn + p : -1,
                 shmem_team_translate_pe(SHMEM_TEAM_SHARED, p, SHMEM_TEAM_WORLD));
        CHECK_EQ("translate_pe(world -> invalid)", -1,
                 shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_INVALID));
        CHECK_EQ("translate_pe(invalid -> world)", -1,
                 shmem_team_translate_pe(SHMEM_TEAM_INVALID, p, SHMEM_TEAM_WORLD));
    }
    CHECK_EQ("translate_pe(world npes)", -1,
             shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD));
    CHECK_EQ("translate_pe(world -1)", -1,
             shmem_team_translate_pe(SHMEM_TEAM_WORLD, -1, SHMEM_TEAM_WORLD));

    CHECK_EQ("team_sync(INVALID)", -1, shmem_team_sync(SHMEM_TEAM_INVALID));
    CHECK_PTR("team_ptr(INVALID)", NULL, shmem_team_ptr(SHMEM_TEAM_INVALID, buf, 0));
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0,
          "team_create_ctx(INVALID) expected non-zero got 0");
    CHECK(ctx == SHMEM_CTX_INVALID, "team_create_ctx(INVALID) did not give SHMEM_CTX_INVALID");
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no action */

    int w[MAXPES];
    for (int k = 0; k < npes; k++)
        w[k] = k;
    shmem_team_config_t c;
    CHECK_EQ("get_config(WORLD)", 0,
             shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &c));
    verify_team(SHMEM_TEAM_WORLD, w, npes, c.num_contexts, "WORLD");
    shmem_barrier_all();
    CHECK_EQ("get_config(SHARED)", 0,
             shmem_team_get_config(SHMEM_TEAM_SHARED, SHMEM_TEAM_NUM_CONTEXTS, &c));
    int wsh[MAXPES];
    for (int k = 0; k < ppn; k++)
        wsh[k] = me / ppn * ppn + k;
    verify_team(SHMEM_TEAM_SHARED, wsh, ppn, c.num_contexts, "SHARED (my node's PEs)");
    shmem_barrier_all();
}

static void test_split_strided(void)
{
    char what[128];
    int n = npes;
    struct {
        int start, stride, size;
        const char *name;
    } cases[] = {
        {0, 1, n, "full parent"},
        {0, 2, (n + 1) / 2, "stride 2"},
        {1, 2, n / 2, "odd PEs"},
        {n - 1, -1, n, "stride -1 from the end"},
        {n - 1, -2, (n + 1) / 2, "stride -2 from the end"},
        {0, 3, (n + 2) / 3, "stride 3"},
        {1, 1, n - 1, "all but PE 0"},
        {0, 1, n - 1, "all but the last"},
        {n - 1, 1, 1, "the last PE alone"},
        {0, n, 1, "stride n, size 1"},
        {0, n - 1, 2, "first and last"},
        {n - 1, 1 - n, 2, "last and first"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        if (cases[c].size < 1 || cases[c].size > n)
            continue;
        snprintf(what, sizeof(what), "WORLD split %s", cases[c].name);
        shmem_team_t t = split_check(SHMEM_TEAM_WORLD, cases[c].start, cases[c].stride,
                                     cases[c].size, (int)c - 1, what);
        shmem_barrier_all();
        destroy(t);
    }
    /* stride 0 with size 1, and single-PE teams at every start */
    for (int k = 0; k < n; k++) {
        snprintf(what, sizeof(what), "WORLD split stride 0 size 1 at %d", k);
        shmem_team_t t0 = split_check(SHMEM_TEAM_WORLD, k, 0, 1, -1, what);
        shmem_barrier_all();
        snprintf(what, sizeof(what), "WORLD split stride 1 size 1 at %d", k);
        shmem_team_t t1 = split_check(SHMEM_TEAM_WORLD, k, 1, 1, 4, what);
        shmem_barrier_all();
        snprintf(what, sizeof(what), "WORLD split stride -1 size 1 at %d", k);
        shmem_team_t t2 = split_check(SHMEM_TEAM_WORLD, k, -1, 1, -1, what);
        shmem_barrier_all();
        destroy(t0);
        destroy(t1);
        destroy(t2);
    }
    /* from SHARED, where it is the whole job */
    if (test_pes_per_node(npes) == npes) {
        shmem_team_t ts = split_check(SHMEM_TEAM_SHARED, n - 1, -1, n, 2, "SHARED split reversed");
        shmem_barrier_all();
        destroy(ts);
    }

    /* splits of splits: reversed world, then every second of it, then that reversed */
    shmem_team_t rev = split_check(SHMEM_TEAM_WORLD, n - 1, -1, n, -1, "reversed");
    shmem_barrier_all();
    shmem_team_t rev2 = split_check(rev, 0, 2, (n + 1) / 2, 1, "reversed, stride 2");
    shmem_barrier_all();
    shmem_team_t rev2r = SHMEM_TEAM_INVALID;
    if (rev2 != SHMEM_TEAM_INVALID) {
        int m = shmem_team_n_pes(rev2);
        rev2r = split_check(rev2, m - 1, -1, m, -1, "reversed, stride 2, reversed");
    }
    shmem_barrier_all();
    shmem_team_t ident = split_check(rev, n - 1, -1, n, -1, "reversed reversed");
    shmem_barrier_all();
    if (n >= 2) {
        /* a split of the odd-PE team (exists on odd PEs only) */
        shmem_team_t odd = split_check(SHMEM_TEAM_WORLD, 1, 2, n / 2, -1, "odd");
        shmem_barrier_all();
        shmem_team_t odd1 = SHMEM_TEAM_INVALID;
        if (odd != SHMEM_TEAM_INVALID) {
            int m = shmem_team_n_pes(odd);
            odd1 = split_check(odd, m - 1, 1, 1, -1, "odd, last alone");
        }
        shmem_barrier_all();
        /* translate between two splits, and between a split and its grandparent */
        if (odd != SHMEM_TEAM_INVALID && rev2 != SHMEM_TEAM_INVALID) {
            for (int k = 0; k < shmem_team_n_pes(rev2); k++) {
                int wp = n - 1 - 2 * k; /* world PE of rev2's k */
                CHECK_EQ("translate_pe(reversed stride 2 -> odd)", wp % 2 ? (wp - 1) / 2 : -1,
                         shmem_team_translate_pe(rev2, k, odd));
            }
        }
        destroy(odd1);
        destroy(odd);
    }
    if (rev2 != SHMEM_TEAM_INVALID) {
        /* rev2 holds world n-1, n-3, ...; in rev those are 0, 2, ... */
        for (int k = 0; k < shmem_team_n_pes(rev2); k++) {
            CHECK_EQ("translate_pe(reversed stride 2 -> reversed)", 2 * k,
                     shmem_team_translate_pe(rev2, k, rev));
            CHECK_EQ("translate_pe(reversed stride 2 -> world)", n - 1 - 2 * k,
                     shmem_team_translate_pe(rev2, k, SHMEM_TEAM_WORLD));
            CHECK_EQ("translate_pe(reversed -> reversed stride 2)", k,
                     shmem_team_translate_pe(rev, 2 * k, rev2));
        }
    }
    shmem_barrier_all();
    destroy(ident);
    destroy(rev2r);
    destroy(rev2);
    shmem_barrier_all();

    /* invalid splits, of WORLD and of the reversed team: every PE of the parent */
    shmem_team_t parents[2] = {SHMEM_TEAM_WORLD, rev};
    for (int p = 0; p < 2; p++) {
        shmem_team_t par = parents[p];
        split_invalid(par, 0, 1, 0, "size 0");
        split_invalid(par, 0, 1, -1, "size -1");
        split_invalid(par, 0, 1, n + 1, "size > parent");
        split_invalid(par, 0, 0, 2, "stride 0 with size 2");
        split_invalid(par, 1, 1, n, "range past the end");
        split_invalid(par, n - 1, 1, 2, "range past the end");
        if (n > 1)
            split_invalid(par, 0, 2, n, "stride 2 past the end");
        split_invalid(par, 0, -1, 2, "range before the start");
        split_invalid(par, -1, 1, 1, "start -1");
        split_invalid(par, n, 1, 1, "start n");
        split_invalid(par, n, -1, 1, "start n");
        split_invalid(par, 0, INT_MAX, 2, "stride INT_MAX");
        split_invalid(par, n - 1, INT_MIN, 2, "stride INT_MIN");
        split_invalid(par, 0, 1, INT_MAX, "size INT_MAX");
        split_invalid(par, 0, INT_MAX / 2 + 1, 3, "stride * (size - 1) past INT_MAX");
    }
    split_invalid(SHMEM_TEAM_INVALID, 0, 1, 1, "SHMEM_TEAM_INVALID parent");
    shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &xt, NULL, 0, &yt) != 0,
          "split_2d xrange 0 returned 0");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "split_2d xrange 0 gave a team");
    xt = yt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, -2, NULL, 0, &xt, NULL, 0, &yt) != 0,
          "split_2d xrange -2 returned 0");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "split_2d xrange -2 gave a team");
    xt = yt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &xt, NULL, 0, &yt) != 0,
          "split_2d of SHMEM_TEAM_INVALID returned 0");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID,
          "split_2d of SHMEM_TEAM_INVALID gave a team");
    /* The failed splits left the teams usable. */
    shmem_barrier_all();
    int w[MAXPES];
    for (int k = 0; k < n; k++)
        w[k] = n - 1 - k;
    verify_team(rev, w, n, 0, "reversed after invalid splits");
    shmem_barrier_all();
    destroy(rev);
}

/* split_2d of parent with xrange; checks both teams against the layout. */
static void split_2d_check(shmem_team_t parent, int xrange, const char *pname)
{
    char what[128];
    int pw[MAXPES], xw[MAXPES], yw[MAXPES];
    int pn = team_world(parent, pw), i = shmem_team_my_pe(parent);
    shmem_team_config_t xc = {.num_contexts = 2}, yc = {.num_contexts = 5};
    shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_2d(parent, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc, 0, &yt);
    CHECK(rc == 0, "split_2d(%s, xrange %d) returned %d", pname, xrange, rc);
    int x = i % xrange, y = i / xrange;
    int xn = 0, yn = 0;
    for (int j = 0; j < pn; j++) {
        if (j / xrange == y)
            xw[xn++] = pw[j]; /* same y, in order of x */
        if (j % xrange == x)
            yw[yn++] = pw[j]; /* same x, in order of y */
    }
    snprintf(what, sizeof(what), "split_2d(%s, xrange %d) x-axis team", pname, xrange);
    verify_team(xt, xw, xn, 2, what);
    CHECK(shmem_team_my_pe(xt) == x, "%s: my_pe expected x = %d got %d", what, x,
          shmem_team_my_pe(xt));
    shmem_barrier_all();
    snprintf(what, sizeof(what), "split_2d(%s, xrange %d) y-axis team", pname, xrange);
    verify_team(yt, yw, yn, 0, what);
    CHECK(shmem_team_my_pe(yt) == y, "%s: my_pe expected y = %d got %d", what, y,
          shmem_team_my_pe(yt));
    shmem_barrier_all();
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
}

static void test_split_2d(void)
{
    int n = npes;
    int xr[] = {1, 2, 3, n, n + 1, 2 * n + 5};
    for (size_t k = 0; k < sizeof(xr) / sizeof(xr[0]); k++)
        split_2d_check(SHMEM_TEAM_WORLD, xr[k], "WORLD");
    if (test_pes_per_node(npes) == npes)
        split_2d_check(SHMEM_TEAM_SHARED, 2, "SHARED");
    shmem_team_t rev = split_check(SHMEM_TEAM_WORLD, n - 1, -1, n, -1, "reversed");
    shmem_barrier_all();
    split_2d_check(rev, 2, "reversed");
    split_2d_check(rev, 3, "reversed");
    shmem_team_t ev = split_check(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, -1, "stride 2");
    shmem_barrier_all();
    if (ev != SHMEM_TEAM_INVALID)
        split_2d_check(ev, 2, "stride 2"); /* a split on the even PEs only */
    else {
        shmem_barrier_all();
        shmem_barrier_all();
    }
    destroy(ev);
    destroy(rev);
    shmem_barrier_all();
}

/* Create and destroy teams far more often than SYMM_MAX_TEAMS (64) allows
 * at once; each works; a long-lived team in between stays intact. */
static void test_cycles(void)
{
    int n = npes;
    int lw[MAXPES];
    for (int k = 0; k < n; k++)
        lw[k] = n - 1 - k;
    shmem_team_t keep = SHMEM_TEAM_INVALID;
    CHECK_EQ("split (long-lived)", 0,
             shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &keep));
    long *src = &lbuf[16], *dst = &lbuf[32];
    for (int it = 0; it < 200; it++) {
        shmem_team_t t[2] = {SHMEM_TEAM_INVALID, SHMEM_TEAM_INVALID};
        int w[2][MAXPES], sz[2] = {0, 0}, rc;
        switch (it % 4) {
        case 0: /* the whole world */
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t[0]);
            for (int k = 0; k < n; k++)
                w[0][sz[0]++] = k;
            break;
        case 1: /* stride 2 from PE it%2 when it exists */
        {
            int st = n > 1 ? (it / 4) % 2 : 0, size = (n - st + 1) / 2;
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, st, 2, size, NULL, 0, &t[0]);
            if (me >= st && (me - st) % 2 == 0)
                for (int k = 0; k < size; k++)
                    w[0][sz[0]++] = st + 2 * k;
            break;
        }
        case 2: /* reversed */
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &t[0]);
            for (int k = 0; k < n; k++)
                w[0][sz[0]++] = n - 1 - k;
            break;
        default: /* 2-D, xrange 2: two teams at once */
            rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &t[0], NULL, 0, &t[1]);
            for (int j = 0; j < n; j++) {
                if (j / 2 == me / 2)
                    w[0][sz[0]++] = j;
                if (j % 2 == me % 2)
                    w[1][sz[1]++] = j;
            }
            break;
        }
        CHECK(rc == 0, "cycle %d: split returned %d", it, rc);
        for (int q = 0; q < 2; q++) {
            if (sz[q] == 0) {
                CHECK(t[q] == SHMEM_TEAM_INVALID, "cycle %d: non-member got a team", it);
                continue;
            }
            CHECK(t[q] != SHMEM_TEAM_INVALID, "cycle %d: member got SHMEM_TEAM_INVALID", it);
            CHECK_EQ("cycle team_n_pes", sz[q], shmem_team_n_pes(t[q]));
            src[0] = (long)it * 1000 + me;
            src[1] = 1L << me;
            long want0 = 0, want1 = 0;
            for (int k = 0; k < sz[q]; k++) {
                want0 += (long)it * 1000 + w[q][k];
                want1 |= 1L << w[q][k];
            }
            CHECK_EQ("cycle sum_reduce return", 0, shmem_long_sum_reduce(t[q], dst, src, 1));
            CHECK(dst[0] == want0, "cycle %d team %d: sum expected %ld got %ld", it, q, want0,
                  dst[0]);
            CHECK_EQ("cycle or_reduce return", 0,
                     shmem_ulong_or_reduce(t[q], (unsigned long *)&dst[1],
                                           (const unsigned long *)&src[1], 1));
            CHECK(dst[1] == want1, "cycle %d team %d: or of member bits expected %lx got %lx", it,
                  q, want1, dst[1]);
        }
        destroy(t[0]);
        destroy(t[1]);
        if (it % 10 == 9) {
            src[0] = me * 3 + it;
            long want = 0;
            for (int k = 0; k < n; k++)
                want += lw[k] * 3 + it;
            CHECK_EQ("long-lived sum_reduce return", 0, shmem_long_sum_reduce(keep, dst, src, 1));
            CHECK(dst[0] == want, "long-lived team after cycle %d: sum expected %ld got %ld", it,
                  want, dst[0]);
            CHECK_EQ("long-lived team_my_pe", n - 1 - me, shmem_team_my_pe(keep));
        }
    }
    shmem_barrier_all();
    verify_team(keep, lw, n, 0, "long-lived team after 200 cycles");
    shmem_barrier_all();
    shmem_team_destroy(keep);
}

/* Run with SYMM_MAX_TEAMS set: the limit counts world and shared. */
static void test_limit(void)
{
    const char *env = getenv("SYMM_MAX_TEAMS");
    CHECK(env != NULL, "mode limit needs SYMM_MAX_TEAMS in the environment");
    int cap = atoi(env) - 2;
    CHECK(cap >= 1 && cap <= 510, "SYMM_MAX_TEAMS=%s: expected 3..512 for this test", env);
    static shmem_team_t t[512];
    int made = 0;
    for (;;) {
        shmem_team_t nt = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &nt);
        if (rc != 0) {
            CHECK(nt == SHMEM_TEAM_INVALID, "split past the limit returned %d but gave a team", rc);
            break;
        }
        CHECK(nt != SHMEM_TEAM_INVALID, "split %d returned 0 but gave SHMEM_TEAM_INVALID", made);
        t[made++] = nt;
        CHECK(made <= cap, "split %d succeeded with SYMM_MAX_TEAMS=%s (only %d may exist)", made,
              env, cap);
    }
    CHECK(made == cap, "with SYMM_MAX_TEAMS=%s, %d splits succeeded, expected %d", env, made, cap);
    /* All of them, alive at once and overlapping, work back to back. */
    long *src = &lbuf[16], *dst = &lbuf[32];
    for (int k = 0; k < made; k++) {
        src[0] = (long)k * 100 + me;
        CHECK_EQ("sum_reduce return", 0, shmem_long_sum_reduce(t[k], dst, src, 1));
        long want = (long)k * 100 * npes + (long)npes * (npes - 1) / 2;
        CHECK(dst[0] == want, "team %d of %d alive: sum expected %ld got %ld", k, made, want,
              dst[0]);
    }
    /* Still failing (no slot was leaked by the failure). */
    shmem_team_t nt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &nt) != 0,
          "a split at the limit returned 0");
    CHECK(nt == SHMEM_TEAM_INVALID, "a failed split gave a team");
    /* One free slot (in the middle): split_2d needs two. */
    int mid = made / 2;
    shmem_team_t freed = t[mid];
    t[mid] = t[--made];
    shmem_team_destroy(freed);
    shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &xt, NULL, 0, &yt) != 0,
          "split_2d with one free slot returned 0");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "a failed split_2d gave a team");
    /* ... while a strided split now succeeds, and the team works. */
    CHECK_EQ("split after a destroy", 0,
             shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &nt));
    int w[MAXPES];
    for (int k = 0; k < npes; k++)
        w[k] = npes - 1 - k;
    verify_team(nt, w, npes, 0, "split after a destroy at the limit");
    shmem_team_destroy(nt);
    while (made > 0)
        shmem_team_destroy(t[--made]);
    /* All free again: split_2d needs two slots. */
    if (cap >= 2) {
        CHECK_EQ("split_2d after destroying all", 0,
                 shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &xt, NULL, 0, &yt));
        CHECK_EQ("x-axis size (xrange 1)", 1, shmem_team_n_pes(xt));
        CHECK_EQ("y-axis size (xrange 1)", npes, shmem_team_n_pes(yt));
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "at most %d PEs", MAXPES);
    buf = shmem_calloc(2 * NSLOT, sizeof(long));
    ibuf = shmem_calloc(2 * MAXPES + 2, sizeof(int));
    lbuf = shmem_calloc(64, sizeof(long));
    CHECK(buf != NULL && ibuf != NULL && lbuf != NULL, "shmem_calloc expected memory got NULL");

    if (strcmp(mode, "limit") == 0) {
        test_limit();
    } else if (strcmp(mode, "all") == 0) {
        test_predefined();
        test_split_strided();
        test_split_2d();
        test_cycles();
    } else {
        fprintf(stderr, "team: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_barrier_all();
    shmem_free(lbuf);
    shmem_free(ibuf);
    shmem_free(buf);
    shmem_finalize();
    return 0;
}
