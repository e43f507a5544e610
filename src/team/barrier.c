/*
 * barrier.c - the team barrier: dissemination on the team's scratch flags.
 *
 * Round k: write the team's barrier epoch into the round-k flag of the PE
 * 2^k places on, then wait until my own round-k flag reaches the epoch.
 * Epochs only grow, so a fast peer already in the next barrier cannot
 * confuse a slow one. A mapped peer's flag is a release store, read with
 * acquire: ordering carries through the chain of rounds. An unmapped peer's
 * flag gets 1 added by the transport's notification (one message; the add
 * runs on the owner's CPU).
 *
 * Lives next to the teams because splits and destroy need it; collectives
 * (coll/) call it, never the reverse.
 */
#include <stdint.h>

#include "mem/seg.h"
#include "ops/signal.h"
#include "ops/sync.h"
#include "team/team.h"

#define FLAG_STRIDE (SYMM_CACHE_LINE / sizeof(uint64_t))

static void flag_set(symm_instance_t *s, uint64_t *flag, uint64_t value, int pe)
{
    /* CPU stores and atomics even under SYMM_AMO_NET (ops/amo.h): network
     * peers reach these flags only through notifications the owner's CPU
     * applies (transport notify, ucx/am.c), never through NIC atomics. */
    uint64_t *r = symm_seg_peer_addr(s, flag, pe);
    if (r != NULL) {
        __atomic_store_n(r, value, __ATOMIC_RELEASE);
        return;
    }
    /* Each flag is written by one partner, once per barrier, and epochs
     * count barriers, so adding 1 gives the same value as storing the
     * epoch. */
    symm_signal_add_one_remote(s, flag, pe, "barrier");
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
    int taken = symm_team_doing(t, "a barrier inside symm", -1, 0);
    /* Barriers count rounds by epoch: two threads of a PE in the same
     * team's barrier (a stream's and the program's) take turns. Any order
     * matches the other PEs': barriers are all alike. */
    int locked = __atomic_load_n(&s->threads_share_teams, __ATOMIC_RELAXED);
    if (locked)
        pthread_mutex_lock(&t->barrier_lock);
    uint64_t epoch = ++t->barrier_epoch;
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        uint64_t *flag = (uint64_t *)(void *)t->scratch + (size_t)k * FLAG_STRIDE;
        flag_set(s, flag, epoch, t->members[(me + dist) % n]);
        unsigned polls = 0;
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < epoch)
            symm_wait_backoff(s, &polls);
    }
    if (locked)
        pthread_mutex_unlock(&t->barrier_lock);
    symm_doing_end(taken);
}

void symm_barrier_world(symm_instance_t *s, int quiet) { symm_team_barrier(s->team_world, quiet); }
