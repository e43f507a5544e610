/*
 * heap.c - collective allocation on the symmetric heap: a protocol over
 * several layers, hence in core/.
 *
 * Wraps the private, deterministic allocator (mem/alloc.c) with the spec's
 * collective semantics (barriers, zeroing before anyone can write), heap
 * growth (every PE grows at the same call because allocator state is the
 * same everywhere: my heap file and the allocator's range, agreed, then the
 * network transport's registration) and the SHMEM_DEBUG check that every
 * PE asked for the same size. Never on a data path.
 *
 * Agreement: a step that can fail on one PE alone (ftruncate, the
 * allocator's own malloc, a UCX registration) is followed by a round in
 * which every PE learns every PE's outcome (heap_agree). On any failure
 * every PE undoes its part and the call returns NULL everywhere, so the
 * allocators stay identical: a PE that went ahead alone would hand out
 * different offsets from then on, which is silent corruption.
 */
#define _GNU_SOURCE
#include "core/heap.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem/alloc.h"
#include "mem/blocks.h"
#include "mem/seg.h"
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

/* Every PE's outcome of a heap step, agreed over the world; ends the
 * world barrier callers count on. */
static int heap_agree(symm_instance_t *s, int rc, const char *routine)
{
    return symm_team_agree(s->team_world, rc, 1, routine);
}

/* Grow every PE's heap so that `need` more bytes aligned to align fit. My
 * file and the allocator's range first (local steps), agreed; then the
 * network transport's registration and key exchange, which must not start
 * on a PE whose file could not grow (its peers would register pages that
 * are not there) and which agrees on its own outcome. Fails on every PE or
 * on none; on failure the heap keeps its size everywhere. */
static int heap_grow(symm_instance_t *s, size_t need, size_t align, const char *routine)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t old = s->heap_size;
    size_t want = old + need + align;
    size_t grown = old * 2 > want ? old * 2 : want;
    grown = (grown + pg - 1) / pg * pg;
    if (grown > s->slot_size)
        grown = s->slot_size;
    if (grown < want)
        return SYMM_ERR_NOMEM; /* the same on every PE */
    int rc = symm_shm_heap_grow(s, grown, routine);
    if (rc == SYMM_OK) {
        rc = symm_alloc_grow(s->alloc, grown);
        if (rc != SYMM_OK) {
            symm_error(routine,
                       "growing the symmetric heap to %zu bytes: no memory for the "
                       "allocator's records",
                       grown);
            symm_shm_heap_restore(s, old, routine);
        }
    }
    int arc = heap_agree(s, rc, routine);
    if (arc != SYMM_OK) {
        if (rc == SYMM_OK) {
            symm_alloc_ungrow(s->alloc, old);
            symm_shm_heap_restore(s, old, routine);
        }
        return arc;
    }
    if (s->net && s->net->heap_grown) {
        /* On failure the file stays larger (a registration may cover it),
         * unused: the allocator's range is what every PE agrees on. */
        rc = s->net->heap_grown(s, grown);
        if (rc != SYMM_OK) {
            symm_alloc_ungrow(s->alloc, old);
            return rc;
        }
    }
    __atomic_store_n(&s->heap_size, grown, __ATOMIC_RELAXED); /* symm_heap_size */
    return SYMM_OK;
}

/* Free the block at off, which this file knows to be allocated (checked by
 * heap_offset, or just allocated here): anything else is symm's own error. */
static void heap_release(symm_instance_t *s, size_t off, const char *routine)
{
    if (symm_alloc_free(s->alloc, off) != SYMM_OK)
        symm_fatal(routine, "internal error: heap block at offset %zu is not allocated", off);
}

/* The allocator, growing the heap when nothing fits (the same on every PE).
 * Local: the caller agrees on the outcome. SYMM_ERR_NOMEM when nothing
 * fits or this PE's allocator records could not be had (logged), or
 * heap_grow's status. */
static int heap_alloc(symm_instance_t *s, size_t size, size_t align, size_t *off_p,
                      const char *routine)
{
    int rc = symm_alloc_alloc(s->alloc, size, align, off_p);
    if (rc == SYMM_ERR_NOMEM) {
        if ((rc = heap_grow(s, size, align, routine)) != SYMM_OK)
            return rc;
        rc = symm_alloc_alloc(s->alloc, size, align, off_p);
    }
    if (rc == SYMM_ERR_SYS) {
        symm_error(routine, "allocating %zu bytes: no memory for the allocator's records", size);
        rc = SYMM_ERR_NOMEM;
    }
    return rc;
}

/* Map the first SYMM_PREFAULT_PEERS bytes at a symmetric address (heap or
 * static data) of every node-local peer in my view of it: a read of one
 * byte per page. Its first put or get then pays no page fault (on a
 * virtual machine a fault through a new mapping can cost more than copying
 * the page many times over: docs/performance.md). */
void symm_heap_touch_peers(symm_instance_t *s, const char *base, size_t len)
{
    size_t cap = s->cfg.core.prefault_peers;
    if (len > cap)
        len = cap;
    for (int i = 0; i < s->n_local && len != 0; i++) {
        int pe = s->local_pes[i];
        const char *p = pe == s->my_pe ? NULL : symm_seg_peer_addr(s, base, pe);
        if (p == NULL)
            continue;
        uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, end = (uintptr_t)p + len;
#ifdef MADV_POPULATE_WRITE
        /* Writable and backed (a read of a page its owner has not yet
         * written maps it read-only: the first put would fault again),
         * without a store: the owner may write the block already. */
        (void)madvise((void *)a, end - a, MADV_POPULATE_WRITE);
#endif
        /* And used once: on a virtual machine with shadow page tables, the
         * first access through a new mapping traps even so. */
        for (; a < end; a += 4096)
            (void)*(const volatile char *)a;
    }
}

/* SHMEM_DEBUG: the block at off, size bytes asked for at site, in the
 * record the bounds checks read (mem/blocks.h). */
static void debug_note(symm_instance_t *s, size_t off, size_t size, const void *site,
                       const char *routine)
{
    static int warned;
    symm_block_rec_t rec = {
        .off = off, .size = size, .span = symm_alloc_block_size(s->alloc, off), .site = site};
    if (symm_blocks_add(s->blocks, &rec) != SYMM_OK && !warned++)
        symm_warn(routine,
                  "no memory for SHMEM_DEBUG's record of a %zu-byte block: its "
                  "bounds are not checked",
                  size);
}

void *symm_heap_malloc(symm_instance_t *s, size_t size, size_t align, bool zero,
                       const char *routine, const void *site)
{
    size_t off;
    if (size == 0)
        return NULL;
    SYMM_DOING_SCOPE(symm_team_doing(s->team_world, routine, -1, 0));
    if (s->debug)
        debug_check_same(s, size, routine);
    symm_log_clear_error(); /* what heap_agree tells the others is from this call */
    int rc = heap_alloc(s, size, align, &off, routine);
    if (rc == SYMM_OK && zero) {
        size_t block = symm_alloc_block_size(s->alloc, off);
        memset(s->heap_base + off, 0, block < size ? block : size);
    }
    /* Its barrier: nobody writes into the block before every PE has it
     * (and zeroed it). */
    int arc = heap_agree(s, rc, routine);
    if (arc == SYMM_OK) {
        if (s->blocks != NULL)
            debug_note(s, off, size, site, routine);
        symm_heap_touch_peers(s, s->heap_base + off, size);
        return s->heap_base + off;
    }
    if (rc == SYMM_OK)
        heap_release(s, off, routine); /* another PE failed: as if never allocated */
    else if (rc == SYMM_ERR_NOMEM && s->debug)
        symm_error(routine,
                   "cannot allocate %zu bytes (alignment %zu): largest free block "
                   "%zu bytes, heap %zu of at most %zu bytes "
                   "(SYMM_MAX_SYMMETRIC_SIZE)",
                   size, align, symm_alloc_largest_free(s->alloc), s->heap_size, s->slot_size);
    else if (rc == SYMM_ERR_INVALID)
        symm_error(routine,
                   "cannot allocate %zu bytes aligned to %zu: the size is too large "
                   "or the alignment not a power of two",
                   size, align);
    return NULL;
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
    SYMM_DOING_SCOPE(symm_team_doing(s->team_world, routine, -1, 0));
    symm_barrier_world(s, 1);
    if (s->blocks != NULL)
        symm_blocks_remove(s->blocks, off);
    heap_release(s, off, routine);
}

void *symm_heap_realloc(symm_instance_t *s, void *ptr, size_t size, const char *routine,
                        const void *site)
{
    if (ptr == NULL)
        return symm_heap_malloc(s, size, SYMM_ALLOC_MIN_ALIGN, false, routine, site);
    if (size == 0) {
        symm_heap_free(s, ptr, routine);
        return NULL;
    }
    size_t off = heap_offset(s, ptr, routine);
    size_t old = symm_alloc_block_size(s->alloc, off);
    SYMM_DOING_SCOPE(symm_team_doing(s->team_world, routine, -1, 0));
    /* Every PE must be done with the old block before it moves or shrinks. */
    symm_barrier_world(s, 1);
    symm_log_clear_error(); /* what heap_agree tells the others is from this call */
    int rc = symm_alloc_resize(s->alloc, off, size);
    if (rc != SYMM_ERR_NOMEM) {
        /* In place, or (shrinking) no memory for a record on this PE. */
        if (rc == SYMM_ERR_SYS)
            symm_error(routine,
                       "shrinking %p to %zu bytes: no memory for the allocator's "
                       "records",
                       ptr, size);
        int arc = heap_agree(s, rc, routine);
        if (arc == SYMM_OK) {
            if (s->blocks != NULL)
                symm_blocks_resize(s->blocks, off, size, symm_alloc_block_size(s->alloc, off),
                                   site);
            return ptr;
        }
        /* Back to its old size: a shrink of what just grew, which allocates
         * nothing and so cannot fail. */
        if (rc == SYMM_OK && symm_alloc_resize(s->alloc, off, old) != SYMM_OK)
            symm_fatal(routine, "internal error: heap block at offset %zu did not shrink back",
                       off);
        return NULL; /* the old block stays valid, as with realloc(3) */
    }
    size_t noff;
    rc = heap_alloc(s, size, SYMM_ALLOC_MIN_ALIGN, &noff, routine);
    if (rc == SYMM_OK)
        memcpy(s->heap_base + noff, s->heap_base + off, old < size ? old : size);
    /* Its barrier: nobody uses the new block before every PE filled it. */
    int arc = heap_agree(s, rc, routine);
    if (arc != SYMM_OK) {
        if (rc == SYMM_OK)
            heap_release(s, noff, routine);
        else if (rc == SYMM_ERR_NOMEM && s->debug)
            symm_error(routine, "cannot grow %p to %zu bytes", ptr, size);
        return NULL; /* the old block stays valid, as with realloc(3) */
    }
    if (s->blocks != NULL) {
        symm_blocks_remove(s->blocks, off);
        debug_note(s, noff, size, site, routine);
    }
    heap_release(s, off, routine);
    symm_heap_touch_peers(s, s->heap_base + noff, size);
    return s->heap_base + noff;
}

/* How many of the largest blocks a leak report lists. */
#define LEAK_LIST_MAX 5

void symm_heap_report_leaks(symm_instance_t *s, const char *routine)
{
    symm_block_rec_t top[LEAK_LIST_MAX];
    size_t count;
    uint64_t bytes;
    size_t k = symm_blocks_largest(s->blocks, &count, &bytes, top, LEAK_LIST_MAX);
    if (count == 0)
        return;
    if (k == count)
        symm_warn(routine, "SHMEM_DEBUG: %zu symmetric block%s, %llu bytes, still allocated", count,
                  count == 1 ? "" : "s", (unsigned long long)bytes);
    else
        symm_warn(routine,
                  "SHMEM_DEBUG: %zu symmetric blocks, %llu bytes, still allocated; "
                  "the %zu largest follow",
                  count, (unsigned long long)bytes, k);
    for (size_t i = 0; i < k; i++) {
        char site[256];
        symm_site_format(top[i].site, site, sizeof(site));
        symm_warn(routine, "SHMEM_DEBUG: still allocated: %p, %zu bytes, allocated at %s",
                  (void *)(s->heap_base + top[i].off), top[i].size, site);
    }
}
