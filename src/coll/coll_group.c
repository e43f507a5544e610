/*
 * coll_group.c - the groups collectives run over: a team, or a deprecated active
 * set with the user's pSync.
 *
 * Owns the layout decisions: which scratch word of a team slot, and which
 * pSync word of an active set, holds the collect count; and the numbering
 * of a group's collectives (message tags, SHMEM_DEBUG's match). The API
 * layer names the group; this builds it.
 */
#include <pthread.h>
#include <stdlib.h>

#include "coll/coll.h"
#include "runtime/log.h"
#include "shmem.h"
#include "team/team.h"

void symm_group_of_team(symm_group_t *g, struct symm_team *t)
{
    *g = (symm_group_t){t->inst, t->size, t->my_idx, t->members, 0, 0, t, NULL,
                        (uint64_t *)(void *)(t->scratch + SYMM_TEAM_COUNT_OFF), t->all_mapped};
}

int symm_group_of_active_set(symm_group_t *g, symm_instance_t *s, int start, int log_stride,
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
    /* Undefined by the spec; the programs that exist (Open MPI's verifier
     * suite) expect the call to return, as it does in Open MPI: at once,
     * nothing sent or waited for. SHMEM_DEBUG keeps it an error. */
    if (rel < 0 || rel % stride != 0 || rel / stride >= size) {
        if (!s->debug)
            return -1;
        symm_fatal(routine, "called by a PE outside the active set (PE_start %d, logPE_stride %d, "
                            "PE_size %d; SHMEM_DEBUG: an error, else the call returns)",
                   start, log_stride, size);
    }
    if (psync == NULL)
        symm_fatal(routine, "pSync is NULL");
    /* The whole world (what OSU and most programs pass): the world team's
     * group, so the set gets the team's node-aware algorithms and barrier.
     * Every member calls the world's collectives, active-set or team, in
     * one order, so both forms share the team's numbering safely; pSync
     * is left untouched (it is already at SHMEM_SYNC_VALUE, as the spec
     * requires it to be on return) but kept: reports and SHMEM_DEBUG's
     * match still know the call as the active set's (symm_group_doing). */
    if (size == s->n_pes && s->team_world != NULL) {
        symm_group_of_team(g, s->team_world);
        g->psync = psync;
        g->start = start; /* the set's key (active_key): (0, stride 1, n) */
        g->stride = stride;
        return 0;
    }
    *g = (symm_group_t){s, size, rel / stride, NULL, start, stride, NULL, psync,
                        (uint64_t *)(void *)&psync[SHMEM_SYNC_SIZE - 1], 1};
    for (int i = 0; i < size; i++)
        if (!s->peers[start + i * stride].mapped)
            g->all_mapped = 0;
    return 0;
}

/* The active sets an instance has used, each with its count of
 * collectives (SHMEM_DEBUG's numbering, the status record) and of those
 * that exchanged messages (their tags). Nothing is ever dropped while the
 * instance lives: a set's counts must agree on every member for as long as
 * any member may call it again, which is forever. The deprecated routines
 * are single-threaded, but a lock is cheap next to a collective. */
typedef struct active_set {
    symm_instance_t *s;
    uint64_t key, seq, msg_seq;
} active_set_t;
static active_set_t *active_sets;
static size_t n_active_sets, cap_active_sets;
static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;

/* RELEASE hook: a later instance at the same address starts afresh. */
static void forget_active_sets(symm_instance_t *s, void *arg)
{
    (void)arg;
    pthread_mutex_lock(&active_lock);
    size_t k = 0;
    for (size_t i = 0; i < n_active_sets; i++)
        if (active_sets[i].s != s)
            active_sets[k++] = active_sets[i];
    n_active_sets = k;
    pthread_mutex_unlock(&active_lock);
}

/* (start, log2 stride, size) packed exactly for start < 2^26 (bit 63 stays
 * clear: a team's tags have it set). */
static uint64_t active_key(const symm_group_t *g)
{
    return ((uint64_t)(uint32_t)g->start << 37) |
           ((uint64_t)__builtin_ctz((unsigned)g->stride) << 32) | (uint64_t)(uint32_t)g->size;
}

/* The next count (msg: of message collectives) of the active set key. */
static uint64_t active_next(symm_instance_t *s, uint64_t key, int msg)
{
    pthread_mutex_lock(&active_lock);
    active_set_t *a = NULL;
    for (size_t i = 0; i < n_active_sets && a == NULL; i++)
        if (active_sets[i].s == s && active_sets[i].key == key)
            a = &active_sets[i];
    if (a == NULL) {
        if (n_active_sets == cap_active_sets) {
            size_t cap = cap_active_sets ? 2 * cap_active_sets : 16;
            active_set_t *m = realloc(active_sets, cap * sizeof(*m));
            if (m == NULL)
                symm_fatal("active set", "out of memory for the table of active sets");
            active_sets = m;
            cap_active_sets = cap;
        }
        symm_on_fini(s, SYMM_FINI_RELEASE, forget_active_sets, NULL);
        a = &active_sets[n_active_sets++];
        *a = (active_set_t){.s = s, .key = key};
    }
    uint64_t v = msg ? ++a->msg_seq : ++a->seq;
    pthread_mutex_unlock(&active_lock);
    return v;
}

symm_msg_tag_t symm_group_next_tag(const symm_group_t *g)
{
    if (g->team != NULL) {
        struct symm_team *t = g->team;
        uint64_t n = __atomic_add_fetch(&t->msg_seq, 1, __ATOMIC_RELAXED);
        return (symm_msg_tag_t){(1ull << 63) | ((uint64_t)(uint32_t)t->slot << 48) |
                                    (t->key & 0xffffffffffffull),
                                n << 8};
    }
    uint64_t key = active_key(g);
    return (symm_msg_tag_t){key & ~(1ull << 63), active_next(g->s, key, 1) << 8};
}

/* SHMEM_DEBUG's signature slots are shared by the sets whose keys are
 * equal modulo SYMM_ACTIVE_SIG_SLOTS ((0, 1, 2) and (1, 0, 2) at 3 PEs).
 * Before my slot takes this set's signature in place of another set's,
 * that set's members must be done reading it: a member that reached that
 * call first and napped while I checked, took part (a broadcast root does
 * not wait for its receivers) and moved on here would otherwise look for
 * my signature of it forever (active_sig_slots). */
static void active_slot_vacate(symm_instance_t *s, void *slot, uint64_t key, const char *routine)
{
    uint64_t held_seq, held = symm_coll_sig_held(slot, &held_seq);
    if (held == 0 || held == key)
        return;
    int start = (int)(held >> 37), stride = 1 << ((held >> 32) & 31);
    int size = (int)(uint32_t)held;
    if (size > 1)
        symm_coll_sig_vacate(s, slot, start, stride, size, (s->my_pe - start) / stride, held,
                             held_seq, routine);
}

int symm_group_doing(const symm_group_t *g, const char *routine, int root, uint64_t nbytes)
{
    if (g->psync == NULL)
        return symm_team_doing(g->team, routine, root, nbytes);
    /* A whole-world set runs as the world team (symm_group_of_active_set),
     * whose collectives every member calls in one order: outside
     * SHMEM_DEBUG it takes the team's number, without the table's lock and
     * search on every call. SHMEM_DEBUG keeps the set's own numbering,
     * which its mismatch reports count in. */
    if (g->team != NULL && !g->s->debug) {
        int taken = symm_team_doing(g->team, routine, root, nbytes);
        if (taken)
            symm_doing.team_name = "an active set";
        return taken;
    }
    /* An active set's collectives are numbered per (start, stride, size)
     * here: every member calls the same sequence on it. */
    uint64_t key = active_key(g);
    symm_doing_t d = {.routine = routine, .kind = SYMM_DOING_COLL,
                      .team_name = "an active set", .seq = active_next(g->s, key, 0),
                      .root = root, .nbytes = nbytes};
    if (!symm_doing_begin(&d))
        return 0;
    if (g->s->debug && g->size > 1) {
        void *slot =
            g->s->heap_base + SYMM_ACTIVE_SIG_OFF + (size_t)(key % SYMM_ACTIVE_SIG_SLOTS) * 128;
        active_slot_vacate(g->s, slot, key, routine);
        symm_coll_sig_check(g->s, slot, NULL, g->start, g->stride, g->size, g->me, key, d.seq,
                            "an active set", routine, root, nbytes);
    }
    return 1;
}
