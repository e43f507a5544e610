/*
 * collect_stage.c - collect in a node-local team (staged form,
 * coll_stage.h): every member stages its byte count and, where it is small
 * enough, its block; each copies every member's block into place at the
 * offset the counts before it give (an exclusive scan in member order).
 * The stamps replace the pull form's opening barrier. A block too large to
 * stage is read from its owner's source, and then, since every member sees
 * the same counts, all of them close with a barrier (the source must stay
 * until it is read); with every block staged there is none.
 */
#include <stdint.h>
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_pull.h"
#include "coll/coll_stage.h"

#define HEAD 64 /* count, staged or not; the block follows on its own line */

void symm_coll_collect_stage(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                             const char *routine)
{
    uint64_t seq = symm_coll_stage_next(g);
    uint64_t *mine = symm_coll_stage_mine(g, seq);
    int staged = nbytes <= g->s->coll->stage_max && nbytes <= SYMM_TEAM_STAGE_BYTES - HEAD;
    mine[0] = nbytes;
    mine[1] = (uint64_t)staged;
    if (staged)
        memcpy((char *)mine + HEAD, source, nbytes);
    symm_coll_stage_stamp(g, seq);
    size_t off = 0;
    int all_staged = 1;
    for (int j = 0; j < g->size; j++) {
        const uint64_t *h = symm_coll_stage_block(g, j, seq);
        size_t len = (size_t)h[0];
        if (h[1]) {
            memcpy((char *)dest + off, (const char *)h + HEAD, len);
        } else {
            pull(g, (char *)dest + off, source, len, j, routine);
            all_staged = 0;
        }
        off += len;
    }
    if (!all_staged)
        symm_group_barrier(g, 0);
}
