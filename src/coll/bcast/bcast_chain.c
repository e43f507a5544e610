/*
 * bcast_chain.c - the pipelined chain broadcast by messages, for large
 * blocks among 3 or more members (all of a message group's, or the nodes'
 * heads): the root sends the block in segments (SYMM_COLL_SEGMENT) to the
 * next member, each member forwards every segment to its next as soon as
 * it is in, with up to SYMM_COLL_WINDOW receives in flight. Every link
 * carries the block once, so the broadcast takes about one block's time on
 * the wire plus a segment's per member, where a binomial tree sends it
 * ceil(log2 m) times in turn from the root.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_msg.h"
#include "ops/sync.h"

#define CHAIN_SEG_MAX 255 /* a collective's tag has 256 rounds */

static size_t chain_seg(const symm_group_t *g, size_t nbytes)
{
    size_t seg = g->s->cfg.coll.segment != 0 ? g->s->cfg.coll.segment : 1;
    if (nbytes / seg >= CHAIN_SEG_MAX)
        seg = (nbytes + CHAIN_SEG_MAX - 1) / CHAIN_SEG_MAX;
    return seg;
}

/* The chain beats the tree when filling the pipe, (m - 2) segments, costs
 * less than the tree's extra rounds, (ceil(log2 m) - 1) blocks. The same
 * on every member: it depends on m, the size and the configuration. */
int symm_coll_bcast_chain_fits(const symm_group_t *g, int m, size_t nbytes)
{
    if (m < 3 || nbytes <= g->s->cfg.coll.eager_max)
        return 0;
    int rounds = 0;
    while ((1 << rounds) < m)
        rounds++;
    size_t seg = chain_seg(g, nbytes);
    return (size_t)(m - 2) * seg < (size_t)(rounds - 1) * nbytes;
}

/* prev: the member I receive from (-1: I am the root, sending from out);
 * next: the one I forward to (-1: the last). Members are group indices.
 * Received segments land in dest and go on from there. */
void symm_coll_bcast_chain(symm_group_t *g, symm_msg_tag_t tag, int prev, int next, void *dest,
                           const void *out, size_t nbytes, int sync, const char *routine)
{
    size_t seg = chain_seg(g, nbytes), nseg = (nbytes + seg - 1) / seg;
    int how = sync ? SEND_SYNC : SEND_SIZE;
    sends_t q;
    symm_coll_sends_init(&q, next >= 0 ? (int)nseg : 0, routine);
    if (prev < 0) {
        for (size_t s = 0; s < nseg && next >= 0; s++) {
            size_t a = s * seg, len = nbytes - a < seg ? nbytes - a : seg;
            symm_coll_send_to(g, &q, tag, (int)s, next, (const char *)out + a, len, how, routine);
        }
        symm_coll_sends_fini(g, &q, routine);
        return;
    }
    size_t window = (size_t)g->s->cfg.coll.window, done = 0, posted = 0;
    void *h[64];
    unsigned polls = 0;
    while (done < nseg) {
        for (; posted < nseg && posted < done + window; posted++) {
            size_t a = posted * seg, len = nbytes - a < seg ? nbytes - a : seg;
            if (!symm_coll_recv_try(g, tag, (int)posted, prev, (char *)dest + a, len,
                                    &h[posted % 64], routine))
                break;
        }
        if (done == posted) {
            symm_wait_backoff(g->s, &polls);
            continue;
        }
        polls = 0;
        symm_coll_recv_wait(g, h[done % 64], routine);
        if (next >= 0) {
            size_t a = done * seg, len = nbytes - a < seg ? nbytes - a : seg;
            symm_coll_send_to(g, &q, tag, (int)done, next, (char *)dest + a, len, how, routine);
        }
        done++;
    }
    symm_coll_sends_fini(g, &q, routine);
}
