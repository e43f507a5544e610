/*
 * stress_active.c - the deprecated active-set collectives (lane 0 only:
 * they are single-threaded), as OSU-style programs call them: barrier,
 * sync, broadcast32/64, collect32/64, fcollect32/64, alltoall32/64,
 * alltoalls32/64 and the TYPE_OP_to_all reductions, over the whole world
 * or a random (PE_start, logPE_stride, PE_size), each with its pSync (two
 * arrays in turn) and pWrk. Every active-set step opens with a
 * barrier_all, which makes destinations ready and keeps pSync reuse
 * apart, and checks that every pSync is back at SHMEM_SYNC_VALUE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

#define CANARY 0x5a
#define GUARD 32

/* ---- the reductions ------------------------------------------------------ */

typedef void (*toall_fn)(void *d, const void *s, int n, int start, int log, int size, void *wrk,
                         long *psync);
#define TOALL_FN(T, N, OP)                                                                     \
    static void toall_##N##_##OP(void *d, const void *s, int n, int start, int log, int size,  \
                                 void *wrk, long *psync)                                       \
    {                                                                                          \
        shmem_##N##_##OP##_to_all((T *)d, (const T *)s, n, start, log, size, (T *)wrk, psync); \
    }
#define TOALL_BIT(T, N) TOALL_FN(T, N, and) TOALL_FN(T, N, or) TOALL_FN(T, N, xor)
#define TOALL_MM(T, N) TOALL_FN(T, N, max) TOALL_FN(T, N, min)
#define TOALL_AR(T, N) TOALL_FN(T, N, sum) TOALL_FN(T, N, prod)
SHMEM_TO_ALL_BIT_TYPES(TOALL_BIT)
SHMEM_TO_ALL_MINMAX_TYPES(TOALL_MM)
SHMEM_TO_ALL_ARITH_TYPES(TOALL_AR)

typedef struct {
    const char *type;
    int op;
    toall_fn fn;
} toall_ent_t;
#define TENT_BIT(T, N) \
    {#N, O_AND, toall_##N##_and}, {#N, O_OR, toall_##N##_or}, {#N, O_XOR, toall_##N##_xor},
#define TENT_MM(T, N) {#N, O_MAX, toall_##N##_max}, {#N, O_MIN, toall_##N##_min},
#define TENT_AR(T, N) {#N, O_SUM, toall_##N##_sum}, {#N, O_PROD, toall_##N##_prod},
static const toall_ent_t toalls[] = {SHMEM_TO_ALL_BIT_TYPES(TENT_BIT) SHMEM_TO_ALL_MINMAX_TYPES(
    TENT_MM) SHMEM_TO_ALL_ARITH_TYPES(TENT_AR)};
#define N_TOALLS (sizeof(toalls) / sizeof(toalls[0]))

/* ---- one step ------------------------------------------------------------ */

typedef struct {
    st_lane_t *L;
    st_rng_t *r;
    int start, log, size, my, bits; /* bits: 32 or 64 */
    int m[ST_MAX_PES];
    long *psync;
    unsigned char *src, *dst;
    size_t cs, cd;
} ax_t;

static void a_ready(ax_t *x, size_t sbytes, size_t dbytes)
{
    st_pattern(x->src, st_coll_key(x->L, st.me), 0, sbytes);
    memset(x->dst, CANARY, dbytes + GUARD);
}

static void a_called(ax_t *x, const char *name)
{
    snprintf(x->L->opbuf, sizeof(x->L->opbuf), "%s%d (active set)", name, x->bits);
    x->L->op = x->L->opbuf;
    x->L->nops++;
}

static void a_bcast(ax_t *x)
{
    st_lane_t *L = x->L;
    size_t es = (size_t)x->bits / 8, n = st_logu(x->r, 1, x->cs / es), bytes = n * es;
    int root = (int)st_below(x->r, (uint64_t)x->size);
    a_ready(x, bytes, bytes);
    shmem_barrier_all();
    if (x->bits == 32)
        shmem_broadcast32(x->dst, x->src, n, root, x->start, x->log, x->size, x->psync);
    else
        shmem_broadcast64(x->dst, x->src, n, root, x->start, x->log, x->size, x->psync);
    a_called(x, "broadcast");
    snprintf(L->what + strlen(L->what), sizeof(L->what) - strlen(L->what), " root %d, %zu elems",
             root, n);
    memset(L->tmp, CANARY, bytes + GUARD);
    if (x->my != root) /* the 1.4 active-set broadcast leaves the root's dest alone */
        st_pattern(L->tmp, st_coll_key(L, x->m[root]), 0, bytes);
    st_check_bytes(L, "dest", L->tmp, x->dst, bytes + GUARD, 0, NULL);
}

static void a_collect(ax_t *x, int fixed)
{
    st_lane_t *L = x->L;
    size_t es = (size_t)x->bits / 8, maxn = x->cd / es / (size_t)x->size;
    maxn = maxn < x->cs / es ? maxn : x->cs / es;
    size_t cnt[ST_MAX_PES], total = 0, n0 = st_logu(x->r, 1, maxn);
    for (int i = 0; i < x->size; i++) {
        st_rng_t q = st_rng2(L, x->m[i], P_COLLDATA, 2);
        cnt[i] = fixed ? n0 : (st_chance(&q, 1, 8) ? 0 : st_logu(&q, 1, maxn));
        total += cnt[i];
    }
    a_ready(x, cnt[x->my] * es, total * es);
    shmem_barrier_all();
    if (fixed && x->bits == 32)
        shmem_fcollect32(x->dst, x->src, cnt[x->my], x->start, x->log, x->size, x->psync);
    else if (fixed)
        shmem_fcollect64(x->dst, x->src, cnt[x->my], x->start, x->log, x->size, x->psync);
    else if (x->bits == 32)
        shmem_collect32(x->dst, x->src, cnt[x->my], x->start, x->log, x->size, x->psync);
    else
        shmem_collect64(x->dst, x->src, cnt[x->my], x->start, x->log, x->size, x->psync);
    a_called(x, fixed ? "fcollect" : "collect");
    unsigned char *e = L->tmp;
    memset(e, CANARY, total * es + GUARD);
    for (int i = 0; i < x->size; i++) {
        st_pattern(e, st_coll_key(L, x->m[i]), 0, cnt[i] * es);
        e += cnt[i] * es;
    }
    st_check_bytes(L, "dest", L->tmp, x->dst, total * es + GUARD, 0, NULL);
}

static void a_alltoall(ax_t *x, int strided)
{
    st_lane_t *L = x->L;
    size_t es = (size_t)x->bits / 8, N = (size_t)x->size, dst = 1, sst = 1;
    if (strided) {
        dst = 1 + st_below(x->r, 3);
        sst = 1 + st_below(x->r, 3);
    }
    size_t maxn = x->cs / es / (N * sst), cap = x->cd / es / (N * dst);
    maxn = maxn < cap ? maxn : cap;
    size_t n = maxn ? st_logu(x->r, 1, maxn) : 0;
    size_t sb = n ? ((N * n - 1) * sst + 1) * es : 0, db = n ? ((N * n - 1) * dst + 1) * es : 0;
    a_ready(x, sb, db);
    shmem_barrier_all();
    if (strided && x->bits == 32)
        shmem_alltoalls32(x->dst, x->src, (ptrdiff_t)dst, (ptrdiff_t)sst, n, x->start, x->log,
                          x->size, x->psync);
    else if (strided)
        shmem_alltoalls64(x->dst, x->src, (ptrdiff_t)dst, (ptrdiff_t)sst, n, x->start, x->log,
                          x->size, x->psync);
    else if (x->bits == 32)
        shmem_alltoall32(x->dst, x->src, n, x->start, x->log, x->size, x->psync);
    else
        shmem_alltoall64(x->dst, x->src, n, x->start, x->log, x->size, x->psync);
    a_called(x, strided ? "alltoalls" : "alltoall");
    memset(L->tmp, CANARY, db + GUARD);
    for (size_t j = 0; j < N; j++)
        for (size_t k = 0; k < n; k++)
            st_pattern(L->tmp + (j * n + k) * dst * es, st_coll_key(L, x->m[j]),
                       (((size_t)x->my * n + k) * sst) * es, es);
    st_check_bytes(L, "dest", L->tmp, x->dst, db + GUARD, 0, NULL);
}

static void a_reduce(ax_t *x)
{
    st_lane_t *L = x->L;
    const toall_ent_t *e = &toalls[st_below(x->r, N_TOALLS)];
    const st_type_t *t = st_type(e->type);
    size_t maxn = x->cs / t->size;
    size_t n = st_logu(x->r, 1, maxn < 2048 ? maxn : 2048), bytes = n * t->size;
    int inplace = st_chance(x->r, 1, 4);
    unsigned char *src = inplace ? x->dst : x->src;
    st_red_fill(L, t, e->op, st.me, n, src);
    memset(inplace ? x->dst + bytes : x->dst, CANARY, inplace ? GUARD : bytes + GUARD);
    shmem_barrier_all();
    e->fn(x->dst, src, (int)n, x->start, x->log, x->size, L->pwrk, x->psync);
    snprintf(L->opbuf, sizeof(L->opbuf), "%s_%s_to_all%s", e->type, st_red_opname[e->op],
             inplace ? " (in place)" : "");
    L->op = L->opbuf;
    L->nops++;
    snprintf(L->what + strlen(L->what), sizeof(L->what) - strlen(L->what), " %zu elems", n);
    unsigned char *acc = L->tmp2, *v = L->tmp2 + bytes + 64;
    for (int i = 0; i < x->size; i++) {
        st_red_fill(L, t, e->op, x->m[i], n, i == 0 ? acc : v);
        for (size_t k = 0; i > 0 && k < n; k++) {
            st_wide_t a, b;
            t->load(acc + k * t->size, &a);
            t->load(v + k * t->size, &b);
            st_combine(t, e->op, &a, &b);
            t->store(&a, acc + k * t->size);
        }
    }
    st_check_typed(L, "dest", t, acc, x->dst, n);
    memset(L->tmp, CANARY, GUARD);
    st_check_bytes(L, "bytes past dest", L->tmp, x->dst + bytes, GUARD, bytes, NULL);
}

/* barrier/sync: marks put before, seen after (as the team sync). */
static void a_barrier(ax_t *x, int sync)
{
    st_lane_t *L = x->L;
    shmem_barrier_all();
    for (int i = 0; i < x->size; i++)
        shmem_long_p(&L->bar[st.me], L->step, x->m[i]);
    if (sync) {
        shmem_quiet();
        shmem_sync(x->start, x->log, x->size, x->psync);
    } else {
        shmem_barrier(x->start, x->log, x->size, x->psync); /* completes the puts itself */
    }
    snprintf(L->opbuf, sizeof(L->opbuf), "%s (active set)", sync ? "shmem_sync" : "shmem_barrier");
    L->op = L->opbuf;
    L->nops++;
    for (int i = 0; i < x->size; i++) {
        long v = __atomic_load_n(&L->bar[x->m[i]], __ATOMIC_ACQUIRE);
        L->nchecks++;
        if (v < L->step || st_inject_now(L))
            st_fail(L, "after it, member %d's mark is %ld, expected >= %ld", x->m[i], v, L->step);
    }
}

static void check_psyncs(st_lane_t *L)
{
    L->op = "pSync after use";
    for (int i = 0; i < 4 * SHMEM_SYNC_SIZE; i++)
        if (L->psync[i] != SHMEM_SYNC_VALUE) {
            snprintf(L->what, sizeof(L->what), "pSync array %d", i / SHMEM_SYNC_SIZE);
            st_check_u64(L, "word (SHMEM_SYNC_VALUE on return)", (uint64_t)SHMEM_SYNC_VALUE,
                         (uint64_t)L->psync[i]);
        }
}

static void pick_set(ax_t *x)
{
    if (st_chance(x->r, 1, 3)) {
        x->start = 0;
        x->log = 0;
        x->size = st.npes;
        return;
    }
    x->log = (int)st_below(x->r, 3);
    int stride = 1 << x->log;
    while (x->log > 0 && stride >= st.npes) {
        x->log--;
        stride >>= 1;
    }
    x->start = (int)st_below(x->r, (uint64_t)st.npes);
    int maxsize = (st.npes - 1 - x->start) / stride + 1;
    x->size = 1 + (int)st_below(x->r, (uint64_t)maxsize);
}

void st_step_active(st_lane_t *L)
{
    st_rng_t r = st_rng(L, ST_SHARED, P_COLL);
    ax_t x = {.L = L, .r = &r};
    pick_set(&x);
    x.bits = st_chance(&r, 1, 2) ? 32 : 64;
    x.psync = L->psync + (2 + L->nactive++ % 2) * SHMEM_SYNC_SIZE;
    x.src = L->coll_src;
    x.dst = L->coll_dst;
    x.cs = L->coll_src_size;
    x.cd = L->coll_dst_size;
    int kind = (int)st_below(&r, 9);
    shmem_barrier_all();
    check_psyncs(L);
    x.my = -1;
    for (int i = 0; i < x.size; i++) {
        x.m[i] = x.start + (i << x.log);
        if (x.m[i] == st.me)
            x.my = i;
    }
    snprintf(L->tdesc, sizeof(L->tdesc), "active_set(%d,%d,%d)", x.start, x.log, x.size);
    L->what[0] = '\0';
    if (x.my < 0) {
        shmem_barrier_all(); /* the one every member makes before its call */
        return;
    }
    switch (kind) {
    case 0: a_barrier(&x, 0); break;
    case 1: a_barrier(&x, 1); break;
    case 2: a_bcast(&x); break;
    case 3: a_collect(&x, 0); break;
    case 4: a_collect(&x, 1); break;
    case 5: a_alltoall(&x, 0); break;
    case 6: a_alltoall(&x, 1); break;
    default: a_reduce(&x); break;
    }
    L->what[0] = L->tdesc[0] = '\0';
}
