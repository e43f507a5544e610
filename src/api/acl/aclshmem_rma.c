/*
 * aclshmem_rma.c - aclshmem symmetric heap, RMA and put-with-signal.
 *
 * Each routine is one call of the core routine its OpenSHMEM counterpart
 * calls (ops/rma.h, core/heap.h), with CANN's signature and its own name in
 * error messages. Put-with-signal follows ops/signal.h with a 32-bit signal
 * word (CANN's): the data, then the signal with release order through the
 * core's 32-bit atomics, so a PE that sees the signal sees the data.
 */
#include <stdint.h>
#include <string.h>

#include "aclshmem.h"
#include "mem/alloc.h"
#include "core/heap.h"
#include "mem/seg.h"
#include "ops/rma.h"
#include "ops/signal.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "shmem.h"

/* The default context; no load on the fast path. */
#define ACL_CTX ((struct symm_ctx *)0)

/* ---- symmetric heap ------------------------------------------------------- */

void *aclshmem_malloc(size_t size)
{
    return symm_heap_malloc(symm_inst(__func__), size, SYMM_ALLOC_MIN_ALIGN, false, __func__,
                            SYMM_CALL_SITE);
}

static void *acl_calloc(size_t count, size_t size, const char *routine, const void *site)
{
    symm_instance_t *s = symm_inst(routine);
    if (size != 0 && count > SIZE_MAX / size) {
        symm_error(routine, "%zu elements of %zu bytes overflow size_t", count, size);
        return NULL;
    }
    return symm_heap_malloc(s, count * size, SYMM_ALLOC_MIN_ALIGN, true, routine, site);
}

static void *acl_align(size_t alignment, size_t size, const char *routine, const void *site)
{
    symm_instance_t *s = symm_inst(routine);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        symm_error(routine, "alignment %zu is not a power of two", alignment);
        return NULL;
    }
    return symm_heap_malloc(s, size, alignment, false, routine, site);
}

void *aclshmem_calloc(size_t nmemb, size_t size)
{
    return acl_calloc(nmemb, size, __func__, SYMM_CALL_SITE);
}
void *aclshmem_align(size_t alignment, size_t size)
{
    return acl_align(alignment, size, __func__, SYMM_CALL_SITE);
}
void aclshmem_free(void *ptr) { symm_heap_free(symm_inst(__func__), ptr, __func__); }

/* mem_type: host and device memory are one heap here. */
void *aclshmemx_malloc(size_t size, aclshmem_mem_type_t mem_type)
{
    (void)mem_type;
    return symm_heap_malloc(symm_inst(__func__), size, SYMM_ALLOC_MIN_ALIGN, false, __func__,
                            SYMM_CALL_SITE);
}

void *aclshmemx_calloc(size_t count, size_t size, aclshmem_mem_type_t mem_type)
{
    (void)mem_type;
    return acl_calloc(count, size, __func__, SYMM_CALL_SITE);
}

void *aclshmemx_align(size_t alignment, size_t size, aclshmem_mem_type_t mem_type)
{
    (void)mem_type;
    return acl_align(alignment, size, __func__, SYMM_CALL_SITE);
}

void aclshmemx_free(void *ptr, aclshmem_mem_type_t mem_type)
{
    (void)mem_type;
    symm_heap_free(symm_inst(__func__), ptr, __func__);
}

/* The first byte the allocator hands out (the heap's reserved scratch lies
 * below it): [base, base + local_mem_size) holds every allocation. */
void *aclshmemx_get_heap_base(aclshmem_mem_type_t mem_type)
{
    symm_instance_t *s = symm_cur;
    (void)mem_type;
    return s != NULL ? s->heap_base + s->scratch_size : NULL;
}

void *aclshmem_ptr(void *ptr, int pe) { return symm_cur != NULL ? shmem_ptr(ptr, pe) : NULL; }

/* ---- put-with-signal, 32-bit signals --------------------------------------- */

/* Set or add to world PE pe's 32-bit sig with release order. */
static inline void acl_signal32(int32_t *sig, int32_t signal, int sig_op, int pe,
                                const char *routine)
{
    int32_t v = signal;
    if (symm_unlikely((unsigned)sig_op > 1u))
        symm_bad_sig_op(routine, sig_op);
    if (sig_op == ACLSHMEM_SIGNAL_SET)
        SYMM_AMO_DO(ACL_CTX, int32_t, sig, pe, SYMM_AMO_SET, &v, NULL, NULL, 0, routine,
                    __atomic_store_n(r_, v, __ATOMIC_RELEASE));
    else
        SYMM_AMO_DO(ACL_CTX, int32_t, sig, pe, SYMM_AMO_ADD, &v, NULL, NULL, 0, routine,
                    __atomic_fetch_add(r_, v, __ATOMIC_RELEASE));
}

static inline void acl_put_signal(void *dst, const void *src, size_t n, int32_t *sig,
                                  int32_t signal, int sig_op, int nbi, int pe,
                                  const char *routine)
{
    symm_instance_t *s;
    void *r = symm_put_target(ACL_CTX, &s, dst, src, n, &pe, routine);
    if (symm_likely(r != NULL && n != 0)) {
        memcpy(r, src, n);
    } else {
        symm_rma_put_slow(ACL_CTX, dst, src, n, pe, nbi, routine);
        /* The data must be delivered before the signal changes. */
        if (n != 0 && r == NULL)
            symm_fence(s, &s->ctx_default);
    }
    acl_signal32(sig, signal, sig_op, pe, routine);
}

void aclshmemx_signal_op(int32_t *sig_addr, int32_t signal, int sig_op, int pe)
{
    acl_signal32(sig_addr, signal, sig_op, pe, __func__);
}

void aclshmem_quiet(void)
{
    symm_instance_t *s = symm_inst(__func__);
    symm_quiet(s, &s->ctx_default);
}

void aclshmem_fence(void)
{
    symm_instance_t *s = symm_inst(__func__);
    symm_fence(s, &s->ctx_default);
}

void aclshmemx_putmem_signal(void *dst, void *src, size_t elem_size, void *sig_addr,
                             int32_t signal, int sig_op, int pe)
{
    acl_put_signal(dst, src, elem_size, (int32_t *)sig_addr, signal, sig_op, 0, pe, __func__);
}

void aclshmemx_putmem_signal_nbi(void *dst, void *src, size_t elem_size, void *sig_addr,
                                 int32_t signal, int sig_op, int pe)
{
    acl_put_signal(dst, src, elem_size, (int32_t *)sig_addr, signal, sig_op, 1, pe, __func__);
}

/* ---- typed RMA -------------------------------------------------------------- */

#define ACL_DEF_RMA(NAME, T)                                                                 \
    void aclshmem_##NAME##_put(T *dest, T *source, size_t nelems, int pe)                    \
    {                                                                                        \
        symm_rma_put(ACL_CTX, dest, source, nelems * sizeof(T), pe, 0, __func__);            \
    }                                                                                        \
    void aclshmem_##NAME##_put_nbi(T *dest, T *source, size_t nelems, int pe)                \
    {                                                                                        \
        symm_rma_put(ACL_CTX, dest, source, nelems * sizeof(T), pe, 1, __func__);            \
    }                                                                                        \
    void aclshmem_##NAME##_get(T *dest, T *source, size_t nelems, int pe)                    \
    {                                                                                        \
        symm_rma_get(ACL_CTX, dest, source, nelems * sizeof(T), pe, 0, __func__);            \
    }                                                                                        \
    void aclshmem_##NAME##_get_nbi(T *dest, T *source, size_t nelems, int pe)                \
    {                                                                                        \
        symm_rma_get(ACL_CTX, dest, source, nelems * sizeof(T), pe, 1, __func__);            \
    }                                                                                        \
    void aclshmem_##NAME##_iput(T *dest, T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                                size_t nelems, int pe)                                       \
    {                                                                                        \
        symm_rma_iput(ACL_CTX, dest, source, dst, sst, nelems, sizeof(T), pe, __func__);     \
    }                                                                                        \
    void aclshmem_##NAME##_iget(T *dest, T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                                size_t nelems, int pe)                                       \
    {                                                                                        \
        symm_rma_iget(ACL_CTX, dest, source, dst, sst, nelems, sizeof(T), pe, __func__);     \
    }                                                                                        \
    void aclshmem_##NAME##_p(T *dst, const T value, int pe)                                  \
    {                                                                                        \
        SYMM_RMA_P(ACL_CTX, T, dst, value, pe, __func__);                                    \
    }                                                                                        \
    T aclshmem_##NAME##_g(T *src, int32_t pe)                                                \
    {                                                                                        \
        T out;                                                                               \
        SYMM_RMA_G(ACL_CTX, T, src, pe, __func__, out);                                      \
        return out;                                                                          \
    }                                                                                        \
    void aclshmem_##NAME##_put_signal(T *dst, T *src, size_t elem_size, uint8_t *sig_addr,   \
                                      int32_t signal, int sig_op, int pe)                    \
    {                                                                                        \
        acl_put_signal(dst, src, elem_size * sizeof(T), (int32_t *)(void *)sig_addr, signal, \
                       sig_op, 0, pe, __func__);                                             \
    }                                                                                        \
    void aclshmem_##NAME##_put_signal_nbi(T *dst, T *src, size_t elem_size,                  \
                                          uint8_t *sig_addr, int32_t signal, int sig_op,     \
                                          int pe)                                            \
    {                                                                                        \
        acl_put_signal(dst, src, elem_size * sizeof(T), (int32_t *)(void *)sig_addr, signal, \
                       sig_op, 1, pe, __func__);                                             \
    }
SYMM_ACL_RMA_TYPES(ACL_DEF_RMA)

/* ---- sized and untyped RMA ---------------------------------------------------- */

#define ACL_DEF_SIZED(BITS)                                                                  \
    void aclshmem_put##BITS(void *dst, void *src, uint32_t elem_size, int32_t pe)            \
    {                                                                                        \
        symm_rma_put(ACL_CTX, dst, src, (size_t)elem_size * ((BITS) / 8), pe, 0, __func__);  \
    }                                                                                        \
    void aclshmem_put##BITS##_nbi(void *dst, void *src, uint32_t elem_size, int32_t pe)      \
    {                                                                                        \
        symm_rma_put(ACL_CTX, dst, src, (size_t)elem_size * ((BITS) / 8), pe, 1, __func__);  \
    }                                                                                        \
    void aclshmem_get##BITS(void *dst, void *src, uint32_t elem_size, int32_t pe)            \
    {                                                                                        \
        symm_rma_get(ACL_CTX, dst, src, (size_t)elem_size * ((BITS) / 8), pe, 0, __func__);  \
    }                                                                                        \
    void aclshmem_get##BITS##_nbi(void *dst, void *src, uint32_t elem_size, int32_t pe)      \
    {                                                                                        \
        symm_rma_get(ACL_CTX, dst, src, (size_t)elem_size * ((BITS) / 8), pe, 1, __func__);  \
    }                                                                                        \
    void aclshmem_iput##BITS(void *dest, void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                             size_t nelems, int pe)                                          \
    {                                                                                        \
        symm_rma_iput(ACL_CTX, dest, source, dst, sst, nelems, (BITS) / 8, pe, __func__);    \
    }                                                                                        \
    void aclshmem_iget##BITS(void *dest, void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                             size_t nelems, int pe)                                          \
    {                                                                                        \
        symm_rma_iget(ACL_CTX, dest, source, dst, sst, nelems, (BITS) / 8, pe, __func__);    \
    }                                                                                        \
    void aclshmem_put##BITS##_signal(void *dst, void *src, size_t nelems, int32_t *sig_addr, \
                                     int32_t signal, int sig_op, int pe)                     \
    {                                                                                        \
        acl_put_signal(dst, src, nelems * ((BITS) / 8), sig_addr, signal, sig_op, 0, pe,     \
                       __func__);                                                            \
    }                                                                                        \
    void aclshmem_put##BITS##_signal_nbi(void *dst, void *src, size_t nelems,                \
                                         int32_t *sig_addr, int32_t signal, int sig_op,      \
                                         int pe)                                             \
    {                                                                                        \
        acl_put_signal(dst, src, nelems * ((BITS) / 8), sig_addr, signal, sig_op, 1, pe,     \
                       __func__);                                                            \
    }
SYMM_ACL_SIZES(ACL_DEF_SIZED)

void aclshmem_putmem(void *dst, void *src, size_t elem_size, int32_t pe)
{
    symm_rma_put(ACL_CTX, dst, src, elem_size, pe, 0, __func__);
}

void aclshmem_getmem(void *dst, void *src, size_t elem_size, int32_t pe)
{
    symm_rma_get(ACL_CTX, dst, src, elem_size, pe, 0, __func__);
}

void aclshmem_putmem_nbi(void *dst, void *src, size_t elem_size, int32_t pe)
{
    symm_rma_put(ACL_CTX, dst, src, elem_size, pe, 1, __func__);
}

void aclshmem_getmem_nbi(void *dst, void *src, size_t elem_size, int32_t pe)
{
    symm_rma_get(ACL_CTX, dst, src, elem_size, pe, 1, __func__);
}
