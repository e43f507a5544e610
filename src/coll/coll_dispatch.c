/*
 * coll_dispatch.c - which form runs each collective: the entry points of
 * coll/coll.h and, as data, each collective's table of forms (name, file,
 * whether it can run a call, whether the automatic choice takes it there,
 * its function). The dispatcher walks the table in order and runs the first
 * form that can and wins; SYMM_<COLL>_ALGORITHM=name runs that form wherever
 * it can. Whether a form can, and whether it wins, depend only on what is
 * the same on every member (the group, its mapping, the sizes, the
 * configuration), so all members run the same form. symm-info --algorithms
 * prints the tables; docs/ARCHITECTURE.md shows that output (a test keeps
 * the two equal).
 *
 * The forms. pull: any group; each reads what it needs from its peers'
 * symmetric buffers between an opening and a barrier (coll_pull.h). msg: some
 * member unmapped and the transport has tagged messages (use_msg,
 * coll_msg.h); no barriers. nodes: a message group that is a team over
 * several nodes; one head per node exchanges messages, its node's members
 * share through their mappings (coll_nodes.h; the heads go direct, ring or
 * Bruck, coll_heads.c). ll (slots, coll_ll.h: a node-local team or world
 * active set of 2-8 PEs, at most SYMM_COLL_LL_MAX bytes per member) and stage
 * (coll_stage.h: at most SYMM_COLL_STAGE_MAX staged per member): no barrier.
 * Barriers are not in a table: a team's is team/team_barrier.c
 * (SYMM_BARRIER), an active set's barrier/barrier_psync.c.
 *
 * Node layout (symm_coll_team_nodes): a team, SYMM_COLL_NODE_AWARE on,
 * several nodes and several members on some node. Heads layout
 * (symm_coll_heads_nodes): the node layout, or one member per node where
 * the heads would go by ring or Bruck (SYMM_COLL_HEADS, coll_heads.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_ll.h"
#include "coll/coll_msg.h"
#include "coll/coll_nodes.h"
#include "coll/coll_stage.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "team/team.h"

void symm_group_barrier(symm_group_t *g, int quiet)
{
    if (g->team != NULL) {
        symm_team_barrier(g->team, quiet);
        return;
    }
    symm_coll_barrier_psync(g, quiet);
}

/* ---- the table ----------------------------------------------------------- */

/* One call's arguments, the same struct for every collective (unused
 * fields zero), and its node layout, looked up once when a form asks. */
typedef struct coll_call {
    symm_group_t *g;
    void *dest;
    const void *source;
    size_t nbytes; /* per member: broadcast, fcollect, collect, alltoall; reductions, scans */
    size_t count, elem;
    symm_reduce_fn op;
    int root, update_root, exclusive;
    ptrdiff_t dst, sst;
    const char *routine;
    const nodes_t *nd;
    int nd_known;
} coll_call_t;

/* A form: whether it can run this call (a fact the same on every member:
 * the group, its mapping, the sizes), whether the automatic choice takes it
 * where it can (NULL: always; the first form in table order that can and
 * wins runs), and the call. SYMM_<COLL>_ALGORITHM=name runs the named form
 * wherever it can, the automatic choice elsewhere. */
typedef struct coll_form {
    const char *name;
    int (*can)(coll_call_t *c);
    int (*wins)(coll_call_t *c);
    void (*run)(coll_call_t *c);
    const char *file, *when;
} coll_form_t;

static int always(coll_call_t *c)
{
    (void)c;
    return 1;
}

/* The layouts, looked up on first use within the call. */
static const nodes_t *team_nodes(coll_call_t *c)
{
    if (!c->nd_known) {
        c->nd = symm_coll_team_nodes(c->g);
        c->nd_known = 1;
    }
    return c->nd;
}

static const nodes_t *heads_nodes(coll_call_t *c, size_t bytes, int a2a)
{
    if (!c->nd_known) {
        c->nd = symm_coll_heads_nodes(c->g, bytes, a2a);
        c->nd_known = 1;
    }
    return c->nd;
}

static int ll_can(coll_call_t *c)
{
    return symm_coll_ll_fits(c->g, c->nbytes);
}
static int stage_can(coll_call_t *c)
{
    return symm_coll_stage_fits(c->g, c->nbytes);
}
static int msg_can(coll_call_t *c)
{
    return c->nbytes != 0 && use_msg(c->g);
}

/* Blocks of SYMM_COLL_SPLIT_MIN or more: past it the heads' copies and
 * their one link each cost more than the messages the split form adds
 * (n(n-L) where the heads send N(N-1)). */
static int split_wins(coll_call_t *c)
{
    return c->nbytes >= c->g->s->cfg.coll.split_min;
}

/* broadcast */
static int bcast_flag_can(coll_call_t *c)
{
    return c->g->team != NULL && c->g->all_mapped && c->nbytes != 0;
}
static int bcast_nodes_can(coll_call_t *c)
{
    return msg_can(c) && team_nodes(c) != NULL;
}
static void bcast_ll(coll_call_t *c)
{
    symm_coll_bcast_ll(c->g, c->dest, c->source, c->nbytes, c->root, c->update_root);
}
static void bcast_flag(coll_call_t *c)
{
    symm_coll_bcast_flag(c->g, c->dest, c->source, c->nbytes, c->root, c->update_root, c->routine);
}
static void bcast_nodes(coll_call_t *c)
{
    symm_coll_bcast_nodes(c->g, team_nodes(c), c->dest, c->source, c->nbytes, c->root,
                          c->update_root, c->routine);
}
static void bcast_msg(coll_call_t *c)
{
    symm_coll_bcast_msg(c->g, c->dest, c->source, c->nbytes, c->root, c->update_root, c->routine);
}
static void bcast_pull(coll_call_t *c)
{
    symm_coll_bcast_pull(c->g, c->dest, c->source, c->nbytes, c->root, c->update_root, c->routine);
}

/* fcollect */
static const nodes_t *fcollect_nd(coll_call_t *c)
{
    return msg_can(c) ? heads_nodes(c, c->nbytes * (size_t)c->g->size, 0) : NULL;
}
static int fcollect_split_can(coll_call_t *c)
{
    const nodes_t *nd = fcollect_nd(c);
    return nd != NULL && nd->n_nodes < c->g->size;
}
static int fcollect_nodes_can(coll_call_t *c)
{
    return fcollect_nd(c) != NULL;
}
static void fcollect_ll(coll_call_t *c)
{
    symm_coll_exchange_ll(c->g, c->dest, c->source, c->nbytes, 0);
}
static void fcollect_stage(coll_call_t *c)
{
    symm_coll_exchange_stage(c->g, c->dest, c->source, c->nbytes, 0);
}
static void fcollect_split(coll_call_t *c)
{
    symm_coll_fcollect_split(c->g, c->nd, c->dest, c->source, c->nbytes, c->routine);
}
static void fcollect_nodes(coll_call_t *c)
{
    symm_coll_fcollect_nodes(c->g, c->nd, c->dest, c->source, c->nbytes, c->routine);
}
static void fcollect_msg(coll_call_t *c)
{
    symm_coll_exchange_msg(c->g, c->dest, c->source, c->nbytes, 0, c->routine);
}
static void fcollect_pull(coll_call_t *c)
{
    symm_coll_fcollect_pull(c->g, c->dest, c->source, c->nbytes, c->routine);
}

/* collect: the sizes differ per member, so no choice may depend on them;
 * staged or not, every member stages its count. */
static int collect_stage_can(coll_call_t *c)
{
    return symm_coll_stage_fits(c->g, 1);
}
static int collect_msg_can(coll_call_t *c)
{
    return use_msg(c->g);
}
static int collect_nodes_can(coll_call_t *c)
{
    return use_msg(c->g) && heads_nodes(c, 0, 0) != NULL;
}
static void collect_stage(coll_call_t *c)
{
    symm_coll_collect_stage(c->g, c->dest, c->source, c->nbytes, c->routine);
}
static void collect_nodes(coll_call_t *c)
{
    symm_coll_collect_nodes(c->g, c->nd, c->dest, c->source, c->nbytes, c->routine);
}
static void collect_msg(coll_call_t *c)
{
    symm_coll_collect_msg(c->g, c->dest, c->source, c->nbytes, c->routine);
}
static void collect_pull(coll_call_t *c)
{
    symm_coll_collect_pull(c->g, c->dest, c->source, c->nbytes, c->routine);
}

/* alltoall */
static int a2a_stage_can(coll_call_t *c)
{
    size_t n = (size_t)c->g->size;
    return c->nbytes <= SIZE_MAX / n && symm_coll_stage_fits(c->g, c->nbytes * n);
}
/* The node forms need dest and source apart (in place is undefined by the
 * spec, but the flat exchange copes). */
static const nodes_t *a2a_nd(coll_call_t *c)
{
    if (!msg_can(c))
        return NULL;
    size_t all = c->nbytes * (size_t)c->g->size;
    const char *d = c->dest, *s = c->source;
    const nodes_t *nd = heads_nodes(c, all, 1);
    return s + all <= d || d + all <= s ? nd : NULL;
}
static int a2a_split_can(coll_call_t *c)
{
    const nodes_t *nd = a2a_nd(c);
    return nd != NULL && nd->n_nodes < c->g->size;
}
static int a2a_nodes_can(coll_call_t *c)
{
    return a2a_nd(c) != NULL;
}
static void a2a_ll(coll_call_t *c)
{
    symm_coll_exchange_ll(c->g, c->dest, c->source, c->nbytes, 1);
}
static void a2a_stage(coll_call_t *c)
{
    symm_coll_exchange_stage(c->g, c->dest, c->source, c->nbytes, 1);
}
static void a2a_split(coll_call_t *c)
{
    symm_coll_alltoall_split(c->g, c->nd, c->dest, c->source, c->nbytes, c->routine);
}
static void a2a_nodes(coll_call_t *c)
{
    symm_coll_alltoall_nodes(c->g, c->nd, c->dest, c->source, c->nbytes, c->routine);
}
static void a2a_msg(coll_call_t *c)
{
    symm_coll_exchange_msg(c->g, c->dest, c->source, c->nbytes, 1, c->routine);
}
static void a2a_pull(coll_call_t *c)
{
    symm_coll_alltoall_pull(c->g, c->dest, c->source, c->nbytes, c->routine);
}

/* alltoalls */
static void a2as_pull(coll_call_t *c)
{
    symm_coll_alltoalls_pull(c->g, c->dest, c->source, c->dst, c->sst, c->count, c->elem,
                             c->routine);
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

/* reductions (all in member order: identical bits everywhere) */
static int red_msg_can(coll_call_t *c)
{
    return use_msg(c->g) && c->g->size > 1;
}
static int red_nodes_can(coll_call_t *c)
{
    return red_msg_can(c) && c->count != 0 && team_nodes(c) != NULL;
}
/* The slice forms give each member 1/n of the vector: n elements at least. */
static int red_sliceable(coll_call_t *c)
{
    return (size_t)c->g->size <= c->count;
}
static int red_msg_slice_can(coll_call_t *c)
{
    return red_msg_can(c) && red_sliceable(c);
}
static int red_whole_wins(coll_call_t *c)
{
    return c->nbytes < c->g->s->cfg.coll.reduce_slice_min || !red_sliceable(c);
}
static int red_msg_whole_wins(coll_call_t *c)
{
    return red_whole_wins(c) || pair_on_host(c->g) ||
           symm_coll_pair_whole(c->g, c->g->size, c->nbytes);
}
static int red_pull_whole_wins(coll_call_t *c)
{
    return c->g->size <= 2 || red_whole_wins(c);
}
static int red_pull_slice_can(coll_call_t *c)
{
    return c->g->size > 1 && red_sliceable(c);
}
static void red_ll(coll_call_t *c)
{
    symm_coll_reduce_ll(c->g, c->dest, c->source, c->count, c->elem, c->op);
}
static void red_stage(coll_call_t *c)
{
    symm_coll_reduce_stage(c->g, c->dest, c->source, c->count, c->elem, c->op);
}
static void red_nodes(coll_call_t *c)
{
    symm_coll_reduce_nodes(c->g, c->nd, c->dest, c->source, c->count, c->elem, c->op, c->routine);
}
static void red_msg_whole(coll_call_t *c)
{
    symm_coll_reduce_msg_whole(c->g, c->dest, c->source, c->count, c->elem, c->op, c->routine);
}
static void red_msg_slice(coll_call_t *c)
{
    symm_coll_reduce_msg_slice(c->g, c->dest, c->source, c->count, c->elem, c->op, c->routine);
}
static void red_pull_whole(coll_call_t *c)
{
    symm_coll_reduce_pull_whole(c->g, c->dest, c->source, c->count, c->elem, c->op, c->routine);
}
static void red_pull_slice(coll_call_t *c)
{
    symm_coll_reduce_pull_slice(c->g, c->dest, c->source, c->count, c->elem, c->op, c->routine);
}

/* scan */
static void scan_msg(coll_call_t *c)
{
    symm_coll_scan_msg(c->g, c->dest, c->source, c->count, c->elem, c->op, c->exclusive,
                       c->routine);
}
static void scan_pull(coll_call_t *c)
{
    symm_coll_scan_pull(c->g, c->dest, c->source, c->count, c->elem, c->op, c->exclusive,
                        c->routine);
}

/* Each collective's forms in the automatic choice's order; the file and
 * when it is chosen (why it wins there) are what symm-info --algorithms
 * prints and docs/ARCHITECTURE.md shows. */
#define F(name, can, wins, run, file, when) \
    {                                       \
        name, can, wins, run, file, when    \
    }
static const coll_form_t forms_broadcast[] = {
    F("ll", ll_can, NULL, bcast_ll, "bcast/bcast_ll.c", "fits: the root writes each member's slot"),
    F("flag", bcast_flag_can, NULL, bcast_flag, "bcast/bcast_flag.c",
      "a node-local team, past ll: the root's flag, one copy per member, each member's done word"),
    F("nodes", bcast_nodes_can, NULL, bcast_nodes, "bcast/bcast_nodes.c",
      "msg, node layout: the tree (or a chain, large) spans heads only"),
    F("msg", msg_can, NULL, bcast_msg, "bcast/bcast_msg.c",
      "msg: binomial tree, log2 n rounds; a chain for large blocks"),
    F("pull", always, NULL, bcast_pull, "bcast/bcast_pull.c", "any group: one copy per member"),
};
static const coll_form_t forms_fcollect[] = {
    F("ll", ll_can, NULL, fcollect_ll, "coll_exchange_ll.c",
      "fits: each member writes its block to each slot"),
    F("stage", stage_can, NULL, fcollect_stage, "coll_exchange_stage.c",
      "stage fits: each member stages its block, each copies the others' out"),
    F("split", fcollect_split_can, split_wins, fcollect_split, "fcollect/fcollect_split.c",
      "msg, node layout, blocks of SYMM_COLL_SPLIT_MIN or more: member r sends to member r "
      "mod L of each other node, members share by memory"),
    F("nodes", fcollect_nodes_can, NULL, fcollect_nodes, "fcollect/fcollect_nodes.c",
      "msg, heads layout: N(N-1) messages, not n(n-1)"),
    F("msg", msg_can, NULL, fcollect_msg, "coll_exchange.c", "msg: one round, all blocks at once"),
    F("pull", always, NULL, fcollect_pull, "fcollect/fcollect_pull.c",
      "any group: one copy per block"),
};
static const coll_form_t forms_collect[] = {
    F("stage", collect_stage_can, NULL, collect_stage, "collect/collect_stage.c",
      "stage on: counts and blocks up to the stage limit staged, larger ones read in place"),
    F("nodes", collect_nodes_can, NULL, collect_nodes, "collect/collect_nodes.c",
      "msg, heads layout: as fcollect's"),
    F("msg", collect_msg_can, NULL, collect_msg, "collect/collect_msg.c",
      "msg: one round, lengths as offsets"),
    F("pull", always, NULL, collect_pull, "collect/collect_pull.c",
      "any group: one copy per block"),
};
static const coll_form_t forms_alltoall[] = {
    F("ll", ll_can, NULL, a2a_ll, "coll_exchange_ll.c", "fits: block j to member j's slot"),
    F("stage", a2a_stage_can, NULL, a2a_stage, "coll_exchange_stage.c",
      "stage fits n blocks: each member stages its source, member j copies block j of each"),
    F("split", a2a_split_can, split_wins, a2a_split, "alltoall/alltoall_split.c",
      "msg, node layout, not in place, blocks of SYMM_COLL_SPLIT_MIN or more: every member "
      "sends its own blocks off node, writes its node's blocks through memory"),
    F("nodes", a2a_nodes_can, NULL, a2a_nodes, "alltoall/alltoall_nodes.c",
      "msg, heads layout, not in place: one pack per pair of heads (direct, pairwise rounds "
      "or Bruck: alltoall_bruck.c)"),
    F("msg", msg_can, NULL, a2a_msg, "coll_exchange.c", "msg: one round"),
    F("pull", always, NULL, a2a_pull, "alltoall/alltoall_pull.c", "any group: one copy per block"),
};
static const coll_form_t forms_alltoalls[] = {
    F("pull", always, NULL, a2as_pull, "alltoall/alltoalls_pull.c", "always: strided gets"),
};
static const coll_form_t forms_reduce[] = {
    F("ll", ll_can, NULL, red_ll, "reduce/reduce_ll.c",
      "fits: every source to every slot, reduced by all"),
    F("stage", stage_can, NULL, red_stage, "reduce/reduce_stage.c",
      "stage fits: each member stages its source, each reduces all staged copies"),
    F("nodes", red_nodes_can, NULL, red_nodes, "reduce/reduce_nodes.c",
      "msg, node layout: only heads exchange partials, whole or pipelined as below"),
    F("msg_whole", red_msg_can, red_msg_whole_wins, red_msg_whole, "reduce/reduce_msg.c",
      "msg, below SYMM_REDUCE_SLICE_MIN, n > count, or 2 members up to an eighth of "
      "SYMM_COLL_EXCHANGE_EAGER_MAX: one round"),
    F("msg_slice", red_msg_slice_can, NULL, red_msg_slice, "reduce/reduce_pipe.c",
      "msg: reduce-scatter then allgather, each member reduces 1/n, segments pipelined"),
    F("pull_whole", always, red_pull_whole_wins, red_pull_whole, "reduce/reduce_pull.c",
      "not msg, 2 PEs, n > count or below SYMM_REDUCE_SLICE_MIN: one barrier fewer"),
    F("pull_slice", red_pull_slice_can, NULL, red_pull_slice, "reduce/reduce_pull.c",
      "otherwise: each member reduces 1/n"),
};
static const coll_form_t forms_scan[] = {
    F("msg", red_msg_can, NULL, scan_msg, "scan/scan_msg.c",
      "msg, 2+ PEs: each source to every later member"),
    F("pull", always, NULL, scan_pull, "scan/scan_pull.c", "any group: reads in place"),
};
#undef F

typedef struct coll_table {
    const char *coll, *var;
    const coll_form_t *forms;
    int n;
} coll_table_t;

#define T(kind, coll, var, forms) \
    [kind] = {coll, var, forms, (int)(sizeof(forms) / sizeof(forms[0]))}
static const coll_table_t tables[SYMM_COLL_KINDS] = {
    T(SYMM_COLL_BROADCAST, "broadcast", "SYMM_BROADCAST_ALGORITHM", forms_broadcast),
    T(SYMM_COLL_FCOLLECT, "fcollect", "SYMM_FCOLLECT_ALGORITHM", forms_fcollect),
    T(SYMM_COLL_COLLECT, "collect", "SYMM_COLLECT_ALGORITHM", forms_collect),
    T(SYMM_COLL_ALLTOALL, "alltoall", "SYMM_ALLTOALL_ALGORITHM", forms_alltoall),
    T(SYMM_COLL_ALLTOALLS, "alltoalls", "SYMM_ALLTOALLS_ALGORITHM", forms_alltoalls),
    T(SYMM_COLL_REDUCE, "reduce", "SYMM_REDUCE_ALGORITHM", forms_reduce),
    T(SYMM_COLL_SCAN, "scan", "SYMM_SCAN_ALGORITHM", forms_scan),
};
#undef T

static const char *forced_name(const symm_config_t *cfg, int kind)
{
    switch (kind) {
    case SYMM_COLL_BROADCAST: return cfg->coll.broadcast_alg;
    case SYMM_COLL_FCOLLECT: return cfg->coll.fcollect_alg;
    case SYMM_COLL_COLLECT: return cfg->coll.collect_alg;
    case SYMM_COLL_ALLTOALL: return cfg->coll.alltoall_alg;
    case SYMM_COLL_ALLTOALLS: return cfg->coll.alltoalls_alg;
    case SYMM_COLL_REDUCE: return cfg->coll.reduce_alg;
    default: return cfg->coll.scan_alg;
    }
}

int symm_coll_policy_create(symm_instance_t *inst)
{
    struct symm_coll_policy *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        symm_error("shmem_init", "no memory for the collectives' policy");
        return SYMM_ERR_NOMEM;
    }
    /* Checked at init's start: it cannot fail here. */
    SYMM_IGNORE(symm_coll_forced_parse(&inst->cfg, p->forced));
    /* Staging adds a copy and a transfer of every staged line, and saves a
     * barrier's waits: worth it for any size the scratch holds where a wait
     * is a context switch, and only for small blocks where each PE has a
     * core (the measurement behind 1 KiB is in docs/performance.md). */
    if (strcmp(inst->cfg.coll.stage_max, "auto") == 0)
        p->stage_max = inst->oversubscribed ? SYMM_TEAM_STAGE_BYTES : 1024;
    else /* a size: the configuration's parse checked it */
        SYMM_IGNORE(symm_parse_size(inst->cfg.coll.stage_max, &p->stage_max));
    inst->coll = p;
    return SYMM_OK;
}

void symm_coll_policy_destroy(symm_instance_t *inst)
{
    free(inst->coll);
    inst->coll = NULL;
}

int symm_coll_forced_parse(const symm_config_t *cfg, int8_t forced[SYMM_COLL_KINDS])
{
    int rc = SYMM_OK;
    for (int k = 0; k < SYMM_COLL_KINDS; k++) {
        const coll_table_t *t = &tables[k];
        const char *v = forced_name(cfg, k);
        forced[k] = -1;
        if (v == NULL || strcmp(v, "auto") == 0)
            continue;
        for (int i = 0; i < t->n; i++)
            if (strcmp(v, t->forms[i].name) == 0)
                forced[k] = (int8_t)i;
        if (forced[k] >= 0)
            continue;
        char names[160] = "auto";
        for (int i = 0; i < t->n; i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof(names) - used, ", %s", t->forms[i].name);
        }
        symm_error("shmem_init", "%s='%s' is not one of %s", t->var, v, names);
        rc = SYMM_ERR_INVALID;
    }
    return rc;
}

void symm_coll_forms_print(FILE *f)
{
    for (int k = 0; k < SYMM_COLL_KINDS; k++) {
        fprintf(f, "%s (%s)\n", tables[k].coll, tables[k].var);
        for (int i = 0; i < tables[k].n; i++) {
            const coll_form_t *a = &tables[k].forms[i];
            fprintf(f, "  %-11s %-27s %s\n", a->name, a->file, a->when);
        }
    }
}

/* The forced form where it can run this call, else the first in table
 * order that can and wins. The last form of every table can always. */
static void coll_run(int kind, coll_call_t *c)
{
    const coll_table_t *t = &tables[kind];
    int f = c->g->s->coll->forced[kind];
    if (f >= 0 && t->forms[f].can(c)) {
        t->forms[f].run(c);
        return;
    }
    for (int i = 0; i < t->n; i++) {
        const coll_form_t *a = &t->forms[i];
        if (a->can(c) && (a->wins == NULL || a->wins(c))) {
            a->run(c);
            return;
        }
    }
}

/* ---- the entry points (coll/coll.h) ---------------------------------------- */

void symm_coll_broadcast(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                         int update_root, const char *routine)
{
    coll_call_t c = {.g = g,
                     .dest = dest,
                     .source = source,
                     .nbytes = nbytes,
                     .root = root,
                     .update_root = update_root,
                     .routine = routine};
    coll_run(SYMM_COLL_BROADCAST, &c);
}

void symm_coll_fcollect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    coll_call_t c = {.g = g, .dest = dest, .source = source, .nbytes = nbytes, .routine = routine};
    coll_run(SYMM_COLL_FCOLLECT, &c);
}

void symm_coll_collect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                       const char *routine)
{
    coll_call_t c = {.g = g, .dest = dest, .source = source, .nbytes = nbytes, .routine = routine};
    coll_run(SYMM_COLL_COLLECT, &c);
}

void symm_coll_alltoall(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    coll_call_t c = {.g = g, .dest = dest, .source = source, .nbytes = nbytes, .routine = routine};
    coll_run(SYMM_COLL_ALLTOALL, &c);
}

void symm_coll_alltoalls(symm_group_t *g, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t elem, const char *routine)
{
    coll_call_t c = {.g = g,
                     .dest = dest,
                     .source = source,
                     .dst = dst,
                     .sst = sst,
                     .count = nelems,
                     .elem = elem,
                     .routine = routine};
    coll_run(SYMM_COLL_ALLTOALLS, &c);
}

void symm_coll_reduce(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                      symm_reduce_fn op, const char *routine)
{
    coll_call_t c = {.g = g,
                     .dest = dest,
                     .source = source,
                     .nbytes = count * elem,
                     .count = count,
                     .elem = elem,
                     .op = op,
                     .routine = routine};
    coll_run(SYMM_COLL_REDUCE, &c);
}

void symm_coll_scan(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                    symm_reduce_fn op, int exclusive, const char *routine)
{
    if (count * elem == 0)
        return;
    coll_call_t c = {.g = g,
                     .dest = dest,
                     .source = source,
                     .nbytes = count * elem,
                     .count = count,
                     .elem = elem,
                     .op = op,
                     .exclusive = exclusive,
                     .routine = routine};
    coll_run(SYMM_COLL_SCAN, &c);
}
