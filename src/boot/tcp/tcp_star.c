/*
 * tcp_star.c - the TCP bootstrap shaped as a star: its collectives.
 *
 * Owns the star's collectives: each PE sends its part to rank 0, rank 0
 * answers everyone; and what rank 0 does when one fails (the report naming
 * the PEs, the abort it sends the others). The object and the choice of
 * star or tree (tcp_boot.c), joining (tcp_accept.c, tcp_hello.c) and the
 * tree's collectives (tcp_tree.c) are elsewhere; the wire format is
 * tcp_wire.h's. Every message carries the collective's sequence number, so
 * mismatched calls are caught and named instead of mixing data.
 *
 * Rank 0 polls every socket at once (it serves 1024 PEs and never blocks on
 * one slow peer) and bounds each call by timeout_s, naming the PEs it waits
 * for. The others wait twice as long for rank 0, so that rank 0's precise
 * report and the abort it then sends them come first; they log an abort at
 * info level only, which keeps one error line per failed job. timeout_s <= 0
 * waits forever. With a pre-shared key the other ranks finish their TLS
 * handshake at their first collective (tcp_hello.c).
 *
 * Must never: sleep on the common path, raise SIGPIPE, mix the data of two
 * collectives, or log more than one line per failure. Not thread-safe: one
 * caller at a time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#endif
#include "boot/boot_io.h"
#include "boot/tcp/tcp_priv.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

const char *symm_tcp_msg_name(int type)
{
    switch (type) {
    case TCP_MSG_HELLO: return "hello";
    case TCP_MSG_BARRIER: return "barrier";
    case TCP_MSG_ALLGATHER: return "allgather";
    case TCP_MSG_REJECT: return "reject";
    case TCP_MSG_ABORT: return "abort";
    case TCP_MSG_DIR: return "directory";
    }
    return "unknown message";
}

#define msg_name symm_tcp_msg_name

static void step_text(char *buf, size_t cap, int type, uint32_t seq)
{
    snprintf(buf, cap, "%s #%u", msg_name(type), seq);
}

/* ---- failures -------------------------------------------------------------- */

int symm_tcp_io_report(const symm_tcp_conn_t *c, int pe, int io, const char *during,
                       double waited_s)
{
    if (io == SYMM_IO_TLS) {
        symm_error("bootstrap", "TLS connection to PE %d failed during %s: %s", pe, during,
                   c->tls ? symm_tls_error(c->tls) : "no session");
        return SYMM_ERR_PEER;
    }
    if (io == SYMM_IO_TIMEOUT) {
        symm_error("bootstrap", "timed out after %g s waiting for PE %d (%s)", waited_s, pe,
                   during);
        return SYMM_ERR_TIMEOUT;
    }
    if (io == SYMM_IO_EOF || io == -ECONNRESET || io == -EPIPE) {
        symm_error("bootstrap", "PE %d closed its bootstrap connection during %s "
                   "(did it exit or die?)", pe, during);
        return SYMM_ERR_PEER;
    }
    symm_error("bootstrap", "connection to PE %d failed during %s: %s", pe, during,
               strerror(-io));
    return SYMM_ERR_PEER;
}

/* A PE that has part of a reply would misread an abort header after it, so
 * its socket is shut down instead. */
void symm_tcp_root_abort(tcp_boot_t *tb, int culprit, int status, const size_t *sent,
                         size_t total)
{
    uint8_t h[TCP_HDR_LEN];
    tcp_hdr_pack(h, TCP_MSG_ABORT, tb->seq, culprit, (uint64_t)(-(int64_t)status));
    for (int r = tb->lo; tb->peer != NULL && r < tb->hi; r++) {
        symm_tcp_conn_t *c = tcp_peer(tb, r);
        size_t off = 0, s = sent != NULL ? sent[r - tb->peer_base] : 0;
        if (c->fd < 0 || r == culprit)
            continue;
        /* Best effort, never waiting; a TLS record cut short is as good as
         * a shutdown. */
        if ((s > 0 && s < TCP_HDR_LEN + total) ||
            symm_tcp_conn_send_some(c, h, TCP_HDR_LEN, NULL, 0, &off) != 1)
            (void)shutdown(c->fd, SHUT_RDWR);
    }
    tb->failed = status;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int symm_tcp_root_timeout(tcp_boot_t *tb, int npend, const char *what, double waited_s)
{
    char list[512];
    /* The pending set is in poll order; name it in rank order. */
    qsort(tb->pfd_rank, (size_t)npend, sizeof(int), int_cmp);
    symm_boot_ranks_format(list, sizeof(list), tb->pfd_rank, npend);
    symm_error("bootstrap", "timed out after %g s waiting for PE(s) %s %s", waited_s, list, what);
    return SYMM_ERR_TIMEOUT;
}

/* ---- collectives ---------------------------------------------------------- */

static int root_check_hdr(tcp_boot_t *tb, int r, int type, size_t len, const uint8_t *b)
{
    tcp_hdr_t h = tcp_hdr_unpack(b);
    if (h.magic == TCP_MAGIC && h.type == type && h.seq == tb->seq && h.arg == r &&
        h.len == len)
        return SYMM_OK;
    if (h.magic != TCP_MAGIC || h.arg != r) {
        symm_error("bootstrap", "garbled message from PE %d during %s #%u", r, msg_name(type),
                   tb->seq);
    } else if (h.type != type || h.seq != tb->seq) {
        symm_error("bootstrap", "mismatched calls: PE %d is in bootstrap %s #%u, PE 0 in %s #%u",
                   r, msg_name(h.type), h.seq, msg_name(type), tb->seq);
    } else {
        symm_error("bootstrap", "mismatched calls: PE %d gives %llu bytes to allgather #%u, "
                   "PE 0 gives %zu", r, (unsigned long long)h.len, tb->seq, len);
    }
    return SYMM_ERR_BOOT;
}

/* Progress rank r's part of a gather; sets *done_p when it is all there. */
static int root_recv_step(tcp_boot_t *tb, int r, int type, void *out, size_t len, int *done_p)
{
    symm_tcp_conn_t *c = &tb->peer[r];
    int io = 1, rc;
    uint8_t *h = tb->hdr + (size_t)r * TCP_HDR_LEN;
    char during[48];

    if (tb->moved[r] < TCP_HDR_LEN) {
        io = symm_tcp_conn_recv_some(c, h, TCP_HDR_LEN, &tb->moved[r]);
        if (io == 1 && (rc = root_check_hdr(tb, r, type, len, h)) != SYMM_OK)
            return rc;
    }
    if (io == 1 && len > 0) {
        size_t off = tb->moved[r] - TCP_HDR_LEN;
        io = symm_tcp_conn_recv_some(c, (uint8_t *)out + (size_t)r * len, len, &off);
        tb->moved[r] = TCP_HDR_LEN + off;
    }
    if (io < 0) {
        step_text(during, sizeof(during), type, tb->seq);
        return symm_tcp_io_report(c, r, io, during, 0);
    }
    *done_p = io == 1;
    return SYMM_OK;
}

/* Poll the n connections of tb->pfd; a TLS session holding decrypted bytes
 * counts as readable without waiting. */
static int root_poll(tcp_boot_t *tb, int n, double end)
{
    int pending = 0;
    if (tb->tls != NULL)
        for (int i = 0; i < n && !pending; i++)
            pending = symm_tcp_conn_pending(&tb->peer[tb->pfd_rank[i]]);
    int pr = symm_boot_poll(tb->pfd, (nfds_t)n, pending ? 0.0 : end);
    if (pending && pr >= 0) {
        for (int i = 0; i < n; i++)
            if (symm_tcp_conn_pending(&tb->peer[tb->pfd_rank[i]]))
                tb->pfd[i].revents |= POLLIN;
        pr = 1;
    }
    return pr;
}

static int root_gather(tcp_boot_t *tb, int type, void *out, size_t len, double end, int *culprit_p)
{
    char what[48];
    int n = 0;
    for (int r = 1; r < tb->base.size; r++) {
        tb->moved[r] = 0;
        tb->pfd[n] = (struct pollfd){tb->peer[r].fd, POLLIN, 0};
        tb->pfd_rank[n++] = r;
    }
    while (n > 0) {
        int pr = root_poll(tb, n, end);
        if (pr == 0) {
            snprintf(what, sizeof(what), "in %s #%u", msg_name(type), tb->seq);
            return symm_tcp_root_timeout(tb, n, what, tb->base.timeout_s);
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            return SYMM_ERR_SYS;
        }
        for (int i = 0; i < n;) {
            int r = tb->pfd_rank[i], done = 0, rc;
            if (tb->pfd[i].revents == 0) {
                i++;
                continue;
            }
            rc = root_recv_step(tb, r, type, out, len, &done);
            if (rc != SYMM_OK) {
                *culprit_p = r;
                return rc;
            }
            n = tcp_pfd_step(tb, &i, n, done, &tb->peer[r]);
        }
    }
    return SYMM_OK;
}

/* Send the result to every rank at once, as fast as each one takes it. */
static int root_scatter(tcp_boot_t *tb, int type, const void *data, size_t total, double end,
                        int *culprit_p)
{
    uint8_t h[TCP_HDR_LEN];
    char what[64];
    int n = 0;
    tcp_hdr_pack(h, type, tb->seq, 0, total);
    for (int r = 1; r < tb->base.size; r++) {
        tb->moved[r] = 0;
        /* Try every socket once before the first poll: usually it all fits. */
        tb->pfd[n] = (struct pollfd){tb->peer[r].fd, POLLOUT, POLLOUT};
        tb->pfd_rank[n++] = r;
    }
    for (;;) {
        for (int i = 0; i < n;) {
            int r = tb->pfd_rank[i];
            if (tb->pfd[i].revents == 0) {
                i++;
                continue;
            }
            int io = symm_tcp_conn_send_some(&tb->peer[r], h, TCP_HDR_LEN, data, total,
                                              &tb->moved[r]);
            if (io < 0) {
                step_text(what, sizeof(what), type, tb->seq);
                *culprit_p = r;
                return symm_tcp_io_report(&tb->peer[r], r, io, what, 0);
            }
            n = tcp_pfd_step(tb, &i, n, io == 1, &tb->peer[r]);
        }
        if (n == 0)
            return SYMM_OK;
        int pr = symm_boot_poll(tb->pfd, (nfds_t)n, end);
        if (pr == 0) {
            snprintf(what, sizeof(what), "to take the result of %s #%u", msg_name(type),
                     tb->seq);
            return symm_tcp_root_timeout(tb, n, what, tb->base.timeout_s);
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            return SYMM_ERR_SYS;
        }
    }
}

static int root_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len)
{
    double end = symm_boot_deadline(tb->base.timeout_s);
    size_t total = (size_t)tb->base.size * len;
    int culprit = -1, rc;

    if (len > 0)
        memmove(out, in, len);
    rc = root_gather(tb, type, out, len, end, &culprit);
    if (rc != SYMM_OK) {
        symm_tcp_root_abort(tb, culprit, rc, NULL, 0);
        return rc;
    }
    rc = root_scatter(tb, type, out, total, end, &culprit);
    if (rc != SYMM_OK)
        symm_tcp_root_abort(tb, culprit, rc, tb->moved, total);
    return rc;
}

static int peer_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len)
{
    double t0 = symm_boot_now();
    double end = tb->base.timeout_s > 0 ? t0 + 2 * tb->base.timeout_s : -1.0;
    size_t total = (size_t)tb->base.size * len;
    uint8_t h[TCP_HDR_LEN];
    char during[48];
    int io, rc = SYMM_ERR_BOOT;

    step_text(during, sizeof(during), type, tb->seq);
    if (tb->hello_due) {
        int jrc = symm_tcp_peer_finish_join(tb, end, t0);
        if (jrc != SYMM_OK) {
            rc = jrc;
            goto err_fail;
        }
    }
    tcp_hdr_pack(h, type, tb->seq, tb->base.rank, len);
    io = symm_tcp_conn_send_all(&tb->up, h, TCP_HDR_LEN, in, len, end);
    if (io == 0) {
        io = symm_tcp_conn_recv_all(&tb->up, h, TCP_HDR_LEN, end);
    } else if (io == SYMM_IO_EOF || io == -EPIPE || io == -ECONNRESET) {
        /* Rank 0 closed, maybe after saying why (a refusal, an abort, a TLS
         * alert): read that, without waiting. */
        int why = symm_tcp_conn_recv_all(&tb->up, h, TCP_HDR_LEN, symm_boot_now());
        if (why != SYMM_IO_TIMEOUT)
            io = why;
    }
    if (io == SYMM_IO_TLS && tb->seq == 1) {
        /* Rank 0 judges a certificate after this side's handshake is done:
         * its refusal arrives here, as a TLS alert. */
        symm_error("bootstrap", "PE 0 refused this PE's connection: TLS handshake failed (wrong "
                   "job secret or certificate): %s", symm_tls_error(tb->up.tls));
        rc = SYMM_ERR_BOOT;
        goto err_fail;
    }
    if (io != 0) {
        rc = symm_tcp_io_report(&tb->up, 0, io, during, symm_boot_now() - t0);
        goto err_fail;
    }
    tcp_hdr_t r = tcp_hdr_unpack(h);
    if (r.magic != TCP_MAGIC) {
        symm_error("bootstrap", "garbled message from PE 0 during %s", during);
    } else if (r.type == TCP_MSG_REJECT) {
        symm_error("bootstrap", "PE 0 refused this PE's connection: %s", tcp_reject_text(r.arg));
    } else if (r.type == TCP_MSG_ABORT) {
        /* Rank 0 logged the cause; one line per job is enough. */
        rc = SYMM_ERR_PEER;
        if (r.arg >= 0)
            symm_info("bootstrap", "PE 0 gave up during %s: PE %d %s", during, r.arg,
                      symm_status_str(-(int)r.len));
        else
            symm_info("bootstrap", "PE 0 gave up during %s: %s", during,
                      symm_status_str(-(int)r.len));
    } else if (r.type != type || r.seq != tb->seq || r.len != total) {
        symm_error("bootstrap", "PE 0 answered %s #%u (%llu bytes) to %s (%zu bytes)",
                   msg_name(r.type), r.seq, (unsigned long long)r.len, during, total);
    } else {
        io = total > 0 ? symm_tcp_conn_recv_all(&tb->up, out, total, end) : 0;
        if (io == 0)
            return SYMM_OK;
        rc = symm_tcp_io_report(&tb->up, 0, io, during, symm_boot_now() - t0);
    }
err_fail:
    tb->failed = rc;
    return rc;
}

int symm_tcp_star_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len)
{
    if (tb->base.rank == 0)
        return root_collective(tb, type, in, out, len);
    return peer_collective(tb, type, in, out, len);
}
