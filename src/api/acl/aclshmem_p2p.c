/*
 * aclshmem_p2p.c - aclshmem point-to-point synchronization: signal_wait_until
 * and the wait/test families with CANN's signatures (results through
 * res_out) and CANN's comparison values.
 *
 * ACLSHMEM_CMP_* differ from SHMEM_CMP_* (GE and LE swap places: CANN has
 * GE 3 and LE 5, OpenSHMEM LE 3 and GE 5); acl_cmp converts at this
 * boundary and nowhere else. int16, uint16, int32, int64, uint32 and uint64
 * forward to the OpenSHMEM routines of the same width (shmem/shmem_p2p.c). OpenSHMEM has
 * no wait/test for float, int8, uint8 and char: those four instantiate the
 * same scan shmem_p2p.c uses (ops/p2p_scan.h). Both come from the generator shmem_p2p.c
 * uses (api/api_p2p_gen.h); below, aclshmem's conventions for it.
 */
#include <stdint.h>

#include "aclshmem.h"
#include "api/api_p2p_gen.h"
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

/* Every routine returns nothing; test and test_all_vector report 1/0
 * through int *res_out, any and some the index or the count through
 * size_t *res_out (either may be NULL). There is no scalar test_all. */
#define SYMM_P2P_RET_aclshmem_none void
#define SYMM_P2P_RET_aclshmem_flag void
#define SYMM_P2P_RET_aclshmem_count void
#define SYMM_P2P_OUT_aclshmem_none
#define SYMM_P2P_OUT_aclshmem_flag , int *res_out
#define SYMM_P2P_OUT_aclshmem_count , size_t *res_out
#define SYMM_P2P_GIVE_aclshmem_none(x) (void)(x);
#define SYMM_P2P_GIVE_aclshmem_flag(x)                                                       \
    int r = (int)(x);                                                                        \
    if (res_out != NULL)                                                                     \
        *res_out = r;
#define SYMM_P2P_GIVE_aclshmem_count(x)                                                      \
    size_t r = (x);                                                                          \
    if (res_out != NULL)                                                                     \
        *res_out = r;
#define SYMM_P2P_VEC_aclshmem(T) T *
#define SYMM_P2P_CMP_aclshmem(cmp) acl_cmp(cmp)
#define SYMM_P2P_ALIAS_aclshmem(name)
#define SYMM_P2P_TEST_ALL_aclshmem(def)

/* The widths OpenSHMEM has forward to shmem_S_*; float, int8, uint8 and
 * char have their own scan. */
#define ACL_P2P_FORWARD(N, T, S)                                                             \
    SYMM_P2P_ROUTINES(aclshmem, N, T, fwd, S)                                                \
    SYMM_P2P_WAIT(aclshmem, N, T, fwd, S)
#define ACL_P2P_OWN(N, T)                                                                    \
    SYMM_DEF_P2P_SCAN(N, T)                                                                  \
    SYMM_P2P_ROUTINES(aclshmem, N, T, scan, N)                                               \
    SYMM_P2P_WAIT(aclshmem, N, T, scan, N)

ACL_P2P_FORWARD(int16, int16_t, short)
ACL_P2P_FORWARD(uint16, uint16_t, ushort)
ACL_P2P_FORWARD(int32, int32_t, int32)
ACL_P2P_FORWARD(int64, int64_t, int64)
ACL_P2P_FORWARD(uint32, uint32_t, uint32)
ACL_P2P_FORWARD(uint64, uint64_t, uint64)
ACL_P2P_OWN(float, float)
ACL_P2P_OWN(int8, int8_t)
ACL_P2P_OWN(uint8, uint8_t)
ACL_P2P_OWN(char, char)
