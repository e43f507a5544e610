/*
 * signal.h - put-with-signal and signal updates.
 *
 * On a mapped peer: copy the data, then update the signal word with a
 * release operation, so a PE that observes the signal with an acquire load
 * (signal_wait_until, wait_until, signal_fetch) also observes the data, on
 * every architecture. Other peers: put, fence, then the signal atomic
 * through the transport, which orders them the same way.
 *
 * Under SYMM_AMO_NET (ops/amo.h: one atomic agent per word) the signal
 * update goes through the transport for every PE, mapped ones and this one
 * included; the data of a put-with-signal to a mapped peer is still copied
 * by the CPU, before the update is issued.
 */
#ifndef SYMM_SIGNAL_H
#define SYMM_SIGNAL_H

#include <stdint.h>

#include "ops/amo.h"

void symm_bad_sig_op(const char *routine, int sig_op) __attribute__((noreturn, cold));

/* Add 1 to the 64-bit flag (a symmetric address) on unmapped PE pe: the
 * transport's notification (one message, the add runs on the owner's CPU,
 * no reply awaited) where it has one, else a non-blocking atomic add whose
 * completion a later quiet collects. The barriers' signal to a partner. */
void symm_signal_add_one_remote(symm_instance_t *s, void *flag, int pe, const char *routine);
void symm_put_signal_slow(struct symm_ctx *ctx, void *dst, const void *src, size_t n,
                          uint64_t *sig_addr, uint64_t signal, int sig_op, int nbi, int pe,
                          const char *routine);

/* Update world PE pe's copy of sig_addr (SHMEM_SIGNAL_SET or _ADD) with
 * release order. */
static inline void symm_signal_update_world(symm_instance_t *s, struct symm_ctx *ctx,
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,
                                            int pe, const char *routine)
{
    if (symm_unlikely((unsigned)sig_op > 1u))
        symm_bad_sig_op(routine, sig_op);
    uint64_t *r = NULL;
    if (symm_unlikely(s->amo_flags)) {
        if (s->amo_flags & SYMM_AMO_DEBUG)
            symm_check_amo(s, routine, sig_addr, sizeof(uint64_t));
        if (s->amo_flags & SYMM_AMO_NET)
            goto agent;
    }
    r = symm_seg_peer_addr(s, sig_addr, pe);
    if (symm_likely(r != NULL)) {
        if (sig_op == 0)
            __atomic_store_n(r, signal, __ATOMIC_RELEASE);
        else
            __atomic_fetch_add(r, signal, __ATOMIC_RELEASE);
        return;
    }
agent:
    symm_amo_slow(ctx, sig_addr, sig_op == 0 ? SYMM_AMO_SET : SYMM_AMO_ADD, sizeof(uint64_t),
                  &signal, NULL, NULL, 0, pe, routine);
}

/* The same with pe numbered in ctx's team. */
static inline void symm_signal_update(struct symm_ctx *ctx, uint64_t *sig_addr, uint64_t signal,
                                      int sig_op, int pe, const char *routine)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    pe = symm_ctx_pe(s, ctx, pe, routine);
    symm_signal_update_world(s, ctx, sig_addr, signal, sig_op, pe, routine);
}

static inline void symm_put_signal(struct symm_ctx *ctx, void *dst, const void *src, size_t n,
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int nbi,
                                   int pe, const char *routine)
{
    symm_instance_t *s;
    void *r = symm_put_target(ctx, &s, dst, src, n, &pe, routine);
    if (symm_likely(r != NULL && n != 0)) {
        memcpy(r, src, n);
        symm_signal_update_world(s, ctx, sig_addr, signal, sig_op, pe, routine);
        return;
    }
    symm_put_signal_slow(ctx, dst, src, n, sig_addr, signal, sig_op, nbi, pe, routine);
}

#endif
