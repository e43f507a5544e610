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
 * Must never: let a connection that has not presented the secret end or
 * stall the job (it is refused, logged, and rank 0 keeps waiting), sleep
 * except when retrying a refused connect or a taken port, or wait past the
 * deadline.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
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

/* "host:port" or "[v6]:port" into host and port; 0 on success. */
static int addr_split(const char *addr, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon, *h = addr, *hend;
    if (addr == NULL)
        return -1;
    if (addr[0] == '[') {
        h = addr + 1;
        hend = strchr(h, ']');
        if (hend == NULL || hend[1] != ':')
            return -1;
        colon = hend + 1;
    } else {
        colon = strrchr(addr, ':');
        if (colon == NULL)
            return -1;
        hend = colon;
    }
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (hend == h || (size_t)(hend - h) >= hcap || colon[1] == '\0' || *end != '\0' || p < 1 ||
        p > 65535)
        return -1;
    memcpy(host, h, (size_t)(hend - h));
    host[hend - h] = '\0';
    snprintf(port, pcap, "%ld", p);
    return 0;
}

/* ---- hello phase, rank 0 ------------------------------------------------- */

typedef struct pend_conn {
    int fd;
    size_t got;
    uint8_t buf[TCP_HELLO_LEN];
    char from[64];
} pend_conn_t;

static int root_listen(const char *addr, double end, int *fd_p)
{
    char host[256], port[8];
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res;
    double backoff = 1e-3, give_up = end >= 0 ? end : symm_boot_now() + 60;
    int err = 0, rc;

    if (addr_split(addr, host, sizeof(host), port, sizeof(port)) != 0) {
        symm_error("bootstrap", "bad bootstrap address '%s' (expected host:port)",
                   addr ? addr : "(null)");
        return SYMM_ERR_INVALID;
    }
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        symm_error("bootstrap", "cannot resolve '%s': %s", addr, gai_strerror(rc));
        return SYMM_ERR_BOOT;
    }
    for (;;) {
        for (struct addrinfo *a = res; a != NULL; a = a->ai_next) {
            int one = 1;
            int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                err = errno;
                continue;
            }
            (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
            if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) {
                freeaddrinfo(res);
                *fd_p = fd;
                return SYMM_OK;
            }
            err = errno;
            close(fd);
        }
        /* A previous job's socket may still hold the port for a moment. */
        if (err != EADDRINUSE || symm_boot_now() + backoff > give_up)
            break;
        symm_boot_sleep(backoff);
        backoff = backoff < 0.05 ? backoff * 2 : 0.1;
    }
    freeaddrinfo(res);
    symm_error("bootstrap", "cannot listen on %s: %s", addr, strerror(err));
    return SYMM_ERR_BOOT;
}

static void conn_refuse(pend_conn_t *c, int reason, const char *detail)
{
    uint8_t h[TCP_HDR_LEN];
    tcp_hdr_pack(h, TCP_MSG_REJECT, 0, reason, 0);
    (void)send(c->fd, h, TCP_HDR_LEN, MSG_NOSIGNAL | MSG_DONTWAIT);
    symm_error("bootstrap", "refused connection from %s: %s%s", c->from, tcp_reject_text(reason),
               detail);
    close(c->fd);
    c->fd = -1;
}

static int secret_equal(const uint8_t *a, const char *b)
{
    unsigned diff = 0;
    for (int i = 0; i < TCP_SECRET_LEN; i++)
        diff |= (unsigned)(a[i] ^ (uint8_t)b[i]);
    return diff == 0;
}

/* Progress one pending connection. Returns 1 when it is used up (a PE
 * joined, or the connection was refused or lost), 0 to keep waiting, or a
 * failure status of the job. */
static int hello_step(tcp_boot_t *tb, pend_conn_t *c, int *joined_p)
{
    int rc = symm_boot_io_recv_some(c->fd, c->buf, TCP_HELLO_LEN, &c->got);
    if (rc < 0) {
        symm_debug("bootstrap", "connection from %s lost before its hello", c->from);
        close(c->fd);
        c->fd = -1;
        return 1;
    }
    /* Judge the first 8 bytes at once, so that a stray client that sends a
     * few bytes and waits is dropped now. */
    if (c->got >= 8) {
        tcp_hdr_t h = tcp_hdr_unpack(c->buf);
        if (h.magic != TCP_MAGIC) {
            conn_refuse(c, TCP_REJECT_PROTOCOL, "");
            return 1;
        }
        if (h.version != TCP_VERSION) {
            char d[64];
            snprintf(d, sizeof(d), " (it speaks %u, this PE %u)", h.version, TCP_VERSION);
            conn_refuse(c, TCP_REJECT_VERSION, d);
            return 1;
        }
    }
    if (rc == 0)
        return 0;

    tcp_hdr_t h = tcp_hdr_unpack(c->buf);
    if (h.type != TCP_MSG_HELLO) {
        conn_refuse(c, TCP_REJECT_PROTOCOL, "");
        return 1;
    }
    if (!secret_equal(c->buf + TCP_HDR_LEN, tb->base.secret)) {
        conn_refuse(c, TCP_REJECT_SECRET, "");
        return 1;
    }
    /* From here the peer is part of this job: a mismatch is the launcher's
     * or the user's error, and waiting would only turn it into a timeout. */
    int size = tb->base.size, r = h.arg;
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
    if (tb->peer_fd[r] >= 0) {
        symm_error("bootstrap", "two PEs claim rank %d (the second from %s)", r, c->from);
        return SYMM_ERR_BOOT;
    }
    tb->peer_fd[r] = c->fd;
    c->fd = -1;
    (*joined_p)++;
    return 1;
}

/* Accept until every other rank has said hello; the listening socket stays
 * the caller's to close. */
static int root_accept_all(tcp_boot_t *tb, int lfd, double end)
{
    int size = tb->base.size, joined = 0, np = 0, rc = SYMM_OK;
    /* At most every PE still expected plus a few strays are served at once. */
    pend_conn_t *pend = malloc((size_t)(size - 1 + PEND_EXTRA) * sizeof(*pend));
    struct pollfd *pfd = malloc((size_t)(size + PEND_EXTRA) * sizeof(*pfd));

    if (pend == NULL || pfd == NULL) {
        symm_error("bootstrap", "out of memory");
        rc = SYMM_ERR_NOMEM;
        goto err_close_pending;
    }
    while (joined < size - 1) {
        int max_pend = size - 1 - joined + PEND_EXTRA;
        pfd[0] = (struct pollfd){np < max_pend ? lfd : -1, POLLIN, 0};
        for (int i = 0; i < np; i++)
            pfd[i + 1] = (struct pollfd){pend[i].fd, POLLIN, 0};

        int pr = symm_boot_poll(pfd, (nfds_t)np + 1, end);
        if (pr == 0) {
            int n = 0;
            for (int r = 1; r < size; r++)
                if (tb->peer_fd[r] < 0)
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
            int used = hello_step(tb, &pend[i], &joined);
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
                           "PEs joined; open files limit %llu)", strerror(errno), joined + 1,
                           size, (unsigned long long)rl.rlim_cur);
                rc = SYMM_ERR_SYS;
                goto err_close_pending;
            }
            set_nodelay(fd);
            pend[np].fd = fd;
            pend[np].got = 0;
            addr_text((struct sockaddr *)&ss, sl, pend[np].from, sizeof(pend[np].from));
            np++;
        }
    }
    /* Connections still mid-hello are strays: every PE has joined. */
err_close_pending:
    for (int i = 0; i < np; i++)
        close(pend[i].fd);
    free(pend);
    free(pfd);
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

/* Connect to rank 0, which in unique-id mode may not listen yet. */
static int peer_connect(const char *addr, double end, int *fd_p)
{
    char host[256], port[8];
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res;
    double t0 = symm_boot_now(), backoff = 1e-3;
    int err = 0, rc;

    if (addr_split(addr, host, sizeof(host), port, sizeof(port)) != 0) {
        symm_error("bootstrap", "bad bootstrap address '%s' (expected host:port)",
                   addr ? addr : "(null)");
        return SYMM_ERR_INVALID;
    }
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
            rc = connect(fd, a->ai_addr, a->ai_addrlen);
            if (rc != 0 && errno == EINPROGRESS) {
                struct pollfd p = {fd, POLLOUT, 0};
                int pr = symm_boot_poll(&p, 1, end);
                socklen_t el = sizeof(err);
                if (pr <= 0)
                    err = pr == 0 ? ETIMEDOUT : -pr;
                else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
                    err = errno;
                rc = err == 0 ? 0 : -1;
            } else if (rc != 0) {
                err = errno;
            }
            if (rc == 0) {
                set_nodelay(fd);
                freeaddrinfo(res);
                *fd_p = fd;
                return SYMM_OK;
            }
            close(fd);
        }
        int ms = symm_boot_deadline_ms(end);
        if (!connect_retryable(err) || ms == 0)
            break;
        symm_boot_sleep(ms < 0 || backoff < ms * 1e-3 ? backoff : ms * 1e-3);
        backoff = backoff < 0.05 ? backoff * 2 : 0.1;
    }
    freeaddrinfo(res);
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

int symm_tcp_peer_join(tcp_boot_t *tb, const char *root_addr, double end)
{
    uint8_t hello[TCP_HELLO_LEN];
    int rc = peer_connect(root_addr, end, &tb->root_fd);
    if (rc != SYMM_OK)
        return rc;
    tcp_hdr_pack(hello, TCP_MSG_HELLO, 0, tb->base.rank, (uint64_t)tb->base.size);
    memcpy(hello + TCP_HDR_LEN, tb->base.secret, TCP_SECRET_LEN);
    /* A fresh socket takes 56 bytes at once; a refusal shows at the first
     * collective, where rank 0's answer is read. */
    int io = symm_boot_io_send_all(tb->root_fd, hello, TCP_HELLO_LEN, NULL, 0, end);
    if (io != 0)
        return symm_tcp_io_report(0, io, "hello", tb->base.timeout_s);
    return SYMM_OK;
}
