/*
 * coll_stage.c - staging a member's source in its team scratch for the
 * staged collectives (coll_stage.h).
 */
#include <string.h>
#include <time.h>

#include "coll/coll_stage.h"
#include "mem/seg.h"
#include "ops/sync.h"
#include "runtime/fault.h"

_Static_assert(SYMM_TEAM_BDONE_OFF + SYMM_CACHE_LINE <= SYMM_TEAM_STAGE_SEQ_OFF &&
                   SYMM_TEAM_STAGE_SEQ_OFF + SYMM_CACHE_LINE <= SYMM_TEAM_STAGE_OFF &&
                   SYMM_TEAM_STAGE_OFF + 2 * SYMM_TEAM_STAGE_BYTES <= SYMM_TEAM_SLOT_SIZE,
               "the staged collectives' word and areas fit the team scratch after the others'");
_Static_assert(SYMM_TEAM_STAGE_OFF % 64 == 0 && SYMM_TEAM_STAGE_BYTES % 64 == 0,
               "staged areas start on cache lines");

static char *area(struct symm_team *t, uint64_t seq)
{
    return t->scratch + SYMM_TEAM_STAGE_OFF + (size_t)(seq & 1) * SYMM_TEAM_STAGE_BYTES;
}

uint64_t symm_coll_stage_next(symm_group_t *g)
{
    /* Collectives on one team are never concurrent (the spec's rule). */
    return ++g->team->stage_seq;
}

void *symm_coll_stage_mine(symm_group_t *g, uint64_t seq)
{
    return area(g->team, seq);
}

void symm_coll_stage_stamp(symm_group_t *g, uint64_t seq)
{
    /* Release: the staged bytes come before the count. */
    __atomic_store_n((uint64_t *)(void *)(g->team->scratch + SYMM_TEAM_STAGE_SEQ_OFF), seq,
                     __ATOMIC_RELEASE);
}

uint64_t symm_coll_stage_begin(symm_group_t *g, const void *source, size_t bytes)
{
    uint64_t seq = symm_coll_stage_next(g);
    memcpy(symm_coll_stage_mine(g, seq), source, bytes);
    symm_coll_stage_stamp(g, seq);
    return seq;
}

const void *symm_coll_stage_block(symm_group_t *g, int j, uint64_t seq)
{
    struct symm_team *t = g->team;
    const char *mine = area(t, seq);
    if (j == g->me)
        return mine;
    symm_instance_t *s = g->s;
    int pe = symm_group_pe(g, j);
    symm_wait_at_least(s, symm_seg_peer_addr(s, t->scratch + SYMM_TEAM_STAGE_SEQ_OFF, pe), seq);
    if (__builtin_expect(symm_fault_armed, 0) && symm_fault("stage_lag")) {
        struct timespec ts = {0, 200000}; /* the testing aid's lag (runtime/fault.h) */
        nanosleep(&ts, NULL);
    }
    return symm_seg_peer_addr(s, mine, pe);
}

uint64_t symm_coll_pull_open(symm_group_t *g)
{
    if (!symm_coll_stage_fits(g, 1)) {
        symm_group_barrier(g, 0);
        return 0;
    }
    uint64_t seq = symm_coll_stage_next(g);
    symm_coll_stage_stamp(g, seq);
    return seq;
}

void symm_coll_pull_ready(symm_group_t *g, int j, uint64_t seq)
{
    if (seq != 0 && j != g->me)
        (void)symm_coll_stage_block(g, j, seq);
}
