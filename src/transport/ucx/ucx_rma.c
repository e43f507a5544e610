/*
 * ucx_rma.c - put, get and atomics to unmapped peers, the request tracking that
 * completes them, and fence and quiet of a context.
 *
 * Blocking calls wait for their request with progress and back-off. _nbi
 * operations keep their request until quiet waits for it; atomics fetch
 * (non-fetching ones into a sink), so their request completes only once
 * applied, except non-fetching ones to a network peer once its endpoint
 * has carried a fetch, which are posts marked like puts; quiet then
 * flushes the worker only if puts or posts were issued (wk_quiet_if).
 * Fence is ucp_worker_fence.
 *
 * Owns the hot paths of the transport: each operation is one UCP call on
 * the context's worker plus a wait or a kept request, with the address
 * translation of ucx.h inlined. Never releases a non-blocking request
 * before a quiet has waited for it, never flushes or orders a worker other
 * than the context's, connects only through the cold lazy connect
 * (symm_ucx_conn_open_lazy), and never calls back into the API layer.
 */
#define _GNU_SOURCE

#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "runtime/pestatus.h"
#include "transport/ucx/ucx.h"

/* ---- requests -------------------------------------------------------- */

/* As every symm wait (ops/sync.h): spin polls, then on for spin_ns by the
 * clock (renewed by any event: *until), then yield. A yielding wait inside
 * a named blocking routine publishes it in the PE's status record, its
 * first yield the call, every one a heartbeat (inst->wait_slow): a get
 * from a peer that runs no progress blocks here, and the hang report must
 * say where. (Not outside one: nothing would clear the record's call.) */
static void backoff(ucx_state_t *u, unsigned *polls, unsigned events, uint64_t *until,
                    int *published)
{
    if (++*polls < (unsigned)u->inst->spin)
        return;
    uint64_t now = symm_now_ns();
    if (*polls == (unsigned)u->inst->spin || events != 0)
        *until = now + (uint64_t)u->inst->spin_ns;
    if (now < *until)
        return;
    void (*slow)(symm_instance_t *, int) = u->inst->wait_slow;
    if (slow != NULL && symm_ucx_host->doing_named()) {
        slow(u->inst, !*published);
        *published = 1;
    }
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
    int published = 0;
    /* Each turn tells the progress thread this PE is progressing itself,
     * so it runs every worker, not only wk's: the default worker serves
     * peers, and a flush of one worker can wait on a peer's endpoint to
     * another (UCX's reverse endpoints), so two PEs each waiting on one
     * worker would wait for each other. */
    (void)wk;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        __atomic_store_n(&u->activity, u->activity + 1, __ATOMIC_RELAXED);
        backoff(u, &polls, symm_ucx_progress_all(u), &until, &published);
    }
    ucp_request_free(req);
    return st;
}

/* Non-blocking operations keep their request until a quiet sees it
 * complete: UCX 1.13 does not reliably hold a worker flush back for
 * released software-emulated requests (seen here over tcp and shared
 * memory). Threads of one PE share a context's worker
 * (SHMEM_THREAD_MULTIPLE), so its requests are one ring, oldest first,
 * under a spin lock, and a request leaves it only complete: a quiet waits
 * until every request kept before it began has left. (Taking requests
 * off a list to wait for them let a quiet that found the list emptied by
 * another thread's quiet return while that thread still waited for them,
 * this thread's gets among them: test quiet_threads.) At PENDING_MAX
 * outstanding a new one waits for the ring's requests. (PENDING_MAX is in
 * ucx.h: workers are made in ucx_progress.c.) */

static void pending_lock(ucx_wk_t *wk)
{
    while (__atomic_exchange_n(&wk->pending_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void pending_unlock(ucx_wk_t *wk)
{
    __atomic_store_n(&wk->pending_lock, 0, __ATOMIC_RELEASE);
}

#define RETIRE_BATCH 64

/* Wait until every request of wk's ring up to (not including) `upto` has
 * completed, with progress; any thread may retire any request, freeing it
 * outside the lock. The first failure seen is returned. */
static ucs_status_t wait_kept(ucx_state_t *u, ucx_wk_t *wk, uint64_t upto)
{
    ucs_status_t st = UCS_OK;
    unsigned polls = 0;
    uint64_t until = 0;
    int published = 0;
    for (;;) {
        void *done[RETIRE_BATCH];
        int nd = 0;
        pending_lock(wk);
        while (wk->pend_head < wk->pend_tail && nd < RETIRE_BATCH) {
            void *req = wk->pending[wk->pend_head % PENDING_MAX];
            ucs_status_t r = ucp_request_check_status(req);
            if (r == UCS_INPROGRESS)
                break;
            if (r != UCS_OK && st == UCS_OK)
                st = r;
            done[nd++] = req;
            wk->pend_head++;
        }
        int left = wk->pend_head < upto;
        pending_unlock(wk);
        for (int i = 0; i < nd; i++)
            ucp_request_free(done[i]);
        if (!left)
            return st;
        if (nd == 0) {
            __atomic_store_n(&u->activity, u->activity + 1, __ATOMIC_RELAXED);
            backoff(u, &polls, symm_ucx_progress_all(u), &until, &published);
        }
    }
}

/* Every request kept so far by any thread. */
static ucs_status_t wait_pending(ucx_state_t *u, ucx_wk_t *wk)
{
    pending_lock(wk);
    uint64_t upto = wk->pend_tail;
    pending_unlock(wk);
    return wait_kept(u, wk, upto);
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
        if (wk->pend_tail - wk->pend_head < PENDING_MAX)
            break;
        uint64_t upto = wk->pend_tail;
        pending_unlock(wk);
        if ((st = wait_kept(u, wk, upto)) != UCS_OK) {
            ucp_request_free(req);
            return st;
        }
    }
    wk->pending[wk->pend_tail++ % PENDING_MAX] = req;
    pending_unlock(wk);
    return UCS_OK;
}

/* Whether a put of this worker may not have landed: its mark (a put
 * issued since a quiet took it), or a flush under way by a quiet that took
 * the mark, which may owe this thread's puts. That quiet counts itself in
 * flushing before it takes the mark, so a thread that finds the mark
 * taken and no flush counted knows the flush that covered its puts has
 * completed. take: clear the mark, and count this quiet's flush. */
static int puts_unflushed(ucx_wk_t *wk, int take)
{
    if (!take)
        return __atomic_load_n(&wk->unflushed, __ATOMIC_SEQ_CST) ||
               __atomic_load_n(&wk->flushing, __ATOMIC_SEQ_CST) > 0;
    __atomic_fetch_add(&wk->flushing, 1, __ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&wk->unflushed, 0, __ATOMIC_SEQ_CST))
        return 1;
    __atomic_fetch_sub(&wk->flushing, 1, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&wk->flushing, __ATOMIC_SEQ_CST) > 0 ? 2 : 0;
}

/* ---- wire-up and worker flushes ------------------------------------- */

/* Wait, with progress, until *count is 0. */
static void wait_zero(ucx_state_t *u, const int *count)
{
    unsigned polls = 0;
    uint64_t until = 0;
    int published = 0;
    while (__atomic_load_n(count, __ATOMIC_SEQ_CST) != 0)
        backoff(u, &polls, symm_ucx_progress_all(u), &until, &published);
}

/* UCX 1.13's tcp transport flushes an endpoint by sending an empty put
 * right behind what it sent last. Behind a new endpoint's wire-up request
 * that put crashes the peer (SIGSEGV in uct_tcp_iface_progress): the peer
 * answers the request by making its own endpoint inside its receive loop,
 * that endpoint takes over the socket and the unread rest of the buffer
 * (the put), and the loop then releases a buffer no longer its own
 * (uct_tcp_ep_progress_am_rx, unchanged in UCX's master). Read from the
 * core: the request (err_mode none: a second endpoint) then a put of 0
 * bytes to address 0. So a worker flush never runs while one of the
 * worker's endpoints is wiring up: a connect counts itself in wiring and
 * waits out the flushes under way (it goes first: later flushes wait for
 * it); a flush counts itself and backs off while a connect wires. Connects
 * on one worker are serial (connect_lock); a connect's wire-up ends with
 * its first contact, a read that needs the peer's answer to the request.
 * Endpoint flushes (shmem_pe_quiet) touch published endpoints only. */
void symm_ucx_wiring_begin(ucx_state_t *u, ucx_wk_t *wk)
{
    __atomic_fetch_add(&wk->wiring, 1, __ATOMIC_SEQ_CST);
    wait_zero(u, &wk->wflushes);
}

void symm_ucx_wiring_end(ucx_wk_t *wk) { __atomic_fetch_sub(&wk->wiring, 1, __ATOMIC_SEQ_CST); }

static void wflush_begin(ucx_state_t *u, ucx_wk_t *wk)
{
    for (;;) {
        __atomic_fetch_add(&wk->wflushes, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&wk->wiring, __ATOMIC_SEQ_CST) == 0)
            return;
        __atomic_fetch_sub(&wk->wflushes, 1, __ATOMIC_SEQ_CST);
        wait_zero(u, &wk->wiring);
    }
}

/* Complete everything wk has issued: kept requests, then a worker flush if
 * a put was issued since the last one (or another thread's flush of it is
 * under way). A put's request completes when its source is reusable, not
 * when the data has landed; every other operation is complete at the
 * target when its request is (gets and atomics, which all fetch) or
 * reports completion otherwise (notifications; collective messages, whose
 * senders wait for them), so a flush, a round trip per peer over
 * software-emulated transports, is for puts only. force: flush anyway
 * (finalize, heap growth). */
static ucs_status_t wk_quiet_if(ucx_state_t *u, ucx_wk_t *wk, int force)
{
    ucp_request_param_t prm = {.op_attr_mask = 0};
    ucs_status_t st = wait_pending(u, wk);
    int why = puts_unflushed(wk, 1);
    if (why == 0 && !force)
        return st;
    wflush_begin(u, wk);
    ucs_status_t f = symm_ucx_wait_req(u, wk, ucp_worker_flush_nbx(wk->worker, &prm));
    __atomic_fetch_sub(&wk->wflushes, 1, __ATOMIC_SEQ_CST);
    if (why == 1)
        __atomic_fetch_sub(&wk->flushing, 1, __ATOMIC_SEQ_CST);
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
    /* Marked once issued: a quiet that takes the mark flushes after it. */
    if (is_put && !__atomic_load_n(&wk->unflushed, __ATOMIC_RELAXED))
        __atomic_store_n(&wk->unflushed, 1, __ATOMIC_SEQ_CST);
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

/* Posts between two progress calls of the posting PE (a power of two). */
#define POST_PROGRESS 16

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
    /* A non-fetching add, and, or or xor to a network peer whose endpoint
     * has carried a fetching one goes as a post: one message, where a fetch over a
     * software-emulated transport (tcp) costs a request and a reply. It
     * is marked like a put, so the next quiet's worker flush completes it
     * at the target. (UCX 1.13's flush did not cover posts on a new
     * endpoint: the first atomic to each peer fetches and is waited for.)
     * To a mapped peer every atomic still fetches: its fence completes
     * them (net_amo_mapped below). So does one to a PE of this host
     * reached through UCX's shared memory (SYMM_TRANSPORT=ucx): posted
     * there, adds were missing after the quiet and barrier that followed
     * them (remote_ucx.np4 under load, 2 runs in 40), while over tcp none
     * was (0 in 30). */
    ucx_conn_t *c = conn_of(u, wk, pe);
    int postable = opc == UCP_ATOMIC_OP_ADD || opc == UCP_ATOMIC_OP_AND ||
                   opc == UCP_ATOMIC_OP_OR || opc == UCP_ATOMIC_OP_XOR; /* not set (a swap) */
    if (result == NULL && postable && !ctx->inst->peers[pe].same_node &&
        __atomic_load_n(&c->amo_wired, __ATOMIC_ACQUIRE)) {
        ucs_status_ptr_t req = ucp_atomic_op_nbx(ep, opc, &value, 1, raddr, rkey, &prm);
        if (!__atomic_load_n(&wk->unflushed, __ATOMIC_RELAXED))
            __atomic_store_n(&wk->unflushed, 1, __ATOMIC_SEQ_CST);
        /* A PE that only posts never waits, so nothing would run the
         * target side of its peers' atomics: run it every few posts, and
         * count it as the PE's own progress, so the progress thread keeps
         * away rather than contend for the worker between the posts. */
        if ((__atomic_add_fetch(&wk->posts, 1, __ATOMIC_RELAXED) & (POST_PROGRESS - 1)) == 0)
            symm_ucx_progress(ctx->inst);
        return to_symm(u, symm_ucx_keep_req(u, wk, req), pe, "atomic");
    }
    int wire = result == NULL && postable && !ctx->inst->peers[pe].same_node;
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
        keep = !wire;
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
    /* Kept, to a PE whose loads and stores are the CPU's: the next fence on
     * ctx completes it (symm_fence). Marked after the issue. */
    if (keep && ctx->inst->peers[pe].mapped)
        __atomic_store_n(&ctx->net_amo_mapped, 1, __ATOMIC_RELEASE);
    if (st == UCS_OK && result != NULL && prm.reply_buffer == &reply)
        memcpy(result, &reply, size);
    if (st == UCS_OK && wire)
        __atomic_store_n(&c->amo_wired, 1, __ATOMIC_RELEASE);
    return to_symm(u, st, pe, "atomic");
}

/* ---- a failure report's accesses --------------------------------------- */

/* Issue one access of a report on wk: a get, or a 32-bit compare-and-swap
 * (UCP: buffer holds the compare value, the reply buffer the new value on
 * the way in and the old one on the way out). */
static void peek_issue(ucx_state_t *u, ucx_wk_t *wk, symm_peek_t *q)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    q->req = NULL;
    if (symm_ucx_conn_try(u, wk, q->pe) == NULL) {
        q->rc = SYMM_ERR_PEER; /* never fatal: a report may be under way */
        return;
    }
    ucp_ep_h ep = peer_target(u, wk, q->seg, q->off, q->pe, &raddr, &rkey);
    ucs_status_ptr_t r;
    if (q->n > 0) {
        ucp_request_param_t prm = {.op_attr_mask = 0};
        r = ucp_get_nbx(ep, q->buf, q->n, raddr, rkey, &prm);
    } else {
        ucp_request_param_t prm = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER,
            .datatype = ucp_dt_make_contig(sizeof(uint32_t)),
            .reply_buffer = q->buf};
        memcpy(q->buf, &q->desired, sizeof(uint32_t));
        r = ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_CSWAP, &q->expect, 1, raddr, rkey, &prm);
    }
    q->req = NULL;
    if (r == NULL) {
        q->rc = SYMM_OK;
    } else if (UCS_PTR_IS_ERR(r)) {
        q->rc = SYMM_ERR_PEER;
    } else {
        q->rc = SYMM_ERR_TIMEOUT;
        q->req = r;
    }
}

/* On the default worker, which any thread may use (UCS_THREAD_MODE_MULTI),
 * without its request tracking: a report's accesses are not the program's
 * and no quiet waits for them. Polled with progress until done or
 * timeout_ms; a request still in flight then is released (UCX frees it
 * when it completes) and its rc stays SYMM_ERR_TIMEOUT. */
int symm_ucx_peek(symm_instance_t *s, symm_peek_t *reqs, int n, unsigned timeout_ms)
{
    ucx_state_t *u = state_of(s);
    if (u == NULL || u->dflt.worker == NULL || u->closing) {
        for (int i = 0; i < n; i++)
            reqs[i].rc = SYMM_ERR_PEER;
        return SYMM_ERR_UNSUPPORTED;
    }
    int left = 0;
    for (int i = 0; i < n; i++) {
        peek_issue(u, &u->dflt, &reqs[i]);
        left += reqs[i].req != NULL;
    }
    uint64_t end = symm_now_ns() + (uint64_t)timeout_ms * 1000000u;
    while (left > 0) {
        unsigned events = symm_ucx_progress_all(u);
        for (int i = 0; i < n; i++) {
            symm_peek_t *q = &reqs[i];
            ucs_status_t st = q->req != NULL ? ucp_request_check_status(q->req) : UCS_INPROGRESS;
            if (st == UCS_INPROGRESS)
                continue;
            ucp_request_free(q->req);
            q->req = NULL;
            q->rc = st == UCS_OK ? SYMM_OK : SYMM_ERR_PEER;
            left--;
        }
        if (left == 0 || symm_now_ns() >= end)
            break;
        if (events == 0)
            usleep(100);
    }
    for (int i = 0; i < n; i++)
        if (reqs[i].req != NULL) {
            ucp_request_free(reqs[i].req);
            reqs[i].req = NULL;
        }
    return SYMM_OK;
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
    ucs_status_t st = wait_pending(u, wk);
    if (!puts_unflushed(wk, 0))
        return to_symm(u, st, ctx->inst->my_pe, "quiet");
    ucp_request_param_t prm = {.op_attr_mask = 0};
    for (size_t i = 0; i < n && st == UCS_OK; i++) {
        ucp_ep_h ep = __atomic_load_n(&wk->conn[pes[i]].ep, __ATOMIC_ACQUIRE);
        if (ep != NULL)
            st = symm_ucx_wait_req(u, wk, ucp_ep_flush_nbx(ep, &prm));
    }
    return to_symm(u, st, ctx->inst->my_pe, "quiet");
}
