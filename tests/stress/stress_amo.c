/*
 * stress_amo.c - atomics of every width, and the distributed lock.
 *
 * Per lane and per AMO type, every PE holds: a counter everybody adds to
 * (add, inc, fetch_add, fetch_inc, blocking and nbi), a ticket counter
 * (fetch_inc; each fetched ticket is marked in the owner's ticket array,
 * so a ticket handed out twice or skipped shows), a word of bits in which
 * PE p owns the bits b with b % npes == p (and/or/xor, fetching or not),
 * and one word per source PE that only that PE changes (set, fetch, swap,
 * compare_swap that must succeed or must fail). After a sync every owner
 * checks each word against the model; fetched values are checked exactly
 * where the model knows them (own words, own bits) and for range
 * otherwise (counters). A lock step: each PE takes the lane's lock
 * (set_lock or a test_lock loop) and adds to a counter of a random PE with
 * get, add, put and quiet; the sum must come out exact.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

#define MAX_AMO 8

enum {
    A_FETCH,
    A_SET,
    A_SWAP,
    A_FETCH_NBI,
    A_SWAP_NBI, /* ext */
    A_CSWAP,
    A_CSWAP_NBI,
    A_FINC,
    A_INC,
    A_FADD,
    A_ADD,
    A_FINC_NBI,
    A_FADD_NBI, /* std */
    A_AND,
    A_OR,
    A_XOR,
    A_FAND,
    A_FOR,
    A_FXOR,
    A_FAND_NBI,
    A_FOR_NBI,
    A_FXOR_NBI /* bit */
};
static const char *const amo_name[] = {"atomic_fetch",
                                       "atomic_set",
                                       "atomic_swap",
                                       "atomic_fetch_nbi",
                                       "atomic_swap_nbi",
                                       "atomic_compare_swap",
                                       "atomic_compare_swap_nbi",
                                       "atomic_fetch_inc",
                                       "atomic_inc",
                                       "atomic_fetch_add",
                                       "atomic_add",
                                       "atomic_fetch_inc_nbi",
                                       "atomic_fetch_add_nbi",
                                       "atomic_and",
                                       "atomic_or",
                                       "atomic_xor",
                                       "atomic_fetch_and",
                                       "atomic_fetch_or",
                                       "atomic_fetch_xor",
                                       "atomic_fetch_and_nbi",
                                       "atomic_fetch_or_nbi",
                                       "atomic_fetch_xor_nbi"};

typedef void (*amo_fn)(int op, shmem_ctx_t c, int api, void *dest, void *fetch, uint64_t v,
                       uint64_t cond, int pe);

#define RAW(T, x) (*(T *)memcpy(&(T){0}, &(x), sizeof(T)))

#define AMO_EXT(T, N)                                                                           \
    static void amoe_##N(int op, shmem_ctx_t c, int api, void *dest, void *fetch, uint64_t vr,  \
                         uint64_t cr, int pe)                                                   \
    {                                                                                           \
        T *d = dest, *f = fetch, v = RAW(T, vr), r = 0;                                         \
        (void)cr;                                                                               \
        switch (op) {                                                                           \
        case A_FETCH:                                                                           \
            r = api ? shmem_ctx_##N##_atomic_fetch(c, d, pe) : shmem_##N##_atomic_fetch(d, pe); \
            break;                                                                              \
        case A_SET:                                                                             \
            api ? shmem_ctx_##N##_atomic_set(c, d, v, pe) : shmem_##N##_atomic_set(d, v, pe);   \
            return;                                                                             \
        case A_SWAP:                                                                            \
            r = api ? shmem_ctx_##N##_atomic_swap(c, d, v, pe)                                  \
                    : shmem_##N##_atomic_swap(d, v, pe);                                        \
            break;                                                                              \
        case A_FETCH_NBI:                                                                       \
            api ? shmem_ctx_##N##_atomic_fetch_nbi(c, f, d, pe)                                 \
                : shmem_##N##_atomic_fetch_nbi(f, d, pe);                                       \
            return;                                                                             \
        default:                                                                                \
            api ? shmem_ctx_##N##_atomic_swap_nbi(c, f, d, v, pe)                               \
                : shmem_##N##_atomic_swap_nbi(f, d, v, pe);                                     \
            return;                                                                             \
        }                                                                                       \
        memcpy(fetch, &r, sizeof r);                                                            \
    }
SHMEM_AMO_EXT_TYPES(AMO_EXT)

#define AMO_STD(T, N)                                                                          \
    static void amos_##N(int op, shmem_ctx_t c, int api, void *dest, void *fetch, uint64_t vr, \
                         uint64_t cr, int pe)                                                  \
    {                                                                                          \
        T *d = dest, *f = fetch, v = RAW(T, vr), cond = RAW(T, cr), r = 0;                     \
        switch (op) {                                                                          \
        case A_CSWAP:                                                                          \
            r = api ? shmem_ctx_##N##_atomic_compare_swap(c, d, cond, v, pe)                   \
                    : shmem_##N##_atomic_compare_swap(d, cond, v, pe);                         \
            break;                                                                             \
        case A_CSWAP_NBI:                                                                      \
            api ? shmem_ctx_##N##_atomic_compare_swap_nbi(c, f, d, cond, v, pe)                \
                : shmem_##N##_atomic_compare_swap_nbi(f, d, cond, v, pe);                      \
            return;                                                                            \
        case A_FINC:                                                                           \
            r = api ? shmem_ctx_##N##_atomic_fetch_inc(c, d, pe)                               \
                    : shmem_##N##_atomic_fetch_inc(d, pe);                                     \
            break;                                                                             \
        case A_INC:                                                                            \
            api ? shmem_ctx_##N##_atomic_inc(c, d, pe) : shmem_##N##_atomic_inc(d, pe);        \
            return;                                                                            \
        case A_FADD:                                                                           \
            r = api ? shmem_ctx_##N##_atomic_fetch_add(c, d, v, pe)                            \
                    : shmem_##N##_atomic_fetch_add(d, v, pe);                                  \
            break;                                                                             \
        case A_ADD:                                                                            \
            api ? shmem_ctx_##N##_atomic_add(c, d, v, pe) : shmem_##N##_atomic_add(d, v, pe);  \
            return;                                                                            \
        case A_FINC_NBI:                                                                       \
            api ? shmem_ctx_##N##_atomic_fetch_inc_nbi(c, f, d, pe)                            \
                : shmem_##N##_atomic_fetch_inc_nbi(f, d, pe);                                  \
            return;                                                                            \
        default:                                                                               \
            api ? shmem_ctx_##N##_atomic_fetch_add_nbi(c, f, d, v, pe)                         \
                : shmem_##N##_atomic_fetch_add_nbi(f, d, v, pe);                               \
            return;                                                                            \
        }                                                                                      \
        memcpy(fetch, &r, sizeof r);                                                           \
    }
SHMEM_AMO_STD_TYPES(AMO_STD)

#define AMO_BIT_OP(N, OP, F, FN)                                      \
    case F:                                                           \
        r = api ? shmem_ctx_##N##_atomic_fetch_##OP(c, d, v, pe)      \
                : shmem_##N##_atomic_fetch_##OP(d, v, pe);            \
        break;                                                        \
    case FN:                                                          \
        api ? shmem_ctx_##N##_atomic_fetch_##OP##_nbi(c, f, d, v, pe) \
            : shmem_##N##_atomic_fetch_##OP##_nbi(f, d, v, pe);       \
        return;
#define AMO_BIT(T, N)                                                                          \
    static void amob_##N(int op, shmem_ctx_t c, int api, void *dest, void *fetch, uint64_t vr, \
                         uint64_t cr, int pe)                                                  \
    {                                                                                          \
        T *d = dest, *f = fetch, v = RAW(T, vr), r = 0;                                        \
        (void)cr;                                                                              \
        switch (op) {                                                                          \
        case A_AND:                                                                            \
            api ? shmem_ctx_##N##_atomic_and(c, d, v, pe) : shmem_##N##_atomic_and(d, v, pe);  \
            return;                                                                            \
        case A_OR:                                                                             \
            api ? shmem_ctx_##N##_atomic_or(c, d, v, pe) : shmem_##N##_atomic_or(d, v, pe);    \
            return;                                                                            \
        case A_XOR:                                                                            \
            api ? shmem_ctx_##N##_atomic_xor(c, d, v, pe) : shmem_##N##_atomic_xor(d, v, pe);  \
            return;                                                                            \
            AMO_BIT_OP(N, and, A_FAND, A_FAND_NBI)                                             \
            AMO_BIT_OP(N, or, A_FOR, A_FOR_NBI)                                                \
            AMO_BIT_OP(N, xor, A_FXOR, A_FXOR_NBI)                                             \
        default: return;                                                                       \
        }                                                                                      \
        memcpy(fetch, &r, sizeof r);                                                           \
    }
SHMEM_AMO_BIT_TYPES(AMO_BIT)

typedef struct {
    const char *name;
    amo_fn fn;
} amo_ent_t;
#define AENT_E(T, N) {#N, amoe_##N},
#define AENT_S(T, N) {#N, amos_##N},
#define AENT_B(T, N) {#N, amob_##N},
static const amo_ent_t ext_fns[] = {SHMEM_AMO_EXT_TYPES(AENT_E)};
static const amo_ent_t std_fns[] = {SHMEM_AMO_STD_TYPES(AENT_S)};
static const amo_ent_t bit_fns[] = {SHMEM_AMO_BIT_TYPES(AENT_B)};
#define N_EXT ((int)(sizeof(ext_fns) / sizeof(ext_fns[0])))

/* The ext list with what each type has. */
typedef struct {
    const st_type_t *t;
    amo_fn ext, std, bit;
} amo_type_t;
static amo_type_t atypes[sizeof(ext_fns) / sizeof(ext_fns[0])];

static amo_fn find_fn(const amo_ent_t *tab, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(tab[i].name, name) == 0)
            return tab[i].fn;
    return NULL;
}

/* ---- slots --------------------------------------------------------------- */

enum { S_CNT, S_TCK, S_BITS, S_OWN };
static size_t slot(int ti, int what, int src)
{
    return (size_t)ti * (size_t)(S_OWN + st.npes) + (size_t)what +
           (size_t)(what == S_OWN ? src : 0);
}
static size_t n_slots(void)
{
    return (size_t)N_EXT * (size_t)(S_OWN + st.npes);
}
static uint64_t *model_of(st_lane_t *L, int pe)
{
    return L->amo_model + (size_t)pe * n_slots();
}

static st_wide_t wide(const st_type_t *t, uint64_t raw)
{
    st_wide_t w;
    t->load(&raw, &w);
    return w;
}
static uint64_t raw(const st_type_t *t, st_wide_t w)
{
    uint64_t r = 0;
    t->store(&w, &r);
    return r;
}
static uint64_t raw_int(const st_type_t *t, uint64_t v)
{
    st_wide_t w = {v, (long double)v, 0};
    return raw(t, w);
}
static uint64_t width_mask(const st_type_t *t)
{
    return t->size >= 8 ? ~0ull : (1ull << (8 * t->size)) - 1;
}
/* The bits PE pe owns in a word of type t. */
static uint64_t own_bits(const st_type_t *t, int pe)
{
    uint64_t m = 0;
    for (unsigned b = (unsigned)pe; b < 8 * t->size; b += (unsigned)st.npes)
        m |= 1ull << b;
    return m;
}

void st_amo_setup(st_lane_t *L)
{
    for (int i = 0; i < N_EXT; i++) {
        atypes[i].t = st_type(ext_fns[i].name);
        atypes[i].ext = ext_fns[i].fn;
        atypes[i].std = find_fn(std_fns, sizeof(std_fns) / sizeof(std_fns[0]), ext_fns[i].name);
        atypes[i].bit = find_fn(bit_fns, sizeof(bit_fns) / sizeof(bit_fns[0]), ext_fns[i].name);
    }
    L->amo = shmem_calloc(n_slots(), 8);
    L->tickets = shmem_calloc((size_t)st.npes * MAX_AMO, sizeof(long));
    L->lock = shmem_calloc(2, sizeof(long));
    if (L->amo == NULL || L->tickets == NULL || L->lock == NULL)
        st_fail(L, "shmem_calloc of the AMO words returned NULL");
    L->lock_cnt = L->lock + 1;
    size_t mb = n_slots() * (size_t)st.npes * sizeof(uint64_t);
    L->amo_model = st_xmalloc(mb);
    memset(L->amo_model, 0, mb);
    L->lock_model = st_xmalloc(sizeof(long) * (size_t)st.npes);
    memset(L->lock_model, 0, sizeof(long) * (size_t)st.npes);
}

/* ---- a PE's plan --------------------------------------------------------- */

enum { CHK_NONE, CHK_EXACT, CHK_RANGE, CHK_BITS, CHK_TICKET };

typedef struct {
    int op, ti, target, ctx, api, check, post, what;
    uint64_t v, cond, expect, mask;
    uint64_t fetched; /* the result (raw) */
} amo_t;

typedef struct {
    int n;
    amo_t op[MAX_AMO];
} amo_plan_t;

static int pick_op(st_rng_t *r, const amo_type_t *at, int *what)
{
    for (;;) {
        int k = (int)st_below(r, 5);
        if (k == 0 && at->std) {
            static const int ops[] = {A_FINC,     A_INC,      A_FADD, A_ADD,
                                      A_FINC_NBI, A_FADD_NBI, A_FETCH};
            *what = S_CNT;
            return ops[st_below(r, 7)];
        }
        if (k == 1 && at->bit) {
            *what = S_BITS;
            return A_AND + (int)st_below(r, 9);
        }
        if (k == 2 && at->std) {
            *what = S_TCK;
            return A_FINC;
        }
        if (k >= 3) {
            *what = S_OWN;
            return at->std ? (int)st_below(r, 7) : (int)st_below(r, 5);
        }
    }
}

/* The value of op (raw) and, for own words and bits, the model's effect
 * now: what a fetch must return and what the word becomes. */
static void plan_value(st_rng_t *r, amo_t *o, uint64_t *word, int pe)
{
    const st_type_t *t = atypes[o->ti].t;
    uint64_t x = st_below(r, 1000);
    st_wide_t cur = wide(t, *word);
    o->check = CHK_NONE;
    if (o->what == S_CNT) {
        o->v = raw_int(t, 1 + st_below(r, 15));
        o->check = (o->op == A_INC || o->op == A_ADD) ? CHK_NONE : CHK_RANGE;
        return;
    }
    if (o->what == S_TCK) {
        o->check = CHK_TICKET;
        return;
    }
    if (o->what == S_BITS) {
        uint64_t mine = own_bits(t, pe), sub = st_next(r) & mine;
        o->mask = mine;
        o->v = raw_int(t, (o->op == A_AND || o->op == A_FAND || o->op == A_FAND_NBI) ? ~sub : sub);
        o->expect = *word & mine;
        uint64_t w = cur.u, v = wide(t, o->v).u;
        int k = (o->op - A_AND) % 3;
        w = k == 0 ? (w & v) : k == 1 ? (w | v) : (w ^ v);
        *word = raw_int(t, w);
        o->check = o->op >= A_FAND ? CHK_BITS : CHK_NONE;
        return;
    }
    o->v = raw_int(t, x);
    o->expect = *word;
    o->check = o->op == A_SET ? CHK_NONE : CHK_EXACT;
    switch (o->op) {
    case A_SET:
    case A_SWAP:
    case A_SWAP_NBI: *word = o->v; break;
    case A_CSWAP:
    case A_CSWAP_NBI:
        if (st_chance(r, 1, 3)) {
            st_wide_t c = cur;
            c.u += 1;
            c.re += 1;
            o->cond = raw(t, c); /* must fail: not the current value */
        } else {
            o->cond = *word;
            *word = o->v;
        }
        break;
    default: break;
    }
}

static int same_word(const amo_t *a, const amo_t *b)
{
    return a->target == b->target && a->ti == b->ti && a->what == b->what;
}

static void plan_amo(st_lane_t *L, int pe, amo_plan_t *pl, uint64_t *scratch_model, int tck_ti)
{
    st_rng_t r = st_rng(L, pe, P_AMO);
    pl->n = 1 + (int)st_below(&r, MAX_AMO);
    for (int j = 0; j < pl->n; j++) {
        amo_t *o = &pl->op[j];
        memset(o, 0, sizeof(*o));
        o->ti = (int)st_below(&r, (uint64_t)N_EXT);
        o->op = pick_op(&r, &atypes[o->ti], &o->what);
        if (o->what == S_TCK)
            o->ti = tck_ti; /* one type's tickets a step: one numbering */
        o->ctx = -1;
        if (st_chance(&r, 1, 3)) {
            int c = (int)st_below(&r, ST_MAX_CTX);
            if (L->ctxs[c].used && L->ctxs[c].team < 0 && !(L->ctxs[c].options & SHMEM_CTX_NOSTORE))
                o->ctx = c;
        }
        o->api = o->ctx >= 0 || st_chance(&r, 1, 4);
        o->target = (int)st_below(&r, (uint64_t)st.npes);
        uint64_t *w = &scratch_model[(size_t)o->target * n_slots() + slot(o->ti, o->what, pe)];
        plan_value(&r, o, w, pe);
    }
    /* Order changes of one word: a fence (same context next) or a quiet
     * after every op on it that is not complete on return. */
    for (int j = 0; j < pl->n; j++) {
        amo_t *o = &pl->op[j];
        int blocking_fetch = o->op == A_FETCH || o->op == A_SWAP || o->op == A_CSWAP ||
                             o->op == A_FINC || o->op == A_FADD || o->op == A_FAND ||
                             o->op == A_FOR || o->op == A_FXOR;
        if (blocking_fetch || (o->what != S_OWN && o->what != S_BITS))
            continue;
        for (int k = j + 1; k < pl->n; k++)
            if (same_word(o, &pl->op[k])) {
                o->post = pl->op[k].ctx == o->ctx ? 1 + (int)st_below(&r, 2) : 2;
                break;
            }
    }
}

/* ---- issuing and checking ------------------------------------------------ */

static void issue_amo(st_lane_t *L, amo_t *o)
{
    const amo_type_t *at = &atypes[o->ti];
    void *dest = L->amo + 8 * slot(o->ti, o->what, st.me);
    shmem_ctx_t c = st_ctx_handle(L, o->ctx);
    amo_fn fn = o->op <= A_SWAP_NBI ? at->ext : o->op <= A_FADD_NBI ? at->std : at->bit;
    o->fetched = 0;
    fn(o->op, c, o->api, dest, &o->fetched, o->v, o->cond, o->target);
    L->nops++;
    if (o->post == 1)
        o->api ? shmem_ctx_fence(c) : shmem_fence();
    else if (o->post == 2)
        o->api ? shmem_ctx_quiet(c) : shmem_quiet();
}

static void check_fetch(st_lane_t *L, const amo_t *o, uint64_t base, uint64_t total)
{
    const st_type_t *t = atypes[o->ti].t;
    char what[160];
    L->op = amo_name[o->op];
    snprintf(L->what, sizeof(L->what), "%s on PE %d, %s word%s", t->name, o->target,
             o->what == S_CNT    ? "counter"
             : o->what == S_TCK  ? "ticket"
             : o->what == S_BITS ? "bits"
                                 : "own",
             o->ctx >= 0 ? " (lane context)" : "");
    uint64_t got = o->fetched & width_mask(t);
    switch (o->check) {
    case CHK_EXACT: {
        st_wide_t e = wide(t, o->expect), g = wide(t, o->fetched);
        char es[64], gs[64];
        st_wide_fmt(t, &e, es, sizeof(es));
        st_wide_fmt(t, &g, gs, sizeof(gs));
        snprintf(what, sizeof(what), "fetched (expected %s, got %s)", es, gs);
        st_check_u64(L, what, o->expect & width_mask(t), got);
        break;
    }
    case CHK_BITS:
        st_check_u64(L, "fetched value's own bits", o->expect & o->mask, got & o->mask);
        break;
    case CHK_RANGE:
    case CHK_TICKET: {
        uint64_t d = (got - (base & width_mask(t))) & width_mask(t);
        L->nchecks++;
        int inj = st_inject_now(L);
        if (d > total || inj)
            st_fail(L, "fetched %" PRIu64 ": expected within [%" PRIu64 ", %" PRIu64 "]%s", got,
                    base & width_mask(t), ((base + total) & width_mask(t)) - (uint64_t)inj,
                    inj ? " [injected]" : "");
        break;
    }
    default: break;
    }
}

/* Each PE's ops replayed: the counters' and tickets' totals, the own and
 * bit words' final values (already in the scratch model). */
static void model_totals(const amo_plan_t *pl, uint64_t *cnt_add, uint64_t *tck_add)
{
    for (int p = 0; p < st.npes; p++)
        for (int j = 0; j < pl[p].n; j++) {
            const amo_t *o = &pl[p].op[j];
            const st_type_t *t = atypes[o->ti].t;
            size_t k = (size_t)o->target * (size_t)N_EXT + (size_t)o->ti;
            if (o->what == S_CNT && o->op != A_FETCH)
                cnt_add[k] += (o->op == A_INC || o->op == A_FINC || o->op == A_FINC_NBI)
                                  ? 1
                                  : wide(t, o->v).u;
            if (o->what == S_TCK)
                tck_add[k]++;
        }
}

static void mark_ticket(st_lane_t *L, const amo_t *o, uint64_t base)
{
    const st_type_t *t = atypes[o->ti].t;
    uint64_t idx = ((o->fetched & width_mask(t)) - base) & width_mask(t);
    if (idx >= (uint64_t)st.npes * MAX_AMO)
        return; /* check_fetch fails it */
    shmem_long_p(&L->tickets[idx], (long)(((uint64_t)L->step << 16) | (uint64_t)(st.me + 1)),
                 o->target);
}

static void check_words(st_lane_t *L)
{
    uint64_t *m = model_of(L, st.me);
    char what[96];
    L->op = "AMO words";
    for (int ti = 0; ti < N_EXT; ti++) {
        const st_type_t *t = atypes[ti].t;
        snprintf(L->what, sizeof(L->what), "%s", t->name);
        for (size_t s = slot(ti, 0, 0); s < slot(ti + 1, 0, 0); s++) {
            uint64_t got = 0;
            size_t w = s - slot(ti, 0, 0);
            memcpy(&got, L->amo + 8 * s, t->size);
            snprintf(what, sizeof(what), "%s %s word", t->name,
                     w == S_CNT    ? "counter"
                     : w == S_TCK  ? "ticket"
                     : w == S_BITS ? "bits"
                                   : "own");
            if (w >= S_OWN)
                snprintf(what + strlen(what), sizeof(what) - strlen(what), " of PE %zu", w - S_OWN);
            st_check_u64(L, what, m[s] & width_mask(t), got & width_mask(t));
        }
    }
}

/* The owner's ticket array: the step's tickets 0..total-1 each marked by
 * a PE of this step, as many by each PE as it took from me. */
static void check_tickets(st_lane_t *L, const amo_plan_t *pl, uint64_t total)
{
    int per_src[ST_MAX_PES] = {0}, seen[ST_MAX_PES] = {0};
    for (int p = 0; p < st.npes; p++)
        for (int j = 0; j < pl[p].n; j++)
            per_src[p] += pl[p].op[j].what == S_TCK && pl[p].op[j].target == st.me;
    L->op = "atomic_fetch_inc tickets";
    snprintf(L->what, sizeof(L->what), "%" PRIu64 " tickets of PE %d", total, st.me);
    for (uint64_t i = 0; i < total; i++) {
        uint64_t m = (uint64_t)L->tickets[i];
        int src = (int)(m & 0xffff) - 1;
        L->nchecks++;
        if ((long)(m >> 16) != L->step || src < 0 || src >= st.npes)
            st_fail(L,
                    "ticket %" PRIu64 " not marked at this step (marker 0x%" PRIx64
                    "): a ticket handed out twice or skipped",
                    i, m);
        seen[src]++;
    }
    for (int p = 0; p < st.npes; p++) {
        char what[64];
        snprintf(what, sizeof(what), "tickets marked by PE %d", p);
        st_check_u64(L, what, (uint64_t)per_src[p], (uint64_t)seen[p]);
    }
}

/* The counters and ticket counters of every PE after this step's adds. */
static void model_add(uint64_t *next, const uint64_t *cnt_add, const uint64_t *tck_add)
{
    for (int pe = 0; pe < st.npes; pe++)
        for (int ti = 0; ti < N_EXT; ti++) {
            const st_type_t *t = atypes[ti].t;
            size_t k = (size_t)pe * (size_t)N_EXT + (size_t)ti;
            uint64_t *c = &next[(size_t)pe * n_slots() + slot(ti, S_CNT, 0)];
            uint64_t *q = &next[(size_t)pe * n_slots() + slot(ti, S_TCK, 0)];
            if (!atypes[ti].std)
                continue;
            *c = raw_int(t, wide(t, *c).u + cnt_add[k]);
            *q = raw_int(t, wide(t, *q).u + tck_add[k]);
        }
}

void st_step_amo(st_lane_t *L)
{
    size_t ns = n_slots() * (size_t)st.npes, nk = (size_t)st.npes * (size_t)N_EXT;
    uint64_t *next = st_xmalloc(ns * sizeof(uint64_t));
    memcpy(next, L->amo_model, ns * sizeof(uint64_t));
    st_rng_t r = st_rng(L, ST_SHARED, P_AMO);
    int tck_ti;
    do
        tck_ti = (int)st_below(&r, (uint64_t)N_EXT);
    while (!atypes[tck_ti].std);
    amo_plan_t *pl = st_xmalloc(sizeof(amo_plan_t) * (size_t)st.npes);
    for (int p = 0; p < st.npes; p++)
        plan_amo(L, p, &pl[p], next, tck_ti);
    uint64_t *cnt_add = st_xmalloc(nk * sizeof(uint64_t)),
             *tck_add = st_xmalloc(nk * sizeof(uint64_t));
    memset(cnt_add, 0, nk * sizeof(uint64_t));
    memset(tck_add, 0, nk * sizeof(uint64_t));
    model_totals(pl, cnt_add, tck_add);
    model_add(next, cnt_add, tck_add);
    amo_plan_t *me = &pl[st.me];
    for (int j = 0; j < me->n; j++) {
        L->op = amo_name[me->op[j].op];
        issue_amo(L, &me->op[j]);
    }
    st_quiet_all(L);
    for (int j = 0; j < me->n; j++) {
        amo_t *o = &me->op[j];
        size_t k = (size_t)o->target * (size_t)N_EXT + (size_t)o->ti;
        uint64_t base = L->amo_model[(size_t)o->target * n_slots() + slot(o->ti, o->what, 0)];
        check_fetch(L, o, base, o->what == S_TCK ? tck_add[k] - 1 : cnt_add[k]);
        if (o->what == S_TCK)
            mark_ticket(L, o, base);
    }
    memcpy(L->amo_model, next, ns * sizeof(uint64_t));
    st_lane_sync(L);
    check_words(L);
    check_tickets(L, pl, tck_add[(size_t)st.me * (size_t)N_EXT + (size_t)tck_ti]);
    L->what[0] = '\0';
    free(next);
    free(pl);
    free(cnt_add);
    free(tck_add);
    st_lane_sync(L);
}

/* ---- the lock ------------------------------------------------------------ */

#define MAX_CRIT 3

typedef struct {
    int target, way, ctx;
    long add;
} crit_t;

static int plan_crit(st_lane_t *L, int pe, crit_t *c)
{
    st_rng_t r = st_rng(L, pe, P_LOCK);
    int n = (int)st_below(&r, MAX_CRIT + 1);
    for (int i = 0; i < n; i++) {
        c[i].target = (int)st_below(&r, (uint64_t)st.npes);
        c[i].way = (int)st_below(&r, 4);
        c[i].add = 1 + (long)st_below(&r, 100);
        c[i].ctx = -1;
        int k = (int)st_below(&r, ST_MAX_CTX);
        if (st_chance(&r, 1, 3) && L->ctxs[k].used && L->ctxs[k].team < 0 &&
            !(L->ctxs[k].options & SHMEM_CTX_NOSTORE))
            c[i].ctx = k;
    }
    return n;
}

/* One critical section: the lock (set_lock, or test_lock until it is
 * mine), a get, an add, a put completed by a quiet, the release. */
static void critical(st_lane_t *L, const crit_t *c)
{
    shmem_ctx_t x = st_ctx_handle(L, c->ctx);
    long v;
    if (c->way & 1) {
        while (shmem_test_lock(L->lock) != 0)
            sched_yield();
    } else {
        shmem_set_lock(L->lock);
    }
    if (c->ctx >= 0) {
        v = shmem_ctx_long_g(x, L->lock_cnt, c->target) + c->add;
        shmem_ctx_long_put(x, L->lock_cnt, &v, 1, c->target);
        shmem_ctx_quiet(x);
    } else if (c->way & 2) {
        shmem_long_get(&v, L->lock_cnt, 1, c->target);
        v += c->add;
        shmem_long_p(L->lock_cnt, v, c->target);
        shmem_quiet();
    } else {
        v = shmem_long_g(L->lock_cnt, c->target) + c->add;
        shmem_long_put(L->lock_cnt, &v, 1, c->target);
        shmem_quiet();
    }
    shmem_clear_lock(L->lock);
    L->nops += 4;
}

void st_step_lock(st_lane_t *L)
{
    crit_t c[MAX_CRIT];
    L->op = "lock";
    for (int p = 0; p < st.npes; p++) {
        int n = plan_crit(L, p, c);
        for (int i = 0; i < n; i++)
            L->lock_model[c[i].target] += c[i].add;
        if (p == st.me)
            for (int i = 0; i < n; i++)
                critical(L, &c[i]);
    }
    st_lane_sync(L);
    snprintf(L->what, sizeof(L->what), "counter of PE %d guarded by the lane's lock", st.me);
    L->op = "set_lock/get/add/put/clear_lock";
    st_check_u64(L, "counter", (uint64_t)L->lock_model[st.me], (uint64_t)*L->lock_cnt);
    L->what[0] = '\0';
    st_lane_sync(L);
}
