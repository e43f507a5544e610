/*
 * team.h - teams: ordered subsets of the world's PEs.
 *
 * A team maps its indices 0..size-1 to world PEs. Teams made by strided
 * splits keep (start, stride) so translation is arithmetic; SHMEM_TEAM_SHARED
 * (the PEs of this node) keeps an explicit member list.
 */
#ifndef SYMM_TEAM_H
#define SYMM_TEAM_H

#include "runtime/state.h"

struct symm_team {
    symm_instance_t *inst;
    int size;
    int my_idx;              /* my index in the team; every member has one */
    int start, stride;       /* world PE of index i: start + i*stride, if members == NULL */
    int *members;            /* else the world PE of each index */
};

static inline int symm_team_world_pe(const struct symm_team *t, int idx)
{
    return t->members ? t->members[idx] : t->start + idx * t->stride;
}

/* The predefined teams of an instance (world, shared). */
int symm_team_init_predefined(symm_instance_t *inst);
void symm_team_fini_predefined(symm_instance_t *inst);

#endif
