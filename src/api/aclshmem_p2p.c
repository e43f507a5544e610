/*
 * aclshmem_p2p.c - aclshmem point-to-point synchronization: signal_wait_until
 * and the wait/test families with CANN's signatures (results through
 * res_out) and CANN's comparison values.
 *
 * ACLSHMEM_CMP_* differ from SHMEM_CMP_* (GE and LE swap places: CANN has
 * GE 3 and LE 5, OpenSHMEM LE 3 and GE 5); acl_cmp converts at this
 * boundary and nowhere else. int16, uint16, int32, int64, uint32 and uint64
 * forward to the OpenSHMEM routines of the same width (p2p.c). OpenSHMEM has
 * no wait/test for float, int8, uint8 and char: those four instantiate the
 * same scan p2p.c uses (ops/p2p_scan.h).
 */
#include <stdint.h>

#include "aclshmem.h"
#include "ops/p2p_scan.h"
#include "ops/sync.h"
#include "shmem.h"

/* The C11 generic selections of shmem.h share these names. */
#undef shmem_wait_until
#undef shmem_test

_Static_assert(sizeof(short) == sizeof(int16_t), "int16 forwards to shmem_short_*");
_Static_assert(ACLSHMEM_CMP_EQ == SHMEM_CMP_EQ && ACLSHMEM_CMP_NE == SHMEM_CMP_NE &&
                   ACLSHMEM_CMP_GT == SHMEM_CMP_GT && ACLSHMEM_CMP_LT == SHMEM_CMP_LT,
               "only GE and LE differ");

static inline int acl_cmp(int cmp)
{
    return cmp == ACLSHMEM_CMP_GE ? SHMEM_CMP_GE : cmp == ACLSHMEM_CMP_LE ? SHMEM_CMP_LE : cmp;
}

void aclshmem_signal_wait_until(int32_t *sig_addr, int cmp, int32_t cmp_val)
{
    shmem_int32_wait_until(sig_addr, acl_cmp(cmp), cmp_val);
}

/* ---- the widths OpenSHMEM has: forward --------------------------------------- */

#define ACL_P2P_FORWARD(X)                                                                   \
    X(int16, int16_t, short)                                                                 \
    X(uint16, uint16_t, ushort)                                                              \
    X(int32, int32_t, int32)                                                                 \
    X(int64, int64_t, int64)                                                                 \
    X(uint32, uint32_t, uint32)                                                              \
    X(uint64, uint64_t, uint64)

#define ACL_DEF_FORWARD(N, T, S)                                                             \
    void aclshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                            \
    {                                                                                        \
        shmem_##S##_wait_until(ivar, acl_cmp(cmp), cmp_value);                               \
    }                                                                                        \
    void aclshmem_##N##_wait(T *ivar, T cmp_value)                                           \
    {                                                                                        \
        shmem_##S##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                               \
    }                                                                                        \
    void aclshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       T cmp_value)                                          \
    {                                                                                        \
        shmem_##S##_wait_until_all(ivars, nelems, status, acl_cmp(cmp), cmp_value);          \
    }                                                                                        \
    void aclshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       T cmp_value, size_t *res_out)                         \
    {                                                                                        \
        size_t r = shmem_##S##_wait_until_any(ivars, nelems, status, acl_cmp(cmp), cmp_value); \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,            \
                                        const int *status, int cmp, T cmp_value,             \
                                        size_t *res_out)                                     \
    {                                                                                        \
        size_t r = shmem_##S##_wait_until_some(ivars, nelems, indices, status, acl_cmp(cmp), \
                                               cmp_value);                                   \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,    \
                                              int cmp, T *cmp_values)                        \
    {                                                                                        \
        shmem_##S##_wait_until_all_vector(ivars, nelems, status, acl_cmp(cmp), cmp_values);  \
    }                                                                                        \
    void aclshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,    \
                                              int cmp, T *cmp_values, size_t *res_out)       \
    {                                                                                        \
        size_t r = shmem_##S##_wait_until_any_vector(ivars, nelems, status, acl_cmp(cmp),    \
                                                     cmp_values);                            \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,     \
                                               const int *status, int cmp, T *cmp_values,    \
                                               size_t *res_out)                              \
    {                                                                                        \
        size_t r = shmem_##S##_wait_until_some_vector(ivars, nelems, indices, status,        \
                                                      acl_cmp(cmp), cmp_values);             \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test(T *ivars, int cmp, T cmp_value, int *res_out)                   \
    {                                                                                        \
        int r = shmem_##S##_test(ivars, acl_cmp(cmp), cmp_value);                           \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,        \
                                 T cmp_value, size_t *res_out)                               \
    {                                                                                        \
        size_t r = shmem_##S##_test_any(ivars, nelems, status, acl_cmp(cmp), cmp_value);     \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                  int cmp, T cmp_value, size_t *res_out)                     \
    {                                                                                        \
        size_t r = shmem_##S##_test_some(ivars, nelems, indices, status, acl_cmp(cmp),       \
                                         cmp_value);                                         \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                        T *cmp_values, int *res_out)                         \
    {                                                                                        \
        int r = shmem_##S##_test_all_vector(ivars, nelems, status, acl_cmp(cmp), cmp_values); \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                        T *cmp_values, size_t *res_out)                      \
    {                                                                                        \
        size_t r = shmem_##S##_test_any_vector(ivars, nelems, status, acl_cmp(cmp),          \
                                               cmp_values);                                  \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,           \
                                         const int *status, int cmp, T *cmp_values,          \
                                         size_t *res_out)                                    \
    {                                                                                        \
        size_t r = shmem_##S##_test_some_vector(ivars, nelems, indices, status, acl_cmp(cmp), \
                                                cmp_values);                                 \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }
ACL_P2P_FORWARD(ACL_DEF_FORWARD)

/* ---- float, int8, uint8, char: one scan over the core's primitives ------------ */

#define ACL_DEF_OWN(N, T)                                                                    \
    SYMM_DEF_P2P_SCAN(N, T)                                                                       \
    void aclshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                            \
    {                                                                                        \
        symm_p2p_sync_##N(__func__, 1, ivar, 1, NULL, acl_cmp(cmp), NULL, cmp_value, SCAN_ALL, NULL);          \
    }                                                                                        \
    void aclshmem_##N##_wait(T *ivar, T cmp_value)                                           \
    {                                                                                        \
        symm_p2p_sync_##N(__func__, 1, ivar, 1, NULL, SHMEM_CMP_NE, NULL, cmp_value, SCAN_ALL,     \
                 NULL);                                                                      \
    }                                                                                        \
    void aclshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       T cmp_value)                                          \
    {                                                                                        \
        symm_p2p_sync_##N(__func__, 1, ivars, nelems, status, acl_cmp(cmp), NULL, cmp_value, SCAN_ALL, NULL);  \
    }                                                                                        \
    void aclshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,  \
                                       T cmp_value, size_t *res_out)                         \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 1, ivars, nelems, status, acl_cmp(cmp), NULL, cmp_value,        \
                            SCAN_ANY, NULL);                                                 \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,            \
                                        const int *status, int cmp, T cmp_value,             \
                                        size_t *res_out)                                     \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 1, ivars, nelems, status, acl_cmp(cmp), NULL, cmp_value,        \
                            SCAN_SOME, indices);                                             \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,    \
                                              int cmp, T *cmp_values)                        \
    {                                                                                        \
        symm_p2p_sync_##N(__func__, 1, ivars, nelems, status, acl_cmp(cmp), cmp_values, 0, SCAN_ALL, NULL);    \
    }                                                                                        \
    void aclshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,    \
                                              int cmp, T *cmp_values, size_t *res_out)       \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 1, ivars, nelems, status, acl_cmp(cmp), cmp_values, 0,          \
                            SCAN_ANY, NULL);                                                 \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,     \
                                               const int *status, int cmp, T *cmp_values,    \
                                               size_t *res_out)                              \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 1, ivars, nelems, status, acl_cmp(cmp), cmp_values, 0,          \
                            SCAN_SOME, indices);                                             \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test(T *ivars, int cmp, T cmp_value, int *res_out)                   \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 0, ivars, 1, NULL, acl_cmp(cmp), NULL, cmp_value, SCAN_ALL,     \
                            NULL);                                                           \
        if (res_out != NULL)                                                                 \
            *res_out = (int)r;                                                               \
    }                                                                                        \
    void aclshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,        \
                                 T cmp_value, size_t *res_out)                               \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 0, ivars, nelems, status, acl_cmp(cmp), NULL, cmp_value,        \
                            SCAN_ANY, NULL);                                                 \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                  int cmp, T cmp_value, size_t *res_out)                     \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 0, ivars, nelems, status, acl_cmp(cmp), NULL, cmp_value,        \
                            SCAN_SOME, indices);                                             \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                        T *cmp_values, int *res_out)                         \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 0, ivars, nelems, status, acl_cmp(cmp), cmp_values, 0,         \
                            SCAN_ALL, NULL);                                                 \
        if (res_out != NULL)                                                                 \
            *res_out = (int)r;                                                               \
    }                                                                                        \
    void aclshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                        T *cmp_values, size_t *res_out)                      \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 0, ivars, nelems, status, acl_cmp(cmp), cmp_values, 0,         \
                            SCAN_ANY, NULL);                                                 \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }                                                                                        \
    void aclshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,           \
                                         const int *status, int cmp, T *cmp_values,          \
                                         size_t *res_out)                                    \
    {                                                                                        \
        size_t r = symm_p2p_sync_##N(__func__, 0, ivars, nelems, status, acl_cmp(cmp), cmp_values, 0,         \
                            SCAN_SOME, indices);                                             \
        if (res_out != NULL)                                                                 \
            *res_out = r;                                                                    \
    }

ACL_DEF_OWN(float, float)
ACL_DEF_OWN(int8, int8_t)
ACL_DEF_OWN(uint8, uint8_t)
ACL_DEF_OWN(char, char)
