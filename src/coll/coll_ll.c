/*
 * coll_ll.c - the slots of the small collectives' slot form (coll_ll.h):
 * where a block goes, when a slot may be reused, waiting for a block.
 */
#include <string.h>

#include "coll/coll_ll.h"
#include "mem/seg.h"
#include "ops/sync.h"

typedef struct ll_slot {
    uint64_t seq;
    uint64_t unused;
    unsigned char data[SYMM_COLL_LL_BYTES];
} ll_slot_t;

/* My slot for sender j's block of collective seq. */
static ll_slot_t *ll_slot(struct symm_team *t, int j, uint64_t seq)
{
    size_t k = (size_t)j * SYMM_TEAM_LL_DEPTH + (size_t)(seq % SYMM_TEAM_LL_DEPTH);
    return (ll_slot_t *)(void *)(t->scratch + SYMM_TEAM_LL_OFF + k * SYMM_TEAM_LL_SLOT);
}

static uint64_t *ll_done_word(struct symm_team *t)
{
    return (uint64_t *)(void *)(t->scratch + SYMM_TEAM_LL_DONE_OFF);
}

uint64_t symm_coll_ll_begin(symm_group_t *g)
{
    /* Collectives on one team are never concurrent (the spec's rule). */
    return ++g->team->ll_seq;
}

/* Wait until member j has finished collective `upto` (its slot of a
 * collective DEPTH earlier is then free). */
static void ll_wait_done(symm_group_t *g, int j, uint64_t upto)
{
    struct symm_team *t = g->team;
    const uint64_t *w = symm_seg_peer_addr(g->s, ll_done_word(t), symm_group_pe(g, j));
    t->ll_seen[j] = symm_wait_at_least(g->s, w, upto);
}

void symm_coll_ll_send(symm_group_t *g, int j, uint64_t seq, const void *data, size_t n)
{
    struct symm_team *t = g->team;
    if (t->ll_seen[j] + SYMM_TEAM_LL_DEPTH < seq)
        ll_wait_done(g, j, seq - SYMM_TEAM_LL_DEPTH);
    ll_slot_t *r = symm_seg_peer_addr(g->s, ll_slot(t, g->me, seq), symm_group_pe(g, j));
    memcpy(r->data, data, n);
    __atomic_store_n(&r->seq, seq, __ATOMIC_RELEASE);
}

const void *symm_coll_ll_recv(symm_group_t *g, int j, uint64_t seq)
{
    struct symm_team *t = g->team;
    const ll_slot_t *r = ll_slot(t, j, seq);
    unsigned polls = 0;
    while (__atomic_load_n(&r->seq, __ATOMIC_ACQUIRE) != seq)
        symm_wait_backoff(g->s, &polls);
    /* It sent seq: it finished seq - 1. */
    if (t->ll_seen[j] < seq - 1)
        t->ll_seen[j] = seq - 1;
    return r->data;
}

void symm_coll_ll_end(symm_group_t *g, uint64_t seq)
{
    /* Release: my reads of this collective's slots come before a sender
     * that sees it reuses them. */
    __atomic_store_n(ll_done_word(g->team), seq, __ATOMIC_RELEASE);
}
