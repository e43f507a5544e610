/*
 * ucx.c - the network transport: every peer that is not mapped is reached
 * through UCX (UCP: RMA, AMO32, AMO64).
 *
 * At init: one UCP context and one worker per instance; the worker's address,
 * my heap base, the starts of my global-data ranges and the packed rkeys of
 * both segments go to every PE in one bootstrap allgather; endpoints to every
 * unmapped peer are created and their rkeys unpacked eagerly (a job that
 * reaches a peer through UCX nearly always talks to it). A symmetric address
 * is (segment, offset) in the core; here it becomes the peer's virtual
 * address plus its rkey.
 *
 * Blocking calls wait for their request with progress and back-off; _nbi and
 * non-fetching atomics release their request and complete at the next flush
 * (quiet). Fence is ucp_worker_fence. Where the selected UCX transport
 * emulates RMA/AMO in software (tcp, shared memory without a hardware path),
 * the target must run UCX progress: every symm wait loop calls progress, and
 * a progress thread sleeps on the worker's event fd and runs it while the PE
 * computes (SYMM_PROGRESS_THREAD).
 *
 * A failed endpoint (peer died, link down) ends the job naming the PE.
 */
#define _GNU_SOURCE
#include "transport/ucx.h"

#ifdef SYMM_HAVE_UCX

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ucp/api/ucp.h>

#include "mem/seg.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "transport/transport.h"

typedef struct ucx_peer {
    ucp_ep_h ep;
    int pe;
    struct ucx_state *u;
    uint64_t heap_base;
    ucp_rkey_h heap_rkey;
    uint64_t data_start[SYMM_MAX_DATA_RANGES];
    ucp_rkey_h data_rkey[SYMM_MAX_DATA_RANGES];
} ucx_peer_t;

typedef struct ucx_state {
    symm_instance_t *inst;
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucx_peer_t *peers;       /* [n_pes]; ep NULL for mapped peers */
    ucp_mem_h heap_mh;
    ucp_mem_h data_mh[SYMM_MAX_DATA_RANGES];
    volatile int closing;    /* finalize started: endpoint errors are expected */
    /* progress thread */
    int thread_on;
    pthread_t thread;
    unsigned long activity;  /* bumped whenever the PE itself runs progress */
    void **pending;          /* [PENDING_MAX] non-blocking requests until quiet */
    size_t n_pending;
    int pending_lock;
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

/* Wait for a request (NULL: done at once) with progress; its status. */
static ucs_status_t wait_req(ucx_state_t *u, ucs_status_ptr_t req)
{
    if (req == NULL)
        return UCS_OK;
    if (UCS_PTR_IS_ERR(req))
        return UCS_PTR_STATUS(req);
    ucs_status_t st;
    unsigned polls = 0;
    __atomic_store_n(&u->activity, u->activity + 1, __ATOMIC_RELAXED);
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        if (ucp_worker_progress(u->worker) == 0)
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

static void pending_lock(ucx_state_t *u)
{
    while (__atomic_exchange_n(&u->pending_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void pending_unlock(ucx_state_t *u)
{
    __atomic_store_n(&u->pending_lock, 0, __ATOMIC_RELEASE);
}

static ucs_status_t wait_pending(ucx_state_t *u)
{
    ucs_status_t st = UCS_OK;
    for (;;) {
        pending_lock(u);
        void *req = u->n_pending > 0 ? u->pending[--u->n_pending] : NULL;
        pending_unlock(u);
        if (req == NULL)
            return st;
        ucs_status_t r = wait_req(u, req);
        if (r != UCS_OK)
            st = r;
    }
}

static ucs_status_t keep_req(ucx_state_t *u, ucs_status_ptr_t req)
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
        pending_lock(u);
        if (u->n_pending < PENDING_MAX)
            break;
        pending_unlock(u);
        if ((st = wait_pending(u)) != UCS_OK) {
            ucp_request_free(req);
            return st;
        }
    }
    u->pending[u->n_pending++] = req;
    pending_unlock(u);
    return UCS_OK;
}

static int to_symm(ucx_state_t *u, ucs_status_t st, int pe, const char *what)
{
    if (st == UCS_OK)
        return SYMM_OK;
    if (!u->closing)
        symm_fatal("ucx", "%s to PE %d failed: %s", what, pe, ucs_status_string(st));
    return SYMM_ERR_PEER;
}

/* ---- address translation --------------------------------------------- */

static inline ucx_peer_t *peer_target(ucx_state_t *u, int seg, size_t off, int pe,
                                      uint64_t *raddr, ucp_rkey_h *rkey)
{
    ucx_peer_t *p = &u->peers[pe];
    if (seg == SYMM_SEG_HEAP) {
        *raddr = p->heap_base + off;
        *rkey = p->heap_rkey;
        return p;
    }
    const symm_instance_t *s = u->inst;
    for (int i = 0; i < s->n_data_ranges; i++) {
        if (off - s->data[i].off < s->data[i].len) {
            *raddr = p->data_start[i] + (off - s->data[i].off);
            *rkey = p->data_rkey[i];
            return p;
        }
    }
    symm_fatal("ucx", "offset %zu is in no symmetric data range", off);
}

/* ---- RMA ------------------------------------------------------------- */

static int ucx_put_common(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n,
                          int pe, int nbi)
{
    ucx_state_t *u = state_of(ctx->inst);
    uint64_t raddr;
    ucp_rkey_h rkey;
    ucx_peer_t *p = peer_target(u, seg, off, pe, &raddr, &rkey);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    ucs_status_ptr_t req = ucp_put_nbx(p->ep, src, n, raddr, rkey, &prm);
    return to_symm(u, nbi ? keep_req(u, req) : wait_req(u, req), pe, "put");
}

static int ucx_put(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n, int pe)
{
    return ucx_put_common(ctx, seg, off, src, n, pe, 0);
}

static int ucx_put_nbi(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n,
                       int pe)
{
    return ucx_put_common(ctx, seg, off, src, n, pe, 1);
}

static int ucx_get_common(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n, int pe,
                          int nbi)
{
    ucx_state_t *u = state_of(ctx->inst);
    uint64_t raddr;
    ucp_rkey_h rkey;
    ucx_peer_t *p = peer_target(u, seg, off, pe, &raddr, &rkey);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    ucs_status_ptr_t req = ucp_get_nbx(p->ep, dst, n, raddr, rkey, &prm);
    return to_symm(u, nbi ? keep_req(u, req) : wait_req(u, req), pe, "get");
}

static int ucx_get(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n, int pe)
{
    return ucx_get_common(ctx, dst, seg, off, n, pe, 0);
}

static int ucx_get_nbi(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n, int pe)
{
    return ucx_get_common(ctx, dst, seg, off, n, pe, 1);
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
    uint64_t raddr;
    ucp_rkey_h rkey;
    ucx_peer_t *p = peer_target(u, seg, off, pe, &raddr, &rkey);
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
    /* A swap always needs somewhere to put the old value. */
    int needs_reply = result != NULL || opc == UCP_ATOMIC_OP_SWAP || opc == UCP_ATOMIC_OP_CSWAP ||
                      op == SYMM_AMO_FETCH;
    if (needs_reply) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        /* nbi with a result: UCX writes the user's buffer at completion,
         * which the next quiet waits for. cswap's compare goes in the reply. */
        if (nbi && result != NULL && opc != UCP_ATOMIC_OP_CSWAP) {
            prm.reply_buffer = result;
        } else {
            prm.reply_buffer = &reply;
            nbi = 0;
        }
    }
    /* The value travels in the request: operand needn't outlive the call. */
    ucs_status_ptr_t req = ucp_atomic_op_nbx(p->ep, opc, &value, 1, raddr, rkey, &prm);
    ucs_status_t st = nbi || !needs_reply ? keep_req(u, req) : wait_req(u, req);
    if (st == UCS_OK && result != NULL && prm.reply_buffer == &reply)
        memcpy(result, &reply, size);
    return to_symm(u, st, pe, "atomic");
}

/* ---- ordering and progress -------------------------------------------- */

static int ucx_fence(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    return to_symm(u, ucp_worker_fence(u->worker), ctx->inst->my_pe, "fence");
}

static int ucx_quiet(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    ucs_status_t st = wait_pending(u);
    ucs_status_t f = wait_req(u, ucp_worker_flush_nbx(u->worker, &prm));
    return to_symm(u, st != UCS_OK ? st : f, ctx->inst->my_pe, "quiet");
}

static void ucx_progress(symm_instance_t *s)
{
    ucx_state_t *u = state_of(s);
    __atomic_store_n(&u->activity, u->activity + 1, __ATOMIC_RELAXED);
    ucp_worker_progress(u->worker);
}

/* Runs the worker while the PE computes, so a peer's emulated RMA/AMO on my
 * memory completes. Wakes every SYMM_PROGRESS_INTERVAL microseconds; if the
 * PE itself ran UCX progress since the last wake (it is inside a symm call),
 * it does nothing: the two never contend for the worker while the PE
 * communicates, and a computing PE still answers within an interval. */
static void *progress_main(void *arg)
{
    ucx_state_t *u = arg;
    struct pollfd pf = {.fd = u->stop_pipe[0], .events = POLLIN};
    long us = u->inst->cfg.progress_interval;
    struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
    unsigned long seen = 0;
    for (;;) {
        if (ppoll(&pf, 1, &ts, NULL) > 0)
            return NULL;
        unsigned long now = __atomic_load_n(&u->activity, __ATOMIC_RELAXED);
        if (now != seen) {
            seen = now;
            continue;
        }
        while (ucp_worker_progress(u->worker) != 0)
            ;
    }
}

static int start_progress_thread(ucx_state_t *u)
{
    const char *mode = u->inst->cfg.progress_thread;
    if (strcmp(mode, "0") == 0)
        return SYMM_OK;
    if (strcmp(mode, "1") != 0 && strcmp(mode, "auto") != 0) {
        symm_error("shmem_init", "SYMM_PROGRESS_THREAD='%s' is not one of auto, 0, 1", mode);
        return SYMM_ERR_INVALID;
    }
    if (u->inst->cfg.progress_interval < 1) {
        symm_error("shmem_init", "SYMM_PROGRESS_INTERVAL=%ld must be at least 1 microsecond",
                   (long)u->inst->cfg.progress_interval);
        return SYMM_ERR_INVALID;
    }
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
    char *mine = NULL, *all = NULL;
    size_t stride = 0;
    ucs_status_t st;
    int rc;

    if (u == NULL)
        return SYMM_ERR_NOMEM;
    u->inst = s;
    s->net_state = u;
    u->peers = calloc((size_t)s->n_pes, sizeof(ucx_peer_t));
    u->pending = malloc(PENDING_MAX * sizeof(void *));
    if (u->peers == NULL || u->pending == NULL)
        return SYMM_ERR_NOMEM;

    if ((st = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK)
        return ucx_fail("reading UCX_* configuration", st);
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64,
        .mt_workers_shared = 0,
        .estimated_num_eps = (size_t)s->n_pes,
    };
    st = ucp_init(&params, cfg, &u->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return ucx_fail("ucp_init", st);

    /* The progress thread and the PE's own calls share the worker. */
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_MULTI};
    if ((st = ucp_worker_create(u->ctx, &wp, &u->worker)) != UCS_OK)
        return ucx_fail("creating a worker", st);
    if ((st = ucp_worker_get_address(u->worker, &addr, &addr_len)) != UCS_OK)
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
    if ((rc = allgather_var(s, mine, len, &all, &stride)) != SYMM_OK)
        goto out;

    /* Endpoints and keys of every peer that is not mapped. */
    for (int pe = 0; pe < s->n_pes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        p->pe = pe;
        p->u = u;
        if (!is_remote(s, pe))
            continue;
        const char *b = all + (size_t)pe * stride;
        ucx_blob_hdr_t h;
        memcpy(&h, b, sizeof(h));
        const char *r = b + sizeof(h);
        /* Peer failure detection for peers on other nodes. UCX 1.13's
         * shared-memory transports have none and would be excluded by it;
         * a node-local PE's death is seen by the launcher on this node. */
        ucp_ep_params_t ep = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                          UCP_EP_PARAM_FIELD_ERR_HANDLER,
            .address = (const ucp_address_t *)r,
            .err_mode = s->peers[pe].same_node ? UCP_ERR_HANDLING_MODE_NONE
                                               : UCP_ERR_HANDLING_MODE_PEER,
            .err_handler = {.cb = peer_error, .arg = p},
        };
        if ((st = ucp_ep_create(u->worker, &ep, &p->ep)) != UCS_OK) {
            symm_error("shmem_init", "UCX endpoint to PE %d: %s", pe, ucs_status_string(st));
            rc = SYMM_ERR_SYS;
            goto out;
        }
        r += h.addr_len;
        p->heap_base = h.heap_base;
        if ((st = ucp_ep_rkey_unpack(p->ep, r, &p->heap_rkey)) != UCS_OK) {
            symm_error("shmem_init", "UCX heap key of PE %d: %s", pe, ucs_status_string(st));
            rc = SYMM_ERR_SYS;
            goto out;
        }
        r += h.heap_rkey_len;
        for (int i = 0; i < s->n_data_ranges; i++) {
            p->data_start[i] = h.data_start[i];
            if ((st = ucp_ep_rkey_unpack(p->ep, r, &p->data_rkey[i])) != UCS_OK) {
                symm_error("shmem_init", "UCX data key of PE %d: %s", pe, ucs_status_string(st));
                rc = SYMM_ERR_SYS;
                goto out;
            }
            r += h.data_rkey_len[i];
        }
    }
    rc = start_progress_thread(u);
out:
    for (int i = 0; i <= SYMM_MAX_DATA_RANGES; i++)
        if (rkbuf[i])
            ucp_rkey_buffer_release(rkbuf[i]);
    if (addr)
        ucp_worker_release_address(u->worker, addr);
    free(mine);
    free(all);
    return rc;
}

static void ucx_fini(symm_instance_t *s)
{
    ucx_state_t *u = state_of(s);
    if (u == NULL)
        return;
    if (u->worker) {
        ucp_request_param_t prm = {.op_attr_mask = 0};
        wait_pending(u);
        wait_req(u, ucp_worker_flush_nbx(u->worker, &prm));
    }
    free(u->pending);
    /* Once every PE has flushed, nothing more arrives: errors from here
     * on are peers closing. */
    u->closing = 1;
    symm_boot_barrier(s->boot);
    stop_progress_thread(u);
    for (int pe = 0; pe < s->n_pes && u->peers; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        if (p->heap_rkey)
            ucp_rkey_destroy(p->heap_rkey);
        for (int i = 0; i < SYMM_MAX_DATA_RANGES; i++)
            if (p->data_rkey[i])
                ucp_rkey_destroy(p->data_rkey[i]);
        if (p->ep) {
            /* Forced close needs peer failure handling; the others flush. */
            ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                       .flags = s->peers[pe].same_node ? 0
                                                                       : UCP_EP_CLOSE_FLAG_FORCE};
            wait_req(u, ucp_ep_close_nbx(p->ep, &prm));
        }
    }
    if (u->heap_mh)
        ucp_mem_unmap(u->ctx, u->heap_mh);
    for (int i = 0; i < SYMM_MAX_DATA_RANGES; i++)
        if (u->data_mh[i])
            ucp_mem_unmap(u->ctx, u->data_mh[i]);
    if (u->worker)
        ucp_worker_destroy(u->worker);
    if (u->ctx)
        ucp_cleanup(u->ctx);
    free(u->peers);
    free(u);
    s->net_state = NULL;
}

/* The heap grew on every PE: register the larger range, trade keys, retire
 * the old ones. Collective. */
static int ucx_heap_grown(symm_instance_t *s, size_t new_size)
{
    ucx_state_t *u = state_of(s);
    ucp_mem_h mh;
    void *rk = NULL;
    size_t rklen = 0, stride = 0;
    char *all = NULL;
    ucs_status_t st;
    ucp_request_param_t prm = {.op_attr_mask = 0};
    wait_pending(u);
    int rc = to_symm(u, wait_req(u, ucp_worker_flush_nbx(u->worker, &prm)), s->my_pe, "flush");
    if (rc != SYMM_OK)
        return rc;
    if ((rc = map_mem(u, s->heap_base, new_size, &mh)) != SYMM_OK)
        return rc;
    if ((st = ucp_rkey_pack(u->ctx, mh, &rk, &rklen)) != UCS_OK) {
        ucp_mem_unmap(u->ctx, mh);
        return ucx_fail("packing the heap key", st);
    }
    rc = allgather_var(s, rk, rklen, &all, &stride);
    ucp_rkey_buffer_release(rk);
    for (int pe = 0; rc == SYMM_OK && pe < s->n_pes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        if (p->ep == NULL)
            continue;
        ucp_rkey_h nk;
        if ((st = ucp_ep_rkey_unpack(p->ep, all + (size_t)pe * stride, &nk)) != UCS_OK) {
            rc = ucx_fail("unpacking a heap key", st);
            break;
        }
        ucp_rkey_destroy(p->heap_rkey);
        p->heap_rkey = nk;
    }
    free(all);
    /* Nobody uses my old key any more once every PE has the new one. */
    if (rc == SYMM_OK)
        rc = symm_boot_barrier(s->boot);
    if (rc == SYMM_OK) {
        ucp_mem_unmap(u->ctx, u->heap_mh);
        u->heap_mh = mh;
    } else {
        ucp_mem_unmap(u->ctx, mh);
    }
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
    .fence = ucx_fence,
    .quiet = ucx_quiet,
    .progress = ucx_progress,
    .heap_grown = ucx_heap_grown,
};

const symm_transport_ops_t *symm_ucx_transport(void) { return &ucx_ops; }
const char *symm_ucx_version(void) { return ucp_get_version_string(); }

#else /* !SYMM_HAVE_UCX */

const symm_transport_ops_t *symm_ucx_transport(void) { return NULL; }
const char *symm_ucx_version(void) { return NULL; }

#endif
