/*
 * poll_pingpong.c - ping-pongs whose waiting side polls a test-like routine
 * instead of waiting (issue 47.2): with 4 PEs on 2 cores two PEs share a
 * core, and a poll that never gives the core away makes every hand-off wait
 * for the scheduler's slice. The polling routines back off after repeated
 * misses (ops/sync.h: symm_poll_miss) as the waits do; this runs every
 * polling entry point through such a loop and checks what it carries:
 *  - shmem_long_test, shmem_long_test_any over two words (one never set),
 *    shmem_long_test_all_vector, shmem_signal_fetch after
 *    shmem_putmem_signal, aclshmem_int8_test (aclshmem's own scan);
 *  - shmem_long_wait_until, the same ping-pong with a wait (the reference);
 *  - shmem_test_lock polled while the partner holds the lock.
 * PE k plays ping-pong with PE k + npes/2 (at 4 PEs 0-2 and 1-3: the
 * pairs oshrun's binding, PE i on CPU i mod CPUs, puts on one core of a
 * 2-core machine; a PE without a partner plays with itself). Each round
 * carries a payload of PAYLOAD longs, a hash of (round, sender), checked on
 * arrival, and a round number that must be the one expected. The oshrun timeout catches a hang;
 * speed is not asserted. argv[1]: round trips per mode (default 2000; test_lock a tenth of it);
 * argv[2] "report": PE 0 prints each mode's mean round trip (bench-style
 * numbers, for the issue; docs/performance.md holds measured ones).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <aclshmem.h>
#include <shmem.h>

#include "check.h"

#define PAYLOAD 4

static int me, npes, partner, pinger;
static long rounds = 2000;

static long flag[2];
static long vec_flag[2];
static uint64_t sig;
static int8_t flag8;
static long payload[PAYLOAD];
static long lock;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long payload_of(long round, int from, int k)
{
    return (long)(test_hash4(47, (uint64_t)round, (uint64_t)from, (uint64_t)k) >> 2);
}

/* Send round r to the partner: the payload, then (after a fence) the flag
 * the mode polls on. */
static void send_round(const char *mode, long r)
{
    long p[PAYLOAD];
    for (int k = 0; k < PAYLOAD; k++)
        p[k] = payload_of(r, me, k);
    if (strcmp(mode, "signal_fetch") == 0) {
        shmem_putmem_signal(payload, p, sizeof(p), &sig, (uint64_t)r, SHMEM_SIGNAL_SET, partner);
        return;
    }
    shmem_long_put(payload, p, PAYLOAD, partner);
    shmem_fence();
    if (strcmp(mode, "acl_int8_test") == 0)
        shmem_int8_p(&flag8, (int8_t)(r & 0x7f), partner);
    else if (strcmp(mode, "test_all_vector") == 0)
        shmem_long_p(&vec_flag[1], r, partner);
    else
        shmem_long_p(&flag[1], r, partner);
}

/* Poll (or wait) until round r has arrived; then check its payload. */
static void recv_round(const char *mode, long r)
{
    if (strcmp(mode, "test") == 0) {
        while (!shmem_long_test(&flag[1], SHMEM_CMP_EQ, r))
            ;
    } else if (strcmp(mode, "wait_until") == 0) {
        shmem_long_wait_until(&flag[1], SHMEM_CMP_EQ, r);
    } else if (strcmp(mode, "test_any") == 0) {
        size_t i;
        while ((i = shmem_long_test_any(flag, 2, NULL, SHMEM_CMP_EQ, r)) == SIZE_MAX)
            ;
        CHECK_EQ("test_any index", 1, i);
    } else if (strcmp(mode, "test_all_vector") == 0) {
        /* vec_flag[0] is never written: it equals its 0 throughout. */
        long want[2] = {0, r};
        while (!shmem_long_test_all_vector(vec_flag, 2, NULL, SHMEM_CMP_EQ, want))
            ;
    } else if (strcmp(mode, "signal_fetch") == 0) {
        while (shmem_signal_fetch(&sig) != (uint64_t)r)
            ;
    } else {
        int got = 0;
        while (aclshmem_int8_test(&flag8, ACLSHMEM_CMP_EQ, (int8_t)(r & 0x7f), &got), !got)
            ;
    }
    for (int k = 0; k < PAYLOAD; k++)
        CHECK(payload[k] == payload_of(r, partner, k), "%s round %ld: payload[%d] %ld, sent %ld",
              mode, r, k, payload[k], payload_of(r, partner, k));
}

static void reset_flags(void)
{
    flag[0] = flag[1] = vec_flag[0] = vec_flag[1] = 0;
    sig = 0;
    flag8 = 0;
    shmem_barrier_all();
}

/* rounds round trips; the mean round trip in seconds. Round numbers start
 * at 1, so the flags' 0 is never a round (acl_int8_test: r & 0x7f, never 0
 * for r < 128, then 128 apart: consecutive rounds always differ). */
static double pingpong(const char *mode)
{
    reset_flags();
    double t0 = now_s();
    for (long r = 1; r <= rounds; r++) {
        if (partner == me) {
            send_round(mode, r);
            recv_round(mode, r);
        } else if (pinger) {
            send_round(mode, r);
            recv_round(mode, r);
        } else {
            recv_round(mode, r);
            send_round(mode, r);
        }
    }
    double dt = now_s() - t0;
    shmem_barrier_all();
    return dt / (double)rounds;
}

/* shmem_test_lock polled while the partner holds the lock. The two of a
 * pair take turns: the holder tells the partner it holds the lock, which
 * then polls test_lock until it gets it. Every PE adds 1 under the lock to
 * PE 0's counter (a get and a put: a lost update shows up if two ever hold
 * it at once); all pairs share the one lock. */
static double lock_rounds(long n)
{
    static long counter;
    reset_flags();
    if (me == 0)
        counter = 0;
    shmem_barrier_all();
    double t0 = now_s();
    for (long r = 1; r <= n; r++) {
        if (((r & 1) != 0) == (pinger != 0)) {
            shmem_set_lock(&lock);
            long c = shmem_long_g(&counter, 0);
            shmem_long_p(&flag[1], r, partner); /* tell the partner I hold it */
            shmem_long_p(&counter, c + 1, 0);
            shmem_quiet();
            shmem_clear_lock(&lock);
        } else if (partner != me) {
            shmem_long_wait_until(&flag[1], SHMEM_CMP_EQ, r);
            while (shmem_test_lock(&lock) != 0)
                ;
            long c = shmem_long_g(&counter, 0);
            shmem_long_p(&counter, c + 1, 0);
            shmem_quiet();
            shmem_clear_lock(&lock);
        }
    }
    double dt = now_s() - t0;
    shmem_barrier_all();
    /* Every PE with a partner added 1 every round, a lone PE every other. */
    long per_pe_sum = 0;
    for (int pe = 0; pe < npes; pe++)
        per_pe_sum += pe < npes / 2 * 2 ? n : (n + 1) / 2;
    if (me == 0)
        CHECK_EQ("lock-protected counter", per_pe_sum, counter);
    shmem_barrier_all();
    return dt / (double)n;
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"wait_until",      "test",         "test_any",
                                        "test_all_vector", "signal_fetch", "acl_int8_test"};
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int half = npes / 2;
    partner = me < half ? me + half : me < 2 * half ? me - half : me;
    pinger = me < half || partner == me;
    if (argc > 1)
        rounds = atol(argv[1]);
    int report = argc > 2 && strcmp(argv[2], "report") == 0;
    for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
        double rt = pingpong(modes[m]);
        if (report && me == 0)
            printf("poll_pingpong: %d PEs, %-16s %ld round trips, %.2f us per round trip\n", npes,
                   modes[m], rounds, rt * 1e6);
    }
    long n = rounds / 10 > 0 ? rounds / 10 : 1;
    double rt = lock_rounds(n);
    if (report && me == 0)
        printf("poll_pingpong: %d PEs, %-16s %ld rounds, %.2f us per round\n", npes, "test_lock", n,
               rt * 1e6);
    if (me == 0)
        printf("poll_pingpong: ok\n");
    shmem_finalize();
    return 0;
}
