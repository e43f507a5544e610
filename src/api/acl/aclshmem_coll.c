/*
 * aclshmem_coll.c - team collectives in the aclshmem namespace, on
 * aclshmem_team_t handles.
 *
 * CANN's host API has barriers and syncs on a team and no data
 * collective (include/host/data_plane/aclshmem_host_cc.h); CANN names
 * every host routine as OpenSHMEM does with the aclshmem_ prefix
 * (aclshmem_team_split_strided, aclshmem_int32_put, ...). So these are
 * OpenSHMEM 1.5's team collectives under that rule: aclshmem_TYPE_broadcast,
 * _collect, _fcollect, _alltoall, _alltoalls, aclshmem_TYPE_OP_reduce over
 * CANN's type names (ACLSHMEM_TYPE_FUNC), the untyped aclshmem_*mem forms,
 * and aclshmem_team_all_gather (fcollectmem under the name CANN's tests
 * give the operation). Each resolves the handle and calls the body the
 * OpenSHMEM entry point calls (api/api_coll.h), naming itself in errors and in
 * the status record.
 */
#include <stddef.h>
#include <stdint.h>

#include "aclshmem.h"
#include "api/acl/acl_api.h"
#include "api/api_coll.h"
#include "coll/reduce_ops.h"
#include "runtime/log.h"
#include "runtime/state.h"
#include "shmem.h"

/* The team of a handle; an unknown handle is said (ACLSHMEM_TEAM_INVALID,
 * what a split gives a non-member, quietly, as OpenSHMEM's does). */
static shmem_team_t coll_team(aclshmem_team_t team, const char *routine)
{
    symm_inst(routine);
    shmem_team_t t = symm_acl_team_lookup(team);
    if (t == SHMEM_TEAM_INVALID && team != ACLSHMEM_TEAM_INVALID)
        symm_acl_log(SYMM_LOG_ERROR, routine,
                     "team %d is not a team of the current instance on this PE", team);
    return t;
}

#define ACL_COLL(CALL)                          \
    shmem_team_t t = coll_team(team, __func__); \
    return t == SHMEM_TEAM_INVALID ? ACLSHMEM_INVALID_PARAM : (CALL)

#define ACL_DEF_COLL(NAME, T)                                                                      \
    int aclshmem_##NAME##_broadcast(aclshmem_team_t team, T *dest, const T *source, size_t nelems, \
                                    int pe_root)                                                   \
    {                                                                                              \
        ACL_COLL(symm_api_broadcast(t, dest, source, nelems * sizeof(T), pe_root, __func__));      \
    }                                                                                              \
    int aclshmem_##NAME##_collect(aclshmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                              \
        ACL_COLL(symm_api_collect(t, dest, source, nelems * sizeof(T), __func__));                 \
    }                                                                                              \
    int aclshmem_##NAME##_fcollect(aclshmem_team_t team, T *dest, const T *source, size_t nelems)  \
    {                                                                                              \
        ACL_COLL(symm_api_fcollect(t, dest, source, nelems * sizeof(T), __func__));                \
    }                                                                                              \
    int aclshmem_##NAME##_alltoall(aclshmem_team_t team, T *dest, const T *source, size_t nelems)  \
    {                                                                                              \
        ACL_COLL(symm_api_alltoall(t, dest, source, nelems * sizeof(T), __func__));                \
    }                                                                                              \
    int aclshmem_##NAME##_alltoalls(aclshmem_team_t team, T *dest, const T *source, ptrdiff_t dst, \
                                    ptrdiff_t sst, size_t nelems)                                  \
    {                                                                                              \
        ACL_COLL(symm_api_alltoalls(t, dest, source, dst, sst, nelems, sizeof(T), __func__));      \
    }
SYMM_ACL_RMA_TYPES(ACL_DEF_COLL)

int aclshmem_broadcastmem(aclshmem_team_t team, void *dest, const void *source, size_t nelems,
                          int pe_root)
{
    ACL_COLL(symm_api_broadcast(t, dest, source, nelems, pe_root, __func__));
}
int aclshmem_collectmem(aclshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    ACL_COLL(symm_api_collect(t, dest, source, nelems, __func__));
}
int aclshmem_fcollectmem(aclshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    ACL_COLL(symm_api_fcollect(t, dest, source, nelems, __func__));
}
int aclshmem_alltoallmem(aclshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    ACL_COLL(symm_api_alltoall(t, dest, source, nelems, __func__));
}
int aclshmem_alltoallsmem(aclshmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems)
{
    ACL_COLL(symm_api_alltoalls(t, dest, source, dst, sst, nelems, 1, __func__));
}
int aclshmem_team_all_gather(aclshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    ACL_COLL(symm_api_fcollect(t, dest, source, nelems, __func__));
}

#define ACL_DEF_REDUCE(NAME, T, OP)                                                              \
    int aclshmem_##NAME##_##OP##_reduce(aclshmem_team_t team, T *dest, const T *source,          \
                                        size_t nreduce)                                          \
    {                                                                                            \
        ACL_COLL(symm_api_reduce(t, dest, source, nreduce, sizeof(T), symm_reduce_##NAME##_##OP, \
                                 __func__));                                                     \
    }
#define ACL_DEF_REDUCE_BIT(NAME, T) \
    ACL_DEF_REDUCE(NAME, T, and) ACL_DEF_REDUCE(NAME, T, or) ACL_DEF_REDUCE(NAME, T, xor)
#define ACL_DEF_REDUCE_ARITH(NAME, T) \
    ACL_DEF_REDUCE(NAME, T, max)      \
    ACL_DEF_REDUCE(NAME, T, min) ACL_DEF_REDUCE(NAME, T, sum) ACL_DEF_REDUCE(NAME, T, prod)
SYMM_ACL_REDUCE_BIT_TYPES(ACL_DEF_REDUCE_BIT)
SYMM_ACL_REDUCE_TYPES(ACL_DEF_REDUCE_ARITH)
