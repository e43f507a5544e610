/*
 * alltoalls_pull.c - the strided alltoall, its only form: strided gets
 * between two barriers, for every group (there is no message form).
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "ops/rma.h"

void symm_coll_alltoalls_pull(symm_group_t *g, void *dest, const void *source, ptrdiff_t dst,
                              ptrdiff_t sst, size_t nelems, size_t elem, const char *routine)
{
    symm_group_barrier(g, 0);
    for (int j = 0; j < g->size && nelems != 0; j++) {
        char *d = (char *)dest + (ptrdiff_t)((size_t)j * nelems) * dst * (ptrdiff_t)elem;
        const char *src =
            (const char *)source + (ptrdiff_t)((size_t)g->me * nelems) * sst * (ptrdiff_t)elem;
        if (j == g->me) {
            for (size_t k = 0; k < nelems; k++)
                memmove(d + (ptrdiff_t)k * dst * (ptrdiff_t)elem,
                        src + (ptrdiff_t)k * sst * (ptrdiff_t)elem, elem);
        } else {
            symm_rma_iget(NULL, d, src, dst, sst, nelems, elem, symm_group_pe(g, j), routine);
        }
    }
    symm_group_barrier(g, 0);
}
