/*
 * rma.h - the core RMA routines: put, get, p, g, strided, on bytes.
 *
 * One routine per operation; typed entry points (src/api) are thin wrappers.
 * Fast path: cheap checks, one translation, memcpy/load/store on the mapped
 * peer. Anything else (zero length, non-symmetric address, a peer that is not
 * mapped) goes to the out-of-line general path in rma.c. No lock, no
 * allocation, no system call on the fast path.
 *
 * Layer ops/ (below team/, above transport/; docs/ARCHITECTURE.md): one core
 * routine per operation (RMA, AMO, signal, wait/test, ordering, lock). It
 * includes and calls only its own directory and those below it
 * (scripts/check_layers.sh).
 */
#ifndef SYMM_RMA_H
#define SYMM_RMA_H

#include <stddef.h>
#include <string.h>

#include "mem/seg.h"
#include "runtime/state.h"

#define symm_likely(x) __builtin_expect(!!(x), 1)
#define symm_unlikely(x) __builtin_expect(!!(x), 0)

/* Errors of the checks; never return. */
void symm_bad_pe(const symm_instance_t *s, const char *routine, int pe)
    __attribute__((noreturn, cold));
/* "WHAT ADDR is not a symmetric address (...)": addr is in no segment. */
void symm_fatal_not_symmetric(const char *routine, const char *what, const void *addr)
    __attribute__((noreturn, cold));
/* SHMEM_DEBUG: addr..addr+n must be symmetric and inside one segment. */
void symm_check_sym(const symm_instance_t *s, const char *routine, const void *addr, size_t n,
                    const char *what);

/* Always on, whatever the transport: addr, the start of an n-byte access,
 * is NULL with n > 0, or in no segment and no registered region (cold). */
void symm_check_sym_cold(const symm_instance_t *s, const char *routine, const void *addr,
                         size_t n, const char *what) __attribute__((cold));

/* The checks of a collective's dest and source: whether it runs as pulls
 * (which translate a peer's copy) or as messages (which never translate),
 * a buffer that is not symmetric fails the same way, naming the routine.
 * Always: where it starts (one range compare on the heap; the data ranges
 * and regions only when that fails); SHMEM_DEBUG: its whole extent too. */
static inline void symm_check_sym_start(const symm_instance_t *s, const char *routine,
                                        const void *addr, size_t n, const char *what)
{
    size_t off, room;
    if (n == 0)
        return;
    if (symm_unlikely(s->debug)) {
        symm_check_sym(s, routine, addr, n, what);
        return;
    }
    if (symm_unlikely(symm_seg_translate(s, addr, &off, &room) == SYMM_SEG_NONE))
        symm_check_sym_cold(s, routine, addr, n, what);
}

/* SHMEM_DEBUG: the local buffer of a transfer of n > 0 bytes is not NULL. */
void symm_check_local(const char *routine, const void *buf, size_t n, const char *what);

/* General paths (rma.c). */
void symm_rma_put_slow(struct symm_ctx *ctx, void *dst, const void *src, size_t n, int pe,
                       int nbi, const char *routine);
void symm_rma_get_slow(struct symm_ctx *ctx, void *dst, const void *src, size_t n, int pe,
                       int nbi, const char *routine);
void symm_rma_iput(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                   ptrdiff_t src_stride, size_t nelems, size_t elem, int pe, const char *routine);
void symm_rma_iget(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                   ptrdiff_t src_stride, size_t nelems, size_t elem, int pe, const char *routine);
/* Blocked strided (1.6 ibput/ibget, rma_block.c): nblocks blocks of bsize
 * elements of elem bytes, block i at element i*dst_stride of dst and
 * i*src_stride of src; strides >= 1 when nblocks > 1. */
void symm_rma_ibput(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t bsize, size_t nblocks, size_t elem, int pe,
                    const char *routine);
void symm_rma_ibget(struct symm_ctx *ctx, void *dst, const void *src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t bsize, size_t nblocks, size_t elem, int pe,
                    const char *routine);

static inline symm_instance_t *symm_ctx_inst(struct symm_ctx *ctx, const char *routine)
{
    symm_instance_t *s = symm_cur;
    if (symm_unlikely(s == NULL))
        return symm_require_init(routine);
    (void)ctx;
    return s;
}

/* Check pe and turn it into a world PE: operations on a team's context
 * number PEs within that team. ctx NULL is the default context (what the
 * non-ctx entry points pass: no load on their fast path). */
void symm_bad_team_pe(const struct symm_ctx *ctx, const char *routine, int pe)
    __attribute__((noreturn, cold));
static inline int symm_ctx_pe(const symm_instance_t *s, const struct symm_ctx *ctx, int pe,
                              const char *routine)
{
    if (symm_likely(ctx == NULL || ctx->pe_map == NULL)) {
        if (symm_unlikely((unsigned)pe >= (unsigned)s->n_pes))
            symm_bad_pe(s, routine, pe);
        return pe;
    }
    if (symm_unlikely((unsigned)pe >= (unsigned)ctx->team_size))
        symm_bad_team_pe(ctx, routine, pe);
    return ctx->pe_map[pe];
}

/* The common head of every put: checks, *pe_p made a world PE, and the
 * mapped address of dst on it (NULL: the general path). */
static inline void *symm_put_target(struct symm_ctx *ctx, symm_instance_t **s_p, void *dst,
                                    const void *src, size_t n, int *pe_p, const char *routine)
{
    symm_instance_t *s = *s_p = symm_ctx_inst(ctx, routine);
    *pe_p = symm_ctx_pe(s, ctx, *pe_p, routine);
    if (symm_unlikely(s->debug)) {
        symm_check_sym(s, routine, dst, n, "dest");
        symm_check_local(routine, src, n, "source");
    }
    return symm_seg_peer_addr(s, dst, *pe_p);
}

static inline void symm_rma_put(struct symm_ctx *ctx, void *dst, const void *src, size_t n, int pe,
                                int nbi, const char *routine)
{
    symm_instance_t *s;
    void *r = symm_put_target(ctx, &s, dst, src, n, &pe, routine);
    if (symm_likely(r != NULL && n != 0)) {
        memcpy(r, src, n);
        return;
    }
    symm_rma_put_slow(ctx, dst, src, n, pe, nbi, routine);
}

static inline void symm_rma_get(struct symm_ctx *ctx, void *dst, const void *src, size_t n, int pe,
                                int nbi, const char *routine)
{
    symm_instance_t *s = symm_ctx_inst(ctx, routine);
    pe = symm_ctx_pe(s, ctx, pe, routine);
    if (symm_unlikely(s->debug)) {
        symm_check_sym(s, routine, src, n, "source");
        symm_check_local(routine, dst, n, "dest");
    }
    const void *r = symm_seg_peer_addr(s, src, pe);
    if (symm_likely(r != NULL && n != 0)) {
        memcpy(dst, r, n);
        return;
    }
    symm_rma_get_slow(ctx, dst, src, n, pe, nbi, routine);
}

/* Single-element store/load: one access of the element's width, so a
 * concurrent reader (wait_until) never sees a torn value. SHMEM_DEBUG
 * checks the element as a put or get of its bytes. */
#define SYMM_RMA_P(ctx, T, dst, value, pe, routine)                                         \
    do {                                                                                    \
        symm_instance_t *s_ = symm_ctx_inst(ctx, routine);                                 \
        T v_ = (value);                                                                     \
        int pe_ = symm_ctx_pe(s_, ctx, pe, routine);                                        \
        if (symm_unlikely(s_->debug))                                                       \
            symm_check_sym(s_, routine, dst, sizeof(T), "dest");                            \
        T *r_ = (T *)symm_seg_peer_addr(s_, dst, pe_);                                     \
        if (symm_likely(r_ != NULL))                                                        \
            symm_store_elem(r_, &v_, sizeof(T));                                            \
        else                                                                                \
            symm_rma_put_slow(ctx, dst, &v_, sizeof(T), pe_, 0, routine);                   \
    } while (0)

#define SYMM_RMA_G(ctx, T, src, pe, routine, out)                                           \
    do {                                                                                    \
        symm_instance_t *s_ = symm_ctx_inst(ctx, routine);                                 \
        int pe_ = symm_ctx_pe(s_, ctx, pe, routine);                                        \
        if (symm_unlikely(s_->debug))                                                       \
            symm_check_sym(s_, routine, src, sizeof(T), "source");                          \
        const T *r_ = (const T *)symm_seg_peer_addr(s_, src, pe_);                         \
        if (symm_likely(r_ != NULL))                                                        \
            symm_load_elem(&(out), r_, sizeof(T));                                          \
        else                                                                                \
            symm_rma_get_slow(ctx, &(out), src, sizeof(T), pe_, 0, routine);                \
    } while (0)

static inline __attribute__((always_inline)) void symm_store_elem(void *dst, const void *src,
                                                                  size_t size)
{
    switch (size) {
    case 1: __atomic_store_n((uint8_t *)dst, *(const uint8_t *)src, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)dst, *(const uint16_t *)src, __ATOMIC_RELAXED); break;
    case 4: { uint32_t v; memcpy(&v, src, 4); __atomic_store_n((uint32_t *)dst, v, __ATOMIC_RELAXED); break; }
    case 8: { uint64_t v; memcpy(&v, src, 8); __atomic_store_n((uint64_t *)dst, v, __ATOMIC_RELAXED); break; }
    default: memcpy(dst, src, size); break;
    }
}

static inline __attribute__((always_inline)) void symm_load_elem(void *dst, const void *src,
                                                                 size_t size)
{
    switch (size) {
    case 1: *(uint8_t *)dst = __atomic_load_n((const uint8_t *)src, __ATOMIC_RELAXED); break;
    case 2: *(uint16_t *)dst = __atomic_load_n((const uint16_t *)src, __ATOMIC_RELAXED); break;
    case 4: { uint32_t v = __atomic_load_n((const uint32_t *)src, __ATOMIC_RELAXED); memcpy(dst, &v, 4); break; }
    case 8: { uint64_t v = __atomic_load_n((const uint64_t *)src, __ATOMIC_RELAXED); memcpy(dst, &v, 8); break; }
    default: memcpy(dst, src, size); break;
    }
}

#endif
