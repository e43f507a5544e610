/*
 * stress_pool.c - what a lane creates and destroys as it runs: its teams
 * (strided and 2-D splits of its lane team and of each other, each PE's
 * view of every entry kept in step by the shared stream), its contexts
 * (shmem_ctx_create, shmem_team_create_ctx) and, in lane 0, the heap's
 * blocks (malloc, calloc, align, malloc_with_hints, realloc, free; big
 * ones grow the heap past SHMEM_SYMMETRIC_SIZE while other lanes work).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

/* ---- teams --------------------------------------------------------------- */

/* The members of a uniform entry (lane team, strided split): the same list
 * on every member. */
static int uniform_members(const st_lane_t *L, int e, int *out)
{
    const st_team_t *t = &L->teams[e];
    if (t->kind == TK_LANE) {
        for (int i = 0; i < st.npes; i++)
            out[i] = i;
        return st.npes;
    }
    for (int i = 0; i < t->size; i++)
        out[i] = t->pmembers[t->start + i * t->stride];
    return t->size;
}

static int index_of(const int *m, int n, int pe)
{
    for (int i = 0; i < n; i++)
        if (m[i] == pe)
            return i;
    return -1;
}

int st_team_members(const st_lane_t *L, int e, int pe, int *out)
{
    const st_team_t *t = &L->teams[e];
    if (!t->used)
        return 0;
    if (t->kind == TK_LANE || t->kind == TK_STRIDED) {
        int n = uniform_members(L, e, out);
        return index_of(out, n, pe) >= 0 ? n : 0;
    }
    int idx = index_of(t->pmembers, t->psize, pe), n = 0;
    if (idx < 0)
        return 0;
    int X = t->xrange, P = t->psize;
    if (t->kind == TK_X2D) {
        int row = idx / X;
        for (int i = row * X; i < P && i < (row + 1) * X; i++)
            out[n++] = t->pmembers[i];
    } else {
        for (int i = idx % X; i < P; i += X)
            out[n++] = t->pmembers[i];
    }
    return n;
}

void st_team_desc(const st_lane_t *L, int e, char *buf, size_t cap)
{
    const st_team_t *t = &L->teams[e];
    int m[ST_MAX_PES], n = st_team_members(L, e, st.me, m);
    size_t k;
    switch (t->kind) {
    case TK_LANE: k = (size_t)snprintf(buf, cap, L->id == 0 ? "world" : "lane%d", L->id); break;
    case TK_STRIDED:
        k = (size_t)snprintf(buf, cap, "split(%d,%d,%d of #%d)", t->start, t->stride, t->size,
                             t->parent);
        break;
    default:
        k = (size_t)snprintf(buf, cap, "split_2d(%d of #%d).%c", t->xrange, t->parent,
                             t->kind == TK_X2D ? 'x' : 'y');
        break;
    }
    for (int i = 0; i < n && k + 8 < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%c%d", i ? ',' : '[', m[i]);
    if (n > 0 && k + 2 < cap)
        snprintf(buf + k, cap - k, "]");
}

int st_pick_team(st_lane_t *L, st_rng_t *r, int allow_2d)
{
    int cand[ST_MAX_TEAMS], n = 0;
    for (int e = 0; e < ST_MAX_TEAMS; e++)
        if (L->teams[e].used && (allow_2d || L->teams[e].kind <= TK_STRIDED))
            cand[n++] = e;
    return n ? cand[st_below(r, (uint64_t)n)] : -1;
}

static int free_entry(const st_lane_t *L, int skip)
{
    for (int e = 1; e < ST_MAX_TEAMS; e++)
        if (!L->teams[e].used && e != skip)
            return e;
    return -1;
}

/* What the team handle says against the model: size, my index, every
 * member's world number, and back. */
static void check_team(st_lane_t *L, int e)
{
    st_team_t *t = &L->teams[e];
    int m[ST_MAX_PES], n = st_team_members(L, e, st.me, m);
    char what[64];
    st_team_desc(L, e, L->tdesc, sizeof(L->tdesc));
    if ((n > 0) != (t->h != SHMEM_TEAM_INVALID))
        st_fail(L, "membership: the model says %s, the handle is %s", n ? "member" : "not member",
                t->h != SHMEM_TEAM_INVALID ? "valid" : "SHMEM_TEAM_INVALID");
    if (n == 0)
        return;
    st_check_u64(L, "shmem_team_n_pes", (uint64_t)n, (uint64_t)shmem_team_n_pes(t->h));
    st_check_u64(L, "shmem_team_my_pe", (uint64_t)index_of(m, n, st.me),
                 (uint64_t)shmem_team_my_pe(t->h));
    for (int i = 0; i < n; i++) {
        snprintf(what, sizeof(what), "shmem_team_translate_pe(team, %d, WORLD)", i);
        st_check_u64(L, what, (uint64_t)m[i],
                     (uint64_t)shmem_team_translate_pe(t->h, i, SHMEM_TEAM_WORLD));
    }
    int q = (int)((uint64_t)(L->step * 7 + e) % (uint64_t)st.npes);
    snprintf(what, sizeof(what), "shmem_team_translate_pe(WORLD, %d, team)", q);
    st_check_u64(L, what, (uint64_t)(int64_t)index_of(m, n, q),
                 (uint64_t)(int64_t)shmem_team_translate_pe(SHMEM_TEAM_WORLD, q, t->h));
}

static void random_config(st_rng_t *r, shmem_team_config_t *cfg, long *mask)
{
    *mask = 0;
    cfg->num_contexts = 0;
    if (st_chance(r, 1, 2)) {
        *mask = SHMEM_TEAM_NUM_CONTEXTS;
        cfg->num_contexts = ST_MAX_CTX + (int)st_below(r, 4);
    }
}

static void create_strided(st_lane_t *L, st_rng_t *r, int parent, int e)
{
    st_team_t *t = &L->teams[e];
    int pm[ST_MAX_PES], P = uniform_members(L, parent, pm);
    memset(t, 0, sizeof(*t));
    memcpy(t->pmembers, pm, sizeof(pm));
    t->psize = P;
    t->size = 1 + (int)st_below(r, (uint64_t)P);
    if (t->size == 1) {
        t->stride = (int)st_below(r, 3) - 1;
        t->start = (int)st_below(r, (uint64_t)P);
    } else {
        int smax = (P - 1) / (t->size - 1);
        t->stride = 1 + (int)st_below(r, (uint64_t)smax);
        int span = (t->size - 1) * t->stride;
        if (st_chance(r, 1, 3)) {
            t->stride = -t->stride;
            t->start = span + (int)st_below(r, (uint64_t)(P - span));
        } else {
            t->start = (int)st_below(r, (uint64_t)(P - span));
        }
    }
    t->used = 1;
    t->kind = TK_STRIDED;
    t->parent = parent;
    t->created = L->step;
    t->h = SHMEM_TEAM_INVALID;
    shmem_team_config_t cfg;
    long mask;
    random_config(r, &cfg, &mask);
    L->op = "shmem_team_split_strided";
    st_team_desc(L, e, L->tdesc, sizeof(L->tdesc));
    if (index_of(t->pmembers, t->psize, st.me) < 0)
        return;
    int rc = shmem_team_split_strided(L->teams[parent].h, t->start, t->stride, t->size,
                                      mask ? &cfg : NULL, mask, &t->h);
    L->nops++;
    if (rc != 0)
        st_fail(L, "returned %d", rc);
    check_team(L, e);
    if (t->h != SHMEM_TEAM_INVALID && mask) {
        shmem_team_config_t got;
        shmem_team_get_config(t->h, SHMEM_TEAM_NUM_CONTEXTS, &got);
        st_check_u64(L, "num_contexts", (uint64_t)cfg.num_contexts, (uint64_t)got.num_contexts);
    }
}

static void create_2d(st_lane_t *L, st_rng_t *r, int parent, int ex, int ey)
{
    st_team_t *x = &L->teams[ex], *y = &L->teams[ey];
    int pm[ST_MAX_PES], P = uniform_members(L, parent, pm);
    memset(x, 0, sizeof(*x));
    memcpy(x->pmembers, pm, sizeof(pm));
    x->psize = P;
    x->xrange = 1 + (int)st_below(r, (uint64_t)x->psize);
    x->used = 1;
    x->kind = TK_X2D;
    x->parent = parent;
    x->twin = ey;
    x->created = L->step;
    x->h = SHMEM_TEAM_INVALID;
    *y = *x;
    y->kind = TK_Y2D;
    y->twin = ex;
    shmem_team_config_t cx, cy;
    long mx, my;
    random_config(r, &cx, &mx);
    random_config(r, &cy, &my);
    L->op = "shmem_team_split_2d";
    st_team_desc(L, ex, L->tdesc, sizeof(L->tdesc));
    if (index_of(x->pmembers, x->psize, st.me) < 0)
        return;
    int rc = shmem_team_split_2d(L->teams[parent].h, x->xrange, mx ? &cx : NULL, mx, &x->h,
                                 my ? &cy : NULL, my, &y->h);
    L->nops++;
    if (rc != 0)
        st_fail(L, "returned %d", rc);
    check_team(L, ex);
    check_team(L, ey);
}

static void destroy_ctx(st_lane_t *L, int c)
{
    if (L->ctxs[c].h != SHMEM_CTX_INVALID) {
        shmem_ctx_quiet(L->ctxs[c].h);
        shmem_ctx_destroy(L->ctxs[c].h);
        L->nops++;
    }
    memset(&L->ctxs[c], 0, sizeof(L->ctxs[c]));
    L->ctxs[c].h = SHMEM_CTX_INVALID;
}

static void destroy_team(st_lane_t *L, int e)
{
    for (int c = 0; c < ST_MAX_CTX; c++)
        if (L->ctxs[c].used && L->ctxs[c].team == e)
            destroy_ctx(L, c);
    if (L->teams[e].h != SHMEM_TEAM_INVALID) {
        shmem_team_destroy(L->teams[e].h);
        L->nops++;
    }
    memset(&L->teams[e], 0, sizeof(L->teams[e]));
}

/* A leaf: no entry has it as parent. */
static int is_leaf(const st_lane_t *L, int e)
{
    for (int i = 0; i < ST_MAX_TEAMS; i++)
        if (L->teams[i].used && L->teams[i].parent == e && i != e)
            return 0;
    return 1;
}

static void destroy_entry(st_lane_t *L, int e)
{
    st_team_t *t = &L->teams[e];
    L->op = "shmem_team_destroy";
    st_team_desc(L, e, L->tdesc, sizeof(L->tdesc));
    if (t->kind == TK_X2D || t->kind == TK_Y2D) {
        int x = t->kind == TK_X2D ? e : t->twin, y = L->teams[x].twin;
        destroy_team(L, x);
        destroy_team(L, y);
    } else {
        destroy_team(L, e);
    }
}

void st_step_team(st_lane_t *L)
{
    st_rng_t r = st_rng(L, ST_SHARED, P_TEAM);
    int leaves[ST_MAX_TEAMS], nl = 0, nused = 0;
    for (int e = 1; e < ST_MAX_TEAMS; e++)
        if (L->teams[e].used) {
            nused++;
            if (is_leaf(L, e) && L->teams[e].kind != TK_Y2D)
                leaves[nl++] = e;
        }
    int e1 = free_entry(L, -1), e2 = free_entry(L, e1);
    if (nl > 0 && (e1 < 0 || st_chance(&r, 2, 5))) {
        destroy_entry(L, leaves[st_below(&r, (uint64_t)nl)]);
        return;
    }
    if (e1 < 0)
        return;
    int parent = st_pick_team(L, &r, 0);
    if (e2 >= 0 && st_chance(&r, 1, 3))
        create_2d(L, &r, parent, e1, e2);
    else
        create_strided(L, &r, parent, e1);
    (void)nused;
}

/* ---- contexts ------------------------------------------------------------ */

void st_step_ctx(st_lane_t *L)
{
    st_rng_t r = st_rng(L, ST_SHARED, P_CTX);
    int c = (int)st_below(&r, ST_MAX_CTX);
    if (L->ctxs[c].used) {
        L->op = "shmem_ctx_destroy";
        destroy_ctx(L, c);
        return;
    }
    static const long opts[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE};
    st_ctx_t *x = &L->ctxs[c];
    x->used = 1;
    x->options = opts[st_below(&r, sizeof(opts) / sizeof(opts[0]))];
    x->team = st_chance(&r, 1, 2) ? st_pick_team(L, &r, 1) : -1;
    x->h = SHMEM_CTX_INVALID;
    int m[ST_MAX_PES];
    if (x->team >= 0) {
        L->op = "shmem_team_create_ctx";
        st_team_desc(L, x->team, L->tdesc, sizeof(L->tdesc));
        if (st_team_members(L, x->team, st.me, m) == 0)
            return;
        int rc = shmem_team_create_ctx(L->teams[x->team].h, x->options, &x->h);
        if (rc != 0 || x->h == SHMEM_CTX_INVALID)
            st_fail(L, "options %ld returned %d", x->options, rc);
        shmem_team_t got = SHMEM_TEAM_INVALID;
        shmem_ctx_get_team(x->h, &got);
        if (got != L->teams[x->team].h)
            st_fail(L, "shmem_ctx_get_team: not the team the context was made from");
    } else {
        L->op = "shmem_ctx_create";
        int rc = shmem_ctx_create(x->options, &x->h);
        if (rc != 0 || x->h == SHMEM_CTX_INVALID)
            st_fail(L, "options %ld returned %d", x->options, rc);
    }
    L->nops++;
}

/* The lane's end: contexts, then teams (leaves first), then a sync. */
void st_pool_teardown(st_lane_t *L)
{
    L->op = "teardown";
    for (int c = 0; c < ST_MAX_CTX; c++)
        if (L->ctxs[c].used)
            destroy_ctx(L, c);
    for (int left = 1; left;) {
        left = 0;
        for (int e = 1; e < ST_MAX_TEAMS; e++)
            if (L->teams[e].used && L->teams[e].kind != TK_Y2D) {
                if (is_leaf(L, e))
                    destroy_entry(L, e);
                else
                    left = 1;
            }
    }
    st_lane_sync(L);
}

/* ---- the heap (lane 0) ---------------------------------------------------- */

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)

/* Block b's content on PE owner: a pattern of its own (zeros while calloc'd). */
static uint64_t block_key(const st_block_t *b, int owner)
{
    return (b->key ^ st_mix((uint64_t)owner + 77)) | 1;
}

static void block_expect(const st_block_t *b, int owner, size_t off, size_t n, unsigned char *out)
{
    if (b->zero)
        memset(out, 0, n);
    else
        st_pattern(out, block_key(b, owner), off, n);
}

static void block_check_local(st_lane_t *L, const st_block_t *b, size_t from, size_t to)
{
    for (size_t pos = from; pos < to;) {
        size_t n = to - pos < L->tmp_size ? to - pos : L->tmp_size;
        block_expect(b, st.me, pos, n, L->tmp);
        st_check_bytes(L, "my block", L->tmp, b->p + pos, n, pos, NULL);
        pos += n;
    }
}

/* Whole if small, else its ends and four random 64 KiB ranges. */
static void block_check_sampled(st_lane_t *L, const st_block_t *b, st_rng_t *r)
{
    if (b->size <= 4 * MIB) {
        block_check_local(L, b, 0, b->size);
        return;
    }
    block_check_local(L, b, 0, 4 * KIB);
    block_check_local(L, b, b->size - 4 * KIB, b->size);
    for (int i = 0; i < 4; i++) {
        size_t a = (size_t)st_below(r, b->size - 64 * KIB);
        block_check_local(L, b, a, a + 64 * KIB);
    }
}

/* Each PE reads a random range of a random PE's copy of block bi. */
static void block_read_peer(st_lane_t *L, int bi)
{
    const st_block_t *b = &L->blocks[bi];
    st_rng_t r = st_rng2(L, st.me, P_HEAPREAD, L->nsync);
    int q = (int)st_below(&r, (uint64_t)st.npes);
    size_t max = b->size < L->tmp_size - 64 ? b->size : L->tmp_size - 64;
    size_t n = st_logu(&r, 1, max), off = (size_t)st_below(&r, b->size - n + 1);
    unsigned char *dst = L->tmp2 + st_below(&r, 8);
    L->op = "get from a heap block";
    snprintf(L->what, sizeof(L->what), "block %d (%zu bytes) of PE %d, [%zu,%zu)", bi, b->size, q,
             off, off + n);
    switch (st_below(&r, 3)) {
    case 0: shmem_getmem(dst, b->p + off, n, q); break;
    case 1:
        shmem_getmem_nbi(dst, b->p + off, n, q);
        shmem_quiet();
        break;
    default: shmem_uchar_get(dst, b->p + off, n, q); break;
    }
    L->nops++;
    block_expect(b, q, off, n, L->tmp);
    st_check_bytes(L, "fetched", L->tmp, dst, n, off, NULL);
}

static size_t heap_size_pick(st_rng_t *r)
{
    size_t big_max = st.heap_size + st.heap_size / 2;
    if (big_max > 48 * MIB)
        big_max = 48 * MIB;
    if (big_max < 8 * MIB)
        big_max = 8 * MIB;
    return st_chance(r, 1, 6) ? st_logu(r, 4 * MIB, big_max) : st_logu(r, 1, MIB);
}

static size_t blocks_bytes(const st_lane_t *L)
{
    size_t t = 0;
    for (int i = 0; i < ST_MAX_BLOCKS; i++)
        t += L->blocks[i].used ? L->blocks[i].size : 0;
    return t;
}

static void heap_alloc(st_lane_t *L, st_rng_t *r, int bi)
{
    st_block_t *b = &L->blocks[bi];
    size_t size = heap_size_pick(r);
    memset(b, 0, sizeof(*b));
    b->key = st_hash(st.seed, (uint64_t)L->step, 55, 0, 0);
    b->align = 16;
    switch (st_below(r, 5)) {
    case 0:
        L->op = "shmem_malloc";
        b->p = shmem_malloc(size);
        break;
    case 1: {
        size_t cnt = 1 + (size_t)st_below(r, 16);
        size = (size + cnt - 1) / cnt;
        L->op = "shmem_calloc";
        b->p = shmem_calloc(cnt, size);
        size *= cnt;
        b->zero = 1;
        break;
    }
    case 2:
        b->align = (size_t)1 << (3 + st_below(r, 19));
        L->op = "shmem_align";
        b->p = shmem_align(b->align, size);
        break;
    case 3:
        L->op = "shmem_malloc_with_hints";
        b->p = shmem_malloc_with_hints(size, (long)st_below(r, 4));
        break;
    default:
        L->op = "shmem_realloc(NULL)";
        b->p = shmem_realloc(NULL, size);
        break;
    }
    L->nops++;
    b->size = size;
    snprintf(L->what, sizeof(L->what), "block %d, %zu bytes, alignment %zu", bi, size, b->align);
    if (b->p == NULL)
        st_fail(L, "returned NULL");
    if ((uintptr_t)b->p % b->align != 0)
        st_fail(L, "returned %p, not aligned to %zu", (void *)b->p, b->align);
    b->used = 1;
    if (b->zero) {
        block_check_local(L, b, 0, b->size);
        block_read_peer(L, bi);
        st_lane_sync(L);
        b->zero = 0;
    }
    st_pattern(b->p, block_key(b, st.me), 0, b->size);
}

static void heap_realloc(st_lane_t *L, st_rng_t *r, int bi)
{
    st_block_t *b = &L->blocks[bi];
    size_t old = b->size, size = heap_size_pick(r);
    L->op = "shmem_realloc";
    snprintf(L->what, sizeof(L->what), "block %d, %zu -> %zu bytes", bi, old, size);
    unsigned char *p = shmem_realloc(b->p, size);
    L->nops++;
    if (p == NULL)
        st_fail(L, "returned NULL");
    b->p = p;
    b->size = size;
    b->align = 16;
    if ((uintptr_t)p % 16 != 0)
        st_fail(L, "returned %p, not aligned to 16", (void *)p);
    block_check_local(L, b, 0, old < size ? old : size);
    if (size > old)
        st_pattern(p + old, block_key(b, st.me), old, size - old);
}

/* After a big block: the heap may have grown; what was there must be too. */
static void heap_survivors(st_lane_t *L, st_rng_t *r)
{
    for (int i = 0; i < ST_MAX_BLOCKS; i++)
        if (L->blocks[i].used) {
            snprintf(L->what, sizeof(L->what), "block %d, %zu bytes, after a big allocation", i,
                     L->blocks[i].size);
            block_check_sampled(L, &L->blocks[i], r);
        }
    snprintf(L->what, sizeof(L->what), "lane 0's windows after a big allocation");
    for (int a = 0; a < ST_NAREAS; a++)
        for (int s = 0; s < st.npes; s++)
            st_check_window(L, a, s, 0, L->wsize[a]);
}

void st_step_heap(st_lane_t *L)
{
    st_rng_t r = st_rng(L, ST_SHARED, P_HEAP);
    int used[ST_MAX_BLOCKS], nu = 0, fr = -1;
    for (int i = 0; i < ST_MAX_BLOCKS; i++) {
        if (L->blocks[i].used)
            used[nu++] = i;
        else if (fr < 0)
            fr = i;
    }
    unsigned x = (unsigned)st_below(&r, 10);
    int too_much = blocks_bytes(L) > (512 * MIB) / (size_t)st.npes;
    if (nu > 0 && (too_much || fr < 0 || x >= 7)) {
        int bi = used[st_below(&r, (uint64_t)nu)];
        L->op = "shmem_free";
        shmem_free(L->blocks[bi].p);
        L->nops++;
        memset(&L->blocks[bi], 0, sizeof(L->blocks[bi]));
        return;
    }
    int bi;
    if (nu > 0 && x >= 4) {
        bi = used[st_below(&r, (uint64_t)nu)];
        heap_realloc(L, &r, bi);
    } else {
        bi = fr;
        heap_alloc(L, &r, bi);
    }
    if (L->blocks[bi].size >= 4 * MIB)
        heap_survivors(L, &r);
    st_lane_sync(L);
    block_read_peer(L, bi);
    st_lane_sync(L);
    L->what[0] = '\0';
}

void st_heap_teardown(st_lane_t *L)
{
    for (int i = 0; i < ST_MAX_BLOCKS; i++)
        if (L->blocks[i].used) {
            shmem_free(L->blocks[i].p);
            memset(&L->blocks[i], 0, sizeof(L->blocks[i]));
        }
}
