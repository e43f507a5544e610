/*
 * team.c - team creation (predefined, strided split, 2-D split), scratch
 * slot allocation, destruction, PE translation.
 *
 * Splits are collective over the parent team: every parent PE takes part
 * in choosing the scratch slot(s), even if it ends up outside the new team.
 * Argument errors are detected identically on every PE (same arguments), so
 * they return without communicating.
 */
#include "team/team.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/fail_report.h"
#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/fault.h"
#include "runtime/log.h"
#include "runtime/status.h"

static int slot_words(const symm_instance_t *s) { return (s->teams->max_teams + 63) / 64; }

/* Slot `slot` now holds team t, or nothing (t NULL). */
static void slot_mark(symm_instance_t *s, int slot, struct symm_team *t)
{
    uint64_t bit = 1ull << (slot % 64);
    pthread_mutex_lock(&s->teams->lock);
    s->teams->live[slot] = t;
    if (t != NULL)
        s->teams->used[slot / 64] |= bit;
    else
        s->teams->used[slot / 64] &= ~bit;
    pthread_mutex_unlock(&s->teams->lock);
}

static char *slot_scratch(symm_instance_t *s, int slot)
{
    return s->heap_base + SYMM_MISC_SCRATCH + (size_t)slot * SYMM_TEAM_SLOT_SIZE;
}

struct symm_team *symm_team_new(symm_instance_t *s, int *members, int size, int slot,
                               const shmem_team_config_t *config, long mask)
{
    struct symm_team *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        free(members);
        return NULL;
    }
    t->inst = s;
    pthread_mutex_init(&t->barrier_lock, NULL);
    t->size = size;
    t->members = members;
    t->slot = slot;
    t->scratch = slot_scratch(s, slot);
    t->all_mapped = 1;
    for (int i = 0; i < size; i++) {
        if (members[i] == s->my_pe)
            t->my_idx = i;
        if (!s->peers[members[i]].mapped)
            t->all_mapped = 0;
    }
    /* FNV-1a over the members: SHMEM_DEBUG's signatures name the team by
     * it (symm_coll_sig_check). */
    t->key = 0xcbf29ce484222325ull;
    for (int i = 0; i < size; i++)
        t->key = (t->key ^ (uint64_t)(uint32_t)members[i]) * 0x100000001b3ull;
    if (config != NULL && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        t->config.num_contexts = config->num_contexts;
    /* A reused slot may hold a destroyed team's flags. */
    memset(t->scratch, 0, SYMM_TEAM_SLOT_SIZE);
    if (symm_team_barrier_layout(t) != SYMM_OK) {
        pthread_mutex_destroy(&t->barrier_lock);
        free(members);
        free(t);
        return NULL;
    }
    slot_mark(s, slot, t);
    return t;
}

int symm_team_state_create(symm_instance_t *inst, int thread_multiple)
{
    const symm_config_t *cfg = &inst->cfg;
    struct symm_team_state *ts = calloc(1, sizeof(*ts));
    if (ts == NULL) {
        symm_error("shmem_init", "no memory for the team state");
        return SYMM_ERR_NOMEM;
    }
    pthread_mutex_init(&ts->lock, NULL);
    pthread_mutex_init(&ts->group_lock, NULL);
    int max = cfg->core.max_teams, groups = cfg->core.group_teams;
    ts->max_teams = max < 2 ? 2 : max > SYMM_TEAM_SLOTS_MAX ? SYMM_TEAM_SLOTS_MAX : max;
    ts->group_teams = groups < 0 ? 0
                      : groups > SYMM_TEAM_SLOTS_MAX - ts->max_teams
                          ? SYMM_TEAM_SLOTS_MAX - ts->max_teams
                          : groups;
    ts->barrier_central = cfg->coll.barrier == SYMM_BARRIER_CENTRAL ||
                          (cfg->coll.barrier == SYMM_BARRIER_AUTO && inst->oversubscribed);
    ts->threads_share_teams = thread_multiple;
    inst->teams = ts;
    return SYMM_OK;
}

void symm_team_state_destroy(symm_instance_t *inst)
{
    struct symm_team_state *ts = inst->teams;
    if (ts == NULL)
        return;
    pthread_mutex_destroy(&ts->lock);
    pthread_mutex_destroy(&ts->group_lock);
    free(ts->group_seen);
    free(ts);
    inst->teams = NULL;
}

int symm_team_init_predefined(symm_instance_t *inst)
{
    int *wm = malloc(sizeof(int) * (size_t)inst->n_pes);
    int *sm = malloc(sizeof(int) * (size_t)inst->n_local);
    if (wm == NULL || sm == NULL) {
        free(wm);
        free(sm);
        return SYMM_ERR_NOMEM;
    }
    for (int i = 0; i < inst->n_pes; i++)
        wm[i] = i;
    memcpy(sm, inst->local_pes, sizeof(int) * (size_t)inst->n_local);
    inst->team_world = symm_team_new(inst, wm, inst->n_pes, 0, NULL, 0);
    inst->team_shared = symm_team_new(inst, sm, inst->n_local, 1, NULL, 0);
    if (inst->team_world == NULL || inst->team_shared == NULL) {
        symm_team_fini_predefined(inst);
        return SYMM_ERR_NOMEM;
    }
    inst->team_world->predefined = inst->team_shared->predefined = 1;
    inst->team_world->name = "SHMEM_TEAM_WORLD";
    inst->team_shared->name = "SHMEM_TEAM_SHARED";
    return SYMM_OK;
}

void symm_team_free(struct symm_team *t)
{
    if (t == NULL)
        return;
    slot_mark(t->inst, t->slot, NULL);
    pthread_mutex_destroy(&t->barrier_lock);
    free(t->coll_nodes);
    free(t->bar_heads);
    free(t->members);
    free(t);
}

void symm_team_fini_predefined(symm_instance_t *inst)
{
    /* Teams the program split and never destroyed go with the instance. */
    for (int i = 0; inst->teams != NULL && i < SYMM_TEAM_SLOTS_MAX; i++) {
        struct symm_team *t = inst->teams->live[i];
        if (t != NULL && t != inst->team_world && t != inst->team_shared)
            symm_team_free(t);
    }
    symm_team_free(inst->team_shared);
    symm_team_free(inst->team_world);
    inst->team_shared = inst->team_world = NULL;
}

/* Reserve slots[0..n) if no team and no other split of this PE holds
 * them (0: taken meanwhile), or release them (reserve 0). */
static int slots_reserve(symm_instance_t *s, const int *slots, int n, int reserve)
{
    struct symm_team_state *ts = s->teams;
    int ok = 1;
    pthread_mutex_lock(&ts->lock);
    for (int i = 0; reserve && i < n; i++)
        if ((ts->used[slots[i] / 64] | ts->reserved[slots[i] / 64]) & (1ull << (slots[i] % 64)))
            ok = 0;
    for (int i = 0; ok && i < n; i++) {
        if (reserve)
            ts->reserved[slots[i] / 64] |= 1ull << (slots[i] % 64);
        else
            ts->reserved[slots[i] / 64] &= ~(1ull << (slots[i] % 64));
    }
    pthread_mutex_unlock(&ts->lock);
    return ok;
}

/* Collective over parent: the `need` lowest slots free on every parent PE,
 * reserved on this one until the split ends (slots_reserve(.., 0)). A
 * thread of some PE that lost a slot to another split of that PE between
 * publishing and choosing makes every PE choose again. */
static int alloc_slots(struct symm_team *parent, int need, int *slots, const char *routine)
{
    symm_instance_t *s = parent->inst;
    struct symm_team_state *ts = s->teams;
    int nw = slot_words(s);
    uint64_t *mine = (uint64_t *)(void *)(parent->scratch + SYMM_TEAM_BITMAP_OFF);
    uint64_t acc[SYMM_TEAM_SLOTS_MAX / 64], theirs[SYMM_TEAM_SLOTS_MAX / 64];
    for (int attempt = 0; attempt < 32; attempt++) {
        pthread_mutex_lock(&ts->lock);
        for (int w = 0; w < nw; w++) {
            uint64_t valid = s->teams->max_teams - w * 64 >= 64
                                 ? ~0ull
                                 : (1ull << (s->teams->max_teams - w * 64)) - 1;
            mine[w] = ~(ts->used[w] | ts->reserved[w]) & valid;
            acc[w] = mine[w];
        }
        pthread_mutex_unlock(&ts->lock);
        symm_team_barrier(parent, 0);
        for (int i = 0; i < parent->size; i++) {
            if (i == parent->my_idx)
                continue;
            symm_rma_get(NULL, theirs, mine, sizeof(uint64_t) * (size_t)nw, parent->members[i], 0,
                         routine);
            for (int w = 0; w < nw; w++)
                acc[w] &= theirs[w];
        }
        /* Nobody republishes its bitmap before everyone has read it. */
        symm_team_barrier(parent, 0);
        int got = 0;
        for (int slot = 0; slot < s->teams->max_teams && got < need; slot++)
            if (acc[slot / 64] & (1ull << (slot % 64)))
                slots[got++] = slot;
        if (got < need) { /* the same on every PE: acc is */
            symm_error(routine, "no free team slot: %d teams may exist at once (SYMM_MAX_TEAMS)",
                       s->teams->max_teams);
            return SYMM_ERR_NOMEM;
        }
        /* Did every PE keep them? (mine[0] is free again after the barrier.) */
        int ok = slots_reserve(s, slots, need, 1), all = ok;
        mine[0] = (uint64_t)ok;
        symm_team_barrier(parent, 0);
        for (int i = 0; i < parent->size && all; i++) {
            uint64_t o = 1;
            if (i != parent->my_idx)
                symm_rma_get(NULL, &o, mine, sizeof(o), parent->members[i], 0, routine);
            all = o != 0;
        }
        symm_team_barrier(parent, 0);
        if (all)
            return SYMM_OK;
        if (ok)
            slots_reserve(s, slots, need, 0);
        /* Two threads of one PE splitting two parents took each other's
         * slots on different PEs; retried in step they can collide again
         * and again (seen in team_threads.np3 on a loaded machine). Wait
         * a time that differs per parent, so one split gets ahead. */
        long us = 50L * (attempt + 1) * (parent->slot + 1);
        struct timespec nap = {us / 1000000, us % 1000000 * 1000};
        nanosleep(&nap, NULL);
    }
    symm_error(routine, "team slots kept being taken by concurrent splits on this PE");
    return SYMM_ERR_NOMEM;
}

/* One member's vote (SYMM_TEAM_VOTE_OFF, two of them used in alternate
 * rounds: a fast PE writes round k+1's while a slow one may still read
 * round k's; none reaches round k+2 before every one passed round k+1's
 * barrier). */
typedef struct team_vote {
    int64_t rc;
    char why[120];
} team_vote_t;

int symm_team_agree(struct symm_team *t, int rc, int quiet, const char *routine)
{
    team_vote_t *mine =
        (team_vote_t *)(void *)(t->scratch + SYMM_TEAM_VOTE_OFF) + t->agree_round++ % 2;
    mine->rc = rc;
    mine->why[0] = '\0';
    if (rc != SYMM_OK)
        snprintf(mine->why, sizeof(mine->why), "%s", symm_log_last_error());
    symm_team_barrier(t, quiet);
    int first = -1, n_failed = 0;
    for (int i = 0; i < t->size; i++) {
        int64_t theirs = rc;
        if (i != t->my_idx)
            symm_rma_get(NULL, &theirs, &mine->rc, sizeof(theirs), t->members[i], 0, routine);
        if (theirs != SYMM_OK && n_failed++ == 0)
            first = t->members[i];
    }
    if (first < 0 || rc != SYMM_OK)
        return rc;
    team_vote_t v;
    symm_rma_get(NULL, &v, mine, sizeof(v), first, 0, routine);
    v.why[sizeof(v.why) - 1] = '\0';
    symm_error(routine, "PE %d failed: %s (%d of %d PEs failed; every PE fails the call)", first,
               v.why[0] ? v.why : symm_status_str((symm_status_t)v.rc), n_failed, t->size);
    return SYMM_ERR_PEER;
}

int symm_team_index_of(const struct symm_team *t, int pe)
{
    for (int i = 0; i < t->size; i++)
        if (t->members[i] == pe)
            return i;
    return -1;
}

int symm_team_split(struct symm_team *parent, int start, int stride, int size,
                    const shmem_team_config_t *config, long mask, struct symm_team **team_p,
                    const char *routine)
{
    symm_instance_t *s = parent->inst;
    int P = parent->size;
    long last = (long)start + (long)(size - 1) * stride;
    *team_p = NULL;
    if (size < 1 || size > P || start < 0 || start >= P || (size > 1 && stride == 0) ||
        last < 0 || last >= P) {
        if (s->debug)
            symm_error(routine, "invalid split: start %d, stride %d, size %d of a %d-PE parent",
                       start, stride, size, P);
        return SYMM_ERR_INVALID;
    }
    int slot;
    int rc = alloc_slots(parent, 1, &slot, routine);
    if (rc != SYMM_OK)
        return rc;
    int mine = parent->my_idx - start;
    int member = stride == 0 ? mine == 0 : (mine % stride == 0 && mine / stride >= 0 &&
                                             mine / stride < size);
    if (member) {
        int *members = symm_fault("team") ? NULL : malloc(sizeof(int) * (size_t)size);
        for (int i = 0; members != NULL && i < size; i++)
            members[i] = parent->members[start + i * stride];
        if (members == NULL ||
            (*team_p = symm_team_new(s, members, size, slot, config, mask)) == NULL) {
            symm_error(routine, "no memory for a team of %d PEs", size);
            rc = SYMM_ERR_NOMEM;
        }
    }
    /* The parent's barrier inside also keeps members from signalling into
     * a peer's new slot before the peer has zeroed it. */
    rc = symm_team_agree(parent, rc, 0, routine);
    if (rc != SYMM_OK) {
        symm_team_free(*team_p);
        *team_p = NULL;
    }
    slots_reserve(s, &slot, 1, 0);
    return rc;
}

int symm_team_split_2d(struct symm_team *parent, int xrange, const shmem_team_config_t *xcfg,
                       long xmask, struct symm_team **x_p, const shmem_team_config_t *ycfg,
                       long ymask, struct symm_team **y_p, const char *routine)
{
    symm_instance_t *s = parent->inst;
    int P = parent->size, slots[2], rc;
    *x_p = *y_p = NULL;
    if (xrange < 1) {
        if (s->debug)
            symm_error(routine, "invalid xrange %d", xrange);
        return SYMM_ERR_INVALID;
    }
    if (xrange > P)
        xrange = P;
    rc = alloc_slots(parent, 2, slots, routine);
    if (rc != SYMM_OK)
        return rc;
    int me = parent->my_idx, x = me % xrange, y = me / xrange;
    int xsize = (y + 1) * xrange <= P ? xrange : P - y * xrange;
    int ysize = (P - x + xrange - 1) / xrange;
    int *xm = symm_fault("team") ? NULL : malloc(sizeof(int) * (size_t)xsize);
    int *ym = malloc(sizeof(int) * (size_t)ysize);
    if (xm == NULL || ym == NULL) {
        symm_error(routine, "no memory for teams of %d and %d PEs", xsize, ysize);
        free(xm);
        free(ym);
        rc = SYMM_ERR_NOMEM;
    } else {
        for (int i = 0; i < xsize; i++)
            xm[i] = parent->members[y * xrange + i];
        for (int i = 0; i < ysize; i++)
            ym[i] = parent->members[x + i * xrange];
        *x_p = symm_team_new(s, xm, xsize, slots[0], xcfg, xmask);
        *y_p = symm_team_new(s, ym, ysize, slots[1], ycfg, ymask);
        if (*x_p == NULL || *y_p == NULL) {
            symm_error(routine, "no memory for teams of %d and %d PEs", xsize, ysize);
            rc = SYMM_ERR_NOMEM;
        }
    }
    /* The parent's barrier inside also keeps members from signalling into
     * a peer's new slot before the peer has zeroed it. */
    rc = symm_team_agree(parent, rc, 0, routine);
    if (rc != SYMM_OK) {
        symm_team_free(*x_p);
        symm_team_free(*y_p);
        *x_p = *y_p = NULL;
    }
    slots_reserve(s, slots, 2, 0);
    return rc;
}

void symm_team_destroy(struct symm_team *t)
{
    /* Every member is done with the team's scratch before its slot frees. */
    symm_team_barrier(t, 1);
    symm_team_barrier_drain(t);
    if (t->slot >= t->inst->teams->max_teams && t->my_idx == 0)
        symm_team_group_release(t->inst, t->slot);
    symm_team_free(t);
}

/* A member's collective, as SHMEM_DEBUG compares it: in the team's slot
 * (SYMM_TEAM_SIG_OFF), or one of an active set's (SYMM_ACTIVE_SIG_OFF). */
typedef struct coll_sig {
    uint64_t seq;             /* written last; 0: none yet */
    uint64_t key;             /* the team or active set */
    int32_t root;
    int32_t checked;          /* this PE has read every member's signature of the call */
    uint64_t nbytes;
    char routine[48];
} coll_sig_t;

/* Member pe's signature in slot, read twice until both reads agree and
 * seq is set (the owner writes seq 0, the rest, then seq). */
static void sig_read(void *slot, int pe, coll_sig_t *a, symm_instance_t *s, const char *routine)
{
    unsigned polls = 0;
    for (;;) {
        coll_sig_t b;
        symm_rma_get(NULL, a, slot, sizeof(*a), pe, 0, routine);
        symm_rma_get(NULL, &b, slot, sizeof(b), pe, 0, routine);
        if (a->seq != 0 && memcmp(a, &b, sizeof(b)) == 0)
            return;
        symm_wait_backoff(s, &polls);
    }
}

uint64_t symm_coll_sig_held(const void *slot, uint64_t *seq)
{
    const coll_sig_t *mine = slot;
    *seq = __atomic_load_n(&mine->seq, __ATOMIC_ACQUIRE);
    return *seq != 0 ? mine->key : 0;
}

void symm_coll_sig_vacate(symm_instance_t *s, void *slot, int start, int stride, int size,
                          int my_idx, uint64_t key, uint64_t seq, const char *routine)
{
    for (int i = 0; i < size; i++) {
        if (i == my_idx)
            continue;
        coll_sig_t a;
        unsigned polls = 0;
        for (;;) {
            sig_read(slot, start + i * stride, &a, s, routine);
            if (a.key != key || a.seq > seq || a.checked)
                break;
            symm_wait_backoff(s, &polls);
        }
    }
}

static void sig_text(const coll_sig_t *g, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%.47s", g->routine);
    if (g->root >= 0 && (size_t)n < cap)
        n += snprintf(out + n, cap - (size_t)n, "(root %d, %llu bytes)", g->root,
                      (unsigned long long)g->nbytes);
    else if (g->nbytes != 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, "(%llu bytes)", (unsigned long long)g->nbytes);
}

/* Every member that compares sees a mismatch: the first to claim the
 * job's report prints it, the others end quietly once it is out
 * (ops/fail_report.h). */
static __attribute__((noreturn)) void mismatch_report(symm_instance_t *s, const coll_sig_t *me,
                                                      const coll_sig_t *other, int pe,
                                                      const char *name, uint64_t seq,
                                                      const char *routine)
{
    char x[128], y[128];
    symm_pe_reporting = 1;
    if (!symm_report_claim(s))
        symm_report_defer(s, 255);
    sig_text(me, x, sizeof(x));
    sig_text(other, y, sizeof(y));
    symm_error(routine, "collective mismatch on %s call #%llu: PE %d in %s, PE %d in %s", name,
               (unsigned long long)seq, s->my_pe, x, pe, y);
    symm_report_mark_others(s, 255);
    symm_pe_end(s, 255, 1);
}

void symm_coll_sig_check(symm_instance_t *s, void *slot, const int *members, int start, int stride,
                         int size, int my_idx, uint64_t key, uint64_t seq, const char *name,
                         const char *routine, int root, uint64_t nbytes)
{
    coll_sig_t *mine = slot, me = {.key = key, .root = root, .nbytes = nbytes};
    snprintf(me.routine, sizeof(me.routine), "%s", routine);
    __atomic_store_n(&mine->seq, 0, __ATOMIC_RELEASE);
    memcpy((char *)mine + sizeof(uint64_t), (char *)&me + sizeof(uint64_t),
           sizeof(me) - sizeof(uint64_t));
    __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
    for (int i = 0; i < size; i++) {
        if (i == my_idx)
            continue;
        int pe = members != NULL ? members[i] : start + i * stride;
        coll_sig_t a;
        unsigned polls = 0;
        for (;;) {
            sig_read(mine, pe, &a, s, routine);
            if (a.key == key && a.seq >= seq)
                break;
            symm_wait_backoff(s, &polls);
        }
        if (a.seq != seq || (strncmp(a.routine, me.routine, sizeof(a.routine)) == 0 &&
                             a.root == me.root && a.nbytes == me.nbytes))
            continue;
        mismatch_report(s, &me, &a, pe, name, seq, routine);
    }
    __atomic_store_n(&mine->checked, 1, __ATOMIC_RELEASE);
}

int symm_team_doing(struct symm_team *t, const char *routine, int root, uint64_t nbytes)
{
    if (symm_doing.routine != NULL)
        return 0;
    symm_doing_t d = {.routine = routine, .kind = SYMM_DOING_COLL, .team_name = t->name,
                      .seq = ++t->coll_seq, .root = root, .nbytes = nbytes};
    symm_doing_begin(&d);
    if (t->inst->debug && t->size > 1)
        symm_coll_sig_check(t->inst, t->scratch + SYMM_TEAM_SIG_OFF, t->members, 0, 0, t->size,
                            t->my_idx, t->key, d.seq, t->name != NULL ? t->name : "a team",
                            routine, root, nbytes);
    return 1;
}
