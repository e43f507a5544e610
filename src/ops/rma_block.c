/*
 * rma_block.c - blocked strided transfers (OpenSHMEM 1.6 ibput, ibget).
 *
 * nblocks blocks of bsize contiguous elements: block i starts at element
 * i * dst of dest and i * sst of source (strides in elements, scaled by the
 * element size here). A mapped peer is a memcpy per block; any other goes
 * block by block through the network transport's non-blocking put/get and
 * completes with one quiet of the context, as iput does (rma.c). Never
 * allocates, never locks.
 */
#include "ops/rma.h"

#include <stdint.h>
#include <string.h>

#include "runtime/log.h"
#include "transport/transport.h"

/* Fatal on a bad argument, naming the routine, the value and the PE. */
static void block_check(const char *routine, const void *local, const char *what,
                        ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t bsize, size_t nblocks,
                        int pe)
{
    if (local == NULL)
        symm_fatal(routine, "%s is NULL with %zu blocks of %zu elements (target PE %d)", what,
                   nblocks, bsize, pe);
    if (nblocks > 1 && dst_stride < 1)
        symm_fatal(routine, "dst stride %td is below 1 (target PE %d)", dst_stride, pe);
    if (nblocks > 1 && src_stride < 1)
        symm_fatal(routine, "sst stride %td is below 1 (target PE %d)", src_stride, pe);
}

/* The extent a blocked access touches, for the SHMEM_DEBUG symmetric check. */
static size_t block_extent(ptrdiff_t stride, size_t bsize, size_t nblocks, size_t elem)
{
    return ((nblocks - 1) * (size_t)stride + bsize) * elem;
}

void symm_rma_ibput(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t bsize, size_t nblocks, size_t elem, int pe,
                    const char *routine)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    int wpe = symm_ctx_pe(s, ctx, pe, routine);
    if (nblocks == 0 || bsize == 0)
        return;
    block_check(routine, src, "source", dst_stride, src_stride, bsize, nblocks, pe);
    if (symm_unlikely(s->debug))
        symm_check_sym(s, routine, dst, block_extent(dst_stride, bsize, nblocks, elem), "dest");
    size_t bbytes = bsize * elem, dstep = (size_t)dst_stride * elem, sstep = (size_t)src_stride * elem;
    const char *sp = src;
    char *r = symm_seg_peer_addr(s, dst, wpe);
    if (symm_likely(r != NULL)) {
        for (size_t i = 0; i < nblocks; i++)
            memcpy(r + i * dstep, sp + i * sstep, bbytes);
        return;
    }
    for (size_t i = 0; i < nblocks; i++)
        symm_rma_put_slow(ctx, (char *)dst + i * dstep, sp + i * sstep, bbytes, wpe, 1, routine);
    if (s->net)
        s->net->quiet(ctx ? ctx : &s->ctx_default);
}

void symm_rma_ibget(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t bsize, size_t nblocks, size_t elem, int pe,
                    const char *routine)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    int wpe = symm_ctx_pe(s, ctx, pe, routine);
    if (nblocks == 0 || bsize == 0)
        return;
    block_check(routine, dst, "dest", dst_stride, src_stride, bsize, nblocks, pe);
    if (symm_unlikely(s->debug))
        symm_check_sym(s, routine, src, block_extent(src_stride, bsize, nblocks, elem), "source");
    size_t bbytes = bsize * elem, dstep = (size_t)dst_stride * elem, sstep = (size_t)src_stride * elem;
    char *dp = dst;
    const char *r = symm_seg_peer_addr(s, src, wpe);
    if (symm_likely(r != NULL)) {
        for (size_t i = 0; i < nblocks; i++)
            memcpy(dp + i * dstep, r + i * sstep, bbytes);
        return;
    }
    for (size_t i = 0; i < nblocks; i++)
        symm_rma_get_slow(ctx, dp + i * dstep, (const char *)src + i * sstep, bbytes, wpe, 1,
                          routine);
    if (s->net)
        s->net->quiet(ctx ? ctx : &s->ctx_default);
}
