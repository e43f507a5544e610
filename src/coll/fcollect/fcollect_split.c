/*
 * fcollect_split.c - the node-aware fcollect for large blocks (a team over
 * several nodes with several members on some, blocks of SYMM_COLL_SPLIT_MIN
 * or more; coll_nodes.h): no head. Member r of a node (its place among the
 * node's members) sends its block to member r mod L of each other node (L:
 * that node's members), so every block crosses to each other node once and
 * every member drives its share of the link; then each member copies from
 * its node's members' dests, through the mappings, the blocks they took.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_nodes.h"

/* The member in place r of node q. */
static int split_member(const nodes_t *nd, int n, int q, int r)
{
    for (int i = nd->leader[q]; i < n; i++)
        if (nd->node_of[i] == q && nd->rank[i] == r)
            return i;
    return -1; /* not reached: r < count[q] */
}

/* Who takes member i's block on my node: the member in place rank[i] mod L. */
static int split_taker(const nodes_t *nd, int i)
{
    return nd->local[nd->rank[i] % nd->n_local];
}

/* My node's other members' own blocks, copied from their sources (mapped;
 * readable once the member has arrived: its IN) a piece at a time while
 * the messages move, the rest after them. */
typedef struct split_locals {
    symm_group_t *g;
    const nodes_t *nd;
    char *dest;
    const void *source;
    size_t nbytes, piece, at; /* at: bytes of local block k copied */
    int k;                    /* next member, counted from me (1..n_local-1) */
    uint64_t seq;
    const char *routine;
} split_locals_t;

/* Copy up to x->piece bytes of the next local block; wait for its owner
 * only if `wait`. 1 while some remain. */
static int split_local_piece(split_locals_t *x, int wait)
{
    const nodes_t *nd = x->nd;
    symm_group_t *g = x->g;
    if (x->k >= nd->n_local)
        return 0;
    int j = nd->local[(nd->rank[g->me] + x->k) % nd->n_local];
    uint64_t *in = node_word(g, NODE_IN, j);
    if (!wait && __atomic_load_n(in, __ATOMIC_ACQUIRE) < x->seq)
        return 1;
    node_wait(g, in, x->seq);
    size_t len = x->nbytes - x->at < x->piece ? x->nbytes - x->at : x->piece;
    const char *theirs = node_peer(g, x->source, j, "source", x->routine);
    memcpy(x->dest + (size_t)j * x->nbytes + x->at, theirs + x->at, len);
    x->at += len;
    if (x->at == x->nbytes) {
        x->at = 0;
        x->k++;
    }
    return x->k < nd->n_local;
}

static void split_local_each(void *arg)
{
    (void)split_local_piece(arg, 0);
}

/* Copy from member j of my node (its OUT says they are in) the blocks it
 * took from other nodes (and its own if `own`), then count on its DONE: I
 * have read its source and its dest. */
static void split_copy_from(symm_group_t *g, const nodes_t *nd, int j, char *dest, size_t nbytes,
                            int own, uint64_t seq, const char *routine)
{
    node_wait(g, node_word(g, NODE_OUT, j), seq);
    const char *theirs = node_peer(g, dest, j, "dest", routine);
    for (int i = 0; i < g->size; i++)
        if ((own && i == j) || (nd->node_of[i] != nd->my_node && split_taker(nd, i) == j))
            memcpy(dest + (size_t)i * nbytes, theirs + (size_t)i * nbytes, nbytes);
    __atomic_fetch_add(node_word(g, NODE_DONE, j), 1, __ATOMIC_RELEASE);
}

/* fcollect, split: arrive (IN: my source is readable), send my block to
 * one member of each other node, take the blocks sent to me into place
 * while copying my node's members' blocks from their sources, OUT (what I
 * took is in my dest); then the blocks my node's members took, and return
 * once each of them has read from me (my DONE, reset before I return:
 * nobody adds to it for the next collective before my OUT says I am in
 * it). Only I write my dest. Where source and dest overlap (the same on
 * every member: symmetric), a member's source is overwritten by what it
 * takes: its own block is then copied from its dest with the others. */
void symm_coll_fcollect_split(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                              size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int n = g->size, N = nd->n_nodes, me = g->me;
    void *tmp;
    const void *mine =
        symm_coll_unaliased(g, source, nbytes, dest, nbytes * (size_t)n, &tmp, routine);
    __atomic_store_n(node_word(g, NODE_IN, me), tag.seq, __ATOMIC_RELEASE);
    exchange_lists_t l;
    symm_coll_exchange_lists_init(&l, n, routine);
    for (int k = 1; k < N; k++) {
        int q = (nd->my_node + k) % N;
        l.to[l.nto++] = split_member(nd, n, q, nd->rank[me] % nd->count[q]);
    }
    for (int k = 1; k < n; k++) {
        int i = (me - k + n) % n;
        if (nd->node_of[i] != nd->my_node && split_taker(nd, i) == me)
            l.from[l.nfrom++] = i;
    }
    split_locals_t x = {.g = g,
                        .nd = nd,
                        .dest = dest,
                        .source = source,
                        .nbytes = nbytes,
                        .piece = symm_coll_seg_bytes(g, nbytes, 128),
                        .k = tmp != NULL ? nd->n_local : 1,
                        .seq = tag.seq,
                        .routine = routine};
    /* fcollect sends one block to all: stride 0. */
    symm_coll_exchange_lists(g, tag, dest, mine, nbytes, 0, &l, NULL, split_local_each, &x,
                             routine);
    memcpy((char *)dest + (size_t)me * nbytes, mine, nbytes); /* mine never overlaps dest */
    while (split_local_piece(&x, 1))
        ;
    node_give(g, nd, tag.seq);
    for (int k = 1; k < nd->n_local; k++) {
        int j = nd->local[(nd->rank[me] + k) % nd->n_local];
        split_copy_from(g, nd, j, dest, nbytes, tmp != NULL, tag.seq, routine);
    }
    node_given(g, nd);
    symm_coll_exchange_lists_fini(&l);
    symm_coll_buf_put(tmp);
}
