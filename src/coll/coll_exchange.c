/*
 * coll_exchange.c - the flat message exchange (a group with unmapped
 * members, no node-aware layout) of fcollect and alltoall: one round, every
 * member sends a block to every other and takes theirs into place.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"

/* fcollect (per_peer 0: my whole source to every member) and alltoall
 * (per_peer 1: block j of my source to member j), each block landing at
 * offset me*nbytes of the receiver's dest. Sends go to the next member
 * first, receives take the previous one first: no member is everyone's
 * first. */
void symm_coll_exchange_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                            int per_peer, const char *routine)
{
    int n = g->size;
    size_t stride = per_peer ? nbytes : 0;
    void *tmp;
    const char *src = symm_coll_unaliased(g, source, per_peer ? nbytes * (size_t)n : nbytes, dest,
                                          nbytes * (size_t)n, &tmp, routine);
    symm_msg_tag_t tag = symm_group_next_tag(g);
    sends_t q;
    symm_coll_sends_init(&q, n, routine);
    int how = exchange_how(g, nbytes * (size_t)(n - 1));
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        symm_coll_send_to(g, &q, tag, 0, j, src + (size_t)j * stride, nbytes, how, routine);
    }
    for (int k = 1; k < n; k++) {
        int j = (g->me - k + n) % n;
        symm_coll_recv_from(g, tag, 0, j, (char *)dest + (size_t)j * nbytes, nbytes, routine);
    }
    memmove((char *)dest + (size_t)g->me * nbytes, src + (size_t)g->me * stride, nbytes);
    symm_coll_sends_fini(g, &q, routine);
    symm_coll_buf_put(tmp);
}
