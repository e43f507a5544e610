/*
 * net_bench.c - the rows of bench/ucx_compare.sh, OSU-style, written to the
 * OpenSHMEM 1.4 API (active-set collectives) so that Open MPI 4.1's
 * OpenSHMEM runs the same source as symm.
 *
 *   oshcc -O2 bench/net_bench.c -o nb && oshrun -np 4 ./nb [ITERS]
 *
 * Point to point, PE 0 to the last PE (across nodes when the job spans
 * two): put 8 B + quiet, get 8 B, fetch-add 8 B (per-op latency on PE 0),
 * non-fetching atomic add 8 B back to back then quiet (per-op time),
 * put bandwidth at 1 MiB (windows of 64 put_nbi + quiet). The latency rows
 * run 10 x ITERS operations (10000 by default, as bench/ucx_raw.c does):
 * a loop of a few milliseconds is short enough for one scheduler hiccup on
 * an oversubscribed machine to move its mean visibly. Collectives on
 * all PEs at 8 B, 64 KiB and 1 MiB per PE: barrier_all, broadcast64 (root
 * 0), fcollect64, alltoall64, double_sum_to_all. As OSU's oshm benchmarks
 * do, each call is timed alone, a barrier_all (not timed) separates calls,
 * and the row is the average over PEs of the mean time per call. Each
 * result is checked; a wrong one is reported and the exit status is 1.
 * Output, PE 0 only, one row per line: "net_bench OP BYTES VALUE UNIT".
 * NET_BENCH_ONLY=ROW[,ROW...] runs only those rows, each OP (every size)
 * or OP:BYTES (fcollect:1048576); it must be the same on every PE.
 * NET_BENCH_SIZES=B[,B...] replaces the collectives' sizes per PE (default
 * 8,65536,1048576; multiples of 8): large rows need a symmetric heap of
 * about 3 x npes x the largest (SHMEM_SYMMETRIC_SIZE). Rows past 1 MiB run
 * fewer calls (at least 5).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long psync[2][SHMEM_REDUCE_SYNC_SIZE > SHMEM_BCAST_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                    : SHMEM_BCAST_SYNC_SIZE];
static long psync_c[2][SHMEM_COLLECT_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE
                           ? SHMEM_COLLECT_SYNC_SIZE
                           : SHMEM_ALLTOALL_SYNC_SIZE];
static double time_sum, time_all;
static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static int me, npes, bad;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

/* Average over PEs of a per-PE value. */
static double pe_avg(double v)
{
    time_sum = v;
    shmem_barrier_all();
    shmem_double_sum_to_all(&time_all, &time_sum, 1, 0, 0, npes, pwrk, psync[1]);
    shmem_barrier_all();
    return time_all / npes;
}

/* Whether NET_BENCH_ONLY asks for row OP at BYTES (unset: every row). */
static int wanted(const char *op, size_t bytes)
{
    const char *p = getenv("NET_BENCH_ONLY");
    if (p == NULL || *p == '\0')
        return 1;
    size_t n = strlen(op);
    while (*p != '\0') {
        const char *e = strchr(p, ',');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        if (len >= n && strncmp(p, op, n) == 0 &&
            (len == n || (p[n] == ':' && strtoull(p + n + 1, NULL, 0) == bytes)))
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

static void row(const char *op, size_t bytes, double v, const char *unit)
{
    if (me == 0)
        printf("net_bench %-10s %8zu %12.3f %s\n", op, bytes, v, unit);
    fflush(stdout);
}

static void check(int ok, const char *what, size_t bytes)
{
    if (!ok) {
        printf("net_bench: PE %d: wrong result of %s at %zu B\n", me, what, bytes);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    for (size_t i = 0; i < sizeof(psync) / sizeof(long); i++)
        ((long *)psync)[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < sizeof(psync_c) / sizeof(long); i++)
        ((long *)psync_c)[i] = SHMEM_SYNC_VALUE;
    size_t sizes[32], n_sizes = 0;
    const char *sz_env = getenv("NET_BENCH_SIZES");
    for (const char *p = sz_env != NULL && *sz_env ? sz_env : "8,65536,1048576";
         *p != '\0' && n_sizes < 32;) {
        char *e;
        size_t b = strtoull(p, &e, 0);
        if (e == p || b % 8 != 0) {
            if (me == 0)
                printf("net_bench: NET_BENCH_SIZES: bad size at \"%s\" (a multiple of 8)\n", p);
            shmem_global_exit(2);
        }
        sizes[n_sizes++] = b;
        p = *e == ',' ? e + 1 : e;
    }
    size_t maxb = 1u << 20;
    for (size_t i = 0; i < n_sizes; i++)
        maxb = sizes[i] > maxb ? sizes[i] : maxb;
    double *src = shmem_malloc(maxb * npes), *dst = shmem_malloc(maxb * npes);
    double *wrk = shmem_malloc(maxb / 2 + 8 * SHMEM_REDUCE_MIN_WRKDATA_SIZE);
    long *word = shmem_malloc(sizeof(long));
    if (src == NULL || dst == NULL || wrk == NULL || word == NULL) {
        printf("net_bench: PE %d: out of symmetric memory\n", me);
        shmem_global_exit(1);
    }
    memset(dst, 0, maxb * npes);
    *word = 0;
    int peer = npes - 1;
    shmem_barrier_all();

    /* ---- point to point, PE 0 -> last PE -------------------------------- */
    if (npes > 1) {
        double t = 0;
        if (me == 0) {
            long v = 7, g = 0;
            int ops = 10 * iters;
            for (int i = 0; i < iters; i++) {
                shmem_putmem(dst, &v, 8, peer);
                shmem_quiet();
            }
            double t0 = now();
            for (int i = 0; i < ops; i++) {
                shmem_putmem(dst, &v, 8, peer);
                shmem_quiet();
            }
            t = (now() - t0) / ops;
            if (wanted("put", 8))
                row("put", 8, t, "us");
            t0 = now();
            for (int i = 0; i < ops; i++)
                shmem_getmem(&g, dst, 8, peer);
            if (wanted("get", 8))
                row("get", 8, (now() - t0) / ops, "us");
            check(g == 7, "get", 8);
            t0 = now();
            long old = 0;
            for (int i = 0; i < ops; i++)
                old = shmem_long_atomic_fetch_add(word, 1, peer);
            if (wanted("fetch_add", 8))
                row("fetch_add", 8, (now() - t0) / ops, "us");
            check(old == ops - 1, "fetch_add", 8);
            /* Non-fetching adds back to back, then one quiet: the rate a
             * histogram kernel (bale's histo) sees. */
            t0 = now();
            for (int i = 0; i < ops; i++)
                shmem_long_atomic_add(word, 1, peer);
            shmem_quiet();
            if (wanted("atomic_add", 8))
                row("atomic_add", 8, (now() - t0) / ops, "us");
            check(shmem_long_atomic_fetch(word, peer) == 2L * ops, "atomic_add", 8);
            const size_t bwb = 1u << 20;
            int win = 64, reps = iters / 50 > 4 ? iters / 50 : 4;
            for (int i = 0; i < win; i++)
                shmem_putmem_nbi(dst, src, bwb, peer);
            shmem_quiet();
            t0 = now();
            for (int r = 0; r < reps; r++) {
                for (int i = 0; i < win; i++)
                    shmem_putmem_nbi(dst, src, bwb, peer);
                shmem_quiet();
            }
            if (wanted("put_bw", bwb))
                row("put_bw", bwb, (double)bwb * win * reps / (now() - t0), "MB/s");
        }
        shmem_barrier_all();
    }

    /* ---- barrier ---------------------------------------------------------- */
    double acc = 0;
    for (int i = 0; i < iters / 10; i++)
        shmem_barrier_all();
    for (int i = 0; i < iters; i++) {
        double t0 = now();
        shmem_barrier_all();
        acc += now() - t0;
    }
    double v = pe_avg(acc / iters);
    if (wanted("barrier", 0))
        row("barrier", 0, v, "us");

    /* ---- collectives ------------------------------------------------------- */
    for (size_t si = 0; si < n_sizes; si++) {
        size_t bytes = sizes[si], n = bytes / 8;
        int it = bytes <= 65536 ? iters : (iters / 20 > 10 ? iters / 20 : 10);
        if (bytes > (1u << 20)) { /* about 64 MiB a PE per row, at least 5 calls */
            int few = (int)((64u << 20) / bytes);
            it = few < 5 ? 5 : few < it ? few : it;
        }
        for (size_t k = 0; k < n * npes; k++)
            src[k] = (double)(me * 1000 + (int)(k % 1000));
        shmem_barrier_all();
        for (int op = 0; op < 4; op++) {
            static const char *const names[] = {"broadcast", "fcollect", "alltoall", "sum_reduce"};
            if (!wanted(names[op], bytes))
                continue;
            acc = 0;
            for (int i = -it / 10 - 1; i < it; i++) {
                long *ps = op == 1 || op == 2 ? psync_c[i & 1] : psync[i & 1];
                shmem_barrier_all();
                double t0 = now();
                switch (op) {
                case 0: shmem_broadcast64(dst, src, n, 0, 0, 0, npes, ps); break;
                case 1: shmem_fcollect64(dst, src, n, 0, 0, npes, ps); break;
                case 2: shmem_alltoall64(dst, src, n, 0, 0, npes, ps); break;
                case 3: shmem_double_sum_to_all(dst, src, (int)n, 0, 0, npes, wrk, ps); break;
                }
                if (i >= 0)
                    acc += now() - t0;
            }
            shmem_barrier_all();
            /* Check the last call's result, element by element. */
            int ok = 1;
            for (size_t k = 0; ok && k < n; k++) {
                switch (op) {
                case 0:
                    ok = me == 0 || dst[k] == (double)(k % 1000);
                    break;
                case 1:
                    for (int p = 0; ok && p < npes; p++)
                        ok = dst[p * n + k] == (double)(p * 1000 + (int)(k % 1000));
                    break;
                case 2:
                    for (int p = 0; ok && p < npes; p++)
                        ok = dst[p * n + k] ==
                             (double)(p * 1000 + (int)((me * n + k) % 1000));
                    break;
                case 3: {
                    double e = 0;
                    for (int p = 0; p < npes; p++)
                        e += (double)(p * 1000 + (int)(k % 1000));
                    ok = dst[k] == e;
                    break;
                }
                }
            }
            check(ok, names[op], bytes);
            v = pe_avg(acc / it);
            row(names[op], bytes, v, "us");
        }
    }
    shmem_barrier_all();
    shmem_free(word);
    shmem_free(wrk);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return bad;
}
