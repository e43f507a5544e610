/*
 * transport.h - the contract between operations and transports.
 *
 * Operations (src/ops) translate a symmetric address to (segment, offset)
 * and hand the transfer to a transport. Node-local peers are mapped: ops
 * reach them inline through symm_seg_peer_addr and never call through this
 * table on the fast path. Every other peer goes through the instance's
 * network transport (`inst->net`, e.g. UCX), whose ops are below. A
 * transport must complete blocking calls before returning, order per
 * context on fence, and complete everything of a context on quiet. It must
 * never call back into the API layer.
 *
 * Layer transport/ (below ops/, above mem/; docs/ARCHITECTURE.md): reaching
 * peers: mapped (shm.c) or over the network (ucx/, a plugin that
 * net_plugin.c loads). It includes and calls only
 * its own directory and those below it (scripts/check_layers.sh).
 */
#ifndef SYMM_TRANSPORT_H
#define SYMM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/status.h"

struct symm_instance;
struct symm_ctx;

/* Atomic operations a transport performs on size-byte (4 or 8) integers or
 * floats; inc is add of 1, fetch of a non-fetching op is NULL result. */
typedef enum symm_amo_op {
    SYMM_AMO_FETCH,
    SYMM_AMO_SET,
    SYMM_AMO_SWAP,
    SYMM_AMO_CSWAP,
    SYMM_AMO_ADD,
    SYMM_AMO_AND,
    SYMM_AMO_OR,
    SYMM_AMO_XOR,
} symm_amo_op_t;

/* A collective message's tag: the group (team or active set) and the
 * collective's number on it, with the round in the low bits. */
typedef struct symm_msg_tag {
    uint64_t group;
    uint64_t seq;
} symm_msg_tag_t;

/* How a message travels. AUTO: the transport's choice by size. EAGER: sent
 * at once and buffered at the receiver (one more copy there, no round trip
 * first). SYNC: completes only once the receiver has taken it (flow control
 * for senders that would run ahead of their receivers). */
typedef enum symm_msg_how { SYMM_MSG_AUTO, SYMM_MSG_EAGER, SYMM_MSG_SYNC } symm_msg_how_t;

/* One bounded access of a failure report to a peer's memory (peek below):
 * n > 0, a read of n bytes at (seg, off) of pe into buf; n == 0, a
 * compare-and-swap of the 32-bit word at (seg, off) of pe from expect to
 * desired, the word found left in buf (4 bytes). rc out: 0, or
 * SYMM_ERR_TIMEOUT (no answer in time: buf must stay valid until the
 * process ends, the access may still land), or SYMM_ERR_PEER. */
typedef struct symm_peek {
    int pe, seg;
    size_t off;
    void *buf;
    size_t n;
    uint32_t expect, desired;
    int rc;
    void *req; /* the transport's, while in flight */
} symm_peek_t;

typedef struct symm_transport_ops {
    const char *name;
    /* Collective, after the node-local mappings exist. */
    SYMM_MUST_CHECK int (*init)(struct symm_instance *inst);
    void (*fini)(struct symm_instance *inst);
    /* Blocking: source reusable (put) / data arrived (get) on return. */
    SYMM_MUST_CHECK int (*put)(struct symm_ctx *ctx, int seg, size_t off, const void *src, size_t n,
                               int pe);
    SYMM_MUST_CHECK int (*get)(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n,
                               int pe);
    /* Non-blocking: complete at the next quiet of ctx. */
    SYMM_MUST_CHECK int (*put_nbi)(struct symm_ctx *ctx, int seg, size_t off, const void *src,
                                   size_t n, int pe);
    SYMM_MUST_CHECK int (*get_nbi)(struct symm_ctx *ctx, void *dst, int seg, size_t off, size_t n,
                                   int pe);
    /* Atomic on pe's copy; result (old value) may be NULL for non-fetching
     * ops. nbi: result is written by the next quiet of ctx. */
    SYMM_MUST_CHECK int (*amo)(struct symm_ctx *ctx, symm_amo_op_t op, size_t size, int seg,
                               size_t off, const void *operand, const void *compare, void *result,
                               int nbi, int pe);
    /* Add value to the 64-bit word at (seg, off) on pe, atomically against
     * pe's CPU atomics on it, one-way: nothing reports its completion, a
     * later quiet does not wait for it; it follows the caller's earlier
     * quiet. For flags that collectives wait on. NULL: use amo. */
    SYMM_MUST_CHECK int (*notify)(struct symm_ctx *ctx, int seg, size_t off, uint64_t value,
                                  int pe);
    /* Tagged messages for collectives, like MPI's unexpected-message
     * queue: a message to pe is kept there under (tag, sender) until pe
     * takes it into a buffer of its choice, so a sender never writes into
     * memory its owner may still be reading, and no barrier orders them.
     * msg_send is non-blocking: *handle (NULL: complete already) goes to
     * msg_wait, after which src is reusable; how is a symm_msg_how_t.
     * msg_probe: 1 and the length if (tag, from) is here, else
     * 0 (non-blocking; wait loops run progress). msg_take: start receiving
     * a probed message into dst (len bytes, as probed) and forget it;
     * *handle (NULL: in place already) goes to msg_wait, after which dst
     * holds it, so a collective keeps several receives in flight.
     * NULL msg_send: none (collectives pull). */
    SYMM_MUST_CHECK int (*msg_send)(struct symm_instance *inst, int pe, const symm_msg_tag_t *tag,
                    const void *src, size_t n, int how, void **handle);
    SYMM_MUST_CHECK int (*msg_wait)(struct symm_instance *inst, void *handle);
    int (*msg_probe)(struct symm_instance *inst, const symm_msg_tag_t *tag, int from,
                     size_t *len);
    SYMM_MUST_CHECK int (*msg_take)(struct symm_instance *inst, const symm_msg_tag_t *tag, int from,
                                    void *dst, size_t len, void **handle);
    SYMM_MUST_CHECK int (*fence)(struct symm_ctx *ctx);
    SYMM_MUST_CHECK int (*quiet)(struct symm_ctx *ctx);
    /* Quiet towards the n (world) PEs of pes only: what ctx issued to them
     * is complete on return; other peers' operations may stay outstanding.
     * NULL: use quiet. */
    SYMM_MUST_CHECK int (*pe_quiet)(struct symm_ctx *ctx, const int *pes, size_t n);
    /* Make progress on everything outstanding (called from wait loops);
     * the number of events it found. */
    unsigned (*progress)(struct symm_instance *inst);
    /* Block up to usec microseconds, or until a network event for this PE
     * arrives (a wait loop with nothing to do); 0 if it slept or an event
     * is pending, -1 if this transport cannot wake on events (the caller
     * must not sleep then: a peer's emulated RMA waits on its progress). */
    int (*sleep)(struct symm_instance *inst, long usec);
    /* The heap grew to new_size bytes on every PE (collective). */
    SYMM_MUST_CHECK int (*heap_grown)(struct symm_instance *inst, size_t new_size);
    /* Registered memory (mem/region_table.h): region id, in the table on every PE
     * but not live yet, becomes reachable through this transport (its
     * registration, its keys to every PE). Collective and agreed: it fails
     * on every PE or on none, logged where it failed. region_remove: the
     * region is being deregistered on every PE (collective): complete what
     * this PE issued, wait for the others to have done so, drop its keys.
     * NULL region_add: registered memory is not reachable through it. */
    SYMM_MUST_CHECK int (*region_add)(struct symm_instance *inst, int id);
    SYMM_MUST_CHECK int (*region_remove)(struct symm_instance *inst, int id);
    /* A context was created (attach per-context state to ctx->net) or is
     * being destroyed (after its quiet). The default context has none. */
    SYMM_MUST_CHECK int (*ctx_create)(struct symm_ctx *ctx);
    void (*ctx_destroy)(struct symm_ctx *ctx);
    /* After init: which way large collective messages to other nodes go
     * and why (SHMEM_INFO prints it), or NULL where the transport made no
     * such choice. NULL bulk_info: never one. */
    const char *(*bulk_info)(struct symm_instance *inst);
    /* A failure report's accesses to peers' memory (their status records:
     * core/watch.c, ops/fail_report.c), from any thread, the watcher's
     * included: the n accesses are issued at once and waited for together
     * for at most timeout_ms, so a peer that does not answer (its CPU in a
     * loop and nothing else running its transport) costs a report that
     * long, never a hang. Never on a fast path. Each access's rc is set
     * whatever happens (SYMM_ERR_PEER for all when none could be issued):
     * that is its result; it returns 0, or negative if none could be
     * issued. NULL: this transport cannot. */
    int (*peek)(struct symm_instance *inst, symm_peek_t *reqs, int n, unsigned timeout_ms);
    /* 1 when the calling thread is inside this transport's progress (its
     * callbacks run there): a fatal error then marks no other node, which
     * would need progress again (core/watch.c). NULL: never. */
    int (*in_progress)(void);
} symm_transport_ops_t;

/* ---- the transports -------------------------------------------------- */

/* UCX (src/transport/ucx/) is a plugin (runtime/plugin.h, libsymm-ucx.so),
 * opened by transport/net_plugin.c when a job first needs the network. */
struct symm_boot;

/* What libsymm does for the UCX plugin: the routines of runtime/ and boot/
 * it calls, and the thread-local state of runtime/pestatus.h it touches. */
typedef struct symm_ucx_host {
    int (*fault)(const char *site);
    int (*boot_agree)(struct symm_boot *boot, int rc, const char *routine, int *failed_pe_p);
    void (*pe_end)(struct symm_instance *s, int status, int self) __attribute__((noreturn));
    /* symm_pe_report_elsewhere, symm_pe_reporting, symm_doing.routine != NULL */
    int (*report_elsewhere)(const struct symm_instance *s);
    int (*reporting)(void);
    int (*doing_named)(void);
} symm_ucx_host_t;

/* What the UCX plugin offers. */
typedef struct symm_ucx_plugin_ops {
    const symm_transport_ops_t *transport;
    /* "1.13.1": the UCX the plugin runs with. */
    const char *(*version)(void);
    /* What kind of atomics UCX would use in this process (SYMM_NETAMO_* of
     * runtime/atomics.h; tl: the device transport or ""), from UCT's query
     * of the interfaces UCP would open. */
    int (*atomics_probe)(char *tl, size_t tl_len);
} symm_ucx_plugin_ops_t;

/* The UCX transport's ops, its plugin loaded at the first call; NULL when
 * it cannot be loaded, *why (if not NULL) then saying why. */
const symm_transport_ops_t *symm_ucx_transport(const char **why);
/* "1.13.1", or NULL when the plugin (or libucp) cannot be loaded. */
const char *symm_ucx_version(void);
/* The plugin's atomics_probe, or -1 (tl "") without it. For symm-info. */
int symm_ucx_atomics_probe(char *tl, size_t tl_len);
/* SYMM_UCX_BULK_EP's rule (value: the variable's, SYMM_UCX_BULK_EP_*): 1
 * where large collective messages to other nodes go by rendezvous on a
 * second endpoint without UCX's peer-failure handling, else 0; why says
 * which and why ("on the first endpoint (SYMM_UCX_BULK_EP=auto; tcp,
 * congestion control bbr paces one large write)"). Reads this process's
 * network namespace: the sender's kernel paces what it sends. */
int symm_ucx_bulk_rule(int value, char *why, size_t len);

#endif
