/*
 * shmem_team.c - team entry points: queries, splits, destroy, sync, team
 * contexts and team_ptr. The work is in team/team.c.
 */
#include <stdlib.h>

#include "api/shmem/shmem_profile.h"
#include "mem/seg.h"
#include "runtime/log.h"
#include "shmem.h"
#include "shmemx.h"
#include "team/team.h"

#define TEAM(t) ((struct symm_team *)(t))

int shmem_team_my_pe(shmem_team_t team)
{
    symm_inst(__func__);
    return team == SHMEM_TEAM_INVALID ? -1 : TEAM(team)->my_idx;
}

int shmem_team_n_pes(shmem_team_t team)
{
    symm_inst(__func__);
    return team == SHMEM_TEAM_INVALID ? -1 : TEAM(team)->size;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    symm_inst(__func__);
    if (team == SHMEM_TEAM_INVALID || config == NULL)
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = TEAM(team)->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    symm_inst(__func__);
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || src_pe < 0 ||
        src_pe >= TEAM(src_team)->size)
        return -1;
    int world = TEAM(src_team)->members[src_pe];
    if (dest_team == SHMEM_TEAM_WORLD)
        return world;
    return symm_team_index_of(TEAM(dest_team), world);
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    symm_instance_t *s = symm_inst(__func__);
    struct symm_team *t = NULL;
    if (new_team == NULL)
        symm_fatal(__func__, "new_team is NULL");
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID) {
        if (s->debug)
            symm_error(__func__, "parent team is SHMEM_TEAM_INVALID");
        return -1;
    }
    int rc = symm_team_split(TEAM(parent_team), start, stride, size, config, config_mask, &t,
                             __func__);
    *new_team = (shmem_team_t)t;
    return rc == 0 ? 0 : -1;
}

int shmemx_team_create_group(const int *pes, int npes, const shmem_team_config_t *config,
                             long config_mask, shmem_team_t *new_team)
{
    symm_instance_t *s = symm_inst(__func__);
    struct symm_team *t = NULL;
    if (new_team == NULL)
        symm_fatal(__func__, "new_team is NULL");
    int rc = symm_team_create_group(s, pes, npes, config, config_mask, &t, __func__);
    *new_team = rc == 0 ? (shmem_team_t)t : SHMEM_TEAM_INVALID;
    return rc == 0 ? 0 : -1;
}

int shmemx_team_index(shmem_team_t team)
{
    symm_inst(__func__);
    return team == SHMEM_TEAM_INVALID ? -1 : TEAM(team)->slot;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    symm_instance_t *s = symm_inst(__func__);
    struct symm_team *x = NULL, *y = NULL;
    if (xaxis_team == NULL || yaxis_team == NULL)
        symm_fatal(__func__, "xaxis_team or yaxis_team is NULL");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID) {
        if (s->debug)
            symm_error(__func__, "parent team is SHMEM_TEAM_INVALID");
        return -1;
    }
    int rc = symm_team_split_2d(TEAM(parent_team), xrange, xaxis_config, xaxis_mask, &x,
                                yaxis_config, yaxis_mask, &y, __func__);
    *xaxis_team = (shmem_team_t)x;
    *yaxis_team = (shmem_team_t)y;
    return rc == 0 ? 0 : -1;
}

void shmem_team_destroy(shmem_team_t team)
{
    symm_inst(__func__);
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (TEAM(team)->predefined)
        symm_fatal(__func__, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed");
    symm_team_destroy(TEAM(team));
}

int shmem_team_sync(shmem_team_t team)
{
    symm_inst(__func__);
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    SYMM_DOING_SCOPE(symm_team_doing(TEAM(team), __func__, -1, 0));
    symm_team_barrier(TEAM(team), 0);
    return 0;
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (ctx == NULL)
        symm_fatal(__func__, "ctx is NULL");
    *ctx = SHMEM_CTX_INVALID;
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    shmem_ctx_t c;
    if (shmem_ctx_create(options, &c) != 0)
        return -1;
    struct symm_ctx *sc = (struct symm_ctx *)c;
    sc->team = TEAM(team);
    sc->pe_map = team == SHMEM_TEAM_WORLD ? NULL : TEAM(team)->members;
    sc->team_size = TEAM(team)->size;
    *ctx = c;
    return 0;
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    symm_instance_t *s = symm_inst(__func__);
    if (team == SHMEM_TEAM_INVALID || pe < 0 || pe >= TEAM(team)->size)
        return NULL;
    int world = TEAM(team)->members[pe];
    void *p = symm_seg_peer_addr(s, dest, world);
    return p != NULL && world == s->my_pe ? (void *)dest : p;
}

SYMM_PALIAS(shmem_team_my_pe) SYMM_PALIAS(shmem_team_n_pes) SYMM_PALIAS(shmem_team_get_config)
SYMM_PALIAS(shmem_team_translate_pe) SYMM_PALIAS(shmem_team_split_strided)
SYMM_PALIAS(shmem_team_split_2d) SYMM_PALIAS(shmem_team_destroy) SYMM_PALIAS(shmem_team_sync)
SYMM_PALIAS(shmem_team_create_ctx) SYMM_PALIAS(shmem_team_ptr)
