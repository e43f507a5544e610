/*
 * debug_blocks.c - SHMEM_DEBUG's block bounds and leak listing (issue
 * 47.4), one mode per run (argv[1]); tests/debug.cmake checks the exit
 * status and the lines.
 *
 * Overruns (the last PE does one wrong thing while the others wait in a
 * barrier; under SHMEM_DEBUG it must be refused, naming the block): each
 * access starts inside a heap block and runs past the size asked for, but
 * stays inside the heap, in the allocator's rounding of the block or the
 * next block: memory the segment check lets through, and that a run
 * without SHMEM_DEBUG writes without harm (the same modes then end with 0).
 *  put, get, p, iput, amo (an 8-byte add at the block's end - 4), signal
 *  (a signal word of 4 bytes), fcollect (every PE: a dest one element
 *  short; run only under SHMEM_DEBUG), global (a put past a global array:
 *  named only where the program exports its symbols, as this one does;
 *  only under SHMEM_DEBUG, since without it the put lands in whatever
 *  global the linker put next).
 * clean: every kind of access up to the last byte of its block, realloc
 *  grown and shrunk, every block freed: no message, exit 0.
 * leak: blocks left allocated at shmem_finalize (LEAK_* below), others
 *  freed; finalize lists count, bytes and the blocks with their sites.
 * leak_many: 7 blocks left; finalize lists the 5 largest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

static int me, npes;
/* A global array of 4 longs and its neighbour (global mode). */
long debug_garr[4];
long debug_gnext[4];

static int culprit(void)
{
    return me == npes - 1;
}

/* The leak mode's blocks: 3 left at finalize, 5120 bytes in all. */
#define LEAK_A 1000
#define LEAK_B 24
#define LEAK_C 4096

/* Every PE allocates the mode's block (allocation is collective); the
 * last PE runs past it. */
static void overrun(const char *mode, char *a)
{
    char src[256] = {0};
    int *x = shmem_malloc(6);
    long *c = shmem_malloc(12);
    uint64_t *sig = shmem_malloc(4);
    if (culprit()) {
        if (strcmp(mode, "put") == 0)
            shmem_putmem(a + 64, src, 64, 0); /* a is 100 bytes: 28 past */
        else if (strcmp(mode, "get") == 0)
            shmem_getmem(src, a + 90, 20, 0); /* 10 past */
        else if (strcmp(mode, "p") == 0)
            shmem_int_p(x + 1, 7, 0); /* bytes 4..8 of 6: 2 past */
        else if (strcmp(mode, "iput") == 0)
            shmem_long_iput((long *)(void *)a, (const long *)(void *)src, 2, 1, 7, 0); /* 104 */
        else if (strcmp(mode, "amo") == 0)
            shmem_long_atomic_add(c + 1, 1, 0); /* 8 bytes at 12 - 4: 4 past */
        else if (strcmp(mode, "signal") == 0)
            shmem_signal_set(sig, 1, 0); /* 4 past */
        else if (strcmp(mode, "global") == 0)
            shmem_long_put(debug_garr, (const long *)(void *)src, 5, 0); /* 8 past */
    }
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(c);
    shmem_free(x);
}

/* Every kind of access that ends exactly at its block's last byte. */
static void clean(void)
{
    char buf[512];
    long src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[64];
    char *a = shmem_malloc(100);
    long *l = shmem_calloc(8, sizeof(long));
    long *coll = shmem_malloc((size_t)npes * 2 * sizeof(long));
    long *pair = shmem_malloc(2 * sizeof(long));
    int *x = shmem_malloc(8);
    int right = (me + 1) % npes;
    memset(buf, me, sizeof(buf));
    shmem_putmem(a, buf, 100, right);
    shmem_putmem(a + 99, buf, 1, right);
    shmem_getmem(buf, a, 100, right);
    shmem_int_p(x + 1, 3, right);
    shmem_long_iput(l, src, 2, 1, 4, right); /* elements 0, 2, 4, 6 */
    (void)shmem_long_atomic_fetch_add(l + 7, 1, right);
    shmem_barrier_all();
    pair[0] = me;
    pair[1] = 10 * me + 1;
    shmem_long_fcollect(SHMEM_TEAM_WORLD, coll, pair, 2);
    CHECK_EQ("fcollect's last element", 10 * (npes - 1) + 1, coll[2 * npes - 1]);
    a = shmem_realloc(a, 300);
    shmem_putmem(a + 200, buf, 100, right);
    a = shmem_realloc(a, 40);
    shmem_getmem(buf, a, 40, right);
    shmem_long_get(dst, l, 8, right);
    CHECK_EQ("iput's element 6", 4, l[6]);
    shmem_barrier_all();
    shmem_free(x);
    shmem_free(pair);
    shmem_free(coll);
    shmem_free(l);
    shmem_free(a);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    char *a = shmem_malloc(100);
    char *b = shmem_malloc(100);
    if (strcmp(mode, "clean") == 0) {
        clean();
    } else if (strcmp(mode, "leak") == 0) {
        void *gone = shmem_malloc(777);
        void *c = shmem_calloc(LEAK_C / 8, 8);
        void *l = shmem_align(256, LEAK_B);
        shmem_free(gone);
        void *r = shmem_realloc(shmem_malloc(10), LEAK_A);
        CHECK(c != NULL && l != NULL && r != NULL, "leak mode's allocations");
    } else if (strcmp(mode, "leak_many") == 0) {
        /* 7 blocks of 100..700 bytes (2800) left; the 5 largest listed. */
        for (int i = 1; i <= 7; i++)
            CHECK(shmem_malloc((size_t)i * 100) != NULL, "leak_many's block %d", i);
    } else if (strcmp(mode, "fcollect") == 0) {
        long *src = shmem_calloc(4, sizeof(long));
        long *dest = shmem_malloc(((size_t)npes * 4 - 1) * sizeof(long));
        shmem_long_fcollect(SHMEM_TEAM_WORLD, dest, src, 4); /* one long short */
        shmem_free(dest);
        shmem_free(src);
    } else {
        overrun(mode, a);
    }
    shmem_barrier_all();
    shmem_free(b);
    shmem_free(a);
    if (me == 0)
        printf("debug_blocks %s: done\n", mode);
    shmem_finalize();
    return 0;
}
