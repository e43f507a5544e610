/*
 * coll_nodes.h - what the node-aware collectives share (coll/ internal):
 * a team's layout over nodes (coll_nodes.c), the four words per member
 * that synchronise a node's members with their head, and how the heads of
 * the nodes exchange (direct, ring or Bruck; coll_heads.c).
 *
 * A team spanning nodes with several members on one (SYMM_TRANSPORT=auto,
 * several PEs per node): members on one node share data through their
 * mapped memory and one of them (its head) alone talks to the other nodes.
 * The node-aware form of each collective is in its directory
 * (bcast/bcast_nodes.c, reduce/reduce_nodes.c, fcollect/fcollect_nodes.c,
 * collect/collect_nodes.c, alltoall/alltoall_nodes.c).
 */
#ifndef SYMM_COLL_NODES_H
#define SYMM_COLL_NODES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "coll/coll_msg.h"
#include "mem/seg.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "team/team.h"

#pragma GCC visibility push(hidden)

/* A team's members by node. Made once per team on first use (all members
 * agree: the node of every PE is known everywhere, state.h map_node). */
typedef struct nodes {
    int n_nodes;
    int my_node;
    int n_local;  /* members on my node, me included */
    int *local;   /* [n_local] their team indices, ascending */
    int *node_of; /* [size] node number of each member, nodes numbered by first member */
    int *leader;  /* [n_nodes] each node's lowest team index */
    int *count;   /* [n_nodes] members on each node */
    int *rank;    /* [size] each member's place among its node's members (0: the head) */
    int contig;   /* every node's members are consecutive in the team: nodes' blocks lie
                   * in node order in a collect's dest */
} nodes_t;

/* The layout where it pays for broadcast and reduce: several nodes, several
 * members on some node. */
const nodes_t *symm_coll_team_nodes(symm_group_t *g);

/* The layout for fcollect, collect and alltoall: as symm_coll_team_nodes,
 * and also with one member per node where the heads go by ring or Bruck
 * (each member then its node's head); with direct exchanges the flat forms
 * are the same messages. bytes: as symm_coll_heads_alg's, the same on
 * every member. */
const nodes_t *symm_coll_heads_nodes(symm_group_t *g, size_t bytes, int a2a);

/* ---- a node's members and their head ------------------------------------ */

/* Five words per member in the team's scratch (SYMM_TEAM_NODE_OFF): IN (my
 * source is ready for my node's head: the collective's tag), OUT (as head:
 * the result is in my dest), DONE (as head: members that have copied it,
 * counted and reset by the head before it returns; nobody adds for the next
 * collective until the head has published OUT for it, after the reset),
 * TOTAL (as head, in collect: the result's length, written before OUT),
 * SEGS (as head, in a pipelined reduction: tag * 256 + the segments of the
 * result in my dest; rises through a collective and from one to the next). */
enum { NODE_IN, NODE_OUT, NODE_DONE, NODE_TOTAL, NODE_SEGS };

static inline uint64_t *node_word(symm_group_t *g, int k, int i)
{
    uint64_t *w = (uint64_t *)(void *)(g->team->scratch + SYMM_TEAM_NODE_OFF) + k;
    return i == g->me ? w : symm_seg_peer_addr(g->s, w, symm_group_pe(g, i));
}

static inline void node_wait(symm_group_t *g, uint64_t *w, uint64_t v)
{
    unsigned polls = 0;
    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < v)
        symm_wait_backoff(g->s, &polls);
}

/* My copy of the symmetric buf on member i, mapped here. */
static inline const void *node_peer(symm_group_t *g, const void *buf, int i, const char *what,
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
static inline void node_take(symm_group_t *g, int h, uint64_t seq, void *dest, const void *from,
                             size_t nbytes, const char *routine)
{
    node_wait(g, node_word(g, NODE_OUT, h), seq);
    memcpy(dest, node_peer(g, from, h, from == dest ? "dest" : "source", routine), nbytes);
    __atomic_fetch_add(node_word(g, NODE_DONE, h), 1, __ATOMIC_RELEASE);
}

/* The head: my dest holds the result; wait until the other n_local-1
 * members of my node have copied it. */
static inline void node_give(symm_group_t *g, const nodes_t *nd, uint64_t seq)
{
    if (nd->n_local < 2)
        return;
    __atomic_store_n(node_word(g, NODE_OUT, g->me), seq, __ATOMIC_RELEASE);
}

static inline void node_given(symm_group_t *g, const nodes_t *nd)
{
    if (nd->n_local < 2)
        return;
    uint64_t *done = node_word(g, NODE_DONE, g->me);
    node_wait(g, done, (uint64_t)(nd->n_local - 1));
    __atomic_store_n(done, 0, __ATOMIC_RELAXED);
}

/* Wait for my node's members to arrive (IN): their sources are ready. */
static inline void node_arrivals(symm_group_t *g, const nodes_t *nd, uint64_t seq)
{
    for (int k = 0; k < nd->n_local; k++)
        if (nd->local[k] != g->me)
            node_wait(g, node_word(g, NODE_IN, nd->local[k]), seq);
}

/* ---- between the heads: direct, ring or Bruck (coll_heads.c) ------------ */

/* How the heads of N nodes exchange (SYMM_COLL_HEADS): every head sends to
 * every other at once (N-1 messages each, all in flight together), a ring
 * (N-1 rounds, each one message to the next head: the link to one
 * neighbour, never N-1 at once; alltoall: pairwise, one peer a round), or
 * Bruck (ceil(log2 N) rounds, each one message of up to half the data). */
enum { HEADS_DIRECT, HEADS_RING, HEADS_BRUCK };

/* The heads' algorithm for a collective moving `bytes` per PE (the same on
 * every head; a2a: an alltoall), as SYMM_COLL_HEADS (parsed at init) says. */
int symm_coll_heads_alg(const symm_group_t *g, const nodes_t *nd, size_t bytes, int a2a);

/* Allgather between the heads by alg: node b's block is buf[off[b],
 * off[b+1]) (off[N]: the whole), mine filled; on return every block is,
 * each received straight into place. Sends are left in q. */
void symm_coll_heads_allgather(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int alg,
                               char *buf, const size_t *off, sends_t *q, const char *routine);

#pragma GCC visibility pop

#endif
