/*
 * lock.c - shmem_set_lock / shmem_clear_lock / shmem_test_lock.
 *
 * Default mode:
 *  - Mutual exclusion: every PE takes the lock ITERS times and does a
 *    non-atomic read-modify-write of a counter on PE 0 (shmem_long_g, then
 *    shmem_long_p and shmem_quiet) and a fetch_inc of a sequence counter;
 *    the counter ends at exactly n_pes*ITERS, each critical section sees
 *    the sequence counter equal to the counter (nothing overlapped), and
 *    the acquisition log on PE 0 holds each PE exactly ITERS times (no PE
 *    starves). With the lock word on the heap and as a global variable.
 *  - shmem_test_lock: while PE 0 holds the lock every other PE's test
 *    returns 1 (and takes nothing: PE 0's clear hands the lock to nobody,
 *    so each PE in turn then gets 0); then all PEs spin on test_lock for a
 *    counter RMW: exact count. set_lock and test_lock mixed: exact count.
 *
 * Mode "fifo": the acquisition order follows the enqueue order. PE 0 holds
 * the lock; PE k calls set_lock only once PE k-1 is queued, and PE 0
 * releases and re-requests only once all are queued, so the order must be
 * 0, 1, ..., n-1, 0 (and PE 0 cannot barge back in). Knowing that a PE is
 * queued needs the lock's layout: symm's MCS lock keeps the queue tail,
 * PE+1 of the last in line, in the first 32-bit word of PE 0's copy of the
 * lock (src/ops/lock.c). That is read with an atomic fetch; it only says
 * when to go on, the order checked is the log's.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define ITERS 500

static int me, npes;
static long glock;       /* global lock word */
static long glock_mixed; /* set_lock and test_lock mixed */
static long glock_fifo;

/* Critical section: RMW of cnt on PE 0, sequence number, log entry. */
static void critical(long *cnt, long *seq, int *log, int yield, const char *what)
{
    long v = shmem_long_g(cnt, 0);
    if (yield)
        sched_yield(); /* widens the window an overlapping holder would hit; not needed */
    long s = shmem_long_atomic_fetch_inc(seq, 0);
    CHECK(s == v, "%s: in the critical section the sequence counter expected %ld (the counter) "
          "got %ld: two PEs held the lock", what, v, s);
    shmem_int_p(&log[s], me, 0);
    shmem_long_p(cnt, v + 1, 0);
    shmem_quiet();
}

static void check_log(long *cnt, long *seq, int *log, long per_pe, const char *what)
{
    shmem_barrier_all();
    if (me == 0) {
        long total = (long)npes * per_pe;
        CHECK(*cnt == total, "%s: counter expected %ld got %ld", what, total, *cnt);
        CHECK(*seq == total, "%s: sequence counter expected %ld got %ld", what, total, *seq);
        long *per = calloc((size_t)npes, sizeof(long));
        CHECK(per != NULL, "calloc expected memory got NULL");
        for (long i = 0; i < total; i++) {
            CHECK(log[i] >= 0 && log[i] < npes, "%s: log[%ld] expected a PE got %d", what, i,
                  log[i]);
            per[log[i]]++;
        }
        for (int p = 0; p < npes; p++)
            CHECK(per[p] == per_pe, "%s: PE %d acquired the lock expected %ld times got %ld", what,
                  p, per_pe, per[p]);
        free(per);
    }
    shmem_barrier_all();
}

static void test_mutex(long *lock, const char *where)
{
    long *cnt = shmem_calloc(2, sizeof(long));
    int *log = shmem_calloc((size_t)npes * ITERS, sizeof(int));
    CHECK(cnt && log, "shmem_calloc expected memory got NULL");
    char what[64];
    snprintf(what, sizeof(what), "set_lock (%s lock word)", where);
    *lock = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITERS; i++) {
        shmem_set_lock(lock);
        critical(&cnt[0], &cnt[1], log, i % 8 == 0, what);
        shmem_clear_lock(lock);
    }
    check_log(&cnt[0], &cnt[1], log, ITERS, what);
    shmem_free(log);
    shmem_free(cnt);
}

static void test_trylock(void)
{
    long *lock = shmem_calloc(1, sizeof(long));
    long *cnt = shmem_calloc(2, sizeof(long));
    int *log = shmem_calloc((size_t)npes * ITERS, sizeof(int));
    CHECK(lock && cnt && log, "shmem_calloc expected memory got NULL");
    shmem_barrier_all();

    /* Held by PE 0: every other PE's test_lock says 1, and takes nothing. */
    if (me == 0)
        CHECK_EQ("shmem_test_lock on a free lock", 0, shmem_test_lock(lock));
    shmem_barrier_all();
    if (me != 0)
        for (int i = 0; i < 20; i++)
            CHECK_EQ("shmem_test_lock while PE 0 holds the lock", 1, shmem_test_lock(lock));
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(lock);
    shmem_barrier_all();
    /* Free again: each PE in turn acquires it with test_lock. */
    for (int p = 0; p < npes; p++) {
        if (me == p) {
            CHECK_EQ("shmem_test_lock, my turn, lock free", 0, shmem_test_lock(lock));
            critical(&cnt[0], &cnt[1], log, 0, "test_lock turn");
        }
        shmem_barrier_all();
        if (me != p)
            CHECK_EQ("shmem_test_lock while the PE whose turn it is holds it", 1,
                     shmem_test_lock(lock));
        shmem_barrier_all();
        if (me == p)
            shmem_clear_lock(lock);
        shmem_barrier_all();
    }
    check_log(&cnt[0], &cnt[1], log, 1, "test_lock turns");

    /* Everyone spins on test_lock. */
    cnt[0] = cnt[1] = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITERS / 2; i++) {
        while (shmem_test_lock(lock) != 0)
            ;
        critical(&cnt[0], &cnt[1], log, 0, "test_lock spin");
        shmem_clear_lock(lock);
    }
    check_log(&cnt[0], &cnt[1], log, ITERS / 2, "test_lock spin");

    /* set_lock and test_lock mixed on one (global) lock. */
    cnt[0] = cnt[1] = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITERS / 2; i++) {
        if ((i + me) % 2)
            shmem_set_lock(&glock_mixed);
        else
            while (shmem_test_lock(&glock_mixed) != 0)
                ;
        critical(&cnt[0], &cnt[1], log, 0, "set_lock and test_lock mixed");
        shmem_clear_lock(&glock_mixed);
    }
    check_log(&cnt[0], &cnt[1], log, ITERS / 2, "set_lock and test_lock mixed");
    shmem_free(log);
    shmem_free(cnt);
    shmem_free(lock);
}

/* ---- fifo ------------------------------------------------------------------ */
static uint32_t lock_tail(void)
{
    return shmem_uint32_atomic_fetch((uint32_t *)(void *)&glock_fifo, 0);
}

static void wait_tail(uint32_t want)
{
    while (lock_tail() != want)
        ;
}

static void test_fifo(void)
{
    long *seq = shmem_calloc(1, sizeof(long));
    int *log = shmem_calloc((size_t)npes + 1, sizeof(int));
    CHECK(seq && log, "shmem_calloc expected memory got NULL");
    for (int round = 0; round < 20; round++) {
        *seq = 0;
        shmem_barrier_all();
        if (me == 0) {
            shmem_set_lock(&glock_fifo);
            CHECK_EQ("queue tail after PE 0 took the lock (symm's MCS layout)", 1, lock_tail());
        }
        shmem_barrier_all();
        if (me == 0) {
            shmem_int_p(&log[shmem_long_atomic_fetch_inc(seq, 0)], me, 0);
            wait_tail((uint32_t)npes); /* everyone is in line */
            shmem_quiet();
            shmem_clear_lock(&glock_fifo);
            shmem_set_lock(&glock_fifo); /* behind all of them */
            shmem_int_p(&log[shmem_long_atomic_fetch_inc(seq, 0)], me, 0);
            shmem_quiet();
            shmem_clear_lock(&glock_fifo);
        } else {
            wait_tail((uint32_t)me); /* PE me-1 is in line */
            shmem_set_lock(&glock_fifo);
            shmem_int_p(&log[shmem_long_atomic_fetch_inc(seq, 0)], me, 0);
            shmem_quiet();
            shmem_clear_lock(&glock_fifo);
        }
        shmem_barrier_all();
        if (me == 0) {
            CHECK_EQ("acquisitions", npes + 1, *seq);
            for (int i = 0; i <= npes; i++)
                CHECK(log[i] == i % npes, "round %d: acquisition %d expected PE %d (enqueue order "
                      "0, 1, ..., n-1, 0) got PE %d", round, i, i % npes, log[i]);
        }
        CHECK_EQ("queue tail once the lock is free", 0, lock_tail());
        shmem_barrier_all();
    }
    shmem_free(log);
    shmem_free(seq);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (strcmp(mode, "fifo") == 0) {
        test_fifo();
    } else {
        long *hlock = shmem_calloc(1, sizeof(long));
        CHECK(hlock != NULL, "shmem_calloc expected memory got NULL");
        test_mutex(hlock, "heap");
        test_mutex(&glock, "global");
        test_trylock();
        shmem_free(hlock);
    }
    if (me == 0)
        printf("lock%s%s: ok on %d PEs\n", *mode ? " " : "", mode, npes);
    shmem_finalize();
    return 0;
}
