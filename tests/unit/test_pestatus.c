/*
 * test_pestatus.c - symm_pe_blocked_ms (runtime/pestatus.h), the figure the
 * watcher's hang report (core/watch.c) ends a job on: not blocked without a
 * published call or with a stale heartbeat, 0 ms for a call published a
 * tick after the reader took its clock, and never a huge figure while the
 * PE publishes and clears short calls as fast as it can (a thread here).
 *
 * The watcher once checked since_ms and then read it again: the 0 of a call
 * that had just returned, or a since a tick ahead of now, gave now - since
 * in hours, and SHMEM_DEBUG's 60 s hang report ended active_debug.ucx.np3
 * 2 s into its run (1 run in 240). That two-read check, against this
 * thread, fired thousands of times a second.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "runtime/pestatus.h"

static int fails;

#define EXPECT(cond, ...)                                          \
    do {                                                           \
        if (!(cond)) {                                             \
            fprintf(stderr, "FAIL [%s:%d]: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                          \
            fprintf(stderr, "\n");                                 \
            fails++;                                               \
        }                                                          \
    } while (0)

/* The clock symm_now_ms reads (runtime/pestatus.c). */
static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static symm_pe_status_t rec;
static int stop;

/* A PE whose calls block briefly, one after another: each publishes
 * since and a heartbeat (ops/wait_status.c) and clears since on return
 * (symm_doing_unpublish). */
static void *publisher(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        uint64_t t = now_ms();
        __atomic_store_n(&rec.since_ms, t, __ATOMIC_RELEASE);
        __atomic_store_n(&rec.beat_ms, t, __ATOMIC_RELAXED);
        for (volatile int i = 0; i < 200; i++)
            ;
        __atomic_store_n(&rec.since_ms, 0, __ATOMIC_RELEASE);
        for (volatile int i = 0; i < 200; i++)
            ;
    }
    return NULL;
}

int main(void)
{
    symm_pe_status_t r = {0};
    uint64_t now = 10000000;
    EXPECT(symm_pe_blocked_ms(&r, now) == -1, "no call published: not blocked");
    r.since_ms = now - 70000;
    r.beat_ms = now - 5;
    EXPECT(symm_pe_blocked_ms(&r, now) == 70000, "blocked 70 s: got %lld",
           (long long)symm_pe_blocked_ms(&r, now));
    r.beat_ms = now - SYMM_BEAT_STALE_MS - 1;
    EXPECT(symm_pe_blocked_ms(&r, now) == -1, "stale heartbeat: not blocked");
    r.since_ms = now + 4;
    r.beat_ms = now + 4;
    EXPECT(symm_pe_blocked_ms(&r, now) == 0, "published after the reader's clock: got %lld",
           (long long)symm_pe_blocked_ms(&r, now));

    pthread_t t;
    pthread_create(&t, NULL, publisher, NULL);
    long checks = 0, huge = 0;
    int64_t worst = -1;
    for (uint64_t end = now_ms() + 1000; now_ms() < end; checks++) {
        int64_t b = symm_pe_blocked_ms(&rec, now_ms());
        if (b > worst)
            worst = b;
        huge += b >= 60000;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
    EXPECT(huge == 0, "%ld of %ld checks beside a publishing thread read >= 60 s (worst %lld ms)",
           huge, checks, (long long)worst);
    if (fails == 0)
        printf("unit_pestatus: ok (%ld checks, longest %lld ms)\n", checks, (long long)worst);
    return fails != 0;
}
