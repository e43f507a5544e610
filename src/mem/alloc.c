/*
 * alloc.c - deterministic first-fit allocator over heap offsets.
 *
 * Blocks form one address-ordered doubly linked list covering the managed
 * range; free neighbours are always merged, so two free blocks are never
 * adjacent. O(blocks) per call: symmetric allocations are few and
 * collective, and determinism matters more than speed here.
 */
#include "mem/alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/fault.h"
#include "runtime/status.h"

struct symm_block {
    size_t off;
    size_t size;
    bool free;
    symm_block_t *prev, *next;
};

static symm_block_t *block_new(size_t off, size_t size, bool is_free)
{
    symm_block_t *b = symm_fault("calloc") ? NULL : calloc(1, sizeof(*b));
    if (b != NULL) {
        b->off = off;
        b->size = size;
        b->free = is_free;
    }
    return b;
}

static void block_insert_after(symm_block_t *b, symm_block_t *n)
{
    n->prev = b;
    n->next = b->next;
    if (b->next)
        b->next->prev = n;
    b->next = n;
}

static void block_merge_next(symm_heap_alloc_t *a, symm_block_t *b)
{
    symm_block_t *n = b->next;
    (void)a;
    b->size += n->size;
    b->next = n->next;
    if (n->next)
        n->next->prev = b;
    free(n);
}

int symm_alloc_init(symm_heap_alloc_t *a, size_t base, size_t limit)
{
    a->base = base;
    a->limit = limit;
    a->hwm = base;
    a->used = 0;
    a->head = block_new(base, limit - base, true);
    return a->head ? SYMM_OK : SYMM_ERR_NOMEM;
}

void symm_alloc_fini(symm_heap_alloc_t *a)
{
    symm_block_t *b = a->head;
    while (b) {
        symm_block_t *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}

static size_t align_up(size_t v, size_t align) { return (v + align - 1) & ~(align - 1); }

int symm_alloc_alloc(symm_heap_alloc_t *a, size_t size, size_t align, size_t *off_p)
{
    if (align < SYMM_ALLOC_MIN_ALIGN)
        align = SYMM_ALLOC_MIN_ALIGN;
    if ((align & (align - 1)) != 0 || size > SIZE_MAX / 2)
        return SYMM_ERR_INVALID;
    size = align_up(size ? size : 1, SYMM_ALLOC_MIN_ALIGN);
    for (symm_block_t *b = a->head; b; b = b->next) {
        if (!b->free)
            continue;
        size_t start = align_up(b->off, align);
        if (start - b->off > b->size || b->size - (start - b->off) < size)
            continue;
        /* Both new records first: a failure must leave the list as it was,
         * the same as on the PEs where it did not fail. */
        size_t left = b->size - (start - b->off);
        symm_block_t *gap = NULL, *rest = NULL;
        if ((start > b->off && (gap = block_new(start, left, true)) == NULL) ||
            (left > size && (rest = block_new(start + size, left - size, true)) == NULL)) {
            free(gap);
            return SYMM_ERR_SYS;
        }
        /* Split off the alignment gap in front as its own free block. */
        if (gap != NULL) {
            b->size = start - b->off;
            block_insert_after(b, gap);
            b = gap;
        }
        if (rest != NULL) {
            b->size = size;
            block_insert_after(b, rest);
        }
        b->free = false;
        a->used += b->size;
        if (b->off + b->size > a->hwm)
            a->hwm = b->off + b->size;
        *off_p = b->off;
        return SYMM_OK;
    }
    return SYMM_ERR_NOMEM;
}

static symm_block_t *block_find(const symm_heap_alloc_t *a, size_t off)
{
    for (symm_block_t *b = a->head; b; b = b->next)
        if (b->off == off)
            return b->free ? NULL : b;
        else if (b->off > off)
            break;
    return NULL;
}

int symm_alloc_free(symm_heap_alloc_t *a, size_t off)
{
    symm_block_t *b = block_find(a, off);
    if (b == NULL)
        return SYMM_ERR_INVALID;
    b->free = true;
    a->used -= b->size;
    if (b->next && b->next->free)
        block_merge_next(a, b);
    if (b->prev && b->prev->free)
        block_merge_next(a, b->prev);
    return SYMM_OK;
}

size_t symm_alloc_block_size(const symm_heap_alloc_t *a, size_t off)
{
    symm_block_t *b = block_find(a, off);
    return b ? b->size : 0;
}

int symm_alloc_resize(symm_heap_alloc_t *a, size_t off, size_t new_size)
{
    symm_block_t *b = block_find(a, off);
    if (b == NULL)
        return SYMM_ERR_INVALID;
    new_size = align_up(new_size ? new_size : 1, SYMM_ALLOC_MIN_ALIGN);
    if (new_size > b->size) {
        size_t need = new_size - b->size;
        if (!b->next || !b->next->free || b->next->size < need)
            return SYMM_ERR_NOMEM;
        symm_block_t *n = b->next;
        if (n->size == need) {
            block_merge_next(a, b);
        } else {
            n->off += need;
            n->size -= need;
            b->size = new_size;
        }
        a->used += need;
        if (b->off + b->size > a->hwm)
            a->hwm = b->off + b->size;
    } else if (new_size < b->size) {
        size_t cut = b->size - new_size;
        if (b->next && b->next->free) {
            b->next->off -= cut;
            b->next->size += cut;
        } else {
            symm_block_t *n = block_new(b->off + new_size, cut, true);
            if (n == NULL)
                return SYMM_ERR_SYS;
            block_insert_after(b, n);
        }
        b->size = new_size;
        a->used -= cut;
    }
    return SYMM_OK;
}

int symm_alloc_grow(symm_heap_alloc_t *a, size_t new_limit)
{
    symm_block_t *last = a->head;
    while (last->next)
        last = last->next;
    if (new_limit <= a->limit)
        return SYMM_ERR_INVALID;
    if (last->free) {
        last->size += new_limit - a->limit;
    } else {
        symm_block_t *n = block_new(a->limit, new_limit - a->limit, true);
        if (n == NULL)
            return SYMM_ERR_SYS;
        block_insert_after(last, n);
    }
    a->limit = new_limit;
    return SYMM_OK;
}

void symm_alloc_ungrow(symm_heap_alloc_t *a, size_t old_limit)
{
    symm_block_t *last = a->head;
    while (last->next)
        last = last->next;
    if (old_limit >= a->limit || !last->free || last->off + last->size != a->limit)
        return;
    if (last->off >= old_limit) {
        /* symm_alloc_grow appended it */
        last->prev->next = NULL;
        free(last);
    } else {
        last->size -= a->limit - old_limit;
    }
    a->limit = old_limit;
}

size_t symm_alloc_largest_free(const symm_heap_alloc_t *a)
{
    size_t best = 0;
    for (symm_block_t *b = a->head; b; b = b->next)
        if (b->free && b->size > best)
            best = b->size;
    return best;
}

int symm_alloc_find(const symm_heap_alloc_t *a, size_t off, size_t *start_p, size_t *size_p)
{
    for (symm_block_t *b = a->head; b; b = b->next) {
        if (off >= b->off && off < b->off + b->size) {
            if (b->free)
                return SYMM_ERR_INVALID;
            *start_p = b->off;
            *size_p = b->size;
            return SYMM_OK;
        }
    }
    return SYMM_ERR_INVALID;
}
