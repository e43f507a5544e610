/*
 * team.h - teams: ordered subsets of the world's PEs, each with its own
 * internal symmetric scratch.
 *
 * A team maps its indices 0..size-1 to world PEs (members[]). Every team
 * owns a scratch slot in the heap's reserved region (same offset on all its
 * members): barrier flags, collect's count, the slot-allocation bitmap.
 * Slots are chosen at split time as the lowest slot free on every PE of
 * the parent, so disjoint teams may share a slot and overlapping ones never
 * do; a destroyed team's slot is zeroed before it is reused.
 *
 * Layer team/ (below coll/, above ops/; docs/ARCHITECTURE.md): teams, their
 * scratch slots and the team barrier. It includes and calls only its own
 * directory and those below it (scripts/check_layers.sh).
 */
#ifndef SYMM_TEAM_H
#define SYMM_TEAM_H

#include <pthread.h>
#include <stdint.h>

#include "runtime/pestatus.h"
#include "runtime/state.h"
#include "shmem.h"
#include "runtime/status.h"

#define SYMM_TEAM_SLOT_SIZE 32768
#define SYMM_TEAM_SLOTS_MAX 512
#define SYMM_TEAM_FLAGS_OFF 0        /* 32 rounds x one cache line */
#define SYMM_TEAM_COUNT_OFF 2048     /* collect: this PE's element count */
#define SYMM_TEAM_BITMAP_OFF 2112    /* split: this PE's free-slot bitmap */
#define SYMM_TEAM_NODE_OFF 2240     /* node-aware collectives: five words (coll/coll_nodes.h) */
#define SYMM_TEAM_SIG_OFF 2304       /* SHMEM_DEBUG: my current collective's signature */
#define SYMM_TEAM_VOTE_OFF 2432      /* symm_team_agree: two votes of 128 bytes */
#define SYMM_TEAM_HBAR_OFF 2688      /* node-aware barrier: arrivals, release (two lines) */
#define SYMM_TEAM_LL_DONE_OFF 2816   /* small collectives: the last one I finished (a line) */
#define SYMM_TEAM_LL_OFF 4096        /* small collectives: PES x DEPTH receive slots, one ring
                                      * per sender (coll/coll_ll.h) */
#define SYMM_TEAM_LL_PES 8
#define SYMM_TEAM_LL_DEPTH 4
#define SYMM_TEAM_LL_SLOT 320        /* a sequence word, 8 bytes unused, 304 payload bytes */
#define SYMM_TEAM_BFLAG_OFF 14336    /* broadcast past the slot form: the root's count, a line
                                      * (coll/bcast/bcast_flag.c) */
#define SYMM_TEAM_BDONE_OFF 14400    /* and the last one this member finished, a line */
#define SYMM_TEAM_STAGE_SEQ_OFF 14464 /* staged collectives: the last one I staged, a line
                                       * (coll/coll_stage.h) */
#define SYMM_TEAM_STAGE_OFF 16384    /* and my staged blocks: two areas, by the count's parity */
#define SYMM_TEAM_STAGE_BYTES 8192
#define SYMM_ACTIVE_SIG_OFF (44 * 1024) /* in the misc scratch: SHMEM_DEBUG's active-set
                                           * signatures, SYMM_ACTIVE_SIG_SLOTS of 128 B */
#define SYMM_ACTIVE_SIG_SLOTS 8
#define SYMM_GROUP_BOARD_OFF (56 * 1024) /* in the misc scratch: this PE's board as the
                                          * leader of a group's creation (team/team_group.c) */
#define SYMM_GROUP_SLOTS_OFF (57 * 1024) /* and PE 0's: which group slots the job uses */
#define SYMM_MISC_SCRATCH 65536      /* reserved bytes before the team slots; the PE status
                                      * record is in it (runtime/pestatus.h) */

/* The team layer's state in an instance (inst->teams; symm_team_state_create):
 * its settings, and which scratch slots this PE's teams hold (private to
 * each PE) and which a split in progress has chosen: under THREAD_MULTIPLE
 * two threads may split different parents at once, and must not both take
 * one slot. */
struct symm_team_state {
    int max_teams;           /* scratch slots for splits (and the predefined teams) */
    int group_teams;         /* and after them, slots for teams made by their members
                              * alone (team/team_group.c), unique in the job */
    int barrier_central;     /* mapped teams of 3+ use the central barrier (SYMM_BARRIER) */
    int threads_share_teams; /* THREAD_MULTIPLE, or a stream exists: a team's barrier
                              * may run in two threads at once (team_barrier.c locks) */
    pthread_mutex_t lock;
    uint64_t used[SYMM_TEAM_SLOTS_MAX / 64];
    uint64_t reserved[SYMM_TEAM_SLOTS_MAX / 64];
    /* The team in each used slot: finalize frees those the program did
     * not destroy (the spec lets it leave them to finalize). */
    struct symm_team *live[SYMM_TEAM_SLOTS_MAX];
    /* Group creation (team/team_group.c): one at a time on this PE, and
     * the last creation seen on each PE's board (made on first use). */
    pthread_mutex_t group_lock;
    uint64_t *group_seen;
};

struct symm_team {
    symm_instance_t *inst;
    int size;
    int my_idx;              /* my index in the team */
    int *members;            /* world PE of each index */
    int slot;
    char *scratch;           /* my copy of the team's scratch slot */
    uint64_t barrier_epoch;
    int all_mapped;          /* every member is a mapped (node-local) peer */
    int predefined;
    shmem_team_config_t config;
    pthread_mutex_t barrier_lock; /* one barrier at a time when threads share teams */
    uint64_t key;            /* hash of members: the same team on every member */
    uint64_t coll_seq;       /* collectives begun on it (runtime/pestatus.h) */
    uint64_t msg_seq;        /* collectives on it that exchanged messages (coll/coll_group.c) */
    uint64_t agree_round;    /* symm_team_agree calls, the same on every member */
    uint64_t ll_seq;         /* small slot collectives on it (coll/coll_ll.h) */
    uint64_t ll_seen[SYMM_TEAM_LL_PES]; /* the last one each member is known to have finished */
    uint64_t bflag_seq;      /* broadcasts of the flag form on it (coll/bcast/bcast_flag.c) */
    uint64_t stage_seq;      /* staged collectives on it (coll/coll_stage.h) */
    const char *name;        /* for reports: SHMEM_TEAM_WORLD, ..., or NULL */
    void *coll_nodes;        /* coll/: the team's members by node, made on first use; freed
                              * with the team */
    /* Node-aware barrier (team/team_barrier.c), where the team spans nodes and
     * some node has several members, or the central one (a single head); else
     * bar_heads is NULL. */
    int *bar_heads;          /* world PE of each node's lowest member, in team order */
    int bar_n_heads;
    int bar_my_head;         /* index in bar_heads of my node's head */
    int bar_n_members;       /* as head: the other members of my node */
};

/* Name a collective (or barrier) on t for the status record and number it
 * with the team's count of collectives, which is the same on every member
 * when they call the same sequence. 1 if it took the thread's descriptor
 * (pair with symm_doing_end); a barrier inside a collective does not.
 * Under SHMEM_DEBUG it also checks that every member entered the same
 * collective (routine, root, size) with this number: fatal otherwise. */
int symm_team_doing(struct symm_team *t, const char *routine, int root, uint64_t nbytes);

/* Agreement on a step's outcome over t (a split over its parent, heap
 * growth over the world): every member passes its status (one that failed
 * has logged why) and gets SYMM_OK only if all succeeded; one that failed
 * gets its own status back, the others log "PE n failed: why" and get
 * SYMM_ERR_PEER. Contains t's barrier (with quiet if asked). */
SYMM_MUST_CHECK int symm_team_agree(struct symm_team *t, int rc, int quiet, const char *routine);

/* SHMEM_DEBUG: publish my collective (routine, root, size) as call seq of
 * the group `key` in slot (symmetric), read every member's (members[i], or
 * start + i*stride) until it has reached that call, and end the job naming
 * both sides if one differs. */
void symm_coll_sig_check(symm_instance_t *s, void *slot, const int *members, int start, int stride,
                         int size, int my_idx, uint64_t key, uint64_t seq, const char *name,
                         const char *routine, int root, uint64_t nbytes);
/* The group whose signature my slot holds (its key; 0: none yet), and
 * that call's number in *seq. */
uint64_t symm_coll_sig_held(const void *slot, uint64_t *seq);
/* Before a slot shared by several groups (active sets: SYMM_ACTIVE_SIG_OFF)
 * takes another group's signature: wait until every other member of the
 * group `key` (start + i*stride) has read every signature of its call seq,
 * or moved on. Until then one may still look for mine there, and would
 * wait for it forever. */
void symm_coll_sig_vacate(symm_instance_t *s, void *slot, int start, int stride, int size,
                          int my_idx, uint64_t key, uint64_t seq, const char *routine);

static inline int symm_team_world_pe(const struct symm_team *t, int idx)
{
    return t->members[idx];
}

/* The predefined teams of an instance (world in slot 0, shared in slot 1). */
SYMM_MUST_CHECK int symm_team_init_predefined(symm_instance_t *inst);
void symm_team_fini_predefined(symm_instance_t *inst);
/* The team layer's state (inst->teams) from the configuration, once the
 * node is known (inst->oversubscribed): SYMM_MAX_TEAMS and
 * SYMM_MAX_GROUP_TEAMS clamped, the barrier's form; thread_multiple: the
 * program asked for SHMEM_THREAD_MULTIPLE. Logs its failure. */
SYMM_MUST_CHECK int symm_team_state_create(symm_instance_t *inst, int thread_multiple);
void symm_team_state_destroy(symm_instance_t *inst);

/* Barrier over the team through its scratch flags (team/team_barrier.c); quiet
 * first if asked (barrier, barrier_all), not for sync. */
/* The node layout the barrier uses, set at team creation (team/team_barrier.c);
 * SYMM_ERR_NOMEM if it cannot be made. */
SYMM_MUST_CHECK int symm_team_barrier_layout(struct symm_team *t);
void symm_team_barrier(struct symm_team *t, int quiet);

/* After t's last barrier (destroy): returns once every member of this
 * node is past it, so the slot may be reused. In the node-aware form a
 * member reads its head's release word after the head has passed; a head
 * that went on to zero the slot for a new team could hide it (stress seed
 * 1934081243, nodes-heap-small-2x2: a member waited forever in destroy). */
void symm_team_barrier_drain(struct symm_team *t);
/* The team barrier of the world team. */
void symm_barrier_world(symm_instance_t *s, int quiet);

/* Collective over parent: the team of parent indices start + i*stride,
 * i < size. *team_p is NULL on PEs outside it. */
SYMM_MUST_CHECK int symm_team_split(struct symm_team *parent, int start, int stride, int size,
                    const shmem_team_config_t *config, long mask, struct symm_team **team_p,
                    const char *routine);
SYMM_MUST_CHECK int symm_team_split_2d(struct symm_team *parent, int xrange,
                                       const shmem_team_config_t *xcfg, long xmask,
                                       struct symm_team **x_p, const shmem_team_config_t *ycfg,
                                       long ymask, struct symm_team **y_p, const char *routine);
/* Made by the PEs pes[0..n) alone, each passing the same list (world PEs,
 * distinct, in team order), with no other PE taking part: MPI's
 * Comm_create_group. The team's slot is one of the job's group slots
 * (after the split slots), claimed by pes[0] in PE 0's table, so it is
 * free on every member by construction. PEs that share two groups create
 * them in the same order. On failure *team_p is NULL on every member and
 * each returns the same status (team/team_group.c). */
SYMM_MUST_CHECK int symm_team_create_group(symm_instance_t *s, const int *pes, int n,
                           const shmem_team_config_t *config, long mask,
                           struct symm_team **team_p, const char *routine);
/* A group team's destroy gives its slot back to the job (its first member). */
void symm_team_group_release(symm_instance_t *s, int slot);

/* A team of the given world PEs (members is taken over), which include me,
 * in scratch slot `slot` (zeroed here); NULL without memory. */
struct symm_team *symm_team_new(symm_instance_t *s, int *members, int size, int slot,
                                const shmem_team_config_t *config, long mask);
/* Free a team's memory and its slot on this PE (no communication). */
void symm_team_free(struct symm_team *t);
void symm_team_destroy(struct symm_team *t);
/* Index of world PE pe in t, or -1. */
int symm_team_index_of(const struct symm_team *t, int pe);

#endif
