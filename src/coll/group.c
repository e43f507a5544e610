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

/* The next number of a collective on the active set key (0: table full,
 * not numbered). Active-set collectives are the deprecated, single-threaded
 * kind; the table is the instance's few sets in use. */
#define ACTIVE_SETS 32
static struct {
    symm_instance_t *s;
    uint64_t key, seq;
} active_sets[ACTIVE_SETS];

/* RELEASE hook: a later instance at the same address starts afresh. */
static void forget_active_sets(symm_instance_t *s, void *arg)
{
    (void)arg;
    for (int i = 0; i < ACTIVE_SETS; i++)
        if (active_sets[i].s == s)
            active_sets[i].s = NULL;
}

static uint64_t active_seq(symm_instance_t *s, uint64_t key)
{
    int free_i = -1;
    for (int i = 0; i < ACTIVE_SETS; i++) {
        if (active_sets[i].s == s && active_sets[i].key == key)
            return ++active_sets[i].seq;
        if (free_i < 0 && active_sets[i].s == NULL)
            free_i = i;
    }
    if (free_i < 0)
        return 0;
    symm_on_fini(s, SYMM_FINI_RELEASE, forget_active_sets, NULL);
    active_sets[free_i].s = s;
    active_sets[free_i].key = key;
    return active_sets[free_i].seq = 1;
}

int symm_group_doing(const symm_group_t *g, const char *routine, int root, uint64_t nbytes)
{
    if (g->team != NULL)
        return symm_team_doing(g->team, routine, root, nbytes);
    /* An active set's collectives are numbered per (start, stride, size)
     * here: every member calls the same sequence on it. */
    uint64_t key = ((uint64_t)(uint32_t)g->start << 40) ^ ((uint64_t)(uint32_t)g->stride << 20) ^
                   (uint64_t)g->size;
    symm_doing_t d = {.routine = routine, .kind = SYMM_DOING_COLL,
                      .team_name = "an active set", .seq = active_seq(g->s, key),
                      .root = root, .nbytes = nbytes};
    if (!symm_doing_begin(&d))
        return 0;
    /* One signature slot per set (by key): a member that moved on to
     * another set's collective does not overwrite this one. */
    if (g->s->debug && g->size > 1 && d.seq != 0)
        symm_coll_sig_check(g->s,
                            g->s->heap_base + SYMM_ACTIVE_SIG_OFF +
                                (size_t)(key % SYMM_ACTIVE_SIG_SLOTS) * 128,
                            NULL, g->start, g->stride, g->size, g->me, key, d.seq,
                            "an active set", routine, root, nbytes);
    return 1;
}
