/*
 * threads.c - SHMEM_THREAD_MULTIPLE: NTHREADS pthreads per PE use the
 * library at once.
 *
 * shmem_init_thread(SHMEM_THREAD_MULTIPLE) returns 0 and provides it
 * (shmem_query_thread agrees). Each thread creates its own context
 * (PRIVATE for even thread ids, 0 for odd) and, ITERS times, for every PE:
 * fetch_add(1) and add(2) on two counters, on the default context and on
 * its own, alternately; puts its value into its own slot of the right
 * neighbour's array; and fetch_inc on a counter of PE 0, whose fetched
 * values it gathers to PE 0. It quiets and destroys its context; the main
 * thread joins them and calls shmem_barrier_all. Then, exactly: each
 * counter is n_pes*NTHREADS*ITERS (times 2 for add), each slot holds its
 * value, and the fetch_inc values are a permutation of 0..total-1.
 *
 * Race-free by design: threads share nothing but library calls; counters
 * are changed only by AMOs; each thread writes only its own slots and its
 * own local variables; the main thread reads after pthread_join.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define NTHREADS 4
#define ITERS 200

static int me, npes, right;
static long *cnt;       /* [0] fetch_add, [1] add, [2] fetch_inc (PE 0's) */
static long *slots;     /* NTHREADS*ITERS per source PE */
static long *gathered;  /* on PE 0: npes*NTHREADS*ITERS fetch_inc values */

static long slot_val(int pe, int tid, int it)
{
    return (long)(test_hash4(11, (uint64_t)pe, (uint64_t)tid, (uint64_t)it) >> 1);
}

struct targ {
    int tid;
    int err;
    char msg[256];
};

#define TFAIL(a, ...)                                                                              \
    do {                                                                                           \
        if (!(a)->err) {                                                                           \
            (a)->err = 1;                                                                          \
            snprintf((a)->msg, sizeof((a)->msg), __VA_ARGS__);                                     \
        }                                                                                          \
    } while (0)

static void *worker(void *p)
{
    struct targ *a = p;
    const int tid = a->tid;
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    int rc = shmem_ctx_create(tid % 2 ? 0 : SHMEM_CTX_PRIVATE, &c);
    if (rc != 0 || c == SHMEM_CTX_INVALID) {
        TFAIL(a, "thread %d: shmem_ctx_create expected 0 and a context got %d", tid, rc);
        return NULL;
    }
    long *fi = malloc(ITERS * sizeof(long));
    if (fi == NULL) {
        TFAIL(a, "thread %d: malloc failed", tid);
        shmem_ctx_destroy(c);
        return NULL;
    }
    long last[64];
    for (int t = 0; t < npes && t < 64; t++)
        last[t] = -1;
    for (int it = 0; it < ITERS; it++) {
        for (int j = 0; j < npes; j++) {
            int t = (me + j) % npes;
            long f;
            if ((it + j) % 2) {
                f = shmem_ctx_long_atomic_fetch_add(c, &cnt[0], 1, t);
                shmem_ctx_long_atomic_add(c, &cnt[1], 2, t);
            } else {
                f = shmem_long_atomic_fetch_add(&cnt[0], 1, t);
                shmem_long_atomic_add(&cnt[1], 2, t);
            }
            long total = (long)npes * NTHREADS * ITERS;
            if (f < 0 || f >= total || (t < 64 && f <= last[t]))
                TFAIL(a, "thread %d: fetch_add on PE %d fetched %ld (previous %ld), expected "
                      "increasing in [0,%ld)", tid, t, f, t < 64 ? last[t] : -1L, total);
            if (t < 64)
                last[t] = f;
        }
        long v = slot_val(me, tid, it);
        long *dst = &slots[((size_t)me * NTHREADS + (size_t)tid) * ITERS + (size_t)it];
        if (it % 2)
            shmem_ctx_long_put(c, dst, &v, 1, right);
        else
            shmem_long_p(dst, v, right);
        fi[it] = it % 3 ? shmem_ctx_long_atomic_fetch_inc(c, &cnt[2], 0)
                        : shmem_long_atomic_fetch_inc(&cnt[2], 0);
    }
    shmem_ctx_long_put(c, &gathered[((size_t)me * NTHREADS + (size_t)tid) * ITERS], fi, ITERS, 0);
    shmem_ctx_quiet(c);
    shmem_ctx_destroy(c);
    free(fi);
    return NULL;
}

int main(void)
{
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(rc == 0, "shmem_init_thread(SHMEM_THREAD_MULTIPLE) expected 0 got %d", rc);
    CHECK_EQ("provided thread level", SHMEM_THREAD_MULTIPLE, provided);
    int q = -1;
    shmem_query_thread(&q);
    CHECK_EQ("shmem_query_thread", SHMEM_THREAD_MULTIPLE, q);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    const size_t per_pe = (size_t)NTHREADS * ITERS;
    cnt = shmem_calloc(3, sizeof(long));
    slots = shmem_calloc((size_t)npes * per_pe, sizeof(long));
    gathered = shmem_calloc((size_t)npes * per_pe, sizeof(long));
    CHECK(cnt && slots && gathered, "shmem_calloc expected memory got NULL");
    shmem_barrier_all();

    pthread_t th[NTHREADS];
    struct targ args[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        memset(&args[i], 0, sizeof(args[i]));
        args[i].tid = i;
        rc = pthread_create(&th[i], NULL, worker, &args[i]);
        CHECK(rc == 0, "pthread_create expected 0 got %d", rc);
    }
    for (int i = 0; i < NTHREADS; i++) {
        rc = pthread_join(th[i], NULL);
        CHECK(rc == 0, "pthread_join expected 0 got %d", rc);
    }
    for (int i = 0; i < NTHREADS; i++)
        CHECK(!args[i].err, "%s", args[i].msg);
    shmem_barrier_all();

    const long total = (long)npes * (long)per_pe;
    CHECK_EQ("fetch_add counter", total, cnt[0]);
    CHECK_EQ("add counter", 2 * total, cnt[1]);
    int src = (me + npes - 1) % npes;
    for (int tid = 0; tid < NTHREADS; tid++)
        for (int it = 0; it < ITERS; it++) {
            long got = slots[((size_t)src * NTHREADS + (size_t)tid) * ITERS + (size_t)it];
            CHECK(got == slot_val(src, tid, it), "slot of PE %d thread %d iteration %d expected "
                  "%ld got %ld", src, tid, it, slot_val(src, tid, it), got);
        }
    if (me == 0) {
        CHECK_EQ("fetch_inc counter on PE 0", total, cnt[2]);
        unsigned char *seen = calloc((size_t)total, 1);
        CHECK(seen != NULL, "calloc expected memory got NULL");
        for (long i = 0; i < total; i++) {
            long v = gathered[i];
            CHECK(v >= 0 && v < total && !seen[v], "fetch_inc value %ld (PE %ld thread %ld) out "
                  "of range or fetched twice", v, i / (long)per_pe, (i / ITERS) % NTHREADS);
            seen[v] = 1;
            if (i % ITERS)
                CHECK(v > gathered[i - 1], "a thread's fetch_inc values expected increasing "
                      "got %ld after %ld", v, gathered[i - 1]);
        }
        free(seen);
    }
    shmem_barrier_all();
    shmem_free(gathered);
    shmem_free(slots);
    shmem_free(cnt);
    if (me == 0)
        printf("threads: ok on %d PEs, %d threads each\n", npes, NTHREADS);
    shmem_finalize();
    return 0;
}
