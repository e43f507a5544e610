/*
 * test_blocks.c - SHMEM_DEBUG's record of heap blocks (src/mem/blocks.c).
 *
 * Alone: blocks added out of order (past the first array, so it grows),
 * found by any offset of their span and by none outside, resized in place
 * with a new site, removed; the finalize listing's count, bytes and five
 * largest (largest first, the lower offset first among equals), every
 * expected value computed here from the layout.
 * With a thread: a reader looks up blocks that stay while the writer adds
 * and removes others around them and grows the array; every lookup must
 * return the staying block whole (a torn or stale record is a failure).
 * Run under ThreadSanitizer by scripts/test.sh (its name has "threads").
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "mem/blocks.h"
#include "runtime/status.h"

static int fails;

#define EXPECT(cond, ...)                                          \
    do {                                                           \
        if (!(cond)) {                                             \
            fprintf(stderr, "FAIL [%s:%d]: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                          \
            fprintf(stderr, "\n");                                 \
            __atomic_fetch_add(&fails, 1, __ATOMIC_RELAXED);       \
        }                                                          \
    } while (0)

#define N_BLOCKS 200
#define SLOT 4096 /* block i at i * SLOT, span SLOT / 2, size span - i % 7 */

static size_t off_of(int i)
{
    return (size_t)i * SLOT;
}
static size_t size_of(int i)
{
    return SLOT / 2 - (size_t)(i % 7);
}
static const void *site_of(int i)
{
    return (const char *)0x1000 + i;
}

static void add(symm_blocks_t *b, int i)
{
    symm_block_rec_t r = {
        .off = off_of(i), .size = size_of(i), .span = SLOT / 2, .site = site_of(i)};
    EXPECT(symm_blocks_add(b, &r) == SYMM_OK, "add block %d", i);
}

static void alone(void)
{
    symm_blocks_t *b = symm_blocks_new();
    symm_block_rec_t r;
    EXPECT(b != NULL, "new");
    /* Out of order: odd ones descending, then even ones ascending. */
    for (int i = N_BLOCKS - 1; i >= 0; i -= 2)
        add(b, i);
    for (int i = 0; i < N_BLOCKS; i += 2)
        add(b, i);
    for (int i = 0; i < N_BLOCKS; i++) {
        size_t probes[3] = {off_of(i), off_of(i) + size_of(i) - 1, off_of(i) + SLOT / 2 - 1};
        for (int k = 0; k < 3; k++) {
            memset(&r, 0, sizeof(r));
            EXPECT(symm_blocks_find(b, probes[k], &r) == 1 && r.off == off_of(i) &&
                       r.size == size_of(i) && r.span == SLOT / 2 && r.site == site_of(i),
                   "find %zu: block %d", probes[k], i);
        }
        EXPECT(symm_blocks_find(b, off_of(i) + SLOT / 2, &r) == 0, "past block %d's span", i);
    }
    EXPECT(symm_blocks_find(b, off_of(N_BLOCKS), &r) == 0, "past the last block");

    symm_blocks_resize(b, off_of(10), 3000, 3008, site_of(999));
    EXPECT(symm_blocks_find(b, off_of(10) + 3007, &r) == 1 && r.size == 3000 &&
               r.site == site_of(999),
           "resized block 10: size %zu", r.size);
    symm_blocks_resize(b, off_of(10) + 1, 1, 64, NULL); /* not a block's start: nothing */
    EXPECT(symm_blocks_find(b, off_of(10), &r) == 1 && r.size == 3000, "resize of no block");

    /* Remove every block but 10, 20, ..., 190. */
    for (int i = 0; i < N_BLOCKS; i++)
        if (i % 10 != 0)
            symm_blocks_remove(b, off_of(i));
    symm_blocks_remove(b, off_of(3)); /* twice: nothing */
    EXPECT(symm_blocks_find(b, off_of(11), &r) == 0, "removed block 11");

    size_t count;
    uint64_t bytes, want = 0;
    symm_block_rec_t top[5];
    for (int i = 0; i < N_BLOCKS; i += 10)
        want += i == 10 ? 3000 : size_of(i);
    size_t k = symm_blocks_largest(b, &count, &bytes, top, 5);
    EXPECT(count == N_BLOCKS / 10 && bytes == want && k == 5, "listing: %zu blocks, %llu bytes",
           count, (unsigned long long)bytes);
    /* Sizes SLOT/2 - i%7 for i = 0, 20, ..., 190 (block 10: 3000): 3000
     * first, then i%7 == 0 (blocks 0, 70, 140: 2048), then i%7 == 1
     * (blocks 50, 120, 190: 2047), lower offsets first. */
    size_t want_off[5] = {off_of(10), off_of(0), off_of(70), off_of(140), off_of(50)};
    for (size_t j = 0; j < 5; j++)
        EXPECT(top[j].off == want_off[j], "largest #%zu at %zu, expected %zu", j, top[j].off,
               want_off[j]);
    symm_blocks_free(b);
}

/* ---- a reader beside the writer --------------------------------------------- */

static symm_blocks_t *shared;
static int stop;
static long lookups;

static void *reader(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        for (int i = 0; i < N_BLOCKS; i += 4) {
            symm_block_rec_t r;
            int found = symm_blocks_find(shared, off_of(i) + 5, &r);
            EXPECT(found && r.off == off_of(i) && r.size == size_of(i) && r.site == site_of(i),
                   "staying block %d: found %d off %zu size %zu", i, found, r.off, r.size);
            __atomic_fetch_add(&lookups, 1, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

static void threads(void)
{
    pthread_t t;
    shared = symm_blocks_new();
    /* Blocks 0, 4, 8, ... stay; the others come and go. */
    for (int i = 0; i < N_BLOCKS; i += 4)
        add(shared, i);
    pthread_create(&t, NULL, reader, NULL);
    while (__atomic_load_n(&lookups, __ATOMIC_RELAXED) == 0)
        sched_yield(); /* the reader is in before the writer starts */
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < N_BLOCKS; i++)
            if (i % 4 != 0)
                add(shared, i);
        for (int i = N_BLOCKS - 1; i >= 0; i--)
            if (i % 4 != 0)
                symm_blocks_remove(shared, off_of(i));
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    symm_blocks_free(shared);
}

int main(void)
{
    alone();
    threads();
    if (fails == 0)
        printf("test_blocks: ok\n");
    return fails != 0;
}
