/*
 * heap.h - collective symmetric heap allocation (shmem_malloc and kin) and
 * its growth (core/heap.c).
 */
#ifndef SYMM_HEAP_H
#define SYMM_HEAP_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/state.h"

/* Collective: allocate size bytes aligned to align; zeroed if zero. Returns
 * NULL when the heap cannot grow enough. Barrier on exit. */
/* Map the first SYMM_PREFAULT_PEERS bytes of [base, base + len), symmetric,
 * in my views of every node-local peer's copy (no put or get there pays
 * a page fault later). */
void symm_heap_touch_peers(symm_instance_t *s, const char *base, size_t len);

void *symm_heap_malloc(symm_instance_t *s, size_t size, size_t align, bool zero,
                       const char *routine);
/* Collective: barrier on entry, then free. NULL: no action. */
void symm_heap_free(symm_instance_t *s, void *ptr, const char *routine);
/* Collective realloc with the spec's semantics. */
void *symm_heap_realloc(symm_instance_t *s, void *ptr, size_t size, const char *routine);

#endif
