/*
 * test_boot.c - the bootstrap and fd passing, without a launcher.
 *
 * Usage: test_boot [N ...]   (default: 1 2 4 16)
 *
 * For each N the parent plays oshrun: it opens a listening socket on
 * 127.0.0.1:0, makes a job secret and forks N PEs that find the job in their
 * environment (rank 0 inherits the socket). Two such jobs run at once. Then
 * the failure cases: a connection with a wrong secret, a PE that never
 * starts, a PE that dies, mismatched calls, and the unique-id mode where rank
 * 0 binds the address itself after the others have started connecting.
 *
 * Children record each check in shared memory; the parent prints one line
 * per check and exits 0 only if all passed. Owns nothing else; must never
 * depend on timing beyond the generous bounds written here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, memfd_create, SO_PEERCRED, MSG_CMSG_CLOEXEC */
#endif
#include "boot/boot.h"
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
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PES 1100
#define MAX_CHECKS 16
#define MSG_LEN 240

enum {
    SC_BASIC,
    SC_SECRET,
    SC_TIMEOUT,
    SC_COLL_TIMEOUT,
    SC_DEAD,
    SC_MISMATCH,
    SC_UNIQUE,
    SC_ENV,
    SC_UNREADABLE,
    SC_PIDNS
};

typedef struct check_slot {
    int state;          /* 0 not run, 1 passed, -1 failed */
    char note[MSG_LEN]; /* a message worth showing */
} check_slot_t;

#include "boot_harness.h"

typedef struct job {
    int n;              /* PEs started */
    int size;           /* SYMM_SIZE given to them */
    int lfd;
    char addr[64];
    char secret[33];
    int scenario;
    check_slot_t *res;  /* shared: [rank][check] */
    pid_t pid[MAX_PES];
} job_t;

static const char *check_name[][MAX_CHECKS] = {
    [SC_BASIC] = {"create from env", "barrier", "allgather 1 B", "allgather 8 B",
                  "allgather 100 KiB", "fds: one node, 2 fds", "fds: two nodes by parity",
                  "fds: 300 fds each", "fds: last PE off-node",
                  "fds: a bad descriptor fails every PE", "fds: the next exchange works",
                  "final barrier", "no descriptor leaked"},
    /* Past 64 PEs the 100 KiB allgather becomes 1 KiB: rank 0 sends min(size, K) *
     * size * len bytes. */
    [SC_SECRET] = {"impostor refused with its reason", "job completes", "rank 0 logs refusal"},
    [SC_TIMEOUT] = {"rank 0 times out naming PE 2", "rank 1 fails fast"},
    [SC_COLL_TIMEOUT] = {"rank 0 times out naming PEs 2-4, 6", "the others fail fast"},
    [SC_DEAD] = {"rank 0 names the dead PE 2", "rank 1 fails"},
    [SC_MISMATCH] = {"rank 0 names mismatched PE 1", "rank 1 fails"},
    [SC_UNIQUE] = {"rank 0 binds late, peers retry", "barrier + allgather"},
    [SC_UNREADABLE] = {"a PE that cannot open a peer's memory says why",
                       "the unreadable PE fails too", "no descriptor leaked"},
    [SC_PIDNS] = {"every PE names the peer in another PID namespace"},
    [SC_ENV] = {"no env: singleton", "singleton fds exchange", "partial env refused",
                "bad rank refused", "bad secret refused", "bad listen fd refused"},
};


/* ---- child side ----------------------------------------------------------- */







static void check_fds(symm_boot_t *b, int check, const int *node_ranks, int n_node, int node_idx,
                      int nfds)
{
    int *mine = malloc(sizeof(int) * (size_t)(nfds > 0 ? nfds : 1));
    int *out = malloc(sizeof(int) * (size_t)(n_node * nfds > 0 ? n_node * nfds : 1));
    int bad = 0, rc;
    for (int j = 0; j < nfds; j++) {
        int v[2] = {b->rank, j};
        mine[j] = memfd_create("pe", MFD_CLOEXEC);
        if (mine[j] < 0 || write(mine[j], v, sizeof(v)) != sizeof(v))
            bad++;
    }
    rc = symm_boot_fds_exchange(b, node_ranks, n_node, node_idx, mine, nfds, out);
    for (int i = 0; rc == 0 && i < n_node; i++) {
        for (int j = 0; j < nfds; j++) {
            int fd = out[i * nfds + j], v[2] = {-1, -1};
            if (pread(fd, v, sizeof(v), 0) != sizeof(v) || v[0] != node_ranks[i] || v[1] != j ||
                !(fcntl(fd, F_GETFD) & FD_CLOEXEC) || (i == node_idx && fd == mine[j]))
                bad++;
            close(fd);
        }
    }
    mark(check, rc == 0 && bad == 0, "rc %d, %d bad descriptors", rc, bad);
    for (int j = 0; j < nfds; j++)
        close(mine[j]);
    free(mine);
    free(out);
}

/* The last PE offers a descriptor it has closed: it fails with the system
 * error, every other PE with SYMM_ERR_PEER, and nobody gets descriptors. */
static void check_bad_fd(symm_boot_t *b, int check, const int *node_ranks, int n_node,
                         int node_idx)
{
    int mine[2], out[2 * MAX_PES], bad = b->rank == b->size - 1;
    for (int j = 0; j < 2; j++)
        mine[j] = memfd_create("pe", MFD_CLOEXEC);
    if (bad)
        close(mine[1]);
    for (int i = 0; i < 2 * n_node; i++)
        out[i] = -7;
    int rc = symm_boot_fds_exchange(b, node_ranks, n_node, node_idx, mine, 2, out);
    int untouched = 1;
    for (int i = 0; i < 2 * n_node; i++)
        untouched &= out[i] == -7;
    int want = b->size == 1 || bad ? SYMM_ERR_SYS : SYMM_ERR_PEER;
    char needle[64];
    if (bad)
        snprintf(needle, sizeof(needle), "descriptor %d (#1) cannot be shared", mine[1]);
    else /* symm_boot_agree's report of the failed PE */
        snprintf(needle, sizeof(needle), "PE %d failed", b->size - 1);
    const char *line = captured(needle);
    mark(check, rc == want && untouched && line != NULL, "rc %d (want %d), out %s: %s", rc,
         want, untouched ? "untouched" : "written", line ? line : "no message");
    capture();
    close(mine[0]);
    if (!bad)
        close(mine[1]);
}

static void set_env(const job_t *job, int rank)
{
    char v[32];
    snprintf(v, sizeof(v), "%d", rank);
    setenv("SYMM_RANK", v, 1);
    snprintf(v, sizeof(v), "%d", job->size);
    setenv("SYMM_SIZE", v, 1);
    setenv("SYMM_BOOT_ADDR", job->addr, 1);
    setenv("SYMM_JOB_SECRET", job->secret, 1);
    if (rank == 0) {
        snprintf(v, sizeof(v), "%d", job->lfd);
        setenv("SYMM_BOOT_LISTEN_FD", v, 1);
    } else {
        unsetenv("SYMM_BOOT_LISTEN_FD");
        close(job->lfd);
    }
}

static void pe_basic(const job_t *job, int rank)
{
    int n = job->n, ranks[MAX_PES], k = 0, me = 0;
    symm_boot_t *b;
    set_env(job, rank);
    int fds_before = count_fds() - (rank == 0); /* rank 0's listening socket is consumed */
    int rc = symm_boot_create_from_env(20.0, &b);
    mark(0, rc == 0 && b->rank == rank && b->size == n && !strcmp(b->ops->name, "tcp"),
         "rc %d", rc);
    if (rc != 0)
        return;
    mark(1, symm_boot_barrier(b) == 0, NULL);
    check_allgather(b, 2, 1);
    check_allgather(b, 3, 8);
    check_allgather(b, 4, n <= 64 ? 100 * 1024 : 1024);

    for (int r = 0; r < n; r++)
        ranks[r] = r;
    check_fds(b, 5, ranks, n, rank, 2);
    for (int r = rank % 2; r < n; r += 2, k++) {
        if (r == rank)
            me = k;
        ranks[k] = r;
    }
    check_fds(b, 6, ranks, k, me, 2);
    for (int r = 0; r < n; r++)
        ranks[r] = r;
    check_fds(b, 7, ranks, n, rank, n <= 16 ? 300 : 2);
    if (rank == n - 1 && n > 1)
        check_fds(b, 8, ranks, 0, 0, 2);
    else
        check_fds(b, 8, ranks, n > 1 ? n - 1 : n, rank, 2);
    check_bad_fd(b, 9, ranks, n, rank);
    check_fds(b, 10, ranks, n, rank, 2);
    mark(11, symm_boot_barrier(b) == 0, NULL);
    symm_boot_destroy(b);
    int fds_after = count_fds();
    mark(12, fds_after == fds_before, "%d open before, %d after", fds_before, fds_after);
}

/* PE 1 makes itself unreadable to the others (not dumpable, and every PE
 * runs as an unprivileged user, so none can override that): each other PE
 * fails to open its memory, says which PE and why, and all fail the call. */
static void pe_unreadable(const job_t *job, int rank)
{
    uid_t nobody = 65534;
    if (geteuid() == 0 && (setresgid(nobody, nobody, nobody) != 0 ||
                           setresuid(nobody, nobody, nobody) != 0)) {
        mark(0, 0, "cannot become uid %d: %s", (int)nobody, strerror(errno));
        return;
    }
    prctl(PR_SET_DUMPABLE, rank == 1 ? 0 : 1, 0, 0, 0);
    set_env(job, rank);
    int fds_before = count_fds() - (rank == 0);
    symm_boot_t *b;
    int rc = symm_boot_create_from_env(20.0, &b), ranks[MAX_PES], mine[2], out[2 * MAX_PES];
    if (rc != 0) {
        mark(rank == 1, 0, "bootstrap rc %d", rc);
        return;
    }
    for (int r = 0; r < job->n; r++)
        ranks[r] = r;
    for (int j = 0; j < 2; j++)
        mine[j] = memfd_create("pe", MFD_CLOEXEC);
    rc = symm_boot_fds_exchange(b, ranks, job->n, rank, mine, 2, out);
    if (rank == 1) {
        mark(1, rc == SYMM_ERR_PEER, "rc %d", rc);
    } else {
        const char *line = captured("cannot open node-local PE 1's memory");
        mark(0, rc == SYMM_ERR_SYS && line != NULL && strstr(line, "Permission denied"),
             "rc %d: %s", rc, line ? line : "no message");
    }
    close(mine[0]);
    close(mine[1]);
    symm_boot_destroy(b);
    int fds_after = count_fds();
    mark(2, fds_after == fds_before, "%d open before, %d after", fds_before, fds_after);
}

/* The last PE runs in a PID namespace of its own (a child of the PE
 * process, after unshare): no PE can open another's /proc entries by the
 * pids published, so each names the first peer it cannot reach and all
 * fail the call. Needs CAP_SYS_ADMIN; elsewhere the check says so. */
static void pe_pidns(const job_t *job, int rank)
{
    if (rank == job->n - 1) {
        if (unshare(CLONE_NEWPID) != 0) {
            mark(0, 0, "unshare(CLONE_NEWPID): %s (run as root)", strerror(errno));
            return;
        }
        pid_t child = fork();
        if (child != 0) {
            int st = 0;
            waitpid(child, &st, 0);
            _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
        }
    }
    set_env(job, rank);
    symm_boot_t *b;
    int rc = symm_boot_create_from_env(20.0, &b), ranks[MAX_PES], mine, out[MAX_PES];
    if (rc != 0) {
        mark(0, 0, "bootstrap rc %d", rc);
        return;
    }
    for (int r = 0; r < job->n; r++)
        ranks[r] = r;
    mine = memfd_create("pe", MFD_CLOEXEC);
    rc = symm_boot_fds_exchange(b, ranks, job->n, rank, &mine, 1, out);
    char needle[64];
    snprintf(needle, sizeof(needle), "node-local PE %d (pid", rank == job->n - 1 ? 0 : job->n - 1);
    const char *line = captured(needle);
    mark(0, rc == SYMM_ERR_UNSUPPORTED && line != NULL && strstr(line, "another PID namespace"),
         "rc %d: %s", rc, line ? line : "no message");
    close(mine);
    symm_boot_destroy(b);
}

static int tcp_params_create(const job_t *job, int rank, const char *secret, int lfd,
                             double timeout, symm_boot_t **b)
{
    symm_boot_tcp_params_t p = {rank, job->size, job->addr, lfd, secret, timeout};
    symm_log_set_pe(rank);
    return symm_boot_tcp_create(&p, b);
}

/* Rank -1: the impostor, with a wrong secret, claiming rank 1. */
static void pe_secret(const job_t *job, int rank, int ready_fd)
{
    symm_boot_t *b;
    if (rank < 0) {
        char bad[33];
        memcpy(bad, job->secret, 33);
        bad[0] = bad[0] == 'a' ? 'b' : 'a';
        close(job->lfd);
        int rc = tcp_params_create(job, 1, bad, -1, 10.0, &b);
        if (write(ready_fd, "x", 1) != 1)
            rc = -100;
        if (rc == 0) {
            rc = symm_boot_barrier(b);
            symm_boot_destroy(b);
        }
        const char *line = captured("refused this PE's connection: bad job secret");
        mark(0, rc == SYMM_ERR_BOOT && line != NULL, "%s", line ? line : "no reason given");
        return;
    }
    int rc = tcp_params_create(job, rank, job->secret, rank == 0 ? job->lfd : -1, 10.0, &b);
    if (rank != 0)
        close(job->lfd);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        if (rc == 0)
            check_allgather(b, 1, 8);
        symm_boot_destroy(b);
    }
    mark(1, rc == 0, "rc %d", rc);
    if (rank == 0) {
        const char *line = captured("bad job secret");
        mark(2, line != NULL && strstr(line, "refused connection from 127.0.0.1:") != NULL,
             "%s", line ? line : "no refusal logged");
    }
}

static void pe_timeout(const job_t *job, int rank)
{
    symm_boot_t *b;
    double t0 = now_s();
    int rc = tcp_params_create(job, rank, job->secret, rank == 0 ? job->lfd : -1, 1.0, &b);
    if (rank != 0)
        close(job->lfd);
    if (rank == 0) {
        double t = now_s() - t0;
        const char *line = captured("waiting for PE(s) 2 ");
        mark(0, rc == SYMM_ERR_TIMEOUT && t > 0.95 && t < 1.5 && line != NULL, "%.2f s: %s", t,
             line ? line : "no message");
        return;
    }
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    double t = now_s() - t0;
    mark(1, rc == SYMM_ERR_PEER && t < 1.8, "rc %d after %.2f s", rc, t);
}

/* Size 7: PEs 0, 1, 5 enter a barrier, 2, 3, 4, 6 never do. */
static void pe_coll_timeout(const job_t *job, int rank)
{
    symm_boot_t *b;
    int rc = tcp_params_create(job, rank, job->secret, rank == 0 ? job->lfd : -1, 1.0, &b);
    if (rank != 0)
        close(job->lfd);
    if (rc != 0) {
        mark(rank == 0 ? 0 : 1, 0, "create rc %d", rc);
        return;
    }
    if (rank != 0 && rank != 1 && rank != 5) {
        struct timespec idle = {1, 300 * 1000 * 1000};
        nanosleep(&idle, NULL);
        symm_boot_destroy(b);
        return;
    }
    double t0 = now_s();
    rc = symm_boot_barrier(b);
    double t = now_s() - t0;
    symm_boot_destroy(b);
    if (rank == 0) {
        const char *line = captured("waiting for PE(s) 2-4, 6 in barrier #1");
        mark(0, rc == SYMM_ERR_TIMEOUT && t > 0.95 && t < 1.5 && line != NULL, "%.2f s: %s", t,
             line ? line : "no message");
    } else {
        mark(1, rc == SYMM_ERR_PEER && t < 1.5, "rc %d after %.2f s", rc, t);
    }
}

static void pe_dead(const job_t *job, int rank)
{
    symm_boot_t *b;
    int rc = tcp_params_create(job, rank, job->secret, rank == 0 ? job->lfd : -1, 5.0, &b);
    if (rank != 0)
        close(job->lfd);
    if (rank == 2)
        _exit(rc == 0 ? 0 : 1); /* dies holding its connection */
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    if (rank == 0) {
        const char *line = captured("PE 2 closed its bootstrap connection");
        mark(0, rc == SYMM_ERR_PEER && line != NULL, "%s", line ? line : "no message");
    } else {
        mark(1, rc == SYMM_ERR_PEER, "rc %d", rc);
    }
}

static void pe_mismatch(const job_t *job, int rank)
{
    symm_boot_t *b;
    uint64_t in = 1, out[2];
    int rc = tcp_params_create(job, rank, job->secret, rank == 0 ? job->lfd : -1, 5.0, &b);
    if (rank != 0)
        close(job->lfd);
    if (rc == 0) {
        rc = rank == 0 ? symm_boot_barrier(b) : symm_boot_allgather(b, &in, out, sizeof(in));
        symm_boot_destroy(b);
    }
    if (rank == 0) {
        const char *line = captured("mismatched calls: PE 1 is in bootstrap allgather #1");
        mark(0, rc == SYMM_ERR_BOOT && line != NULL, "%s", line ? line : "no message");
    } else {
        mark(1, rc == SYMM_ERR_PEER, "rc %d", rc);
    }
}

static void pe_unique(const job_t *job, int rank)
{
    symm_boot_t *b;
    int rc = tcp_params_create(job, rank, job->secret, -1, 10.0, &b);
    mark(0, rc == 0, "rc %d", rc);
    if (rc != 0)
        return;
    rc = symm_boot_barrier(b);
    if (rc == 0)
        check_allgather(b, 1, 8);
    else
        mark(1, 0, "barrier rc %d", rc);
    symm_boot_destroy(b);
}

static void pe_env(const job_t *job)
{
    static const char *vars[] = {"SYMM_RANK", "SYMM_SIZE", "SYMM_BOOT_ADDR", "SYMM_JOB_SECRET",
                                 "SYMM_BOOT_LISTEN_FD"};
    symm_boot_t *b;
    for (int i = 0; i < 5; i++)
        unsetenv(vars[i]);
    int rc = symm_boot_create_from_env(1.0, &b);
    mark(0, rc == 0 && b->size == 1 && b->rank == 0 && symm_boot_barrier(b) == 0, "rc %d", rc);
    if (rc == 0) {
        int one = 0;
        check_allgather(b, 0, 100);
        check_fds(b, 1, &one, 1, 0, 3);
        check_fds(b, 1, &one, 0, 0, 3);
        symm_boot_destroy(b);
    }
    struct {
        int check;
        const char *rank, *size, *secret, *lfd, *needle;
    } bad[] = {
        {2, "1", NULL, job->secret, NULL, "SYMM_SIZE is not set"},
        {3, "4", "4", job->secret, NULL, "SYMM_RANK='4' is not a rank in 0..3"},
        {4, "1", "4", "xyz", NULL, "SYMM_JOB_SECRET is not 32 hexadecimal"},
        {5, "0", "4", job->secret, "0", "SYMM_BOOT_LISTEN_FD=0 is not a listening TCP socket"},
        {5, "0", "4", job->secret, "999", "SYMM_BOOT_LISTEN_FD=999 is not an open descriptor"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        capture();
        setenv("SYMM_RANK", bad[i].rank, 1);
        bad[i].size ? setenv("SYMM_SIZE", bad[i].size, 1) : unsetenv("SYMM_SIZE");
        setenv("SYMM_BOOT_ADDR", job->addr, 1);
        setenv("SYMM_JOB_SECRET", bad[i].secret, 1);
        bad[i].lfd ? setenv("SYMM_BOOT_LISTEN_FD", bad[i].lfd, 1)
                   : unsetenv("SYMM_BOOT_LISTEN_FD");
        rc = symm_boot_create_from_env(1.0, &b);
        const char *line = captured(bad[i].needle);
        mark(bad[i].check, rc == SYMM_ERR_INVALID && line != NULL, "%s",
             line ? line : "no message");
    }
}

static void run_pe(const job_t *job, int rank, int ready_fd)
{
    my_res = job->res + (size_t)(rank < 0 ? job->n : rank) * MAX_CHECKS;
    alarm(30);
    capture();
    switch (job->scenario) {
    case SC_BASIC: pe_basic(job, rank); break;
    case SC_SECRET: pe_secret(job, rank, ready_fd); break;
    case SC_TIMEOUT: pe_timeout(job, rank); break;
    case SC_COLL_TIMEOUT: pe_coll_timeout(job, rank); break;
    case SC_DEAD: pe_dead(job, rank); break;
    case SC_MISMATCH: pe_mismatch(job, rank); break;
    case SC_UNIQUE: pe_unique(job, rank); break;
    case SC_ENV: pe_env(job); break;
    case SC_UNREADABLE: pe_unreadable(job, rank); break;
    case SC_PIDNS: pe_pidns(job, rank); break;
    }
    _exit(0);
}

/* ---- parent side ---------------------------------------------------------- */

static void job_init(job_t *job, int scenario, int n, int size)
{

    memset(job, 0, sizeof(*job));
    job->scenario = scenario;
    job->n = n;
    job->size = size;
    job->lfd = job_listen(job->addr, sizeof(job->addr));
    job_secret(job->secret);
    job->res = job_results(n);
}

static void job_fork(job_t *job, int rank, int ready_fd)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0)
        run_pe(job, rank, ready_fd);
    job->pid[rank < 0 ? job->n : rank] = pid;
}

/* Wait for the job; print one line per check; returns failures. */
static int job_report(job_t *job, const char *label, double t0)
{
    int failed = 0, crashed = 0;
    close(job->lfd);
    for (int r = 0; r <= job->n; r++) {
        int st = 0;
        if (job->pid[r] > 0 && (waitpid(job->pid[r], &st, 0) < 0 || !WIFEXITED(st) ||
                                WEXITSTATUS(st) != 0)) {
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

static int run_basic(int n)
{
    static job_t a, b;
    char la[64], lb[64];
    double t0 = now_s();
    job_init(&a, SC_BASIC, n, n);
    job_init(&b, SC_BASIC, n, n);
    for (int r = 0; r < n; r++) {
        job_fork(&a, r, -1);
        job_fork(&b, r, -1);
    }
    snprintf(la, sizeof(la), "N=%d job A", n);
    snprintf(lb, sizeof(lb), "N=%d job B (concurrent)", n);
    return job_report(&a, la, t0) + job_report(&b, lb, t0);
}

static int run_simple(int scenario, int n, int size, const char *label)
{
    static job_t j;
    double t0 = now_s();
    job_init(&j, scenario, n, size);
    for (int r = 0; r < n; r++)
        job_fork(&j, r, -1);
    return job_report(&j, label, t0);
}

static int run_secret(int n)
{
    static job_t j;
    int p[2];
    char c, label[64];
    double t0 = now_s();
    job_init(&j, SC_SECRET, n, n);
    if (pipe(p) != 0)
        exit(2);
    /* The impostor has connected and sent its hello before rank 0 starts,
     * so rank 0 must judge it while waiting for the real PEs. */
    job_fork(&j, -1, p[1]);
    if (read(p[0], &c, 1) != 1)
        fprintf(stderr, "impostor did not start\n");
    close(p[0]);
    close(p[1]);
    for (int r = 0; r < n; r++)
        job_fork(&j, r, -1);
    snprintf(label, sizeof(label), "N=%d wrong secret", n);
    return job_report(&j, label, t0);
}

static int run_unique(int n)
{
    static job_t j;
    char label[64];
    struct timespec pause = {0, 50 * 1000 * 1000};
    double t0 = now_s();
    job_init(&j, SC_UNIQUE, n, n);
    /* Free the port: rank 0 binds it itself, after the others started. */
    close(j.lfd);
    j.lfd = -1;
    for (int r = n - 1; r >= 0; r--) {
        if (r == 0)
            nanosleep(&pause, NULL);
        job_fork(&j, r, -1);
    }
    snprintf(label, sizeof(label), "N=%d unique-id", n);
    return job_report(&j, label, t0);
}

int main(int argc, char **argv)
{
    int sizes[16] = {1, 2, 4, 16}, nsizes = 4, failed = 0;
    struct rlimit rl;

    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 16; i++) {
            sizes[nsizes] = atoi(argv[i]);
            if (sizes[nsizes] < 1 || sizes[nsizes] >= MAX_PES) {
                fprintf(stderr, "usage: %s [N ...] with 1 <= N < %d\n", argv[0], MAX_PES);
                return 2;
            }
            nsizes++;
        }
    }
    /* 300 descriptors from each of 16 PEs, and rank 0's sockets. */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    signal(SIGPIPE, SIG_DFL); /* the library must not need it ignored */
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (int i = 0; i < nsizes; i++)
        failed += run_basic(sizes[i]);
    failed += run_simple(SC_ENV, 1, 1, "environment");
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] >= 2)
            failed += run_secret(sizes[i] < 16 ? sizes[i] : 16);
    failed += run_simple(SC_TIMEOUT, 2, 3, "size 3, 2 started");
    failed += run_simple(SC_COLL_TIMEOUT, 7, 7, "size 7, 4 skip a barrier");
    failed += run_simple(SC_DEAD, 3, 3, "size 3, PE 2 dies");
    failed += run_simple(SC_MISMATCH, 2, 2, "mismatched calls");
    failed += run_unique(4);
    failed += run_simple(SC_UNREADABLE, 2, 2, "N=2, PE 1 unreadable");
    failed += run_simple(SC_UNREADABLE, 4, 4, "N=4, PE 1 unreadable");
    failed += run_simple(SC_PIDNS, 2, 2, "N=2, PE 1 in its own PID namespace");
    failed += run_simple(SC_PIDNS, 3, 3, "N=3, PE 2 in its own PID namespace");

    printf("%s: %d failure(s)\n", failed ? "FAIL" : "PASS", failed);
    return failed ? 1 : 0;
}
