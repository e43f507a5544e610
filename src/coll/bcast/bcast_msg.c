/*
 * bcast_msg.c - broadcast by messages (a group with unmapped members, no
 * node-aware layout): a binomial tree from the root, or for large blocks
 * among 3 or more the pipelined chain (bcast_chain.c). A tree's large
 * blocks are handed off rather than waited for (bcast_handoff.h).
 */
#include <string.h>

#include "coll/bcast/bcast_handoff.h"
#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"

/* Binomial tree from the root: each member receives the block from its
 * parent into dest, then forwards it from there to its children, farthest
 * first. The tag keeps one broadcast's blocks apart from the next's, so no
 * barrier is needed; waiting for the sends makes source and dest reusable. */
void symm_coll_bcast_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                         int update_root, const char *routine)
{
    int n = g->size, v = (g->me - root + n) % n, mask = 1;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int sync = (tag.seq >> 8) % SYNC_EVERY == 0;
    const void *from = source;
    if (symm_coll_bcast_chain_fits(g, n, nbytes)) {
        int prev = v == 0 ? -1 : (v - 1 + root) % n, next = v == n - 1 ? -1 : (v + 1 + root) % n;
        symm_coll_bcast_chain(g, tag, prev, next, dest, source, nbytes, sync, routine);
        if (v == 0 && update_root && dest != source)
            memmove(dest, source, nbytes);
        return;
    }
    while (mask < n && !(v & mask))
        mask <<= 1;
    if (v != 0) {
        symm_coll_recv_from(g, tag, 0, (v - mask + root) % n, dest, nbytes, routine);
        from = dest;
    } else if (update_root && dest != source) {
        memmove(dest, source, nbytes);
        from = dest;
    }
    int children = 0;
    for (int m = mask >> 1; m > 0; m >>= 1)
        children += v + m < n;
    void *copy = NULL;
    /* (Not without a progress thread: the transfer needs this PE's
     * progress, which a computing caller would not make.) */
    if (children > 0 && !sync && nbytes > g->s->cfg.coll.eager_max &&
        g->s->cfg.net.progress_thread != SYMM_PROGRESS_THREAD_0) {
        symm_coll_handoff_reap(g->s, HANDOFF_MAX - 1);
        copy = symm_coll_buf_get(g, nbytes, routine);
        memcpy(copy, from, nbytes);
        from = copy;
    }
    sends_t q;
    symm_coll_sends_init(&q, 32, routine);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            symm_coll_send_to(g, &q, tag, 0, (v + mask + root) % n, from, nbytes,
                              sync ? SEND_SYNC : SEND_SIZE, routine);
    if (copy == NULL) {
        symm_coll_sends_fini(g, &q, routine);
        return;
    }
    symm_coll_handoff_park(g, &q, copy, routine);
}
