/*
 * coll_msg.h - the message layer of the collectives (coll/ internal): the
 * tagged messages a collective exchanges with the members it does not map
 * (its sends, receives and the reduction of what it receives; coll_msg.c),
 * and when a collective uses them. The message and node-aware algorithms of
 * every collective build on it. Not for use outside coll/.
 *
 * A message waits at its receiver under (group, collective number, round)
 * until the receiver, inside the same collective, takes it into place (UCX:
 * eager copies, or a rendezvous straight into dest). Nobody writes into
 * another PE's memory, so no opening barrier; every member waits for the
 * messages it needs and for its own sends (source reusable), so no closing
 * one either.
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

void symm_coll_sends_init(sends_t *q, int max, const char *routine);

void symm_coll_sends_wait(symm_group_t *g, sends_t *q, const char *routine);

void symm_coll_sends_fini(symm_group_t *g, sends_t *q, const char *routine);

/* How symm_coll_send_to sends. SEND_SIZE: up to SYMM_COLL_EAGER_MAX bytes
 * eagerly, larger by rendezvous (a rendezvous costs a round trip before the
 * data moves). SEND_SYNC: completes only once
 * the receiver has taken it (see bcast/bcast_msg.c). SEND_EAGER: eagerly
 * whatever the size (exchange_how). */
enum { SEND_SIZE = 0, SEND_SYNC = 1, SEND_EAGER = 2 };

/* How an exchange's round sends, where each member receives `round_bytes`
 * in all from the others: every member sends at once and is about to
 * receive, so a rendezvous would only add its round trip before each
 * block moves. What is eager is held at the receiver until it takes it:
 * bounded by SYMM_COLL_EXCHANGE_EAGER_MAX per round. */
static inline int exchange_how(const symm_group_t *g, size_t round_bytes)
{
    return round_bytes <= g->s->cfg.coll.exchange_eager_max ? SEND_EAGER : SEND_SIZE;
}

/* Send n bytes of src to member i under tag + round, as how says. */
void symm_coll_send_to(symm_group_t *g, sends_t *q, symm_msg_tag_t tag, int round, int i,
                       const void *src, size_t n, int how, const char *routine);

/* Wait until member i's message under tag + round is here; its length. */
size_t symm_coll_arrived(symm_group_t *g, symm_msg_tag_t tag, int round, int i);

/* Start receiving member i's message under tag + round into dst if it is
 * here: 1, and *h for symm_coll_recv_wait (NULL: in place already); 0 if
 * it has not arrived (nothing done). A message of another size than n
 * ends the job naming both PEs. Several may be in flight at once. */
int symm_coll_recv_try(symm_group_t *g, symm_msg_tag_t tag, int round, int i, void *dst, size_t n,
                       void **h, const char *routine);

/* Wait until a receive of symm_coll_recv_try is in place. */
void symm_coll_recv_wait(symm_group_t *g, void *h, const char *routine);

/* The receives of a segmented collective, total of them in the order it
 * needs them: post(arg, i, &h) starts receive i if its message is here (1;
 * 0: not yet), done(arg, i) runs once receive i is in place. At most
 * SYMM_COLL_WINDOW (<= 64), and at most window_max, are in flight; receive i is posted only after
 * done(i - window) ran, so a buffer may be reused that far apart. */
void symm_coll_recv_window(symm_group_t *g, size_t total, int window_max,
                           int (*post)(void *arg, size_t i, void **h),
                           void (*done)(void *arg, size_t i), void *arg, const char *routine);

/* Bytes in each segment of a block of nbytes (SYMM_COLL_SEGMENT, larger
 * where the block would need more than max segments): the same on sender
 * and receiver. */
size_t symm_coll_seg_bytes(const symm_group_t *g, size_t nbytes, size_t max);

/* Receive member i's message under tag + round into dst: n bytes, or end
 * the job naming both PEs if it sent another size (the members passed
 * different sizes to one collective). */
void symm_coll_recv_from(symm_group_t *g, symm_msg_tag_t tag, int round, int i, void *dst, size_t n,
                         const char *routine);

/* out = the reduction, in the order of who[0..m) (group indices; NULL:
 * every member, in member order), of their count elements: mine (at
 * position self) from `mine`, the others' taken from their messages under
 * tag+round. The same order on every PE: identical bits. */
void symm_coll_reduce_taken(symm_group_t *g, char *out, const void *mine, size_t count, size_t elem,
                            symm_reduce_fn op, symm_msg_tag_t tag, int round, const int *who, int m,
                            int self, const char *routine);

#pragma GCC visibility pop

#endif
