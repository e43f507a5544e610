/*
 * nodes.c - the node-aware collectives (coll/shm.c chooses them).
 *
 * A team with several members on some node: broadcast, reduce, fcollect,
 * collect and alltoall send between one head per node only; the node's
 * other members share through their mappings (broadcast_nodes,
 * reduce_nodes, fcollect_nodes, collect_nodes: heads allgather the nodes'
 * counts, then their blocks; alltoall_nodes), synchronised by four words
 * per member in the team's scratch (SYMM_TEAM_NODE_OFF).
 * Between the heads of N nodes (fcollect, collect, alltoall; with one
 * member per node too where it is not direct; heads_alg, SYMM_COLL_HEADS):
 *   direct     up to SYMM_COLL_DIRECT_NODES (8): each head sends to all at once
 *              (collect: its block with its counts, no round between)
 *   bruck      below SYMM_COLL_RING_MIN bytes: ceil(log2 N) rounds
 *              (allgather: doubling; alltoall: slots by distance bits)
 *   ring       from it: N-1 rounds to the next head (alltoall: pairwise,
 *              round k to the head k on)
 * Messages go through coll/msg.h (sends, receives, buffers of shm.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/msg.h"
#include "mem/seg.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "team/team.h"

/* The team's layout over nodes, or NULL (not a team, node-aware off, no
 * memory). */
static const nodes_t *team_layout(symm_group_t *g)
{
    struct symm_team *t = g->team;
    if (t == NULL || !g->s->cfg.coll_node_aware)
        return NULL;
    nodes_t *nd = __atomic_load_n((nodes_t **)&t->coll_nodes, __ATOMIC_ACQUIRE);
    if (nd == NULL) {
        int n = t->size;
        nd = malloc(sizeof(*nd) + sizeof(int) * 4 * (size_t)n);
        if (nd == NULL)
            return NULL; /* the flat messages work as well */
        nd->local = (int *)(void *)(nd + 1);
        nd->node_of = nd->local + n;
        nd->leader = nd->node_of + n;
        nd->count = nd->leader + n;
        nd->n_nodes = nd->n_local = 0;
        nd->contig = 1;
        int mine = g->s->peers[g->s->my_pe].map_node;
        for (int i = 0; i < n; i++) {
            int key = g->s->peers[t->members[i]].map_node, k = 0;
            while (k < nd->n_nodes && g->s->peers[t->members[nd->leader[k]]].map_node != key)
                k++;
            if (k == nd->n_nodes) {
                nd->count[nd->n_nodes] = 0;
                nd->leader[nd->n_nodes++] = i;
            }
            if (i > 0 && nd->node_of[i - 1] != k && nd->count[k] != 0)
                nd->contig = 0;
            nd->count[k]++;
            nd->node_of[i] = k;
            if (key == mine)
                nd->local[nd->n_local++] = i;
        }
        nd->my_node = nd->node_of[t->my_idx];
        nodes_t *none = NULL;
        if (!__atomic_compare_exchange_n((nodes_t **)&t->coll_nodes, &none, nd, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            free(nd);
            nd = none;
        }
    }
    return nd;
}

/* The layout where it pays for broadcast and reduce: several nodes, several
 * members on some node. */
const nodes_t *team_nodes(symm_group_t *g)
{
    const nodes_t *nd = team_layout(g);
    return nd != NULL && nd->n_nodes > 1 && nd->n_nodes < g->size ? nd : NULL;
}

/* Four words per member in the team's scratch: IN (my source is ready
 * for my node's head: the collective's tag), OUT (as head: the result is in
 * my dest), DONE (as head: members that have copied it, counted and reset
 * by the head before it returns; nobody adds for the next collective until
 * the head has published OUT for it, after the reset), TOTAL (as head, in
 * collect: the result's length, written before OUT). */
enum { NODE_IN, NODE_OUT, NODE_DONE, NODE_TOTAL };

static uint64_t *node_word(symm_group_t *g, int k, int i)
{
    uint64_t *w = (uint64_t *)(void *)(g->team->scratch + SYMM_TEAM_NODE_OFF) + k;
    return i == g->me ? w : symm_seg_peer_addr(g->s, w, symm_group_pe(g, i));
}

static void node_wait(symm_group_t *g, uint64_t *w, uint64_t v)
{
    unsigned polls = 0;
    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < v)
        symm_wait_backoff(g->s, &polls);
}

/* My copy of the symmetric buf on member i, mapped here. */
static const void *node_peer(symm_group_t *g, const void *buf, int i, const char *what,
                             const char *routine)
{
    const void *p = symm_seg_peer_addr(g->s, buf, symm_group_pe(g, i));
    if (p == NULL)
        symm_fatal(routine, "%s %p is not symmetric", what, buf);
    return p;
}

/* A member: wait for head h's result, copy it from h's copy of the
 * symmetric buffer from (its dest, or the root's source in the active-set
 * broadcast) into my dest, tell h. */
static void node_take(symm_group_t *g, int h, uint64_t seq, void *dest, const void *from,
                      size_t nbytes, const char *routine)
{
    node_wait(g, node_word(g, NODE_OUT, h), seq);
    memcpy(dest, node_peer(g, from, h, from == dest ? "dest" : "source", routine), nbytes);
    __atomic_fetch_add(node_word(g, NODE_DONE, h), 1, __ATOMIC_RELEASE);
}

/* The head: my dest holds the result; wait until the other n_local-1
 * members of my node have copied it. */
static void node_give(symm_group_t *g, const nodes_t *nd, uint64_t seq)
{
    if (nd->n_local < 2)
        return;
    __atomic_store_n(node_word(g, NODE_OUT, g->me), seq, __ATOMIC_RELEASE);
}

static void node_given(symm_group_t *g, const nodes_t *nd)
{
    if (nd->n_local < 2)
        return;
    uint64_t *done = node_word(g, NODE_DONE, g->me);
    node_wait(g, done, (uint64_t)(nd->n_local - 1));
    __atomic_store_n(done, 0, __ATOMIC_RELAXED);
}

/* Broadcast: the root heads its node, each other node's lowest member
 * heads it; a binomial tree of messages over the heads, then every member
 * copies from its head's dest. Without update_root (the active-set form)
 * the root's dest stays untouched: the root sends, and its node's members
 * copy, from its source. */
void broadcast_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
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
    while (mask < N && !(v & mask))
        mask <<= 1;
    const void *out = dest;
    if (v != 0)
        recv_from(g, tag, 0, HEAD((v - mask + R) % N), dest, nbytes, routine);
    else if (!update_root)
        out = source;
    else if (dest != source)
        memmove(dest, source, nbytes);
    node_give(g, nd, tag.seq);
    sends_t q;
    sends_init(&q, 32, routine);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < N)
            send_to(g, &q, tag, 0, HEAD((v + mask + R) % N), out, nbytes,
                    sync ? SEND_SYNC : SEND_SIZE, routine);
#undef HEAD
    node_given(g, nd);
    sends_fini(g, &q, routine);
}

/* Reduction: each node's lowest member reduces its node's sources (read
 * through the mappings, in member order) into a partial, the heads exchange
 * partials and reduce them in node order (identical bits on every head),
 * every member copies its head's result. */
void reduce_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
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
    char *part = buf_get(g, bytes, routine);
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
    sends_t q;
    sends_init(&q, N, routine);
    int how = exchange_how(g, bytes * (size_t)(N - 1));
    for (int k = 1; k < N; k++)
        send_to(g, &q, tag, 0, nd->leader[(nd->my_node + k) % N], part, bytes, how, routine);
    reduce_taken(g, dest, part, count, elem, op, tag, 0, nd->leader, N, nd->my_node, routine);
    node_give(g, nd, tag.seq);
    node_given(g, nd);
    sends_fini(g, &q, routine);
    buf_put(part);
}

/* ---- between the heads: direct, ring or Bruck --------------------------- */

/* How the heads of N nodes exchange (SYMM_COLL_HEADS): every head sends to
 * every other at once (N-1 messages each, all in flight together), a ring
 * (N-1 rounds, each one message to the next head: the link to one
 * neighbour, never N-1 at once; alltoall: pairwise, one peer a round), or
 * Bruck (ceil(log2 N) rounds, each one message of up to half the data).
 * bytes: what the collective moves per PE, the same on every head. */
enum { HEADS_DIRECT, HEADS_RING, HEADS_BRUCK };

static int heads_alg(const symm_group_t *g, const nodes_t *nd, size_t bytes, int a2a,
                     const char *routine)
{
    const char *c = g->s->cfg.coll_heads;
    int N = nd->n_nodes, alg;
    /* Bruck's alltoall moves about rounds/2 times the data (its
     * allgather moves it once): its bytes weighed by its rounds, it gives
     * way to the pairwise rounds sooner (8 PEs as 8 nodes over tcp, 64 KiB
     * blocks: Bruck 2.4 ms, pairwise 2.0). */
    size_t rounds = 0;
    for (int d = 1; a2a && d < N; d <<= 1)
        rounds++;
    if (rounds > 1)
        bytes *= rounds;
    if (strcmp(c, "direct") == 0)
        alg = HEADS_DIRECT;
    else if (strcmp(c, "ring") == 0)
        alg = HEADS_RING;
    else if (strcmp(c, "bruck") == 0)
        alg = HEADS_BRUCK;
    else if (strcmp(c, "auto") == 0)
        alg = N <= 2 || N <= g->s->cfg.coll_direct_nodes ? HEADS_DIRECT
              : bytes < g->s->cfg.coll_ring_min          ? HEADS_BRUCK
                                                         : HEADS_RING;
    else
        symm_fatal(routine, "SYMM_COLL_HEADS='%s' is not one of auto, direct, ring, bruck", c);
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
        send_to(g, q, tag, r, nd->leader[node], buf + off[a], off[end] - off[a], how, routine);
    if (a + cnt > N && off[a + cnt - N] > off[0])
        send_to(g, q, tag, r + 1, nd->leader[node], buf, off[a + cnt - N] - off[0], how, routine);
}

static void heads_recv_range(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int r,
                             int node, char *buf, const size_t *off, int a, int cnt,
                             const char *routine)
{
    int N = nd->n_nodes, end = a + cnt < N ? a + cnt : N;
    if (off[end] > off[a])
        recv_from(g, tag, r, nd->leader[node], buf + off[a], off[end] - off[a], routine);
    if (a + cnt > N && off[a + cnt - N] > off[0])
        recv_from(g, tag, r + 1, nd->leader[node], buf, off[a + cnt - N] - off[0], routine);
}

/* Allgather between the heads: node b's block is buf[off[b], off[b+1])
 * (off[N]: the whole), mine filled; on return every block is, each
 * received straight into place (no packing, any block sizes, 0 included).
 * Sends are left in q. Ring: in round r I pass on the block of node
 * my-r (mine first) to the next head and take node my-1-r's from the
 * previous one. Bruck: before round k I hold the 2^k nodes from mine on;
 * I send (the first min(2^k, N-2^k) of) them to the head 2^k before me,
 * and take as many from the head 2^k after me. */
static void heads_allgather(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int alg,
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

/* The layout for fcollect, collect and alltoall: as team_nodes, and also
 * with one member per node where the heads go by ring or Bruck (each
 * member then its node's head); with direct exchanges the flat forms are
 * the same messages. bytes: as heads_alg's, the same on every member. */
const nodes_t *heads_nodes(symm_group_t *g, size_t bytes, int a2a, const char *routine)
{
    const nodes_t *nd = team_layout(g);
    if (nd == NULL || nd->n_nodes < 2)
        return NULL;
    return nd->n_nodes < g->size || heads_alg(g, nd, bytes, a2a, routine) != HEADS_DIRECT ? nd
                                                                                           : NULL;
}

/* Wait for my node's members to arrive (IN): their sources are ready. */
static void node_arrivals(symm_group_t *g, const nodes_t *nd, uint64_t seq)
{
    for (int k = 0; k < nd->n_local; k++)
        if (nd->local[k] != g->me)
            node_wait(g, node_word(g, NODE_IN, nd->local[k]), seq);
}

/* fcollect: each head copies its node's blocks straight from the members'
 * sources (mapped) into place in its dest, the heads allgather the nodes'
 * blocks (heads_allgather: from and into dest where every node's members
 * are consecutive in the team, else through a buffer in node order), and
 * every member then copies the whole result from its head's dest. Between
 * nodes that is N(N-1) messages (direct), N(N-1) in N-1 rounds (ring) or
 * N ceil(log2 N) (Bruck) where the flat exchange sends n(n-1). */
void fcollect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
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
    const void *mine = unaliased(g, source, nbytes, dest, total, &tmp, routine);
    size_t here[65], *off = N < 65 ? here : malloc(sizeof(size_t) * (size_t)(N + 1));
    if (off == NULL)
        symm_fatal(routine, "out of memory for %d offsets", N + 1);
    off[0] = 0;
    for (int b = 0; b < N; b++)
        off[b + 1] = off[b] + (size_t)nd->count[b] * nbytes;
    /* Node order: dest itself where nodes are runs of the team. */
    char *buf = nd->contig ? dest : buf_get(g, total, routine);
    node_arrivals(g, nd, tag.seq);
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        const void *x = i == g->me ? mine : node_peer(g, source, i, "source", routine);
        memmove(buf + off[p] + (size_t)k * nbytes, x, nbytes);
    }
    /* My node's sources are read: its members may go on. */
    sends_t q;
    sends_init(&q, 2 * N, routine);
    heads_allgather(g, nd, tag, heads_alg(g, nd, total, 0, routine), buf, off, &q, routine);
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
    sends_fini(g, &q, routine);
    if (buf != dest)
        buf_put(buf);
    if (off != here)
        free(off);
    buf_put(tmp);
}

/* collect: as fcollect, with every member's own size. A member publishes
 * its byte count in its collect count word and arrives; its head reads the
 * counts of its node through the mappings, the heads allgather the nodes'
 * counts (first tag), which gives every member's offset (an exclusive scan
 * in member order) and every node's total, then the nodes' blocks (second
 * tag, each head copying its members' sources into place first); the head
 * publishes the result's length (TOTAL) and every member copies it. Every
 * member takes both tags, so all count alike. The spec forbids source and
 * dest to overlap: nothing copes with it. */
void collect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                   size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g), tag_data = symm_group_next_tag(g);
    int n = g->size, N = nd->n_nodes, h = nd->local[0], p = nd->my_node;
    if (g->me != h) {
        __atomic_store_n(g->count, (uint64_t)nbytes, __ATOMIC_RELAXED);
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        node_wait(g, node_word(g, NODE_OUT, h), tag.seq);
        uint64_t total = __atomic_load_n(node_word(g, NODE_TOTAL, h), __ATOMIC_RELAXED);
        if (total != 0)
            memcpy(dest, node_peer(g, dest, h, "dest", routine), (size_t)total);
        __atomic_fetch_add(node_word(g, NODE_DONE, h), 1, __ATOMIC_RELEASE);
        return;
    }
    /* cnt: every member's byte count, in node order (node b's from
     * cnt[first[b]], in member order); coff/noff: the node-ordered
     * offsets of the counts (bytes) and of the data; len/at: each member's
     * count and offset in dest. */
    size_t *mem = malloc(sizeof(size_t) * (size_t)(4 * n + 3 * (N + 1)) + sizeof(uint64_t) * n);
    if (mem == NULL)
        symm_fatal(routine, "out of memory for %d members' counts", n);
    size_t *len = mem, *at = len + n, *coff = at + n, *noff = coff + N + 1, *pos = noff + N + 1;
    size_t *first = pos + n, *fill = first + n;
    uint64_t *cnt = (uint64_t *)(void *)(fill + N + 1);
    coff[0] = 0;
    for (int b = 0; b < N; b++) {
        first[b] = coff[b] / sizeof(uint64_t);
        coff[b + 1] = coff[b] + (size_t)nd->count[b] * sizeof(uint64_t);
        fill[b] = 0;
    }
    for (int i = 0; i < n; i++)
        pos[i] =
            first[nd->node_of[i]] + fill[nd->node_of[i]]++; /* member i's count at cnt[pos[i]] */
    node_arrivals(g, nd, tag.seq);
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        cnt[pos[i]] =
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
    int alg = heads_alg(g, nd, 0, 0, routine);
    sends_t q;
    sends_init(&q, 4 * N, routine);
    char *pk = NULL;
    size_t mine = 0;
    if (alg == HEADS_DIRECT) {
        for (int k = 0; k < nd->n_local; k++)
            mine += (size_t)cnt[pos[nd->local[k]]];
        pk = buf_get(g, mine + 1, routine);
        size_t o = 0;
        for (int k = 0; k < nd->n_local; k++) {
            int i = nd->local[k];
            size_t li = (size_t)cnt[pos[i]];
            if (li != 0)
                memcpy(pk + o, i == g->me ? source : node_peer(g, source, i, "source", routine),
                       li);
            o += li;
        }
        int how = exchange_how(g, mine * (size_t)(N - 1));
        for (int k = 1; k < N && mine != 0; k++)
            send_to(g, &q, tag_data, 0, nd->leader[(p + k) % N], pk, mine, how, routine);
    }
    heads_allgather(g, nd, tag, alg, (char *)cnt, coff, &q, routine);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        len[i] = (size_t)cnt[pos[i]];
        at[i] = total;
        total += len[i];
    }
    noff[0] = 0;
    for (int b = 0; b < N; b++) {
        size_t t = 0;
        for (size_t j = first[b]; j < first[b] + (size_t)nd->count[b]; j++)
            t += (size_t)cnt[j];
        /* In dest itself where nodes are runs of the team. */
        noff[b] = nd->contig ? at[nd->leader[b]] : b == 0 ? 0 : noff[b - 1] + fill[b - 1];
        fill[b] = t;
    }
    noff[N] = total;
    char *buf = nd->contig ? dest : buf_get(g, total + 1, routine);
    if (alg == HEADS_DIRECT) {
        if (mine != 0)
            memcpy(buf + noff[p], pk, mine);
        for (int k = 1; k < N; k++) {
            int b = (p - k + N) % N;
            if (fill[b] != 0)
                recv_from(g, tag_data, 0, nd->leader[b], buf + noff[b], fill[b], routine);
        }
    } else {
        size_t o = 0;
        for (int k = 0; k < nd->n_local; k++) {
            int i = nd->local[k];
            const void *x = i == g->me ? source : node_peer(g, source, i, "source", routine);
            if (len[i] != 0)
                memmove(buf + noff[p] + o, x, len[i]);
            o += len[i];
        }
        heads_allgather(g, nd, tag_data, heads_alg(g, nd, total, 0, routine), buf, noff, &q,
                        routine);
    }
    if (!nd->contig) {
        for (int b = 0; b < N; b++)
            fill[b] = noff[b];
        for (int i = 0; i < n; i++) {
            int b = nd->node_of[i];
            if (len[i] != 0)
                memcpy((char *)dest + at[i], buf + fill[b], len[i]);
            fill[b] += len[i];
        }
        buf_put(buf);
    }
    __atomic_store_n(node_word(g, NODE_TOTAL, g->me), (uint64_t)total, __ATOMIC_RELAXED);
    node_give(g, nd, tag.seq);
    node_given(g, nd);
    sends_fini(g, &q, routine);
    buf_put(pk);
    free(mem);
}

/* alltoall by Bruck between the heads. Slot j (1..N-1) starts as my
 * node's block for node my+j (its members' blocks for that node's members,
 * member order then destination order); in round k (d = 2^k) every slot
 * with bit d set goes, packed in slot order, d heads on, and the same
 * slots come from d heads back. The block in slot j was made by node
 * holder - (j & (d-1)) and is for that node + j; so every size is known
 * everywhere, and at the end slot j holds node my-j's block for mine.
 * ceil(log2 N) messages per head, each ~half the data. */
static void alltoall_bruck(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, void *dest,
                           const void *source, size_t nbytes, sends_t *q, const char *routine)
{
    int n = g->size, N = nd->n_nodes, p = nd->my_node, L = nd->n_local;
#define BLK(o, j) ((size_t)nd->count[(o)] * (size_t)nd->count[((o) + (j)) % N] * nbytes)
#define ORIGIN(x, j, d) (((x) - ((j) & ((d)-1)) + N) % N)
    size_t arena = 0;
    for (int j = 1; j < N; j++)
        arena += BLK(p, j);
    for (int d = 1; d < N; d <<= 1)
        for (int j = d; j < N; j++)
            if (j & d)
                arena += BLK(ORIGIN(p, j, d), j) + BLK(ORIGIN((p - d + N) % N, j, d), j);
    char *mem = buf_get(g, arena, routine), *at_here[64],
         **at = N <= 64 ? at_here : malloc(sizeof(char *) * (size_t)N);
    size_t len_here[64], *len = N <= 64 ? len_here : malloc(sizeof(size_t) * (size_t)N);
    if (at == NULL || len == NULL)
        symm_fatal(routine, "out of memory for %d slots", N);
    char *a = mem;
    for (int j = 1; j < N; j++) {
        int node = (p + j) % N;
        at[j] = a;
        for (int x = 0; x < L; x++) {
            int i = nd->local[x];
            const char *src = i == g->me ? source : node_peer(g, source, i, "source", routine);
            for (int t = 0; t < n; t++)
                if (nd->node_of[t] == node) {
                    memcpy(a, src + (size_t)t * nbytes, nbytes);
                    a += nbytes;
                }
        }
        len[j] = BLK(p, j);
    }
    for (int k = 0, d = 1; d < N; k++, d <<= 1) {
        char *out = a;
        for (int j = d; j < N; j++)
            if (j & d) {
                memcpy(a, at[j], len[j]);
                a += len[j];
            }
        send_to(g, q, tag, k, nd->leader[(p + d) % N], out, (size_t)(a - out),
                exchange_how(g, arena), routine);
        char *in = a;
        for (int j = d; j < N; j++)
            if (j & d) {
                /* (p - (j & (2d-1))): the holder d back made it at ORIGIN(p - d, j, d). */
                at[j] = a;
                len[j] = BLK(ORIGIN((p - d + N) % N, j, d), j);
                a += len[j];
            }
        recv_from(g, tag, k, nd->leader[(p - d + N) % N], in, (size_t)(a - in), routine);
    }
    for (int j = 1; j < N; j++) {
        int node = (p - j + N) % N;
        const char *x = at[j];
        for (int i = 0; i < n; i++)
            if (nd->node_of[i] == node)
                for (int b = 0; b < L; b++, x += nbytes) {
                    int m = nd->local[b];
                    memcpy((m == g->me ? (char *)dest
                                       : (char *)node_peer(g, dest, m, "dest", routine)) +
                               (size_t)i * nbytes,
                           x, nbytes);
                }
    }
#undef BLK
#undef ORIGIN
    /* The sends are from mem: complete them before it goes back. */
    sends_wait(g, q, routine);
    buf_put(mem);
    if (at != at_here)
        free(at);
    if (len != len_here)
        free(len);
}

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
    char *pack = buf_get(g, far, routine), *in = buf_get(g, far, routine);
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
        send_to(g, q, tag, 0, nd->leader[node], start, (size_t)(p - start),
                exchange_how(g, far), routine);
        if (alg == HEADS_DIRECT && k < N - 1)
            continue;
        for (int r = alg == HEADS_DIRECT ? 1 : k; r <= k; r++) {
            int from = (nd->my_node - r + N) % N;
            recv_from(g, tag, 0, nd->leader[from], in, (size_t)nd->count[from] * (size_t)L * nbytes,
                      routine);
            const char *x = in;
            for (int i = 0; i < n; i++)
                if (nd->node_of[i] == from)
                    for (int b = 0; b < L; b++, x += nbytes)
                        memcpy(DST(nd->local[b]) + (size_t)i * nbytes, x, nbytes);
        }
    }
    sends_wait(g, q, routine);
    buf_put(in);
    buf_put(pack);
}

/* alltoall: each head moves every block of its node. It waits for its
 * members to arrive (their sources ready, their dests free), copies the
 * blocks between members of its node through the mappings, sends each
 * other head one message with the blocks from its node's members to that
 * node's (member order, then destination order), writes the blocks from
 * the message it takes from each other head straight into its members'
 * dests, and says done; a member only arrives and waits. Between nodes
 * that is N(N-1) messages where the flat exchange sends n(n-1). */
void alltoall_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
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
    sends_init(&q, N, routine);
    int alg = heads_alg(g, nd, nbytes * (size_t)n, 1, routine);
    if (alg == HEADS_BRUCK)
        alltoall_bruck(g, nd, tag, dest, source, nbytes, &q, routine);
    else
        alltoall_packs(g, nd, tag, alg, dest, source, nbytes, &q, routine);
#undef SRC
#undef DST
    node_give(g, nd, tag.seq);
    sends_fini(g, &q, routine);
}
