/*
 * stream.c - CPU streams (symm_stream.h): work runs in order on the stream's
 * thread while the caller goes on.
 *
 * Every PE talks to its right neighbour (me+1 mod n) and hears from its left
 * one; at 1 PE both are itself. Checked:
 *  - order: a put then a signal on one stream; whoever sees the signal sees
 *    all of the data (20 rounds, new data each round);
 *  - get: getmem_on_stream from every PE, valid after synchronize;
 *  - wait: signal_wait_until_on_stream holds the stream, not the caller: the
 *    caller goes on to the barrier and then releases its left neighbour's
 *    stream itself; a value short of the condition does not release it; each
 *    ACLSHMEM_CMP_* operator with CANN's numbering (GE 3, LE 5) passes when
 *    true, with a deadline;
 *  - barrier: 60 rounds of put, barrier (all three kinds), get-from-self on
 *    one stream with no synchronize in between;
 *  - many: 100000 puts in flight on one stream, then quiet_on_stream and a
 *    signal; 1000 puts to one word end with the last value (FIFO);
 *  - two streams at once, and one stream waiting on a signal the other sets;
 *  - destroy drains: a get enqueued just before destroy has arrived when
 *    destroy returns; puts + signal enqueued before destroy all land;
 *  - the default stream (NULL).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmemx.h>

#include "pe/check.h"

#define ORDER_WORDS (256 * 1024) /* 2 MiB */
#define MANY 100000
#define SAME_WORD_PUTS 1000
#define BARRIER_ROUNDS 60
#define DEADLINE_S 20.0

static int me, npes, right, left;

/* Signal words live in the heap: a PE reaches its own heap at the same
 * address, while its own globals are reached through an alias mapping, which
 * ThreadSanitizer cannot pair with the caller's loads (at 1 PE every signal
 * goes to self). */
static struct sigs {
    int32_t order, wait, after_wait, many, passed, a, b, local, destroy, dflt;
} * sg;
static uint64_t order_data[ORDER_WORDS];
static uint64_t barrier_slot[BARRIER_ROUNDS];
static uint64_t same_word;

static uint64_t val(int pe, uint64_t i, uint64_t round)
{
    return test_hash4((uint64_t)pe, i, round, 0x5743);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wait (caller's thread) for *sig == v, failing after DEADLINE_S. */
static void wait_eq(int32_t *sig, int32_t v, const char *what)
{
    double end = now() + DEADLINE_S;
    while (!shmem_int32_test(sig, SHMEM_CMP_EQ, v))
        CHECK(now() < end, "%s: signal still %d, expected %d after %.0f s", what,
              __atomic_load_n(sig, __ATOMIC_ACQUIRE), v, DEADLINE_S);
}

static void busy_ms(double ms)
{
    double end = now() + ms * 1e-3;
    while (now() < end)
        ;
}

static void test_order(shmemx_stream_t s)
{
    uint64_t *src = malloc(sizeof(order_data));
    CHECK(src != NULL, "malloc");
    for (int32_t r = 1; r <= 20; r++) {
        size_t words = ORDER_WORDS >> (r % 4); /* 2 MiB .. 256 KiB */
        for (size_t i = 0; i < words; i++)
            src[i] = val(me, i, (uint64_t)r);
        aclshmemx_putmem_on_stream(order_data, src, words * sizeof(uint64_t), right, s);
        aclshmemx_signal_op_on_stream(&sg->order, r, ACLSHMEM_SIGNAL_SET, right, s);
        wait_eq(&sg->order, r, "order");
        for (size_t i = 0; i < words; i++)
            if (order_data[i] != val(left, i, (uint64_t)r))
                CHECK_EQ("order: data word after the signal", val(left, i, (uint64_t)r),
                         order_data[i]);
        CHECK_EQ("synchronize", 0, shmemx_stream_synchronize(s)); /* src reusable */
        shmem_barrier_all(); /* everyone has checked order_data */
    }
    free(src);
}

static void test_get(shmemx_stream_t s)
{
    size_t words = 4096;
    uint64_t *src = shmem_malloc(words * sizeof(uint64_t));
    uint64_t *got = malloc((size_t)npes * words * sizeof(uint64_t));
    CHECK(src != NULL && got != NULL, "allocation");
    for (size_t i = 0; i < words; i++)
        src[i] = val(me, i, 77);
    memset(got, 0, (size_t)npes * words * sizeof(uint64_t));
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        aclshmemx_getmem_on_stream(got + (size_t)pe * words, src, words * sizeof(uint64_t), pe, s);
    CHECK_EQ("synchronize", 0, shmemx_stream_synchronize(s));
    for (int pe = 0; pe < npes; pe++)
        for (size_t i = 0; i < words; i++)
            if (got[(size_t)pe * words + i] != val(pe, i, 77))
                CHECK_EQ("get: word from a PE", val(pe, i, 77), got[(size_t)pe * words + i]);
    shmem_barrier_all(); /* nobody frees src while a peer reads it */
    shmem_free(src);
    free(got);
}

static void test_wait(shmemx_stream_t s)
{
    static uint64_t data = 0;
    uint64_t mine = val(me, 0, 5);
    /* My stream: wait until a peer (my right neighbour) raised my wait word
     * to 5, then put to my right and signal it. */
    aclshmemx_signal_wait_until_on_stream(&sg->wait, ACLSHMEM_CMP_GE, 5, s);
    aclshmemx_putmem_on_stream(&data, &mine, sizeof(mine), right, s);
    aclshmemx_signal_op_on_stream(&sg->after_wait, 1, ACLSHMEM_SIGNAL_SET, right, s);
    /* The caller is free: it computes and reaches the barrier. */
    busy_ms(5);
    shmem_barrier_all();
    CHECK_EQ("wait: the left stream passed before its signal was set", 0,
             __atomic_load_n(&sg->after_wait, __ATOMIC_ACQUIRE));
    /* 2 < 5: the left neighbour's stream must still hold. */
    shmem_int32_atomic_add(&sg->wait, 2, left);
    shmem_barrier_all();
    busy_ms(20);
    CHECK_EQ("wait: the left stream passed at signal 2 (GE 5)", 0,
             __atomic_load_n(&sg->after_wait, __ATOMIC_ACQUIRE));
    shmem_barrier_all();
    shmem_int32_atomic_add(&sg->wait, 3, left);
    wait_eq(&sg->after_wait, 1, "wait: the left stream after its signal reached 5");
    CHECK_EQ("wait: data put after the wait", val(left, 0, 5), data);

    /* Every comparison with CANN's numbering, each true (the wait word is 5);
     * under OpenSHMEM's numbering GE 4 and LE 6 would be false. */
    static const struct {
        int cmp;
        int32_t v;
    } ok[] = {{ACLSHMEM_CMP_EQ, 5}, {ACLSHMEM_CMP_NE, 4}, {ACLSHMEM_CMP_GT, 4},
              {ACLSHMEM_CMP_GE, 4}, {ACLSHMEM_CMP_GE, 5}, {ACLSHMEM_CMP_LT, 6},
              {ACLSHMEM_CMP_LE, 6}, {ACLSHMEM_CMP_LE, 5}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        aclshmemx_signal_wait_until_on_stream(&sg->wait, ok[i].cmp, ok[i].v, s);
        aclshmemx_signal_op_on_stream(&sg->passed, 1, ACLSHMEM_SIGNAL_ADD, me, s);
        wait_eq(&sg->passed, (int32_t)i + 1, "wait: a true comparison held the stream");
    }
    CHECK_EQ("synchronize", 0, shmemx_stream_synchronize(s));
    shmem_barrier_all();
}

static void test_barrier(shmemx_stream_t s)
{
    static uint64_t tokens[BARRIER_ROUNDS], seen[BARRIER_ROUNDS];
    for (int r = 0; r < BARRIER_ROUNDS; r++) {
        tokens[r] = val(me, (uint64_t)r, 9);
        aclshmemx_putmem_on_stream(&barrier_slot[r], &tokens[r], sizeof(uint64_t), right, s);
        if (r % 3 == 0) {
            aclshmemx_barrier_all_on_stream(s);
        } else if (r % 3 == 1) {
            aclshmemx_barrier_on_stream(ACLSHMEM_TEAM_WORLD, s);
        } else {
            aclshmem_handle_t h = {ACLSHMEM_TEAM_WORLD};
            aclshmemx_handle_wait(h, s);
        }
        /* After the barrier my left neighbour's put has landed here. */
        aclshmemx_getmem_on_stream(&seen[r], &barrier_slot[r], sizeof(uint64_t), me, s);
    }
    CHECK_EQ("synchronize", 0, shmemx_stream_synchronize(s));
    for (int r = 0; r < BARRIER_ROUNDS; r++)
        CHECK_EQ("barrier: token read after the barrier on the stream", val(left, (uint64_t)r, 9),
                 seen[r]);
    shmem_barrier_all();
}

static void test_many(shmemx_stream_t s)
{
    uint64_t *dst = shmem_malloc(MANY * sizeof(uint64_t));
    uint64_t *src = malloc(MANY * sizeof(uint64_t));
    uint64_t *seq = malloc(SAME_WORD_PUTS * sizeof(uint64_t));
    CHECK(dst != NULL && src != NULL && seq != NULL, "allocation");
    memset(dst, 0, MANY * sizeof(uint64_t));
    shmem_barrier_all();
    for (uint64_t i = 0; i < MANY; i++) {
        src[i] = val(me, i, 3);
        aclshmemx_putmem_on_stream(&dst[i], &src[i], sizeof(uint64_t), right, s);
    }
    aclshmemx_quiet_on_stream(s);
    aclshmemx_signal_op_on_stream(&sg->many, 1, ACLSHMEM_SIGNAL_SET, right, s);
    for (uint64_t i = 0; i < SAME_WORD_PUTS; i++) {
        seq[i] = val(me, i, 4);
        aclshmemx_putmem_on_stream(&same_word, &seq[i], sizeof(uint64_t), right, s);
    }
    wait_eq(&sg->many, 1, "many");
    for (uint64_t i = 0; i < MANY; i++)
        if (dst[i] != val(left, i, 3))
            CHECK_EQ("many: word", val(left, i, 3), dst[i]);
    CHECK_EQ("synchronize", 0, shmemx_stream_synchronize(s));
    shmem_barrier_all();
    CHECK_EQ("many: the last of the puts to one word", val(left, SAME_WORD_PUTS - 1, 4), same_word);
    shmem_barrier_all();
    shmem_free(dst);
    free(src);
    free(seq);
}

static void test_two_streams(shmemx_stream_t s1, shmemx_stream_t s2)
{
    static uint64_t a[4096], b[4096];
    uint64_t *sa = malloc(sizeof(a)), *sb = malloc(sizeof(b));
    CHECK(sa != NULL && sb != NULL, "malloc");
    for (size_t i = 0; i < 4096; i++) {
        sa[i] = val(me, i, 11);
        sb[i] = val(me, i, 12);
    }
    /* s2 waits for what s1 does later: one stream may wait on another. */
    aclshmemx_signal_wait_until_on_stream(&sg->local, ACLSHMEM_CMP_EQ, 1, s2);
    aclshmemx_putmem_on_stream(b, sb, sizeof(b), left, s2);
    aclshmemx_signal_op_on_stream(&sg->b, 1, ACLSHMEM_SIGNAL_SET, left, s2);
    aclshmemx_putmem_on_stream(a, sa, sizeof(a), right, s1);
    aclshmemx_signal_op_on_stream(&sg->a, 1, ACLSHMEM_SIGNAL_SET, right, s1);
    aclshmemx_signal_op_on_stream(&sg->local, 1, ACLSHMEM_SIGNAL_SET, me, s1);
    wait_eq(&sg->a, 1, "two streams: s1");
    wait_eq(&sg->b, 1, "two streams: s2");
    for (size_t i = 0; i < 4096; i++) {
        if (a[i] != val(left, i, 11))
            CHECK_EQ("two streams: a word from the left", val(left, i, 11), a[i]);
        if (b[i] != val(right, i, 12))
            CHECK_EQ("two streams: b word from the right", val(right, i, 12), b[i]);
    }
    CHECK_EQ("synchronize s1", 0, shmemx_stream_synchronize(s1));
    CHECK_EQ("synchronize s2", 0, shmemx_stream_synchronize(s2));
    shmem_barrier_all();
    free(sa);
    free(sb);
}

static void test_destroy_drains(void)
{
    static uint64_t target[1000];
    uint64_t *src = malloc(sizeof(target)), got = 0;
    CHECK(src != NULL, "malloc");
    shmemx_stream_t s;
    CHECK_EQ("create", 0, shmemx_stream_create(&s));
    for (size_t i = 0; i < 1000; i++) {
        src[i] = val(me, i, 21);
        aclshmemx_putmem_on_stream(&target[i], &src[i], sizeof(uint64_t), right, s);
    }
    aclshmemx_signal_op_on_stream(&sg->destroy, 1, ACLSHMEM_SIGNAL_SET, right, s);
    aclshmemx_getmem_on_stream(&got, &target[999], sizeof(uint64_t), right, s);
    CHECK_EQ("destroy", 0, shmemx_stream_destroy(s));
    /* Drained: my get ran after my own puts to the right neighbour. */
    CHECK_EQ("destroy: get enqueued before destroy", val(me, 999, 21), got);
    wait_eq(&sg->destroy, 1, "destroy drains");
    for (size_t i = 0; i < 1000; i++)
        CHECK_EQ("destroy: word put before destroy", val(left, i, 21), target[i]);
    shmem_barrier_all();
    free(src);
}

static void test_default_stream(void)
{
    static uint64_t d[512];
    uint64_t *src = malloc(sizeof(d));
    CHECK(src != NULL, "malloc");
    for (size_t i = 0; i < 512; i++)
        src[i] = val(me, i, 31);
    aclshmemx_putmem_on_stream(d, src, sizeof(d), right, NULL);
    aclshmemx_signal_op_on_stream(&sg->dflt, 1, ACLSHMEM_SIGNAL_SET, right, NULL);
    aclshmemx_barrier_all_on_stream(NULL);
    CHECK_EQ("synchronize NULL", 0, shmemx_stream_synchronize(NULL));
    CHECK_EQ("default stream: signal after the barrier", 1, sg->dflt);
    for (size_t i = 0; i < 512; i++)
        CHECK_EQ("default stream: word", val(left, i, 31), d[i]);
    CHECK_EQ("destroy NULL", 0, shmemx_stream_destroy(NULL));
    CHECK_EQ("destroy NULL again", 0, shmemx_stream_destroy(NULL));
    shmem_barrier_all();
    free(src);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    sg = shmem_calloc(1, sizeof(*sg));
    CHECK(sg != NULL, "shmem_calloc");

    shmemx_stream_t s1, s2;
    CHECK_EQ("create s1", 0, shmemx_stream_create(&s1));
    CHECK_EQ("create s2", 0, shmemx_stream_create(&s2));
    CHECK(s1 != NULL && s2 != NULL && s1 != s2, "two distinct streams");
    test_order(s1);
    test_get(s1);
    test_wait(s2);
    test_barrier(s1);
    test_many(s2);
    test_two_streams(s1, s2);
    test_destroy_drains();
    test_default_stream();
    CHECK_EQ("destroy s1", 0, shmemx_stream_destroy(s1));
    CHECK_EQ("destroy s2", 0, shmemx_stream_destroy(s2));
    shmem_free(sg);
    shmem_finalize();
    return 0;
}
