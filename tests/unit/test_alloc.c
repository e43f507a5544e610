/*
 * test_alloc.c - the symmetric heap allocator (src/mem/alloc.c) alone.
 *
 * Fixed cases: first fit (not best fit), coalescing with either and both
 * neighbours, alignment and the reuse of alignment gaps, resize in place
 * (grow into the next free block, refuse when it is taken, shrink and reuse
 * the tail), growth of the limit, exhaustion (SYMM_ERR_NOMEM), invalid
 * arguments, accounting (used, hwm), lookups (block_size, find).
 * Determinism: two allocators fed the same random sequence, with unrelated
 * malloc traffic in between (so their metadata lives at different
 * addresses), hand out identical offsets.
 * Stress: a random sequence checked step by step against a reference model
 * (one bit per 64-byte unit): every result - the exact first-fit offset,
 * success or failure of each resize, used, hwm and the largest free block -
 * is what the model computes, and blocks never overlap or leave the range.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/alloc.h"
#include "runtime/status.h"

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL: ");                                                         \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, " [%s:%d]\n", __FILE__, __LINE__);                                 \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
#define CHECK_EQ(what, expected, got)                                                          \
    do {                                                                                       \
        unsigned long long e_ = (unsigned long long)(expected), g_ = (unsigned long long)(got); \
        CHECK(e_ == g_, "%s expected %llu got %llu", what, e_, g_);                            \
    } while (0)

#define U 64 /* SYMM_ALLOC_MIN_ALIGN: the unit of sizes and offsets */
#define KB ((size_t)1024)
#define MB ((size_t)1 << 20)

static size_t alloc_ok(symm_heap_alloc_t *a, size_t size, size_t align, const char *what)
{
    size_t off = (size_t)-1;
    int rc = symm_alloc_alloc(a, size, align, &off);
    CHECK(rc == SYMM_OK, "%s: alloc(%zu, align %zu) expected SYMM_OK got %d", what, size, align, rc);
    return off;
}

static void test_first_fit_and_coalesce(void)
{
    symm_heap_alloc_t a;
    size_t base = 64 * KB, limit = 1 * MB;
    CHECK_EQ("init", SYMM_OK, symm_alloc_init(&a, base, limit));
    CHECK_EQ("largest free of a new allocator", limit - base, symm_alloc_largest_free(&a));

    size_t A = alloc_ok(&a, 100, 0, "A");    /* 128 */
    size_t B = alloc_ok(&a, 200, 0, "B");    /* 256 */
    size_t C = alloc_ok(&a, 300, 0, "C");    /* 320 */
    size_t D = alloc_ok(&a, 1, 0, "D");      /* 64 */
    size_t E = alloc_ok(&a, 64, 0, "E");     /* 64 */
    CHECK_EQ("first block at base", base, A);
    CHECK_EQ("B follows A (100 rounds to 128)", base + 128, B);
    CHECK_EQ("C follows B", base + 384, C);
    CHECK_EQ("D follows C", base + 704, D);
    CHECK_EQ("E follows D", base + 768, E);
    CHECK_EQ("block_size(A)", 128, symm_alloc_block_size(&a, A));
    CHECK_EQ("block_size(D), size 1", 64, symm_alloc_block_size(&a, D));
    CHECK_EQ("used", 128 + 256 + 320 + 64 + 64, a.used);
    CHECK_EQ("hwm", base + 832, a.hwm);

    /* First fit: a 256-byte hole at B and a 64-byte hole at D; a 64-byte
     * request takes the first (lower) hole, not the best-fitting one. */
    CHECK_EQ("free B", SYMM_OK, symm_alloc_free(&a, B));
    CHECK_EQ("free D", SYMM_OK, symm_alloc_free(&a, D));
    size_t F = alloc_ok(&a, 64, 0, "F");
    CHECK_EQ("first fit takes the lower hole", B, F);
    size_t G = alloc_ok(&a, 192, 0, "G");
    CHECK_EQ("the rest of B's hole", B + 64, G);
    size_t H = alloc_ok(&a, 64, 0, "H");
    CHECK_EQ("then D's hole", D, H);
    CHECK_EQ("hwm unchanged by reuse", base + 832, a.hwm);

    /* Coalescing: free A, C, then G in the middle: A..C must be one block. */
    CHECK_EQ("free F", SYMM_OK, symm_alloc_free(&a, F));
    CHECK_EQ("free A", SYMM_OK, symm_alloc_free(&a, A));     /* merges with next (F) */
    CHECK_EQ("free C", SYMM_OK, symm_alloc_free(&a, C));
    CHECK_EQ("free G", SYMM_OK, symm_alloc_free(&a, G));     /* merges both sides */
    size_t big = alloc_ok(&a, 704, 0, "A..C");
    CHECK_EQ("A..C coalesced into one block at A", A, big);
    CHECK_EQ("free A..C", SYMM_OK, symm_alloc_free(&a, big));
    /* Freeing the last blocks merges with the free tail: one free block. */
    CHECK_EQ("free H", SYMM_OK, symm_alloc_free(&a, H));
    CHECK_EQ("free E", SYMM_OK, symm_alloc_free(&a, E));
    CHECK_EQ("largest free when all is free", limit - base, symm_alloc_largest_free(&a));
    CHECK_EQ("used when all is free", 0, a.used);
    CHECK_EQ("whole range in one allocation", base, alloc_ok(&a, limit - base, 0, "all"));

    /* Invalid frees. */
    CHECK_EQ("free of an interior offset", SYMM_ERR_INVALID, symm_alloc_free(&a, base + 64));
    CHECK_EQ("free of the block", SYMM_OK, symm_alloc_free(&a, base));
    CHECK_EQ("double free", SYMM_ERR_INVALID, symm_alloc_free(&a, base));
    CHECK_EQ("free below base", SYMM_ERR_INVALID, symm_alloc_free(&a, 0));
    CHECK_EQ("block_size of a free offset", 0, symm_alloc_block_size(&a, base));
    symm_alloc_fini(&a);
}

static void test_alignment(void)
{
    symm_heap_alloc_t a;
    size_t base = 64 * KB, limit = 8 * MB;
    CHECK_EQ("init", SYMM_OK, symm_alloc_init(&a, base, limit));
    size_t small = alloc_ok(&a, 64, 0, "small");
    CHECK_EQ("small at base", base, small);
    for (size_t align = 1; align <= 2 * MB; align *= 2) {
        size_t off = alloc_ok(&a, 100, align, "aligned");
        size_t want = align < U ? U : align;
        CHECK(off % want == 0, "alloc(100, align %zu) expected a multiple of %zu got %zu", align,
              want, off);
        CHECK(off >= base && off + 128 <= limit, "aligned block %zu outside [%zu,%zu)", off, base, limit);
    }
    /* The gaps in front of aligned blocks are free and reusable: the
     * 1 MiB-aligned one left a gap that takes a 64 KiB block. */
    size_t gap = alloc_ok(&a, 64 * KB, 0, "in a gap");
    CHECK(gap < 1 * MB, "a 64 KiB block expected in an alignment gap below 1 MiB got %zu", gap);
    size_t off = 0;
    CHECK_EQ("alignment 96 (not a power of two)", SYMM_ERR_INVALID, symm_alloc_alloc(&a, 64, 96, &off));
    CHECK_EQ("alignment 4 MiB + 64", SYMM_ERR_INVALID,
             symm_alloc_alloc(&a, 64, 4 * MB + 64, &off));
    CHECK(symm_alloc_alloc(&a, SIZE_MAX - 10, 0, &off) != SYMM_OK, "alloc(SIZE_MAX - 10) expected an error got success");
    /* Alignment larger than any free block's room: NOMEM, not a wrong block. */
    int rc = symm_alloc_alloc(&a, 64, (size_t)1 << 40, &off);
    CHECK(rc == SYMM_ERR_NOMEM, "alloc(64, align 1 TiB) in an 8 MiB range expected SYMM_ERR_NOMEM got %d", rc);
    symm_alloc_fini(&a);
}

static void test_resize(void)
{
    symm_heap_alloc_t a;
    size_t base = 0, limit = 64 * KB;
    CHECK_EQ("init", SYMM_OK, symm_alloc_init(&a, base, limit));
    size_t A = alloc_ok(&a, 256, 0, "A");
    size_t B = alloc_ok(&a, 256, 0, "B");
    size_t C = alloc_ok(&a, 256, 0, "C");
    CHECK_EQ("free B", SYMM_OK, symm_alloc_free(&a, B));
    /* Grow A into B's hole partly, then exactly (merging the hole away). */
    CHECK_EQ("grow A to 320", SYMM_OK, symm_alloc_resize(&a, A, 320));
    CHECK_EQ("block_size(A) after growing", 320, symm_alloc_block_size(&a, A));
    CHECK_EQ("used after growing", 320 + 256, a.used);
    CHECK_EQ("grow A to 512 (all of the hole)", SYMM_OK, symm_alloc_resize(&a, A, 512));
    CHECK_EQ("block_size(A)", 512, symm_alloc_block_size(&a, A));
    CHECK_EQ("grow A with C right after it", SYMM_ERR_NOMEM, symm_alloc_resize(&a, A, 513));
    CHECK_EQ("block_size(A) after a refused grow", 512, symm_alloc_block_size(&a, A));
    CHECK_EQ("C still allocated", 256, symm_alloc_block_size(&a, C));
    /* Shrink: the tail becomes free and is reused first fit. */
    CHECK_EQ("shrink A to 100", SYMM_OK, symm_alloc_resize(&a, A, 100));
    CHECK_EQ("block_size(A) after shrinking", 128, symm_alloc_block_size(&a, A));
    size_t T = alloc_ok(&a, 384, 0, "tail");
    CHECK_EQ("the freed tail of A", A + 128, T);
    /* Shrink next to a free block: the free block grows down. */
    CHECK_EQ("free tail", SYMM_OK, symm_alloc_free(&a, T));
    CHECK_EQ("shrink A to 64", SYMM_OK, symm_alloc_resize(&a, A, 0));
    CHECK_EQ("block_size(A) after resize to 0", 64, symm_alloc_block_size(&a, A));
    CHECK_EQ("one free block of 448 between A and C", A + 64, alloc_ok(&a, 448, 0, "gap"));
    CHECK_EQ("resize of a free offset", SYMM_ERR_INVALID, symm_alloc_resize(&a, A + 1, 64));
    /* Grow the last block into the free tail of the range. */
    CHECK_EQ("grow C to the end of the range", SYMM_OK, symm_alloc_resize(&a, C, limit - C));
    CHECK_EQ("grow C past the end of the range", SYMM_ERR_NOMEM, symm_alloc_resize(&a, C, limit - C + 64));
    CHECK_EQ("hwm at the end", limit, a.hwm);
    symm_alloc_fini(&a);
}

static void test_grow_and_exhaust(void)
{
    symm_heap_alloc_t a;
    size_t base = 4096, limit = 4096 + 64 * KB, off;
    CHECK_EQ("init", SYMM_OK, symm_alloc_init(&a, base, limit));
    CHECK_EQ("alloc larger than the range", SYMM_ERR_NOMEM, symm_alloc_alloc(&a, 64 * KB + 1, 0, &off));
    size_t A = alloc_ok(&a, 60 * KB, 0, "A");
    CHECK_EQ("alloc larger than the rest", SYMM_ERR_NOMEM, symm_alloc_alloc(&a, 4 * KB + 64, 0, &off));
    CHECK_EQ("largest free", 4 * KB, symm_alloc_largest_free(&a));
    /* Grow with a free tail: it extends the tail block. */
    CHECK_EQ("grow to 128 KiB", SYMM_OK, symm_alloc_grow(&a, base + 128 * KB));
    CHECK_EQ("limit after grow", base + 128 * KB, a.limit);
    CHECK_EQ("largest free after grow", 68 * KB, symm_alloc_largest_free(&a));
    size_t B = alloc_ok(&a, 68 * KB, 0, "B");
    CHECK_EQ("B right after A", A + 60 * KB, B);
    CHECK_EQ("full", SYMM_ERR_NOMEM, symm_alloc_alloc(&a, 1, 0, &off));
    /* Grow with the last block allocated: a new free block at the old limit. */
    CHECK_EQ("grow to 256 KiB", SYMM_OK, symm_alloc_grow(&a, base + 256 * KB));
    size_t C = alloc_ok(&a, 128 * KB, 0, "C");
    CHECK_EQ("C at the old limit", base + 128 * KB, C);
    CHECK_EQ("grow to the same limit", SYMM_ERR_INVALID, symm_alloc_grow(&a, base + 256 * KB));
    CHECK_EQ("grow to a smaller limit", SYMM_ERR_INVALID, symm_alloc_grow(&a, base + 8 * KB));
    /* symm_alloc_find: interior offsets name their block. */
    size_t st = 0, sz = 0;
    CHECK_EQ("find inside B", SYMM_OK, symm_alloc_find(&a, B + 1000, &st, &sz));
    CHECK_EQ("find inside B: start", B, st);
    CHECK_EQ("find inside B: size", 68 * KB, sz);
    CHECK_EQ("find past the limit", SYMM_ERR_INVALID, symm_alloc_find(&a, base + 300 * KB, &st, &sz));
    CHECK_EQ("free B", SYMM_OK, symm_alloc_free(&a, B));
    CHECK_EQ("find in a free block", SYMM_ERR_INVALID, symm_alloc_find(&a, B + 64, &st, &sz));
    symm_alloc_fini(&a);
}

/* ---- a deterministic random sequence ---------------------------------- */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = (*s += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#define SEQ_OPS 4000
#define SEQ_LIVE 64

/* Run the sequence for seed on a; write each operation's result to out. */
static void run_sequence(symm_heap_alloc_t *a, uint64_t seed, uint64_t *out, int junk)
{
    size_t live[SEQ_LIVE];
    int have[SEQ_LIVE] = {0};
    void *junk_ptrs[SEQ_OPS];
    int nj = 0;
    for (int op = 0; op < SEQ_OPS; op++) {
        uint64_t r = rng_next(&seed);
        int s = (int)(r % SEQ_LIVE);
        size_t size = 1 + (size_t)((r >> 8) % 20000);
        size_t align = (size_t)1 << ((r >> 32) % 14);
        if (junk && (r >> 50) % 2)
            junk_ptrs[nj++] = malloc(1 + (size_t)((r >> 51) % 300));
        if (!have[s]) {
            int rc = symm_alloc_alloc(a, size, align, &live[s]);
            out[op] = rc == SYMM_OK ? live[s] : (uint64_t)rc;
            have[s] = rc == SYMM_OK;
        } else if ((r >> 40) % 3 == 0) {
            int rc = symm_alloc_resize(a, live[s], size);
            out[op] = (uint64_t)rc ^ ((uint64_t)symm_alloc_block_size(a, live[s]) << 8);
        } else {
            out[op] = (uint64_t)symm_alloc_free(a, live[s]);
            have[s] = 0;
        }
        if ((r >> 44) % 500 == 0) {
            out[op] ^= (uint64_t)symm_alloc_grow(a, a->limit + 64 * KB) << 20;
        }
    }
    for (int i = 0; i < nj; i++)
        free(junk_ptrs[i]);
}

static void test_determinism(void)
{
    static uint64_t out1[SEQ_OPS], out2[SEQ_OPS];
    for (uint64_t seed = 1; seed <= 5; seed++) {
        symm_heap_alloc_t a1, a2;
        CHECK_EQ("init 1", SYMM_OK, symm_alloc_init(&a1, 64 * KB, 2 * MB));
        run_sequence(&a1, seed, out1, 0);
        void *spacer = malloc(12345);
        CHECK_EQ("init 2", SYMM_OK, symm_alloc_init(&a2, 64 * KB, 2 * MB));
        run_sequence(&a2, seed, out2, 1);
        free(spacer);
        for (int op = 0; op < SEQ_OPS; op++)
            CHECK(out1[op] == out2[op], "seed %llu operation %d: allocator 1 gave %llu, allocator 2 "
                  "(same sequence) gave %llu", (unsigned long long)seed, op,
                  (unsigned long long)out1[op], (unsigned long long)out2[op]);
        CHECK_EQ("same used", a1.used, a2.used);
        CHECK_EQ("same hwm", a1.hwm, a2.hwm);
        CHECK_EQ("same limit", a1.limit, a2.limit);
        symm_alloc_fini(&a1);
        symm_alloc_fini(&a2);
    }
}

/* ---- stress against a reference model ---------------------------------
 * The model holds one owner id per 64-byte unit (0 = free) over
 * [0, limit); units below base are never handed out. */
#define M_BASE (16 * KB)
#define M_LIMIT0 (1 * MB)
#define M_LIMIT_MAX (2 * MB)
#define M_UNITS (M_LIMIT_MAX / U)
#define M_LIVE 96
#define M_OPS 6000

static uint16_t owner[M_UNITS];
static size_t m_limit, m_used, m_hwm;

static size_t round_unit(size_t n) { return ((n ? n : 1) + U - 1) / U * U; }

/* First fit in the model: the lowest free run in which an aligned start fits. */
static size_t model_first_fit(size_t size, size_t align)
{
    size_t u = M_BASE / U, end = m_limit / U;
    while (u < end) {
        if (owner[u]) {
            u++;
            continue;
        }
        size_t run = u;
        while (run < end && !owner[run])
            run++;
        size_t start = (u * U + align - 1) / align * align;
        if (start + size <= run * U)
            return start;
        u = run;
    }
    return SIZE_MAX;
}

static size_t model_largest_free(void)
{
    size_t best = 0, u = M_BASE / U, end = m_limit / U;
    while (u < end) {
        size_t run = u;
        while (run < end && !owner[run])
            run++;
        if ((run - u) * U > best)
            best = (run - u) * U;
        u = run + 1;
    }
    return best;
}

static void model_set(size_t off, size_t size, uint16_t id)
{
    for (size_t u = off / U; u < (off + size) / U; u++)
        owner[u] = id;
}

static void test_stress(void)
{
    symm_heap_alloc_t a;
    size_t off[M_LIVE], size[M_LIVE];
    int have[M_LIVE] = {0};
    uint64_t seed = 2024;
    memset(owner, 0, sizeof(owner));
    m_limit = M_LIMIT0;
    m_used = 0;
    m_hwm = M_BASE;
    CHECK_EQ("init", SYMM_OK, symm_alloc_init(&a, M_BASE, M_LIMIT0));
    int n_alloc = 0, n_nomem = 0, n_grow_ok = 0, n_grow_refused = 0, n_free = 0, n_limit = 0;
    for (int op = 0; op < M_OPS; op++) {
        uint64_t r = rng_next(&seed);
        int s = (int)(r % M_LIVE);
        /* Mostly small, sometimes large requests, so the heap fills up. */
        size_t req = (r >> 8) % 8 == 0 ? (size_t)((r >> 12) % (256 * KB)) : (size_t)((r >> 12) % 8000);
        size_t align = (r >> 40) % 4 == 0 ? (size_t)1 << ((r >> 42) % 17) : 0;
        uint16_t id = (uint16_t)(s + 1);
        if (!have[s]) {
            size_t want_align = align < U ? U : align;
            size_t rs = round_unit(req);
            size_t expect = model_first_fit(rs, want_align);
            size_t got = 0;
            int rc = symm_alloc_alloc(&a, req, align, &got);
            if (expect == SIZE_MAX) {
                CHECK(rc == SYMM_ERR_NOMEM, "op %d: alloc(%zu, align %zu) expected SYMM_ERR_NOMEM "
                      "(no free run fits) got %d (offset %zu)", op, req, align, rc, got);
                n_nomem++;
            } else {
                CHECK(rc == SYMM_OK, "op %d: alloc(%zu, align %zu) expected offset %zu got error %d",
                      op, req, align, expect, rc);
                CHECK(got == expect, "op %d: alloc(%zu, align %zu) expected first-fit offset %zu got %zu",
                      op, req, align, expect, got);
                for (size_t u = got / U; u < (got + rs) / U; u++)
                    CHECK(owner[u] == 0, "op %d: block %zu+%zu overlaps the block of owner %d",
                          op, got, rs, owner[u]);
                CHECK_EQ("block_size of a new block", rs, symm_alloc_block_size(&a, got));
                model_set(got, rs, id);
                off[s] = got;
                size[s] = rs;
                have[s] = 1;
                m_used += rs;
                if (got + rs > m_hwm)
                    m_hwm = got + rs;
                n_alloc++;
            }
        } else if ((r >> 60) % 4 == 0) {
            size_t ns = round_unit(req);
            int fits = 1;
            if (ns > size[s]) {
                for (size_t u = (off[s] + size[s]) / U; u < (off[s] + ns) / U; u++)
                    if (u >= m_limit / U || owner[u]) {
                        fits = 0;
                        break;
                    }
            }
            int rc = symm_alloc_resize(&a, off[s], req);
            if (!fits) {
                CHECK(rc == SYMM_ERR_NOMEM, "op %d: resize %zu from %zu to %zu expected "
                      "SYMM_ERR_NOMEM (the next units are taken) got %d", op, off[s], size[s], ns, rc);
                n_grow_refused++;
            } else {
                CHECK(rc == SYMM_OK, "op %d: resize %zu from %zu to %zu expected SYMM_OK got %d", op,
                      off[s], size[s], ns, rc);
                model_set(off[s], size[s], 0);
                model_set(off[s], ns, id);
                m_used = m_used - size[s] + ns;
                size[s] = ns;
                if (off[s] + ns > m_hwm)
                    m_hwm = off[s] + ns;
                n_grow_ok++;
            }
            CHECK_EQ("block_size after resize", size[s], symm_alloc_block_size(&a, off[s]));
        } else {
            CHECK_EQ("free of a live block", SYMM_OK, symm_alloc_free(&a, off[s]));
            model_set(off[s], size[s], 0);
            m_used -= size[s];
            have[s] = 0;
            n_free++;
        }
        if ((r >> 50) % 300 == 0 && m_limit + 64 * KB <= M_LIMIT_MAX) {
            CHECK_EQ("grow the limit", SYMM_OK, symm_alloc_grow(&a, m_limit + 64 * KB));
            m_limit += 64 * KB;
            n_limit++;
        }
        CHECK(a.used == m_used, "op %d: used expected %zu got %zu", op, m_used, a.used);
        CHECK(a.hwm == m_hwm, "op %d: hwm expected %zu got %zu", op, m_hwm, a.hwm);
        CHECK(a.limit == m_limit, "op %d: limit expected %zu got %zu", op, m_limit, a.limit);
        if (op % 16 == 0)
            CHECK(symm_alloc_largest_free(&a) == model_largest_free(),
                  "op %d: largest free block expected %zu (free neighbours always merged) got %zu",
                  op, model_largest_free(), symm_alloc_largest_free(&a));
    }
    /* Every live block is still where the model has it. */
    for (int s = 0; s < M_LIVE; s++)
        if (have[s]) {
            size_t st = 0, sz = 0;
            CHECK_EQ("find of a live block", SYMM_OK, symm_alloc_find(&a, off[s] + size[s] - 1, &st, &sz));
            CHECK_EQ("find: start", off[s], st);
            CHECK_EQ("find: size", size[s], sz);
            CHECK_EQ("free at the end", SYMM_OK, symm_alloc_free(&a, off[s]));
        }
    CHECK_EQ("used after freeing everything", 0, a.used);
    CHECK_EQ("one free block after freeing everything", m_limit - M_BASE, symm_alloc_largest_free(&a));
    /* The sequence must have exercised every path. */
    CHECK(n_alloc > 500 && n_nomem > 10 && n_grow_ok > 20 && n_grow_refused > 20 && n_free > 500 &&
          n_limit > 3, "stress coverage: %d allocs, %d NOMEM, %d resizes done, %d refused, %d frees, "
          "%d limit growths (each expected to be well above zero)", n_alloc, n_nomem, n_grow_ok,
          n_grow_refused, n_free, n_limit);
    printf("stress: %d allocs, %d NOMEM, %d resizes done, %d refused, %d frees, %d limit growths\n",
           n_alloc, n_nomem, n_grow_ok, n_grow_refused, n_free, n_limit);
    symm_alloc_fini(&a);
}

int main(void)
{
    test_first_fit_and_coalesce();
    test_alignment();
    test_resize();
    test_grow_and_exhaust();
    test_determinism();
    test_stress();
    printf("test_alloc: ok\n");
    return 0;
}
