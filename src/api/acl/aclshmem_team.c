/*
 * aclshmem_team.c - aclshmem teams (int handles) and barriers.
 *
 * aclshmem_team_t is an int, as in CANN: 0 is the world team of the current
 * instance, other handles index a table of symm teams (shmem_team_t) made by
 * the split routines here. A handle names a team of one instance; used while
 * another instance is current it is invalid. Every routine forwards to the
 * OpenSHMEM team routine or the core barrier.
 *
 * Must never: give a handle to a team this PE is not a member of (a split
 * reports ACLSHMEM_TEAM_INVALID there), or reuse a handle before its team is
 * destroyed.
 */
#include <pthread.h>
#include <string.h>

#include "aclshmem.h"
#include "api/acl/acl_api.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/state.h"
#include "shmem.h"
#include "shmemx.h"
#include "team/team.h"

#define TEAM(t) ((struct symm_team *)(t))

/* A handle's team and its instance (kept here so that forgetting the teams
 * of a finalized instance never reads freed memory). */
typedef struct acl_team {
    shmem_team_t team;
    symm_instance_t *inst;
} acl_team_t;

static pthread_mutex_t team_lock = PTHREAD_MUTEX_INITIALIZER;
static acl_team_t teams[ACLSHMEM_MAX_TEAMS]; /* [0] unused: the world */

shmem_team_t symm_acl_team_lookup(int team)
{
    symm_instance_t *s = symm_cur;
    if (s == NULL)
        return SHMEM_TEAM_INVALID;
    if (team == ACLSHMEM_TEAM_WORLD)
        return (shmem_team_t)s->team_world;
    if (team <= 0 || team >= ACLSHMEM_MAX_TEAMS)
        return SHMEM_TEAM_INVALID;
    return teams[team].inst == s ? teams[team].team : SHMEM_TEAM_INVALID;
}

/* Forget every handle of inst: a RELEASE hook of every instance that got a
 * handle, so whichever API ends the instance, no handle outlives it. */
static void teams_forget(symm_instance_t *inst, void *arg)
{
    (void)arg;
    pthread_mutex_lock(&team_lock);
    for (int i = 1; i < ACLSHMEM_MAX_TEAMS; i++)
        if (teams[i].inst == inst)
            teams[i].inst = NULL;
    pthread_mutex_unlock(&team_lock);
}

/* A handle for a new team t (SHMEM_TEAM_INVALID: not a member). */
static aclshmem_team_t team_register(shmem_team_t t, const char *routine)
{
    if (t == SHMEM_TEAM_INVALID)
        return ACLSHMEM_TEAM_INVALID;
    pthread_mutex_lock(&team_lock);
    for (int i = 1; i < ACLSHMEM_MAX_TEAMS; i++) {
        if (teams[i].inst == NULL) {
            teams[i].team = t;
            teams[i].inst = TEAM(t)->inst;
            pthread_mutex_unlock(&team_lock);
            symm_on_fini(TEAM(t)->inst, SYMM_FINI_RELEASE, teams_forget, NULL);
            return i;
        }
    }
    pthread_mutex_unlock(&team_lock);
    symm_fatal(routine, "more than %d aclshmem teams alive at once", ACLSHMEM_MAX_TEAMS - 1);
}

static shmem_team_t team_of(aclshmem_team_t team, const char *routine)
{
    shmem_team_t t = symm_acl_team_lookup(team);
    if (t == SHMEM_TEAM_INVALID && symm_cur != NULL && team != ACLSHMEM_TEAM_INVALID)
        symm_acl_log(SYMM_LOG_ERROR, routine,
                     "team %d is not a team of the current instance on this PE", team);
    return t;
}

int aclshmem_team_split_strided(aclshmem_team_t parent_team, int pe_start, int pe_stride,
                                int pe_size, aclshmem_team_t *new_team)
{
    symm_inst(__func__);
    if (new_team == NULL) {
        symm_acl_log(SYMM_LOG_ERROR, __func__, "new_team is NULL");
        return ACLSHMEM_INVALID_PARAM;
    }
    *new_team = ACLSHMEM_TEAM_INVALID;
    shmem_team_t p = team_of(parent_team, __func__), t;
    if (p == SHMEM_TEAM_INVALID)
        return ACLSHMEM_INVALID_PARAM;
    if (shmem_team_split_strided(p, pe_start, pe_stride, pe_size, NULL, 0, &t) != 0)
        return ACLSHMEM_INVALID_PARAM;
    *new_team = team_register(t, __func__);
    return ACLSHMEM_SUCCESS;
}

int aclshmem_team_split_2d(aclshmem_team_t parent_team, int x_range, aclshmem_team_t *x_team,
                           aclshmem_team_t *y_team)
{
    symm_inst(__func__);
    if (x_team == NULL || y_team == NULL) {
        symm_acl_log(SYMM_LOG_ERROR, __func__, "x_team or y_team is NULL");
        return ACLSHMEM_INVALID_PARAM;
    }
    *x_team = *y_team = ACLSHMEM_TEAM_INVALID;
    shmem_team_t p = team_of(parent_team, __func__), x, y;
    if (p == SHMEM_TEAM_INVALID)
        return ACLSHMEM_INVALID_PARAM;
    if (shmem_team_split_2d(p, x_range, NULL, 0, &x, NULL, 0, &y) != 0)
        return ACLSHMEM_INVALID_PARAM;
    *x_team = team_register(x, __func__);
    *y_team = team_register(y, __func__);
    return ACLSHMEM_SUCCESS;
}

int aclshmem_team_translate_pe(aclshmem_team_t src_team, int src_pe, aclshmem_team_t dest_team)
{
    if (symm_cur == NULL)
        return -1;
    shmem_team_t src = team_of(src_team, __func__), dst = team_of(dest_team, __func__);
    if (src == SHMEM_TEAM_INVALID || dst == SHMEM_TEAM_INVALID)
        return -1;
    return shmem_team_translate_pe(src, src_pe, dst);
}

void aclshmem_team_destroy(aclshmem_team_t team)
{
    symm_inst(__func__);
    if (team == ACLSHMEM_TEAM_WORLD) {
        symm_acl_log(SYMM_LOG_ERROR, __func__, "ACLSHMEM_TEAM_WORLD cannot be destroyed");
        return;
    }
    shmem_team_t t = team_of(team, __func__);
    if (t == SHMEM_TEAM_INVALID)
        return;
    pthread_mutex_lock(&team_lock);
    teams[team].inst = NULL;
    pthread_mutex_unlock(&team_lock);
    shmem_team_destroy(t);
}

int aclshmem_team_my_pe(aclshmem_team_t team)
{
    shmem_team_t t = symm_acl_team_lookup(team);
    return t == SHMEM_TEAM_INVALID ? -1 : shmem_team_my_pe(t);
}

int aclshmem_team_n_pes(aclshmem_team_t team)
{
    shmem_team_t t = symm_acl_team_lookup(team);
    return t == SHMEM_TEAM_INVALID ? -1 : shmem_team_n_pes(t);
}

int aclshmem_team_get_config(aclshmem_team_t team, aclshmem_team_config_t *config)
{
    shmem_team_config_t c = {0};
    shmem_team_t t = team_of(team, __func__);
    if (config == NULL || t == SHMEM_TEAM_INVALID ||
        shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &c) != 0)
        return ACLSHMEM_INVALID_PARAM;
    memset(config, 0, sizeof(*config));
    config->version = (1 << 16) + (int32_t)sizeof(*config);
    config->num_contexts = c.num_contexts;
    config->uniqueid = (aclshmemx_team_uniqueid_t)team;
    return ACLSHMEM_SUCCESS;
}

shmem_team_t shmemx_team_from_aclshmem(aclshmem_team_t team)
{
    return symm_acl_team_lookup(team);
}

static struct symm_team *barrier_team(aclshmem_team_t team, const char *routine)
{
    symm_inst(routine);
    shmem_team_t t = symm_acl_team_lookup(team);
    if (t == SHMEM_TEAM_INVALID)
        symm_fatal(routine, "team %d is not a team of the current instance on this PE", team);
    return TEAM(t);
}

void aclshmem_barrier(aclshmem_team_t team)
{
    struct symm_team *t = barrier_team(team, __func__);
    SYMM_DOING_SCOPE(symm_team_doing(t, __func__, -1, 0));
    symm_team_barrier(t, 1);
}

void aclshmem_sync(aclshmem_team_t team)
{
    struct symm_team *t = barrier_team(team, __func__);
    SYMM_DOING_SCOPE(symm_team_doing(t, __func__, -1, 0));
    symm_team_barrier(t, 0);
}
void aclshmem_barrier_all(void) { shmem_barrier_all(); }
void aclshmem_sync_all(void) { shmem_sync_all(); }
