/*
 * idle_wait.c - a PE that waits long leaves its core (SYMM_WAIT_IDLE_US).
 *
 * A wait that finds nothing to do for SYMM_WAIT_IDLE_US (1 ms) sleeps
 * between polls: in UCX's event wait when UCX is in use, else in
 * nanosleep. Checked by the waiting thread's own CPU time (RUSAGE_THREAD),
 * not by how fast anything is:
 *  - shmem_long_wait_until on my flag, which a helper thread of my right
 *    neighbour (of me, at 1 PE) puts 300 ms later: the wait returns with
 *    exactly the value put, after at least 250 ms, having used under half
 *    of that time on the CPU (a yielding spin uses all of it when it has
 *    the core to itself, and a loaded machine only lowers the figure);
 *  - shmem_barrier_all that every PE but the last enters 300 ms late: the
 *    last PE's barrier, the same bound.
 * Run at 1-4 PEs and over UCX (every peer, and emulated nodes in
 * nodes.cmake), where the put and the barrier's notifications arrive as
 * messages that must end the sleep.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include <shmem.h>

#include "check.h"

#define DELAY_MS 300

static int me, npes;
static long *flag;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double thread_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void nap_ms(int ms)
{
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static long value_for(int pe) { return (long)(test_hash4(11, (uint64_t)pe, 0, 0) >> 2) | 1; }

/* My left neighbour's flag gets its value, DELAY_MS from now. */
static void *putter(void *arg)
{
    (void)arg;
    nap_ms(DELAY_MS);
    int left = (me + npes - 1) % npes;
    shmem_long_p(flag, value_for(left), left);
    shmem_quiet();
    return NULL;
}

static void check_idle(const char *what, double wall, double cpu)
{
    CHECK(wall >= DELAY_MS * 0.8e-3, "%s returned after %.3f s, before the %d ms delay", what,
          wall, DELAY_MS);
    CHECK(cpu < 0.5 * wall, "%s used %.3f s of CPU in %.3f s of waiting: it did not sleep", what,
          cpu, wall);
}

int main(void)
{
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level expected %d got %d",
          SHMEM_THREAD_MULTIPLE, provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    flag = shmem_calloc(1, sizeof(long));
    CHECK(flag != NULL, "shmem_calloc expected memory got NULL");
    shmem_barrier_all();

    /* A point-to-point wait. */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, putter, NULL) == 0, "pthread_create failed");
    double t0 = now_s(), c0 = thread_cpu_s();
    shmem_long_wait_until(flag, SHMEM_CMP_NE, 0);
    double wall = now_s() - t0, cpu = thread_cpu_s() - c0;
    pthread_join(th, NULL);
    CHECK_EQ("my flag", value_for(me), *flag);
    check_idle("shmem_long_wait_until", wall, cpu);

    /* A barrier that waits for late PEs (at 1 PE, nobody to wait for). */
    shmem_barrier_all();
    if (npes > 1) {
        if (me != npes - 1)
            nap_ms(DELAY_MS);
        t0 = now_s();
        c0 = thread_cpu_s();
        shmem_barrier_all();
        wall = now_s() - t0;
        cpu = thread_cpu_s() - c0;
        if (me == npes - 1)
            check_idle("shmem_barrier_all", wall, cpu);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("idle_wait: %d PEs OK\n", npes);
    shmem_free(flag);
    shmem_finalize();
    return 0;
}
