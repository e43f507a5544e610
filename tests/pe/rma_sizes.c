/*
 * rma_sizes.c - putmem/getmem of every size class to the right neighbour.
 *
 * Sizes 0..17, then 2^k-1, 2^k, 2^k+1 up to 512 KiB, then one size per
 * power (alternately 2^k+1 and 2^k-1) up to 32 MiB - 1, then exactly 64 MiB
 * (the largest: buffers are sized for it); source and
 * destination at odd offsets from 64-byte alignment (every pair of
 * {0,1,3,7,13,63} for small sizes, one pair per size otherwise). The four
 * forms (putmem, putmem_nbi, ctx_putmem, ctx_putmem_nbi, and the same for
 * get) take turns.
 *
 * Every byte is checked: a transferred byte at distance t from the start is
 * pattern(sender, t, phase) (so a copy from a wrong offset or PE shows), and
 * every byte around it (guards, alignment gaps) must still hold the
 * complement of that pattern, as it was before the transfer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define MAXS ((size_t)64 << 20)
#define GUARD 128
#define SMALL 4096 /* sizes up to this use every offset pair at once */

static const size_t offs[] = {0, 1, 3, 7, 13, 63};
#define NOFFS (sizeof(offs) / sizeof(offs[0]))
#define NPAIRS (NOFFS * NOFFS)

static int me, npes, left, right;
static unsigned phase;

/* pattern byte at distance t (may be negative) from a transfer's start. */
static void gen(unsigned char *p, size_t len, int pe, int64_t t0, int complement)
{
    uint64_t u0 = (uint64_t)(t0 + 1024);
    unsigned char x = complement ? 0xff : 0;
    size_t i = 0;
    while (i < len) {
        uint64_t u = u0 + i;
        unsigned base = (unsigned)pe * 131u + (unsigned)(u >> 8) * 13u + (unsigned)(u >> 16) * 29u +
                        (unsigned)(u >> 24) * 53u + phase * 101u;
        size_t r = (size_t)(u & 255), m = 256 - r;
        if (m > len - i)
            m = len - i;
        for (size_t j = 0; j < m; j++)
            p[i + j] = (unsigned char)((base + 7u * (unsigned)(r + j)) ^ x);
        i += m;
    }
}

static void check(const unsigned char *p, size_t len, int pe, int64_t t0, int complement,
                  const char *what, size_t n, size_t od, size_t os)
{
    unsigned char want[256];
    for (size_t i = 0; i < len; i += sizeof(want)) {
        size_t m = len - i < sizeof(want) ? len - i : sizeof(want);
        gen(want, m, pe, t0 + (int64_t)i, complement);
        if (memcmp(want, p + i, m) == 0)
            continue;
        for (size_t j = 0; j < m; j++)
            CHECK(want[j] == p[i + j],
                  "%s of %zu bytes (dest offset %zu, source offset %zu): byte at distance "
                  "%lld from the start expected 0x%02x got 0x%02x",
                  what, n, od, os, (long long)(t0 + (int64_t)(i + j)), want[j], p[i + j]);
    }
}

static size_t region_size(size_t n) { return (n + GUARD + 63) / 64 * 64; }

/* The pairs of (dest offset, source offset) a size is tried with. */
static size_t pairs_for(size_t n, size_t idx, size_t *od, size_t *os)
{
    size_t np = n <= SMALL ? NPAIRS : 1;
    size_t k = n <= SMALL ? idx : phase % NPAIRS;
    *od = offs[k / NOFFS];
    *os = offs[k % NOFFS];
    return np;
}

static void do_put(void *d, const void *s, size_t n, int pe)
{
    switch (phase % 4) {
    case 0: shmem_putmem(d, s, n, pe); break;
    case 1: shmem_putmem_nbi(d, s, n, pe); break;
    case 2: shmem_ctx_putmem(SHMEM_CTX_DEFAULT, d, s, n, pe); break;
    default: shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe); break;
    }
}

static void do_get(void *d, const void *s, size_t n, int pe)
{
    switch (phase % 4) {
    case 0: shmem_getmem(d, s, n, pe); break;
    case 1: shmem_getmem_nbi(d, s, n, pe); break;
    case 2: shmem_ctx_getmem(SHMEM_CTX_DEFAULT, d, s, n, pe); break;
    default: shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe); break;
    }
}

static void finish(void)
{
    if (phase % 4 == 1)
        shmem_quiet();
    else if (phase % 4 == 3)
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
}

/* Check one region: [0, od) and [od+n, rs) complement, [od, od+n) pattern. */
static void check_region(const unsigned char *r, size_t rs, size_t n, size_t od, size_t os,
                         int pe, const char *what)
{
    check(r, od, pe, -(int64_t)od, 1, what, n, od, os);
    check(r + od, n, pe, 0, 0, what, n, od, os);
    check(r + od + n, rs - od - n, pe, (int64_t)n, 1, what, n, od, os);
}

static void phase_put(size_t n, unsigned char *D, unsigned char *S)
{
    size_t rs = region_size(n), od, os;
    size_t np = pairs_for(n, 0, &od, &os);
    /* My D: what my left neighbour sends, complemented. */
    for (size_t k = 0; k < np; k++) {
        pairs_for(n, k, &od, &os);
        gen(D + k * rs, rs, left, -(int64_t)od, 1);
    }
    shmem_barrier_all();
    for (size_t k = 0; k < np; k++) {
        pairs_for(n, k, &od, &os);
        gen(S + k * rs, rs, me, -(int64_t)os, 0);
        do_put(D + k * rs + od, S + k * rs + os, n, right);
    }
    finish();
    shmem_barrier_all();
    for (size_t k = 0; k < np; k++) {
        pairs_for(n, k, &od, &os);
        check_region(D + k * rs, rs, n, od, os, left, "putmem from the left neighbour");
    }
}

static void phase_get(size_t n, unsigned char *D, unsigned char *S)
{
    size_t rs = region_size(n), od, os;
    size_t np = pairs_for(n, 0, &od, &os);
    /* My D: what my left neighbour reads, at source offset os. */
    for (size_t k = 0; k < np; k++) {
        pairs_for(n, k, &od, &os);
        gen(D + k * rs, rs, me, -(int64_t)os, 0);
    }
    shmem_barrier_all();
    for (size_t k = 0; k < np; k++) {
        pairs_for(n, k, &od, &os);
        gen(S + k * rs, rs, right, -(int64_t)od, 1);
        do_get(S + k * rs + od, D + k * rs + os, n, right);
    }
    finish();
    for (size_t k = 0; k < np; k++) {
        pairs_for(n, k, &od, &os);
        check_region(S + k * rs, rs, n, od, os, right, "getmem from the right neighbour");
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    size_t sizes[128], ns = 0;
    for (size_t n = 0; n <= 17; n++)
        sizes[ns++] = n;
    for (int k = 5; k < 20; k++) {
        sizes[ns++] = ((size_t)1 << k) - 1;
        sizes[ns++] = (size_t)1 << k;
        sizes[ns++] = ((size_t)1 << k) + 1;
    }
    for (int k = 20; k < 26; k++) /* big: one size per power keeps the run short */
        sizes[ns++] = ((size_t)1 << k) + (k % 2 ? (size_t)-1 : 1);
    sizes[ns++] = MAXS;

    size_t dbytes = region_size(MAXS);
    if (NPAIRS * region_size(SMALL) > dbytes)
        dbytes = NPAIRS * region_size(SMALL);
    unsigned char *D = shmem_malloc(dbytes);
    CHECK(D != NULL, "shmem_malloc(%zu) expected memory got NULL", dbytes);
    unsigned char *S = aligned_alloc(64, dbytes);
    CHECK(S != NULL, "aligned_alloc(%zu) expected memory got NULL", dbytes);

    for (size_t i = 0; i < ns; i++) {
        phase++;
        phase_put(sizes[i], D, S);
        phase++;
        phase_get(sizes[i], D, S);
    }

    /* Zero length with NULL pointers: nothing happens. */
    phase++;
    gen(D, 256, me, 0, 0);
    shmem_barrier_all();
    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, right);
    shmem_ctx_getmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, right);
    shmem_putmem(D, S, 0, right);
    shmem_quiet();
    shmem_barrier_all();
    check(D, 256, me, 0, 0, "zero-length putmem", 0, 0, 0);

    free(S);
    shmem_free(D);
    if (me == 0)
        printf("rma_sizes: %zu sizes up to %zu bytes on %d PEs: ok\n", ns, MAXS, npes);
    shmem_finalize();
    return 0;
}
