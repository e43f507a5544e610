/*
 * team_group.c - a team made by its members alone (MPI_Comm_create_group):
 * no PE outside the list takes part, so a program whose other PEs are busy
 * elsewhere (torch.distributed calls a backend only on a new group's
 * members) can still make one.
 *
 * A split chooses its slot as the lowest free on every PE of the parent;
 * here no parent exists, so group teams take their slots from a range of
 * their own (after the SYMM_MAX_TEAMS split slots), unique in the job: the
 * group's first PE (its leader) claims one in PE 0's table with an atomic
 * OR, so the slot is free on every member by construction and disjoint
 * groups never meet in one.
 *
 * The leader publishes the creation on its board (misc scratch,
 * SYMM_GROUP_BOARD_OFF): the members' hash, the slot (or why none), and a
 * generation it increments each time. Every other member polls the board
 * until it shows its own hash with a generation newer than the last it
 * took part in, makes the team (zeroing its slot), and adds its first
 * acknowledgement (+1, with a failure bit if it could not). The leader,
 * once all are in, writes the outcome and marks the generation done; each
 * member reads the outcome and adds its second acknowledgement, after
 * which the leader may reuse the board. So every member creates the team
 * or none does, and no member writes into a peer's slot before the peer
 * has zeroed it (every member acknowledged first).
 *
 * Rules for the caller: every member passes the same list (a member whose
 * list differs waits for a creation that never comes, as a collective
 * called by some PEs only would: the hang report names it); creations on a
 * PE run one at a time (group_lock); PEs that share two groups create them
 * in the same order (else two leaders can wait on each other, as with two
 * collectives called in different orders).
 */
#include <stdlib.h>
#include <string.h>

#include "ops/amo.h"
#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "team/team.h"

#define GROUP_FAIL (1ull << 32) /* in a first acknowledgement: this member could not */

typedef struct group_board {
    uint64_t key;    /* hash of the member list (FNV-1a) */
    uint64_t gen;    /* the leader's creations so far: written last */
    int64_t slot;    /* the team's slot; negative: a symm_status_t, no slot */
    int64_t outcome; /* SYMM_OK, or why every member fails */
    uint64_t done;   /* == gen once every first acknowledgement is in */
    uint64_t acks;   /* first acknowledgements: +1 each, | GROUP_FAIL */
    uint64_t acks2;  /* second acknowledgements: +1 each */
} group_board_t;

static group_board_t *board_of(symm_instance_t *s)
{
    return (group_board_t *)(void *)(s->heap_base + SYMM_GROUP_BOARD_OFF);
}

static uint64_t list_key(const int *pes, int n)
{
    uint64_t k = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++)
        k = (k ^ (uint64_t)(uint32_t)pes[i]) * 0x100000001b3ull;
    return k ^ (uint64_t)n;
}

/* The group slots' table, one bit per slot, in PE 0's misc scratch. */
static uint64_t *slot_table(symm_instance_t *s)
{
    return (uint64_t *)(void *)(s->heap_base + SYMM_GROUP_SLOTS_OFF);
}

static uint64_t amo64(symm_instance_t *s, uint64_t *word, symm_amo_op_t op, uint64_t v, int pe,
                      const char *routine)
{
    uint64_t old = 0;
    (void)s;
    SYMM_AMO_DO(NULL, uint64_t, word, pe, op, &v, NULL, &old, 0, routine, {
        if (op == SYMM_AMO_OR)
            old = __atomic_fetch_or(r_, v, SYMM_AMO_ORDER);
        else if (op == SYMM_AMO_AND)
            old = __atomic_fetch_and(r_, v, SYMM_AMO_ORDER);
        else
            old = __atomic_fetch_add(r_, v, SYMM_AMO_ORDER);
    });
    return old;
}

/* The lowest group slot free in the job, claimed; negative when none. */
static int slot_claim(symm_instance_t *s, const char *routine)
{
    for (int i = 0; i < s->teams->group_teams; i++) {
        uint64_t bit = 1ull << (i % 64);
        uint64_t old = amo64(s, slot_table(s) + i / 64, SYMM_AMO_OR, bit, 0, routine);
        if (!(old & bit))
            return s->teams->max_teams + i;
    }
    symm_error(routine,
               "no free group team slot: %d teams made by their members may exist at once in "
               "the job (SYMM_MAX_GROUP_TEAMS)",
               s->teams->group_teams);
    return SYMM_ERR_NOMEM;
}

void symm_team_group_release(symm_instance_t *s, int slot)
{
    int i = slot - s->teams->max_teams;
    amo64(s, slot_table(s) + i / 64, SYMM_AMO_AND, ~(1ull << (i % 64)), 0, "shmem_team_destroy");
}

static int check_list(symm_instance_t *s, const int *pes, int n, const char *routine)
{
    int me = -1;
    if (pes == NULL || n < 1 || n > s->n_pes) {
        symm_error(routine, "%d PEs (list %p): a group has 1 to %d PEs", n, (const void *)pes,
                   s->n_pes);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (pes[i] < 0 || pes[i] >= s->n_pes) {
            symm_error(routine, "pes[%d] is %d, outside the world's PEs [0,%d)", i, pes[i],
                       s->n_pes);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (pes[j] == pes[i]) {
                symm_error(routine, "PE %d is in the list twice (pes[%d] and pes[%d])", pes[i], j,
                           i);
                return -1;
            }
        if (pes[i] == s->my_pe)
            me = i;
    }
    if (me < 0)
        symm_error(routine, "this PE is not in the list: only the members make a group");
    return me;
}

/* The leader's side; returns the outcome. */
static int lead(symm_instance_t *s, int *members, int n, uint64_t key,
                const shmem_team_config_t *config, long mask, struct symm_team **team_p,
                const char *routine)
{
    group_board_t *b = board_of(s);
    int slot = slot_claim(s, routine);
    int rc = slot < 0 ? slot : SYMM_OK;
    if (slot >= 0 && (*team_p = symm_team_new(s, members, n, slot, config, mask)) == NULL) {
        symm_error(routine, "no memory for a team of %d PEs", n);
        rc = SYMM_ERR_NOMEM;
    } else if (slot < 0) {
        free(members);
    }
    b->acks = b->acks2 = 0;
    b->key = key;
    b->slot = slot;
    b->outcome = SYMM_OK;
    uint64_t gen = b->gen + 1;
    __atomic_store_n(&b->gen, gen, __ATOMIC_RELEASE);
    unsigned polls = 0;
    while ((__atomic_load_n(&b->acks, __ATOMIC_ACQUIRE) & (GROUP_FAIL - 1)) < (uint64_t)(n - 1))
        symm_wait_backoff(s, &polls);
    if (rc == SYMM_OK && (__atomic_load_n(&b->acks, __ATOMIC_ACQUIRE) & GROUP_FAIL))
        rc = SYMM_ERR_PEER;
    b->outcome = rc;
    __atomic_store_n(&b->done, gen, __ATOMIC_RELEASE);
    symm_wait_at_least(s, &b->acks2, (uint64_t)(n - 1));
    if (rc != SYMM_OK && slot >= 0) {
        symm_team_free(*team_p);
        *team_p = NULL;
        symm_team_group_release(s, slot);
    }
    return rc;
}

/* Leader's board, read until two reads agree (it may be mid-write). */
static void board_read(symm_instance_t *s, int leader, group_board_t *a, const char *routine)
{
    group_board_t *b = board_of(s), c;
    do {
        symm_rma_get(NULL, a, b, sizeof(*a), leader, 0, routine);
        symm_rma_get(NULL, &c, b, sizeof(c), leader, 0, routine);
    } while (memcmp(a, &c, sizeof(c)) != 0);
}

/* A member's side; returns the outcome. */
static int join(symm_instance_t *s, int *members, int n, uint64_t key,
                const shmem_team_config_t *config, long mask, struct symm_team **team_p,
                const char *routine)
{
    int leader = members[0];
    uint64_t *seen = &s->teams->group_seen[leader];
    group_board_t a;
    unsigned polls = 0;
    for (;;) {
        board_read(s, leader, &a, routine);
        /* The leader may first lead groups this PE is not in. */
        if (a.key == key && a.gen > *seen && a.done != a.gen)
            break;
        symm_wait_backoff(s, &polls);
    }
    uint64_t gen = a.gen, ack = 1;
    int rc = SYMM_OK;
    if (a.slot < 0) {
        rc = SYMM_ERR_PEER;
    } else if ((*team_p = symm_team_new(s, members, n, (int)a.slot, config, mask)) == NULL) {
        symm_error(routine, "no memory for a team of %d PEs", n);
        rc = SYMM_ERR_NOMEM;
    }
    if (*team_p == NULL)
        free(members);
    if (rc != SYMM_OK)
        ack |= GROUP_FAIL;
    group_board_t *b = board_of(s);
    amo64(s, &b->acks, SYMM_AMO_ADD, ack, leader, routine);
    polls = 0;
    for (;;) {
        board_read(s, leader, &a, routine);
        if (a.done == gen)
            break;
        symm_wait_backoff(s, &polls);
    }
    if (rc == SYMM_OK && a.outcome != SYMM_OK) {
        rc = SYMM_ERR_PEER;
        symm_error(routine, "another member of the group (PEs %d, ...) failed to make it; see its "
                   "message", leader);
    }
    *seen = gen;
    amo64(s, &b->acks2, SYMM_AMO_ADD, 1, leader, routine);
    if (rc != SYMM_OK && *team_p != NULL) {
        symm_team_free(*team_p);
        *team_p = NULL;
    }
    return rc;
}

int symm_team_create_group(symm_instance_t *s, const int *pes, int n,
                           const shmem_team_config_t *config, long mask,
                           struct symm_team **team_p, const char *routine)
{
    *team_p = NULL;
    int me = check_list(s, pes, n, routine);
    if (me < 0)
        return SYMM_ERR_INVALID;
    if (s->teams->group_teams < 1) {
        symm_error(routine, "SYMM_MAX_GROUP_TEAMS is 0: no team may be made by its members alone");
        return SYMM_ERR_INVALID;
    }
    int *members = malloc(sizeof(int) * (size_t)n);
    if (members == NULL) {
        symm_error(routine, "no memory for a team of %d PEs", n);
        return SYMM_ERR_NOMEM;
    }
    memcpy(members, pes, sizeof(int) * (size_t)n);
    uint64_t key = list_key(pes, n);
    struct symm_team_state *ts = s->teams;
    pthread_mutex_lock(&ts->group_lock);
    if (ts->group_seen == NULL)
        ts->group_seen = calloc((size_t)s->n_pes, sizeof(uint64_t));
    int rc;
    if (ts->group_seen == NULL) {
        free(members);
        symm_error(routine, "no memory for the group table of %d PEs", s->n_pes);
        rc = SYMM_ERR_NOMEM;
    } else {
        SYMM_DOING_SCOPE(symm_doing_begin(&(symm_doing_t){.routine = routine,
                                                          .kind = SYMM_DOING_OTHER}));
        rc = me == 0 ? lead(s, members, n, key, config, mask, team_p, routine)
                     : join(s, members, n, key, config, mask, team_p, routine);
    }
    pthread_mutex_unlock(&ts->group_lock);
    return rc;
}
