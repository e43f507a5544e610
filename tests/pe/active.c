/*
 * active.c - the deprecated active-set collectives (PE_start, logPE_stride,
 * PE_size, pSync): shmem_barrier, shmem_sync, broadcast32/64,
 * collect32/64, fcollect32/64, alltoall32/64, alltoalls32/64 and
 * TYPE_OP_to_all for every type of the SHMEM_TO_ALL_* tables (X-macros).
 *
 * Active sets: (0, 0, n) all PEs, (0, 1, (n+1)/2) the even PEs,
 * (1, 0, n-1) all but PE 0 (n > 1), (0, 2, (n+3)/4) every fourth PE,
 * (1, 1, n/2) the odd PEs.
 * Members call, the other PEs do not.
 *
 * Values are functions of (call, world PE of the origin, index) that each
 * PE computes itself; checks are exact. broadcast leaves the root's dest
 * untouched (unlike the 1.5 team form); collect takes a different count on
 * each PE (0 on some); alltoalls with dst and sst each 1, 2, 3; to_all with
 * nreduce 0, 1, 7, 1001, out of place and in place, with pWrk of the
 * size the spec asks for (max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE)).
 *
 * pSync: every routine gets arrays of its own SHMEM_*_SYNC_SIZE, set to
 * SHMEM_SYNC_VALUE, with guard words after them. Each active set
 * alternates between two pSync arrays per routine: a PE may start call k+2
 * of a routine only after every member has entered call k+1, so k's array
 * is free by then (with one array, a faster PE may already count on a
 * neighbour's pSync for the next call while the neighbour checks it). Two
 * passes:
 *  - checked: after every call all PEs meet in shmem_barrier_all, then
 *    every element of the pSync just used must be SHMEM_SYNC_VALUE again
 *    and the guards intact;
 *  - back to back: no barrier between calls; the pSyncs are checked after
 *    a final shmem_barrier_all. Here also 100 shmem_barrier and 100
 *    shmem_sync in a row on one pSync each (allowed for consecutive calls
 *    on the same active set).
 */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

_Static_assert(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE, "_SHMEM_SYNC_VALUE");
_Static_assert(_SHMEM_BARRIER_SYNC_SIZE == SHMEM_BARRIER_SYNC_SIZE, "_SHMEM_BARRIER_SYNC_SIZE");
_Static_assert(_SHMEM_BCAST_SYNC_SIZE == SHMEM_BCAST_SYNC_SIZE, "_SHMEM_BCAST_SYNC_SIZE");
_Static_assert(_SHMEM_REDUCE_SYNC_SIZE == SHMEM_REDUCE_SYNC_SIZE, "_SHMEM_REDUCE_SYNC_SIZE");
_Static_assert(_SHMEM_COLLECT_SYNC_SIZE == SHMEM_COLLECT_SYNC_SIZE, "_SHMEM_COLLECT_SYNC_SIZE");
_Static_assert(_SHMEM_ALLTOALL_SYNC_SIZE == SHMEM_ALLTOALL_SYNC_SIZE, "_SHMEM_ALLTOALL_SYNC_SIZE");
_Static_assert(_SHMEM_ALLTOALLS_SYNC_SIZE == SHMEM_ALLTOALLS_SYNC_SIZE,
               "_SHMEM_ALLTOALLS_SYNC_SIZE");
_Static_assert(_SHMEM_SYNC_SIZE == SHMEM_SYNC_SIZE, "_SHMEM_SYNC_SIZE");
_Static_assert(_SHMEM_REDUCE_MIN_WRKDATA_SIZE == SHMEM_REDUCE_MIN_WRKDATA_SIZE,
               "_SHMEM_REDUCE_MIN_WRKDATA_SIZE");
_Static_assert(SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 1, "SHMEM_REDUCE_MIN_WRKDATA_SIZE");

#define MAXPES 16
#define GUARD 3
#define NE_MAX 1001
#define PS_GUARD 4 /* guard words after each pSync */
#define PS_GUARD_VALUE 0x5a5a5a5a5a5a5a5aL

static int me, npes;
static char *S, *D; /* symmetric source and dest */
static void *W;     /* symmetric pWrk */
static char what[256];

/* ---- active sets and their pSyncs ---------------------------------------- */
enum {
    PS_BARRIER,
    PS_SYNC,
    PS_BCAST,
    PS_COLLECT,
    PS_FCOLLECT,
    PS_ALLTOALL,
    PS_ALLTOALLS,
    PS_REDUCE,
    NPS
};
static const int ps_size[NPS] = {SHMEM_BARRIER_SYNC_SIZE,   SHMEM_BARRIER_SYNC_SIZE,
                                 SHMEM_BCAST_SYNC_SIZE,     SHMEM_COLLECT_SYNC_SIZE,
                                 SHMEM_COLLECT_SYNC_SIZE,   SHMEM_ALLTOALL_SYNC_SIZE,
                                 SHMEM_ALLTOALLS_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE};
static const char *const ps_name[NPS] = {"barrier",  "sync",     "broadcast", "collect",
                                         "fcollect", "alltoall", "alltoalls", "to_all"};

typedef struct {
    int start, log, size; /* the active set */
    int stride, in, idx;  /* 1 << log; am I a member, my index */
    long *ps[NPS][2];     /* two pSyncs per routine */
    int parity[NPS];
    uint64_t seq; /* calls on this set, the same on every member */
    char name[48];
} aset_t;

#define NSETS 5
static aset_t sets[NSETS];
static int nsets;
static int checked; /* pass 1: barrier_all and pSync check after each call */

static int set_pe(const aset_t *a, int k)
{
    return a->start + k * a->stride;
}

static void add_set(int start, int log, int size, const char *name)
{
    if (size < 1)
        return;
    aset_t *a = &sets[nsets++];
    memset(a, 0, sizeof(*a));
    a->start = start;
    a->log = log;
    a->size = size;
    a->stride = 1 << log;
    int rel = me - start;
    a->in = rel >= 0 && rel % a->stride == 0 && rel / a->stride < size;
    a->idx = a->in ? rel / a->stride : -1;
    snprintf(a->name, sizeof(a->name), "%s (%d, %d, %d)", name, start, log, size);
    for (int k = 0; k < NPS; k++)
        for (int p = 0; p < 2; p++) {
            long *ps = shmem_malloc(sizeof(long) * (size_t)(ps_size[k] + PS_GUARD));
            CHECK(ps != NULL, "shmem_malloc of a pSync expected memory got NULL");
            for (int i = 0; i < ps_size[k]; i++)
                ps[i] = SHMEM_SYNC_VALUE;
            for (int i = 0; i < PS_GUARD; i++)
                ps[ps_size[k] + i] = PS_GUARD_VALUE;
            a->ps[k][p] = ps;
        }
}

static void check_psync(const aset_t *a, int k, int p, const char *after)
{
    const long *ps = a->ps[k][p];
    for (int i = 0; i < ps_size[k]; i++)
        CHECK(ps[i] == SHMEM_SYNC_VALUE,
              "after %s on %s: %s pSync[%d] (of %d) expected SHMEM_SYNC_VALUE %ld got %ld", after,
              a->name, ps_name[k], i, ps_size[k], (long)SHMEM_SYNC_VALUE, ps[i]);
    for (int i = 0; i < PS_GUARD; i++)
        CHECK(ps[ps_size[k] + i] == PS_GUARD_VALUE,
              "after %s on %s: the word %d past the %d-long %s pSync was written (%lx)", after,
              a->name, i, ps_size[k], ps_name[k], ps[ps_size[k] + i]);
}

/* The pSync for the next call of routine k. */
static long *next_ps(aset_t *a, int k)
{
    return a->ps[k][a->parity[k]];
}

/* Called by every PE after each call (members or not): the next call of
 * routine k takes the other pSync. Checked pass: once every PE has
 * returned, the pSync just used is back at SHMEM_SYNC_VALUE. */
static void after_call(aset_t *a, int k)
{
    if (checked) {
        shmem_barrier_all();
        check_psync(a, k, a->parity[k], what);
    }
    a->parity[k] ^= 1;
}

static uint64_t hv(uint64_t salt, uint64_t a, uint64_t b, uint64_t i)
{
    return test_hash4(salt, a, b, i);
}

/* ---- 32- and 64-bit data collectives --------------------------------------- */
#define SENT32 0xA6A6A6A6u
#define SENT64 0xA6A6A6A6A6A6A6A6ull

#define DEF_SIZED(BITS, T, SENT)                                                                   \
    static T v##BITS(uint64_t h)                                                                   \
    {                                                                                              \
        return (T)(h | 1);                                                                         \
    } /* odd: never the sentinel */                                                                \
    static void expect##BITS(const T *buf, size_t i, T want, const char *which, int line)          \
    {                                                                                              \
        if (buf[i] != want)                                                                        \
            check_fail(__FILE__, line, "%s: %s[%zu] expected %#jx got %#jx", what, which, i,       \
                       (uintmax_t)want, (uintmax_t)buf[i]);                                        \
    }                                                                                              \
    static void bcast##BITS(aset_t *a, size_t ne, int root)                                        \
    {                                                                                              \
        uint64_t salt = ++a->seq;                                                                  \
        snprintf(what, sizeof(what), "shmem_broadcast" #BITS " on %s, nelems %zu, root %d",        \
                 a->name, ne, root);                                                               \
        if (a->in) {                                                                               \
            T *s = (T *)(void *)S, *d = (T *)(void *)D;                                            \
            for (size_t i = 0; i < ne + GUARD; i++) {                                              \
                s[i] = v##BITS(hv(salt, (uint64_t)me, 0, i));                                      \
                d[i] = SENT;                                                                       \
            }                                                                                      \
            shmem_broadcast##BITS(d, s, ne, root, a->start, a->log, a->size,                       \
                                  next_ps(a, PS_BCAST));                                           \
            int rw = set_pe(a, root);                                                              \
            for (size_t i = 0; i < ne + GUARD; i++) {                                              \
                /* The root's dest is not written (active-set form). */                            \
                T want = a->idx != root && i < ne ? v##BITS(hv(salt, (uint64_t)rw, 0, i)) : SENT;  \
                expect##BITS(d, i, want, a->idx == root ? "root's dest" : "dest", __LINE__);       \
                expect##BITS(s, i, v##BITS(hv(salt, (uint64_t)me, 0, i)), "source", __LINE__);     \
            }                                                                                      \
        }                                                                                          \
        after_call(a, PS_BCAST);                                                                   \
    }                                                                                              \
    static size_t ccnt##BITS(size_t ne, int k)                                                     \
    {                                                                                              \
        return k % 3 == 2 ? 0 : ne + (size_t)k;                                                    \
    }                                                                                              \
    static void collect##BITS(aset_t *a, size_t ne)                                                \
    {                                                                                              \
        uint64_t salt = ++a->seq;                                                                  \
        snprintf(what, sizeof(what),                                                               \
                 "shmem_collect" #BITS " on %s, nelems %zu + index "                               \
                 "(0 if index %% 3 == 2)",                                                         \
                 a->name, ne);                                                                     \
        if (a->in) {                                                                               \
            T *s = (T *)(void *)S, *d = (T *)(void *)D;                                            \
            size_t mine = ccnt##BITS(ne, a->idx), total = 0;                                       \
            for (int k = 0; k < a->size; k++)                                                      \
                total += ccnt##BITS(ne, k);                                                        \
            for (size_t i = 0; i < mine + GUARD; i++)                                              \
                s[i] = v##BITS(hv(salt, (uint64_t)me, 0, i));                                      \
            for (size_t i = 0; i < total + GUARD; i++)                                             \
                d[i] = SENT;                                                                       \
            shmem_collect##BITS(d, s, mine, a->start, a->log, a->size, next_ps(a, PS_COLLECT));    \
            size_t off = 0;                                                                        \
            for (int k = 0; k < a->size; k++) {                                                    \
                for (size_t i = 0; i < ccnt##BITS(ne, k); i++)                                     \
                    expect##BITS(d, off + i, v##BITS(hv(salt, (uint64_t)set_pe(a, k), 0, i)),      \
                                 "dest", __LINE__);                                                \
                off += ccnt##BITS(ne, k);                                                          \
            }                                                                                      \
            for (size_t i = total; i < total + GUARD; i++)                                         \
                expect##BITS(d, i, SENT, "dest", __LINE__);                                        \
        }                                                                                          \
        after_call(a, PS_COLLECT);                                                                 \
    }                                                                                              \
    static void fcollect##BITS(aset_t *a, size_t ne)                                               \
    {                                                                                              \
        uint64_t salt = ++a->seq;                                                                  \
        snprintf(what, sizeof(what), "shmem_fcollect" #BITS " on %s, nelems %zu", a->name, ne);    \
        if (a->in) {                                                                               \
            T *s = (T *)(void *)S, *d = (T *)(void *)D;                                            \
            size_t total = ne * (size_t)a->size;                                                   \
            for (size_t i = 0; i < ne + GUARD; i++)                                                \
                s[i] = v##BITS(hv(salt, (uint64_t)me, 0, i));                                      \
            for (size_t i = 0; i < total + GUARD; i++)                                             \
                d[i] = SENT;                                                                       \
            shmem_fcollect##BITS(d, s, ne, a->start, a->log, a->size, next_ps(a, PS_FCOLLECT));    \
            for (size_t p = 0; p < total + GUARD; p++)                                             \
                expect##BITS(                                                                      \
                    d, p,                                                                          \
                    p < total ? v##BITS(hv(salt, (uint64_t)set_pe(a, (int)(p / ne)), 0, p % ne))   \
                              : SENT,                                                              \
                    "dest", __LINE__);                                                             \
        }                                                                                          \
        after_call(a, PS_FCOLLECT);                                                                \
    }                                                                                              \
    static void alltoall##BITS(aset_t *a, size_t ne)                                               \
    {                                                                                              \
        uint64_t salt = ++a->seq;                                                                  \
        snprintf(what, sizeof(what), "shmem_alltoall" #BITS " on %s, nelems %zu", a->name, ne);    \
        if (a->in) {                                                                               \
            T *s = (T *)(void *)S, *d = (T *)(void *)D;                                            \
            size_t total = ne * (size_t)a->size;                                                   \
            for (size_t p = 0; p < total + GUARD; p++) {                                           \
                s[p] = v##BITS(hv(salt, (uint64_t)me,                                              \
                                  p < total ? (uint64_t)set_pe(a, (int)(p / ne)) : 999,            \
                                  p < total ? p % ne : p));                                        \
                d[p] = SENT;                                                                       \
            }                                                                                      \
            shmem_alltoall##BITS(d, s, ne, a->start, a->log, a->size, next_ps(a, PS_ALLTOALL));    \
            for (size_t p = 0; p < total + GUARD; p++)                                             \
                expect##BITS(d, p,                                                                 \
                             p < total ? v##BITS(hv(salt, (uint64_t)set_pe(a, (int)(p / ne)),      \
                                                    (uint64_t)me, p % ne))                         \
                                       : SENT,                                                     \
                             "dest", __LINE__);                                                    \
        }                                                                                          \
        after_call(a, PS_ALLTOALL);                                                                \
    }                                                                                              \
    static void alltoalls##BITS(aset_t *a, size_t ne, ptrdiff_t dst, ptrdiff_t sst)                \
    {                                                                                              \
        uint64_t salt = ++a->seq;                                                                  \
        snprintf(what, sizeof(what),                                                               \
                 "shmem_alltoalls" #BITS " on %s, nelems %zu, dst %td, sst %td", a->name, ne, dst, \
                 sst);                                                                             \
        if (a->in) {                                                                               \
            T *s = (T *)(void *)S, *d = (T *)(void *)D;                                            \
            size_t blocks = ne * (size_t)a->size;                                                  \
            size_t send = blocks ? (blocks - 1) * (size_t)sst + 1 : 0;                             \
            size_t dend = blocks ? (blocks - 1) * (size_t)dst + 1 : 0;                             \
            for (size_t p = 0; p < send + GUARD; p++)                                              \
                s[p] = v##BITS(hv(salt, (uint64_t)me, 999, p));                                    \
            for (size_t b = 0; b < blocks; b++)                                                    \
                s[b * (size_t)sst] =                                                               \
                    v##BITS(hv(salt, (uint64_t)me, (uint64_t)set_pe(a, (int)(b / ne)), b % ne));   \
            for (size_t p = 0; p < dend + GUARD; p++)                                              \
                d[p] = SENT;                                                                       \
            shmem_alltoalls##BITS(d, s, dst, sst, ne, a->start, a->log, a->size,                   \
                                  next_ps(a, PS_ALLTOALLS));                                       \
            for (size_t p = 0; p < dend + GUARD; p++) {                                            \
                size_t b = p / (size_t)dst;                                                        \
                T want = p % (size_t)dst == 0 && b < blocks                                        \
                             ? v##BITS(hv(salt, (uint64_t)set_pe(a, (int)(b / ne)), (uint64_t)me,  \
                                          b % ne))                                                 \
                             : SENT;                                                               \
                expect##BITS(d, p, want, "dest", __LINE__);                                        \
            }                                                                                      \
        }                                                                                          \
        after_call(a, PS_ALLTOALLS);                                                               \
    }
DEF_SIZED(32, uint32_t, SENT32)
DEF_SIZED(64, uint64_t, SENT64)

/* ---- to_all ------------------------------------------------------------------
 * Value domains as in coll.c: IS_FLT floating (complex too), IS_SGN signed;
 * sums and products stay small and exact. */
#define IS_FLT(T) ((T)0.5 != 0)
#define IS_SGN(T) ((T)-1 / 2 == 0)
#define MKC(T, re, im) ((T)((double)(re) + (double)(im)*I))
#define SENT(T) (IS_FLT(T) ? (T)-0.25 : (T)0xA6A6A6A6A6A6A6A6ull)
#define DOM_ANY(T, h) \
    (IS_FLT(T) ? MKC(T, (double)(int64_t)((h) >> 42) - 2097152.0 + 0.5, 0) : (T)((h) | 1))
#define DOM_SUM(T, h)                                                                          \
    (IS_FLT(T)   ? MKC(T, ((int)((h) % 41) - 20) * 0.25, ((int)(((h) >> 8) % 41) - 20) * 0.25) \
     : IS_SGN(T) ? (T)((int)((h) % 41) - 20)                                                   \
                 : (T)((h) % 41))
static const double prod_re[6] = {-2, -1, -0.5, 0.5, 1, 2};
static const double prod_im[4] = {0, 1, -1, 0.5};
static const int prod_s[4] = {-2, -1, 1, 2};
#define DOM_PROD(T, h)                                               \
    (IS_FLT(T)   ? MKC(T, prod_re[(h) % 6], prod_im[((h) >> 8) % 4]) \
     : IS_SGN(T) ? (T)prod_s[(h) % 4]                                \
                 : (T)(1 + (h) % 3))
#define SHOWV(v) creall((long double _Complex)(v)), cimagl((long double _Complex)(v))

#define DEF_TO_ALL(T, N, OP, DOM, EXPR)                                                          \
    static void to_all_##N##_##OP(aset_t *a, int ne, int inplace)                                \
    {                                                                                            \
        uint64_t salt = ++a->seq;                                                                \
        snprintf(what, sizeof(what), "shmem_" #N "_" #OP "_to_all on %s, nreduce %d%s", a->name, \
                 ne, inplace ? ", in place" : "");                                               \
        if (a->in) {                                                                             \
            T *s = (T *)(void *)S, *d = inplace ? s : (T *)(void *)D;                            \
            for (int i = 0; i < ne + GUARD; i++)                                                 \
                s[i] = DOM(T, hv(salt, (uint64_t)me, i >= ne, (uint64_t)i));                     \
            if (!inplace)                                                                        \
                for (int i = 0; i < ne + GUARD; i++)                                             \
                    d[i] = SENT(T);                                                              \
            shmem_##N##_##OP##_to_all(d, s, ne, a->start, a->log, a->size, (T *)W,               \
                                      next_ps(a, PS_REDUCE));                                    \
            for (int i = 0; i < ne + GUARD; i++) {                                               \
                T acc;                                                                           \
                if (i >= ne) {                                                                   \
                    acc = inplace ? DOM(T, hv(salt, (uint64_t)me, 1, (uint64_t)i)) : SENT(T);    \
                } else {                                                                         \
                    acc = DOM(T, hv(salt, (uint64_t)set_pe(a, 0), 0, (uint64_t)i));              \
                    for (int k = 1; k < a->size; k++) {                                          \
                        T x = acc, y = DOM(T, hv(salt, (uint64_t)set_pe(a, k), 0, (uint64_t)i)); \
                        acc = EXPR;                                                              \
                    }                                                                            \
                }                                                                                \
                if (!(d[i] == acc))                                                              \
                    check_fail(__FILE__, __LINE__,                                               \
                               "%s: dest[%d] expected %.21Lg%+.21Lgi got "                       \
                               "%.21Lg%+.21Lgi",                                                 \
                               what, i, SHOWV(acc), SHOWV(d[i]));                                \
                if (!inplace && !(s[i] == DOM(T, hv(salt, (uint64_t)me, i >= ne, (uint64_t)i)))) \
                    check_fail(__FILE__, __LINE__, "%s: source[%d] was changed", what, i);       \
            }                                                                                    \
        }                                                                                        \
        after_call(a, PS_REDUCE);                                                                \
    }
#define DEF_TO_ALL_BIT(T, N)                   \
    DEF_TO_ALL(T, N, and, DOM_ANY, (T)(x & y)) \
    DEF_TO_ALL(T, N, or, DOM_ANY, (T)(x | y)) DEF_TO_ALL(T, N, xor, DOM_ANY, (T)(x ^ y))
#define DEF_TO_ALL_MINMAX(T, N) \
    DEF_TO_ALL(T, N, max, DOM_ANY, x > y ? x : y) DEF_TO_ALL(T, N, min, DOM_ANY, x < y ? x : y)
#define DEF_TO_ALL_ARITH(T, N) \
    DEF_TO_ALL(T, N, sum, DOM_SUM, (T)(x + y)) DEF_TO_ALL(T, N, prod, DOM_PROD, (T)(x * y))
SHMEM_TO_ALL_BIT_TYPES(DEF_TO_ALL_BIT)
SHMEM_TO_ALL_MINMAX_TYPES(DEF_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(DEF_TO_ALL_ARITH)

typedef struct {
    void (*run)(aset_t *a, int ne, int inplace);
} to_all_t;
#define TA_ENTRY(T, N, OP) {to_all_##N##_##OP},
#define TA_ENTRY_BIT(T, N) TA_ENTRY(T, N, and) TA_ENTRY(T, N, or) TA_ENTRY(T, N, xor)
#define TA_ENTRY_MINMAX(T, N) TA_ENTRY(T, N, max) TA_ENTRY(T, N, min)
#define TA_ENTRY_ARITH(T, N) TA_ENTRY(T, N, sum) TA_ENTRY(T, N, prod)
// clang-format off
static const to_all_t to_alls[] = {
    SHMEM_TO_ALL_BIT_TYPES(TA_ENTRY_BIT)
    SHMEM_TO_ALL_MINMAX_TYPES(TA_ENTRY_MINMAX)
    SHMEM_TO_ALL_ARITH_TYPES(TA_ENTRY_ARITH)
};
// clang-format on
#define NTOALL (sizeof(to_alls) / sizeof(to_alls[0]))

/* ---- barrier and sync -------------------------------------------------------- */
/* Each member puts a value for this call into the next member's slot; after
 * shmem_barrier (which completes the puts) the slot holds it. shmem_sync
 * completes nothing, so a quiet comes first. */
static void barrier_or_sync(aset_t *a, int sync, int rounds)
{
    int k = sync ? PS_SYNC : PS_BARRIER;
    long *slot = (long *)(void *)D;
    for (int r = 0; r < rounds; r++) {
        uint64_t salt = ++a->seq;
        snprintf(what, sizeof(what), "shmem_%s on %s, round %d", sync ? "sync" : "barrier", a->name,
                 r);
        if (a->in) {
            int to = set_pe(a, (a->idx + 1) % a->size);
            int from = set_pe(a, (a->idx + a->size - 1) % a->size);
            long v = (long)(hv(salt, (uint64_t)me, 0, 0) >> 1);
            shmem_long_p(&slot[salt % 2], v, to);
            if (sync) {
                shmem_quiet();
                shmem_sync(a->start, a->log, a->size, next_ps(a, k));
            } else {
                shmem_barrier(a->start, a->log, a->size, next_ps(a, k));
            }
            long want = (long)(hv(salt, (uint64_t)from, 0, 0) >> 1);
            CHECK(slot[salt % 2] == want, "%s: slot from PE %d expected %ld got %ld", what, from,
                  want, slot[salt % 2]);
        }
        after_call(a, k);
    }
}

/* The spec lets consecutive shmem_barrier (and shmem_sync) calls on one
 * active set reuse the same pSync: 100 of each, on one array, alternating
 * barrier and sync on two. */
static void same_psync(aset_t *a)
{
    long *slot = (long *)(void *)D;
    for (int r = 0; r < 200; r++) {
        uint64_t salt = ++a->seq;
        int sync = r >= 100;
        snprintf(what, sizeof(what), "shmem_%s on %s with one pSync, call %d",
                 sync ? "sync" : "barrier", a->name, r);
        if (!a->in)
            continue;
        int to = set_pe(a, (a->idx + 1) % a->size);
        int from = set_pe(a, (a->idx + a->size - 1) % a->size);
        shmem_long_p(&slot[salt % 2], (long)(hv(salt, (uint64_t)me, 0, 0) >> 1), to);
        if (sync) {
            shmem_quiet();
            shmem_sync(a->start, a->log, a->size, a->ps[PS_SYNC][0]);
        } else {
            shmem_barrier(a->start, a->log, a->size, a->ps[PS_BARRIER][0]);
        }
        long want = (long)(hv(salt, (uint64_t)from, 0, 0) >> 1);
        CHECK(slot[salt % 2] == want, "%s: slot from PE %d expected %ld got %ld", what, from, want,
              slot[salt % 2]);
    }
    /* The next user of D may be a peer's put of another routine: all done. */
    shmem_barrier_all();
}

static const size_t sizes[] = {0, 1, 7, NE_MAX};
static const ptrdiff_t strides[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2},
                                       {2, 3}, {3, 1}, {3, 2}, {3, 3}};

static void run_set(aset_t *a)
{
    barrier_or_sync(a, 0, checked ? 4 : 50);
    barrier_or_sync(a, 1, checked ? 4 : 50);
    if (!checked)
        same_psync(a);
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        size_t ne = sizes[z];
        for (int root = 0; root < a->size; root++) {
            bcast32(a, ne, root);
            bcast64(a, ne, root);
        }
        collect32(a, ne);
        collect64(a, ne);
        fcollect32(a, ne);
        fcollect64(a, ne);
        alltoall32(a, ne);
        alltoall64(a, ne);
        for (size_t k = 0; k < sizeof(strides) / sizeof(strides[0]); k++)
            if (ne < NE_MAX || k % 4 == 0) {
                alltoalls32(a, ne, strides[k][0], strides[k][1]);
                alltoalls64(a, ne, strides[k][0], strides[k][1]);
            }
        for (size_t t = 0; t < NTOALL; t++) {
            to_alls[t].run(a, (int)ne, 0);
            to_alls[t].run(a, (int)ne, 1);
        }
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "at most %d PEs", MAXPES);
    size_t bytes = ((size_t)npes * NE_MAX * 3 + 64) * 16;
    S = shmem_align(64, bytes);
    D = shmem_align(64, bytes);
    /* pWrk: max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements of the
     * largest type */
    size_t wrk = NE_MAX / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? NE_MAX / 2 + 1
                                                                : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    W = shmem_align(64, wrk * 16);
    CHECK(S != NULL && D != NULL && W != NULL, "shmem_align expected memory got NULL");

    add_set(0, 0, npes, "all");
    add_set(0, 1, (npes + 1) / 2, "even PEs");
    add_set(1, 0, npes - 1, "all but PE 0");
    add_set(0, 2, (npes + 3) / 4, "every fourth PE");
    add_set(1, 1, npes / 2, "odd PEs");
    /* Every pSync is initialised on every PE before anyone uses one. */
    shmem_barrier_all();

    for (checked = 1; checked >= 0; checked--) {
        for (int i = 0; i < nsets; i++) {
            run_set(&sets[i]);
            /* The next set may use this one's PEs: everyone is done first. */
            shmem_barrier_all();
        }
        for (int i = 0; i < nsets; i++)
            for (int k = 0; k < NPS; k++)
                for (int p = 0; p < 2; p++)
                    check_psync(&sets[i], k, p,
                                checked ? "the checked pass" : "the back-to-back pass");
        /* Nobody starts the next pass on a pSync another PE still checks. */
        shmem_barrier_all();
    }

    shmem_barrier_all();
    for (int i = 0; i < nsets; i++)
        for (int k = 0; k < NPS; k++)
            for (int p = 0; p < 2; p++)
                shmem_free(sets[i].ps[k][p]);
    shmem_free(W);
    shmem_free(D);
    shmem_free(S);
    shmem_finalize();
    return 0;
}
