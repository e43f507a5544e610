/*
 * tcp_conn.h - a connection of the TCP bootstrap: a non-blocking socket,
 * with a TLS session over it (tcp_tls.h) or plain.
 *
 * Private to src/boot/tcp/. The calls behave the same with and without TLS,
 * reading and writing through the session when there is one; after a result
 * of 0 (would block), want is the poll() event to wait for (TLS may need to
 * write to read, or the reverse). Every wait is bounded by a deadline
 * (boot_io.h); nothing raises SIGPIPE; nothing here logs: callers know which
 * PE a failure concerns.
 */
#ifndef SYMM_BOOT_TCP_CONN_H
#define SYMM_BOOT_TCP_CONN_H

#include <poll.h>
#include <stddef.h>
#include "runtime/status.h"

/* Results of the I/O calls besides 1 (done) and 0 (would block); any other
 * negative is -errno. */
#define SYMM_IO_EOF (-5000)
#define SYMM_IO_TIMEOUT (-5001)
/* A TLS failure (tcp_tls.h's symm_tls_error says which). */
#define SYMM_IO_TLS (-5002)

struct symm_tls;
typedef struct symm_tcp_conn {
    int fd;               /* -1: none */
    struct symm_tls *tls; /* NULL: plain */
    short want;
} symm_tcp_conn_t;

/* Send a[alen] then b[blen] from *off on: 1 when all is sent, 0 when the
 * socket is full, else a failure as above. */
int symm_tcp_conn_send_some(symm_tcp_conn_t *c, const void *a, size_t alen, const void *b,
                            size_t blen, size_t *off);
/* Receive into buf[*off, n): 1 when full, 0 when nothing more is there yet,
 * SYMM_IO_EOF when the peer closed, else a failure. */
int symm_tcp_conn_recv_some(symm_tcp_conn_t *c, void *buf, size_t n, size_t *off);
/* The same until done or the deadline: 0, SYMM_IO_TIMEOUT, SYMM_IO_EOF,
 * SYMM_IO_TLS or -errno. */
SYMM_MUST_CHECK int symm_tcp_conn_send_all(symm_tcp_conn_t *c, const void *a, size_t alen,
                                           const void *b, size_t blen, double end);
SYMM_MUST_CHECK int symm_tcp_conn_recv_all(symm_tcp_conn_t *c, void *buf, size_t n, double end);
/* Received bytes already decrypted, which poll() does not report. */
int symm_tcp_conn_pending(const symm_tcp_conn_t *c);
/* Free the session and close the socket (no TLS close_notify: the other
 * side sees the end of the stream, as without TLS). */
void symm_tcp_conn_close(symm_tcp_conn_t *c);

#endif
