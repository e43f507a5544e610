/*
 * p2p.c - the wait_until / test families: all, any, some, their _vector
 * forms, for every P2P type (X-macro over SHMEM_P2P_TYPES).
 *
 *  - Local (no remote writer): for every comparison operator, three value
 *    sets (around 10, around (T)-3 and around 0: signed types cross zero,
 *    unsigned ones compare near their maximum), four status arrays (NULL,
 *    two mixed, all excluded) and nelems 0, 5 and 8, the results are
 *    compared with a local model: test_all (1 when the set is empty),
 *    test_any (a qualifying included index, SIZE_MAX when none qualifies,
 *    all are excluded or nelems is 0), test_some (exactly the qualifying
 *    included indices, 0 when none), the _vector forms with per-element
 *    values, and the wait_until forms wherever they cannot block (an empty
 *    set: wait_until_any returns SIZE_MAX, wait_until_some 0).
 *  - Remote: the left neighbour sets variables one at a time with puts
 *    while this PE waits; excluded entries are set too, first, and must
 *    never be reported, and entries it never sets are excluded and must
 *    not be waited on. wait_until_all / any / some and their vectors.
 *  - test, test_all, test_any, test_some (and vectors) polled in a loop
 *    eventually see the neighbour's update.
 *  - The C11 generic forms for long and unsigned short.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define NV 8

static int me, npes, left, right;

static const char *const cmp_name[6] = {"EQ", "NE", "GT", "LE", "LT", "GE"};
#define REF(a, c, b)                                                                               \
    ((c) == SHMEM_CMP_EQ   ? (a) == (b)                                                            \
     : (c) == SHMEM_CMP_NE ? (a) != (b)                                                            \
     : (c) == SHMEM_CMP_GT ? (a) > (b)                                                             \
     : (c) == SHMEM_CMP_LE ? (a) <= (b)                                                            \
     : (c) == SHMEM_CMP_LT ? (a) < (b)                                                             \
                           : (a) >= (b))

/* Status arrays: none (NULL), two mixed, all excluded. */
static const int st_mix_a[NV] = {1, 0, 0, 1, 0, 0, 1, 0};
static const int st_mix_b[NV] = {0, 1, 0, 1, 0, 1, 0, 1};
static const int st_all[NV] = {1, 1, 1, 1, 1, 1, 1, 1};
static const int *const st_pat[4] = {NULL, st_mix_a, st_mix_b, st_all};
static const char *const st_name[4] = {"status NULL", "status mixed A", "status mixed B",
                                       "all excluded"};
static const size_t nel_pat[3] = {0, 5, NV};

/* indices[0..got) must be exactly the set of qualifying entries q[]. */
static void check_indices(const char *what, const size_t *idx, size_t got, const int *q,
                          size_t nq)
{
    int seen[NV] = {0};
    CHECK(got == nq, "%s: expected %zu indices got %zu", what, nq, got);
    for (size_t k = 0; k < got; k++) {
        CHECK(idx[k] < NV && q[idx[k]], "%s: index %zu reported, it does not qualify (or is "
              "excluded)", what, idx[k]);
        CHECK(!seen[idx[k]], "%s: index %zu reported twice", what, idx[k]);
        seen[idx[k]] = 1;
    }
}

#define DEF_P2P(T, N)                                                                              \
    static T pv_##N[NV];                                                                           \
    static void local_##N(void)                                                                    \
    {                                                                                              \
        const T bases[3] = {(T)10, (T)((T)0 - (T)3), (T)0};                                        \
        T cv[NV];                                                                                  \
        size_t idx[NV];                                                                            \
        char what[200];                                                                            \
        for (int r = 0; r < 3; r++) {                                                              \
            const T base = bases[r];                                                               \
            for (int i = 0; i < NV; i++) {                                                         \
                pv_##N[i] = (T)(base + (T)(i % 3) - (T)1);                                         \
                cv[i] = (T)(base + (T)((i * 2 + 1) % 3) - (T)1);                                   \
            }                                                                                      \
            for (int c = SHMEM_CMP_EQ; c <= SHMEM_CMP_GE; c++)                                     \
                for (int sp = 0; sp < 4; sp++)                                                     \
                    for (int ni = 0; ni < 3; ni++) {                                               \
                        const int *st = st_pat[sp];                                                \
                        const size_t nel = nel_pat[ni];                                            \
                        int q[NV] = {0}, qv[NV] = {0};                                             \
                        size_t inc = 0, nq = 0, nqv = 0;                                           \
                        for (size_t i = 0; i < nel; i++) {                                         \
                            if (st && st[i])                                                       \
                                continue;                                                          \
                            inc++;                                                                 \
                            T a = pv_##N[i];                                                       \
                            q[i] = REF(a, c, base);                                                \
                            qv[i] = REF(a, c, cv[i]);                                              \
                            nq += (size_t)q[i];                                                    \
                            nqv += (size_t)qv[i];                                                  \
                        }                                                                          \
                        snprintf(what, sizeof(what), "shmem_%s_%%s(%s %lld, %s, nelems %zu)",      \
                                 #N, cmp_name[c], (long long)base, st_name[sp], nel);              \
                        char w2[240];                                                              \
                        /* test_all / test_all_vector */                                           \
                        int ta = shmem_##N##_test_all(pv_##N, nel, st, c, base);                   \
                        snprintf(w2, sizeof(w2), what, "test_all");                                \
                        CHECK(ta == (nq == inc), "%s expected %d got %d", w2, nq == inc, ta);      \
                        ta = shmem_##N##_test_all_vector(pv_##N, nel, st, c, cv);                  \
                        snprintf(w2, sizeof(w2), what, "test_all_vector");                         \
                        CHECK(ta == (nqv == inc), "%s expected %d got %d", w2, nqv == inc, ta);    \
                        /* test_any / test_any_vector */                                           \
                        size_t x = shmem_##N##_test_any(pv_##N, nel, st, c, base);                 \
                        snprintf(w2, sizeof(w2), what, "test_any");                                \
                        if (nq == 0)                                                               \
                            CHECK(x == SIZE_MAX, "%s expected SIZE_MAX got %zu", w2, x);           \
                        else                                                                       \
                            CHECK(x < nel && q[x], "%s expected a qualifying index got %zu",       \
                                  w2, x);                                                          \
                        x = shmem_##N##_test_any_vector(pv_##N, nel, st, c, cv);                   \
                        snprintf(w2, sizeof(w2), what, "test_any_vector");                         \
                        if (nqv == 0)                                                              \
                            CHECK(x == SIZE_MAX, "%s expected SIZE_MAX got %zu", w2, x);           \
                        else                                                                       \
                            CHECK(x < nel && qv[x], "%s expected a qualifying index got %zu",      \
                                  w2, x);                                                          \
                        /* test_some / test_some_vector */                                         \
                        size_t got = shmem_##N##_test_some(pv_##N, nel, idx, st, c, base);         \
                        snprintf(w2, sizeof(w2), what, "test_some");                               \
                        check_indices(w2, idx, got, q, nq);                                        \
                        got = shmem_##N##_test_some_vector(pv_##N, nel, idx, st, c, cv);           \
                        snprintf(w2, sizeof(w2), what, "test_some_vector");                        \
                        check_indices(w2, idx, got, qv, nqv);                                      \
                        /* the wait forms, where they return at once */                            \
                        if (nq == inc)                                                             \
                            shmem_##N##_wait_until_all(pv_##N, nel, st, c, base);                  \
                        if (nqv == inc)                                                            \
                            shmem_##N##_wait_until_all_vector(pv_##N, nel, st, c, cv);             \
                        if (nq > 0 || inc == 0) {                                                  \
                            x = shmem_##N##_wait_until_any(pv_##N, nel, st, c, base);              \
                            snprintf(w2, sizeof(w2), what, "wait_until_any");                      \
                            if (inc == 0)                                                          \
                                CHECK(x == SIZE_MAX, "%s expected SIZE_MAX got %zu", w2, x);       \
                            else                                                                   \
                                CHECK(x < nel && q[x], "%s expected a qualifying index got "       \
                                      "%zu", w2, x);                                               \
                            got = shmem_##N##_wait_until_some(pv_##N, nel, idx, st, c, base);      \
                            snprintf(w2, sizeof(w2), what, "wait_until_some");                     \
                            check_indices(w2, idx, got, q, nq);                                    \
                        }                                                                          \
                        if (nqv > 0 || inc == 0) {                                                 \
                            x = shmem_##N##_wait_until_any_vector(pv_##N, nel, st, c, cv);         \
                            snprintf(w2, sizeof(w2), what, "wait_until_any_vector");               \
                            if (inc == 0)                                                          \
                                CHECK(x == SIZE_MAX, "%s expected SIZE_MAX got %zu", w2, x);       \
                            else                                                                   \
                                CHECK(x < nel && qv[x], "%s expected a qualifying index got "      \
                                      "%zu", w2, x);                                               \
                            got = shmem_##N##_wait_until_some_vector(pv_##N, nel, idx, st, c,      \
                                                                     cv);                          \
                            snprintf(w2, sizeof(w2), what, "wait_until_some_vector");              \
                            check_indices(w2, idx, got, qv, nqv);                                  \
                        }                                                                          \
                    }                                                                              \
        }                                                                                          \
    }                                                                                              \
    /* The left neighbour writes pv one entry at a time while this PE waits. */                    \
    static void remote_##N(void)                                                                   \
    {                                                                                              \
        T *x = pv_##N;                                                                             \
        static const int st[NV] = {0, 0, 0, 1, 0, 0, 0, 1}; /* 3 and 7 excluded */                 \
        size_t idx[NV];                                                                            \
        T cv[NV];                                                                                  \
        for (int i = 0; i < NV; i++)                                                               \
            cv[i] = (T)(i + 1);                                                                    \
        /* wait_until_all(EQ 1): the excluded entries are never set. */                            \
        for (int i = 0; i < NV; i++)                                                               \
            x[i] = 0;                                                                              \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < NV; i++)                                                               \
            if (!st[i]) {                                                                          \
                shmem_##N##_p(&x[i], (T)1, right);                                                 \
                shmem_fence();                                                                     \
            }                                                                                      \
        shmem_##N##_wait_until_all(x, NV, st, SHMEM_CMP_EQ, (T)1);                                 \
        for (int i = 0; i < NV; i++)                                                               \
            CHECK(x[i] == (T)!st[i], "shmem_%s_wait_until_all: entry %d expected %d got %lld",     \
                  #N, i, !st[i], (long long)x[i]);                                                 \
        shmem_barrier_all();                                                                       \
        /* wait_until_any(GE 5): excluded entry 3 qualifies first, then entry 5. */                \
        for (int i = 0; i < NV; i++)                                                               \
            x[i] = 0;                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_##N##_p(&x[3], (T)9, right);                                                         \
        shmem_fence();                                                                             \
        shmem_##N##_p(&x[5], (T)5, right);                                                         \
        size_t r = shmem_##N##_wait_until_any(x, NV, st, SHMEM_CMP_GE, (T)5);                      \
        CHECK(r == 5, "shmem_%s_wait_until_any: expected index 5 (3 is excluded) got %zu", #N,     \
              r);                                                                                  \
        shmem_barrier_all();                                                                       \
        /* wait_until_some(GT 0): excluded 7, then 2, then 6; until both seen. */                  \
        for (int i = 0; i < NV; i++)                                                               \
            x[i] = 0;                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_##N##_p(&x[7], (T)3, right);                                                         \
        shmem_fence();                                                                             \
        shmem_##N##_p(&x[2], (T)3, right);                                                         \
        shmem_fence();                                                                             \
        shmem_##N##_p(&x[6], (T)3, right);                                                         \
        for (int seen2 = 0, seen6 = 0; !(seen2 && seen6);) {                                       \
            size_t got = shmem_##N##_wait_until_some(x, NV, idx, st, SHMEM_CMP_GT, (T)0);          \
            CHECK(got >= 1 && got <= 2, "shmem_%s_wait_until_some: expected 1 or 2 indices "       \
                  "got %zu", #N, got);                                                             \
            for (size_t k = 0; k < got; k++) {                                                     \
                CHECK(idx[k] == 2 || idx[k] == 6, "shmem_%s_wait_until_some: index %zu "           \
                      "reported, expected 2 or 6 (7 is excluded)", #N, idx[k]);                    \
                seen2 |= idx[k] == 2;                                                              \
                seen6 |= idx[k] == 6;                                                              \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        /* Vectors: all(GE i+1), any(EQ i+1), some(NE 0). */                                       \
        for (int i = 0; i < NV; i++)                                                               \
            x[i] = 0;                                                                              \
        shmem_barrier_all();                                                                       \
        for (int i = NV - 1; i >= 0; i--)                                                          \
            if (!st[i]) {                                                                          \
                shmem_##N##_p(&x[i], (T)(i + 1), right);                                           \
                shmem_fence();                                                                     \
            }                                                                                      \
        shmem_##N##_wait_until_all_vector(x, NV, st, SHMEM_CMP_GE, cv);                            \
        for (int i = 0; i < NV; i++)                                                               \
            CHECK(x[i] == (st[i] ? (T)0 : (T)(i + 1)), "shmem_%s_wait_until_all_vector: "          \
                  "entry %d got %lld", #N, i, (long long)x[i]);                                    \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < NV; i++)                                                               \
            x[i] = 0;                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_##N##_p(&x[7], (T)8, right);                                                         \
        shmem_fence();                                                                             \
        shmem_##N##_p(&x[4], (T)5, right);                                                         \
        r = shmem_##N##_wait_until_any_vector(x, NV, st, SHMEM_CMP_EQ, cv);                        \
        CHECK(r == 4, "shmem_%s_wait_until_any_vector: expected index 4 (7 is excluded) got "      \
              "%zu", #N, r);                                                                       \
        size_t got = shmem_##N##_wait_until_some_vector(x, NV, idx, st, SHMEM_CMP_NE,              \
                                                        (T[NV]){0});                               \
        CHECK(got == 1 && idx[0] == 4, "shmem_%s_wait_until_some_vector(NE 0): expected "          \
              "index 4 only got %zu indices, first %zu", #N, got, got ? idx[0] : SIZE_MAX);        \
        shmem_barrier_all();                                                                       \
        /* Polling test routines see the neighbour's update eventually. */                         \
        for (int i = 0; i < NV; i++)                                                               \
            x[i] = (T)100;                                                                         \
        shmem_barrier_all();                                                                       \
        shmem_##N##_p(&x[3], (T)1, right); /* excluded */                                          \
        shmem_fence();                                                                             \
        shmem_##N##_p(&x[0], (T)42, right);                                                        \
        shmem_fence();                                                                             \
        shmem_##N##_p(&x[1], (T)7, right);                                                         \
        shmem_fence();                                                                             \
        for (int i = 4; i < NV; i++)                                                               \
            if (!st[i])                                                                            \
                shmem_##N##_p(&x[i], (T)50, right);                                                \
        shmem_fence();                                                                             \
        shmem_##N##_p(&x[2], (T)60, right);                                                        \
        while (!shmem_##N##_test(&x[0], SHMEM_CMP_EQ, (T)42))                                      \
            ;                                                                                      \
        while ((r = shmem_##N##_test_any(&x[1], NV - 1, &st[1], SHMEM_CMP_LT, (T)10)) ==           \
               SIZE_MAX)                                                                           \
            ;                                                                                      \
        CHECK(r == 0, "shmem_%s_test_any(LT 10): expected index 0 (x[1]; x[3] is excluded) "       \
              "got %zu", #N, r);                                                                   \
        while ((got = shmem_##N##_test_some(x, NV, idx, st, SHMEM_CMP_LE, (T)50)) < 5)             \
            CHECK(got <= 5, "shmem_%s_test_some(LE 50): %zu indices, expected at most 5", #N,      \
                  got);                                                                            \
        CHECK(got == 5, "shmem_%s_test_some(LE 50) expected 5 got %zu", #N, got);                  \
        while (!shmem_##N##_test_all(x, NV, st, SHMEM_CMP_NE, (T)100))                             \
            ;                                                                                      \
        T lim[NV];                                                                                 \
        for (int i = 0; i < NV; i++)                                                               \
            lim[i] = (T)(i == 2 ? 101 : 51);                                                       \
        while (!shmem_##N##_test_all_vector(x, NV, st, SHMEM_CMP_LT, lim))                         \
            ;                                                                                      \
        CHECK(shmem_##N##_test_any_vector(x, NV, st, SHMEM_CMP_GT, lim) == SIZE_MAX,               \
              "shmem_%s_test_any_vector(GT): expected SIZE_MAX", #N);                              \
        got = shmem_##N##_test_some_vector(x, NV, idx, NULL, SHMEM_CMP_LT, lim);                   \
        CHECK(got == NV - 1, "shmem_%s_test_some_vector(LT, status NULL) expected %d got %zu",     \
              #N, NV - 1, got);                                                                    \
        for (size_t k = 0; k < got; k++)                                                           \
            CHECK(idx[k] != 7, "shmem_%s_test_some_vector(LT): index 7 (100 < 51?) reported",      \
                  #N);                                                                             \
        shmem_barrier_all();                                                                       \
    }
SHMEM_P2P_TYPES(DEF_P2P)

#define RUN_P2P(T, N)                                                                              \
    local_##N();                                                                                   \
    shmem_barrier_all();                                                                           \
    remote_##N();

/* The C11 generic forms. */
static long glong[NV];
static unsigned short gush[NV];

static void test_generic(void)
{
    static const int st[NV] = {0, 1, 0, 0, 0, 0, 0, 0};
    size_t idx[NV];
    long lv[NV];
    unsigned short uv[NV];
    for (int i = 0; i < NV; i++) {
        glong[i] = -1;
        gush[i] = 65535;
        lv[i] = i;
        uv[i] = (unsigned short)(65000 + i);
    }
    shmem_barrier_all();
    CHECK(shmem_test_all(glong, NV, NULL, SHMEM_CMP_LT, 0L) == 1, "generic test_all(long LT 0) "
          "expected 1");
    CHECK(shmem_test_any(gush, NV, st, SHMEM_CMP_LT, (unsigned short)65535) == SIZE_MAX,
          "generic test_any(unsigned short LT 65535) expected SIZE_MAX");
    CHECK(shmem_test_some(gush, NV, idx, NULL, SHMEM_CMP_GT, (unsigned short)1) == NV,
          "generic test_some(unsigned short 65535 GT 1) expected %d (unsigned compare)", NV);
    CHECK(shmem_test_all_vector(gush, NV, NULL, SHMEM_CMP_GE, uv) == 1,
          "generic test_all_vector(unsigned short) expected 1");
    CHECK(shmem_test_any_vector(glong, NV, NULL, SHMEM_CMP_GE, lv) == SIZE_MAX,
          "generic test_any_vector(long -1 GE i) expected SIZE_MAX");
    CHECK(shmem_test_some_vector(glong, NV, idx, st, SHMEM_CMP_LT, lv) == NV - 1,
          "generic test_some_vector expected %d", NV - 1);
    shmem_barrier_all();
    for (int i = 0; i < NV; i++)
        if (!st[i]) {
            shmem_long_p(&glong[i], 7, right);
            shmem_ushort_p(&gush[i], (unsigned short)(100 + i), right);
        }
    shmem_wait_until_all(glong, NV, st, SHMEM_CMP_EQ, 7L);
    size_t x = shmem_wait_until_any(gush, NV, st, SHMEM_CMP_LT, (unsigned short)200);
    CHECK(x < NV && x != 1, "generic wait_until_any expected an included index got %zu", x);
    shmem_wait_until_all(gush, NV, st, SHMEM_CMP_LT, (unsigned short)200);
    size_t got = shmem_wait_until_some(glong, NV, idx, st, SHMEM_CMP_EQ, 7L);
    CHECK(got == NV - 1, "generic wait_until_some expected %d got %zu", NV - 1, got);
    for (int i = 0; i < NV; i++)
        lv[i] = i == 1 ? -1 : 7;
    shmem_wait_until_all_vector(glong, NV, NULL, SHMEM_CMP_EQ, lv);
    lv[3] = 8; /* 7 GE 8 is false: the only non-qualifying entry */
    x = shmem_wait_until_any_vector(glong, NV, NULL, SHMEM_CMP_GE, lv);
    CHECK(x < NV && x != 3, "generic wait_until_any_vector(GE) expected a qualifying index got %zu",
          x);
    got = shmem_wait_until_some_vector(gush, NV, idx, st, SHMEM_CMP_LE, uv);
    CHECK(got == NV - 1, "generic wait_until_some_vector expected %d got %zu", NV - 1, got);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    (void)left;
    SHMEM_P2P_TYPES(RUN_P2P)
    test_generic();
    if (me == 0)
        printf("p2p: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
