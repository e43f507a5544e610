/*
 * boot_scale.c - the TCP bootstrap alone at 2..1024 PEs: how long a job
 * takes to join and to run init's exchanges, by shape.
 *
 * Usage: boot_scale [-k K] [-r ROUNDS] [-l LEN] [-t TRIES] N...
 *
 * For each N the parent plays oshrun (a listening socket rank 0 inherits,
 * a job secret) and forks N processes. Each creates the TCP bootstrap
 * (src/boot/tcp/) with fan-out K (SYMM_BOOT_TREE_K; K >= N-1 makes the
 * tree a star: every PE a child of PE 0), then runs ROUNDS allgathers of
 * LEN bytes per PE and a barrier, as init does (defaults: 12 rounds of 515
 * bytes, the sizes docs/performance.md gives for an init over UCX), checks
 * every byte against what each PE computes on its own, and exits. Printed
 * per N: the best of TRIES wall times from the first fork to the last exit
 * (join + rounds), the time of the rounds alone at PE 0, and PE 0's CPU
 * seconds. TLS follows SYMM_BOOT_TLS as in a real job. Exits non-zero if
 * any PE failed or saw a wrong byte.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/boot.h"
#include "runtime/status.h"
#include "unit/boot_job.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct result {
    double rounds_s; /* PE 0: the rounds alone */
    double cpu_s;    /* PE 0: user + system */
} result_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t pattern(int rank, int round, size_t i)
{
    return (uint8_t)(rank * 131 + round * 7 + i * 13);
}

/* One PE: join, ROUNDS checked allgathers, a barrier. The exit status. */
static int pe_main(const symm_boot_tcp_params_t *p, int rounds, size_t len, result_t *res)
{
    symm_boot_t *b;
    if (symm_boot_tcp_create(p, &b) != SYMM_OK)
        return 3;
    uint8_t *in = malloc(len), *out = malloc(len * (size_t)p->size);
    int bad = in == NULL || out == NULL;
    double t0 = now_s();
    for (int k = 0; k < rounds && !bad; k++) {
        for (size_t i = 0; i < len; i++)
            in[i] = pattern(p->rank, k, i);
        if (symm_boot_allgather(b, in, out, len) != SYMM_OK) {
            bad = 1;
            break;
        }
        for (int r = 0; r < p->size; r++)
            for (size_t i = 0; i < len; i++)
                bad |= out[(size_t)r * len + i] != pattern(r, k, i);
    }
    if (!bad && symm_boot_barrier(b) != SYMM_OK)
        bad = 1;
    if (p->rank == 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        res->rounds_s = now_s() - t0;
        res->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    }
    symm_boot_destroy(b);
    free(in);
    free(out);
    return bad ? 4 : 0;
}

/* One job of n PEs: its wall time, or a negative value if a PE failed. */
static double run_job(int n, int rounds, size_t len, result_t *res)
{
    char addr[64], secret[33];
    int lfd = job_listen(addr, sizeof(addr));
    job_secret(secret);
    double t0 = now_s();
    for (int r = 0; r < n; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("boot_scale: fork");
            exit(2);
        }
        if (pid == 0) {
            symm_boot_tcp_params_t p = {.rank = r, .size = n, .root_addr = addr,
                                        .listen_fd = r == 0 ? lfd : -1, .secret = secret,
                                        .timeout_s = 120};
            if (r != 0)
                close(lfd);
            _exit(pe_main(&p, rounds, len, res));
        }
    }
    close(lfd);
    int failed = 0, status;
    while (wait(&status) > 0)
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    return failed ? -1.0 : now_s() - t0;
}

int main(int argc, char **argv)
{
    int rounds = 12, tries = 3, opt;
    size_t len = 515;
    const char *k = NULL;
    while ((opt = getopt(argc, argv, "k:r:l:t:")) != -1) {
        switch (opt) {
        case 'k': k = optarg; break;
        case 'r': rounds = atoi(optarg); break;
        case 'l': len = (size_t)atol(optarg); break;
        case 't': tries = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: boot_scale [-k K] [-r ROUNDS] [-l LEN] [-t TRIES] N...\n");
            return 2;
        }
    }
    if (optind >= argc || rounds < 0 || tries < 1 || len < 1) {
        fprintf(stderr, "usage: boot_scale [-k K] [-r ROUNDS] [-l LEN] [-t TRIES] N...\n");
        return 2;
    }
    if (k != NULL)
        setenv("SYMM_BOOT_TREE_K", k, 1);
    result_t *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                         -1, 0);
    if (res == MAP_FAILED) {
        perror("boot_scale: mmap");
        return 2;
    }
    printf("%6s %6s %10s %10s %10s\n", "N", "K", "wall_s", "rounds_s", "pe0_cpu_s");
    for (int a = optind; a < argc; a++) {
        int n = atoi(argv[a]);
        double best = -1, best_rounds = 0, best_cpu = 0;
        if (n < 1) {
            fprintf(stderr, "boot_scale: bad N '%s'\n", argv[a]);
            return 2;
        }
        for (int t = 0; t < tries; t++) {
            double w = run_job(n, rounds, len, res);
            if (w < 0) {
                fprintf(stderr, "boot_scale: a PE of the job of %d failed\n", n);
                return 1;
            }
            if (best < 0 || w < best) {
                best = w;
                best_rounds = res->rounds_s;
                best_cpu = res->cpu_s;
            }
        }
        printf("%6d %6s %10.3f %10.3f %10.2f\n", n, k != NULL ? k : "-", best, best_rounds,
               best_cpu);
        fflush(stdout);
    }
    return 0;
}
