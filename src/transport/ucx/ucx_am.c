/*
 * ucx_am.c - notify and tagged messages to unmapped peers, for collectives,
 * and their handlers on the target.
 *
 * Collectives signal and move blocks with two active messages handled on
 * the target's CPU: notify (add to a word) and tagged messages (kept on
 * the target under their tag until it takes them, transport.h msg_*).
 *
 * Owns the message formats, the handlers and their registration at init,
 * and the table of messages that arrived and were not taken yet. The
 * handlers run inside UCX progress on the target's default worker: they
 * never wait for a request, never run progress, never write user memory
 * (notify touches only symmetric words; a message naming any other ends
 * the job).
 */
#define _GNU_SOURCE

#include <stdlib.h>
#include <string.h>

#include "transport/ucx/ucx.h"

/* ---- notifications --------------------------------------------------- */

/* Barriers signal with an active message to the peer's default worker,
 * whose handler adds value to a 64-bit word: where UCX emulates RMA and
 * atomics in software (tcp) a put or atomic costs a request and a reply, a
 * notification one message, and its add is atomic against the owner's CPU
 * atomics on the same word, which a NIC atomic is not. */
#define UCX_AM_NOTIFY 1
#define UCX_AM_MSG 3

typedef struct ucx_am_hdr {
    uint64_t off;       /* the word */
    uint64_t value;     /* what to add */
    uint32_t seg;       /* segment of off */
    uint32_t from;
} ucx_am_hdr_t;

/* Local address of [off, off+len) in segment seg, or NULL if outside. */
static void *local_range(const symm_instance_t *s, uint32_t seg, uint64_t off, size_t len)
{
    size_t size = symm_heap_size(s);
    if (seg == SYMM_SEG_HEAP)
        return off <= size && len <= size - off ? (char *)s->heap_base + off : NULL;
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

static int am_register(ucx_state_t *u, unsigned id, ucp_am_recv_callback_t cb, uint32_t flags)
{
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = id,
        .flags = UCP_AM_FLAG_WHOLE_MSG | flags,
        .cb = cb,
        .arg = u,
    };
    ucs_status_t st = ucp_worker_set_am_recv_handler(u->dflt.worker, &hp);
    return st == UCS_OK ? SYMM_OK : symm_ucx_fail("registering a message handler", st);
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

/* ---- tagged messages ---------------------------------------------------- */

/* A message arrived and kept until its receiver takes it. Eager data stays
 * in UCX's buffer (held, released by the take) where UCX lets it persist,
 * else it is copied here; a rendezvous keeps UCX's descriptor, and the take
 * receives straight into the final buffer: the sender's request completes
 * only then, so a sender waiting for it waits for the receiver. */
enum { MSG_HELD, MSG_COPY, MSG_RNDV };

typedef struct ucx_msg {
    struct ucx_msg *next;
    symm_msg_tag_t tag;
    uint32_t from;
    int kind;
    size_t len;
    void *data;
} ucx_msg_t;

typedef struct ucx_msg_hdr {
    uint64_t group, seq;
    uint32_t from, pad;
} ucx_msg_hdr_t;

/* A send in flight (UCX 1.13 reads the header until the send completes),
 * or a receive in flight (the header unused): what msg_wait waits for. */
typedef struct ucx_send {
    ucx_msg_hdr_t h;
    void *req;
    int pe;
} ucx_send_t;

/* Entries made at init: a collective's messages from every peer at 64 PEs
 * without a malloc in the handler; more are made as needed and kept. */
#define MSG_PREALLOC 64

static ucx_msg_t *msg_entry_new(ucx_state_t *u)
{
    ucx_msg_t *e = u->msg_free;
    if (e != NULL) {
        u->msg_free = e->next;
        return e;
    }
    e = malloc(sizeof(*e));
    if (e == NULL)
        symm_fatal("ucx", "out of memory for an arrived message's entry");
    return e;
}

static ucs_status_t msg_cb(void *arg, const void *header, size_t header_len, void *data,
                           size_t len, const ucp_am_recv_param_t *param)
{
    ucx_state_t *u = arg;
    ucx_msg_hdr_t h;
    if (header_len != sizeof(h))
        symm_fatal("ucx", "malformed collective message (%zu byte header)", header_len);
    memcpy(&h, header, sizeof(h));
    int kind = MSG_HELD;
    ucs_status_t ret = UCS_INPROGRESS;
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        kind = MSG_RNDV;
    } else if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA)) {
        void *copy = malloc(len != 0 ? len : 1);
        if (copy == NULL)
            symm_fatal("ucx", "out of memory for a %zu-byte message from PE %u", len, h.from);
        if (len != 0)
            memcpy(copy, data, len);
        data = copy;
        kind = MSG_COPY;
        ret = UCS_OK;
    }
    pthread_mutex_lock(&u->msg_lock);
    ucx_msg_t *e = msg_entry_new(u);
    *e = (ucx_msg_t){.next = u->msgs, .tag = {h.group, h.seq}, .from = h.from, .kind = kind,
                     .len = len, .data = data};
    u->msgs = e;
    pthread_mutex_unlock(&u->msg_lock);
    return ret;
}

/* Where the entry of (tag, from) is linked, or NULL. Under msg_lock. */
static ucx_msg_t **msg_find(ucx_state_t *u, const symm_msg_tag_t *tag, int from)
{
    for (ucx_msg_t **p = &u->msgs; *p != NULL; p = &(*p)->next)
        if ((*p)->tag.seq == tag->seq && (*p)->tag.group == tag->group &&
            (*p)->from == (uint32_t)from)
            return p;
    return NULL;
}

int symm_ucx_msg_send(symm_instance_t *s, int pe, const symm_msg_tag_t *tag, const void *src,
                      size_t n, int how, void **handle)
{
    ucx_state_t *u = state_of(s);
    ucx_wk_t *wk = &u->dflt;
    *handle = NULL;
    ucp_ep_h ep = conn_of(u, wk, pe)->ep;
    /* On the second endpoint, by rendezvous whatever how says: its one
     * zero-copy write is why it exists (symm_ucx_bulk_ep). */
    if (n > s->cfg.coll.eager_max) {
        ucp_ep_h bulk = symm_ucx_bulk_ep(u, pe);
        if (bulk != ep) {
            ep = bulk;
            how = SYMM_MSG_SYNC;
        } else if (s->peers[pe].same_node) {
            /* An endpoint to this host has no peer-failure handling either
             * (conn_open): its rendezvous is zero-copy (tcp: one write read
             * into place; shared memory: one copy), where an eager block
             * is copied into UCX's buffers, assembled and copied out. */
            how = SYMM_MSG_SYNC;
        }
    }
    ucx_send_t *r = malloc(sizeof(*r));
    if (r == NULL)
        return SYMM_ERR_NOMEM;
    r->h = (ucx_msg_hdr_t){.group = tag->group, .seq = tag->seq, .from = (uint32_t)s->my_pe};
    r->pe = pe;
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                               .flags = how == SYMM_MSG_SYNC && n != 0 ? UCP_AM_SEND_FLAG_RNDV
                                        : how == SYMM_MSG_EAGER ? UCP_AM_SEND_FLAG_EAGER
                                                                : 0};
    ucs_status_ptr_t req = ucp_am_send_nbx(ep, UCX_AM_MSG, &r->h, sizeof(r->h), src, n, &prm);
    if (req == NULL || UCS_PTR_IS_ERR(req)) {
        free(r);
        return to_symm(u, UCS_PTR_STATUS(req), pe, "collective message");
    }
    r->req = req;
    *handle = r;
    return SYMM_OK;
}

int symm_ucx_msg_wait(symm_instance_t *s, void *handle)
{
    ucx_state_t *u = state_of(s);
    ucx_send_t *r = handle;
    if (r == NULL)
        return SYMM_OK;
    ucs_status_t st = symm_ucx_wait_req(u, &u->dflt, r->req);
    int pe = r->pe;
    free(r);
    return to_symm(u, st, pe, "collective message");
}

int symm_ucx_msg_probe(symm_instance_t *s, const symm_msg_tag_t *tag, int from, size_t *len)
{
    ucx_state_t *u = state_of(s);
    pthread_mutex_lock(&u->msg_lock);
    ucx_msg_t **p = msg_find(u, tag, from);
    if (p != NULL)
        *len = (*p)->len;
    pthread_mutex_unlock(&u->msg_lock);
    return p != NULL;
}

int symm_ucx_msg_take(symm_instance_t *s, const symm_msg_tag_t *tag, int from, void *dst,
                      size_t len, void **handle)
{
    ucx_state_t *u = state_of(s);
    *handle = NULL;
    /* Unlinked under the table's lock, received outside it: the handler
     * takes the lock inside UCX's worker lock, so UCX is never called with
     * it held. */
    pthread_mutex_lock(&u->msg_lock);
    ucx_msg_t **p = msg_find(u, tag, from), *e = p != NULL ? *p : NULL;
    if (e != NULL)
        *p = e->next;
    pthread_mutex_unlock(&u->msg_lock);
    if (e == NULL || e->len != len)
        symm_fatal("ucx", "taking a %zu-byte collective message from PE %d that %s", len, from,
                   e == NULL ? "has not arrived" : "has another length");
    ucs_status_t st = UCS_OK;
    if (e->kind == MSG_RNDV) {
        /* The descriptor is consumed by the call: the entry is free once
         * the receive is posted; the data lands in dst by msg_wait. */
        ucp_request_param_t prm = {.op_attr_mask = 0};
        ucs_status_ptr_t req = ucp_am_recv_data_nbx(u->dflt.worker, e->data, dst, len, &prm);
        if (UCS_PTR_IS_PTR(req)) {
            ucx_send_t *r = malloc(sizeof(*r));
            if (r == NULL)
                symm_fatal("ucx", "out of memory for a receive's handle");
            r->req = req;
            r->pe = from;
            *handle = r;
        } else {
            st = UCS_PTR_STATUS(req);
        }
    } else {
        if (len != 0)
            memcpy(dst, e->data, len);
        if (e->kind == MSG_HELD)
            ucp_am_data_release(u->dflt.worker, e->data);
        else
            free(e->data);
    }
    pthread_mutex_lock(&u->msg_lock);
    e->next = u->msg_free;
    u->msg_free = e;
    pthread_mutex_unlock(&u->msg_lock);
    return to_symm(u, st, from, "receiving a collective message");
}

/* ---- registration ------------------------------------------------------ */

/* The handlers, on the default worker (every peer's endpoints lead there). */
int symm_ucx_am_init(ucx_state_t *u)
{
    pthread_mutex_init(&u->msg_lock, NULL);
    u->msg_ready = 1;
    for (int i = 0; i < MSG_PREALLOC; i++) {
        ucx_msg_t *e = malloc(sizeof(*e));
        if (e == NULL)
            return SYMM_ERR_NOMEM;
        e->next = u->msg_free;
        u->msg_free = e;
    }
    int rc;
    if ((rc = am_register(u, UCX_AM_NOTIFY, notify_cb, 0)) != SYMM_OK ||
        (rc = am_register(u, UCX_AM_MSG, msg_cb, UCP_AM_FLAG_PERSISTENT_DATA)) != SYMM_OK)
        return rc;
    return SYMM_OK;
}

/* Forget the table (finalize, before the default worker goes): every
 * message was taken by the collective it belongs to, so what is left is
 * from a job that ends early. */
void symm_ucx_msg_fini(ucx_state_t *u)
{
    if (!u->msg_ready)
        return;
    for (int list = 0; list < 2; list++) {
        ucx_msg_t *e = list == 0 ? u->msgs : u->msg_free;
        while (e != NULL) {
            ucx_msg_t *next = e->next;
            if (list == 0 && e->kind == MSG_COPY)
                free(e->data);
            else if (list == 0 && e->kind == MSG_HELD)
                ucp_am_data_release(u->dflt.worker, e->data);
            free(e);
            e = next;
        }
    }
    u->msgs = u->msg_free = NULL;
    pthread_mutex_destroy(&u->msg_lock);
    u->msg_ready = 0;
}
