/*
 * threads_quiet.c - shmem_quiet on the default context, called by several
 * threads at once (SHMEM_THREAD_MULTIPLE), completes each caller's own
 * operations.
 *
 * Found by the stress tester (seed 24, SYMM_TRANSPORT=ucx, 3 PEs, 2
 * threads): a get_nbi's destination still held its old bytes after the
 * issuing thread's shmem_quiet, because another thread's quiet had taken
 * the request off the worker's list and was still waiting for it. The same
 * held for puts: one thread's quiet could clear the worker's "puts since
 * the last flush" mark and flush while another thread's quiet returned at
 * once, its put not yet complete.
 *
 * NTHREADS threads, ITERS rounds each, on the default context, to the
 * right neighbour: a get_nbi of a known block into a private buffer
 * filled with a canary, shmem_quiet, check every byte; and a put_nbi of a
 * round-tagged block into the thread's own slot there, shmem_quiet, then
 * a blocking get of the slot, which must return the new block.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define NTHREADS 4
#define ITERS 2000
#define BLOCK 4096

static int me, npes, right;
static unsigned char *src;   /* [NTHREADS][BLOCK]: a known pattern, read by gets */
static unsigned char *slots; /* [NTHREADS][BLOCK]: written by the left neighbour */

static unsigned char byte_of(int pe, int tid, int it, size_t i)
{
    return (unsigned char)(test_hash4((uint64_t)pe, (uint64_t)tid, (uint64_t)it, i >> 3) >>
                           (8 * (i & 7)));
}

struct targ {
    int tid;
    char msg[256];
};

static void *worker(void *p)
{
    struct targ *a = p;
    int t = a->tid;
    unsigned char *buf = malloc(BLOCK), *out = malloc(BLOCK);
    if (buf == NULL || out == NULL) {
        snprintf(a->msg, sizeof(a->msg), "malloc failed");
        return NULL;
    }
    for (int it = 0; it < ITERS && !a->msg[0]; it++) {
        memset(buf, 0xc3, BLOCK);
        shmem_getmem_nbi(buf, src + (size_t)t * BLOCK, BLOCK, right);
        shmem_quiet();
        for (size_t i = 0; i < BLOCK; i++)
            if (buf[i] != byte_of(right, t, -1, i)) {
                snprintf(a->msg, sizeof(a->msg),
                         "thread %d round %d: get_nbi byte %zu after shmem_quiet: expected 0x%02x "
                         "got 0x%02x",
                         t, it, i, byte_of(right, t, -1, i), buf[i]);
                break;
            }
        for (size_t i = 0; i < BLOCK; i++)
            out[i] = byte_of(me, t, it, i);
        shmem_putmem_nbi(slots + (size_t)t * BLOCK, out, BLOCK, right);
        shmem_quiet();
        shmem_getmem(buf, slots + (size_t)t * BLOCK, BLOCK, right);
        if (!a->msg[0] && memcmp(buf, out, BLOCK) != 0)
            snprintf(a->msg, sizeof(a->msg),
                     "thread %d round %d: the put_nbi's block not in place after shmem_quiet", t,
                     it);
    }
    free(buf);
    free(out);
    return NULL;
}

int main(void)
{
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(rc == 0 && provided == SHMEM_THREAD_MULTIPLE,
          "shmem_init_thread(SHMEM_THREAD_MULTIPLE) returned %d, provided %d", rc, provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    src = shmem_malloc((size_t)NTHREADS * BLOCK);
    slots = shmem_calloc((size_t)NTHREADS, BLOCK);
    CHECK(src != NULL && slots != NULL, "shmem_malloc expected memory got NULL");
    for (int t = 0; t < NTHREADS; t++)
        for (size_t i = 0; i < BLOCK; i++)
            src[(size_t)t * BLOCK + i] = byte_of(me, t, -1, i);
    shmem_barrier_all();

    pthread_t th[NTHREADS];
    struct targ args[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        memset(&args[i], 0, sizeof(args[i]));
        args[i].tid = i;
        rc = pthread_create(&th[i], NULL, worker, &args[i]);
        CHECK(rc == 0, "pthread_create expected 0 got %d", rc);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < NTHREADS; i++)
        CHECK(!args[i].msg[0], "%s", args[i].msg);
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(slots);
    shmem_finalize();
    return 0;
}
