/*
 * amo_c99.c - shmem.h as a C99 program sees it (no _Generic): the untyped
 * long shmem_swap from before 1.0 is declared and swaps whole longs, and
 * the typed deprecated names are there. Each PE swaps its rank + 1 into PE
 * 0's word, then adds to PE 0's int counter with shmem_int_fadd; PE 0 sees
 * every value exactly once (the fetched ones and the final word) and the
 * counter's total, and the long beside the word is untouched.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "pe/check.h"

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#error "amo_c99.c must be compiled as C99"
#endif

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static long word[2] = {0, 0x5a5a5a5a5a5a5a5aL};
static long fetched[1024];
static int counter;

int main(void)
{
    int me, n, i;
    long got;
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    CHECK(n <= 1024, "at most 1024 PEs, got %d", n);
    shmem_barrier_all();
    got = shmem_swap(&word[0], (long)me + 1 + (1L << 40), 0);
    shmem_long_p(&fetched[me], got, 0);
    (void)shmem_int_fadd(&counter, me + 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        char *seen = calloc((size_t)n + 1, 1);
        CHECK(seen != NULL, "calloc failed");
        for (i = 0; i <= n; i++) {
            long v = i < n ? fetched[i] : word[0];
            long k = v == 0 ? 0 : v - (1L << 40);
            CHECK(k >= 0 && k <= n && !seen[k], "shmem_swap: value %ld unexpected or seen twice",
                  v);
            seen[k] = 1;
        }
        free(seen);
        CHECK(word[1] == 0x5a5a5a5a5a5a5a5aL, "shmem_swap wrote past the word: %lx", word[1]);
        CHECK_EQ("shmem_int_fadd counter", n * (n + 1) / 2, counter);
    }
    shmem_finalize();
    return 0;
}
