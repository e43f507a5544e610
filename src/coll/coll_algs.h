/*
 * coll_algs.h - every algorithm of every collective (coll/ internal), one
 * entry each, grouped by collective; coll_dispatch.c chooses among them
 * (its table says when each is chosen). The arguments are those of the
 * collective's entry point in coll/coll.h; a node-aware form also takes the
 * team's layout over nodes (coll_nodes.h).
 *
 * Forms: pull (every member mapped: read straight from the peers' buffers
 * between an opening and a barrier; coll_pull.h), msg (tagged messages, no barriers;
 * coll_msg.h), nodes (one head per node exchanges messages, its node's
 * members share through their mappings; coll_nodes.h).
 */
#ifndef SYMM_COLL_ALGS_H
#define SYMM_COLL_ALGS_H

#include <stddef.h>

#include "coll/coll.h"
#include "coll/coll_nodes.h"

#pragma GCC visibility push(hidden)

/* barrier/barrier_psync.c: an active set's counting barrier on pSync. */
void symm_coll_barrier_psync(symm_group_t *g, int quiet);

/* The slot form (coll_ll.h, when symm_coll_ll_fits): bcast/bcast_ll.c,
 * coll_exchange_ll.c (fcollect, per_peer 0, and alltoall, per_peer 1),
 * reduce/reduce_ll.c. */
void symm_coll_bcast_ll(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                        int update_root);
void symm_coll_exchange_ll(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                           int per_peer);
void symm_coll_reduce_ll(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                         symm_reduce_fn op);

/* The staged form (coll_stage.h, when symm_coll_stage_fits):
 * coll_exchange_stage.c (fcollect, per_peer 0, and alltoall, per_peer
 * 1), reduce/reduce_stage.c. */
void symm_coll_exchange_stage(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                              int per_peer);
void symm_coll_reduce_stage(symm_group_t *g, void *dest, const void *source, size_t count,
                            size_t elem, symm_reduce_fn op);

/* bcast/ */
void symm_coll_bcast_flag(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                          int update_root, const char *routine);
void symm_coll_bcast_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                          int update_root, const char *routine);
void symm_coll_bcast_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                         int update_root, const char *routine);
void symm_coll_bcast_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                           size_t nbytes, int root, int update_root, const char *routine);

/* fcollect/ (its message form: symm_coll_exchange_msg, per_peer 0) */
void symm_coll_fcollect_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                             const char *routine);
void symm_coll_fcollect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                              size_t nbytes, const char *routine);
void symm_coll_fcollect_split(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                              size_t nbytes, const char *routine);

/* coll_exchange.c: the flat message exchange of fcollect (per_peer 0: my
 * whole source to every member) and alltoall (per_peer 1: block j of my
 * source to member j). */
void symm_coll_exchange_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                            int per_peer, const char *routine);

/* The exchange under it, between lists of members: the nbytes at src +
 * to[k]*stride to each member l->to[k] (segment by segment), each block
 * from member l->from[k] into dest + from[k]*nbytes, with SYMM_COLL_WINDOW receives
 * in flight; between(arg), if given, runs once the sends are out and
 * before the receives, each(arg) after every segment received (work
 * that overlaps the transfers). Returns once every send is complete. */
/* The member lists of an exchange: room for n in each of to and from
 * (on the stack up to 32), nto and nfrom filled by the caller. */
typedef struct exchange_lists {
    int here[64];
    int *to, *from;
    int nto, nfrom;
} exchange_lists_t;
void symm_coll_exchange_lists_init(exchange_lists_t *l, int n, const char *routine);
void symm_coll_exchange_lists_fini(exchange_lists_t *l);

void symm_coll_exchange_lists(symm_group_t *g, symm_msg_tag_t tag, void *dest, const void *src,
                              size_t nbytes, size_t stride, const exchange_lists_t *l,
                              void (*between)(void *arg), void (*each)(void *arg), void *arg,
                              const char *routine);

/* collect/ */
void symm_coll_collect_stage(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                             const char *routine);
void symm_coll_collect_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                            const char *routine);
void symm_coll_collect_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                           const char *routine);
void symm_coll_collect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                             size_t nbytes, const char *routine);

/* alltoall/ (its message form: symm_coll_exchange_msg, per_peer 1) */
void symm_coll_alltoall_pull(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                             const char *routine);
void symm_coll_alltoall_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                              size_t nbytes, const char *routine);
void symm_coll_alltoall_split(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                              size_t nbytes, const char *routine);
void symm_coll_alltoalls_pull(symm_group_t *g, void *dest, const void *source, ptrdiff_t dst,
                              ptrdiff_t sst, size_t nelems, size_t elem, const char *routine);

/* reduce/ */
void symm_coll_reduce_pull_whole(symm_group_t *g, void *dest, const void *source, size_t count,
                                 size_t elem, symm_reduce_fn op, const char *routine);
void symm_coll_reduce_pull_slice(symm_group_t *g, void *dest, const void *source, size_t count,
                                 size_t elem, symm_reduce_fn op, const char *routine);
void symm_coll_reduce_msg_whole(symm_group_t *g, void *dest, const void *source, size_t count,
                                size_t elem, symm_reduce_fn op, const char *routine);
void symm_coll_reduce_msg_slice(symm_group_t *g, void *dest, const void *source, size_t count,
                                size_t elem, symm_reduce_fn op, const char *routine);
/* The pipelined chain broadcast (bcast/bcast_chain.c): whether it beats
 * the binomial tree among m members for nbytes, and one member's part:
 * receive from prev (-1: the root, sending from out), forward to next (-1:
 * none), group indices. */
int symm_coll_bcast_chain_fits(const symm_group_t *g, int m, size_t nbytes);
void symm_coll_bcast_chain(symm_group_t *g, symm_msg_tag_t tag, int prev, int next, void *dest,
                           const void *out, size_t nbytes, int sync, const char *routine);
/* Two members (m) whose reduction of bytes goes whole in one eager round:
 * up to an eighth of SYMM_COLL_EXCHANGE_EAGER_MAX (1 MiB) the second round
 * of the pipelined slice form costs more than reducing the other half
 * does; at 4 MiB in place (a tensor) the whole form's private copy costs
 * more (docs/performance.md). The same on every member. */
int symm_coll_pair_whole(const symm_group_t *g, int m, size_t bytes);
/* A pipelined reduction's source made, and its dest read, a segment at a
 * time. make(lo, hi): makes source[lo, hi) (elements); the pipeline calls
 * it for each segment just before that segment is first read, so making
 * the rest overlaps the transfers already posted; every element is made
 * before any of dest is written. landed(s) (may be NULL): segment s of
 * every member's slice is final in dest, s = 0, 1, ... in order (s is
 * round s of symm_coll_reduce_pipe_seg; one call may cover those before
 * it), so dest can be read while later segments move. */
typedef struct symm_reduce_prep {
    void (*make)(void *arg, size_t lo, size_t hi);
    void (*landed)(void *arg, size_t s);
    void *arg;
} symm_reduce_prep_t;

/* The pipeline's segments among m members: how many rounds, and segment s
 * of member k's slice, [*lo, *hi) elements (0: that slice has no segment
 * s). The same on every PE (SYMM_COLL_SEGMENT). */
size_t symm_coll_reduce_pipe_segs(const symm_group_t *g, int m, size_t count, size_t elem);
int symm_coll_reduce_pipe_seg(const symm_group_t *g, int m, size_t count, size_t elem, int k,
                              size_t s, size_t *lo, size_t *hi);

/* The pipelined reduction among members who[0..m) (group indices; NULL:
 * every member) by messages, self my index among them; the rounds of tag
 * are its own; prep NULL: source is ready (reduce/reduce_pipe.c). */
void symm_coll_reduce_pipe(symm_group_t *g, const int *who, int m, int self, void *dest,
                           const void *source, size_t count, size_t elem, symm_reduce_fn op,
                           symm_msg_tag_t tag, const symm_reduce_prep_t *prep,
                           const char *routine);
void symm_coll_reduce_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                            size_t count, size_t elem, symm_reduce_fn op, const char *routine);

/* scan/ */
void symm_coll_scan_pull(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                         symm_reduce_fn op, int exclusive, const char *routine);
void symm_coll_scan_msg(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                        symm_reduce_fn op, int exclusive, const char *routine);

#pragma GCC visibility pop

#endif
