/*
 * rma_block.c - OpenSHMEM 1.6 blocked strided RMA: shmem_TYPENAME_ibput/
 * ibget for every standard RMA type, the SIZE forms, the ctx_ forms and
 * the C11 generics, over several shapes (bsize 1, no blocks, no elements,
 * stride == bsize, strides wider than the blocks). Every PE puts to its
 * right neighbour and gets from it; each byte is checked against what
 * this test computes itself, and the bytes between blocks must stay
 * untouched. argv[1] "bad_stride" / "null_source": error modes.
 */
#include <stdlib.h>
#include <string.h>

#include "pe/check.h"

#define BUF 2048
#define UNTOUCHED 0xEE

static unsigned char sym_src[BUF], sym_dst[BUF];

struct shape {
    size_t bsize, nblocks;
    ptrdiff_t dst, sst;
};
static const struct shape shapes[] = {
    {1, 5, 1, 1}, {1, 7, 3, 2}, {3, 4, 3, 3}, {2, 3, 5, 4},
    {4, 0, 4, 4}, {0, 3, 2, 2}, {5, 1, 1, 1}, {6, 4, 7, 9},
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static unsigned char pattern(int pe, size_t byte) { return (unsigned char)test_hash4(7, (uint64_t)pe, byte, 0); }

/* What dest's bytes must be after a blocked copy from a buffer of pe's
 * pattern (or UNTOUCHED). */
static void expect(unsigned char *want, const struct shape *sh, size_t elem, int pe)
{
    memset(want, UNTOUCHED, BUF);
    for (size_t b = 0; b < sh->nblocks; b++)
        for (size_t e = 0; e < sh->bsize; e++)
            for (size_t k = 0; k < elem; k++)
                want[((size_t)sh->dst * b + e) * elem + k] =
                    pattern(pe, ((size_t)sh->sst * b + e) * elem + k);
}

static void verify(const unsigned char *got, const struct shape *sh, size_t elem, int pe,
                   const char *what, size_t shape)
{
    unsigned char want[BUF];
    expect(want, sh, elem, pe);
    for (size_t i = 0; i < BUF; i++)
        CHECK(got[i] == want[i], "%s shape %zu (bsize %zu nblocks %zu dst %td sst %td): byte %zu "
              "expected 0x%02x got 0x%02x", what, shape, sh->bsize, sh->nblocks, sh->dst, sh->sst,
              i, want[i], got[i]);
}

static unsigned char priv[BUF];

/* One routine (put or get form) for one shape: ibput right, check what
 * arrived from the left; ibget from the right into a private buffer. */
#define RUN_TYPE(NAME, T, ELEM, PUT, GET)                                                   \
    do {                                                                                    \
        for (size_t si = 0; si < NSHAPES; si++) {                                           \
            const struct shape *sh = &shapes[si];                                           \
            int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n; \
            for (size_t i = 0; i < BUF; i++)                                                \
                sym_src[i] = pattern(me, i);                                                \
            memset(sym_dst, UNTOUCHED, BUF);                                                \
            memset(priv, UNTOUCHED, BUF);                                                   \
            shmem_barrier_all();                                                            \
            PUT((T *)(void *)sym_dst, (const T *)(const void *)sym_src, sh->dst, sh->sst,   \
                sh->bsize, sh->nblocks, r);                                                 \
            shmem_barrier_all();                                                            \
            verify(sym_dst, sh, ELEM, l, NAME " ibput", si);                                \
            GET((T *)(void *)priv, (const T *)(const void *)sym_src, sh->dst, sh->sst,      \
                sh->bsize, sh->nblocks, r);                                                 \
            verify(priv, sh, ELEM, r, NAME " ibget", si);                                   \
            shmem_barrier_all();                                                            \
        }                                                                                   \
    } while (0)

static shmem_ctx_t ctx;

#define CTX_PUT(N)                                                                          \
    static void ctxput_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,  \
                           size_t nb, int pe)                                               \
    {                                                                                       \
        shmem_ctx_##N##_ibput(ctx, d, s, dst, sst, b, nb, pe);                              \
    }                                                                                       \
    static void ctxget_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,  \
                           size_t nb, int pe)                                               \
    {                                                                                       \
        shmem_ctx_##N##_ibget(ctx, d, s, dst, sst, b, nb, pe);                              \
    }
#define CTX_FORMS(T, N) CTX_PUT(N)
SHMEM_RMA_TYPES(CTX_FORMS)

static void ctxput_sized(size_t bits, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,
                         size_t b, size_t nb, int pe, int get)
{
    switch (bits) {
#define SIZED_CASE(BITS)                                                                    \
    case BITS:                                                                              \
        if (get)                                                                            \
            shmem_ctx_ibget##BITS(ctx, d, s, dst, sst, b, nb, pe);                          \
        else                                                                                \
            shmem_ctx_ibput##BITS(ctx, d, s, dst, sst, b, nb, pe);                          \
        break;
        SHMEM_SIZES(SIZED_CASE)
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (strcmp(mode, "bad_stride") == 0) {
        if (me == n - 1)
            shmem_int_ibput((int *)(void *)sym_dst, (int *)(void *)sym_src, 0, 2, 2, 3, 0);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    if (strcmp(mode, "null_source") == 0) {
        if (me == n - 1)
            shmem_long_ibput((long *)(void *)sym_dst, NULL, 2, 2, 2, 3, 0);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    if (strcmp(mode, "bad_pe") == 0) {
        if (me == n - 1)
            shmem_ibget64(priv, sym_src, 1, 1, 1, 1, n);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");

    /* Every typed form, default and ctx. */
#define TYPED(T, N)                                                                         \
    RUN_TYPE(#N, T, sizeof(T), shmem_##N##_ibput, shmem_##N##_ibget);                       \
    RUN_TYPE("ctx " #N, T, sizeof(T), ctxput_##N, ctxget_##N);
    SHMEM_RMA_TYPES(TYPED)

    /* Every SIZE form, default and ctx. */
#define SIZED(BITS)                                                                         \
    RUN_TYPE("ibput" #BITS, void, (BITS) / 8, shmem_ibput##BITS, shmem_ibget##BITS);
    SHMEM_SIZES(SIZED)
#define CTXS_PUT(d, s, dst, sst, b, nb, pe) ctxput_sized(bits, d, s, dst, sst, b, nb, pe, 0)
#define CTXS_GET(d, s, dst, sst, b, nb, pe) ctxput_sized(bits, d, s, dst, sst, b, nb, pe, 1)
    for (size_t bits = 8; bits <= 128; bits *= 2)
        RUN_TYPE("ctx sized", void, bits / 8, CTXS_PUT, CTXS_GET);

    /* C11 generics, plain and with a ctx. */
#define GEN_PUT(d, s, dst, sst, b, nb, pe) shmem_ibput(d, s, dst, sst, b, nb, pe)
#define GEN_GET(d, s, dst, sst, b, nb, pe) shmem_ibget(d, s, dst, sst, b, nb, pe)
#define GENC_PUT(d, s, dst, sst, b, nb, pe) shmem_ibput(ctx, d, s, dst, sst, b, nb, pe)
#define GENC_GET(d, s, dst, sst, b, nb, pe) shmem_ibget(ctx, d, s, dst, sst, b, nb, pe)
    RUN_TYPE("generic double", double, sizeof(double), GEN_PUT, GEN_GET);
    RUN_TYPE("generic ctx short", short, sizeof(short), GENC_PUT, GENC_GET);

    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("rma_block: ok at %d PEs\n", n);
    shmem_finalize();
    return 0;
}
