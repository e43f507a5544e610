/*
 * symm-bench: OSU-style OpenSHMEM micro-benchmarks.
 *
 * Written against the standard OpenSHMEM 1.4/1.5 API only (<shmem.h>), so the
 * same source builds with any implementation's oshcc; bench/compare.sh uses
 * that to compare symm with another OpenSHMEM side by side.
 *
 *   symm-bench [options] [test ...]        (run under a launcher, >= 2 PEs)
 *
 * Point-to-point tests run PE 0 -> PE 1; the other PEs only join barriers.
 * Collective tests use every PE (SHMEM_TEAM_WORLD).  PE 0 prints the tables.
 *
 * What is timed (CLOCK_MONOTONIC, averaged over many iterations after
 * warm-up iterations; the routine is chosen before each timed loop):
 *  put_lat     loop of { shmem_putmem; shmem_quiet } (as OSU osu_oshm_put.c),
 *              reported per iteration: the latency of a completed put.
 *  get_lat     loop of shmem_getmem (blocking), per iteration.
 *  put_bw      loop of { W x shmem_putmem_nbi; shmem_quiet } (W = --window);
 *  get_bw      same with shmem_getmem_nbi.  MB/s = 10^6 bytes/s; msgs/s.
 *  *_global    the same, but source and target are static (data-segment)
 *              arrays of 4 MiB instead of shmem_malloc'ed heap memory.
 *  p_lat       loop of { shmem_long_p; shmem_quiet };  g_lat: shmem_long_g.
 *  atomic_lat  1.4 atomics on a long (bitwise ones on an unsigned long):
 *              fetch set compare_swap swap fetch_inc inc fetch_add add
 *              fetch_and and fetch_or or fetch_xor xor.  Fetching ops: per
 *              call.  Non-fetching ops are each followed by shmem_quiet, like
 *              put_lat, so every number is a completed round trip; their
 *              second column ("issue", CSV row OP_issue) is the same op without
 *              the per-op quiet: N ops then one quiet, divided by N.  Every
 *              compare_swap matches (it stores old + 1).  Checked: the exact
 *              final value after each op (bitwise: replayed locally), and an
 *              untimed pass checking each fetched value against a local model.
 *  atomic_rate ops/s of fetch_add, add, compare_swap, inc: loops of { W ops;
 *              shmem_quiet } (W = --window), ~10N ops (as OSU osu_oshm_atomics,
 *              PE 0 -> PE 1 only); the final counter is checked.
 *  lock        shmem_set_lock + shmem_clear_lock on a symmetric heap long, PE 0
 *              alone (the others wait in a barrier); shmem_test_lock (success)
 *              + clear likewise.  "contended": all PEs loop N/10 times
 *              { set_lock; shmem_long_g + shmem_long_p of a counter on PE 0;
 *              clear_lock }: the average over PEs of each PE's mean time per
 *              acquire+release; the counter must end at exactly npes * N/10.
 *  gups        random-access updates (HPCC RandomAccess's pattern): every PE
 *              xors pseudo-random values into pseudo-random longs of a
 *              --table bytes symmetric table (default 1 GiB per PE) on
 *              pseudo-random PEs, shmem_long_atomic_xor, a quiet per window;
 *              reported as updates/s over all PEs (GUP/s x 1e9). The table's
 *              TLB reach is what huge pages (SYMM_HUGEPAGES) change (every
 *              page of every mapped peer's table is touched once first, so
 *              first-touch faults are not timed). Checked:
 *              a second, untimed pass of the same updates must give every
 *              long back its initial value.
 *  pingpong    1.4 reference for signal: PE 0 shmem_long_p(flag, i, PE 1),
 *              then shmem_long_wait_until(flag == i) on its own flag, which
 *              PE 1 puts back after its own wait; half the round trip.
 *  barrier     loop of shmem_barrier_all, and of shmem_sync_all, on all PEs.
 *  bcast collect fcollect alltoall reduce (OpenSHMEM 1.5 team forms on
 *              SHMEM_TEAM_WORLD; size = bytes per PE; reduce = int sum):
 *              each call is timed alone, with a barrier between calls
 *              (as OSU does); the table shows the average over PEs of each
 *              PE's mean, and the min/max of those per-PE means.
 *  signal      shmem_putmem_signal + shmem_signal_wait_until ping-pong
 *              between PE 0 and PE 1, sizes from 8 B; half the round trip is
 *              reported (as pingpong, its 1.4 reference).
 * Results are checked cheaply after each size (a few bytes of each target);
 * a wrong value is reported on stderr and makes the exit status non-zero.
 *
 * Iterations: --iters N (default 10000) for sizes <= 64 KiB; above that
 * N * 64 KiB / size (at least 10).  Warm-up: a tenth of that.  Bandwidth
 * tests run ~3N messages (in windows); collectives and barriers N/10 calls.
 *
 * --osu measures as the OSU OpenSHMEM micro-benchmarks (5.x) do, so that
 * symm-bench's rows can be set beside OSU's (same test and row names; the
 * table header says "osu method"):
 *  put_lat get_lat (and *_global): the loops above, with OSU's counts:
 *              1000 untimed + 10000 timed up to 8 KiB, 0 + 100 above (so
 *              first-touch and cache effects are in the large sizes).
 *  barrier     each call timed alone: shmem_barrier over the world's active
 *              set, alternating two pSync arrays (OSU 5.x), row "barrier";
 *              then shmem_barrier_all (as later OSU versions), row
 *              "barrier_all"; 10 + 100.
 *  bcast collect fcollect reduce: the active-set forms (shmem_broadcast32 in
 *              place from PE 0, shmem_collect32, shmem_fcollect32,
 *              shmem_float_sum_to_all), two pSync (and pWrk) arrays in turn,
 *              each call timed alone then an untimed shmem_barrier_all;
 *              200 + 1000 up to 8192 elements, 10 + 100 above.
 * Barrier and collectives report the average over PEs of each PE's mean.
 * --max-size defaults to 1 MiB (OSU's largest); --iters N sets the timed
 * count at every size (as OSU's -i).  Unlike OSU (gettimeofday, whole
 * microseconds per reading), times are CLOCK_MONOTONIC readings with
 * nanosecond resolution, so sub-microsecond calls timed one at a time are
 * not truncated.  The other tests are unchanged by --osu.
 */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(SHMEM_MAJOR_VERSION) && defined(SHMEM_MINOR_VERSION) && \
    (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION) >= 105
#define HAVE_SHMEM_15 1
#else
#define HAVE_SHMEM_15 0
#endif

/* What each test needs: 1.4 has the atomics and locks, 1.5 the team
 * collectives and signals.  symm gains routine families issue by issue and
 * announces each with a SYMM_HAVE_* macro (locks come with SYMM_HAVE_AMO
 * unless it says SYMM_HAVE_LOCK); any other library has what its version
 * promises.  A test whose routines are missing prints "skipped". */
#define HAVE_AMO 1
#define HAVE_LOCK 1
#define HAVE_COLL HAVE_SHMEM_15
#define HAVE_SIGNAL HAVE_SHMEM_15
#if defined(SYMM_VERSION_STRING)
#if !defined(SYMM_HAVE_AMO)
#undef HAVE_AMO
#define HAVE_AMO 0
#endif
#if !defined(SYMM_HAVE_LOCK) && !defined(SYMM_HAVE_AMO)
#undef HAVE_LOCK
#define HAVE_LOCK 0
#endif
#if !defined(SYMM_HAVE_COLL)
#undef HAVE_COLL
#define HAVE_COLL 0
#endif
#if !defined(SYMM_HAVE_SIGNAL)
#undef HAVE_SIGNAL
#define HAVE_SIGNAL 0
#endif
#endif

/* The deprecated active-set collectives (--osu's barrier, bcast, collect,
 * fcollect, reduce) are in every OpenSHMEM up to 1.5; symm has them with its
 * team collectives. */
#define HAVE_ACTIVE_COLL 1
#if defined(SYMM_VERSION_STRING) && !defined(SYMM_HAVE_COLL)
#undef HAVE_ACTIVE_COLL
#define HAVE_ACTIVE_COLL 0
#endif

#ifndef SHMEM_MAX_NAME_LEN
#define SHMEM_MAX_NAME_LEN 256
#endif

#define KiB ((size_t)1024)
#define MiB (KiB * KiB)
#define GBUF_BYTES (4 * MiB)

/* Symmetric static buffers for the *_global tests. */
static _Alignas(4096) char gsrc[GBUF_BYTES];
static _Alignas(4096) char gbuf[GBUF_BYTES];

static struct {
    size_t min_size, max_size;
    long iters, window;
    const char *csv, *json;
    int quiet;
    size_t table;
    int osu, iters_set, max_set; /* --osu; --iters, --max-size given */
} opt = {1, 4 * MiB, 10000, 64, NULL, NULL, 0, 1024 * MiB, 0, 0, 0};

static int me, npes;
static int errors;
static char impl[SHMEM_MAX_NAME_LEN + 1];

typedef struct { char test[32], row[32]; size_t size; double value; const char *unit; } result_t;
static result_t *results; /* PE 0 only */
static size_t nresults, cresults;

static inline double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Run the body W times untimed, then N times timed; elapsed microseconds -> T. */
#define TIME_LOOP(T, W, N, ...)                                          \
    do {                                                                 \
        long i_;                                                         \
        for (i_ = 0; i_ < (W); i_++) { __VA_ARGS__; }                    \
        double t0_ = now_us();                                           \
        for (i_ = 0; i_ < (N); i_++) { __VA_ARGS__; }                    \
        (T) = now_us() - t0_;                                            \
    } while (0)

/* ---------------------------------------------------------------- output */

static void record(const char *test, const char *row, size_t size, double v,
                   const char *unit)
{
    if (me != 0)
        return;
    if (nresults == cresults) {
        cresults = cresults ? 2 * cresults : 64;
        results = realloc(results, cresults * sizeof *results);
        if (!results) {
            perror("symm-bench: realloc");
            shmem_global_exit(1);
        }
    }
    result_t *r = &results[nresults++];
    snprintf(r->test, sizeof r->test, "%s", test);
    if (row)
        snprintf(r->row, sizeof r->row, "%s", row);
    else
        snprintf(r->row, sizeof r->row, "%zu", size);
    r->size = size, r->value = v, r->unit = unit;
}

static void header(const char *test, const char *what, const char *cols)
{
    if (me != 0 || opt.quiet)
        return;
    printf("\n# symm-bench %s  (impl: %s, %d PEs%s%s)\n%s\n", test, impl, npes,
           what ? ", " : "", what ? what : "", cols);
    fflush(stdout);
}

static void row_lat(const char *test, size_t s, double us)
{
    record(test, NULL, s, us, "us");
    if (me == 0) {
        printf("%-12zu%16.3f\n", s, us);
        fflush(stdout);
    }
}

static void row_named(const char *test, const char *name, size_t s, double us)
{
    record(test, name, s, us, "us");
    if (me == 0) {
        printf("%-16s%12.3f\n", name, us);
        fflush(stdout);
    }
}

/* "skipped:" is what bench/compare.sh greps for; printed even with --quiet. */
static void skipped(const char *test, const char *why)
{
    if (me == 0) {
        printf("\n# symm-bench %s  skipped: %s\n", test, why);
        fflush(stdout);
    }
}

/* Why a test is missing: symm announces families one by one, others by version. */
#if defined(SYMM_VERSION_STRING)
#define MISSING(what) "this symm has no " what " yet"
#else
#define MISSING(what) "needs OpenSHMEM 1.5 (" what ")"
#endif

static void fail(const char *test, size_t s, const char *what, long got, long want)
{
    errors++;
    fprintf(stderr, "symm-bench: PE %d: %s size %zu: VALIDATION FAILED: %s = %ld, "
            "expected %ld\n", me, test, s, what, got, want);
}

static void clean(char *s) /* for CSV/JSON: drop commas, quotes, backslashes */
{
    for (; *s; s++)
        if (*s == ',' || *s == '"' || *s == '\\' || !isprint((unsigned char)*s))
            *s = ' ';
}

static FILE *open_out(const char *path)
{
    FILE *f = path ? fopen(path, "w") : NULL;
    if (path && !f) {
        perror(path);
        errors++;
    }
    return f;
}

static void write_files(void)
{
    FILE *f;
    if (me == 0 && (f = open_out(opt.csv))) {
        fprintf(f, "impl,npes,test,row,size,value,unit\n");
        for (const result_t *r = results; r < results + nresults; r++)
            fprintf(f, "%s,%d,%s,%s,%zu,%.6g,%s\n", impl, npes, r->test, r->row, r->size,
                    r->value, r->unit);
        fclose(f);
    }
    if (me == 0 && (f = open_out(opt.json))) {
        fprintf(f, "{\"impl\": \"%s\", \"npes\": %d, \"results\": [", impl, npes);
        for (const result_t *r = results; r < results + nresults; r++)
            fprintf(f, "%s\n  {\"test\": \"%s\", \"row\": \"%s\", \"size\": %zu, "
                    "\"value\": %.6g, \"unit\": \"%s\"}", r == results ? "" : ",",
                    r->test, r->row, r->size, r->value, r->unit);
        fprintf(f, "\n]}\n");
        fclose(f);
    }
}

/* ----------------------------------------------------------- iterations */

static long lat_iters(size_t s)
{
    long n = opt.iters;
    if (s > 64 * KiB) {
        n = (long)((double)opt.iters * (double)(64 * KiB) / (double)s);
        if (n < 10)
            n = opt.iters < 10 ? opt.iters : 10;
    }
    return n;
}

static long warm_of(long n) { return n / 10 > 0 ? n / 10 : 1; }

static void *sym_alloc(size_t bytes)
{
    void *p = shmem_align(4096, bytes ? bytes : 1);
    if (!p) {
        if (me == 0)
            fprintf(stderr, "symm-bench: shmem_align(%zu) failed (symmetric heap too "
                    "small? see SHMEM_SYMMETRIC_SIZE)\n", bytes);
        shmem_global_exit(1);
    }
    memset(p, 0, bytes); /* prefault */
    return p;
}

static inline unsigned char pat(int pe, size_t i) { return (unsigned char)(pe * 31 + i * 7 + 1); }

/* Fill src with pat(0,.) and zero dst on every PE (prefaults both), then barrier. */
static void prepare(char *src, char *dst, size_t s)
{
    for (size_t i = 0; i < s; i++)
        src[i] = (char)pat(0, i);
    memset(dst, 0, s);
    shmem_barrier_all();
}

static void check_bytes(const char *test, const char *buf, size_t s, int pe, size_t off)
{
    size_t idx[3] = { 0, s / 2, s - 1 };
    for (int k = 0; k < 3; k++) {
        unsigned char got = (unsigned char)buf[idx[k]], want = pat(pe, off + idx[k]);
        if (got != want) {
            fail(test, s, "byte", got, want);
            return;
        }
    }
}

/* --------------------------------------------- --osu: OSU's iterations */

/* OSU's boundary between small and large: bytes for put/get, 32-bit
 * elements for the collectives. */
#define OSU_LARGE 8192

/* OSU's timed count for a size, or --iters N at every size (OSU's -i). */
static long osu_iters(long osu_n) { return opt.iters_set ? opt.iters : osu_n; }

/* The header's "what", with ", osu method" appended under --osu. */
static const char *osu_what(const char *what)
{
    static char buf[96];
    if (!opt.osu)
        return what;
    snprintf(buf, sizeof buf, "%s%sosu method", what ? what : "", what ? ", " : "");
    return buf;
}

#if HAVE_ACTIVE_COLL
/* Each PE's mean time -> PE 0 (times: symmetric, npes doubles), which records
 * the average over PEs and prints it with the min and max of the means; the
 * row is named by NAME, or by the size S when NAME is NULL. */
static void pe_stats_row(const char *test, const char *name, size_t s, double mean,
                         double *times)
{
    shmem_double_p(&times[me], mean, 0);
    shmem_barrier_all();
    if (me == 0) {
        double sum = 0, mn = times[0], mx = times[0];
        for (int p = 0; p < npes; p++) {
            sum += times[p];
            mn = times[p] < mn ? times[p] : mn;
            mx = times[p] > mx ? times[p] : mx;
        }
        record(test, name, s, sum / npes, "us");
        if (name)
            printf("%-12s%15.3f%18.3f%18.3f\n", name, sum / npes, mn, mx);
        else
            printf("%-10zu%17.3f%18.3f%18.3f\n", s, sum / npes, mn, mx);
        fflush(stdout);
    }
    shmem_barrier_all();
}
#endif

/* ------------------------------------------------------ point to point */

/* MEMCPY: the reference a put is compared with: a single-core memcpy
 * between two private buffers of PE 0, timed in the same loop. */
enum { PUT, GET, MEMCPY };

static void pt2pt_lat(const char *test, int op, char *src, char *dst, size_t cap,
                      const char *where)
{
    size_t hi = opt.max_size < cap ? opt.max_size : cap;
    header(test, osu_what(where), "# Size        Latency (us)");
    for (size_t s = opt.min_size; s <= hi; s *= 2) {
        long n = lat_iters(s), w = warm_of(n);
        double t = 0;
        if (opt.osu) { /* prepare writes every byte of both, as OSU's touch */
            n = osu_iters(s > OSU_LARGE ? 100 : 10000);
            w = s > OSU_LARGE ? 0 : 1000;
        }
        prepare(src, dst, s);
        if (me == 0 && op == PUT)
            TIME_LOOP(t, w, n, shmem_putmem(dst, src, s, 1); shmem_quiet());
        else if (me == 0)
            TIME_LOOP(t, w, n, shmem_getmem(dst, src, s, 1));
        shmem_barrier_all();
        if (me == (op == PUT ? 1 : 0))
            check_bytes(test, dst, s, 0, 0);
        row_lat(test, s, t / (double)n);
    }
}

static void pt2pt_bw(const char *test, int op, char *src, char *dst, size_t cap,
                     const char *where)
{
    size_t hi = opt.max_size < cap ? opt.max_size : cap;
    const long win = opt.window;
    header(test, where, "# Size        Bandwidth (MB/s)      Messages/s");
    for (size_t s = opt.min_size; s <= hi; s *= 2) {
        long nw = lat_iters(s) * 3 / win, j;
        if (nw < 2)
            nw = 2;
        long w = warm_of(nw);
        double t = 0;
        prepare(src, dst, s);
        if (me == 0 && op == PUT)
            TIME_LOOP(t, w, nw, for (j = 0; j < win; j++) shmem_putmem_nbi(dst, src, s, 1);
                      shmem_quiet());
        else if (me == 0 && op == GET)
            TIME_LOOP(t, w, nw, for (j = 0; j < win; j++) shmem_getmem_nbi(dst, src, s, 1);
                      shmem_quiet());
        else if (me == 0)
            TIME_LOOP(t, w, nw, for (j = 0; j < win; j++) {
                memcpy(dst, src, s);
                __asm__ __volatile__("" ::: "memory");
            });
        shmem_barrier_all();
        if (op != MEMCPY && me == (op == PUT ? 1 : 0))
            check_bytes(test, dst, s, 0, 0);
        double msgs = (double)nw * (double)win;
        double mbps = (double)s * msgs / t; /* bytes/us == MB/s */
        double rate = msgs / t * 1e6;
        record(test, NULL, s, mbps, "MB/s");
        record(test, NULL, s, rate, "msgs/s");
        if (me == 0) {
            printf("%-12zu%18.2f%16.0f\n", s, mbps, rate);
            fflush(stdout);
        }
    }
}

typedef void pt2pt_fn(const char *, int, char *, char *, size_t, const char *);

static void heap_pt2pt(const char *test, int op, pt2pt_fn *fn)
{
    char *src = sym_alloc(opt.max_size), *dst = sym_alloc(opt.max_size);
    fn(test, op, src, dst, opt.max_size, "heap");
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
}

static void private_pt2pt(const char *test, int op, pt2pt_fn *fn)
{
    char *src = malloc(opt.max_size), *dst = malloc(opt.max_size);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "symm-bench: out of memory\n");
        shmem_global_exit(2);
    }
    memset(src, 1, opt.max_size);
    memset(dst, 0, opt.max_size);
    fn(test, op, src, dst, opt.max_size, "private memcpy, PE 0");
    free(dst);
    free(src);
}

static void global_pt2pt(const char *test, int op, pt2pt_fn *fn)
{
    memset(gsrc, 0, sizeof gsrc); /* prefault */
    memset(gbuf, 0, sizeof gbuf);
    fn(test, op, gsrc, gbuf, GBUF_BYTES, "global");
}

/* Single-element p/g and the atomics: the body is timed on PE 0 only. */
#define TIMED(name, ...)                                                 \
    do {                                                                 \
        double t_ = 0;                                                   \
        if (me == 0)                                                     \
            TIME_LOOP(t_, w, n, __VA_ARGS__);                            \
        shmem_barrier_all();                                             \
        row_named(test, name, sizeof(long), t_ / (double)n);             \
    } while (0)

static void pg_lat(const char *test, int op)
{
    long *x = sym_alloc(sizeof(long));
    long n = opt.iters, w = warm_of(n);
    volatile long sink = 0;
    header(test, "8-byte long", "# Op            Latency (us)");
    *x = 42;
    shmem_barrier_all();
    if (op == PUT)
        TIMED("shmem_long_p", shmem_long_p(x, 42, 1); shmem_quiet());
    else
        TIMED("shmem_long_g", sink += shmem_long_g(x, 1));
    (void)sink;
    shmem_free(x);
}

/* ------------------------------------------------------------- atomics */

#if HAVE_AMO
/* Per-op time on PE 0 of a fetching op, or of a non-fetching op followed by
 * shmem_quiet (a completed round trip): microseconds -> T. */
#define AMO_LAT(T, ...)                                                  \
    do {                                                                 \
        (T) = 0;                                                         \
        if (me == 0) {                                                   \
            TIME_LOOP(T, w, n, __VA_ARGS__);                             \
            (T) /= (double)n;                                            \
        }                                                                \
    } while (0)

/* Per-op issue time of a non-fetching op without the per-op quiet: n ops,
 * then one shmem_quiet, all timed (the warm-up is quieted before t0). */
#define AMO_ISSUE(T, ...)                                                \
    do {                                                                 \
        (T) = 0;                                                         \
        if (me == 0) {                                                   \
            long i_;                                                     \
            for (i_ = 0; i_ < w; i_++) { __VA_ARGS__; }                  \
            shmem_quiet();                                               \
            double t0_ = now_us();                                       \
            for (i_ = 0; i_ < n; i_++) { __VA_ARGS__; }                  \
            shmem_quiet();                                               \
            (T) = (now_us() - t0_) / (double)n;                          \
        }                                                                \
    } while (0)

/* One atomic_lat row; issue < 0: a fetching op (no issue column). */
static void amo_row(const char *name, double lat, double issue)
{
    char r[32];
    record("atomic_lat", name, sizeof(long), lat, "us");
    if (issue >= 0) {
        snprintf(r, sizeof r, "%s_issue", name);
        record("atomic_lat", r, sizeof(long), issue, "us");
    }
    if (me == 0) {
        if (issue >= 0)
            printf("%-16s%12.3f%16.3f\n", name, lat, issue);
        else
            printf("%-16s%12.3f%16s\n", name, lat, "-");
        fflush(stdout);
    }
}

/* After a barrier, PE 1 checks the target word against the value every PE
 * computed for it (the op sequence is deterministic). */
static void amo_check(const char *test, const char *what, const long *x, long want)
{
    shmem_barrier_all();
    if (me == 1 && *x != want)
        fail(test, sizeof(long), what, *x, want);
    shmem_barrier_all(); /* PE 0 must not start the next op before PE 1 read */
}

static void amo_ucheck(const char *test, const char *what, const unsigned long *x,
                       unsigned long want)
{
    shmem_barrier_all();
    if (me == 1 && *x != want)
        fail(test, sizeof(long), what, (long)*x, (long)want);
    shmem_barrier_all();
}

/* Operands of the timed bitwise loops (k counts the ops of one family). */
static inline unsigned long and_opnd(unsigned long k) { return ~(1UL << (k & 63)); }
static inline unsigned long or_opnd(unsigned long k) { return 1UL << ((k * 7) & 63); }
static inline unsigned long xor_opnd(unsigned long k) { return (k + 1) * 0x9E3779B1UL; }

enum { AND, OR, XOR };

static unsigned long bit_model(int op, unsigned long u, unsigned long count)
{
    for (unsigned long k = 0; k < count; k++)
        u = op == AND ? u & and_opnd(k) : op == OR ? u | or_opnd(k) : u ^ xor_opnd(k);
    return u;
}

/* Untimed semantic check on PE 0 against a local model: the value each
 * fetching op returns, and the target after each non-fetching op (fetched
 * after a quiet).  Stops at the first mismatch of each part. */
#define VCHK(what, got, want)                                                    \
    do {                                                                         \
        long g_ = (long)(got), w_ = (long)(want);                                \
        if (g_ != w_) {                                                          \
            fail(test, sizeof(long), "validate " what, g_, w_);                  \
            return;                                                              \
        }                                                                        \
    } while (0)

static void amo_validate_long(const char *test, long *x)
{
    shmem_long_atomic_set(x, 5, 1);
    shmem_quiet();
    VCHK("set/fetch", shmem_long_atomic_fetch(x, 1), 5);
    VCHK("compare_swap (no match)", shmem_long_atomic_compare_swap(x, 4, 9, 1), 5);
    VCHK("compare_swap (match)", shmem_long_atomic_compare_swap(x, 5, 9, 1), 5);
    VCHK("swap", shmem_long_atomic_swap(x, 3, 1), 9);
    VCHK("fetch_inc", shmem_long_atomic_fetch_inc(x, 1), 3);
    VCHK("fetch_add", shmem_long_atomic_fetch_add(x, -10, 1), 4);
    shmem_long_atomic_inc(x, 1);
    shmem_long_atomic_add(x, -2, 1);
    shmem_quiet();
    VCHK("inc/add", shmem_long_atomic_fetch(x, 1), -7);
}

static void amo_validate_bits(const char *test, unsigned long *ux)
{
    static const char *const after[] = {
        "validate target after fetch_and", "validate target after fetch_or",
        "validate target after fetch_xor", "validate target after and",
        "validate target after or", "validate target after xor" };
    unsigned long u = 0x0123456789abcdefUL, m = 0x2545F4914F6CDD1DUL, o, r;
    shmem_ulong_atomic_set(ux, u, 1);
    shmem_quiet();
    for (int k = 0; k < 96; k++) {
        m = m * 6364136223846793005UL + 1442695040888963407UL; /* LCG */
        o = k % 4 == 0 ? m >> 3 : m;                            /* vary density */
        switch (k % 6) {
        case 0:
            VCHK("fetch_and returned", shmem_ulong_atomic_fetch_and(ux, o, 1), u);
            u &= o;
            break;
        case 1:
            VCHK("fetch_or returned", shmem_ulong_atomic_fetch_or(ux, o, 1), u);
            u |= o;
            break;
        case 2:
            VCHK("fetch_xor returned", shmem_ulong_atomic_fetch_xor(ux, o, 1), u);
            u ^= o;
            break;
        case 3: shmem_ulong_atomic_and(ux, o, 1); u &= o; break;
        case 4: shmem_ulong_atomic_or(ux, o, 1); u |= o; break;
        default: shmem_ulong_atomic_xor(ux, o, 1); u ^= o; break;
        }
        shmem_quiet();
        if ((r = shmem_ulong_atomic_fetch(ux, 1)) != u) {
            fail(test, sizeof(long), after[k % 6], (long)r, (long)u);
            return;
        }
    }
}
#undef VCHK

static void atomic_lat(void)
{
    const char *test = "atomic_lat";
    long *x = sym_alloc(sizeof(long));
    unsigned long *ux = sym_alloc(sizeof(unsigned long));
    const long n = opt.iters, w = warm_of(n), c = n + w, S = 1000;
    long v = 0;
    unsigned long k = 0, u;
    volatile long sink = 0;
    volatile unsigned long usink = 0;
    double t, ti;
    header(test, "long; bitwise: unsigned long",
           "# Op            Latency (us)  Issue, no quiet (us)");
    shmem_barrier_all();

    AMO_LAT(t, sink += shmem_long_atomic_fetch(x, 1));
    amo_row("fetch", t, -1);
    amo_check(test, "value after fetch", x, 0);

    AMO_LAT(t, shmem_long_atomic_set(x, S, 1); shmem_quiet());
    AMO_ISSUE(ti, shmem_long_atomic_set(x, S, 1));
    amo_row("set", t, ti);
    amo_check(test, "value after set", x, S);

    v = S; /* every compare_swap matches and stores v + 1 */
    AMO_LAT(t, sink += shmem_long_atomic_compare_swap(x, v, v + 1, 1); v++);
    amo_row("compare_swap", t, -1);
    amo_check(test, "value after compare_swap", x, S + c);

    v = S + c;
    AMO_LAT(t, sink += shmem_long_atomic_swap(x, ++v, 1));
    amo_row("swap", t, -1);
    v = S + 2 * c;
    amo_check(test, "value after swap", x, v);

    AMO_LAT(t, sink += shmem_long_atomic_fetch_inc(x, 1));
    amo_row("fetch_inc", t, -1);
    amo_check(test, "counter after fetch_inc", x, v += c);

    AMO_LAT(t, shmem_long_atomic_inc(x, 1); shmem_quiet());
    AMO_ISSUE(ti, shmem_long_atomic_inc(x, 1));
    amo_row("inc", t, ti);
    amo_check(test, "counter after inc", x, v += 2 * c);

    AMO_LAT(t, sink += shmem_long_atomic_fetch_add(x, 1, 1));
    amo_row("fetch_add", t, -1);
    amo_check(test, "counter after fetch_add", x, v += c);

    AMO_LAT(t, shmem_long_atomic_add(x, 1, 1); shmem_quiet());
    AMO_ISSUE(ti, shmem_long_atomic_add(x, 1, 1));
    amo_row("add", t, ti);
    amo_check(test, "counter after add", x, v += 2 * c);

    /* Bitwise: k counts the ops of one family across its loops; PE 1 checks
     * the target against bit_model replaying the same operands. */
    u = ~0UL;
    *ux = u;
    shmem_barrier_all();
    k = 0;
    AMO_LAT(t, usink += shmem_ulong_atomic_fetch_and(ux, and_opnd(k), 1); k++);
    amo_row("fetch_and", t, -1);
    AMO_LAT(t, shmem_ulong_atomic_and(ux, and_opnd(k), 1); k++; shmem_quiet());
    AMO_ISSUE(ti, shmem_ulong_atomic_and(ux, and_opnd(k), 1); k++);
    amo_row("and", t, ti);
    amo_ucheck(test, "value after fetch_and/and", ux, u = bit_model(AND, u, 3 * (unsigned long)c));

    k = 0;
    AMO_LAT(t, usink += shmem_ulong_atomic_fetch_or(ux, or_opnd(k), 1); k++);
    amo_row("fetch_or", t, -1);
    AMO_LAT(t, shmem_ulong_atomic_or(ux, or_opnd(k), 1); k++; shmem_quiet());
    AMO_ISSUE(ti, shmem_ulong_atomic_or(ux, or_opnd(k), 1); k++);
    amo_row("or", t, ti);
    amo_ucheck(test, "value after fetch_or/or", ux, u = bit_model(OR, u, 3 * (unsigned long)c));

    k = 0;
    AMO_LAT(t, usink += shmem_ulong_atomic_fetch_xor(ux, xor_opnd(k), 1); k++);
    amo_row("fetch_xor", t, -1);
    AMO_LAT(t, shmem_ulong_atomic_xor(ux, xor_opnd(k), 1); k++; shmem_quiet());
    AMO_ISSUE(ti, shmem_ulong_atomic_xor(ux, xor_opnd(k), 1); k++);
    amo_row("xor", t, ti);
    amo_ucheck(test, "value after fetch_xor/xor", ux, u = bit_model(XOR, u, 3 * (unsigned long)c));

    if (me == 0) {
        amo_validate_long(test, x);
        amo_validate_bits(test, ux);
    }
    shmem_barrier_all();
    (void)sink;
    (void)usink;
    shmem_free(ux);
    shmem_free(x);
}

/* Message rate, as OSU osu_oshm_atomics but PE 0 -> PE 1 with a window:
 * loops of { W ops; shmem_quiet }, ~10N ops in all. */
static void atomic_rate(void)
{
    const char *test = "atomic_rate";
    long *x = sym_alloc(sizeof(long));
    const long win = opt.window;
    long nw = opt.iters * 10 / win, j, v = 0, want = 0;
    if (nw < 2)
        nw = 2;
    const long w = warm_of(nw), c = (w + nw) * win;
    volatile long sink = 0;
    char what[32];
    snprintf(what, sizeof what, "long, %ld ops per quiet", win);
    header(test, what, "# Op                   Ops/s     Time/op (us)");
    shmem_barrier_all();
    for (int op = 0; op < 4; op++) {
        static const char *const names[] = { "fetch_add", "add", "compare_swap", "inc" };
        double t = 0;
        v = want; /* compare_swap: every one matches and stores v + 1 */
        if (me == 0 && op == 0)
            TIME_LOOP(t, w, nw, for (j = 0; j < win; j++)
                          sink += shmem_long_atomic_fetch_add(x, 1, 1);
                      shmem_quiet());
        else if (me == 0 && op == 1)
            TIME_LOOP(t, w, nw, for (j = 0; j < win; j++) shmem_long_atomic_add(x, 1, 1);
                      shmem_quiet());
        else if (me == 0 && op == 2)
            TIME_LOOP(t, w, nw, for (j = 0; j < win; j++) {
                sink += shmem_long_atomic_compare_swap(x, v, v + 1, 1);
                v++;
            } shmem_quiet());
        else if (me == 0)
            TIME_LOOP(t, w, nw, for (j = 0; j < win; j++) shmem_long_atomic_inc(x, 1);
                      shmem_quiet());
        want += c;
        snprintf(what, sizeof what, "counter after %s", names[op]);
        amo_check(test, what, x, want);
        double ops = (double)nw * (double)win, rate = ops / t * 1e6;
        record(test, names[op], sizeof(long), rate, "ops/s");
        if (me == 0) {
            printf("%-16s%14.0f%17.4f\n", names[op], rate, t / ops);
            fflush(stdout);
        }
    }
    (void)sink;
    shmem_barrier_all();
    shmem_free(x);
}
#endif /* HAVE_AMO */

#if HAVE_AMO
/* gups: HPCC RandomAccess's stream (x <- x << 1 ^ (x < 0 ? POLY : 0)), each
 * value choosing a PE and a long of its table and xored into it. */
#define GUPS_POLY 0x0000000000000007UL
static unsigned long gups_next(unsigned long x)
{
    return (x << 1) ^ ((long)x < 0 ? GUPS_POLY : 0);
}

static void gups_pass(unsigned long *t, size_t n, long count, unsigned long seed)
{
    unsigned long x = seed;
    for (long i = 0; i < count; i++) {
        x = gups_next(x);
        int pe = (int)((x >> 40) % (unsigned long)npes);
        shmem_ulong_atomic_xor(&t[x % n], x, pe);
        if ((i + 1) % opt.window == 0)
            shmem_quiet();
    }
    shmem_quiet();
}

static void gups(void)
{
    const char *test = "gups";
    size_t n = opt.table / sizeof(unsigned long);
    unsigned long *t = sym_alloc(n * sizeof(unsigned long));
    long count = opt.iters * 10;
    char what[64];
    for (size_t i = 0; i < n; i++)
        t[i] = i;
    snprintf(what, sizeof what, "%zu MiB table per PE, %ld updates per PE", opt.table >> 20, count);
    header(test, what, "# Updates/s (all PEs)    Time/update per PE (us)");
    unsigned long seed = 0x9e3779b97f4a7c15UL * (unsigned long)(me + 1);
    /* Every page of every mapped peer's table touched once through this
     * process's mapping first: the timed pass measures the TLB, not the
     * first-touch faults of pages this process never mapped. */
    volatile unsigned long sink = 0;
    for (int pe = 0; pe < npes; pe++) {
        const unsigned long *q = shmem_ptr(t, pe);
        for (size_t i = 0; q != NULL && i < n; i += 4096 / sizeof(unsigned long))
            sink += q[i];
    }
    (void)sink;
    shmem_barrier_all();
    gups_pass(t, n, count / 10 + 1, seed ^ 1); /* warm-up, undone below */
    gups_pass(t, n, count / 10 + 1, seed ^ 1);
    shmem_barrier_all();
    double t0 = now_us();
    gups_pass(t, n, count, seed);
    shmem_barrier_all();
    double us = now_us() - t0;
    gups_pass(t, n, count, seed); /* xor again: every long back to its start */
    shmem_barrier_all();
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += t[i] != i;
    if (bad) {
        fprintf(stderr, "symm-bench: gups: PE %d: %ld longs not back to their start\n", me, bad);
        errors++;
    }
    double rate = (double)count * npes / us * 1e6;
    record(test, "xor", opt.table, rate, "updates/s");
    if (me == 0) {
        printf("%-22.0f%20.4f\n", rate, us / (double)count);
        fflush(stdout);
    }
    shmem_free(t);
}
#endif /* HAVE_AMO */

#if HAVE_LOCK
/* Uncontended: PE 0 alone loops on the lock, the others wait in a barrier.
 * Contended: every PE loops { set_lock; g + p of a counter on PE 0;
 * clear_lock } (clear_lock quiets the p); per-PE mean gathered on PE 0. */
static void lock_lat(void)
{
    const char *test = "lock";
    long *lk = sym_alloc(sizeof(long)), *cnt = sym_alloc(sizeof(long));
    double *times = sym_alloc((size_t)npes * sizeof(double));
    const long n = opt.iters, w = warm_of(n);
    const long nc = n / 10 > 10 ? n / 10 : 10, wc = warm_of(nc);
    long bad = 0, i;
    double t = 0;
    header(test, "symmetric long lock word", "# Op            Latency (us)");
    shmem_barrier_all();

    if (me == 0)
        TIME_LOOP(t, w, n, shmem_set_lock(lk); shmem_clear_lock(lk));
    shmem_barrier_all();
    row_named(test, "set+clear", sizeof(long), t / (double)n);

    if (me == 0)
        TIME_LOOP(t, w, n, if (shmem_test_lock(lk)) bad++; else shmem_clear_lock(lk));
    shmem_barrier_all();
    if (bad)
        fail(test, sizeof(long), "uncontended test_lock failures", bad, 0);
    row_named(test, "test+clear", sizeof(long), t / (double)n);

    for (i = 0; i < wc; i++) {
        shmem_set_lock(lk);
        shmem_long_p(cnt, shmem_long_g(cnt, 0) + 1, 0);
        shmem_clear_lock(lk);
    }
    shmem_barrier_all();
    if (me == 0)
        *cnt = 0;
    shmem_barrier_all();
    double t0 = now_us();
    for (i = 0; i < nc; i++) {
        shmem_set_lock(lk);
        shmem_long_p(cnt, shmem_long_g(cnt, 0) + 1, 0);
        shmem_clear_lock(lk);
    }
    t = now_us() - t0;
    shmem_double_p(&times[me], t / (double)nc, 0);
    shmem_barrier_all();
    if (me == 0) {
        double sum = 0, mn = times[0], mx = times[0];
        for (int p = 0; p < npes; p++) {
            sum += times[p];
            mn = times[p] < mn ? times[p] : mn;
            mx = times[p] > mx ? times[p] : mx;
        }
        if (*cnt != (long)npes * nc)
            fail(test, sizeof(long), "contended counter", *cnt, (long)npes * nc);
        record(test, "contended", sizeof(long), sum / npes, "us");
        printf("%-16s%12.3f   (per PE: min %.3f, max %.3f; %d PEs x %ld)\n", "contended",
               sum / npes, mn, mx, npes, nc);
        fflush(stdout);
    }
    shmem_barrier_all();
    shmem_free(times);
    shmem_free(cnt);
    shmem_free(lk);
}
#endif /* HAVE_LOCK */

/* 1.4 ping-pong of one long: PE 0 shmem_long_p's i into PE 1's flag and
 * waits until its own flag is i, which PE 1 puts back after seeing i. */
static void pingpong(void)
{
    const char *test = "pingpong";
    long *flag = sym_alloc(sizeof(long));
    const long n = opt.iters, w = warm_of(n);
    long i;
    double t0 = 0, t = 0;
    header(test, "long p + wait_until ping-pong, half round trip",
           "# Size        Latency (us)");
    shmem_barrier_all();
    if (me == 0) {
        for (i = 1; i <= w + n; i++) {
            if (i == w + 1)
                t0 = now_us();
            shmem_long_p(flag, i, 1);
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, i);
        }
        t = now_us() - t0;
    } else if (me == 1) {
        for (i = 1; i <= w + n; i++) {
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, i);
            shmem_long_p(flag, i, 0);
        }
    }
    shmem_barrier_all();
    if (me <= 1 && *flag != w + n)
        fail(test, sizeof(long), "flag", *flag, w + n);
    row_lat(test, sizeof(long), t / (2.0 * (double)n));
    shmem_free(flag);
}

static void barrier_lat(void)
{
    const char *test = "barrier";
    long n = opt.iters / 10 > 10 ? opt.iters / 10 : 10, w = warm_of(n);
    double t;
    header(test, NULL, "# Routine       Latency (us)");
    shmem_barrier_all();
    TIME_LOOP(t, w, n, shmem_barrier_all());
    row_named(test, "barrier_all", 0, t / (double)n);
    shmem_barrier_all();
    TIME_LOOP(t, w, n, shmem_sync_all());
    row_named(test, "sync_all", 0, t / (double)n);
    shmem_barrier_all();
}

/* --------------------------------------------------------- collectives */

enum { BCAST, COLLECT, FCOLLECT, ALLTOALL, REDUCE };

#if HAVE_ACTIVE_COLL
static void coll_check(const char *test, int kind, const char *dst, size_t s)
{
    if (kind == BCAST) {
        check_bytes(test, dst, s, 0, 0);
    } else if (kind == COLLECT || kind == FCOLLECT) {
        for (int p = 0; p < npes; p++)
            check_bytes(test, dst + (size_t)p * s, s, p, 0);
    } else if (kind == ALLTOALL) {
        for (int p = 0; p < npes; p++)
            check_bytes(test, dst + (size_t)p * s, s, p, (size_t)me * s);
    } else {
        /* sum over PEs of (me + k): exact in double for these sizes */
        const double *d = (const double *)(const void *)dst;
        size_t k = s / sizeof(double) - 1;
        long want0 = (long)npes * (npes - 1) / 2, wantk = want0 + (long)npes * (long)k;
        if (d[0] != (double)want0)
            fail(test, s, "sum[0]", (long)d[0], want0);
        if (d[k] != (double)wantk)
            fail(test, s, "sum[last]", (long)d[k], wantk);
    }
}

#endif

#if HAVE_COLL
static long coll_iters(size_t s) { long n = lat_iters(s) / 10; return n < 5 ? 5 : n; }

/* Time each call alone; barrier between calls; per-PE mean gathered on PE 0. */
#define COLL_LOOP(stmt)                                                  \
    do {                                                                 \
        for (i = 0; i < w; i++) {                                        \
            rc |= (stmt);                                                \
            shmem_barrier_all();                                         \
        }                                                                \
        for (i = 0; i < n; i++) {                                        \
            double t0_ = now_us();                                       \
            rc |= (stmt);                                                \
            acc += now_us() - t0_;                                       \
            shmem_barrier_all();                                         \
        }                                                                \
    } while (0)

static void collective(const char *test, int kind)
{
    size_t min = kind == REDUCE ? sizeof(double) : 4;
    size_t lo = opt.min_size < min ? min : opt.min_size;
    size_t hi = opt.max_size;
    size_t np = (size_t)npes;
    size_t sbytes = (kind == ALLTOALL ? np : 1) * hi;
    size_t dbytes = (kind == BCAST || kind == REDUCE ? 1 : np) * hi;
    char *src = sym_alloc(sbytes), *dst = sym_alloc(dbytes);
    double *times = sym_alloc(np * sizeof(double));
    header(test, "bytes per PE",
           "# Size     Avg Latency (us)  Min Latency (us)  Max Latency (us)");
    for (size_t s = lo; s <= hi; s *= 2) {
        long n = coll_iters(s), w = warm_of(n), i;
        double acc = 0;
        int rc = 0;
        if (kind == REDUCE) {
            double *sd = (double *)(void *)src;
            for (size_t k = 0; k < s / sizeof(double); k++)
                sd[k] = (double)me + (double)k;
        } else {
            for (size_t k = 0; k < (kind == ALLTOALL ? np * s : s); k++)
                src[k] = (char)pat(me, k);
        }
        memset(dst, 0, dbytes);
        shmem_barrier_all();
        switch (kind) {
        case BCAST:
            COLL_LOOP(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, s, 0));
            break;
        case COLLECT:
            COLL_LOOP(shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, s));
            break;
        case FCOLLECT:
            COLL_LOOP(shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, s));
            break;
        case ALLTOALL:
            COLL_LOOP(shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, s));
            break;
        default:
            COLL_LOOP(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)(void *)dst,
                                              (const double *)(const void *)src,
                                              s / sizeof(double)));
            break;
        }
        if (rc)
            fail(test, s, "return code", rc, 0);
        coll_check(test, kind, dst, s);
        pe_stats_row(test, NULL, s, acc / (double)n, times);
    }
    shmem_free(times);
    shmem_free(dst);
    shmem_free(src);
}

#endif /* HAVE_COLL */

#if HAVE_ACTIVE_COLL
/* --osu: the active-set barrier and collectives over the whole world
 * (PE_start 0, logPE_stride 0, PE_size npes), alternating two pSync arrays
 * (and two pWrk arrays for reduce) as OSU does. */
#define OSU_PSYNC_LEN                                                    \
    (SHMEM_BARRIER_SYNC_SIZE + SHMEM_BCAST_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE + \
     SHMEM_REDUCE_SYNC_SIZE)
static long osu_psync[2][OSU_PSYNC_LEN]; /* static: symmetric */

static void osu_psync_init(void)
{
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < OSU_PSYNC_LEN; i++)
            osu_psync[k][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all(); /* every PE's pSync set before anyone uses it */
}

/* Each call timed alone, no barrier between calls: 10 untimed + 100. */
static void osu_barrier(void)
{
    const char *test = "barrier";
    double *times = sym_alloc((size_t)npes * sizeof(double));
    const long n = osu_iters(100), w = 10;
    header(test, osu_what("average over PEs"),
           "# Routine  Avg Latency (us)  Min Latency (us)  Max Latency (us)");
    osu_psync_init();
    for (int all = 0; all < 2; all++) {
        double acc = 0;
        for (long i = 0; i < w + n; i++) {
            double t0 = now_us();
            if (all)
                shmem_barrier_all();
            else
                shmem_barrier(0, 0, npes, osu_psync[i % 2]);
            double dt = now_us() - t0;
            if (i >= w)
                acc += dt;
        }
        pe_stats_row(test, all ? "barrier_all" : "barrier", 0, acc / (double)n, times);
    }
    shmem_free(times);
}

/* One timed call on NB bytes per PE of 32-bit elements (float for reduce),
 * with pSync (and pWrk) K; broadcast is in place, from PE 0. */
static double osu_call(int kind, char *dst, const char *src, size_t nb, int k, float *const *wrk)
{
    long *ps = osu_psync[k];
    size_t ne = nb / 4;
    float *fd = (float *)(void *)dst;
    const float *fs = (const float *)(const void *)src;
    double t0 = now_us();
    switch (kind) {
    case BCAST: shmem_broadcast32(dst, dst, ne, 0, 0, 0, npes, ps); break;
    case COLLECT: shmem_collect32(dst, src, ne, 0, 0, npes, ps); break;
    case FCOLLECT: shmem_fcollect32(dst, src, ne, 0, 0, npes, ps); break;
    default: shmem_float_sum_to_all(fd, fs, (int)ne, 0, 0, npes, wrk[k], ps); break;
    }
    return now_us() - t0;
}

/* Untimed: the inputs of one size (bcast: PE 0's dst), dst zeroed elsewhere. */
static void osu_fill(int kind, char *dst, char *src, size_t nb, size_t dbytes)
{
    memset(dst, 0, dbytes);
    if (kind == BCAST && me == 0) {
        for (size_t k = 0; k < nb; k++)
            dst[k] = (char)pat(0, k);
    } else if (kind == REDUCE) {
        float *f = (float *)(void *)src;
        for (size_t k = 0; k < nb / 4; k++)
            f[k] = (float)(me + (int)(k & 1023)); /* sums stay exact in float */
    } else if (kind != BCAST) {
        for (size_t k = 0; k < nb; k++)
            src[k] = (char)pat(me, k);
    }
    shmem_barrier_all();
}

static void osu_check(const char *test, int kind, const char *dst, size_t nb)
{
    if (kind != REDUCE) {
        coll_check(test, kind, dst, nb); /* collect32 of equal sizes: fcollect's layout */
        return;
    }
    const float *d = (const float *)(const void *)dst;
    size_t k = nb / 4 - 1;
    long want0 = (long)npes * (npes - 1) / 2, wantk = want0 + (long)npes * (long)(k & 1023);
    if (d[0] != (float)want0)
        fail(test, nb, "sum[0]", (long)d[0], want0);
    if (d[k] != (float)wantk)
        fail(test, nb, "sum[last]", (long)d[k], wantk);
}

/* OSU's collective loop: per size, w untimed + n timed calls, each followed
 * by an untimed shmem_barrier_all; sizes from 4 bytes per PE. */
static void osu_collective(const char *test, int kind)
{
    size_t lo = opt.min_size < 4 ? 4 : (opt.min_size + 3) & ~(size_t)3, hi = opt.max_size;
    size_t np = (size_t)npes, nwrk = hi / 8 + 1; /* pWrk: nreduce / 2 + 1 floats */
    size_t dbytes = (kind == COLLECT || kind == FCOLLECT ? np : 1) * hi;
    if (nwrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE)
        nwrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    char *src = sym_alloc(hi), *dst = sym_alloc(dbytes);
    float *wrk[2] = { sym_alloc(nwrk * sizeof(float)), sym_alloc(nwrk * sizeof(float)) };
    double *times = sym_alloc(np * sizeof(double));
    header(test, osu_what("bytes per PE"),
           "# Size     Avg Latency (us)  Min Latency (us)  Max Latency (us)");
    osu_psync_init();
    for (size_t s = lo; s <= hi; s *= 2) {
        int large = s / 4 > OSU_LARGE;
        long n = osu_iters(large ? 100 : 1000), w = large ? 10 : 200;
        double acc = 0;
        osu_fill(kind, dst, src, s, dbytes);
        for (long i = 0; i < w + n; i++) {
            double t = osu_call(kind, dst, src, s, (int)(i % 2), wrk);
            if (i >= w)
                acc += t;
            shmem_barrier_all();
        }
        osu_check(test, kind, dst, s);
        pe_stats_row(test, NULL, s, acc / (double)n, times);
    }
    shmem_free(times);
    shmem_free(wrk[1]);
    shmem_free(wrk[0]);
    shmem_free(dst);
    shmem_free(src);
}

/* The tests --osu changes here (put/get: in pt2pt_lat); 0 for the others. */
static int osu_run(const char *t)
{
    if (!strcmp(t, "barrier")) osu_barrier();
    else if (!strcmp(t, "bcast")) osu_collective(t, BCAST);
    else if (!strcmp(t, "collect")) osu_collective(t, COLLECT);
    else if (!strcmp(t, "fcollect")) osu_collective(t, FCOLLECT);
    else if (!strcmp(t, "reduce")) osu_collective(t, REDUCE);
    else return 0;
    return 1;
}
#endif /* HAVE_ACTIVE_COLL */

#if HAVE_SIGNAL
static void signal_lat(void)
{
    const char *test = "signal";
    size_t lo = opt.min_size < 8 ? 8 : opt.min_size;
    size_t hi = opt.max_size < 64 * KiB ? opt.max_size : 64 * KiB;
    char *src = sym_alloc(hi), *dst = sym_alloc(hi);
    uint64_t *sig = sym_alloc(sizeof(uint64_t));
    header(test, "putmem_signal ping-pong, half round trip", "# Size        Latency (us)");
    for (size_t s = lo; s <= hi; s *= 2) {
        long n = lat_iters(s), w = warm_of(n);
        uint64_t v = 0;
        double t0 = 0, t = 0;
        *sig = 0;
        prepare(src, dst, s);
        if (me == 0) {
            while (v < (uint64_t)(w + n)) {
                if (v == (uint64_t)w)
                    t0 = now_us();
                v++;
                shmem_putmem_signal(dst, src, s, sig, v, SHMEM_SIGNAL_SET, 1);
                shmem_signal_wait_until(sig, SHMEM_CMP_EQ, v);
            }
            t = now_us() - t0;
        } else if (me == 1) {
            while (v < (uint64_t)(w + n)) {
                v++;
                shmem_signal_wait_until(sig, SHMEM_CMP_EQ, v);
                shmem_putmem_signal(dst, src, s, sig, v, SHMEM_SIGNAL_SET, 0);
            }
        }
        shmem_barrier_all();
        if (me <= 1)
            check_bytes(test, dst, s, 0, 0);
        row_lat(test, s, t / (2.0 * (double)n));
    }
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(dst);
    shmem_free(src);
}
#endif /* HAVE_SIGNAL */

/* ----------------------------------------------------------------- main */

static const char *const tests[] = {
    "put_lat",       "get_lat",       "put_bw",    "get_bw",   "put_lat_global", "get_lat_global",
    "put_bw_global", "get_bw_global", "memcpy_bw", "p_lat",    "g_lat",          "atomic_lat",
    "atomic_rate",   "gups",          "lock",      "pingpong", "barrier",        "bcast",
    "collect",       "fcollect",      "alltoall",  "reduce",   "signal",         NULL};
static const char *const default_set[] = {
    "put_lat", "get_lat", "put_bw", "get_bw", "put_lat_global", "get_lat_global",
    "p_lat", "g_lat", "atomic_lat", "atomic_rate", "lock", "pingpong", "barrier", NULL
};

static void run_test(const char *t)
{
#if HAVE_ACTIVE_COLL
    if (opt.osu && osu_run(t))
        return;
#endif
    if (!strcmp(t, "put_lat")) heap_pt2pt(t, PUT, pt2pt_lat);
    else if (!strcmp(t, "get_lat")) heap_pt2pt(t, GET, pt2pt_lat);
    else if (!strcmp(t, "put_bw")) heap_pt2pt(t, PUT, pt2pt_bw);
    else if (!strcmp(t, "get_bw")) heap_pt2pt(t, GET, pt2pt_bw);
    else if (!strcmp(t, "put_lat_global")) global_pt2pt(t, PUT, pt2pt_lat);
    else if (!strcmp(t, "get_lat_global")) global_pt2pt(t, GET, pt2pt_lat);
    else if (!strcmp(t, "put_bw_global")) global_pt2pt(t, PUT, pt2pt_bw);
    else if (!strcmp(t, "get_bw_global")) global_pt2pt(t, GET, pt2pt_bw);
    else if (!strcmp(t, "memcpy_bw")) private_pt2pt(t, MEMCPY, pt2pt_bw);
    else if (!strcmp(t, "p_lat")) pg_lat(t, PUT);
    else if (!strcmp(t, "g_lat")) pg_lat(t, GET);
    else if (!strcmp(t, "pingpong")) pingpong();
    else if (!strcmp(t, "barrier")) barrier_lat();
#if HAVE_AMO
    else if (!strcmp(t, "atomic_lat")) atomic_lat();
    else if (!strcmp(t, "atomic_rate")) atomic_rate();
    else if (!strcmp(t, "gups"))
        gups();
#endif
#if HAVE_LOCK
    else if (!strcmp(t, "lock")) lock_lat();
#endif
#if HAVE_COLL
    else if (!strcmp(t, "bcast")) collective(t, BCAST);
    else if (!strcmp(t, "collect")) collective(t, COLLECT);
    else if (!strcmp(t, "fcollect")) collective(t, FCOLLECT);
    else if (!strcmp(t, "alltoall")) collective(t, ALLTOALL);
    else if (!strcmp(t, "reduce")) collective(t, REDUCE);
#endif
#if HAVE_SIGNAL
    else if (!strcmp(t, "signal")) signal_lat();
#endif
    else if (!strncmp(t, "atomic_", 7)) skipped(t, MISSING("atomics"));
    else if (!strcmp(t, "lock")) skipped(t, MISSING("locks"));
    else if (!strcmp(t, "signal")) skipped(t, MISSING("signals"));
    else skipped(t, MISSING("team collectives"));
}

static void usage(FILE *f)
{
    fprintf(f, "usage: symm-bench [options] [test ...]   (under a launcher, >= 2 PEs)\n"
               "tests: put_lat get_lat put_bw get_bw put_lat_global get_lat_global\n"
               "       put_bw_global get_bw_global p_lat g_lat barrier\n"
               "       atomic_lat atomic_rate lock   (1.4 atomics and locks)\n"
               "       gups       (random xor updates over a --table bytes table per PE)\n"
               "       pingpong   (long p + wait_until ping-pong: the reference for signal)\n"
               "       memcpy_bw  (reference: single-core memcpy on PE 0, no communication)\n"
               "       bcast collect fcollect alltoall reduce signal   (1.5 only)\n"
               "       all  = put_lat get_lat put_bw get_bw put_lat_global get_lat_global\n"
               "              p_lat g_lat atomic_lat atomic_rate lock pingpong barrier\n"
               "              (the default)\n"
               "       coll = bcast collect fcollect alltoall reduce\n"
               "options:\n"
               "  --min-size B   smallest message (default 1; K/M/G suffixes)\n"
               "  --max-size B   largest message (default 4M); sizes double from min\n"
               "                 (collectives: 8..1M per PE, signal: 8..64K, clipped)\n"
               "  --iters N      iterations for sizes <= 64K (default 10000)\n"
               "  --window W     operations per quiet in *_bw and atomic_rate (default 64)\n"
               "  --table B      gups: table bytes per PE (default 1G)\n"
               "  --csv FILE     write impl,npes,test,row,size,value,unit rows\n"
               "  --json FILE    write the same results as JSON\n"
               "  --quiet        print table rows only, no '#' header lines\n"
               "  --osu          measure as the OSU OpenSHMEM micro-benchmarks (5.x) do,\n"
               "                 same test and row names, headers say 'osu method':\n"
               "                 put_lat get_lat (+_global): each size's buffers written,\n"
               "                 then 1000 untimed + 10000 timed calls up to 8K, 0 + 100\n"
               "                 above; barrier: shmem_barrier (active set, 2 pSync in\n"
               "                 turn), then shmem_barrier_all, each call timed, 10 + 100;\n"
               "                 bcast collect fcollect reduce: shmem_broadcast32 (in\n"
               "                 place), collect32, fcollect32, float_sum_to_all on the\n"
               "                 world's active set, 2 pSync in turn, each call timed\n"
               "                 then an untimed barrier_all, 200 + 1000 (10 + 100 above\n"
               "                 8192 elements), averaged over PEs; max size 1M unless\n"
               "                 --max-size; --iters N: N timed calls at every size.\n"
               "                 Clock: CLOCK_MONOTONIC, ns resolution (OSU: gettimeofday,\n"
               "                 whole us, which truncates sub-us calls timed one by one).\n"
               "                 Other tests run as without --osu\n"
               "  -h, --help     this text\n");
}

static int parse_num(const char *s, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *s == '-')
        return -1;
    switch (toupper((unsigned char)*end)) {
    case 'G': v *= 1024; /* fall through */
    case 'M': v *= 1024; /* fall through */
    case 'K': v *= 1024; end++; break;
    default: break;
    }
    if (*end || v == 0 || v > ((unsigned long long)SIZE_MAX >> 2))
        return -1;
    *out = (size_t)v;
    return 0;
}

/* Returns 0 to run, 1 to exit successfully (-h), -1 on a usage error. */
static int parse_args(int argc, char **argv, const char ***list, int *nlist)
{
    static const char *sel[64];
    int n = 0;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = NULL;
        size_t num = 0;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            if (me == 0)
                usage(stdout);
            return 1;
        }
        if (!strcmp(arg, "--quiet")) {
            opt.quiet = 1;
            continue;
        }
        if (!strcmp(arg, "--osu")) {
            opt.osu = 1;
            continue;
        }
        if (!strncmp(arg, "--", 2)) {
            static const char *const withval[] = {"--min-size", "--max-size", "--iters", "--window",
                                                  "--csv",      "--json",     "--table", NULL};
            char key[32];
            const char *eq = strchr(arg, '=');
            size_t kl = eq ? (size_t)(eq - arg) : strlen(arg);
            int k;
            snprintf(key, sizeof key, "%.*s", (int)kl, arg);
            for (k = 0; withval[k] && strcmp(withval[k], key); k++)
                ;
            if (!withval[k])
                goto bad;
            val = eq ? eq + 1 : (a + 1 < argc ? argv[++a] : NULL);
            if (!val)
                goto bad;
            if (k == 4) { opt.csv = val; continue; }
            if (k == 5) { opt.json = val; continue; }
            if (parse_num(val, &num))
                goto bad;
            if (k == 0) opt.min_size = num;
            else if (k == 1) opt.max_size = num, opt.max_set = 1;
            else if (k == 2) opt.iters = (long)num, opt.iters_set = 1;
            else if (k == 6)
                opt.table = num;
            else opt.window = (long)num;
            continue;
        }
        const char *const *set = NULL;
        static const char *const coll[] = { "bcast", "collect", "fcollect", "alltoall",
                                            "reduce", NULL };
        if (!strcmp(arg, "all")) set = default_set;
        else if (!strcmp(arg, "coll")) set = coll;
        if (set) {
            for (int k = 0; set[k] && n < 63; k++)
                sel[n++] = set[k];
            continue;
        }
        int k;
        for (k = 0; tests[k] && strcmp(tests[k], arg); k++)
            ;
        if (!tests[k]) {
            if (me == 0)
                fprintf(stderr, "symm-bench: unknown test '%s'\n", arg);
            return -1;
        }
        if (n < 63)
            sel[n++] = tests[k];
        continue;
    bad:
        if (me == 0) {
            fprintf(stderr, "symm-bench: bad option '%s'%s%s\n", arg, val ? " " : "",
                    val ? val : "");
            usage(stderr);
        }
        return -1;
    }
    if (opt.osu && !opt.max_set)
        opt.max_size = MiB; /* OSU's largest size */
    if (opt.min_size > opt.max_size) {
        if (me == 0)
            fprintf(stderr, "symm-bench: --min-size is larger than --max-size\n");
        return -1;
    }
    if (n == 0)
        for (; default_set[n]; n++)
            sel[n] = default_set[n];
    *list = sel;
    *nlist = n;
    return 0;
}

int main(int argc, char **argv)
{
    const char **list = NULL;
    int nlist = 0, rc;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_info_get_name(impl);
    impl[SHMEM_MAX_NAME_LEN] = '\0';
    clean(impl);

    rc = parse_args(argc, argv, &list, &nlist);
    if (rc == 0 && npes < 2) {
        if (me == 0)
            fprintf(stderr, "symm-bench: needs at least 2 PEs (got %d)\n", npes);
        rc = -1;
    }
    if (rc != 0) {
        shmem_finalize();
        return rc < 0 ? 2 : 0;
    }

    for (int t = 0; t < nlist; t++) {
        run_test(list[t]);
        shmem_barrier_all();
    }
    write_files();
    free(results);
    shmem_finalize();
    return errors ? 1 : 0;
}
