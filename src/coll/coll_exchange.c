/*
 * coll_exchange.c - the flat message exchange (a group with unmapped
 * members, no node-aware layout) of fcollect and alltoall: one round, every
 * member sends a block to every other and takes theirs into place.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"

#define EXCHANGE_SEG_MAX 128 /* segments a block: rounds of one tag */

static size_t exchange_seg(const symm_group_t *g, size_t nbytes)
{
    return symm_coll_seg_bytes(g, nbytes, EXCHANGE_SEG_MAX);
}

/* The receives: every peer's first segment (previous member first), then
 * every peer's second, ... straight into place (symm_coll_recv_window). */
typedef struct exchange_rx {
    symm_group_t *g;
    symm_msg_tag_t tag;
    char *dest;
    size_t nbytes, seg;
    const char *routine;
} exchange_rx_t;

static int exchange_post(void *arg, size_t i, void **h)
{
    exchange_rx_t *x = arg;
    int n = x->g->size;
    size_t s = i / (size_t)(n - 1), a = s * x->seg;
    int j = (x->g->me - 1 - (int)(i % (size_t)(n - 1)) + n) % n;
    size_t len = x->nbytes - a < x->seg ? x->nbytes - a : x->seg;
    return symm_coll_recv_try(x->g, x->tag, (int)s, j, x->dest + (size_t)j * x->nbytes + a, len,
                              h, x->routine);
}

/* fcollect (per_peer 0: my whole source to every member) and alltoall
 * (per_peer 1: block j of my source to member j), each block landing at
 * offset me*nbytes of the receiver's dest, in segments.
 * Sends go to the next member first, receives take the previous one
 * first: no member is everyone's first. */
void symm_coll_exchange_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                            int per_peer, const char *routine)
{
    int n = g->size;
    size_t stride = per_peer ? nbytes : 0;
    void *tmp;
    const char *src = symm_coll_unaliased(g, source, per_peer ? nbytes * (size_t)n : nbytes, dest,
                                          nbytes * (size_t)n, &tmp, routine);
    symm_msg_tag_t tag = symm_group_next_tag(g);
    size_t seg = exchange_seg(g, nbytes), nseg = nbytes == 0 ? 1 : (nbytes + seg - 1) / seg;
    sends_t q;
    symm_coll_sends_init(&q, (int)nseg * n, routine);
    int how = exchange_how(g, nbytes * (size_t)(n - 1));
    for (size_t s = 0; s < nseg; s++)
        for (int k = 1; k < n; k++) {
            int j = (g->me + k) % n;
            size_t a = s * seg, len = nbytes - a < seg ? nbytes - a : seg;
            symm_coll_send_to(g, &q, tag, (int)s, j, src + (size_t)j * stride + a, len, how,
                              routine);
        }
    exchange_rx_t x = {.g = g, .tag = tag, .dest = dest, .nbytes = nbytes, .seg = seg,
                       .routine = routine};
    symm_coll_recv_window(g, nseg * (size_t)(n - 1), exchange_post, NULL, &x, routine);
    memmove((char *)dest + (size_t)g->me * nbytes, src + (size_t)g->me * stride, nbytes);
    symm_coll_sends_fini(g, &q, routine);
    symm_coll_buf_put(tmp);
}
