/*
 * shmem_sync.c - ordering and barrier entry points.
 */
#include "ops/sync.h"
#include "team/team.h"
#include "runtime/log.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"


void shmem_fence(void)
{
    symm_instance_t *s = symm_inst("shmem_fence");
    symm_fence(s, &s->ctx_default);
}

void shmem_quiet(void)
{
    symm_instance_t *s = symm_inst("shmem_quiet");
    symm_quiet(s, &s->ctx_default);
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    symm_instance_t *s = symm_inst("shmem_ctx_fence");
    if (ctx != SHMEM_CTX_INVALID)
        symm_fence(s, (struct symm_ctx *)ctx);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    symm_instance_t *s = symm_inst("shmem_ctx_quiet");
    if (ctx != SHMEM_CTX_INVALID)
        symm_quiet(s, (struct symm_ctx *)ctx);
}

/* OpenSHMEM 1.6. */
void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    symm_instance_t *s = symm_inst(__func__);
    symm_pe_quiet(s, &s->ctx_default, target_pes, npes, __func__);
}

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    symm_instance_t *s = symm_inst(__func__);
    if (ctx != SHMEM_CTX_INVALID)
        symm_pe_quiet(s, (struct symm_ctx *)ctx, target_pes, npes, __func__);
}

void shmem_barrier_all(void)
{
    symm_instance_t *s = symm_inst(__func__);
    SYMM_DOING_SCOPE(symm_team_doing(s->team_world, __func__, -1, 0));
    symm_barrier_world(s, 1);
}

void shmem_sync_all(void)
{
    symm_instance_t *s = symm_inst(__func__);
    SYMM_DOING_SCOPE(symm_team_doing(s->team_world, __func__, -1, 0));
    symm_barrier_world(s, 0);
}

SYMM_PALIAS(shmem_fence)
SYMM_PALIAS(shmem_quiet)
SYMM_PALIAS(shmem_ctx_fence)
SYMM_PALIAS(shmem_ctx_quiet)
SYMM_PALIAS(shmem_pe_quiet)
SYMM_PALIAS(shmem_ctx_pe_quiet)
SYMM_PALIAS(shmem_barrier_all)
SYMM_PALIAS(shmem_sync_all)
