/*
 * tcp_hello.c - joining the TCP star: rank 0 accepts, the others connect.
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
enum { PC_NEW, PC_PLAIN, PC_TLS, PC_DRAIN };

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
    size_t got;
    uint8_t buf[TCP_HELLO_LEN];
    char from[64];
} pend_conn_t;

/* Rank 0 while PEs join. */
typedef struct accept_st {
    tcp_boot_t *tb;
    symm_tls_ctx_t *verify; /* plain rank 0: PSK context to check a TLS speaker's secret */
    int verify_tried;
    int joined;
    double end;
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
        symm_error("bootstrap", "PE %d (from %s) runs the bootstrap %s TLS, PE 0 %s: turn TLS on "
                   "or off alike on every PE (SYMM_BOOT_TLS, aclshmemx_set_conf_store_tls)", r,
                   c->from, tb->tls != NULL ? "without" : "with", tb->tls != NULL ? "with it"
                                                                              : "without");
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
    if (tb->peer[r].fd >= 0) {
        symm_error("bootstrap", "two PEs claim rank %d (the second from %s)", r, c->from);
        return SYMM_ERR_BOOT;
    }
    tb->peer[r] = c->c;
    c->c = (symm_boot_conn_t){-1, NULL, POLLIN};
    st->joined++;
    return 1;
}

/* Progress one pending connection. Returns 1 when it is used up (a PE
 * joined, or the connection was refused or lost), 0 to keep waiting, or a
 * failure status of the job. */
static int hello_step(accept_st_t *st, pend_conn_t *c)
{
    int rc;
    if (c->state == PC_DRAIN)
        return conn_drain(c);
    if (c->state == PC_NEW && (rc = conn_classify(st, c)) != 2)
        return rc;
    rc = symm_boot_conn_recv_some(&c->c, c->buf, TCP_HELLO_LEN, &c->got);
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
    return hello_judge(st, c);
}

/* Accept until every other rank has said hello; the listening socket stays
 * the caller's to close. */
static int root_accept_all(tcp_boot_t *tb, int lfd, double end)
{
    accept_st_t st = {tb, NULL, 0, 0, end};
    int size = tb->base.size, np = 0, rc = SYMM_OK;
    /* At most every PE still expected plus a few strays are served at once. */
    pend_conn_t *pend = malloc((size_t)(size - 1 + PEND_EXTRA) * sizeof(*pend));
    struct pollfd *pfd = malloc((size_t)(size + PEND_EXTRA) * sizeof(*pfd));

    if (pend == NULL || pfd == NULL) {
        symm_error("bootstrap", "out of memory");
        rc = SYMM_ERR_NOMEM;
        goto err_close_pending;
    }
    while (st.joined < size - 1) {
        int max_pend = size - 1 - st.joined + PEND_EXTRA, ready = 0;
        double t = symm_boot_now();
        for (int i = np - 1; i >= 0; i--)
            if (pend[i].state == PC_DRAIN && t >= pend[i].drain_end && conn_drain(&pend[i]))
                pend[i] = pend[--np];
        pfd[0] = (struct pollfd){np < max_pend ? lfd : -1, POLLIN, 0};
        for (int i = 0; i < np; i++) {
            pfd[i + 1] = (struct pollfd){pend[i].c.fd, pend[i].c.want, 0};
            ready |= symm_boot_conn_pending(&pend[i].c);
        }

        /* A TLS session holding decrypted bytes is ready without a wait. */
        int pr = symm_boot_poll(pfd, (nfds_t)np + 1, ready ? 0.0 : end);
        if (ready && pr >= 0) {
            for (int i = 0; i < np; i++)
                if (symm_boot_conn_pending(&pend[i].c))
                    pfd[i + 1].revents |= POLLIN;
            pr = 1;
        }
        if (pr == 0) {
            int n = 0;
            for (int r = 1; r < size; r++)
                if (tb->peer[r].fd < 0)
                    tb->pfd_rank[n++] = r;
            rc = symm_tcp_root_timeout(tb, n, "to connect");
            goto err_close_pending;
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            rc = SYMM_ERR_SYS;
            goto err_close_pending;
        }
        /* Backwards, so that removing by moving the last one in is safe. */
        for (int i = np - 1; i >= 0; i--) {
            if (pfd[i + 1].revents == 0)
                continue;
            int used = hello_step(&st, &pend[i]);
            if (used < 0) {
                rc = used;
                goto err_close_pending;
            }
            if (used)
                pend[i] = pend[--np];
        }
        while ((pfd[0].revents & POLLIN) && np < max_pend) {
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
                           size, (unsigned long long)rl.rlim_cur);
                rc = SYMM_ERR_SYS;
                goto err_close_pending;
            }
            set_nodelay(fd);
            pend[np] = (pend_conn_t){.c = {fd, NULL, POLLIN}, .state = PC_NEW};
            addr_text((struct sockaddr *)&ss, sl, pend[np].from, sizeof(pend[np].from));
            np++;
        }
    }
    /* Connections still mid-hello are strays: every PE has joined. */
err_close_pending:
    for (int i = 0; i < np; i++)
        symm_boot_conn_close(&pend[i].c);
    free(pend);
    free(pfd);
    symm_tls_ctx_destroy(st.verify);
    if (rc != SYMM_OK)
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

/* Connect to rank 0, which in unique-id mode may not listen yet. */
static int peer_connect(const char *addr, double end, int *fd_p)
{
    double t0 = symm_boot_now();
    int err = 0;
    int rc = addr_try_each(addr, 0, end, connect_to, connect_pause, fd_p, &err);
    if (rc == SYMM_OK)
        set_nodelay(*fd_p);
    if (rc != 1)
        return rc;
    if (connect_retryable(err)) {
        symm_error("bootstrap", "timed out after %g s waiting for PE 0 at %s (%s)",
                   symm_boot_now() - t0, addr, strerror(err));
        return SYMM_ERR_TIMEOUT;
    }
    symm_error("bootstrap", "cannot connect to PE 0 at %s: %s", addr, strerror(err));
    return SYMM_ERR_BOOT;
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
    tcp_hdr_pack(hello, TCP_MSG_HELLO, 0, tb->base.rank, (uint64_t)tb->base.size);
    memcpy(hello + TCP_HDR_LEN, tb->base.secret, TCP_SECRET_LEN);
}

/* The TLS handshake with rank 0 failed with io: say why, as precisely as
 * this side can tell. */
static int peer_handshake_failed(tcp_boot_t *tb, int io, double waited_s)
{
    symm_tls_t *t = tb->root.tls;
    if (symm_tls_saw_plain(t)) {
        symm_error("bootstrap", "PE 0 answered without TLS: bootstrap TLS is off on PE 0 and on "
                   "here (turn it on or off alike on every PE: SYMM_BOOT_TLS, "
                   "aclshmemx_set_conf_store_tls)");
        return SYMM_ERR_BOOT;
    }
    if (io == SYMM_IO_TLS && symm_tls_failed_on_secret(t)) {
        symm_error("bootstrap", "PE 0 refused this PE's connection: %s (TLS handshake failed: "
                   "PE 0 rejected this PE's pre-shared key: %s)",
                   tcp_reject_text(TCP_REJECT_SECRET), symm_tls_error(t));
        return SYMM_ERR_BOOT;
    }
    if (io == SYMM_IO_TLS) {
        symm_error("bootstrap", "TLS handshake with PE 0 failed (wrong job secret or certificate, "
                   "or TLS settings that differ between PEs): %s", symm_tls_error(t));
        return SYMM_ERR_BOOT;
    }
    return symm_tcp_io_report(&tb->root, 0, io, "the TLS handshake", waited_s);
}

int symm_tcp_peer_join(tcp_boot_t *tb, const char *root_addr, double end)
{
    uint8_t hello[TCP_HELLO_LEN];
    int rc = peer_connect(root_addr, end, &tb->root.fd);
    if (rc != SYMM_OK)
        return rc;
    hello_pack(tb, hello);
    if (tb->tls != NULL) {
        rc = symm_tls_new(tb->tls, tb->root.fd, &tb->root.tls);
        if (rc != SYMM_OK)
            return rc;
        tb->hello_due = 1;
        if (!symm_tls_can_early(tb->tls))
            return symm_tcp_peer_finish_join(tb, end, symm_boot_now());
        /* Out go the ClientHello and the hello as early data; rank 0
         * answers when it gets to it, and this PE reads the answer at its
         * first collective. */
        size_t off = 0;
        for (;;) {
            long k = symm_tls_write_early(tb->root.tls, hello + off, TCP_HELLO_LEN - off,
                                          &tb->root.want);
            if (k > 0 && (off += (size_t)k) == TCP_HELLO_LEN)
                return SYMM_OK;
            if (k < 0)
                return peer_handshake_failed(tb, (int)k, 0);
            if (k == 0) {
                struct pollfd p = {tb->root.fd, tb->root.want, 0};
                int pr = symm_boot_poll(&p, 1, end);
                if (pr <= 0)
                    return symm_tcp_io_report(&tb->root, 0, pr == 0 ? SYMM_IO_TIMEOUT : pr,
                                              "hello", tb->base.timeout_s);
            }
        }
    }
    /* A fresh socket takes 56 bytes at once; a refusal shows at the first
     * collective, where rank 0's answer is read. */
    int io = symm_boot_conn_send_all(&tb->root, hello, TCP_HELLO_LEN, NULL, 0, end);
    if (io != 0)
        return symm_tcp_io_report(&tb->root, 0, io, "hello", tb->base.timeout_s);
    return SYMM_OK;
}

int symm_tcp_peer_finish_join(tcp_boot_t *tb, double end, double t0)
{
    uint8_t hello[TCP_HELLO_LEN];
    for (;;) {
        int io = symm_tls_handshake(tb->root.tls, &tb->root.want);
        if (io == 1)
            break;
        if (io == 0) {
            struct pollfd p = {tb->root.fd, tb->root.want, 0};
            int pr = symm_boot_poll(&p, 1, end);
            if (pr > 0)
                continue;
            io = pr == 0 ? SYMM_IO_TIMEOUT : pr;
        }
        return peer_handshake_failed(tb, io, symm_boot_now() - t0);
    }
    tb->hello_due = 0;
    if (symm_tls_early_accepted(tb->root.tls))
        return SYMM_OK;
    /* No early data (certificates), or rank 0 did not take it. */
    hello_pack(tb, hello);
    int io = symm_boot_conn_send_all(&tb->root, hello, TCP_HELLO_LEN, NULL, 0, end);
    /* Rank 0 may have judged this side's certificate and closed already:
     * its alert is read at the first collective, which tells why. */
    if (io != 0 && io != SYMM_IO_EOF && io != -EPIPE && io != -ECONNRESET)
        return symm_tcp_io_report(&tb->root, 0, io, "hello", symm_boot_now() - t0);
    return SYMM_OK;
}
