/*
 * heap.c - collective allocation on the symmetric heap: a protocol over
 * several layers, hence in core/.
 *
 * Wraps the private, deterministic allocator (mem/alloc.c) with the spec's
 * collective semantics (barriers, zeroing before anyone can write), heap
 * growth (every PE grows at the same call because allocator state is the
 * same everywhere: the node's mappings, then the network transport's
 * registration, then the allocator's range) and the SHMEM_DEBUG check that
 * every PE asked for the same size. Never on a data path.
 */
#define _GNU_SOURCE
#include "core/heap.h"

#include <string.h>
#include <unistd.h>

#include "mem/alloc.h"
#include "ops/rma.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "team/team.h"
#include "transport/shm.h"
#include "transport/transport.h"

/* Scratch word (per PE, symmetric) where SHMEM_DEBUG publishes the size
 * asked for; after the barrier flags. */
#define DEBUG_SIZE_OFFSET (32 * 1024)

static void debug_check_same(symm_instance_t *s, uint64_t asked, const char *routine)
{
    uint64_t *slot = (uint64_t *)(s->heap_base + DEBUG_SIZE_OFFSET);
    *slot = asked;
    symm_barrier_world(s, 1);
    int bad = 0;
    for (int pe = 0; pe < s->n_pes; pe++) {
        uint64_t theirs;
        symm_rma_get(&s->ctx_default, &theirs, slot, sizeof(theirs), pe, 0, routine);
        if (theirs != asked) {
            symm_error(routine, "PE %d asked for %llu bytes, this PE for %llu: symmetric "
                                "allocation needs the same arguments on every PE",
                       pe, (unsigned long long)theirs, (unsigned long long)asked);
            bad = 1;
        }
    }
    symm_barrier_world(s, 1);
    if (bad)
        symm_fatal(routine, "mismatched collective allocation");
}

/* Grow every PE's heap so that `need` more bytes aligned to align fit. */
static int heap_grow(symm_instance_t *s, size_t need, size_t align)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t want = s->heap_size + need + align;
    size_t grown = s->heap_size * 2 > want ? s->heap_size * 2 : want;
    grown = (grown + pg - 1) / pg * pg;
    if (grown > s->slot_size)
        grown = s->slot_size;
    if (grown < want)
        return SYMM_ERR_NOMEM;
    int rc = symm_shm_heap_grow(s, grown);
    if (rc != SYMM_OK)
        return rc;
    if (s->net && s->net->heap_grown) {
        rc = s->net->heap_grown(s, grown);
        if (rc != SYMM_OK)
            return rc;
    }
    rc = symm_alloc_grow(s->alloc, grown);
    if (rc != SYMM_OK)
        return rc;
    s->heap_size = grown;
    return SYMM_OK;
}

void *symm_heap_malloc(symm_instance_t *s, size_t size, size_t align, bool zero,
                       const char *routine)
{
    size_t off;
    if (size == 0)
        return NULL;
    if (s->debug)
        debug_check_same(s, size, routine);
    int rc = symm_alloc_alloc(s->alloc, size, align, &off);
    if (rc == SYMM_ERR_NOMEM && heap_grow(s, size, align) == SYMM_OK)
        rc = symm_alloc_alloc(s->alloc, size, align, &off);
    if (rc != SYMM_OK) {
        if (s->debug || rc != SYMM_ERR_NOMEM)
            symm_error(routine, "cannot allocate %zu bytes (alignment %zu): largest free block "
                                "%zu bytes, heap %zu of at most %zu bytes "
                                "(SYMM_MAX_SYMMETRIC_SIZE)",
                       size, align, symm_alloc_largest_free(s->alloc), s->heap_size,
                       s->slot_size);
        symm_barrier_world(s, 1);
        return NULL;
    }
    char *p = s->heap_base + off;
    if (zero) {
        size_t block = symm_alloc_block_size(s->alloc, off);
        memset(p, 0, block < size ? block : size);
    }
    /* Nobody writes into the block before every PE has it (and zeroed it). */
    symm_barrier_world(s, 1);
    return p;
}

static size_t heap_offset(symm_instance_t *s, void *ptr, const char *routine)
{
    size_t off = (size_t)((char *)ptr - s->heap_base);
    if ((char *)ptr < s->heap_base || off >= s->heap_size ||
        symm_alloc_block_size(s->alloc, off) == 0)
        symm_fatal(routine, "%p was not returned by shmem_malloc (or was already freed)", ptr);
    return off;
}

void symm_heap_free(symm_instance_t *s, void *ptr, const char *routine)
{
    if (ptr == NULL)
        return;
    size_t off = heap_offset(s, ptr, routine);
    symm_barrier_world(s, 1);
    symm_alloc_free(s->alloc, off);
}

void *symm_heap_realloc(symm_instance_t *s, void *ptr, size_t size, const char *routine)
{
    if (ptr == NULL)
        return symm_heap_malloc(s, size, SYMM_ALLOC_MIN_ALIGN, false, routine);
    if (size == 0) {
        symm_heap_free(s, ptr, routine);
        return NULL;
    }
    size_t off = heap_offset(s, ptr, routine);
    size_t old = symm_alloc_block_size(s->alloc, off);
    /* Every PE must be done with the old block before it moves or shrinks. */
    symm_barrier_world(s, 1);
    if (symm_alloc_resize(s->alloc, off, size) == SYMM_OK) {
        symm_barrier_world(s, 1);
        return ptr;
    }
    size_t noff;
    int rc = symm_alloc_alloc(s->alloc, size, SYMM_ALLOC_MIN_ALIGN, &noff);
    if (rc == SYMM_ERR_NOMEM && heap_grow(s, size, SYMM_ALLOC_MIN_ALIGN) == SYMM_OK)
        rc = symm_alloc_alloc(s->alloc, size, SYMM_ALLOC_MIN_ALIGN, &noff);
    if (rc != SYMM_OK) {
        if (s->debug)
            symm_error(routine, "cannot grow %p to %zu bytes", ptr, size);
        symm_barrier_world(s, 1);
        return NULL; /* the old block stays valid, as with realloc(3) */
    }
    char *np = s->heap_base + noff;
    memcpy(np, s->heap_base + off, old < size ? old : size);
    symm_alloc_free(s->alloc, off);
    symm_barrier_world(s, 1);
    return np;
}
