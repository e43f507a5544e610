/*
 * ucx.c - the UCX network transport's life: init, finalize, connections to
 * peers, heap growth, and its ops table (symm_ucx_ops).
 *
 * At init: one UCP context, a default worker per instance (plus one per
 * context, made on shmem_ctx_create); the worker's address, my heap base,
 * the starts of my global-data ranges and the packed rkeys of both segments
 * go to every PE in one bootstrap allgather; endpoints are created and
 * wired up on first use (peer_target; eagerly at init only without a
 * progress thread, see connect_peers). A symmetric address is (segment, offset)
 * in the core; here it becomes the peer's virtual address plus its rkey
 * (peer_target in ucx.h).
 *
 * A failed endpoint (peer died, link down) ends the job naming the PE.
 *
 * The exchange also carries what kind of atomics each PE's UCX uses
 * (symm_ucx_amo_probe): every PE ORs them and applies one rule (runtime/atomics.h),
 * so all agree whether the network is the one atomic agent (SYMM_AMO_NET).
 * Then the default worker connects to every PE, itself and mapped peers
 * included, since every atomic goes through it.
 *
 * Owns the UCP context, the exchange of addresses and keys, the endpoints
 * and their rkeys. Never on the put/get/AMO paths but for the cold lazy
 * connect on a worker's first use of a peer (symm_ucx_conn_open_lazy). The
 * operations are in ucx_rma.c and ucx_am.c, the workers in ucx_progress.c,
 * the plugin's entry in ucx_plugin.c.
 */
#define _GNU_SOURCE
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYMM_HAS_ASAN 1
#endif
#endif
#ifndef SYMM_HAS_ASAN
#define SYMM_HAS_ASAN 0
#endif

#include "boot/boot.h"
#include "runtime/atomics.h"
#include "runtime/fault.h"
#include "runtime/pestatus.h"
#include "transport/ucx/ucx.h"

/* ---- errors ---------------------------------------------------------- */

#define PEER_ERROR_GRACE 10 /* tenths of a second */

static void peer_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    ucx_peer_t *p = arg;
    (void)ep;
    /* A thread writing the job's report (core/watch.c) that runs progress
     * for its reads: the report ends the PE, and the failed read says
     * the peer is unreachable. */
    if (!p->u->closing && !symm_ucx_host->reporting())
        symm_ucx_peer_lost(p->u, p->pe, status);
}

/* The report of a lost peer, from its endpoint's error callback or from a
 * failed operation on an endpoint without one (symm_ucx_bulk_ep): either
 * may come first. */
void symm_ucx_peer_lost(ucx_state_t *u, int pe, ucs_status_t status)
{
    ucx_peer_t *p = &u->peers[pe];
    /* A PE of this node is reporting the failure this is a consequence of:
     * wait for it to end this PE (core/watch.c), at most a few seconds.
     * A peer on another node: wait a second first in any case. Its node's
     * survivors report it with what every PE was doing, and a PE here that
     * ended at once would be a lost connection to them too, whose report
     * would then name this PE instead (netns_kill saw it happen). A
     * peer on this node is this node's watcher's to report, but a launcher
     * may end this PE before that report is out: say it now. */
    int grace = p->u->inst->peers[p->pe].same_node ? 0 : PEER_ERROR_GRACE;
    for (int i = 0; i < 50 && (i < grace || symm_pe_report_claimed(p->u->inst)); i++) {
        /* The job's report is another PE's, out or coming (ops/fail_report.h):
         * a peer that ended after it is its consequence. */
        if (symm_ucx_host->report_elsewhere(p->u->inst))
            symm_pe_end(p->u->inst, symm_pe_report_status(p->u->inst, 1), 0);
        usleep(100000);
    }
    if (symm_ucx_host->report_elsewhere(p->u->inst))
        symm_pe_end(p->u->inst, symm_pe_report_status(p->u->inst, 1), 0);
    symm_fatal("ucx", "PE %d (%s, pid %d) died or became unreachable: connection lost (%s)",
               p->pe, p->host, (int)p->pid, ucs_status_string(status));
}

int symm_ucx_fail(const char *what, ucs_status_t st)
{
    symm_error("shmem_init", "UCX %s: %s", what, ucs_status_string(st));
    return SYMM_ERR_SYS;
}

/* ---- connections ------------------------------------------------------ */

/* Drop a connection's rkeys and close its endpoint. force: at finalize,
 * when every peer is closing too (after a quiet of every worker and a
 * barrier nothing is in flight): closed without a flush, to PEs of this
 * host too. A flushed close waits for the peer's worker it reached, which
 * a peer that closes its own workers one by one no longer progresses:
 * finalize hung so (the stress tester: contexts reaching same-host peers
 * under SYMM_ATOMICS=network on emulated nodes). Otherwise (a context destroyed while the
 * job runs) the close is flushed, so the peer drops the endpoint UCX made
 * back to this worker instead of finding it refused. */
static void conn_release(ucx_state_t *u, ucx_wk_t *wk, ucx_conn_t *c, int force)
{
    if (c->heap_rkey)
        ucp_rkey_destroy(c->heap_rkey);
    for (int i = 0; i < SYMM_UCX_RETIRED_KEYS; i++)
        if (c->retired[i])
            ucp_rkey_destroy(c->retired[i]);
    for (int i = 0; i < SYMM_MAX_DATA_RANGES; i++)
        if (c->data_rkey[i])
            ucp_rkey_destroy(c->data_rkey[i]);
    for (int i = 0; c->reg_rkey != NULL && i < SYMM_MAX_REGIONS; i++)
        if (c->reg_rkey[i])
            ucp_rkey_destroy(c->reg_rkey[i]);
    free(c->reg_rkey);
    if (c->bulk) {
        ucp_request_param_t prm = {.op_attr_mask = 0};
        symm_ucx_wait_req(u, wk, ucp_ep_close_nbx(c->bulk, &prm));
    }
    if (c->ep) {
        ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                   .flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0};
        symm_ucx_wait_req(u, wk, ucp_ep_close_nbx(c->ep, &prm));
    }
    memset(c, 0, sizeof(*c));
}

void symm_ucx_conn_close(ucx_state_t *u, ucx_wk_t *wk, int pe, int force)
{
    conn_release(u, wk, &wk->conn[pe], force);
}

static int conn_rekey(ucx_state_t *u, ucx_wk_t *wk, int pe);

/* Why a connection could not be made: the step and UCX's status. */
typedef struct conn_fail {
    const char *step;
    ucs_status_t st;
} conn_fail_t;

static int conn_failed(ucx_peer_t *p, conn_fail_t *why, const char *step, ucs_status_t st)
{
    why->step = step;
    why->st = st;
    __atomic_store_n(&p->unreachable, 1, __ATOMIC_RELEASE);
    return SYMM_ERR_SYS;
}

/* The one line for a peer this PE cannot reach; where the user chose UCX's
 * transports it names that choice, the usual cause (shared memory only,
 * between nodes). */
static void conn_fail_text(ucx_state_t *u, int pe, const conn_fail_t *why, char *buf, size_t len)
{
    const ucx_peer_t *p = &u->peers[pe];
    const char *tls = getenv("UCX_TLS");
    int n = snprintf(buf, len, "cannot reach PE %d (pid %d on %s, %s node): %s: %s", pe, p->pid,
                     p->host, u->inst->peers[pe].same_node ? "this" : "another", why->step,
                     ucs_status_string(why->st));
    if (tls != NULL && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; UCX_TLS=%s: no transport in it reaches that PE%s",
                 tls, u->inst->peers[pe].same_node ? "" : " (shared memory does not cross nodes)");
}

/* Finish an endpoint's wire-up with a blocking read of one word: UCX 1.13
 * queues operations on an endpoint still wiring up, and a worker flush
 * issued then can return before they reach the peer (lost atomics were
 * seen here), or crash the peer over tcp (symm_ucx_wiring_begin). The read
 * goes out only once the peer has answered the wire-up request (over tcp
 * a read is a message that needs the peer's endpoint id). The word is the
 * start of the peer's internal scratch. The peer answers from its
 * progress thread or its own wait loops (see connect_peers): this wait
 * runs every worker of this PE, so two PEs connecting to each other at
 * once each serve the other's wire-up (no lock of ours is taken by
 * progress, nor by the message handlers). */
static ucs_status_t first_contact(ucx_state_t *u, ucx_wk_t *wk, ucp_ep_h ep, int pe,
                                  ucp_rkey_h rkey)
{
    uint64_t word;
    ucp_request_param_t prm = {.op_attr_mask = 0};
    return symm_ucx_wait_req(u, wk, ucp_get_nbx(ep, &word, sizeof(word), u->peers[pe].heap_base,
                                                rkey, &prm));
}

/* Create wk's endpoint to pe and unpack its keys into c. */
static int conn_create(ucx_state_t *u, ucx_wk_t *wk, int pe, ucx_conn_t *c, const void *packed,
                       conn_fail_t *why)
{
    ucx_peer_t *p = &u->peers[pe];
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
    if ((st = ucp_ep_create(wk->worker, &ep, &c->ep)) != UCS_OK)
        return conn_failed(p, why, "endpoint", st);
    st = ucp_ep_rkey_unpack(c->ep, packed, &c->heap_rkey);
    for (int i = 0; st == UCS_OK && i < u->inst->n_data_ranges; i++)
        st = ucp_ep_rkey_unpack(c->ep, p->data_rkey[i], &c->data_rkey[i]);
    if (st != UCS_OK) {
        conn_release(u, wk, c, 1);
        return conn_failed(p, why, "memory keys", st);
    }
    if ((st = first_contact(u, wk, c->ep, pe, c->heap_rkey)) != UCS_OK) {
        conn_release(u, wk, c, 1);
        return conn_failed(p, why, "first contact", st);
    }
    return SYMM_OK;
}

/* Endpoint from wk to pe's default worker and the rkeys for it, made on
 * first use (peer_target), for the default worker as for a context's: a
 * job of N PEs that talks to few peers then pays for few endpoints, and
 * init does no work per peer. Called under wk->connect_lock. The connection
 * is published (ep stored last, with release) only once wired up, so
 * another thread that finds ep set may use it at once. alone: no worker
 * flush of wk meanwhile (symm_ucx_wiring_begin); a failure report's
 * connect, made from any wait, does without. */
static int conn_open(ucx_state_t *u, ucx_wk_t *wk, int pe, int alone, conn_fail_t *why)
{
    ucx_peer_t *p = &u->peers[pe];
    ucx_conn_t c = {0};
    const void *packed = __atomic_load_n(&p->heap_rkey, __ATOMIC_ACQUIRE);
    if (alone)
        symm_ucx_wiring_begin(u, wk);
    int rc = conn_create(u, wk, pe, &c, packed, why);
    if (alone)
        symm_ucx_wiring_end(wk);
    if (rc != SYMM_OK)
        return rc;
    ucx_conn_t *dst = &wk->conn[pe];
    dst->heap_rkey = c.heap_rkey;
    memcpy(dst->data_rkey, c.data_rkey, sizeof(c.data_rkey));
    __atomic_store_n(&dst->ep, c.ep, __ATOMIC_RELEASE);
    /* Another thread's heap growth (shmem_malloc under THREAD_MULTIPLE) may
     * have swapped the keys meanwhile and skipped this connection, not yet
     * published: then it takes the new key now, after that growth. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&p->heap_rkey, __ATOMIC_ACQUIRE) != packed) {
        pthread_mutex_lock(&u->ctx_lock);
        rc = __atomic_load_n(&p->heap_rkey, __ATOMIC_ACQUIRE) != packed ? conn_rekey(u, wk, pe)
                                                                         : SYMM_OK;
        pthread_mutex_unlock(&u->ctx_lock);
    }
    return rc;
}

/* A second endpoint to a PE on another node, made on the first large
 * collective message to it, without UCX's peer-failure handling: under
 * UCP_ERR_HANDLING_MODE_PEER UCX 1.13 sends a rendezvous over tcp as 64 KiB
 * active messages that the receiver copies out of its buffers, without it
 * as one zero-copy write the receiver reads into place, which is faster
 * where TCP sends a large write at once (reno). Not under BBR, whose pacing
 * spreads the one large write and makes it slower (docs/performance.md);
 * symm_ucx_bulk_rule decides (u->bulk). The first endpoint, which every PE
 * pair also has (a message first waits for conn_of), still reports a lost
 * peer (peer_error); a transfer cut short on this one fails its request,
 * which to_symm reports the same way (symm_ucx_peer_lost). Nothing but
 * messages uses it: it keeps no keys. Everything sent on it goes by
 * rendezvous (ucx_am.c): the one zero-copy write is its point (sent eagerly, a
 * large message gains nothing over the first endpoint). Where it is used:
 * symm_ucx_bulk_rule. */
ucp_ep_h symm_ucx_bulk_ep(ucx_state_t *u, int pe)
{
    ucx_wk_t *wk = &u->dflt;
    ucx_conn_t *c = conn_of(u, wk, pe);
    ucp_ep_h b = __atomic_load_n(&c->bulk, __ATOMIC_ACQUIRE);
    if (__builtin_expect(b != NULL, 1))
        return b;
    if (!u->bulk || u->inst->peers[pe].same_node)
        return c->ep;
    pthread_mutex_lock(&wk->connect_lock);
    if ((b = c->bulk) == NULL) {
        ucp_ep_params_t ep = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
            .address = (const ucp_address_t *)u->peers[pe].addr,
            .err_mode = UCP_ERR_HANDLING_MODE_NONE,
        };
        const char *step = "endpoint";
        ucp_rkey_h key = NULL;
        /* Wired up like the first (first_contact), with a key of its own
         * for that one read. */
        symm_ucx_wiring_begin(u, wk);
        ucs_status_t st = ucp_ep_create(wk->worker, &ep, &b);
        if (st == UCS_OK) {
            step = "first contact";
            const void *packed = __atomic_load_n(&u->peers[pe].heap_rkey, __ATOMIC_ACQUIRE);
            if ((st = ucp_ep_rkey_unpack(b, packed, &key)) == UCS_OK) {
                st = first_contact(u, wk, b, pe, key);
                ucp_rkey_destroy(key);
            }
        }
        symm_ucx_wiring_end(wk);
        if (st != UCS_OK) {
            pthread_mutex_unlock(&wk->connect_lock);
            symm_fatal("ucx", "second endpoint to PE %d: %s: %s", pe, step, ucs_status_string(st));
        }
        __atomic_store_n(&c->bulk, b, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&wk->connect_lock);
    return b;
}

/* A lazy connect's failure ends the job, outside the lock: symm_fatal's
 * report reaches other nodes through this worker's connections. */
void __attribute__((noinline)) symm_ucx_conn_open_lazy(ucx_state_t *u, ucx_wk_t *wk, int pe)
{
    conn_fail_t why = {0};
    pthread_mutex_lock(&wk->connect_lock);
    int rc = __atomic_load_n(&wk->conn[pe].ep, __ATOMIC_ACQUIRE) == NULL
                 ? conn_open(u, wk, pe, 1, &why) : SYMM_OK;
    pthread_mutex_unlock(&wk->connect_lock);
    if (rc != SYMM_OK) {
        char text[256];
        conn_fail_text(u, pe, &why, text, sizeof(text));
        symm_fatal("ucx", "%s", text);
    }
}

/* A failure report's connect: never fatal, and none to a peer already
 * found unreachable (its connect would fail again, and UCX say so again). */
ucx_conn_t *symm_ucx_conn_try(ucx_state_t *u, ucx_wk_t *wk, int pe)
{
    ucx_conn_t *c = &wk->conn[pe];
    if (__atomic_load_n(&c->ep, __ATOMIC_ACQUIRE) != NULL)
        return c;
    if (__atomic_load_n(&u->peers[pe].unreachable, __ATOMIC_ACQUIRE))
        return NULL;
    conn_fail_t why = {0};
    pthread_mutex_lock(&wk->connect_lock);
    int rc = c->ep == NULL ? conn_open(u, wk, pe, 0, &why) : SYMM_OK;
    pthread_mutex_unlock(&wk->connect_lock);
    return rc == SYMM_OK ? c : NULL;
}

ucp_rkey_h __attribute__((noinline)) symm_ucx_region_rkey_lazy(ucx_state_t *u, ucx_wk_t *wk,
                                                               int pe, int id)
{
    ucx_conn_t *c = &wk->conn[pe];
    ucx_region_t *r = &u->regions[id];
    ucs_status_t st = UCS_OK;
    pthread_mutex_lock(&wk->connect_lock);
    ucp_rkey_h *keys = c->reg_rkey, k = NULL;
    if (keys == NULL && (keys = calloc(SYMM_MAX_REGIONS, sizeof(*keys))) != NULL)
        __atomic_store_n(&c->reg_rkey, keys, __ATOMIC_RELEASE);
    if (keys != NULL && (k = keys[id]) == NULL &&
        (st = ucp_ep_rkey_unpack(c->ep, r->keys + (size_t)pe * r->stride, &k)) == UCS_OK)
        __atomic_store_n(&keys[id], k, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&wk->connect_lock);
    if (keys == NULL || st != UCS_OK)
        symm_fatal("ucx", "memory key of PE %d's registered region %d: %s", pe, id,
                   keys == NULL ? "no memory" : ucs_status_string(st));
    return k;
}

/* ---- setup ----------------------------------------------------------- */

/* The header every PE publishes at init; followed by the worker address
 * and the packed rkeys, lengths given here. */
typedef struct ucx_blob_hdr {
    uint64_t heap_base;
    uint64_t data_start[SYMM_MAX_DATA_RANGES];
    uint32_t addr_len;
    uint32_t heap_rkey_len;
    uint32_t data_rkey_len[SYMM_MAX_DATA_RANGES];
    int32_t pid;                 /* for a report if the PE is lost */
    char host[32];
    uint32_t amo_bits;           /* SYMM_NETAMO_*: what kind of atomics UCX uses here */
    char amo_tl[20];             /* the device atomic transport, e.g. "rc_mlx5" */
} ucx_blob_hdr_t;

/* Allgather of variable-length blobs: lengths first, then padded blobs.
 * Collective; a PE that cannot allocate the buffers still takes part in an
 * agreement round, so it fails on every PE or on none. mine_rc: this PE's
 * outcome of the steps before (init's local steps), agreed in the same
 * round: a PE that failed one takes part with nothing to give (len 0), and
 * every PE then fails naming it. */
static int allgather_var(symm_instance_t *s, int mine_rc, const void *mine, size_t len,
                         char **all_p, size_t *stride_p, const char *routine)
{
    uint64_t l = mine_rc == SYMM_OK ? len : 0, *lens = malloc(sizeof(uint64_t) * (size_t)s->n_pes);
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
    char *pad = NULL, *all = NULL;
    if (mine_rc != SYMM_OK) {
        rc = mine_rc;
    } else if ((pad = calloc(1, stride)) == NULL ||
               (all = malloc(stride * (size_t)s->n_pes)) == NULL) {
        symm_error(routine, "no memory for %d UCX addresses and keys of %zu bytes", s->n_pes,
                   stride);
        rc = SYMM_ERR_NOMEM;
    }
    rc = symm_boot_agree(s->boot, rc, routine, NULL);
    if (rc != SYMM_OK) {
        free(pad);
        free(all);
        return rc;
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

static int map_mem(ucx_state_t *u, void *addr, size_t len, ucp_mem_h *mh, const char *routine)
{
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = addr,
        .length = len,
    };
    ucs_status_t st = ucp_mem_map(u->ctx, &mp, mh);
    if (st == UCS_OK)
        return SYMM_OK;
    symm_error(routine, "UCX registration of %p + %zu bytes: %s", addr, len,
               ucs_status_string(st));
    return SYMM_ERR_SYS;
}

static int is_remote(const symm_instance_t *s, int pe)
{
    return pe != s->my_pe && !s->peers[pe].mapped;
}

/* ---- init, step by step ------------------------------------------------ */

/* What init's steps hand on to the next: this PE's part of the exchange,
 * kept until every PE has it (and, without a progress thread, until the
 * eager connections are made). */
typedef struct ucx_init_tmp {
    ucx_blob_hdr_t hdr;
    ucp_address_t *addr;                   /* the default worker's */
    void *rkbuf[1 + SYMM_MAX_DATA_RANGES]; /* packed keys: heap, then data ranges */
    size_t rklen[1 + SYMM_MAX_DATA_RANGES];
    size_t stride; /* of u->blob */
} ucx_init_tmp_t;

/* The transport's state, reachable from the instance at once: whatever
 * fails from here on, ucx_fini (which the core runs after a failed init
 * too) frees it. */
static int state_create(symm_instance_t *s, ucx_state_t **u_p)
{
    ucx_state_t *u = calloc(1, sizeof(*u));
    if (u == NULL)
        return SYMM_ERR_NOMEM;
    u->inst = s;
    s->net_state = u;
    pthread_mutex_init(&u->ctx_lock, NULL);
    *u_p = u;
    u->peers = calloc((size_t)s->n_pes, sizeof(ucx_peer_t));
    if (u->peers == NULL)
        return SYMM_ERR_NOMEM;
    return SYMM_OK;
}

/* Transports UCX opens for nothing, unless the user chose (UCX_TLS): each
 * costs every PE its interface at init. sysv duplicates posix; where UCX
 * reaches only other nodes (node-local peers mapped) the shared-memory ones
 * serve no endpoint at all, and where it reaches only this node's PEs
 * (SYMM_TRANSPORT=ucx on one node) tcp serves none: its interface queries
 * every network device with an ioctl socket each (most of a large job's
 * system calls at init). Atomics on this PE's own word, when they go
 * through UCX, use self. The shared-memory ones are left out by UCX's alias
 * "shm", which names only those this UCX has: naming knem or xpmem where
 * they are not built made UCX warn at every PE's start. */
static void choose_transports(ucp_config_t *cfg, int net_only, int n_net)
{
    ucs_status_t st;
    if (getenv("UCX_TLS") == NULL) {
        const char *tls = net_only ? "^shm" : n_net == 0 ? "^sysv,tcp" : "^sysv";
        if ((st = ucp_config_modify(cfg, "TLS", tls)) != UCS_OK)
            symm_debug("ucx", "cannot set the transport list to %s: %s", tls,
                       ucs_status_string(st));
    }
}

/* A shared-memory interface fills its first receive pool at open (512
 * buffers of 8 KiB, a large part of UCX's start). It grows on demand, so
 * start it at 64: only where symm chose the transports and kept posix (UCX
 * warns of a setting no interface takes). */
static void shrink_rx_pool(ucp_config_t *cfg, int net_only)
{
    if (getenv("UCX_TLS") == NULL && !net_only && getenv("UCX_MM_RX_BUFS_GROW") == NULL &&
        getenv("UCX_POSIX_RX_BUFS_GROW") == NULL)
        (void)ucp_config_modify(cfg, "MM_RX_BUFS_GROW", "64");
}

/* UCX's configuration (UCX_* and ucx.conf) with symm's policy applied to
 * this context's configuration only (never UCX's process-wide options,
 * which an MPI library or torch loaded beside symm share): the transports,
 * the receive pool; and the bulk-endpoint
 * rule for large collective messages to other nodes (u->bulk, and
 * SHMEM_INFO's line saying so). net_only: UCX reaches only PEs of other
 * nodes. */
static int config_choose(ucx_state_t *u, ucp_config_t **cfg_p, int *net_only)
{
    symm_instance_t *s = u->inst;
    ucp_config_t *cfg = NULL;
    ucs_status_t st;
    if ((st = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK)
        return symm_ucx_fail("reading UCX_* configuration", st);
    /* Every PE holds every other's address (N of them, and a star bootstrap
     * sends N^2 at its root): where UCX reaches only PEs of other nodes, the
     * address leaves out the shared-memory transports they cannot use. */
    int n_local = 0, n_net = 0;
    for (int pe = 0; pe < s->n_pes; pe++)
        if (is_remote(s, pe)) {
            n_local += s->peers[pe].same_node;
            n_net += !s->peers[pe].same_node;
        }
    *net_only = n_local == 0;
    choose_transports(cfg, *net_only, n_net);
    if (n_net > 0)
        u->bulk = symm_ucx_bulk_rule(s->cfg.net.ucx_bulk_ep, u->bulk_why, sizeof(u->bulk_why));
    shrink_rx_pool(cfg, *net_only);
    *cfg_p = cfg;
    return SYMM_OK;
}

/* The UCP context, from cfg (released here, whatever happens). */
static int context_create(ucx_state_t *u, ucp_config_t *cfg)
{
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
        /* WAKEUP: an idle wait sleeps in the workers' event fds
         * (symm_ucx_sleep). Without TAG it changes no lane selection. */
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM |
                    UCP_FEATURE_WAKEUP,
        /* Several workers (the default one and contexts' own) used at
         * once by different threads (the program's and the progress
         * thread): UCX's rule for a context that then needs thread safety.
         * (A UCX segfault in tcp progress, once in the 60-minute stress run
         * with two threads per PE on emulated nodes, was seen with 0.) */
        .mt_workers_shared = 1,
        .estimated_num_eps = (size_t)u->inst->n_pes,
    };
    ucs_status_t st = ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, cfg, &u->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return symm_ucx_fail("ucp_init", st);
    return SYMM_OK;
}

/* The default worker's message table and the worker itself (their
 * counterpart in ucx_fini). */
static void worker_destroy(ucx_state_t *u)
{
    symm_ucx_msg_fini(u);
    symm_ucx_wk_fini(u, &u->dflt, 1);
}

/* The default worker and its message handlers. Undoes itself if it fails. */
static int worker_create(ucx_state_t *u)
{
    int rc;
    /* The progress thread and the PE's threads share the default worker. */
    if ((rc = symm_ucx_wk_init(u, &u->dflt, UCS_THREAD_MODE_MULTI)) != SYMM_OK ||
        (rc = symm_ucx_am_init(u)) != SYMM_OK)
        goto err_destroy_worker;
    return SYMM_OK;

err_destroy_worker:
    worker_destroy(u);
    return rc;
}

/* The default worker's address (t->addr) and this PE's header so far
 * (t->hdr): where its heap is, who it is, what kind of atomics it has. */
static int address_get(ucx_state_t *u, int net_only, ucx_init_tmp_t *t)
{
    symm_instance_t *s = u->inst;
    ucp_worker_attr_t wa = {
        .field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_ADDRESS_FLAGS,
        .address_flags = net_only ? UCP_WORKER_ADDRESS_FLAG_NET_ONLY : 0,
    };
    ucs_status_t st = ucp_worker_query(u->dflt.worker, &wa);
    if (st != UCS_OK)
        return symm_ucx_fail("worker address", st);
    t->addr = wa.address;
    t->hdr = (ucx_blob_hdr_t){.heap_base = (uint64_t)(uintptr_t)s->heap_base,
                              .addr_len = (uint32_t)wa.address_length,
                              .pid = (int32_t)getpid()};
    gethostname(t->hdr.host, sizeof(t->hdr.host) - 1);
    t->hdr.amo_bits = symm_ucx_amo_probe(t->hdr.amo_tl, sizeof(t->hdr.amo_tl));
    return SYMM_OK;
}

/* The packed keys of t (any of them, NULL ones skipped). */
static void keys_release(ucx_init_tmp_t *t)
{
    for (int i = 0; i <= SYMM_MAX_DATA_RANGES; i++) {
        if (t->rkbuf[i])
            ucp_rkey_buffer_release(t->rkbuf[i]);
        t->rkbuf[i] = NULL;
    }
}

/* The registrations of both segments (any of them, NULL ones skipped). */
static void memory_unregister(ucx_state_t *u)
{
    if (u->heap_mh)
        ucp_mem_unmap(u->ctx, u->heap_mh);
    u->heap_mh = NULL;
    for (int i = 0; i < SYMM_MAX_DATA_RANGES; i++) {
        if (u->data_mh[i])
            ucp_mem_unmap(u->ctx, u->data_mh[i]);
        u->data_mh[i] = NULL;
    }
}

/* Register both segments (heap, data ranges) and pack their rkeys into t.
 * Undoes itself if it fails. */
static int memory_register(ucx_state_t *u, ucx_init_tmp_t *t)
{
    symm_instance_t *s = u->inst;
    ucs_status_t st;
    int rc;
    if ((rc = map_mem(u, s->heap_base, s->heap_size, &u->heap_mh, "shmem_init")) != SYMM_OK)
        goto err_unmap_memory;
    if ((st = ucp_rkey_pack(u->ctx, u->heap_mh, &t->rkbuf[0], &t->rklen[0])) != UCS_OK) {
        rc = symm_ucx_fail("packing the heap key", st);
        goto err_release_keys;
    }
    t->hdr.heap_rkey_len = (uint32_t)t->rklen[0];
    for (int i = 0; i < s->n_data_ranges; i++) {
        t->hdr.data_start[i] = s->data[i].start;
        if ((rc = map_mem(u, (void *)s->data[i].start, s->data[i].len, &u->data_mh[i],
                          "shmem_init")) != SYMM_OK)
            goto err_release_keys;
        if ((st = ucp_rkey_pack(u->ctx, u->data_mh[i], &t->rkbuf[1 + i], &t->rklen[1 + i])) !=
            UCS_OK) {
            rc = symm_ucx_fail("packing a data key", st);
            goto err_release_keys;
        }
        t->hdr.data_rkey_len[i] = (uint32_t)t->rklen[1 + i];
    }
    return SYMM_OK;

err_release_keys:
    keys_release(t);
err_unmap_memory:
    memory_unregister(u);
    return rc;
}

/* Every peer's segments, address and keys from the exchange (u->blob), for
 * its endpoints; the atomic findings of every PE, for one decision
 * (runtime/atomics.h). */
static void peers_read(ucx_state_t *u, size_t stride)
{
    symm_instance_t *s = u->inst;
    unsigned amo_bits = 0;
    char amo_tl[sizeof(((ucx_blob_hdr_t *)0)->amo_tl)] = "";
    for (int pe = 0; pe < s->n_pes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        const char *b = u->blob + (size_t)pe * stride;
        ucx_blob_hdr_t h;
        memcpy(&h, b, sizeof(h));
        amo_bits |= h.amo_bits;
        if (amo_tl[0] == '\0')
            memcpy(amo_tl, h.amo_tl, sizeof(amo_tl));
        amo_tl[sizeof(amo_tl) - 1] = '\0';
        p->pe = pe;
        p->u = u;
        p->heap_base = h.heap_base;
        p->pid = h.pid;
        memcpy(p->host, h.host, sizeof(p->host));
        p->host[sizeof(p->host) - 1] = '\0';
        p->addr = b + sizeof(h);
        p->heap_rkey = b + sizeof(h) + h.addr_len;
        const char *r = (const char *)p->heap_rkey + h.heap_rkey_len;
        for (int i = 0; i < s->n_data_ranges; i++) {
            p->data_start[i] = h.data_start[i];
            p->data_rkey[i] = r;
            r += h.data_rkey_len[i];
        }
    }
    symm_atomics_choose(s, 1, amo_bits, amo_tl);
}

/* This PE's header, worker address and packed keys to every PE in one
 * allgather (u->blob); then every peer's, read. Collective, and agreed:
 * mine_rc is the outcome of this PE's local steps before it, so a PE that
 * failed one still takes part, and every PE fails naming it. */
static int exchange(symm_instance_t *s, ucx_state_t *u, ucx_init_tmp_t *t, int mine_rc)
{
    size_t len = 0;
    char *mine = NULL, *blob = NULL;
    if (mine_rc == SYMM_OK) {
        size_t addr_len = t->hdr.addr_len;
        len = sizeof(t->hdr) + addr_len;
        for (int i = 0; i <= s->n_data_ranges; i++)
            len += t->rklen[i];
        if ((mine = malloc(len)) == NULL) {
            symm_error("shmem_init", "no memory for this PE's UCX address and keys");
            mine_rc = SYMM_ERR_NOMEM;
        }
    }
    if (mine != NULL) {
        char *w = mine;
        memcpy(w, &t->hdr, sizeof(t->hdr));
        w += sizeof(t->hdr);
        memcpy(w, t->addr, t->hdr.addr_len);
        w += t->hdr.addr_len;
        for (int i = 0; i <= s->n_data_ranges; i++) {
            memcpy(w, t->rkbuf[i], t->rklen[i]);
            w += t->rklen[i];
        }
    }
    int rc = allgather_var(s, mine_rc, mine, len, &blob, &t->stride, "shmem_init");
    free(mine);
    if (rc != SYMM_OK)
        return rc;
    u->blob = blob;
    peers_read(u, t->stride);
    return SYMM_OK;
}

/* Wiring up needs both ends to run UCX. Endpoints are made on first use
 * (peer_target), when the peer may be computing or waiting in the
 * bootstrap, which runs no UCX: its progress thread answers then. So with
 * the thread (SYMM_PROGRESS_THREAD auto or 1) init makes no endpoint.
 * Without it, nothing would answer a peer's first contact while this PE
 * computes (UCX's shared-memory RMA needs no target progress once wired
 * up, its wire-up does): every unmapped peer is connected here, eagerly,
 * as before, with the thread running for the connection phase only. A lazy
 * connect's failure ends the job naming the peer (symm_ucx_conn_open_lazy);
 * a peer never talked to is watched by the launcher. */
static int connect_peers(ucx_state_t *u)
{
    symm_instance_t *s = u->inst;
    int wanted, rc;
    if ((rc = symm_ucx_progress_thread_wanted(u, &wanted)) != SYMM_OK ||
        (rc = symm_ucx_start_progress_thread(u)) != SYMM_OK)
        return rc;
    if (wanted)
        return SYMM_OK;
    /* To every PE when UCX is the one atomic agent. */
    int to_all = (s->amo_flags & SYMM_AMO_NET) != 0;
    for (int pe = 0; pe < s->n_pes; pe++) {
        conn_fail_t why = {0};
        if ((to_all || is_remote(s, pe)) && (rc = conn_open(u, &u->dflt, pe, 1, &why)) != SYMM_OK) {
            char text[256];
            conn_fail_text(u, pe, &why, text, sizeof(text));
            symm_error("ucx", "%s", text);
            return rc;
        }
    }
    if ((rc = symm_boot_barrier(s->boot)) != SYMM_OK)
        return rc;
    symm_ucx_stop_progress_thread(u);
    return SYMM_OK;
}

/* The steps before the exchange, each local to this PE. A failed step
 * undoes what the steps before it made, in the reverse order, down to the
 * state (state_create), which stays for ucx_fini: the core runs it after a
 * failed init too. */
static int local_steps(symm_instance_t *s, ucx_state_t **u_p, ucx_init_tmp_t *t)
{
    ucx_state_t *u;
    ucp_config_t *cfg = NULL;
    int net_only = 0, rc;

    if ((rc = state_create(s, u_p)) != SYMM_OK)
        return rc;
    u = *u_p;
    if ((rc = config_choose(u, &cfg, &net_only)) != SYMM_OK)
        return rc;
    if ((rc = context_create(u, cfg)) != SYMM_OK)
        return rc;
    if ((rc = worker_create(u)) != SYMM_OK)
        goto err_cleanup_context;
    if ((rc = address_get(u, net_only, t)) != SYMM_OK)
        goto err_destroy_worker;
    if ((rc = memory_register(u, t)) != SYMM_OK)
        goto err_release_address;
    return SYMM_OK;

err_release_address:
    ucp_worker_release_address(u->dflt.worker, t->addr);
    t->addr = NULL;
err_destroy_worker:
    worker_destroy(u);
err_cleanup_context:
    ucp_cleanup(u->ctx);
    u->ctx = NULL;
    return rc;
}

/* Collective. The local steps' outcome is agreed in the exchange's first
 * round, so a PE that failed one (no worker, no registration) makes every
 * PE fail at once naming it, rather than leave them waiting in an exchange
 * it skipped. From the exchange on, peers hold this PE's address and may
 * be wiring up to its worker: a failure there leaves the worker,
 * registrations and context to ucx_fini, which closes them after every
 * PE's fini has met in its bootstrap barrier. */
static int ucx_init(symm_instance_t *s)
{
    ucx_state_t *u = NULL;
    ucx_init_tmp_t t = {0};
    int rc = local_steps(s, &u, &t);
    int local_ok = rc == SYMM_OK;
    rc = exchange(s, u, &t, rc);
    if (rc == SYMM_OK)
        rc = connect_peers(u);
    if (local_ok) {
        keys_release(&t);
        ucp_worker_release_address(u->dflt.worker, t.addr);
    }
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
        symm_ucx_wk_quiet(u, wk);
    if (u->dflt.worker)
        symm_ucx_wk_quiet(u, &u->dflt);
    u->closing = 1;
    /* A failed barrier was logged by the bootstrap (a peer gone): the
     * endpoints close all the same, forcibly where the peer does not answer. */
    SYMM_IGNORE(symm_boot_barrier(s->boot));
    symm_ucx_stop_progress_thread(u);
    u->n_all_wks = 0;
    for (int list = 0; list < 2; list++) {
        ucx_wk_t **head = list == 0 ? &u->ctx_wks : &u->free_wks;
        while (*head != NULL) {
            ucx_wk_t *wk = *head;
            *head = wk->next;
            symm_ucx_wk_fini(u, wk, 1);
            free(wk);
        }
    }
    symm_ucx_msg_fini(u);
    symm_ucx_wk_fini(u, &u->dflt, 1);
    if (u->heap_mh)
        ucp_mem_unmap(u->ctx, u->heap_mh);
    for (int i = 0; i < 4; i++)
        if (u->retired_mh[i])
            ucp_mem_unmap(u->ctx, u->retired_mh[i]);
    for (int i = 0; i < SYMM_MAX_DATA_RANGES; i++)
        if (u->data_mh[i])
            ucp_mem_unmap(u->ctx, u->data_mh[i]);
    for (int i = 0; i < SYMM_MAX_REGIONS; i++) {
        if (u->regions[i].mh)
            ucp_mem_unmap(u->ctx, u->regions[i].mh);
        free(u->regions[i].keys);
    }
    if (u->ctx)
        ucp_cleanup(u->ctx);
    pthread_mutex_destroy(&u->ctx_lock);
    free(u->blob);
    free(u->heap_blob);
    for (int i = 0; i < SYMM_UCX_RETIRED_KEYS; i++)
        free(u->old_heap_blobs[i]);
    free(u->peers);
    free(u);
    s->net_state = NULL;
}

/* A new heap rkey for wk's connection to pe, from the latest exchange;
 * under ctx_lock. */
static int conn_rekey(ucx_state_t *u, ucx_wk_t *wk, int pe)
{
    ucx_conn_t *c = &wk->conn[pe];
    ucp_rkey_h nk;
    ucs_status_t st;
    const void *packed = __atomic_load_n(&u->peers[pe].heap_rkey, __ATOMIC_ACQUIRE);
    if ((st = ucp_ep_rkey_unpack(c->ep, packed, &nk)) != UCS_OK) {
        symm_error("shmem_malloc", "UCX heap key of PE %d: %s", pe, ucs_status_string(st));
        return SYMM_ERR_SYS;
    }
    /* Retired, not destroyed: see SYMM_UCX_RETIRED_KEYS. */
    if (c->retired[SYMM_UCX_RETIRED_KEYS - 1] != NULL)
        ucp_rkey_destroy(c->retired[SYMM_UCX_RETIRED_KEYS - 1]);
    memmove(&c->retired[1], &c->retired[0], sizeof(c->retired[0]) * (SYMM_UCX_RETIRED_KEYS - 1));
    c->retired[0] = c->heap_rkey;
    __atomic_store_n(&c->heap_rkey, nk, __ATOMIC_RELEASE);
    return SYMM_OK;
}

/* New heap rkeys for every connection of wk. */
static int wk_rekey(ucx_state_t *u, ucx_wk_t *wk)
{
    /* Pairs with conn_open's fence: a connection published too late to be
     * seen here saw the new keys there. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int pe = 0; pe < u->inst->n_pes; pe++) {
        int rc;
        if (__atomic_load_n(&wk->conn[pe].ep, __ATOMIC_ACQUIRE) != NULL &&
            (rc = conn_rekey(u, wk, pe)) != SYMM_OK)
            return rc;
    }
    return SYMM_OK;
}

/* The heap grew on every PE: register the larger range, trade keys, retire
 * the old ones. Collective (shmem_malloc and friends), and agreed: each
 * local step (flush, registration, packing; the new keys' unpacking) is
 * followed by a round in which every PE says how it went, so no PE waits in
 * an exchange a failed PE skipped, and every PE returns the same outcome. */
static int ucx_heap_grown(symm_instance_t *s, size_t new_size)
{
    ucx_state_t *u = state_of(s);
    ucp_mem_h mh = NULL;
    void *rk = NULL;
    size_t rklen = 0, stride = 0;
    char *all = NULL;
    ucs_status_t st;
    pthread_mutex_lock(&u->ctx_lock);
    for (ucx_wk_t *wk = u->ctx_wks; wk != NULL; wk = wk->next)
        symm_ucx_wk_quiet(u, wk);
    int rc = to_symm(u, symm_ucx_wk_quiet(u, &u->dflt), s->my_pe, "flush");
    if (rc == SYMM_OK && symm_fault("ucx_reg")) {
        symm_error("shmem_malloc", "UCX registration of the grown heap (%zu bytes): %s", new_size,
                   ucs_status_string(UCS_ERR_NO_MEMORY));
        rc = SYMM_ERR_SYS;
    } else if (rc == SYMM_OK) {
        rc = map_mem(u, s->heap_base, new_size, &mh, "shmem_malloc");
    }
    if (rc == SYMM_OK && (st = ucp_rkey_pack(u->ctx, mh, &rk, &rklen)) != UCS_OK)
        rc = symm_ucx_fail("packing the heap key", st);
    int arc = symm_boot_agree(s->boot, rc, "shmem_malloc", NULL);
    if (arc == SYMM_OK)
        arc = allgather_var(s, SYMM_OK, rk, rklen, &all, &stride, "shmem_malloc");
    if (rk != NULL)
        ucp_rkey_buffer_release(rk);
    if (arc != SYMM_OK) {
        /* Nobody got my new key: the old registration stays the only one. */
        if (mh != NULL)
            ucp_mem_unmap(u->ctx, mh);
        rc = arc;
        goto out;
    }
    free(u->old_heap_blobs[SYMM_UCX_RETIRED_KEYS - 1]);
    memmove(&u->old_heap_blobs[1], &u->old_heap_blobs[0],
            sizeof(u->old_heap_blobs[0]) * (SYMM_UCX_RETIRED_KEYS - 1));
    u->old_heap_blobs[0] = u->heap_blob;
    u->heap_blob = all;
    for (int pe = 0; pe < s->n_pes; pe++)
        __atomic_store_n(&u->peers[pe].heap_rkey, (const void *)(all + (size_t)pe * stride),
                         __ATOMIC_RELEASE);
    rc = wk_rekey(u, &u->dflt);
    for (ucx_wk_t *wk = u->ctx_wks; rc == SYMM_OK && wk != NULL; wk = wk->next)
        rc = wk_rekey(u, wk);
    for (ucx_wk_t *wk = u->free_wks; rc == SYMM_OK && wk != NULL; wk = wk->next)
        rc = wk_rekey(u, wk);
    /* Nobody uses my old key any more once every PE has the new one. */
    rc = symm_boot_agree(s->boot, rc, "shmem_malloc", NULL);
    if (rc == SYMM_OK) {
        ucp_mem_unmap(u->ctx, u->heap_mh);
    } else {
        /* Some PE kept some old keys, the others hold new ones: both
         * registrations stay, as they cover the heap's old range alike. */
        int i = 0;
        while (i < 4 && u->retired_mh[i] != NULL)
            i++;
        if (i < 4)
            u->retired_mh[i] = u->heap_mh; /* else leaked, harmlessly, until exit */
    }
    u->heap_mh = mh;
out:
    pthread_mutex_unlock(&u->ctx_lock);
    return rc;
}

/* A registered region becomes reachable: registered here, every PE's key
 * traded in the exchange heap growth uses (allgather_var), agreed on first.
 * Keys are unpacked per connection on first use (peer_target), so nothing
 * after the exchange can fail on one PE alone. */
static int ucx_region_add(symm_instance_t *s, int id)
{
    ucx_state_t *u = state_of(s);
    const symm_region_t *r = &s->regions->slot[id];
    const char *routine = "shmemx_register";
    ucp_mem_h mh = NULL;
    void *rk = NULL;
    size_t rklen = 0, stride = 0;
    char *all = NULL;
    ucs_status_t st;
    int rc = SYMM_OK;
    if (symm_fault("ucx_reg")) {
        symm_error(routine, "UCX registration of %p + %zu bytes: %s", (void *)r->base, r->size,
                   ucs_status_string(UCS_ERR_NO_MEMORY));
        rc = SYMM_ERR_SYS;
    } else {
        rc = map_mem(u, r->base, r->size, &mh, routine);
    }
    if (rc == SYMM_OK && (st = ucp_rkey_pack(u->ctx, mh, &rk, &rklen)) != UCS_OK) {
        symm_error(routine, "packing the UCX key of a registered region: %s",
                   ucs_status_string(st));
        rc = SYMM_ERR_SYS;
    }
    int arc = symm_boot_agree(s->boot, rc, routine, NULL);
    if (arc == SYMM_OK)
        arc = allgather_var(s, SYMM_OK, rk, rklen, &all, &stride, routine);
    if (rk != NULL)
        ucp_rkey_buffer_release(rk);
    if (arc != SYMM_OK) {
        if (mh != NULL)
            ucp_mem_unmap(u->ctx, mh);
        return arc;
    }
    u->regions[id] = (ucx_region_t){.mh = mh, .keys = all, .stride = stride};
    return SYMM_OK;
}

/* Drop region id's keys from every connection of wk; under ctx_lock. */
static void wk_drop_region(ucx_wk_t *wk, int n_pes, int id)
{
    for (int pe = 0; pe < n_pes; pe++) {
        ucp_rkey_h *keys = wk->conn[pe].reg_rkey;
        if (keys != NULL && keys[id] != NULL) {
            ucp_rkey_destroy(keys[id]);
            keys[id] = NULL;
        }
    }
}

/* Deregistration: my operations complete (every worker flushed), then an
 * agreement, after which no PE has any outstanding on any copy; then keys
 * and registration go. */
static int ucx_region_remove(symm_instance_t *s, int id)
{
    ucx_state_t *u = state_of(s);
    pthread_mutex_lock(&u->ctx_lock);
    for (ucx_wk_t *wk = u->ctx_wks; wk != NULL; wk = wk->next)
        symm_ucx_wk_quiet(u, wk);
    int rc = to_symm(u, symm_ucx_wk_quiet(u, &u->dflt), s->my_pe, "flush");
    rc = symm_boot_agree(s->boot, rc, "shmemx_deregister", NULL);
    wk_drop_region(&u->dflt, s->n_pes, id);
    for (int list = 0; list < 2; list++)
        for (ucx_wk_t *wk = list == 0 ? u->ctx_wks : u->free_wks; wk != NULL; wk = wk->next)
            wk_drop_region(wk, s->n_pes, id);
    if (u->regions[id].mh != NULL)
        ucp_mem_unmap(u->ctx, u->regions[id].mh);
    free(u->regions[id].keys);
    memset(&u->regions[id], 0, sizeof(u->regions[id]));
    pthread_mutex_unlock(&u->ctx_lock);
    return rc;
}

static const char *ucx_bulk_info(symm_instance_t *s)
{
    ucx_state_t *u = state_of(s);
    return u != NULL && u->bulk_why[0] != '\0' ? u->bulk_why : NULL;
}

static const symm_transport_ops_t ucx_ops = {
    .name = "ucx",
    .init = ucx_init,
    .fini = ucx_fini,
    .put = symm_ucx_put,
    .get = symm_ucx_get,
    .put_nbi = symm_ucx_put_nbi,
    .get_nbi = symm_ucx_get_nbi,
    .amo = symm_ucx_amo,
    .notify = symm_ucx_notify,
    .msg_send = symm_ucx_msg_send,
    .msg_wait = symm_ucx_msg_wait,
    .msg_probe = symm_ucx_msg_probe,
    .msg_take = symm_ucx_msg_take,
    .fence = symm_ucx_fence,
    .quiet = symm_ucx_quiet,
    .pe_quiet = symm_ucx_pe_quiet,
    .progress = symm_ucx_progress,
    .sleep = symm_ucx_sleep,
    .heap_grown = ucx_heap_grown,
    .region_add = ucx_region_add,
    .region_remove = ucx_region_remove,
    .ctx_create = symm_ucx_ctx_create,
    .ctx_destroy = symm_ucx_ctx_destroy,
    .bulk_info = ucx_bulk_info,
    .peek = symm_ucx_peek,
    .in_progress = symm_ucx_in_progress,
};

const symm_transport_ops_t *symm_ucx_ops(void) { return &ucx_ops; }

