/*
 * node_discover.c - which PEs share this node, found at init: node ids
 * traded in one allgather, SYMM_NODE_SIZE's emulated nodes, the node-local
 * PEs and their order, and whether the job needs the network transport.
 *
 * Owns the rule of what makes two PEs node-local (node_id) and the
 * emulation of nodes; writes only the instance's node fields
 * (node_discover.h). Called once, from symm_instance_create (instance.c).
 */
#define _GNU_SOURCE
#include "core/node_discover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/boot.h"
#include "runtime/atomics.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "transport/transport.h"

#define SYMM_NODE_ID_LEN 64

/* What makes two PEs node-local: same kernel boot, same host name, same
 * network namespace (PEs in different namespaces count as different nodes). */
static void node_id(char id[SYMM_NODE_ID_LEN])
{
    char host[32] = "", boot[40] = "";
    struct stat st = {0};
    gethostname(host, sizeof(host) - 1);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (fgets(boot, sizeof(boot), f) == NULL)
            boot[0] = '\0';
        fclose(f);
    }
    stat("/proc/self/ns/net", &st);
    memset(id, 0, SYMM_NODE_ID_LEN);
    snprintf(id, SYMM_NODE_ID_LEN, "%.20s|%.36s|%lx", host, boot, (unsigned long)st.st_ino);
}

/* Whether two node ids (host|boot|netns) name one kernel: the same host
 * and boot, any network namespace. */
static int same_kernel(const char *a, const char *b)
{
    const char *ea = strrchr(a, '|'), *eb = strrchr(b, '|');
    if (ea == NULL || eb == NULL)
        return strcmp(a, b) == 0;
    return ea - a == eb - b && memcmp(a, b, (size_t)(ea - a)) == 0;
}

/* SYMM_NODE_SIZE=k (a test and benchmark aid, SYMM_TRANSPORT=auto only):
 * the PEs of one host, in their node-local order (by rank), are split into
 * emulated nodes of k consecutive PEs, or with SYMM_NODE_CYCLIC dealt out
 * in turn to ceil(n/k) nodes. emu[pe]: pe's emulated node on its host (0
 * without). Decided here, where node identity is, so every layer sees the
 * same layout: the mappings, TEAM_SHARED, map_node, UCX's choice of
 * transports, the watcher (PEs of other emulated nodes are remote, their
 * death seen as a lost connection). The pids stay the host's: a report
 * still names a process of this host by its pid. */
static int emulate_nodes(symm_instance_t *inst, const char (*ids)[SYMM_NODE_ID_LEN], int *emu)
{
    int n = inst->n_pes, k = inst->cfg.core.node_size;
    if (k < 0) {
        symm_error("shmem_init", "SYMM_NODE_SIZE=%d: expected 0 (off) or a node size >= 1", k);
        return SYMM_ERR_INVALID;
    }
    int on = k > 0 && inst->cfg.core.transport == SYMM_TRANSPORT_AUTO;
    for (int pe = 0; pe < n; pe++) {
        int order = 0, count = 0;
        for (int q = 0; on && q < n; q++)
            if (memcmp(ids[q], ids[pe], SYMM_NODE_ID_LEN) == 0) {
                order += q < pe;
                count++;
            }
        int nodes = on ? (count + k - 1) / k : 1;
        emu[pe] = !on ? 0 : inst->cfg.core.node_cyclic ? order % nodes : order / k;
    }
    return SYMM_OK;
}

/* What every PE tells the others: its node, and its process, whose pid,
 * valid to a reader in the same pid namespace, lets the watcher see it die
 * (core/watch.c). */
typedef struct node_who {
    char id[SYMM_NODE_ID_LEN];
    int64_t pid;
    uint64_t pidns;
} node_who_t;

/* Every PE's node id and emulated node, as same_node compares them. */
typedef struct node_view {
    char (*ids)[SYMM_NODE_ID_LEN];
    int *emu;
} node_view_t;

/* The same node: the same host (node_id) and the same emulated node. */
static int same_node(const node_view_t *v, int p, int q)
{
    return memcmp(v->ids[p], v->ids[q], SYMM_NODE_ID_LEN) == 0 && v->emu[p] == v->emu[q];
}

/* This PE's node_who (me), then every PE's (all). Collective. */
static int who_gather(symm_instance_t *inst, node_who_t *me, node_who_t *all)
{
    struct stat pst = {0};
    node_id(me->id);
    me->pid = getpid();
    if (stat("/proc/self/ns/pid", &pst) == 0)
        me->pidns = (uint64_t)pst.st_ino;
    return symm_boot_allgather(inst->boot, me, all, sizeof(*me));
}

/* The PEs on this kernel (same host and boot: other network namespaces,
 * containers and emulated nodes included), which share its cores; each
 * PE's node id into ids, and its pid where this PE can watch it. */
static void host_peers(symm_instance_t *inst, const node_who_t *me, const node_who_t *all,
                       char (*ids)[SYMM_NODE_ID_LEN])
{
    int n = inst->n_pes;
    inst->n_host = 0;
    for (int pe = 0; pe < n; pe++)
        inst->n_host += same_kernel(all[pe].id, me->id);
    for (int pe = 0; pe < n; pe++) {
        memcpy(ids[pe], all[pe].id, SYMM_NODE_ID_LEN);
        inst->peers[pe].pid =
            memcmp(ids[pe], me->id, SYMM_NODE_ID_LEN) == 0 && all[pe].pidns == me->pidns
                ? (int)all[pe].pid
                : 0;
    }
}

/* The node-local PEs in rank order (local_pes, n_local, local_idx), and
 * every peer's same_node and map_node. force_net: SYMM_TRANSPORT=ucx,
 * every other PE counts as remote. */
static void local_pes_list(symm_instance_t *inst, const node_view_t *v, int force_net)
{
    int n = inst->n_pes, me_pe = inst->my_pe;
    inst->n_local = 0;
    for (int pe = 0; pe < n; pe++) {
        inst->peers[pe].same_node = same_node(v, pe, me_pe);
        if (!inst->peers[pe].same_node || (force_net && pe != inst->my_pe))
            continue;
        if (pe == inst->my_pe)
            inst->local_idx = inst->n_local;
        inst->local_pes[inst->n_local++] = pe;
    }
    for (int pe = 0; pe < n; pe++) {
        int q = 0;
        while (!force_net && q < pe && !same_node(v, q, pe))
            q++;
        inst->peers[pe].map_node = force_net ? pe : q;
    }
}

/* A PE not mapped here needs the network transport (inst->net): an error
 * under SYMM_TRANSPORT=shm or without UCX, naming the first such PE. */
static int net_choose(symm_instance_t *inst, const node_view_t *v, int force_net)
{
    int n = inst->n_pes, n_remote = n - inst->n_local;
    for (int pe = 0; pe < n && n_remote > 0; pe++) {
        if (same_node(v, pe, inst->my_pe) && !force_net)
            continue;
        if (pe == inst->my_pe)
            continue;
        if (inst->cfg.core.transport == SYMM_TRANSPORT_SHM) {
            symm_error("shmem_init", "PE %d runs on another node (%s) and SYMM_TRANSPORT=shm", pe,
                       v->ids[pe]);
            return SYMM_ERR_UNSUPPORTED;
        }
        const char *why;
        if ((inst->net = symm_ucx_transport(&why)) == NULL) {
            symm_error("shmem_init",
                       "PE %d is not on this node (%s), but the UCX transport plugin cannot be "
                       "loaded: %s (it is built where UCX is found: install libucx-dev and "
                       "rebuild)",
                       pe, v->ids[pe], why);
            return SYMM_ERR_UNSUPPORTED;
        }
        break;
    }
    return SYMM_OK;
}

int symm_node_discover(symm_instance_t *inst)
{
    int n = inst->n_pes, rc;
    node_who_t *all = malloc((size_t)n * sizeof(node_who_t));
    node_view_t v = {.ids = NULL, .emu = NULL};
    node_who_t me = {0};
    if (all == NULL)
        return SYMM_ERR_NOMEM;
    if ((v.ids = malloc((size_t)n * SYMM_NODE_ID_LEN)) == NULL) {
        rc = SYMM_ERR_NOMEM;
        goto out;
    }
    if ((rc = who_gather(inst, &me, all)) != SYMM_OK)
        goto out;
    host_peers(inst, &me, all, v.ids);
    inst->local_pes = malloc(sizeof(int) * (size_t)n);
    v.emu = malloc(sizeof(int) * (size_t)n);
    if (inst->local_pes == NULL || v.emu == NULL) {
        rc = SYMM_ERR_NOMEM;
        goto out;
    }
    if ((rc = emulate_nodes(inst, (const char(*)[SYMM_NODE_ID_LEN])v.ids, v.emu)) != SYMM_OK)
        goto out;
    int force_net = inst->cfg.core.transport == SYMM_TRANSPORT_UCX;
    local_pes_list(inst, &v, force_net);
    rc = net_choose(inst, &v, force_net);
out:
    free(v.emu);
    free(v.ids);
    free(all);
    return rc;
}
