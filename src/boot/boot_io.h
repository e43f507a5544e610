/*
 * boot_io.h - deadlines and non-blocking socket I/O for the bootstrap.
 *
 * Private to src/boot/ (tcp.c, tcp_hello.c, tls.c, fdpass.c). A deadline is a
 * monotonic time in seconds; a negative deadline never passes. Every wait
 * here is a poll() bounded by a deadline; nothing raises SIGPIPE. Nothing
 * here logs: callers know which PE a failure concerns.
 */
#ifndef SYMM_BOOT_IO_H
#define SYMM_BOOT_IO_H

#include <poll.h>
#include <stddef.h>

/* Results of the I/O calls besides 1 (done) and 0 (would block); any other
 * negative is -errno. */
#define SYMM_IO_EOF (-5000)
#define SYMM_IO_TIMEOUT (-5001)
/* A TLS failure (tls.h's symm_tls_error says which). */
#define SYMM_IO_TLS (-5002)

double symm_boot_now(void);
/* timeout_s from now; timeout_s <= 0 gives a deadline that never passes. */
double symm_boot_deadline(double timeout_s);
/* What is left of a deadline for poll(): -1 forever, 0 passed. */
int symm_boot_deadline_ms(double end);
/* poll() until something is ready (> 0), the deadline passes (0) or an error
 * (-errno); retries on EINTR. Ready descriptors win over the deadline. */
int symm_boot_poll(struct pollfd *p, nfds_t n, double end);
/* Sleep s seconds, for retry paths only. */
void symm_boot_sleep(double s);

/* "2, 3, 7-9" from ascending ranks into buf, ending in "... (N in all)" when
 * it does not fit. */
void symm_boot_ranks_format(char *buf, size_t cap, const int *ranks, int n);
/* The job secret is exactly 32 hexadecimal characters. */
int symm_boot_secret_valid(const char *s);

/* Send a[alen] then b[blen] from *off on: 1 when all is sent, 0 when the
 * socket is full, else -errno. */
int symm_boot_io_send_some(int fd, const void *a, size_t alen, const void *b, size_t blen,
                           size_t *off);
/* Receive into buf[*off, n): 1 when full, 0 when nothing more is there yet,
 * SYMM_IO_EOF when the peer closed, else -errno. */
int symm_boot_io_recv_some(int fd, void *buf, size_t n, size_t *off);
/* The same until done or the deadline: 0, SYMM_IO_TIMEOUT, SYMM_IO_EOF or
 * -errno. */
int symm_boot_io_send_all(int fd, const void *a, size_t alen, const void *b, size_t blen,
                          double end);
int symm_boot_io_recv_all(int fd, void *buf, size_t n, double end);

/* A bootstrap connection: a socket, with a TLS session over it (tls.h) when
 * tls is not NULL. The conn calls behave as the fd calls above, reading and
 * writing through TLS when there is a session; after a result of 0, want is
 * the poll() event to wait for (TLS may need to write to read, or the
 * reverse). */
struct symm_tls;
typedef struct symm_boot_conn {
    int fd;               /* -1: none */
    struct symm_tls *tls; /* NULL: plain */
    short want;
} symm_boot_conn_t;

int symm_boot_conn_send_some(symm_boot_conn_t *c, const void *a, size_t alen, const void *b,
                             size_t blen, size_t *off);
int symm_boot_conn_recv_some(symm_boot_conn_t *c, void *buf, size_t n, size_t *off);
int symm_boot_conn_send_all(symm_boot_conn_t *c, const void *a, size_t alen, const void *b,
                            size_t blen, double end);
int symm_boot_conn_recv_all(symm_boot_conn_t *c, void *buf, size_t n, double end);
/* Received bytes already decrypted, which poll() does not report. */
int symm_boot_conn_pending(const symm_boot_conn_t *c);
/* Free the session and close the socket (no TLS close_notify: the other
 * side sees the end of the stream, as without TLS). */
void symm_boot_conn_close(symm_boot_conn_t *c);

#endif
