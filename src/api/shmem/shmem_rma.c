/*
 * shmem_rma.c - every typed, sized and untyped RMA entry point, generated from the
 * type table in shmem.h. Each is a thin wrapper over one core routine of
 * ops/rma.h with the element size folded in; the routine name is passed
 * for error messages.
 */
#include "ops/rma.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"

#define CTX_OF(ctx) ((struct symm_ctx *)(ctx))
/* The non-ctx entry points pass NULL: the default context, no load. */
#define DEFAULT_CTX ((struct symm_ctx *)0)

#define SYMM_DEF_RMA(T, N)                                                                   \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                        \
        symm_rma_put(CTX_OF(ctx), dest, source, nelems * sizeof(T), pe, 0, __func__);        \
    }                                                                                        \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                        \
        symm_rma_get(CTX_OF(ctx), dest, source, nelems * sizeof(T), pe, 0, __func__);        \
    }                                                                                        \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                 int pe)                                                     \
    {                                                                                        \
        symm_rma_put(CTX_OF(ctx), dest, source, nelems * sizeof(T), pe, 1, __func__);        \
    }                                                                                        \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                 int pe)                                                     \
    {                                                                                        \
        symm_rma_get(CTX_OF(ctx), dest, source, nelems * sizeof(T), pe, 1, __func__);        \
    }                                                                                        \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                        \
    {                                                                                        \
        SYMM_RMA_P(CTX_OF(ctx), T, dest, value, pe, __func__);                               \
    }                                                                                        \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                            \
    {                                                                                        \
        T out;                                                                               \
        SYMM_RMA_G(CTX_OF(ctx), T, source, pe, __func__, out);                               \
        return out;                                                                          \
    }                                                                                        \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                        \
        symm_rma_iput(CTX_OF(ctx), dest, source, dst, sst, nelems, sizeof(T), pe, __func__); \
    }                                                                                        \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                        \
        symm_rma_iget(CTX_OF(ctx), dest, source, dst, sst, nelems, sizeof(T), pe, __func__); \
    }                                                                                        \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                    \
    {                                                                                        \
        symm_rma_put(DEFAULT_CTX, dest, source, nelems * sizeof(T), pe, 0, __func__);        \
    }                                                                                        \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                    \
    {                                                                                        \
        symm_rma_get(DEFAULT_CTX, dest, source, nelems * sizeof(T), pe, 0, __func__);        \
    }                                                                                        \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                \
    {                                                                                        \
        symm_rma_put(DEFAULT_CTX, dest, source, nelems * sizeof(T), pe, 1, __func__);        \
    }                                                                                        \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                \
    {                                                                                        \
        symm_rma_get(DEFAULT_CTX, dest, source, nelems * sizeof(T), pe, 1, __func__);        \
    }                                                                                        \
    void shmem_##N##_p(T *dest, T value, int pe)                                             \
    {                                                                                        \
        SYMM_RMA_P(DEFAULT_CTX, T, dest, value, pe, __func__);                               \
    }                                                                                        \
    T shmem_##N##_g(const T *source, int pe)                                                 \
    {                                                                                        \
        T out;                                                                               \
        SYMM_RMA_G(DEFAULT_CTX, T, source, pe, __func__, out);                               \
        return out;                                                                          \
    }                                                                                        \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                          size_t nelems, int pe)                                             \
    {                                                                                        \
        symm_rma_iput(DEFAULT_CTX, dest, source, dst, sst, nelems, sizeof(T), pe, __func__); \
    }                                                                                        \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                          size_t nelems, int pe)                                             \
    {                                                                                        \
        symm_rma_iget(DEFAULT_CTX, dest, source, dst, sst, nelems, sizeof(T), pe, __func__); \
    }                                                                                        \
    SYMM_PALIAS(shmem_##N##_put) SYMM_PALIAS(shmem_ctx_##N##_put)                            \
    SYMM_PALIAS(shmem_##N##_get) SYMM_PALIAS(shmem_ctx_##N##_get)                            \
    SYMM_PALIAS(shmem_##N##_put_nbi) SYMM_PALIAS(shmem_ctx_##N##_put_nbi)                    \
    SYMM_PALIAS(shmem_##N##_get_nbi) SYMM_PALIAS(shmem_ctx_##N##_get_nbi)                    \
    SYMM_PALIAS(shmem_##N##_p) SYMM_PALIAS(shmem_ctx_##N##_p)                                \
    SYMM_PALIAS(shmem_##N##_g) SYMM_PALIAS(shmem_ctx_##N##_g)                                \
    SYMM_PALIAS(shmem_##N##_iput) SYMM_PALIAS(shmem_ctx_##N##_iput)                          \
    SYMM_PALIAS(shmem_##N##_iget) SYMM_PALIAS(shmem_ctx_##N##_iget)
SHMEM_RMA_TYPES(SYMM_DEF_RMA)

#define SYMM_DEF_RMA_SIZED(BITS)                                                             \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe)                                                         \
    {                                                                                        \
        symm_rma_put(CTX_OF(ctx), dest, source, nelems * (BITS / 8), pe, 0, __func__);       \
    }                                                                                        \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe)                                                         \
    {                                                                                        \
        symm_rma_get(CTX_OF(ctx), dest, source, nelems * (BITS / 8), pe, 0, __func__);       \
    }                                                                                        \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,          \
                                   size_t nelems, int pe)                                    \
    {                                                                                        \
        symm_rma_put(CTX_OF(ctx), dest, source, nelems * (BITS / 8), pe, 1, __func__);       \
    }                                                                                        \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,          \
                                   size_t nelems, int pe)                                    \
    {                                                                                        \
        symm_rma_get(CTX_OF(ctx), dest, source, nelems * (BITS / 8), pe, 1, __func__);       \
    }                                                                                        \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                        \
        symm_rma_iput(CTX_OF(ctx), dest, source, dst, sst, nelems, BITS / 8, pe, __func__);  \
    }                                                                                        \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                        \
        symm_rma_iget(CTX_OF(ctx), dest, source, dst, sst, nelems, BITS / 8, pe, __func__);  \
    }                                                                                        \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)              \
    {                                                                                        \
        symm_rma_put(DEFAULT_CTX, dest, source, nelems * (BITS / 8), pe, 0, __func__);       \
    }                                                                                        \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)              \
    {                                                                                        \
        symm_rma_get(DEFAULT_CTX, dest, source, nelems * (BITS / 8), pe, 0, __func__);       \
    }                                                                                        \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)        \
    {                                                                                        \
        symm_rma_put(DEFAULT_CTX, dest, source, nelems * (BITS / 8), pe, 1, __func__);       \
    }                                                                                        \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)        \
    {                                                                                        \
        symm_rma_get(DEFAULT_CTX, dest, source, nelems * (BITS / 8), pe, 1, __func__);       \
    }                                                                                        \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t nelems, int pe)                                             \
    {                                                                                        \
        symm_rma_iput(DEFAULT_CTX, dest, source, dst, sst, nelems, BITS / 8, pe, __func__);  \
    }                                                                                        \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t nelems, int pe)                                             \
    {                                                                                        \
        symm_rma_iget(DEFAULT_CTX, dest, source, dst, sst, nelems, BITS / 8, pe, __func__);  \
    }                                                                                        \
    SYMM_PALIAS(shmem_put##BITS) SYMM_PALIAS(shmem_ctx_put##BITS)                            \
    SYMM_PALIAS(shmem_get##BITS) SYMM_PALIAS(shmem_ctx_get##BITS)                            \
    SYMM_PALIAS(shmem_put##BITS##_nbi) SYMM_PALIAS(shmem_ctx_put##BITS##_nbi)                \
    SYMM_PALIAS(shmem_get##BITS##_nbi) SYMM_PALIAS(shmem_ctx_get##BITS##_nbi)                \
    SYMM_PALIAS(shmem_iput##BITS) SYMM_PALIAS(shmem_ctx_iput##BITS)                          \
    SYMM_PALIAS(shmem_iget##BITS) SYMM_PALIAS(shmem_ctx_iget##BITS)
SHMEM_SIZES(SYMM_DEF_RMA_SIZED)

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    symm_rma_put(CTX_OF(ctx), dest, source, nelems, pe, 0, __func__);
}
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    symm_rma_get(CTX_OF(ctx), dest, source, nelems, pe, 0, __func__);
}
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    symm_rma_put(CTX_OF(ctx), dest, source, nelems, pe, 1, __func__);
}
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    symm_rma_get(CTX_OF(ctx), dest, source, nelems, pe, 1, __func__);
}
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    symm_rma_put(DEFAULT_CTX, dest, source, nelems, pe, 0, __func__);
}
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    symm_rma_get(DEFAULT_CTX, dest, source, nelems, pe, 0, __func__);
}
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    symm_rma_put(DEFAULT_CTX, dest, source, nelems, pe, 1, __func__);
}
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    symm_rma_get(DEFAULT_CTX, dest, source, nelems, pe, 1, __func__);
}
SYMM_PALIAS(shmem_putmem) SYMM_PALIAS(shmem_ctx_putmem)
SYMM_PALIAS(shmem_getmem) SYMM_PALIAS(shmem_ctx_getmem)
SYMM_PALIAS(shmem_putmem_nbi) SYMM_PALIAS(shmem_ctx_putmem_nbi)
SYMM_PALIAS(shmem_getmem_nbi) SYMM_PALIAS(shmem_ctx_getmem_nbi)
