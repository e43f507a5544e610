/*
 * instance.c - create, finalize and destroy an instance: configuration,
 * global data remap, bootstrap, node discovery, mappings, transports,
 * allocator, predefined teams.
 *
 * Owns the instance lifecycle. Init is collective over the bootstrap's job;
 * every step's failure is reported once where detected. Each part that
 * comes up registers its teardown as a RELEASE hook, so a failed init and a
 * finalize unwind the same way, in the reverse order of creation.
 *
 * Must never: be called from below core/, or keep instance state outside
 * symm_instance_t.
 */
#define _GNU_SOURCE
#include "core/instance.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/watch.h"
#include "mem/alloc.h"
#include "mem/data.h"
#include "shmem.h"
#include "runtime/atomics.h"
#include "runtime/fault.h"
#include "runtime/log.h"
#include "runtime/pestatus.h"
#include "runtime/status.h"
#include "team/team.h"
#include "transport/shm.h"
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

/* Facts every PE must agree on; compared after an allgather. */
typedef struct layout_check {
    uint64_t heap_size, slot_size, data_size, data_sig;
    int32_t n_ranges, map_globals;
} layout_check_t;

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
    int n = inst->n_pes, k = inst->cfg.node_size;
    if (k < 0) {
        symm_error("shmem_init", "SYMM_NODE_SIZE=%d: expected 0 (off) or a node size >= 1", k);
        return SYMM_ERR_INVALID;
    }
    int on = k > 0 && strcmp(inst->cfg.transport, "auto") == 0;
    for (int pe = 0; pe < n; pe++) {
        int order = 0, count = 0;
        for (int q = 0; on && q < n; q++)
            if (memcmp(ids[q], ids[pe], SYMM_NODE_ID_LEN) == 0) {
                order += q < pe;
                count++;
            }
        int nodes = on ? (count + k - 1) / k : 1;
        emu[pe] = !on ? 0 : inst->cfg.node_cyclic ? order % nodes : order / k;
    }
    return SYMM_OK;
}

/* The same node: the same host (node_id) and the same emulated node. */
#define SAME_NODE(p, q) (memcmp(ids[p], ids[q], SYMM_NODE_ID_LEN) == 0 && emu[p] == emu[q])

static int discover_node(symm_instance_t *inst)
{
    int n = inst->n_pes, rc;
    /* The node, and the process: its pid, valid to a reader in the same pid
     * namespace, lets the watcher see it die (core/watch.c). */
    struct who {
        char id[SYMM_NODE_ID_LEN];
        int64_t pid;
        uint64_t pidns;
    } me = {0}, *all = malloc((size_t)n * sizeof(struct who));
    struct stat pst = {0};
    if (all == NULL)
        return SYMM_ERR_NOMEM;
    char (*ids)[SYMM_NODE_ID_LEN] = malloc((size_t)n * SYMM_NODE_ID_LEN);
    char mine[SYMM_NODE_ID_LEN];
    int *emu = NULL;
    if (ids == NULL) {
        free(all);
        return SYMM_ERR_NOMEM;
    }
    if (strcmp(inst->cfg.transport, "auto") != 0 && strcmp(inst->cfg.transport, "shm") != 0 &&
        strcmp(inst->cfg.transport, "ucx") != 0) {
        symm_error("shmem_init", "SYMM_TRANSPORT='%s' is not one of auto, shm, ucx",
                   inst->cfg.transport);
        free(ids);
        free(all);
        return SYMM_ERR_INVALID;
    }
    symm_atomics_mode_t amode;
    if (symm_atomics_mode(&inst->cfg, "shmem_init", &amode) != SYMM_OK) {
        free(ids);
        free(all);
        return SYMM_ERR_INVALID;
    }
    node_id(mine);
    memcpy(me.id, mine, SYMM_NODE_ID_LEN);
    me.pid = getpid();
    if (stat("/proc/self/ns/pid", &pst) == 0)
        me.pidns = (uint64_t)pst.st_ino;
    rc = symm_boot_allgather(inst->boot, &me, all, sizeof(me));
    if (rc != SYMM_OK)
        goto out;
    /* PEs on this kernel (same host and boot: other network namespaces,
     * containers and emulated nodes included), which share its cores. */
    inst->n_host = 0;
    for (int pe = 0; pe < n; pe++)
        inst->n_host += same_kernel(all[pe].id, mine);
    for (int pe = 0; pe < n; pe++) {
        memcpy(ids[pe], all[pe].id, SYMM_NODE_ID_LEN);
        inst->peers[pe].pid =
            memcmp(ids[pe], mine, SYMM_NODE_ID_LEN) == 0 && all[pe].pidns == me.pidns
                ? (int)all[pe].pid : 0;
    }
    inst->local_pes = malloc(sizeof(int) * (size_t)n);
    emu = malloc(sizeof(int) * (size_t)n);
    if (inst->local_pes == NULL || emu == NULL) {
        rc = SYMM_ERR_NOMEM;
        goto out;
    }
    if ((rc = emulate_nodes(inst, ids, emu)) != SYMM_OK)
        goto out;
    /* SYMM_TRANSPORT=ucx: every other PE counts as remote. */
    int force_net = strcmp(inst->cfg.transport, "ucx") == 0;
    int me_pe = inst->my_pe;
    inst->n_local = 0;
    for (int pe = 0; pe < n; pe++) {
        inst->peers[pe].same_node = SAME_NODE(pe, me_pe);
        if (!inst->peers[pe].same_node || (force_net && pe != inst->my_pe))
            continue;
        if (pe == inst->my_pe)
            inst->local_idx = inst->n_local;
        inst->local_pes[inst->n_local++] = pe;
    }
    for (int pe = 0; pe < n; pe++) {
        int q = 0;
        while (!force_net && q < pe && !SAME_NODE(q, pe))
            q++;
        inst->peers[pe].map_node = force_net ? pe : q;
    }
    inst->n_remote = n - inst->n_local;
    for (int pe = 0; pe < n && inst->n_remote > 0; pe++) {
        if (SAME_NODE(pe, me_pe) && !force_net)
            continue;
        if (pe == inst->my_pe)
            continue;
        if (strcmp(inst->cfg.transport, "shm") == 0) {
            symm_error("shmem_init", "PE %d runs on another node (%s) and SYMM_TRANSPORT=shm",
                       pe, ids[pe]);
            rc = SYMM_ERR_UNSUPPORTED;
            goto out;
        }
        if ((inst->net = symm_ucx_transport()) == NULL) {
            symm_error("shmem_init",
                       "PE %d is not on this node (%s) and this symm was built without UCX "
                       "(install libucx-dev and rebuild)", pe, ids[pe]);
            rc = SYMM_ERR_UNSUPPORTED;
            goto out;
        }
        break;
    }
out:
    free(emu);
    free(ids);
    free(all);
    return rc;
}
#undef SAME_NODE

static int check_layout(symm_instance_t *inst, const symm_data_layout_t *data)
{
    layout_check_t mine = {inst->heap_size, inst->slot_size, data->size, data->signature,
                           data->n_ranges, inst->cfg.map_globals};
    layout_check_t *all = malloc(sizeof(mine) * (size_t)inst->n_pes);
    int rc;
    if (all == NULL)
        return SYMM_ERR_NOMEM;
    rc = symm_boot_allgather(inst->boot, &mine, all, sizeof(mine));
    for (int pe = 0; rc == SYMM_OK && pe < inst->n_pes; pe++) {
        if (all[pe].slot_size < inst->slot_size)
            inst->slot_size = all[pe].slot_size;
        if (all[pe].heap_size != mine.heap_size || all[pe].map_globals != mine.map_globals) {
            symm_error("shmem_init",
                       "PE %d has heap size %llu (max %llu), this PE %llu (max %llu): every PE "
                       "must see the same SHMEM_SYMMETRIC_SIZE and SYMM_* settings",
                       pe, (unsigned long long)all[pe].heap_size,
                       (unsigned long long)all[pe].slot_size, (unsigned long long)mine.heap_size,
                       (unsigned long long)mine.slot_size);
            rc = SYMM_ERR_INVALID;
        } else if (all[pe].data_size != mine.data_size || all[pe].data_sig != mine.data_sig) {
            symm_error("shmem_init",
                       "PE %d runs a different executable (global data %llu bytes, here %llu): "
                       "all PEs must run the same program",
                       pe, (unsigned long long)all[pe].data_size,
                       (unsigned long long)mine.data_size);
            rc = SYMM_ERR_INVALID;
        }
    }
    free(all);
    return rc;
}

static size_t page_round(size_t v)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (v + pg - 1) / pg * pg;
}

/* The initial heap against its maximum. An explicit maximum below the
 * initial size contradicts it: an error naming both. Left at its default,
 * the maximum is the larger of the default and the initial size. */
static int check_heap_limits(symm_config_t *cfg, int from_attr)
{
    const char *set = getenv("SYMM_MAX_SYMMETRIC_SIZE");
    if (cfg->heap_size <= cfg->heap_max)
        return SYMM_OK;
    if (set == NULL || *set == '\0') {
        cfg->heap_max = cfg->heap_size;
        return SYMM_OK;
    }
    char init[32], max[32];
    symm_format_size(cfg->heap_size, init, sizeof(init));
    symm_format_size(cfg->heap_max, max, sizeof(max));
    symm_error("shmem_init", "%s %s exceeds SYMM_MAX_SYMMETRIC_SIZE %s",
               from_attr ? "the initial heap size (local_mem_size)" : "SHMEM_SYMMETRIC_SIZE",
               init, max);
    return SYMM_ERR_INVALID;
}

static int choose_sizes(symm_instance_t *inst)
{
    inst->max_teams = inst->cfg.max_teams < 2 ? 2
                      : inst->cfg.max_teams > SYMM_TEAM_SLOTS_MAX ? SYMM_TEAM_SLOTS_MAX
                                                                  : inst->cfg.max_teams;
    size_t scratch = page_round(SYMM_MISC_SCRATCH +
                                (size_t)inst->max_teams * SYMM_TEAM_SLOT_SIZE);
    size_t heap = page_round(inst->cfg.heap_size + scratch);
    size_t max = page_round(inst->cfg.heap_max);
    if (max < heap)
        max = heap;
    /* Slots are 2 MiB aligned so huge pages can back them, and from 1 GiB
     * on a multiple of SYMM_HEAP_ALIGN_MAX, so every slot base is that
     * aligned (shmem_align; transport/shm.c). */
    max = (max + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    if (max >= SYMM_HEAP_ALIGN_MAX)
        max = (max + SYMM_HEAP_ALIGN_MAX - 1) & ~(SYMM_HEAP_ALIGN_MAX - 1);
    /* Reserving address space costs nothing, but a limit (ulimit -v,
     * valgrind) may refuse a large range: settle for what can be had. Every
     * PE then uses the smallest slot any PE got (check_layout). */
    while (max > heap) {
        /* With the slack map_node aligns the range with. */
        size_t len = max * (size_t)inst->n_local + SYMM_HEAP_ALIGN_MAX;
        void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            munmap(p, len);
            break;
        }
        max = max / 2 < heap ? heap : (max / 2 + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    }
    inst->heap_size = heap;
    inst->slot_size = max;
    inst->scratch_size = scratch;
    return SYMM_OK;
}

/* With a network, waits spin SPIN_NET_POLLS polls, then on by the clock
 * (ops/wait_status.c, ucx/rma.c) for SPIN_NET_NS, or SPIN_NET_OWN_NS where this
 * kernel's PEs do not outnumber its cores, and as long again after every
 * network event, before they yield. */
#define SPIN_NET_POLLS 4
#define SPIN_NET_NS 1000
#define SPIN_NET_OWN_NS 20000

static void choose_spin(symm_instance_t *inst)
{
    /* The machine's cores, not this PE's affinity: the launcher binds each
     * PE to one core, which says nothing of how many PEs share them. */
    int ncpu = get_nprocs();
    if (inst->cfg.spin >= 0) {
        inst->spin = inst->cfg.spin;
    } else if (inst->net != NULL) {
        /* Each poll runs the network's progress (a system call over tcp):
         * 4096 of them would hold the core for milliseconds, against the
         * progress thread or PEs of "other nodes" on this machine (the
         * namespace tests). So spin by time. Where the PEs of this kernel
         * (any namespace) outnumber its cores, 1 us: 1 poll before
         * yielding (against 64) took a 4-PE barrier across two namespaces
         * on 2 cores from 97 to 29 us and 8 B fcollect from 66 to 25, the
         * 2-PE rows unchanged. Where each PE has a core, 20 us, renewed by
         * every event: a PE in a stream of messages (the target of a
         * peer's puts, a get's initiator) keeps polling without the yield
         * system call between polls, which cost 2-PE get and put latency
         * 5-8 % here. A count tuned for tcp would be wrong for a NIC's
         * cheap user-space polls, and a poll's cost is not known at init
         * (UCX's interfaces start idle until the first connection). */
        inst->spin = SPIN_NET_POLLS;
        inst->spin_ns = inst->n_host > ncpu ? SPIN_NET_NS : SPIN_NET_OWN_NS;
    } else if (inst->n_local > ncpu) {
        /* Oversubscribed: a waiter's peer may need our core, so yield at once
         * after a few polls. */
        inst->spin = 16;
    } else {
        /* Poll long enough to catch a fast peer. */
        inst->spin = 4096;
    }
}

/* Teardown of the parts init brings up, as RELEASE hooks. */
static void shm_release(symm_instance_t *inst, void *arg)
{
    (void)arg;
    symm_shm_fini(inst);
}

static void net_release(symm_instance_t *inst, void *arg)
{
    (void)arg;
    inst->net->fini(inst);
}

static void alloc_release(symm_instance_t *inst, void *arg)
{
    (void)arg;
    symm_alloc_fini(inst->alloc);
    free(inst->alloc);
    inst->alloc = NULL;
}

static void teams_release(symm_instance_t *inst, void *arg)
{
    (void)arg;
    symm_team_fini_predefined(inst);
}

int symm_instance_create(const symm_instance_args_t *args, symm_instance_t **inst_p)
{
    const symm_data_layout_t *data = NULL;
    static const symm_data_layout_t no_data = {.fd = -1};
    symm_config_t cfg;
    int rc;

    /* First thing: globals move onto their memfd before any thread exists
     * and before we keep state anywhere (docs/ARCHITECTURE.md, invariant 2;
     * mem/data.c says why). */
    memset(&cfg, 0, sizeof(cfg));
    rc = symm_config_load(&cfg);
    if (rc == SYMM_OK && cfg.map_globals)
        rc = symm_data_remap(&data);
    if (rc != SYMM_OK) {
        if (args->boot)
            symm_boot_destroy(args->boot);
        return rc;
    }
    if (args->heap_size != 0)
        cfg.heap_size = args->heap_size;
    if (!cfg.map_globals) {
        data = &no_data;
    }

    symm_instance_t *inst = calloc(1, sizeof(*inst));
    if (inst == NULL) {
        if (args->boot)
            symm_boot_destroy(args->boot);
        return SYMM_ERR_NOMEM;
    }
    inst->cfg = cfg;
    inst->heap_fd = -1;
    inst->data_fd = data->fd;
    inst->debug = cfg.debug;
    inst->amo_flags = cfg.debug ? SYMM_AMO_DEBUG : 0;
    inst->thread_level = args->thread_level;
    inst->threads_share_teams = args->thread_level == SHMEM_THREAD_MULTIPLE;
    inst->instance_id = args->instance_id;
    inst->ctx_default.inst = inst;
    symm_log_set_level(cfg.log_level);

    if (args->boot != NULL)
        inst->boot = args->boot;
    else if ((rc = symm_boot_create_from_env(cfg.boot_timeout, &inst->boot)) != SYMM_OK)
        goto err_free;
    inst->my_pe = inst->boot->rank;
    inst->n_pes = inst->boot->size;
    symm_log_set_pe(inst->my_pe);
    if ((rc = symm_fault_setup(cfg.fault, inst->my_pe, inst->n_pes)) != SYMM_OK)
        goto err_boot;

    /* Init is agreed (symm_boot_agree) wherever a PE may fail alone before
     * an exchange: it still takes part and says why, so every PE fails at
     * once with its reason instead of waiting for the bootstrap's timeout,
     * and all unwind the same way. */
    inst->peers = calloc((size_t)inst->n_pes, sizeof(symm_peer_t));
    if (inst->peers == NULL) {
        symm_error("shmem_init", "no memory for %d peer records", inst->n_pes);
        rc = SYMM_ERR_NOMEM;
    }
    if (rc == SYMM_OK)
        rc = check_heap_limits(&inst->cfg, args->heap_size != 0);
    if ((rc = symm_boot_agree(inst->boot, rc, "shmem_init", NULL)) != SYMM_OK)
        goto err_peers;
    rc = discover_node(inst);
    if (rc != SYMM_OK)
        goto err_peers;
    choose_sizes(inst);
    rc = check_layout(inst, data);
    if (rc != SYMM_OK)
        goto err_local;
    rc = symm_shm_init(inst, data);
    if (rc != SYMM_OK)
        goto err_local;
    symm_pe_status_init(inst);
    inst->n_data_ranges = data->fd >= 0 ? data->n_ranges : 0;
    for (int i = 0; i < inst->n_data_ranges; i++)
        inst->data[i] = data->ranges[i];

    symm_on_fini(inst, SYMM_FINI_RELEASE, shm_release, NULL);

    if (inst->net != NULL) {
        /* Registered first: the transport's fini also undoes a half-done
         * init. */
        symm_on_fini(inst, SYMM_FINI_RELEASE, net_release, NULL);
        /* The transport decides who applies atomics (runtime/atomics.h),
         * from what it finds in its exchange, before it connects. */
        if ((rc = inst->net->init(inst)) != SYMM_OK)
            goto err_parts;
    } else {
        symm_atomics_choose(inst, 0, 0, "");
    }
    if ((inst->alloc = malloc(sizeof(*inst->alloc))) == NULL ||
        (rc = symm_alloc_init(inst->alloc, inst->scratch_size, inst->heap_size)) != SYMM_OK) {
        symm_error("shmem_init", "no memory for the heap allocator");
        free(inst->alloc);
        inst->alloc = NULL;
        rc = SYMM_ERR_NOMEM;
    } else {
        symm_on_fini(inst, SYMM_FINI_RELEASE, alloc_release, NULL);
        if ((rc = symm_team_init_predefined(inst)) != SYMM_OK)
            symm_error("shmem_init", "no memory for the predefined teams");
        else
            symm_on_fini(inst, SYMM_FINI_RELEASE, teams_release, NULL);
    }
    inst->ctx_default.team = inst->team_world;
    choose_spin(inst);
    if (rc == SYMM_OK && cfg.prefault) {
#ifdef MADV_POPULATE_WRITE
        if (madvise(inst->heap_base, inst->heap_size, MADV_POPULATE_WRITE) != 0)
#endif
            for (size_t off = 0; off < inst->heap_size; off += 4096)
                __atomic_fetch_add(inst->heap_base + off, 0, __ATOMIC_RELAXED);
    }

    /* Nobody may touch a peer's heap before it is mapped everywhere; the
     * agreement is that barrier. */
    rc = symm_boot_agree(inst->boot, rc, "shmem_init", NULL);
    if (rc != SYMM_OK)
        goto err_parts;
    /* Every record is written now: the watcher may read them. */
    if ((rc = symm_watch_start(inst)) != SYMM_OK)
        goto err_parts;
    /* SHMEM_INFO's table starts with the same version line. */
    if (inst->my_pe == 0 && cfg.version && !cfg.info)
        dprintf(2, "symm: version %s (OpenSHMEM %d.%d)\n", SYMM_VERSION_STRING,
                SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    if (inst->my_pe == 0 && cfg.info) {
        symm_config_print(&cfg, 2);
        dprintf(2, "symm: atomics: %s\n", inst->amo_why);
        const char *bulk = inst->net != NULL && inst->net->bulk_info != NULL
                               ? inst->net->bulk_info(inst) : NULL;
        if (bulk != NULL)
            dprintf(2, "symm: large collective messages to other nodes: %s\n", bulk);
    }
    inst->initialized = true;
    *inst_p = inst;
    return SYMM_OK;

err_parts:
    symm_run_fini(inst, SYMM_FINI_RELEASE);
err_local:
    free(inst->local_pes);
err_peers:
    free(inst->peers);
err_boot:
    symm_boot_destroy(inst->boot);
err_free:
    free(inst);
    return rc;
}

int symm_instance_finalize(symm_instance_t *inst)
{
    symm_run_fini(inst, SYMM_FINI_DRAIN);
    /* Past the barrier every PE is in finalize: from then on a PE's exit
     * is normal to its watchers (core/watch.c). */
    symm_pe_status_phase(inst, SYMM_PHASE_FINALIZING, 0);
    {
        SYMM_DOING_SCOPE(symm_team_doing(inst->team_world, "shmem_finalize", -1, 0));
        symm_barrier_world(inst, 1);
    }
    symm_pe_status_phase(inst, SYMM_PHASE_FINALIZED, 0);
    return symm_boot_barrier(inst->boot);
}

void symm_instance_destroy(symm_instance_t *inst)
{
    symm_run_fini(inst, SYMM_FINI_RELEASE);
    symm_boot_destroy(inst->boot);
    free(inst->local_pes);
    free(inst->peers);
    free(inst);
}
