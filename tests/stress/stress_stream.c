/*
 * stress_stream.c - symm's CPU streams through the aclshmem calls
 * (include/symm_stream.h), lane 0 only: a stream step puts a block into a
 * random PE's window and then a 32-bit signal (SET or ADD) on the lane's
 * stream; every receiver waits for its signals on the host
 * (shmem_int32_wait_until) or on its stream
 * (aclshmemx_signal_wait_until_on_stream + synchronize), then checks the
 * blocks; each PE reads a window back with getmem_on_stream, then
 * quiet_on_stream, and the step ends with barrier_all_on_stream (one lane
 * only: a stream's barrier excludes other threads' collectives) or the lane
 * sync. Streams hold no work across steps (heap calls need that).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symm_stream.h>

#include "stress.h"

static shmemx_stream_t stream;
static int32_t *ssig;       /* [npes]: SET words by source; [npes]: the ADD word */
static int32_t *ssig_model; /* [target * (npes + 1) + i] */

void st_stream_setup(st_lane_t *L)
{
    size_t n = (size_t)st.npes + 1;
    ssig = shmem_calloc(n, sizeof(int32_t));
    ssig_model = st_xmalloc(n * (size_t)st.npes * sizeof(int32_t));
    memset(ssig_model, 0, n * (size_t)st.npes * sizeof(int32_t));
    if (ssig == NULL)
        st_fail(L, "shmem_calloc of the stream signals returned NULL");
}

void st_stream_teardown(st_lane_t *L)
{
    if (stream != NULL && shmemx_stream_destroy(stream) != 0)
        st_fail(L, "shmemx_stream_destroy failed");
    stream = NULL;
}

typedef struct {
    int target, add, host_wait;
    size_t off, n;
    int32_t v;
    uint64_t key;
} spl_t;

static void plan(st_lane_t *L, int pe, spl_t *p)
{
    st_rng_t r = st_rng(L, pe, P_STREAM);
    size_t W = L->wsize[ST_AREA_HEAP];
    p->target = (int)st_below(&r, (uint64_t)st.npes);
    p->n = st_logu(&r, 1, W / 8);
    p->off = (size_t)st_below(&r, W - p->n + 1);
    p->add = st_chance(&r, 1, 2);
    p->v = p->add ? 1 + (int32_t)st_below(&r, 100) : (int32_t)(L->step + 1);
    p->host_wait = st_chance(&r, 1, 2);
    p->key = st_hash(st.seed, (uint64_t)L->step, (uint64_t)pe, (uint64_t)L->id, 9191) | 1;
}

/* My signals: each SET sender's word becomes v, the ADD word the sum. */
static void wait_mine(st_lane_t *L, const spl_t *pl, int host)
{
    int32_t *m = &ssig_model[(size_t)st.me * (size_t)(st.npes + 1)];
    for (int p = 0; p < st.npes; p++)
        if (pl[p].target == st.me) {
            if (pl[p].add)
                m[st.npes] += pl[p].v;
            else
                m[p] = pl[p].v;
        }
    for (int p = 0; p <= st.npes; p++) {
        int32_t *w = &ssig[p];
        if (host)
            shmem_int32_wait_until(w, SHMEM_CMP_EQ, m[p]);
        else
            aclshmemx_signal_wait_until_on_stream(w, ACLSHMEM_CMP_EQ, m[p], stream);
    }
    if (!host && shmemx_stream_synchronize(stream) != 0)
        st_fail(L, "shmemx_stream_synchronize failed");
    L->op = "signal_op_on_stream";
    for (int p = 0; p <= st.npes; p++) {
        char what[64];
        snprintf(what, sizeof(what), "%s word of PE %d", p < st.npes ? "SET" : "ADD", p);
        st_check_u64(L, what, (uint64_t)(uint32_t)m[p], (uint64_t)(uint32_t)ssig[p]);
    }
}

static void get_back(st_lane_t *L)
{
    st_rng_t r = st_rng(L, st.me, P_STREAMGET);
    size_t W = L->wsize[ST_AREA_HEAP];
    int y = (int)st_below(&r, (uint64_t)st.npes);
    size_t n = st_logu(&r, 1, W / 8), off = (size_t)st_below(&r, W - n + 1);
    unsigned char *dst = L->priv + st_slot();
    memset(dst, 0xc3, n);
    /* the window only I write: complete since my last synchronize */
    aclshmemx_getmem_on_stream(dst, st_win_addr(L, ST_AREA_HEAP, st.me) + off, n, y, stream);
    aclshmemx_quiet_on_stream(stream);
    if (shmemx_stream_synchronize(stream) != 0)
        st_fail(L, "shmemx_stream_synchronize failed");
    L->op = "getmem_on_stream";
    snprintf(L->what, sizeof(L->what), "heap window of PE %d on PE %d, [%zu,%zu)", st.me, y, off,
             off + n);
    st_win_expect(st_win(L, ST_AREA_HEAP, y, st.me), off, n, L->tmp);
    st_check_bytes(L, "fetched", L->tmp, dst, n, off, NULL);
}

void st_step_stream(st_lane_t *L)
{
    if (stream == NULL && shmemx_stream_create(&stream) != 0)
        st_fail(L, "shmemx_stream_create failed");
    spl_t *pl = st_xmalloc(sizeof(spl_t) * (size_t)st.npes);
    for (int p = 0; p < st.npes; p++)
        plan(L, p, &pl[p]);
    const spl_t *me = &pl[st.me];
    unsigned char *src = L->priv;
    st_pattern(src, me->key, me->off, me->n);
    L->op = "putmem_on_stream";
    aclshmemx_putmem_on_stream(st_win_addr(L, ST_AREA_HEAP, st.me) + me->off, src, me->n,
                               me->target, stream);
    aclshmemx_signal_op_on_stream(&ssig[me->add ? st.npes : st.me], me->v,
                                  me->add ? ACLSHMEM_SIGNAL_ADD : ACLSHMEM_SIGNAL_SET, me->target,
                                  stream);
    L->nops += 2;
    for (int p = 0; p < st.npes; p++)
        st_win_write(st_win(L, ST_AREA_HEAP, pl[p].target, p), pl[p].off, pl[p].off + pl[p].n,
                     pl[p].key, L->step, p, OP_PUTMEM);
    wait_mine(L, pl, me->host_wait);
    if (shmemx_stream_synchronize(stream) != 0)
        st_fail(L, "shmemx_stream_synchronize failed");
    for (int p = 0; p < st.npes; p++)
        if (pl[p].target == st.me) {
            L->op = "putmem_on_stream";
            snprintf(L->what, sizeof(L->what), "from PE %d, %zu bytes at %zu", p, pl[p].n,
                     pl[p].off);
            size_t lo = pl[p].off, hi = pl[p].off + pl[p].n;
            st_check_window(L, ST_AREA_HEAP, p, lo > 16 ? lo - 16 : 0, hi + 16);
        }
    get_back(L);
    L->nops += 2;
    L->what[0] = '\0';
    free(pl);
    if (st.threads == 1) {
        aclshmemx_barrier_all_on_stream(stream);
        if (shmemx_stream_synchronize(stream) != 0)
            st_fail(L, "shmemx_stream_synchronize failed");
    } else {
        st_lane_sync(L);
    }
}
