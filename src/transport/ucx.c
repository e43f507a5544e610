/*
 * ucx.c - the network transport: every peer that is not mapped is reached
 * through UCX (UCP: RMA, AMO32, AMO64, active messages).
 *
 * At init: one UCP context, a default worker per instance (plus one per
 * context, made on shmem_ctx_create); the worker's address, my heap base,
 * the starts of my global-data ranges and the packed rkeys of both segments
 * go to every PE in one bootstrap allgather; endpoints to every unmapped
 * peer are created and wired up eagerly (a job that reaches a peer through
 * UCX nearly always talks to it). A symmetric address is (segment, offset)
 * in the core; here it becomes the peer's virtual address plus its rkey.
 *
 * Blocking calls wait for their request with progress and back-off. _nbi
 * operations keep their request until quiet waits for it; every atomic
 * fetches (non-fetching ones into a sink), so its request completes only
 * once applied; quiet then flushes the worker only if puts were issued
 * (wk_quiet_if). Fence is ucp_worker_fence. Collectives signal and move
 * blocks with two active messages handled on the target's CPU: notify (add
 * to a word) and push (data into place, then count its arrival).
 *
 * Where the selected UCX transport emulates RMA/AMO in software (tcp,
 * shared memory without a hardware path) the target must run UCX progress:
 * every symm wait loop calls progress, and a progress thread runs it while
 * the PE computes (SYMM_PROGRESS_THREAD, progress_main).
 *
 * A failed endpoint (peer died, link down) ends the job naming the PE.
 */
#define _GNU_SOURCE
#include "transport/transport.h"

#ifdef SYMM_HAVE_UCX

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include <dlfcn.h>
#include <ucp/api/ucp.h>

#include "mem/seg.h"
#include "shmem.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "transport/transport.h"

/* ---- UCX, loaded at run time ------------------------------------------ */

/* libucp is opened (dlopen) when a job first needs the network, not linked:
 * programs that never leave the node do not load UCX, whose memory hooks
 * (libucm) patch mmap/madvise in every process that loads it (they crashed
 * ThreadSanitizer's interceptors here, and Open MPI needs them turned off in
 * containers). Every UCP/UCS function used is called through this table. */
#define UCX_FUNCS(X)                                                                         \
    X(ucp_config_read) X(ucp_config_release) X(ucp_init_version) X(ucp_cleanup)             \
    X(ucp_worker_create) X(ucp_worker_destroy) X(ucp_worker_get_address)                    \
    X(ucp_worker_release_address) X(ucp_worker_progress) X(ucp_worker_fence)                \
    X(ucp_worker_flush_nbx) X(ucp_mem_map) X(ucp_mem_unmap) X(ucp_rkey_pack)                \
    X(ucp_rkey_buffer_release) X(ucp_ep_create) X(ucp_ep_close_nbx) X(ucp_ep_rkey_unpack)   \
    X(ucp_rkey_destroy) X(ucp_put_nbx) X(ucp_get_nbx) X(ucp_atomic_op_nbx)                  \
    X(ucp_request_check_status) X(ucp_request_free) X(ucp_get_version_string)               \
    X(ucs_status_string) X(ucp_am_send_nbx) X(ucp_worker_set_am_recv_handler)             \
    X(ucp_am_recv_data_nbx)

static struct {
#define UCX_FIELD(f) __typeof__(f) *f;
    UCX_FUNCS(UCX_FIELD)
#undef UCX_FIELD
} ucx_fn;
static int ucx_loaded; /* 1 loaded, -1 failed */
static char ucx_load_error[256];

/* Load libucp (and through it libucs) once; thread-safe by pthread_once. */
static pthread_once_t ucx_once = PTHREAD_ONCE_INIT;
static void ucx_load_once(void)
{
    void *h = dlopen("libucp.so.0", RTLD_NOW | RTLD_GLOBAL);
    if (h == NULL) {
        snprintf(ucx_load_error, sizeof(ucx_load_error), "cannot load libucp.so.0 (%s): "
                 "install UCX (Debian: libucx0)", dlerror());
        ucx_loaded = -1;
        return;
    }
#define UCX_SYM(f)                                                                           \
    if ((ucx_fn.f = (__typeof__(ucx_fn.f))dlsym(h, #f)) == NULL) {                         \
        snprintf(ucx_load_error, sizeof(ucx_load_error), "libucp.so.0 has no %s", #f);    \
        ucx_loaded = -1;                                                                     \
        return;                                                                              \
    }
    UCX_FUNCS(UCX_SYM)
#undef UCX_SYM
    ucx_loaded = 1;
}

static int ucx_load(void)
{
    pthread_once(&ucx_once, ucx_load_once);
    return ucx_loaded == 1;
}

/* From here on the UCP/UCS names call through the table. */
#define ucp_config_read ucx_fn.ucp_config_read
#define ucp_config_release ucx_fn.ucp_config_release
#define ucp_init_version ucx_fn.ucp_init_version
#define ucp_cleanup ucx_fn.ucp_cleanup
#define ucp_worker_create ucx_fn.ucp_worker_create
#define ucp_worker_destroy ucx_fn.ucp_worker_destroy
#define ucp_worker_get_address ucx_fn.ucp_worker_get_address
#define ucp_worker_release_address ucx_fn.ucp_worker_release_address
#define ucp_worker_progress ucx_fn.ucp_worker_progress
#define ucp_worker_fence ucx_fn.ucp_worker_fence
#define ucp_worker_flush_nbx ucx_fn.ucp_worker_flush_nbx
#define ucp_mem_map ucx_fn.ucp_mem_map
#define ucp_mem_unmap ucx_fn.ucp_mem_unmap
#define ucp_rkey_pack ucx_fn.ucp_rkey_pack
#define ucp_rkey_buffer_release ucx_fn.ucp_rkey_buffer_release
#define ucp_ep_create ucx_fn.ucp_ep_create
#define ucp_ep_close_nbx ucx_fn.ucp_ep_close_nbx
#define ucp_ep_rkey_unpack ucx_fn.ucp_ep_rkey_unpack
#define ucp_rkey_destroy ucx_fn.ucp_rkey_destroy
#define ucp_put_nbx ucx_fn.ucp_put_nbx
#define ucp_get_nbx ucx_fn.ucp_get_nbx
#define ucp_atomic_op_nbx ucx_fn.ucp_atomic_op_nbx
#define ucp_request_check_status ucx_fn.ucp_request_check_status
#define ucp_request_free ucx_fn.ucp_request_free
#define ucp_get_version_string ucx_fn.ucp_get_version_string
#define ucs_status_string ucx_fn.ucs_status_string
#define ucp_am_send_nbx ucx_fn.ucp_am_send_nbx
#define ucp_worker_set_am_recv_handler ucx_fn.ucp_worker_set_am_recv_handler
#define ucp_am_recv_data_nbx ucx_fn.ucp_am_recv_data_nbx

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
} ucx_peer_t;

/* A worker's way to one peer: endpoint and unpacked rkeys (per endpoint in
 * UCX). ep NULL: not connected yet (context workers connect lazily). */
typedef struct ucx_conn {
    ucp_ep_h ep;
    ucp_rkey_h heap_rkey;
    ucp_rkey_h data_rkey[SYMM_MAX_DATA_RANGES];
} ucx_conn_t;

/* One UCP worker: the instance's (default context, target of every peer's
 * operations, run by wait loops and the progress thread), or a context's
 * own (its operations only; quiet and fence on it touch nothing else). */
typedef struct ucx_wk {
    ucp_worker_h worker;
    ucx_conn_t *conn;        /* [n_pes] */
    void **pending;          /* [PENDING_MAX] non-blocking requests until quiet */
    size_t n_pending;
    int pending_lock;
    uint64_t sink;           /* old values of non-fetching atomics */
    int unflushed;           /* a put was issued since the last flush */
    pthread_mutex_t connect_lock;
    struct ucx_wk *next;     /* context workers, for heap growth */
} ucx_wk_t;

#define SYMM_UCX_MAX_CTX_WORKERS 256

typedef struct ucx_state {
    symm_instance_t *inst;
    ucp_context_h ctx;
    ucx_wk_t dflt;
    ucx_wk_t *ctx_wks;       /* workers of live contexts, guarded by ctx_lock */
    ucx_wk_t *free_wks;      /* workers of destroyed contexts, for reuse */
    /* Every context worker ever made (they are pooled, never freed before
     * finalize): wait loops and the progress thread run them all, since a
     * peer's endpoint to an idle worker still needs it to answer. */
    ucp_worker_h all_wks[SYMM_UCX_MAX_CTX_WORKERS];
    int n_all_wks;
    pthread_mutex_t ctx_lock;
    ucx_peer_t *peers;       /* [n_pes] */
    char *blob, *heap_blob;  /* the init and latest heap-key exchanges */
    ucp_mem_h heap_mh;
    ucp_mem_h data_mh[SYMM_MAX_DATA_RANGES];
    volatile int closing;    /* finalize started: endpoint errors are expected */
    /* progress thread */
    int thread_on;
    pthread_t thread;
    unsigned long activity;  /* bumped whenever the PE itself runs progress */
    int stop_pipe[2];
} ucx_state_t;

/* The header every PE publishes at init; followed by the worker address
 * and the packed rkeys, lengths given here. */
typedef struct ucx_blob_hdr {
    uint64_t heap_base;
    uint64_t data_start[SYMM_MAX_DATA_RANGES];
    uint32_t addr_len;
    uint32_t heap_rkey_len;
    uint32_t data_rkey_len[SYMM_MAX_DATA_RANGES];
} ucx_blob_hdr_t;

static inline ucx_state_t *state_of(symm_instance_t *s) { return (ucx_state_t *)s->net_state; }

/* ---- errors ---------------------------------------------------------- */

static void peer_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    ucx_peer_t *p = arg;
    (void)ep;
    if (p->u->closing)
        return;
    symm_fatal("ucx", "connection to PE %d failed: %s (the PE died or the link is down)", p->pe,
               ucs_status_string(status));
}

static int ucx_fail(const char *what, ucs_status_t st)
{
    symm_error("shmem_init", "UCX %s: %s", what, ucs_status_string(st));
    return SYMM_ERR_SYS;
}

/* ---- requests -------------------------------------------------------- */

static void backoff(ucx_state_t *u, unsigned *polls)
{
    if (++*polls < (unsigned)u->inst->spin)
        return;
    sched_yield();
}

static unsigned progress_all(ucx_state_t *u)
{
    unsigned n = ucp_worker_progress(u->dflt.worker);
    int k = __atomic_load_n(&u->n_all_wks, __ATOMIC_ACQUIRE);
    for (int i = 0; i < k; i++)
        n += ucp_worker_progress(u->all_wks[i]);
    return n;
}

/* Wait for a request of worker wk (NULL: done at once) with progress. */
static ucs_status_t wait_req(ucx_state_t *u, ucx_wk_t *wk, ucs_status_ptr_t req)
{
    if (req == NULL)
        return UCS_OK;
    if (UCS_PTR_IS_ERR(req))
        return UCS_PTR_STATUS(req);
    ucs_status_t st;
    unsigned polls = 0;
    /* Each turn tells the progress thread this PE is progressing itself,
     * so it runs every worker, not only wk's: the default worker serves
     * peers, and a flush of one worker can wait on a peer's endpoint to
     * another (UCX's reverse endpoints), so two PEs each waiting on one
     * worker would wait for each other. */
    (void)wk;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        __atomic_store_n(&u->activity, u->activity + 1, __ATOMIC_RELAXED);
        if (progress_all(u) == 0)
            backoff(u, &polls);
    }
    ucp_request_free(req);
    return st;
}

/* Non-blocking operations keep their request until the next quiet waits
 * for it: UCX 1.13 does not reliably hold a worker flush back for released
 * software-emulated requests (seen here over tcp and shared memory). At
 * PENDING_MAX outstanding they are completed in a batch. Threads of one PE
 * may add at once (SHMEM_THREAD_MULTIPLE): a spin lock guards the list. */
#define PENDING_MAX 4096

static void pending_lock(ucx_wk_t *wk)
{
    while (__atomic_exchange_n(&wk->pending_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void pending_unlock(ucx_wk_t *wk)
{
    __atomic_store_n(&wk->pending_lock, 0, __ATOMIC_RELEASE);
}

static ucs_status_t wait_pending(ucx_state_t *u, ucx_wk_t *wk)
{
    ucs_status_t st = UCS_OK;
    for (;;) {
        pending_lock(wk);
        void *req = wk->n_pending > 0 ? wk->pending[--wk->n_pending] : NULL;
        pending_unlock(wk);
        if (req == NULL)
            return st;
        ucs_status_t r = wait_req(u, wk, req);
        if (r != UCS_OK)
            st = r;
    }
}

static ucs_status_t keep_req(ucx_state_t *u, ucx_wk_t *wk, ucs_status_ptr_t req)
{
    if (req == NULL)
        return UCS_OK;
    if (UCS_PTR_IS_ERR(req))
        return UCS_PTR_STATUS(req);
    ucs_status_t st = ucp_request_check_status(req);
    if (st != UCS_INPROGRESS) {
        ucp_request_free(req);
        return st;
    }
    for (;;) {
        pending_lock(wk);
        if (wk->n_pending < PENDING_MAX)
            break;
        pending_unlock(wk);
        if ((st = wait_pending(u, wk)) != UCS_OK) {
            ucp_request_free(req);
            return st;
        }
    }
    wk->pending[wk->n_pending++] = req;
    pending_unlock(wk);
    return UCS_OK;
}

/* Complete everything wk has issued: kept requests, then a worker flush if
 * a put was issued since the last one. A put's request completes when its
 * source is reusable, not when the data has landed; every other operation
 * is complete at the target when its request is (gets and atomics, which
 * all fetch) or reports completion otherwise (pushes, notifications), so a
 * flush, a round trip per peer over software-emulated transports, is for
 * puts only. force: flush anyway (finalize, heap growth). */
static ucs_status_t wk_quiet_if(ucx_state_t *u, ucx_wk_t *wk, int force)
{
    ucp_request_param_t prm = {.op_attr_mask = 0};
    ucs_status_t st = wait_pending(u, wk);
    if (!__atomic_exchange_n(&wk->unflushed, 0, __ATOMIC_ACQ_REL) && !force)
        return st;
    ucs_status_t f = wait_req(u, wk, ucp_worker_flush_nbx(wk->worker, &prm));
    return st != UCS_OK ? st : f;
}

static ucs_status_t wk_quiet(ucx_state_t *u, ucx_wk_t *wk) { return wk_quiet_if(u, wk, 1); }

static int to_symm(ucx_state_t *u, ucs_status_t st, int pe, const char *what)
{
    if (st == UCS_OK)
        return SYMM_OK;
    if (!u->closing)
        symm_fatal("ucx", "%s to PE %d failed: %s", what, pe, ucs_status_string(st));
    return SYMM_ERR_PEER;
}

/* ---- connections ------------------------------------------------------ */

/* force: at finalize, when every peer is closing too. Otherwise (a context
 * destroyed while the job runs) the close is flushed, so the peer drops the
 * endpoint UCX made back to this worker instead of finding it refused. */
static void conn_close(ucx_state_t *u, ucx_wk_t *wk, int pe, int force)
{
    ucx_conn_t *c = &wk->conn[pe];
    if (c->heap_rkey)
        ucp_rkey_destroy(c->heap_rkey);
    for (int i = 0; i < SYMM_MAX_DATA_RANGES; i++)
        if (c->data_rkey[i])
            ucp_rkey_destroy(c->data_rkey[i]);
    if (c->ep) {
        /* A forced close also needs peer failure handling. */
        ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                   .flags = force && !u->inst->peers[pe].same_node
                                                ? UCP_EP_CLOSE_FLAG_FORCE : 0};
        wait_req(u, wk, ucp_ep_close_nbx(c->ep, &prm));
    }
    memset(c, 0, sizeof(*c));
}

/* Endpoint from wk to pe's default worker and the rkeys for it. */
static int conn_open(ucx_state_t *u, ucx_wk_t *wk, int pe)
{
    ucx_peer_t *p = &u->peers[pe];
    ucx_conn_t c = {0};
    ucs_status_t st;
    /* Peer failure detection for peers on other nodes. UCX 1.13's
     * shared-memory transports have none and would be excluded by it; a
     * node-local PE's death is seen by the launcher on this node. */
    ucp_ep_params_t ep = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = (const ucp_address_t *)p->addr,
        .err_mode = u->inst->peers[pe].same_node ? UCP_ERR_HANDLING_MODE_NONE
                                                 : UCP_ERR_HANDLING_MODE_PEER,
        .err_handler = {.cb = peer_error, .arg = p},
    };
    if ((st = ucp_ep_create(wk->worker, &ep, &c.ep)) != UCS_OK) {
        symm_error("ucx", "endpoint to PE %d: %s", pe, ucs_status_string(st));
        return SYMM_ERR_SYS;
    }
    st = ucp_ep_rkey_unpack(c.ep, p->heap_rkey, &c.heap_rkey);
    for (int i = 0; st == UCS_OK && i < u->inst->n_data_ranges; i++)
        st = ucp_ep_rkey_unpack(c.ep, p->data_rkey[i], &c.data_rkey[i]);
    wk->conn[pe] = c;
    if (st != UCS_OK) {
        symm_error("ucx", "memory keys of PE %d: %s", pe, ucs_status_string(st));
        conn_close(u, wk, pe, 1);
        return SYMM_ERR_SYS;
    }
    /* Finish the wire-up now with a blocking read of one word: UCX 1.13
     * queues operations on an endpoint still wiring up, and a worker flush
     * issued then can return before they reach the peer (lost atomics were
     * seen here). The word is the start of the peer's internal scratch. */
    uint64_t word;
    ucp_request_param_t prm = {.op_attr_mask = 0};
    st = wait_req(u, wk, ucp_get_nbx(c.ep, &word, sizeof(word), p->heap_base, c.heap_rkey, &prm));
    if (st != UCS_OK) {
        symm_error("ucx", "first contact with PE %d: %s", pe, ucs_status_string(st));
        conn_close(u, wk, pe, 1);
        return SYMM_ERR_SYS;
    }
    return SYMM_OK;
}

static void __attribute__((noinline)) conn_open_lazy(ucx_state_t *u, ucx_wk_t *wk, int pe)
{
    pthread_mutex_lock(&wk->connect_lock);
    if (__atomic_load_n(&wk->conn[pe].ep, __ATOMIC_ACQUIRE) == NULL &&
        conn_open(u, wk, pe) != SYMM_OK)
        symm_fatal("ucx", "cannot reach PE %d from this context", pe);
    pthread_mutex_unlock(&wk->connect_lock);
}

/* ---- address translation --------------------------------------------- */

/* The worker of a context: its own, or the instance's default one. */
static inline ucx_wk_t *wk_of(ucx_state_t *u, struct symm_ctx *ctx)
{
    return ctx->net != NULL ? (ucx_wk_t *)ctx->net : &u->dflt;
}

static inline ucp_ep_h peer_target(ucx_state_t *u, ucx_wk_t *wk, int seg, size_t off, int pe,
                                   uint64_t *raddr, ucp_rkey_h *rkey)
{
    ucx_peer_t *p = &u->peers[pe];
    ucx_conn_t *c = &wk->conn[pe];
    if (__builtin_expect(__atomic_load_n(&c->ep, __ATOMIC_ACQUIRE) == NULL, 0))
        conn_open_lazy(u, wk, pe);
    if (seg == SYMM_SEG_HEAP) {
        *raddr = p->heap_base + off;
        *rkey = c->heap_rkey;
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

/* ---- RMA ------------------------------------------------------------- */

/* One transfer between local and (seg, off) on pe: a put (local is the
 * source) or a get (local is the destination); blocking or kept for quiet. */
static int ucx_rma(struct symm_ctx *ctx, int is_put, void *local, int seg, size_t off, size_t n,
                   int pe, int nbi)
{
    ucx_state_t *u = state_of(ctx->inst);
    ucx_wk_t *wk = wk_of(u, ctx);
    uint64_t raddr;
    ucp_rkey_h rkey;
    ucp_ep_h ep = peer_target(u, wk, seg, off, pe, &raddr, &rkey);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    if (is_put && !__atomic_load_n(&wk->unflushed, __ATOMIC_RELAXED))
        __atomic_store_n(&wk->unflushed, 1, __ATOMIC_RELAXED);
    ucs_status_ptr_t req = is_put ? ucp_put_nbx(ep, local, n, raddr, rkey, &prm)
                                  : ucp_get_nbx(ep, local, n, raddr, rkey, &prm);
    return to_symm(u, nbi ? keep_req(u, wk, req) : wait_req(u, wk, req), pe,
                   is_put ? "put" : "get");
}

static int ucx_put(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n, int pe)
{
    return ucx_rma(ctx, 1, (void *)src, seg, off, n, pe, 0);
}

static int ucx_put_nbi(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n,
                       int pe)
{
    return ucx_rma(ctx, 1, (void *)src, seg, off, n, pe, 1);
}

static int ucx_get(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n, int pe)
{
    return ucx_rma(ctx, 0, dst, seg, off, n, pe, 0);
}

static int ucx_get_nbi(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n, int pe)
{
    return ucx_rma(ctx, 0, dst, seg, off, n, pe, 1);
}

/* ---- atomics --------------------------------------------------------- */

/* UCP has add, and, or, xor, swap and cswap on 32/64-bit words. Fetch is a
 * fetching add of 0; set is a swap whose old value is dropped (a put would
 * not be atomic against emulated AMOs); fetching and/or/xor/add are native.
 * Floats only take fetch/set/swap, which move bits. */
static int ucx_amo(struct symm_ctx *ctx, symm_amo_op_t op, size_t size, int seg, size_t off,
                   const void *operand, const void *compare, void *result, int nbi, int pe)
{
    ucx_state_t *u = state_of(ctx->inst);
    ucx_wk_t *wk = wk_of(u, ctx);
    uint64_t raddr;
    ucp_rkey_h rkey;
    ucp_ep_h ep = peer_target(u, wk, seg, off, pe, &raddr, &rkey);
    uint64_t value = 0, reply = 0;
    ucp_atomic_op_t opc;
    if (size != 4 && size != 8)
        symm_fatal("ucx", "atomic of %zu bytes to PE %d: only 4 and 8 are supported", size, pe);
    switch (op) {
    case SYMM_AMO_FETCH: opc = UCP_ATOMIC_OP_ADD; break;
    case SYMM_AMO_SET:
    case SYMM_AMO_SWAP: opc = UCP_ATOMIC_OP_SWAP; memcpy(&value, operand, size); break;
    case SYMM_AMO_CSWAP:
        /* UCP: buffer holds the compare value, the reply buffer the new
         * value on the way in and the old one on the way out. */
        opc = UCP_ATOMIC_OP_CSWAP;
        memcpy(&value, compare, size);
        memcpy(&reply, operand, size);
        break;
    case SYMM_AMO_ADD: opc = UCP_ATOMIC_OP_ADD; memcpy(&value, operand, size); break;
    case SYMM_AMO_AND: opc = UCP_ATOMIC_OP_AND; memcpy(&value, operand, size); break;
    case SYMM_AMO_OR: opc = UCP_ATOMIC_OP_OR; memcpy(&value, operand, size); break;
    case SYMM_AMO_XOR: opc = UCP_ATOMIC_OP_XOR; memcpy(&value, operand, size); break;
    default: symm_fatal("ucx", "unknown atomic operation %d", (int)op);
    }
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                               .datatype = ucp_dt_make_contig(size)};
    /* Every atomic fetches: a non-fetching one's old value goes to the
     * worker's sink, so its request completes only when the peer has
     * applied it, and quiet waits for that request. (UCX 1.13's flush
     * alone let non-fetching atomics of a new endpoint arrive after the
     * quiet here.) A fetching _nbi op has UCX write the user's buffer at
     * completion; cswap's reply buffer carries the new value in, so it and
     * blocking fetches use a local word. */
    int keep;
    prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    if (result == NULL) {
        prm.reply_buffer = &wk->sink;
        keep = 1;
    } else if (nbi && opc != UCP_ATOMIC_OP_CSWAP) {
        prm.reply_buffer = result;
        keep = 1;
    } else {
        prm.reply_buffer = &reply;
        keep = 0;
    }
    /* The value travels in the request: operand needn't outlive the call. */
    ucs_status_ptr_t req = ucp_atomic_op_nbx(ep, opc, &value, 1, raddr, rkey, &prm);
    ucs_status_t st = keep ? keep_req(u, wk, req) : wait_req(u, wk, req);
    if (st == UCS_OK && result != NULL && prm.reply_buffer == &reply)
        memcpy(result, &reply, size);
    return to_symm(u, st, pe, "atomic");
}

/* ---- notifications and pushes ------------------------------------------ */

/* Collectives signal and move data with active messages to the peer's
 * default worker, whose handlers act on the symmetric memory with the CPU.
 * A notification adds value to a 64-bit word: where UCX emulates RMA and
 * atomics in software (tcp) a put or atomic costs a request and a reply, a
 * notification one message, and its add is atomic against the owner's CPU
 * atomics on the same word, which a NIC atomic is not. A push delivers a
 * block to a symmetric address and then adds 1 to an arrival word there:
 * small blocks travel eagerly (copied by the handler), large ones by UCX's
 * rendezvous straight into place (over tcp several times faster than the
 * emulated put/get, whose fragments each cost a round of copies). */
#define UCX_AM_NOTIFY 1
#define UCX_AM_PUSH 2

typedef struct ucx_am_hdr {
    uint64_t off;       /* notify: the word; push: where the data goes */
    uint64_t value;     /* notify: what to add; push: arrival word's offset */
    uint32_t seg;       /* segment of off */
    uint32_t flag_seg;  /* push: segment of the arrival word */
    uint32_t from;
    uint32_t pad;
} ucx_am_hdr_t;

/* Local address of [off, off+len) in segment seg, or NULL if outside. */
static void *local_range(const symm_instance_t *s, uint32_t seg, uint64_t off, size_t len)
{
    if (seg == SYMM_SEG_HEAP)
        return off <= s->heap_size && len <= s->heap_size - off ? (char *)s->heap_base + off
                                                                : NULL;
    if (seg == SYMM_SEG_DATA)
        for (int i = 0; i < s->n_data_ranges; i++)
            if (off - s->data[i].off < s->data[i].len &&
                len <= s->data[i].len - (off - s->data[i].off))
                return (void *)(s->data[i].start + (off - s->data[i].off));
    return NULL;
}

static uint64_t *local_word(const ucx_state_t *u, const ucx_am_hdr_t *h, uint32_t seg,
                            uint64_t off)
{
    uint64_t *w = local_range(u->inst, seg, off, sizeof(*w));
    if (w == NULL)
        symm_fatal("ucx", "message from PE %u for segment %u offset %llu, outside symmetric "
                   "memory", h->from, seg, (unsigned long long)off);
    return w;
}

static ucs_status_t notify_cb(void *arg, const void *header, size_t header_len, void *data,
                              size_t len, const ucp_am_recv_param_t *param)
{
    ucx_am_hdr_t h;
    (void)data;
    (void)param;
    if (header_len != sizeof(h) || len != 0)
        symm_fatal("ucx", "malformed notification (%zu+%zu bytes)", header_len, len);
    memcpy(&h, header, sizeof(h));
    __atomic_fetch_add(local_word(arg, &h, h.seg, h.off), h.value, __ATOMIC_RELEASE);
    return UCS_OK;
}

static void push_landed_cb(void *req, ucs_status_t st, size_t len, void *flag)
{
    (void)len;
    if (st != UCS_OK)
        symm_fatal("ucx", "receiving pushed data: %s", ucs_status_string(st));
    __atomic_fetch_add((uint64_t *)flag, 1, __ATOMIC_RELEASE);
    ucp_request_free(req);
}

static ucs_status_t push_cb(void *arg, const void *header, size_t header_len, void *data,
                            size_t len, const ucp_am_recv_param_t *param)
{
    ucx_state_t *u = arg;
    ucx_am_hdr_t h;
    if (header_len != sizeof(h))
        symm_fatal("ucx", "malformed push (%zu byte header)", header_len);
    memcpy(&h, header, sizeof(h));
    uint64_t *flag = local_word(u, &h, h.flag_seg, h.value);
    void *dst = local_range(u->inst, h.seg, h.off, len);
    if (dst == NULL)
        symm_fatal("ucx", "push of %zu bytes from PE %u to segment %u offset %llu, outside "
                   "symmetric memory", len, h.from, h.seg, (unsigned long long)h.off);
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        memcpy(dst, data, len);
        __atomic_fetch_add(flag, 1, __ATOMIC_RELEASE);
        return UCS_OK;
    }
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA,
                               .cb.recv_am = push_landed_cb, .user_data = flag};
    ucs_status_ptr_t req = ucp_am_recv_data_nbx(u->dflt.worker, data, dst, len, &prm);
    if (UCS_PTR_IS_ERR(req))
        symm_fatal("ucx", "receiving %zu bytes pushed by PE %u: %s", len, h.from,
                   ucs_status_string(UCS_PTR_STATUS(req)));
    if (req == NULL) /* done already: the callback is not called */
        __atomic_fetch_add(flag, 1, __ATOMIC_RELEASE);
    return UCS_OK;
}

static int am_register(ucx_state_t *u, unsigned id, ucp_am_recv_callback_t cb)
{
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = id,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
        .cb = cb,
        .arg = u,
    };
    ucs_status_t st = ucp_worker_set_am_recv_handler(u->dflt.worker, &hp);
    return st == UCS_OK ? SYMM_OK : ucx_fail("registering a message handler", st);
}

static int ucx_notify(struct symm_ctx *ctx, int seg, size_t off, uint64_t value, int pe)
{
    ucx_state_t *u = state_of(ctx->inst);
    ucx_wk_t *wk = wk_of(u, ctx);
    uint64_t raddr;
    ucp_rkey_h rkey;
    ucp_ep_h ep = peer_target(u, wk, seg, off, pe, &raddr, &rkey);
    ucx_am_hdr_t h = {.off = off, .value = value, .seg = (uint32_t)seg,
                      .from = (uint32_t)ctx->inst->my_pe};
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                               .flags = UCP_AM_SEND_FLAG_EAGER};
    /* The header must live until the send completes: h is on this stack, so
     * wait (an eager message of this size is normally sent at once). */
    ucs_status_ptr_t req = ucp_am_send_nbx(ep, UCX_AM_NOTIFY, &h, sizeof(h), NULL, 0, &prm);
    return to_symm(u, wait_req(u, wk, req), pe, "notify");
}

static void push_sent_cb(void *req, ucs_status_t st, void *hdr)
{
    (void)req;
    (void)st; /* reported by the quiet that collects the request */
    free(hdr);
}

static int ucx_push(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n,
                    int flag_seg, size_t flag_off, int pe)
{
    ucx_state_t *u = state_of(ctx->inst);
    ucx_wk_t *wk = wk_of(u, ctx);
    uint64_t raddr;
    ucp_rkey_h rkey;
    ucp_ep_h ep = peer_target(u, wk, seg, off, pe, &raddr, &rkey);
    /* UCX 1.13 needs the header until the send completes; src the caller
     * keeps until its quiet. */
    ucx_am_hdr_t *h = malloc(sizeof(*h));
    if (h == NULL)
        return SYMM_ERR_NOMEM;
    *h = (ucx_am_hdr_t){.off = off, .value = flag_off, .seg = (uint32_t)seg,
                        .flag_seg = (uint32_t)flag_seg, .from = (uint32_t)ctx->inst->my_pe};
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA,
                               .cb.send = push_sent_cb, .user_data = h};
    ucs_status_ptr_t req = ucp_am_send_nbx(ep, UCX_AM_PUSH, h, sizeof(*h), src, n, &prm);
    if (req == NULL || UCS_PTR_IS_ERR(req))
        free(h); /* completed (or failed) in the call: no callback */
    return to_symm(u, keep_req(u, wk, req), pe, "push");
}

/* ---- ordering and progress -------------------------------------------- */

static int ucx_fence(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    return to_symm(u, ucp_worker_fence(wk_of(u, ctx)->worker), ctx->inst->my_pe, "fence");
}

static int ucx_quiet(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    return to_symm(u, wk_quiet_if(u, wk_of(u, ctx), 0), ctx->inst->my_pe, "quiet");
}

static void ucx_progress(symm_instance_t *s)
{
    ucx_state_t *u = state_of(s);
    __atomic_store_n(&u->activity, u->activity + 1, __ATOMIC_RELAXED);
    progress_all(u);
}

/* Runs the workers while the PE computes, so a peer's emulated RMA/AMO on
 * my memory completes. It looks every SYMM_PROGRESS_INTERVAL microseconds
 * while the PE is away from symm (computing) and runs UCX then. While the
 * PE itself runs progress (it is inside symm calls), the thread only backs
 * off, doubling its sleep up to PROGRESS_MAX_US: its wake-ups cost the
 * communicating PE its core (8 B put+quiet over tcp went from 18 to 30 us
 * with a look every 200 us on this 2-core machine), and then they are rare. */
#define PROGRESS_MAX_US 50000

static void *progress_main(void *arg)
{
    ucx_state_t *u = arg;
    /* Run on any core, not the one the launcher bound the PE to: the thread
     * is for a PE that keeps its own core busy computing. */
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < get_nprocs_conf() && c < CPU_SETSIZE; c++)
        CPU_SET(c, &all);
    pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
    struct pollfd pf = {.fd = u->stop_pipe[0], .events = POLLIN};
    long base = u->inst->cfg.progress_interval, us = base;
    unsigned long seen = 0;
    for (;;) {
        struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
        if (ppoll(&pf, 1, &ts, NULL) > 0)
            return NULL;
        unsigned long now = __atomic_load_n(&u->activity, __ATOMIC_RELAXED);
        if (now != seen) {
            seen = now;
            us = us * 2 > PROGRESS_MAX_US ? (base > PROGRESS_MAX_US ? base : PROGRESS_MAX_US)
                                          : us * 2;
            continue;
        }
        /* Until idle, but yield to the PE as soon as it progresses itself. */
        while (progress_all(u) != 0 && __atomic_load_n(&u->activity, __ATOMIC_RELAXED) == seen)
            ;
        us = base;
    }
}

/* Whether the PE keeps a progress thread after init: SYMM_PROGRESS_THREAD
 * auto or 1: yes. (An auto that left it out where PEs fill every core made
 * put bandwidth steadier here, but then the p2p and lock tests stalled over
 * tcp with progress only inside symm calls; until that is understood the
 * thread stays, and 0 is for experiments.) */
static int progress_thread_wanted(ucx_state_t *u, int *wanted)
{
    const char *mode = u->inst->cfg.progress_thread;
    if (strcmp(mode, "1") != 0 && strcmp(mode, "auto") != 0 && strcmp(mode, "0") != 0) {
        symm_error("shmem_init", "SYMM_PROGRESS_THREAD='%s' is not one of auto, 0, 1", mode);
        return SYMM_ERR_INVALID;
    }
    if (u->inst->cfg.progress_interval < 1) {
        symm_error("shmem_init", "SYMM_PROGRESS_INTERVAL=%ld must be at least 1 microsecond",
                   (long)u->inst->cfg.progress_interval);
        return SYMM_ERR_INVALID;
    }
    *wanted = strcmp(mode, "0") != 0;
    return SYMM_OK;
}

static int start_progress_thread(ucx_state_t *u)
{
    if (pipe2(u->stop_pipe, O_CLOEXEC) != 0)
        return SYMM_ERR_SYS;
    if (pthread_create(&u->thread, NULL, progress_main, u) != 0) {
        close(u->stop_pipe[0]);
        close(u->stop_pipe[1]);
        return SYMM_ERR_SYS;
    }
    u->thread_on = 1;
    return SYMM_OK;
}

static void stop_progress_thread(ucx_state_t *u)
{
    if (!u->thread_on)
        return;
    char c = 1;
    if (write(u->stop_pipe[1], &c, 1) != 1)
        symm_warn("shmem_finalize", "cannot stop the progress thread: %s", strerror(errno));
    pthread_join(u->thread, NULL);
    close(u->stop_pipe[0]);
    close(u->stop_pipe[1]);
    u->thread_on = 0;
}

/* ---- workers and contexts --------------------------------------------- */

static int wk_init(ucx_state_t *u, ucx_wk_t *wk, ucs_thread_mode_t mode)
{
    ucs_status_t st;
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = mode};
    memset(wk, 0, sizeof(*wk));
    pthread_mutex_init(&wk->connect_lock, NULL);
    wk->conn = calloc((size_t)u->inst->n_pes, sizeof(ucx_conn_t));
    wk->pending = malloc(PENDING_MAX * sizeof(void *));
    if (wk->conn == NULL || wk->pending == NULL)
        return SYMM_ERR_NOMEM;
    if ((st = ucp_worker_create(u->ctx, &wp, &wk->worker)) != UCS_OK) {
        symm_error("ucx", "creating a worker: %s", ucs_status_string(st));
        return SYMM_ERR_SYS;
    }
    return SYMM_OK;
}

/* Complete, disconnect and destroy. */
static void wk_fini(ucx_state_t *u, ucx_wk_t *wk, int force)
{
    if (wk->worker != NULL) {
        wk_quiet(u, wk);
        for (int pe = 0; wk->conn != NULL && pe < u->inst->n_pes; pe++)
            conn_close(u, wk, pe, force);
        ucp_worker_destroy(wk->worker);
    }
    free(wk->conn);
    free(wk->pending);
    pthread_mutex_destroy(&wk->connect_lock);
    memset(wk, 0, sizeof(*wk));
}

/* A context gets its own worker, connected to peers on first use: its
 * quiet and fence flush and order its own operations only, and threads with
 * their own contexts do not share a worker. A destroyed context's worker
 * (completed by the destroy's quiet) goes to a pool for the next context:
 * closing endpoints while the job runs left UCX 1.13 peers with endpoints
 * back to a worker that was gone (connection refused, then a hang), and
 * reuse makes create/destroy cheap. Pooled workers are destroyed at
 * finalize, when every PE closes. Context workers are thread-safe (a pooled
 * one may next serve a shared context). */
static int ucx_ctx_create(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    pthread_mutex_lock(&u->ctx_lock);
    ucx_wk_t *wk = u->free_wks;
    if (wk != NULL)
        u->free_wks = wk->next;
    pthread_mutex_unlock(&u->ctx_lock);
    if (wk == NULL) {
        if (__atomic_load_n(&u->n_all_wks, __ATOMIC_RELAXED) >= SYMM_UCX_MAX_CTX_WORKERS) {
            symm_warn("shmem_ctx_create", "%d contexts exist: new ones share the default "
                      "context's worker", SYMM_UCX_MAX_CTX_WORKERS);
            return SYMM_OK;
        }
        wk = malloc(sizeof(*wk));
        if (wk == NULL)
            return SYMM_ERR_NOMEM;
        int rc = wk_init(u, wk, UCS_THREAD_MODE_MULTI);
        if (rc != SYMM_OK) {
            wk_fini(u, wk, 1);
            free(wk);
            return rc;
        }
        pthread_mutex_lock(&u->ctx_lock);
        int k = u->n_all_wks;
        u->all_wks[k] = wk->worker;
        __atomic_store_n(&u->n_all_wks, k + 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&u->ctx_lock);
    }
    pthread_mutex_lock(&u->ctx_lock);
    wk->next = u->ctx_wks;
    u->ctx_wks = wk;
    pthread_mutex_unlock(&u->ctx_lock);
    ctx->net = wk;
    return SYMM_OK;
}

static void ucx_ctx_destroy(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    ucx_wk_t *wk = ctx->net;
    if (wk == NULL)
        return;
    pthread_mutex_lock(&u->ctx_lock);
    for (ucx_wk_t **pp = &u->ctx_wks; *pp != NULL; pp = &(*pp)->next)
        if (*pp == wk) {
            *pp = wk->next;
            break;
        }
    wk->next = u->free_wks;
    u->free_wks = wk;
    pthread_mutex_unlock(&u->ctx_lock);
    ctx->net = NULL;
}

/* ---- setup ----------------------------------------------------------- */

/* Allgather of variable-length blobs: lengths first, then padded blobs. */
static int allgather_var(symm_instance_t *s, const void *mine, size_t len, char **all_p,
                         size_t *stride_p)
{
    uint64_t l = len, *lens = malloc(sizeof(uint64_t) * (size_t)s->n_pes);
    if (lens == NULL)
        return SYMM_ERR_NOMEM;
    int rc = symm_boot_allgather(s->boot, &l, lens, sizeof(l));
    size_t stride = 0;
    for (int i = 0; rc == SYMM_OK && i < s->n_pes; i++)
        if (lens[i] > stride)
            stride = lens[i];
    free(lens);
    if (rc != SYMM_OK)
        return rc;
    char *pad = calloc(1, stride), *all = malloc(stride * (size_t)s->n_pes);
    if (pad == NULL || all == NULL) {
        free(pad);
        free(all);
        return SYMM_ERR_NOMEM;
    }
    memcpy(pad, mine, len);
    rc = symm_boot_allgather(s->boot, pad, all, stride);
    free(pad);
    if (rc != SYMM_OK) {
        free(all);
        return rc;
    }
    *all_p = all;
    *stride_p = stride;
    return SYMM_OK;
}

static int map_mem(ucx_state_t *u, void *addr, size_t len, ucp_mem_h *mh)
{
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = addr,
        .length = len,
    };
    ucs_status_t st = ucp_mem_map(u->ctx, &mp, mh);
    return st == UCS_OK ? SYMM_OK : ucx_fail("registering symmetric memory", st);
}

static int is_remote(const symm_instance_t *s, int pe)
{
    return pe != s->my_pe && !s->peers[pe].mapped;
}

static int ucx_init(symm_instance_t *s)
{
    ucx_state_t *u = calloc(1, sizeof(*u));
    ucp_config_t *cfg = NULL;
    void *rkbuf[1 + SYMM_MAX_DATA_RANGES] = {0};
    size_t rklen[1 + SYMM_MAX_DATA_RANGES] = {0};
    ucp_address_t *addr = NULL;
    size_t addr_len = 0;
    char *mine = NULL;
    size_t stride = 0;
    ucs_status_t st;
    int rc;

    if (u == NULL)
        return SYMM_ERR_NOMEM;
    u->inst = s;
    s->net_state = u;
    pthread_mutex_init(&u->ctx_lock, NULL);
    if (!ucx_load()) {
        symm_error("shmem_init", "some PEs are not on this node, but %s", ucx_load_error);
        return SYMM_ERR_UNSUPPORTED;
    }
    u->peers = calloc((size_t)s->n_pes, sizeof(ucx_peer_t));
    if (u->peers == NULL)
        return SYMM_ERR_NOMEM;

    if ((st = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK)
        return ucx_fail("reading UCX_* configuration", st);
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM,
        .mt_workers_shared = 0,
        .estimated_num_eps = (size_t)s->n_pes,
    };
    st = ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, cfg, &u->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return ucx_fail("ucp_init", st);

    /* The progress thread and the PE's threads share the default worker. */
    if ((rc = wk_init(u, &u->dflt, UCS_THREAD_MODE_MULTI)) != SYMM_OK)
        return rc;
    if ((rc = am_register(u, UCX_AM_NOTIFY, notify_cb)) != SYMM_OK ||
        (rc = am_register(u, UCX_AM_PUSH, push_cb)) != SYMM_OK)
        return rc;
    if ((st = ucp_worker_get_address(u->dflt.worker, &addr, &addr_len)) != UCS_OK)
        return ucx_fail("worker address", st);

    /* Register both segments and pack their rkeys. */
    ucx_blob_hdr_t hdr = {.heap_base = (uint64_t)(uintptr_t)s->heap_base,
                          .addr_len = (uint32_t)addr_len};
    if ((rc = map_mem(u, s->heap_base, s->heap_size, &u->heap_mh)) != SYMM_OK)
        goto out;
    if ((st = ucp_rkey_pack(u->ctx, u->heap_mh, &rkbuf[0], &rklen[0])) != UCS_OK) {
        rc = ucx_fail("packing the heap key", st);
        goto out;
    }
    hdr.heap_rkey_len = (uint32_t)rklen[0];
    for (int i = 0; i < s->n_data_ranges; i++) {
        hdr.data_start[i] = s->data[i].start;
        if ((rc = map_mem(u, (void *)s->data[i].start, s->data[i].len, &u->data_mh[i])) !=
            SYMM_OK)
            goto out;
        if ((st = ucp_rkey_pack(u->ctx, u->data_mh[i], &rkbuf[1 + i], &rklen[1 + i])) !=
            UCS_OK) {
            rc = ucx_fail("packing a data key", st);
            goto out;
        }
        hdr.data_rkey_len[i] = (uint32_t)rklen[1 + i];
    }
    size_t len = sizeof(hdr) + addr_len;
    for (int i = 0; i <= s->n_data_ranges; i++)
        len += rklen[i];
    mine = malloc(len);
    if (mine == NULL) {
        rc = SYMM_ERR_NOMEM;
        goto out;
    }
    char *w = mine;
    memcpy(w, &hdr, sizeof(hdr));
    w += sizeof(hdr);
    memcpy(w, addr, addr_len);
    w += addr_len;
    for (int i = 0; i <= s->n_data_ranges; i++) {
        memcpy(w, rkbuf[i], rklen[i]);
        w += rklen[i];
    }
    if ((rc = allgather_var(s, mine, len, &u->blob, &stride)) != SYMM_OK)
        goto out;

    /* Every peer's segments; endpoints of the default worker to every peer
     * that is not mapped, eagerly (a job that reaches a peer through UCX
     * nearly always talks to it, and failures show at init). */
    for (int pe = 0; pe < s->n_pes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        const char *b = u->blob + (size_t)pe * stride;
        ucx_blob_hdr_t h;
        memcpy(&h, b, sizeof(h));
        p->pe = pe;
        p->u = u;
        p->heap_base = h.heap_base;
        p->addr = b + sizeof(h);
        p->heap_rkey = b + sizeof(h) + h.addr_len;
        const char *r = (const char *)p->heap_rkey + h.heap_rkey_len;
        for (int i = 0; i < s->n_data_ranges; i++) {
            p->data_start[i] = h.data_start[i];
            p->data_rkey[i] = r;
            r += h.data_rkey_len[i];
        }
    }
    /* Wiring up needs both ends to run UCX, but a PE done with its own
     * endpoints waits in the bootstrap's barrier, which does not: the
     * progress thread runs during the connection phase on every PE, and
     * stays only where wanted. */
    int wanted;
    if ((rc = progress_thread_wanted(u, &wanted)) != SYMM_OK ||
        (rc = start_progress_thread(u)) != SYMM_OK)
        goto out;
    for (int pe = 0; pe < s->n_pes; pe++)
        if (is_remote(s, pe) && (rc = conn_open(u, &u->dflt, pe)) != SYMM_OK)
            goto out;
    if ((rc = symm_boot_barrier(s->boot)) != SYMM_OK)
        goto out;
    if (!wanted)
        stop_progress_thread(u);
out:
    for (int i = 0; i <= SYMM_MAX_DATA_RANGES; i++)
        if (rkbuf[i])
            ucp_rkey_buffer_release(rkbuf[i]);
    if (addr)
        ucp_worker_release_address(u->dflt.worker, addr);
    free(mine);
    return rc;
}

static void ucx_fini(symm_instance_t *s)
{
    ucx_state_t *u = state_of(s);
    if (u == NULL)
        return;
    /* Complete everything, then close together: once every PE has
     * flushed, nothing more arrives, and errors from here on are peers
     * closing. */
    for (ucx_wk_t *wk = u->ctx_wks; wk != NULL; wk = wk->next)
        wk_quiet(u, wk);
    if (u->dflt.worker)
        wk_quiet(u, &u->dflt);
    u->closing = 1;
    symm_boot_barrier(s->boot);
    stop_progress_thread(u);
    u->n_all_wks = 0;
    for (int list = 0; list < 2; list++) {
        ucx_wk_t **head = list == 0 ? &u->ctx_wks : &u->free_wks;
        while (*head != NULL) {
            ucx_wk_t *wk = *head;
            *head = wk->next;
            wk_fini(u, wk, 1);
            free(wk);
        }
    }
    wk_fini(u, &u->dflt, 1);
    if (u->heap_mh)
        ucp_mem_unmap(u->ctx, u->heap_mh);
    for (int i = 0; i < SYMM_MAX_DATA_RANGES; i++)
        if (u->data_mh[i])
            ucp_mem_unmap(u->ctx, u->data_mh[i]);
    if (u->ctx)
        ucp_cleanup(u->ctx);
    pthread_mutex_destroy(&u->ctx_lock);
    free(u->blob);
    free(u->heap_blob);
    free(u->peers);
    free(u);
    s->net_state = NULL;
}

/* New heap rkeys for every connection of wk. */
static int wk_rekey(ucx_state_t *u, ucx_wk_t *wk)
{
    for (int pe = 0; pe < u->inst->n_pes; pe++) {
        ucx_conn_t *c = &wk->conn[pe];
        ucp_rkey_h nk;
        ucs_status_t st;
        if (c->ep == NULL)
            continue;
        if ((st = ucp_ep_rkey_unpack(c->ep, u->peers[pe].heap_rkey, &nk)) != UCS_OK) {
            symm_error("shmem_malloc", "UCX heap key of PE %d: %s", pe, ucs_status_string(st));
            return SYMM_ERR_SYS;
        }
        ucp_rkey_destroy(c->heap_rkey);
        c->heap_rkey = nk;
    }
    return SYMM_OK;
}

/* The heap grew on every PE: register the larger range, trade keys, retire
 * the old ones. Collective (shmem_malloc and friends). */
static int ucx_heap_grown(symm_instance_t *s, size_t new_size)
{
    ucx_state_t *u = state_of(s);
    ucp_mem_h mh;
    void *rk = NULL;
    size_t rklen = 0, stride = 0;
    char *all = NULL;
    ucs_status_t st;
    pthread_mutex_lock(&u->ctx_lock);
    for (ucx_wk_t *wk = u->ctx_wks; wk != NULL; wk = wk->next)
        wk_quiet(u, wk);
    int rc = to_symm(u, wk_quiet(u, &u->dflt), s->my_pe, "flush");
    if (rc == SYMM_OK)
        rc = map_mem(u, s->heap_base, new_size, &mh);
    if (rc != SYMM_OK)
        goto out;
    if ((st = ucp_rkey_pack(u->ctx, mh, &rk, &rklen)) != UCS_OK) {
        ucp_mem_unmap(u->ctx, mh);
        rc = ucx_fail("packing the heap key", st);
        goto out;
    }
    rc = allgather_var(s, rk, rklen, &all, &stride);
    ucp_rkey_buffer_release(rk);
    if (rc == SYMM_OK) {
        free(u->heap_blob);
        u->heap_blob = all;
        for (int pe = 0; pe < s->n_pes; pe++)
            u->peers[pe].heap_rkey = all + (size_t)pe * stride;
        rc = wk_rekey(u, &u->dflt);
        for (ucx_wk_t *wk = u->ctx_wks; rc == SYMM_OK && wk != NULL; wk = wk->next)
            rc = wk_rekey(u, wk);
        for (ucx_wk_t *wk = u->free_wks; rc == SYMM_OK && wk != NULL; wk = wk->next)
            rc = wk_rekey(u, wk);
    }
    /* Nobody uses my old key any more once every PE has the new one. */
    if (rc == SYMM_OK)
        rc = symm_boot_barrier(s->boot);
    if (rc == SYMM_OK) {
        ucp_mem_unmap(u->ctx, u->heap_mh);
        u->heap_mh = mh;
    } else {
        ucp_mem_unmap(u->ctx, mh);
    }
out:
    pthread_mutex_unlock(&u->ctx_lock);
    return rc;
}

static const symm_transport_ops_t ucx_ops = {
    .name = "ucx",
    .init = ucx_init,
    .fini = ucx_fini,
    .put = ucx_put,
    .get = ucx_get,
    .put_nbi = ucx_put_nbi,
    .get_nbi = ucx_get_nbi,
    .amo = ucx_amo,
    .notify = ucx_notify,
    .push = ucx_push,
    .fence = ucx_fence,
    .quiet = ucx_quiet,
    .progress = ucx_progress,
    .heap_grown = ucx_heap_grown,
    .ctx_create = ucx_ctx_create,
    .ctx_destroy = ucx_ctx_destroy,
};

const symm_transport_ops_t *symm_ucx_transport(void) { return &ucx_ops; }
const char *symm_ucx_version(void) { return ucx_load() ? ucp_get_version_string() : NULL; }

#else /* !SYMM_HAVE_UCX */

const symm_transport_ops_t *symm_ucx_transport(void) { return NULL; }
const char *symm_ucx_version(void) { return NULL; }

#endif
