/*
 * work.c - the work a stream runs: symm_stream_exec, on the stream's thread.
 *
 * Items come checked and resolved from the entry points (api/api_stream.c). The
 * thread runs an item through the core routines (ops/): puts and gets as
 * symm_rma_put/get (complete locally on return), a signal after a fence so
 * it is ordered after the stream's puts, barriers with quiet. A wait on a
 * signal word backs off further than the core waits (sleeps after a while):
 * it holds only the stream, while the caller's threads compute, so a stream
 * stuck on a slow peer should not take their core.
 *
 * Must never: run on the caller's thread, or look up a handle (a team id):
 * the item carries what it acts on.
 */
#include <time.h>

#include "mem/seg.h"
#include "ops/amo.h"
#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "stream/stream.h"
#include "team/team.h"

/* Yields after the core's spin, before a stream's wait starts to sleep, and
 * the longest sleep. */
#define SYMM_STREAM_WAIT_YIELDS 1000u
#define SYMM_STREAM_WAIT_SLEEP_MAX_NS 50000L

/* ---- on the stream's thread ---------------------------------------------- */

static int acl_cmp(int32_t v, int cmp, int32_t x)
{
    switch (cmp) {
    case ACLSHMEM_CMP_EQ: return v == x;
    case ACLSHMEM_CMP_NE: return v != x;
    case ACLSHMEM_CMP_GT: return v > x;
    case ACLSHMEM_CMP_GE: return v >= x;
    case ACLSHMEM_CMP_LT: return v < x;
    default: return v <= x;
    }
}

static void stream_signal(symm_instance_t *s, const symm_stream_item_t *item)
{
    int32_t *sig = item->dst, v = item->value;
    int pe = item->pe;
    symm_fence(s, &s->ctx_default);
    int32_t *r = symm_amo_target(NULL, sig, sizeof(int32_t), &pe, item->routine);
    if (symm_likely(r != NULL)) {
        if (item->arg == ACLSHMEM_SIGNAL_SET)
            __atomic_store_n(r, v, __ATOMIC_RELEASE);
        else
            __atomic_fetch_add(r, v, __ATOMIC_RELEASE);
        return;
    }
    symm_amo_slow(NULL, sig, item->arg == ACLSHMEM_SIGNAL_SET ? SYMM_AMO_SET : SYMM_AMO_ADD,
                  sizeof(int32_t), &v, NULL, NULL, 0, pe, item->routine);
}

/* Spin and yield as every wait does, then sleep up to 50 us between polls. */
static void stream_wait(symm_instance_t *s, const symm_stream_item_t *item)
{
    const int32_t *sig = item->dst;
    unsigned polls = 0;
    long sleep_ns = 1000;
    while (!acl_cmp(__atomic_load_n(sig, __ATOMIC_ACQUIRE), item->arg, item->value)) {
        if (polls < (unsigned)s->spin + SYMM_STREAM_WAIT_YIELDS) {
            symm_wait_backoff(s, &polls);
            continue;
        }
        if (s->net)
            s->net->progress(s);
        symm_wait_slow(s, 0); /* the heartbeat of a long wait */
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < SYMM_STREAM_WAIT_SLEEP_MAX_NS)
            sleep_ns *= 2;
    }
}

void symm_stream_exec(const symm_stream_item_t *item)
{
    symm_instance_t *s = symm_cur;
    if (symm_unlikely(s == NULL))
        symm_fatal(item->routine, "a stream ran this after shmem_finalize: synchronize or "
                                  "destroy streams before finalizing");
    switch ((symm_stream_op_t)item->op) {
    case SYMM_STREAM_PUT:
        symm_rma_put(NULL, item->dst, item->src, item->n, item->pe, 0, item->routine);
        break;
    case SYMM_STREAM_GET:
        symm_rma_get(NULL, item->dst, item->src, item->n, item->pe, 0, item->routine);
        break;
    case SYMM_STREAM_SIGNAL: stream_signal(s, item); break;
    case SYMM_STREAM_WAIT: stream_wait(s, item); break;
    case SYMM_STREAM_BARRIER:
        if (item->dst != NULL)
            symm_team_barrier(item->dst, 1);
        else
            symm_barrier_world(s, 1);
        break;
    case SYMM_STREAM_QUIET:
    case SYMM_STREAM_SYNC: symm_quiet(s, &s->ctx_default); break;
    }
}
