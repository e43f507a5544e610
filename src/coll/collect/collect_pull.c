/*
 * collect_pull.c - collect in a node-local group (every member mapped):
 * publish my count; barrier; the counts read from every peer give my
 * offsets (an exclusive scan in member order); pull; barrier.
 */
#include <stdint.h>

#include "coll/coll_algs.h"
#include "coll/coll_pull.h"

void symm_coll_collect_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                            const char *routine)
{
    __atomic_store_n(g->count, (uint64_t)nbytes, __ATOMIC_RELAXED);
    symm_group_barrier(g, 0);
    size_t off = 0;
    for (int j = 0; j < g->size; j++) {
        uint64_t n;
        if (j == g->me)
            n = nbytes;
        else
            pull(g, &n, g->count, sizeof(n), j, routine);
        pull(g, (char *)dest + off, source, n, j, routine);
        off += n;
    }
    symm_group_barrier(g, 0);
}
