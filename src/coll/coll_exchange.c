/*
 * coll_exchange.c - the message exchange of fcollect and alltoall: every
 * member sends blocks to a list of members and takes blocks from a list
 * into place, in segments with a window of receives in flight. The flat
 * form (a group with unmapped members, no node-aware layout) exchanges with
 * every other member; the split forms of fcollect and alltoall
 * (fcollect/fcollect_split.c, alltoall/alltoall_split.c) with members on
 * other nodes only.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"

#define EXCHANGE_SEG_MAX 128 /* segments a block: rounds of one tag */

/* Receives in flight per sender (the window is also SYMM_COLL_WINDOW's):
 * more from one sender only share its connection, so the first completes
 * later and the last no sooner (measured: docs/performance.md, split
 * fcollect). */
#define EXCHANGE_PER_SENDER 2

/* The receives: every sender's first segment (in list order), then every
 * sender's second, ... straight into place (symm_coll_recv_window). */
typedef struct exchange_rx {
    symm_group_t *g;
    symm_msg_tag_t tag;
    char *dest;
    size_t nbytes, seg;
    const int *from;
    int nfrom;
    void (*each)(void *arg);
    void *arg;
    const char *routine;
} exchange_rx_t;

static void exchange_done(void *arg, size_t i)
{
    exchange_rx_t *x = arg;
    (void)i;
    x->each(x->arg);
}

static int exchange_post(void *arg, size_t i, void **h)
{
    exchange_rx_t *x = arg;
    size_t s = i / (size_t)x->nfrom, a = s * x->seg;
    int j = x->from[i % (size_t)x->nfrom];
    size_t len = x->nbytes - a < x->seg ? x->nbytes - a : x->seg;
    return symm_coll_recv_try(x->g, x->tag, (int)s, j, x->dest + (size_t)j * x->nbytes + a, len, h,
                              x->routine);
}

void symm_coll_exchange_lists_init(exchange_lists_t *l, int n, const char *routine)
{
    l->nto = l->nfrom = 0;
    l->to = n <= 32 ? l->here : malloc(sizeof(int) * 2 * (size_t)n);
    if (l->to == NULL)
        symm_fatal(routine, "out of memory for %d member numbers", 2 * n);
    l->from = l->to + (n <= 32 ? 32 : n);
}

void symm_coll_exchange_lists_fini(exchange_lists_t *l)
{
    if (l->to != l->here)
        free(l->to);
}

void symm_coll_exchange_lists(symm_group_t *g, symm_msg_tag_t tag, void *dest, const void *src,
                              size_t nbytes, size_t stride, const exchange_lists_t *l,
                              void (*between)(void *arg), void (*each)(void *arg), void *arg,
                              const char *routine)
{
    const int *to = l->to, *from = l->from;
    int nto = l->nto, nfrom = l->nfrom;
    size_t seg = symm_coll_seg_bytes(g, nbytes, EXCHANGE_SEG_MAX);
    size_t nseg = nbytes == 0 ? 1 : (nbytes + seg - 1) / seg;
    sends_t q;
    symm_coll_sends_init(&q, (int)nseg * nto, routine);
    int how = exchange_how(g, nbytes * (size_t)nfrom);
    for (size_t s = 0; s < nseg; s++)
        for (int k = 0; k < nto; k++) {
            size_t a = s * seg, len = nbytes - a < seg ? nbytes - a : seg;
            symm_coll_send_to(g, &q, tag, (int)s, to[k],
                              (const char *)src + (size_t)to[k] * stride + a, len, how, routine);
        }
    if (between != NULL)
        between(arg);
    exchange_rx_t x = {.g = g,
                       .tag = tag,
                       .dest = dest,
                       .nbytes = nbytes,
                       .seg = seg,
                       .from = from,
                       .nfrom = nfrom,
                       .each = each,
                       .arg = arg,
                       .routine = routine};
    if (nfrom > 0)
        symm_coll_recv_window(g, nseg * (size_t)nfrom, EXCHANGE_PER_SENDER * nfrom, exchange_post,
                              each != NULL ? exchange_done : NULL, &x, routine);
    symm_coll_sends_fini(g, &q, routine);
}

/* fcollect (per_peer 0: my whole source to every member) and alltoall
 * (per_peer 1: block j of my source to member j), each block landing at
 * offset me*nbytes of the receiver's dest. Sends go to the next member
 * first, receives take the previous one first: no member is everyone's
 * first. */
void symm_coll_exchange_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                            int per_peer, const char *routine)
{
    int n = g->size;
    size_t stride = per_peer ? nbytes : 0;
    void *tmp;
    const char *src = symm_coll_unaliased(g, source, per_peer ? nbytes * (size_t)n : nbytes, dest,
                                          nbytes * (size_t)n, &tmp, routine);
    symm_msg_tag_t tag = symm_group_next_tag(g);
    exchange_lists_t l;
    symm_coll_exchange_lists_init(&l, n, routine);
    for (int k = 1; k < n; k++) {
        l.to[l.nto++] = (g->me + k) % n;
        l.from[l.nfrom++] = (g->me - k + n) % n;
    }
    symm_coll_exchange_lists(g, tag, dest, src, nbytes, stride, &l, NULL, NULL, NULL, routine);
    memmove((char *)dest + (size_t)g->me * nbytes, src + (size_t)g->me * stride, nbytes);
    symm_coll_exchange_lists_fini(&l);
    symm_coll_buf_put(tmp);
}
