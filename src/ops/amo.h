/*
 * amo.h - the core atomic memory operation routine.
 *
 * On a mapped peer an AMO is one CPU atomic (__atomic builtin, sequentially
 * consistent) on the peer's mapped address: atomic across PEs because the
 * memory is shared, and across threads of a PE. No lock, no syscall. Other
 * peers go through the transport's amo op (amo.c).
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

/* The mapped address of dst on pe, or NULL for the general path. */
/* *pe_p is turned into a world PE (see symm_ctx_pe). */
static inline void *symm_amo_target(struct symm_ctx *ctx, const void *dst, size_t size, int *pe_p,
                                    const char *routine)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    *pe_p = symm_ctx_pe(s, ctx, *pe_p, routine);
    if (symm_unlikely(s->debug))
        symm_check_amo(s, routine, dst, size);
    return symm_seg_peer_addr(s, dst, *pe_p);
}

#define SYMM_AMO_ORDER __ATOMIC_SEQ_CST

/* Run MAPPED (which sees the peer address as r_) or the general path. */
#define SYMM_AMO_DO(ctx, T, dst, pe, op, operand_p, compare_p, result_p, nbi, routine, MAPPED) \
    do {                                                                                 \
        int pe_ = (pe);                                                                  \
        T *r_ = (T *)symm_amo_target(ctx, dst, sizeof(T), &pe_, routine);               \
        if (symm_likely(r_ != NULL)) {                                                   \
            MAPPED;                                                                      \
        } else {                                                                         \
            symm_amo_slow(ctx, dst, op, sizeof(T), operand_p, compare_p, result_p, nbi,  \
                          pe_, routine);                                                 \
        }                                                                                \
    } while (0)

#endif
