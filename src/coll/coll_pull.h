/*
 * coll_pull.h - what the pull forms of the collectives share (coll/
 * internal): a node-local group's members read what they need straight
 * from their peers' symmetric buffers, one memcpy from where the data is to
 * where it goes, between an opening and a closing barrier. The opening
 * keeps readers off a source its owner may still write: a barrier, or in a
 * node-local team each member's stamp, which a reader waits for before it
 * reads that member (symm_coll_pull_open, coll_stage.h: one wait for the
 * member it needs, not a barrier's for all); the closing barrier makes
 * source and dest reusable on return. Kept inline: it is on every pull
 * collective's path.
 */
#ifndef SYMM_COLL_PULL_H
#define SYMM_COLL_PULL_H

#include <stddef.h>
#include <string.h>

#include "coll/coll.h"
#include "ops/rma.h"

/* The chunk the pull reductions and scans work in: partial results stay in
 * cache. */
#define REDUCE_CHUNK 8192

/* Copy n bytes of group member i's copy of the symmetric addr to dst. */
static inline void pull(symm_group_t *g, void *dst, const void *addr, size_t n, int i,
                        const char *routine)
{
    if (n == 0)
        return;
    if (i == g->me) {
        if (dst != addr)
            memmove(dst, addr, n);
        return;
    }
    symm_rma_get(NULL, dst, addr, n, symm_group_pe(g, i), 0, routine);
}

#endif
