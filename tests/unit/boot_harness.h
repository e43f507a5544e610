/*
 * boot_harness.h - the helpers shared by the bootstrap unit tests
 * (test_boot.c, test_boot_tree.c, test_tls.c): per-check results in shared
 * memory, stderr capture, the allgather check (child side); a job's
 * listening socket, secret and results (parent side). The including file
 * defines MSG_LEN, MAX_CHECKS and check_slot_t (with `state` and
 * `note[MSG_LEN]`) first.
 */
#ifndef SYMM_BOOT_HARNESS_H
#define SYMM_BOOT_HARNESS_H

#include "boot_job.h"

static check_slot_t *my_res;
static int err_fd = -1; /* memfd holding this child's stderr */

static void mark(int check, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void mark(int check, int ok, const char *fmt, ...)
{
    if (my_res[check].state != -1)
        my_res[check].state = ok ? 1 : -1;
    if (fmt != NULL && (!ok || my_res[check].note[0] == '\0')) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(my_res[check].note, MSG_LEN, fmt, ap);
        va_end(ap);
    }
}

/* Start capturing stderr (a fresh capture each call). */
static void capture(void)
{
    if (err_fd >= 0)
        close(err_fd);
    err_fd = memfd_create("stderr", MFD_CLOEXEC);
    dup2(err_fd, STDERR_FILENO);
}

/* The line of captured stderr holding `needle`, or NULL. */
static const char *captured(const char *needle)
{
    static char buf[16384];
    ssize_t n = pread(err_fd, buf, sizeof(buf) - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    char *hit = strstr(buf, needle);
    if (hit == NULL)
        return NULL;
    while (hit > buf && hit[-1] != '\n')
        hit--;
    char *nl = strchr(hit, '\n');
    if (nl != NULL)
        *nl = '\0';
    return hit;
}

static uint8_t pattern(int rank, size_t i, size_t len)
{
    return (uint8_t)(rank * 251 + i * 13 + len);
}

static void check_allgather(symm_boot_t *b, int check, size_t len)
{
    uint8_t *in = malloc(len), *out = malloc(len * (size_t)b->size);
    for (size_t i = 0; i < len; i++)
        in[i] = pattern(b->rank, i, len);
    int rc = symm_boot_allgather(b, in, out, len);
    size_t bad = 0;
    for (int r = 0; rc == 0 && r < b->size; r++)
        for (size_t i = 0; i < len; i++)
            bad += out[(size_t)r * len + i] != pattern(r, i, len);
    mark(check, rc == 0 && bad == 0, "rc %d, %zu wrong bytes", rc, bad);
    free(in);
    free(out);
}

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d != NULL)
        closedir(d);
    return n;
}

/* ---- parent side ---------------------------------------------------------- */

/* Results shared with the children: MAX_CHECKS slots for each of n ranks
 * and one more process. */
static check_slot_t *job_results(int n)
{
    check_slot_t *res = mmap(NULL, sizeof(check_slot_t) * MAX_CHECKS * (size_t)(n + 1),
                             PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (res == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return res;
}

/* Print each check of names (NULL-terminated, at most MAX_CHECKS) for the
 * n+1 processes' results: ok if some process ran it and none failed it and
 * no process crashed. The number of checks not ok. */
static int checks_report(const check_slot_t *res, int n, const char *const *names,
                         const char *label, int crashed)
{
    int failed = 0;
    for (int c = 0; c < MAX_CHECKS && names[c] != NULL; c++) {
        int run = 0, bad = 0;
        const char *note = "";
        for (int r = 0; r <= n; r++) {
            const check_slot_t *s = &res[(size_t)r * MAX_CHECKS + c];
            run += s->state != 0;
            if (s->state < 0 && !bad) {
                bad = 1;
                note = s->note;
            } else if (s->state > 0 && note[0] == '\0') {
                note = s->note;
            }
        }
        int ok = run > 0 && !bad && !crashed;
        failed += !ok;
        printf("%s %s: %s%s%s%s\n", ok ? "ok  " : "FAIL", label, names[c], note[0] ? " -- " : "",
               note, run == 0 ? " (not run)" : "");
    }
    return failed;
}

#endif
