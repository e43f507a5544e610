/*
 * reduce_private.c - shmemx_reduce_private: team reductions on malloc'd
 * (private) buffers. Where every peer is reached through the network
 * (SYMM_TRANSPORT=ucx, the .ucx runs) it must reduce: sums of doubles and
 * maxima of longs, out of place and in place, small (one message) and
 * large (the pipelined form, several segments with SYMM_COLL_SEGMENT=4K),
 * each element checked against the value every PE computes itself. Where
 * peers are mapped (the shared-memory runs at 2+ PEs) it must return -2
 * and leave dest alone, and the same call through symmetric buffers then
 * works (a caller's fallback). A 1-PE job copies. An unknown type_op
 * returns -1.
 */
#include <stdlib.h>

#include <shmem.h>
#include <shmemx.h>

#include "check.h"

static double val(int pe, size_t i)
{
    return (double)((pe + 1) * 3 + (int)(i % 97));
}

static void run(size_t n, int in_place, int mapped)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    double *src = malloc(n * sizeof(double)), *dst = in_place ? src : malloc(n * sizeof(double));
    long *lsrc = malloc(n * sizeof(long)), *ldst = malloc(n * sizeof(long));
    CHECK(src != NULL && dst != NULL && lsrc != NULL && ldst != NULL, "malloc of %zu", n);
    for (size_t i = 0; i < n; i++) {
        src[i] = val(me, i);
        lsrc[i] = (long)((i * 7 + (size_t)me * 13) % 1000);
        if (!in_place)
            dst[i] = -1;
        ldst[i] = -1;
    }
    int rc = shmemx_reduce_private(SHMEM_TEAM_WORLD, dst, src, n, "double_sum");
    int rl = shmemx_reduce_private(SHMEM_TEAM_WORLD, ldst, lsrc, n, "long_max");
    if (mapped) {
        CHECK_EQ("rc where peers are mapped", -2, rc);
        CHECK_EQ("rc (long_max) where peers are mapped", -2, rl);
        for (size_t i = 0; i < n; i++)
            CHECK(dst[i] == (in_place ? val(me, i) : -1), "dest[%zu] changed on refusal", i);
    } else {
        CHECK_EQ("rc", 0, rc);
        CHECK_EQ("rc (long_max)", 0, rl);
        for (size_t i = 0; i < n; i++) {
            double want = 0;
            long lwant = 0;
            for (int p = 0; p < np; p++) {
                want += val(p, i);
                long v = (long)((i * 7 + (size_t)p * 13) % 1000);
                lwant = v > lwant ? v : lwant;
            }
            CHECK(dst[i] == want, "double_sum[%zu] of %zu%s: expected %g got %g", i, n,
                  in_place ? " in place" : "", want, dst[i]);
            CHECK(ldst[i] == lwant, "long_max[%zu] of %zu: expected %ld got %ld", i, n, lwant,
                  ldst[i]);
        }
    }
    if (!in_place)
        free(dst);
    free(src);
    free(lsrc);
    free(ldst);
}

int main(void)
{
    shmem_init();
    int np = shmem_n_pes();
    const char *t = getenv("SYMM_TRANSPORT");
    int mapped = np > 1 && !(t != NULL && strcmp(t, "ucx") == 0);
    double x = 1, y = 0;
    CHECK_EQ("rc of an unknown type_op", -1,
             shmemx_reduce_private(SHMEM_TEAM_WORLD, &y, &x, 1, "double_frobnicate"));
    static const size_t sizes[] = {1, 7, 1000, 100003};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
        for (int in_place = 0; in_place < 2; in_place++)
            run(sizes[k], in_place, mapped);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
