/*
 * amo.c - the general path of atomics: errors, unmapped peers, and every
 * peer when the network transport is the one atomic agent (SYMM_AMO_NET).
 */
#include "ops/amo.h"

#include <stdint.h>

#include "ops/region_ops.h"
#include "runtime/log.h"
#include "runtime/status.h"

void symm_check_amo(const symm_instance_t *s, const char *routine, const void *dst, size_t size)
{
    symm_check_sym(s, routine, dst, size, "dest");
    if (((uintptr_t)dst & (size - 1)) != 0)
        symm_fatal(routine, "dest %p is not aligned to its %zu-byte type", dst, size);
}

void symm_amo_slow(struct symm_ctx *ctx, const void *dst, symm_amo_op_t op, size_t size,
                   const void *operand, const void *compare, void *result, int nbi, int pe,
                   const char *routine)
{
    symm_instance_t *s = symm_cur;
    size_t off, room;
    if (ctx == NULL)
        ctx = &s->ctx_default;
    if (dst == NULL)
        symm_fatal(routine, "dest is NULL");
    int seg = symm_seg_translate(s, dst, &off, &room);
    if (seg == SYMM_SEG_NONE) {
        symm_region_t *r = symm_region_find(s, dst, &off, &room);
        if (r == NULL)
            symm_fatal_not_symmetric(routine, "dest", dst);
        symm_region_amo(ctx, r, off, room, op, size, operand, compare, result, nbi, pe, routine);
        return;
    }
    if (s->net == NULL)
        symm_fatal(routine, "PE %d is not reachable: it is not on this node and no network "
                            "transport is active", pe);
    /* What the CPU wrote before (the data of a put-with-signal copied to a
     * mapped peer, a lock holder's updates) is visible before the
     * transport applies the atomic: the same order a CPU atomic gives. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int rc = s->net->amo(ctx, op, size, seg, off, operand, compare, result, nbi, pe);
    if (rc != 0)
        symm_fatal(routine, "atomic on PE %d failed: %s", pe, symm_status_str((symm_status_t)rc));
}
