/*
 * team.c - the predefined teams SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED.
 */
#include "team/team.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/status.h"

int symm_team_init_predefined(symm_instance_t *inst)
{
    struct symm_team *w = calloc(1, sizeof(*w));
    struct symm_team *sh = calloc(1, sizeof(*sh));
    int *members = malloc(sizeof(int) * (size_t)inst->n_local);
    if (w == NULL || sh == NULL || members == NULL)
        goto err;
    *w = (struct symm_team){inst, inst->n_pes, inst->my_pe, 0, 1, NULL};
    memcpy(members, inst->local_pes, sizeof(int) * (size_t)inst->n_local);
    *sh = (struct symm_team){inst, inst->n_local, inst->local_idx, 0, 0, members};
    inst->team_world = w;
    inst->team_shared = sh;
    return SYMM_OK;
err:
    free(members);
    free(sh);
    free(w);
    return SYMM_ERR_NOMEM;
}

void symm_team_fini_predefined(symm_instance_t *inst)
{
    if (inst->team_shared)
        free(inst->team_shared->members);
    free(inst->team_shared);
    free(inst->team_world);
    inst->team_shared = inst->team_world = NULL;
}
