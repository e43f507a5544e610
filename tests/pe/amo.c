/*
 * amo.c - atomic memory operations, every type of every class, generated
 * from the AMO type tables of shmem.h (X-macros), on the symmetric heap and
 * on global variables, through the plain names, the ctx_ names with
 * SHMEM_CTX_DEFAULT, with a created context and with a context of the
 * world team in reverse order (whose PE numbers are the team's), blocking
 * and _nbi.
 *
 *  - Counters (standard types): every PE, self included, does K rounds of
 *    fetch_add(my_pe+1), add(3), inc and fetch_inc on four counters of
 *    every PE. The counters start below zero (signed types cross zero,
 *    unsigned ones wrap, 64-bit ones carry through the high half) and end
 *    at exactly start + n_pes*K*amount. The fetched values are gathered to
 *    the counter's owner with puts: fetch_inc's are exactly a permutation of
 *    start..start+n_pes*K-1 (none seen twice); fetch_add's, sorted, form a
 *    chain in which each step is the amount of the PE that fetched it; with
 *    blocking AMOs one PE's fetches from one counter increase.
 *  - compare_swap election: every PE tries cswap(init -> my_pe+1) on every
 *    PE's word: exactly one wins, every loser fetched the winner, the word
 *    holds the winner; a cswap with a stale condition changes nothing.
 *  - swap chain (extended types, float and double too): K swaps from every
 *    PE into every PE's word; the fetched values plus the final value are
 *    exactly the initial value and every swapped-in value, each once.
 *  - set/fetch (extended types): each PE sets its own slot on every PE,
 *    then every PE fetches every slot of every PE (blocking and _nbi).
 *  - bitwise (and/or/xor, fetching, non-fetching, _nbi): each PE owns three
 *    bits (one above bit 32 for 64-bit types) of every PE's word and runs
 *    a fixed sequence of operations on them; each fetch shows its own bits
 *    as a local model predicts, and the final word is exact: owned bits as
 *    the model says, all other bits untouched.
 *  - the deprecated names (X-macro over the SHMEM_AMO_DEPR tables, plus
 *    shmem_swap) and the C11 generic selections, with and without a ctx,
 *    including their return types.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define K 40         /* rounds per PE and target */
#define MAXPE 64     /* slots of the global words */
#define BIT_MAXPE 12 /* the bitwise test gives each PE bits p, p+12, p+44 */

static int me, npes;
static shmem_ctx_t ctx_new = SHMEM_CTX_INVALID;
static uint64_t *gath; /* heap: 2*npes*K 8-byte slots, the gather buffer */
static void *heap_words;

/* Modes: plain names; ctx_ names with SHMEM_CTX_DEFAULT, with a created
 * context, and with a context of the team of all PEs in reverse order (team
 * PE k is world PE n-1-k: the ctx_ routines number PEs within the team). */
enum { M_PLAIN, M_CTX_DEFAULT, M_CTX_NEW, M_CTX_TEAM, N_MODES };
static const char *const mode_name[N_MODES] = {"plain", "ctx SHMEM_CTX_DEFAULT", "ctx created",
                                               "ctx of the reversed team"};
static shmem_ctx_t ctx_team = SHMEM_CTX_INVALID;
static shmem_team_t team_rev = SHMEM_TEAM_INVALID;
static shmem_ctx_t mode_ctx(int m)
{
    return m == M_CTX_NEW ? ctx_new : m == M_CTX_TEAM ? ctx_team : SHMEM_CTX_DEFAULT;
}
/* The PE argument that reaches world PE w in mode m. */
#define TPE(m, w) ((m) == M_CTX_TEAM ? npes - 1 - (w) : (w))
static void mode_quiet(int m)
{
    if (m == M_PLAIN)
        shmem_quiet();
    else
        shmem_ctx_quiet(mode_ctx(m));
}

/* One AMO through the plain name or the ctx_ name of mode m. */
#define AMO_F(N, OP, m, ...)                                                                       \
    ((m) == M_PLAIN ? shmem_##N##_atomic_##OP(__VA_ARGS__)                                         \
                    : shmem_ctx_##N##_atomic_##OP(mode_ctx(m), __VA_ARGS__))
#define AMO_V(N, OP, m, ...)                                                                       \
    do {                                                                                           \
        if ((m) == M_PLAIN)                                                                        \
            shmem_##N##_atomic_##OP(__VA_ARGS__);                                                  \
        else                                                                                       \
            shmem_ctx_##N##_atomic_##OP(mode_ctx(m), __VA_ARGS__);                                 \
    } while (0)

/* Words of one type, on the heap or in global data. */
enum { W_FADD, W_ADD, W_INC, W_FINC, W_ELECT, W_SWAP, W_BITS, W_SLOTS, W_COUNT = W_SLOTS + MAXPE };
static const char *const where_name[2] = {"heap", "global"};

#define LD(x) ((long double)(x))

/* Values of the swap/set tests: small integers, plus 2^33 for 8-byte types
 * (exact in double, and exercising the high half of 64-bit integers). */
static uint64_t hi_of(size_t size) { return size == 8 ? (uint64_t)1 << 33 : 0; }
#define VX(T, i) ((T)((uint64_t)(i) | hi_of(sizeof(T))))

/* Inverse of VX: the index, or -1 when v is none of the values. */
static long vx_index(long double v, size_t size, uint64_t limit)
{
    long double lo = (long double)hi_of(size);
    if (!(v >= lo && v <= lo + (long double)limit))
        return -1;
    uint64_t u = (uint64_t)v;
    if ((long double)u != v)
        return -1;
    return (long)(u - hi_of(size));
}

/* a - b in the width of a size-byte type. */
static uint64_t offs(uint64_t a, uint64_t b, size_t size)
{
    uint64_t d = a - b;
    return size == 8 ? d : d & 0xffffffffu;
}

struct chain {
    uint64_t off;
    uint64_t amt;
    int pe;
};
static int chain_cmp(const void *a, const void *b)
{
    const struct chain *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* fetch_add's fetched offsets (pe = slot / K, amount pe+1), sorted: a chain
 * from 0 to total with steps of the fetcher's amount. */
static void check_fadd_chain(struct chain *c, size_t n, uint64_t total, const char *what)
{
    qsort(c, n, sizeof(*c), chain_cmp);
    uint64_t expect = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(c[i].off == expect, "%s: sorted fetch_add value %zu (from PE %d) expected start+%llu "
              "got start+%llu", what, i, c[i].pe, (unsigned long long)expect,
              (unsigned long long)c[i].off);
        expect += c[i].amt;
    }
    CHECK(expect == total, "%s: fetch_add chain ends at start+%llu expected start+%llu", what,
          (unsigned long long)expect, (unsigned long long)total);
}

/* ---- standard types: counters and the compare_swap election ------------- */
#define DEF_STD(T, N)                                                                              \
    static void counters_##N(T *w, int m, int nbi, const char *where)                              \
    {                                                                                              \
        const uint64_t n = (uint64_t)npes, nk = n * K;                                             \
        const T tot_fadd = (T)(K * n * (n + 1) / 2), tot_add = (T)(3 * nk), tot_inc = (T)nk;       \
        const T b_fadd = (T)((T)0 - (T)(tot_fadd / 2)), b_add = (T)((T)0 - (T)(tot_add / 2));      \
        const T b_inc = (T)((T)0 - (T)(tot_inc / 2)), b_finc = (T)((T)0 - (T)(tot_inc / 2 + 1));   \
        char what[160];                                                                            \
        snprintf(what, sizeof(what), "shmem_%s%s_atomic_* (%s%s, %s)",                             \
                 m == M_PLAIN ? "" : "ctx_", #N, mode_name[m], nbi ? ", _nbi" : "", where);        \
        T *fa = malloc(nk * sizeof(T)), *fi = malloc(nk * sizeof(T));                              \
        struct chain *ch = malloc(nk * sizeof(*ch));                                               \
        unsigned char *seen = calloc(nk, 1);                                                       \
        CHECK(fa && fi && ch && seen, "malloc expected memory got NULL");                          \
        w[W_FADD] = b_fadd;                                                                        \
        w[W_ADD] = b_add;                                                                          \
        w[W_INC] = b_inc;                                                                          \
        w[W_FINC] = b_finc;                                                                        \
        shmem_barrier_all();                                                                       \
        for (int k = 0; k < K; k++)                                                                \
            for (int j = 0; j < npes; j++) {                                                       \
                int t = (me + j) % npes;                                                           \
                size_t s = (size_t)t * K + (size_t)k;                                              \
                if (nbi) {                                                                         \
                    AMO_V(N, fetch_add_nbi, m, &fa[s], &w[W_FADD], (T)(me + 1), TPE(m, t));        \
                    AMO_V(N, fetch_inc_nbi, m, &fi[s], &w[W_FINC], TPE(m, t));                     \
                } else {                                                                           \
                    fa[s] = AMO_F(N, fetch_add, m, &w[W_FADD], (T)(me + 1), TPE(m, t));            \
                    fi[s] = AMO_F(N, fetch_inc, m, &w[W_FINC], TPE(m, t));                         \
                }                                                                                  \
                AMO_V(N, add, m, &w[W_ADD], (T)3, TPE(m, t));                                      \
                AMO_V(N, inc, m, &w[W_INC], TPE(m, t));                                            \
            }                                                                                      \
        mode_quiet(m); /* the _nbi fetches are valid from here */                                  \
        T *g = (T *)(void *)gath;                                                                  \
        for (int t = 0; t < npes; t++) {                                                           \
            shmem_putmem(&g[(size_t)me * K], &fa[(size_t)t * K], K * sizeof(T), t);                \
            shmem_putmem(&g[nk + (size_t)me * K], &fi[(size_t)t * K], K * sizeof(T), t);           \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        CHECK(w[W_FADD] == (T)(b_fadd + tot_fadd), "%s: fetch_add counter expected %.21Lg got "    \
              "%.21Lg", what, LD((T)(b_fadd + tot_fadd)), LD(w[W_FADD]));                          \
        CHECK(w[W_ADD] == (T)(b_add + tot_add), "%s: add counter expected %.21Lg got %.21Lg",      \
              what, LD((T)(b_add + tot_add)), LD(w[W_ADD]));                                       \
        CHECK(w[W_INC] == (T)(b_inc + tot_inc), "%s: inc counter expected %.21Lg got %.21Lg",      \
              what, LD((T)(b_inc + tot_inc)), LD(w[W_INC]));                                       \
        CHECK(w[W_FINC] == (T)(b_finc + tot_inc), "%s: fetch_inc counter expected %.21Lg got "     \
              "%.21Lg", what, LD((T)(b_finc + tot_inc)), LD(w[W_FINC]));                           \
        for (size_t i = 0; i < nk; i++) {                                                          \
            uint64_t o = offs((uint64_t)g[nk + i], (uint64_t)b_finc, sizeof(T));                   \
            CHECK(o < nk, "%s: value fetched by fetch_inc %zu of PE %zu expected in [start, "      \
                  "start+%llu) got start+%llu", what, i % K, i / K, (unsigned long long)nk,        \
                  (unsigned long long)o);                                                          \
            CHECK(!seen[o], "%s: fetch_inc value start+%llu fetched twice (again by PE %zu)",      \
                  what, (unsigned long long)o, i / K);                                             \
            seen[o] = 1;                                                                           \
            if (!nbi && i % K != 0) {                                                              \
                uint64_t prev = offs((uint64_t)g[nk + i - 1], (uint64_t)b_finc, sizeof(T));        \
                CHECK(o > prev, "%s: PE %zu's fetch_inc %zu expected above its previous "          \
                      "start+%llu got start+%llu", what, i / K, i % K,                             \
                      (unsigned long long)prev, (unsigned long long)o);                            \
            }                                                                                      \
            ch[i].off = offs((uint64_t)g[i], (uint64_t)b_fadd, sizeof(T));                         \
            ch[i].pe = (int)(i / K);                                                               \
            ch[i].amt = (uint64_t)(i / K) + 1;                                                     \
            if (!nbi && i % K != 0) {                                                              \
                uint64_t prev = offs((uint64_t)g[i - 1], (uint64_t)b_fadd, sizeof(T));             \
                CHECK(ch[i].off > prev, "%s: PE %zu's fetch_add %zu expected above its "           \
                      "previous start+%llu got start+%llu", what, i / K, i % K,                    \
                      (unsigned long long)prev, (unsigned long long)ch[i].off);                    \
            }                                                                                      \
        }                                                                                          \
        check_fadd_chain(ch, nk, (uint64_t)K * n * (n + 1) / 2, what);                             \
        free(seen);                                                                                \
        free(ch);                                                                                  \
        free(fi);                                                                                  \
        free(fa);                                                                                  \
    }                                                                                              \
    static void elect_##N(T *w, int m, int nbi, const char *where)                                 \
    {                                                                                              \
        const T init = (T)((T)0 - (T)7);                                                           \
        char what[160];                                                                            \
        snprintf(what, sizeof(what), "shmem_%s%s_atomic_compare_swap%s election (%s, %s)",         \
                 m == M_PLAIN ? "" : "ctx_", #N, nbi ? "_nbi" : "", mode_name[m], where);          \
        T *r = malloc((size_t)npes * sizeof(T));                                                   \
        CHECK(r != NULL, "malloc expected memory got NULL");                                       \
        w[W_ELECT] = init;                                                                         \
        shmem_barrier_all();                                                                       \
        for (int j = 0; j < npes; j++) {                                                           \
            int t = (me + j) % npes;                                                               \
            if (nbi)                                                                               \
                AMO_V(N, compare_swap_nbi, m, &r[t], &w[W_ELECT], init, (T)(me + 1), TPE(m, t));   \
            else                                                                                   \
                r[t] = AMO_F(N, compare_swap, m, &w[W_ELECT], init, (T)(me + 1), TPE(m, t));       \
        }                                                                                          \
        mode_quiet(m);                                                                             \
        T *g = (T *)(void *)gath;                                                                  \
        for (int t = 0; t < npes; t++)                                                             \
            shmem_putmem(&g[me], &r[t], sizeof(T), t);                                             \
        shmem_barrier_all();                                                                       \
        int winner = -1;                                                                           \
        for (int p = 0; p < npes; p++)                                                             \
            if (g[p] == init) {                                                                    \
                CHECK(winner < 0, "%s: expected one winner got PEs %d and %d", what, winner,       \
                      p);                                                                          \
                winner = p;                                                                        \
            }                                                                                      \
        CHECK(winner >= 0, "%s: expected one winner got none", what);                              \
        for (int p = 0; p < npes; p++)                                                             \
            CHECK(p == winner || g[p] == (T)(winner + 1), "%s: loser PE %d fetched expected "      \
                  "%d (the winner PE %d + 1) got %.21Lg", what, p, winner + 1, winner,             \
                  LD(g[p]));                                                                       \
        CHECK(w[W_ELECT] == (T)(winner + 1), "%s: word expected %d got %.21Lg", what,              \
              winner + 1, LD(w[W_ELECT]));                                                         \
        T stale = (T)5;                                                                            \
        if (nbi) {                                                                                 \
            AMO_V(N, compare_swap_nbi, m, &stale, &w[W_ELECT], init, (T)99, TPE(m, me));           \
            mode_quiet(m);                                                                         \
        } else {                                                                                   \
            stale = AMO_F(N, compare_swap, m, &w[W_ELECT], init, (T)99, TPE(m, me));               \
        }                                                                                          \
        CHECK(stale == (T)(winner + 1) && w[W_ELECT] == (T)(winner + 1),                           \
              "%s: cswap with a stale condition expected fetch %d and no change got fetch "        \
              "%.21Lg, word %.21Lg", what, winner + 1, LD(stale), LD(w[W_ELECT]));                 \
        free(r);                                                                                   \
    }                                                                                              \
    static void std_##N(T *w, const char *where)                                                   \
    {                                                                                              \
        for (int m = 0; m < N_MODES; m++)                                                          \
            for (int nbi = 0; nbi < 2; nbi++) {                                                    \
                counters_##N(w, m, nbi, where);                                                    \
                elect_##N(w, m, nbi, where);                                                       \
            }                                                                                      \
    }
SHMEM_AMO_STD_TYPES(DEF_STD)

/* ---- extended types: swap chain and set/fetch ----------------------------- */
#define DEF_EXT(T, N)                                                                              \
    static T glob_##N[W_COUNT];                                                                    \
    static void swapchain_##N(T *w, int m, int nbi, const char *where)                             \
    {                                                                                              \
        const size_t nk = (size_t)npes * K;                                                        \
        char what[160];                                                                            \
        snprintf(what, sizeof(what), "shmem_%s%s_atomic_swap%s chain (%s, %s)",                    \
                 m == M_PLAIN ? "" : "ctx_", #N, nbi ? "_nbi" : "", mode_name[m], where);          \
        T *r = malloc(nk * sizeof(T));                                                             \
        unsigned char *seen = calloc(nk + 1, 1);                                                   \
        CHECK(r && seen, "malloc expected memory got NULL");                                       \
        w[W_SWAP] = VX(T, 0);                                                                      \
        shmem_barrier_all();                                                                       \
        for (int k = 0; k < K; k++)                                                                \
            for (int j = 0; j < npes; j++) {                                                       \
                int t = (me + j) % npes;                                                           \
                size_t s = (size_t)t * K + (size_t)k;                                              \
                T v = VX(T, 1 + (size_t)me * K + (size_t)k);                                       \
                if (nbi)                                                                           \
                    AMO_V(N, swap_nbi, m, &r[s], &w[W_SWAP], v, TPE(m, t));                        \
                else                                                                               \
                    r[s] = AMO_F(N, swap, m, &w[W_SWAP], v, TPE(m, t));                            \
            }                                                                                      \
        mode_quiet(m);                                                                             \
        T *g = (T *)(void *)gath;                                                                  \
        for (int t = 0; t < npes; t++)                                                             \
            shmem_putmem(&g[(size_t)me * K], &r[(size_t)t * K], K * sizeof(T), t);                 \
        shmem_barrier_all();                                                                       \
        for (size_t i = 0; i <= nk; i++) {                                                         \
            T v = i < nk ? g[i] : w[W_SWAP];                                                       \
            long x = vx_index(LD(v), sizeof(T), nk);                                               \
            CHECK(x >= 0, "%s: %s expected one of the swapped-in values got %.21Lg", what,         \
                  i < nk ? "a fetched value" : "the final value", LD(v));                          \
            CHECK(!seen[x], "%s: value %.21Lg seen twice (%s)", what, LD(v),                       \
                  i < nk ? "fetched" : "final value");                                             \
            seen[x] = 1;                                                                           \
        }                                                                                          \
        free(seen);                                                                                \
        free(r);                                                                                   \
    }                                                                                              \
    static void setfetch_##N(T *w, int m, int round, const char *where)                            \
    {                                                                                              \
        const size_t n = (size_t)npes;                                                             \
        char what[160];                                                                            \
        snprintf(what, sizeof(what), "shmem_%s%s_atomic_set/fetch (%s, %s)",                       \
                 m == M_PLAIN ? "" : "ctx_", #N, mode_name[m], where);                             \
        T *f = malloc(n * n * sizeof(T));                                                          \
        CHECK(f != NULL, "malloc expected memory got NULL");                                       \
        for (int j = 0; j < npes; j++) {                                                           \
            int t = (me + j) % npes;                                                               \
            T v = VX(T, 1 + ((size_t)round * n + (size_t)me) * n + (size_t)t);                     \
            AMO_V(N, set, m, &w[W_SLOTS + me], v, TPE(m, t));                                      \
        }                                                                                          \
        mode_quiet(m);                                                                             \
        shmem_barrier_all();                                                                       \
        for (int t = 0; t < npes; t++)                                                             \
            for (int q = 0; q < npes; q++) {                                                       \
                T e = VX(T, 1 + ((size_t)round * n + (size_t)q) * n + (size_t)t);                  \
                T v = AMO_F(N, fetch, m, &w[W_SLOTS + q], TPE(m, t));                              \
                CHECK(v == e, "%s: fetch of PE %d's slot %d expected %.21Lg got %.21Lg", what,     \
                      t, q, LD(e), LD(v));                                                         \
                AMO_V(N, fetch_nbi, m, &f[(size_t)t * n + (size_t)q], &w[W_SLOTS + q], TPE(m, t)); \
            }                                                                                      \
        mode_quiet(m);                                                                             \
        for (int t = 0; t < npes; t++)                                                             \
            for (int q = 0; q < npes; q++) {                                                       \
                T e = VX(T, 1 + ((size_t)round * n + (size_t)q) * n + (size_t)t);                  \
                T v = f[(size_t)t * n + (size_t)q];                                                \
                CHECK(v == e, "%s: fetch_nbi of PE %d's slot %d expected %.21Lg got %.21Lg",       \
                      what, t, q, LD(e), LD(v));                                                   \
            }                                                                                      \
        shmem_barrier_all(); /* the next round overwrites the slots */                             \
        free(f);                                                                                   \
    }                                                                                              \
    static void ext_##N(T *w, const char *where)                                                   \
    {                                                                                              \
        for (int m = 0; m < N_MODES; m++) {                                                        \
            for (int nbi = 0; nbi < 2; nbi++)                                                      \
                swapchain_##N(w, m, nbi, where);                                                   \
            setfetch_##N(w, m, m, where);                                                          \
        }                                                                                          \
    }
SHMEM_AMO_EXT_TYPES(DEF_EXT)

/* ---- bitwise types ------------------------------------------------------- */
/* Step s of the sequence: operation s%3 (or m, and ~m, xor m), form (s/3)%3
 * (fetching, non-fetching, fetching _nbi), mode s/9. */
#define BIT_STEPS (3 * 3 * N_MODES)
#define BIT_OPERAND(T, s, mask) ((s) % 3 == 1 ? (T) ~(mask) : (mask))
#define BIT_APPLY(s, x, v) ((s) % 3 == 0 ? (x) | (v) : (s) % 3 == 1 ? (x) & (v) : (x) ^ (v))
#define BIT_DO(N, OP, cm, form, fetch, dest, v, t)                                                 \
    do {                                                                                           \
        if ((form) == 0)                                                                           \
            (fetch) = AMO_F(N, fetch_##OP, cm, dest, v, t);                                        \
        else if ((form) == 1)                                                                      \
            AMO_V(N, OP, cm, dest, v, t);                                                          \
        else                                                                                       \
            AMO_V(N, fetch_##OP##_nbi, cm, &(fetch), dest, v, t);                                  \
    } while (0)
static const char *const bit_op_name[3] = {"or", "and", "xor"};
static const char *const bit_form_name[3] = {"fetch_", "", "fetch_..._nbi "};

#define DEF_BIT(T, N)                                                                              \
    static T bmask_##N(int p)                                                                      \
    {                                                                                              \
        uint64_t b = ((uint64_t)1 << p) | ((uint64_t)1 << (p + 12));                               \
        if (sizeof(T) == 8)                                                                        \
            b |= (uint64_t)1 << (p + 44);                                                          \
        return (T)b;                                                                               \
    }                                                                                              \
    /* Own bits after the whole sequence, computed locally. */                                     \
    static T bmodel_##N(T start, T mask)                                                           \
    {                                                                                              \
        T x = (T)(start & mask);                                                                   \
        for (int s = 0; s < BIT_STEPS; s++)                                                        \
            x = (T)(BIT_APPLY(s, x, BIT_OPERAND(T, s, mask)) & mask);                              \
        return x;                                                                                  \
    }                                                                                              \
    static void bits_##N(T *w, const char *where)                                                  \
    {                                                                                              \
        if (npes > BIT_MAXPE)                                                                      \
            return;                                                                                \
        const T init = (T)test_mix(0xb175u + sizeof(T));                                           \
        const T mask = bmask_##N(me);                                                              \
        T all = 0, mine = (T)(init & mask);                                                        \
        for (int p = 0; p < npes; p++)                                                             \
            all = (T)(all | bmask_##N(p));                                                         \
        T *f = malloc((size_t)npes * sizeof(T));                                                   \
        CHECK(f != NULL, "malloc expected memory got NULL");                                       \
        w[W_BITS] = init;                                                                          \
        shmem_barrier_all();                                                                       \
        for (int s = 0; s < BIT_STEPS; s++) {                                                      \
            int cm = s / 9, form = (s / 3) % 3;                                                    \
            T v = BIT_OPERAND(T, s, mask);                                                         \
            for (int j = 0; j < npes; j++) {                                                       \
                int t = (me + j) % npes;                                                           \
                if (s % 3 == 0)                                                                    \
                    BIT_DO(N, or, cm, form, f[t], &w[W_BITS], v, TPE(cm, t));                      \
                else if (s % 3 == 1)                                                               \
                    BIT_DO(N, and, cm, form, f[t], &w[W_BITS], v, TPE(cm, t));                     \
                else                                                                               \
                    BIT_DO(N, xor, cm, form, f[t], &w[W_BITS], v, TPE(cm, t));                     \
            }                                                                                      \
            if (form == 2)                                                                         \
                mode_quiet(cm);                                                                    \
            if (form != 1)                                                                         \
                for (int t = 0; t < npes; t++)                                                     \
                    CHECK((T)(f[t] & mask) == mine, "shmem_%s%s_atomic_%s%s (%s, %s) step %d "     \
                          "on PE %d: own bits of the fetched value expected 0x%llx got 0x%llx",    \
                          cm == M_PLAIN ? "" : "ctx_", #N, bit_form_name[form],                    \
                          bit_op_name[s % 3], mode_name[cm], where, s, t,                          \
                          (unsigned long long)mine, (unsigned long long)(T)(f[t] & mask));         \
            mine = (T)(BIT_APPLY(s, mine, v) & mask);                                              \
        }                                                                                          \
        for (int cm = 0; cm < N_MODES; cm++)                                                       \
            mode_quiet(cm);                                                                        \
        shmem_barrier_all();                                                                       \
        T expect = (T)(init & (T)~all);                                                            \
        for (int p = 0; p < npes; p++)                                                             \
            expect = (T)(expect | bmodel_##N(init, bmask_##N(p)));                                 \
        CHECK(w[W_BITS] == expect, "shmem_%s_atomic_{and,or,xor} (%s): final word expected "       \
              "0x%llx got 0x%llx", #N, where, (unsigned long long)expect,                          \
              (unsigned long long)w[W_BITS]);                                                      \
        free(f);                                                                                   \
        shmem_barrier_all();                                                                       \
    }
SHMEM_AMO_BIT_TYPES(DEF_BIT)

/* ---- running every type on the heap and on globals ------------------------ */
#define RUN_STD(T, N) std_##N(where ? glob_##N : (T *)heap_words, where_name[where]);
#define RUN_EXT(T, N) ext_##N(where ? glob_##N : (T *)heap_words, where_name[where]);
#define RUN_BIT(T, N) bits_##N(where ? glob_##N : (T *)heap_words, where_name[where]);

/* ---- deprecated names ------------------------------------------------------ */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define DEF_DEPR_STD(T, N)                                                                         \
    static T dglob_##N[8];                                                                         \
    static void depr_std_##N(T *w, const char *where)                                              \
    {                                                                                              \
        const T n = (T)npes;                                                                       \
        T last_fa[MAXPE] = {0}, last_fi[MAXPE] = {0};                                              \
        for (int i = 0; i < 5; i++)                                                                \
            w[i] = 0;                                                                              \
        w[4] = (T)-1;                                                                              \
        shmem_barrier_all();                                                                       \
        for (int k = 0; k < K; k++)                                                                \
            for (int j = 0; j < npes; j++) {                                                       \
                int t = (me + j) % npes;                                                           \
                T a = shmem_##N##_fadd(&w[0], (T)(me + 1), t);                                     \
                T b = shmem_##N##_finc(&w[1], t);                                                  \
                shmem_##N##_inc(&w[2], t);                                                         \
                shmem_##N##_add(&w[3], (T)3, t);                                                   \
                CHECK(a >= 0 && a < (T)(K * n * (n + 1) / 2) && (k == 0 || a > last_fa[t]),        \
                      "shmem_%s_fadd (%s) on PE %d: fetched %lld, previous %lld", #N, where, t,    \
                      (long long)a, k ? (long long)last_fa[t] : -1LL);                             \
                CHECK(b >= 0 && b < (T)(K * n) && (k == 0 || b > last_fi[t]),                      \
                      "shmem_%s_finc (%s) on PE %d: fetched %lld, previous %lld", #N, where, t,    \
                      (long long)b, k ? (long long)last_fi[t] : -1LL);                             \
                last_fa[t] = a;                                                                    \
                last_fi[t] = b;                                                                    \
            }                                                                                      \
        T r[MAXPE];                                                                                \
        for (int j = 0; j < npes; j++) {                                                           \
            int t = (me + j) % npes;                                                               \
            r[t] = shmem_##N##_cswap(&w[4], (T)-1, (T)(me + 1), t);                                \
        }                                                                                          \
        T *g = (T *)(void *)gath;                                                                  \
        for (int t = 0; t < npes; t++)                                                             \
            shmem_putmem(&g[me], &r[t], sizeof(T), t);                                             \
        shmem_barrier_all();                                                                       \
        CHECK_EQ("shmem_" #N "_fadd counter", K * n * (n + 1) / 2, w[0]);                          \
        CHECK_EQ("shmem_" #N "_finc counter", K * n, w[1]);                                        \
        CHECK_EQ("shmem_" #N "_inc counter", K * n, w[2]);                                         \
        CHECK_EQ("shmem_" #N "_add counter", 3 * K * n, w[3]);                                     \
        int winner = -1;                                                                           \
        for (int p = 0; p < npes; p++)                                                             \
            if (g[p] == (T)-1) {                                                                   \
                CHECK(winner < 0, "shmem_%s_cswap (%s): expected one winner got PEs %d and %d",    \
                      #N, where, winner, p);                                                       \
                winner = p;                                                                        \
            }                                                                                      \
        CHECK(winner >= 0, "shmem_%s_cswap (%s): expected one winner got none", #N, where);        \
        for (int p = 0; p < npes; p++)                                                             \
            CHECK(p == winner || g[p] == (T)(winner + 1), "shmem_%s_cswap (%s): PE %d fetched "    \
                  "expected %d got %lld", #N, where, p, winner + 1, (long long)g[p]);              \
        CHECK_EQ("word after shmem_" #N "_cswap", winner + 1, w[4]);                               \
        shmem_barrier_all();                                                                       \
    }
SHMEM_AMO_DEPR_STD_TYPES(DEF_DEPR_STD)

#define DEF_DEPR_EXT(T, N)                                                                         \
    static T dxglob_##N[MAXPE + 1];                                                                \
    static void depr_ext_##N(T *w, const char *where)                                              \
    {                                                                                              \
        const size_t nk = (size_t)npes * K;                                                        \
        T r[K];                                                                                    \
        unsigned char *seen = calloc(nk + 1, 1);                                                   \
        CHECK(seen != NULL, "malloc expected memory got NULL");                                    \
        w[MAXPE] = VX(T, 0);                                                                       \
        shmem_barrier_all();                                                                       \
        for (int j = 0; j < npes; j++) {                                                           \
            int t = (me + j) % npes;                                                               \
            shmem_##N##_set(&w[me], VX(T, 1 + (size_t)me * (size_t)npes + (size_t)t), t);          \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        for (int t = 0; t < npes; t++)                                                             \
            for (int q = 0; q < npes; q++) {                                                       \
                T e = VX(T, 1 + (size_t)q * (size_t)npes + (size_t)t);                             \
                T v = shmem_##N##_fetch(&w[q], t);                                                 \
                CHECK(v == e, "shmem_%s_fetch (%s) of PE %d's slot %d expected %.21Lg got %.21Lg", \
                      #N, where, t, q, LD(e), LD(v));                                              \
            }                                                                                      \
        /* swap chain on PE 0's word: the fetched values plus the final one */                     \
        /* are the initial value and every swapped-in value, each once. */                         \
        for (int k = 0; k < K; k++)                                                                \
            r[k] = shmem_##N##_swap(&w[MAXPE], VX(T, 1 + (size_t)me * K + (size_t)k), 0);          \
        shmem_putmem((T *)(void *)gath + (size_t)me * K, r, K * sizeof(T), 0);                     \
        shmem_barrier_all();                                                                       \
        if (me == 0)                                                                               \
            for (size_t i = 0; i <= nk; i++) {                                                     \
                T v = i < nk ? ((T *)(void *)gath)[i] : w[MAXPE];                                  \
                long x = vx_index(LD(v), sizeof(T), nk);                                           \
                CHECK(x >= 0 && !seen[x], "shmem_%s_swap (%s) chain: value %.21Lg unexpected "     \
                      "or seen twice", #N, where, LD(v));                                          \
                seen[x] = 1;                                                                       \
            }                                                                                      \
        shmem_barrier_all();                                                                       \
        free(seen);                                                                                \
    }
SHMEM_AMO_DEPR_EXT_TYPES(DEF_DEPR_EXT)

static long swap_glob;
/* The untyped symbol from before 1.0, as a program compiled before C11 calls
 * it: in C11 shmem.h makes shmem_swap the deprecated generic (whose
 * selection generic_dispatch checks) and declares no such routine. */
long(shmem_swap)(long *dest, long value, int pe);

static void test_deprecated(void)
{
    for (int where = 0; where < 2; where++) {
#define RUN_DEPR_STD(T, N) depr_std_##N(where ? dglob_##N : (T *)heap_words, where_name[where]);
#define RUN_DEPR_EXT(T, N) depr_ext_##N(where ? dxglob_##N : (T *)heap_words, where_name[where]);
        SHMEM_AMO_DEPR_STD_TYPES(RUN_DEPR_STD)
        SHMEM_AMO_DEPR_EXT_TYPES(RUN_DEPR_EXT)
    }
    /* The untyped shmem_swap (long): a chain on PE 0's global word. */
    swap_glob = -1;
    shmem_barrier_all();
    long got[K];
    for (int k = 0; k < K; k++)
        got[k] = (shmem_swap)(&swap_glob, (long)me * K + k, 0);
    shmem_long_put((long *)(void *)gath + (size_t)me * K, got, K, 0);
    shmem_barrier_all();
    if (me == 0) {
        size_t nk = (size_t)npes * K;
        unsigned char *seen = calloc(nk + 1, 1);
        CHECK(seen != NULL, "malloc expected memory got NULL");
        for (size_t i = 0; i <= nk; i++) {
            long v = i < nk ? ((long *)(void *)gath)[i] : swap_glob;
            CHECK(v >= -1 && v < (long)nk && !seen[v + 1],
                  "shmem_swap chain: value %ld unexpected or seen twice", v);
            seen[v + 1] = 1;
        }
        free(seen);
    }
    shmem_barrier_all();
}
#pragma GCC diagnostic pop

/* ---- C11 generic selections ------------------------------------------------ */
static long gen_l[8];
static int gen_i[2];
static unsigned long long gen_ull[4];
static unsigned int gen_u[4];
static float gen_f[MAXPE];
static double gen_d[2];

#define IS_TYPE(e, T) _Generic((e), T: 1, default: 0)

static void test_generic(void)
{
    shmem_ctx_t c = ctx_new;
    const long n = npes;
    /* Return types follow the argument type (not evaluated). */
    _Static_assert(IS_TYPE(shmem_atomic_fetch(&gen_f[0], 0), float), "fetch(float *) is float");
    _Static_assert(IS_TYPE(shmem_atomic_fetch(c, &gen_d[0], 0), double), "fetch(ctx, double *)");
    _Static_assert(IS_TYPE(shmem_atomic_fetch_add(&gen_ull[0], 1ull, 0), unsigned long long),
                   "fetch_add(unsigned long long *)");
    _Static_assert(IS_TYPE(shmem_atomic_fetch_inc(c, &gen_i[0], 0), int), "fetch_inc(ctx, int *)");
    _Static_assert(IS_TYPE(shmem_atomic_swap(&gen_d[0], 1.0, 0), double), "swap(double *)");
    _Static_assert(IS_TYPE(shmem_atomic_fetch_xor(&gen_u[0], 1u, 0), unsigned int),
                   "fetch_xor(unsigned int *)");
    _Static_assert(IS_TYPE(shmem_atomic_compare_swap(c, &gen_l[0], 0L, 1L, 0), long),
                   "compare_swap(ctx, long *)");

    memset(gen_l, 0, sizeof(gen_l));
    memset(gen_ull, 0, sizeof(gen_ull));
    gen_i[0] = 0;
    gen_u[0] = 0;
    gen_d[0] = -1.0;
    shmem_barrier_all();
    int ci[MAXPE];
    unsigned int fo[MAXPE];
    double sw[MAXPE];
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < npes; j++) {
            int t = (me + j) % npes;
            long fa = shmem_atomic_fetch_add(&gen_l[0], (long)me + 1, t);
            long fb = shmem_atomic_fetch_add(c, &gen_l[1], (long)me + 1, t);
            shmem_atomic_add(&gen_l[2], 2L, t);
            shmem_atomic_add(c, &gen_l[3], 2L, t);
            shmem_atomic_inc(&gen_l[4], t);
            shmem_atomic_inc(c, &gen_l[5], t);
            long f6 = shmem_atomic_fetch_inc(&gen_l[6], t);
            long f7 = shmem_atomic_fetch_inc(c, &gen_l[7], t);
            unsigned long long fu_a = 1, fu_b = 1;
            shmem_atomic_fetch_add_nbi(&fu_a, &gen_ull[0], 5ull, t);
            shmem_atomic_fetch_inc_nbi(c, &fu_b, &gen_ull[1], t);
            shmem_quiet();
            shmem_ctx_quiet(c);
            CHECK(fa >= 0 && fa < 8 * n * (n + 1) / 2 && fb >= 0 && fb < 8 * n * (n + 1) / 2 &&
                      f6 >= 0 && f6 < 8 * n && f7 >= 0 && f7 < 8 * n,
                  "generic fetch_add/fetch_inc on PE %d fetched out of range: %ld %ld %ld %ld", t,
                  fa, fb, f6, f7);
            CHECK(fu_a % 5 == 0 && fu_a < 40ull * (unsigned long long)n,
                  "generic fetch_add_nbi(5) on PE %d fetched %llu expected a multiple of 5 below "
                  "%lld", t, fu_a, (long long)(40 * n));
            CHECK(fu_b < 8ull * (unsigned long long)n,
                  "generic fetch_inc_nbi(ctx) on PE %d fetched %llu expected below %lld", t, fu_b,
                  (long long)(8 * n));
        }
    /* compare_swap election (int, with and without ctx), or, xor, swap, set. */
    for (int j = 0; j < npes; j++) {
        int t = (me + j) % npes;
        ci[t] = (me % 2) ? shmem_atomic_compare_swap(c, &gen_i[0], 0, me + 1, t)
                         : shmem_atomic_compare_swap(&gen_i[0], 0, me + 1, t);
        fo[t] = (me % 2) ? shmem_atomic_fetch_or(c, &gen_u[0], 1u << me, t)
                         : shmem_atomic_fetch_or(&gen_u[0], 1u << me, t);
        CHECK((fo[t] & (1u << me)) == 0, "generic fetch_or on PE %d: own bit already set in 0x%x",
              t, fo[t]);
        shmem_atomic_xor(&gen_u[0], 1u << (me + 16), t); /* own high bit: 0 -> 1 */
        shmem_quiet();
        shmem_atomic_fetch_xor_nbi(c, &fo[t], &gen_u[0], 1u << (me + 16), t); /* 1 -> 0 */
        shmem_ctx_quiet(c);
        CHECK((fo[t] & (1u << (me + 16))) != 0,
              "generic fetch_xor_nbi(ctx) on PE %d: own bit 16+%d expected set got 0x%x", t, me,
              fo[t]);
        shmem_atomic_or(c, &gen_u[0], 1u << (me + 16), t); /* 0 -> 1 */
        sw[t] = shmem_atomic_swap(&gen_d[0], (double)me + 0.5, t);
        shmem_atomic_set(c, &gen_f[me], (float)me + 0.25f, t);
    }
    shmem_quiet();
    shmem_ctx_quiet(c);
    /* Gather the election's and the swaps' fetched values to each target. */
    int *gi = (int *)(void *)gath;
    double *gd = (double *)(void *)(gath + (size_t)npes * K);
    for (int t = 0; t < npes; t++) {
        shmem_int_p(&gi[me], ci[t], t);
        shmem_double_p(&gd[me], sw[t], t);
    }
    shmem_barrier_all();
    CHECK_EQ("generic fetch_add counter", 8 * n * (n + 1) / 2, gen_l[0]);
    CHECK_EQ("generic fetch_add(ctx) counter", 8 * n * (n + 1) / 2, gen_l[1]);
    CHECK_EQ("generic add counter", 16 * n, gen_l[2]);
    CHECK_EQ("generic add(ctx) counter", 16 * n, gen_l[3]);
    CHECK_EQ("generic inc counter", 8 * n, gen_l[4]);
    CHECK_EQ("generic inc(ctx) counter", 8 * n, gen_l[5]);
    CHECK_EQ("generic fetch_inc counter", 8 * n, gen_l[6]);
    CHECK_EQ("generic fetch_inc(ctx) counter", 8 * n, gen_l[7]);
    CHECK_EQ("generic fetch_add_nbi counter", 40 * n, gen_ull[0]);
    CHECK_EQ("generic fetch_inc_nbi(ctx) counter", 8 * n, gen_ull[1]);
    unsigned int all = 0;
    for (int p = 0; p < npes; p++)
        all |= 1u << p | 1u << (p + 16);
    CHECK_EQ("generic or/xor word", all, gen_u[0]);
    for (int q = 0; q < npes; q++)
        CHECK(gen_f[q] == (float)q + 0.25f, "generic set(ctx, float) slot %d expected %g got %g", q,
              (double)q + 0.25, (double)gen_f[q]);
    int winner = -1;
    for (int p = 0; p < npes; p++)
        if (gi[p] == 0) {
            CHECK(winner < 0, "generic compare_swap: expected one winner got %d and %d", winner, p);
            winner = p;
        }
    CHECK(winner >= 0, "generic compare_swap: expected one winner got none");
    for (int p = 0; p < npes; p++)
        CHECK(p == winner || gi[p] == winner + 1, "generic compare_swap: PE %d fetched expected %d "
              "got %d", p, winner + 1, gi[p]);
    CHECK_EQ("generic compare_swap word", winner + 1, gen_i[0]);
    /* swap(double): the fetched values and the final one are -1 and each p + 0.5, once. */
    unsigned char seen[MAXPE + 1] = {0};
    for (int i = 0; i <= npes; i++) {
        double v = i < npes ? gd[i] : gen_d[0];
        int x = v == -1.0 ? 0 : (v >= 0.5 && v < npes && v - (int)v == 0.5) ? (int)v + 1 : -1;
        CHECK(x >= 0 && !seen[x], "generic swap(double): value %g unexpected or seen twice", v);
        seen[x] = 1;
    }
    const float *cf = &gen_f[(me + 1) % npes]; /* the source is const TYPE * */
    float ff = shmem_atomic_fetch(c, cf, (me + 1) % npes);
    CHECK(ff == (float)((me + 1) % npes) + 0.25f, "generic fetch(ctx, float) expected %g got %g",
          (double)((me + 1) % npes) + 0.25, (double)ff);
    double dd = 7.0;
    shmem_atomic_fetch_nbi(&dd, &gen_d[0], me);
    shmem_quiet();
    CHECK(dd == gen_d[0], "generic fetch_nbi(double) expected %g got %g", gen_d[0], dd);
    int cs = 5;
    shmem_atomic_compare_swap_nbi(c, &cs, &gen_i[0], winner + 1, -3, me);
    shmem_ctx_quiet(c);
    CHECK(cs == winner + 1 && gen_i[0] == -3, "generic compare_swap_nbi(ctx) expected fetch %d and "
          "word -3 got %d and %d", winner + 1, cs, gen_i[0]);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPE, "this test supports up to %d PEs got %d", MAXPE, npes);
    CHECK_EQ("shmem_ctx_create(0) return", 0, shmem_ctx_create(0, &ctx_new));
    CHECK(ctx_new != SHMEM_CTX_INVALID,
          "shmem_ctx_create expected a context got SHMEM_CTX_INVALID");
    CHECK_EQ("shmem_team_split_strided(world reversed: start n-1, stride -1) return", 0,
             shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &team_rev));
    CHECK_EQ("shmem_team_create_ctx(reversed team) return", 0,
             shmem_team_create_ctx(team_rev, 0, &ctx_team));
    CHECK_EQ("my PE in the reversed team", npes - 1 - me, shmem_team_my_pe(team_rev));
    gath = shmem_malloc(2 * (size_t)npes * K * sizeof(uint64_t));
    heap_words = shmem_malloc(W_COUNT * sizeof(uint64_t));
    CHECK(gath != NULL && heap_words != NULL, "shmem_malloc expected memory got NULL");

    for (int where = 0; where < 2; where++) {
        SHMEM_AMO_STD_TYPES(RUN_STD)
        SHMEM_AMO_EXT_TYPES(RUN_EXT)
        SHMEM_AMO_BIT_TYPES(RUN_BIT)
    }
    test_deprecated();
    test_generic();

    shmem_ctx_destroy(ctx_team);
    shmem_team_destroy(team_rev);
    shmem_ctx_destroy(ctx_new);
    shmem_free(heap_words);
    shmem_free(gath);
    if (me == 0)
        printf("amo: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
