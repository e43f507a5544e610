/*
 * boot_io.c - deadlines and non-blocking socket I/O for the bootstrap.
 *
 * Owns the bounded waits every bootstrap file uses, so that "no unbounded
 * wait" is checked in one place. Must never log (the caller knows which PE
 * a failure concerns), block without a deadline, or raise SIGPIPE.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#endif
#include "boot/boot_io.h"
#include "boot/tls.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

double symm_boot_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double symm_boot_deadline(double timeout_s)
{
    return timeout_s > 0 ? symm_boot_now() + timeout_s : -1.0;
}

int symm_boot_deadline_ms(double end)
{
    if (end < 0)
        return -1;
    double left = end - symm_boot_now();
    if (left <= 0)
        return 0;
    /* Round up, so that a poll that times out means the deadline passed. */
    return left > 1e6 ? 1000000000 : (int)(left * 1e3) + 1;
}

int symm_boot_poll(struct pollfd *p, nfds_t n, double end)
{
    for (;;) {
        int ms = symm_boot_deadline_ms(end);
        int rc = poll(p, n, ms);
        if (rc > 0 || (rc == 0 && ms == 0))
            return rc;
        if (rc < 0 && errno != EINTR)
            return -errno;
    }
}

void symm_boot_sleep(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void symm_boot_ranks_format(char *buf, size_t cap, const int *r, int n)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n;) {
        int j = i;
        char item[40];
        while (j + 1 < n && r[j + 1] == r[j] + 1)
            j++;
        if (j == i)
            snprintf(item, sizeof(item), "%d", r[i]);
        else if (j == i + 1)
            snprintf(item, sizeof(item), "%d, %d", r[i], r[j]);
        else
            snprintf(item, sizeof(item), "%d-%d", r[i], r[j]);
        if (off + strlen(item) + 32 >= cap) {
            snprintf(buf + off, cap - off, "%s... (%d in all)", off ? ", " : "", n);
            return;
        }
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", off ? ", " : "", item);
        i = j + 1;
    }
}

int symm_boot_secret_valid(const char *s)
{
    size_t i = 0;
    for (; s != NULL && s[i] != '\0'; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F')))
            return 0;
    return i == 32;
}

int symm_boot_io_send_some(int fd, const void *a, size_t alen, const void *b, size_t blen,
                           size_t *off)
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

int symm_boot_io_recv_some(int fd, void *buf, size_t n, size_t *off)
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

int symm_boot_io_send_all(int fd, const void *a, size_t alen, const void *b, size_t blen,
                          double end)
{
    size_t off = 0;
    for (;;) {
        int rc = symm_boot_io_send_some(fd, a, alen, b, blen, &off);
        if (rc != 0)
            return rc == 1 ? 0 : rc;
        struct pollfd p = {fd, POLLOUT, 0};
        rc = symm_boot_poll(&p, 1, end);
        if (rc <= 0)
            return rc == 0 ? SYMM_IO_TIMEOUT : rc;
    }
}

int symm_boot_io_recv_all(int fd, void *buf, size_t n, double end)
{
    size_t off = 0;
    for (;;) {
        int rc = symm_boot_io_recv_some(fd, buf, n, &off);
        if (rc != 0)
            return rc == 1 ? 0 : rc;
        struct pollfd p = {fd, POLLIN, 0};
        rc = symm_boot_poll(&p, 1, end);
        if (rc <= 0)
            return rc == 0 ? SYMM_IO_TIMEOUT : rc;
    }
}

/* ---- connections, plain or TLS -------------------------------------------- */

/* Header and a small payload go out as one TLS record (and one segment):
 * copied together, the same way on every retry, as OpenSSL requires. */
#define CONN_COALESCE 4096

int symm_boot_conn_send_some(symm_boot_conn_t *c, const void *a, size_t alen, const void *b,
                             size_t blen, size_t *off)
{
    if (c->tls == NULL) {
        c->want = POLLOUT;
        return symm_boot_io_send_some(c->fd, a, alen, b, blen, off);
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

int symm_boot_conn_recv_some(symm_boot_conn_t *c, void *buf, size_t n, size_t *off)
{
    if (c->tls == NULL) {
        c->want = POLLIN;
        return symm_boot_io_recv_some(c->fd, buf, n, off);
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

int symm_boot_conn_send_all(symm_boot_conn_t *c, const void *a, size_t alen, const void *b,
                            size_t blen, double end)
{
    size_t off = 0;
    for (;;) {
        int rc = symm_boot_conn_send_some(c, a, alen, b, blen, &off);
        if (rc != 0)
            return rc == 1 ? 0 : rc;
        struct pollfd p = {c->fd, c->want, 0};
        rc = symm_boot_poll(&p, 1, end);
        if (rc <= 0)
            return rc == 0 ? SYMM_IO_TIMEOUT : rc;
    }
}

int symm_boot_conn_recv_all(symm_boot_conn_t *c, void *buf, size_t n, double end)
{
    size_t off = 0;
    for (;;) {
        int rc = symm_boot_conn_recv_some(c, buf, n, &off);
        if (rc != 0)
            return rc == 1 ? 0 : rc;
        struct pollfd p = {c->fd, c->want, 0};
        rc = symm_boot_poll(&p, 1, end);
        if (rc <= 0)
            return rc == 0 ? SYMM_IO_TIMEOUT : rc;
    }
}

int symm_boot_conn_pending(const symm_boot_conn_t *c)
{
    return c->tls != NULL && symm_tls_pending(c->tls);
}

void symm_boot_conn_close(symm_boot_conn_t *c)
{
    if (c->tls != NULL)
        symm_tls_free(c->tls);
    c->tls = NULL;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}
