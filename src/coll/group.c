/*
 * group.c - the groups collectives run over: a team, or a deprecated active
 * set with the user's pSync.
 *
 * Owns the layout decisions: which scratch words of a team slot, and which
 * pSync words of an active set, hold the collect count and the arrivals of
 * pushed blocks. The API layer names the group; this builds it.
 */
#include "coll/coll.h"
#include "runtime/log.h"
#include "shmem.h"
#include "team/team.h"

void symm_group_of_team(symm_group_t *g, struct symm_team *t)
{
    *g = (symm_group_t){t->inst, t->size, t->my_idx, t->members, 0, 0, t, NULL,
                        (uint64_t *)(void *)(t->scratch + SYMM_TEAM_COUNT_OFF), t->all_mapped,
                        (uint64_t *)(void *)(t->scratch + SYMM_TEAM_ARRIVE_OFF)};
}

void symm_group_of_active_set(symm_group_t *g, symm_instance_t *s, int start, int log_stride,
                              int size, long *psync, const char *routine)
{
    if (size < 1 || start < 0 || log_stride < 0 || log_stride > 30)
        symm_fatal(routine, "invalid active set: PE_start %d, logPE_stride %d, PE_size %d", start,
                   log_stride, size);
    int stride = 1 << log_stride;
    long last = (long)start + (long)(size - 1) * stride;
    if (last >= s->n_pes)
        symm_fatal(routine, "active set (PE_start %d, logPE_stride %d, PE_size %d) reaches PE %ld, "
                            "outside [0,%d)", start, log_stride, size, last, s->n_pes);
    int rel = s->my_pe - start;
    if (rel < 0 || rel % stride != 0 || rel / stride >= size)
        symm_fatal(routine, "called by a PE outside the active set (PE_start %d, logPE_stride %d, "
                            "PE_size %d)", start, log_stride, size);
    if (psync == NULL)
        symm_fatal(routine, "pSync is NULL");
    *g = (symm_group_t){s, size, rel / stride, NULL, start, stride, NULL, psync,
                        (uint64_t *)(void *)&psync[SHMEM_SYNC_SIZE - 1], 1,
                        (uint64_t *)(void *)&psync[SHMEM_SYNC_SIZE - 2]};
    for (int i = 0; i < size; i++)
        if (!s->peers[start + i * stride].mapped)
            g->all_mapped = 0;
}

int symm_group_doing(const symm_group_t *g, const char *routine, int root, uint64_t nbytes)
{
    if (g->team != NULL)
        return symm_team_doing(g->team, routine, root, nbytes);
    /* An active set has no collective count its members share (each
     * pSync may serve several sets): a report names it, a mismatch check
     * skips it (seq 0). */
    symm_doing_t d = {.routine = routine, .kind = SYMM_DOING_COLL, .team_slot = -1,
                      .team_name = "an active set",
                      .team_key = ((uint64_t)(uint32_t)g->start << 40) ^
                                  ((uint64_t)(uint32_t)g->stride << 20) ^ (uint64_t)g->size,
                      .root = root, .nbytes = nbytes};
    return symm_doing_begin(&d);
}
