/*
 * remote.c - operations to PEs that are not mapped: run with every peer
 * reached through UCX (SYMM_TRANSPORT=ucx, or PEs in different network
 * namespaces: tests/scripts/netns_test.sh). With argument "remote" it first
 * checks that no peer is mapped (shmem_ptr NULL, TEAM_SHARED is myself), so
 * the rest cannot pass by memcpy. With "die", PE 1 exits after init and PE 0
 * keeps reading from it: the job must end naming PE 1 ("die_coll": the same
 * with PE 0 in a 1 MiB fcollect). With "progress", PE 0
 * does atomics on PEs that compute without calling symm (progress thread).
 * With "connect", every PE reads from every other one straight after init,
 * all at once (first contacts cross: endpoints are made on first use, while
 * the target may still be finishing init or connecting to us), then each
 * puts into every other and a barrier checks that all landed.
 *
 * Checks, every value computed here from PE numbers: put/get of several
 * sizes (heap and global data), _nbi + quiet, strided iput/iget, fetching and
 * non-fetching AMOs of 32/64-bit integers and float/double swap, an
 * add-contention count, put_signal with data-before-signal, a lock-protected
 * counter, wait_until on a word a peer puts, barrier, broadcast, fcollect,
 * alltoall and a sum reduction.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

#include "pe/check.h"

#define N 4096
static long gdata[N];          /* global data segment */
static long lockvar;
static long magic = 0x5eed;   /* initialised data: the same on every PE */
static int me, npes;

static long val(int pe, int i, int tag) { return (long)test_hash4((uint64_t)pe, (uint64_t)i, (uint64_t)tag, 7) >> 1; }

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *heap = shmem_malloc(sizeof(long) * N);
    long *src = malloc(sizeof(long) * N);
    CHECK(heap && src, "allocation expected memory");

    if (argc > 1 && strcmp(argv[1], "die") == 0) {
        /* PE 1 dies; PE 0 keeps reading from it: the job must end with a
         * message naming PE 1, not hang. */
        shmem_barrier_all();
        if (me == 1)
            _exit(7);
        if (me == 0) {
            for (int i = 0; i < 6000; i++) {
                (void)shmem_long_g(heap, 1);
                usleep(10000);
            }
            printf("remote die: PE 1's death went unnoticed for 60 s\n");
            return 1;
        }
        shmem_free(heap);
        free(src);
        shmem_finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "die_coll") == 0) {
        /* The same, after 1 MiB fcollects (under SYMM_UCX_BULK_EP=1, as
         * netns_death_coll runs it, their messages go on a second endpoint
         * without UCX's failure handling): PE 0's next fcollect waits on
         * the dead PE and must end naming it. */
        const size_t nb = 1u << 20;
        unsigned char *d = shmem_malloc(nb * (size_t)npes), *s = shmem_malloc(nb);
        CHECK(d && s, "allocation expected memory");
        for (int r = 0; r < 3; r++) {
            memset(s, (me * 7 + r) & 0xff, nb);
            shmem_fcollectmem(SHMEM_TEAM_WORLD, d, s, nb);
            for (int p = 0; p < npes; p++)
                CHECK_EQ("fcollect byte", (p * 7 + r) & 0xff, (int)d[(size_t)p * nb + nb / 2]);
        }
        shmem_barrier_all();
        if (me == 1)
            _exit(7);
        if (me == 0) {
            for (int i = 0; i < 600; i++) {
                shmem_fcollectmem(SHMEM_TEAM_WORLD, d, s, nb);
                usleep(100000);
            }
            printf("remote die_coll: PE 1's death went unnoticed for 60 s\n");
            return 1;
        }
        shmem_finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "connect") == 0) {
        for (int k = 1; k < npes; k++) {
            int p = (me + k) % npes;
            CHECK_EQ("first read from a peer", 0x5eedL, shmem_long_g(&magic, p));
        }
        for (int k = 1; k < npes; k++) {
            int p = (me + npes - k) % npes;
            shmem_long_p(&gdata[me], val(me, p, 11), p);
        }
        shmem_barrier_all();
        for (int p = 0; p < npes; p++)
            if (p != me)
                CHECK_EQ("put from every peer", val(p, me, 11), gdata[p]);
        shmem_barrier_all();
        shmem_free(heap);
        free(src);
        if (me == 0)
            printf("remote connect: ok on %d PEs\n", npes);
        shmem_finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "progress") == 0) {
        /* Every PE but 0 computes, making no symm call, until PE 0 has done a
         * fetch-add on it and then set its flag: with UCX emulating atomics
         * in software this completes only if something runs UCX on the
         * computing PE (the progress thread); without, the job times out. */
        long *flag = shmem_calloc(2, sizeof(long));
        shmem_barrier_all();
        if (me == 0) {
            for (int p = 1; p < npes; p++) {
                long old = shmem_long_atomic_fetch_add(&flag[1], 10, p);
                CHECK_EQ("fetch_add on a computing PE", 0L, old);
                shmem_long_atomic_set(&flag[0], 1, p);
            }
            shmem_quiet();
        } else {
            volatile double x = 1.0;
            while (__atomic_load_n(&flag[0], __ATOMIC_ACQUIRE) == 0)
                x = x * 1.0000001 + 1e-9; /* compute, no symm call */
            CHECK_EQ("counter after PE 0's fetch_add", 10L, flag[1]);
        }
        shmem_barrier_all();
        shmem_free(flag);
        shmem_free(heap);
        free(src);
        if (me == 0)
            printf("remote progress: ok on %d PEs\n", npes);
        shmem_finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "remote") == 0) {
        for (int p = 0; p < npes; p++)
            if (p != me)
                CHECK(shmem_ptr(heap, p) == NULL, "shmem_ptr(heap, %d) expected NULL: PE %d must "
                      "be reached through the network", p, p);
        CHECK_EQ("team_n_pes(SHARED) with every peer remote", 1,
                 shmem_team_n_pes(SHMEM_TEAM_SHARED));
    }

    /* put/get, heap and globals, several sizes */
    size_t sizes[] = {1, 7, 64, 1000, N};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        for (size_t i = 0; i < n; i++)
            src[i] = val(me, (int)i, (int)k);
        shmem_long_put(heap, src, n, right);
        shmem_long_put_nbi(gdata, src, n, right);
        shmem_quiet();
        shmem_barrier_all();
        for (size_t i = 0; i < n; i++) {
            CHECK(heap[i] == val(left, (int)i, (int)k), "heap[%zu] after put of %zu from PE %d "
                  "expected %ld got %ld", i, n, left, val(left, (int)i, (int)k), heap[i]);
            CHECK(gdata[i] == val(left, (int)i, (int)k), "gdata[%zu] after put_nbi of %zu "
                  "expected %ld got %ld", i, n, val(left, (int)i, (int)k), gdata[i]);
        }
        memset(src, 0, sizeof(long) * n);
        shmem_long_get(src, heap, n, right);
        for (size_t i = 0; i < n; i++)
            CHECK(src[i] == val(me, (int)i, (int)k), "get of %zu from PE %d: [%zu] expected %ld "
                  "got %ld", n, right, i, val(me, (int)i, (int)k), src[i]);
        memset(src, 0, sizeof(long) * n);
        shmem_long_get_nbi(src, gdata, n, right);
        shmem_quiet();
        for (size_t i = 0; i < n; i++)
            CHECK(src[i] == val(me, (int)i, (int)k), "get_nbi of %zu from PE %d: [%zu] expected "
                  "%ld got %ld", n, right, i, val(me, (int)i, (int)k), src[i]);
        shmem_barrier_all();
    }

    /* strided */
    for (int i = 0; i < 100; i++)
        src[i] = val(me, i, 50);
    shmem_long_iput(heap, src, 3, 1, 100, right);
    shmem_barrier_all();
    for (int i = 0; i < 100; i++)
        CHECK(heap[3 * i] == val(left, i, 50), "iput element %d expected %ld got %ld", i,
              val(left, i, 50), heap[3 * i]);
    shmem_long_iget(src, heap, 2, 3, 100, right);
    for (int i = 0; i < 100; i++)
        CHECK(src[2 * i] == val(me, i, 50), "iget element %d expected %ld got %ld", i,
              val(me, i, 50), src[2 * i]);
    shmem_barrier_all();

    /* atomics */
    int64_t *c64 = shmem_calloc(8, sizeof(int64_t));
    int32_t *c32 = shmem_calloc(8, sizeof(int32_t));
    double *dd = shmem_calloc(2, sizeof(double));
    float *ff = shmem_calloc(2, sizeof(float));
    for (int r = 0; r < 100; r++) {
        shmem_int64_atomic_add(&c64[0], me + 1, 0);
        shmem_int32_atomic_inc(&c32[0], 0);
    }
    int64_t old = shmem_int64_atomic_fetch_add(&c64[1], 5, right);
    (void)old;
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ("int64 add total on PE 0", (int64_t)(100 * npes * (npes + 1) / 2), c64[0]);
        CHECK_EQ("int32 inc total on PE 0", (int32_t)(100 * npes), c32[0]);
    }
    CHECK_EQ("int64 fetch_add from the left", (int64_t)5, c64[1]);
    shmem_barrier_all();
    CHECK_EQ("fetch", (int64_t)5, shmem_int64_atomic_fetch(&c64[1], right));
    CHECK_EQ("swap old", (int64_t)5, shmem_int64_atomic_swap(&c64[1], 1000 + me, right));
    CHECK_EQ("cswap fail old", (int64_t)(1000 + me),
             shmem_int64_atomic_compare_swap(&c64[1], 1, 7, right));
    CHECK_EQ("cswap win old", (int64_t)(1000 + me),
             shmem_int64_atomic_compare_swap(&c64[1], 1000 + me, 2000 + me, right));
    shmem_int32_atomic_set(&c32[1], 0x0f0f, right);
    CHECK_EQ("fetch_and", (int32_t)0x0f0f, shmem_int32_atomic_fetch_and(&c32[1], 0x00ff, right));
    CHECK_EQ("fetch_or", (int32_t)0x000f, shmem_int32_atomic_fetch_or(&c32[1], 0x3000, right));
    CHECK_EQ("fetch_xor", (int32_t)0x300f, shmem_int32_atomic_fetch_xor(&c32[1], 0x1001, right));
    CHECK_EQ("result of and/or/xor", (int32_t)0x200e, shmem_int32_atomic_fetch(&c32[1], right));
    shmem_double_atomic_set(&dd[0], 2.5 + me, right);
    CHECK(shmem_double_atomic_swap(&dd[0], -1.25, right) == 2.5 + me, "double swap old");
    shmem_float_atomic_set(&ff[0], 0.5f * (float)me, right);
    CHECK(shmem_float_atomic_fetch(&ff[0], right) == 0.5f * (float)me, "float fetch");
    int64_t fres = -1;
    shmem_int64_atomic_fetch_add_nbi(&fres, &c64[2], 3, right);
    shmem_quiet();
    CHECK_EQ("fetch_add_nbi result after quiet", (int64_t)0, fres);
    shmem_barrier_all();
    CHECK_EQ("after swap/cswap from the left", (int64_t)(2000 + left), c64[1]);
    CHECK(dd[0] == -1.25, "double after swap from the left expected -1.25 got %g", dd[0]);
    CHECK_EQ("add by fetch_add_nbi", (int64_t)3, c64[2]);

    /* put_signal: the data is there when the signal is */
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    for (int r = 1; r <= 20; r++) {
        for (int i = 0; i < 512; i++)
            src[i] = val(me, i, 100 + r);
        shmem_long_put_signal(heap, src, 512, sig, (uint64_t)r, SHMEM_SIGNAL_SET, right);
        shmem_uint64_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r);
        for (int i = 0; i < 512; i++)
            CHECK(heap[i] == val(left, i, 100 + r), "round %d: put_signal data [%d] expected %ld "
                  "got %ld", r, i, val(left, i, 100 + r), heap[i]);
        shmem_barrier_all();
    }

    /* lock-protected read-modify-write of PE 0's counter */
    long *ctr = shmem_calloc(1, sizeof(long));
    for (int r = 0; r < 20; r++) {
        shmem_set_lock(&lockvar);
        long v = shmem_long_g(ctr, 0);
        shmem_long_p(ctr, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lockvar);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ("lock-protected counter", (long)(20 * npes), *ctr);

    /* collectives */
    long *cs = shmem_malloc(sizeof(long) * 64 * npes), *cd = shmem_malloc(sizeof(long) * 64 * npes);
    for (int i = 0; i < 64 * npes; i++)
        cs[i] = val(me, i, 200);
    shmem_long_broadcast(SHMEM_TEAM_WORLD, cd, cs, 64, npes - 1);
    for (int i = 0; i < 64; i++)
        CHECK(cd[i] == val(npes - 1, i, 200), "broadcast [%d] expected %ld got %ld", i,
              val(npes - 1, i, 200), cd[i]);
    shmem_long_fcollect(SHMEM_TEAM_WORLD, cd, cs, 64);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < 64; i++)
            CHECK(cd[p * 64 + i] == val(p, i, 200), "fcollect block %d [%d]", p, i);
    shmem_long_alltoall(SHMEM_TEAM_WORLD, cd, cs, 64);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < 64; i++)
            CHECK(cd[p * 64 + i] == val(p, me * 64 + i, 200), "alltoall block %d [%d]", p, i);
    for (int i = 0; i < 64; i++)
        cs[i] = me * 1000 + i;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, cd, cs, 64);
    for (int i = 0; i < 64; i++)
        CHECK(cd[i] == 1000L * npes * (npes - 1) / 2 + (long)i * npes, "sum_reduce [%d] expected "
              "%ld got %ld", i, 1000L * npes * (npes - 1) / 2 + (long)i * npes, cd[i]);

    shmem_free(cs);
    shmem_free(cd);
    shmem_free(ctr);
    shmem_free(sig);
    shmem_free(ff);
    shmem_free(dd);
    shmem_free(c32);
    shmem_free(c64);
    shmem_free(heap);
    free(src);
    if (me == 0)
        printf("remote: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
