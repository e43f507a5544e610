/*
 * quiet_threads.c - SHMEM_THREAD_MULTIPLE: several threads of every PE issue
 * non-blocking gets and puts on the shared default context and each calls
 * shmem_quiet, at the same time as the others. A quiet must complete the
 * calling thread's operations even while another thread's quiet is
 * completing the same context's requests: checked at once after each quiet
 * (the gets' buffers hold the peer's values; a put read back through the
 * thread's own private context holds this round's value), and after
 * shmem_iget, which completes its gets with a quiet inside.
 *
 * Over UCX the default context's requests are one list of the worker: a
 * quiet that found the list emptied by another thread's quiet returned
 * while that thread still waited for its requests (a team reduction read
 * a buffer its gets had not filled yet: team_threads' stale sums).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "check.h"

#define NT 4
#define K 16
#define ROUNDS 300
#define MAXPES 64

static long src[NT][K];      /* PE p, thread t, element i: value(p, t, i) */
static long dst[NT][MAXPES]; /* [t][p]: written by PE p's thread t */
static int me, npes;
static int failures;

static long value(int pe, int t, int i)
{
    return (long)pe * 1000000 + t * 1000 + i;
}

static void fail(const char *what, int t, int r, int target, int i, long want, long got)
{
    fprintf(stderr, "PE %d thread %d round %d: %s from PE %d [%d]: %ld, want %ld\n", me, t, r, what,
            target, i, got, want);
    __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    shmem_ctx_t mine;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &mine) != 0)
        mine = SHMEM_CTX_DEFAULT;
    for (int r = 0; r < ROUNDS && __atomic_load_n(&failures, __ATOMIC_RELAXED) < 10; r++) {
        int target = (me + 1 + r % (npes > 1 ? npes - 1 : 1)) % npes;
        long buf[K];
        for (int i = 0; i < K; i++)
            buf[i] = -1;
        for (int i = 0; i < K; i++)
            shmem_long_get_nbi(&buf[i], &src[t][i], 1, target);
        long v = r + 1; /* the put's source: kept until the quiet */
        shmem_long_put_nbi(&dst[t][me], &v, 1, target);
        shmem_quiet();
        for (int i = 0; i < K; i++)
            if (buf[i] != value(target, t, i))
                fail("get_nbi", t, r, target, i, value(target, t, i), buf[i]);
        long back = shmem_ctx_long_g(mine, &dst[t][me], target);
        if (back != r + 1)
            fail("put_nbi read back", t, r, target, me, r + 1, back);
        /* iget completes its element gets with a quiet of the context. */
        for (int i = 0; i < K; i++)
            buf[i] = -1;
        shmem_long_iget(buf, &src[t][0], 1, 2, K / 2, target);
        for (int i = 0; i < K / 2; i++)
            if (buf[i] != value(target, t, 2 * i))
                fail("iget", t, r, target, 2 * i, value(target, t, 2 * i), buf[i]);
    }
    if (mine != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(mine);
    return NULL;
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "THREAD_MULTIPLE provided");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "at most %d PEs, not %d", MAXPES, npes);
    for (int t = 0; t < NT; t++)
        for (int i = 0; i < K; i++)
            src[t][i] = value(me, t, i);
    shmem_barrier_all();
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    CHECK(failures == 0, "%d failures", failures);
    shmem_barrier_all();
    shmem_finalize();
    printf("quiet_threads: ok on %d PEs\n", npes);
    return 0;
}
