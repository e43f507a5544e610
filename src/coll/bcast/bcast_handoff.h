/*
 * bcast_handoff.h - the hand-off of a message broadcast's large sends
 * (bcast_handoff.c; used by bcast_msg.c only).
 *
 * A broadcast sender with blocks above SYMM_COLL_EAGER_MAX (sent by
 * rendezvous: complete only once the receiver has pulled them) hands them
 * off instead of waiting: it copies what it sends into a kept buffer,
 * returns, and the sends complete later, by the next broadcast of this
 * instance that hands off, when more than HANDOFF_MAX are out, or at
 * finalize's drain (peers still there). Its caller may reuse source and
 * dest at once and computes while the transfer runs. At most HANDOFF_MAX
 * buffers of the largest such block stay in use.
 */
#ifndef SYMM_BCAST_HANDOFF_H
#define SYMM_BCAST_HANDOFF_H

#include "coll/coll_msg.h"

#pragma GCC visibility push(hidden)

#define HANDOFF_MAX 2

/* Complete s's handed-off sends until at most keep are out. */
void symm_coll_handoff_reap(symm_instance_t *s, int keep);

/* Hand off the sends in q, all from copy (a symm_coll_buf_get buffer):
 * they complete later, and copy goes back then. Where every slot is taken
 * (many instances) they complete here. q is spent either way. */
void symm_coll_handoff_park(symm_group_t *g, sends_t *q, void *copy, const char *routine);

#pragma GCC visibility pop

#endif
