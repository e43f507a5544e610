/*
 * stress_rma.c - puts into the windows, gets out of them, every form.
 *
 * Window (area, target, source): on `target`, the bytes only `source`
 * writes, in the heap or in the program's global data. An RMA step: each
 * PE plans 1-4 writes (its own random stream, so every PE replays every
 * plan into its model of every window), issues them with fences, quiets
 * and pe_quiets between them wherever two may overlap, completes them;
 * after a lane sync each PE checks what was written into its windows
 * (and 16 bytes around it), then reads ranges of any PE's windows back
 * with every form of get and checks them; a second sync ends the step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

#define GUARD 16
#define MAX_PUTS 4
#define MAX_GETS 4
#define CANARY 0xc3
#define SRC_FILL 0xee

/* ---- the typed and sized forms behind one signature ---------------------- */

enum { R_PUT, R_PUT_NBI, R_GET, R_GET_NBI, R_IPUT, R_IGET, R_IBPUT, R_IBGET, R_P, R_G };

typedef void (*rma_fn)(int op, shmem_ctx_t c, int api, void *d, const void *s, ptrdiff_t dst,
                       ptrdiff_t sst, size_t bsize, size_t n, int pe);

#define RMA_TYPED(T, N)                                                                        \
    static void rma_##N(int op, shmem_ctx_t c, int api, void *d, const void *s, ptrdiff_t dst, \
                        ptrdiff_t sst, size_t bs, size_t n, int pe)                            \
    {                                                                                          \
        T *D = d;                                                                              \
        const T *S = s;                                                                        \
        T v;                                                                                   \
        switch (op) {                                                                          \
        case R_PUT: api ? shmem_ctx_##N##_put(c, D, S, n, pe) : shmem_##N##_put(D, S, n, pe);  \
            break;                                                                             \
        case R_PUT_NBI:                                                                        \
            api ? shmem_ctx_##N##_put_nbi(c, D, S, n, pe) : shmem_##N##_put_nbi(D, S, n, pe);  \
            break;                                                                             \
        case R_GET: api ? shmem_ctx_##N##_get(c, D, S, n, pe) : shmem_##N##_get(D, S, n, pe);  \
            break;                                                                             \
        case R_GET_NBI:                                                                        \
            api ? shmem_ctx_##N##_get_nbi(c, D, S, n, pe) : shmem_##N##_get_nbi(D, S, n, pe);  \
            break;                                                                             \
        case R_IPUT:                                                                           \
            api ? shmem_ctx_##N##_iput(c, D, S, dst, sst, n, pe)                               \
                : shmem_##N##_iput(D, S, dst, sst, n, pe);                                     \
            break;                                                                             \
        case R_IGET:                                                                           \
            api ? shmem_ctx_##N##_iget(c, D, S, dst, sst, n, pe)                               \
                : shmem_##N##_iget(D, S, dst, sst, n, pe);                                     \
            break;                                                                             \
        case R_IBPUT:                                                                          \
            api ? shmem_ctx_##N##_ibput(c, D, S, dst, sst, bs, n, pe)                          \
                : shmem_##N##_ibput(D, S, dst, sst, bs, n, pe);                                \
            break;                                                                             \
        case R_IBGET:                                                                          \
            api ? shmem_ctx_##N##_ibget(c, D, S, dst, sst, bs, n, pe)                          \
                : shmem_##N##_ibget(D, S, dst, sst, bs, n, pe);                                \
            break;                                                                             \
        case R_P:                                                                              \
            memcpy(&v, s, sizeof v);                                                           \
            api ? shmem_ctx_##N##_p(c, D, v, pe) : shmem_##N##_p(D, v, pe);                    \
            break;                                                                             \
        default:                                                                               \
            v = api ? shmem_ctx_##N##_g(c, S, pe) : shmem_##N##_g(S, pe);                      \
            memcpy(d, &v, sizeof v);                                                           \
            break;                                                                             \
        }                                                                                      \
    }
SHMEM_RMA_TYPES(RMA_TYPED)

#define RMA_SIZED(BITS)                                                                           \
    static void rma_sz##BITS(int op, shmem_ctx_t c, int api, void *d, const void *s,              \
                             ptrdiff_t dst, ptrdiff_t sst, size_t bs, size_t n, int pe)           \
    {                                                                                             \
        switch (op) {                                                                             \
        case R_PUT: api ? shmem_ctx_put##BITS(c, d, s, n, pe) : shmem_put##BITS(d, s, n, pe);     \
            break;                                                                                \
        case R_PUT_NBI:                                                                           \
            api ? shmem_ctx_put##BITS##_nbi(c, d, s, n, pe) : shmem_put##BITS##_nbi(d, s, n, pe); \
            break;                                                                                \
        case R_GET: api ? shmem_ctx_get##BITS(c, d, s, n, pe) : shmem_get##BITS(d, s, n, pe);     \
            break;                                                                                \
        case R_GET_NBI:                                                                           \
            api ? shmem_ctx_get##BITS##_nbi(c, d, s, n, pe) : shmem_get##BITS##_nbi(d, s, n, pe); \
            break;                                                                                \
        case R_IPUT:                                                                              \
            api ? shmem_ctx_iput##BITS(c, d, s, dst, sst, n, pe)                                  \
                : shmem_iput##BITS(d, s, dst, sst, n, pe);                                        \
            break;                                                                                \
        case R_IGET:                                                                              \
            api ? shmem_ctx_iget##BITS(c, d, s, dst, sst, n, pe)                                  \
                : shmem_iget##BITS(d, s, dst, sst, n, pe);                                        \
            break;                                                                                \
        case R_IBPUT:                                                                             \
            api ? shmem_ctx_ibput##BITS(c, d, s, dst, sst, bs, n, pe)                             \
                : shmem_ibput##BITS(d, s, dst, sst, bs, n, pe);                                   \
            break;                                                                                \
        default:                                                                                  \
            api ? shmem_ctx_ibget##BITS(c, d, s, dst, sst, bs, n, pe)                             \
                : shmem_ibget##BITS(d, s, dst, sst, bs, n, pe);                                   \
            break;                                                                                \
        }                                                                                         \
    }
SHMEM_SIZES(RMA_SIZED)

typedef struct {
    const char *name;
    size_t size;
    rma_fn fn;
    int sized; /* shmem_putBITS family: no p/g */
} rma_type_t;

#define RMA_TENT(T, N) {#N, sizeof(T), rma_##N, 0},
#define RMA_SENT(BITS) {"sized" #BITS, BITS / 8, rma_sz##BITS, 1},
static const rma_type_t rma_types[] = {SHMEM_RMA_TYPES(RMA_TENT) SHMEM_SIZES(RMA_SENT)};
#define N_RMA_TYPES (sizeof(rma_types) / sizeof(rma_types[0]))

/* p and g pass the value by value: not long double (x87 may change odd bits). */
static int p_ok(const rma_type_t *t)
{
    return !t->sized && strcmp(t->name, "longdouble") != 0;
}

/* ---- setup --------------------------------------------------------------- */

void st_rma_setup(st_lane_t *L)
{
    size_t n = (size_t)st.npes, W = st.wsize;
    L->wsize[ST_AREA_HEAP] = W;
    L->area[ST_AREA_HEAP] = shmem_calloc(n, W);
    L->sym_scratch_size = 2 * st_slot();
    L->sym_scratch = shmem_malloc(L->sym_scratch_size);
    if (L->area[ST_AREA_HEAP] == NULL || L->sym_scratch == NULL)
        st_fail(L, "shmem_calloc/malloc of %zu-byte windows returned NULL", W);
    L->priv_size = MAX_PUTS * st_slot();
    L->priv = st_xmalloc(L->priv_size);
    L->tmp_size = st_slot();
    L->tmp = st_xmalloc(L->tmp_size);
    L->tmp2 = st_xmalloc(L->tmp_size);
    L->win = st_xmalloc(sizeof(st_win_t) * ST_NAREAS * n * n);
    for (int a = 0; a < ST_NAREAS; a++)
        for (int t = 0; t < st.npes; t++)
            for (int s = 0; s < st.npes; s++)
                st_win_init(st_win(L, a, t, s), L->wsize[a]);
}

/* ---- a PE's plan --------------------------------------------------------- */

enum { ORD_NONE, ORD_FENCE, ORD_QUIET, ORD_PE_QUIET, ORD_QUIET_ALL };

typedef struct {
    int kind; /* OP_* */
    int rop;  /* R_PUT, R_PUT_NBI, R_P, R_IPUT, R_IBPUT */
    int type, api, ctx, area, target, tindex, order, src_sym;
    size_t esz, off, n, dst, sst, bsize, mis, lo, hi;
    uint64_t key;
    int done, fenced; /* planning: completed / fenced before the next op */
} put_t;

typedef struct {
    int n;
    put_t op[MAX_PUTS];
} plan_t;

/* The world PEs pe can address through its context ctx (-1: default). */
static int ctx_members(const st_lane_t *L, int ctx, int pe, int *out)
{
    if (ctx < 0 || L->ctxs[ctx].team < 0) {
        for (int i = 0; i < st.npes; i++)
            out[i] = i;
        return st.npes;
    }
    return st_team_members(L, L->ctxs[ctx].team, pe, out);
}

/* A context of pe's pool for this kind of use, or -1 (default). */
static int pick_ctx(const st_lane_t *L, st_rng_t *r, int pe, int store)
{
    if (!st_chance(r, 2, 5))
        return -1;
    int c = (int)st_below(r, ST_MAX_CTX);
    int m[ST_MAX_PES];
    if (!L->ctxs[c].used || (store && (L->ctxs[c].options & SHMEM_CTX_NOSTORE)))
        return -1;
    return ctx_members(L, c, pe, m) > 0 ? c : -1;
}

static void pick_target(const st_lane_t *L, st_rng_t *r, int pe, int ctx, int *target, int *tindex)
{
    int m[ST_MAX_PES];
    int n = ctx_members(L, ctx, pe, m);
    int i = (int)st_below(r, (uint64_t)n);
    *target = m[i];
    *tindex = i;
}

/* Shape: the kind, type, element counts and strides, the extent [lo, hi). */
static void plan_shape(st_rng_t *r, put_t *o, size_t W)
{
    static const int kinds[] = {OP_PUTMEM, OP_PUTMEM,  OP_PUTMEM_NBI, OP_PUT,
                                OP_PUT,    OP_PUT_NBI, OP_PUTSZ,      OP_PUTSZ_NBI,
                                OP_P,      OP_IPUT,    OP_IPUT,       OP_IBPUT};
    o->kind = kinds[st_below(r, sizeof(kinds) / sizeof(kinds[0]))];
    do
        o->type = (int)st_below(r, N_RMA_TYPES);
    while ((o->kind == OP_P && !p_ok(&rma_types[o->type])) ||
           ((o->kind == OP_PUTSZ || o->kind == OP_PUTSZ_NBI) && !rma_types[o->type].sized));
    o->esz = (o->kind == OP_PUTMEM || o->kind == OP_PUTMEM_NBI) ? 1 : rma_types[o->type].size;
    o->dst = o->sst = 1;
    o->bsize = 1;
    size_t es = o->esz;
    switch (o->kind) {
    case OP_P:
        o->n = 1;
        o->rop = R_P;
        break;
    case OP_IPUT:
        o->rop = R_IPUT;
        o->n = st_logu(r, 1, 64);
        o->dst = 1 + st_below(r, 8);
        o->sst = 1 + st_below(r, 4);
        while ((o->n - 1) * o->dst * es + es > W)
            o->n /= 2;
        break;
    case OP_IBPUT:
        o->rop = R_IBPUT;
        o->bsize = 1 + st_below(r, 16);
        o->n = 1 + st_below(r, 16); /* blocks */
        o->dst = o->bsize + st_below(r, 8);
        o->sst = o->bsize + st_below(r, 4);
        while (o->n > 1 && ((o->n - 1) * o->dst + o->bsize) * es > W)
            o->n /= 2;
        break;
    default:
        o->rop = (o->kind == OP_PUT_NBI || o->kind == OP_PUTMEM_NBI || o->kind == OP_PUTSZ_NBI)
                     ? R_PUT_NBI
                     : R_PUT;
        o->n = st_chance(r, 1, 40) ? W / es : st_logu(r, 1, W) / es;
        if (o->n == 0)
            o->n = 1;
        break;
    }
    size_t ext = o->rop == R_IPUT    ? (o->n - 1) * o->dst * es + es
                 : o->rop == R_IBPUT ? ((o->n - 1) * o->dst + o->bsize) * es
                                     : o->n * es;
    size_t room = (W - ext) / es;
    o->off = (size_t)st_below(r, room + 1) * es;
    if (es == 1 && o->off + ext < W && st_chance(r, 1, 2))
        o->off |= 1; /* odd offsets for the byte forms */
    if (o->off + ext > W)
        o->off = W - ext;
    o->lo = o->off;
    o->hi = o->off + ext;
}

static int overlaps(const put_t *a, const put_t *b)
{
    return a->area == b->area && a->target == b->target && a->lo < b->hi && b->lo < a->hi;
}

/* What an ordering op before op j orders among ops 0..j-1 (marks them). */
static void apply_order(put_t *ops, int j, int order, int ctx, int target)
{
    for (int i = 0; i < j; i++) {
        put_t *p = &ops[i];
        if (order == ORD_QUIET_ALL || (order == ORD_QUIET && p->ctx == ctx) ||
            (order == ORD_PE_QUIET && p->ctx == ctx && p->target == target))
            p->done = 1;
        if (order == ORD_FENCE && p->ctx == ctx)
            p->fenced = 1;
    }
}

static int unordered_overlap(const put_t *ops, int j)
{
    for (int i = 0; i < j; i++)
        if (overlaps(&ops[i], &ops[j]) && !ops[i].done &&
            !(ops[i].fenced && ops[i].ctx == ops[j].ctx))
            return 1;
    return 0;
}

/* pe's plan at this step: the same on every PE. */
static void plan_puts(st_lane_t *L, int pe, plan_t *pl)
{
    st_rng_t r = st_rng(L, pe, P_RMA);
    pl->n = 1 + (int)st_below(&r, MAX_PUTS);
    for (int j = 0; j < pl->n; j++) {
        put_t *o = &pl->op[j];
        memset(o, 0, sizeof(*o));
        o->ctx = pick_ctx(L, &r, pe, 1);
        o->api = o->ctx >= 0 || st_chance(&r, 1, 4);
        pick_target(L, &r, pe, o->ctx, &o->target, &o->tindex);
        o->area = st_chance(&r, 3, 10) ? ST_AREA_GLOBAL : ST_AREA_HEAP;
        plan_shape(&r, o, L->wsize[o->area]);
        o->src_sym = j < 2 && st_chance(&r, 1, 3);
        o->mis = st_below(&r, 8) * (o->esz == 1);
        o->key =
            st_hash(st.seed, (uint64_t)L->step, (uint64_t)pe, (uint64_t)L->id, 1000 + (uint64_t)j) |
            1;
        int ord = st_chance(&r, 1, 6) ? 1 + (int)st_below(&r, 4) : ORD_NONE;
        if (j == 0)
            ord = ORD_NONE;
        put_t save[MAX_PUTS];
        memcpy(save, pl->op, sizeof(save));
        apply_order(pl->op, j, ord, o->ctx, o->target);
        if (unordered_overlap(pl->op, j)) {
            memcpy(pl->op, save, sizeof(save));
            int same = 1;
            for (int i = 0; i < j; i++)
                if (overlaps(&pl->op[i], o) && pl->op[i].ctx != o->ctx)
                    same = 0;
            ord = same ? 1 + (int)st_below(&r, 3) : ORD_QUIET_ALL;
            apply_order(pl->op, j, ord, o->ctx, o->target);
        }
        o->order = ord;
    }
}

/* Every byte the op writes goes into the model of its window. */
static void model_puts(st_lane_t *L, int pe, const plan_t *pl)
{
    for (int j = 0; j < pl->n; j++) {
        const put_t *o = &pl->op[j];
        st_win_t *w = st_win(L, o->area, o->target, pe);
        size_t es = o->esz;
        if (o->rop == R_IPUT) {
            for (size_t k = 0; k < o->n; k++) {
                size_t a = o->off + k * o->dst * es;
                st_win_write(w, a, a + es, o->key, L->step, pe, o->kind);
            }
        } else if (o->rop == R_IBPUT) {
            for (size_t k = 0; k < o->n; k++) {
                size_t a = o->off + k * o->dst * es;
                st_win_write(w, a, a + o->bsize * es, o->key, L->step, pe, o->kind);
            }
        } else {
            st_win_write(w, o->lo, o->hi, o->key, L->step, pe, o->kind);
        }
    }
}

/* ---- issuing ------------------------------------------------------------- */

static unsigned char *put_source(st_lane_t *L, const put_t *o, int j)
{
    size_t W = st_slot();
    unsigned char *base = o->src_sym ? L->sym_scratch + (size_t)j * W : L->priv + (size_t)j * W;
    return base + o->mis;
}

/* The source laid out for the op's form: element k of an iput at k*sst. */
static void fill_source(unsigned char *src, const put_t *o)
{
    size_t es = o->esz;
    if (o->rop == R_IPUT) {
        memset(src, SRC_FILL, ((o->n - 1) * o->sst + 1) * es);
        for (size_t k = 0; k < o->n; k++)
            st_pattern(src + k * o->sst * es, o->key, o->off + k * o->dst * es, es);
    } else if (o->rop == R_IBPUT) {
        memset(src, SRC_FILL, ((o->n - 1) * o->sst + o->bsize) * es);
        for (size_t k = 0; k < o->n; k++)
            st_pattern(src + k * o->sst * es, o->key, o->off + k * o->dst * es, o->bsize * es);
    } else {
        st_pattern(src, o->key, o->off, o->n * es);
    }
}

static void do_order(st_lane_t *L, const put_t *o)
{
    shmem_ctx_t c = st_ctx_handle(L, o->ctx);
    switch (o->order) {
    case ORD_FENCE: o->ctx < 0 && !o->api ? shmem_fence() : shmem_ctx_fence(c); break;
    case ORD_QUIET: o->ctx < 0 && !o->api ? shmem_quiet() : shmem_ctx_quiet(c); break;
    case ORD_PE_QUIET:
        o->ctx < 0 && !o->api ? shmem_pe_quiet(&o->tindex, 1)
                              : shmem_ctx_pe_quiet(c, &o->tindex, 1);
        break;
    case ORD_QUIET_ALL: st_quiet_all(L); break;
    default: break;
    }
}

static void issue_put(st_lane_t *L, const put_t *o, int j)
{
    unsigned char *src = put_source(L, o, j);
    unsigned char *dest = st_win_addr(L, o->area, st.me) + o->off;
    shmem_ctx_t c = st_ctx_handle(L, o->ctx);
    fill_source(src, o);
    do_order(L, o);
    L->nops++;
    switch (o->kind) {
    case OP_PUTMEM:
        o->api ? shmem_ctx_putmem(c, dest, src, o->n, o->tindex)
               : shmem_putmem(dest, src, o->n, o->tindex);
        break;
    case OP_PUTMEM_NBI:
        o->api ? shmem_ctx_putmem_nbi(c, dest, src, o->n, o->tindex)
               : shmem_putmem_nbi(dest, src, o->n, o->tindex);
        break;
    default:
        rma_types[o->type].fn(o->rop, c, o->api, dest, src, (ptrdiff_t)o->dst, (ptrdiff_t)o->sst,
                              o->bsize, o->n, o->tindex);
        break;
    }
}

/* ---- gets ---------------------------------------------------------------- */

typedef struct {
    int rop, type, api, ctx, area, target, tindex, src, sym;
    size_t esz, off, n, dst, sst, bsize, mis, span;
    unsigned char *dest;
} get_t;

static void plan_get(st_lane_t *L, st_rng_t *r, get_t *g, int j)
{
    static const int rops[] = {R_GET, R_GET, R_GET_NBI, R_G, R_IGET, R_IBGET};
    memset(g, 0, sizeof(*g));
    g->ctx = pick_ctx(L, r, st.me, 0);
    g->api = g->ctx >= 0 || st_chance(r, 1, 4);
    pick_target(L, r, st.me, g->ctx, &g->target, &g->tindex);
    g->src = (int)st_below(r, (uint64_t)st.npes);
    g->area = st_chance(r, 3, 10) ? ST_AREA_GLOBAL : ST_AREA_HEAP;
    g->rop = rops[st_below(r, sizeof(rops) / sizeof(rops[0]))];
    int mem = g->rop == R_GET || g->rop == R_GET_NBI ? st_chance(r, 1, 3) : 0;
    do
        g->type = (int)st_below(r, N_RMA_TYPES);
    while (g->rop == R_G && !p_ok(&rma_types[g->type]));
    g->esz = mem ? 1 : rma_types[g->type].size;
    g->type = mem ? -1 : g->type;
    size_t W = L->wsize[g->area], es = g->esz, ext;
    g->dst = g->sst = g->bsize = 1;
    if (g->rop == R_IGET) {
        g->n = st_logu(r, 1, 64);
        g->dst = 1 + st_below(r, 4);
        g->sst = 1 + st_below(r, 8);
        while ((g->n - 1) * g->sst * es + es > W)
            g->n /= 2;
        ext = (g->n - 1) * g->sst * es + es;
        g->span = ((g->n - 1) * g->dst + 1) * es;
    } else if (g->rop == R_IBGET) {
        g->bsize = 1 + st_below(r, 16);
        g->n = 1 + st_below(r, 16);
        g->sst = g->bsize + st_below(r, 8);
        g->dst = g->bsize + st_below(r, 4);
        while (g->n > 1 && ((g->n - 1) * g->sst + g->bsize) * es > W)
            g->n /= 2;
        ext = ((g->n - 1) * g->sst + g->bsize) * es;
        g->span = ((g->n - 1) * g->dst + g->bsize) * es;
    } else {
        g->n = g->rop == R_G ? 1 : st_logu(r, 1, W) / es;
        g->n = g->n ? g->n : 1;
        ext = g->span = g->n * es;
    }
    g->off = (size_t)st_below(r, (W - ext) / es + 1) * es;
    g->sym = j < 2 && st_chance(r, 1, 3);
    g->mis = es == 1 ? st_below(r, 8) : 0;
    size_t slot = st_slot();
    g->dest = (g->sym ? L->sym_scratch + (size_t)j * slot : L->priv + (size_t)j * slot) + g->mis;
}

static void issue_get(st_lane_t *L, get_t *g)
{
    const unsigned char *src = st_win_addr(L, g->area, g->src) + g->off;
    shmem_ctx_t c = st_ctx_handle(L, g->ctx);
    memset(g->dest, CANARY, g->span + GUARD);
    L->nops++;
    if (g->type < 0) {
        if (g->rop == R_GET)
            g->api ? shmem_ctx_getmem(c, g->dest, src, g->n, g->tindex)
                   : shmem_getmem(g->dest, src, g->n, g->tindex);
        else
            g->api ? shmem_ctx_getmem_nbi(c, g->dest, src, g->n, g->tindex)
                   : shmem_getmem_nbi(g->dest, src, g->n, g->tindex);
        return;
    }
    rma_types[g->type].fn(g->rop, c, g->api, g->dest, src, (ptrdiff_t)g->dst, (ptrdiff_t)g->sst,
                          g->bsize, g->n, g->tindex);
}

/* The destination against the model: fetched elements where they land,
 * the canary between them and past the end. */
static void check_get(st_lane_t *L, const get_t *g)
{
    const st_win_t *w = st_win(L, g->area, g->target, g->src);
    unsigned char *exp = L->tmp;
    size_t es = g->esz, nb = g->rop == R_IBGET ? g->n : (g->rop == R_IGET ? g->n : 1);
    size_t blk = g->rop == R_IBGET ? g->bsize * es : (g->rop == R_IGET ? es : g->n * es);
    size_t sstep = g->sst * es, dstep = g->dst * es;
    memset(exp, CANARY, g->span + GUARD);
    for (size_t k = 0; k < nb; k++)
        st_win_expect(w, g->off + k * sstep, blk, exp + k * dstep);
    snprintf(L->what, sizeof(L->what),
             "%s window of PE %d on PE %d, offset %zu, %zu elements of %zu bytes%s",
             g->area ? "global" : "heap", g->src, g->target, g->off, g->n, es,
             g->ctx >= 0 ? " (lane context)" : "");
    L->op = g->rop == R_IGET      ? "iget"
            : g->rop == R_IBGET   ? "ibget"
            : g->rop == R_G       ? "g"
            : g->rop == R_GET_NBI ? "get_nbi"
                                  : "get";
    st_check_bytes(L, "fetched", exp, g->dest, g->span + GUARD, 0, NULL);
}

/* shmem_ptr of a window: my own PE's is the address itself; a peer's,
 * where it is mapped, reads what the model says; accessibility holds for
 * every PE; shmem_team_ptr on the lane team agrees. */
static void check_ptr(st_lane_t *L, st_rng_t *r)
{
    int area = (int)st_below(r, ST_NAREAS), x = (int)st_below(r, (uint64_t)st.npes);
    int src = (int)st_below(r, (uint64_t)st.npes);
    size_t W = L->wsize[area], n = st_logu(r, 1, W < 4096 ? W : 4096);
    size_t off = (size_t)st_below(r, W - n + 1);
    unsigned char *a = st_win_addr(L, area, src) + off;
    void *p = shmem_ptr(a, x), *tp = shmem_team_ptr(L->team, a, x);
    L->op = "shmem_ptr";
    snprintf(L->what, sizeof(L->what), "%s window of PE %d on PE %d, offset %zu",
             area ? "global" : "heap", src, x, off);
    st_check_u64(L, "shmem_pe_accessible", 1, (uint64_t)shmem_pe_accessible(x));
    st_check_u64(L, "shmem_addr_accessible", 1, (uint64_t)shmem_addr_accessible(a, x));
    if ((x == st.me && p != a) || p != tp)
        st_fail(L, "shmem_ptr gave %p, shmem_team_ptr %p, the address is %p", p, tp, (void *)a);
    if (p == NULL)
        return;
    st_win_expect(st_win(L, area, x, src), off, n, L->tmp);
    st_check_bytes(L, "read through the pointer", L->tmp, p, n, off, st_win(L, area, x, src));
}

static void do_gets(st_lane_t *L)
{
    st_rng_t r = st_rng(L, st.me, P_GET);
    get_t g[MAX_GETS];
    int n = 1 + (int)st_below(&r, MAX_GETS);
    for (int j = 0; j < n; j++) {
        plan_get(L, &r, &g[j], j);
        issue_get(L, &g[j]);
    }
    st_quiet_all(L);
    for (int j = 0; j < n; j++)
        check_get(L, &g[j]);
    check_ptr(L, &r);
}

/* ---- the step ------------------------------------------------------------ */

void st_step_rma(st_lane_t *L)
{
    plan_t *pl = st_xmalloc(sizeof(plan_t) * (size_t)st.npes);
    for (int p = 0; p < st.npes; p++)
        plan_puts(L, p, &pl[p]);
    L->op = "put";
    for (int j = 0; j < pl[st.me].n; j++)
        issue_put(L, &pl[st.me].op[j], j);
    for (int p = 0; p < st.npes; p++)
        model_puts(L, p, &pl[p]);
    st_lane_sync(L);
    for (int p = 0; p < st.npes; p++)
        for (int j = 0; j < pl[p].n; j++) {
            const put_t *o = &pl[p].op[j];
            if (o->target != st.me)
                continue;
            L->op = st_opname[o->kind];
            snprintf(L->what, sizeof(L->what), "%s %s from PE %d, %zu x %zu bytes at %zu%s",
                     rma_types[o->type].name, o->area ? "global" : "heap", p, o->n, o->esz, o->off,
                     o->ctx >= 0 ? " (lane context)" : "");
            st_check_window(L, o->area, p, o->lo > GUARD ? o->lo - GUARD : 0, o->hi + GUARD);
        }
    L->what[0] = '\0';
    do_gets(L);
    free(pl);
    st_lane_sync(L);
}

/* Every byte of every window of mine against the model; then a sync, so
 * nobody writes them before I am done. */
void st_audit(st_lane_t *L)
{
    L->op = "audit";
    snprintf(L->what, sizeof(L->what), "all windows");
    for (int a = 0; a < ST_NAREAS; a++)
        for (int s = 0; s < st.npes; s++)
            st_check_window(L, a, s, 0, L->wsize[a]);
    L->what[0] = '\0';
    st_lane_sync(L);
}
