/*
 * barrier_psync.c - the barrier of a deprecated active set: a counting
 * dissemination on the user's pSync (a team's barrier is the team barrier,
 * team/team_barrier.c; coll_dispatch.c chooses).
 *
 * The team barrier's rounds, but each flag counts arrivals (atomic add of 1
 * at the partner, atomic subtract of 1 by the owner once seen), so pSync is
 * back at SHMEM_SYNC_VALUE when the barrier ends, as the spec requires of
 * the deprecated routines.
 */
#include <stdint.h>

#include "coll/coll_algs.h"
#include "mem/seg.h"
#include "ops/signal.h"
#include "ops/sync.h"

void symm_coll_barrier_psync(symm_group_t *g, int quiet)
{
    symm_instance_t *s = g->s;
    int n = g->size;
    if (quiet)
        symm_quiet(s, &s->ctx_default);
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        long *flag = &g->psync[k];
        int to = symm_group_pe(g, (g->me + dist) % n);
        /* Not an AMO in the sense of ops/amo.h: a network peer's add to
         * this flag is a notification applied by my CPU (transport notify,
         * ucx/am.c), atomic against CPU atomics, so the CPU path stays even
         * under SYMM_AMO_NET. */
        long *r = symm_seg_peer_addr(s, flag, to);
        if (r != NULL)
            __atomic_fetch_add(r, 1, __ATOMIC_RELEASE);
        else
            symm_signal_add_one_remote(s, flag, to, "barrier");
        unsigned polls = 0;
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < 1)
            symm_wait_backoff(s, &polls);
        __atomic_fetch_sub(flag, 1, __ATOMIC_RELAXED);
    }
}
