/*
 * ring.c - symm's demo: every PE puts its number into the next PE's slot of
 * a symmetric array (heap) and of a global variable, then, after a barrier,
 * checks what its neighbour sent.
 *
 *   oshrun -np 4 ./symm-demo
 */
#include <shmem.h>
#include <stdio.h>

static long from_left; /* a global: symmetric too */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    long *ring = shmem_calloc((size_t)n, sizeof(long));
    long value = 100 + me;
    shmem_long_put(&ring[me], &value, 1, right); /* my slot on my right neighbour */
    shmem_long_p(&from_left, value, right);
    shmem_barrier_all();

    int ok = ring[left] == 100 + left && from_left == 100 + left;
    printf("PE %d of %d: got %ld (heap) and %ld (global) from PE %d: %s\n", me, n, ring[left],
           from_left, left, ok ? "ok" : "WRONG");
    shmem_free(ring);
    shmem_finalize();
    return ok ? 0 : 1;
}
