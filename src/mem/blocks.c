/*
 * blocks.c - SHMEM_DEBUG's record of the heap's live blocks (mem/blocks.h).
 *
 * A sorted array read without a lock. Every field a reader loads is loaded
 * and stored with relaxed atomics; the sequence count (odd while the writer
 * is inside a change) says whether what a reader loaded is one state of
 * the array: it loads the count (acquire), its fields, fences, and compares
 * the count again (a seqlock). A change is a few stores and at most one
 * shift of the array, so a reader that finds the count odd yields and
 * retries. The writer is one thread at a time (collective allocation).
 */
#define _GNU_SOURCE
#include "mem/blocks.h"

#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/status.h"

typedef struct blocks_arr {
    struct blocks_arr *retired; /* the array this one replaced */
    size_t cap;
    symm_block_rec_t rec[];
} blocks_arr_t;

struct symm_blocks {
    uint64_t seq;      /* odd while the writer changes the records */
    blocks_arr_t *arr; /* the records in use, sorted by off */
    size_t n;          /* how many */
};

#define BLOCKS_FIRST_CAP 64

static blocks_arr_t *arr_new(size_t cap)
{
    blocks_arr_t *a = calloc(1, sizeof(*a) + cap * sizeof(a->rec[0]));
    if (a != NULL)
        a->cap = cap;
    return a;
}

symm_blocks_t *symm_blocks_new(void)
{
    symm_blocks_t *b = calloc(1, sizeof(*b));
    if (b != NULL && (b->arr = arr_new(BLOCKS_FIRST_CAP)) == NULL) {
        free(b);
        b = NULL;
    }
    return b;
}

void symm_blocks_free(symm_blocks_t *b)
{
    if (b == NULL)
        return;
    for (blocks_arr_t *a = b->arr, *next; a != NULL; a = next) {
        next = a->retired;
        free(a);
    }
    free(b);
}

/* ---- the writer ------------------------------------------------------------ */

static void write_begin(symm_blocks_t *b)
{
    __atomic_store_n(&b->seq, b->seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(symm_blocks_t *b)
{
    __atomic_store_n(&b->seq, b->seq + 1, __ATOMIC_RELEASE);
}

static void rec_store(symm_block_rec_t *d, const symm_block_rec_t *v)
{
    __atomic_store_n(&d->off, v->off, __ATOMIC_RELAXED);
    __atomic_store_n(&d->size, v->size, __ATOMIC_RELAXED);
    __atomic_store_n(&d->span, v->span, __ATOMIC_RELAXED);
    __atomic_store_n(&d->site, v->site, __ATOMIC_RELAXED);
}

static void rec_load(symm_block_rec_t *d, const symm_block_rec_t *v)
{
    d->off = __atomic_load_n(&v->off, __ATOMIC_RELAXED);
    d->size = __atomic_load_n(&v->size, __ATOMIC_RELAXED);
    d->span = __atomic_load_n(&v->span, __ATOMIC_RELAXED);
    d->site = __atomic_load_n(&v->site, __ATOMIC_RELAXED);
}

/* The index of the first record at or after off (writer: plain reads). */
static size_t lower_bound(const symm_blocks_t *b, size_t off)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->arr->rec[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int symm_blocks_add(symm_blocks_t *b, const symm_block_rec_t *rec)
{
    blocks_arr_t *a = b->arr;
    if (b->n == a->cap) {
        /* A bigger copy, published whole; the old one stays readable. */
        blocks_arr_t *g = arr_new(a->cap * 2);
        if (g == NULL)
            return SYMM_ERR_NOMEM;
        memcpy(g->rec, a->rec, b->n * sizeof(a->rec[0]));
        g->retired = a;
        write_begin(b);
        __atomic_store_n(&b->arr, g, __ATOMIC_RELEASE);
        write_end(b);
        a = g;
    }
    size_t i = lower_bound(b, rec->off);
    write_begin(b);
    for (size_t j = b->n; j > i; j--)
        rec_store(&a->rec[j], &a->rec[j - 1]);
    rec_store(&a->rec[i], rec);
    __atomic_store_n(&b->n, b->n + 1, __ATOMIC_RELAXED);
    write_end(b);
    return SYMM_OK;
}

void symm_blocks_resize(symm_blocks_t *b, size_t off, size_t size, size_t span, const void *site)
{
    size_t i = lower_bound(b, off);
    if (i == b->n || b->arr->rec[i].off != off)
        return;
    write_begin(b);
    __atomic_store_n(&b->arr->rec[i].size, size, __ATOMIC_RELAXED);
    __atomic_store_n(&b->arr->rec[i].span, span, __ATOMIC_RELAXED);
    __atomic_store_n(&b->arr->rec[i].site, site, __ATOMIC_RELAXED);
    write_end(b);
}

void symm_blocks_remove(symm_blocks_t *b, size_t off)
{
    blocks_arr_t *a = b->arr;
    size_t i = lower_bound(b, off);
    if (i == b->n || a->rec[i].off != off)
        return;
    write_begin(b);
    for (size_t j = i; j + 1 < b->n; j++)
        rec_store(&a->rec[j], &a->rec[j + 1]);
    __atomic_store_n(&b->n, b->n - 1, __ATOMIC_RELAXED);
    write_end(b);
}

/* ---- readers --------------------------------------------------------------- */

int symm_blocks_find(const symm_blocks_t *b, size_t off, symm_block_rec_t *rec_p)
{
    for (;;) {
        uint64_t seq = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);
        if (seq & 1) {
            sched_yield(); /* the writer is inside a change */
            continue;
        }
        const blocks_arr_t *a = __atomic_load_n(&b->arr, __ATOMIC_ACQUIRE);
        size_t n = __atomic_load_n(&b->n, __ATOMIC_RELAXED);
        size_t lo = 0, hi = n <= a->cap ? n : a->cap;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (__atomic_load_n(&a->rec[mid].off, __ATOMIC_RELAXED) <= off)
                lo = mid + 1;
            else
                hi = mid;
        }
        symm_block_rec_t r = {0};
        if (lo > 0)
            rec_load(&r, &a->rec[lo - 1]);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&b->seq, __ATOMIC_RELAXED) != seq)
            continue;
        if (lo == 0 || off - r.off >= r.span)
            return 0;
        *rec_p = r;
        return 1;
    }
}

size_t symm_blocks_largest(const symm_blocks_t *b, size_t *count_p, uint64_t *bytes_p,
                           symm_block_rec_t *top, size_t max)
{
    size_t k = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < b->n; i++) {
        const symm_block_rec_t *r = &b->arr->rec[i];
        size_t j;
        bytes += r->size;
        /* Insertion into top[0..k), largest first; of equals the lowest first. */
        if (k < max)
            j = k++;
        else if (max == 0 || top[max - 1].size >= r->size)
            continue;
        else
            j = max - 1;
        for (; j > 0 && top[j - 1].size < r->size; j--)
            top[j] = top[j - 1];
        top[j] = *r;
    }
    *count_p = b->n;
    *bytes_p = bytes;
    return k;
}

void symm_site_format(const void *site, char *out, size_t cap)
{
    Dl_info di;
    if (site == NULL) {
        snprintf(out, cap, "an unknown place");
        return;
    }
    /* The return address names the call; one byte back is inside it,
     * where a return address at a function's very end would not be. */
    if (dladdr((const char *)site - 1, &di) == 0 || di.dli_fname == NULL) {
        snprintf(out, cap, "%p", site);
        return;
    }
    if (di.dli_sname != NULL && di.dli_saddr != NULL)
        snprintf(out, cap, "%s+0x%zx (%s)", di.dli_sname,
                 (size_t)((const char *)site - (const char *)di.dli_saddr), di.dli_fname);
    else
        snprintf(out, cap, "%s+0x%zx", di.dli_fname,
                 (size_t)((const char *)site - (const char *)di.dli_fbase));
}

int symm_global_bounds(const void *addr, const char **start_p, size_t *size_p, const char **name_p)
{
    Dl_info di;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1(addr, &di, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL ||
        di.dli_saddr == NULL || di.dli_sname == NULL || ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
        return 0;
    /* dladdr names the nearest symbol below addr: it must hold addr. */
    const char *start = di.dli_saddr;
    if ((const char *)addr < start || (size_t)((const char *)addr - start) >= sym->st_size)
        return 0;
    *start_p = start;
    *size_p = sym->st_size;
    *name_p = di.dli_sname;
    return 1;
}
