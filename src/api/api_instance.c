/*
 * api_instance.c - making an instance the one the API acts on.
 */
#include "api/api_instance.h"

#include "runtime/log.h"
#include "shmem.h"

void symm_instance_select(symm_instance_t *inst)
{
    symm_cur = inst;
    if (inst == NULL) {
        SHMEM_CTX_DEFAULT = SHMEM_CTX_INVALID;
        SHMEM_TEAM_WORLD = SHMEM_TEAM_SHARED = SHMEM_TEAM_INVALID;
        return;
    }
    SHMEM_CTX_DEFAULT = &inst->ctx_default;
    SHMEM_TEAM_WORLD = (shmem_team_t)inst->team_world;
    SHMEM_TEAM_SHARED = (shmem_team_t)inst->team_shared;
    symm_log_set_pe(inst->my_pe);
}
