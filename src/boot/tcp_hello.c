/*
 * tcp_hello.c - joining the TCP star, or the tree (tree.c): rank 0 (and in
 * the tree every parent) accepts, the others connect.
 *
 * Owns the connection phase of tcp.c's bootstrap: rank 0's listening socket
 * (inherited from the launcher, or bound to root_addr in unique-id mode,
 * retrying while the port is still taken), the hello every other rank sends
 * (magic, version, rank, size, job secret) and its judgement, and the
 * connect-with-retry of the other ranks (in unique-id mode rank 0 may not
 * listen yet). Rank 0 serves all pending connections at once with poll(), so
 * a stray client that connects and says nothing delays nobody.
 *
 * With TLS (tls.h), rank 0 runs each pending connection's handshake in the
 * same poll loop and reads the hello inside TLS; a peer without the secret
 * fails the handshake (PSK) and is refused like a bad hello. With a PSK the
 * other ranks send the hello as early data with their ClientHello, and
 * finish the handshake at their first collective, so that creation waits
 * for rank 0 no more than without TLS; with certificates (no early data)
 * they finish the handshake and say hello at creation.
 * A connection's first byte tells a plain hello from a ClientHello, so that
 * a PE whose TLS setting differs from rank 0's fails the job at once, with a
 * message saying so, once it has proven it holds the secret.
 *
 * In the tree, a parent accepts only its children (ranks lo..hi-1) and
 * watches its parent and its joined children meanwhile (an abort, a lost
 * PE); rank 0 also serves the tree's directory in the same loop: plain
 * requests whose MAC proves the secret, each registering a listening
 * address and answered with the parent's once that has registered. It is
 * done when its children have joined and every PE has been answered.
 *
 * Must never: let a connection that has not presented the secret end or
 * stall the job (it is refused, logged, and rank 0 keeps waiting), sleep
 * except when retrying a refused connect or a taken port, or wait past the
 * deadline.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include "boot/addr.h"
#include "boot/boot_io.h"
#include "boot/tcp.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connections that have not finished their hello, beyond the PEs still
 * expected; past that rank 0 leaves new ones in the listen backlog. */
#define PEND_EXTRA 64

/* ---- sockets and addresses ------------------------------------------------ */

static void set_nodelay(int fd)
{
    int one = 1;
    /* Best effort: without it collectives are slower, not wrong. */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void addr_text(const struct sockaddr *sa, socklen_t len, char *buf, size_t cap)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(buf, cap, "an unknown address");
    else
        snprintf(buf, cap, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
}

/* Connect or listen (try_fd: 0 or an errno) with a socket of each address
 * addr resolves to (AI_PASSIVE in flags: an address to listen on), in turn;
 * when every one fails, again after pause_s(last errno, backoff, end)
 * seconds unless that is negative. Returns SYMM_OK with the socket in *fd_p,
 * a failure status of addr itself (logged), or 1 when every try failed, the
 * last with errno *err_p (the caller says what it was trying). */
static int addr_try_each(const char *addr, int flags, double end,
                         int (*try_fd)(int fd, const struct addrinfo *a, double end),
                         double (*pause_s)(int err, double backoff, double end), int *fd_p,
                         int *err_p)
{
    char host[256], port[24];
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = flags | AI_NUMERICSERV};
    struct addrinfo *res;
    double backoff = 1e-3;
    long p = 0;
    int err = 0, rc;

    if (symm_addr_split(addr, host, sizeof(host), &p) != SYMM_OK || p < 1) {
        symm_error("bootstrap", "bad bootstrap address '%s' (expected host:port)",
                   addr ? addr : "(null)");
        return SYMM_ERR_INVALID;
    }
    snprintf(port, sizeof(port), "%ld", p);
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        symm_error("bootstrap", "cannot resolve '%s': %s", addr, gai_strerror(rc));
        return SYMM_ERR_BOOT;
    }
    for (;;) {
        for (struct addrinfo *a = res; a != NULL; a = a->ai_next) {
            int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                err = errno;
                continue;
            }
            err = try_fd(fd, a, end);
            if (err == 0) {
                freeaddrinfo(res);
                *fd_p = fd;
                return SYMM_OK;
            }
            close(fd);
        }
        double s = pause_s(err, backoff, end);
        if (s < 0)
            break;
        symm_boot_sleep(s);
        backoff = backoff < 0.05 ? backoff * 2 : 0.1;
    }
    freeaddrinfo(res);
    *err_p = err;
    return 1;
}

/* ---- hello phase, rank 0 ------------------------------------------------- */

/* A connection before its hello: first its first byte tells plain from TLS
 * (PC_NEW), then the hello, plain or through TLS (which reads it from the
 * early data, or runs the handshake first). */
enum { PC_NEW, PC_PLAIN, PC_TLS, PC_DRAIN, PC_DIR_WAIT, PC_DIR_SEND };

/* A refused connection is drained this long before it is closed, so that
 * closing with unread bytes does not reset it before its peer has read why
 * it was refused. */
#define DRAIN_S 1.0

/* First byte of a TLS handshake record (a ClientHello). */
#define TLS_RECORD_HANDSHAKE 0x16

typedef struct pend_conn {
    symm_boot_conn_t c;
    int state;
    int other;          /* it speaks what rank 0 does not (plain or TLS) */
    double drain_end;   /* PC_DRAIN: close by then */
    size_t got, need;   /* TCP_HELLO_LEN, or TCP_DIR_LEN for a directory request */
    int dir_rank;       /* PC_DIR_*: the rank it registered */
    uint8_t buf[TCP_DIR_LEN]; /* the hello or request; PC_DIR_SEND: the answer */
    char from[64];
} pend_conn_t;

/* Rank 0 (or a tree parent) while PEs join. */
typedef struct accept_st {
    tcp_boot_t *tb;
    symm_tls_ctx_t *verify; /* plain rank 0: PSK context to check a TLS speaker's secret */
    int verify_tried;
    int joined;
    double end;
    pend_conn_t *pend;  /* the pending connections, np of them */
    int np;
    int *wait_at;       /* tree rank 0, by rank: its pending PC_DIR_WAIT connection, or -1 */
    int culprit;        /* tree: whom a failure names in the abort, or -1 */
    int from;           /* tree: the rank whose abort or loss ended it, or -1 */
} accept_st_t;

static int listen_on(int fd, const struct addrinfo *a, double end)
{
    int one = 1;
    (void)end;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    return bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0 ? 0 : errno;
}

/* A previous job's socket may still hold the port for a moment. */
static double listen_pause(int err, double backoff, double give_up)
{
    return err == EADDRINUSE && symm_boot_now() + backoff <= give_up ? backoff : -1;
}

static int root_listen(const char *addr, double end, int *fd_p)
{
    double give_up = end >= 0 ? end : symm_boot_now() + 60;
    int err = 0;
    int rc = addr_try_each(addr, AI_PASSIVE, give_up, listen_on, listen_pause, fd_p, &err);
    if (rc != 1)
        return rc;
    symm_error("bootstrap", "cannot listen on %s: %s", addr, strerror(err));
    return SYMM_ERR_BOOT;
}

static void conn_lost(pend_conn_t *c, int io, const char *when)
{
    symm_debug("bootstrap", "connection from %s lost %s (%s)", c->from, when,
               io == SYMM_IO_EOF ? "closed" : strerror(-io));
    symm_boot_conn_close(&c->c);
}

/* Done with c but for draining it (see DRAIN_S): returns 0, to keep it. */
static int conn_drain_start(pend_conn_t *c)
{
    (void)shutdown(c->c.fd, SHUT_WR);
    c->state = PC_DRAIN;
    c->c.want = POLLIN;
    c->drain_end = symm_boot_now() + DRAIN_S;
    return 0;
}

/* PC_DRAIN: discard what comes; 1 once closed. */
static int conn_drain(pend_conn_t *c)
{
    char buf[4096];
    for (;;) {
        ssize_t k = recv(c->c.fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (k > 0 || (k < 0 && errno == EINTR))
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && symm_boot_now() < c->drain_end)
            return 0;
        symm_boot_conn_close(&c->c);
        return 1;
    }
}

/* Refuse with a reject message, in the connection's own protocol. Returns
 * as hello_step. */
static int conn_refuse(pend_conn_t *c, int reason, const char *detail)
{
    uint8_t h[TCP_HDR_LEN];
    size_t off = 0;
    tcp_hdr_pack(h, TCP_MSG_REJECT, 0, reason, 0);
    (void)symm_boot_conn_send_some(&c->c, h, TCP_HDR_LEN, NULL, 0, &off);
    symm_error("bootstrap", "refused connection from %s: %s%s", c->from, tcp_reject_text(reason),
               detail);
    return conn_drain_start(c);
}

/* The TLS handshake failed: OpenSSL has sent its alert, which is the
 * refusal. */
static int conn_refuse_tls(pend_conn_t *c)
{
    symm_error("bootstrap", "refused connection from %s: TLS handshake failed (wrong job secret "
               "or certificate): %s%s", c->from,
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
            symm_boot_conn_close(&c->c);
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

/* Plain rank 0 met a TLS speaker: a PSK context proves whether it holds the
 * secret (then it is a PE of this job with TLS on). NULL if there can be
 * none (no OpenSSL): the speaker is then just refused. */
static symm_tls_ctx_t *verify_ctx(accept_st_t *st)
{
    if (!st->verify_tried && symm_tls_built()) {
        st->verify_tried = 1;
        if (symm_tls_ctx_create(SYMM_TLS_PSK, 1, st->tb->base.secret, &st->verify) != SYMM_OK)
            st->verify = NULL;
    }
    return st->verify;
}

/* PC_NEW: tell plain from TLS by the first byte, without taking it. Returns
 * as hello_step, or 2 to go on with the next state. */
static int conn_classify(accept_st_t *st, pend_conn_t *c)
{
    tcp_boot_t *tb = st->tb;
    symm_tls_ctx_t *ctx = NULL;
    uint8_t b;
    ssize_t k = recv(c->c.fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (k <= 0) {
        conn_lost(c, k == 0 ? SYMM_IO_EOF : -errno, "before its hello");
        return 1;
    }
    if (tb->tls != NULL && b == (uint8_t)(TCP_MAGIC >> 24)) {
        c->state = PC_PLAIN; /* a plain hello, maybe of a PE without TLS */
        c->other = 1;
    } else if (tb->tls != NULL) {
        ctx = tb->tls;
    } else if (b == TLS_RECORD_HANDSHAKE && (ctx = verify_ctx(st)) != NULL) {
        c->other = 1;
    } else {
        c->state = PC_PLAIN;
    }
    if (ctx != NULL) {
        int rc = symm_tls_new(ctx, c->c.fd, &c->c.tls);
        if (rc != SYMM_OK)
            return rc;
        c->state = PC_TLS;
    }
    return 2; /* go on */
}

static void shape_text(char *buf, size_t cap, unsigned k)
{
    if (k == 0)
        snprintf(buf, cap, "the star");
    else
        snprintf(buf, cap, "a tree of fan-out %u", k);
}

/* A PE of this job (it holds the secret) shapes the bootstrap otherwise:
 * refuse it and fail the job, saying so. */
static int shape_differs(accept_st_t *st, pend_conn_t *c, int r, uint32_t k)
{
    tcp_boot_t *tb = st->tb;
    uint8_t rj[TCP_HDR_LEN];
    char theirs[48], mine[48];
    size_t off = 0;
    tcp_hdr_pack(rj, TCP_MSG_REJECT, 0, TCP_REJECT_TREE, 0);
    (void)symm_boot_conn_send_some(&c->c, rj, TCP_HDR_LEN, NULL, 0, &off);
    shape_text(theirs, sizeof(theirs), k);
    shape_text(mine, sizeof(mine), (unsigned)tb->tree_k);
    symm_error("bootstrap", "PE %d (from %s) runs the bootstrap as %s, PE %d as %s (set "
               "SYMM_BOOT_TREE_MIN and SYMM_BOOT_TREE_K alike on every PE)", r, c->from, theirs,
               tb->base.rank, mine);
    conn_linger(c, st->end);
    return SYMM_ERR_BOOT;
}

/* ---- the tree's directory, rank 0 ---------------------------------------- */

/* Send what is left of a PC_DIR_SEND answer: 1 once sent (the connection is
 * then used up), 0 to wait. */
static int dir_send_step(accept_st_t *st, pend_conn_t *c)
{
    tcp_dir_t *d = st->tb->dir;
    int io = symm_boot_conn_send_some(&c->c, c->buf, TCP_DIR_LEN, NULL, 0, &c->got);
    if (io == 0)
        return 0;
    if (io < 0) {
        /* It asked and left: its parent or rank 0 names it if it is gone. */
        conn_lost(c, io, "before its directory answer");
        return 1;
    }
    if (d->seen[c->dir_rank] != 2) {
        d->seen[c->dir_rank] = 2;
        d->answered++;
    }
    symm_boot_conn_close(&c->c);
    return 1;
}

/* Pending connection i waits for its parent's address: answer it if the
 * parent has registered. Returns as hello_step. */
static int dir_answer(accept_st_t *st, pend_conn_t *c)
{
    tcp_boot_t *tb = st->tb;
    int r = c->dir_rank, parent = (r - 1) / tb->tree_k;
    if (parent != 0 && tb->dir->seen[parent] == 0)
        return 0;
    st->wait_at[r] = -1;
    symm_tree_dir_pack(tb, c->buf, TCP_MSG_DIR_ANSWER, parent, (uint64_t)r,
                       parent == 0 ? "" : tb->dir->addr[parent]);
    c->state = PC_DIR_SEND;
    c->got = 0;
    c->c.want = POLLOUT;
    return dir_send_step(st, c);
}

/* A whole directory request is in c->buf: judge it, record the address and
 * answer when the parent's is known. Returns as hello_step. */
static int dir_judge(accept_st_t *st, pend_conn_t *c, int i)
{
    tcp_boot_t *tb = st->tb;
    tcp_hdr_t h = tcp_hdr_unpack(c->buf);
    char addr[TCP_ADDR_LEN];
    int mode, r = h.arg, size = tb->base.size;
    if (symm_tree_dir_unpack(tb, c->buf, &mode, addr) != SYMM_OK)
        return conn_refuse(c, TCP_REJECT_SECRET, " (in its bootstrap directory request)");
    /* It holds the secret: a PE of this job, and a mismatch fails the job. */
    if (tb->dir == NULL || h.seq != (uint32_t)tb->tree_k)
        return shape_differs(st, c, r, h.seq);
    if (mode != tb->tls_mode) {
        uint8_t rj[TCP_HDR_LEN];
        size_t off = 0;
        tcp_hdr_pack(rj, TCP_MSG_REJECT, 0, TCP_REJECT_TLS, 0);
        (void)symm_boot_conn_send_some(&c->c, rj, TCP_HDR_LEN, NULL, 0, &off);
        symm_error("bootstrap", "PE %d (from %s) runs the bootstrap with TLS %s, PE 0 with TLS "
                   "%s: set TLS alike on every PE (SYMM_BOOT_TLS, aclshmemx_set_conf_store_tls)",
                   r, c->from, symm_tls_mode_name(mode), symm_tls_mode_name(tb->tls_mode));
        conn_linger(c, st->end);
        return SYMM_ERR_BOOT;
    }
    if (h.len != (uint64_t)size) {
        symm_error("bootstrap", "PE %d (from %s) was started with job size %llu, PE 0 with %d",
                   r, c->from, (unsigned long long)h.len, size);
        return SYMM_ERR_BOOT;
    }
    if (r <= 0 || r >= size) {
        symm_error("bootstrap", "a PE from %s claims rank %d, outside 1..%d", c->from, r,
                   size - 1);
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
            if (at >= 0 && at != i && st->pend[at].state == PC_DIR_WAIT)
                (void)dir_answer(st, &st->pend[at]);
        }
    }
    c->dir_rank = r;
    c->state = PC_DIR_WAIT;
    c->c.want = POLLIN; /* it says nothing more: readable means it left */
    st->wait_at[r] = i;
    return dir_answer(st, c);
}

/* The whole hello is in c->buf: judge it. */
static int hello_judge(accept_st_t *st, pend_conn_t *c)
{
    tcp_boot_t *tb = st->tb;
    tcp_hdr_t h = tcp_hdr_unpack(c->buf);
    if (h.type != TCP_MSG_HELLO)
        return conn_refuse(c, TCP_REJECT_PROTOCOL, "");
    if (!secret_equal(c->buf + TCP_HDR_LEN, tb->base.secret))
        return conn_refuse(c, TCP_REJECT_SECRET, c->other && tb->tls != NULL
                                                     ? " (and it runs the bootstrap without TLS)"
                                                     : "");
    /* From here the peer is part of this job: a mismatch is the launcher's
     * or the user's error, and waiting would only turn it into a timeout. */
    int size = tb->base.size, r = h.arg;
    if (c->other) {
        uint8_t rj[TCP_HDR_LEN];
        size_t off = 0;
        tcp_hdr_pack(rj, TCP_MSG_REJECT, 0, TCP_REJECT_TLS, 0);
        (void)symm_boot_conn_send_some(&c->c, rj, TCP_HDR_LEN, NULL, 0, &off);
        symm_error("bootstrap", "PE %d (from %s) runs the bootstrap %s TLS, PE %d %s: turn TLS "
                   "on or off alike on every PE (SYMM_BOOT_TLS, aclshmemx_set_conf_store_tls)", r,
                   c->from, tb->tls != NULL ? "without" : "with", tb->base.rank,
                   tb->tls != NULL ? "with it" : "without");
        conn_linger(c, st->end);
        return SYMM_ERR_BOOT;
    }
    if (h.seq != (uint32_t)tb->tree_k)
        return shape_differs(st, c, r, h.seq);
    if (h.len != (uint64_t)size) {
        symm_error("bootstrap", "PE %d (from %s) was started with job size %llu, PE %d with %d",
                   r, c->from, (unsigned long long)h.len, tb->base.rank, size);
        return SYMM_ERR_BOOT;
    }
    if (r < tb->lo || r >= tb->hi) {
        symm_error("bootstrap", "a PE from %s claims rank %d, outside %d..%d%s", c->from, r,
                   tb->lo, tb->hi - 1, tb->tree_k ? " (the children of this PE)" : "");
        return SYMM_ERR_BOOT;
    }
    if (tcp_peer(tb, r)->fd >= 0) {
        symm_error("bootstrap", "two PEs claim rank %d (the second from %s)", r, c->from);
        return SYMM_ERR_BOOT;
    }
    *tcp_peer(tb, r) = c->c;
    c->c = (symm_boot_conn_t){-1, NULL, POLLIN};
    st->joined++;
    return 1;
}

/* Progress one pending connection. Returns 1 when it is used up (a PE
 * joined, or the connection was refused or lost), 0 to keep waiting, or a
 * failure status of the job. */
static int hello_step(accept_st_t *st, pend_conn_t *c, int i)
{
    int rc;
    if (c->state == PC_DRAIN)
        return conn_drain(c);
    if (c->state == PC_DIR_SEND)
        return dir_send_step(st, c);
    if (c->state == PC_DIR_WAIT) {
        /* It left before its answer (or sent what it should not). */
        st->wait_at[c->dir_rank] = -1;
        conn_lost(c, SYMM_IO_EOF, "while waiting for its directory answer");
        return 1;
    }
    if (c->state == PC_NEW && (rc = conn_classify(st, c)) != 2)
        return rc;
    if (c->need == 0)
        c->need = TCP_HELLO_LEN;
again:
    rc = symm_boot_conn_recv_some(&c->c, c->buf, c->need, &c->got);
    if (rc == SYMM_IO_TLS)
        return conn_refuse_tls(c);
    if (rc < 0) {
        conn_lost(c, rc, "before its hello");
        return 1;
    }
    /* Judge the first 8 bytes at once, so that a stray client that sends a
     * few bytes and waits is refused now. */
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
    if (rc == 0)
        return 0;
    if (tcp_hdr_unpack(c->buf).type == TCP_MSG_DIR) {
        /* The directory is plain: a request inside TLS is no PE's. */
        if (c->c.tls != NULL)
            return conn_refuse(c, TCP_REJECT_PROTOCOL, " (a directory request inside TLS)");
        if (c->need == TCP_HELLO_LEN) {
            c->need = TCP_DIR_LEN;
            goto again;
        }
        return dir_judge(st, c, i);
    }
    return hello_judge(st, c);
}

/* Remove pending connection i (moving the last one into its place). */
static void pend_remove(accept_st_t *st, int i)
{
    pend_conn_t *c = &st->pend[--st->np];
    if (i != st->np) {
        st->pend[i] = *c;
        if (st->wait_at != NULL && st->pend[i].state == PC_DIR_WAIT)
            st->wait_at[st->pend[i].dir_rank] = i;
    }
}

/* Every expected rank has joined (and, at tree rank 0, the directory has
 * answered every PE). */
static int accept_done(const accept_st_t *st)
{
    const tcp_boot_t *tb = st->tb;
    return st->joined == tb->hi - tb->lo &&
           (tb->dir == NULL || tb->dir->answered == tb->base.size - 1);
}

/* The ranks still awaited into tb->pfd_rank (sized for the job at rank 0,
 * for the children elsewhere): the children not joined and, at tree rank 0,
 * the PEs the directory has not answered. */
static int accept_missing(accept_st_t *st)
{
    tcp_boot_t *tb = st->tb;
    int n = 0;
    if (tb->dir != NULL) {
        for (int r = 1; r < tb->base.size; r++)
            if (tb->dir->seen[r] != 2 || (r >= tb->lo && r < tb->hi && tcp_peer(tb, r)->fd < 0))
                tb->pfd_rank[n++] = r;
        return n;
    }
    for (int r = tb->lo; r < tb->hi; r++)
        if (tcp_peer(tb, r)->fd < 0)
            tb->pfd_rank[n++] = r;
    return n;
}

/* Tree: the parent or a joined child spoke while this PE still accepts. A
 * child that has started may send its part of the first collective: its
 * header waits in hb for tree.c's gather (which checks it), and the child
 * is not watched further. Else only an abort, a refusal or a lost
 * connection can come. */
static int watch_step(accept_st_t *st, symm_boot_conn_t *c, int who, uint8_t *hb, size_t *moved)
{
    int io = symm_boot_conn_recv_some(c, hb, TCP_HDR_LEN, moved);
    if (io == 0)
        return SYMM_OK;
    if (io == 1 && who != st->tb->up_rank && tcp_hdr_unpack(hb).type != TCP_MSG_ABORT)
        return SYMM_OK;
    st->from = who;
    return symm_tree_unexpected(st->tb, c, who, io == 1 ? 0 : io, hb, "the bootstrap's start",
                                &st->culprit);
}

/* Accept until every expected rank has said hello; the listening socket
 * stays the caller's to close. */
static int root_accept_all(tcp_boot_t *tb, int lfd, double end)
{
    accept_st_t st = {tb, NULL, 0, 0, end, NULL, 0, NULL, -1, -1};
    double t0 = symm_boot_now();
    int size = tb->base.size, nkids = tb->hi - tb->lo, rc = SYMM_OK;
    int ndir = tb->dir != NULL ? size - 1 : 0;
    int nwatch = tb->tree_k > 0 ? 1 + nkids : 0; /* the parent, the children */
    /* At most every PE still expected plus a few strays are served at once. */
    size_t cap = (size_t)nkids + (size_t)ndir + PEND_EXTRA;
    st.pend = malloc(cap * sizeof(*st.pend));
    struct pollfd *pfd = malloc((cap + 1 + (size_t)nwatch) * sizeof(*pfd));
    if (tb->dir != NULL && (st.wait_at = malloc((size_t)size * sizeof(int))) != NULL)
        for (int r = 0; r < size; r++)
            st.wait_at[r] = -1;

    if (st.pend == NULL || pfd == NULL || (tb->dir != NULL && st.wait_at == NULL)) {
        symm_error("bootstrap", "out of memory");
        rc = SYMM_ERR_NOMEM;
        goto err_close_pending;
    }
    if (tb->tree_k > 0)
        for (int i = 0; i < nkids; i++)
            tb->moved[i] = 0;
    tb->up_moved = 0;
    while (!accept_done(&st)) {
        int np = st.np, max_pend = nkids - st.joined + ndir + PEND_EXTRA, ready = 0;
        if (tb->dir != NULL)
            max_pend -= tb->dir->answered;
        double t = symm_boot_now();
        for (int i = st.np - 1; i >= 0; i--)
            if ((st.pend[i].state == PC_DRAIN && t >= st.pend[i].drain_end &&
                 conn_drain(&st.pend[i])) || st.pend[i].c.fd < 0)
                pend_remove(&st, i);
        np = st.np;
        pfd[0] = (struct pollfd){np < max_pend ? lfd : -1, POLLIN, 0};
        for (int i = 0; i < np; i++) {
            pfd[i + 1] = (struct pollfd){st.pend[i].c.fd, st.pend[i].c.want, 0};
            ready |= symm_boot_conn_pending(&st.pend[i].c);
        }
        if (nwatch > 0) {
            pfd[np + 1] = (struct pollfd){tb->up.fd, POLLIN, 0};
            ready |= symm_boot_conn_pending(&tb->up);
            for (int i = 0; i < nkids; i++) {
                symm_boot_conn_t *k = &tb->peer[i];
                int parked = tb->moved[i] >= TCP_HDR_LEN;
                pfd[np + 2 + i] = (struct pollfd){parked ? -1 : k->fd, POLLIN, 0};
                ready |= !parked && symm_boot_conn_pending(k);
            }
        }

        /* A TLS session holding decrypted bytes is ready without a wait. */
        int pr = symm_boot_poll(pfd, (nfds_t)(np + 1 + nwatch), ready ? 0.0 : end);
        if (ready && pr >= 0) {
            for (int i = 0; i < np; i++)
                if (symm_boot_conn_pending(&st.pend[i].c))
                    pfd[i + 1].revents |= POLLIN;
            if (nwatch > 0 && symm_boot_conn_pending(&tb->up))
                pfd[np + 1].revents |= POLLIN;
            for (int i = 0; i < nkids && nwatch > 0; i++)
                if (tb->moved[i] < TCP_HDR_LEN && symm_boot_conn_pending(&tb->peer[i]))
                    pfd[np + 2 + i].revents |= POLLIN;
            pr = 1;
        }
        if (pr == 0) {
            /* The star's rank 0 waited timeout_s from its creation; a tree
             * parent longer, from when it started accepting. */
            rc = symm_tcp_root_timeout(tb, accept_missing(&st), "to connect",
                                       tb->tree_k > 0 && tb->base.rank > 0
                                           ? symm_boot_now() - t0
                                           : tb->base.timeout_s);
            goto err_close_pending;
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            rc = SYMM_ERR_SYS;
            goto err_close_pending;
        }
        if (nwatch > 0) {
            if (pfd[np + 1].revents != 0 &&
                (rc = watch_step(&st, &tb->up, tb->up_rank, tb->up_hdr, &tb->up_moved)) != 0)
                goto err_close_pending;
            for (int i = 0; i < nkids; i++)
                if (pfd[np + 2 + i].revents != 0 &&
                    (rc = watch_step(&st, &tb->peer[i], tb->lo + i, tb->hdr + i * TCP_HDR_LEN,
                                     &tb->moved[i])) != 0)
                    goto err_close_pending;
        }
        /* Backwards, so that removing by moving the last one in is safe. */
        for (int i = np - 1; i >= 0; i--) {
            if (pfd[i + 1].revents == 0)
                continue;
            int used = hello_step(&st, &st.pend[i], i);
            if (used < 0) {
                rc = used;
                goto err_close_pending;
            }
            if (used)
                pend_remove(&st, i);
        }
        while ((pfd[0].revents & POLLIN) && st.np < max_pend) {
            struct sockaddr_storage ss;
            socklen_t sl = sizeof(ss);
            int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    break;
                if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
                    continue;
                struct rlimit rl = {0, 0};
                getrlimit(RLIMIT_NOFILE, &rl);
                symm_error("bootstrap", "accepting PE connections failed: %s (%d of %d "
                           "PEs joined; open files limit %llu)", strerror(errno), st.joined + 1,
                           nkids + 1, (unsigned long long)rl.rlim_cur);
                rc = SYMM_ERR_SYS;
                goto err_close_pending;
            }
            set_nodelay(fd);
            st.pend[st.np] = (pend_conn_t){.c = {fd, NULL, POLLIN}, .state = PC_NEW,
                                           .dir_rank = -1};
            addr_text((struct sockaddr *)&ss, sl, st.pend[st.np].from,
                      sizeof(st.pend[st.np].from));
            st.np++;
        }
    }
    /* Connections still mid-hello are strays: every PE has joined. */
err_close_pending:
    if (rc != SYMM_OK && tb->dir != NULL) {
        /* PEs waiting for their directory answer hear why instead. */
        uint8_t h[TCP_HDR_LEN];
        tcp_hdr_pack(h, TCP_MSG_ABORT, 0, st.culprit, (uint64_t)(-(int64_t)rc));
        for (int i = 0; i < st.np; i++) {
            size_t off = 0;
            if (st.pend[i].state == PC_DIR_WAIT)
                (void)symm_boot_conn_send_some(&st.pend[i].c, h, TCP_HDR_LEN, NULL, 0, &off);
        }
    }
    for (int i = 0; i < st.np; i++)
        symm_boot_conn_close(&st.pend[i].c);
    free(st.pend);
    free(pfd);
    free(st.wait_at);
    symm_tls_ctx_destroy(st.verify);
    if (rc != SYMM_OK && tb->tree_k > 0)
        symm_tree_abort(tb, st.culprit, rc, st.from >= 0 && st.from == tb->up_rank, st.from,
                        NULL, 0);
    else if (rc != SYMM_OK)
        symm_tcp_root_abort(tb, -1, rc, NULL, 0);
    return rc;
}

/* ---- hello phase, other ranks -------------------------------------------- */

static int connect_retryable(int err)
{
    return err == ECONNREFUSED || err == ETIMEDOUT || err == ECONNRESET ||
           err == ECONNABORTED || err == ENETUNREACH || err == EHOSTUNREACH || err == EAGAIN ||
           err == EINTR;
}

/* Connect fd, waiting until end; 0 or an errno. */
static int connect_to(int fd, const struct addrinfo *a, double end)
{
    int err = 0;
    socklen_t el = sizeof(err);
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return errno;
    struct pollfd p = {fd, POLLOUT, 0};
    int pr = symm_boot_poll(&p, 1, end);
    if (pr <= 0)
        return pr == 0 ? ETIMEDOUT : -pr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
        return errno;
    return err;
}

static double connect_pause(int err, double backoff, double end)
{
    int ms = symm_boot_deadline_ms(end);
    if (!connect_retryable(err) || ms == 0)
        return -1;
    return ms < 0 || backoff < ms * 1e-3 ? backoff : ms * 1e-3;
}

static double connect_once(int err, double backoff, double end)
{
    (void)err;
    (void)backoff;
    (void)end;
    return -1;
}

/* Connect to PE peer at addr: rank 0, which in unique-id mode may not
 * listen yet (retry), or a tree parent, which listened before it registered
 * its address (no retry: a refusal means it is gone). */
int symm_tcp_connect(const char *addr, int peer, int retry, double end, int *fd_p)
{
    double t0 = symm_boot_now();
    int err = 0;
    int rc = addr_try_each(addr, 0, end, connect_to, retry ? connect_pause : connect_once, fd_p,
                           &err);
    if (rc == SYMM_OK)
        set_nodelay(*fd_p);
    if (rc != 1)
        return rc;
    if (!retry && (err == ECONNREFUSED || err == ECONNRESET)) {
        /* A tree parent listened before it registered: it has failed (and
         * said why) or died (and its own parent says so). Reset: it closed
         * its listening socket with this connection still in the backlog
         * (seen under load: a PE joining as the job's abort passed). */
        symm_info("bootstrap", "cannot connect to PE %d at %s: %s (it failed or exited)", peer,
                  addr, strerror(err));
        return SYMM_ERR_PEER;
    }
    if (retry && connect_retryable(err)) {
        symm_error("bootstrap", "timed out after %g s waiting for PE %d at %s (%s)",
                   symm_boot_now() - t0, peer, addr, strerror(err));
        return SYMM_ERR_TIMEOUT;
    }
    symm_error("bootstrap", "cannot connect to PE %d at %s: %s%s", peer, addr, strerror(err),
               retry ? "" : " (did it fail or exit?)");
    return SYMM_ERR_BOOT;
}

int symm_tcp_listen_near(int fd, int *fd_p, char *addr, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    int lfd = -1, one = 1;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
        goto err;
    /* The same address, any port: the kernel's choice, never taken. */
    if (ss.ss_family == AF_INET)
        ((struct sockaddr_in *)&ss)->sin_port = 0;
    else if (ss.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&ss)->sin6_port = 0;
    lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (lfd < 0)
        goto err;
    (void)setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(lfd, (struct sockaddr *)&ss, sl) != 0 || listen(lfd, SOMAXCONN) != 0)
        goto err;
    sl = sizeof(ss);
    if (getsockname(lfd, (struct sockaddr *)&ss, &sl) != 0)
        goto err;
    addr_text((struct sockaddr *)&ss, sl, addr, cap);
    *fd_p = lfd;
    return SYMM_OK;
err:
    symm_error("bootstrap", "cannot listen for this PE's children in the bootstrap tree: %s",
               strerror(errno));
    if (lfd >= 0)
        close(lfd);
    return SYMM_ERR_SYS;
}

/* ---- entry points --------------------------------------------------------- */

/* Rank 0 holds one socket per PE; a large job outgrows the default limit. */
static void raise_nofile(int need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= (rlim_t)need)
        return;
    rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need ? rl.rlim_max
                                                                            : (rlim_t)need;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
}

int symm_tcp_root_accept(tcp_boot_t *tb, const char *root_addr, int lfd, double end)
{
    int rc;
    raise_nofile(tb->base.size + 64);
    if (lfd < 0) {
        rc = root_listen(root_addr, end, &lfd);
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

static void hello_pack(const tcp_boot_t *tb, uint8_t *hello)
{
    tcp_hdr_pack(hello, TCP_MSG_HELLO, (uint32_t)tb->tree_k, tb->base.rank,
                 (uint64_t)tb->base.size);
    memcpy(hello + TCP_HDR_LEN, tb->base.secret, TCP_SECRET_LEN);
}

/* The TLS handshake with rank 0 failed with io: say why, as precisely as
 * this side can tell. */
static int peer_handshake_failed(tcp_boot_t *tb, int io, double waited_s)
{
    symm_tls_t *t = tb->up.tls;
    int up = tb->up_rank;
    if (symm_tls_saw_plain(t)) {
        symm_error("bootstrap", "PE %d answered without TLS: bootstrap TLS is off on PE %d and on "
                   "here (turn it on or off alike on every PE: SYMM_BOOT_TLS, "
                   "aclshmemx_set_conf_store_tls)", up, up);
        return SYMM_ERR_BOOT;
    }
    if (io == SYMM_IO_TLS && symm_tls_failed_on_secret(t)) {
        symm_error("bootstrap", "PE %d refused this PE's connection: %s (TLS handshake failed: "
                   "PE %d rejected this PE's pre-shared key: %s)%s", up,
                   tcp_reject_text(TCP_REJECT_SECRET), up, symm_tls_error(t),
                   tb->tree_k ? " (or the directory gave a wrong address for it)" : "");
        return SYMM_ERR_BOOT;
    }
    if (io == SYMM_IO_TLS) {
        symm_error("bootstrap", "TLS handshake with PE %d failed (wrong job secret or "
                   "certificate, or TLS settings that differ between PEs%s): %s", up,
                   tb->tree_k ? ", or a wrong address from the directory" : "",
                   symm_tls_error(t));
        return SYMM_ERR_BOOT;
    }
    return symm_tcp_io_report(&tb->up, up, io, "the TLS handshake", waited_s);
}

int symm_tcp_peer_join(tcp_boot_t *tb, const char *addr, int retry, double end)
{
    uint8_t hello[TCP_HELLO_LEN];
    int rc = symm_tcp_connect(addr, tb->up_rank, retry, end, &tb->up.fd);
    if (rc != SYMM_OK)
        return rc;
    hello_pack(tb, hello);
    if (tb->tls_cli != NULL) {
        rc = symm_tls_new(tb->tls_cli, tb->up.fd, &tb->up.tls);
        if (rc != SYMM_OK)
            return rc;
        tb->hello_due = 1;
        if (!symm_tls_can_early(tb->tls_cli))
            return symm_tcp_peer_finish_join(tb, end, symm_boot_now());
        /* Out go the ClientHello and the hello as early data; rank 0
         * answers when it gets to it, and this PE reads the answer at its
         * first collective. */
        size_t off = 0;
        for (;;) {
            long k = symm_tls_write_early(tb->up.tls, hello + off, TCP_HELLO_LEN - off,
                                          &tb->up.want);
            if (k > 0 && (off += (size_t)k) == TCP_HELLO_LEN)
                return SYMM_OK;
            if (k < 0)
                return peer_handshake_failed(tb, (int)k, 0);
            if (k == 0) {
                struct pollfd p = {tb->up.fd, tb->up.want, 0};
                int pr = symm_boot_poll(&p, 1, end);
                if (pr <= 0)
                    return symm_tcp_io_report(&tb->up, tb->up_rank, pr == 0 ? SYMM_IO_TIMEOUT : pr,
                                              "hello", tb->base.timeout_s);
            }
        }
    }
    /* A fresh socket takes 56 bytes at once; a refusal shows at the first
     * collective, where rank 0's answer is read. */
    int io = symm_boot_conn_send_all(&tb->up, hello, TCP_HELLO_LEN, NULL, 0, end);
    if (io != 0)
        return symm_tcp_io_report(&tb->up, tb->up_rank, io, "hello", tb->base.timeout_s);
    return SYMM_OK;
}

int symm_tcp_peer_finish_join(tcp_boot_t *tb, double end, double t0)
{
    uint8_t hello[TCP_HELLO_LEN];
    for (;;) {
        int io = symm_tls_handshake(tb->up.tls, &tb->up.want);
        if (io == 1)
            break;
        if (io == 0) {
            struct pollfd p = {tb->up.fd, tb->up.want, 0};
            int pr = symm_boot_poll(&p, 1, end);
            if (pr > 0)
                continue;
            io = pr == 0 ? SYMM_IO_TIMEOUT : pr;
        }
        return peer_handshake_failed(tb, io, symm_boot_now() - t0);
    }
    tb->hello_due = 0;
    if (symm_tls_early_accepted(tb->up.tls))
        return SYMM_OK;
    /* No early data (certificates), or rank 0 did not take it. */
    hello_pack(tb, hello);
    int io = symm_boot_conn_send_all(&tb->up, hello, TCP_HELLO_LEN, NULL, 0, end);
    /* Rank 0 may have judged this side's certificate and closed already:
     * its alert is read at the first collective, which tells why. */
    if (io != 0 && io != SYMM_IO_EOF && io != -EPIPE && io != -ECONNRESET)
        return symm_tcp_io_report(&tb->up, tb->up_rank, io, "hello", symm_boot_now() - t0);
    return SYMM_OK;
}
