/*
 * tcp_accept.c - the accepting side of the TCP bootstrap: every PE with
 * children, while they join.
 *
 * Owns the listening phase: rank 0's listening socket (inherited from the
 * launcher, or bound to root_addr in unique-id mode), the judgement of each
 * hello (magic, version, job secret, then rank, size, fan-out and TLS
 * setting) and, at rank 0, the tree's directory (tcp_tree.c's
 * messages). All pending connections are served at once with poll(), so a
 * stray client that connects and says nothing delays nobody.
 *
 * Each connection that has not joined yet is a small state machine (a
 * pend_conn_t, one handler per state, run by conn_step):
 *   ACC_NEW       nothing read yet: its first byte (peeked) tells a plain
 *                 hello from a TLS ClientHello; a TLS session is made for
 *                 the latter (with the verify context if this PE is plain)
 *   ACC_HELLO     reading the hello, plain or through TLS (its early data,
 *                 or after the handshake); judged as soon as its first 8
 *                 bytes are in (magic, version), wholly once complete
 *   ACC_DIR_READ  rank 0: the hello's bytes were a directory request;
 *                 reading the rest of it, then judging it
 *   ACC_DIR_WAIT  rank 0: registered, waiting for its parent's address
 *   ACC_DIR_SEND  rank 0: sending the directory's answer, then closed
 *   ACC_DRAIN     refused: what comes is discarded for DRAIN_S, then closed
 * A handler returns STEP_WAIT (poll for c->c.want), STEP_AGAIN (go on with
 * the new state now), STEP_USED (the PE joined, or the connection was
 * refused and closed, or lost: it leaves the set) or a failure status of
 * the job. The driver (root_accept_all) polls the listening socket, the
 * pending connections, the parent and the joined children (an abort, a lost
 * PE), until every rank of lo..hi-1 has joined and, at rank 0, the
 * directory has answered every PE that registers.
 *
 * With TLS (tcp_tls.h) the handshake runs in the same poll loop and the
 * hello is read inside TLS; a peer without the secret fails the handshake
 * (PSK) and is refused like a bad hello. A PE whose TLS setting differs from
 * this one's fails the job at once, with a message saying so, once it has
 * proven it holds the secret (a plain hello with it, or a completed PSK
 * handshake).
 *
 * Must never: let a connection that has not presented the secret end or
 * stall the job (it is refused, logged, and this PE keeps waiting), or wait
 * past the deadline.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include "boot/boot_io.h"
#include "boot/tcp/tcp_priv.h"
#include "boot/tls.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connections that have not finished their hello, beyond the PEs still
 * expected; past that rank 0 leaves new ones in the listen backlog. */
#define PEND_EXTRA 64

/* A refused connection is drained this long before it is closed, so that
 * closing with unread bytes does not reset it before its peer has read why
 * it was refused. */
#define DRAIN_S 1.0

/* First byte of a TLS handshake record (a ClientHello). */
#define TLS_RECORD_HANDSHAKE 0x16

/* The states of a connection before it joins (the header comment). */
typedef enum acc_state {
    ACC_NEW,
    ACC_HELLO,
    ACC_DIR_READ,
    ACC_DIR_WAIT,
    ACC_DIR_SEND,
    ACC_DRAIN,
    ACC_NSTATES
} acc_state_t;

/* What a state's handler returns, besides a failure status of the job. */
enum { STEP_WAIT = 0, STEP_USED = 1, STEP_AGAIN = 2 };

typedef struct pend_conn {
    symm_tcp_conn_t c;
    acc_state_t state;
    int other;                /* it speaks what this PE does not (plain or TLS) */
    double drain_end;         /* ACC_DRAIN: close by then */
    size_t got, need;         /* TCP_HELLO_LEN, or TCP_DIR_LEN for a directory request */
    int dir_rank;             /* ACC_DIR_*: the rank it registered */
    uint8_t buf[TCP_DIR_LEN]; /* the hello or request; ACC_DIR_SEND: the answer */
    char from[64];
} pend_conn_t;

/* Rank 0 (or a tree parent) while PEs join. */
typedef struct accept_st {
    tcp_boot_t *tb;
    symm_tls_ctx_t *verify; /* plain rank 0: PSK context to check a TLS speaker's secret */
    int verify_tried;
    int joined;
    double end;
    pend_conn_t *pend; /* the pending connections, np of them */
    int np;
    int *wait_at; /* rank 0, by rank: its pending ACC_DIR_WAIT connection, or -1 */
    int culprit;  /* whom a failure names in the abort, or -1 */
    int from;     /* the rank whose abort or loss ended it, or -1 */
    /* The driver's: */
    int lfd;            /* the listening socket */
    double t0;          /* when accepting started */
    int nkids;          /* ranks to accept (lo..hi-1) */
    int ndir;           /* rank 0: PEs the directory answers */
    struct pollfd *pfd; /* [0] lfd, [1..narmed] pend, then the watched links */
    int narmed;         /* pending connections in pfd this round */
    int max_pend;       /* this round's bound on pending connections */
} accept_st_t;

/* ---- one connection: refusals ------------------------------------------- */

static void conn_lost(pend_conn_t *c, int io, const char *when)
{
    symm_debug("bootstrap", "connection from %s lost %s (%s)", c->from, when,
               io == SYMM_IO_EOF ? "closed" : strerror(-io));
    symm_tcp_conn_close(&c->c);
}

/* Done with c but for draining it (see DRAIN_S): STEP_WAIT, to keep it. */
static int conn_drain_start(pend_conn_t *c)
{
    (void)shutdown(c->c.fd, SHUT_WR);
    c->state = ACC_DRAIN;
    c->c.want = POLLIN;
    c->drain_end = symm_boot_now() + DRAIN_S;
    return 0;
}

/* ACC_DRAIN: discard what comes until drain_end; STEP_USED once closed. */
static int conn_drain(pend_conn_t *c)
{
    char buf[4096];
    for (;;) {
        ssize_t k = recv(c->c.fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (k > 0 || (k < 0 && errno == EINTR))
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && symm_boot_now() < c->drain_end)
            return 0;
        symm_tcp_conn_close(&c->c);
        return 1;
    }
}

/* Refuse with a reject message, in the connection's own protocol, and
 * drain it: STEP_WAIT. */
static int conn_refuse(pend_conn_t *c, int reason, const char *detail)
{
    uint8_t h[TCP_HDR_LEN];
    size_t off = 0;
    tcp_hdr_pack(h, TCP_MSG_REJECT, 0, reason, 0);
    (void)symm_tcp_conn_send_some(&c->c, h, TCP_HDR_LEN, NULL, 0, &off);
    symm_error("bootstrap", "refused connection from %s: %s%s", c->from, tcp_reject_text(reason),
               detail);
    return conn_drain_start(c);
}

/* The TLS handshake failed: OpenSSL has sent its alert, which is the
 * refusal. */
static int conn_refuse_tls(pend_conn_t *c)
{
    symm_error("bootstrap",
               "refused connection from %s: TLS handshake failed (wrong job secret "
               "or certificate): %s%s",
               c->from,
               symm_tls_failed_on_secret(c->c.tls) ? "bad job secret" : symm_tls_error(c->c.tls),
               c->other ? " (it speaks TLS; bootstrap TLS is off on PE 0)" : "");
    return conn_drain_start(c);
}

/* A PE of this job is refused and the job fails at once: leave it the time
 * to read why (DRAIN_S at most), then close. */
static void conn_linger(pend_conn_t *c, double end)
{
    double until = symm_boot_now() + DRAIN_S;
    conn_drain_start(c);
    while (conn_drain(c) == 0) {
        struct pollfd p = {c->c.fd, POLLIN, 0};
        if (symm_boot_poll(&p, 1, end >= 0 && end < until ? end : until) <= 0) {
            symm_tcp_conn_close(&c->c);
            break;
        }
    }
}

static int secret_equal(const uint8_t *a, const char *b)
{
    unsigned diff = 0;
    for (int i = 0; i < TCP_SECRET_LEN; i++)
        diff |= (unsigned)(a[i] ^ (uint8_t)b[i]);
    return diff == 0;
}

/* A PE of this job (it holds the secret) shapes the bootstrap otherwise:
 * refuse it and fail the job, saying so. */
static int shape_differs(accept_st_t *st, pend_conn_t *c, int r, uint32_t k)
{
    tcp_boot_t *tb = st->tb;
    uint8_t rj[TCP_HDR_LEN];
    size_t off = 0;
    tcp_hdr_pack(rj, TCP_MSG_REJECT, 0, TCP_REJECT_TREE, 0);
    (void)symm_tcp_conn_send_some(&c->c, rj, TCP_HDR_LEN, NULL, 0, &off);
    symm_error("bootstrap",
               "PE %d (from %s) runs the bootstrap as a tree of fan-out %u, PE %d of "
               "fan-out %d (set SYMM_BOOT_TREE_K alike on every PE)",
               r, c->from, k, tb->base.rank, tb->tree_k);
    conn_linger(c, st->end);
    return SYMM_ERR_BOOT;
}

/* ---- one connection: the states ----------------------------------------- */

/* Plain rank 0 met a TLS speaker: a PSK context proves whether it holds the
 * secret (then it is a PE of this job with TLS on). NULL if there can be
 * none (no OpenSSL): the speaker is then just refused. */
static symm_tls_ctx_t *verify_ctx(accept_st_t *st)
{
    if (!st->verify_tried && symm_tls_built()) {
        st->verify_tried = 1;
        if (symm_tls_ctx_create(SYMM_TLS_PSK, 1, st->tb->secret, &st->verify) != SYMM_OK)
            st->verify = NULL;
    }
    return st->verify;
}

/* ACC_NEW: tell plain from TLS by the first byte, without taking it, and go
 * on to read the hello (plain, or a TLS session over the socket). */
static int on_new(accept_st_t *st, pend_conn_t *c, int i)
{
    tcp_boot_t *tb = st->tb;
    symm_tls_ctx_t *ctx = NULL;
    uint8_t b;
    (void)i;
    ssize_t k = recv(c->c.fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return STEP_WAIT;
    if (k <= 0) {
        conn_lost(c, k == 0 ? SYMM_IO_EOF : -errno, "before its hello");
        return STEP_USED;
    }
    if (tb->tls != NULL && b == (uint8_t)(TCP_MAGIC >> 24))
        c->other = 1; /* a plain hello, maybe of a PE without TLS */
    else if (tb->tls != NULL)
        ctx = tb->tls;
    else if (b == TLS_RECORD_HANDSHAKE && (ctx = verify_ctx(st)) != NULL)
        c->other = 1;
    if (ctx != NULL) {
        int rc = symm_tls_new(ctx, c->c.fd, &c->c.tls);
        if (rc != SYMM_OK)
            return rc;
    }
    c->state = ACC_HELLO;
    c->need = TCP_HELLO_LEN;
    return STEP_AGAIN;
}

/* The whole hello is in c->buf: judge it. */
static int hello_judge(accept_st_t *st, pend_conn_t *c)
{
    tcp_boot_t *tb = st->tb;
    tcp_hdr_t h = tcp_hdr_unpack(c->buf);
    if (h.type != TCP_MSG_HELLO)
        return conn_refuse(c, TCP_REJECT_PROTOCOL, "");
    if (!secret_equal(c->buf + TCP_HDR_LEN, tb->secret))
        return conn_refuse(c, TCP_REJECT_SECRET,
                           c->other && tb->tls != NULL ? " (and it runs the bootstrap without TLS)"
                                                       : "");
    /* From here the peer is part of this job: a mismatch is the launcher's
     * or the user's error, and waiting would only turn it into a timeout. */
    int size = tb->base.size, r = h.arg;
    if (c->other) {
        uint8_t rj[TCP_HDR_LEN];
        size_t off = 0;
        tcp_hdr_pack(rj, TCP_MSG_REJECT, 0, TCP_REJECT_TLS, 0);
        (void)symm_tcp_conn_send_some(&c->c, rj, TCP_HDR_LEN, NULL, 0, &off);
        symm_error("bootstrap",
                   "PE %d (from %s) runs the bootstrap %s TLS, PE %d %s: turn TLS "
                   "on or off alike on every PE (SYMM_BOOT_TLS, aclshmemx_set_conf_store_tls)",
                   r, c->from, tb->tls != NULL ? "without" : "with", tb->base.rank,
                   tb->tls != NULL ? "with it" : "without");
        conn_linger(c, st->end);
        return SYMM_ERR_BOOT;
    }
    if (h.seq != (uint32_t)tb->tree_k)
        return shape_differs(st, c, r, h.seq);
    if (h.len != (uint64_t)size) {
        symm_error("bootstrap", "PE %d (from %s) was started with job size %llu, PE %d with %d", r,
                   c->from, (unsigned long long)h.len, tb->base.rank, size);
        return SYMM_ERR_BOOT;
    }
    if (r < tb->lo || r >= tb->hi) {
        symm_error("bootstrap", "a PE from %s claims rank %d, outside %d..%d (the children of "
                   "this PE)", c->from, r, tb->lo, tb->hi - 1);
        return SYMM_ERR_BOOT;
    }
    if (tcp_peer(tb, r)->fd >= 0) {
        symm_error("bootstrap", "two PEs claim rank %d (the second from %s)", r, c->from);
        return SYMM_ERR_BOOT;
    }
    *tcp_peer(tb, r) = c->c;
    c->c = (symm_tcp_conn_t){-1, NULL, POLLIN};
    st->joined++;
    return STEP_USED;
}

/* ---- the tree's directory, rank 0 ------------------------------------------ */

/* ACC_DIR_SEND: send what is left of the directory answer; STEP_USED once
 * sent (the connection is then used up). */
static int on_dir_send(accept_st_t *st, pend_conn_t *c, int i)
{
    tcp_dir_t *d = st->tb->dir;
    (void)i;
    int io = symm_tcp_conn_send_some(&c->c, c->buf, TCP_DIR_LEN, NULL, 0, &c->got);
    if (io == 0)
        return STEP_WAIT;
    if (io < 0) {
        /* It asked and left: its parent or rank 0 names it if it is gone. */
        conn_lost(c, io, "before its directory answer");
        return STEP_USED;
    }
    if (d->seen[c->dir_rank] != 2) {
        d->seen[c->dir_rank] = 2;
        d->answered++;
    }
    symm_tcp_conn_close(&c->c);
    return STEP_USED;
}

/* c (in ACC_DIR_WAIT) waits for its parent's address: answer it if the
 * parent has registered (ACC_DIR_SEND). */
static int dir_answer(accept_st_t *st, pend_conn_t *c)
{
    tcp_boot_t *tb = st->tb;
    int r = c->dir_rank, parent = (r - 1) / tb->tree_k;
    if (parent != 0 && tb->dir->seen[parent] == 0)
        return STEP_WAIT;
    st->wait_at[r] = -1;
    symm_tree_dir_pack(tb, c->buf, TCP_MSG_DIR_ANSWER, parent, (uint64_t)r,
                       parent == 0 ? "" : tb->dir->addr[parent]);
    c->state = ACC_DIR_SEND;
    c->got = 0;
    c->c.want = POLLOUT;
    return on_dir_send(st, c, -1);
}

/* A whole directory request is in c->buf (pending connection i): judge it,
 * record the address and answer when the parent's is known. */
static int dir_judge(accept_st_t *st, pend_conn_t *c, int i)
{
    tcp_boot_t *tb = st->tb;
    tcp_hdr_t h = tcp_hdr_unpack(c->buf);
    char addr[TCP_ADDR_LEN];
    int mode, r = h.arg, size = tb->base.size;
    if (symm_tree_dir_unpack(tb, c->buf, &mode, addr) != SYMM_OK)
        return conn_refuse(c, TCP_REJECT_SECRET, " (in its bootstrap directory request)");
    /* It holds the secret: a PE of this job, and a mismatch fails the job. */
    if (h.seq != (uint32_t)tb->tree_k)
        return shape_differs(st, c, r, h.seq);
    if (mode != tb->tls_mode) {
        uint8_t rj[TCP_HDR_LEN];
        size_t off = 0;
        tcp_hdr_pack(rj, TCP_MSG_REJECT, 0, TCP_REJECT_TLS, 0);
        (void)symm_tcp_conn_send_some(&c->c, rj, TCP_HDR_LEN, NULL, 0, &off);
        symm_error("bootstrap",
                   "PE %d (from %s) runs the bootstrap with TLS %s, PE 0 with TLS "
                   "%s: set TLS alike on every PE (SYMM_BOOT_TLS, aclshmemx_set_conf_store_tls)",
                   r, c->from, symm_tls_mode_name(mode), symm_tls_mode_name(tb->tls_mode));
        conn_linger(c, st->end);
        return SYMM_ERR_BOOT;
    }
    if (h.len != (uint64_t)size) {
        symm_error("bootstrap", "PE %d (from %s) was started with job size %llu, PE 0 with %d", r,
                   c->from, (unsigned long long)h.len, size);
        return SYMM_ERR_BOOT;
    }
    if (r <= 0 || r >= size) {
        symm_error("bootstrap", "a PE from %s claims rank %d, outside 1..%d", c->from, r, size - 1);
        return SYMM_ERR_BOOT;
    }
    if (tb->dir == NULL || !tcp_dir_needed(r, size, tb->tree_k)) {
        symm_error("bootstrap", "PE %d (from %s) asks the bootstrap directory, which a PE of "
                   "its place in the tree does not (a PE of another build of symm?)", r, c->from);
        return SYMM_ERR_BOOT;
    }
    tcp_dir_t *d = tb->dir;
    if (d->seen[r] != 0 && strcmp(d->addr[r], addr) != 0) {
        symm_error("bootstrap", "two PEs claim rank %d (the second from %s)", r, c->from);
        return SYMM_ERR_BOOT;
    }
    if (st->wait_at[r] >= 0) {
        symm_error("bootstrap", "two PEs claim rank %d (the second from %s)", r, c->from);
        return SYMM_ERR_BOOT;
    }
    if (d->seen[r] == 0) {
        memcpy(d->addr[r], addr, TCP_ADDR_LEN);
        d->seen[r] = 1;
        /* Its children that asked already get its address now. */
        for (int64_t k = (int64_t)r * tb->tree_k + 1;
             k < size && k <= (int64_t)r * tb->tree_k + tb->tree_k; k++) {
            int at = st->wait_at[k];
            /* Once answered it is closed (fd -1), and swept by the caller. */
            if (at >= 0 && at != i && st->pend[at].state == ACC_DIR_WAIT)
                (void)dir_answer(st, &st->pend[at]);
        }
    }
    c->dir_rank = r;
    c->state = ACC_DIR_WAIT;
    c->c.want = POLLIN; /* it says nothing more: readable means it left */
    st->wait_at[r] = i;
    return dir_answer(st, c);
}

/* Read more of what c->buf is to hold (c->need bytes): STEP_AGAIN once all
 * of it is in, else what the handler returns. The first 8 bytes are judged
 * at once, so that a stray client that sends a few bytes and waits is
 * refused now. */
static int conn_read(pend_conn_t *c)
{
    int rc = symm_tcp_conn_recv_some(&c->c, c->buf, c->need, &c->got);
    if (rc == SYMM_IO_TLS)
        return conn_refuse_tls(c);
    if (rc < 0) {
        conn_lost(c, rc, "before its hello");
        return STEP_USED;
    }
    if (c->got >= 8) {
        tcp_hdr_t h = tcp_hdr_unpack(c->buf);
        if (h.magic != TCP_MAGIC) {
            if (c->buf[0] == TLS_RECORD_HANDSHAKE)
                return conn_refuse(c, TCP_REJECT_TLS, " (it speaks TLS; this PE 0 has none)");
            return conn_refuse(c, TCP_REJECT_PROTOCOL, "");
        }
        if (h.version != TCP_VERSION) {
            char d[64];
            snprintf(d, sizeof(d), " (it speaks %u, this PE %u)", h.version, TCP_VERSION);
            return conn_refuse(c, TCP_REJECT_VERSION, d);
        }
    }
    return rc == 0 ? STEP_WAIT : STEP_AGAIN;
}

/* ACC_HELLO: read the hello and judge it; a directory request (tree rank
 * 0) is longer, and read on in ACC_DIR_READ. */
static int on_hello(accept_st_t *st, pend_conn_t *c, int i)
{
    int rc = conn_read(c);
    (void)i;
    if (rc != STEP_AGAIN)
        return rc;
    if (tcp_hdr_unpack(c->buf).type != TCP_MSG_DIR)
        return hello_judge(st, c);
    /* The directory is plain: a request inside TLS is no PE's. */
    if (c->c.tls != NULL)
        return conn_refuse(c, TCP_REJECT_PROTOCOL, " (a directory request inside TLS)");
    c->state = ACC_DIR_READ;
    c->need = TCP_DIR_LEN;
    return STEP_AGAIN;
}

/* ACC_DIR_READ: read the rest of a directory request and judge it. */
static int on_dir_read(accept_st_t *st, pend_conn_t *c, int i)
{
    int rc = conn_read(c);
    if (rc != STEP_AGAIN)
        return rc;
    return dir_judge(st, c, i);
}

/* ACC_DIR_WAIT: it says nothing more, so readable means it left (or sent
 * what it should not) before its answer. */
static int on_dir_wait(accept_st_t *st, pend_conn_t *c, int i)
{
    (void)i;
    st->wait_at[c->dir_rank] = -1;
    conn_lost(c, SYMM_IO_EOF, "while waiting for its directory answer");
    return STEP_USED;
}

/* ACC_DRAIN: see conn_drain. */
static int on_drain(accept_st_t *st, pend_conn_t *c, int i)
{
    (void)st;
    (void)i;
    return conn_drain(c);
}

static int (*const conn_handler[ACC_NSTATES])(accept_st_t *st, pend_conn_t *c, int i) = {
    [ACC_NEW] = on_new,           [ACC_HELLO] = on_hello,       [ACC_DIR_READ] = on_dir_read,
    [ACC_DIR_WAIT] = on_dir_wait, [ACC_DIR_SEND] = on_dir_send, [ACC_DRAIN] = on_drain,
};

/* Progress pending connection i as far as it goes now: STEP_USED when it is
 * used up, STEP_WAIT to keep waiting, or a failure status of the job. */
static int conn_step(accept_st_t *st, int i)
{
    pend_conn_t *c = &st->pend[i];
    int rc;
    do
        rc = conn_handler[c->state](st, c, i);
    while (rc == STEP_AGAIN);
    return rc;
}

/* ---- the set of connections ---------------------------------------------- */

/* Remove pending connection i (moving the last one into its place). */
static void pend_remove(accept_st_t *st, int i)
{
    pend_conn_t *c = &st->pend[--st->np];
    if (i != st->np) {
        st->pend[i] = *c;
        if (st->wait_at != NULL && st->pend[i].state == ACC_DIR_WAIT)
            st->wait_at[st->pend[i].dir_rank] = i;
    }
}

/* Every expected rank has joined (and, at rank 0, the directory has
 * answered every PE that registers). */
static int accept_done(const accept_st_t *st)
{
    const tcp_boot_t *tb = st->tb;
    return st->joined == tb->hi - tb->lo && (tb->dir == NULL || tb->dir->answered == st->ndir);
}

/* The ranks still awaited into tb->pfd_rank (sized for the job at rank 0,
 * for the children elsewhere): the children not joined and, at rank 0, the
 * PEs that register and have no answer from the directory yet. */
static int accept_missing(accept_st_t *st)
{
    tcp_boot_t *tb = st->tb;
    int n = 0, size = tb->base.size;
    if (tb->dir != NULL) {
        for (int r = 1; r < size; r++)
            if ((tcp_dir_needed(r, size, tb->tree_k) && tb->dir->seen[r] != 2) ||
                (r >= tb->lo && r < tb->hi && tcp_peer(tb, r)->fd < 0))
                tb->pfd_rank[n++] = r;
        return n;
    }
    for (int r = tb->lo; r < tb->hi; r++)
        if (tcp_peer(tb, r)->fd < 0)
            tb->pfd_rank[n++] = r;
    return n;
}

/* The parent or a joined child spoke while this PE still accepts. A
 * child that has started may send its part of the first collective: its
 * header waits in hb for tcp_tree.c's gather (which checks it), and the child
 * is not watched further. Else only an abort, a refusal or a lost
 * connection can come. */
static int watch_step(accept_st_t *st, symm_tcp_conn_t *c, int who, uint8_t *hb, size_t *moved)
{
    int io = symm_tcp_conn_recv_some(c, hb, TCP_HDR_LEN, moved);
    if (io == 0)
        return SYMM_OK;
    if (io == 1 && who != st->tb->up_rank && tcp_hdr_unpack(hb).type != TCP_MSG_ABORT)
        return SYMM_OK;
    st->from = who;
    return symm_tree_unexpected(st->tb, c, who, io == 1 ? 0 : io, hb, "the bootstrap's start",
                                &st->culprit);
}

/* ---- the driver ----------------------------------------------------------- */

/* Pending connections are kept for every PE still expected, plus a few
 * strays; past that new ones wait in the listen backlog. */
static int accept_max_pend(const accept_st_t *st)
{
    int max_pend = st->nkids - st->joined + st->ndir + PEND_EXTRA;
    if (st->tb->dir != NULL)
        max_pend -= st->tb->dir->answered;
    return max_pend;
}

static int accept_setup(accept_st_t *st)
{
    tcp_boot_t *tb = st->tb;
    int size = tb->base.size;
    /* At most every PE still expected plus a few strays are served at once. */
    size_t cap = (size_t)st->nkids + (size_t)st->ndir + PEND_EXTRA;
    st->pend = malloc(cap * sizeof(*st->pend));
    /* The listening socket, the pending connections, then the links
     * watched meanwhile: the parent and the children. */
    st->pfd = malloc((cap + 2 + (size_t)st->nkids) * sizeof(*st->pfd));
    if (tb->dir != NULL && (st->wait_at = malloc((size_t)size * sizeof(int))) != NULL)
        for (int r = 0; r < size; r++)
            st->wait_at[r] = -1;
    if (st->pend == NULL || st->pfd == NULL || (tb->dir != NULL && st->wait_at == NULL)) {
        symm_error("bootstrap", "out of memory");
        return SYMM_ERR_NOMEM;
    }
    for (int i = 0; i < st->nkids; i++)
        tb->moved[i] = 0;
    tb->up_moved = 0;
    return SYMM_OK;
}

/* Drop the connections closed since, and the drained ones whose time is up. */
static void accept_sweep(accept_st_t *st)
{
    double t = symm_boot_now();
    for (int i = st->np - 1; i >= 0; i--)
        if ((st->pend[i].state == ACC_DRAIN && t >= st->pend[i].drain_end &&
             conn_drain(&st->pend[i])) ||
            st->pend[i].c.fd < 0)
            pend_remove(st, i);
}

/* Fill st->pfd for this round: 1 when a TLS session already holds
 * decrypted bytes (poll() cannot see them). A child whose first header is
 * parked for tcp_tree.c's gather is not watched. */
static int accept_arm(accept_st_t *st)
{
    tcp_boot_t *tb = st->tb;
    struct pollfd *pfd = st->pfd;
    int np = st->np, ready = 0;
    st->narmed = np;
    pfd[0] = (struct pollfd){np < st->max_pend ? st->lfd : -1, POLLIN, 0};
    for (int i = 0; i < np; i++) {
        pfd[i + 1] = (struct pollfd){st->pend[i].c.fd, st->pend[i].c.want, 0};
        ready |= symm_tcp_conn_pending(&st->pend[i].c);
    }
    pfd[np + 1] = (struct pollfd){tb->up.fd, POLLIN, 0};
    ready |= symm_tcp_conn_pending(&tb->up);
    for (int i = 0; i < st->nkids; i++) {
        symm_tcp_conn_t *k = &tb->peer[i];
        int parked = tb->moved[i] >= TCP_HDR_LEN;
        pfd[np + 2 + i] = (struct pollfd){parked ? -1 : k->fd, POLLIN, 0};
        ready |= !parked && symm_tcp_conn_pending(k);
    }
    return ready;
}

/* Wait for the armed set until st->end (not at all when ready): as
 * symm_boot_poll, with the sessions holding decrypted bytes marked
 * readable. */
static int accept_poll(accept_st_t *st, int ready)
{
    tcp_boot_t *tb = st->tb;
    struct pollfd *pfd = st->pfd;
    int np = st->narmed;
    int pr = symm_boot_poll(pfd, (nfds_t)(np + 2 + st->nkids), ready ? 0.0 : st->end);
    if (ready && pr >= 0) {
        for (int i = 0; i < np; i++)
            if (symm_tcp_conn_pending(&st->pend[i].c))
                pfd[i + 1].revents |= POLLIN;
        if (symm_tcp_conn_pending(&tb->up))
            pfd[np + 1].revents |= POLLIN;
        for (int i = 0; i < st->nkids; i++)
            if (tb->moved[i] < TCP_HDR_LEN && symm_tcp_conn_pending(&tb->peer[i]))
                pfd[np + 2 + i].revents |= POLLIN;
        pr = 1;
    }
    return pr;
}

/* Serve the watched links that spoke (watch_step). */
static int accept_watch(accept_st_t *st)
{
    tcp_boot_t *tb = st->tb;
    struct pollfd *pfd = st->pfd + st->narmed + 1;
    int rc;
    if (pfd[0].revents != 0 &&
        (rc = watch_step(st, &tb->up, tb->up_rank, tb->up_hdr, &tb->up_moved)) != 0)
        return rc;
    for (int i = 0; i < st->nkids; i++)
        if (pfd[1 + i].revents != 0 &&
            (rc = watch_step(st, &tb->peer[i], tb->lo + i, tb->hdr + i * TCP_HDR_LEN,
                             &tb->moved[i])) != 0)
            return rc;
    return SYMM_OK;
}

/* Step the pending connections that are ready. Backwards, so that removing
 * by moving the last one in is safe. */
static int accept_serve(accept_st_t *st)
{
    for (int i = st->narmed - 1; i >= 0; i--) {
        if (st->pfd[i + 1].revents == 0)
            continue;
        int used = conn_step(st, i);
        if (used < 0)
            return used;
        if (used == STEP_USED)
            pend_remove(st, i);
    }
    return SYMM_OK;
}

/* Take the new connections the listening socket holds, as many as may be
 * pending. */
static int accept_new(accept_st_t *st)
{
    while ((st->pfd[0].revents & POLLIN) && st->np < st->max_pend) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(st->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
                continue;
            struct rlimit rl = {0, 0};
            getrlimit(RLIMIT_NOFILE, &rl);
            symm_error("bootstrap",
                       "accepting PE connections failed: %s (%d of %d "
                       "PEs joined; open files limit %llu)",
                       strerror(errno), st->joined + 1, st->nkids + 1,
                       (unsigned long long)rl.rlim_cur);
            return SYMM_ERR_SYS;
        }
        symm_tcp_set_nodelay(fd);
        pend_conn_t *c = &st->pend[st->np++];
        *c = (pend_conn_t){.c = {fd, NULL, POLLIN}, .state = ACC_NEW, .dir_rank = -1};
        symm_tcp_addr_text((struct sockaddr *)&ss, sl, c->from, sizeof(c->from));
    }
    return SYMM_OK;
}

/* One round: wait, then serve what is ready. SYMM_OK to go on. */
static int accept_round(accept_st_t *st)
{
    tcp_boot_t *tb = st->tb;
    int rc;
    st->max_pend = accept_max_pend(st);
    accept_sweep(st);
    int pr = accept_poll(st, accept_arm(st));
    if (pr == 0) {
        /* Rank 0 waited timeout_s from its creation; another parent
         * longer, from when it started accepting. */
        char cause[48];
        snprintf(cause, sizeof(cause), "timed out after %g s",
                 tb->base.rank > 0 ? symm_boot_now() - st->t0 : tb->base.timeout_s);
        return symm_boot_missing(tb->pfd_rank, accept_missing(st), cause, "to connect");
    }
    if (pr < 0) {
        symm_error("bootstrap", "poll failed: %s", strerror(-pr));
        return SYMM_ERR_SYS;
    }
    if ((rc = accept_watch(st)) != SYMM_OK || (rc = accept_serve(st)) != SYMM_OK)
        return rc;
    return accept_new(st);
}

/* Connections still mid-hello are strays once every PE has joined; on a
 * failure, PEs waiting for their directory answer hear why instead, and the
 * joined ones get the abort. */
static void accept_finish(accept_st_t *st, int rc)
{
    tcp_boot_t *tb = st->tb;
    if (rc != SYMM_OK && tb->dir != NULL) {
        uint8_t h[TCP_HDR_LEN];
        tcp_hdr_pack(h, TCP_MSG_ABORT, 0, st->culprit, (uint64_t)(-(int64_t)rc));
        for (int i = 0; i < st->np; i++) {
            size_t off = 0;
            if (st->pend[i].state == ACC_DIR_WAIT)
                (void)symm_tcp_conn_send_some(&st->pend[i].c, h, TCP_HDR_LEN, NULL, 0, &off);
        }
    }
    for (int i = 0; i < st->np; i++)
        symm_tcp_conn_close(&st->pend[i].c);
    free(st->pend);
    free(st->pfd);
    free(st->wait_at);
    symm_tls_ctx_destroy(st->verify);
    if (rc != SYMM_OK)
        symm_tree_abort(tb, st->culprit, rc, st->from >= 0 && st->from == tb->up_rank, st->from,
                        NULL, 0);
}

/* Accept until every expected rank has said hello; the listening socket
 * stays the caller's to close. */
static int root_accept_all(tcp_boot_t *tb, int lfd, double end)
{
    accept_st_t st = {.tb = tb, .end = end, .culprit = -1, .from = -1, .lfd = lfd};
    st.t0 = symm_boot_now();
    st.nkids = tb->hi - tb->lo;
    st.ndir = tb->dir != NULL ? tb->dir->expected : 0;
    int rc = accept_setup(&st);
    while (rc == SYMM_OK && !accept_done(&st))
        rc = accept_round(&st);
    accept_finish(&st, rc);
    return rc;
}

/* ---- entry point --------------------------------------------------------- */

int symm_tcp_root_accept(tcp_boot_t *tb, const char *root_addr, int lfd, double end)
{
    int rc;
    symm_tcp_raise_nofile(tb->base.size + 64);
    if (lfd < 0) {
        rc = symm_tcp_listen(root_addr, end, &lfd);
        if (rc != SYMM_OK)
            return rc;
    } else if (fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK) != 0 ||
               fcntl(lfd, F_SETFD, FD_CLOEXEC) != 0) {
        symm_error("bootstrap", "listening socket %d unusable: %s", lfd, strerror(errno));
        close(lfd);
        return SYMM_ERR_SYS;
    }
    rc = root_accept_all(tb, lfd, end);
    /* Every PE is in (or it failed): free the port at once. */
    close(lfd);
    return rc;
}
