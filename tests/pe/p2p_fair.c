/*
 * p2p_fair.c - any-scans do not starve (test_any, wait_until_any and their
 * _vector forms): with several variables satisfied, consecutive calls
 * without status return each of them, not always the first.
 *
 * Each PE's variables are put by its left neighbour. All NV satisfied: NV
 * consecutive calls must return NV distinct indices. Then only the odd
 * indices satisfied and index 1 excluded by status: each of the remaining
 * odd ones must come back within that many calls, never an even or
 * excluded one.
 */
#include "pe/check.h"

#define NV 7

static long lv[NV];
static uint64_t uv[NV];

#define FAIR_CHECK(T, N, ARR)                                                                      \
    do {                                                                                           \
        T cmpv[NV];                                                                                \
        for (int i = 0; i < NV; i++)                                                               \
            cmpv[i] = (T)1;                                                                        \
        const char *names[4] = {"test_any", "test_any_vector", "wait_until_any",                   \
                                "wait_until_any_vector"};                                          \
        for (int f = 0; f < 4; f++) {                                                              \
            int seen[NV] = {0};                                                                    \
            /* All satisfied, no status. */                                                        \
            for (int k = 0; k < NV; k++) {                                                         \
                size_t r = f == 0   ? shmem_##N##_test_any(ARR, NV, NULL, SHMEM_CMP_EQ, (T)1)      \
                           : f == 1 ? shmem_##N##_test_any_vector(ARR, NV, NULL, SHMEM_CMP_EQ, cmpv) \
                           : f == 2 ? shmem_##N##_wait_until_any(ARR, NV, NULL, SHMEM_CMP_EQ, (T)1) \
                                    : shmem_##N##_wait_until_any_vector(ARR, NV, NULL,             \
                                                                        SHMEM_CMP_EQ, cmpv);       \
                CHECK(r < NV, "shmem_%s_%s call %d: expected an index < %d got %zu", #N, names[f], \
                      k, NV, r);                                                                   \
                seen[r]++;                                                                         \
            }                                                                                      \
            for (int i = 0; i < NV; i++)                                                           \
                CHECK(seen[i] == 1,                                                                \
                      "shmem_%s_%s: %d calls with all %d satisfied returned index %d %d times "    \
                      "(expected each once)", #N, names[f], NV, NV, i, seen[i]);                   \
        }                                                                                          \
    } while (0)

#define FAIR_SUBSET(T, N, ARR)                                                                     \
    do {                                                                                           \
        int st[NV] = {0};                                                                          \
        st[1] = 1;                                                                                 \
        int want = 0, seen[NV] = {0};                                                              \
        for (int i = 3; i < NV; i += 2)                                                            \
            want++;                                                                                \
        for (int k = 0; k < want; k++) {                                                           \
            size_t r = k % 2 ? shmem_##N##_test_any(ARR, NV, st, SHMEM_CMP_EQ, (T)1)               \
                             : shmem_##N##_wait_until_any(ARR, NV, st, SHMEM_CMP_EQ, (T)1);        \
            CHECK(r < NV && r % 2 == 1 && r != 1,                                                  \
                  "shmem_%s_test_any/wait_until_any (odd satisfied, 1 excluded) call %d "          \
                  "returned %zu", #N, k, r);                                                       \
            seen[r]++;                                                                             \
        }                                                                                          \
        for (int i = 3; i < NV; i += 2)                                                            \
            CHECK(seen[i] == 1, "shmem_%s any-scans: index %d returned %d times in %d calls "     \
                  "(expected once)", #N, i, seen[i], want);                                        \
    } while (0)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    for (int i = 0; i < NV; i++) {
        shmem_long_p(&lv[i], 1, right);
        shmem_uint64_p(&uv[i], 1, right);
    }
    shmem_quiet();
    shmem_barrier_all();
    for (int rep = 0; rep < 3; rep++) {
        FAIR_CHECK(long, long, lv);
        FAIR_CHECK(uint64_t, uint64, uv);
    }
    shmem_barrier_all();
    for (int i = 0; i < NV; i++) {
        shmem_long_p(&lv[i], i % 2, right);
        shmem_uint64_p(&uv[i], (uint64_t)(i % 2), right);
    }
    shmem_quiet();
    shmem_barrier_all();
    for (int rep = 0; rep < 3; rep++) {
        FAIR_SUBSET(long, long, lv);
        FAIR_SUBSET(uint64_t, uint64, uv);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
