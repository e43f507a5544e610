/*
 * reduce_nodes.c - the node-aware reduction (a team over several nodes with
 * several members on some node; coll_nodes.h): each node's head reduces its
 * node through the mappings, the heads exchange partials by messages.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_nodes.h"

/* The head's partial: part[lo, hi) is my node's sources' [lo, hi) reduced
 * in member order, each source read through the mappings once its member
 * has arrived (IN). */
typedef struct node_part {
    symm_group_t *g;
    const nodes_t *nd;
    char *part;
    const char *source;
    size_t elem;
    symm_reduce_fn op;
    uint64_t seq;
    const char *routine;
} node_part_t;

/* Segment s of the result is in my dest: my node's members may copy it. */
static void node_part_landed(void *arg, size_t s)
{
    node_part_t *x = arg;
    __atomic_store_n(node_word(x->g, NODE_SEGS, x->g->me), x->seq * 256 + s + 1,
                     __ATOMIC_RELEASE);
}

/* A member, as head h's pipeline lands the result: copy each segment of
 * every head's slice from h's dest as h's SEGS says it is there, then tell
 * h (DONE). */
static void node_take_segs(symm_group_t *g, const nodes_t *nd, int h, uint64_t seq, void *dest,
                           size_t count, size_t elem, const char *routine)
{
    int N = nd->n_nodes;
    size_t most = symm_coll_reduce_pipe_segs(g, N, count, elem);
    const char *theirs = node_peer(g, dest, h, "dest", routine);
    for (size_t s = 0; s < most; s++) {
        node_wait(g, node_word(g, NODE_SEGS, h), seq * 256 + s + 1);
        for (int k = 0; k < N; k++) {
            size_t lo, hi;
            if (symm_coll_reduce_pipe_seg(g, N, count, elem, k, s, &lo, &hi))
                memcpy((char *)dest + lo * elem, theirs + lo * elem, (hi - lo) * elem);
        }
    }
    __atomic_fetch_add(node_word(g, NODE_DONE, h), 1, __ATOMIC_RELEASE);
}

static void node_part_make(void *arg, size_t lo, size_t hi)
{
    node_part_t *x = arg;
    symm_group_t *g = x->g;
    size_t off = lo * x->elem;
    for (int k = 0; k < x->nd->n_local; k++) {
        int i = x->nd->local[k];
        const char *src = x->source;
        if (i != g->me) {
            node_wait(g, node_word(g, NODE_IN, i), x->seq);
            src = node_peer(g, src, i, "source", x->routine);
        }
        if (k == 0)
            memcpy(x->part + off, src + off, (hi - lo) * x->elem);
        else
            x->op(x->part + off, x->part + off, src + off, hi - lo);
    }
}

/* Reduction: each node's lowest member reduces its node's sources (read
 * through the mappings, in member order) into a partial, the heads exchange
 * partials and reduce them in node order (identical bits on every head):
 * whole below SYMM_REDUCE_SLICE_MIN, else by the pipelined reduce-scatter
 * and allgather (reduce/reduce_pipe.c), which has the head make each
 * segment of the partial just before it first reads it, so the transfers
 * of the first overlap making the rest; every member copies its head's
 * result, pipelined a segment at a time as it lands (SEGS), else whole. */
void symm_coll_reduce_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                            size_t count, size_t elem, symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int N = nd->n_nodes, h = nd->local[0];
    int piped = bytes >= g->s->cfg.coll.reduce_slice_min && count >= (size_t)N &&
                !symm_coll_pair_whole(g, N, bytes);
    if (g->me != h) {
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        if (piped)
            node_take_segs(g, nd, h, tag.seq, dest, count, elem, routine);
        else
            node_take(g, h, tag.seq, dest, dest, bytes, routine);
        return;
    }
    char *part = symm_coll_buf_get(g, bytes, routine);
    node_part_t x = {.g = g,
                     .nd = nd,
                     .part = part,
                     .source = source,
                     .elem = elem,
                     .op = op,
                     .seq = tag.seq,
                     .routine = routine};
    /* The pipeline makes all of part before it writes any of dest (in
     * place, my source): my node's sources are read by then. */
    if (piped) {
        symm_reduce_prep_t prep = {node_part_make, node_part_landed, &x};
        symm_coll_reduce_pipe(g, nd->leader, N, nd->my_node, dest, part, count, elem, op, tag,
                              &prep, routine);
        node_given(g, nd);
        symm_coll_buf_put(part);
        return;
    }
    node_part_make(&x, 0, count);
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
