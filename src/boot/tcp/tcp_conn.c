/*
 * tcp_conn.c - the TCP bootstrap's connections, plain or TLS.
 *
 * Owns the non-blocking sends and receives of every bootstrap connection
 * (tcp_conn.h), through the connection's TLS session when it has one. Must
 * never log (the caller knows which PE a failure concerns), block without a
 * deadline, or raise SIGPIPE (plain sends use MSG_NOSIGNAL, TLS sends go
 * through tcp_tls.c's socket BIO which does too).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#endif
#include "boot/tcp/tcp_conn.h"
#include "boot/boot_io.h"
#include "boot/tcp/tcp_tls.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Send a[alen] then b[blen] from *off on: 1 when all is sent, 0 when the
 * socket is full, else -errno. */
static int fd_send_some(int fd, const void *a, size_t alen, const void *b, size_t blen, size_t *off)
{
    while (*off < alen + blen) {
        struct iovec iov[2];
        int n = 0;
        if (*off < alen) {
            iov[n++] = (struct iovec){(char *)a + *off, alen - *off};
            if (blen > 0)
                iov[n++] = (struct iovec){(void *)b, blen};
        } else {
            iov[n++] = (struct iovec){(char *)b + (*off - alen), alen + blen - *off};
        }
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t k = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k >= 0)
            *off += (size_t)k;
        else if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        else if (errno != EINTR)
            return -errno;
    }
    return 1;
}

/* Receive into buf[*off, n): 1 when full, 0 when nothing more is there yet,
 * SYMM_IO_EOF when the peer closed, else -errno. */
static int fd_recv_some(int fd, void *buf, size_t n, size_t *off)
{
    while (*off < n) {
        ssize_t k = recv(fd, (char *)buf + *off, n - *off, MSG_DONTWAIT);
        if (k > 0)
            *off += (size_t)k;
        else if (k == 0)
            return SYMM_IO_EOF;
        else if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        else if (errno != EINTR)
            return -errno;
    }
    return 1;
}

/* ---- connections, plain or TLS -------------------------------------------- */

/* Header and a small payload go out as one TLS record (and one segment):
 * copied together, the same way on every retry, as OpenSSL requires. */
#define CONN_COALESCE 4096

int symm_tcp_conn_send_some(symm_tcp_conn_t *c, const void *a, size_t alen, const void *b,
                            size_t blen, size_t *off)
{
    if (c->tls == NULL) {
        c->want = POLLOUT;
        return fd_send_some(c->fd, a, alen, b, blen, off);
    }
    while (*off < alen + blen) {
        unsigned char tmp[CONN_COALESCE];
        const unsigned char *p;
        size_t len;
        if (*off < alen && alen + blen <= sizeof(tmp)) {
            memcpy(tmp, a, alen);
            if (blen > 0)
                memcpy(tmp + alen, b, blen);
            p = tmp + *off;
            len = alen + blen - *off;
        } else if (*off < alen) {
            p = (const unsigned char *)a + *off;
            len = alen - *off;
        } else {
            p = (const unsigned char *)b + (*off - alen);
            len = alen + blen - *off;
        }
        long k = symm_tls_write(c->tls, p, len, &c->want);
        if (k > 0)
            *off += (size_t)k;
        else
            return (int)k;
    }
    return 1;
}

int symm_tcp_conn_recv_some(symm_tcp_conn_t *c, void *buf, size_t n, size_t *off)
{
    if (c->tls == NULL) {
        c->want = POLLIN;
        return fd_recv_some(c->fd, buf, n, off);
    }
    while (*off < n) {
        long k = symm_tls_read(c->tls, (char *)buf + *off, n - *off, &c->want);
        if (k > 0)
            *off += (size_t)k;
        else
            return (int)k;
    }
    return 1;
}

int symm_tcp_conn_send_all(symm_tcp_conn_t *c, const void *a, size_t alen, const void *b,
                           size_t blen, double end)
{
    size_t off = 0;
    for (;;) {
        int rc = symm_tcp_conn_send_some(c, a, alen, b, blen, &off);
        if (rc != 0)
            return rc == 1 ? 0 : rc;
        struct pollfd p = {c->fd, c->want, 0};
        rc = symm_boot_poll(&p, 1, end);
        if (rc <= 0)
            return rc == 0 ? SYMM_IO_TIMEOUT : rc;
    }
}

int symm_tcp_conn_recv_all(symm_tcp_conn_t *c, void *buf, size_t n, double end)
{
    size_t off = 0;
    for (;;) {
        int rc = symm_tcp_conn_recv_some(c, buf, n, &off);
        if (rc != 0)
            return rc == 1 ? 0 : rc;
        struct pollfd p = {c->fd, c->want, 0};
        rc = symm_boot_poll(&p, 1, end);
        if (rc <= 0)
            return rc == 0 ? SYMM_IO_TIMEOUT : rc;
    }
}

int symm_tcp_conn_pending(const symm_tcp_conn_t *c)
{
    return c->tls != NULL && symm_tls_pending(c->tls);
}

void symm_tcp_conn_close(symm_tcp_conn_t *c)
{
    if (c->tls != NULL)
        symm_tls_free(c->tls);
    c->tls = NULL;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}
