/*
 * rma_types.c - every RMA family of every type, to every PE (self included),
 * on the symmetric heap and on global arrays.
 *
 * One engine drives a table of "families": the typed families (generated
 * from SHMEM_RMA_TYPES), the sized families (from SHMEM_SIZES) and the
 * untyped putmem/getmem. For each family, memory kind (heap, global),
 * context form (plain, ctx_ with SHMEM_CTX_DEFAULT) and operation (put,
 * put_nbi, p, iput, get, get_nbi, g, iget) one phase runs:
 *
 *   put-like: every PE s writes slot s of every PE t's array with values
 *     f(s, t, i); after a barrier each PE t checks every element of every
 *     slot, and that the guard element and the strided gaps still hold the
 *     sentinel it wrote (the bitwise complement of the value function, so a
 *     sentinel never equals a value).
 *   get-like: every PE t fills slot r of its array with f(t, r, i); every PE
 *     r reads its slot from every PE t into a private buffer and checks it.
 *
 * Values depend on (source PE, target PE, index, family, phase), so a value
 * from the wrong PE, slot, element or an earlier phase is caught. Zero-length
 * transfers (NULL pointers included) must change nothing.
 * Ends with the C11 generic selections shmem_put/get/p/g/iput/iget.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define NE 17               /* elements per transfer */
#define SLOT (NE + 1)       /* one slot per PE: NE elements + a guard */
#define NSTR ((NE + 1) / 2) /* strided: elements 0, 2, ..., NE-1 */
#define MAXPES 16           /* the global arrays have MAXPES slots */
#define MAXELEM 16          /* largest element size (long double, 128-bit) */

static int me, npes;
static unsigned phase; /* part of every value; the same sequence on every PE */

/* A value of type T for hash h: all bits of an integer type, an exactly
 * representable number (22 bits + 0.5) for a floating type. */
#define MKVAL(T, h) ((T)0.5 != 0 ? (T)((double)((h) >> 42) + 0.5) : (T)(h))

typedef void (*contig_fn)(int ctx, void *d, const void *s, size_t n, int pe);
typedef void (*strided_fn)(int ctx, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,
                           size_t n, int pe);

typedef struct family {
    const char *name;
    size_t size;
    void (*mk)(void *elem, uint64_t h);
    int (*eq)(const void *a, const void *b);
    void (*show)(char *buf, size_t len, const void *a);
    contig_fn put, get, put_nbi, get_nbi;
    void (*p)(int ctx, void *d, const void *v, int pe);
    void (*g)(int ctx, void *out, const void *s, int pe);
    strided_fn iput, iget;
    void *gdst, *gsrc; /* global arrays of MAXPES * SLOT elements */
} family_t;

/* ---- the typed families, from the type table -------------------------- */
#define DEF_TYPE(T, N)                                                                       \
    static T gdst_##N[MAXPES * SLOT], gsrc_##N[MAXPES * SLOT];                               \
    static void mk_##N(void *e, uint64_t h) { *(T *)e = MKVAL(T, h); }                      \
    static int eq_##N(const void *a, const void *b) { return *(const T *)a == *(const T *)b; } \
    static void show_##N(char *buf, size_t len, const void *a)                               \
    {                                                                                        \
        snprintf(buf, len, "%.21Lg", (long double)*(const T *)a);                            \
    }                                                                                        \
    static void put_##N(int c, void *d, const void *s, size_t n, int pe)                     \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_##N##_put(SHMEM_CTX_DEFAULT, d, s, n, pe);                             \
        else                                                                                 \
            shmem_##N##_put(d, s, n, pe);                                                    \
    }                                                                                        \
    static void get_##N(int c, void *d, const void *s, size_t n, int pe)                     \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_##N##_get(SHMEM_CTX_DEFAULT, d, s, n, pe);                             \
        else                                                                                 \
            shmem_##N##_get(d, s, n, pe);                                                    \
    }                                                                                        \
    static void put_nbi_##N(int c, void *d, const void *s, size_t n, int pe)                 \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_##N##_put_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);                         \
        else                                                                                 \
            shmem_##N##_put_nbi(d, s, n, pe);                                                \
    }                                                                                        \
    static void get_nbi_##N(int c, void *d, const void *s, size_t n, int pe)                 \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_##N##_get_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);                         \
        else                                                                                 \
            shmem_##N##_get_nbi(d, s, n, pe);                                                \
    }                                                                                        \
    static void p_##N(int c, void *d, const void *v, int pe)                                 \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_##N##_p(SHMEM_CTX_DEFAULT, d, *(const T *)v, pe);                      \
        else                                                                                 \
            shmem_##N##_p(d, *(const T *)v, pe);                                             \
    }                                                                                        \
    static void g_##N(int c, void *out, const void *s, int pe)                               \
    {                                                                                        \
        *(T *)out = c ? shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, s, pe) : shmem_##N##_g(s, pe);  \
    }                                                                                        \
    static void iput_##N(int c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, \
                         int pe)                                                             \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_##N##_iput(SHMEM_CTX_DEFAULT, d, s, ds, ss, n, pe);                    \
        else                                                                                 \
            shmem_##N##_iput(d, s, ds, ss, n, pe);                                           \
    }                                                                                        \
    static void iget_##N(int c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, \
                         int pe)                                                             \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_##N##_iget(SHMEM_CTX_DEFAULT, d, s, ds, ss, n, pe);                    \
        else                                                                                 \
            shmem_##N##_iget(d, s, ds, ss, n, pe);                                           \
    }
SHMEM_RMA_TYPES(DEF_TYPE)

#define TYPE_ENTRY(T, N)                                                                     \
    {#N,         sizeof(T),    mk_##N,      eq_##N,  show_##N, put_##N,  get_##N,            \
     put_nbi_##N, get_nbi_##N, p_##N,       g_##N,   iput_##N, iget_##N, gdst_##N, gsrc_##N},

/* ---- the sized families and putmem/getmem: byte patterns --------------- */
static void mk_bytes(unsigned char *e, size_t size, uint64_t h)
{
    /* Bytes of ~h differ from those of h everywhere: sentinels never match. */
    for (size_t k = 0; k < size; k++)
        e[k] = (unsigned char)((unsigned char)(h >> (8 * (k % 8))) + (unsigned char)(k / 8 * 0x3b));
}

static void show_bytes(char *buf, size_t len, const unsigned char *a, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < size && at + 3 < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%02x", a[k]);
}

#define DEF_SIZED(B)                                                                         \
    _Alignas(16) static unsigned char gdst_s##B[MAXPES * SLOT * (B / 8)],                    \
        gsrc_s##B[MAXPES * SLOT * (B / 8)];                                                  \
    static void mk_s##B(void *e, uint64_t h) { mk_bytes(e, B / 8, h); }                      \
    static int eq_s##B(const void *a, const void *b) { return memcmp(a, b, B / 8) == 0; }    \
    static void show_s##B(char *buf, size_t len, const void *a)                              \
    {                                                                                        \
        show_bytes(buf, len, a, B / 8);                                                      \
    }                                                                                        \
    static void put_s##B(int c, void *d, const void *s, size_t n, int pe)                    \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_put##B(SHMEM_CTX_DEFAULT, d, s, n, pe);                                \
        else                                                                                 \
            shmem_put##B(d, s, n, pe);                                                       \
    }                                                                                        \
    static void get_s##B(int c, void *d, const void *s, size_t n, int pe)                    \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_get##B(SHMEM_CTX_DEFAULT, d, s, n, pe);                                \
        else                                                                                 \
            shmem_get##B(d, s, n, pe);                                                       \
    }                                                                                        \
    static void put_nbi_s##B(int c, void *d, const void *s, size_t n, int pe)                \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_put##B##_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);                          \
        else                                                                                 \
            shmem_put##B##_nbi(d, s, n, pe);                                                 \
    }                                                                                        \
    static void get_nbi_s##B(int c, void *d, const void *s, size_t n, int pe)                \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_get##B##_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);                          \
        else                                                                                 \
            shmem_get##B##_nbi(d, s, n, pe);                                                 \
    }                                                                                        \
    static void iput_s##B(int c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,         \
                          size_t n, int pe)                                                  \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_iput##B(SHMEM_CTX_DEFAULT, d, s, ds, ss, n, pe);                       \
        else                                                                                 \
            shmem_iput##B(d, s, ds, ss, n, pe);                                              \
    }                                                                                        \
    static void iget_s##B(int c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,         \
                          size_t n, int pe)                                                  \
    {                                                                                        \
        if (c)                                                                               \
            shmem_ctx_iget##B(SHMEM_CTX_DEFAULT, d, s, ds, ss, n, pe);                       \
        else                                                                                 \
            shmem_iget##B(d, s, ds, ss, n, pe);                                              \
    }
SHMEM_SIZES(DEF_SIZED)

#define SIZED_ENTRY(B)                                                                       \
    {"sized" #B, B / 8,  mk_s##B, eq_s##B,   show_s##B, put_s##B,  get_s##B,  put_nbi_s##B,  \
     get_nbi_s##B, NULL, NULL,    iput_s##B, iget_s##B, gdst_s##B, gsrc_s##B},

_Alignas(16) static unsigned char gdst_mem[MAXPES * SLOT], gsrc_mem[MAXPES * SLOT];
static void mk_mem(void *e, uint64_t h) { mk_bytes(e, 1, h); }
static int eq_mem(const void *a, const void *b) { return *(const unsigned char *)a == *(const unsigned char *)b; }
static void show_mem(char *buf, size_t len, const void *a) { show_bytes(buf, len, a, 1); }
static void put_mem(int c, void *d, const void *s, size_t n, int pe)
{
    if (c)
        shmem_ctx_putmem(SHMEM_CTX_DEFAULT, d, s, n, pe);
    else
        shmem_putmem(d, s, n, pe);
}
static void get_mem(int c, void *d, const void *s, size_t n, int pe)
{
    if (c)
        shmem_ctx_getmem(SHMEM_CTX_DEFAULT, d, s, n, pe);
    else
        shmem_getmem(d, s, n, pe);
}
static void put_nbi_mem(int c, void *d, const void *s, size_t n, int pe)
{
    if (c)
        shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);
    else
        shmem_putmem_nbi(d, s, n, pe);
}
static void get_nbi_mem(int c, void *d, const void *s, size_t n, int pe)
{
    if (c)
        shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);
    else
        shmem_getmem_nbi(d, s, n, pe);
}

static const family_t families[] = {
    SHMEM_RMA_TYPES(TYPE_ENTRY) SHMEM_SIZES(SIZED_ENTRY)
    {"mem", 1, mk_mem, eq_mem, show_mem, put_mem, get_mem, put_nbi_mem, get_nbi_mem, NULL, NULL,
     NULL, NULL, gdst_mem, gsrc_mem},
};

/* ---- the engine -------------------------------------------------------- */
enum { OP_PUT, OP_PUT_NBI, OP_P, OP_IPUT, OP_GET, OP_GET_NBI, OP_G, OP_IGET, OP_COUNT };
static const char *const op_name[OP_COUNT] = {"put", "put_nbi", "p",  "iput",
                                              "get", "get_nbi", "g", "iget"};

typedef struct run {
    const family_t *f;
    uint64_t fid; /* hash of the family name: the same on every PE */
    int ctx;
    const char *mem;
    int op; /* OP_*, or -1 in phase_zero (every op at zero length) */
} run_t;

typedef union {
    long double ld;
    uint64_t u[MAXELEM / 8];
    unsigned char b[MAXELEM];
} elem_t;

static char *at(const family_t *f, void *base, size_t k) { return (char *)base + k * f->size; }

/* Value PE src sends PE tgt at index i in this phase. */
static uint64_t vhash(const run_t *r, int src, int tgt, size_t i)
{
    return test_hash4(r->fid, phase, (uint64_t)src * 1000003u + (uint64_t)tgt, i);
}

static void expect(const run_t *r, const void *got, uint64_t h, const char *what, int a, size_t i)
{
    elem_t want;
    char ws[80], gs[80];
    r->f->mk(&want, h);
    if (r->f->eq(&want, got))
        return;
    r->f->show(ws, sizeof(ws), &want);
    r->f->show(gs, sizeof(gs), got);
    CHECK(0, "%s%s_%s on %s, %s %d element %zu: expected %s got %s", r->ctx ? "ctx_" : "",
          r->f->name, r->op >= 0 ? op_name[r->op] : "zero_length", r->mem, what, a, i, ws, gs);
}

static void quiet(int ctx)
{
    if (ctx)
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    else
        shmem_quiet();
}

static void *xalloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    CHECK(p != NULL, "aligned_alloc(%zu) expected memory got NULL", bytes);
    return p;
}

/* Fill my dst array with sentinels: slot s element i = ~f(s, me, i). */
static void fill_sentinels(const run_t *r, void *dst)
{
    for (int s = 0; s < npes; s++)
        for (size_t i = 0; i < SLOT; i++)
            r->f->mk(at(r->f, dst, (size_t)s * SLOT + i), ~vhash(r, s, me, i));
}

static void check_slots(const run_t *r, void *dst, int strided)
{
    for (int s = 0; s < npes; s++)
        for (size_t i = 0; i < SLOT; i++) {
            int written = r->op >= 0 && i < NE && (!strided || i % 2 == 0);
            uint64_t h = vhash(r, s, me, i);
            expect(r, at(r->f, dst, (size_t)s * SLOT + i), written ? h : ~h,
                   "slot of source PE", s, i);
        }
}

static void phase_put(const run_t *r, void *dst)
{
    const family_t *f = r->f;
    int strided = r->op == OP_IPUT;
    size_t per = strided ? 3 * NSTR : SLOT;
    unsigned char *src = xalloc((size_t)npes * per * f->size);

    fill_sentinels(r, dst);
    shmem_barrier_all();
    for (int k = 0; k < npes; k++) {
        int tgt = (me + 1 + k) % npes; /* the last one is myself */
        char *s = at(f, src, (size_t)tgt * per);
        char *d = at(f, dst, (size_t)me * SLOT);
        for (size_t j = 0; j < per; j++) /* junk where nothing is sent */
            f->mk(at(f, s, j), test_mix(vhash(r, me, tgt, j) ^ 0x5555));
        for (size_t i = 0; i < NE; i++)
            if (!strided)
                f->mk(at(f, s, i), vhash(r, me, tgt, i));
            else if (i % 2 == 0)
                f->mk(at(f, s, i / 2 * 3), vhash(r, me, tgt, i));
        switch (r->op) {
        case OP_PUT:
            f->put(r->ctx, d, s, NE, tgt);
            /* A blocking put has copied the source when it returns. */
            memset(s, 0xa5, per * f->size);
            break;
        case OP_PUT_NBI:
            f->put_nbi(r->ctx, d, s, NE, tgt);
            break;
        case OP_P:
            for (size_t i = 0; i < NE; i++)
                f->p(r->ctx, at(f, d, i), at(f, s, i), tgt);
            break;
        case OP_IPUT:
            f->iput(r->ctx, d, s, 2, 3, NSTR, tgt);
            memset(s, 0xa5, per * f->size);
            break;
        }
    }
    if (r->op == OP_PUT_NBI)
        quiet(r->ctx);
    shmem_barrier_all();
    check_slots(r, dst, strided);
    free(src);
}

static void phase_get(const run_t *r, void *src)
{
    const family_t *f = r->f;
    int strided = r->op == OP_IGET;
    size_t per = 3 * SLOT;
    unsigned char *buf = xalloc((size_t)npes * per * f->size);

    /* Slot q of my array holds what requester q must read from me. */
    for (int q = 0; q < npes; q++)
        for (size_t i = 0; i < SLOT; i++)
            f->mk(at(f, src, (size_t)q * SLOT + i), vhash(r, me, q, i));
    shmem_barrier_all();
    for (int k = 0; k < npes; k++) {
        int tgt = (me + 1 + k) % npes;
        char *b = at(f, buf, (size_t)tgt * per);
        char *s = at(f, src, (size_t)me * SLOT);
        for (size_t j = 0; j < per; j++)
            f->mk(at(f, b, j), ~vhash(r, tgt, me, j));
        switch (r->op) {
        case OP_GET:
            f->get(r->ctx, b, s, NE, tgt);
            break;
        case OP_GET_NBI:
            f->get_nbi(r->ctx, b, s, NE, tgt);
            break;
        case OP_G:
            for (size_t i = 0; i < NE; i++)
                f->g(r->ctx, at(f, b, i), at(f, s, i), tgt);
            break;
        case OP_IGET:
            f->iget(r->ctx, b, s, 3, 2, NSTR, tgt);
            break;
        }
    }
    if (r->op == OP_GET_NBI)
        quiet(r->ctx);
    for (int tgt = 0; tgt < npes; tgt++) {
        char *b = at(f, buf, (size_t)tgt * per);
        for (size_t j = 0; j < per; j++) {
            int written = strided ? j % 3 == 0 && j / 3 < NSTR : j < NE;
            size_t from = strided ? j / 3 * 2 : j;
            uint64_t h = written ? vhash(r, tgt, me, from) : ~vhash(r, tgt, me, j);
            expect(r, at(f, b, j), h, "buffer read from PE", tgt, j);
        }
    }
    /* Nobody refills its array for the next phase while others still read. */
    shmem_barrier_all();
    free(buf);
}

/* Zero-length transfers, with NULL and with valid pointers: no effect. */
static void phase_zero(run_t *r, void *dst, void *src)
{
    const family_t *f = r->f;
    unsigned char *buf = xalloc(SLOT * f->size);
    r->op = -1;
    fill_sentinels(r, dst);
    for (size_t j = 0; j < SLOT; j++)
        f->mk(at(f, buf, j), ~vhash(r, 0, me, j));
    shmem_barrier_all();
    for (int tgt = 0; tgt < npes; tgt++) {
        char *d = at(f, dst, (size_t)me * SLOT);
        f->put(r->ctx, NULL, NULL, 0, tgt);
        f->get(r->ctx, NULL, NULL, 0, tgt);
        f->put_nbi(r->ctx, NULL, NULL, 0, tgt);
        f->get_nbi(r->ctx, NULL, NULL, 0, tgt);
        f->put(r->ctx, d, buf, 0, tgt);
        f->put_nbi(r->ctx, d, buf, 0, tgt);
        f->get(r->ctx, buf, src, 0, tgt);
        f->get_nbi(r->ctx, buf, src, 0, tgt);
        if (f->iput) {
            f->iput(r->ctx, NULL, NULL, 1, 1, 0, tgt);
            f->iget(r->ctx, NULL, NULL, 1, 1, 0, tgt);
            f->iput(r->ctx, d, buf, 2, 3, 0, tgt);
            f->iget(r->ctx, buf, src, 3, 2, 0, tgt);
        }
    }
    quiet(r->ctx);
    shmem_barrier_all();
    check_slots(r, dst, 0);
    for (size_t j = 0; j < SLOT; j++)
        expect(r, at(f, buf, j), ~vhash(r, 0, me, j), "zero-length get buffer", 0, j);
    shmem_barrier_all();
    free(buf);
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static void run_family(const family_t *f)
{
    size_t bytes = (size_t)npes * SLOT * f->size;
    void *hdst = shmem_malloc(bytes), *hsrc = shmem_malloc(bytes);
    CHECK(hdst != NULL && hsrc != NULL, "shmem_malloc(%zu) for %s expected memory got NULL",
          bytes, f->name);
    for (int mem = 0; mem < 2; mem++) {
        if (mem == 1 && npes > MAXPES)
            continue; /* the global arrays have MAXPES slots */
        void *dst = mem ? f->gdst : hdst, *src = mem ? f->gsrc : hsrc;
        for (int ctx = 0; ctx < 2; ctx++) {
            run_t r = {f, name_hash(f->name), ctx, mem ? "global" : "heap", -1};
            phase++;
            phase_zero(&r, dst, src);
            for (int op = 0; op < OP_COUNT; op++) {
                int have = (op == OP_P || op == OP_G) ? f->p != NULL
                           : (op == OP_IPUT || op == OP_IGET) ? f->iput != NULL : 1;
                if (!have)
                    continue;
                r.op = op;
                phase++;
                if (op < OP_GET)
                    phase_put(&r, dst);
                else
                    phase_get(&r, src);
            }
        }
    }
    shmem_free(hsrc);
    shmem_free(hdst);
}

/* ---- C11 generic selections -------------------------------------------- */
#define GENERIC_TYPES(X)                                                                     \
    X(int, int) X(double, double) X(long double, longdouble) X(char, char)                   \
    X(unsigned long long, ulonglong) X(short, short)

#define DEF_GENERIC(T, N)                                                                    \
    static T ggen_##N[MAXPES * 8];                                                           \
    static void generic_##N(T *base, const char *mem)                                        \
    {                                                                                        \
        uint64_t fid = name_hash(#N) ^ 0x77;                                                 \
        phase++;                                                                             \
        for (int s = 0; s < npes; s++)                                                       \
            for (int k = 0; k < 8; k++)                                                      \
                base[s * 8 + k] = MKVAL(T, ~test_hash4(fid, phase, (uint64_t)s, (uint64_t)k)); \
        shmem_barrier_all();                                                                 \
        for (int t = 0; t < npes; t++) {                                                     \
            T v[8];                                                                          \
            T *d = &base[me * 8];                                                            \
            for (int k = 0; k < 8; k++)                                                      \
                v[k] = MKVAL(T, test_hash4(fid, phase, (uint64_t)me * 1000003u + (uint64_t)t, \
                                           (uint64_t)k));                                    \
            shmem_put(d, v, 2, t);                                                           \
            shmem_put(SHMEM_CTX_DEFAULT, d + 2, v + 2, 1, t);                                \
            shmem_p(d + 3, v[3], t);                                                         \
            shmem_p(SHMEM_CTX_DEFAULT, d + 4, v[4], t);                                      \
            shmem_iput(d + 5, v + 5, 2, 1, 1, t);                                            \
            shmem_iput(SHMEM_CTX_DEFAULT, d + 6, v + 6, 1, 1, 1, t);                         \
            shmem_put_nbi(d + 7, v + 7, 1, t);                                               \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
        for (int s = 0; s < npes; s++)                                                       \
            for (int k = 0; k < 8; k++) {                                                    \
                T want = MKVAL(T, test_hash4(fid, phase, (uint64_t)s * 1000003u + (uint64_t)me, \
                                             (uint64_t)k));                                  \
                CHECK(base[s * 8 + k] == want,                                               \
                      "generic %s on %s, slot of PE %d element %d: expected %.21Lg got %.21Lg", \
                      #T, mem, s, k, (long double)want, (long double)base[s * 8 + k]);      \
            }                                                                                \
        /* Read back from every PE what I wrote there. */                                    \
        for (int t = 0; t < npes; t++) {                                                     \
            T got[8], one;                                                                   \
            const T *cs = &base[me * 8];                                                     \
            memset(got, 0, sizeof(got));                                                     \
            shmem_get(got, cs, 2, t);                                                        \
            shmem_get(SHMEM_CTX_DEFAULT, got + 2, cs + 2, 1, t);                             \
            got[3] = shmem_g(cs + 3, t);                                                     \
            got[4] = shmem_g(SHMEM_CTX_DEFAULT, cs + 4, t);                                  \
            shmem_iget(got + 5, cs + 5, 1, 1, 1, t);                                         \
            shmem_iget(SHMEM_CTX_DEFAULT, got + 6, cs + 6, 1, 1, 1, t);                      \
            shmem_get_nbi(&one, cs + 7, 1, t);                                               \
            shmem_quiet();                                                                   \
            got[7] = one;                                                                    \
            for (int k = 0; k < 8; k++) {                                                    \
                T want = MKVAL(T, test_hash4(fid, phase, (uint64_t)me * 1000003u + (uint64_t)t, \
                                             (uint64_t)k));                                  \
                CHECK(got[k] == want,                                                        \
                      "generic get %s on %s from PE %d element %d: expected %.21Lg got %.21Lg", \
                      #T, mem, t, k, (long double)want, (long double)got[k]);               \
            }                                                                                \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
    }
GENERIC_TYPES(DEF_GENERIC)

#define RUN_GENERIC(T, N)                                                                    \
    {                                                                                        \
        T *h = shmem_malloc(sizeof(T) * 8 * (size_t)npes);                                   \
        CHECK(h != NULL, "shmem_malloc for generic %s expected memory got NULL", #T);        \
        generic_##N(h, "heap");                                                              \
        if (npes <= MAXPES)                                                                  \
            generic_##N(ggen_##N, "global");                                                 \
        shmem_free(h);                                                                       \
    }

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    size_t nfam = sizeof(families) / sizeof(families[0]);
    CHECK(nfam == 24 + 5 + 1, "family table expected %d entries got %zu", 30, nfam);
    for (size_t i = 0; i < nfam; i++)
        run_family(&families[i]);
    GENERIC_TYPES(RUN_GENERIC)
    if (me == 0)
        printf("rma_types: %zu families, %u phases on %d PEs: ok\n", nfam, phase, npes);
    shmem_finalize();
    return 0;
}
