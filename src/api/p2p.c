/*
 * p2p.c - point-to-point synchronization: wait_until and test, with their
 * all/any/some and _vector families, generated from the P2P type table.
 *
 * One scan per type serves every family: it reads each included variable
 * once (atomic acquire load; other PEs update them) and reports whether all
 * qualify, the first that does, or every one that does. Waiting is a loop
 * over a scan with symm_wait_backoff, so 4 PEs on 2 cores never crawl and a
 * network transport makes progress.
 */
#include <stdint.h>

#include "ops/sync.h"
#include "runtime/log.h"
#include "shmem.h"
#include "api/profile.h"

/* The C11 generic selections of shmem.h share these names. */
#undef shmem_wait_until
#undef shmem_test

enum { SCAN_ALL, SCAN_ANY, SCAN_SOME };

/* Number of included variables that qualify (SCAN_ALL: the number that do
 * not); SCAN_ANY stops at the first and stores its index in *first. */
#define DEF_P2P_SCAN(T, N)                                                                   \
    static size_t scan_##N(T *ivars, size_t n, const int *status, int cmp, const T *vals,   \
                           T value, int mode, size_t *indices, size_t *first,               \
                           size_t *included)                                                 \
    {                                                                                        \
        size_t hits = 0, inc = 0;                                                            \
        for (size_t i = 0; i < n; i++) {                                                     \
            if (status != NULL && status[i] != 0)                                            \
                continue;                                                                    \
            inc++;                                                                           \
            T v = __atomic_load_n(&ivars[i], __ATOMIC_ACQUIRE);                              \
            int ok = SYMM_CMP_EVAL(v, cmp, vals ? vals[i] : value);                          \
            if (mode == SCAN_ALL) {                                                          \
                if (!ok)                                                                     \
                    return 1;                                                                \
            } else if (ok) {                                                                 \
                if (mode == SCAN_ANY) {                                                      \
                    *first = i;                                                              \
                    return 1;                                                                \
                }                                                                            \
                indices[hits++] = i;                                                         \
            }                                                                                \
        }                                                                                    \
        *included = inc;                                                                     \
        return mode == SCAN_ALL ? 0 : hits;                                                  \
    }                                                                                        \
    static void wait_all_##N(const char *routine, T *ivars, size_t n, const int *status,    \
                             int cmp, const T *vals, T value)                                \
    {                                                                                        \
        symm_instance_t *s = symm_inst(routine);                                            \
        size_t first, inc;                                                                   \
        unsigned polls = 0;                                                                  \
        symm_check_cmp(cmp, routine);                                                        \
        while (scan_##N(ivars, n, status, cmp, vals, value, SCAN_ALL, NULL, &first, &inc))   \
            symm_wait_backoff(s, &polls);                                                    \
    }                                                                                        \
    static size_t wait_any_##N(const char *routine, T *ivars, size_t n, const int *status,  \
                               int cmp, const T *vals, T value)                              \
    {                                                                                        \
        symm_instance_t *s = symm_inst(routine);                                            \
        size_t first = SIZE_MAX, inc;                                                        \
        unsigned polls = 0;                                                                  \
        symm_check_cmp(cmp, routine);                                                        \
        while (!scan_##N(ivars, n, status, cmp, vals, value, SCAN_ANY, NULL, &first, &inc)) { \
            if (inc == 0)                                                                    \
                return SIZE_MAX; /* nothing left to wait for */                              \
            symm_wait_backoff(s, &polls);                                                    \
        }                                                                                    \
        return first;                                                                        \
    }                                                                                        \
    static size_t wait_some_##N(const char *routine, T *ivars, size_t n, size_t *indices,   \
                                const int *status, int cmp, const T *vals, T value)          \
    {                                                                                        \
        symm_instance_t *s = symm_inst(routine);                                            \
        size_t first, inc, hits;                                                             \
        unsigned polls = 0;                                                                  \
        symm_check_cmp(cmp, routine);                                                        \
        while ((hits = scan_##N(ivars, n, status, cmp, vals, value, SCAN_SOME, indices,      \
                                &first, &inc)) == 0) {                                       \
            if (inc == 0)                                                                    \
                return 0;                                                                    \
            symm_wait_backoff(s, &polls);                                                    \
        }                                                                                    \
        return hits;                                                                         \
    }                                                                                        \
    static void test_progress_##N(const char *routine, int cmp)                              \
    {                                                                                        \
        symm_instance_t *s = symm_inst(routine);                                            \
        symm_check_cmp(cmp, routine);                                                        \
        if (s->net)                                                                          \
            s->net->progress(s);                                                             \
    }                                                                                        \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                               \
    {                                                                                        \
        symm_instance_t *s = symm_inst(__func__);                                           \
        unsigned polls = 0;                                                                  \
        symm_check_cmp(cmp, __func__);                                                       \
        while (!SYMM_CMP_EVAL(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value))      \
            symm_wait_backoff(s, &polls);                                                    \
    }                                                                                        \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,     \
                                    T cmp_value)                                             \
    {                                                                                        \
        wait_all_##N(__func__, ivars, nelems, status, cmp, NULL, cmp_value);                 \
    }                                                                                        \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,   \
                                      T cmp_value)                                           \
    {                                                                                        \
        return wait_any_##N(__func__, ivars, nelems, status, cmp, NULL, cmp_value);          \
    }                                                                                        \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,             \
                                       const int *status, int cmp, T cmp_value)              \
    {                                                                                        \
        return wait_some_##N(__func__, ivars, nelems, indices, status, cmp, NULL, cmp_value); \
    }                                                                                        \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,       \
                                           int cmp, const T *cmp_values)                     \
    {                                                                                        \
        wait_all_##N(__func__, ivars, nelems, status, cmp, cmp_values, 0);                   \
    }                                                                                        \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,     \
                                             int cmp, const T *cmp_values)                   \
    {                                                                                        \
        return wait_any_##N(__func__, ivars, nelems, status, cmp, cmp_values, 0);            \
    }                                                                                        \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,      \
                                              const int *status, int cmp,                    \
                                              const T *cmp_values)                           \
    {                                                                                        \
        return wait_some_##N(__func__, ivars, nelems, indices, status, cmp, cmp_values, 0);  \
    }                                                                                        \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                      \
    {                                                                                        \
        test_progress_##N(__func__, cmp);                                                    \
        return SYMM_CMP_EVAL(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value);       \
    }                                                                                        \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,            \
                             T cmp_value)                                                    \
    {                                                                                        \
        size_t first, inc;                                                                   \
        test_progress_##N(__func__, cmp);                                                    \
        return !scan_##N(ivars, nelems, status, cmp, NULL, cmp_value, SCAN_ALL, NULL, &first, \
                         &inc);                                                              \
    }                                                                                        \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                T cmp_value)                                                 \
    {                                                                                        \
        size_t first = SIZE_MAX, inc;                                                        \
        test_progress_##N(__func__, cmp);                                                    \
        scan_##N(ivars, nelems, status, cmp, NULL, cmp_value, SCAN_ANY, NULL, &first, &inc); \
        return first;                                                                        \
    }                                                                                        \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                 int cmp, T cmp_value)                                       \
    {                                                                                        \
        size_t first, inc;                                                                   \
        test_progress_##N(__func__, cmp);                                                    \
        return scan_##N(ivars, nelems, status, cmp, NULL, cmp_value, SCAN_SOME, indices,     \
                        &first, &inc);                                                       \
    }                                                                                        \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                    const T *cmp_values)                                     \
    {                                                                                        \
        size_t first, inc;                                                                   \
        test_progress_##N(__func__, cmp);                                                    \
        return !scan_##N(ivars, nelems, status, cmp, cmp_values, 0, SCAN_ALL, NULL, &first,  \
                         &inc);                                                              \
    }                                                                                        \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       const T *cmp_values)                                  \
    {                                                                                        \
        size_t first = SIZE_MAX, inc;                                                        \
        test_progress_##N(__func__, cmp);                                                    \
        scan_##N(ivars, nelems, status, cmp, cmp_values, 0, SCAN_ANY, NULL, &first, &inc);   \
        return first;                                                                        \
    }                                                                                        \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                        const int *status, int cmp, const T *cmp_values)     \
    {                                                                                        \
        size_t first, inc;                                                                   \
        test_progress_##N(__func__, cmp);                                                    \
        return scan_##N(ivars, nelems, status, cmp, cmp_values, 0, SCAN_SOME, indices,      \
                        &first, &inc);                                                       \
    }                                                                                        \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                              \
    {                                                                                        \
        shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                               \
    }                                                                                        \
    SYMM_PALIAS(shmem_##N##_wait_until) SYMM_PALIAS(shmem_##N##_wait_until_all)              \
    SYMM_PALIAS(shmem_##N##_wait_until_any) SYMM_PALIAS(shmem_##N##_wait_until_some)         \
    SYMM_PALIAS(shmem_##N##_wait_until_all_vector)                                           \
    SYMM_PALIAS(shmem_##N##_wait_until_any_vector)                                           \
    SYMM_PALIAS(shmem_##N##_wait_until_some_vector) SYMM_PALIAS(shmem_##N##_test)            \
    SYMM_PALIAS(shmem_##N##_test_all) SYMM_PALIAS(shmem_##N##_test_any)                      \
    SYMM_PALIAS(shmem_##N##_test_some) SYMM_PALIAS(shmem_##N##_test_all_vector)              \
    SYMM_PALIAS(shmem_##N##_test_any_vector) SYMM_PALIAS(shmem_##N##_test_some_vector)       \
    SYMM_PALIAS(shmem_##N##_wait)
SHMEM_P2P_TYPES(DEF_P2P_SCAN)

void shmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}

void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
SYMM_PALIAS(shmem_wait_until) SYMM_PALIAS(shmem_wait)
