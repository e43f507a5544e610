/*
 * boot_io.h - deadlines and bounded waits for the bootstrap.
 *
 * Private to src/boot/ (every bootstrap, fdpass.c, secret.c). A deadline is
 * a monotonic time in seconds; a negative deadline never passes. Every wait
 * here is a poll() bounded by a deadline. Nothing here logs: callers know
 * which PE a failure concerns. The TCP bootstrap's connections (plain or
 * TLS) are tcp/tcp_conn.h's.
 */
#ifndef SYMM_BOOT_IO_H
#define SYMM_BOOT_IO_H

#include <poll.h>
#include <stddef.h>

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

#endif
