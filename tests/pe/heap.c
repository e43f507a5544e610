/*
 * heap.c - the symmetric heap: shmem_malloc, calloc, align, realloc, free.
 *
 *   heap           basic semantics (below), with the default heap size
 *   heap grow      also: allocate 16 MiB in a 1 MiB initial heap and use it
 *                  remotely (registered with SHMEM_SYMMETRIC_SIZE=1M)
 *   heap exhaust   with SHMEM_SYMMETRIC_SIZE=1M, SYMM_MAX_SYMMETRIC_SIZE=4M:
 *                  shmem_malloc(64 MiB) is NULL on every PE and the heap is
 *                  still usable afterwards
 *   heap big       with SHMEM_SYMMETRIC_SIZE=65G and no SYMM_MAX_SYMMETRIC_SIZE
 *                  (default 64G): the heap holds 65 GiB from the start (the
 *                  maximum follows the initial size) and a 64 GiB block
 *                  works remotely at both ends
 *
 * Basic: malloc(0) is NULL, free(NULL) does nothing, blocks are distinct,
 * non-overlapping, 64-byte aligned; shmem_align honours 64, 4096, 1 MiB;
 * calloc'd memory is zero even when the block is reused, and a remote write
 * issued right after calloc returns is not lost; realloc keeps contents when
 * it grows (in place or moving) and shrinks, realloc(NULL, n) allocates and
 * realloc(p, 0) frees; a random alloc/free sequence, the same on every PE,
 * gives the same offsets on every PE, and every block keeps its contents.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

#include "check.h"

static int me, npes, left, right;

static unsigned char pat_at(uint64_t base, size_t i)
{
    return (unsigned char)(base + i * 7 + (i >> 8));
}
static uint64_t pat_base(uint64_t salt, int pe) { return test_mix(salt * 131 + (uint64_t)pe); }

static void fill(void *p, size_t n, uint64_t salt, int pe)
{
    unsigned char *b = p;
    uint64_t base = pat_base(salt, pe);
    for (size_t i = 0; i < n; i++)
        b[i] = pat_at(base, i);
}

/* Bytes [from, n) of p hold fill(p, n, salt, pe)'s pattern. */
static void check_fill_from(const void *p, size_t from, size_t n, uint64_t salt, int pe,
                            const char *what)
{
    const unsigned char *b = p;
    uint64_t base = pat_base(salt, pe);
    for (size_t i = from; i < n; i++)
        CHECK(b[i] == pat_at(base, i), "%s: byte %zu of %zu expected 0x%02x got 0x%02x", what, i,
              n, pat_at(base, i), b[i]);
}

static void check_fill(const void *p, size_t n, uint64_t salt, int pe, const char *what)
{
    check_fill_from(p, 0, n, salt, pe, what);
}

static void check_zero(const void *p, size_t n, const char *what)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == 0, "%s: byte %zu of %zu expected 0 got 0x%02x", what, i, n, b[i]);
}

/* Use a block remotely: I put my pattern into my right neighbour's copy,
 * my left neighbour's pattern must arrive in mine. */
static void use_remotely(void *p, size_t n, uint64_t salt, const char *what)
{
    unsigned char *src = malloc(n);
    CHECK(src != NULL, "malloc(%zu) expected memory got NULL", n);
    fill(src, n, salt, me);
    shmem_barrier_all();
    shmem_putmem(p, src, n, right);
    shmem_barrier_all();
    check_fill(p, n, salt, left, what);
    free(src);
    shmem_barrier_all();
}

static void test_basic(void)
{
    CHECK_PTR("shmem_malloc(0)", NULL, shmem_malloc(0));
    CHECK_PTR("shmem_calloc(0, 8)", NULL, shmem_calloc(0, 8));
    CHECK_PTR("shmem_calloc(8, 0)", NULL, shmem_calloc(8, 0));
    shmem_free(NULL);
    shmem_barrier_all();

    /* Distinct, aligned, non-overlapping; each keeps what is written. */
    static const size_t sizes[] = {1, 7, 63, 64, 65, 100, 4096, 12345, (size_t)1 << 20, 3};
    enum { NB = sizeof(sizes) / sizeof(sizes[0]) };
    unsigned char *b[NB];
    for (int i = 0; i < NB; i++) {
        b[i] = shmem_malloc(sizes[i]);
        CHECK(b[i] != NULL, "shmem_malloc(%zu) expected memory got NULL", sizes[i]);
        CHECK(((uintptr_t)b[i] & 63) == 0, "shmem_malloc(%zu) expected 64-byte alignment got %p",
              sizes[i], (void *)b[i]);
        fill(b[i], sizes[i], (uint64_t)i, me);
    }
    for (int i = 0; i < NB; i++)
        for (int j = 0; j < NB; j++)
            if (i != j)
                CHECK(b[i] + sizes[i] <= b[j] || b[j] + sizes[j] <= b[i],
                      "blocks %p+%zu and %p+%zu expected disjoint got overlapping", (void *)b[i],
                      sizes[i], (void *)b[j], sizes[j]);
    for (int i = 0; i < NB; i++)
        check_fill(b[i], sizes[i], (uint64_t)i, me, "block contents after all allocations");
    use_remotely(b[6], sizes[6], 50, "malloc'd block written by the left neighbour");
    for (int i = 0; i < NB; i++)
        shmem_free(b[i]);

    /* shmem_align. */
    static const size_t aligns[] = {64, 4096, (size_t)1 << 20, 128, 8, 1};
    for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
        unsigned char *pad = shmem_malloc(64 * (i + 1)); /* shift the free space */
        unsigned char *p = shmem_align(aligns[i], 1000);
        CHECK(p != NULL, "shmem_align(%zu, 1000) expected memory got NULL", aligns[i]);
        CHECK((uintptr_t)p % aligns[i] == 0, "shmem_align(%zu, 1000) expected an aligned pointer got %p",
              aligns[i], (void *)p);
        CHECK((uintptr_t)p % 64 == 0, "shmem_align(%zu, 1000) expected at least 64-byte alignment got %p",
              aligns[i], (void *)p);
        use_remotely(p, 1000, 60 + i, "shmem_align'd block written by the left neighbour");
        shmem_free(p);
        shmem_free(pad);
    }
    unsigned char *h = shmem_malloc_with_hints(512, SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(h != NULL, "shmem_malloc_with_hints(512) expected memory got NULL");
    use_remotely(h, 512, 70, "shmem_malloc_with_hints block written by the left neighbour");
    shmem_free(h);
}

static void test_calloc(void)
{
    /* A fresh block, and one with junk written and freed just before. */
    size_t big_n = (size_t)1 << 20;
    unsigned char *big = shmem_calloc(big_n, 1);
    CHECK(big != NULL, "shmem_calloc(1 MiB) expected memory got NULL");
    check_zero(big, big_n, "fresh calloc'd 1 MiB block");
    memset(big, 0x5a, big_n);
    shmem_free(big);
    big = shmem_calloc(big_n / 16, 16);
    CHECK(big != NULL, "shmem_calloc(64 Ki, 16) expected memory got NULL");
    check_zero(big, big_n, "calloc'd 1 MiB block after junk in a freed block");
    shmem_free(big);

    for (int round = 0; round < 8; round++) {
        size_t n = (size_t)(round + 1) * 1000 + 8 * (size_t)npes;
        unsigned char *junk = shmem_malloc(n);
        CHECK(junk != NULL, "shmem_malloc(%zu) expected memory got NULL", n);
        memset(junk, 0xab, n);
        shmem_free(junk);
        /* Likely the same block (first fit): it must come back zeroed. */
        long *z = shmem_calloc(n / sizeof(long), sizeof(long));
        CHECK(z != NULL, "shmem_calloc(%zu, %zu) expected memory got NULL", n / sizeof(long),
              sizeof(long));
        /* Straight away, before any barrier of mine: my right neighbour's
         * calloc must not zero this after it arrives. */
        shmem_long_p(&z[me], 1000L * round + me + 1, right);
        shmem_barrier_all();
        for (size_t i = 0; i < n / sizeof(long); i++) {
            long want = (int)i == left ? 1000L * round + left + 1 : 0;
            CHECK(z[i] == want, "calloc'd block (round %d), element %zu expected %ld got %ld", round,
                  i, want, z[i]);
        }
        shmem_free(z);
    }
}

static void test_realloc(void)
{
    size_t before = shmemx_heap_free();

    /* realloc(NULL, n) allocates. */
    unsigned char *p = shmem_realloc(NULL, 1000);
    CHECK(p != NULL, "shmem_realloc(NULL, 1000) expected memory got NULL");
    CHECK((uintptr_t)p % 64 == 0, "shmem_realloc(NULL, 1000) expected 64-byte alignment got %p", (void *)p);
    fill(p, 1000, 80, me);

    /* Grow in place or not (nothing follows p): contents kept. */
    p = shmem_realloc(p, 5000);
    CHECK(p != NULL, "shmem_realloc(p, 5000) expected memory got NULL");
    check_fill(p, 1000, 80, me, "realloc grown to 5000 bytes");
    fill(p, 5000, 81, me);

    /* Grow when a neighbour block blocks growth in place: it must move. */
    unsigned char *wall = shmem_malloc(64);
    CHECK(wall != NULL, "shmem_malloc(64) expected memory got NULL");
    fill(wall, 64, 82, me);
    unsigned char *q = shmem_realloc(p, 300000);
    CHECK(q != NULL, "shmem_realloc(p, 300000) expected memory got NULL");
    check_fill(q, 5000, 81, me, "realloc grown (moved) to 300000 bytes");
    check_fill(wall, 64, 82, me, "the block after the moved one");
    use_remotely(q, 300000, 83, "realloc'd block written by the left neighbour");

    /* Shrink: the head stays. */
    q = shmem_realloc(q, 10);
    CHECK(q != NULL, "shmem_realloc(q, 10) expected memory got NULL");
    check_fill(q, 10, 83, left, "realloc shrunk to 10 bytes");
    use_remotely(q, 10, 84, "shrunk block written by the left neighbour");

    /* realloc(p, 0) frees: everything back as it was. */
    CHECK_PTR("shmem_realloc(q, 0)", NULL, shmem_realloc(q, 0));
    shmem_free(wall);
    CHECK(shmemx_heap_free() == before, "shmemx_heap_free after freeing everything expected %zu got %zu",
          before, shmemx_heap_free());
}

/* A random alloc/free sequence, the same on every PE: the same offsets on
 * every PE, checked by PE 0 (every PE puts its offsets there), and every
 * live block keeps its own pattern. */
#define NOPS 300
#define MAXLIVE 24

static void test_determinism(void)
{
    uint64_t *offs = shmem_calloc((size_t)npes * NOPS, sizeof(uint64_t));
    unsigned char *ref = shmem_malloc(64);
    CHECK(offs != NULL && ref != NULL, "shmem_calloc/malloc expected memory got NULL");
    uint64_t mine[NOPS];
    unsigned char *live[MAXLIVE] = {0};
    size_t live_n[MAXLIVE] = {0};
    uint64_t live_salt[MAXLIVE] = {0};
    uint64_t rng = 12345;
    for (int op = 0; op < NOPS; op++) {
        rng = test_mix(rng);
        int slot = (int)(rng % MAXLIVE);
        if (live[slot]) {
            check_fill(live[slot], live_n[slot], live_salt[slot], me, "random-sequence block");
            if ((rng >> 8) % 4 == 0) {
                size_t n = 1 + (size_t)((rng >> 16) % 70000);
                unsigned char *r = shmem_realloc(live[slot], n);
                CHECK(r != NULL, "shmem_realloc(%zu) in the random sequence expected memory", n);
                size_t keep = n < live_n[slot] ? n : live_n[slot];
                check_fill(r, keep, live_salt[slot], me, "random-sequence block after realloc");
                live[slot] = r;
                live_n[slot] = n;
                mine[op] = (uint64_t)((uintptr_t)r - (uintptr_t)ref);
                live_salt[slot] = 1000 + (uint64_t)op;
                fill(r, n, live_salt[slot], me);
            } else {
                shmem_free(live[slot]);
                live[slot] = NULL;
                mine[op] = UINT64_MAX;
            }
        } else {
            size_t n = 1 + (size_t)((rng >> 16) % 70000);
            if ((rng >> 40) % 3 == 0)
                live[slot] = shmem_align((size_t)64 << ((rng >> 44) % 8), n);
            else if ((rng >> 40) % 3 == 1)
                live[slot] = shmem_calloc(n, 1);
            else
                live[slot] = shmem_malloc(n);
            CHECK(live[slot] != NULL, "allocation of %zu in the random sequence expected memory", n);
            live_n[slot] = n;
            live_salt[slot] = 1000 + (uint64_t)op;
            fill(live[slot], n, live_salt[slot], me);
            mine[op] = (uint64_t)((uintptr_t)live[slot] - (uintptr_t)ref);
        }
    }
    /* Remote use of every live block: a put into my right neighbour's copy
     * (offsets match, so it lands in the same block there). */
    shmem_barrier_all();
    for (int s = 0; s < MAXLIVE; s++)
        if (live[s]) {
            uint64_t v = test_hash4(7, (uint64_t)me, (uint64_t)s, 0);
            shmem_putmem(live[s], &v, live_n[s] < 8 ? live_n[s] : 8, right);
        }
    shmem_barrier_all();
    for (int s = 0; s < MAXLIVE; s++)
        if (live[s]) {
            uint64_t v = test_hash4(7, (uint64_t)left, (uint64_t)s, 0);
            size_t k = live_n[s] < 8 ? live_n[s] : 8;
            CHECK(memcmp(live[s], &v, k) == 0, "random-sequence block %d: the put from the left "
                                               "neighbour expected in its first %zu bytes", s, k);
            check_fill_from(live[s], k, live_n[s], live_salt[s], me, "random-sequence block tail");
        }
    shmem_uint64_put(&offs[(size_t)me * NOPS], mine, NOPS, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            for (int op = 0; op < NOPS; op++)
                CHECK(offs[(size_t)pe * NOPS + op] == mine[op],
                      "offset of allocation %d on PE %d expected %llu (PE 0's) got %llu", op, pe,
                      (unsigned long long)mine[op], (unsigned long long)offs[(size_t)pe * NOPS + op]);
    for (int s = 0; s < MAXLIVE; s++)
        shmem_free(live[s]);
    shmem_free(ref);
    shmem_free(offs);
}

static void test_grow(void)
{
    size_t n = (size_t)16 << 20;
    size_t size0 = shmemx_heap_size();
    CHECK(size0 < n, "grow test: initial heap expected smaller than %zu got %zu "
                     "(run with SHMEM_SYMMETRIC_SIZE=1M)", n, size0);
    unsigned char *small = shmem_malloc(4096);
    CHECK(small != NULL, "shmem_malloc(4096) expected memory got NULL");
    fill(small, 4096, 90, me);
    unsigned char *big = shmem_malloc(n);
    CHECK(big != NULL, "shmem_malloc(16 MiB) in a %zu-byte heap expected memory got NULL", size0);
    CHECK(shmemx_heap_size() >= n, "heap size after a 16 MiB allocation expected >= %zu got %zu", n,
          shmemx_heap_size());
    check_fill(small, 4096, 90, me, "block allocated before the heap grew");
    use_remotely(big, n, 91, "16 MiB block beyond the initial heap, written by the left neighbour");
    use_remotely(small, 4096, 92, "block allocated before the heap grew, written by the left neighbour");
    /* And the last byte of the grown range, from every PE. */
    shmem_barrier_all();
    for (int t = 0; t < npes; t++)
        shmem_char_p((char *)&big[n - 1 - (size_t)me], (char)(me + 1), t);
    shmem_barrier_all();
    for (int s = 0; s < npes; s++)
        CHECK_EQ("last bytes of the grown heap", s + 1, big[n - 1 - (size_t)s]);
    shmem_free(big);
    shmem_free(small);
}

static void test_exhaust(void)
{
    unsigned char *p = shmem_malloc((size_t)64 << 20);
    CHECK(p == NULL, "shmem_malloc(64 MiB) with SYMM_MAX_SYMMETRIC_SIZE=4M expected NULL got %p",
          (void *)p);
    p = shmem_calloc((size_t)8 << 20, 1);
    CHECK(p == NULL, "shmem_calloc(8 MiB) with SYMM_MAX_SYMMETRIC_SIZE=4M expected NULL got %p",
          (void *)p);
    unsigned char *q = shmem_malloc((size_t)1 << 20);
    CHECK(q != NULL, "shmem_malloc(1 MiB) after a failed allocation expected memory got NULL");
    use_remotely(q, (size_t)1 << 20, 95, "1 MiB block after a failed allocation");
    /* realloc failing keeps the old block. */
    unsigned char *r = shmem_realloc(q, (size_t)64 << 20);
    CHECK(r == NULL, "shmem_realloc to 64 MiB with a 4 MiB maximum expected NULL got %p", (void *)r);
    check_fill(q, (size_t)1 << 20, 95, left, "block after a failed realloc");
    shmem_free(q);
    /* Up to the maximum: 2 MiB more than the initial size still fits. */
    q = shmem_malloc((size_t)2 << 20);
    CHECK(q != NULL, "shmem_malloc(2 MiB) in a heap that may grow to 4 MiB expected memory got NULL");
    use_remotely(q, (size_t)2 << 20, 96, "2 MiB block in a grown heap");
    shmem_free(q);
}

static void test_big(void)
{
    const size_t gib = (size_t)1 << 30, want = 64 * gib;
    size_t size0 = shmemx_heap_size();
    CHECK(size0 >= 65 * gib, "big: heap of SHMEM_SYMMETRIC_SIZE=65G expected >= %zu bytes got %zu",
          65 * gib, size0);
    unsigned char *p = shmem_malloc(want);
    CHECK(p != NULL, "big: shmem_malloc(64 GiB) in a 65 GiB heap expected memory got NULL");
    CHECK_EQ("big: heap size after the allocation (no growth needed)", size0, shmemx_heap_size());
    shmem_uint8_p(&p[0], (uint8_t)(10 + me), right);
    shmem_uint8_p(&p[want - 1], (uint8_t)(20 + me), right);
    shmem_barrier_all();
    CHECK_EQ("big: first byte from the left neighbour", 10 + left, p[0]);
    CHECK_EQ("big: last byte from the left neighbour", 20 + left, p[want - 1]);
    shmem_free(p);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (strcmp(mode, "exhaust") == 0) {
        test_exhaust();
    } else if (strcmp(mode, "big") == 0) {
        test_big();
    } else {
        test_basic();
        test_calloc();
        test_realloc();
        test_determinism();
        if (strcmp(mode, "grow") == 0)
            test_grow();
        else
            CHECK(strcmp(mode, "basic") == 0, "mode expected basic, grow, exhaust or big got '%s'", mode);
    }
    if (me == 0)
        printf("heap %s: ok on %d PEs\n", mode, npes);
    shmem_finalize();
    return 0;
}
