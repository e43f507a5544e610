/*
 * scan_pull.c - the prefix reductions of a node-local group: barrier;
 * member i reduces members 0..i (0..i-1 exclusive) a chunk at a time in
 * member order; barrier (in place: into a private buffer, copied out after
 * a barrier).
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_pull.h"
#include "mem/seg.h"
#include "ops/rma.h"

/* Pull: out = op over members 0..last-1 of their count elements of source,
 * in member order (last 0: zeros). Mapped members are read in place, the
 * others fetched a chunk at a time. */
static void scan_range(symm_group_t *g, char *out, const void *source, size_t count, size_t elem,
                       symm_reduce_fn op, int last, const char *routine)
{
    _Alignas(64) char fetched[REDUCE_CHUNK];
    size_t per = REDUCE_CHUNK / elem;
    if (last == 0) {
        memset(out, 0, count * elem);
        return;
    }
    for (size_t d = 0; d < count; d += per) {
        size_t c = count - d < per ? count - d : per;
        const char *at = (const char *)source + d * elem;
        char *o = out + d * elem;
        for (int k = 0; k < last; k++) {
            const char *x = at;
            if (k != g->me) {
                x = symm_seg_peer_addr(g->s, at, symm_group_pe(g, k));
                if (x == NULL) {
                    symm_rma_get(NULL, fetched, at, c * elem, symm_group_pe(g, k), 0, routine);
                    x = fetched;
                }
            }
            if (k == 0)
                memcpy(o, x, c * elem);
            else
                op(o, o, x, c);
        }
    }
}

void symm_coll_scan_pull(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                         symm_reduce_fn op, int exclusive, const char *routine)
{
    size_t bytes = count * elem;
    int last = exclusive ? g->me : g->me + 1;
    if (dest != source) {
        /* Peers read only my source: I may fill dest as I go. */
        symm_group_barrier(g, 0);
        scan_range(g, dest, source, count, elem, op, last, routine);
        symm_group_barrier(g, 0);
        return;
    }
    char *tmp = symm_coll_buf_get(g, bytes, routine);
    symm_group_barrier(g, 0);
    scan_range(g, tmp, source, count, elem, op, last, routine);
    /* Every later member has read my source before I overwrite it. */
    symm_group_barrier(g, 0);
    memcpy(dest, tmp, bytes);
    symm_coll_buf_put(tmp);
}
