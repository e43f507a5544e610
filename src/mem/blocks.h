/*
 * blocks.h - SHMEM_DEBUG's record of the heap's live blocks: where each
 * starts, the size it was asked for and where it was allocated.
 *
 * The allocator (mem/alloc.c) knows its blocks only by the sizes it rounded
 * them to, and reading its list races with a collective allocation on
 * another thread. This record serves the debug checks instead: a put, get,
 * AMO, signal or collective whose range starts in a block and runs past
 * the size asked for is refused, naming the block (ops/rma.c,
 * symm_check_sym), and finalize lists what is still allocated
 * (core/heap.c). Exists only under SHMEM_DEBUG (s->blocks NULL otherwise),
 * so it costs nothing without.
 *
 * One writer (the collective heap calls, core/heap.c: never two threads at
 * once); readers on any thread without a lock: the records are an array
 * sorted by offset behind a sequence count that is odd while the writer
 * changes it; a reader that saw it change retries. An array outgrown is
 * kept until fini, since a reader may still be inside it.
 */
#ifndef SYMM_BLOCKS_H
#define SYMM_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct symm_block_rec {
    size_t off;       /* heap offset of its first byte */
    size_t size;      /* bytes asked for */
    size_t span;      /* bytes the allocator set aside (size rounded up) */
    const void *site; /* the return address of the allocating call; NULL: unknown */
} symm_block_rec_t;

typedef struct symm_blocks symm_blocks_t;

/* NULL without memory. */
symm_blocks_t *symm_blocks_new(void);
void symm_blocks_free(symm_blocks_t *b);

/* Writer only. add: a new block (SYMM_ERR_NOMEM, nothing recorded, when
 * the array cannot grow: the block is then checked against its segment
 * only); resize: the block at off, resized in place by a call at site;
 * remove: forget it. */
int symm_blocks_add(symm_blocks_t *b, const symm_block_rec_t *rec);
void symm_blocks_resize(symm_blocks_t *b, size_t off, size_t size, size_t span, const void *site);
void symm_blocks_remove(symm_blocks_t *b, size_t off);

/* Any thread: the block whose span holds heap offset off, into *rec_p; 1
 * if there is one, else 0. */
int symm_blocks_find(const symm_blocks_t *b, size_t off, symm_block_rec_t *rec_p);

/* Writer only (or once nobody else uses b): the number of blocks and their
 * bytes asked for, and the largest ones, at most max of them, largest
 * first, into top[]; the number put there. */
size_t symm_blocks_largest(const symm_blocks_t *b, size_t *count_p, uint64_t *bytes_p,
                           symm_block_rec_t *top, size_t max);

/* The program's global that addr lies in, from the dynamic symbol table
 * (dladdr1): 1 with its start, size and name, 0 when the object is not
 * known there (the program's own globals are, when it exports its symbols:
 * -rdynamic). Static data is otherwise checked by its whole segment. */
int symm_global_bounds(const void *addr, const char **start_p, size_t *size_p, const char **name_p);

/* "main+0x2a (/path/prog)", "/path/prog+0x11d9" or "0x7f..." for a code
 * address (dladdr); "an unknown place" for NULL. */
void symm_site_format(const void *site, char *out, size_t cap);

#endif
