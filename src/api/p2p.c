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

#include "ops/p2p_scan.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "shmem.h"
#include "api/profile.h"

/* The C11 generic selections of shmem.h share these names. */
#undef shmem_wait_until
#undef shmem_test

/* The all/any/some families (scalar or _vector comparison value), each a
 * call of the shared scan. WAIT: 1 for wait_until_*, 0 for test_*; the
 * _vector forms are told apart by the value parameter's name. */
#define SUFFIX_cmp_value
#define SUFFIX_cmp_values _vector
#define FAM_NAME(N, OP, KIND, PNAME) FAM_NAME_(N, OP, KIND, SUFFIX_##PNAME)
#define FAM_NAME_(N, OP, KIND, SFX) FAM_NAME__(N, OP, KIND, SFX)
#define FAM_NAME__(N, OP, KIND, SFX) shmem_##N##_##OP##_##KIND##SFX
#define DEF_FAMILY(T, N, OP, WAIT, PT, PNAME, VALS, VAL)                                     \
    ALL_TYPE_##WAIT FAM_NAME(N, OP, all, PNAME)(T *ivars, size_t nelems, const int *status,  \
                                               int cmp, PT PNAME)                            \
    {                                                                                        \
        ALL_RETURN_##WAIT symm_p2p_sync_##N(__func__, WAIT, ivars, nelems, status, cmp,      \
                                            VALS, VAL, SCAN_ALL, NULL);                      \
    }                                                                                        \
    size_t FAM_NAME(N, OP, any, PNAME)(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       PT PNAME)                                             \
    {                                                                                        \
        return symm_p2p_sync_##N(__func__, WAIT, ivars, nelems, status, cmp, VALS, VAL,      \
                                 SCAN_ANY, NULL);                                            \
    }                                                                                        \
    size_t FAM_NAME(N, OP, some, PNAME)(T *ivars, size_t nelems, size_t *indices,            \
                                        const int *status, int cmp, PT PNAME)                \
    {                                                                                        \
        return symm_p2p_sync_##N(__func__, WAIT, ivars, nelems, status, cmp, VALS, VAL,      \
                                 SCAN_SOME, indices);                                        \
    }
/* wait_until_all returns nothing; test_all returns 1 when all qualify. */
#define ALL_TYPE_1 void
#define ALL_TYPE_0 int
#define ALL_RETURN_1 (void)
#define ALL_RETURN_0 return (int)

#define DEF_P2P(T, N)                                                                        \
    SYMM_DEF_P2P_SCAN(N, T)                                                                  \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                               \
    {                                                                                        \
        symm_instance_t *s = symm_inst(__func__);                                           \
        unsigned polls = 0;                                                                  \
        symm_check_cmp(cmp, __func__);                                                       \
        while (!SYMM_CMP_EVAL(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value))      \
            symm_wait_backoff(s, &polls);                                                    \
    }                                                                                        \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                      \
    {                                                                                        \
        return (int)symm_p2p_sync_##N(__func__, 0, ivar, 1, NULL, cmp, NULL, cmp_value,      \
                                      SCAN_ALL, NULL);                                       \
    }                                                                                        \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                              \
    {                                                                                        \
        shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                               \
    }                                                                                        \
    DEF_FAMILY(T, N, wait_until, 1, const T, cmp_value, NULL, cmp_value)                     \
    DEF_FAMILY(T, N, wait_until, 1, const T *, cmp_values, cmp_values, 0)                    \
    DEF_FAMILY(T, N, test, 0, const T, cmp_value, NULL, cmp_value)                           \
    DEF_FAMILY(T, N, test, 0, const T *, cmp_values, cmp_values, 0)                          \
    SYMM_PALIAS(shmem_##N##_wait_until) SYMM_PALIAS(shmem_##N##_wait_until_all)              \
    SYMM_PALIAS(shmem_##N##_wait_until_any) SYMM_PALIAS(shmem_##N##_wait_until_some)         \
    SYMM_PALIAS(shmem_##N##_wait_until_all_vector)                                           \
    SYMM_PALIAS(shmem_##N##_wait_until_any_vector)                                           \
    SYMM_PALIAS(shmem_##N##_wait_until_some_vector) SYMM_PALIAS(shmem_##N##_test)            \
    SYMM_PALIAS(shmem_##N##_test_all) SYMM_PALIAS(shmem_##N##_test_any)                      \
    SYMM_PALIAS(shmem_##N##_test_some) SYMM_PALIAS(shmem_##N##_test_all_vector)              \
    SYMM_PALIAS(shmem_##N##_test_any_vector) SYMM_PALIAS(shmem_##N##_test_some_vector)       \
    SYMM_PALIAS(shmem_##N##_wait)
SHMEM_P2P_TYPES(DEF_P2P)

void shmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}

void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
SYMM_PALIAS(shmem_wait_until) SYMM_PALIAS(shmem_wait)
