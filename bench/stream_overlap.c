/*
 * symm-stream-bench: does a CPU stream overlap communication with compute?
 *
 *   oshrun -np 2 symm-stream-bench [-s MiB] [-n reps] [-k daxpy|poly] [-d degree]
 *
 * Every PE computes on two private arrays of `MiB` (default 64) and puts `MiB`
 * from a symmetric buffer to its right neighbour (PE me+1 mod n). Timed, each
 * after a barrier, median over -n repetitions (default 5) after one warm-up,
 * the job's time being the slowest PE's:
 *   compute      the kernel alone;
 *   put          shmem_putmem + shmem_quiet alone;
 *   sequential   the kernel, then the put (+quiet): one after the other;
 *   stream       aclshmemx_putmem_on_stream, the kernel on the calling
 *                thread meanwhile, then shmemx_stream_synchronize.
 * With -p COUNT it times small operations instead, what a stream costs per
 * operation against the caller's own thread: COUNT 8-byte puts to the right
 * neighbour then shmem_quiet, against the same puts on a stream then
 * quiet_on_stream and a signal on the stream that the neighbour waits for.
 * overlap = (sequential - stream) / min(compute, put): the share of the
 * shorter phase that the stream hid (1 = all of it, 0 = none, < 0 = slower).
 *
 * Kernels: daxpy (y = a*x + y: memory-bound, competes with the put for memory
 * bandwidth) and poly (a polynomial of x per element, degree -d, default 16:
 * compute-bound, the case streams are for; the degree sets how long it runs). The stream's progress
 * thread needs a core of its own: with as many PEs as cores it competes with the PEs' compute.
 *
 * symm-only: uses symm_stream.h (CPU streams) besides standard OpenSHMEM. The
 * received data is checked after the last repetition.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>
#include <symm_stream.h>

enum { KERNEL_DAXPY, KERNEL_POLY };

static int degree = 16; /* of the poly kernel */

static double job_time(double t);
static double median(double *v, int n);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void compute(int kernel, double *y, const double *x, size_t n)
{
    if (kernel == KERNEL_DAXPY) {
        const double a = 1.000001;
        for (size_t i = 0; i < n; i++)
            y[i] = a * x[i] + y[i];
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double v = x[i], p = 1.0;
        for (int k = 0; k < degree; k++)
            p = p * v + 1.0 / (double)(k + 2);
        y[i] = p;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The slowest PE's time. */
static double job_time(double t)
{
    static double mine, slowest;
    mine = t;
    shmem_barrier_all();
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &slowest, &mine, 1);
    return slowest;
}

/* -p COUNT: per-operation cost of 8-byte puts, caller's thread and stream;
 * the received words are checked. Returns nonzero on a wrong word. */
static int small_puts(long count, int reps)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    int left = (me + npes - 1) % npes;
    enum { SLOTS = 1024 };
    long *dst = shmem_calloc(SLOTS, sizeof(long)), src[SLOTS];
    int32_t *sig = shmem_calloc(1, sizeof(int32_t));
    double *t_call = calloc((size_t)reps, sizeof(double)),
           *t_strm = calloc((size_t)reps, sizeof(double));
    shmemx_stream_t stream;
    if (!dst || !sig || !t_call || !t_strm || shmemx_stream_create(&stream) != 0)
        shmem_global_exit(1);
    for (int r = -1; r < reps; r++) {
        for (int i = 0; i < SLOTS; i++)
            src[i] = (long)me * 1000000 + r * 1000 + i;
        shmem_barrier_all();
        double t0 = now();
        for (long i = 0; i < count; i++)
            shmem_putmem(&dst[i % SLOTS], &src[i % SLOTS], sizeof(long), right);
        shmem_quiet();
        double call = job_time(now() - t0);
        shmem_barrier_all();
        t0 = now();
        for (long i = 0; i < count; i++)
            aclshmemx_putmem_on_stream(&dst[i % SLOTS], &src[i % SLOTS], sizeof(long), right,
                                       stream);
        aclshmemx_quiet_on_stream(stream);
        aclshmemx_signal_op_on_stream(sig, r + 2, ACLSHMEM_SIGNAL_SET, right, stream);
        shmemx_stream_synchronize(stream);
        shmem_int32_wait_until(sig, SHMEM_CMP_EQ, r + 2);
        double strm = job_time(now() - t0);
        if (r >= 0) {
            t_call[r] = call;
            t_strm[r] = strm;
        }
    }
    shmem_barrier_all();
    int bad = 0;
    for (long i = 0; i < SLOTS && i < count; i++)
        bad |= dst[i] != (long)left * 1000000 + (reps - 1) * 1000 + i;
    if (bad)
        fprintf(stderr, "PE %d: wrong data received from PE %d\n", me, left);
    if (me == 0) {
        double c = median(t_call, reps), s = median(t_strm, reps);
        printf("# symm-stream-bench: %d PEs, %ld online cores, %ld 8-byte puts to the right "
               "neighbour, median of %d\n", npes, sysconf(_SC_NPROCESSORS_ONLN), count, reps);
        printf("%-12s %10s %10s\n", "path", "ms", "us/put");
        printf("%-12s %10.2f %10.3f\n", "caller", 1e3 * c, 1e6 * c / (double)count);
        printf("%-12s %10.2f %10.3f\n", "stream", 1e3 * s, 1e6 * s / (double)count);
        fflush(stdout);
    }
    shmemx_stream_destroy(stream);
    shmem_free(sig);
    shmem_free(dst);
    free(t_call);
    free(t_strm);
    return bad;
}

/* To stdout with status 0 when asked for (-h, --help), else to stderr, 2. */
static void usage(const char *argv0, int asked)
{
    fprintf(asked ? stdout : stderr,
            "usage: %s [-s MiB] [-n reps] [-k daxpy|poly] [-d degree] [-p count]\n"
            "Times a daxpy or polynomial kernel alone, a put ring alone, and both overlapped\n"
            "on a CPU stream (under oshrun, any number of PEs).\n"
            "  -s MiB     bytes each PE puts per repetition (default 64)\n"
            "  -n reps    repetitions (default 5)\n"
            "  -k kernel  daxpy (memory bound, default) or poly (compute bound)\n"
            "  -d degree  the polynomial's degree (default %d)\n"
            "  -p count   time count 8-byte puts, the caller's against a stream's, instead\n"
            "  -h, --help this text\n",
            argv0, degree);
    exit(asked ? 0 : 2);
}

int main(int argc, char **argv)
{
    size_t mib = 64;
    int reps = 5, kernel = KERNEL_DAXPY, opt;
    long puts = 0;
    /* getopt knows no long options: --help here, and a named error for the rest. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0)
            usage(argv[0], 1);
        if (strncmp(argv[i], "--", 2) == 0) {
            fprintf(stderr, "symm-stream-bench: unknown option '%s'\n", argv[i]);
            usage(argv[0], 0);
        }
    }
    while ((opt = getopt(argc, argv, "s:n:k:d:p:h")) != -1) {
        switch (opt) {
        case 's': mib = strtoul(optarg, NULL, 10); break;
        case 'n': reps = atoi(optarg); break;
        case 'd': degree = atoi(optarg); break;
        case 'p':
            puts = atol(optarg);
            if (puts < 1)
                usage(argv[0], 0);
            break;
        case 'k':
            if (strcmp(optarg, "daxpy") == 0)
                kernel = KERNEL_DAXPY;
            else if (strcmp(optarg, "poly") == 0)
                kernel = KERNEL_POLY;
            else {
                fprintf(stderr, "symm-stream-bench: -k: unknown kernel '%s' (daxpy or poly)\n",
                        optarg);
                usage(argv[0], 0);
            }
            break;
        case 'h': usage(argv[0], 1); break;
        default: usage(argv[0], 0);
        }
    }
    if (mib == 0 || reps < 1 || degree < 1)
        usage(argv[0], 0);

    shmem_init();
    if (puts > 0) {
        int rc = small_puts(puts, reps);
        shmem_finalize();
        return rc;
    }
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    int left = (me + npes - 1) % npes;
    size_t bytes = mib << 20, n = bytes / sizeof(double);
    double *x = malloc(bytes), *y = malloc(bytes);
    double *src = shmem_malloc(bytes), *dst = shmem_malloc(bytes);
    double *t_comp = calloc((size_t)reps, sizeof(double)),
           *t_put = calloc((size_t)reps, sizeof(double)),
           *t_seq = calloc((size_t)reps, sizeof(double)),
           *t_ovl = calloc((size_t)reps, sizeof(double));
    if (!x || !y || !src || !dst || !t_comp || !t_put || !t_seq || !t_ovl) {
        fprintf(stderr, "PE %d: out of memory for %zu MiB buffers\n", me, mib);
        shmem_global_exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = 0.5 + 1e-9 * (double)i;
        y[i] = 0.0;
        src[i] = (double)me * 1e9 + (double)i;
    }
    memset(dst, 0, bytes);
    shmemx_stream_t stream;
    if (shmemx_stream_create(&stream) != 0)
        shmem_global_exit(1);

    for (int r = -1; r < reps; r++) { /* r = -1: warm-up, not recorded */
        double t0;
        shmem_barrier_all();
        t0 = now();
        compute(kernel, y, x, n);
        double comp = job_time(now() - t0);

        shmem_barrier_all();
        t0 = now();
        shmem_putmem(dst, src, bytes, right);
        shmem_quiet();
        double put = job_time(now() - t0);

        shmem_barrier_all();
        t0 = now();
        compute(kernel, y, x, n);
        shmem_putmem(dst, src, bytes, right);
        shmem_quiet();
        double seq = job_time(now() - t0);

        shmem_barrier_all();
        t0 = now();
        aclshmemx_putmem_on_stream(dst, src, bytes, right, stream);
        compute(kernel, y, x, n);
        shmemx_stream_synchronize(stream);
        double ovl = job_time(now() - t0);

        if (r >= 0) {
            t_comp[r] = comp;
            t_put[r] = put;
            t_seq[r] = seq;
            t_ovl[r] = ovl;
        }
    }
    shmem_barrier_all();
    int bad = 0;
    for (size_t i = 0; i < n; i += n / 64 + 1)
        if (dst[i] != (double)left * 1e9 + (double)i)
            bad = 1;
    if (dst[n - 1] != (double)left * 1e9 + (double)(n - 1))
        bad = 1;
    if (bad)
        fprintf(stderr, "PE %d: wrong data received from PE %d\n", me, left);

    double comp = median(t_comp, reps), put = median(t_put, reps);
    double seq = median(t_seq, reps), ovl = median(t_ovl, reps);
    double shorter = comp < put ? comp : put;
    if (me == 0) {
        char kname[32] = "daxpy";
        if (kernel == KERNEL_POLY)
            snprintf(kname, sizeof(kname), "poly (degree %d)", degree);
        printf("# symm-stream-bench: %d PEs, %ld online cores, kernel %s, %zu MiB put to the "
               "right neighbour, median of %d\n",
               npes, sysconf(_SC_NPROCESSORS_ONLN), kname, mib, reps);
        printf("%-12s %10s\n", "phase", "ms");
        printf("%-12s %10.2f\n", "compute", 1e3 * comp);
        printf("%-12s %10.2f  (%.2f GB/s)\n", "put", 1e3 * put, (double)bytes / put * 1e-9);
        printf("%-12s %10.2f\n", "sequential", 1e3 * seq);
        printf("%-12s %10.2f\n", "stream", 1e3 * ovl);
        printf("speedup %.2fx, overlap %.0f%% of the shorter phase\n", seq / ovl,
               100.0 * (seq - ovl) / shorter);
        fflush(stdout);
    }
    shmemx_stream_destroy(stream);
    shmem_free(dst);
    shmem_free(src);
    free(x);
    free(y);
    free(t_comp);
    free(t_put);
    free(t_seq);
    free(t_ovl);
    shmem_finalize();
    return bad;
}
