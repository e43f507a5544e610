/*
 * coll.h - collectives over a group of PEs, behind one interface.
 *
 * A group is a team or a deprecated active set (PE_start, stride, size,
 * pSync). Every collective entry point (src/api/shmem/shmem_coll.c) builds a group and
 * calls one routine here, which picks the algorithm (coll/coll_dispatch.c,
 * its table naming every algorithm and when it is chosen): node-local
 * groups (all members mapped) use the memory-speed pull forms, reading
 * straight from peers' buffers; groups with unmapped members exchange
 * tagged messages through the network transport where it has them
 * (coll/coll_msg.h), with no barriers, and teams over several nodes send
 * between one head per node (coll/coll_nodes.h). One directory per
 * collective (bcast/, fcollect/, collect/, alltoall/, reduce/, scan/,
 * barrier/), one file per algorithm.
 *
 * Layer coll/ (below stream/, above team/; docs/ARCHITECTURE.md): collectives
 * over a group (team or active set). It includes and calls only its own
 * directory and those below it (scripts/check_layers.sh).
 */
#ifndef SYMM_COLL_H
#define SYMM_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/pestatus.h"
#include "runtime/state.h"
#include "transport/transport.h"
#include "runtime/status.h"

typedef struct symm_group {
    symm_instance_t *s;
    int size;
    int me;                  /* my index in the group */
    const int *members;      /* world PE of each index, or NULL: start + i*stride */
    int start, stride;
    struct symm_team *team;  /* barrier on the team's scratch flags, or */
    long *psync;             /* counting barrier on the user's pSync; an active set
                              * of the whole world has both (coll/coll_group.c) */
    uint64_t *count;         /* symmetric word for collect's element count */
    int all_mapped;
} symm_group_t;

/* The group of a team: its members, its barrier, the count word of its
 * scratch slot (coll/coll_group.c). */
struct symm_team;
void symm_group_of_team(symm_group_t *g, struct symm_team *t);
/* The group of a deprecated active set (PE_start, logPE_stride, PE_size)
 * with the user's pSync: its barrier counts in pSync[0..], the count and
 * arrival words are pSync's last two. Fatal on bad arguments (the
 * routines have no return value to report them with). -1 where this PE
 * is not in the set (the call then returns at once; fatal under
 * SHMEM_DEBUG), else 0. */
int symm_group_of_active_set(symm_group_t *g, symm_instance_t *s, int start, int log_stride,
                             int size, long *psync, const char *routine);

/* Name the collective routine entered on g for the status record (team
 * collectives are numbered, runtime/pestatus.h); root a group index or -1.
 * 1 if taken: pair with symm_doing_end. */
int symm_group_doing(const symm_group_t *g, const char *routine, int root, uint64_t nbytes);

/* The tag of the next collective on g that exchanges messages (round 0;
 * add the round, < 256): the group's identity and its count of such
 * collectives, the same on every member since every member calls the
 * group's collectives in the same order. A team is known by its scratch
 * slot (one live team per slot on a PE) and member hash, an active set by
 * (start, stride, size); counted per team, and per active set in a table
 * that keeps every set ever used (coll/coll_group.c). */
symm_msg_tag_t symm_group_next_tag(const symm_group_t *g);

static inline int symm_group_pe(const symm_group_t *g, int i)
{
    return g->members ? g->members[i] : g->start + i * g->stride;
}

/* Element-wise reduction kernel: out[i] = a[i] OP b[i] for n elements;
 * out may equal a. */
typedef void (*symm_reduce_fn)(void *out, const void *a, const void *b, size_t n);

/* Barrier over the group: the team barrier (team/team.h) for a team, a
 * counting barrier on pSync for an active set (coll/barrier/barrier_psync.c). */
void symm_group_barrier(symm_group_t *g, int quiet);

/* The collectives whose form a table chooses (coll_dispatch.c), each with
 * its SYMM_<COLL>_ALGORITHM. */
typedef enum symm_coll_kind {
    SYMM_COLL_BROADCAST,
    SYMM_COLL_FCOLLECT,
    SYMM_COLL_COLLECT,
    SYMM_COLL_ALLTOALL,
    SYMM_COLL_ALLTOALLS,
    SYMM_COLL_REDUCE,
    SYMM_COLL_SCAN,
    SYMM_COLL_KINDS
} symm_coll_kind_t;

/* The SYMM_<COLL>_ALGORITHM settings as indices into each table (-1:
 * auto); an error naming the variable, the value and the choices, and
 * SYMM_ERR_INVALID, for a name no table has. */
SYMM_MUST_CHECK int symm_coll_forced_parse(const symm_config_t *cfg,
                                           int8_t forced[SYMM_COLL_KINDS]);

/* The collective layer's decisions for an instance (inst->coll), made once
 * by symm_coll_policy_create. */
struct symm_coll_policy {
    size_t stage_max;                /* bytes a staged collective stages at most
                                      * (SYMM_COLL_STAGE_MAX) */
    int8_t forced[SYMM_COLL_KINDS];  /* per collective, the form its
                                      * SYMM_<COLL>_ALGORITHM names: an index in
                                      * its table; -1: auto */
};

/* inst->coll from the configuration, once the node is known
 * (inst->oversubscribed). The settings were checked at init's start
 * (symm_coll_forced_parse): only memory can fail, logged. */
SYMM_MUST_CHECK int symm_coll_policy_create(symm_instance_t *inst);
void symm_coll_policy_destroy(symm_instance_t *inst);

/* Every table: collective, variable, and each form's name, file and when
 * the automatic choice takes it (symm-info --algorithms). */
void symm_coll_forms_print(FILE *f);

/* All sizes in bytes. root is a group index. update_root: the root's dest
 * receives the data too (team broadcast), not in the active-set form. */
void symm_coll_broadcast(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                         int update_root, const char *routine);
void symm_coll_fcollect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine);
void symm_coll_collect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                       const char *routine);
void symm_coll_alltoall(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine);
/* Strided: element k of the block for group PE j is source[(j*nelems+k)*sst],
 * it lands at dest[(i*nelems+k)*dst] on j, i being the sender. */
void symm_coll_alltoalls(symm_group_t *g, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t elem, const char *routine);
/* Whether this member's reduction buffers may be private (not symmetric):
 * the group goes by messages and no other member maps this PE's memory,
 * so nobody reads them but this PE (shmemx_reduce_private). */
int symm_coll_private_ok(const symm_group_t *g);

void symm_coll_reduce(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                      symm_reduce_fn op, const char *routine);
/* Prefix reduction (1.6 sum_inscan/exscan): member i's dest = op over the
 * sources of members 0..i (inclusive) or 0..i-1 (exclusive; all-zero bytes
 * on member 0, which is 0 for every arithmetic type), in member order.
 * dest may be source. */
void symm_coll_scan(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                    symm_reduce_fn op, int exclusive, const char *routine);

#endif
