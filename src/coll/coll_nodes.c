/*
 * coll_nodes.c - a team's layout over nodes for the node-aware collectives
 * (declared in coll/coll_nodes.h): which members share a node, each node's
 * head, and whether the layout pays for a collective (the dispatch,
 * coll_dispatch.c, asks). Made once per team on first use, kept in the
 * team (coll_nodes), freed with it.
 */
#include <stdint.h>
#include <stdlib.h>

#include "coll/coll_nodes.h"
#include "team/team.h"

/* The team's layout over nodes, or NULL (not a team, node-aware off, no
 * memory). */
static const nodes_t *team_layout(symm_group_t *g)
{
    struct symm_team *t = g->team;
    if (t == NULL || !g->s->cfg.coll.node_aware)
        return NULL;
    nodes_t *nd = __atomic_load_n((nodes_t **)&t->coll_nodes, __ATOMIC_ACQUIRE);
    if (nd == NULL) {
        int n = t->size;
        nd = malloc(sizeof(*nd) + sizeof(int) * 5 * (size_t)n);
        if (nd == NULL)
            return NULL; /* the flat messages work as well */
        nd->local = (int *)(void *)(nd + 1);
        nd->node_of = nd->local + n;
        nd->leader = nd->node_of + n;
        nd->count = nd->leader + n;
        nd->rank = nd->count + n;
        nd->n_nodes = nd->n_local = 0;
        nd->contig = 1;
        int mine = g->s->peers[g->s->my_pe].map_node;
        for (int i = 0; i < n; i++) {
            int key = g->s->peers[t->members[i]].map_node, k = 0;
            while (k < nd->n_nodes && g->s->peers[t->members[nd->leader[k]]].map_node != key)
                k++;
            if (k == nd->n_nodes) {
                nd->count[nd->n_nodes] = 0;
                nd->leader[nd->n_nodes++] = i;
            }
            if (i > 0 && nd->node_of[i - 1] != k && nd->count[k] != 0)
                nd->contig = 0;
            nd->rank[i] = nd->count[k]++;
            nd->node_of[i] = k;
            if (key == mine)
                nd->local[nd->n_local++] = i;
        }
        nd->my_node = nd->node_of[t->my_idx];
        nodes_t *none = NULL;
        if (!__atomic_compare_exchange_n((nodes_t **)&t->coll_nodes, &none, nd, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            free(nd);
            nd = none;
        }
    }
    return nd;
}

/* The layout where it pays for broadcast and reduce: several nodes, several
 * members on some node. */
const nodes_t *symm_coll_team_nodes(symm_group_t *g)
{
    const nodes_t *nd = team_layout(g);
    return nd != NULL && nd->n_nodes > 1 && nd->n_nodes < g->size ? nd : NULL;
}

/* The layout for fcollect, collect and alltoall: as symm_coll_team_nodes, and also
 * with one member per node where the heads go by ring or Bruck (each
 * member then its node's head); with direct exchanges the flat forms are
 * the same messages. bytes: as symm_coll_heads_alg's, the same on every member. */
const nodes_t *symm_coll_heads_nodes(symm_group_t *g, size_t bytes, int a2a)
{
    const nodes_t *nd = team_layout(g);
    if (nd == NULL || nd->n_nodes < 2)
        return NULL;
    return nd->n_nodes < g->size || symm_coll_heads_alg(g, nd, bytes, a2a) != HEADS_DIRECT
               ? nd
               : NULL;
}
