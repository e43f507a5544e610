/*
 * seg.h - symmetric address translation: (segment, offset) and peer address.
 *
 * A symmetric address lies in one of two segments: the heap or the program's
 * data. Its offset in that segment is the same on every PE; a mapped peer's
 * copy is its mapping base plus that offset. These inlines are on every hot
 * path: no locks, no calls, no allocation.
 *
 * Layer mem/ (below transport/, above boot/; docs/ARCHITECTURE.md): symmetric
 * segments, translation, the allocator. It includes and calls only its own
 * directory and those below it (scripts/check_layers.sh).
 */
#ifndef SYMM_SEG_H
#define SYMM_SEG_H

#include <stdint.h>

#include "runtime/state.h"

typedef enum { SYMM_SEG_HEAP = 0, SYMM_SEG_DATA = 1, SYMM_SEG_NONE = -1 } symm_seg_id_t;

/* Segment and offset of a local symmetric address, and the bytes from it to
 * the end of its segment. SYMM_SEG_NONE if addr is not symmetric. */
static inline symm_seg_id_t symm_seg_translate(const symm_instance_t *s, const void *addr,
                                               size_t *off_p, size_t *room_p)
{
    uintptr_t a = (uintptr_t)addr;
    uintptr_t h = a - (uintptr_t)s->heap_base;
    size_t size = symm_heap_size(s);
    if (h < size) {
        *off_p = h;
        *room_p = size - h;
        return SYMM_SEG_HEAP;
    }
    for (int i = 0; i < s->n_data_ranges; i++) {
        uintptr_t d = a - s->data[i].start;
        if (d < s->data[i].len) {
            *off_p = s->data[i].off + d;
            *room_p = s->data[i].len - d;
            return SYMM_SEG_DATA;
        }
    }
    return SYMM_SEG_NONE;
}

/* Address of addr's copy on pe if pe is mapped here, else NULL (not mapped,
 * or addr not symmetric). The one test that splits fast and general paths. */
static inline void *symm_seg_peer_addr(const symm_instance_t *s, const void *addr, int pe)
{
    const symm_peer_t *p = &s->peers[pe];
    uintptr_t a = (uintptr_t)addr;
    if (a - (uintptr_t)s->heap_base < symm_heap_size(s))
        return p->mapped ? (char *)addr + p->heap_delta : NULL;
    for (int i = 0; i < s->n_data_ranges; i++) {
        uintptr_t d = a - s->data[i].start;
        if (d < s->data[i].len)
            return p->data_base ? p->data_base + s->data[i].off + d : NULL;
    }
    return NULL;
}

#endif
