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

#define CHAIN_SEG_MAX 255 /* a collective's tag has 256 rounds */

static size_t chain_seg(const symm_group_t *g, size_t nbytes)
{
    return symm_coll_seg_bytes(g, nbytes, CHAIN_SEG_MAX);
}

/* One member's part, for symm_coll_recv_window. */
typedef struct chain {
    symm_group_t *g;
    symm_msg_tag_t tag;
    int prev, next, how;
    char *dest;
    size_t nbytes, seg;
    sends_t q;
    const char *routine;
} chain_t;

static size_t chain_len(const chain_t *c, size_t s)
{
    size_t a = s * c->seg;
    return c->nbytes - a < c->seg ? c->nbytes - a : c->seg;
}

static int chain_post(void *arg, size_t s, void **h)
{
    chain_t *c = arg;
    return symm_coll_recv_try(c->g, c->tag, (int)s, c->prev, c->dest + s * c->seg, chain_len(c, s),
                              h, c->routine);
}

/* Segment s is in: on to the next member. */
static void chain_forward(void *arg, size_t s)
{
    chain_t *c = arg;
    symm_coll_send_to(c->g, &c->q, c->tag, (int)s, c->next, c->dest + s * c->seg, chain_len(c, s),
                      c->how, c->routine);
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
    chain_t c = {.g = g,
                 .tag = tag,
                 .prev = prev,
                 .next = next,
                 .how = sync ? SEND_SYNC : SEND_SIZE,
                 .dest = dest,
                 .nbytes = nbytes,
                 .seg = chain_seg(g, nbytes),
                 .routine = routine};
    size_t nseg = (nbytes + c.seg - 1) / c.seg;
    symm_coll_sends_init(&c.q, next >= 0 ? (int)nseg : 0, routine);
    if (prev < 0) {
        for (size_t s = 0; s < nseg && next >= 0; s++)
            symm_coll_send_to(g, &c.q, tag, (int)s, next, (const char *)out + s * c.seg,
                              chain_len(&c, s), c.how, routine);
    } else {
        symm_coll_recv_window(g, nseg, 64, chain_post, next >= 0 ? chain_forward : NULL, &c,
                              routine);
    }
    symm_coll_sends_fini(g, &c.q, routine);
}
