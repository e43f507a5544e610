/*
 * fcollect_pull.c - fcollect in a node-local group (every member mapped):
 * open (a barrier, or in a team the members' stamps: coll_stage.h); every
 * member pulls each peer's block into place; barrier.
 */
#include "coll/coll_algs.h"
#include "coll/coll_pull.h"
#include "coll/coll_stage.h"

void symm_coll_fcollect_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                             const char *routine)
{
    uint64_t open = symm_coll_pull_open(g);
    for (int k = 0; k < g->size && nbytes != 0; k++) {
        int j = (g->me + k) % g->size; /* start at my own block: spread the readers */
        symm_coll_pull_ready(g, j, open);
        pull(g, (char *)dest + (size_t)j * nbytes, source, nbytes, j, routine);
    }
    symm_group_barrier(g, 0);
}
