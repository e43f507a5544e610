/*
 * fcollect_nodes.c - the node-aware fcollect (a team over several nodes,
 * or heads by ring or Bruck; coll_nodes.h): each head gathers its node
 * through the mappings, the heads allgather the nodes' blocks
 * (coll_heads.c), every member copies the whole from its head.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_nodes.h"

/* fcollect: each head copies its node's blocks straight from the members'
 * sources (mapped) into place in its dest, the heads allgather the nodes'
 * blocks (symm_coll_heads_allgather: from and into dest where every node's
 * members are consecutive in the team, else through a buffer in node
 * order), and every member then copies the whole result from its head's
 * dest. Between nodes that is N(N-1) messages (direct), N(N-1) in N-1
 * rounds (ring) or N ceil(log2 N) (Bruck) where the flat exchange sends
 * n(n-1). */
void symm_coll_fcollect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                              size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int n = g->size, N = nd->n_nodes, h = nd->local[0], p = nd->my_node;
    size_t total = nbytes * (size_t)n;
    if (g->me != h) {
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        node_take(g, h, tag.seq, dest, dest, total, routine);
        return;
    }
    void *tmp;
    const void *mine = symm_coll_unaliased(g, source, nbytes, dest, total, &tmp, routine);
    size_t here[65], *off = N < 65 ? here : malloc(sizeof(size_t) * (size_t)(N + 1));
    if (off == NULL)
        symm_fatal(routine, "out of memory for %d offsets", N + 1);
    off[0] = 0;
    for (int b = 0; b < N; b++)
        off[b + 1] = off[b] + (size_t)nd->count[b] * nbytes;
    /* Node order: dest itself where nodes are runs of the team. */
    char *buf = nd->contig ? dest : symm_coll_buf_get(g, total, routine);
    node_arrivals(g, nd, tag.seq);
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        const void *x = i == g->me ? mine : node_peer(g, source, i, "source", routine);
        memmove(buf + off[p] + (size_t)k * nbytes, x, nbytes);
    }
    /* My node's sources are read: its members may go on. */
    sends_t q;
    symm_coll_sends_init(&q, 2 * N, routine);
    symm_coll_heads_allgather(g, nd, tag, symm_coll_heads_alg(g, nd, total, 0), buf, off,
                              &q, routine);
    if (!nd->contig) {
        int *at = malloc(sizeof(int) * (size_t)N); /* blocks of each node placed so far */
        if (at == NULL)
            symm_fatal(routine, "out of memory for %d counters", N);
        memset(at, 0, sizeof(int) * (size_t)N);
        for (int i = 0; i < n; i++) {
            int b = nd->node_of[i];
            memcpy((char *)dest + (size_t)i * nbytes, buf + off[b] + (size_t)at[b]++ * nbytes,
                   nbytes);
        }
        free(at);
    }
    node_give(g, nd, tag.seq);
    node_given(g, nd);
    symm_coll_sends_fini(g, &q, routine);
    if (buf != dest)
        symm_coll_buf_put(buf);
    if (off != here)
        free(off);
    symm_coll_buf_put(tmp);
}
