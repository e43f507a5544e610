/*
 * coll_dispatch.c - which algorithm runs each collective: the entry points
 * of coll/coll.h, and nothing else. Each algorithm is in its own file
 * (coll_algs.h lists them); the choice depends only on what is the same on
 * every member (the group, its mapping, the sizes, the configuration), so
 * all members run the same algorithm.
 *
 * Three forms. pull: every member mapped (node-local group); each reads
 * what it needs from its peers' symmetric buffers between an opening and a barrier
 * (coll_pull.h). msg: some member unmapped and the transport has tagged
 * messages (use_msg, coll_msg.h); no barriers. nodes: a message group that
 * is a team over several nodes; one head per node exchanges messages, its
 * node's members share through their mappings (coll_nodes.h; the heads go
 * direct, ring or Bruck, coll_heads.c). Where messages are not available
 * (no transport message support) the pull forms serve every group.
 *
 * Each algorithm: its file; when it is chosen: why it wins there.
 * The slot form comes first where it fits (symm_coll_ll_fits: a node-local
 * team or world active set of 2-8 PEs, at most SYMM_COLL_LL_MAX bytes per
 * member): no barrier, a line per peer for a word (coll_ll.h). Past it the
 * staged form (symm_coll_stage_fits: a node-local team or world active set,
 * at most SYMM_COLL_STAGE_MAX bytes staged per member, 8 KiB): no barrier,
 * one wait per peer (coll_stage.h).
 *
 * barrier
 *   team        team/team_barrier.c        a team: the team's scratch flags
 *   psync       barrier/barrier_psync.c    an active set: counts on the user's pSync
 * broadcast
 *   ll          bcast/bcast_ll.c           fits: the root writes each member's slot
 *   flag        bcast/bcast_flag.c         a node-local team, past ll: the root's flag, one
 *                                          copy per member, each member's done word
 *   pull        bcast/bcast_pull.c         not msg, or 0 bytes: one copy per member
 *   msg         bcast/bcast_msg.c          msg, no node layout: binomial tree, log2 n rounds
 *   nodes       bcast/bcast_nodes.c        msg, node layout: the tree spans heads only
 * fcollect
 *   ll          fcollect/fcollect_ll.c     fits: each member writes its block to each slot
 *   stage       fcollect/fcollect_stage.c  stage fits: each member stages its block, each
 *                                          copies the others' out, one wait per peer
 *   pull        fcollect/fcollect_pull.c   not msg, or 0 bytes: one copy per block
 *   msg         coll_exchange.c            msg, no heads layout: one round, all blocks at once
 *   nodes       fcollect/fcollect_nodes.c  msg, heads layout: N(N-1) messages, not n(n-1)
 *   split       fcollect/fcollect_split.c  msg, node layout, blocks of SYMM_COLL_SPLIT_MIN
 *                                          or more: member r sends to member r mod L of
 *                                          each other node, members share by memory
 * collect
 *   stage       collect/collect_stage.c    stage on: counts and blocks up to the stage
 *                                          limit staged; larger ones read in place, barrier
 *   pull        collect/collect_pull.c     not msg: one copy per block
 *   msg         collect/collect_msg.c      msg, no heads layout: one round, lengths as offsets
 *   nodes       collect/collect_nodes.c    msg, heads layout: as fcollect's
 * alltoall
 *   ll          fcollect/fcollect_ll.c     fits: block j to member j's slot
 *   stage       fcollect/fcollect_stage.c  stage fits n blocks: each member stages its
 *                                          source, member j copies block j of each
 *   pull        alltoall/alltoall_pull.c   not msg, or 0 bytes: one copy per block
 *   msg         coll_exchange.c            msg, no heads layout or in place: one round
 *   nodes       alltoall/alltoall_nodes.c  msg, heads layout, not in place: one pack per
 *                                          pair of heads (direct, or pairwise rounds)
 *   nodes Bruck alltoall/alltoall_bruck.c  as nodes, heads by Bruck: log2 N messages a head
 *   split       alltoall/alltoall_split.c  msg, node layout, not in place, blocks of
 *                                          SYMM_COLL_SPLIT_MIN or more: every member sends
 *                                          its own blocks off node, writes its node's
 *                                          blocks through memory
 * alltoalls
 *   pull        alltoall/alltoalls_pull.c  always: strided gets
 * reduce (all in member order: identical bits everywhere)
 *   ll          reduce/reduce_ll.c         fits: every source to every slot, reduced by all
 *   stage       reduce/reduce_stage.c      stage fits: each member stages its source,
 *                                          each reduces all staged copies
 *   pull whole  reduce/reduce_pull.c       not msg (or 1 PE), 2 PEs, n > count or below
 *                                          SYMM_REDUCE_SLICE_MIN: one barrier fewer
 *   pull slice  reduce/reduce_pull.c       not msg, otherwise: each member reduces 1/n
 *   msg whole   reduce/reduce_msg.c        msg, n > count or below SYMM_REDUCE_SLICE_MIN,
 *                                          or 2 members up to an eighth of
 *                                          SYMM_COLL_EXCHANGE_EAGER_MAX: one round
 *   msg slice   reduce/reduce_pipe.c       msg, otherwise: reduce-scatter then allgather,
 *                                          each member reduces 1/n, in segments pipelined
 *                                          (SYMM_COLL_SEGMENT, SYMM_COLL_WINDOW)
 *   nodes       reduce/reduce_nodes.c      msg, node layout: only heads exchange (partials):
 *                                          whole below SYMM_REDUCE_SLICE_MIN or as msg whole
 *                                          for 2 nodes, else as slice, the head making each
 *                                          segment of its partial as the pipeline reads it
 * scan
 *   pull        scan/scan_pull.c           not msg (or 1 PE): reads in place
 *   msg         scan/scan_msg.c            msg, 2+ PEs: each source to every later member
 *
 * Node layout (symm_coll_team_nodes): a team, SYMM_COLL_NODE_AWARE on,
 * several nodes and several members on some node. Heads layout
 * (symm_coll_heads_nodes): the node layout, or one member per node where
 * the heads would go by ring or Bruck (SYMM_COLL_HEADS, coll_heads.c).
 */
#include <stdint.h>

#include "coll/coll_algs.h"
#include "coll/coll_ll.h"
#include "coll/coll_msg.h"
#include "coll/coll_nodes.h"
#include "coll/coll_stage.h"
#include "team/team.h"

void symm_group_barrier(symm_group_t *g, int quiet)
{
    if (g->team != NULL) {
        symm_team_barrier(g->team, quiet);
        return;
    }
    symm_coll_barrier_psync(g, quiet);
}

void symm_coll_broadcast(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                         int update_root, const char *routine)
{
    if (symm_coll_ll_fits(g, nbytes)) {
        symm_coll_bcast_ll(g, dest, source, nbytes, root, update_root);
        return;
    }
    if (g->team != NULL && g->all_mapped && nbytes != 0) {
        symm_coll_bcast_flag(g, dest, source, nbytes, root, update_root, routine);
        return;
    }
    if (nbytes != 0 && use_msg(g)) {
        const nodes_t *nd = symm_coll_team_nodes(g);
        if (nd != NULL)
            symm_coll_bcast_nodes(g, nd, dest, source, nbytes, root, update_root, routine);
        else
            symm_coll_bcast_msg(g, dest, source, nbytes, root, update_root, routine);
        return;
    }
    symm_coll_bcast_pull(g, dest, source, nbytes, root, update_root, routine);
}

/* Whether a node-aware fcollect or alltoall goes split (no head): blocks of
 * SYMM_COLL_SPLIT_MIN or more, several members on some node. Past it the
 * heads' copies and their one link each cost more than the messages the
 * split form adds (n(n-L) where the heads send N(N-1)). */
static int split_fits(const symm_group_t *g, const nodes_t *nd, size_t nbytes)
{
    return nd->n_nodes < g->size && nbytes >= g->s->cfg.coll.split_min;
}

void symm_coll_fcollect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    if (symm_coll_ll_fits(g, nbytes)) {
        symm_coll_exchange_ll(g, dest, source, nbytes, 0);
        return;
    }
    if (symm_coll_stage_fits(g, nbytes)) {
        symm_coll_exchange_stage(g, dest, source, nbytes, 0);
        return;
    }
    if (nbytes != 0 && use_msg(g)) {
        const nodes_t *nd = symm_coll_heads_nodes(g, nbytes * (size_t)g->size, 0, routine);
        if (nd != NULL && split_fits(g, nd, nbytes))
            symm_coll_fcollect_split(g, nd, dest, source, nbytes, routine);
        else if (nd != NULL)
            symm_coll_fcollect_nodes(g, nd, dest, source, nbytes, routine);
        else
            symm_coll_exchange_msg(g, dest, source, nbytes, 0, routine);
        return;
    }
    symm_coll_fcollect_pull(g, dest, source, nbytes, routine);
}

void symm_coll_collect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                       const char *routine)
{
    /* Staged or not, every member stages its count: the choice must not
     * depend on the sizes, which differ per member. */
    if (symm_coll_stage_fits(g, 1)) {
        symm_coll_collect_stage(g, dest, source, nbytes, routine);
        return;
    }
    if (use_msg(g)) {
        /* (The sizes differ per member, the choice must not.) */
        const nodes_t *nd = symm_coll_heads_nodes(g, 0, 0, routine);
        if (nd != NULL)
            symm_coll_collect_nodes(g, nd, dest, source, nbytes, routine);
        else
            symm_coll_collect_msg(g, dest, source, nbytes, routine);
        return;
    }
    symm_coll_collect_pull(g, dest, source, nbytes, routine);
}

void symm_coll_alltoall(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    if (symm_coll_ll_fits(g, nbytes)) {
        symm_coll_exchange_ll(g, dest, source, nbytes, 1);
        return;
    }
    if (nbytes <= SIZE_MAX / (size_t)g->size && symm_coll_stage_fits(g, nbytes * (size_t)g->size)) {
        symm_coll_exchange_stage(g, dest, source, nbytes, 1);
        return;
    }
    if (nbytes != 0 && use_msg(g)) {
        size_t all = nbytes * (size_t)g->size;
        const nodes_t *nd = symm_coll_heads_nodes(g, all, 1, routine);
        /* In place (spec: undefined, but the flat exchange copes) runs flat. */
        int apart = (const char *)source + all <= (char *)dest ||
                    (char *)dest + all <= (const char *)source;
        if (nd != NULL && apart && split_fits(g, nd, nbytes))
            symm_coll_alltoall_split(g, nd, dest, source, nbytes, routine);
        else if (nd != NULL && apart)
            symm_coll_alltoall_nodes(g, nd, dest, source, nbytes, routine);
        else
            symm_coll_exchange_msg(g, dest, source, nbytes, 1, routine);
        return;
    }
    symm_coll_alltoall_pull(g, dest, source, nbytes, routine);
}

void symm_coll_alltoalls(symm_group_t *g, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t elem, const char *routine)
{
    symm_coll_alltoalls_pull(g, dest, source, dst, sst, nelems, elem, routine);
}

/* Two members on one host, reached through the transport (SYMM_TRANSPORT=ucx):
 * their endpoints have no peer-failure handling, so a large block goes by
 * zero-copy rendezvous, and a reduction sends the whole vector each way in
 * one round and reduces it all, as mapped pairs do: the slice form's second
 * round costs one more rendezvous handshake than the other half's
 * reduction does (docs/performance.md). Mutual, so both choose alike. */
static int pair_on_host(const symm_group_t *g)
{
    return g->size == 2 && g->s->peers[symm_group_pe(g, 1 - g->me)].same_node;
}

int symm_coll_pair_whole(const symm_group_t *g, int m, size_t bytes)
{
    return m == 2 && bytes <= g->s->cfg.coll.exchange_eager_max / 8;
}

int symm_coll_private_ok(const symm_group_t *g)
{
    if (!use_msg(g))
        return 0;
    for (int i = 0; i < g->size; i++)
        if (i != g->me && g->s->peers[symm_group_pe(g, i)].mapped)
            return 0;
    return 1;
}

void symm_coll_reduce(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                      symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    int n = g->size;
    if (symm_coll_ll_fits(g, bytes)) {
        symm_coll_reduce_ll(g, dest, source, count, elem, op);
        return;
    }
    if (symm_coll_stage_fits(g, bytes)) {
        symm_coll_reduce_stage(g, dest, source, count, elem, op);
        return;
    }
    if (use_msg(g) && n > 1) {
        const nodes_t *nd = count != 0 ? symm_coll_team_nodes(g) : NULL;
        if (nd != NULL)
            symm_coll_reduce_nodes(g, nd, dest, source, count, elem, op, routine);
        else if (n < 2 || bytes < g->s->cfg.coll.reduce_slice_min || (size_t)n > count ||
                 pair_on_host(g) || symm_coll_pair_whole(g, n, bytes))
            symm_coll_reduce_msg_whole(g, dest, source, count, elem, op, routine);
        else
            symm_coll_reduce_msg_slice(g, dest, source, count, elem, op, routine);
        return;
    }
    if (n <= 2 || bytes < g->s->cfg.coll.reduce_slice_min || (size_t)n > count)
        symm_coll_reduce_pull_whole(g, dest, source, count, elem, op, routine);
    else
        symm_coll_reduce_pull_slice(g, dest, source, count, elem, op, routine);
}

void symm_coll_scan(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                    symm_reduce_fn op, int exclusive, const char *routine)
{
    size_t bytes = count * elem;
    if (bytes == 0)
        return;
    if (use_msg(g) && g->size > 1) {
        symm_coll_scan_msg(g, dest, source, count, elem, op, exclusive, routine);
        return;
    }
    symm_coll_scan_pull(g, dest, source, count, elem, op, exclusive, routine);
}
