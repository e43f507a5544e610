/*
 * alltoall_malloc.c - a collective's buffers must be symmetric on every
 * transport (issue 35): a matrix transpose by shmem_double_alltoall, each
 * PE holding a block of rows.
 *
 *   malloc     dest and source from malloc: ends the job naming dest
 *   source     symmetric dest, source from malloc: ends naming source
 *   dest       dest from malloc, symmetric source: ends naming dest
 *   heap       both from shmem_malloc: the transpose is right
 *   global     both global arrays: right
 *   registered both malloc'd and registered (shmemx_register): right
 *
 * The failing modes must fail the same way whether the collective runs as
 * pulls (one node) or as messages (SYMM_TRANSPORT=ucx, emulated nodes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

#include "check.h"

#define B 4 /* rows of a block, and columns of a block */
#define MAX_PES 16

static double g_src[MAX_PES * B * B], g_dst[MAX_PES * B * B];

/* Element (r, c) of the N x N matrix, N = npes * B. */
static double elem(int r, int c) { return r * 1000.0 + c; }

/* This PE's rows [me*B, me*B+B) of the matrix, packed for the alltoall:
 * block j holds the B x B tile (rows of mine, columns of PE j's). */
static void fill(double *src, int me, int npes)
{
    for (int j = 0; j < npes; j++)
        for (int r = 0; r < B; r++)
            for (int c = 0; c < B; c++)
                src[(j * B + r) * B + c] = elem(me * B + r, j * B + c);
}

/* After the exchange, block j is PE j's tile of my columns: transposed in
 * place it gives my rows of the transpose. */
static void verify(const double *dst, int me, int npes)
{
    for (int j = 0; j < npes; j++)
        for (int r = 0; r < B; r++)
            for (int c = 0; c < B; c++) {
                double want = elem(j * B + r, me * B + c);
                double got = dst[(j * B + r) * B + c];
                CHECK(got == want, "tile %d (%d,%d) expected %g got %g", j, r, c, want, got);
            }
}

/* Frees a buffer the way it was obtained (a global is left alone). */
static void release(double *p, int heap)
{
    if (heap == 1)
        shmem_free(p);
    else if (heap == 0)
        free(p);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "heap";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= MAX_PES, "at most %d PEs", MAX_PES);
    size_t n = (size_t)npes * B * B;
    double *src = NULL, *dst = NULL;
    int heap_src = -1, heap_dst = -1; /* 1 shmem_malloc, 0 malloc, -1 global */
    shmemx_region_t rs, rd;
    int registered = strcmp(mode, "registered") == 0;
    if (strcmp(mode, "heap") == 0) {
        src = shmem_malloc(n * sizeof(double));
        dst = shmem_malloc(n * sizeof(double));
        heap_src = heap_dst = 1;
    } else if (strcmp(mode, "global") == 0) {
        src = g_src;
        dst = g_dst;
    } else {
        int sym_src = strcmp(mode, "dest") == 0, sym_dst = strcmp(mode, "source") == 0;
        src = sym_src ? shmem_malloc(n * sizeof(double)) : malloc(n * sizeof(double));
        dst = sym_dst ? shmem_malloc(n * sizeof(double)) : malloc(n * sizeof(double));
        heap_src = sym_src;
        heap_dst = sym_dst;
    }
    CHECK(src != NULL && dst != NULL, "no buffers");
    if (registered) {
        CHECK(shmemx_register(src, n * sizeof(double), SHMEMX_ACCESS_RW, &rs) == 0,
              "shmemx_register(source) failed");
        CHECK(shmemx_register(dst, n * sizeof(double), SHMEMX_ACCESS_RW, &rd) == 0,
              "shmemx_register(dest) failed");
    }
    fill(src, me, npes);
    memset(dst, 0, n * sizeof(double));
    shmem_barrier_all();
    shmem_double_alltoall(SHMEM_TEAM_WORLD, dst, src, B * B);
    verify(dst, me, npes);
    if (registered) {
        shmemx_deregister(&rd);
        shmemx_deregister(&rs);
    }
    shmem_barrier_all();
    release(src, heap_src);
    release(dst, heap_dst);
    if (me == 0)
        printf("alltoall_malloc (%s): ok on %d PEs\n", mode, npes);
    shmem_finalize();
    return 0;
}
