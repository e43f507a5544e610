/*
 * rma_strided.c - iput/iget with odd strides.
 *
 * For element sizes 1, 2, 4, 8, 16 (shmem_iputBITS / shmem_igetBITS, the ctx
 * forms on alternate phases), destination and source strides 1, 2, 3, 7
 * chosen independently, and nelems 1..33, to every PE (self included):
 *
 *   iput: PE s sends logical element j (taken from its local source at
 *     j*sst, with junk in between) to position j*dst of its slot on PE t.
 *   iget: PE r reads logical element j from position j*sst of its slot on
 *     PE t into position j*dst of a private buffer.
 *
 * The value at a position depends on (phase, source PE, target PE, nelems,
 * position), and every position not written holds the complement of the
 * value that would arrive there, so each element and each gap is checked
 * exactly (gaps must be untouched, and so must the guards after the last
 * element).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define NMAX 33                           /* nelems 1..NMAX */
#define SMAX 7                            /* largest stride */
#define REG ((NMAX - 1) * SMAX + 1 + 8)   /* one region per nelems, 8 guard elements */
#define SLOTE ((size_t)NMAX * REG)        /* elements per PE slot */

typedef void (*str_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
typedef void (*ctx_str_fn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);

typedef struct fam {
    size_t size;
    str_fn iput, iget;
    ctx_str_fn ctx_iput, ctx_iget;
} fam_t;

#define FAM(B) {B / 8, shmem_iput##B, shmem_iget##B, shmem_ctx_iput##B, shmem_ctx_iget##B},
static const fam_t fams[] = {SHMEM_SIZES(FAM)};
static const ptrdiff_t strides[] = {1, 2, 3, SMAX};
#define NSTRIDES (sizeof(strides) / sizeof(strides[0]))

static int me, npes;
static unsigned phase;

/* Element bytes for hash h; those of ~h differ in every byte. */
static void mk(unsigned char *e, size_t size, uint64_t h)
{
    for (size_t k = 0; k < size; k++)
        e[k] = (unsigned char)((unsigned char)(h >> (8 * (k % 8))) + (unsigned char)(k / 8 * 0x3b));
}

/* Value at position p of the region for nelems n, sent by src to tgt. */
static uint64_t key(int src, int tgt, size_t n)
{
    return test_hash4(phase, (uint64_t)src, (uint64_t)tgt, n);
}
static uint64_t val(uint64_t k, size_t p) { return test_mix(k + p); }

static void expect(const unsigned char *got, size_t size, uint64_t h, const char *what,
                   ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, size_t p)
{
    unsigned char want[16];
    mk(want, size, h);
    if (memcmp(want, got, size) == 0)
        return;
    char ws[40], gs[40];
    for (size_t k = 0; k < size; k++) {
        snprintf(ws + 2 * k, 3, "%02x", want[k]);
        snprintf(gs + 2 * k, 3, "%02x", got[k]);
    }
    CHECK(0, "%s of %zu-byte elements, dst stride %td src stride %td nelems %zu, PE %d, "
             "position %zu: expected %s got %s",
          what, size, ds, ss, n, pe, p, ws, gs);
}

static void *xalloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    CHECK(p != NULL, "aligned_alloc(%zu) expected memory got NULL", bytes);
    return p;
}

static void phase_iput(const fam_t *f, int ctx, ptrdiff_t ds, ptrdiff_t ss, unsigned char *dst)
{
    size_t sz = f->size;
    unsigned char *src = xalloc(REG * sz);
    /* My array: slot s, region n, position p = ~value s would send there. */
    for (int s = 0; s < npes; s++)
        for (size_t n = 1; n <= NMAX; n++) {
            uint64_t k = key(s, me, n);
            unsigned char *r = dst + ((size_t)s * SLOTE + (n - 1) * REG) * sz;
            for (size_t p = 0; p < REG; p++)
                mk(r + p * sz, sz, ~val(k, p));
        }
    shmem_barrier_all();
    for (int i = 0; i < npes; i++) {
        int tgt = (me + 1 + i) % npes;
        for (size_t n = 1; n <= NMAX; n++) {
            uint64_t k = key(me, tgt, n);
            for (size_t p = 0; p < REG; p++) /* junk between the source strides */
                mk(src + p * sz, sz, test_mix(k ^ 0xabcdef) + p);
            for (size_t j = 0; j < n; j++)
                mk(src + j * (size_t)ss * sz, sz, val(k, j * (size_t)ds));
            unsigned char *d = dst + ((size_t)me * SLOTE + (n - 1) * REG) * sz;
            if (ctx)
                f->ctx_iput(SHMEM_CTX_DEFAULT, d, src, ds, ss, n, tgt);
            else
                f->iput(d, src, ds, ss, n, tgt);
        }
    }
    shmem_barrier_all();
    for (int s = 0; s < npes; s++)
        for (size_t n = 1; n <= NMAX; n++) {
            uint64_t k = key(s, me, n);
            const unsigned char *r = dst + ((size_t)s * SLOTE + (n - 1) * REG) * sz;
            for (size_t p = 0; p < REG; p++) {
                int written = p % (size_t)ds == 0 && p / (size_t)ds < n;
                expect(r + p * sz, sz, written ? val(k, p) : ~val(k, p), "iput from PE", ds, ss,
                       n, s, p);
            }
        }
    free(src);
}

static void phase_iget(const fam_t *f, int ctx, ptrdiff_t ds, ptrdiff_t ss, unsigned char *src)
{
    size_t sz = f->size;
    unsigned char *buf = xalloc(REG * sz);
    /* Slot q of my array is what requester q reads from me. */
    for (int q = 0; q < npes; q++)
        for (size_t n = 1; n <= NMAX; n++) {
            uint64_t k = key(me, q, n);
            unsigned char *r = src + ((size_t)q * SLOTE + (n - 1) * REG) * sz;
            for (size_t p = 0; p < REG; p++)
                mk(r + p * sz, sz, val(k, p));
        }
    shmem_barrier_all();
    for (int i = 0; i < npes; i++) {
        int tgt = (me + 1 + i) % npes;
        for (size_t n = 1; n <= NMAX; n++) {
            uint64_t k = key(tgt, me, n);
            /* Buffer position q receives source position q/ds*ss when written;
             * it starts as the complement of that value (or of val(q)). */
            for (size_t q = 0; q < REG; q++) {
                int written = q % (size_t)ds == 0 && q / (size_t)ds < n;
                size_t from = written ? q / (size_t)ds * (size_t)ss : q;
                mk(buf + q * sz, sz, ~val(k, from));
            }
            const unsigned char *s = src + ((size_t)me * SLOTE + (n - 1) * REG) * sz;
            if (ctx)
                f->ctx_iget(SHMEM_CTX_DEFAULT, buf, s, ds, ss, n, tgt);
            else
                f->iget(buf, s, ds, ss, n, tgt);
            for (size_t q = 0; q < REG; q++) {
                int written = q % (size_t)ds == 0 && q / (size_t)ds < n;
                size_t from = written ? q / (size_t)ds * (size_t)ss : q;
                expect(buf + q * sz, sz, written ? val(k, from) : ~val(k, from), "iget from PE",
                       ds, ss, n, tgt, q);
            }
        }
    }
    /* Nobody refills its array while others still read it. */
    shmem_barrier_all();
    free(buf);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    size_t bytes = (size_t)npes * SLOTE * 16;
    unsigned char *dst = shmem_malloc(bytes), *src = shmem_malloc(bytes);
    CHECK(dst != NULL && src != NULL, "shmem_malloc(%zu) expected memory got NULL", bytes);
    for (size_t fi = 0; fi < sizeof(fams) / sizeof(fams[0]); fi++)
        for (size_t a = 0; a < NSTRIDES; a++)
            for (size_t b = 0; b < NSTRIDES; b++) {
                int ctx = (int)((fi + a + b) % 2);
                phase++;
                phase_iput(&fams[fi], ctx, strides[a], strides[b], dst);
                phase++;
                phase_iget(&fams[fi], ctx, strides[a], strides[b], src);
            }
    shmem_free(src);
    shmem_free(dst);
    if (me == 0)
        printf("rma_strided: %u phases on %d PEs: ok\n", phase, npes);
    shmem_finalize();
    return 0;
}
