/*
 * sync.c - barrier_all, sync_all, wait_until/test, fence and quiet.
 *
 *  - 1000 barrier_all in a row, each PE putting the iteration's value into
 *    every PE between them: after each barrier every slot is exact.
 *  - sync_all (with quiet before it, as it completes nothing itself).
 *  - For every P2P type and every comparison operator: test() is false
 *    before, the left neighbour puts a satisfying value after a short
 *    pause, wait_until returns, the variable holds exactly that value and
 *    test() is true. A second round on signed types checks comparisons
 *    across zero (a signed variable must not compare as unsigned).
 *  - fence: data, fence, flag; the receiver waits on the flag and finds the
 *    data. quiet: put_nbi data, quiet, flag; same check.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

static int me, npes, left, right;

static long bval(int it, int pe) { return (long)(test_hash4(1, (uint64_t)it, (uint64_t)pe, 0) >> 2); }

static void test_barrier(void)
{
    long *slots = shmem_calloc(2 * (size_t)npes, sizeof(long));
    CHECK(slots != NULL, "shmem_calloc expected memory got NULL");
    for (int it = 0; it < 1000; it++) {
        long *mine = &slots[(size_t)(it % 2) * (size_t)npes];
        /* Slot parity it%2 was last read in iteration it-2, before the
         * barrier of it-1 that every writer has passed by now. */
        for (int k = 0; k < npes; k++)
            shmem_long_p(&mine[me], bval(it, me), (me + k) % npes);
        shmem_barrier_all();
        for (int s = 0; s < npes; s++)
            CHECK(mine[s] == bval(it, s), "after barrier %d, slot of PE %d expected %ld got %ld", it,
                  s, bval(it, s), mine[s]);
    }
    shmem_barrier_all();
    for (int it = 0; it < 200; it++) {
        long *mine = &slots[(size_t)(it % 2) * (size_t)npes];
        long v = bval(it + 5000, me);
        for (int k = 0; k < npes; k++)
            shmem_long_put_nbi(&mine[me], &v, 1, (me + k) % npes);
        shmem_quiet(); /* sync_all synchronizes, it completes nothing */
        shmem_sync_all();
        for (int s = 0; s < npes; s++)
            CHECK(mine[s] == bval(it + 5000, s), "after quiet + sync_all %d, slot of PE %d expected "
                  "%ld got %ld", it, s, bval(it + 5000, s), mine[s]);
    }
    shmem_barrier_all();
    shmem_free(slots);
}

/* Give the waiter time to be waiting; correctness never depends on it. */
static void pause_a_little(void)
{
    for (int i = 0; i < 20; i++)
        sched_yield();
}

static const char *const cmp_name[6] = {"EQ", "NE", "GT", "LE", "LT", "GE"};

/* Round A: values with the same order signed or unsigned. For operator c:
 * init does not satisfy (ivar c 10), final does. */
static const long init_a[6] = {0, 10, 10, 11, 10, 9};
static const long final_a[6] = {10, 11, 11, 10, 9, 10};
/* Round B (signed types): across zero, compared with -3. */
static const long init_b[6] = {0, -3, -3, 2, -3, -4};
static const long final_b[6] = {-3, 5, 2, -3, -4, 7};

#define DEF_P2P(T, N)                                                                          \
    static T ivar_##N[2];                                                                      \
    static void p2p_##N(void)                                                                  \
    {                                                                                          \
        for (int c = SHMEM_CMP_EQ; c <= SHMEM_CMP_GE; c++) {                                   \
            T *iv = &ivar_##N[c % 2];                                                          \
            *iv = (T)init_a[c];                                                                \
            shmem_barrier_all();                                                               \
            CHECK(shmem_##N##_test(iv, c, (T)10) == 0,                                         \
                  "shmem_%s_test(%ld %s 10) expected 0 got 1", #N, init_a[c], cmp_name[c]);    \
            shmem_barrier_all(); /* my test read init before the left neighbour's put */      \
            pause_a_little();                                                                  \
            shmem_##N##_p(iv, (T)final_a[c], right);                                           \
            shmem_##N##_wait_until(iv, c, (T)10);                                              \
            CHECK(*iv == (T)final_a[c], "after shmem_%s_wait_until(%s 10) expected %ld got %lld", \
                  #N, cmp_name[c], final_a[c], (long long)*iv);                                \
            CHECK(shmem_##N##_test(iv, c, (T)10) == 1,                                         \
                  "shmem_%s_test(%ld %s 10) expected 1 got 0", #N, final_a[c], cmp_name[c]);   \
            shmem_barrier_all();                                                               \
        }                                                                                      \
        if ((T)-1 > 0)                                                                         \
            return;                                                                            \
        for (int c = SHMEM_CMP_EQ; c <= SHMEM_CMP_GE; c++) {                                   \
            T *iv = &ivar_##N[c % 2];                                                          \
            *iv = (T)init_b[c];                                                                \
            shmem_barrier_all();                                                               \
            int before = shmem_##N##_test(iv, c, (T)-3);                                       \
            shmem_barrier_all();                                                               \
            shmem_##N##_p(iv, (T)final_b[c], right);                                           \
            shmem_barrier_all();                                                               \
            CHECK(before == 0, "shmem_%s_test(%ld %s -3) expected 0 got %d", #N, init_b[c],    \
                  cmp_name[c], before);                                                        \
            int after = shmem_##N##_test(iv, c, (T)-3);                                        \
            CHECK(after == 1, "shmem_%s_test(%ld %s -3) expected 1 got %d", #N, final_b[c],    \
                  cmp_name[c], after);                                                         \
            shmem_##N##_wait_until(iv, c, (T)-3); /* satisfied: returns at once */             \
            shmem_barrier_all();                                                               \
        }                                                                                      \
    }
SHMEM_P2P_TYPES(DEF_P2P)

#define RUN_P2P(T, N) p2p_##N();

/* The C11 generic wait_until/test and the deprecated wait forms. */
static long gen_long;
static unsigned short gen_ushort;

static void test_p2p_generic(void)
{
    gen_long = 1;
    gen_ushort = 7;
    shmem_barrier_all();
    CHECK(shmem_test(&gen_long, SHMEM_CMP_EQ, 2L) == 0, "generic shmem_test(1 EQ 2) expected 0 got 1");
    CHECK(shmem_test(&gen_ushort, SHMEM_CMP_GT, (unsigned short)7) == 0,
          "generic shmem_test(7 GT 7) expected 0 got 1");
    shmem_barrier_all();
    pause_a_little();
    shmem_long_p(&gen_long, 2, right);
    shmem_ushort_p(&gen_ushort, 60000, right);
    shmem_wait_until(&gen_long, SHMEM_CMP_EQ, 2L);
    shmem_wait_until(&gen_ushort, SHMEM_CMP_GT, (unsigned short)7);
    CHECK_EQ("gen_long after generic wait_until", 2, gen_long);
    CHECK_EQ("gen_ushort after generic wait_until", 60000, gen_ushort);
    shmem_barrier_all();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    shmem_barrier_all();
    pause_a_little();
    shmem_long_p(&gen_long, 3, right);
    shmem_long_wait(&gen_long, 2); /* until it is no longer 2 */
    CHECK_EQ("gen_long after shmem_long_wait", 3, gen_long);
    shmem_barrier_all();
    shmem_long_p(&gen_long, 4, right);
    shmem_wait(&gen_long, 3);
    CHECK_EQ("gen_long after shmem_wait", 4, gen_long);
    shmem_barrier_all();
#pragma GCC diagnostic pop
}

#define NDATA 4096

static void test_fence_quiet(void)
{
    long *data = shmem_malloc(NDATA * sizeof(long));
    long *flag = shmem_calloc(1, sizeof(long));
    long *src = malloc(NDATA * sizeof(long));
    CHECK(data != NULL && flag != NULL && src != NULL, "allocation expected memory got NULL");
    for (int it = 1; it <= 60; it++) {
        for (int i = 0; i < NDATA; i++)
            src[i] = bval(it * 10000 + i, me);
        switch (it % 4) {
        case 0: /* put, fence, flag */
            shmem_long_put(data, src, NDATA, right);
            shmem_fence();
            shmem_long_p(flag, it, right);
            break;
        case 1: /* put_nbi, fence, flag */
            shmem_long_put_nbi(data, src, NDATA, right);
            shmem_fence();
            shmem_long_p(flag, it, right);
            break;
        case 2: /* ctx forms */
            shmem_ctx_long_put_nbi(SHMEM_CTX_DEFAULT, data, src, NDATA, right);
            shmem_ctx_fence(SHMEM_CTX_DEFAULT);
            shmem_ctx_long_p(SHMEM_CTX_DEFAULT, flag, it, right);
            break;
        default: /* put_nbi, quiet, flag */
            shmem_long_put_nbi(data, src, NDATA, right);
            shmem_quiet();
            shmem_long_p(flag, it, right);
            break;
        }
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, it);
        for (int i = 0; i < NDATA; i++)
            CHECK(data[i] == bval(it * 10000 + i, left),
                  "iteration %d: data[%d] after the flag expected %ld got %ld", it, i,
                  bval(it * 10000 + i, left), data[i]);
        /* The source buffer of a quieted put_nbi may be reused at once. */
        shmem_barrier_all();
    }
    /* quiet then a get of what was put. */
    for (int i = 0; i < NDATA; i++)
        src[i] = bval(777 + i, me);
    shmem_long_put_nbi(data, src, NDATA, right);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    long back[16];
    shmem_long_get(back, data, 16, right);
    for (int i = 0; i < 16; i++)
        CHECK(back[i] == bval(777 + i, me), "get after put_nbi and quiet, element %d expected %ld got %ld",
              i, bval(777 + i, me), back[i]);
    shmem_barrier_all();
    free(src);
    shmem_free(flag);
    shmem_free(data);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    test_barrier();
    SHMEM_P2P_TYPES(RUN_P2P)
    test_p2p_generic();
    test_fence_quiet();
    if (me == 0)
        printf("sync: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
