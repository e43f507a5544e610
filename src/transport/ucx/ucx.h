/*
 * ucx.h - what the files of the UCX network transport share: the worker and
 * peer state, and the helpers every operation inlines. Internal to src/transport/ucx; the rest of
 * symm sees only symm_ucx_transport() and symm_ucx_version() (transport/transport.h).
 *
 * The network transport: every peer that is not mapped is reached through
 * UCX (UCP: RMA, AMO32, AMO64, active messages). Its files, by job:
 *   ucx.c           init/fini (the exchange), connections made on first use,
 *                   heap growth (new keys), the ops table
 *   ucx_rma.c       put/get and atomics, their requests; fence and quiet
 *   ucx_am.c        the active messages of collectives: notify and tagged
 *                   messages
 *   ucx_progress.c  the progress thread and the workers, one per context
 *   ucx_probe.c     what kind of atomics UCX would use here (UCT's API)
 *   ucx_plugin.c    the plugin's entry and the host's services it calls
 *
 * The transport is a plugin (runtime/plugin.h, libsymm-ucx.so) linked
 * with libucp, libuct and libucs: it calls UCX by name. libsymm opens it
 * only when a job has a peer to reach over the network (or
 * SYMM_TRANSPORT=ucx), so programs that never leave the node do not load
 * UCX, whose memory hooks (libucm) patch mmap/madvise in every process
 * that loads it (they crashed ThreadSanitizer's interceptors here, and Open
 * MPI needs them turned off in containers).
 * What more than one file uses is here, named symm_ucx_* where it has
 * linkage; what serves one file stays static there. The helpers of the
 * put/get/AMO paths are static inline here, so each operation compiles to
 * direct code as when the transport was one file; nothing here may add a
 * call or an indirection to those paths.
 */
#ifndef SYMM_UCX_INTERNAL_H
#define SYMM_UCX_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <ucp/api/ucp.h>
#include <ucs/async/async_fwd.h>
#include <uct/api/uct.h>

#include "mem/region_table.h"
#include "mem/seg.h"
#include "runtime/log.h"
#include "runtime/state.h"
#include "runtime/status.h"
#include "transport/transport.h"

/* Declared hidden, as everything in the plugin is defined: the operations
 * then reach what they share PC-relative, not through the GOT. */
#pragma GCC visibility push(hidden)

/* ---- the plugin (ucx_plugin.c) --------------------------------------- */

/* libsymm's services (transport/transport.h), set by the plugin's entry. */
extern const symm_ucx_host_t *symm_ucx_host;
/* The transport's ops table (ucx.c). */
const symm_transport_ops_t *symm_ucx_ops(void);

/* ---- state ------------------------------------------------------------- */

/* What every worker shares about a peer: where its segments are and, in
 * the init exchange, its default worker's address and packed rkeys. */
typedef struct ucx_peer {
    int pe;
    struct ucx_state *u;
    uint64_t heap_base;
    uint64_t data_start[SYMM_MAX_DATA_RANGES];
    const void *addr;                           /* worker address in u->blob */
    const void *heap_rkey;                      /* packed, in u->heap_blob */
    const void *data_rkey[SYMM_MAX_DATA_RANGES]; /* packed, in u->blob */
    int pid;                                    /* for a report if it is lost */
    char host[32];
    int unreachable;                            /* a connect to it failed */
} ucx_peer_t;

/* A worker's way to one peer: endpoint and unpacked rkeys (per endpoint in
 * UCX). ep NULL: not connected yet (workers connect on first use). */
/* Heap keys a connection had before growths: another thread may still be
 * issuing an operation with one (THREAD_MULTIPLE, stream threads), so a
 * replaced key lives on until the connection closes; past this many
 * growths the oldest goes (each growth at least doubles the heap). */
#define SYMM_UCX_RETIRED_KEYS 8

typedef struct ucx_conn {
    ucp_ep_h ep;
    ucp_ep_h bulk; /* large collective messages to another node (symm_ucx_bulk_ep) */
    ucp_rkey_h heap_rkey;
    ucp_rkey_h data_rkey[SYMM_MAX_DATA_RANGES];
    ucp_rkey_h retired[SYMM_UCX_RETIRED_KEYS];
    /* Keys of registered regions, by id: the array made on the
     * connection's first use of any region, each key on first use of its
     * region (symm_ucx_region_rkey_lazy); dropped at deregistration. */
    ucp_rkey_h *reg_rkey;
    /* A fetching atomic to the peer has completed on this endpoint: its
     * non-fetching atomics may go as posts, completed by the worker
     * flush of the next quiet (ucx_rma.c symm_ucx_amo). */
    int amo_wired;
} ucx_conn_t;

/* A registered region's registration here and every PE's packed key. */
typedef struct ucx_region {
    ucp_mem_h mh;
    char *keys;              /* PE p's packed key at keys + p * stride */
    size_t stride;
} ucx_region_t;

/* One UCP worker: the instance's (default context, target of every peer's
 * operations, run by wait loops and the progress thread), or a context's
 * own (its operations only; quiet and fence on it touch nothing else). */
typedef struct ucx_wk {
    ucp_worker_h worker;
    int efd;                 /* its event fd (UCP_FEATURE_WAKEUP), -1 if none */
    ucx_conn_t *conn;        /* [n_pes] */
    /* Non-blocking requests until complete (ucx_rma.c): a ring, oldest
     * first, pending[i % PENDING_MAX] for pend_head <= i < pend_tail. */
    void **pending;
    uint64_t pend_head, pend_tail;
    int pending_lock;
    uint64_t sink;           /* old values of non-fetching atomics */
    int unflushed;           /* a put was issued since the last flush */
    unsigned posts;          /* atomic posts issued (ucx_rma.c: progress every few) */
    int flushing;            /* quiets that cleared unflushed and flush now */
    /* Never both at once (symm_ucx_wiring_begin): connects whose endpoint
     * is wiring up, worker flushes under way. */
    int wiring;
    int wflushes;
    pthread_mutex_t connect_lock;
    struct ucx_wk *next;     /* context workers, for heap growth */
} ucx_wk_t;

#define SYMM_UCX_MAX_CTX_WORKERS 256

typedef struct ucx_state {
    symm_instance_t *inst;
    int bulk; /* large collective messages to other nodes on the second endpoint
                 (symm_ucx_bulk_rule) */
    ucp_context_h ctx;
    ucx_wk_t dflt;
    ucx_wk_t *ctx_wks;       /* workers of live contexts, guarded by ctx_lock */
    ucx_wk_t *free_wks;      /* workers of destroyed contexts, for reuse */
    /* Every context worker ever made (they are pooled, never freed before
     * finalize): wait loops and the progress thread run them all, since a
     * peer's endpoint to an idle worker still needs it to answer. */
    ucp_worker_h all_wks[SYMM_UCX_MAX_CTX_WORKERS];
    int all_efds[SYMM_UCX_MAX_CTX_WORKERS]; /* their event fds, -1 where none */
    int n_all_wks;
    pthread_mutex_t ctx_lock;
    ucx_peer_t *peers;       /* [n_pes] */
    char *blob, *heap_blob;  /* the init and latest heap-key exchanges */
    char *old_heap_blobs[SYMM_UCX_RETIRED_KEYS]; /* earlier ones: a lazy connect may read one */
    ucp_mem_h heap_mh;
    /* Heap registrations kept after a growth that failed while keys were
     * being swapped: some PE may still use keys of either; unmapped at fini. */
    ucp_mem_h retired_mh[4];
    ucp_mem_h data_mh[SYMM_MAX_DATA_RANGES];
    ucx_region_t regions[SYMM_MAX_REGIONS];
    volatile int closing;    /* finalize started: endpoint errors are expected */
    /* progress thread */
    int thread_on;
    pthread_t thread;
    unsigned long activity;  /* bumped whenever the PE itself runs progress */
    int stop_pipe[2];
    /* Tagged messages that arrived and were not taken yet (ucx_am.c): the
     * handler adds, the collective's take removes. */
    pthread_mutex_t msg_lock;
    struct ucx_msg *msgs;     /* arrived, newest first */
    struct ucx_msg *msg_free; /* entries for the next ones */
    int msg_ready;
    /* SYMM_UCX_BULK_EP's outcome where UCX reaches other nodes, or "":
     * SHMEM_INFO's line (symm_transport_ops_t.bulk_info). */
    char bulk_why[128];
} ucx_state_t;

static inline ucx_state_t *state_of(symm_instance_t *s) { return (ucx_state_t *)s->net_state; }

/* ---- requests (ucx_rma.c) -------------------------------------------------- */

/* Non-blocking operations keep their request until the next quiet waits
 * for it (ucx_rma.c); a worker has room for PENDING_MAX of them. */
#define PENDING_MAX 4096

/* Wait for a request of worker wk (NULL: done at once) with progress. */
ucs_status_t symm_ucx_wait_req(ucx_state_t *u, ucx_wk_t *wk, ucs_status_ptr_t req);
/* Keep a non-blocking operation's request for the next quiet of wk. */
ucs_status_t symm_ucx_keep_req(ucx_state_t *u, ucx_wk_t *wk, ucs_status_ptr_t req);
/* Complete everything wk has issued, with a worker flush. */
ucs_status_t symm_ucx_wk_quiet(ucx_state_t *u, ucx_wk_t *wk);
/* Around a new endpoint's wire-up on wk: no worker flush of wk runs
 * between begin and end (ucx_rma.c says why). */
void symm_ucx_wiring_begin(ucx_state_t *u, ucx_wk_t *wk);
void symm_ucx_wiring_end(ucx_wk_t *wk);

/* A lost peer (its connection reset or timed out): the job ends with the
 * report of it (ucx.c), after the grace its node's survivors get. */
__attribute__((noreturn)) void symm_ucx_peer_lost(ucx_state_t *u, int pe, ucs_status_t st);

static inline int to_symm(ucx_state_t *u, ucs_status_t st, int pe, const char *what)
{
    if (st == UCS_OK)
        return SYMM_OK;
    if (u->closing)
        return SYMM_ERR_PEER;
    if (st == UCS_ERR_ENDPOINT_TIMEOUT || st == UCS_ERR_CONNECTION_RESET ||
        st == UCS_ERR_UNREACHABLE || st == UCS_ERR_NOT_CONNECTED)
        symm_ucx_peer_lost(u, pe, st);
    symm_fatal("ucx", "%s to PE %d failed: %s", what, pe, ucs_status_string(st));
}

/* ---- the atomics probe (ucx_probe.c) ------------------------------------ */

/* What kind of atomics UCX would use on this PE: SYMM_NETAMO_* bits
 * (runtime/atomics.h), and in tl the device transport found (or ""). */
unsigned symm_ucx_amo_probe(char *tl, size_t tl_len);

/* ---- connections and setup (ucx.c) ------------------------------------- */

/* Report a failed UCX call at init (or heap growth); SYMM_ERR_SYS. */
SYMM_MUST_CHECK int symm_ucx_fail(const char *what, ucs_status_t st);
/* Close wk's endpoint to pe and drop its rkeys; force: at finalize. */
void symm_ucx_conn_close(ucx_state_t *u, ucx_wk_t *wk, int pe, int force);
/* Connect wk to pe on first use, or end the job (cold, never inlined). */
void symm_ucx_conn_open_lazy(ucx_state_t *u, ucx_wk_t *wk, int pe);
ucx_conn_t *symm_ucx_conn_try(ucx_state_t *u, ucx_wk_t *wk, int pe);
/* wk's key for pe's copy of region id, unpacked on first use, or end the
 * job (cold, never inlined). */
ucp_rkey_h symm_ucx_region_rkey_lazy(ucx_state_t *u, ucx_wk_t *wk, int pe, int id);

/* ---- address translation ----------------------------------------------- */

/* The worker of a context: its own, or the instance's default one. */
static inline ucx_wk_t *wk_of(ucx_state_t *u, struct symm_ctx *ctx)
{
    return ctx->net != NULL ? (ucx_wk_t *)ctx->net : &u->dflt;
}

/* The default worker's endpoint for a large collective message to pe
 * (ucx.c: the second one where SYMM_UCX_BULK_EP and pe is on another node). */
ucp_ep_h symm_ucx_bulk_ep(ucx_state_t *u, int pe);

/* wk's connection to pe, made on first use. */
static inline ucx_conn_t *conn_of(ucx_state_t *u, ucx_wk_t *wk, int pe)
{
    ucx_conn_t *c = &wk->conn[pe];
    if (__builtin_expect(__atomic_load_n(&c->ep, __ATOMIC_ACQUIRE) == NULL, 0))
        symm_ucx_conn_open_lazy(u, wk, pe);
    return c;
}

static inline ucp_ep_h peer_target(ucx_state_t *u, ucx_wk_t *wk, int seg, size_t off, int pe,
                                   uint64_t *raddr, ucp_rkey_h *rkey)
{
    ucx_peer_t *p = &u->peers[pe];
    ucx_conn_t *c = conn_of(u, wk, pe);
    if (seg == SYMM_SEG_HEAP) {
        *raddr = p->heap_base + off;
        *rkey = c->heap_rkey;
        return c->ep;
    }
    if (seg >= SYMM_SEG_REGION) {
        int id = seg - SYMM_SEG_REGION;
        ucp_rkey_h *keys = __atomic_load_n(&c->reg_rkey, __ATOMIC_ACQUIRE);
        ucp_rkey_h k = keys != NULL ? __atomic_load_n(&keys[id], __ATOMIC_ACQUIRE) : NULL;
        *raddr = u->inst->regions->slot[id].peers[pe].base + off;
        *rkey = k != NULL ? k : symm_ucx_region_rkey_lazy(u, wk, pe, id);
        return c->ep;
    }
    const symm_instance_t *s = u->inst;
    for (int i = 0; i < s->n_data_ranges; i++) {
        if (off - s->data[i].off < s->data[i].len) {
            *raddr = p->data_start[i] + (off - s->data[i].off);
            *rkey = c->data_rkey[i];
            return c->ep;
        }
    }
    symm_fatal("ucx", "offset %zu is in no symmetric data range", off);
}

/* ---- the operations, by file (the ops table is in ucx.c) --------------- */

/* ucx_rma.c */
SYMM_MUST_CHECK int symm_ucx_put(struct symm_ctx *ctx, int seg, size_t off, const void *src,
                                 size_t n, int pe);
SYMM_MUST_CHECK int symm_ucx_put_nbi(struct symm_ctx *ctx, int seg, size_t off, const void *src,
                                     size_t n, int pe);
SYMM_MUST_CHECK int symm_ucx_get(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n,
                                 int pe);
SYMM_MUST_CHECK int symm_ucx_get_nbi(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n,
                                     int pe);
SYMM_MUST_CHECK int symm_ucx_amo(struct symm_ctx *ctx, symm_amo_op_t op, size_t size, int seg,
                                 size_t off, const void *operand, const void *compare, void *result,
                                 int nbi, int pe);
SYMM_MUST_CHECK int symm_ucx_fence(struct symm_ctx *ctx);
SYMM_MUST_CHECK int symm_ucx_quiet(struct symm_ctx *ctx);
SYMM_MUST_CHECK int symm_ucx_pe_quiet(struct symm_ctx *ctx, const int *pes, size_t n);
int symm_ucx_peek(symm_instance_t *s, symm_peek_t *reqs, int n, unsigned timeout_ms);

/* ucx_am.c */
/* Register the notify and message handlers on the default worker (init);
 * forget messages not taken (finalize). */
SYMM_MUST_CHECK int symm_ucx_am_init(ucx_state_t *u);
void symm_ucx_msg_fini(ucx_state_t *u);
SYMM_MUST_CHECK int symm_ucx_notify(struct symm_ctx *ctx, int seg, size_t off, uint64_t value,
                                    int pe);
SYMM_MUST_CHECK int symm_ucx_msg_send(symm_instance_t *s, int pe, const symm_msg_tag_t *tag,
                                      const void *src, size_t n, int how, void **handle);
SYMM_MUST_CHECK int symm_ucx_msg_wait(symm_instance_t *s, void *handle);
int symm_ucx_msg_probe(symm_instance_t *s, const symm_msg_tag_t *tag, int from, size_t *len);
SYMM_MUST_CHECK int symm_ucx_msg_take(symm_instance_t *s, const symm_msg_tag_t *tag, int from,
                                      void *dst, size_t len, void **handle);

/* ucx_progress.c */
/* Run the default worker and every context worker; how many events. */
unsigned symm_ucx_progress_all(ucx_state_t *u);
int symm_ucx_in_progress(void);
unsigned symm_ucx_progress(symm_instance_t *s);
int symm_ucx_sleep(symm_instance_t *s, long usec);
SYMM_MUST_CHECK int symm_ucx_progress_thread_wanted(ucx_state_t *u, int *wanted);
SYMM_MUST_CHECK int symm_ucx_start_progress_thread(ucx_state_t *u);
void symm_ucx_stop_progress_thread(ucx_state_t *u);
SYMM_MUST_CHECK int symm_ucx_wk_init(ucx_state_t *u, ucx_wk_t *wk, ucs_thread_mode_t mode);
void symm_ucx_wk_fini(ucx_state_t *u, ucx_wk_t *wk, int force);
SYMM_MUST_CHECK int symm_ucx_ctx_create(struct symm_ctx *ctx);
void symm_ucx_ctx_destroy(struct symm_ctx *ctx);

#pragma GCC visibility pop

#endif
