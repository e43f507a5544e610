/*
 * stress_sig.c - put-with-signal and the point-to-point waits.
 *
 * A signal step: most PEs send one message to a random PE: data into their
 * window there and then a signal (put_signal SET or ADD, blocking or nbi,
 * mem, sized or typed, on a lane context or not), or data, a fence and a
 * flag of the step's flag type (p, a one-element put or atomic_set), or a
 * bare signal_set/signal_add. Every receiver knows from the model who
 * sends it what, waits with one of the wait/test families (signal
 * wait_until, wait_until/_all/_any/_some and _vector, test/_all/_any/_some
 * in a polling loop), then checks the data, the ADD word's exact sum and
 * that nobody else's SET word moved.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

#define N_WAYS 11

/* ---- typed waits: until every unmasked ivars[i] compares to cv as cmp --- */

#define P2P_WAIT(T, N)                                                                           \
    static void wait_##N(int how, void *ivp, size_t n, int *status, int cmp, uint64_t vu)        \
    {                                                                                            \
        T *iv = ivp, v = (T)vu, vec[ST_MAX_PES + 1];                                             \
        size_t idx[ST_MAX_PES + 1], k, c;                                                        \
        for (size_t i = 0; i < n; i++)                                                           \
            vec[i] = v;                                                                          \
        switch (how) {                                                                           \
        case 0:                                                                                  \
            for (size_t i = 0; i < n; i++)                                                       \
                if (!status[i])                                                                  \
                    shmem_##N##_wait_until(&iv[i], cmp, v);                                      \
            break;                                                                               \
        case 1: shmem_##N##_wait_until_all(iv, n, status, cmp, v); break;                        \
        case 2:                                                                                  \
            while ((k = shmem_##N##_wait_until_any(iv, n, status, cmp, v)) != SIZE_MAX)          \
                status[k] = 1;                                                                   \
            break;                                                                               \
        case 3:                                                                                  \
            while ((c = shmem_##N##_wait_until_some(iv, n, idx, status, cmp, v)) > 0)            \
                for (size_t j = 0; j < c; j++)                                                   \
                    status[idx[j]] = 1;                                                          \
            break;                                                                               \
        case 4:                                                                                  \
            while (!shmem_##N##_test_all(iv, n, status, cmp, v))                                 \
                sched_yield();                                                                   \
            break;                                                                               \
        case 5:                                                                                  \
            for (size_t left = n; left > 0;) {                                                   \
                left = 0;                                                                        \
                for (size_t i = 0; i < n; i++)                                                   \
                    left += !status[i];                                                          \
                if (left && (k = shmem_##N##_test_any(iv, n, status, cmp, v)) != SIZE_MAX)       \
                    status[k] = 1;                                                               \
                else if (left)                                                                   \
                    sched_yield();                                                               \
            }                                                                                    \
            break;                                                                               \
        case 6:                                                                                  \
            for (size_t left = n; left > 0;) {                                                   \
                left = 0;                                                                        \
                for (size_t i = 0; i < n; i++)                                                   \
                    left += !status[i];                                                          \
                c = left ? shmem_##N##_test_some(iv, n, idx, status, cmp, v) : 0;                \
                for (size_t j = 0; j < c; j++)                                                   \
                    status[idx[j]] = 1;                                                          \
                if (left && c == 0)                                                              \
                    sched_yield();                                                               \
            }                                                                                    \
            break;                                                                               \
        case 7: shmem_##N##_wait_until_all_vector(iv, n, status, cmp, vec); break;               \
        case 8:                                                                                  \
            while ((k = shmem_##N##_wait_until_any_vector(iv, n, status, cmp, vec)) != SIZE_MAX) \
                status[k] = 1;                                                                   \
            break;                                                                               \
        case 9:                                                                                  \
            while ((c = shmem_##N##_wait_until_some_vector(iv, n, idx, status, cmp, vec)) > 0)   \
                for (size_t j = 0; j < c; j++)                                                   \
                    status[idx[j]] = 1;                                                          \
            break;                                                                               \
        default:                                                                                 \
            for (size_t i = 0; i < n; i++)                                                       \
                while (!status[i] && !shmem_##N##_test(&iv[i], cmp, v))                          \
                    sched_yield();                                                               \
            break;                                                                               \
        }                                                                                        \
    }                                                                                            \
    static void send_##N(shmem_ctx_t c, int api, int how, void *flag, uint64_t vu, int pe)       \
    {                                                                                            \
        T v = (T)vu;                                                                             \
        if (how == 0)                                                                            \
            api ? shmem_ctx_##N##_p(c, flag, v, pe) : shmem_##N##_p(flag, v, pe);                \
        else                                                                                     \
            api ? shmem_ctx_##N##_put(c, flag, &v, 1, pe) : shmem_##N##_put(flag, &v, 1, pe);    \
    }
SHMEM_P2P_TYPES(P2P_WAIT)

#define AMO_SET(T, N)                                                             \
    static void aset_##N(shmem_ctx_t c, int api, void *flag, uint64_t vu, int pe) \
    {                                                                             \
        api ? shmem_ctx_##N##_atomic_set(c, flag, (T)vu, pe)                      \
            : shmem_##N##_atomic_set(flag, (T)vu, pe);                            \
    }
SHMEM_AMO_STD_TYPES(AMO_SET)

typedef struct {
    const char *name;
    size_t size;
    void (*wait)(int how, void *iv, size_t n, int *status, int cmp, uint64_t v);
    void (*send)(shmem_ctx_t c, int api, int how, void *flag, uint64_t v, int pe);
} p2p_type_t;
#define P2P_ENT(T, N) {#N, sizeof(T), wait_##N, send_##N},
static const p2p_type_t p2p_types[] = {SHMEM_P2P_TYPES(P2P_ENT)};
#define N_P2P (sizeof(p2p_types) / sizeof(p2p_types[0]))

typedef struct {
    const char *name;
    void (*set)(shmem_ctx_t c, int api, void *flag, uint64_t v, int pe);
} aset_t;
#define ASET_ENT(T, N) {#N, aset_##N},
static const aset_t asets[] = {SHMEM_AMO_STD_TYPES(ASET_ENT)};

static void *find_aset(const char *name)
{
    for (size_t i = 0; i < sizeof(asets) / sizeof(asets[0]); i++)
        if (strcmp(asets[i].name, name) == 0)
            return (void *)&asets[i];
    return NULL;
}

/* ---- setup --------------------------------------------------------------- */

void st_sig_setup(st_lane_t *L)
{
    size_t n = (size_t)st.npes;
    L->sig = shmem_calloc(n + 1, sizeof(uint64_t));
    L->flags = shmem_calloc(N_P2P * n, 8);
    if (L->sig == NULL || L->flags == NULL)
        st_fail(L, "shmem_calloc of the signal words returned NULL");
    L->sig_model = st_xmalloc(n * (n + 1) * sizeof(uint64_t));
    memset(L->sig_model, 0, n * (n + 1) * sizeof(uint64_t));
}

/* ---- a sender's plan ----------------------------------------------------- */

enum { M_NONE, M_SIG_SET, M_SIG_ADD, M_FLAG, M_SIGNAL_SET, M_SIGNAL_ADD };

typedef struct {
    int mode, form, ctx, api, target, tindex, area, how, nbi;
    size_t off, n;
    uint64_t key, add;
} send_t;

static int ctx_usable(const st_lane_t *L, int c, int pe, int *m)
{
    if (c < 0 || !L->ctxs[c].used || (L->ctxs[c].options & SHMEM_CTX_NOSTORE))
        return 0;
    if (L->ctxs[c].team < 0) {
        for (int i = 0; i < st.npes; i++)
            m[i] = i;
        return st.npes;
    }
    return st_team_members(L, L->ctxs[c].team, pe, m);
}

static void plan_send(st_lane_t *L, int pe, send_t *s)
{
    st_rng_t r = st_rng(L, pe, P_SIG);
    memset(s, 0, sizeof(*s));
    if (st_chance(&r, 1, 5))
        return;
    s->mode = 1 + (int)st_below(&r, 5);
    int m[ST_MAX_PES], nm = 0;
    s->ctx = st_chance(&r, 1, 3) ? (int)st_below(&r, ST_MAX_CTX) : -1;
    if (s->ctx >= 0 && (nm = ctx_usable(L, s->ctx, pe, m)) == 0)
        s->ctx = -1;
    if (s->ctx < 0) {
        nm = st.npes;
        for (int i = 0; i < nm; i++)
            m[i] = i;
    }
    s->api = s->ctx >= 0 || st_chance(&r, 1, 4);
    s->tindex = (int)st_below(&r, (uint64_t)nm);
    s->target = m[s->tindex];
    s->area = st_chance(&r, 1, 4) ? ST_AREA_GLOBAL : ST_AREA_HEAP;
    size_t W = L->wsize[s->area];
    s->form = (int)st_below(&r, 4);
    size_t es = s->form == 1 ? 8 : s->form == 2 ? 4 : 1;
    s->n = st_logu(&r, 1, W / 4) / es;
    s->n = s->n ? s->n : 1;
    s->off = (size_t)st_below(&r, (W - s->n * es) / es + 1) * es;
    s->nbi = (int)st_below(&r, 2);
    s->how = (int)st_below(&r, 3);
    s->add = 1 + st_below(&r, 1000);
    s->key = st_hash(st.seed, (uint64_t)L->step, (uint64_t)pe, (uint64_t)L->id, 4242) | 1;
}

static size_t send_esz(const send_t *s)
{
    return s->form == 1 ? 8 : s->form == 2 ? 4 : 1;
}

static void issue_put_signal(st_lane_t *L, const send_t *s, void *dest, const void *src,
                             uint64_t *sig, uint64_t v, int op)
{
    shmem_ctx_t c = st_ctx_handle(L, s->ctx);
    int pe = s->tindex;
    switch (s->form * 2 + s->nbi) {
    case 0:
        s->api ? shmem_ctx_putmem_signal(c, dest, src, s->n, sig, v, op, pe)
               : shmem_putmem_signal(dest, src, s->n, sig, v, op, pe);
        break;
    case 1:
        s->api ? shmem_ctx_putmem_signal_nbi(c, dest, src, s->n, sig, v, op, pe)
               : shmem_putmem_signal_nbi(dest, src, s->n, sig, v, op, pe);
        break;
    case 2:
        s->api ? shmem_ctx_put64_signal(c, dest, src, s->n, sig, v, op, pe)
               : shmem_put64_signal(dest, src, s->n, sig, v, op, pe);
        break;
    case 3:
        s->api ? shmem_ctx_put64_signal_nbi(c, dest, src, s->n, sig, v, op, pe)
               : shmem_put64_signal_nbi(dest, src, s->n, sig, v, op, pe);
        break;
    case 4:
        s->api ? shmem_ctx_int_put_signal(c, dest, src, s->n, sig, v, op, pe)
               : shmem_int_put_signal(dest, src, s->n, sig, v, op, pe);
        break;
    case 5:
        s->api ? shmem_ctx_int_put_signal_nbi(c, dest, src, s->n, sig, v, op, pe)
               : shmem_int_put_signal_nbi(dest, src, s->n, sig, v, op, pe);
        break;
    case 6:
        s->api ? shmem_ctx_char_put_signal(c, dest, src, s->n, sig, v, op, pe)
               : shmem_char_put_signal(dest, src, s->n, sig, v, op, pe);
        break;
    default:
        s->api ? shmem_ctx_char_put_signal_nbi(c, dest, src, s->n, sig, v, op, pe)
               : shmem_char_put_signal_nbi(dest, src, s->n, sig, v, op, pe);
        break;
    }
}

static void issue_send(st_lane_t *L, const send_t *s, const p2p_type_t *ft, uint64_t vset,
                       uint64_t fv)
{
    if (s->mode == M_NONE)
        return;
    size_t es = send_esz(s);
    unsigned char *src = L->priv, *dest = st_win_addr(L, s->area, st.me) + s->off;
    shmem_ctx_t c = st_ctx_handle(L, s->ctx);
    st_pattern(src, s->key, s->off, s->n * es);
    L->nops++;
    switch (s->mode) {
    case M_SIG_SET:
        issue_put_signal(L, s, dest, src, &L->sig[st.me], vset, SHMEM_SIGNAL_SET);
        break;
    case M_SIG_ADD:
        issue_put_signal(L, s, dest, src, &L->sig[st.npes], s->add, SHMEM_SIGNAL_ADD);
        break;
    case M_SIGNAL_SET:
        s->api ? shmem_ctx_signal_set(c, &L->sig[st.me], vset, s->tindex)
               : shmem_signal_set(&L->sig[st.me], vset, s->tindex);
        break;
    case M_SIGNAL_ADD:
        s->api ? shmem_ctx_signal_add(c, &L->sig[st.npes], s->add, s->tindex)
               : shmem_signal_add(&L->sig[st.npes], s->add, s->tindex);
        break;
    default: {
        void *flag = L->flags + (size_t)(ft - p2p_types) * (size_t)st.npes * 8 +
                     (size_t)st.me * ft->size; /* the type's array of npes flags */
        s->api ? shmem_ctx_putmem(c, dest, src, s->n * es, s->tindex)
               : shmem_putmem(dest, src, s->n * es, s->tindex);
        s->api ? shmem_ctx_fence(c) : shmem_fence();
        const aset_t *a = find_aset(ft->name);
        if (s->how == 2 && a != NULL)
            a->set(c, s->api, flag, fv, s->tindex);
        else
            ft->send(c, s->api, s->how == 2 ? 0 : s->how, flag, fv, s->tindex);
        break;
    }
    }
}

/* ---- the receiver -------------------------------------------------------- */

static void wait_signals(st_lane_t *L, const send_t *sd, const p2p_type_t *ft, uint64_t vset,
                         uint64_t fv)
{
    st_rng_t r = st_rng(L, st.me, P_SIGWAIT);
    int nset = 0, nflag = 0, status[ST_MAX_PES + 1], fstatus[ST_MAX_PES + 1];
    uint64_t add = 0;
    for (int p = 0; p < st.npes; p++) {
        const send_t *s = &sd[p];
        int mine = s->mode != M_NONE && s->target == st.me;
        int set = mine && (s->mode == M_SIG_SET || s->mode == M_SIGNAL_SET);
        status[p] = !set;
        fstatus[p] = !(mine && s->mode == M_FLAG);
        nset += set;
        nflag += !fstatus[p];
        if (mine && (s->mode == M_SIG_ADD || s->mode == M_SIGNAL_ADD))
            add += s->add;
    }
    uint64_t *model = &L->sig_model[(size_t)st.me * (size_t)(st.npes + 1)];
    /* Values only grow from step to step: GE v and GT v-1 hold for v alone. */
    static const int cmps[] = {SHMEM_CMP_EQ, SHMEM_CMP_GE, SHMEM_CMP_GT};
    int cmp = cmps[st_below(&r, 3)], how = (int)st_below(&r, N_WAYS + 1);
    uint64_t cv = cmp == SHMEM_CMP_GT ? vset - 1 : vset;
    L->op = how == N_WAYS ? "signal_wait_until" : "uint64 wait/test family";
    snprintf(L->what, sizeof(L->what), "SET words of %d senders, way %d, cmp %d", nset, how, cmp);
    if (how == N_WAYS) {
        for (int p = 0; p < st.npes; p++)
            if (!status[p])
                st_check_u64(L, "signal_wait_until's value", vset,
                             shmem_signal_wait_until(&L->sig[p], cmp, cv));
    } else if (nset > 0) {
        wait_uint64(how, L->sig, (size_t)st.npes, status, cmp, cv);
    }
    L->op = "signal ADD";
    snprintf(L->what, sizeof(L->what), "ADD word, %" PRIu64 " added this step", add);
    if (add > 0)
        shmem_signal_wait_until(&L->sig[st.npes], SHMEM_CMP_GE, model[st.npes] + add);
    model[st.npes] += add;
    st_check_u64(L, "ADD word (shmem_signal_fetch)", model[st.npes],
                 shmem_signal_fetch(&L->sig[st.npes]));
    L->op = "flag wait";
    cmp = L->step < 29999 ? cmps[st_below(&r, 3)] : SHMEM_CMP_EQ; /* fv wraps at 30000 */
    how = (int)st_below(&r, N_WAYS);
    snprintf(L->what, sizeof(L->what), "%s flags of %d senders, way %d, cmp %d", ft->name, nflag,
             how, cmp);
    if (nflag > 0)
        ft->wait(how, L->flags + (size_t)(ft - p2p_types) * (size_t)st.npes * 8, (size_t)st.npes,
                 fstatus, cmp, cmp == SHMEM_CMP_GT ? fv - 1 : fv);
}

/* After the waits: every message's data, every SET word. */
static void check_received(st_lane_t *L, const send_t *sd, uint64_t vset)
{
    uint64_t *model = &L->sig_model[(size_t)st.me * (size_t)(st.npes + 1)];
    for (int p = 0; p < st.npes; p++) {
        const send_t *s = &sd[p];
        int mine = s->mode != M_NONE && s->target == st.me;
        if (mine && (s->mode == M_SIG_SET || s->mode == M_SIGNAL_SET))
            model[p] = vset;
        char what[64];
        snprintf(what, sizeof(what), "SET word of PE %d", p);
        L->op = "signal SET";
        st_check_u64(L, what, model[p], shmem_signal_fetch(&L->sig[p]));
        if (!mine || s->mode == M_SIGNAL_SET || s->mode == M_SIGNAL_ADD)
            continue;
        static const char *const names[] = {"", "put_signal SET", "put_signal ADD",
                                            "put+fence+flag"};
        L->op = names[s->mode];
        snprintf(L->what, sizeof(L->what), "from PE %d, form %d%s, %zu x %zu bytes at %zu", p,
                 s->form, s->nbi ? " nbi" : "", s->n, send_esz(s), s->off);
        size_t lo = s->off, hi = s->off + s->n * send_esz(s);
        st_check_window(L, s->area, p, lo > 16 ? lo - 16 : 0, hi + 16);
    }
}

void st_step_sig(st_lane_t *L)
{
    st_rng_t r = st_rng(L, ST_SHARED, P_SIG);
    const p2p_type_t *ft = &p2p_types[st_below(&r, N_P2P)];
    uint64_t vset = (uint64_t)L->step + 1, fv = (uint64_t)(L->step % 30000) + 1;
    send_t *sd = st_xmalloc(sizeof(send_t) * (size_t)st.npes);
    for (int p = 0; p < st.npes; p++)
        plan_send(L, p, &sd[p]);
    L->op = "send";
    issue_send(L, &sd[st.me], ft, vset, fv);
    for (int p = 0; p < st.npes; p++) {
        const send_t *s = &sd[p];
        if (s->mode == M_NONE || s->mode == M_SIGNAL_SET || s->mode == M_SIGNAL_ADD)
            continue;
        size_t es = send_esz(s);
        st_win_write(st_win(L, s->area, s->target, p), s->off, s->off + s->n * es, s->key, L->step,
                     p, s->mode == M_FLAG ? OP_PUT_FENCE_FLAG : OP_PUT_SIGNAL + s->nbi);
    }
    wait_signals(L, sd, ft, vset, fv);
    check_received(L, sd, vset);
    L->what[0] = '\0';
    free(sd);
    st_lane_sync(L);
}
