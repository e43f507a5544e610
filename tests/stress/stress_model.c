/*
 * stress_model.c - the values the stress tester expects, computed from the
 * seed alone: the byte pattern of a write, the model of each window (which
 * write's pattern covers which bytes), the types' values in one wide form,
 * and the comparisons that fail the run.
 */
#include <complex.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

const char *const st_opname[] = {
    "initial zeros", "put",  "put_nbi",  "p",          "iput",           "ibput",          "putmem",
    "putmem_nbi",    "putN", "putN_nbi", "put_signal", "put_signal_nbi", "put+fence+flag",
};

/* ---- patterns ------------------------------------------------------------ */

/* The byte at window position i of the write with key k is byte i%8 of
 * mix(k ^ (i/8)*C): any part of a write can be checked alone, wherever it
 * landed. Key 0 is zeros (a window's initial content). */
void st_pattern(unsigned char *dst, uint64_t key, size_t pos, size_t n)
{
    if (key == 0) {
        memset(dst, 0, n);
        return;
    }
    while (n > 0) {
        uint64_t w = st_mix(key ^ ((uint64_t)(pos >> 3) * 0xd6e8feb86659fd93ull));
        size_t o = pos & 7, k = 8 - o;
        if (k > n)
            k = n;
        if (k == 8) {
            memcpy(dst, &w, 8);
        } else {
            unsigned char b[8];
            memcpy(b, &w, 8);
            memcpy(dst, b + o, k);
        }
        dst += k;
        pos += k;
        n -= k;
    }
}

/* ---- windows ------------------------------------------------------------- */

void st_win_init(st_win_t *w, size_t size)
{
    w->cap = 16;
    w->v = st_xmalloc(sizeof(st_iv_t) * (size_t)w->cap);
    w->n = 1;
    w->size = (uint32_t)size;
    w->v[0] = (st_iv_t){0, (uint32_t)size, UINT32_MAX, 0, OP_INIT, 0};
}

void st_win_free(st_win_t *w)
{
    free(w->v);
    w->v = NULL;
    w->n = w->cap = 0;
}

/* The index of the interval holding pos (the intervals tile [0, size)). */
static int win_find(const st_win_t *w, size_t pos)
{
    int lo = 0, hi = w->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (w->v[mid].a <= pos)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

const st_iv_t *st_win_at(const st_win_t *w, size_t pos)
{
    return &w->v[win_find(w, pos)];
}

void st_win_write(st_win_t *w, size_t a, size_t b, uint64_t key, long step, int pe, int op)
{
    if (a >= b)
        return;
    int i = win_find(w, a), j = win_find(w, b - 1) + 1;
    st_iv_t left = w->v[i], right = w->v[j - 1];
    int has_l = left.a<a, has_r = right.b> b;
    int nnew = has_l + 1 + has_r, nold = j - i;
    if (w->n + nnew - nold > w->cap) {
        while (w->n + nnew - nold > w->cap)
            w->cap *= 2;
        w->v = realloc(w->v, sizeof(st_iv_t) * (size_t)w->cap);
        if (w->v == NULL) {
            fprintf(stderr, "stress: out of memory (window model)\n");
            abort();
        }
    }
    memmove(&w->v[i + nnew], &w->v[j], sizeof(st_iv_t) * (size_t)(w->n - j));
    w->n += nnew - nold;
    int k = i;
    if (has_l) {
        left.b = (uint32_t)a;
        w->v[k++] = left;
    }
    w->v[k++] =
        (st_iv_t){(uint32_t)a, (uint32_t)b, (uint32_t)step, (uint16_t)pe, (uint16_t)op, key};
    if (has_r) {
        right.a = (uint32_t)b;
        w->v[k] = right;
    }
}

void st_win_expect(const st_win_t *w, size_t a, size_t n, unsigned char *out)
{
    size_t pos = a, end = a + n;
    int i = win_find(w, a);
    while (pos < end) {
        const st_iv_t *v = &w->v[i++];
        size_t stop = v->b < end ? v->b : end;
        st_pattern(out + (pos - a), v->key, pos, stop - pos);
        pos = stop;
    }
}

st_win_t *st_win(st_lane_t *L, int area, int target, int src)
{
    return &L->win[((size_t)area * (size_t)st.npes + (size_t)target) * (size_t)st.npes +
                   (size_t)src];
}

unsigned char *st_win_addr(st_lane_t *L, int area, int src)
{
    return L->area[area] + (size_t)src * L->wsize[area];
}

/* ---- comparisons --------------------------------------------------------- */

static void writer_text(const st_win_t *w, size_t pos, char *buf, size_t cap)
{
    if (w == NULL || pos >= w->size) {
        buf[0] = '\0';
        return;
    }
    const st_iv_t *v = st_win_at(w, pos);
    if (v->step == UINT32_MAX)
        snprintf(buf, cap, " (model: initial zeros)");
    else
        snprintf(buf, cap, " (model: %s by PE %u at step %u, bytes [%u,%u))", st_opname[v->op],
                 v->pe, v->step, v->a, v->b);
}

void st_check_bytes(st_lane_t *L, const char *what, const unsigned char *exp,
                    const unsigned char *got, size_t n, size_t base, const st_win_t *w)
{
    L->nchecks += n;
    int inj = n > 0 && st_inject_now(L);
    if (!inj && memcmp(exp, got, n) == 0)
        return;
    size_t first = SIZE_MAX, ndiff = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char e = exp[i] ^ (unsigned char)(inj && i == 0);
        if (e != got[i]) {
            if (first == SIZE_MAX)
                first = i;
            ndiff++;
        }
    }
    char wr[160];
    writer_text(w, base + first, wr, sizeof(wr));
    st_fail(L, "%s byte %zu: expected 0x%02x got 0x%02x (%zu of %zu bytes differ)%s%s", what,
            base + first, (unsigned)(exp[first] ^ (unsigned char)(inj && first == 0)),
            (unsigned)got[first], ndiff, n, wr, inj ? " [injected]" : "");
}

void st_check_window(st_lane_t *L, int area, int src, size_t a, size_t b)
{
    size_t ws = L->wsize[area];
    if (b > ws)
        b = ws;
    const st_win_t *w = st_win(L, area, st.me, src);
    const unsigned char *base = st_win_addr(L, area, src);
    char what[96];
    snprintf(what, sizeof(what), "%s window of PE %d on PE %d", area ? "global" : "heap", src,
             st.me);
    for (size_t pos = a; pos < b;) {
        size_t n = b - pos < L->tmp_size ? b - pos : L->tmp_size;
        st_win_expect(w, pos, n, L->tmp);
        st_check_bytes(L, what, L->tmp, base + pos, n, pos, w);
        pos += n;
    }
}

void st_check_u64(st_lane_t *L, const char *what, uint64_t expected, uint64_t got)
{
    L->nchecks++;
    int inj = st_inject_now(L);
    if (inj)
        expected ^= 1;
    if (expected != got)
        st_fail(L, "%s: expected %" PRIu64 " got %" PRIu64 "%s", what, expected, got,
                inj ? " [injected]" : "");
}

/* ---- types --------------------------------------------------------------- */

#define ST_TDEF_SINT(T, N)                            \
    static void tld_##N(const void *p, st_wide_t *w)  \
    {                                                 \
        T v;                                          \
        memcpy(&v, p, sizeof v);                      \
        *w = (st_wide_t){(uint64_t)(int64_t)v, 0, 0}; \
    }                                                 \
    static void tst_##N(const st_wide_t *w, void *p)  \
    {                                                 \
        T v = (T)(int64_t)w->u;                       \
        memcpy(p, &v, sizeof v);                      \
    }
#define ST_TDEF_UINT(T, N)                           \
    static void tld_##N(const void *p, st_wide_t *w) \
    {                                                \
        T v;                                         \
        memcpy(&v, p, sizeof v);                     \
        *w = (st_wide_t){(uint64_t)v, 0, 0};         \
    }                                                \
    static void tst_##N(const st_wide_t *w, void *p) \
    {                                                \
        T v = (T)w->u;                               \
        memcpy(p, &v, sizeof v);                     \
    }
#define ST_TDEF_FLT(T, N)                            \
    static void tld_##N(const void *p, st_wide_t *w) \
    {                                                \
        T v;                                         \
        memcpy(&v, p, sizeof v);                     \
        *w = (st_wide_t){0, (long double)v, 0};      \
    }                                                \
    static void tst_##N(const st_wide_t *w, void *p) \
    {                                                \
        T v = (T)w->re;                              \
        memcpy(p, &v, sizeof v);                     \
    }
#define ST_TDEF_CPLX(T, N)                           \
    static void tld_##N(const void *p, st_wide_t *w) \
    {                                                \
        T v;                                         \
        memcpy(&v, p, sizeof v);                     \
        *w = (st_wide_t){0, creall(v), cimagl(v)};   \
    }                                                \
    static void tst_##N(const st_wide_t *w, void *p) \
    {                                                \
        T v = (T)st_cplx(w->re, w->im);              \
        memcpy(p, &v, sizeof v);                     \
    }

/* re + im*i without CMPLXL (glibc defines it for gcc only): C11 lays a
 * complex out as an array of its two parts. */
static long double _Complex st_cplx(long double re, long double im)
{
    long double p[2] = {re, im};
    long double _Complex z;
    memcpy(&z, p, sizeof(z));
    return z;
}

#if CHAR_MIN < 0
#define ST_KIND_CHAR SINT
#else
#define ST_KIND_CHAR UINT
#endif

#define ST_ALL_TYPES(X)                                                                         \
    X(float, float, FLT)                                                                        \
    X(double, double, FLT) X(long double, longdouble, FLT) X(char, char, ST_KIND_CHAR)          \
        X(signed char, schar, SINT) X(short, short, SINT) X(int, int, SINT) X(long, long, SINT) \
            X(long long, longlong, SINT) X(unsigned char, uchar, UINT)                          \
                X(unsigned short, ushort, UINT) X(unsigned int, uint, UINT)                     \
                    X(unsigned long, ulong, UINT) X(unsigned long long, ulonglong, UINT)        \
                        X(int8_t, int8, SINT) X(int16_t, int16, SINT) X(int32_t, int32, SINT)   \
                            X(int64_t, int64, SINT) X(uint8_t, uint8, UINT)                     \
                                X(uint16_t, uint16, UINT) X(uint32_t, uint32, UINT)             \
                                    X(uint64_t, uint64, UINT) X(size_t, size, UINT)             \
                                        X(ptrdiff_t, ptrdiff, SINT)                             \
                                            X(double _Complex, complexd, CPLX)                  \
                                                X(float _Complex, complexf, CPLX)

#define ST_TDEF(T, N, K) ST_TDEF_(T, N, K)
#define ST_TDEF_(T, N, K) ST_TDEF_##K(T, N)
ST_ALL_TYPES(ST_TDEF)

#define ST_TENT(T, N, K) ST_TENT_(T, N, K)
#define ST_TENT_(T, N, K) {#N, sizeof(T), K_##K, tld_##N, tst_##N},
static const st_type_t st_types[] = {ST_ALL_TYPES(ST_TENT)};

const st_type_t *st_type(const char *name)
{
    for (size_t i = 0; i < sizeof(st_types) / sizeof(st_types[0]); i++)
        if (strcmp(st_types[i].name, name) == 0)
            return &st_types[i];
    fprintf(stderr, "stress: no type %s\n", name);
    abort();
}

int st_wide_eq(const st_type_t *t, const st_wide_t *a, const st_wide_t *b)
{
    switch (t->kind) {
    case K_SINT:
    case K_UINT: return a->u == b->u;
    case K_FLT: return a->re == b->re;
    default: return a->re == b->re && a->im == b->im;
    }
}

void st_wide_fmt(const st_type_t *t, const st_wide_t *w, char *buf, size_t cap)
{
    switch (t->kind) {
    case K_SINT: snprintf(buf, cap, "%" PRId64, (int64_t)w->u); break;
    case K_UINT: snprintf(buf, cap, "%" PRIu64, w->u); break;
    case K_FLT: snprintf(buf, cap, "%.21Lg", w->re); break;
    default: snprintf(buf, cap, "%.21Lg%+.21Lgi", w->re, w->im); break;
    }
}

void st_check_typed(st_lane_t *L, const char *what, const st_type_t *t, const void *exp,
                    const void *got, size_t n)
{
    L->nchecks += n;
    int inj = n > 0 && st_inject_now(L);
    size_t first = SIZE_MAX, ndiff = 0;
    st_wide_t e0 = {0, 0, 0}, g0 = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        st_wide_t e, g;
        t->load((const char *)exp + i * t->size, &e);
        t->load((const char *)got + i * t->size, &g);
        if (inj && i == 0) {
            e.u ^= 1;
            e.re += 1;
        }
        if (!st_wide_eq(t, &e, &g)) {
            if (first == SIZE_MAX) {
                first = i;
                e0 = e;
                g0 = g;
            }
            ndiff++;
        }
    }
    if (first == SIZE_MAX)
        return;
    char es[96], gs[96];
    st_wide_fmt(t, &e0, es, sizeof(es));
    st_wide_fmt(t, &g0, gs, sizeof(gs));
    st_fail(L, "%s (%s) elem %zu: expected %s got %s (%zu of %zu differ)%s", what, t->name, first,
            es, gs, ndiff, n, inj ? " [injected]" : "");
}
