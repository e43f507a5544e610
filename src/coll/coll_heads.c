/*
 * coll_heads.c - how the heads of a team's nodes exchange in the
 * node-aware fcollect, collect and alltoall (declared in coll/coll_nodes.h):
 * the choice (SYMM_COLL_HEADS, symm_coll_heads_alg) and the heads'
 * allgather by each of the three algorithms. Between the heads of N nodes:
 *   direct     up to SYMM_COLL_DIRECT_NODES (8): each head sends to all at once
 *              (collect: its block with its counts, no round between)
 *   bruck      below SYMM_COLL_RING_MIN bytes: ceil(log2 N) rounds
 *              (allgather: doubling; alltoall: slots by distance bits,
 *              alltoall/alltoall_bruck.c)
 *   ring       from it: N-1 rounds to the next head (alltoall: pairwise,
 *              round k to the head k on; alltoall/alltoall_nodes.c)
 */
#include <stdint.h>
#include <string.h>

#include "coll/coll_nodes.h"
#include "runtime/log.h"

int symm_coll_heads_alg(const symm_group_t *g, const nodes_t *nd, size_t bytes, int a2a)
{
    int c = g->s->cfg.coll.heads;
    int N = nd->n_nodes, alg;
    /* Bruck's alltoall moves about rounds/2 times the data (its
     * allgather moves it once): its bytes weighed by its rounds, it gives
     * way to the pairwise rounds sooner. */
    size_t rounds = 0;
    for (int d = 1; a2a && d < N; d <<= 1)
        rounds++;
    if (rounds > 1)
        bytes *= rounds;
    if (c == SYMM_COLL_HEADS_DIRECT)
        alg = HEADS_DIRECT;
    else if (c == SYMM_COLL_HEADS_RING)
        alg = HEADS_RING;
    else if (c == SYMM_COLL_HEADS_BRUCK)
        alg = HEADS_BRUCK;
    else
        alg = N <= 2 || N <= g->s->cfg.coll.direct_nodes ? HEADS_DIRECT
              : bytes < g->s->cfg.coll.ring_min          ? HEADS_BRUCK
                                                         : HEADS_RING;
    /* A ring's rounds are tag rounds (< 256). */
    return alg == HEADS_RING && N > 256 ? HEADS_BRUCK : alg;
}

/* Send (or receive) nodes [a, a+cnt) mod N of the node-ordered buf (node
 * b's block at [off[b], off[b+1])) to (from) head of node `node`, under
 * rounds r and r+1: the range wraps at most once, so two pieces at most,
 * each contiguous; a piece of 0 bytes is not sent (both sides know). */
static void heads_send_range(symm_group_t *g, const nodes_t *nd, sends_t *q, symm_msg_tag_t tag,
                             int r, int node, const char *buf, const size_t *off, int a, int cnt,
                             const char *routine)
{
    int N = nd->n_nodes, end = a + cnt < N ? a + cnt : N;
    int how = exchange_how(g, off[N] - off[0]); /* no head takes more in a round */
    if (off[end] > off[a])
        symm_coll_send_to(g, q, tag, r, nd->leader[node], buf + off[a], off[end] - off[a], how,
                          routine);
    if (a + cnt > N && off[a + cnt - N] > off[0])
        symm_coll_send_to(g, q, tag, r + 1, nd->leader[node], buf, off[a + cnt - N] - off[0], how,
                          routine);
}

static void heads_recv_range(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int r,
                             int node, char *buf, const size_t *off, int a, int cnt,
                             const char *routine)
{
    int N = nd->n_nodes, end = a + cnt < N ? a + cnt : N;
    if (off[end] > off[a])
        symm_coll_recv_from(g, tag, r, nd->leader[node], buf + off[a], off[end] - off[a], routine);
    if (a + cnt > N && off[a + cnt - N] > off[0])
        symm_coll_recv_from(g, tag, r + 1, nd->leader[node], buf, off[a + cnt - N] - off[0],
                            routine);
}

/* Allgather between the heads: node b's block is buf[off[b], off[b+1])
 * (off[N]: the whole), mine filled; on return every block is, each
 * received straight into place (no packing, any block sizes, 0 included).
 * Sends are left in q. Ring: in round r I pass on the block of node
 * my-r (mine first) to the next head and take node my-1-r's from the
 * previous one. Bruck: before round k I hold the 2^k nodes from mine on;
 * I send (the first min(2^k, N-2^k) of) them to the head 2^k before me,
 * and take as many from the head 2^k after me. */
void symm_coll_heads_allgather(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int alg,
                               char *buf, const size_t *off, sends_t *q, const char *routine)
{
    int N = nd->n_nodes, p = nd->my_node;
    if (alg == HEADS_DIRECT) {
        for (int k = 1; k < N; k++)
            heads_send_range(g, nd, q, tag, 0, (p + k) % N, buf, off, p, 1, routine);
        for (int k = 1; k < N; k++) {
            int b = (p - k + N) % N;
            heads_recv_range(g, nd, tag, 0, b, buf, off, b, 1, routine);
        }
    } else if (alg == HEADS_RING) {
        for (int r = 0; r < N - 1; r++) {
            heads_send_range(g, nd, q, tag, r, (p + 1) % N, buf, off, (p - r + N) % N, 1, routine);
            heads_recv_range(g, nd, tag, r, (p - 1 + N) % N, buf, off, (p - 1 - r + 2 * N) % N, 1,
                             routine);
        }
    } else {
        for (int k = 0, have = 1; have < N; k++) {
            int cnt = have < N - have ? have : N - have;
            heads_send_range(g, nd, q, tag, 2 * k, (p - have + N) % N, buf, off, p, cnt, routine);
            heads_recv_range(g, nd, tag, 2 * k, (p + have) % N, buf, off, (p + have) % N, cnt,
                             routine);
            have += cnt;
        }
    }
}
