/*
 * amo.h - the core atomic memory operation routine.
 *
 * On a mapped peer an AMO is one CPU atomic (__atomic builtin, sequentially
 * consistent) on the peer's mapped address: atomic across PEs because the
 * memory is shared, and across threads of a PE. No lock, no syscall. Other
 * peers go through the transport's amo op (amo.c).
 *
 * One atomic agent per word: a NIC atomic (UCX over rc_mlx5, rc_verbs,
 * dc_mlx5, ...) is not atomic against a CPU atomic on the same word, so
 * when other nodes reach this heap with device atomics (SYMM_AMO_NET, chosen
 * once at init: runtime/atomics.h) every atomic update, even on a mapped
 * peer or on this PE itself, goes through the transport: the NIC is then
 * the only agent. Loads (atomic_fetch, wait_until) stay CPU loads either
 * way: a NIC atomic is coherent with them, and a fence then completes the
 * transport's atomics so a load after it sees them (symm_fence, ops/sync.h).
 * The test costs nothing more than SHMEM_DEBUG's did: one predictable
 * branch on the same word.
 */
#ifndef SYMM_AMO_H
#define SYMM_AMO_H

#include "ops/rma.h"
#include "transport/transport.h"

/* SHMEM_DEBUG: dst is symmetric, inside its segment and naturally aligned. */
void symm_check_amo(const symm_instance_t *s, const char *routine, const void *dst, size_t size);

/* General path: non-symmetric dst (error), unmapped peer (transport). */
void symm_amo_slow(struct symm_ctx *ctx, const void *dst, symm_amo_op_t op, size_t size,
                   const void *operand, const void *compare, void *result, int nbi, int pe,
                   const char *routine);

/* The mapped address of dst on pe, or NULL for the general path (always
 * NULL under SYMM_AMO_NET unless load_only: a load needs no agent). *pe_p is
 * turned into a world PE (see symm_ctx_pe). */
static inline void *symm_amo_target_for(struct symm_ctx *ctx, const void *dst, size_t size,
                                        int *pe_p, const char *routine, int load_only)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    *pe_p = symm_ctx_pe(s, ctx, *pe_p, routine);
    if (symm_unlikely(s->amo_flags)) {
        if (s->amo_flags & SYMM_AMO_DEBUG)
            symm_check_amo(s, routine, dst, size);
        if ((s->amo_flags & SYMM_AMO_NET) && !load_only)
            return NULL;
    }
    return symm_seg_peer_addr(s, dst, *pe_p);
}

/* An update (read-modify-write or store) of dst on pe. */
static inline void *symm_amo_target(struct symm_ctx *ctx, const void *dst, size_t size, int *pe_p,
                                    const char *routine)
{
    return symm_amo_target_for(ctx, dst, size, pe_p, routine, 0);
}

#define SYMM_AMO_ORDER __ATOMIC_SEQ_CST

/* Run MAPPED (which sees the peer address as r_) or the general path. */
#define SYMM_AMO_DO(ctx, T, dst, pe, op, operand_p, compare_p, result_p, nbi, routine, MAPPED) \
    SYMM_AMO_DO_(ctx, T, dst, pe, op, operand_p, compare_p, result_p, nbi, routine, 0, MAPPED)
/* The same for an atomic fetch: a CPU load on a mapped peer even under
 * SYMM_AMO_NET. */
#define SYMM_AMO_LOAD(ctx, T, dst, pe, result_p, nbi, routine, MAPPED)                    \
    SYMM_AMO_DO_(ctx, T, dst, pe, SYMM_AMO_FETCH, NULL, NULL, result_p, nbi, routine, 1, MAPPED)

#define SYMM_AMO_DO_(ctx, T, dst, pe, op, operand_p, compare_p, result_p, nbi, routine, load, \
                     MAPPED)                                                             \
    do {                                                                                 \
        int pe_ = (pe);                                                                  \
        T *r_ = (T *)symm_amo_target_for(ctx, dst, sizeof(T), &pe_, routine, load);     \
        if (symm_likely(r_ != NULL)) {                                                   \
            MAPPED;                                                                      \
        } else {                                                                         \
            symm_amo_slow(ctx, dst, op, sizeof(T), operand_p, compare_p, result_p, nbi,  \
                          pe_, routine);                                                 \
        }                                                                                \
    } while (0)

#endif
