/*
 * rma.c - general RMA paths: zero length, errors, unmapped peers, strided.
 *
 * Reached only when the inline fast path of rma.h cannot finish: it decides
 * whether the call is a no-op, an error (reported naming the routine, the
 * bad value and the PE), or a transfer through the network transport.
 */
#include "ops/rma.h"

#include <stdint.h>

#include "mem/blocks.h"
#include "ops/region_ops.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "transport/transport.h"

void symm_bad_pe(const symm_instance_t *s, const char *routine, int pe)
{
    symm_fatal(routine, "target PE %d outside [0,%d)", pe, s->n_pes);
}

void symm_bad_team_pe(const struct symm_ctx *ctx, const char *routine, int pe)
{
    symm_fatal(routine, "target PE %d outside [0,%d) of the context's team", pe, ctx->team_size);
}

void symm_fatal_not_symmetric(const char *routine, const char *what, const void *addr)
{
    symm_fatal(routine, "%s %p is not a symmetric address (not in the symmetric heap or the "
                        "program's global data)", what, addr);
}

/* SHMEM_DEBUG: a range that starts in a heap block ends inside the size
 * asked for (mem/blocks.h): a run into the next block, or into the
 * rounding after this one, is memory the segment check lets through. */
static void check_block(const symm_instance_t *s, const char *routine, const void *addr, size_t n,
                        const char *what)
{
    symm_block_rec_t b;
    size_t off = (size_t)((const char *)addr - s->heap_base);
    if (!symm_blocks_find(s->blocks, off, &b) || off - b.off + n <= b.size)
        return;
    char site[256];
    symm_site_format(b.site, site, sizeof(site));
    symm_fatal(routine,
               "%s %p + %zu bytes runs %zu bytes past the end of symmetric block %p "
               "(%zu bytes, allocated at %s)",
               what, addr, n, off - b.off + n - b.size, (void *)(s->heap_base + b.off), b.size,
               site);
}

/* SHMEM_DEBUG: the same for a global the dynamic symbol table knows. */
static void check_global(const char *routine, const void *addr, size_t n, const char *what)
{
    const char *start, *name;
    size_t size;
    if (!symm_global_bounds(addr, &start, &size, &name) ||
        (size_t)((const char *)addr - start) + n <= size)
        return;
    symm_fatal(routine, "%s %p + %zu bytes runs %zu bytes past the end of global %s (%zu bytes)",
               what, addr, n, (size_t)((const char *)addr - start) + n - size, name, size);
}

void symm_check_sym(const symm_instance_t *s, const char *routine, const void *addr, size_t n,
                    const char *what)
{
    size_t off, room;
    if (n == 0)
        return;
    if (addr == NULL)
        symm_fatal(routine, "%s is NULL with length %zu", what, n);
    symm_seg_id_t seg = symm_seg_translate(s, addr, &off, &room);
    if (seg == SYMM_SEG_NONE) {
        symm_region_t *r = symm_region_find(s, addr, &off, &room);
        if (r == NULL)
            symm_fatal_not_symmetric(routine, what, addr);
        if (n > room)
            symm_fatal(routine, "%s %p + %zu bytes runs %zu bytes past the end of registered "
                                "region %d (%zu bytes)", what, addr, n, n - room, r->id, r->size);
    }
    if (n > room)
        symm_fatal(routine, "%s %p + %zu bytes runs %zu bytes past the end of its symmetric "
                            "segment", what, addr, n, n - room);
    if (seg == SYMM_SEG_HEAP && s->blocks != NULL)
        check_block(s, routine, addr, n, what);
    else if (seg == SYMM_SEG_DATA)
        check_global(routine, addr, n, what);
}

void symm_check_sym_cold(const symm_instance_t *s, const char *routine, const void *addr,
                         size_t n, const char *what)
{
    size_t off, room;
    if (addr == NULL)
        symm_fatal(routine, "%s is NULL with length %zu", what, n);
    if (symm_seg_translate(s, addr, &off, &room) == SYMM_SEG_NONE &&
        symm_region_find(s, addr, &off, &room) == NULL)
        symm_fatal_not_symmetric(routine, what, addr);
}

void symm_check_local(const char *routine, const void *buf, size_t n, const char *what)
{
    if (buf == NULL && n != 0)
        symm_fatal(routine, "%s is NULL with length %zu", what, n);
}

/* Why a transfer to pe at addr cannot be done inline; never returns. */
static void __attribute__((noreturn)) rma_unreachable(const symm_instance_t *s,
                                                      const char *routine, const void *addr,
                                                      size_t n, int pe, const char *what)
{
    size_t off, room;
    if (addr == NULL)
        symm_fatal(routine, "%s is NULL with length %zu", what, n);
    if (symm_seg_translate(s, addr, &off, &room) == SYMM_SEG_NONE)
        symm_fatal_not_symmetric(routine, what, addr);
    symm_fatal(routine, "PE %d is not reachable: it is not on this node and no network "
                        "transport is active", pe);
}

/* The general path of a put (sym is dest, buf the source) or a get (sym is
 * source, buf the dest): errors, else the network transport. */
static void rma_slow(struct symm_ctx *ctx, int put, const void *sym, void *buf, size_t n, int pe,
                     int nbi, const char *routine)
{
    symm_instance_t *s = symm_cur;
    size_t off, room;
    if (n == 0)
        return;
    if (ctx == NULL)
        ctx = &s->ctx_default;
    if (buf == NULL)
        symm_fatal(routine, "%s is NULL with length %zu", put ? "source" : "dest", n);
    int seg = symm_seg_translate(s, sym, &off, &room);
    if (seg == SYMM_SEG_NONE) {
        /* Registered memory: the one place it is looked up for RMA. */
        symm_region_t *r = symm_region_find(s, sym, &off, &room);
        if (r != NULL) {
            symm_region_rma(ctx, put, r, off, room, buf, n, pe, nbi, routine);
            return;
        }
    }
    if (seg == SYMM_SEG_NONE || s->net == NULL)
        rma_unreachable(s, routine, sym, n, pe, put ? "dest" : "source");
    const symm_transport_ops_t *t = s->net;
    int rc = put ? (nbi ? t->put_nbi : t->put)(ctx, seg, off, buf, n, pe)
                 : (nbi ? t->get_nbi : t->get)(ctx, buf, seg, off, n, pe);
    if (rc != 0)
        symm_fatal(routine, "%s of %zu bytes %s PE %d failed: %s", put ? "put" : "get", n,
                   put ? "to" : "from", pe, symm_status_str((symm_status_t)rc));
}

void symm_rma_put_slow(struct symm_ctx *ctx, void *dst, const void *src, size_t n, int pe,
                       int nbi, const char *routine)
{
    rma_slow(ctx, 1, dst, (void *)(uintptr_t)src, n, pe, nbi, routine);
}

void symm_rma_get_slow(struct symm_ctx *ctx, void *dst, const void *src, size_t n, int pe,
                       int nbi, const char *routine)
{
    rma_slow(ctx, 0, src, dst, n, pe, nbi, routine);
}

/* Copy nelems elements of size elem between strided arrays; the element
 * size is dispatched once, outside the loop. */
#define SYMM_STRIDED_COPY(T)                                                               \
    do {                                                                                   \
        T *d_ = (T *)d;                                                                    \
        const T *s_ = (const T *)sp;                                                       \
        for (size_t i = 0; i < nelems; i++)                                                \
            d_[(ptrdiff_t)i * ds] = s_[(ptrdiff_t)i * ss];                                 \
    } while (0)

typedef struct { uint64_t w[2]; } symm_u128_t;

static void strided_copy(void *d, const void *sp, ptrdiff_t ds, ptrdiff_t ss, size_t nelems,
                         size_t elem)
{
    switch (elem) {
    case 1: SYMM_STRIDED_COPY(uint8_t); break;
    case 2: SYMM_STRIDED_COPY(uint16_t); break;
    case 4: SYMM_STRIDED_COPY(uint32_t); break;
    case 8: SYMM_STRIDED_COPY(uint64_t); break;
    case 16: SYMM_STRIDED_COPY(symm_u128_t); break;
    default:
        for (size_t i = 0; i < nelems; i++)
            memcpy((char *)d + (ptrdiff_t)i * ds * (ptrdiff_t)elem,
                   (const char *)sp + (ptrdiff_t)i * ss * (ptrdiff_t)elem, elem);
    }
}

/* Lowest address and extent touched by a strided access, for checks. */
static void strided_extent(const void *base, ptrdiff_t stride, size_t nelems, size_t elem,
                           const char **lo_p, size_t *len_p)
{
    ptrdiff_t last = (ptrdiff_t)(nelems - 1) * stride * (ptrdiff_t)elem;
    const char *b = base;
    *lo_p = last < 0 ? b + last : b;
    *len_p = (size_t)(last < 0 ? -last : last) + elem;
}

void symm_rma_iput(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                   ptrdiff_t src_stride, size_t nelems, size_t elem, int pe, const char *routine)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    pe = symm_ctx_pe(s, ctx, pe, routine);
    if (nelems == 0)
        return;
    if (s->debug) {
        const char *lo;
        size_t len;
        strided_extent(dst, dst_stride, nelems, elem, &lo, &len);
        symm_check_sym(s, routine, lo, len, "dest");
    }
    char *r = symm_seg_peer_addr(s, dst, pe);
    if (symm_likely(r != NULL && src != NULL)) {
        strided_copy(r, src, dst_stride, src_stride, nelems, elem);
        return;
    }
    for (size_t i = 0; i < nelems; i++)
        symm_rma_put_slow(ctx, (char *)dst + (ptrdiff_t)i * dst_stride * (ptrdiff_t)elem,
                          (const char *)src + (ptrdiff_t)i * src_stride * (ptrdiff_t)elem, elem,
                          pe, 1, routine);
    if (s->net)
        symm_net_check(s->net->quiet(ctx ? ctx : &s->ctx_default), routine, "quiet");
}

void symm_rma_iget(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                   ptrdiff_t src_stride, size_t nelems, size_t elem, int pe, const char *routine)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    pe = symm_ctx_pe(s, ctx, pe, routine);
    if (nelems == 0)
        return;
    if (s->debug) {
        const char *lo;
        size_t len;
        strided_extent(src, src_stride, nelems, elem, &lo, &len);
        symm_check_sym(s, routine, lo, len, "source");
    }
    const char *r = symm_seg_peer_addr(s, src, pe);
    if (symm_likely(r != NULL && dst != NULL)) {
        strided_copy(dst, r, dst_stride, src_stride, nelems, elem);
        return;
    }
    for (size_t i = 0; i < nelems; i++)
        symm_rma_get_slow(ctx, (char *)dst + (ptrdiff_t)i * dst_stride * (ptrdiff_t)elem,
                          (const char *)src + (ptrdiff_t)i * src_stride * (ptrdiff_t)elem, elem,
                          pe, 1, routine);
    if (s->net)
        symm_net_check(s->net->quiet(ctx ? ctx : &s->ctx_default), routine, "quiet");
}
