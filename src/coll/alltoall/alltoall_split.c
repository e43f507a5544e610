/*
 * alltoall_split.c - the node-aware alltoall for large blocks (a team over
 * several nodes with several members on some, blocks of SYMM_COLL_SPLIT_MIN
 * or more; coll_nodes.h): no head. Every member writes its blocks for its
 * own node's members straight into their dests through the mappings, and
 * exchanges its blocks with every member of the other nodes by segmented
 * messages (coll_exchange.c), straight from its source into their dests.
 * The link carries what the heads' form carries, but every member drives
 * its own transfers and nothing is packed or unpacked.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_nodes.h"

typedef struct split_local {
    symm_group_t *g;
    const nodes_t *nd;
    char *dest;
    const char *source;
    size_t nbytes;
    const char *routine;
} split_local_t;

/* While the messages move: my block for each member of my node into its
 * dest (it has arrived: its dest is free), then one count on its DONE. */
static void split_local_copies(void *arg)
{
    split_local_t *x = arg;
    symm_group_t *g = x->g;
    size_t me = (size_t)g->me * x->nbytes;
    for (int k = 0; k < x->nd->n_local; k++) {
        int j = x->nd->local[k];
        const char *from = x->source + (size_t)j * x->nbytes;
        if (j == g->me) {
            memcpy(x->dest + me, from, x->nbytes);
            continue;
        }
        memcpy((char *)node_peer(g, x->dest, j, "dest", x->routine) + me, from, x->nbytes);
        __atomic_fetch_add(node_word(g, NODE_DONE, j), 1, __ATOMIC_RELEASE);
    }
}

/* alltoall, split: arrive (IN), wait for my node's members to arrive,
 * send my blocks for the other nodes, copy my node's blocks while they
 * move, take the other nodes' blocks into place, and return once every
 * member of my node has written its block into my dest (my DONE, reset
 * before I return: nobody adds to it for the next collective before my IN
 * says I am in it). */
void symm_coll_alltoall_split(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                              size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int n = g->size, far = n - nd->n_local;
    __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
    node_arrivals(g, nd, tag.seq);
    exchange_lists_t l;
    symm_coll_exchange_lists_init(&l, far, routine);
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n, i = (g->me - k + n) % n;
        if (nd->node_of[j] != nd->my_node)
            l.to[l.nto++] = j;
        if (nd->node_of[i] != nd->my_node)
            l.from[l.nfrom++] = i;
    }
    split_local_t x = {
        .g = g, .nd = nd, .dest = dest, .source = source, .nbytes = nbytes, .routine = routine};
    symm_coll_exchange_lists(g, tag, dest, source, nbytes, nbytes, &l, split_local_copies, NULL, &x,
                             routine);
    node_given(g, nd);
    symm_coll_exchange_lists_fini(&l);
}
