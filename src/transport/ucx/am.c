/*
 * am.c - notify and push to unmapped peers, for collectives, and their
 * handlers on the target.
 *
 * Collectives signal and move blocks with two active messages handled on
 * the target's CPU: notify (add to a word) and push (data into place, then
 * count its arrival). Their requests are tracked as rma.c's are: notify
 * waits, push is kept until quiet.
 *
 * Owns the message format (ucx_am_hdr_t), the handlers and their
 * registration at init. The handlers run inside UCX progress on the
 * target's default worker: they never wait for a request, never run
 * progress, and never touch memory outside the symmetric segments (a
 * message naming any ends the job).
 */
#define _GNU_SOURCE
#ifdef SYMM_HAVE_UCX

#include <stdlib.h>
#include <string.h>

#include "transport/ucx/ucx.h"

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
    return st == UCS_OK ? SYMM_OK : symm_ucx_fail("registering a message handler", st);
}

/* The handlers, on the default worker (every peer's endpoints lead there). */
int symm_ucx_am_init(ucx_state_t *u)
{
    int rc;
    if ((rc = am_register(u, UCX_AM_NOTIFY, notify_cb)) != SYMM_OK ||
        (rc = am_register(u, UCX_AM_PUSH, push_cb)) != SYMM_OK)
        return rc;
    return SYMM_OK;
}

int symm_ucx_notify(struct symm_ctx *ctx, int seg, size_t off, uint64_t value, int pe)
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
    return to_symm(u, symm_ucx_wait_req(u, wk, req), pe, "notify");
}

static void push_sent_cb(void *req, ucs_status_t st, void *hdr)
{
    (void)req;
    (void)st; /* reported by the quiet that collects the request */
    free(hdr);
}

int symm_ucx_push(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n,
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
    return to_symm(u, symm_ucx_keep_req(u, wk, req), pe, "push");
}

#endif
