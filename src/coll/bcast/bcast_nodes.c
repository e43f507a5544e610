/*
 * bcast_nodes.c - the node-aware broadcast (a team over several nodes with
 * several members on some node; coll_nodes.h): one message tree between
 * the nodes' heads, the other members copy from their head.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_nodes.h"

/* Broadcast: the root heads its node, each other node's lowest member
 * heads it; a binomial tree of messages over the heads, then every member
 * copies from its head's dest (large blocks among 3 or more nodes: the
 * pipelined chain of bcast_chain.c over the heads, in node order from the
 * root's). Without update_root (the active-set form)
 * the root's dest stays untouched: the root sends, and its node's members
 * copy, from its source. */
void symm_coll_bcast_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                           size_t nbytes, int root, int update_root, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int sync = (tag.seq >> 8) % SYNC_EVERY == 0;
    int N = nd->n_nodes, R = nd->node_of[root];
#define HEAD(node) ((node) == R ? root : nd->leader[node])
    int my_head = HEAD(nd->my_node);
    if (g->me != my_head) {
        const void *from = my_head == root && !update_root ? source : dest;
        node_take(g, my_head, tag.seq, dest, from, nbytes, routine);
        return;
    }
    int v = (nd->my_node - R + N) % N, mask = 1;
    if (symm_coll_bcast_chain_fits(g, N, nbytes)) {
        int prev = v == 0 ? -1 : HEAD((v - 1 + R) % N);
        int next = v == N - 1 ? -1 : HEAD((v + 1 + R) % N);
        if (v == 0 && update_root && dest != source)
            memmove(dest, source, nbytes);
        if (v == 0) /* the root's node has its block already */
            node_give(g, nd, tag.seq);
        symm_coll_bcast_chain(g, tag, prev, next, dest, source, nbytes, sync, routine);
        if (v != 0)
            node_give(g, nd, tag.seq);
        node_given(g, nd);
        return;
    }
    while (mask < N && !(v & mask))
        mask <<= 1;
    const void *out = dest;
    if (v != 0)
        symm_coll_recv_from(g, tag, 0, HEAD((v - mask + R) % N), dest, nbytes, routine);
    else if (!update_root)
        out = source;
    else if (dest != source)
        memmove(dest, source, nbytes);
    node_give(g, nd, tag.seq);
    sends_t q;
    symm_coll_sends_init(&q, 32, routine);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < N)
            symm_coll_send_to(g, &q, tag, 0, HEAD((v + mask + R) % N), out, nbytes,
                              sync ? SEND_SYNC : SEND_SIZE, routine);
#undef HEAD
    node_given(g, nd);
    symm_coll_sends_fini(g, &q, routine);
}
