/*
 * shmem_p2p.c - point-to-point synchronization: wait_until and test, with their
 * all/any/some and _vector families, generated from the P2P type table.
 *
 * One scan per type serves every family: it reads each included variable
 * once (atomic acquire load; other PEs update them) and reports whether all
 * qualify, the first that does, or every one that does. Waiting is a loop
 * over a scan with symm_wait_backoff, so 4 PEs on 2 cores never crawl and a
 * network transport makes progress. The routines come from the generator
 * aclshmem's share (api/api_p2p_gen.h); below, OpenSHMEM's conventions for it.
 */
#include <stdint.h>

#include "api/api_p2p_gen.h"
#include "ops/p2p_scan.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"

/* The C11 generic selections of shmem.h share these names. */
#undef shmem_wait_until
#undef shmem_test

/* wait_until and wait_until_all return nothing; test and test_all 1 when
 * all qualify; any and some the index or the count. */
#define SYMM_P2P_RET_shmem_none void
#define SYMM_P2P_RET_shmem_flag int
#define SYMM_P2P_RET_shmem_count size_t
#define SYMM_P2P_OUT_shmem_none
#define SYMM_P2P_OUT_shmem_flag
#define SYMM_P2P_OUT_shmem_count
#define SYMM_P2P_GIVE_shmem_none(x) (void)(x);
#define SYMM_P2P_GIVE_shmem_flag(x) return (int)(x);
#define SYMM_P2P_GIVE_shmem_count(x) return (x);
#define SYMM_P2P_VEC_shmem(T) const T *
#define SYMM_P2P_CMP_shmem(cmp) (cmp)
#define SYMM_P2P_ALIAS_shmem(name) SYMM_PALIAS(name)
#define SYMM_P2P_TEST_ALL_shmem(def) def

/* shmem_N_wait calls shmem_N_wait_until (fwd of N). */
#define DEF_P2P(T, N)                                                                        \
    SYMM_DEF_P2P_SCAN(N, T)                                                                  \
    SYMM_P2P_ROUTINES(shmem, N, T, scan, N)                                                  \
    SYMM_P2P_WAIT(shmem, N, T, fwd, N)
SHMEM_P2P_TYPES(DEF_P2P)

void shmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}

void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
SYMM_PALIAS(shmem_wait_until) SYMM_PALIAS(shmem_wait)
