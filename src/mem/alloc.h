/*
 * alloc.h - the symmetric heap allocator.
 *
 * Hands out offsets in [base, limit) of the heap. Its metadata is private to
 * each PE (plain malloc), and the algorithm is deterministic - first fit over
 * an address-ordered block list, coalescing on free - so the same sequence of
 * collective calls yields the same offsets on every PE. It never touches heap
 * memory itself. When no block fits, the caller may grow `limit` and retry.
 */
#ifndef SYMM_ALLOC_H
#define SYMM_ALLOC_H

#include <stddef.h>
#include "runtime/status.h"

typedef struct symm_block symm_block_t;

typedef struct symm_heap_alloc {
    symm_block_t *head;      /* address-ordered, covers [base, limit) */
    size_t base;
    size_t limit;
    size_t hwm;              /* highest end ever handed out: above it memory is still zero */
    size_t used;
} symm_heap_alloc_t;

#define SYMM_ALLOC_MIN_ALIGN 64

SYMM_MUST_CHECK int symm_alloc_init(symm_heap_alloc_t *a, size_t base, size_t limit);
void symm_alloc_fini(symm_heap_alloc_t *a);
/* Allocate size bytes aligned to align (power of two >= SYMM_ALLOC_MIN_ALIGN
 * is enforced). 0 and *off_p on success; SYMM_ERR_NOMEM when nothing fits
 * (decided by the block list alone, so the same on every PE); SYMM_ERR_SYS
 * when this process could not allocate the allocator's own metadata (local
 * to this PE: the caller must agree with the others). Every failure leaves
 * the allocator unchanged; so do resize and grow. */
SYMM_MUST_CHECK int symm_alloc_alloc(symm_heap_alloc_t *a, size_t size, size_t align,
                                     size_t *off_p);
/* Free the block at off; SYMM_ERR_INVALID if off is not an allocated block. */
SYMM_MUST_CHECK int symm_alloc_free(symm_heap_alloc_t *a, size_t off);
/* Size of the allocated block at off, or 0 if none. */
size_t symm_alloc_block_size(const symm_heap_alloc_t *a, size_t off);
/* Grow or shrink the block at off in place to new_size if the following free
 * space allows; 0 on success, SYMM_ERR_NOMEM if it must move, SYMM_ERR_SYS
 * (shrinking only) if the metadata could not be allocated. */
SYMM_MUST_CHECK int symm_alloc_resize(symm_heap_alloc_t *a, size_t off, size_t new_size);
/* Extend the managed range to new_limit (> limit); SYMM_ERR_SYS if the
 * metadata could not be allocated. */
SYMM_MUST_CHECK int symm_alloc_grow(symm_heap_alloc_t *a, size_t new_limit);
/* Undo the last symm_alloc_grow, nothing having been allocated since: the
 * range back to old_limit, the list exactly as before the growth. */
void symm_alloc_ungrow(symm_heap_alloc_t *a, size_t old_limit);
/* Largest free block, for messages. */
size_t symm_alloc_largest_free(const symm_heap_alloc_t *a);
/* The block containing off: its start and size; 0 if off is in no allocated
 * block (for SHMEM_DEBUG bounds checks). */
int symm_alloc_find(const symm_heap_alloc_t *a, size_t off, size_t *start_p, size_t *size_p);

#endif
