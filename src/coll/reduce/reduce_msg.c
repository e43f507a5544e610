/*
 * reduce_msg.c - the reductions by messages (a group with unmapped members,
 * no node-aware layout that pays), both in member order (identical bits
 * everywhere):
 *   whole  small vectors: every member sends its whole vector to every
 *          other and reduces all n
 *   slice  large vectors (SYMM_REDUCE_SLICE_MIN), 2 PEs too: reduce-scatter
 *          (slice j of every source goes to member j, which reduces it),
 *          then allgather of the reduced slices, pipelined in segments
 *          (reduce/reduce_pipe.c): the same bytes on the wire as the whole
 *          exchange at 2 PEs, half the reduction each
 * Nothing is written to dest before my sends of source have completed, so
 * dest may be source.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"

void symm_coll_reduce_msg_whole(symm_group_t *g, void *dest, const void *source, size_t count,
                                size_t elem, symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    int n = g->size;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    sends_t q;
    symm_coll_sends_init(&q, n, routine);
    int how = exchange_how(g, bytes * (size_t)(n - 1));
    for (int k = 1; k < n; k++)
        symm_coll_send_to(g, &q, tag, 0, (g->me + k) % n, source, bytes, how, routine);
    const char *d = dest, *s = source;
    int overlap = bytes != 0 && d < s + bytes && s < d + bytes;
    char *acc = overlap ? symm_coll_buf_get(g, bytes, routine) : dest;
    symm_coll_reduce_taken(g, acc, source, count, elem, op, tag, 0, NULL, n, g->me, routine);
    symm_coll_sends_fini(g, &q, routine);
    if (overlap) {
        memcpy(dest, acc, bytes);
        symm_coll_buf_put(acc);
    }
}

void symm_coll_reduce_msg_slice(symm_group_t *g, void *dest, const void *source, size_t count,
                                size_t elem, symm_reduce_fn op, const char *routine)
{
    symm_coll_reduce_pipe(g, NULL, g->size, g->me, dest, source, count, elem, op,
                          symm_group_next_tag(g), NULL, routine);
}
