/*
 * instance.c - create, finalize and destroy an instance: configuration,
 * global data remap, bootstrap, node discovery (node_discover.c), mappings,
 * transports, allocator, predefined teams, each a step of
 * symm_instance_create.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "boot/boot.h"
#include "coll/coll.h"
#include "core/heap.h"
#include "core/node_discover.h"
#include "core/sched_slice.h"
#include "core/watch.h"
#include "mem/alloc.h"
#include "mem/blocks.h"
#include "mem/data.h"
#include "ops/sync.h"
#include "shmem.h"
#include "runtime/atomics.h"
#include "runtime/fault.h"
#include "runtime/log.h"
#include "runtime/pestatus.h"
#include "runtime/status.h"
#include "team/team.h"
#include "transport/shm.h"
#include "transport/transport.h"

/* Facts every PE must agree on; compared after an allgather. */
typedef struct layout_check {
    uint64_t heap_size, slot_size, data_size, data_sig;
    int32_t n_ranges, map_globals;
} layout_check_t;

static int check_layout(symm_instance_t *inst, const symm_data_layout_t *data)
{
    layout_check_t mine = {inst->heap_size, inst->slot_size, data->size,
                           data->signature, data->n_ranges,  inst->cfg.core.map_globals};
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
    if (cfg->core.heap_size <= cfg->core.heap_max)
        return SYMM_OK;
    if (set == NULL || *set == '\0') {
        cfg->core.heap_max = cfg->core.heap_size;
        return SYMM_OK;
    }
    char init[32], max[32];
    symm_format_size(cfg->core.heap_size, init, sizeof(init));
    symm_format_size(cfg->core.heap_max, max, sizeof(max));
    symm_error("shmem_init", "%s %s exceeds SYMM_MAX_SYMMETRIC_SIZE %s",
               from_attr ? "the initial heap size (local_mem_size)" : "SHMEM_SYMMETRIC_SIZE",
               init, max);
    return SYMM_ERR_INVALID;
}

static int choose_sizes(symm_instance_t *inst)
{
    size_t scratch =
        page_round(SYMM_MISC_SCRATCH + (size_t)(inst->teams->max_teams + inst->teams->group_teams) *
                                           SYMM_TEAM_SLOT_SIZE);
    /* Both sizes are the program's: the team scratch comes on top. */
    size_t heap = page_round(inst->cfg.core.heap_size + scratch);
    size_t max = page_round(inst->cfg.core.heap_max + scratch);
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
    if (inst->cfg.core.spin >= 0) {
        inst->spin = inst->cfg.core.spin;
    } else if (inst->net != NULL) {
        /* Each poll runs the network's progress (a system call over tcp):
         * 4096 of them would hold the core for milliseconds, against the
         * progress thread or PEs of "other nodes" on this machine (the
         * namespace tests). So spin by time. Where the PEs of this kernel
         * (any namespace) outnumber its cores, SPIN_NET_NS: about one poll
         * before yielding, so the peer that needs the core gets it (small
         * barriers and fcollects across namespaces got much faster, 2-PE
         * jobs did not change). Where each PE has a core, SPIN_NET_OWN_NS,
         * renewed by every event: a PE in a stream of messages (the target
         * of a peer's puts, a get's initiator) keeps polling without the
         * yield system call between polls, which made get and put latency
         * worse. A count tuned for tcp would be wrong for a NIC's
         * cheap user-space polls, and a poll's cost is not known at init
         * (UCX's interfaces start idle until the first connection). */
        inst->spin = SPIN_NET_POLLS;
        inst->spin_ns = inst->oversubscribed ? SPIN_NET_NS : SPIN_NET_OWN_NS;
    } else if (inst->oversubscribed) {
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
    symm_blocks_free(inst->blocks);
    inst->blocks = NULL;
    symm_alloc_fini(inst->alloc);
    free(inst->alloc);
    inst->alloc = NULL;
}

static void states_release(symm_instance_t *inst, void *arg)
{
    (void)arg;
    symm_coll_policy_destroy(inst);
    symm_team_state_destroy(inst);
    symm_shm_state_destroy(inst);
}

/* The state the node-local mappings, the team and the collective layers
 * keep for the instance, from the configuration and the node
 * (inst->oversubscribed). Released last. */
static int layer_states(symm_instance_t *inst)
{
    symm_on_fini(inst, SYMM_FINI_RELEASE, states_release, NULL);
    int rc = symm_shm_state_create(inst);
    if (rc == SYMM_OK)
        rc = symm_team_state_create(inst, inst->thread_level == SHMEM_THREAD_MULTIPLE);
    if (rc == SYMM_OK)
        rc = symm_coll_policy_create(inst);
    return rc;
}

static void teams_release(symm_instance_t *inst, void *arg)
{
    (void)arg;
    symm_team_fini_predefined(inst);
}

/* The configuration (environment, then args), and the global data moved
 * onto its memfd (*data; a layout without one when SYMM_MAP_GLOBALS is
 * off). First thing: globals move before any thread exists and before we
 * keep state anywhere (docs/ARCHITECTURE.md, invariant 2; mem/data.c says
 * why). */
static int config_and_data(const symm_instance_args_t *args, symm_config_t *cfg,
                           const symm_data_layout_t **data)
{
    static const symm_data_layout_t no_data = {.fd = -1};
    int rc;
    memset(cfg, 0, sizeof(*cfg));
    int8_t forced[SYMM_COLL_KINDS];
    rc = symm_config_load(cfg);
    if (symm_coll_forced_parse(cfg, forced) != SYMM_OK || symm_sched_slice_check(cfg) != SYMM_OK)
        rc = SYMM_ERR_INVALID;
    if (rc == SYMM_OK && cfg->core.map_globals)
        rc = symm_data_remap(data);
    if (rc != SYMM_OK)
        return rc;
    if (args->heap_size != 0)
        cfg->core.heap_size = args->heap_size;
    if (!cfg->core.map_globals)
        *data = &no_data;
    return SYMM_OK;
}

/* The instance, with what it knows before the bootstrap: NULL without
 * memory. */
static symm_instance_t *instance_new(const symm_instance_args_t *args, const symm_config_t *cfg)
{
    symm_instance_t *inst = calloc(1, sizeof(*inst));
    if (inst == NULL)
        return NULL;
    inst->cfg = *cfg;
    inst->debug = cfg->core.debug;
    inst->amo_flags = cfg->core.debug ? SYMM_AMO_DEBUG : 0;
    inst->thread_level = args->thread_level;
    inst->instance_id = args->instance_id;
    inst->ctx_default.inst = inst;
    symm_log_set_level(cfg->core.log_level);
    return inst;
}

/* The bootstrap: the caller's, or the one the environment describes; who
 * this PE is in the job. */
static int boot_join(symm_instance_t *inst, const symm_instance_args_t *args)
{
    int rc;
    if (args->boot != NULL)
        inst->boot = args->boot;
    else if ((rc = symm_boot_create_from_env(inst->cfg.boot.timeout, &inst->boot)) != SYMM_OK)
        return rc;
    inst->my_pe = inst->boot->rank;
    inst->n_pes = inst->boot->size;
    symm_log_set_pe(inst->my_pe);
    return SYMM_OK;
}

/* The peer records, and the heap limits checked. Init is agreed
 * (symm_boot_agree) wherever a PE may fail alone before an exchange: it
 * still takes part and says why, so every PE fails at once with its reason
 * instead of waiting for the bootstrap's timeout, and all unwind the same
 * way. */
static int peers_create(symm_instance_t *inst, int heap_from_args)
{
    int rc = SYMM_OK;
    inst->peers = calloc((size_t)inst->n_pes, sizeof(symm_peer_t));
    if (inst->peers == NULL) {
        symm_error("shmem_init", "no memory for %d peer records", inst->n_pes);
        rc = SYMM_ERR_NOMEM;
    }
    if (rc == SYMM_OK)
        rc = check_heap_limits(&inst->cfg, heap_from_args);
    return symm_boot_agree(inst->boot, rc, "shmem_init", NULL);
}

/* The node-local mappings: sizes agreed, heaps and global data of every
 * node-local PE mapped (transport/shm.c), the PE status records. From here
 * on a failure unwinds by the RELEASE hooks. */
static int node_map(symm_instance_t *inst, const symm_data_layout_t *data)
{
    int rc;
    choose_sizes(inst);
    if ((rc = check_layout(inst, data)) != SYMM_OK)
        return rc;
    if ((rc = symm_shm_init(inst, data)) != SYMM_OK)
        return rc;
    symm_pe_status_init(inst);
    inst->n_data_ranges = data->fd >= 0 ? data->n_ranges : 0;
    for (int i = 0; i < inst->n_data_ranges; i++)
        inst->data[i] = data->ranges[i];
    symm_on_fini(inst, SYMM_FINI_RELEASE, shm_release, NULL);
    return SYMM_OK;
}

/* The network transport where some PE needs it; who applies atomics
 * either way (runtime/atomics.h). */
static int net_start(symm_instance_t *inst)
{
    if (inst->net == NULL) {
        symm_atomics_choose(inst, 0, 0, "");
        return SYMM_OK;
    }
    /* Registered first: the transport's fini also undoes a half-done init. */
    symm_on_fini(inst, SYMM_FINI_RELEASE, net_release, NULL);
    /* The transport decides who applies atomics (runtime/atomics.h), from
     * what it finds in its exchange, before it connects. */
    return inst->net->init(inst);
}

/* The heap allocator and the predefined teams. Not agreed here: the
 * caller's agreement is the barrier that follows. */
static int heap_and_teams(symm_instance_t *inst)
{
    int rc;
    if ((inst->alloc = malloc(sizeof(*inst->alloc))) == NULL ||
        (rc = symm_alloc_init(inst->alloc, inst->scratch_size, inst->heap_size)) != SYMM_OK) {
        symm_error("shmem_init", "no memory for the heap allocator");
        free(inst->alloc);
        inst->alloc = NULL;
        return SYMM_ERR_NOMEM;
    }
    symm_on_fini(inst, SYMM_FINI_RELEASE, alloc_release, NULL);
    /* SHMEM_DEBUG's record of the blocks (mem/blocks.h): without it the
     * bounds checks fall back to the segments, and finalize lists nothing. */
    if (inst->debug && (inst->blocks = symm_blocks_new()) == NULL)
        symm_warn("shmem_init", "no memory for SHMEM_DEBUG's record of symmetric blocks: "
                                "block bounds are not checked");
    if ((rc = symm_team_init_predefined(inst)) != SYMM_OK) {
        symm_error("shmem_init", "no memory for the predefined teams");
        return rc;
    }
    symm_on_fini(inst, SYMM_FINI_RELEASE, teams_release, NULL);
    return SYMM_OK;
}

/* SHMEM_PREFAULT: every page of the heap touched now. */
static void heap_prefault(symm_instance_t *inst)
{
#ifdef MADV_POPULATE_WRITE
    if (madvise(inst->heap_base, inst->heap_size, MADV_POPULATE_WRITE) != 0)
#endif
        for (size_t off = 0; off < inst->heap_size; off += 4096)
            __atomic_fetch_add(inst->heap_base + off, 0, __ATOMIC_RELAXED);
}

/* PE 0's version line (SYMM_VERSION) or SHMEM_INFO's table, of cfg as
 * loaded (inst->cfg may have been adjusted since). */
static void announce(symm_instance_t *inst, const symm_config_t *cfg)
{
    /* SHMEM_INFO's table starts with the same version line. */
    if (inst->my_pe == 0 && cfg->core.version && !cfg->core.info)
        dprintf(2, "symm: version %s (OpenSHMEM %d.%d)\n", SYMM_VERSION_STRING, SHMEM_MAJOR_VERSION,
                SHMEM_MINOR_VERSION);
    if (inst->my_pe == 0 && cfg->core.info) {
        symm_config_print(cfg, 2);
        dprintf(2, "symm: atomics: %s\n", inst->amo_why);
        dprintf(2, "symm: heap backing: %s (%s)\n",
                inst->shm->heap_huge ? "2 MiB huge pages" : "normal pages",
                inst->shm->heap_huge_why);
        if (inst->shm->same_address)
            dprintf(2, "symm: node-local heaps: at one address in every process of the node "
                       "(a pointer into any is valid in all; across nodes, offsets only)\n");
        else
            dprintf(2,
                    "symm: node-local heaps: at each process's own address (%s): only "
                    "offsets are symmetric\n",
                    inst->shm->same_address_why);
        const char *bulk =
            inst->net != NULL && inst->net->bulk_info != NULL ? inst->net->bulk_info(inst) : NULL;
        if (bulk != NULL)
            dprintf(2, "symm: large collective messages to other nodes: %s\n", bulk);
    }
}

/* Init in steps, each undone on a later step's failure by the label named
 * for it. Until the bootstrap is joined a given boot is destroyed here;
 * from node_map on, every part registers its teardown as a RELEASE hook. */
int symm_instance_create(const symm_instance_args_t *args, symm_instance_t **inst_p)
{
    const symm_data_layout_t *data = NULL;
    symm_instance_t *inst;
    symm_config_t cfg;
    int rc;

    if ((rc = config_and_data(args, &cfg, &data)) != SYMM_OK)
        goto err_destroy_given_boot;
    if ((inst = instance_new(args, &cfg)) == NULL) {
        rc = SYMM_ERR_NOMEM;
        goto err_destroy_given_boot;
    }
    if ((rc = boot_join(inst, args)) != SYMM_OK)
        goto err_free_instance;
    if ((rc = symm_fault_setup(cfg.core.fault, inst->my_pe, inst->n_pes)) != SYMM_OK)
        goto err_destroy_boot;
    if ((rc = peers_create(inst, args->heap_size != 0)) != SYMM_OK)
        goto err_free_peers;
    if ((rc = symm_node_discover(inst)) != SYMM_OK)
        goto err_free_local_pes;
    /* The machine's cores, not this PE's affinity: the launcher binds each
     * PE to one core, which says nothing of how many PEs share them. */
    inst->oversubscribed = inst->n_host > get_nprocs();
    if ((rc = layer_states(inst)) != SYMM_OK)
        goto err_run_release_hooks;
    symm_sched_slice_choose(inst);
    if ((rc = node_map(inst, data)) != SYMM_OK)
        goto err_run_release_hooks;
    if ((rc = net_start(inst)) != SYMM_OK)
        goto err_run_release_hooks;
    rc = heap_and_teams(inst);
    inst->ctx_default.team = inst->team_world;
    choose_spin(inst);
    if (rc == SYMM_OK && cfg.core.prefault)
        heap_prefault(inst);
    /* Nobody may touch a peer's heap before it is mapped everywhere; the
     * agreement is that barrier. */
    if ((rc = symm_boot_agree(inst->boot, rc, "shmem_init", NULL)) != SYMM_OK)
        goto err_run_release_hooks;
    for (int i = 0; i < inst->n_data_ranges; i++)
        symm_heap_touch_peers(inst, (const char *)inst->data[i].start, inst->data[i].len);
    /* Every record is written now: the watcher may read them, and the
     * network transport's waits publish theirs (a blocking get from a
     * peer that runs no progress is a wait the hang report must see). */
    inst->wait_slow = symm_wait_slow;
    if ((rc = symm_watch_start(inst)) != SYMM_OK)
        goto err_run_release_hooks;
    announce(inst, &cfg);
    inst->initialized = true;
    *inst_p = inst;
    return SYMM_OK;

err_run_release_hooks:
    symm_run_fini(inst, SYMM_FINI_RELEASE);
err_free_local_pes:
    free(inst->local_pes);
err_free_peers:
    free(inst->peers);
err_destroy_boot:
    symm_boot_destroy(inst->boot);
err_free_instance:
    free(inst);
    return rc;

err_destroy_given_boot:
    if (args->boot)
        symm_boot_destroy(args->boot);
    return rc;
}

int symm_instance_finalize(symm_instance_t *inst, const char *routine)
{
    symm_run_fini(inst, SYMM_FINI_DRAIN);
    if (inst->blocks != NULL)
        symm_heap_report_leaks(inst, routine);
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
