/*
 * ctx.c - communication contexts.
 *
 *  - shmem_ctx_create with every option (0, SERIALIZED, PRIVATE, NOSTORE
 *    and their combination) returns 0 and a handle that is neither
 *    SHMEM_CTX_INVALID nor SHMEM_CTX_DEFAULT nor another live context's.
 *  - On each: put, put_nbi, p, putmem, get, g, get_nbi and AMOs (only gets
 *    and fetching AMOs on a NOSTORE context); shmem_ctx_fence orders data
 *    before a flag; shmem_ctx_quiet completes put_nbi (read back with a
 *    get from another context); shmem_ctx_destroy completes outstanding
 *    put_nbi (checked by the target after a barrier).
 *  - shmem_ctx_get_team: SHMEM_CTX_DEFAULT and created contexts are on
 *    SHMEM_TEAM_WORLD (return 0); SHMEM_CTX_INVALID gives a non-zero return
 *    and SHMEM_TEAM_INVALID.
 *  - Unknown option bits: non-zero return and *ctx == SHMEM_CTX_INVALID.
 *  - shmem_ctx_quiet / shmem_ctx_fence / shmem_ctx_destroy on
 *    SHMEM_CTX_INVALID do nothing.
 *  - 64 contexts alive at once, used, destroyed in a scrambled order.
 *  - Team contexts (shmem_team_create_ctx): on SHMEM_TEAM_WORLD and on the
 *    team of odd PEs, shmem_ctx_get_team gives the team, and put, p, g,
 *    iput, AMOs and put_signal on the context number PEs within the team:
 *    everything lands on the right world PE, PEs outside the team are not
 *    touched. Invalid options or team: non-zero and SHMEM_CTX_INVALID.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define NDATA 2048
#define NCTX 64

static int me, npes, left, right;

static const long opts[] = {0,
                            SHMEM_CTX_SERIALIZED,
                            SHMEM_CTX_PRIVATE,
                            SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
static const char *const opt_name[] = {"0", "SERIALIZED", "PRIVATE", "NOSTORE",
                                       "SERIALIZED|PRIVATE|NOSTORE"};
#define NOPTS (int)(sizeof(opts) / sizeof(opts[0]))

static long dval(int round, int src, int i)
{
    return (long)(test_hash4(3, (uint64_t)round, (uint64_t)src, (uint64_t)i) >> 1);
}

static long *data, *flag, *ctr, *src;

/* Store and AMO traffic on ctx c, checked by the right neighbour. */
static void use_ctx(shmem_ctx_t c, int round, const char *name)
{
    for (int i = 0; i < NDATA; i++)
        src[i] = dval(round, me, i);
    *flag = 0;
    *ctr = 0;
    shmem_barrier_all();
    /* put + p, put_nbi, putmem, fence, flag */
    shmem_ctx_long_put(c, data, src, NDATA / 4, right);
    shmem_ctx_long_put_nbi(c, data + NDATA / 4, src + NDATA / 4, NDATA / 4, right);
    shmem_ctx_putmem(c, data + NDATA / 2, src + NDATA / 2, (NDATA / 2 - 1) * sizeof(long), right);
    shmem_ctx_long_p(c, data + NDATA - 1, src[NDATA - 1], right);
    shmem_ctx_fence(c);
    shmem_ctx_long_p(c, flag, round + 1, right);
    shmem_ctx_long_atomic_add(c, ctr, me + 1, right);
    shmem_ctx_quiet(c);
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, round + 1);
    for (int i = 0; i < NDATA; i++)
        CHECK(data[i] == dval(round, left, i), "ctx %s: data[%d] after ctx_fence and the flag "
              "expected %ld got %ld", name, i, dval(round, left, i), data[i]);
    shmem_barrier_all();
    CHECK_EQ("ctx AMO add counter (the left neighbour's PE + 1)", left + 1, *ctr);
    shmem_barrier_all();
}

/* Gets and fetching AMOs only (valid on a NOSTORE context too). */
static void read_ctx(shmem_ctx_t c, int round, const char *name)
{
    long buf[16];
    for (int i = 0; i < NDATA; i++)
        data[i] = dval(round + 100, me, i);
    shmem_barrier_all();
    shmem_ctx_long_get(c, buf, data + 5, 16, right);
    for (int i = 0; i < 16; i++)
        CHECK(buf[i] == dval(round + 100, right, i + 5), "ctx %s: get element %d expected %ld got "
              "%ld", name, i, dval(round + 100, right, i + 5), buf[i]);
    CHECK(shmem_ctx_long_g(c, data + 77, right) == dval(round + 100, right, 77),
          "ctx %s: g expected %ld", name, dval(round + 100, right, 77));
    memset(buf, 0, sizeof(buf));
    shmem_ctx_long_get_nbi(c, buf, data + 100, 16, left);
    shmem_ctx_getmem(c, src, data, NDATA * sizeof(long), left);
    shmem_ctx_quiet(c);
    for (int i = 0; i < 16; i++)
        CHECK(buf[i] == dval(round + 100, left, i + 100), "ctx %s: get_nbi element %d expected "
              "%ld got %ld", name, i, dval(round + 100, left, i + 100), buf[i]);
    for (int i = 0; i < NDATA; i++)
        CHECK(src[i] == dval(round + 100, left, i), "ctx %s: getmem element %d expected %ld got "
              "%ld", name, i, dval(round + 100, left, i), src[i]);
    for (int j = 0; j < npes; j++) {
        long before = shmem_ctx_long_atomic_fetch_add(c, &ctr[1], 1, (me + j) % npes);
        CHECK(before >= 0 && before < npes, "ctx %s: fetch_add fetched %ld expected in [0,%d)",
              name, before, npes);
    }
    shmem_barrier_all();
    CHECK_EQ("fetch_add counter", npes, ctr[1]);
    CHECK_EQ("ctx atomic_fetch", npes, shmem_ctx_long_atomic_fetch(c, &ctr[1], left));
    shmem_barrier_all();
    ctr[1] = 0;
    shmem_barrier_all();
}

static void test_options(void)
{
    shmem_ctx_t c[NOPTS];
    for (int o = 0; o < NOPTS; o++) {
        c[o] = (shmem_ctx_t)(uintptr_t)0x1234; /* must be overwritten */
        int rc = shmem_ctx_create(opts[o], &c[o]);
        CHECK(rc == 0, "shmem_ctx_create(%s) expected 0 got %d", opt_name[o], rc);
        CHECK(c[o] != SHMEM_CTX_INVALID && c[o] != SHMEM_CTX_DEFAULT &&
                  c[o] != (shmem_ctx_t)(uintptr_t)0x1234,
              "shmem_ctx_create(%s) expected a new context got %p", opt_name[o], (void *)c[o]);
        for (int p = 0; p < o; p++)
            CHECK(c[p] != c[o], "contexts %s and %s have the same handle", opt_name[p],
                  opt_name[o]);
        shmem_team_t t = SHMEM_TEAM_INVALID;
        CHECK_EQ("shmem_ctx_get_team(created ctx) return", 0, shmem_ctx_get_team(c[o], &t));
        CHECK(t == SHMEM_TEAM_WORLD, "shmem_ctx_get_team(ctx %s) expected SHMEM_TEAM_WORLD got %p",
              opt_name[o], (void *)t);
    }
    ctr[1] = 0;
    for (int o = 0; o < NOPTS; o++) {
        if (!(opts[o] & SHMEM_CTX_NOSTORE))
            use_ctx(c[o], o, opt_name[o]);
        read_ctx(c[o], o, opt_name[o]);
    }
    /* ctx_quiet completes put_nbi: read back through another context. */
    for (int o = 0; o < NOPTS; o++) {
        if (opts[o] & SHMEM_CTX_NOSTORE)
            continue;
        for (int i = 0; i < NDATA; i++)
            src[i] = dval(o + 50, me, i);
        shmem_barrier_all();
        shmem_ctx_long_put_nbi(c[o], data, src, NDATA, right);
        shmem_ctx_quiet(c[o]);
        long back[NDATA / 64];
        shmem_ctx_long_iget(SHMEM_CTX_DEFAULT, back, data, 1, 64, NDATA / 64, right);
        for (int i = 0; i < NDATA / 64; i++)
            CHECK(back[i] == dval(o + 50, me, i * 64), "ctx %s: after ctx_quiet, element %d read "
                  "back expected %ld got %ld", opt_name[o], i * 64, dval(o + 50, me, i * 64),
                  back[i]);
        shmem_barrier_all();
    }
    /* ctx_destroy completes outstanding put_nbi. */
    for (int o = 0; o < NOPTS; o++) {
        if (opts[o] & SHMEM_CTX_NOSTORE) {
            shmem_ctx_destroy(c[o]);
            continue;
        }
        for (int i = 0; i < NDATA; i++)
            src[i] = dval(o + 70, me, i);
        shmem_barrier_all();
        shmem_ctx_long_put_nbi(c[o], data, src, NDATA, right);
        shmem_ctx_destroy(c[o]);
        shmem_barrier_all();
        for (int i = 0; i < NDATA; i++)
            CHECK(data[i] == dval(o + 70, left, i), "ctx %s: put_nbi then ctx_destroy: data[%d] "
                  "expected %ld got %ld", opt_name[o], i, dval(o + 70, left, i), data[i]);
        shmem_barrier_all();
    }
}

static void test_default_and_invalid(void)
{
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK(SHMEM_CTX_DEFAULT != SHMEM_CTX_INVALID, "SHMEM_CTX_DEFAULT expected valid got invalid");
    CHECK_EQ("shmem_ctx_get_team(SHMEM_CTX_DEFAULT) return", 0,
             shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t));
    CHECK(t == SHMEM_TEAM_WORLD, "shmem_ctx_get_team(SHMEM_CTX_DEFAULT) expected "
          "SHMEM_TEAM_WORLD %p got %p", (void *)SHMEM_TEAM_WORLD, (void *)t);
    CHECK(SHMEM_TEAM_WORLD != SHMEM_TEAM_INVALID, "SHMEM_TEAM_WORLD expected valid");
    t = SHMEM_TEAM_WORLD;
    int rc = shmem_ctx_get_team(SHMEM_CTX_INVALID, &t);
    CHECK(rc != 0 && t == SHMEM_TEAM_INVALID, "shmem_ctx_get_team(SHMEM_CTX_INVALID) expected "
          "non-zero and SHMEM_TEAM_INVALID got %d and %p", rc, (void *)t);

    static const long bad[] = {1L << 20, 1L << 3, -1L, SHMEM_CTX_PRIVATE | (1L << 40)};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        shmem_ctx_t c = SHMEM_CTX_DEFAULT;
        rc = shmem_ctx_create(bad[i], &c);
        CHECK(rc != 0, "shmem_ctx_create(0x%lx) expected non-zero got 0", bad[i]);
        CHECK(c == SHMEM_CTX_INVALID, "shmem_ctx_create(0x%lx) failed, expected "
              "SHMEM_CTX_INVALID got %p", bad[i], (void *)c);
    }
    /* No-ops on SHMEM_CTX_INVALID. */
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    /* The default context still works afterwards. */
    *flag = 0;
    shmem_barrier_all();
    shmem_ctx_long_p(SHMEM_CTX_DEFAULT, flag, 99, right);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, 99);
    shmem_barrier_all();
}

static void test_many(void)
{
    shmem_ctx_t c[NCTX];
    for (int i = 0; i < NCTX; i++) {
        CHECK_EQ("shmem_ctx_create return", 0,
                 shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &c[i]));
        CHECK(c[i] != SHMEM_CTX_INVALID, "context %d expected valid got SHMEM_CTX_INVALID", i);
    }
    ctr[0] = 0;
    shmem_barrier_all();
    for (int i = 0; i < NCTX; i++)
        shmem_ctx_long_atomic_add(c[i], &ctr[0], i + 1, (me + i) % npes);
    for (int i = 0; i < NCTX; i++)
        shmem_ctx_quiet(c[i]);
    shmem_barrier_all();
    /* Target t receives i+1 from PE p when (p + i) % npes == t. */
    long want = 0;
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < NCTX; i++)
            if ((p + i) % npes == me)
                want += i + 1;
    CHECK_EQ("sum of AMOs through 64 contexts", want, ctr[0]);
    for (int i = 0; i < NCTX; i++)
        shmem_ctx_destroy(c[(i * 37) % NCTX]); /* 37 is coprime to 64 */
    shmem_barrier_all();
}

/* Team contexts: PE numbers are the team's. */
static long tdata[8];
static long tctr[2];
static uint64_t tsig;

static void team_traffic(shmem_team_t team, const char *name)
{
    const int tm = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    shmem_ctx_t c = (shmem_ctx_t)(uintptr_t)0x1234;
    int rc = shmem_team_create_ctx(team, tn % 2 ? SHMEM_CTX_PRIVATE : 0, &c);
    CHECK(rc == 0 && c != SHMEM_CTX_INVALID && c != (shmem_ctx_t)(uintptr_t)0x1234,
          "shmem_team_create_ctx(%s) expected 0 and a context got %d, %p", name, rc, (void *)c);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK_EQ("shmem_ctx_get_team(team ctx) return", 0, shmem_ctx_get_team(c, &t));
    CHECK(t == team, "shmem_ctx_get_team(ctx of team %s) expected %p got %p", name, (void *)team,
          (void *)t);
    const int tr = (tm + 1) % tn, tl = (tm + tn - 1) % tn;
    long v[4];
    for (int i = 0; i < 4; i++)
        v[i] = dval(900, me, i);
    /* me -> team right: p, put, iput (stride 2 into tdata[4..7]), put_signal. */
    shmem_ctx_long_p(c, &tdata[0], v[0], tr);
    shmem_ctx_long_put(c, &tdata[1], &v[1], 1, tr);
    shmem_ctx_long_iput(c, &tdata[4], &v[2], 2, 1, 2, tr); /* tdata[4], tdata[6] */
    shmem_ctx_putmem_signal(c, &tdata[2], &v[0], sizeof(long), &tsig, (uint64_t)me + 1,
                            SHMEM_SIGNAL_SET, tr);
    for (int k = 0; k < tn; k++)
        shmem_ctx_long_atomic_add(c, &tctr[0], (long)me + 1, k);
    long f = shmem_ctx_long_atomic_fetch_inc(c, &tctr[1], tl);
    CHECK(f == 0, "team %s ctx: fetch_inc on team PE %d (only I add there) expected 0 got %ld",
          name, tl, f);
    shmem_ctx_quiet(c);
    /* The team's left neighbour's world PE, for the checks. */
    const int wl = shmem_team_translate_pe(team, tl, SHMEM_TEAM_WORLD);
    uint64_t got = shmem_signal_wait_until(&tsig, SHMEM_CMP_NE, 0);
    CHECK(got == (uint64_t)wl + 1, "team %s ctx: put_signal from team PE %d expected signal %d got "
          "%llu", name, tl, wl + 1, (unsigned long long)got);
    shmem_team_sync(team); /* only the team's PEs are here */
    const long e[8] = {dval(900, wl, 0), dval(900, wl, 1), dval(900, wl, 0), 0,
                       dval(900, wl, 2), 0, dval(900, wl, 3), 0};
    for (int i = 0; i < 8; i++)
        CHECK(tdata[i] == e[i], "team %s ctx: tdata[%d] from team PE %d (world %d) expected %ld "
              "got %ld", name, i, tl, wl, e[i], tdata[i]);
    long sum = 0;
    for (int k = 0; k < tn; k++)
        sum += shmem_team_translate_pe(team, k, SHMEM_TEAM_WORLD) + 1;
    CHECK_EQ("team ctx AMO add counter (sum of the team's world PE + 1)", sum, tctr[0]);
    CHECK_EQ("team ctx fetch_inc counter", 1, tctr[1]);
    CHECK(shmem_ctx_long_g(c, &tdata[1], tr) == dval(900, me, 1), "team %s ctx: g from team PE %d "
          "expected my own value back", name, tr);
    CHECK(shmem_ctx_long_atomic_fetch(c, &tctr[1], tr) == 1, "team %s ctx: fetch of team PE %d's "
          "counter expected 1", name, tr);
    shmem_ctx_destroy(c);
}

static void test_team_ctx(void)
{
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    int rc = shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c);
    CHECK(rc != 0 && c == SHMEM_CTX_INVALID, "shmem_team_create_ctx(SHMEM_TEAM_INVALID) expected "
          "non-zero and SHMEM_CTX_INVALID got %d, %p", rc, (void *)c);
    c = SHMEM_CTX_DEFAULT;
    rc = shmem_team_create_ctx(SHMEM_TEAM_WORLD, 1L << 20, &c);
    CHECK(rc != 0 && c == SHMEM_CTX_INVALID, "shmem_team_create_ctx(world, 1<<20) expected "
          "non-zero and SHMEM_CTX_INVALID got %d, %p", rc, (void *)c);

    for (int pass = 0; pass < 2; pass++) {
        shmem_team_t team = SHMEM_TEAM_WORLD;
        const char *name = "SHMEM_TEAM_WORLD";
        if (pass == 1) {
            /* The odd PEs: team PE k is world PE 2k+1. */
            if (npes < 2)
                break;
            team = SHMEM_TEAM_INVALID;
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &team);
            CHECK_EQ("shmem_team_split_strided(odd PEs) return", 0, rc);
            CHECK((team != SHMEM_TEAM_INVALID) == (me % 2 == 1), "odd team: membership of PE %d "
                  "expected %d", me, me % 2);
            name = "odd PEs";
        }
        memset(tdata, 0, sizeof(tdata));
        memset(tctr, 0, sizeof(tctr));
        tsig = 0;
        shmem_barrier_all();
        if (team != SHMEM_TEAM_INVALID)
            team_traffic(team, name);
        shmem_barrier_all();
        if (team == SHMEM_TEAM_INVALID) {
            /* Outside the team: nothing may have landed here. */
            for (int i = 0; i < 8; i++)
                CHECK(tdata[i] == 0, "PE %d outside team %s: tdata[%d] expected 0 got %ld", me,
                      name, i, tdata[i]);
            CHECK(tctr[0] == 0 && tctr[1] == 0 && tsig == 0, "PE %d outside team %s: counters "
                  "expected 0 got %ld %ld %llu", me, name, tctr[0], tctr[1],
                  (unsigned long long)tsig);
        }
        if (pass == 1 && team != SHMEM_TEAM_INVALID)
            shmem_team_destroy(team);
        shmem_barrier_all();
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    data = shmem_malloc(NDATA * sizeof(long));
    flag = shmem_calloc(1, sizeof(long));
    ctr = shmem_calloc(2, sizeof(long));
    src = malloc(NDATA * sizeof(long));
    CHECK(data && flag && ctr && src, "allocation expected memory got NULL");
    test_default_and_invalid();
    test_options();
    test_many();
    test_team_ctx();
    free(src);
    shmem_free(ctr);
    shmem_free(flag);
    shmem_free(data);
    if (me == 0)
        printf("ctx: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
