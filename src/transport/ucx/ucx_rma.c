/*
 * ucx_rma.c - put, get and atomics to unmapped peers, the request tracking that
 * completes them, and fence and quiet of a context.
 *
 * Blocking calls wait for their request with progress and back-off. _nbi
 * operations keep their request until quiet waits for it; every atomic
 * fetches (non-fetching ones into a sink), so its request completes only
 * once applied; quiet then flushes the worker only if puts were issued
 * (wk_quiet_if). Fence is ucp_worker_fence.
 *
 * Owns the hot paths of the transport: each operation is one UCP call on
 * the context's worker plus a wait or a kept request, with the address
 * translation of ucx.h inlined. Never releases a non-blocking request
 * before a quiet has waited for it, never flushes or orders a worker other
 * than the context's, connects only through the cold lazy connect
 * (symm_ucx_conn_open_lazy), and never calls back into the API layer.
 */
#define _GNU_SOURCE
#ifdef SYMM_HAVE_UCX

#include <sched.h>
#include <string.h>

#include "runtime/pestatus.h"
#include "transport/ucx/ucx.h"

/* ---- requests -------------------------------------------------------- */

/* As every symm wait (ops/sync.h): spin polls, then on for spin_ns by the
 * clock (renewed by any event: *until), then yield. */
static void backoff(ucx_state_t *u, unsigned *polls, unsigned events, uint64_t *until)
{
    if (++*polls < (unsigned)u->inst->spin)
        return;
    uint64_t now = symm_now_ns();
    if (*polls == (unsigned)u->inst->spin || events != 0)
        *until = now + (uint64_t)u->inst->spin_ns;
    if (now < *until)
        return;
    sched_yield();
}

/* Wait for a request of worker wk (NULL: done at once) with progress. */
ucs_status_t symm_ucx_wait_req(ucx_state_t *u, ucx_wk_t *wk, ucs_status_ptr_t req)
{
    if (req == NULL)
        return UCS_OK;
    if (UCS_PTR_IS_ERR(req))
        return UCS_PTR_STATUS(req);
    ucs_status_t st;
    unsigned polls = 0;
    uint64_t until = 0;
    /* Each turn tells the progress thread this PE is progressing itself,
     * so it runs every worker, not only wk's: the default worker serves
     * peers, and a flush of one worker can wait on a peer's endpoint to
     * another (UCX's reverse endpoints), so two PEs each waiting on one
     * worker would wait for each other. At finalize the context workers
     * have left that list (they are destroyed one by one) while their
     * endpoints close: a close that waits for a same-node peer (not
     * forced) completes only as its own worker runs, so that one runs
     * too (the stress tester's hang in shmem_finalize, SYMM_NODE_SIZE=2
     * with SYMM_ATOMICS=network; test ctx_fini_netamo). */
    int own = wk != NULL && wk != &u->dflt && u->closing;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        __atomic_store_n(&u->activity, u->activity + 1, __ATOMIC_RELAXED);
        unsigned ev = symm_ucx_progress_all(u);
        if (own)
            ev += ucp_worker_progress(wk->worker);
        backoff(u, &polls, ev, &until);
    }
    ucp_request_free(req);
    return st;
}

/* Non-blocking operations keep their request until the next quiet waits
 * for it: UCX 1.13 does not reliably hold a worker flush back for released
 * software-emulated requests (seen here over tcp and shared memory). At
 * PENDING_MAX outstanding they are completed in a batch. Threads of one PE
 * may add at once (SHMEM_THREAD_MULTIPLE): a spin lock guards the list.
 * Whoever takes requests off it to wait for them holds wk->quiet_lock
 * until they are complete, so another thread's quiet, which takes the lock
 * too, cannot find the list empty and return while its own get_nbi is
 * still in flight (the stress tester's seed 24, pe/threads_quiet.c).
 * (PENDING_MAX is in ucx.h: workers are made in ucx_progress.c.) */

static void pending_lock(ucx_wk_t *wk)
{
    while (__atomic_exchange_n(&wk->pending_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void pending_unlock(ucx_wk_t *wk)
{
    __atomic_store_n(&wk->pending_lock, 0, __ATOMIC_RELEASE);
}

/* Called with wk->quiet_lock held. */
static ucs_status_t wait_pending(ucx_state_t *u, ucx_wk_t *wk)
{
    ucs_status_t st = UCS_OK;
    for (;;) {
        pending_lock(wk);
        void *req = wk->n_pending > 0 ? wk->pending[--wk->n_pending] : NULL;
        pending_unlock(wk);
        if (req == NULL)
            return st;
        ucs_status_t r = symm_ucx_wait_req(u, wk, req);
        if (r != UCS_OK)
            st = r;
    }
}

ucs_status_t symm_ucx_keep_req(ucx_state_t *u, ucx_wk_t *wk, ucs_status_ptr_t req)
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
        pthread_mutex_lock(&wk->quiet_lock);
        st = wait_pending(u, wk);
        pthread_mutex_unlock(&wk->quiet_lock);
        if (st != UCS_OK) {
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
 * all fetch) or reports completion otherwise (notifications; collective
 * messages, whose senders wait for them), so a flush, a round trip per
 * peer over software-emulated transports, is for puts only. force: flush
 * anyway (finalize, heap growth). The mark is set after a put is issued
 * and cleared here under wk->quiet_lock: a quiet that finds it clear either
 * has no put before it or waits for the lock until the flush that took
 * the mark has completed that put. */
static ucs_status_t wk_quiet_if(ucx_state_t *u, ucx_wk_t *wk, int force)
{
    ucp_request_param_t prm = {.op_attr_mask = 0};
    pthread_mutex_lock(&wk->quiet_lock);
    ucs_status_t st = wait_pending(u, wk), f = UCS_OK;
    if (__atomic_exchange_n(&wk->unflushed, 0, __ATOMIC_ACQ_REL) || force)
        f = symm_ucx_wait_req(u, wk, ucp_worker_flush_nbx(wk->worker, &prm));
    pthread_mutex_unlock(&wk->quiet_lock);
    return st != UCS_OK ? st : f;
}

ucs_status_t symm_ucx_wk_quiet(ucx_state_t *u, ucx_wk_t *wk) { return wk_quiet_if(u, wk, 1); }

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
    ucs_status_ptr_t req = is_put ? ucp_put_nbx(ep, local, n, raddr, rkey, &prm)
                                  : ucp_get_nbx(ep, local, n, raddr, rkey, &prm);
    /* After the put is issued: a flush that takes the mark covers it. */
    if (is_put && !__atomic_load_n(&wk->unflushed, __ATOMIC_RELAXED))
        __atomic_store_n(&wk->unflushed, 1, __ATOMIC_RELEASE);
    return to_symm(u, nbi ? symm_ucx_keep_req(u, wk, req) : symm_ucx_wait_req(u, wk, req), pe,
                   is_put ? "put" : "get");
}

int symm_ucx_put(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n, int pe)
{
    return ucx_rma(ctx, 1, (void *)src, seg, off, n, pe, 0);
}

int symm_ucx_put_nbi(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n, int pe)
{
    return ucx_rma(ctx, 1, (void *)src, seg, off, n, pe, 1);
}

int symm_ucx_get(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n, int pe)
{
    return ucx_rma(ctx, 0, dst, seg, off, n, pe, 0);
}

int symm_ucx_get_nbi(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n, int pe)
{
    return ucx_rma(ctx, 0, dst, seg, off, n, pe, 1);
}

/* ---- atomics --------------------------------------------------------- */

/* A bitwise atomic on this PE's own word, as a compare-and-swap loop: UCX
 * 1.13's loopback transport (self) applies fetching and/or/xor with the
 * old value as the operand (or and and change nothing, xor clears the
 * word; add, swap and cswap are right), and the PE reaches itself through
 * UCX when the network is the one atomic agent (SYMM_AMO_NET). Blocking
 * even for _nbi: the result is in place before the quiet that owes it. */
static int self_bitwise(struct symm_ctx *ctx, symm_amo_op_t op, size_t size, int seg, size_t off,
                        const void *operand, void *result, int pe)
{
    uint64_t old = 0, got = 0, v = 0, want;
    memcpy(&v, operand, size);
    int rc = symm_ucx_amo(ctx, SYMM_AMO_FETCH, size, seg, off, NULL, NULL, &old, 0, pe);
    for (; rc == SYMM_OK; old = got) {
        want = op == SYMM_AMO_AND ? (old & v) : op == SYMM_AMO_OR ? (old | v) : (old ^ v);
        rc = symm_ucx_amo(ctx, SYMM_AMO_CSWAP, size, seg, off, &want, &old, &got, 0, pe);
        if (rc == SYMM_OK && got == old)
            break;
    }
    if (rc == SYMM_OK && result != NULL)
        memcpy(result, &old, size);
    return rc;
}

/* UCP has add, and, or, xor, swap and cswap on 32/64-bit words. Fetch is a
 * fetching add of 0; set is a swap whose old value is dropped (a put would
 * not be atomic against emulated AMOs); fetching and/or/xor/add are native.
 * Floats only take fetch/set/swap, which move bits. */
int symm_ucx_amo(struct symm_ctx *ctx, symm_amo_op_t op, size_t size, int seg, size_t off,
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
    if (__builtin_expect(pe == ctx->inst->my_pe, 0) &&
        (op == SYMM_AMO_AND || op == SYMM_AMO_OR || op == SYMM_AMO_XOR))
        return self_bitwise(ctx, op, size, seg, off, operand, result, pe);
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
    ucs_status_t st = keep ? symm_ucx_keep_req(u, wk, req) : symm_ucx_wait_req(u, wk, req);
    if (st == UCS_OK && result != NULL && prm.reply_buffer == &reply)
        memcpy(result, &reply, size);
    return to_symm(u, st, pe, "atomic");
}

/* ---- ordering -------------------------------------------------------- */

int symm_ucx_fence(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    return to_symm(u, ucp_worker_fence(wk_of(u, ctx)->worker), ctx->inst->my_pe, "fence");
}

int symm_ucx_quiet(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    return to_symm(u, wk_quiet_if(u, wk_of(u, ctx), 0), ctx->inst->my_pe, "quiet");
}

/* shmem_pe_quiet: kept requests are the worker's, not a peer's, so all are
 * waited for (gets and atomics complete with them); puts then need a flush
 * of the targets' endpoints only, not the worker's round trip to every
 * peer. A worker never connected to a target issued nothing to it. The
 * worker stays marked unflushed: other peers may still owe puts. */
int symm_ucx_pe_quiet(struct symm_ctx *ctx, const int *pes, size_t n)
{
    ucx_state_t *u = state_of(ctx->inst);
    ucx_wk_t *wk = wk_of(u, ctx);
    pthread_mutex_lock(&wk->quiet_lock);
    ucs_status_t st = wait_pending(u, wk);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    for (size_t i = 0; __atomic_load_n(&wk->unflushed, __ATOMIC_ACQUIRE) && i < n && st == UCS_OK;
         i++) {
        ucp_ep_h ep = __atomic_load_n(&wk->conn[pes[i]].ep, __ATOMIC_ACQUIRE);
        if (ep != NULL)
            st = symm_ucx_wait_req(u, wk, ucp_ep_flush_nbx(ep, &prm));
    }
    pthread_mutex_unlock(&wk->quiet_lock);
    return to_symm(u, st, ctx->inst->my_pe, "quiet");
}

#endif
