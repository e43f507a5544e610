/*
 * shmem_rma_block.c - the OpenSHMEM 1.6 blocked strided RMA entry points
 * (shmem_TYPENAME_ibput/ibget, shmem_ibputSIZE/ibgetSIZE and their ctx_
 * forms), generated from the type tables in shmem.h. Each is a thin
 * wrapper over symm_rma_ibput/ibget (ops/rma_block.c) with the element size
 * folded in; the spec has no mem form.
 */
#include "ops/rma.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"

#define CTX_OF(ctx) ((struct symm_ctx *)(ctx))
#define DEFAULT_CTX ((struct symm_ctx *)0)

/* One operation (ibput or ibget), plain and ctx. */
#define SYMM_DEF_IBRMA_OP(PFX, SFX, T, ELEM, OP)                                             \
    void shmem_ctx_##PFX##OP##SFX(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,  \
                                  ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)       \
    {                                                                                        \
        symm_rma_##OP(CTX_OF(ctx), dest, source, dst, sst, bsize, nblocks, ELEM, pe,         \
                      __func__);                                                             \
    }                                                                                        \
    void shmem_##PFX##OP##SFX(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                              size_t bsize, size_t nblocks, int pe)                          \
    {                                                                                        \
        symm_rma_##OP(DEFAULT_CTX, dest, source, dst, sst, bsize, nblocks, ELEM, pe,         \
                      __func__);                                                             \
    }                                                                                        \
    SYMM_PALIAS(shmem_##PFX##OP##SFX) SYMM_PALIAS(shmem_ctx_##PFX##OP##SFX)
#define SYMM_DEF_IBRMA_FORMS(PFX, SFX, T, ELEM)                                              \
    SYMM_DEF_IBRMA_OP(PFX, SFX, T, ELEM, ibput) SYMM_DEF_IBRMA_OP(PFX, SFX, T, ELEM, ibget)

#define SYMM_DEF_IBRMA(T, N) SYMM_DEF_IBRMA_FORMS(N##_, , T, sizeof(T))
SHMEM_RMA_TYPES(SYMM_DEF_IBRMA)

#define SYMM_DEF_IBRMA_SIZED(BITS) SYMM_DEF_IBRMA_FORMS(, BITS, void, (BITS) / 8)
SHMEM_SIZES(SYMM_DEF_IBRMA_SIZED)
