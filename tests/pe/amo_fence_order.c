/*
 * amo_fence_order.c - a fence orders an atomic before it against the
 * loads, atomics and puts after it, to the same word of the same PE.
 *
 * Each PE owns one word on its neighbour (pe ^ 1) and on itself, and in
 * each round: swap_nbi, fence, atomic_fetch; add, fence, fetch_nbi + quiet;
 * set, fence, put of another value, fence, fetch; compare_swap_nbi, fence,
 * fetch; the same again on a context of its own with shmem_ctx_fence. Every
 * fetched value is the one the round's own sequence makes (nobody else
 * writes the word). Run with SYMM_ATOMICS=network on emulated nodes of two
 * PEs: the neighbour is mapped, updates go through UCX and fetches are CPU
 * loads (the stress tester found the fetch reading the old value: seed
 * 1729011529, nodes-netamo-2x2). argv[1]: the rounds (default ROUNDS).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "pe/check.h"

#define MAXPES 64
#define ROUNDS 2000

static long words[MAXPES];

static void expect(long got, long want, const char *what, int target, int round)
{
    CHECK(got == want, "round %d, PE %d: %s read %ld, expected %ld", round, target, what, got,
          want);
}

static void one_round(shmem_ctx_t ctx, int use_ctx, int target, int r)
{
    long *w = &words[shmem_my_pe()];
    long base = (long)r * 10, old = 0;
#define FENCE() (use_ctx ? shmem_ctx_fence(ctx) : shmem_fence())
    shmem_ctx_long_atomic_swap_nbi(ctx, &old, w, base + 1, target);
    FENCE();
    expect(shmem_ctx_long_atomic_fetch(ctx, w, target), base + 1, "fetch after swap_nbi+fence",
           target, r);
    shmem_ctx_quiet(ctx);
    shmem_ctx_long_atomic_add(ctx, w, 2, target);
    FENCE();
    long f = -1;
    shmem_ctx_long_atomic_fetch_nbi(ctx, &f, w, target);
    shmem_ctx_quiet(ctx);
    expect(f, base + 3, "fetch_nbi after add+fence", target, r);
    shmem_ctx_long_atomic_set(ctx, w, base + 4, target);
    FENCE();
    shmem_ctx_long_p(ctx, w, base + 5, target);
    FENCE();
    expect(shmem_ctx_long_atomic_fetch(ctx, w, target), base + 5, "fetch after set+fence+put",
           target, r);
    shmem_ctx_long_atomic_compare_swap_nbi(ctx, &old, w, base + 5, base + 6, target);
    FENCE();
    expect(shmem_ctx_long_atomic_fetch(ctx, w, target), base + 6,
           "fetch after compare_swap_nbi+fence", target, r);
    shmem_ctx_quiet(ctx);
#undef FENCE
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "at most %d PEs", MAXPES);
    shmem_ctx_t mine;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &mine) == 0, "shmem_ctx_create failed");
    int peer = (me ^ 1) < npes ? me ^ 1 : me;
    for (int r = 0; r < rounds; r++) {
        one_round(SHMEM_CTX_DEFAULT, 0, peer, r);
        one_round(mine, 1, peer, r);
        one_round(r % 2 ? mine : SHMEM_CTX_DEFAULT, r % 2, me, r);
    }
    shmem_ctx_destroy(mine);
    shmem_barrier_all();
    if (me == 0)
        printf("amo_fence_order: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
