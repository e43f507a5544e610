/*
 * stress_coll.c - the team collectives on the lane's teams.
 *
 * A collective step picks a team of the lane's pool (its lane team, a
 * strided split, a 2-D row or column: then every row runs it at once),
 * one collective and its sizes, in the heap or in global data. Members
 * fill their sources from the model (member q's bytes are a pattern of
 * (seed, step, q)), put a canary into their destination, and meet in a
 * team sync (so nobody's data lands before the canary); after the call
 * each checks its whole destination and the bytes past it against what
 * the model computes from every member's source: barrier (flags put before
 * it, read after), broadcast, collect (each member its own count, 0
 * included), fcollect, alltoall, alltoalls, every reduction of every type
 * (values small enough that float sums are exact; sometimes in place),
 * sum_inscan and sum_exscan.
 */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

#define CANARY 0xa5
#define GUARD 32
#define GCS (8u << 10)
#define GCD (GCS * (ST_MAX_PES + 1))

static unsigned char g_csrc[ST_MAX_LANES][GCS] __attribute__((aligned(64)));
static unsigned char g_cdst[ST_MAX_LANES][GCD] __attribute__((aligned(64)));

/* ---- typed forms --------------------------------------------------------- */

enum { C_BCAST, C_COLLECT, C_FCOLLECT, C_ALLTOALL, C_ALLTOALLS };
typedef int (*coll_fn)(int op, shmem_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,
                       size_t n, int root);

#define COLL_TYPED(T, N)                                                               \
    static int coll_##N(int op, shmem_team_t t, void *d, const void *s, ptrdiff_t dst, \
                        ptrdiff_t sst, size_t n, int root)                             \
    {                                                                                  \
        switch (op) {                                                                  \
        case C_BCAST: return shmem_##N##_broadcast(t, d, s, n, root);                  \
        case C_COLLECT: return shmem_##N##_collect(t, d, s, n);                        \
        case C_FCOLLECT: return shmem_##N##_fcollect(t, d, s, n);                      \
        case C_ALLTOALL: return shmem_##N##_alltoall(t, d, s, n);                      \
        default: return shmem_##N##_alltoalls(t, d, s, dst, sst, n);                   \
        }                                                                              \
    }
SHMEM_RMA_TYPES(COLL_TYPED)

static int coll_mem(int op, shmem_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,
                    size_t n, int root)
{
    switch (op) {
    case C_BCAST: return shmem_broadcastmem(t, d, s, n, root);
    case C_COLLECT: return shmem_collectmem(t, d, s, n);
    case C_FCOLLECT: return shmem_fcollectmem(t, d, s, n);
    case C_ALLTOALL: return shmem_alltoallmem(t, d, s, n);
    default: return shmem_alltoallsmem(t, d, s, dst, sst, n);
    }
}

typedef struct {
    const char *name;
    size_t size;
    coll_fn fn;
} coll_type_t;
#define COLL_ENT(T, N) {#N, sizeof(T), coll_##N},
static const coll_type_t coll_types[] = {{"mem", 1, coll_mem}, SHMEM_RMA_TYPES(COLL_ENT)};
#define N_COLL_TYPES (sizeof(coll_types) / sizeof(coll_types[0]))

/* ---- reductions ---------------------------------------------------------- */

const char *const st_red_opname[] = {"and", "or",   "xor",        "max",       "min",
                                     "sum", "prod", "sum_inscan", "sum_exscan"};
typedef int (*red_fn)(shmem_team_t t, void *d, const void *s, size_t n);

#define RED_FN(T, N, OP)                                                        \
    static int red_##N##_##OP(shmem_team_t t, void *d, const void *s, size_t n) \
    {                                                                           \
        return shmem_##N##_##OP##_reduce(t, (T *)d, (const T *)s, n);           \
    }
#define SCAN_FN(T, N, OP)                                                       \
    static int red_##N##_##OP(shmem_team_t t, void *d, const void *s, size_t n) \
    {                                                                           \
        return shmem_##N##_##OP(t, (T *)d, (const T *)s, n);                    \
    }
#define RED_BIT(T, N) RED_FN(T, N, and) RED_FN(T, N, or) RED_FN(T, N, xor)
#define RED_MM(T, N) RED_FN(T, N, max) RED_FN(T, N, min)
#define RED_AR(T, N) \
    RED_FN(T, N, sum) RED_FN(T, N, prod) SCAN_FN(T, N, sum_inscan) SCAN_FN(T, N, sum_exscan)
SHMEM_REDUCE_BIT_TYPES(RED_BIT)
SHMEM_REDUCE_MINMAX_TYPES(RED_MM)
SHMEM_REDUCE_ARITH_TYPES(RED_AR)

typedef struct {
    const char *type;
    int op;
    red_fn fn;
} red_ent_t;
#define RENT_BIT(T, N) \
    {#N, O_AND, red_##N##_and}, {#N, O_OR, red_##N##_or}, {#N, O_XOR, red_##N##_xor},
#define RENT_MM(T, N) {#N, O_MAX, red_##N##_max}, {#N, O_MIN, red_##N##_min},
#define RENT_AR(T, N)                                         \
    {#N, O_SUM, red_##N##_sum}, {#N, O_PROD, red_##N##_prod}, \
        {#N, O_INSCAN, red_##N##_sum_inscan}, {#N, O_EXSCAN, red_##N##_sum_exscan},
static const red_ent_t reds[] = {SHMEM_REDUCE_BIT_TYPES(RENT_BIT) SHMEM_REDUCE_MINMAX_TYPES(RENT_MM)
                                     SHMEM_REDUCE_ARITH_TYPES(RENT_AR)};
#define N_REDS (sizeof(reds) / sizeof(reds[0]))
static const st_type_t *red_type[N_REDS];

/* Member q's value of element k: small where sums and products must stay
 * exact and in range, anything where the op cannot overflow. */
st_wide_t st_red_value(const st_type_t *t, int op, uint64_t u)
{
    st_wide_t w = {0, 0, 0};
    int narrow = t->size <= 2;
    static const long double fprod[] = {1, 2, -1, 0.5};
    static const int64_t sprod[] = {1, -1, 2};
    switch (t->kind) {
    case K_SINT:
    case K_UINT:
        if (op <= O_MIN)
            w.u = u;
        else if (op == O_PROD)
            w.u = t->kind == K_UINT ? 1 + u % 3 : (uint64_t)sprod[u % (narrow ? 2 : 3)];
        else
            w.u = t->kind == K_UINT ? u % 16 : (uint64_t)((int64_t)(u % 16) - 8);
        break;
    case K_FLT:
        w.re = op == O_PROD  ? fprod[u % 4]
               : op <= O_MIN ? (long double)((int64_t)(u % 2001) - 1000)
                             : (long double)((int64_t)(u % 64) - 32);
        break;
    default:
        if (op == O_PROD) {
            w.re = (long double)((int64_t)(u % 3) - 1);
            w.im = (long double)((int64_t)((u >> 8) % 3) - 1);
        } else {
            w.re = (long double)((int64_t)(u % 16) - 8);
            w.im = (long double)((int64_t)((u >> 8) % 16) - 8);
        }
        break;
    }
    /* the value the type holds */
    unsigned char b[32];
    t->store(&w, b);
    t->load(b, &w);
    return w;
}

void st_combine(const st_type_t *t, int op, st_wide_t *a, const st_wide_t *x)
{
    int s = t->kind == K_SINT, f = t->kind == K_FLT, c = t->kind == K_CPLX;
    switch (op) {
    case O_AND: a->u &= x->u; break;
    case O_OR: a->u |= x->u; break;
    case O_XOR: a->u ^= x->u; break;
    case O_MAX:
        if (f ? x->re > a->re : s ? (int64_t)x->u > (int64_t)a->u : x->u > a->u)
            *a = *x;
        break;
    case O_MIN:
        if (f ? x->re < a->re : s ? (int64_t)x->u < (int64_t)a->u : x->u < a->u)
            *a = *x;
        break;
    case O_PROD:
        if (c) {
            long double re = a->re * x->re - a->im * x->im, im = a->re * x->im + a->im * x->re;
            a->re = re;
            a->im = im;
        } else {
            a->u *= x->u;
            a->re *= x->re;
        }
        break;
    default:
        a->u += x->u;
        a->re += x->re;
        a->im += x->im;
        break;
    }
    unsigned char b[32];
    t->store(a, b);
    t->load(b, a);
}

/* ---- setup --------------------------------------------------------------- */

void st_coll_setup(st_lane_t *L)
{
    for (size_t i = 0; i < N_REDS; i++)
        red_type[i] = st_type(reds[i].type);
    size_t cs = st.wsize / 4;
    cs = cs < (16u << 10) ? (16u << 10) : cs > (256u << 10) ? (256u << 10) : cs;
    size_t cd = cs * (size_t)(st.npes + 1);
    if (cd > st_slot() - 2 * GUARD)
        cd = st_slot() - 2 * GUARD;
    L->coll_src_size = cs;
    L->coll_dst_size = cd;
    L->coll_src = shmem_malloc(cs + GUARD);
    L->coll_dst = shmem_malloc(cd + GUARD);
    L->pwrk_size = cs + 256;
    L->pwrk = shmem_malloc(L->pwrk_size);
    L->bar = shmem_calloc((size_t)st.npes, sizeof(long));
    if (L->coll_src == NULL || L->coll_dst == NULL || L->pwrk == NULL || L->bar == NULL)
        st_fail(L, "shmem_malloc of the collective buffers returned NULL");
}

/* ---- one step ------------------------------------------------------------ */

typedef struct {
    st_lane_t *L;
    st_rng_t *r;
    shmem_team_t h;
    int n, my, m[ST_MAX_PES];
    unsigned char *src, *dst;
    size_t cs, cd;
} cx_t;

uint64_t st_coll_key(const st_lane_t *L, int q)
{
    return st_hash(st.seed, (uint64_t)L->step, (uint64_t)q, (uint64_t)L->id, 777) | 1;
}

static void ready(cx_t *x, size_t src_bytes, size_t dst_bytes)
{
    st_pattern(x->src, st_coll_key(x->L, st.me), 0, src_bytes);
    memset(x->dst, CANARY, dst_bytes + GUARD);
    int rc = shmem_team_sync(x->h);
    if (rc != 0)
        st_fail(x->L, "shmem_team_sync before the collective returned %d", rc);
}

static void called(cx_t *x, int rc, const char *name, const coll_type_t *t)
{
    snprintf(x->L->opbuf, sizeof(x->L->opbuf), "%s_%s", t->name, name);
    x->L->op = x->L->opbuf;
    x->L->nops++;
    if (rc != 0)
        st_fail(x->L, "returned %d", rc);
}

static void coll_sync(cx_t *x)
{
    st_lane_t *L = x->L;
    long *flags = L->bar;
    L->op = "team_sync";
    /* Every member marks its slot on every member (the step only grows, so
     * a member already in a later step leaves a larger mark). */
    for (int i = 0; i < x->n; i++)
        shmem_long_p(&flags[st.me], L->step, x->m[i]);
    shmem_quiet();
    int rc = shmem_team_sync(x->h);
    L->nops++;
    if (rc != 0)
        st_fail(L, "returned %d", rc);
    for (int i = 0; i < x->n; i++) {
        long v = __atomic_load_n(&flags[x->m[i]], __ATOMIC_ACQUIRE);
        L->nchecks++;
        if (v < L->step || st_inject_now(L))
            st_fail(L, "after the sync, member %d's mark is %ld, expected >= %ld", x->m[i], v,
                    L->step);
    }
}

static void coll_bcast(cx_t *x, const coll_type_t *t)
{
    st_lane_t *L = x->L;
    size_t n = st_logu(x->r, 1, x->cs / t->size), bytes = n * t->size;
    int root = (int)st_below(x->r, (uint64_t)x->n);
    ready(x, bytes, bytes);
    called(x, t->fn(C_BCAST, x->h, x->dst, x->src, 0, 0, n, root), "broadcast", t);
    snprintf(L->what + strlen(L->what), sizeof(L->what) - strlen(L->what), " root %d, %zu elems",
             root, n);
    memset(L->tmp, CANARY, bytes + GUARD);
    st_pattern(L->tmp, st_coll_key(L, x->m[root]), 0, bytes);
    st_check_bytes(L, "dest", L->tmp, x->dst, bytes + GUARD, 0, NULL);
}

/* collect (counts differ per member) and fcollect (one count). */
static void coll_collect(cx_t *x, const coll_type_t *t, int fixed)
{
    st_lane_t *L = x->L;
    size_t maxn = x->cs / t->size, cap = x->cd / t->size / (size_t)x->n;
    maxn = maxn < cap ? maxn : cap;
    size_t cnt[ST_MAX_PES], total = 0, n0 = st_logu(x->r, 1, maxn);
    for (int i = 0; i < x->n; i++) {
        st_rng_t q = st_rng2(L, x->m[i], P_COLLDATA, 1);
        cnt[i] = fixed ? n0 : (st_chance(&q, 1, 8) ? 0 : st_logu(&q, 1, maxn));
        total += cnt[i];
    }
    ready(x, cnt[x->my] * t->size, total * t->size);
    int rc = t->fn(fixed ? C_FCOLLECT : C_COLLECT, x->h, x->dst, x->src, 0, 0, cnt[x->my], 0);
    called(x, rc, fixed ? "fcollect" : "collect", t);
    snprintf(L->what + strlen(L->what), sizeof(L->what) - strlen(L->what), " %zu elems in all",
             total);
    unsigned char *e = L->tmp;
    memset(e, CANARY, total * t->size + GUARD);
    for (int i = 0; i < x->n; i++) {
        st_pattern(e, st_coll_key(L, x->m[i]), 0, cnt[i] * t->size);
        e += cnt[i] * t->size;
    }
    st_check_bytes(L, "dest", L->tmp, x->dst, total * t->size + GUARD, 0, NULL);
}

static void coll_alltoall(cx_t *x, const coll_type_t *t, int strided)
{
    st_lane_t *L = x->L;
    size_t es = t->size, dst = 1, sst = 1;
    if (strided) {
        dst = 1 + st_below(x->r, 3);
        sst = 1 + st_below(x->r, 3);
    }
    size_t N = (size_t)x->n, maxn = x->cs / es / (N * sst), cap = x->cd / es / (N * dst);
    maxn = maxn < cap ? maxn : cap;
    size_t n = maxn ? st_logu(x->r, 1, maxn) : 0;
    size_t sbytes = ((N * n - 1) * sst + 1) * es, dbytes = ((N * n - 1) * dst + 1) * es;
    if (n == 0)
        sbytes = dbytes = 0;
    ready(x, sbytes, dbytes);
    int rc = t->fn(strided ? C_ALLTOALLS : C_ALLTOALL, x->h, x->dst, x->src, (ptrdiff_t)dst,
                   (ptrdiff_t)sst, n, 0);
    called(x, rc, strided ? "alltoalls" : "alltoall", t);
    snprintf(L->what + strlen(L->what), sizeof(L->what) - strlen(L->what),
             " %zu elems per pair, dst %zu sst %zu", n, dst, sst);
    memset(L->tmp, CANARY, dbytes + GUARD);
    for (size_t j = 0; j < N; j++)
        for (size_t k = 0; k < n; k++)
            st_pattern(L->tmp + (j * n + k) * dst * es, st_coll_key(L, x->m[j]),
                       (((size_t)x->my * n + k) * sst) * es, es);
    st_check_bytes(L, "dest", L->tmp, x->dst, dbytes + GUARD, 0, NULL);
}

void st_red_fill(const st_lane_t *L, const st_type_t *t, int op, int q, size_t n, void *out)
{
    for (size_t k = 0; k < n; k++) {
        st_wide_t w = st_red_value(
            t, op, st_hash(st.seed, (uint64_t)L->step, (uint64_t)q, (uint64_t)L->id, 5000 + k));
        t->store(&w, (char *)out + k * t->size);
    }
}

static void coll_reduce(cx_t *x)
{
    st_lane_t *L = x->L;
    size_t ri = st_below(x->r, N_REDS);
    const st_type_t *t = red_type[ri];
    int op = reds[ri].op, inplace = st_chance(x->r, 1, 4);
    size_t maxn = x->cs / t->size;
    size_t n = st_logu(x->r, 1, maxn < 4096 ? maxn : 4096), bytes = n * t->size;
    unsigned char *src = inplace ? x->dst : x->src;
    st_red_fill(L, t, op, st.me, n, src);
    if (!inplace)
        memset(x->dst, CANARY, bytes + GUARD);
    else
        memset(x->dst + bytes, CANARY, GUARD);
    int rc = shmem_team_sync(x->h);
    if (rc == 0)
        rc = reds[ri].fn(x->h, x->dst, src, n);
    char *name = L->opbuf;
    snprintf(name, sizeof(L->opbuf), "%s_%s%s%s", t->name, st_red_opname[op],
             op >= O_INSCAN ? "" : "_reduce", inplace ? " (in place)" : "");
    L->op = name;
    L->nops++;
    if (rc != 0)
        st_fail(L, "returned %d", rc);
    snprintf(L->what + strlen(L->what), sizeof(L->what) - strlen(L->what), " %zu elems", n);
    /* the model: members in team order, 0..my for inscan, 0..my-1 for exscan */
    int upto = op == O_INSCAN ? x->my + 1 : op == O_EXSCAN ? x->my : x->n;
    int cop = op >= O_INSCAN ? O_SUM : op;
    unsigned char *acc = L->tmp2, *v = L->tmp2 + bytes + 64;
    memset(acc, 0, bytes);
    for (int i = 0; i < upto; i++) {
        st_red_fill(L, t, op, x->m[i], n, i == 0 ? acc : v);
        for (size_t k = 0; i > 0 && k < n; k++) {
            st_wide_t a, b;
            t->load(acc + k * t->size, &a);
            t->load(v + k * t->size, &b);
            st_combine(t, cop, &a, &b);
            t->store(&a, acc + k * t->size);
        }
    }
    if (upto == 0) {
        st_wide_t z = {0, 0, 0};
        for (size_t k = 0; k < n; k++)
            t->store(&z, acc + k * t->size);
    }
    st_check_typed(L, "dest", t, acc, x->dst, n);
    memset(L->tmp, CANARY, GUARD);
    st_check_bytes(L, "bytes past dest", L->tmp, x->dst + bytes, GUARD, bytes, NULL);
}

static int pick_kind(st_rng_t *r)
{
    static const int w[] = {3, 4, 3, 3, 3, 2, 9}; /* sync bcast collect fcollect a2a a2as reduce */
    unsigned x = (unsigned)st_below(r, 27);
    for (int k = 0; k < 7; k++) {
        if (x < (unsigned)w[k])
            return k;
        x -= (unsigned)w[k];
    }
    return 6;
}

void st_step_coll(st_lane_t *L)
{
    st_rng_t r = st_rng(L, ST_SHARED, P_COLL);
    cx_t x = {.L = L, .r = &r};
    int e = st_pick_team(L, &r, 1), kind = pick_kind(&r);
    const coll_type_t *t = &coll_types[st_below(&r, N_COLL_TYPES)];
    int glob = st_chance(&r, 1, 4);
    x.src = glob ? g_csrc[L->id] : L->coll_src;
    x.dst = glob ? g_cdst[L->id] : L->coll_dst;
    x.cs = glob ? GCS : L->coll_src_size;
    x.cd = glob ? GCD - GUARD : L->coll_dst_size;
    if (x.cd > L->tmp_size - 2 * GUARD)
        x.cd = L->tmp_size - 2 * GUARD;
    x.n = st_team_members(L, e, st.me, x.m);
    st_team_desc(L, e, L->tdesc, sizeof(L->tdesc));
    L->what[0] = '\0';
    if (glob)
        strncat(L->what, "global data,", sizeof(L->what) - strlen(L->what) - 1);
    if (x.n == 0)
        return;
    x.h = L->teams[e].h;
    for (x.my = 0; x.m[x.my] != st.me; x.my++)
        ;
    L->op = "shmem_team_n_pes/my_pe";
    st_check_u64(L, "shmem_team_n_pes", (uint64_t)x.n, (uint64_t)shmem_team_n_pes(x.h));
    st_check_u64(L, "shmem_team_my_pe", (uint64_t)x.my, (uint64_t)shmem_team_my_pe(x.h));
    switch (kind) {
    case 0: coll_sync(&x); break;
    case 1: coll_bcast(&x, t); break;
    case 2: coll_collect(&x, t, 0); break;
    case 3: coll_collect(&x, t, 1); break;
    case 4: coll_alltoall(&x, t, 0); break;
    case 5: coll_alltoall(&x, t, 1); break;
    default: coll_reduce(&x); break;
    }
    L->what[0] = L->tdesc[0] = '\0';
}
