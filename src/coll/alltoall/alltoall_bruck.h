/*
 * alltoall_bruck.h - the node-aware alltoall's exchange between the heads
 * by Bruck (alltoall_bruck.c), for alltoall_nodes.c.
 */
#ifndef SYMM_ALLTOALL_BRUCK_H
#define SYMM_ALLTOALL_BRUCK_H

#include "coll/coll_nodes.h"

#pragma GCC visibility push(hidden)

/* As head, move my node's blocks for the other nodes and theirs for mine
 * (into my node's members' dests) by Bruck under tag; sends in q, complete
 * on return. */
void symm_coll_alltoall_bruck(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, void *dest,
                              const void *source, size_t nbytes, sends_t *q, const char *routine);

#pragma GCC visibility pop

#endif
