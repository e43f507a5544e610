/*
 * bcast_flag.c - broadcast in a node-local team past the slot form: the
 * root stores the team's count of these broadcasts in its flag word, each
 * member pulls the root's source into its dest once it sees it and stores
 * the count in its done word, and the root returns once every member's
 * done word has it (its source is then reusable). Each member waits once,
 * for the root, and the root once, for the members, where the pull form's
 * two barriers make every member wait twice for all the others: on an
 * oversubscribed machine each of those waits is a context switch.
 *
 * The words only grow and are read with >=: a member waiting for the
 * root's count s cannot see a later broadcast's, because a root returns
 * from s only once every member has finished s.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_pull.h"
#include "mem/seg.h"
#include "ops/sync.h"

_Static_assert(SYMM_TEAM_LL_OFF + SYMM_TEAM_LL_PES * SYMM_TEAM_LL_DEPTH * SYMM_TEAM_LL_SLOT <=
                       SYMM_TEAM_BFLAG_OFF &&
                   SYMM_TEAM_BDONE_OFF + SYMM_CACHE_LINE <= SYMM_TEAM_SLOT_SIZE,
               "the flag broadcast's words follow the slot rings in the team scratch");

void symm_coll_bcast_flag(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                          int update_root, const char *routine)
{
    struct symm_team *t = g->team;
    symm_instance_t *s = g->s;
    uint64_t seq = ++t->bflag_seq;
    uint64_t *flag = (uint64_t *)(void *)(t->scratch + SYMM_TEAM_BFLAG_OFF);
    uint64_t *done = (uint64_t *)(void *)(t->scratch + SYMM_TEAM_BDONE_OFF);
    if (g->me == root) {
        /* Release: the source's contents come before the count. */
        __atomic_store_n(flag, seq, __ATOMIC_RELEASE);
        if (update_root && dest != source)
            memmove(dest, source, nbytes);
        for (int k = 1; k < g->size; k++) {
            int pe = symm_group_pe(g, (root + k) % g->size);
            symm_wait_at_least(s, symm_seg_peer_addr(s, done, pe), seq);
        }
        return;
    }
    symm_wait_at_least(s, symm_seg_peer_addr(s, flag, symm_group_pe(g, root)), seq);
    pull(g, dest, source, nbytes, root, routine);
    /* Release: my reads of the root's source come before it may reuse it. */
    __atomic_store_n(done, seq, __ATOMIC_RELEASE);
}
