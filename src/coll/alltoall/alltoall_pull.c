/*
 * alltoall_pull.c - alltoall in a node-local group (every member mapped):
 * barrier; every member pulls block me of each peer's source into place;
 * barrier.
 */
#include "coll/coll_algs.h"
#include "coll/coll_pull.h"

void symm_coll_alltoall_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                             const char *routine)
{
    symm_group_barrier(g, 0);
    for (int k = 0; k < g->size && nbytes != 0; k++) {
        int j = (g->me + k) % g->size;
        pull(g, (char *)dest + (size_t)j * nbytes, (const char *)source + (size_t)g->me * nbytes,
             nbytes, j, routine);
    }
    symm_group_barrier(g, 0);
}
