/*
 * coll_exchange.c - the flat message exchange (a group with unmapped
 * members, no node-aware layout) of fcollect and alltoall: one round, every
 * member sends a block to every other and takes theirs into place.
 */
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"
#include "ops/sync.h"

/* Segments a block of nbytes goes in (SYMM_COLL_SEGMENT, at most
 * EXCHANGE_SEG_MAX): the same on sender and receiver. */
#define EXCHANGE_SEG_MAX 128

static size_t exchange_seg(const symm_group_t *g, size_t nbytes)
{
    size_t seg = g->s->cfg.coll.segment != 0 ? g->s->cfg.coll.segment : 1;
    if (nbytes / seg >= EXCHANGE_SEG_MAX)
        seg = (nbytes + EXCHANGE_SEG_MAX - 1) / EXCHANGE_SEG_MAX;
    return seg;
}

/* Take the n-1 blocks, segment by segment, up to SYMM_COLL_WINDOW receives
 * in flight: a rendezvous transfer starts while the one before it is still
 * moving, and every peer's first segment before any peer's second. */
static void exchange_take(symm_group_t *g, symm_msg_tag_t tag, char *dest, size_t nbytes,
                          const char *routine)
{
    int n = g->size, window = g->s->cfg.coll.window;
    size_t seg = exchange_seg(g, nbytes), nseg = nbytes == 0 ? 1 : (nbytes + seg - 1) / seg;
    size_t total = nseg * (size_t)(n - 1), done = 0, posted = 0;
    void *h[64];
    unsigned polls = 0;
    while (done < total) {
        while (posted < total && posted < done + (size_t)window) {
            size_t s = posted / (size_t)(n - 1);
            int j = (g->me - 1 - (int)(posted % (size_t)(n - 1)) + n) % n;
            size_t a = s * seg, len = nbytes - a < seg ? nbytes - a : seg;
            if (!symm_coll_recv_try(g, tag, (int)s, j, dest + (size_t)j * nbytes + a, len,
                                    &h[posted % 64], routine))
                break;
            posted++;
        }
        if (done == posted) {
            symm_wait_backoff(g->s, &polls);
            continue;
        }
        polls = 0;
        symm_coll_recv_wait(g, h[done % 64], routine);
        done++;
    }
}

/* fcollect (per_peer 0: my whole source to every member) and alltoall
 * (per_peer 1: block j of my source to member j), each block landing at
 * offset me*nbytes of the receiver's dest, in segments (exchange_take).
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
    exchange_take(g, tag, dest, nbytes, routine);
    memmove((char *)dest + (size_t)g->me * nbytes, src + (size_t)g->me * stride, nbytes);
    symm_coll_sends_fini(g, &q, routine);
    symm_coll_buf_put(tmp);
}
