/*
 * coll.c - the team collectives, every routine with every type it takes,
 * generated from the type tables of shmem.h (X-macros), on many teams.
 *
 * Teams (each PE holds a handle to the ones it is in):
 *   WORLD, SHARED (all PEs on one node), every second PE (stride 2), all
 *   PEs in reverse (stride -1 from the last), the rows and columns of
 *   split_2d with xrange 2 and 3, and single-PE teams (xrange 1 rows).
 * Disjoint teams of one kind (the rows, the columns, the single-PE teams)
 * run their collectives at the same time.
 *
 * Data collectives (typed families from SHMEM_RMA_TYPES, and the untyped
 * *mem forms): broadcast from every root, collect with different counts
 * per PE (some 0), fcollect, alltoall, alltoalls with dst and sst each 1, 2
 * and 3; nelems 0, 1, 7 and 1001. Reductions: and/or/xor for the bitwise
 * types, max/min for the ordered types, sum/prod for the arithmetic ones
 * (complex included); nreduce 0, 1, 7, 1001, out of place and in place
 * (dest == source); large vectors (300000 doubles, and others past 16K
 * bytes) so the sliced path is taken (SYMM_REDUCE_SLICE_MIN, 16K by default).
 *
 * Every value is a function of (collective, world PE of its origin, index)
 * that each PE computes itself, so data from the wrong PE, block, element
 * or an earlier collective is caught; results are compared exactly (the
 * values of sums and products are small integers or dyadic fractions, so
 * no rounding and no overflow: e.g. products of values in {1,2,3}).
 * Elements past what a collective writes (guards, strided gaps) hold a
 * sentinel that must survive; sources must be unchanged (out of place).
 * No barrier runs between collectives: back-to-back calls on one team and
 * on overlapping teams used alternately must not need one. Return values
 * are 0, and -1 on SHMEM_TEAM_INVALID (every routine, dest untouched).
 * Ends with the C11 generic selections for a few types.
 *
 * Modes: "data" the data collectives, the alternating teams and the
 * generics; "reduce" the reductions (registered again with
 * SYMM_REDUCE_SLICE_MIN=0, every reduction sliced, and =1G, none); "all"
 * both; "quick" both but nelems 1001 and the large reductions (registered
 * with SHMEM_DEBUG=1, whose checks must not fire).
 */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define MAXPES 16
#define GUARD 3      /* sentinel elements after what a collective writes */
#define NE_MAX 1001  /* largest nelems of the data collectives */
#define LARGE 300000 /* large reductions */
#define ELEM_MAX 16  /* long double, double _Complex */

static int me, npes;
static char *S, *D; /* symmetric source and dest */
static size_t buf_bytes;
static int do_data = 1, do_reduce = 1, quick;
static char what[256]; /* the collective being checked, for messages */

typedef struct {
    shmem_team_t t; /* SHMEM_TEAM_INVALID: not a member of this kind */
    int n, me;      /* size and my index */
    int w[MAXPES];  /* world PE of each index */
    char name[48];
    uint64_t seq; /* collectives run on this team (same on all members) */
} tinfo_t;

static uint64_t hv(uint64_t salt, uint64_t a, uint64_t b, uint64_t i)
{
    return test_hash4(salt, a, b, i);
}

/* ---- value domains ------------------------------------------------------
 * IS_FLT: floating (complex included); IS_SGN (integers): signed. MKC makes
 * a value of T from a real and an imaginary part (the latter dropped for a
 * real type). */
#define IS_FLT(T) ((T)0.5 != 0)
#define IS_SGN(T) ((T)-1 / 2 == 0)
#define MKC(T, re, im) ((T)((double)(re) + (double)(im)*I))
/* Sentinel: even for integers (values are odd), -0.25 for floating types
 * (values are k + 0.5). */
#define SENT(T) (IS_FLT(T) ? (T)-0.25 : (T)0xA6A6A6A6A6A6A6A6ull)
/* Any value: all bits of an integer (made odd); k + 0.5, |k| < 2^21 */
#define DOM_ANY(T, h) \
    (IS_FLT(T) ? MKC(T, (double)(int64_t)((h) >> 42) - 2097152.0 + 0.5, 0) : (T)((h) | 1))
/* Sum terms: |sum| <= 80 over 4 PEs, fits signed char */
#define DOM_SUM(T, h)                                                                          \
    (IS_FLT(T)   ? MKC(T, ((int)((h) % 41) - 20) * 0.25, ((int)(((h) >> 8) % 41) - 20) * 0.25) \
     : IS_SGN(T) ? (T)((int)((h) % 41) - 20)                                                   \
                 : (T)((h) % 41))
/* Product factors: |product| <= 81 over 4 PEs; exact in float */
static const double prod_re[6] = {-2, -1, -0.5, 0.5, 1, 2};
static const double prod_im[4] = {0, 1, -1, 0.5};
static const int prod_s[4] = {-2, -1, 1, 2};
#define DOM_PROD(T, h)                                               \
    (IS_FLT(T)   ? MKC(T, prod_re[(h) % 6], prod_im[((h) >> 8) % 4]) \
     : IS_SGN(T) ? (T)prod_s[(h) % 4]                                \
                 : (T)(1 + (h) % 3))

#define SHOWV(v) creall((long double _Complex)(v)), cimagl((long double _Complex)(v))

/* ---- data collectives: one family per type ------------------------------ */
typedef struct fam {
    const char *name;
    size_t size;
    void (*mk)(void *e, uint64_t h);
    void (*sent)(void *e);
    int (*eq)(const void *a, const void *b);
    void (*show)(char *buf, size_t len, const void *a);
    int (*bcast)(shmem_team_t t, void *d, const void *s, size_t n, int root);
    int (*collect)(shmem_team_t t, void *d, const void *s, size_t n);
    int (*fcollect)(shmem_team_t t, void *d, const void *s, size_t n);
    int (*alltoall)(shmem_team_t t, void *d, const void *s, size_t n);
    int (*alltoalls)(shmem_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,
                     size_t n);
} fam_t;

#define DEF_FAM_VALS(T, N)                                        \
    static void mk_##N(void *e, uint64_t h)                       \
    {                                                             \
        *(T *)e = DOM_ANY(T, h);                                  \
    }                                                             \
    static void sent_##N(void *e)                                 \
    {                                                             \
        *(T *)e = SENT(T);                                        \
    }                                                             \
    static int eq_##N(const void *a, const void *b)               \
    {                                                             \
        return *(const T *)a == *(const T *)b;                    \
    }                                                             \
    static void show_##N(char *buf, size_t len, const void *a)    \
    {                                                             \
        snprintf(buf, len, "%.21Lg", (long double)*(const T *)a); \
    }
#define DEF_FAM(T, N)                                                                     \
    DEF_FAM_VALS(T, N)                                                                    \
    static int bc_##N(shmem_team_t t, void *d, const void *s, size_t n, int r)            \
    {                                                                                     \
        return shmem_##N##_broadcast(t, d, s, n, r);                                      \
    }                                                                                     \
    static int co_##N(shmem_team_t t, void *d, const void *s, size_t n)                   \
    {                                                                                     \
        return shmem_##N##_collect(t, d, s, n);                                           \
    }                                                                                     \
    static int fc_##N(shmem_team_t t, void *d, const void *s, size_t n)                   \
    {                                                                                     \
        return shmem_##N##_fcollect(t, d, s, n);                                          \
    }                                                                                     \
    static int aa_##N(shmem_team_t t, void *d, const void *s, size_t n)                   \
    {                                                                                     \
        return shmem_##N##_alltoall(t, d, s, n);                                          \
    }                                                                                     \
    static int as_##N(shmem_team_t t, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, \
                      size_t n)                                                           \
    {                                                                                     \
        return shmem_##N##_alltoalls(t, d, s, ds, ss, n);                                 \
    }
SHMEM_RMA_TYPES(DEF_FAM)
/* The untyped forms (nelems in bytes), with unsigned char values. */
DEF_FAM_VALS(unsigned char, mem)
static int bc_mem(shmem_team_t t, void *d, const void *s, size_t n, int r)
{
    return shmem_broadcastmem(t, d, s, n, r);
}
static int co_mem(shmem_team_t t, void *d, const void *s, size_t n)
{
    return shmem_collectmem(t, d, s, n);
}
static int fc_mem(shmem_team_t t, void *d, const void *s, size_t n)
{
    return shmem_fcollectmem(t, d, s, n);
}
static int aa_mem(shmem_team_t t, void *d, const void *s, size_t n)
{
    return shmem_alltoallmem(t, d, s, n);
}
static int as_mem(shmem_team_t t, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, size_t n)
{
    return shmem_alltoallsmem(t, d, s, ds, ss, n);
}

#define FAM_ENTRY(T, N) \
    {#N, sizeof(T), mk_##N, sent_##N, eq_##N, show_##N, bc_##N, co_##N, fc_##N, aa_##N, as_##N},
static const fam_t fams[] = {SHMEM_RMA_TYPES(FAM_ENTRY) FAM_ENTRY(unsigned char, mem)};
#define NFAMS (sizeof(fams) / sizeof(fams[0]))
#define FAM_INDEX(T, N) F_##N,
enum { SHMEM_RMA_TYPES(FAM_INDEX) F_mem };

static void *at(const fam_t *f, void *buf, size_t i)
{
    return (char *)buf + i * f->size;
}

static void put_val(const fam_t *f, void *buf, size_t i, uint64_t h)
{
    f->mk(at(f, buf, i), h);
}

static void expect_val(const fam_t *f, void *buf, size_t i, uint64_t h, const char *which, int line)
{
    _Alignas(16) char want[ELEM_MAX];
    f->mk(want, h);
    if (!f->eq(want, at(f, buf, i))) {
        char a[64], b[64];
        f->show(a, sizeof(a), want);
        f->show(b, sizeof(b), at(f, buf, i));
        check_fail(__FILE__, line, "%s: %s[%zu] expected %s got %s", what, which, i, a, b);
    }
}

static void expect_sent(const fam_t *f, void *buf, size_t i, const char *which, int line)
{
    _Alignas(16) char want[ELEM_MAX];
    f->sent(want);
    if (!f->eq(want, at(f, buf, i))) {
        char a[64], b[64];
        f->show(a, sizeof(a), want);
        f->show(b, sizeof(b), at(f, buf, i));
        check_fail(__FILE__, line, "%s: %s[%zu] must not be written: expected sentinel %s got %s",
                   what, which, i, a, b);
    }
}

static void fill_sent(const fam_t *f, void *buf, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        f->sent(at(f, buf, i));
}

#define CHECK_RC(rc) CHECK((rc) == 0, "%s: returned %d, expected 0", what, (rc))

static void do_bcast(tinfo_t *ti, const fam_t *f, size_t ne, int root)
{
    uint64_t salt = ++ti->seq;
    snprintf(what, sizeof(what), "%s broadcast on %s (%d PEs), nelems %zu, root %d", f->name,
             ti->name, ti->n, ne, root);
    int mw = ti->w[ti->me];
    for (size_t i = 0; i < ne; i++)
        put_val(f, S, i, hv(salt, (uint64_t)mw, 0, i));
    put_val(f, S, ne, hv(salt, (uint64_t)mw, 1, 0)); /* never copied */
    fill_sent(f, D, 0, ne + GUARD);
    CHECK_RC(f->bcast(ti->t, D, S, ne, root));
    /* The root's dest is updated too (team broadcast, OpenSHMEM 1.5). */
    for (size_t i = 0; i < ne; i++)
        expect_val(f, D, i, hv(salt, (uint64_t)ti->w[root], 0, i), "dest", __LINE__);
    for (size_t i = ne; i < ne + GUARD; i++)
        expect_sent(f, D, i, "dest", __LINE__);
    for (size_t i = 0; i < ne; i++)
        expect_val(f, S, i, hv(salt, (uint64_t)mw, 0, i), "source", __LINE__);
}

/* collect: team PE j contributes cnt(j) elements (0 for some) */
static size_t collect_cnt(size_t ne, int j)
{
    return ne == 0 || j % 3 == 1 ? 0 : ne + (size_t)j;
}

static void do_collect(tinfo_t *ti, const fam_t *f, size_t ne)
{
    uint64_t salt = ++ti->seq;
    snprintf(what, sizeof(what),
             "%s collect on %s (%d PEs), nelems %zu + team PE (0 if PE %% 3 == 1)", f->name,
             ti->name, ti->n, ne);
    int mw = ti->w[ti->me];
    size_t mine = collect_cnt(ne, ti->me), total = 0;
    for (int j = 0; j < ti->n; j++)
        total += collect_cnt(ne, j);
    for (size_t i = 0; i < mine; i++)
        put_val(f, S, i, hv(salt, (uint64_t)mw, 0, i));
    put_val(f, S, mine, hv(salt, (uint64_t)mw, 1, 0));
    fill_sent(f, D, 0, total + GUARD);
    CHECK_RC(f->collect(ti->t, D, S, mine));
    size_t off = 0;
    for (int j = 0; j < ti->n; j++) {
        for (size_t i = 0; i < collect_cnt(ne, j); i++)
            expect_val(f, D, off + i, hv(salt, (uint64_t)ti->w[j], 0, i), "dest", __LINE__);
        off += collect_cnt(ne, j);
    }
    for (size_t i = total; i < total + GUARD; i++)
        expect_sent(f, D, i, "dest", __LINE__);
}

static void do_fcollect(tinfo_t *ti, const fam_t *f, size_t ne)
{
    uint64_t salt = ++ti->seq;
    snprintf(what, sizeof(what), "%s fcollect on %s (%d PEs), nelems %zu", f->name, ti->name, ti->n,
             ne);
    int mw = ti->w[ti->me];
    size_t total = ne * (size_t)ti->n;
    for (size_t i = 0; i < ne; i++)
        put_val(f, S, i, hv(salt, (uint64_t)mw, 0, i));
    put_val(f, S, ne, hv(salt, (uint64_t)mw, 1, 0));
    fill_sent(f, D, 0, total + GUARD);
    CHECK_RC(f->fcollect(ti->t, D, S, ne));
    for (int j = 0; j < ti->n; j++)
        for (size_t i = 0; i < ne; i++)
            expect_val(f, D, (size_t)j * ne + i, hv(salt, (uint64_t)ti->w[j], 0, i), "dest",
                       __LINE__);
    for (size_t i = total; i < total + GUARD; i++)
        expect_sent(f, D, i, "dest", __LINE__);
}

static void do_alltoall(tinfo_t *ti, const fam_t *f, size_t ne)
{
    uint64_t salt = ++ti->seq;
    snprintf(what, sizeof(what), "%s alltoall on %s (%d PEs), nelems %zu", f->name, ti->name, ti->n,
             ne);
    uint64_t mw = (uint64_t)ti->w[ti->me];
    size_t total = ne * (size_t)ti->n;
    for (int j = 0; j < ti->n; j++)
        for (size_t i = 0; i < ne; i++)
            put_val(f, S, (size_t)j * ne + i, hv(salt, mw, (uint64_t)ti->w[j], i));
    put_val(f, S, total, hv(salt, mw, 1000, 0));
    fill_sent(f, D, 0, total + GUARD);
    CHECK_RC(f->alltoall(ti->t, D, S, ne));
    for (int j = 0; j < ti->n; j++)
        for (size_t i = 0; i < ne; i++)
            expect_val(f, D, (size_t)j * ne + i, hv(salt, (uint64_t)ti->w[j], mw, i), "dest",
                       __LINE__);
    for (size_t i = total; i < total + GUARD; i++)
        expect_sent(f, D, i, "dest", __LINE__);
    for (int j = 0; j < ti->n; j++)
        for (size_t i = 0; i < ne; i++)
            expect_val(f, S, (size_t)j * ne + i, hv(salt, mw, (uint64_t)ti->w[j], i), "source",
                       __LINE__);
}

/* Element k of the block for team PE j is source[(j*ne + k)*sst]; it lands
 * at dest[(i*ne + k)*dst] on j, i being the sender. */
static void do_alltoalls(tinfo_t *ti, const fam_t *f, size_t ne, ptrdiff_t dst, ptrdiff_t sst)
{
    uint64_t salt = ++ti->seq;
    snprintf(what, sizeof(what), "%s alltoalls on %s (%d PEs), nelems %zu, dst %td, sst %td",
             f->name, ti->name, ti->n, ne, dst, sst);
    uint64_t mw = (uint64_t)ti->w[ti->me];
    size_t blocks = ne * (size_t)ti->n;
    size_t send = blocks ? (blocks - 1) * (size_t)sst + 1 : 0;
    size_t dend = blocks ? (blocks - 1) * (size_t)dst + 1 : 0;
    for (size_t p = 0; p < send + GUARD; p++)
        put_val(f, S, p, hv(salt, mw, 1000, p)); /* the gaps: never copied */
    for (int j = 0; j < ti->n; j++)
        for (size_t k = 0; k < ne; k++)
            put_val(f, S, ((size_t)j * ne + k) * (size_t)sst, hv(salt, mw, (uint64_t)ti->w[j], k));
    fill_sent(f, D, 0, dend + GUARD);
    CHECK_RC(f->alltoalls(ti->t, D, S, dst, sst, ne));
    for (size_t p = 0; p < dend + GUARD; p++) {
        size_t b = p / (size_t)dst;
        if (p % (size_t)dst == 0 && b < blocks)
            expect_val(f, D, p, hv(salt, (uint64_t)ti->w[b / ne], mw, b % ne), "dest", __LINE__);
        else
            expect_sent(f, D, p, "dest", __LINE__);
    }
}

/* ---- reductions: one routine per (type, op) ------------------------------
 * run(ti, ne, inplace): fill, reduce, check against the reduction each PE
 * computes itself in team order; ti NULL: on SHMEM_TEAM_INVALID, must
 * return -1 and leave dest alone. */
typedef struct {
    const char *name;
    void (*run)(tinfo_t *ti, size_t ne, int inplace);
} redop_t;

#define DEF_RED(T, N, OP, DOM, EXPR)                                                              \
    static void red_##N##_##OP(tinfo_t *ti, size_t ne, int inplace)                               \
    {                                                                                             \
        T *s = (T *)(void *)S, *d = inplace ? s : (T *)(void *)D;                                 \
        if (ti == NULL) {                                                                         \
            d[0] = SENT(T);                                                                       \
            s[0] = DOM(T, (uint64_t)7);                                                           \
            int rc = shmem_##N##_##OP##_reduce(SHMEM_TEAM_INVALID, d, s, 1);                      \
            CHECK(rc == -1,                                                                       \
                  "shmem_" #N "_" #OP "_reduce(SHMEM_TEAM_INVALID) returned %d, "                 \
                  "expected -1",                                                                  \
                  rc);                                                                            \
            CHECK(d[0] == SENT(T), "shmem_" #N "_" #OP "_reduce(SHMEM_TEAM_INVALID) wrote dest"); \
            return;                                                                               \
        }                                                                                         \
        uint64_t salt = ++ti->seq;                                                                \
        snprintf(what, sizeof(what), "shmem_" #N "_" #OP "_reduce on %s (%d PEs), nreduce %zu%s", \
                 ti->name, ti->n, ne, inplace ? ", in place" : "");                               \
        uint64_t mw = (uint64_t)ti->w[ti->me];                                                    \
        for (size_t i = 0; i < ne; i++)                                                           \
            s[i] = DOM(T, hv(salt, mw, 0, i));                                                    \
        for (size_t i = ne; i < ne + GUARD; i++)                                                  \
            s[i] = DOM(T, hv(salt, mw, 1, i)); /* never reduced */                                \
        if (!inplace)                                                                             \
            for (size_t i = 0; i < ne + GUARD; i++)                                               \
                d[i] = SENT(T);                                                                   \
        CHECK_RC(shmem_##N##_##OP##_reduce(ti->t, d, s, ne));                                     \
        for (size_t i = 0; i < ne; i++) {                                                         \
            T acc = DOM(T, hv(salt, (uint64_t)ti->w[0], 0, i));                                   \
            for (int j = 1; j < ti->n; j++) {                                                     \
                T x = acc, y = DOM(T, hv(salt, (uint64_t)ti->w[j], 0, i));                        \
                acc = EXPR;                                                                       \
            }                                                                                     \
            if (!(d[i] == acc))                                                                   \
                check_fail(__FILE__, __LINE__,                                                    \
                           "%s: dest[%zu] expected %.21Lg%+.21Lgi got "                           \
                           "%.21Lg%+.21Lgi",                                                      \
                           what, i, SHOWV(acc), SHOWV(d[i]));                                     \
            if (!inplace && !(s[i] == DOM(T, hv(salt, mw, 0, i))))                                \
                check_fail(__FILE__, __LINE__, "%s: source[%zu] was changed", what, i);           \
        }                                                                                         \
        for (size_t i = ne; i < ne + GUARD; i++) {                                                \
            T want = inplace ? DOM(T, hv(salt, mw, 1, i)) : SENT(T);                              \
            if (!(d[i] == want))                                                                  \
                check_fail(__FILE__, __LINE__,                                                    \
                           "%s: dest[%zu] (past nreduce) expected "                               \
                           "%.21Lg%+.21Lgi got %.21Lg%+.21Lgi",                                   \
                           what, i, SHOWV(want), SHOWV(d[i]));                                    \
        }                                                                                         \
    }
#define DEF_RED_BIT(T, N)                   \
    DEF_RED(T, N, and, DOM_ANY, (T)(x & y)) \
    DEF_RED(T, N, or, DOM_ANY, (T)(x | y)) DEF_RED(T, N, xor, DOM_ANY, (T)(x ^ y))
#define DEF_RED_MINMAX(T, N) \
    DEF_RED(T, N, max, DOM_ANY, x > y ? x : y) DEF_RED(T, N, min, DOM_ANY, x < y ? x : y)
#define DEF_RED_ARITH(T, N) \
    DEF_RED(T, N, sum, DOM_SUM, (T)(x + y)) DEF_RED(T, N, prod, DOM_PROD, (T)(x * y))
SHMEM_REDUCE_BIT_TYPES(DEF_RED_BIT)
SHMEM_REDUCE_MINMAX_TYPES(DEF_RED_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(DEF_RED_ARITH)

#define RED_ENTRY(T, N, OP) {"shmem_" #N "_" #OP "_reduce", red_##N##_##OP},
#define RED_ENTRY_BIT(T, N) RED_ENTRY(T, N, and) RED_ENTRY(T, N, or) RED_ENTRY(T, N, xor)
#define RED_ENTRY_MINMAX(T, N) RED_ENTRY(T, N, max) RED_ENTRY(T, N, min)
#define RED_ENTRY_ARITH(T, N) RED_ENTRY(T, N, sum) RED_ENTRY(T, N, prod)
// clang-format off
static const redop_t redops[] = {
    SHMEM_REDUCE_BIT_TYPES(RED_ENTRY_BIT)
    SHMEM_REDUCE_MINMAX_TYPES(RED_ENTRY_MINMAX)
    SHMEM_REDUCE_ARITH_TYPES(RED_ENTRY_ARITH)
};
// clang-format on
#define NREDOPS (sizeof(redops) / sizeof(redops[0]))

/* ---- teams ---------------------------------------------------------------- */
enum { K_WORLD, K_SHARED, K_STRIDE2, K_REVERSE, K_ROW2, K_COL2, K_ROW3, K_COL3, K_SINGLE, NKINDS };
static tinfo_t teams[NKINDS];
static shmem_team_t to_destroy[2 * NKINDS];
static int ndestroy;

static void team_info(tinfo_t *ti, shmem_team_t t, const char *name)
{
    memset(ti, 0, sizeof(*ti));
    ti->t = t;
    snprintf(ti->name, sizeof(ti->name), "%s", name);
    if (t == SHMEM_TEAM_INVALID)
        return;
    ti->n = shmem_team_n_pes(t);
    ti->me = shmem_team_my_pe(t);
    CHECK(ti->n >= 1 && ti->n <= MAXPES && ti->me >= 0 && ti->me < ti->n,
          "team %s: n_pes %d, my_pe %d", name, ti->n, ti->me);
    for (int k = 0; k < ti->n; k++)
        ti->w[k] = shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD);
}

static void make_teams(void)
{
    int n = npes;
    shmem_team_t t, x, y;
    team_info(&teams[K_WORLD], SHMEM_TEAM_WORLD, "WORLD");
    team_info(&teams[K_SHARED], SHMEM_TEAM_SHARED, "SHARED");
    CHECK_EQ("split stride 2", 0,
             shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &t));
    team_info(&teams[K_STRIDE2], t, "stride 2");
    to_destroy[ndestroy++] = t;
    CHECK_EQ("split stride -1", 0,
             shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &t));
    team_info(&teams[K_REVERSE], t, "stride -1 (reversed)");
    to_destroy[ndestroy++] = t;
    CHECK_EQ("split_2d xrange 2", 0,
             shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y));
    team_info(&teams[K_ROW2], x, "split_2d(2) row");
    team_info(&teams[K_COL2], y, "split_2d(2) column");
    to_destroy[ndestroy++] = x;
    to_destroy[ndestroy++] = y;
    CHECK_EQ("split_2d xrange 3", 0,
             shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &x, NULL, 0, &y));
    team_info(&teams[K_ROW3], x, "split_2d(3) row");
    team_info(&teams[K_COL3], y, "split_2d(3) column");
    to_destroy[ndestroy++] = x;
    to_destroy[ndestroy++] = y;
    CHECK_EQ("split_2d xrange 1", 0,
             shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y));
    team_info(&teams[K_SINGLE], x, "single PE (split_2d(1) row)");
    to_destroy[ndestroy++] = x;
    to_destroy[ndestroy++] = y;
    CHECK(teams[K_SINGLE].n == 1, "split_2d(1) row has %d PEs, expected 1", teams[K_SINGLE].n);
}

/* ---- drivers ---------------------------------------------------------------- */
static const size_t sizes[] = {0, 1, 7, NE_MAX};
static const ptrdiff_t strides[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2},
                                       {2, 3}, {3, 1}, {3, 2}, {3, 3}};

static size_t nsizes(void)
{
    return sizeof(sizes) / sizeof(sizes[0]) - (quick ? 1 : 0);
}

static void data_collectives(tinfo_t *ti)
{
    for (size_t z = 0; z < nsizes(); z++) {
        size_t ne = sizes[z];
        for (size_t fi = 0; fi < NFAMS; fi++) {
            const fam_t *f = &fams[fi];
            for (int root = 0; root < ti->n; root++)
                do_bcast(ti, f, ne, root);
            do_collect(ti, f, ne);
            do_fcollect(ti, f, ne);
            do_alltoall(ti, f, ne);
            for (size_t k = 0; k < sizeof(strides) / sizeof(strides[0]); k++)
                /* all 9 stride pairs up to 7 elements, 3 of them at 1001 */
                if (ne < NE_MAX || k % 4 == 0)
                    do_alltoalls(ti, f, ne, strides[k][0], strides[k][1]);
        }
    }
}

static void reductions(tinfo_t *ti)
{
    for (size_t z = 0; z < nsizes(); z++)
        for (size_t r = 0; r < NREDOPS; r++) {
            redops[r].run(ti, sizes[z], 0);
            redops[r].run(ti, sizes[z], 1);
        }
}

static void large_reductions(tinfo_t *ti)
{
    /* 300000 doubles; the others just past 16K bytes, odd counts */
    red_double_sum(ti, LARGE, 0);
    red_double_sum(ti, LARGE, 1);
    red_int_sum(ti, 40001, 0);
    red_uchar_xor(ti, 70001, 1);
    red_long_max(ti, 20011, 0);
    red_complexf_prod(ti, 30001, 0);
    red_longdouble_min(ti, 10007, 1);
}

/* Every routine on SHMEM_TEAM_INVALID returns -1 and writes nothing. */
static void invalid_team(void)
{
    for (size_t fi = 0; fi < NFAMS; fi++) {
        const fam_t *f = &fams[fi];
        snprintf(what, sizeof(what), "%s collectives on SHMEM_TEAM_INVALID", f->name);
        put_val(f, S, 0, 1);
        fill_sent(f, D, 0, 4);
        CHECK_EQ(what, -1, f->bcast(SHMEM_TEAM_INVALID, D, S, 1, 0));
        CHECK_EQ(what, -1, f->collect(SHMEM_TEAM_INVALID, D, S, 1));
        CHECK_EQ(what, -1, f->fcollect(SHMEM_TEAM_INVALID, D, S, 1));
        CHECK_EQ(what, -1, f->alltoall(SHMEM_TEAM_INVALID, D, S, 1));
        CHECK_EQ(what, -1, f->alltoalls(SHMEM_TEAM_INVALID, D, S, 1, 1, 1));
        for (size_t i = 0; i < 4; i++)
            expect_sent(f, D, i, "dest", __LINE__);
    }
    for (size_t r = 0; r < NREDOPS; r++)
        redops[r].run(NULL, 1, 0);
}

/* Overlapping teams used alternately, no barrier: members of one team run
 * its collective while the others are already in the next one. */
static void alternate(void)
{
    tinfo_t *seq[] = {&teams[K_WORLD],  &teams[K_STRIDE2], &teams[K_REVERSE], &teams[K_COL2],
                      &teams[K_SHARED], &teams[K_ROW3],    &teams[K_WORLD],   &teams[K_COL3]};
    for (int it = 0; it < 400; it++) {
        tinfo_t *ti = seq[it % 8];
        if (ti->t == SHMEM_TEAM_INVALID)
            continue;
        switch ((it / 8) % 6) {
        case 0: red_long_sum(ti, 5, 0); break;
        case 1: do_fcollect(ti, &fams[F_int], 3); break;
        case 2: do_bcast(ti, &fams[F_double], 9, it % ti->n); break;
        case 3: do_alltoall(ti, &fams[F_longlong], 2); break;
        case 4: red_uint_xor(ti, 33, 1); break;
        default: do_collect(ti, &fams[F_char], 4); break;
        }
    }
}

/* ---- C11 generic selections ------------------------------------------------ */
#define GEN_DATA(T, N)                                                                          \
    do {                                                                                        \
        T *s = (T *)(void *)S, *d = (T *)(void *)D;                                             \
        int root = npes - 1;                                                                    \
        snprintf(what, sizeof(what), "generic collectives, " #T);                               \
        for (int i = 0; i < 4 * npes; i++)                                                      \
            s[i] = DOM_ANY(T, hv(91, (uint64_t)me, 0, (uint64_t)i));                            \
        CHECK_RC(shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 4, root));                             \
        for (int i = 0; i < 4; i++)                                                             \
            CHECK(d[i] == DOM_ANY(T, hv(91, (uint64_t)root, 0, (uint64_t)i)),                   \
                  "%s: broadcast dest[%d]", what, i);                                           \
        CHECK_RC(shmem_fcollect(SHMEM_TEAM_WORLD, d, s, 3));                                    \
        for (int i = 0; i < 3 * npes; i++)                                                      \
            CHECK(d[i] == DOM_ANY(T, hv(91, (uint64_t)(i / 3), 0, (uint64_t)(i % 3))),          \
                  "%s: fcollect dest[%d]", what, i);                                            \
        CHECK_RC(shmem_collect(SHMEM_TEAM_WORLD, d, s, 2));                                     \
        for (int i = 0; i < 2 * npes; i++)                                                      \
            CHECK(d[i] == DOM_ANY(T, hv(91, (uint64_t)(i / 2), 0, (uint64_t)(i % 2))),          \
                  "%s: collect dest[%d]", what, i);                                             \
        CHECK_RC(shmem_alltoall(SHMEM_TEAM_WORLD, d, s, 2));                                    \
        for (int i = 0; i < 2 * npes; i++)                                                      \
            CHECK(d[i] == DOM_ANY(T, hv(91, (uint64_t)(i / 2), 0, (uint64_t)(2 * me + i % 2))), \
                  "%s: alltoall dest[%d]", what, i);                                            \
        CHECK_RC(shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 2, 1));                             \
        for (int i = 0; i < npes; i++)                                                          \
            CHECK(d[i] == DOM_ANY(T, hv(91, (uint64_t)i, 0, (uint64_t)(2 * me))),               \
                  "%s: alltoalls dest[%d]", what, i);                                           \
    } while (0)

#define GEN_RED(T, OPNAME, DOM, EXPR)                                                              \
    do {                                                                                           \
        T *s = (T *)(void *)S, *d = (T *)(void *)D;                                                \
        snprintf(what, sizeof(what), "generic " #OPNAME ", " #T);                                  \
        for (int i = 0; i < 5; i++)                                                                \
            s[i] = DOM(T, hv(92, (uint64_t)me, 0, (uint64_t)i));                                   \
        CHECK_RC(OPNAME(SHMEM_TEAM_WORLD, d, s, 5));                                               \
        for (int i = 0; i < 5; i++) {                                                              \
            T acc = DOM(T, hv(92, 0, 0, (uint64_t)i));                                             \
            for (int j = 1; j < npes; j++) {                                                       \
                T x = acc, y = DOM(T, hv(92, (uint64_t)j, 0, (uint64_t)i));                        \
                acc = EXPR;                                                                        \
            }                                                                                      \
            CHECK(d[i] == acc, "%s: dest[%d] expected %.21Lg%+.21Lgi got %.21Lg%+.21Lgi", what, i, \
                  SHOWV(acc), SHOWV(d[i]));                                                        \
        }                                                                                          \
    } while (0)

static void generics(void)
{
    GEN_DATA(int, int);
    GEN_DATA(double, double);
    GEN_DATA(long double, longdouble);
    GEN_DATA(unsigned char, uchar);
    GEN_DATA(signed char, schar);
    GEN_DATA(unsigned long long, ulonglong);
    GEN_DATA(float, float);
    GEN_RED(int, shmem_sum_reduce, DOM_SUM, x + y);
    GEN_RED(double, shmem_sum_reduce, DOM_SUM, x + y);
    GEN_RED(double _Complex, shmem_sum_reduce, DOM_SUM, x + y);
    GEN_RED(float _Complex, shmem_prod_reduce, DOM_PROD, x *y);
    GEN_RED(float, shmem_prod_reduce, DOM_PROD, x *y);
    GEN_RED(short, shmem_prod_reduce, DOM_PROD, (short)(x * y));
    GEN_RED(long, shmem_max_reduce, DOM_ANY, x > y ? x : y);
    GEN_RED(signed char, shmem_min_reduce, DOM_ANY, x < y ? x : y);
    GEN_RED(long double, shmem_max_reduce, DOM_ANY, x > y ? x : y);
    GEN_RED(unsigned int, shmem_and_reduce, DOM_ANY, x &y);
    GEN_RED(unsigned char, shmem_or_reduce, DOM_ANY, (unsigned char)(x | y));
    GEN_RED(unsigned long long, shmem_xor_reduce, DOM_ANY, x ^ y);
    GEN_RED(unsigned short, shmem_xor_reduce, DOM_ANY, (unsigned short)(x ^ y));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    do_data = strcmp(mode, "reduce") != 0;
    do_reduce = strcmp(mode, "data") != 0;
    quick = strcmp(mode, "quick") == 0;
    if (strcmp(mode, "data") != 0 && strcmp(mode, "reduce") != 0 && !quick &&
        strcmp(mode, "all") != 0) {
        fprintf(stderr, "coll: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "at most %d PEs", MAXPES);
    /* alltoalls at 1001 elements with stride 3, or the large reductions */
    buf_bytes = ((size_t)npes * NE_MAX * 3 + 64) * ELEM_MAX;
    if (buf_bytes < (size_t)(LARGE + GUARD) * 8)
        buf_bytes = (size_t)(LARGE + GUARD) * 8;
    S = shmem_align(64, buf_bytes);
    D = shmem_align(64, buf_bytes);
    CHECK(S != NULL && D != NULL, "shmem_align of %zu bytes expected memory got NULL", buf_bytes);
    make_teams();

    invalid_team();
    for (int k = 0; k < NKINDS; k++) {
        tinfo_t *ti = &teams[k];
        if (ti->t == SHMEM_TEAM_INVALID)
            continue;
        if (do_data)
            data_collectives(ti);
        if (do_reduce)
            reductions(ti);
    }
    if (do_reduce && !quick) {
        large_reductions(&teams[K_WORLD]);
        if (teams[K_REVERSE].t != SHMEM_TEAM_INVALID)
            large_reductions(&teams[K_REVERSE]);
        if (teams[K_COL3].t != SHMEM_TEAM_INVALID)
            large_reductions(&teams[K_COL3]);
    }
    if (do_data) {
        alternate();
        generics();
    }

    shmem_barrier_all();
    for (int k = 0; k < ndestroy; k++)
        if (to_destroy[k] != SHMEM_TEAM_INVALID)
            shmem_team_destroy(to_destroy[k]);
    shmem_free(D);
    shmem_free(S);
    shmem_finalize();
    return 0;
}
