/*
 * collect_nodes.c - the node-aware collect (a team over several nodes, or
 * heads by ring or Bruck; coll_nodes.h): as fcollect_nodes.c, with every
 * member's own size, so the heads first allgather their nodes' counts.
 *
 * A member publishes its byte count in its collect count word and arrives;
 * its head reads the counts of its node through the mappings, the heads
 * allgather the nodes' counts (first tag), which gives every member's
 * offset (an exclusive scan in member order) and every node's total, then
 * the nodes' blocks (second tag, each head copying its members' sources
 * into place first); the head publishes the result's length (TOTAL) and
 * every member copies it. Every member takes both tags, so all count
 * alike. The spec forbids source and dest to overlap: nothing copes with
 * it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_nodes.h"

/* A head's bookkeeping, in one allocation (mem). cnt: every member's byte
 * count, in node order (node b's from cnt[first[b]], in member order; member
 * i's at cnt[pos[i]]); coff/noff: the node-ordered offsets of the counts
 * (bytes) and of the data; len/at: each member's count and offset in dest;
 * fill: members placed per node while planning, then each node's bytes. */
typedef struct collect_plan {
    size_t *mem;
    size_t *len, *at, *coff, *noff, *pos, *first, *fill;
    uint64_t *cnt;
} collect_plan_t;

/* A member that is not its node's head: publish my count, arrive, copy the
 * result from my head's dest once it is there, tell the head. */
static void collect_member(symm_group_t *g, int h, uint64_t seq, void *dest, size_t nbytes,
                           const char *routine)
{
    __atomic_store_n(g->count, (uint64_t)nbytes, __ATOMIC_RELAXED);
    __atomic_store_n(node_word(g, NODE_IN, g->me), seq, __ATOMIC_RELEASE);
    node_wait(g, node_word(g, NODE_OUT, h), seq);
    uint64_t total = __atomic_load_n(node_word(g, NODE_TOTAL, h), __ATOMIC_RELAXED);
    if (total != 0)
        memcpy(dest, node_peer(g, dest, h, "dest", routine), (size_t)total);
    __atomic_fetch_add(node_word(g, NODE_DONE, h), 1, __ATOMIC_RELEASE);
}

/* Allocate the plan; lay out the counts (coff, first, pos). */
static void collect_plan(symm_group_t *g, const nodes_t *nd, collect_plan_t *cp,
                         const char *routine)
{
    int n = g->size, N = nd->n_nodes;
    size_t *mem = malloc(sizeof(size_t) * (size_t)(4 * n + 3 * (N + 1)) + sizeof(uint64_t) * n);
    if (mem == NULL)
        symm_fatal(routine, "out of memory for %d members' counts", n);
    cp->mem = mem;
    cp->len = mem;
    cp->at = cp->len + n;
    cp->coff = cp->at + n;
    cp->noff = cp->coff + N + 1;
    cp->pos = cp->noff + N + 1;
    cp->first = cp->pos + n;
    cp->fill = cp->first + n;
    cp->cnt = (uint64_t *)(void *)(cp->fill + N + 1);
    cp->coff[0] = 0;
    for (int b = 0; b < N; b++) {
        cp->first[b] = cp->coff[b] / sizeof(uint64_t);
        cp->coff[b + 1] = cp->coff[b] + (size_t)nd->count[b] * sizeof(uint64_t);
        cp->fill[b] = 0;
    }
    for (int i = 0; i < n; i++)
        cp->pos[i] = cp->first[nd->node_of[i]] + cp->fill[nd->node_of[i]]++;
}

/* Direct: pack my node's blocks (read through the mappings) and send them
 * to every other head under tag_data at once; the pack, its length in
 * *mine. */
static char *collect_send_direct(symm_group_t *g, const nodes_t *nd, const collect_plan_t *cp,
                                 const void *source, symm_msg_tag_t tag_data, sends_t *q,
                                 size_t *mine, const char *routine)
{
    int N = nd->n_nodes, p = nd->my_node;
    for (int k = 0; k < nd->n_local; k++)
        *mine += (size_t)cp->cnt[cp->pos[nd->local[k]]];
    char *pk = symm_coll_buf_get(g, *mine + 1, routine);
    size_t o = 0;
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        size_t li = (size_t)cp->cnt[cp->pos[i]];
        if (li != 0)
            memcpy(pk + o, i == g->me ? source : node_peer(g, source, i, "source", routine), li);
        o += li;
    }
    int how = exchange_how(g, *mine * (size_t)(N - 1));
    for (int k = 1; k < N && *mine != 0; k++)
        symm_coll_send_to(g, q, tag_data, 0, nd->leader[(p + k) % N], pk, *mine, how, routine);
    return pk;
}

/* Every count known: each member's length and offset in dest (len, at),
 * each node's bytes (fill) and offset (noff: in dest itself where nodes
 * are runs of the team). The result's length. */
static size_t collect_offsets(symm_group_t *g, const nodes_t *nd, collect_plan_t *cp)
{
    int n = g->size, N = nd->n_nodes;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        cp->len[i] = (size_t)cp->cnt[cp->pos[i]];
        cp->at[i] = total;
        total += cp->len[i];
    }
    cp->noff[0] = 0;
    for (int b = 0; b < N; b++) {
        size_t t = 0;
        for (size_t j = cp->first[b]; j < cp->first[b] + (size_t)nd->count[b]; j++)
            t += (size_t)cp->cnt[j];
        cp->noff[b] = nd->contig ? cp->at[nd->leader[b]]
                      : b == 0   ? 0
                                 : cp->noff[b - 1] + cp->fill[b - 1];
        cp->fill[b] = t;
    }
    cp->noff[N] = total;
    return total;
}

/* The nodes' blocks into buf (node order at noff): direct, mine from the
 * pack and the others' taken as they come; ring or Bruck, mine copied from
 * my node's sources and forwarded by the heads' allgather under tag_data. */
static void collect_data(symm_group_t *g, const nodes_t *nd, const collect_plan_t *cp, int alg,
                         char *buf, const void *source, const char *pk, size_t mine, size_t total,
                         symm_msg_tag_t tag_data, sends_t *q, const char *routine)
{
    int N = nd->n_nodes, p = nd->my_node;
    if (alg == HEADS_DIRECT) {
        if (mine != 0)
            memcpy(buf + cp->noff[p], pk, mine);
        for (int k = 1; k < N; k++) {
            int b = (p - k + N) % N;
            if (cp->fill[b] != 0)
                symm_coll_recv_from(g, tag_data, 0, nd->leader[b], buf + cp->noff[b], cp->fill[b],
                                    routine);
        }
        return;
    }
    size_t o = 0;
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        const void *x = i == g->me ? source : node_peer(g, source, i, "source", routine);
        if (cp->len[i] != 0)
            memmove(buf + cp->noff[p] + o, x, cp->len[i]);
        o += cp->len[i];
    }
    symm_coll_heads_allgather(g, nd, tag_data, symm_coll_heads_alg(g, nd, total, 0), buf,
                              cp->noff, q, routine);
}

/* Nodes not runs of the team: the node-ordered buf into member order in
 * dest (fill reused as each node's read position). */
static void collect_unpack(symm_group_t *g, const nodes_t *nd, collect_plan_t *cp, void *dest,
                           const char *buf)
{
    for (int b = 0; b < nd->n_nodes; b++)
        cp->fill[b] = cp->noff[b];
    for (int i = 0; i < g->size; i++) {
        int b = nd->node_of[i];
        if (cp->len[i] != 0)
            memcpy((char *)dest + cp->at[i], buf + cp->fill[b], cp->len[i]);
        cp->fill[b] += cp->len[i];
    }
}

void symm_coll_collect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                             size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g), tag_data = symm_group_next_tag(g);
    int N = nd->n_nodes, h = nd->local[0];
    if (g->me != h) {
        collect_member(g, h, tag.seq, dest, nbytes, routine);
        return;
    }
    collect_plan_t cp;
    collect_plan(g, nd, &cp, routine);
    node_arrivals(g, nd, tag.seq);
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        cp.cnt[cp.pos[i]] =
            i == g->me
                ? (uint64_t)nbytes
                : __atomic_load_n((const uint64_t *)node_peer(g, g->count, i, "count", routine),
                                  __ATOMIC_RELAXED);
    }
    /* Direct (the choice for the counts and for the data alike: it
     * depends on N alone): my node's block is packed and sent with its
     * counts, so the data does not wait a round for them; the others'
     * blocks still land straight in place, taken once their counts are
     * here. Ring and Bruck forward blocks into place: counts first. */
    int alg = symm_coll_heads_alg(g, nd, 0, 0);
    sends_t q;
    symm_coll_sends_init(&q, 4 * N, routine);
    char *pk = NULL;
    size_t mine = 0;
    if (alg == HEADS_DIRECT)
        pk = collect_send_direct(g, nd, &cp, source, tag_data, &q, &mine, routine);
    symm_coll_heads_allgather(g, nd, tag, alg, (char *)cp.cnt, cp.coff, &q, routine);
    size_t total = collect_offsets(g, nd, &cp);
    char *buf = nd->contig ? dest : symm_coll_buf_get(g, total + 1, routine);
    collect_data(g, nd, &cp, alg, buf, source, pk, mine, total, tag_data, &q, routine);
    if (!nd->contig) {
        collect_unpack(g, nd, &cp, dest, buf);
        symm_coll_buf_put(buf);
    }
    __atomic_store_n(node_word(g, NODE_TOTAL, g->me), (uint64_t)total, __ATOMIC_RELAXED);
    node_give(g, nd, tag.seq);
    node_given(g, nd);
    symm_coll_sends_fini(g, &q, routine);
    symm_coll_buf_put(pk);
    free(cp.mem);
}
