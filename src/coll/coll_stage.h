/*
 * coll_stage.h - the staged form of collectives in a node-local team
 * (coll/ internal; coll_stage.c): past the slot form (coll_ll.h), up to
 * SYMM_TEAM_STAGE_BYTES per member, with one wait per member and no barrier.
 *
 * Each member copies its source into its own team scratch (one of two
 * areas, by the parity of the team's count of staged collectives, the same
 * on every member) and stores the count in its stage word with release. A
 * peer waits for the word to reach the count with acquire, then copies what
 * it needs from the staged copy into its own dest. Nobody writes another
 * member's memory and nobody reads a source after its owner returns, so
 * neither the opening barrier (sources not yet written) nor the closing
 * one (sources reused) of the pull form is needed.
 *
 * An area is written again two staged collectives later. A member starts
 * count c+2 only after finishing c+1, which waited for every peer's word to
 * reach c+1, which each peer stored after finishing c, its last read of the
 * area of c. The words only grow and are read with >=.
 */
#ifndef SYMM_COLL_STAGE_H
#define SYMM_COLL_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "team/team.h"

/* Does the staged form serve g with `bytes` staged per member? The same
 * answer on every member: the group, its mapping, the size and the
 * configuration are. */
static inline int symm_coll_stage_fits(const symm_group_t *g, size_t bytes)
{
    return g->team != NULL && g->all_mapped && g->size > 1 && bytes != 0 &&
           bytes <= g->s->coll->stage_max && bytes <= SYMM_TEAM_STAGE_BYTES;
}

#pragma GCC visibility push(hidden)

/* Stage `bytes` of source for g's next staged collective: its count. */
uint64_t symm_coll_stage_begin(symm_group_t *g, const void *source, size_t bytes);
/* The same in steps: the next count, my area for it (SYMM_TEAM_STAGE_BYTES,
 * to fill), then the stamp that shows it to my peers. */
uint64_t symm_coll_stage_next(symm_group_t *g);
void *symm_coll_stage_mine(symm_group_t *g, uint64_t seq);
void symm_coll_stage_stamp(symm_group_t *g, uint64_t seq);
/* Member j's staged copy for collective seq (mine for j == me), once it is
 * there. */
const void *symm_coll_stage_block(symm_group_t *g, int j, uint64_t seq);

/* The opening of a pull form (coll_pull.h) without its barrier: in a
 * node-local team with staging on, my stamp alone says my source is ready
 * (the next count, nothing staged), and a reader waits for the stamp of
 * the member it reads (symm_coll_pull_ready); elsewhere the group barrier.
 * The closing barrier stays: sources are read in place. The count: 0 where
 * the barrier was taken. */
uint64_t symm_coll_pull_open(symm_group_t *g);
/* Before reading member j's buffers (nothing after a barrier, or for me). */
void symm_coll_pull_ready(symm_group_t *g, int j, uint64_t seq);

#pragma GCC visibility pop

#endif
