/*
 * coll_msg.c - the message layer of the collectives (declared in
 * coll/coll_msg.h): the sends a collective keeps until they complete, a
 * send, a receive into place (checking the size), the wait for a message's
 * arrival, and the reduction of received vectors in a fixed order. Through
 * the network transport's tagged messages (transport.h msg_*).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"

void symm_coll_sends_init(sends_t *q, int max, const char *routine)
{
    q->n = 0;
    q->h = max <= 16 ? q->here : malloc(sizeof(void *) * (size_t)max);
    if (q->h == NULL)
        symm_fatal(routine, "out of memory for %d message handles", max);
}

void symm_coll_sends_wait(symm_group_t *g, sends_t *q, const char *routine)
{
    for (int i = 0; i < q->n; i++) {
        int rc = g->s->net->msg_wait(g->s, q->h[i]);
        if (rc != 0)
            symm_fatal(routine, "a collective message failed: %s",
                       symm_status_str((symm_status_t)rc));
    }
    q->n = 0;
}

void symm_coll_sends_fini(symm_group_t *g, sends_t *q, const char *routine)
{
    symm_coll_sends_wait(g, q, routine);
    if (q->h != q->here)
        free(q->h);
}

void symm_coll_send_to(symm_group_t *g, sends_t *q, symm_msg_tag_t tag, int round, int i,
                       const void *src, size_t n, int how, const char *routine)
{
    int pe = symm_group_pe(g, i);
    tag.seq += (uint64_t)round;
    int msg = how == SEND_SYNC                                     ? SYMM_MSG_SYNC
              : how == SEND_EAGER || n <= g->s->cfg.coll.eager_max ? SYMM_MSG_EAGER
                                                                   : SYMM_MSG_AUTO;
    int rc = g->s->net->msg_send(g->s, pe, &tag, src, n, msg, &q->h[q->n]);
    if (rc != 0)
        symm_fatal(routine, "sending %zu bytes to PE %d failed: %s", n, pe,
                   symm_status_str((symm_status_t)rc));
    if (q->h[q->n] != NULL)
        q->n++;
}

/* Wait until member i's message under tag + round is here; its length. */
size_t symm_coll_arrived(symm_group_t *g, symm_msg_tag_t tag, int round, int i)
{
    size_t len;
    unsigned polls = 0;
    tag.seq += (uint64_t)round;
    while (!g->s->net->msg_probe(g->s, &tag, symm_group_pe(g, i), &len))
        symm_wait_backoff(g->s, &polls);
    return len;
}

int symm_coll_recv_try(symm_group_t *g, symm_msg_tag_t tag, int round, int i, void *dst, size_t n,
                       void **h, const char *routine)
{
    size_t len;
    int pe = symm_group_pe(g, i);
    tag.seq += (uint64_t)round;
    if (!g->s->net->msg_probe(g->s, &tag, pe, &len))
        return 0;
    if (len != n)
        symm_fatal(routine,
                   "PE %d sent %zu bytes where this PE expects %zu: the members passed "
                   "different sizes",
                   pe, len, n);
    int rc = g->s->net->msg_take(g->s, &tag, pe, dst, n, h);
    if (rc != 0)
        symm_fatal(routine, "receiving %zu bytes from PE %d failed: %s", n, pe,
                   symm_status_str((symm_status_t)rc));
    return 1;
}

void symm_coll_recv_wait(symm_group_t *g, void *h, const char *routine)
{
    int rc = g->s->net->msg_wait(g->s, h);
    if (rc != 0)
        symm_fatal(routine, "a collective message failed: %s", symm_status_str((symm_status_t)rc));
}

void symm_coll_recv_window(symm_group_t *g, size_t total, int window_max,
                           int (*post)(void *arg, size_t i, void **h),
                           void (*done)(void *arg, size_t i), void *arg, const char *routine)
{
    int w = g->s->cfg.coll.window < window_max ? g->s->cfg.coll.window : window_max;
    size_t window = (size_t)(w > 0 ? w : 1), finished = 0, posted = 0;
    void *h[64];
    unsigned polls = 0;
    while (finished < total) {
        while (posted < total && posted < finished + window && post(arg, posted, &h[posted % 64]))
            posted++;
        if (finished == posted) {
            symm_wait_backoff(g->s, &polls);
            continue;
        }
        polls = 0;
        symm_coll_recv_wait(g, h[finished % 64], routine);
        if (done != NULL)
            done(arg, finished);
        finished++;
    }
}

size_t symm_coll_seg_bytes(const symm_group_t *g, size_t nbytes, size_t max)
{
    size_t seg = g->s->cfg.coll.segment != 0 ? g->s->cfg.coll.segment : 1;
    if (nbytes / seg >= max)
        seg = (nbytes + max - 1) / max;
    return seg;
}

/* Receive member i's message under tag + round into dst: n bytes, or end
 * the job naming both PEs if it sent another size (the members passed
 * different sizes to one collective). */
void symm_coll_recv_from(symm_group_t *g, symm_msg_tag_t tag, int round, int i, void *dst, size_t n,
                         const char *routine)
{
    void *h;
    unsigned polls = 0;
    while (!symm_coll_recv_try(g, tag, round, i, dst, n, &h, routine))
        symm_wait_backoff(g->s, &polls);
    symm_coll_recv_wait(g, h, routine);
}

/* out = the reduction, in the order of who[0..m) (group indices; NULL:
 * every member, in member order), of their count elements: mine (at
 * position self) from `mine`, the others' taken from their messages under
 * tag+round. The same order on every PE: identical bits. */
void symm_coll_reduce_taken(symm_group_t *g, char *out, const void *mine, size_t count, size_t elem,
                            symm_reduce_fn op, symm_msg_tag_t tag, int round, const int *who, int m,
                            int self, const char *routine)
{
    size_t bytes = count * elem;
    char *buf = bytes != 0 && m > 1 ? symm_coll_buf_get(g, bytes, routine) : NULL;
    for (int j = 0; j < m; j++) {
        const void *x = mine;
        if (j != self) {
            char *into = j == 0 ? out : buf;
            symm_coll_recv_from(g, tag, round, who != NULL ? who[j] : j, into, bytes, routine);
            x = into;
        }
        if (j == 0) {
            if (x != out && bytes != 0)
                memcpy(out, x, bytes);
        } else {
            op(out, out, x, count);
        }
    }
    symm_coll_buf_put(buf);
}
