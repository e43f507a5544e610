/*
 * alltoall_nodes.c - the node-aware alltoall (a team over several nodes,
 * or heads by ring or Bruck; coll_nodes.h): each head moves every block of
 * its node, between its members through the mappings, to the other nodes
 * in one pack per head, directly or pairwise (here) or by Bruck
 * (alltoall_bruck.c).
 */
#include <string.h>

#include "coll/alltoall/alltoall_bruck.h"
#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"

/* Member i's source and dest, here. */
#define SRC(i) ((const char *)((i) == g->me ? source : node_peer(g, source, i, "source", routine)))
#define DST(i) ((char *)((i) == g->me ? dest : (void *)node_peer(g, dest, i, "dest", routine)))

/* alltoall between the heads, direct or pairwise: one pack per other
 * node, in node order after mine. Direct: every pack sent, then every
 * block taken; pairwise (ring): round k sends to the node k after mine and
 * takes from the one k before. */
static void alltoall_packs(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int alg,
                           void *dest, const void *source, size_t nbytes, sends_t *q,
                           const char *routine)
{
    int n = g->size, N = nd->n_nodes, L = nd->n_local;
    size_t far = (size_t)(n - L) * nbytes * (size_t)L;
    char *pack = symm_coll_buf_get(g, far, routine), *in = symm_coll_buf_get(g, far, routine);
    char *p = pack;
    for (int k = 1; k < N; k++) {
        int node = (nd->my_node + k) % N;
        char *start = p;
        for (int a = 0; a < L; a++)
            for (int j = 0; j < n; j++)
                if (nd->node_of[j] == node) {
                    memcpy(p, SRC(nd->local[a]) + (size_t)j * nbytes, nbytes);
                    p += nbytes;
                }
        symm_coll_send_to(g, q, tag, 0, nd->leader[node], start, (size_t)(p - start),
                          exchange_how(g, far), routine);
        if (alg == HEADS_DIRECT && k < N - 1)
            continue;
        for (int r = alg == HEADS_DIRECT ? 1 : k; r <= k; r++) {
            int from = (nd->my_node - r + N) % N;
            symm_coll_recv_from(g, tag, 0, nd->leader[from], in,
                                (size_t)nd->count[from] * (size_t)L * nbytes, routine);
            const char *x = in;
            for (int i = 0; i < n; i++)
                if (nd->node_of[i] == from)
                    for (int b = 0; b < L; b++, x += nbytes)
                        memcpy(DST(nd->local[b]) + (size_t)i * nbytes, x, nbytes);
        }
    }
    symm_coll_sends_wait(g, q, routine);
    symm_coll_buf_put(in);
    symm_coll_buf_put(pack);
}

/* alltoall: each head moves every block of its node. It waits for its
 * members to arrive (their sources ready, their dests free), copies the
 * blocks between members of its node through the mappings, sends each
 * other head one message with the blocks from its node's members to that
 * node's (member order, then destination order), writes the blocks from
 * the message it takes from each other head straight into its members'
 * dests, and says done; a member only arrives and waits. Between nodes
 * that is N(N-1) messages where the flat exchange sends n(n-1). */
void symm_coll_alltoall_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                              size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int n = g->size, N = nd->n_nodes, L = nd->n_local, h = nd->local[0];
    if (g->me != h) {
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        node_wait(g, node_word(g, NODE_OUT, h), tag.seq);
        return;
    }
    for (int k = 1; k < L; k++)
        node_wait(g, node_word(g, NODE_IN, nd->local[k]), tag.seq);
    for (int a = 0; a < L; a++)
        for (int b = 0; b < L; b++) {
            int i = nd->local[a], j = nd->local[b];
            memcpy(DST(j) + (size_t)i * nbytes, SRC(i) + (size_t)j * nbytes, nbytes);
        }
    sends_t q;
    symm_coll_sends_init(&q, N, routine);
    int alg = symm_coll_heads_alg(g, nd, nbytes * (size_t)n, 1);
    if (alg == HEADS_BRUCK)
        symm_coll_alltoall_bruck(g, nd, tag, dest, source, nbytes, &q, routine);
    else
        alltoall_packs(g, nd, tag, alg, dest, source, nbytes, &q, routine);
#undef SRC
#undef DST
    node_give(g, nd, tag.seq);
    symm_coll_sends_fini(g, &q, routine);
}
