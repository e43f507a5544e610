/*
 * bcast_pull.c - broadcast in a node-local group (every member mapped):
 * barrier; every member pulls the root's source into its dest; barrier.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_pull.h"

void symm_coll_bcast_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                          int update_root, const char *routine)
{
    symm_group_barrier(g, 0);
    if (nbytes != 0) {
        if (g->me != root)
            pull(g, dest, source, nbytes, root, routine);
        else if (update_root && dest != source)
            memmove(dest, source, nbytes);
    }
    symm_group_barrier(g, 0);
}
