/*
 * signal.c - general path of put-with-signal: zero length, unmapped peers.
 */
#include "ops/signal.h"

#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"

/* The barriers' flags are 64-bit words (pSync: longs). */
_Static_assert(sizeof(long) == sizeof(uint64_t), "long is not 64 bits");

void symm_signal_add_one_remote(symm_instance_t *s, void *flag, int pe, const char *routine)
{
    size_t off, room;
    int seg = symm_seg_translate(s, flag, &off, &room);
    if (seg != SYMM_SEG_NONE && s->net != NULL && s->net->notify != NULL) {
        int rc = s->net->notify(&s->ctx_default, seg, off, 1, pe);
        if (rc != 0)
            symm_fatal(routine, "signalling PE %d failed: %s", pe,
                       symm_status_str((symm_status_t)rc));
        return;
    }
    uint64_t one = 1;
    symm_amo_slow(NULL, flag, SYMM_AMO_ADD, sizeof(one), &one, NULL, NULL, 0, pe, routine);
}

void symm_bad_sig_op(const char *routine, int sig_op)
{
    symm_fatal(routine, "invalid signal operator %d (expected SHMEM_SIGNAL_SET or "
                        "SHMEM_SIGNAL_ADD)", sig_op);
}

void symm_put_signal_slow(struct symm_ctx *ctx, void *dst, const void *src, size_t n,
                          uint64_t *sig_addr, uint64_t signal, int sig_op, int nbi, int pe,
                          const char *routine)
{
    symm_instance_t *s = symm_cur;
    symm_rma_put_slow(ctx, dst, src, n, pe, nbi, routine);
    /* The data must be delivered before the signal changes. */
    if (n != 0 && symm_seg_peer_addr(s, dst, pe) == NULL)
        symm_fence(s, ctx ? ctx : &s->ctx_default);
    symm_signal_update_world(s, ctx, sig_addr, signal, sig_op, pe, routine);
}
