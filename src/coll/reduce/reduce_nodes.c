/*
 * reduce_nodes.c - the node-aware reduction (a team over several nodes with
 * several members on some node; coll_nodes.h): each node's head reduces its
 * node through the mappings, the heads exchange partials by messages.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_nodes.h"

/* Reduction: each node's lowest member reduces its node's sources (read
 * through the mappings, in member order) into a partial, the heads exchange
 * partials and reduce them in node order (identical bits on every head):
 * whole below SYMM_REDUCE_SLICE_MIN, else by the pipelined reduce-scatter
 * and allgather (reduce/reduce_pipe.c); every member copies its head's
 * result. */
void symm_coll_reduce_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                            size_t count, size_t elem, symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int N = nd->n_nodes, h = nd->local[0];
    if (g->me != h) {
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        node_take(g, h, tag.seq, dest, dest, bytes, routine);
        return;
    }
    char *part = symm_coll_buf_get(g, bytes, routine);
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        const void *x = source;
        if (i != g->me) {
            node_wait(g, node_word(g, NODE_IN, i), tag.seq);
            x = node_peer(g, source, i, "source", routine);
        }
        if (k == 0)
            memcpy(part, x, bytes);
        else
            op(part, part, x, count);
    }
    /* My node's sources are read: dest is free to write, even in place. */
    if (bytes >= g->s->cfg.coll.reduce_slice_min && count >= (size_t)N &&
        !symm_coll_pair_whole(g, N, bytes)) {
        symm_coll_reduce_pipe(g, nd->leader, N, nd->my_node, dest, part, count, elem, op, tag,
                              routine);
        node_give(g, nd, tag.seq);
        node_given(g, nd);
        symm_coll_buf_put(part);
        return;
    }
    sends_t q;
    symm_coll_sends_init(&q, N, routine);
    int how = exchange_how(g, bytes * (size_t)(N - 1));
    for (int k = 1; k < N; k++)
        symm_coll_send_to(g, &q, tag, 0, nd->leader[(nd->my_node + k) % N], part, bytes, how,
                          routine);
    symm_coll_reduce_taken(g, dest, part, count, elem, op, tag, 0, nd->leader, N, nd->my_node,
                           routine);
    node_give(g, nd, tag.seq);
    node_given(g, nd);
    symm_coll_sends_fini(g, &q, routine);
    symm_coll_buf_put(part);
}
