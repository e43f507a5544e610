/*
 * scan_msg.c - the prefix reductions by messages (a group with unmapped
 * members): member i sends its source to every later member and reduces
 * what it takes from the earlier ones, in member order.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"

/* Messages: my source to every later member; the earlier members' taken in
 * member order. A member that only sends would run ahead of its receivers
 * scan after scan: every SYNC_EVERY-th scan sends synchronously. */
void symm_coll_scan_msg(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                        symm_reduce_fn op, int exclusive, const char *routine)
{
    size_t bytes = count * elem;
    int n = g->size, m = exclusive ? g->me : g->me + 1;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int sync = (tag.seq >> 8) % SYNC_EVERY == 0;
    sends_t q;
    symm_coll_sends_init(&q, n, routine);
    for (int j = g->me + 1; j < n; j++)
        symm_coll_send_to(g, &q, tag, 0, j, source, bytes, sync ? SEND_SYNC : SEND_SIZE, routine);
    /* dest is source (in place): accumulate aside until my sends are done. */
    int same = dest == source;
    char *acc = same ? symm_coll_buf_get(g, bytes, routine) : dest;
    if (m == 0)
        memset(acc, 0, bytes);
    else
        symm_coll_reduce_taken(g, acc, source, count, elem, op, tag, 0, NULL, m,
                               exclusive ? -1 : g->me, routine);
    symm_coll_sends_fini(g, &q, routine);
    if (same) {
        memcpy(dest, acc, bytes);
        symm_coll_buf_put(acc);
    }
}
