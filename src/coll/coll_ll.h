/*
 * coll_ll.h - the slot form of small collectives in a node-local team
 * (coll/ internal): no barrier, one cache line per peer for a word.
 *
 * Every member has, in its team scratch (team/team.h), a ring of
 * SYMM_TEAM_LL_DEPTH receive slots per sender. A sender copies its block
 * into the receiver's slot of this collective (its team's count of slot
 * collectives, the same on every member) and stores the count in the
 * slot's sequence word with release; the receiver waits for the count with
 * acquire and copies the block out. A block of up to 48 bytes shares the
 * sequence word's cache line, so a one-word broadcast or reduction moves
 * one line from each sender to each receiver and nothing else: no opening
 * barrier (dest is written only by its owner, from its own slots), no
 * closing one (sources were copied before the call returns).
 *
 * A slot is reused DEPTH collectives later. Each member stores the count
 * of the last slot collective it finished in its done word; a sender
 * reads a receiver's done word only when what it knows of it is too old
 * (ll_seen), and a block received at count c says its sender finished c-1.
 * So where every member sends (fcollect, alltoall, reductions) no done
 * word is read, and a broadcast's root reads one about every DEPTH-1 calls.
 */
#ifndef SYMM_COLL_LL_H
#define SYMM_COLL_LL_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "team/team.h"

#define SYMM_COLL_LL_DATA 16 /* payload offset in a slot: 16-byte aligned */
#define SYMM_COLL_LL_BYTES (SYMM_TEAM_LL_SLOT - SYMM_COLL_LL_DATA)

_Static_assert(SYMM_TEAM_LL_OFF + SYMM_TEAM_LL_PES * SYMM_TEAM_LL_DEPTH * SYMM_TEAM_LL_SLOT <=
                   SYMM_TEAM_SLOT_SIZE,
               "the slot collectives' rings fit the team scratch");
_Static_assert(SYMM_TEAM_LL_SLOT % SYMM_CACHE_LINE == 0 && SYMM_TEAM_LL_OFF % SYMM_CACHE_LINE == 0,
               "slots start on cache lines");

/* Does the slot form serve g with blocks of `bytes` per member? The same
 * answer on every member: the group, its mapping, the size and the
 * configuration are. */
static inline int symm_coll_ll_fits(const symm_group_t *g, size_t bytes)
{
    size_t max = g->s->cfg.coll.ll_max;
    return g->team != NULL && g->all_mapped && g->size > 1 && g->size <= SYMM_TEAM_LL_PES &&
           bytes != 0 && bytes <= max && bytes <= SYMM_COLL_LL_BYTES;
}

#pragma GCC visibility push(hidden)

/* Start a slot collective on g's team: its count. */
uint64_t symm_coll_ll_begin(symm_group_t *g);
/* Copy n bytes to member j's slot from me for collective seq (j != me). */
void symm_coll_ll_send(symm_group_t *g, int j, uint64_t seq, const void *data, size_t n);
/* Member j's block of collective seq, in my slot (j != me), once it is there. */
const void *symm_coll_ll_recv(symm_group_t *g, int j, uint64_t seq);
/* I am done with collective seq's slots. */
void symm_coll_ll_end(symm_group_t *g, uint64_t seq);

#pragma GCC visibility pop

#endif
