/*
 * boot_io.h - deadlines and bounded waits for the bootstrap.
 *
 * Private to src/boot/ (every bootstrap and secret.c). A deadline is
 * a monotonic time in seconds; a negative deadline never passes. Every wait
 * here is a poll() bounded by a deadline. Nothing here logs but
 * symm_boot_missing, the one report every bootstrap gives when a bounded
 * wait for other PEs runs out. The TCP bootstrap's connections (plain or
 * TLS) are tcp/tcp_conn.h's.
 */
#ifndef SYMM_BOOT_IO_H
#define SYMM_BOOT_IO_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

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

/* A bounded wait for other PEs ran out: log "<cause> waiting for PE(s)
 * <ranks> <what>" under "bootstrap", the n ranks (any order: sorted here)
 * written "2, 3, 7-9" and cut to "... (N in all)" past a line; with n == 0,
 * "<cause> <what>, although every PE arrived". Every bootstrap (tcp, PMIx,
 * MPI) names the missing PEs through this. Returns
 * SYMM_ERR_TIMEOUT. */
int symm_boot_missing(int *ranks, int n, const char *cause, const char *what);
/* The ranks of 0..n-1 but skip whose arrived[] is 0, ascending, into
 * ranks[]; returns how many. */
int symm_boot_absent(const uint8_t *arrived, int n, int skip, int *ranks);
/* The job secret is exactly 32 hexadecimal characters. */
int symm_boot_secret_valid(const char *s);

#endif
