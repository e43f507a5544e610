/*
 * heap.h - collective symmetric heap allocation (shmem_malloc and kin) and
 * its growth (core/heap.c).
 */
#ifndef SYMM_HEAP_H
#define SYMM_HEAP_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/state.h"

/* Map the first SYMM_PREFAULT_PEERS bytes of [base, base + len), symmetric,
 * in my views of every node-local peer's copy (no put or get there pays
 * a page fault later). */
void symm_heap_touch_peers(symm_instance_t *s, const char *base, size_t len);

/* Collective: allocate size bytes aligned to align; zeroed if zero. Returns
 * NULL when the heap cannot grow enough. Barrier on exit. site: where the
 * program called the allocating routine (its return address,
 * SYMM_CALL_SITE), which SHMEM_DEBUG's messages name. */
void *symm_heap_malloc(symm_instance_t *s, size_t size, size_t align, bool zero,
                       const char *routine, const void *site);
/* Collective: barrier on entry, then free. NULL: no action. */
void symm_heap_free(symm_instance_t *s, void *ptr, const char *routine);
/* Collective realloc with the spec's semantics. */
void *symm_heap_realloc(symm_instance_t *s, void *ptr, size_t size, const char *routine,
                        const void *site);

/* The return address of the entry point it is used in: the program's call. */
#define SYMM_CALL_SITE __builtin_return_address(0)

/* SHMEM_DEBUG, at finalize: this PE's blocks still allocated, their count
 * and bytes, and the largest few with address, size and allocation site,
 * as warnings of routine (nothing when none is left). */
void symm_heap_report_leaks(symm_instance_t *s, const char *routine);

#endif
