/*
 * heap_align.c - shmem_align honours every power of two from 1 B to 1 GiB
 * on every PE, at the same offset everywhere, without keeping the padding.
 *
 * For each alignment: a block whose address (this PE's) is a multiple of
 * it; the same block offset on every PE (each PE collects the others'
 * offsets from the heap base); writes at both ends of the block; a put of
 * both ends to the right neighbour, checked there. A small block allocated
 * before and kept across each aligned one lands below it, so the padding
 * under an aligned block is free memory the allocator reuses. After each
 * free the heap's use (size - free) is what it was before. Then a
 * non-power-of-two alignment fails with its error (errors.cmake has the
 * message test).
 */
#include "pe/check.h"

#include <shmemx.h>

static size_t offsets[1];
static long ends[2];

static size_t heap_used(void) { return shmemx_heap_size() - shmemx_heap_free(); }

int main(int argc, char **argv)
{
    shmem_init();
    if (argc > 1) {
        /* A wrong alignment alone, for errors' message tests: NULL, then
         * exit 2 so the runner sees a non-zero status. */
        size_t bad = strcmp(argv[1], "not-pow2") == 0 ? 3 : (size_t)1 << 40;
        CHECK(shmem_align(bad, 8) == NULL, "shmem_align(%zu, 8) did not fail", bad);
        shmem_global_exit(2);
    }
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    /* The heap's first block: offsets are taken from it. */
    char *base = shmem_malloc(1);
    CHECK(base != NULL, "shmem_malloc(1) failed");
    size_t *all = shmem_malloc(sizeof(size_t) * (size_t)n);
    CHECK(all != NULL, "shmem_malloc(offsets) failed");
    size_t used0 = heap_used();

    for (int lg = 0; lg <= 30; lg++) {
        size_t align = (size_t)1 << lg;
        size_t size = align < 4096 ? 64 : 4096;
        char *p = shmem_align(align, size);
        CHECK(p != NULL, "shmem_align(%zu, %zu) returned NULL", align, size);
        CHECK(((uintptr_t)p & (align - 1)) == 0, "shmem_align(%zu, %zu) returned %p: misaligned by %zu",
              align, size, (void *)p, (size_t)((uintptr_t)p & (align - 1)));
        /* Same offset on every PE. */
        offsets[0] = (size_t)(p - base);
        shmem_barrier_all();
        shmem_size_fcollect(SHMEM_TEAM_WORLD, all, offsets, 1);
        for (int pe = 0; pe < n; pe++)
            CHECK(all[pe] == offsets[0], "shmem_align(%zu): PE %d's block at offset %zu, here %zu",
                  align, pe, all[pe], offsets[0]);
        /* Both ends written here, then put to the right neighbour's block. */
        long lo = 1000L * lg + me, hi = -(1000L * lg + me);
        memcpy(p, &lo, sizeof(lo));
        memcpy(p + size - sizeof(hi), &hi, sizeof(hi));
        shmem_barrier_all();
        CHECK(memcmp(p, &lo, sizeof(lo)) == 0 && memcmp(p + size - sizeof(hi), &hi, sizeof(hi)) == 0,
              "shmem_align(%zu): local writes at the block's ends did not read back", align);
        shmem_barrier_all();
        shmem_putmem(p, &lo, sizeof(lo), right);
        shmem_putmem(p + size - sizeof(hi), &hi, sizeof(hi), right);
        shmem_barrier_all();
        memcpy(&ends[0], p, sizeof(long));
        memcpy(&ends[1], p + size - sizeof(long), sizeof(long));
        CHECK(ends[0] == 1000L * lg + left && ends[1] == -(1000L * lg + left),
              "shmem_align(%zu): block ends hold %ld/%ld, expected %ld/%ld from PE %d", align,
              ends[0], ends[1], 1000L * lg + left, -(1000L * lg + left), left);
        /* The padding below the block is free: a small block fits there. */
        if (align >= 4096) {
            char *q = shmem_malloc(64);
            CHECK(q != NULL && q < p, "shmem_malloc(64) after shmem_align(%zu): %p, expected "
                  "below the aligned block %p (in its padding)", align, (void *)q, (void *)p);
            shmem_free(q);
        }
        shmem_free(p);
        CHECK(heap_used() == used0, "after shmem_free of shmem_align(%zu): heap use %zu, was %zu",
              align, heap_used(), used0);
    }
    /* Several aligned blocks at once, then all freed. */
    char *blk[4];
    for (int i = 0; i < 4; i++) {
        size_t align = (size_t)1 << (20 + 3 * i);
        blk[i] = shmem_align(align, 100);
        CHECK(blk[i] != NULL && ((uintptr_t)blk[i] & (align - 1)) == 0,
              "shmem_align(%zu) with others live: %p", align, (void *)blk[i]);
    }
    for (int i = 0; i < 4; i++)
        shmem_free(blk[i]);
    CHECK(heap_used() == used0, "after freeing 4 aligned blocks: heap use %zu, was %zu",
          heap_used(), used0);
    /* Wrong alignments: NULL (and the error line errors.cmake matches). */
    CHECK(shmem_align(3, 8) == NULL, "shmem_align(3, 8) did not fail");
    CHECK(shmem_align((size_t)1 << 40, 8) == NULL, "shmem_align(1 TiB, 8) did not fail");
    CHECK(heap_used() == used0, "after the failed shmem_align calls: heap use %zu, was %zu",
          heap_used(), used0);
    shmem_free(all);
    shmem_free(base);
    shmem_finalize();
    return 0;
}
