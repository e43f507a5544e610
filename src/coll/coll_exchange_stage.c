/*
 * coll_exchange_stage.c - fcollect and alltoall in a node-local team past the
 * slot form (staged form, coll_stage.h): every member stages its source in
 * its team scratch, then copies each peer's block out of the peer's staged
 * copy. One wait per peer, no barrier.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_stage.h"

/* per_peer 0: fcollect (every member's whole source, nbytes), 1: alltoall
 * (block me of every member's source, n x nbytes staged). */
void symm_coll_exchange_stage(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                              int per_peer)
{
    int n = g->size, me = g->me;
    size_t at = per_peer ? (size_t)me * nbytes : 0;
    /* Staged first: dest may be source (in place). */
    uint64_t seq = symm_coll_stage_begin(g, source, per_peer ? (size_t)n * nbytes : nbytes);
    char *dst = dest;
    /* Peers in turn from the next one; mine last, while they catch up. */
    for (int k = 1; k <= n; k++) {
        int j = (me + k) % n;
        memcpy(dst + (size_t)j * nbytes, (const char *)symm_coll_stage_block(g, j, seq) + at,
               nbytes);
    }
}
