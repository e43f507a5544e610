/*
 * aclshmem_types.h - the aclshmem types and constants that both aclshmem.h
 * and symm_stream.h take, with CANN's names and values
 * (host_device/shmem_common_types.h), written once.
 */
#ifndef SYMM_ACLSHMEM_TYPES_H
#define SYMM_ACLSHMEM_TYPES_H
typedef int aclshmem_team_t;
enum aclshmem_team_index_t { ACLSHMEM_TEAM_INVALID = -1, ACLSHMEM_TEAM_WORLD = 0 };
enum aclshmem_signal_op_type_t { ACLSHMEM_SIGNAL_SET = 0, ACLSHMEM_SIGNAL_ADD = 1 };
/* Not OpenSHMEM's order: GE is 3 here, 5 in SHMEM_CMP_*. */
enum aclshmem_cmp_op_type_t {
    ACLSHMEM_CMP_EQ = 0,
    ACLSHMEM_CMP_NE = 1,
    ACLSHMEM_CMP_GT = 2,
    ACLSHMEM_CMP_GE = 3,
    ACLSHMEM_CMP_LT = 4,
    ACLSHMEM_CMP_LE = 5
};
/* Names a team whose earlier operations handle_wait completes. */
typedef struct aclshmem_handle_t {
    aclshmem_team_t team_id;
} aclshmem_handle_t;
#endif
