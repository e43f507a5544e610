/*
 * team_barrier.c - the team barrier: dissemination on the team's scratch flags.
 *
 * Round k: write the team's barrier epoch into the round-k flag of the PE
 * 2^k places on, then wait until my own round-k flag reaches the epoch.
 * Epochs only grow, so a fast peer already in the next barrier cannot
 * confuse a slow one. A mapped peer's flag is a release store, read with
 * acquire: ordering carries through the chain of rounds. An unmapped peer's
 * flag gets 1 added by the transport's notification (one message; the add
 * runs on the owner's CPU).
 *
 * A team that spans nodes with several members on some node (SYMM_TRANSPORT
 * auto, several PEs per node) runs it in three steps instead: every member
 * adds 1 to its node head's arrival count (a CPU atomic on the mapped
 * word), the heads (each node's lowest member) run the dissemination among
 * themselves over the network, and each head stores the epoch in its
 * release word, which its members poll through the mapping. Only
 * log2(nodes) network rounds, one message each per head, against log2(PEs)
 * rounds where most PEs send over the network. Arrivals count up with the
 * epochs (a head waits for epoch x members), so nothing is reset.
 *
 * A node-local team of 3 or more where SYMM_BARRIER says central (auto:
 * the machine is oversubscribed) takes the same steps with one node: the
 * team's first member is the head, no network rounds (central_layout).
 *
 * Lives next to the teams because splits and destroy need it; collectives
 * (coll/) call it, never the reverse.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mem/seg.h"
#include "ops/signal.h"
#include "ops/sync.h"
#include "runtime/status.h"
#include "team/team.h"

#define FLAG_STRIDE (SYMM_CACHE_LINE / sizeof(uint64_t))

static void flag_set(symm_instance_t *s, uint64_t *flag, uint64_t value, int pe)
{
    /* CPU stores and atomics even under SYMM_AMO_NET (ops/amo.h): network
     * peers reach these flags only through notifications the owner's CPU
     * applies (transport notify, ucx/am.c), never through NIC atomics. */
    uint64_t *r = symm_seg_peer_addr(s, flag, pe);
    if (r != NULL) {
        __atomic_store_n(r, value, __ATOMIC_RELEASE);
        return;
    }
    /* Each flag is written by one partner, once per barrier, and epochs
     * count barriers, so adding 1 gives the same value as storing the
     * epoch. */
    symm_signal_add_one_remote(s, flag, pe, "barrier");
}

/* A mapped team of 3 or more where SYMM_BARRIER says central (auto: on a
 * kernel whose PEs outnumber its cores): the node form with one head (the
 * team's first member) and no network rounds. Each member waits once,
 * where dissemination waits log2(n) times, and on an oversubscribed core
 * every wait that finds nothing costs a context switch. The head releases
 * the others and runs on at once, so a collective rooted at it after the
 * barrier (a broadcast from PE 0) has its data out before the other
 * members are scheduled. With 2 members dissemination is one flag each way
 * at the same time and stays. The same answer on every member: the team,
 * the kernel's PE and core counts and the job's environment are. */
static int central_layout(struct symm_team *t)
{
    symm_instance_t *s = t->inst;
    if (t->size < 3 || !s->teams->barrier_central)
        return SYMM_OK;
    int *h = malloc(sizeof(int));
    if (h == NULL)
        return SYMM_ERR_NOMEM;
    h[0] = t->members[0];
    t->bar_heads = h;
    t->bar_n_heads = 1;
    t->bar_my_head = 0;
    t->bar_n_members = t->size - 1;
    return SYMM_OK;
}

int symm_team_barrier_layout(struct symm_team *t)
{
    symm_instance_t *s = t->inst;
    int n = t->size, heads = 0, mine = s->peers[s->my_pe].map_node;
    t->bar_heads = NULL;
    if (t->all_mapped)
        return central_layout(t);
    if (!s->cfg.coll.node_aware)
        return SYMM_OK;
    int *h = malloc(sizeof(int) * (size_t)n);
    if (h == NULL)
        return SYMM_ERR_NOMEM;
    int members = 0, my_head = -1;
    for (int i = 0; i < n; i++) {
        int node = s->peers[t->members[i]].map_node, k = 0;
        while (k < heads && s->peers[h[k]].map_node != node)
            k++;
        if (k == heads)
            h[heads++] = t->members[i];
        if (node == mine) {
            if (my_head < 0)
                my_head = k;
            members++;
        }
    }
    /* One PE per node: the flat dissemination is the same thing. */
    if (heads == n || heads < 2) {
        free(h);
        return SYMM_OK;
    }
    t->bar_heads = h;
    t->bar_n_heads = heads;
    t->bar_my_head = my_head;
    t->bar_n_members = members - 1;
    return SYMM_OK;
}

/* The dissemination rounds over n PEs (pes[me + dist]), epoch e. */
static void dissemination(symm_instance_t *s, struct symm_team *t, const int *pes, int n, int me,
                          uint64_t epoch)
{
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        uint64_t *flag = (uint64_t *)(void *)t->scratch + (size_t)k * FLAG_STRIDE;
        flag_set(s, flag, epoch, pes[(me + dist) % n]);
        symm_wait_at_least(s, flag, epoch);
    }
}

/* The node-aware form (see the top of this file). */
static void node_barrier(symm_instance_t *s, struct symm_team *t, uint64_t epoch)
{
    uint64_t *arrived = (uint64_t *)(void *)(t->scratch + SYMM_TEAM_HBAR_OFF);
    uint64_t *release = arrived + FLAG_STRIDE;
    int head = t->bar_heads[t->bar_my_head];
    if (head != s->my_pe) {
        uint64_t *a = symm_seg_peer_addr(s, arrived, head);
        const uint64_t *r = symm_seg_peer_addr(s, release, head);
        __atomic_fetch_add(a, 1, __ATOMIC_RELEASE);
        symm_wait_at_least(s, r, epoch);
        return;
    }
    symm_wait_at_least(s, arrived, epoch * (uint64_t)t->bar_n_members);
    dissemination(s, t, t->bar_heads, t->bar_n_heads, t->bar_my_head, epoch);
    __atomic_store_n(release, epoch, __ATOMIC_RELEASE);
}

void symm_team_barrier(struct symm_team *t, int quiet)
{
    symm_instance_t *s = t->inst;
    int n = t->size, me = t->my_idx;
    if (quiet)
        symm_quiet(s, &s->ctx_default);
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (n == 1)
        return;
    int taken = symm_team_doing(t, "a barrier inside symm", -1, 0);
    /* Barriers count rounds by epoch: two threads of a PE in the same
     * team's barrier (a stream's and the program's) take turns. Any order
     * matches the other PEs': barriers are all alike. */
    int locked = __atomic_load_n(&s->teams->threads_share_teams, __ATOMIC_RELAXED);
    if (locked)
        pthread_mutex_lock(&t->barrier_lock);
    uint64_t epoch = ++t->barrier_epoch;
    if (t->bar_heads != NULL)
        node_barrier(s, t, epoch);
    else
        dissemination(s, t, t->members, n, me, epoch);
    if (locked)
        pthread_mutex_unlock(&t->barrier_lock);
    symm_doing_end(taken);
}

void symm_team_barrier_drain(struct symm_team *t)
{
    symm_instance_t *s = t->inst;
    if (t->bar_heads == NULL || t->size == 1)
        return;
    uint64_t *arrived = (uint64_t *)(void *)(t->scratch + SYMM_TEAM_HBAR_OFF);
    int head = t->bar_heads[t->bar_my_head];
    int taken = symm_team_doing(t, "a barrier inside symm", -1, 0);
    /* Each member arrives once more, having read the release: the count
     * only grows, and no barrier on t follows. */
    if (head != s->my_pe)
        __atomic_fetch_add((uint64_t *)symm_seg_peer_addr(s, arrived, head), 1, __ATOMIC_RELEASE);
    else
        symm_wait_at_least(s, arrived, (t->barrier_epoch + 1) * (uint64_t)t->bar_n_members);
    symm_doing_end(taken);
}

void symm_barrier_world(symm_instance_t *s, int quiet) { symm_team_barrier(s->team_world, quiet); }
