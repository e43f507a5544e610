/*
 * shmem_mem.c - OpenSHMEM memory management entry points (thin wrappers over
 * core/heap.c).
 */
#include <stdint.h>

#include "core/heap.h"
#include "mem/alloc.h"
#include "runtime/log.h"
#include "transport/shm.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"
#include "shmemx.h"

void *shmem_malloc(size_t size)
{
    return symm_heap_malloc(symm_inst("shmem_malloc"), size, SYMM_ALLOC_MIN_ALIGN, false,
                            "shmem_malloc", SYMM_CALL_SITE);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints; /* every heap location is equally fast for atomics and signals here */
    return symm_heap_malloc(symm_inst("shmem_malloc_with_hints"), size, SYMM_ALLOC_MIN_ALIGN, false,
                            "shmem_malloc_with_hints", SYMM_CALL_SITE);
}

void *shmem_calloc(size_t count, size_t size)
{
    symm_instance_t *s = symm_inst("shmem_calloc");
    if (size != 0 && count > SIZE_MAX / size) {
        symm_error("shmem_calloc", "%zu elements of %zu bytes overflow size_t", count, size);
        return NULL;
    }
    return symm_heap_malloc(s, count * size, SYMM_ALLOC_MIN_ALIGN, true, "shmem_calloc",
                            SYMM_CALL_SITE);
}

void *shmem_align(size_t alignment, size_t size)
{
    symm_instance_t *s = symm_inst("shmem_align");
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        symm_error("shmem_align", "alignment %zu is not a power of two", alignment);
        return NULL;
    }
    /* Offsets are aligned, so an address is as aligned as the heap base
     * (transport/shm.c: heap_align, 1 GiB unless the slot is smaller). */
    if (alignment > s->shm->heap_align) {
        symm_error("shmem_align",
                   "alignment %zu is larger than the symmetric heap's base alignment %zu "
                   "(SYMM_MAX_SYMMETRIC_SIZE sets the slot it divides)",
                   alignment, s->shm->heap_align);
        return NULL;
    }
    return symm_heap_malloc(s, size, alignment, false, "shmem_align", SYMM_CALL_SITE);
}

void *shmem_realloc(void *ptr, size_t size)
{
    return symm_heap_realloc(symm_inst("shmem_realloc"), ptr, size, "shmem_realloc",
                             SYMM_CALL_SITE);
}

void shmem_free(void *ptr) { symm_heap_free(symm_inst("shmem_free"), ptr, "shmem_free"); }

void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }

size_t shmemx_heap_size(void)
{
    symm_instance_t *s = symm_inst("shmemx_heap_size");
    return symm_heap_size(s) - s->scratch_size;
}

size_t shmemx_heap_free(void)
{
    symm_instance_t *s = symm_inst("shmemx_heap_free");
    return symm_heap_size(s) - s->scratch_size - s->alloc->used;
}

SYMM_PALIAS(shmem_malloc)
SYMM_PALIAS(shmem_malloc_with_hints)
SYMM_PALIAS(shmem_calloc)
SYMM_PALIAS(shmem_align)
SYMM_PALIAS(shmem_realloc)
SYMM_PALIAS(shmem_free)
SYMM_PALIAS(shmalloc)
SYMM_PALIAS(shfree)
SYMM_PALIAS(shrealloc)
SYMM_PALIAS(shmemalign)
