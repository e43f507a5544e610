/*
 * boot_io.c - deadlines and bounded waits for the bootstrap.
 *
 * Owns the bounded waits every bootstrap file uses, so that "no unbounded
 * wait" is checked in one place; the one report of the PEs a bounded wait
 * did not see arrive (every bootstrap's, so that a late PE is named alike
 * under oshrun, PMIx and MPI); the form of a job secret. Must never block
 * without a deadline, or log anything but that report. The socket I/O
 * of the TCP bootstrap, plain or TLS, is tcp/tcp_conn.c's.
 */
#include "boot/boot_io.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* "2, 3, 7-9" from ascending ranks into buf, ending in "... (N in all)" when
 * it does not fit. */
static void ranks_format(char *buf, size_t cap, const int *r, int n)
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

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int symm_boot_missing(int *ranks, int n, const char *cause, const char *what)
{
    char list[512];
    if (n <= 0) {
        symm_error("bootstrap", "%s %s, although every PE arrived", cause, what);
        return SYMM_ERR_TIMEOUT;
    }
    qsort(ranks, (size_t)n, sizeof(*ranks), int_cmp);
    ranks_format(list, sizeof(list), ranks, n);
    symm_error("bootstrap", "%s waiting for PE(s) %s %s", cause, list, what);
    return SYMM_ERR_TIMEOUT;
}

int symm_boot_absent(const uint8_t *arrived, int n, int skip, int *ranks)
{
    int k = 0;
    for (int r = 0; r < n; r++)
        if (r != skip && !arrived[r])
            ranks[k++] = r;
    return k;
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
