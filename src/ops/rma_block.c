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

#include "ops/sync.h"
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

/* Both directions: is_put, the remote side is dest (put) or source (get). */
static void rma_blocks(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                       ptrdiff_t src_stride, size_t bsize, size_t nblocks, size_t elem, int pe,
                       int is_put, const char *routine)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    int wpe = symm_ctx_pe(s, ctx, pe, routine);
    if (nblocks == 0 || bsize == 0)
        return;
    block_check(routine, is_put ? src : dst, is_put ? "source" : "dest", dst_stride,
                src_stride, bsize, nblocks, pe);
    if (symm_unlikely(s->debug))
        symm_check_sym(s, routine, is_put ? dst : src,
                       block_extent(is_put ? dst_stride : src_stride, bsize, nblocks, elem),
                       is_put ? "dest" : "source");
    size_t bbytes = bsize * elem, dstep = (size_t)dst_stride * elem,
           sstep = (size_t)src_stride * elem;
    char *dp = dst;
    const char *sp = src;
    char *r = symm_seg_peer_addr(s, is_put ? dst : src, wpe);
    if (symm_likely(r != NULL)) {
        if (is_put)
            dp = r;
        else
            sp = r;
        for (size_t i = 0; i < nblocks; i++)
            memcpy(dp + i * dstep, sp + i * sstep, bbytes);
        return;
    }
    for (size_t i = 0; i < nblocks; i++) {
        if (is_put)
            symm_rma_put_slow(ctx, dp + i * dstep, sp + i * sstep, bbytes, wpe, 1, routine);
        else
            symm_rma_get_slow(ctx, dp + i * dstep, sp + i * sstep, bbytes, wpe, 1, routine);
    }
    if (s->net)
        symm_net_check(s->net->quiet(ctx ? ctx : &s->ctx_default), routine, "quiet");
}

void symm_rma_ibput(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t bsize, size_t nblocks, size_t elem, int pe,
                    const char *routine)
{
    rma_blocks(ctx, dst, src, dst_stride, src_stride, bsize, nblocks, elem, pe, 1, routine);
}

void symm_rma_ibget(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t bsize, size_t nblocks, size_t elem, int pe,
                    const char *routine)
{
    rma_blocks(ctx, dst, src, dst_stride, src_stride, bsize, nblocks, elem, pe, 0, routine);
}
