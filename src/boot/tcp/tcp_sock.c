/*
 * tcp_sock.c - sockets and addresses of the TCP bootstrap: listen, connect
 * with retry, the listening socket of a tree parent.
 *
 * Owns the resolution of "host:port" addresses (addr.h's one rule) into
 * sockets, rank 0's listening socket in unique-id mode (retrying while a
 * previous job's socket still holds the port), the connect-with-retry of the
 * other ranks (in unique-id mode rank 0 may not listen yet), and a tree
 * parent's listening socket on an ephemeral port. Every socket is
 * non-blocking and close-on-exec.
 *
 * Must never sleep except when retrying a refused connect or a taken port,
 * or wait past the deadline.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* NI_MAXHOST */
#endif
#include "boot/addr.h"
#include "boot/boot_io.h"
#include "boot/tcp/tcp_priv.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- addresses ------------------------------------------------------------ */

void symm_tcp_set_nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void symm_tcp_addr_text(const struct sockaddr *sa, socklen_t len, char *buf, size_t cap)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(buf, cap, "an unknown address");
    else
        snprintf(buf, cap, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
}

/* What a pause between tries knows: the address, when the first try began,
 * and whether it has told the user about the wait. */
typedef struct {
    const char *addr;
    double t0;
    int said;
} retry_t;

/* Connect or listen (try_fd: 0 or an errno) with a socket of each address
 * addr resolves to (AI_PASSIVE in flags: an address to listen on), in turn;
 * when every one fails, again after pause_s(retry, last errno, backoff, end)
 * seconds unless that is negative. Returns SYMM_OK with the socket in *fd_p,
 * a failure status of addr itself (logged), or 1 when every try failed, the
 * last with errno *err_p (the caller says what it was trying). */
static int addr_try_each(const char *addr, int flags, double end,
                         int (*try_fd)(int fd, const struct addrinfo *a, double end),
                         double (*pause_s)(retry_t *r, int err, double backoff, double end),
                         int *fd_p,
                         int *err_p)
{
    char host[256], port[24];
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = flags | AI_NUMERICSERV};
    struct addrinfo *res;
    double backoff = 1e-3;
    retry_t retry = {.addr = addr, .t0 = symm_boot_now()};
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
        double s = pause_s(&retry, err, backoff, end);
        if (s < 0)
            break;
        symm_boot_sleep(s);
        backoff = backoff < 0.05 ? backoff * 2 : 0.1;
    }
    freeaddrinfo(res);
    *err_p = err;
    return 1;
}

/* ---- listening ------------------------------------------------------------ */

static int listen_on(int fd, const struct addrinfo *a, double end)
{
    int one = 1;
    (void)end;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    return bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0 ? 0 : errno;
}

/* A previous job's socket may still hold the port for a moment; a port
 * taken for longer is said once (after LISTEN_SAY_S), as the other PEs wait
 * for this one meanwhile. A connection in TIME_WAIT whose socket had no
 * SO_REUSEADDR (an outgoing one, say, given this port as its own) holds it
 * for a minute. */
#define LISTEN_SAY_S 2.0
static double listen_pause(retry_t *r, int err, double backoff, double give_up)
{
    double now = symm_boot_now();
    if (err != EADDRINUSE || now + backoff > give_up)
        return -1;
    if (!r->said && now - r->t0 >= LISTEN_SAY_S) {
        r->said = 1;
        symm_warn("bootstrap",
                  "cannot listen on %s: %s; still trying for %.0f s (the other PEs wait for "
                  "this one: choose a port outside the kernel's ephemeral range, "
                  "/proc/sys/net/ipv4/ip_local_port_range, that no program holds)",
                  r->addr, strerror(err), give_up - now);
    }
    return backoff;
}

int symm_tcp_listen(const char *addr, double end, int *fd_p)
{
    double give_up = end >= 0 ? end : symm_boot_now() + 60;
    int err = 0;
    int rc = addr_try_each(addr, AI_PASSIVE, give_up, listen_on, listen_pause, fd_p, &err);
    if (rc != 1)
        return rc;
    symm_error("bootstrap", "cannot listen on %s: %s", addr, strerror(err));
    return SYMM_ERR_BOOT;
}

/* Rank 0 holds one socket per PE; a large job outgrows the default limit. */
void symm_tcp_raise_nofile(int need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= (rlim_t)need)
        return;
    rl.rlim_cur =
        rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need ? rl.rlim_max : (rlim_t)need;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
}

/* ---- connecting ----------------------------------------------------------- */

/* EADDRNOTAVAIL: no local port is free for the connection for the moment. */
static int connect_retryable(int err)
{
    return err == ECONNREFUSED || err == ETIMEDOUT || err == ECONNRESET || err == ECONNABORTED ||
           err == ENETUNREACH || err == EHOSTUNREACH || err == EAGAIN || err == EINTR ||
           err == EADDRNOTAVAIL;
}

/* Whether fd is connected to itself. When nobody listens on a port of this
 * host's ephemeral range yet, a connect retried often enough may be given
 * that very port as its own and TCP's simultaneous open joins the socket to
 * itself: the PE would then talk to itself instead of rank 0, while rank 0
 * cannot listen on the port its socket holds (tests/scripts/self_connect.sh
 * makes it happen). */
static int connected_to_self(int fd)
{
    struct sockaddr_storage me, peer;
    socklen_t ml = sizeof(me), pl = sizeof(peer);
    if (getsockname(fd, (struct sockaddr *)&me, &ml) != 0 ||
        getpeername(fd, (struct sockaddr *)&peer, &pl) != 0)
        return 0;
    return ml == pl && memcmp(&me, &peer, ml) == 0;
}

/* Have the close that follows reset the connection: an orderly close would
 * leave it in TIME_WAIT, holding the port against rank 0's listen. */
static void drop_self_connection(int fd)
{
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

/* Connect fd, waiting until end; 0 or an errno. */
static int connect_to(int fd, const struct addrinfo *a, double end)
{
    int err = 0;
    socklen_t el = sizeof(err);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
        if (errno != EINPROGRESS)
            return errno;
        struct pollfd p = {fd, POLLOUT, 0};
        int pr = symm_boot_poll(&p, 1, end);
        if (pr <= 0)
            return pr == 0 ? ETIMEDOUT : -pr;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
            return errno;
    }
    if (err == 0 && connected_to_self(fd)) {
        drop_self_connection(fd);
        symm_debug("bootstrap", "a connect joined its socket to itself; retrying");
        return ECONNREFUSED;
    }
    return err;
}

static double connect_pause(retry_t *r, int err, double backoff, double end)
{
    (void)r;
    int ms = symm_boot_deadline_ms(end);
    if (!connect_retryable(err) || ms == 0)
        return -1;
    return ms < 0 || backoff < ms * 1e-3 ? backoff : ms * 1e-3;
}

static double connect_once(retry_t *r, int err, double backoff, double end)
{
    (void)r;
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
    int rc =
        addr_try_each(addr, 0, end, connect_to, retry ? connect_pause : connect_once, fd_p, &err);
    if (rc == SYMM_OK)
        symm_tcp_set_nodelay(*fd_p);
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
    symm_tcp_addr_text((struct sockaddr *)&ss, sl, addr, cap);
    *fd_p = lfd;
    return SYMM_OK;
err:
    symm_error("bootstrap", "cannot listen for this PE's children in the bootstrap tree: %s",
               strerror(errno));
    if (lfd >= 0)
        close(lfd);
    return SYMM_ERR_SYS;
}
