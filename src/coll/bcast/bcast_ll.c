/*
 * bcast_ll.c - broadcast of a small block in a node-local team (slot
 * form, coll_ll.h): the root copies its source into every member's slot
 * and returns; each member copies its slot into dest.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_ll.h"

void symm_coll_bcast_ll(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                        int update_root)
{
    uint64_t seq = symm_coll_ll_begin(g);
    if (g->me == root) {
        for (int k = 1; k < g->size; k++)
            symm_coll_ll_send(g, (root + k) % g->size, seq, source, nbytes);
        if (update_root && dest != source)
            memmove(dest, source, nbytes);
    } else {
        memcpy(dest, symm_coll_ll_recv(g, root, seq), nbytes);
    }
    symm_coll_ll_end(g, seq);
}
