/*
 * test_boot_tree.c - the tree bootstrap (src/boot/tcp/tcp_tree.c), without a launcher.
 *
 * Usage: test_boot_tree [N ...]   (default: 1 2 4 17 33 64)
 *
 * For each N the parent plays oshrun (a listening socket rank 0 inherits) for one job at
 * the default fan-out and one at K=2 (the deepest tree: every path through
 * parents that relay), and runs one unique-id job (rank 0 binds the address
 * itself after the others started asking its directory) at K=4. Each job
 * checks barriers and allgathers of 1, 8 and 1000 bytes against values every
 * PE computes on its own, twice in a row (sequence numbers move on).
 *
 * Then failures, at N=21 and K=4 (PE 0 -> 1..4 -> 5..20): a PE that never
 * starts (PE 0's directory names it), a PE deep in the tree that skips a
 * barrier (its parent names it, the others fail fast), a PE that dies (its
 * parent names it), mismatched calls (the parent names the child), a PE of
 * another fan-out (at rank 0's hello, and at its directory), and an
 * impostor with a wrong secret at the directory (refused, the job
 * completes). TLS follows SYMM_BOOT_TLS as in test_boot.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/boot.h"
#include "boot/tls.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PES 260
#define MAX_CHECKS 12
#define MSG_LEN 300

typedef struct check_slot {
    int state;
    char note[MSG_LEN];
} check_slot_t;

#include "boot_harness.h"

enum {
    SC_BASIC,
    SC_UNIQUE,
    SC_MISSING,
    SC_SKIP,
    SC_DEAD,
    SC_MISMATCH,
    SC_STAR,
    SC_SECRET,
    SC_TLS,
    SC_TREE_IN_STAR,
    SC_ENV
};

static const char *check_name[][MAX_CHECKS] = {
    [SC_BASIC] = {"create", "barrier", "allgather 1 B", "allgather 8 B", "allgather 1000 B",
                  "again: barrier", "again: allgather 8 B", "no descriptor leaked"},
    [SC_UNIQUE] = {"create (rank 0 binds late)", "barrier", "allgather 8 B", "allgather 1000 B"},
    [SC_MISSING] = {"PE 0 names the missing PE 13", "the others fail, none times out first"},
    [SC_SKIP] = {"PE 2 names PE 9 skipping barrier #1", "the others fail fast"},
    [SC_DEAD] = {"PE 2 names the dead PE 10", "the others fail"},
    [SC_MISMATCH] = {"PE 3 names mismatched PE 14", "the others fail"},
    [SC_STAR] = {"a PE of fan-out 16 in a job of 4 is named", "the job fails"},
    [SC_SECRET] = {"impostor refused with its reason", "job completes", "rank 0 logs refusal"},
    [SC_TREE_IN_STAR] = {"a PE of fan-out 2 in a star-shaped job is named", "the job fails"},
    [SC_ENV] = {"SYMM_BOOT_TREE_K=1 refused", "SYMM_BOOT_TREE_K=2000 refused"},
    [SC_TLS] = {"PE 0 names PE 6's other TLS setting at once", "the job fails"},
};

typedef struct job {
    int n, size, lfd, scenario, k;
    char addr[64];
    char secret[33];
    check_slot_t *res;
    pid_t pid[MAX_PES + 1];
} job_t;

static int create(const job_t *job, int rank, const char *secret, double timeout, symm_boot_t **b)
{
    symm_boot_tcp_params_t p = {rank,   job->size, job->addr, rank == 0 ? job->lfd : -1,
                                secret, timeout};
    char k[16];
    snprintf(k, sizeof(k), "%d", job->k);
    setenv("SYMM_BOOT_TREE_K", k, 1);
    symm_log_set_pe(rank);
    /* As oshrun: only rank 0 holds the listening socket (a copy elsewhere
     * would keep connections to a failed rank 0 waiting in its backlog). */
    if (rank != 0 && job->lfd >= 0)
        close(job->lfd);
    return symm_boot_tcp_create(&p, b);
}

static void pe_basic(const job_t *job, int rank)
{
    symm_boot_t *b;
    /* The inherited listening socket is rank 0's to consume, the others'
     * to close. */
    int fds_before = count_fds() - (job->lfd >= 0);
    int rc = create(job, rank, job->secret, 20.0, &b);
    mark(0, rc == 0 && b->rank == rank && b->size == job->size, "rc %d", rc);
    if (rc != 0)
        return;
    mark(1, symm_boot_barrier(b) == 0, NULL);
    if (job->scenario == SC_BASIC) {
        check_allgather(b, 2, 1);
        check_allgather(b, 3, 8);
        check_allgather(b, 4, 1000);
        mark(5, symm_boot_barrier(b) == 0, NULL);
        check_allgather(b, 6, 8);
    } else {
        check_allgather(b, 2, 8);
        check_allgather(b, 3, 1000);
    }
    symm_boot_destroy(b);
    if (job->scenario == SC_BASIC) {
        int fds_after = count_fds();
        mark(7, fds_after == fds_before, "%d open before, %d after", fds_before, fds_after);
    }
}

/* Bootstrap timeout 1 s in the failure scenarios. The PE that names the
 * fault must do so after its own timeout (at least 0.95 s) and not long
 * after (2.2 s: 0.6-1 s of slack for a loaded machine, where 21 forked PEs
 * share 2 cores with other tests); the others must end with the abort
 * (SYMM_ERR_PEER, no timeout of their own, which comes at 2.5 s), within
 * 2.4 s. */

/* Size 21, PE 13 (a leaf under PE 3) never starts. */
static void pe_missing(const job_t *job, int rank)
{
    symm_boot_t *b;
    double t0 = now_s();
    int rc = create(job, rank, job->secret, 1.0, &b);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    double t = now_s() - t0;
    if (rank == 0) {
        const char *line = captured("waiting for PE(s) 13 to connect");
        mark(0, rc == SYMM_ERR_TIMEOUT && t > 0.95 && t < 2.2 && line != NULL, "%.2f s: %s", t,
             line ? line : "no message");
    } else {
        const char *err = captured("timed out");
        mark(1, rc == SYMM_ERR_PEER && t < 2.4 && err == NULL, "rc %d after %.2f s%s%s", rc, t,
             err ? ": " : "", err ? err : "");
    }
}

/* PE 9 (under PE 2) skips the first barrier. */
static void pe_skip(const job_t *job, int rank)
{
    symm_boot_t *b;
    int rc = create(job, rank, job->secret, 1.0, &b);
    if (rc != 0) {
        mark(rank == 2 ? 0 : 1, 0, "create rc %d", rc);
        return;
    }
    if (rank == 9) {
        struct timespec idle = {2, 0};
        nanosleep(&idle, NULL);
        symm_boot_destroy(b);
        return;
    }
    double t0 = now_s();
    rc = symm_boot_barrier(b);
    double t = now_s() - t0;
    symm_boot_destroy(b);
    if (rank == 2) {
        const char *line = captured("waiting for PE(s) 9 in barrier #1");
        mark(0, rc == SYMM_ERR_TIMEOUT && t > 0.95 && t < 2.2 && line != NULL, "%.2f s: %s", t,
             line ? line : "no message");
    } else {
        const char *err = captured("timed out");
        mark(1, rc == SYMM_ERR_PEER && t < 2.4 && err == NULL, "rc %d after %.2f s%s%s", rc, t,
             err ? ": " : "", err ? err : "");
    }
}

/* PE 10 (under PE 2) dies before the first barrier. The others fail with
 * the abort; one still joining when the job has failed can only find its
 * parent gone (refused at once) or PE 0 gone (retried until 2 s). */
static void pe_dead(const job_t *job, int rank)
{
    symm_boot_t *b;
    int rc = create(job, rank, job->secret, 1.0, &b);
    if (rank == 10)
        _exit(rc == 0 ? 0 : 1);
    double t0 = now_s();
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    double t = now_s() - t0;
    if (rank == 2) {
        const char *line = captured("PE 10 closed its bootstrap connection");
        mark(0, rc == SYMM_ERR_PEER && line != NULL, "%s", line ? line : "no message");
    } else {
        const char *line = captured("symm: bootstrap");
        mark(1, (rc == SYMM_ERR_PEER || rc == SYMM_ERR_TIMEOUT) && t < 2.5,
             "rc %d after %.2f s: %s", rc, t, line ? line : "(info only)");
    }
}

/* PE 14 (under PE 3) calls allgather where the others call barrier. */
static void pe_mismatch(const job_t *job, int rank)
{
    symm_boot_t *b;
    uint64_t in = 1, out[MAX_PES];
    double t0 = now_s();
    int rc = create(job, rank, job->secret, 1.0, &b);
    if (rc == 0) {
        rc = rank == 14 ? symm_boot_allgather(b, &in, out, sizeof(in)) : symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    double t = now_s() - t0;
    if (rank == 3) {
        const char *line = captured("mismatched calls: PE 14 is in bootstrap allgather #1, PE 3 "
                                    "in barrier #1");
        mark(0, rc == SYMM_ERR_BOOT && line != NULL, "%s", line ? line : "no message");
    } else {
        /* A PE still joining when PE 0 fails retries until 2 s (pe_dead). */
        const char *line = captured("symm: bootstrap");
        mark(1, (rc == SYMM_ERR_PEER || rc == SYMM_ERR_TIMEOUT) && t < 3.0,
             "rc %d after %.2f s: %s", rc, t, line ? line : "(info only)");
    }
}

/* PE 3 runs fan-out 16 (rank 0's child, a leaf) in a job of fan-out 4: rank
 * 0 sees it at the hello. */
static void pe_star(const job_t *job, int rank)
{
    symm_boot_t *b;
    int rc;
    if (rank == 3) {
        symm_boot_tcp_params_t p = {rank, job->size, job->addr, -1, job->secret, 1.0};
        close(job->lfd);
        unsetenv("SYMM_BOOT_TREE_K");
        symm_log_set_pe(rank);
        rc = symm_boot_tcp_create(&p, &b);
    } else {
        rc = create(job, rank, job->secret, 1.0, &b);
    }
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    if (rank == 0) {
        const char *line = captured("PE 3 (from 127.0.0.1:");
        mark(0,
             rc == SYMM_ERR_BOOT && line != NULL &&
                 strstr(line, "runs the bootstrap as a tree of fan-out 16, PE 0 of fan-out 4"),
             "%s", line ? line : "no message");
    } else {
        mark(1, rc != 0, "rc %d", rc);
    }
}

/* Rank -1: an impostor with a wrong secret asks the directory for rank 5. */
static void pe_secret(const job_t *job, int rank)
{
    symm_boot_t *b;
    if (rank < 0) {
        char bad[33];
        memcpy(bad, job->secret, 33);
        bad[0] = bad[0] == 'a' ? 'b' : 'a';
        job_t j = *job;
        j.lfd = -1;
        close(job->lfd);
        int rc = create(&j, 5, bad, 10.0, &b);
        const char *line = captured("refused this PE's connection: bad job secret");
        mark(0, rc == SYMM_ERR_BOOT && line != NULL, "%s", line ? line : "no reason given");
        return;
    }
    int rc = create(job, rank, job->secret, 10.0, &b);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        if (rc == 0)
            check_allgather(b, 1, 8);
        symm_boot_destroy(b);
    }
    mark(1, rc == 0, "rc %d", rc);
    if (rank == 0) {
        const char *line = captured("bad job secret");
        mark(2, line != NULL && strstr(line, "refused connection from 127.0.0.1:") != NULL, "%s",
             line ? line : "no refusal logged");
    }
}

/* PE 6 (under PE 1) runs the bootstrap with TLS set otherwise than the
 * rest: the directory names it before any handshake. */
static void pe_tls(const job_t *job, int rank)
{
    symm_boot_t *b;
    const char *mine = getenv("SYMM_BOOT_TLS");
    int off = mine != NULL && strcmp(mine, "0") == 0;
    if (rank == 6)
        setenv("SYMM_BOOT_TLS", off ? "1" : "0", 1);
    double t0 = now_s();
    int rc = create(job, rank, job->secret, 1.0, &b);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    double t = now_s() - t0;
    if (rank == 0) {
        const char *line = captured("PE 6 (from 127.0.0.1:");
        mark(0,
             rc == SYMM_ERR_BOOT && t < 1.0 && line != NULL &&
                 strstr(line, off ? "runs the bootstrap with TLS pre-shared key, PE 0 with "
                                    "TLS off"
                                  : "runs the bootstrap with TLS off, PE 0 with TLS "
                                    "pre-shared key"),
             "%.2f s: %s", t, line ? line : "no message");
    } else {
        mark(1, rc != 0, "rc %d", rc);
    }
}

/* Size 5 at the default fan-out (a star), but PE 3 runs fan-out 2, under
 * which its parent is PE 1: it asks rank 0's directory, which a star has
 * not, and rank 0 names it there. */
static void pe_tree_in_star(const job_t *job, int rank)
{
    symm_boot_t *b;
    int rc;
    if (rank == 3) {
        rc = create(job, rank, job->secret, 1.0, &b);
    } else {
        symm_boot_tcp_params_t p = {rank,        job->size, job->addr, rank == 0 ? job->lfd : -1,
                                    job->secret, 1.0};
        if (rank != 0)
            close(job->lfd);
        unsetenv("SYMM_BOOT_TREE_K");
        symm_log_set_pe(rank);
        rc = symm_boot_tcp_create(&p, &b);
    }
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    if (rank == 0) {
        const char *line = captured("PE 3 (from 127.0.0.1:");
        mark(0,
             rc == SYMM_ERR_BOOT && line != NULL &&
                 strstr(line, "runs the bootstrap as a tree of fan-out 2, PE 0 of fan-out 16"),
             "%s", line ? line : "no message");
    } else {
        mark(1, rc != 0, "rc %d", rc);
    }
}

/* One process: settings out of range fail creation, saying which. */
static void pe_env(const job_t *job)
{
    static const struct {
        const char *k, *needle;
    } bad[] = {
        {"1", "SYMM_BOOT_TREE_K='1' is not a number in 2..1024"},
        {"2000", "SYMM_BOOT_TREE_K='2000' is not a number in 2..1024"},
    };
    for (int i = 0; i < 2; i++) {
        symm_boot_t *b;
        symm_boot_tcp_params_t p = {0, 4, job->addr, -1, job->secret, 1.0};
        capture();
        setenv("SYMM_BOOT_TREE_K", bad[i].k, 1);
        int rc = symm_boot_tcp_create(&p, &b);
        const char *line = captured(bad[i].needle);
        mark(i, rc == SYMM_ERR_INVALID && line != NULL, "rc %d: %s", rc,
             line ? line : "no message");
    }
}

static void run_pe(const job_t *job, int rank)
{
    my_res = job->res + (size_t)(rank < 0 ? job->n : rank) * MAX_CHECKS;
    alarm(40);
    capture();
    switch (job->scenario) {
    case SC_BASIC:
    case SC_UNIQUE: pe_basic(job, rank); break;
    case SC_MISSING: pe_missing(job, rank); break;
    case SC_SKIP: pe_skip(job, rank); break;
    case SC_DEAD: pe_dead(job, rank); break;
    case SC_MISMATCH: pe_mismatch(job, rank); break;
    case SC_STAR: pe_star(job, rank); break;
    case SC_SECRET: pe_secret(job, rank); break;
    case SC_TLS: pe_tls(job, rank); break;
    case SC_TREE_IN_STAR: pe_tree_in_star(job, rank); break;
    case SC_ENV: pe_env(job); break;
    }
    _exit(0);
}

static void job_init(job_t *job, int scenario, int n, int size, int k)
{
    memset(job, 0, sizeof(*job));
    job->scenario = scenario;
    job->n = n;
    job->size = size;
    job->k = k;
    job->lfd = job_listen(job->addr, sizeof(job->addr));
    job_secret(job->secret);
    job->res = job_results(n);
}

static void job_fork(job_t *job, int rank)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0)
        run_pe(job, rank);
    job->pid[rank < 0 ? job->n : rank] = pid;
}

static int job_report(job_t *job, const char *label, double t0)
{
    int failed = 0, crashed = 0;
    if (job->lfd >= 0)
        close(job->lfd);
    for (int r = 0; r <= job->n; r++) {
        int st = 0;
        if (job->pid[r] > 0 &&
            (waitpid(job->pid[r], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
            fprintf(stderr, "  %s: PE %d ended abnormally (status 0x%x)\n", label, r, st);
            crashed++;
        }
    }
    double ms = (now_s() - t0) * 1e3;
    failed += checks_report(job->res, job->n, check_name[job->scenario], label, crashed);
    printf("     %s: %.1f ms in all\n", label, ms);
    munmap(job->res, sizeof(check_slot_t) * MAX_CHECKS * (size_t)(job->n + 1));
    fflush(stdout);
    return failed + crashed;
}

/* n PEs of a job of size; rank `skip` is never started. */
static int run_job(int scenario, int n, int size, int k, int skip, const char *label)
{
    static job_t j;
    double t0 = now_s();
    job_init(&j, scenario, n, size, k);
    if (scenario == SC_UNIQUE) {
        /* Free the port: rank 0 binds it itself, after the others started. */
        struct timespec pause = {0, 50 * 1000 * 1000};
        close(j.lfd);
        j.lfd = -1;
        for (int r = n - 1; r >= 0; r--) {
            if (r == 0)
                nanosleep(&pause, NULL);
            job_fork(&j, r);
        }
        return job_report(&j, label, t0);
    }
    if (scenario == SC_SECRET)
        job_fork(&j, -1);
    for (int r = 0; r < n; r++)
        if (r != skip)
            job_fork(&j, r);
    return job_report(&j, label, t0);
}

int main(int argc, char **argv)
{
    int sizes[16] = {1, 2, 4, 17, 33, 64}, nsizes = 6, failed = 0;
    char label[80];
    struct rlimit rl;
    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 16; i++) {
            sizes[nsizes] = atoi(argv[i]);
            if (sizes[nsizes] < 1 || sizes[nsizes] > MAX_PES) {
                fprintf(stderr, "usage: %s [N ...] with 1 <= N <= %d\n", argv[0], MAX_PES);
                return 2;
            }
            nsizes++;
        }
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    signal(SIGPIPE, SIG_DFL);
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (int i = 0; i < nsizes; i++) {
        int n = sizes[i];
        snprintf(label, sizeof(label), "N=%d K=16", n);
        failed += run_job(SC_BASIC, n, n, 16, -1, label);
        snprintf(label, sizeof(label), "N=%d K=2", n);
        failed += run_job(SC_BASIC, n, n, 2, -1, label);
        snprintf(label, sizeof(label), "N=%d K=4 unique-id", n);
        failed += run_job(SC_UNIQUE, n, n, 4, -1, label);
    }
    failed += run_job(SC_MISSING, 21, 21, 4, 13, "size 21, PE 13 never starts");
    failed += run_job(SC_SKIP, 21, 21, 4, -1, "size 21, PE 9 skips a barrier");
    failed += run_job(SC_DEAD, 21, 21, 4, -1, "size 21, PE 10 dies");
    failed += run_job(SC_MISMATCH, 21, 21, 4, -1, "size 21, mismatched calls");
    failed += run_job(SC_STAR, 21, 21, 4, -1, "size 21, PE 3 runs fan-out 16");
    failed += run_job(SC_SECRET, 21, 21, 4, -1, "size 21, wrong secret");
    failed += run_job(SC_TREE_IN_STAR, 5, 5, 2, -1, "size 5, PE 3 runs fan-out 2");
    failed += run_job(SC_ENV, 1, 1, 4, -1, "settings");
    if (symm_tls_built())
        failed += run_job(SC_TLS, 21, 21, 4, -1, "size 21, PE 6 sets TLS otherwise");
    printf("%s: %d failure(s)\n", failed ? "FAIL" : "PASS", failed);
    return failed ? 1 : 0;
}
