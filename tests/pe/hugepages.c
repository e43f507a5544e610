/*
 * hugepages.c - the heap on 2 MiB huge pages (SYMM_HUGEPAGES): the page
 * size the kernel reports (/proc/self/smaps KernelPageSize) for this PE's
 * heap, for a peer's heap as mapped here, and for a block past the initial
 * heap (growth), must be argv[1] kB. Run by tests/scripts/hugepages_test.sh.
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The page size backing the mapping that holds p, from /proc/self/smaps. */
static long kernel_page_kb(void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[256];
    int in = 0;
    long kb = -1;
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) /* a mapping's first line */
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && sscanf(line, "KernelPageSize: %ld kB", &kb) == 1)
            break;
    }
    fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    shmem_init();
    long want = argc > 1 ? atol(argv[1]) : 2048;
    char *a = shmem_malloc(1 << 20);
    memset(a, 1, 1 << 20);
    long kb = kernel_page_kb(a);
    int me = shmem_my_pe(), n = shmem_n_pes();
    /* a peer's heap through its mapping: the same backing */
    char *q = shmem_ptr(a, (me + 1) % n);
    long kbp = kernel_page_kb(q);
    /* growth */
    size_t big = (size_t)96 << 20;
    char *g = shmem_malloc(big);
    int ok = kb == want && kbp == want && g != NULL;
    if (g) {
        memset(g, 2, big);
        ok &= kernel_page_kb(g) == want;
    }
    shmem_barrier_all();
    printf("PE %d: page %ld kB, peer's %ld kB, grown %s: %s\n", me, kb, kbp, g ? "yes" : "no",
           ok ? "ok" : "FAIL");
    shmem_finalize();
    return ok ? 0 : 1;
}
