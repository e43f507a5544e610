/*
 * reduce_stage.c - reduction in a node-local team past the slot form
 * (staged form, coll_stage.h): every member stages its source in its team
 * scratch, then reduces every member's staged copy into its dest in member
 * order (identical bits on every member). One wait per peer, no barrier.
 */
#include "coll/coll_algs.h"
#include "coll/coll_stage.h"

void symm_coll_reduce_stage(symm_group_t *g, void *dest, const void *source, size_t count,
                            size_t elem, symm_reduce_fn op)
{
    /* Staged first: dest may be source (in place); after that only the
     * staged copies are read. */
    uint64_t seq = symm_coll_stage_begin(g, source, count * elem);
    op(dest, symm_coll_stage_block(g, 0, seq), symm_coll_stage_block(g, 1, seq), count);
    for (int j = 2; j < g->size; j++)
        op(dest, dest, symm_coll_stage_block(g, j, seq), count);
}
