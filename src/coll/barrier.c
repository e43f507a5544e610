/*
 * barrier.c - barriers: over a team (dissemination on the team's scratch
 * flags) and over a deprecated active set (counting dissemination on the
 * user's pSync).
 *
 * Team barrier, round k: write the team's barrier epoch into the round-k
 * flag of the PE 2^k places on, then wait until my own round-k flag reaches
 * the epoch. Epochs only grow, so a fast peer already in the next barrier
 * cannot confuse a slow one. A mapped peer's flag is a release store, read
 * with acquire: ordering carries through the chain of rounds.
 *
 * pSync barrier: the same rounds, but each flag counts arrivals (atomic add
 * of 1 at the partner, atomic subtract of 1 by the owner once seen), so
 * pSync is back at SHMEM_SYNC_VALUE when the barrier ends, as the spec
 * requires of the deprecated routines.
 */
#include <stdint.h>

#include "coll/coll.h"
#include "ops/amo.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "team/team.h"

#define FLAG_STRIDE (SYMM_CACHE_LINE / sizeof(uint64_t))

static void flag_set(symm_instance_t *s, uint64_t *flag, uint64_t value, int pe)
{
    uint64_t *r = symm_seg_peer_addr(s, flag, pe);
    if (r != NULL) {
        __atomic_store_n(r, value, __ATOMIC_RELEASE);
        return;
    }
    /* Through the network: each flag is written by one partner, once per
     * barrier, and epochs count barriers, so adding 1 gives the same value as
     * storing the epoch, in a non-blocking atomic that needs no round trip
     * (its completion is collected by a later quiet). */
    uint64_t one = 1;
    (void)value;
    symm_amo_slow(NULL, flag, SYMM_AMO_ADD, sizeof(one), &one, NULL, NULL, 0, pe, "barrier");
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
        long one = 1;
        int to = symm_group_pe(g, (g->me + dist) % n);
        SYMM_AMO_DO(NULL, long, flag, to, SYMM_AMO_ADD, &one, NULL, NULL, 0, "barrier",
                    __atomic_fetch_add(r_, 1, __ATOMIC_RELEASE));
        unsigned polls = 0;
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < 1)
            symm_wait_backoff(s, &polls);
        __atomic_fetch_sub(flag, 1, __ATOMIC_RELAXED);
    }
}
