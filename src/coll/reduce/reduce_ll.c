/*
 * reduce_ll.c - reduction of a small vector in a node-local team (slot
 * form, coll_ll.h): every member copies its source into each peer's slot,
 * then reduces all blocks in member order (identical bits on every member).
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_ll.h"

void symm_coll_reduce_ll(symm_group_t *g, void *dest, const void *source, size_t count,
                         size_t elem, symm_reduce_fn op)
{
    int n = g->size, me = g->me;
    size_t bytes = count * elem;
    _Alignas(64) unsigned char mine[SYMM_COLL_LL_BYTES], acc[SYMM_COLL_LL_BYTES];
    const void *block[SYMM_TEAM_LL_PES];
    uint64_t seq = symm_coll_ll_begin(g);
    for (int k = 1; k < n; k++)
        symm_coll_ll_send(g, (me + k) % n, seq, source, bytes);
    memcpy(mine, source, bytes); /* dest may be source */
    for (int j = 0; j < n; j++)
        block[j] = j == me ? mine : symm_coll_ll_recv(g, j, seq);
    op(acc, block[0], block[1], count);
    for (int j = 2; j < n; j++)
        op(acc, acc, block[j], count);
    memcpy(dest, acc, bytes);
    symm_coll_ll_end(g, seq);
}
