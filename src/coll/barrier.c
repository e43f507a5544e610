/*
 * barrier.c - barriers: over a team (dissemination on the team's scratch
 * flags) and over a deprecated active set (counting dissemination on the
 * user's pSync).
 *
 * Team barrier, round k: write the team's barrier epoch into the round-k
 * flag of the PE 2^k places on, then wait until my own round-k flag reaches
 * the epoch. Epochs only grow, so a fast peer already in the next barrier
 * cannot confuse a slow one. A mapped peer's flag is a release store, read
 * with acquire: ordering carries through the chain of rounds. An unmapped
 * peer's flag gets 1 added by the transport's notification (one message;
 * the add runs on the owner's CPU).
 *
 * pSync barrier: the same rounds, but each flag counts arrivals (atomic add
 * of 1 at the partner, atomic subtract of 1 by the owner once seen), so
 * pSync is back at SHMEM_SYNC_VALUE when the barrier ends, as the spec
 * requires of the deprecated routines.
 */
#include <stdint.h>

#include "coll/coll.h"
#include "mem/seg.h"
#include "ops/amo.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "team/team.h"

#define FLAG_STRIDE (SYMM_CACHE_LINE / sizeof(uint64_t))

/* pSync flags are longs that remote_add_one adds to as 64-bit words. */
_Static_assert(sizeof(long) == sizeof(uint64_t), "long is not 64 bits");

/* Add 1 to the 64-bit flag on unmapped PE pe: a transport notification
 * (one message, no reply awaited) where the transport has one, else a
 * non-blocking atomic add whose completion a later quiet collects. */
static void remote_add_one(symm_instance_t *s, void *flag, int pe)
{
    size_t off, room;
    int seg = symm_seg_translate(s, flag, &off, &room);
    if (seg != SYMM_SEG_NONE && s->net != NULL && s->net->notify != NULL) {
        int rc = s->net->notify(&s->ctx_default, seg, off, 1, pe);
        if (rc != 0)
            symm_fatal("barrier", "signalling PE %d failed: %s", pe,
                       symm_status_str((symm_status_t)rc));
        return;
    }
    uint64_t one = 1;
    symm_amo_slow(NULL, flag, SYMM_AMO_ADD, sizeof(one), &one, NULL, NULL, 0, pe, "barrier");
}

static void flag_set(symm_instance_t *s, uint64_t *flag, uint64_t value, int pe)
{
    uint64_t *r = symm_seg_peer_addr(s, flag, pe);
    if (r != NULL) {
        __atomic_store_n(r, value, __ATOMIC_RELEASE);
        return;
    }
    /* Each flag is written by one partner, once per barrier, and epochs
     * count barriers, so adding 1 gives the same value as storing the
     * epoch. */
    remote_add_one(s, flag, pe);
}

void symm_team_barrier(struct symm_team *t, int quiet)
{
    symm_instance_t *s = t->inst;
    int n = t->size, me = t->my_idx;
    if (quiet)
        symm_quiet(s, &s->ctx_default);
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (n == 1)
        return;
    uint64_t epoch = ++t->barrier_epoch;
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        uint64_t *flag = (uint64_t *)(void *)t->scratch + (size_t)k * FLAG_STRIDE;
        flag_set(s, flag, epoch, t->members[(me + dist) % n]);
        unsigned polls = 0;
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < epoch)
            symm_wait_backoff(s, &polls);
    }
}

void symm_barrier_world(symm_instance_t *s, int quiet) { symm_team_barrier(s->team_world, quiet); }

void symm_group_barrier(symm_group_t *g, int quiet)
{
    if (g->team != NULL) {
        symm_team_barrier(g->team, quiet);
        return;
    }
    symm_instance_t *s = g->s;
    int n = g->size;
    if (quiet)
        symm_quiet(s, &s->ctx_default);
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        long *flag = &g->psync[k];
        int to = symm_group_pe(g, (g->me + dist) % n);
        long *r = symm_seg_peer_addr(s, flag, to);
        if (r != NULL)
            __atomic_fetch_add(r, 1, __ATOMIC_RELEASE);
        else
            remote_add_one(s, flag, to);
        unsigned polls = 0;
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < 1)
            symm_wait_backoff(s, &polls);
        __atomic_fetch_sub(flag, 1, __ATOMIC_RELAXED);
    }
}
