/*
 * api_p2p_gen.h - the one generator of the typed wait/test routines, for both
 * APIs: OpenSHMEM's (api/shmem/shmem_p2p.c) and aclshmem's (api/acl/aclshmem_p2p.c).
 *
 * SYMM_P2P_ROUTINES(API, N, T, ENGINE, S) defines, for the type T named N,
 * API_N_wait_until and API_N_test (one variable), and the all/any/some
 * families of each, scalar and _vector comparison value; SYMM_P2P_WAIT(...)
 * defines API_N_wait (wait_until not equal). ENGINE is how a routine does
 * its work:
 *   scan  the shared scan of ops/p2p_scan.h (SYMM_DEF_P2P_SCAN(N, T) before);
 *   fwd   a call of the OpenSHMEM routine of type name S, which does the same.
 *
 * What differs between the APIs is said by the file that includes this one,
 * for its API (shmem, aclshmem), by these macros:
 *   SYMM_P2P_RET_<API>_<R>      the return type of a routine of result R;
 *   SYMM_P2P_OUT_<API>_<R>      what follows the value parameter (, res_out);
 *   SYMM_P2P_GIVE_<API>_<R>(x)  the body's statement that reports x;
 *   SYMM_P2P_VEC_<API>(T)       the type of the _vector comparison values;
 *   SYMM_P2P_CMP_<API>(cmp)     cmp in OpenSHMEM numbering (SHMEM_CMP_*);
 *   SYMM_P2P_ALIAS_<API>(name)  what follows each definition (profiling);
 *   SYMM_P2P_TEST_ALL_<API>(d)  d, or nothing where the API has no scalar
 *                               test_all.
 * R, the result: none (wait_until, wait_until_all), flag (test, test_all:
 * 1 when all qualify) or count (any: the index, SIZE_MAX for none; some:
 * how many, their indices in indices[]).
 */
#ifndef SYMM_P2P_GEN_H
#define SYMM_P2P_GEN_H

#include "ops/p2p_scan.h"

/* Every routine: X(OP, WAIT, KIND, VEC, API, N, T, ENGINE, S). OP: wait_until
 * (WAIT 1) or test (WAIT 0); KIND: one (a variable), all, any, some; VEC:
 * scalar or vector comparison value. */
#define SYMM_P2P_EACH(X, API, N, T, E, S)                                                   \
    X(wait_until, 1, one, scalar, API, N, T, E, S)                                          \
    X(wait_until, 1, all, scalar, API, N, T, E, S)                                          \
    X(wait_until, 1, any, scalar, API, N, T, E, S)                                          \
    X(wait_until, 1, some, scalar, API, N, T, E, S)                                         \
    X(wait_until, 1, all, vector, API, N, T, E, S)                                          \
    X(wait_until, 1, any, vector, API, N, T, E, S)                                          \
    X(wait_until, 1, some, vector, API, N, T, E, S)                                         \
    X(test, 0, one, scalar, API, N, T, E, S)                                                \
    SYMM_P2P_TEST_ALL_##API(X(test, 0, all, scalar, API, N, T, E, S))                       \
    X(test, 0, any, scalar, API, N, T, E, S)                                                \
    X(test, 0, some, scalar, API, N, T, E, S)                                               \
    X(test, 0, all, vector, API, N, T, E, S)                                                \
    X(test, 0, any, vector, API, N, T, E, S)                                                \
    X(test, 0, some, vector, API, N, T, E, S)

#define SYMM_P2P_ROUTINES(API, N, T, E, S) SYMM_P2P_EACH(SYMM_P2P_DEF, API, N, T, E, S)

/* API_N_wait(ivar, value): wait until *ivar != value. */
#define SYMM_P2P_WAIT(API, N, T, E, S)                                                      \
    void API##_##N##_wait(T *ivar, T cmp_value)                                             \
    {                                                                                       \
        (void)(SYMM_P2P_CALL_##E(N, S, wait_until, 1, one, scalar, SHMEM_CMP_NE));          \
    }                                                                                       \
    SYMM_P2P_ALIAS_##API(API##_##N##_wait)

/* ---- one routine ------------------------------------------------------------ */

#define SYMM_P2P_DEF(OP, W, KIND, VEC, API, N, T, E, S)                                     \
    SYMM_P2P_PICK(SYMM_P2P_RET_##API, W, KIND)                                              \
    SYMM_P2P_NAME(API, N, OP, KIND, VEC)                                                    \
    (SYMM_P2P_PARAMS_##KIND(T, SYMM_P2P_VALUE_##VEC(API, T))                                \
         SYMM_P2P_PICK(SYMM_P2P_OUT_##API, W, KIND))                                        \
    {                                                                                       \
        SYMM_P2P_PICK(SYMM_P2P_GIVE_##API, W, KIND)                                         \
        (SYMM_P2P_CALL_##E(N, S, OP, W, KIND, VEC, SYMM_P2P_CMP_##API(cmp)))                \
    }                                                                                       \
    SYMM_P2P_ALIAS_##API(SYMM_P2P_NAME(API, N, OP, KIND, VEC))

/* The result of each routine, R. */
#define SYMM_P2P_R_1_one none
#define SYMM_P2P_R_1_all none
#define SYMM_P2P_R_1_any count
#define SYMM_P2P_R_1_some count
#define SYMM_P2P_R_0_one flag
#define SYMM_P2P_R_0_all flag
#define SYMM_P2P_R_0_any count
#define SYMM_P2P_R_0_some count
/* TABLE_R for the routine's R. */
#define SYMM_P2P_PICK(TABLE, W, KIND) SYMM_P2P_PICK_(TABLE, SYMM_P2P_R_##W##_##KIND)
#define SYMM_P2P_PICK_(TABLE, R) SYMM_P2P_PICK__(TABLE, R)
#define SYMM_P2P_PICK__(TABLE, R) TABLE##_##R

/* API_N_OP[_KIND][_vector] */
#define SYMM_P2P_NAME(API, N, OP, KIND, VEC)                                                \
    SYMM_P2P_NAME_(API##_##N##_##OP, SYMM_P2P_SFX_##KIND, SYMM_P2P_SFX_##VEC)
#define SYMM_P2P_NAME_(BASE, K, V) SYMM_P2P_NAME__(BASE, K, V)
#define SYMM_P2P_NAME__(BASE, K, V) BASE##K##V
#define SYMM_P2P_SFX_one
#define SYMM_P2P_SFX_all _all
#define SYMM_P2P_SFX_any _any
#define SYMM_P2P_SFX_some _some
#define SYMM_P2P_SFX_scalar
#define SYMM_P2P_SFX_vector _vector

/* The parameters, up to the comparison value; VALUE declares that. */
#define SYMM_P2P_PARAMS_one(T, VALUE) T *ivar, int cmp, VALUE
#define SYMM_P2P_PARAMS_all(T, VALUE) T *ivars, size_t nelems, const int *status, int cmp, VALUE
#define SYMM_P2P_PARAMS_any(T, VALUE) T *ivars, size_t nelems, const int *status, int cmp, VALUE
#define SYMM_P2P_PARAMS_some(T, VALUE)                                                      \
    T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, VALUE
#define SYMM_P2P_VALUE_scalar(API, T) T cmp_value
#define SYMM_P2P_VALUE_vector(API, T) SYMM_P2P_VEC_##API(T) cmp_values

/* ---- the engines: the call that does a routine's work ----------------------- */

/* scan: one variable, or the all/any/some scan, by N's functions. */
#define SYMM_P2P_CALL_scan(N, S, OP, W, KIND, VEC, CMP) SYMM_P2P_SCAN_##KIND(N, W, VEC, CMP)
#define SYMM_P2P_SCAN_one(N, W, VEC, CMP) symm_p2p_one_##N(__func__, W, ivar, CMP, cmp_value)
#define SYMM_P2P_SCAN_all(N, W, VEC, CMP) SYMM_P2P_SCAN(N, W, VEC, CMP, SCAN_ALL, NULL)
#define SYMM_P2P_SCAN_any(N, W, VEC, CMP) SYMM_P2P_SCAN(N, W, VEC, CMP, SCAN_ANY, NULL)
#define SYMM_P2P_SCAN_some(N, W, VEC, CMP) SYMM_P2P_SCAN(N, W, VEC, CMP, SCAN_SOME, indices)
#define SYMM_P2P_SCAN(N, W, VEC, CMP, MODE, INDICES)                                        \
    symm_p2p_sync_##N(__func__, W, ivars, nelems, status, CMP, SYMM_P2P_VALS_##VEC,         \
                      SYMM_P2P_VAL_##VEC, MODE, INDICES)
/* The scan's values: one for all (vals NULL), or one each. */
#define SYMM_P2P_VALS_scalar NULL
#define SYMM_P2P_VAL_scalar cmp_value
#define SYMM_P2P_VALS_vector cmp_values
#define SYMM_P2P_VAL_vector 0

/* fwd: shmem_S_OP[_KIND][_vector] with the same arguments. */
#define SYMM_P2P_CALL_fwd(N, S, OP, W, KIND, VEC, CMP)                                      \
    SYMM_P2P_NAME(shmem, S, OP, KIND, VEC)(SYMM_P2P_ARGS_##KIND(CMP, SYMM_P2P_VALUE_ARG_##VEC))
#define SYMM_P2P_ARGS_one(CMP, VALUE) ivar, CMP, VALUE
#define SYMM_P2P_ARGS_all(CMP, VALUE) ivars, nelems, status, CMP, VALUE
#define SYMM_P2P_ARGS_any(CMP, VALUE) ivars, nelems, status, CMP, VALUE
#define SYMM_P2P_ARGS_some(CMP, VALUE) ivars, nelems, indices, status, CMP, VALUE
#define SYMM_P2P_VALUE_ARG_scalar cmp_value
#define SYMM_P2P_VALUE_ARG_vector cmp_values

#endif
