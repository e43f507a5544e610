/*
 * msg.h - what the collectives' two files share (coll/ internal): the
 * tagged messages of a collective (its sends, receives and private
 * buffers; coll/shm.c) and the node-aware forms (coll/nodes.c), which the
 * collectives of shm.c choose between. Not for use outside coll/.
 */
#ifndef SYMM_COLL_MSG_H
#define SYMM_COLL_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"

#pragma GCC visibility push(hidden)

/* Whether this collective exchanges messages: some member is unmapped and
 * the transport has them. The same on every member (mapping is mutual), so
 * all number it alike (symm_group_next_tag). */
static inline int use_msg(const symm_group_t *g)
{
    return !g->all_mapped && g->s->net != NULL && g->s->net->msg_send != NULL;
}

/* Every message a collective has sent: it waits for them all before it
 * returns (its sources are then reusable), or before it overwrites one. */
typedef struct sends {
    void **h;
    int n;
    void *here[16];
} sends_t;

/* A broadcast sender does not wait for its receivers (eager messages
 * complete locally), so a root calling broadcasts in a loop could run any
 * number ahead and pile messages up at a slow member. Every SYNC_EVERY-th
 * message collective on a group sends synchronously: a sender is never
 * more than that many ahead of its children. */
#define SYNC_EVERY 64

/* ---- messages (shm.c) --------------------------------------------------- */

void sends_init(sends_t *q, int max, const char *routine);

void sends_wait(symm_group_t *g, sends_t *q, const char *routine);

void sends_fini(symm_group_t *g, sends_t *q, const char *routine);

/* How send_to sends. SEND_SIZE: up to SYMM_COLL_EAGER_MAX bytes eagerly,
 * larger by rendezvous (a rendezvous costs a round trip before the data
 * moves: over tcp a 8 KiB block took 66 us by rendezvous, 11 us eagerly).
 * SEND_SYNC: completes only once the receiver has taken it (see
 * broadcast_msg). SEND_EAGER: eagerly whatever the size (exchange_how). */
enum { SEND_SIZE = 0, SEND_SYNC = 1, SEND_EAGER = 2 };

/* How an exchange's round sends, where each member receives `round_bytes`
 * in all from the others: every member sends at once and is about to
 * receive, so a rendezvous would only add its round trip before each
 * block moves (2 PEs across namespaces, 1 MiB fcollect, medians of 8
 * alternating jobs under reno: 496 us eagerly against 539, a 1 MiB
 * sum-reduce 526 against 671). What is eager is held at the receiver until
 * it takes it: bounded by SYMM_COLL_EXCHANGE_EAGER_MAX per round. */
static inline int exchange_how(const symm_group_t *g, size_t round_bytes)
{
    return round_bytes <= g->s->cfg.coll_exchange_eager_max ? SEND_EAGER : SEND_SIZE;
}

/* Send n bytes of src to member i under tag + round, as how says. */
void send_to(symm_group_t *g, sends_t *q, symm_msg_tag_t tag, int round, int i,
             const void *src, size_t n, int how, const char *routine);

/* Wait until member i's message under tag + round is here; its length. */
size_t arrived(symm_group_t *g, symm_msg_tag_t tag, int round, int i);

/* Receive member i's message under tag + round into dst: n bytes, or end
 * the job naming both PEs if it sent another size (the members passed
 * different sizes to one collective). */
void recv_from(symm_group_t *g, symm_msg_tag_t tag, int round, int i, void *dst, size_t n,
               const char *routine);

void *buf_get(symm_group_t *g, size_t n, const char *routine);

void buf_put(void *p);

/* A private copy of source if it overlaps [dest, dest + dlen): receiving
 * into dest would overwrite blocks not yet sent (the spec leaves such
 * calls undefined; they still work). *tmp is what to free. */
const void *unaliased(symm_group_t *g, const void *source, size_t slen, const void *dest,
                      size_t dlen, void **tmp, const char *routine);

/* out = the reduction, in the order of who[0..m) (group indices; NULL:
 * every member, in member order), of their count elements: mine (at
 * position self) from `mine`, the others' taken from their messages under
 * tag+round. The same order on every PE: identical bits. */
void reduce_taken(symm_group_t *g, char *out, const void *mine, size_t count, size_t elem,
                  symm_reduce_fn op, symm_msg_tag_t tag, int round, const int *who, int m,
                  int self, const char *routine);

/* ---- node-aware forms (nodes.c) ---------------------------------------- */

/* A team spanning nodes with several members on one (SYMM_TRANSPORT=auto,
 * several PEs per node): members on one node share data through their
 * mapped memory and one of them (its head) alone talks to the other nodes.
 * Made once per team on first use (all members agree: the node of every PE
 * is known everywhere, state.h map_node). */
typedef struct nodes {
    int n_nodes;
    int my_node;
    int n_local;  /* members on my node, me included */
    int *local;   /* [n_local] their team indices, ascending */
    int *node_of; /* [size] node number of each member, nodes numbered by first member */
    int *leader;  /* [n_nodes] each node's lowest team index */
    int *count;   /* [n_nodes] members on each node */
    int contig;   /* every node's members are consecutive in the team: nodes' blocks lie
                   * in node order in a collect's dest */
} nodes_t;

/* The layout where it pays for broadcast and reduce: several nodes, several
 * members on some node. */
const nodes_t *team_nodes(symm_group_t *g);

/* The layout for fcollect, collect and alltoall: as team_nodes, and also
 * with one member per node where the heads go by ring or Bruck (each
 * member then its node's head); with direct exchanges the flat forms are
 * the same messages. bytes: as heads_alg's, the same on every member. */
const nodes_t *heads_nodes(symm_group_t *g, size_t bytes, int a2a, const char *routine);

/* Broadcast: the root heads its node, each other node's lowest member
 * heads it; a binomial tree of messages over the heads, then every member
 * copies from its head's dest. Without update_root (the active-set form)
 * the root's dest stays untouched: the root sends, and its node's members
 * copy, from its source. */
void broadcast_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                     size_t nbytes, int root, int update_root, const char *routine);

/* Reduction: each node's lowest member reduces its node's sources (read
 * through the mappings, in member order) into a partial, the heads exchange
 * partials and reduce them in node order (identical bits on every head),
 * every member copies its head's result. */
void reduce_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                  size_t count, size_t elem, symm_reduce_fn op, const char *routine);

/* fcollect: each head copies its node's blocks straight from the members'
 * sources (mapped) into place in its dest, the heads allgather the nodes'
 * blocks (heads_allgather: from and into dest where every node's members
 * are consecutive in the team, else through a buffer in node order), and
 * every member then copies the whole result from its head's dest. Between
 * nodes that is N(N-1) messages (direct), N(N-1) in N-1 rounds (ring) or
 * N ceil(log2 N) (Bruck) where the flat exchange sends n(n-1). */
void fcollect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                    size_t nbytes, const char *routine);

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
                   size_t nbytes, const char *routine);

/* alltoall: each head moves every block of its node. It waits for its
 * members to arrive (their sources ready, their dests free), copies the
 * blocks between members of its node through the mappings, sends each
 * other head one message with the blocks from its node's members to that
 * node's (member order, then destination order), writes the blocks from
 * the message it takes from each other head straight into its members'
 * dests, and says done; a member only arrives and waits. Between nodes
 * that is N(N-1) messages where the flat exchange sends n(n-1). */
void alltoall_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                    size_t nbytes, const char *routine);

#pragma GCC visibility pop

#endif
