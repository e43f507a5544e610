/*
 * state.h - the instance: all runtime state of one symm job membership.
 *
 * Nothing of the runtime lives in scattered globals: one symm_instance_t
 * holds it, and symm_cur points at the instance the OpenSHMEM API acts on
 * (several instances may exist in one process later; each owns its heap,
 * bootstrap and transport). Hot paths read symm_cur once.
 *
 * The struct is the one type every layer shares, so it lives at the bottom;
 * what higher layers own (bootstrap, allocator, teams, transport state) it
 * holds by pointer to an incomplete type. Creating and ending an instance is
 * core/'s job (core/instance.h); this file only defines it, names the
 * current one and keeps the shutdown hooks layers register.
 *
 * Layer runtime/ (below boot/, the bottom one; docs/ARCHITECTURE.md): the
 * shared types, configuration, logging, status codes. It includes and calls
 * only its own directory and those below it (scripts/check_layers.sh).
 */
#ifndef SYMM_STATE_H
#define SYMM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/config.h"

#define SYMM_MAX_DATA_RANGES 4
#define SYMM_CACHE_LINE 64
#define SYMM_FINI_HOOKS_MAX 16

/* Owned by the layers above, held here by pointer only: runtime/ is the
 * bottom layer and includes none of them. */
struct symm_transport_ops;
struct symm_boot;
struct symm_heap_alloc;
struct symm_team;
struct symm_team_state;
struct symm_shm_map;
struct symm_coll_policy;
struct symm_region_table;
struct symm_instance;

/* One writable range of the executable's data, backed by the data memfd at
 * file offset `off`. */
typedef struct symm_data_range {
    uintptr_t start;
    size_t len;
    size_t off;
} symm_data_range_t;

/* Per-PE routing, indexed by PE: where its heap and data are mapped here.
 * heap_delta is added to a local heap address to get the peer's copy;
 * data_base is the peer's data memfd mapping. NULL data_base / !mapped:
 * reach the peer through the network transport. */
typedef struct symm_peer {
    intptr_t heap_delta;
    char *data_base;
    int local_idx;           /* index among node-local PEs, -1 if not mapped */
    int mapped;
    int same_node;           /* on this node, mapped or not (SYMM_TRANSPORT=ucx) */
    int map_node;            /* the lowest PE mapped together with it (its node's lowest PE;
                              * itself under SYMM_TRANSPORT=ucx): node-aware collectives */
    int pid;                 /* its process, if on this node and in my pid namespace; else 0 */
} symm_peer_t;

/* An ordering/completion context. SHMEM_CTX_DEFAULT points at the
 * instance's default one. Mapped peers need no per-context state (their
 * operations complete in program order); a network transport keeps its
 * per-context completion state (worker, outstanding operations) in net. */
struct symm_ctx {
    struct symm_instance *inst;
    struct symm_team *team;
    const int *pe_map;       /* team context: world PE of each team PE; NULL for world */
    int team_size;
    long options;
    void *net;
    /* SYMM_AMO_NET: the transport applied an update to a mapped PE since
     * the last fence that completed it (symm_fence, ops/sync.h). */
    int net_amo_mapped;
};

/* amo_flags: SHMEM_DEBUG's checks; the network transport applies every
 * AMO, signal update and lock word operation, for every PE, this one and
 * mapped ones included: one atomic agent per word (runtime/atomics.h). */
#define SYMM_AMO_DEBUG 1u
#define SYMM_AMO_NET 2u

/* The most a heap base is aligned to (transport/shm.c), so the most
 * shmem_align honours; reserving that much more address space is free. */
#define SYMM_HEAP_ALIGN_MAX ((size_t)1 << 30)

typedef struct symm_instance {
    /* --- hot: read by every put/get/atomic --- */
    char *heap_base;         /* my heap */
    size_t heap_size;        /* current size, identical on every PE; grows while other
                              * threads communicate: read it with symm_heap_size */
    int my_pe;
    int n_pes;
    symm_peer_t *peers;      /* [n_pes] */
    int n_data_ranges;
    symm_data_range_t data[SYMM_MAX_DATA_RANGES];
    bool debug;
    /* What an AMO or signal update does besides one CPU atomic, SYMM_AMO_*
     * bits: one byte, so the fast path pays one predictable branch. */
    uint8_t amo_flags;

    /* --- node and mappings --- */
    int n_local;             /* node-local PEs, including me */
    int n_host;              /* PEs on this kernel, any network namespace: they share its cores */
    int oversubscribed;      /* n_host > the kernel's cores (core/instance.c) */
    int local_idx;
    int *local_pes;          /* [n_local] job ranks of the node-local PEs */
    size_t slot_size;        /* each node-local heap's slot of address space (agreed) */

    /* --- allocator and internal scratch --- */
    struct symm_heap_alloc *alloc;   /* mem/alloc.h */
    struct symm_blocks *blocks;      /* SHMEM_DEBUG: the live blocks' sizes and sites
                                      * (mem/blocks.h); NULL without SHMEM_DEBUG */
    size_t scratch_size;     /* reserved bytes at the start of the heap */
    struct symm_shm_map *shm;          /* transport/shm.h: the node-local mappings */
    struct symm_team_state *teams;     /* team/team.h: settings, which slots this PE uses */
    struct symm_coll_policy *coll;     /* coll/coll.h: staging, forced forms */
    int spin;                /* polls before yielding */
    long spin_ns;            /* then polls on for this long before yielding (network waits) */
    /* ops/wait_status.c's publishing of a slow wait, for the waits below
     * ops/ (the network transport's request waits): set once the status
     * records exist and are read (core/instance.c), NULL before. */
    void (*wait_slow)(struct symm_instance *inst, int first);
    struct symm_region_table *regions; /* registered memory (mem/region_table.h), NULL until used */

    /* --- lifecycle --- */
    bool initialized;
    bool finalized;
    int thread_level;
    uint64_t instance_id;
    struct symm_boot *boot;
    symm_config_t cfg;
    struct symm_ctx ctx_default;
    struct symm_team *team_world;
    struct symm_team *team_shared;
    const struct symm_transport_ops *net;
    void *net_state;         /* the network transport's own state, its choices included
                              * (SHMEM_INFO asks net->bulk_info, transport/transport.h) */
    char amo_why[128];       /* runtime/atomics.c's decision, for SHMEM_INFO: "network (UCX
                              * device atomics on rc_mlx5; job spans nodes)" */
    int n_fini_hooks;
    struct symm_fini_hook {
        void (*fn)(struct symm_instance *inst, void *arg);
        void *arg;
        int phase;
    } fini_hooks[SYMM_FINI_HOOKS_MAX];
} symm_instance_t;

/* The instance the OpenSHMEM API acts on; NULL before shmem_init. */
extern symm_instance_t *symm_cur;

/* What a layer must do when an instance ends, registered by that layer and
 * run by the core's finalize (core/instance.h), so that no finalize names
 * the layers it shuts down: DRAIN hooks run before the final barrier, while
 * every peer is still there (streams finish their queued work); RELEASE
 * hooks after it, last registered first (handle tables forget the
 * instance's teams, then teams, allocator, transports go, in the reverse
 * order of their creation). */
typedef enum symm_fini_phase { SYMM_FINI_DRAIN, SYMM_FINI_RELEASE } symm_fini_phase_t;
typedef void (*symm_fini_fn)(symm_instance_t *inst, void *arg);

/* Register fn(inst, arg) for phase; registering the same triple again does
 * nothing. Thread-safe. Fatal when SYMM_FINI_HOOKS_MAX are taken. */
void symm_on_fini(symm_instance_t *inst, symm_fini_phase_t phase, symm_fini_fn fn, void *arg);
/* Run and drop phase's hooks, last registered first (core/ only). */
void symm_run_fini(symm_instance_t *inst, symm_fini_phase_t phase);

/* Fatal unless the instance is initialised; returns it. */
symm_instance_t *symm_require_init(const char *routine);

/* The heap's current size. A thread's shmem_malloc grows it while other
 * threads of the PE translate addresses (SHMEM_THREAD_MULTIPLE): a relaxed
 * atomic load, a plain load on x86, is what keeps that free of a data race
 * (ThreadSanitizer; the stress tester's heap-small-threads configuration).
 * Either size is right for them: their addresses lie in blocks they
 * already had. */
static inline size_t symm_heap_size(const symm_instance_t *s)
{
    return __atomic_load_n(&s->heap_size, __ATOMIC_RELAXED);
}

static inline symm_instance_t *symm_inst(const char *routine)
{
    symm_instance_t *s = symm_cur;
    if (__builtin_expect(s == NULL, 0))
        return symm_require_init(routine);
    return s;
}

#endif
