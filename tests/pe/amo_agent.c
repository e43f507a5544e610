/*
 * amo_agent.c - atomics, locks and signals stay atomic whoever applies
 * them: every PE, the owner of the word included, hammers the same words
 * at once. Run as is (CPU atomics on mapped peers), under
 * SYMM_ATOMICS=network (every update through UCX, the owner's own ones
 * too: one atomic agent per word) and across namespaces (mixed mapped and
 * network peers). The results are computed from the counts alone:
 *  - fetch_inc on one word of PE 0 and one of the last PE, ITERS per PE:
 *    the word ends at n_pes*ITERS; each PE's fetched values strictly
 *    increase; and PE 0 gathers every fetched value: each of 0 ..
 *    n_pes*ITERS-1 exactly once (no increment lost or doubled).
 *  - atomic_add (me+1) interleaved with atomic_inc, 64 and 32 bits, and a
 *    compare_swap increment loop, after an atomic_set by the owner: exact
 *    sums.
 *  - shmem_set_lock / clear_lock around a non-atomic read-increment-write
 *    (g, +1, p, quiet) of a counter on PE 0, and the same with
 *    shmem_test_lock: exact count (two holders would lose increments).
 *  - shmem_signal_add on one signal word of the last PE from every PE, and
 *    rounds of put_signal (SHMEM_SIGNAL_ADD 1) into PE 0: the signal ends
 *    at the exact sum, and the data of a round is there once its signal
 *    count is reached.
 *  - the heap grows (initial size 8M unless set, then a 16M block): fetch_inc
 *    on a word of the grown part, so the network path's keys for every PE,
 *    this one included, follow the growth.
 * Optional argument: ITERS (default 400).
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "check.h"

static int me, npes;
static long glock, glock_test;

static void fetch_inc_phase(long *ctr, long *all, int target, long iters)
{
    long *mine = malloc(sizeof(long) * (size_t)iters);
    CHECK(mine != NULL, "malloc of %ld longs", iters);
    shmem_barrier_all();
    for (long i = 0; i < iters; i++) {
        mine[i] = shmem_long_atomic_fetch_inc(ctr, target);
        if (i > 0)
            CHECK(mine[i] > mine[i - 1], "fetch_inc on PE %d: fetched %ld after %ld", target,
                  mine[i], mine[i - 1]);
    }
    shmem_long_put(all + (long)me * iters, mine, (size_t)iters, 0);
    shmem_barrier_all();
    CHECK_EQ("fetch_inc counter read back", (long)npes * iters,
             shmem_long_atomic_fetch(ctr, target));
    if (me == 0) {
        long n = (long)npes * iters;
        char *seen = calloc((size_t)n, 1);
        CHECK(seen != NULL, "calloc of %ld", n);
        for (long i = 0; i < n; i++) {
            CHECK(all[i] >= 0 && all[i] < n, "fetch_inc on PE %d: PE %ld fetched %ld, outside "
                  "0..%ld", target, i / iters, all[i], n - 1);
            CHECK(!seen[all[i]], "fetch_inc on PE %d: value %ld fetched twice", target, all[i]);
            seen[all[i]] = 1;
        }
        free(seen);
    }
    free(mine);
    shmem_barrier_all();
}

static void add_phase(long *lw, int *iw, long *cw, int target, long iters)
{
    if (me == target) {
        shmem_long_atomic_set(lw, 0, me);
        shmem_int_atomic_set(iw, 0, me);
        shmem_long_atomic_set(cw, 0, me);
    }
    shmem_barrier_all();
    for (long i = 0; i < iters; i++) {
        if (i % 2 == 0) {
            shmem_long_atomic_add(lw, me + 1, target);
            shmem_int_atomic_inc(iw, target);
        } else {
            shmem_long_atomic_inc(lw, target);
            shmem_int_atomic_add(iw, me + 1, target);
        }
        if (i % 4 == 0) {
            long old = shmem_long_atomic_fetch(cw, target), prev;
            while ((prev = shmem_long_atomic_compare_swap(cw, old, old + 1, target)) != old)
                old = prev;
        }
    }
    shmem_barrier_all();
    long sum_me = (long)npes * (npes + 1) / 2; /* sum of me+1 */
    long even = (iters + 1) / 2, odd = iters / 2, quarters = (iters + 3) / 4;
    CHECK_EQ("atomic_add/inc long total", even * sum_me + odd * npes,
             shmem_long_atomic_fetch(lw, target));
    CHECK_EQ("atomic_add/inc int total", even * npes + odd * sum_me,
             shmem_int_atomic_fetch(iw, target));
    CHECK_EQ("compare_swap increments", quarters * npes, shmem_long_atomic_fetch(cw, target));
    shmem_barrier_all();
}

static void lock_phase(long *lock, long *cnt, long iters, int use_test)
{
    shmem_barrier_all();
    for (long i = 0; i < iters; i++) {
        if (use_test) {
            while (shmem_test_lock(lock))
                sched_yield();
        } else {
            shmem_set_lock(lock);
        }
        long v = shmem_long_g(cnt, 0);
        shmem_long_p(cnt, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    CHECK_EQ(use_test ? "counter under shmem_test_lock" : "counter under shmem_set_lock",
             (long)npes * iters, shmem_long_g(cnt, 0));
    shmem_barrier_all();
}

#define ROUND_LEN 8

static void signal_phase(uint64_t *sig, uint64_t *psig, long *data, long iters)
{
    int last = npes - 1;
    shmem_barrier_all();
    for (long i = 0; i < iters; i++)
        shmem_signal_add(sig, (uint64_t)me + 1, last);
    long rounds = iters / 8 > 0 ? iters / 8 : 1;
    long block[ROUND_LEN];
    for (long r = 0; r < rounds; r++) {
        for (int k = 0; k < ROUND_LEN; k++)
            block[k] = r * 1000003 + me * 101 + k;
        shmem_long_put_signal(data + (long)me * ROUND_LEN, block, ROUND_LEN, psig, 1,
                              SHMEM_SIGNAL_ADD, 0);
        if (me == 0) {
            shmem_signal_wait_until(psig, SHMEM_CMP_GE, (uint64_t)npes * (uint64_t)(r + 1));
            for (int p = 0; p < npes; p++)
                for (int k = 0; k < ROUND_LEN; k++)
                    CHECK_EQ("put_signal data once the signal counts it",
                             r * 1000003 + p * 101 + k, data[p * ROUND_LEN + k]);
        }
        shmem_barrier_all();
    }
    if (me == last)
        CHECK_EQ("signal_add total", iters * ((long)npes * (npes + 1) / 2),
                 (long)shmem_signal_fetch(sig));
    if (me == 0)
        CHECK_EQ("put_signal signal total", rounds * npes, (long)shmem_signal_fetch(psig));
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 400;
    setenv("SHMEM_SYMMETRIC_SIZE", "8M", 0);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(iters > 0, "ITERS must be positive, got %ld", iters);

    long *ctr = shmem_calloc(2, sizeof(long));
    long *all = shmem_calloc((size_t)npes * (size_t)iters, sizeof(long));
    long *lw = shmem_calloc(2, sizeof(long));
    int *iw = shmem_calloc(1, sizeof(int));
    long *lock = shmem_calloc(1, sizeof(long));
    long *cnt = shmem_calloc(2, sizeof(long));
    uint64_t *sig = shmem_calloc(2, sizeof(uint64_t));
    long *data = shmem_calloc((size_t)npes * ROUND_LEN, sizeof(long));
    CHECK(ctr && all && lw && iw && lock && cnt && sig && data, "shmem_calloc failed");

    fetch_inc_phase(&ctr[0], all, 0, iters);
    fetch_inc_phase(&ctr[1], all, npes - 1, iters);
    add_phase(&lw[0], iw, &lw[1], 0, iters);
    add_phase(&lw[0], iw, &lw[1], npes - 1, iters);
    lock_phase(lock, &cnt[0], iters / 4 + 1, 0);
    lock_phase(&glock, &cnt[1], iters / 4 + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        shmem_long_p(&cnt[1], 0, 0);
    shmem_barrier_all();
    lock_phase(&glock_test, &cnt[1], iters / 8 + 1, 1);
    signal_phase(&sig[0], &sig[1], data, iters);

    size_t grow = (size_t)16 << 20;
    long *big = shmem_calloc(grow / sizeof(long), sizeof(long));
    CHECK(big != NULL, "shmem_calloc of %zu bytes (heap growth) failed", grow);
    fetch_inc_phase(&big[grow / sizeof(long) - 1], all, 0, iters);
    fetch_inc_phase(&big[grow / sizeof(long) - 2], all, npes - 1, iters);
    shmem_free(big);

    shmem_free(data);
    shmem_free(sig);
    shmem_free(cnt);
    shmem_free(lock);
    shmem_free(iw);
    shmem_free(lw);
    shmem_free(all);
    shmem_free(ctr);
    if (me == 0)
        printf("amo_agent: OK (%d PEs, %ld iterations)\n", npes, iters);
    shmem_finalize();
    return 0;
}
