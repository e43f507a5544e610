/*
 * coll_exchange_ll.c - fcollect and alltoall of small blocks in a node-local
 * team (slot form, coll_ll.h): every member copies its block for each
 * peer into that peer's slot, then its peers' blocks out of its own slots.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_ll.h"

/* per_peer 0: fcollect (my whole source to everyone), 1: alltoall (block
 * j of my source to member j). */
void symm_coll_exchange_ll(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                           int per_peer)
{
    int n = g->size, me = g->me;
    uint64_t seq = symm_coll_ll_begin(g);
    const char *src = source;
    char *dst = dest;
    for (int k = 1; k < n; k++) {
        int j = (me + k) % n;
        symm_coll_ll_send(g, j, seq, per_peer ? src + (size_t)j * nbytes : src, nbytes);
    }
    /* My own block last of the sends' reads: dest may be source (in place). */
    memmove(dst + (size_t)me * nbytes, per_peer ? src + (size_t)me * nbytes : src, nbytes);
    for (int k = 1; k < n; k++) {
        int j = (me + n - k) % n;
        memcpy(dst + (size_t)j * nbytes, symm_coll_ll_recv(g, j, seq), nbytes);
    }
    symm_coll_ll_end(g, seq);
}
