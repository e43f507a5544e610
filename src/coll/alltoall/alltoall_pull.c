/*
 * alltoall_pull.c - alltoall in a node-local group (every member mapped):
 * open (a barrier, or in a team the members' stamps: coll_stage.h); every
 * member pulls block me of each peer's source into place; barrier.
 */
#include "coll/coll_algs.h"
#include "coll/coll_pull.h"
#include "coll/coll_stage.h"

void symm_coll_alltoall_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                             const char *routine)
{
    uint64_t open = symm_coll_pull_open(g);
    for (int k = 0; k < g->size && nbytes != 0; k++) {
        int j = (g->me + k) % g->size;
        symm_coll_pull_ready(g, j, open);
        pull(g, (char *)dest + (size_t)j * nbytes, (const char *)source + (size_t)g->me * nbytes,
             nbytes, j, routine);
    }
    symm_group_barrier(g, 0);
}
