/*
 * region.c - registering existing memory (shmemx_register/deregister).
 *
 * Default mode, every PE count and transport:
 *  - read/write access on a malloc'd buffer (node-local peers: process_vm):
 *    every PE writes a block into every PE's buffer with putmem, long_put_nbi
 *    + quiet, long_iput + long_p, a created context's put + ctx_quiet; every
 *    PE checks its buffer, then reads its left neighbour's with getmem,
 *    long_g, long_get_nbi + quiet, long_iget; put-with-signal with the data
 *    in the region and the signal on the heap; shmem_ptr and
 *    shmem_addr_accessible; the buffer keeps its bytes after deregistration.
 *  - atomic access on page-aligned mmap'd memory (pages moved into shared
 *    memory): fetch_add, inc, 32-bit add, compare_swap loops, signal_add from
 *    every PE to every PE sum exactly; set, fetch_or, atomic_fetch; puts and
 *    gets; shmem_ptr of a node-local peer's copy is its live memory; the
 *    bytes survive registration and deregistration, and the memory stays
 *    usable.
 *  - several regions at once (read-only, write-only), ids taken lowest free,
 *    reuse after deregistration.
 *  - refusals, on every PE at once: symmetric heap and global memory,
 *    differing sizes, atomic access on memory that is not whole pages.
 * Other modes end the job with a message (tests/region.cmake checks it):
 * atomic_rw, past_end, readonly_put. Mode fault: a registration that fails
 * on one PE (SYMM_FAULT) fails on every PE, and the next one works.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemx.h>

#include "check.h"

#define M 512 /* elements of a block */

static int me, npes, left, right;
static long global_buf[64]; /* symmetric already: refused */

static long val(int src, int dst, int i)
{
    return (long)test_hash4(7, (uint64_t)src, (uint64_t)dst, (uint64_t)i);
}

static int same_node(int a, int b)
{
    int ppn = test_pes_per_node(npes);
    return a / ppn == b / ppn;
}

static void test_rw(void)
{
    size_t n = (size_t)npes * M + 64;
    long *buf = malloc(n * sizeof(long) + 8);
    long *src = malloc(M * sizeof(long)), *got = malloc(M * sizeof(long));
    uint64_t *sig = shmem_calloc((size_t)npes, sizeof(uint64_t));
    CHECK(buf && src && got && sig, "allocations");
    buf = (long *)((char *)buf + 8); /* not page-aligned, whatever malloc gave */
    for (size_t i = 0; i < n; i++)
        buf[i] = -1;
    shmemx_region_t reg;
    CHECK_EQ("shmemx_register", 0, shmemx_register(buf, n * sizeof(long), SHMEMX_ACCESS_RW, &reg));
    CHECK_EQ("region id", 0, reg.id);
    CHECK(reg.addr == buf && reg.size == n * sizeof(long) && reg.access == SHMEMX_ACCESS_RW,
          "region fields");
    shmem_ctx_t ctx;
    CHECK_EQ("shmem_ctx_create", 0, shmem_ctx_create(0, &ctx));

    for (int t = 0; t < npes; t++) {
        long *dst = buf + (size_t)me * M;
        for (int i = 0; i < M; i++)
            src[i] = val(me, t, i);
        shmem_putmem(dst, src, 128 * sizeof(long), t);
        shmem_long_put_nbi(dst + 128, src + 128, 128, t);
        shmem_quiet();
        shmem_long_iput(dst + 256, src + 256, 2, 2, 64, t);
        for (int i = 257; i < 384; i += 2)
            shmem_long_p(dst + i, src[i], t);
        shmem_ctx_long_put(ctx, dst + 384, src + 384, 128, t);
        shmem_ctx_quiet(ctx);
    }
    shmem_barrier_all();
    for (int s = 0; s < npes; s++)
        for (int i = 0; i < M; i++)
            if (buf[(size_t)s * M + i] != val(s, me, i))
                CHECK(0, "buf[%d] (from PE %d) expected %ld got %ld", s * M + i, s, val(s, me, i),
                      buf[(size_t)s * M + i]);
    /* Gets of what PE s wrote into the left neighbour's buffer. */
    for (int s = 0; s < npes; s++) {
        long *at = buf + (size_t)s * M;
        memset(got, 0, M * sizeof(long));
        shmem_getmem(got, at, 128 * sizeof(long), left);
        for (int i = 128; i < 256; i++)
            got[i] = shmem_long_g(at + i, left);
        shmem_long_get_nbi(got + 256, at + 256, 128, left);
        shmem_quiet();
        shmem_long_iget(got + 384, at + 384, 1, 1, 128, left);
        for (int i = 0; i < M; i++)
            if (got[i] != val(s, left, i))
                CHECK(0, "get of PE %d's buf[%d] expected %ld got %ld", left, s * M + i,
                      val(s, left, i), got[i]);
    }
    /* Put-with-signal: data in the region, signal on the heap. */
    shmem_barrier_all();
    long *tail = buf + (size_t)npes * M;
    for (int i = 0; i < 64; i++)
        src[i] = val(me, 1000 + right, i);
    shmem_long_put_signal(tail, src, 64, &sig[me], 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&sig[left], SHMEM_CMP_EQ, 1);
    for (int i = 0; i < 64; i++)
        CHECK(tail[i] == val(left, 1000 + me, i), "signalled tail[%d] expected %ld got %ld", i,
              val(left, 1000 + me, i), tail[i]);
    CHECK_PTR("shmem_ptr of my own copy", buf + 3, shmem_ptr(buf + 3, me));
    if (right != me)
        CHECK_PTR("shmem_ptr of a peer's process_vm copy", NULL, shmem_ptr(buf, right));
    CHECK_EQ("shmem_addr_accessible", 1, shmem_addr_accessible(buf + 5, right));
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    CHECK_EQ("shmemx_deregister", 0, shmemx_deregister(&reg));
    CHECK_EQ("id after deregistration", -1, reg.id);
    CHECK_EQ("shmem_addr_accessible after", 0, shmem_addr_accessible(buf + 5, right));
    CHECK(buf[0] == val(0, me, 0), "bytes kept after deregistration");
    free((char *)buf - 8);
    free(src);
    free(got);
    shmem_free(sig);
}

static void test_atomic(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), size = 2 * pg;
    size_t nw = size / 8;
    enum { ROUNDS = 20 };
    uint64_t *a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(a != MAP_FAILED, "mmap");
    for (size_t i = 0; i < nw; i++)
        a[i] = 0;
    for (size_t i = 64; i < nw; i++)
        a[i] = (uint64_t)me * 100000 + i;
    shmemx_region_t reg;
    CHECK_EQ("shmemx_register atomic", 0, shmemx_register(a, size, SHMEMX_ACCESS_ALL, &reg));
    for (size_t i = 64; i < nw; i++)
        CHECK(a[i] == (uint64_t)me * 100000 + i, "bytes kept by registration: a[%zu] = %llu", i,
              (unsigned long long)a[i]);
    shmem_barrier_all();
    int32_t *w32 = (int32_t *)&a[2];
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < npes; k++) {
            int t = (me + k) % npes;
            shmem_uint64_atomic_fetch_add(&a[0], (uint64_t)me + 1, t);
            shmem_uint64_atomic_inc(&a[1], t);
            shmem_int32_atomic_add(w32, 3, t);
            uint64_t old = shmem_uint64_atomic_fetch(&a[3], t), seen;
            while ((seen = shmem_uint64_atomic_compare_swap(&a[3], old, old + 1, t)) != old)
                old = seen;
            shmem_signal_add(&a[4], 2, t);
        }
    }
    shmem_uint64_atomic_set(&a[5], 100 + (uint64_t)me, right);
    for (int t = 0; t < npes; t++)
        shmem_uint64_atomic_fetch_or(&a[6], (uint64_t)1 << (me % 64), t);
    shmem_barrier_all();
    uint64_t sum = (uint64_t)npes * (npes + 1) / 2, all = 0;
    for (int p = 0; p < npes; p++)
        all |= (uint64_t)1 << (p % 64);
    CHECK_EQ("fetch_add sum", ROUNDS * sum, a[0]);
    CHECK_EQ("inc count", (uint64_t)ROUNDS * npes, a[1]);
    CHECK_EQ("int32 add", 3 * ROUNDS * npes, *w32);
    CHECK_EQ("compare_swap count", (uint64_t)ROUNDS * npes, a[3]);
    CHECK_EQ("signal_add", 2ull * ROUNDS * npes, shmem_signal_fetch(&a[4]));
    CHECK_EQ("atomic_set from the left", 100 + left, a[5]);
    CHECK_EQ("fetch_or bits", all, a[6]);
    CHECK_EQ("atomic_fetch of the right's sum", ROUNDS * sum,
             shmem_uint64_atomic_fetch(&a[0], right));
    /* RMA on the same region. */
    uint64_t row[32], back[32];
    for (int i = 0; i < 32; i++)
        row[i] = (uint64_t)val(me, right, 5000 + i);
    shmem_putmem(&a[32], row, sizeof(row), right);
    shmem_barrier_all();
    for (int i = 0; i < 32; i++)
        CHECK(a[32 + i] == (uint64_t)val(left, me, 5000 + i), "a[%d] from the left", 32 + i);
    shmem_getmem(back, &a[64], sizeof(back), right);
    for (int i = 0; i < 32; i++)
        CHECK(back[i] == (uint64_t)right * 100000 + 64 + i, "get of the right's a[%d]", 64 + i);
    uint64_t *peer = shmem_ptr(&a[5], right);
    if (right != me && same_node(me, right) && !test_net_forced()) {
        CHECK(peer != NULL, "shmem_ptr of a node-local peer's atomic region is mapped");
        CHECK_EQ("the peer's a[5] through shmem_ptr", 100 + me, *peer);
    } else if (right != me) {
        CHECK_PTR("shmem_ptr of an unmapped peer", NULL, peer);
    }
    shmem_barrier_all();
    CHECK_EQ("shmemx_deregister atomic", 0, shmemx_deregister(&reg));
    CHECK_EQ("sum kept after deregistration", ROUNDS * sum, a[0]);
    a[7] = 77;
    CHECK_EQ("memory usable after deregistration", 77, a[7]);
    munmap(a, size);
}

static void test_several(void)
{
    long *r1 = malloc(64 * sizeof(long)), *r2 = malloc(64 * sizeof(long));
    long *r3 = malloc(64 * sizeof(long)), *r4 = malloc(64 * sizeof(long));
    CHECK(r1 && r2 && r3 && r4, "malloc");
    for (int i = 0; i < 64; i++) {
        r1[i] = r3[i] = r4[i] = 0;
        r2[i] = val(me, 0, 9000 + i);
    }
    shmemx_region_t g1, g2, g3, g4;
    CHECK_EQ("register r1", 0, shmemx_register(r1, 64 * sizeof(long), SHMEMX_ACCESS_RW, &g1));
    CHECK_EQ("register r2", 0, shmemx_register(r2, 64 * sizeof(long), SHMEMX_ACCESS_READ, &g2));
    CHECK_EQ("register r3", 0, shmemx_register(r3, 64 * sizeof(long), SHMEMX_ACCESS_WRITE, &g3));
    CHECK(g1.id == 0 && g2.id == 1 && g3.id == 2, "ids %d %d %d", g1.id, g2.id, g3.id);
    long got[64];
    shmem_getmem(got, r2, sizeof(got), right);
    for (int i = 0; i < 64; i++)
        CHECK(got[i] == val(right, 0, 9000 + i), "read-only region of the right, [%d]", i);
    CHECK_EQ("deregister r2", 0, shmemx_deregister(&g2));
    CHECK_EQ("register r4", 0, shmemx_register(r4, 64 * sizeof(long), SHMEMX_ACCESS_RW, &g4));
    CHECK_EQ("r4 takes the lowest free id", 1, g4.id);
    shmem_long_put(r3, r2, 64, right);
    shmem_long_put(r4 + 1, &r2[1], 1, left);
    shmem_barrier_all();
    for (int i = 0; i < 64; i++)
        CHECK(r3[i] == val(left, 0, 9000 + i), "write-only region from the left, [%d]", i);
    CHECK(r4[1] == val(right, 0, 9001), "r4 from the right");
    CHECK_EQ("deregister r1", 0, shmemx_deregister(&g1));
    CHECK_EQ("deregister r3", 0, shmemx_deregister(&g3));
    CHECK_EQ("deregister r4", 0, shmemx_deregister(&g4));
    free(r1);
    free(r2);
    free(r3);
    free(r4);
}

static void test_refusals(void)
{
    shmemx_region_t g;
    long *heap = shmem_malloc(64 * sizeof(long));
    char *plain = malloc(300 + 64);
    CHECK(heap && plain, "allocations");
    CHECK(shmemx_register(heap, 64 * sizeof(long), SHMEMX_ACCESS_RW, &g) != 0,
          "heap memory refused");
    CHECK(shmemx_register(global_buf, sizeof(global_buf), SHMEMX_ACCESS_RW, &g) != 0,
          "symmetric global refused");
    CHECK(shmemx_register(plain, 100, 0, &g) != 0, "access 0 refused");
    CHECK(shmemx_register(plain + 1, 256, SHMEMX_ACCESS_ALL, &g) != 0,
          "atomic access on memory that is not whole pages refused");
    int rc = shmemx_register(plain, 64 + (npes > 1 ? (size_t)me : 0), SHMEMX_ACCESS_RW, &g);
    if (npes > 1) {
        CHECK(rc != 0, "differing sizes refused on every PE");
    } else {
        CHECK_EQ("one PE: its size", 0, rc);
        CHECK_EQ("deregister", 0, shmemx_deregister(&g));
    }
    /* Nothing stayed half-registered: the next region is id 0 everywhere. */
    CHECK_EQ("register after refusals", 0, shmemx_register(plain, 300, SHMEMX_ACCESS_RW, &g));
    CHECK_EQ("id after refusals", 0, g.id);
    CHECK_EQ("deregister", 0, shmemx_deregister(&g));
    shmem_free(heap);
    free(plain);
}

/* ---- modes that end the job --------------------------------------------- */
static void die_mode(const char *mode)
{
    long one = 1;
    shmemx_region_t g;
    unsigned acc = strcmp(mode, "readonly_put") == 0 ? SHMEMX_ACCESS_READ : SHMEMX_ACCESS_RW;
    CHECK_EQ("register", 0, shmemx_register(malloc(64), 64, acc, &g));
    char *b = g.addr;
    shmem_barrier_all();
    if (me == 0) {
        if (strcmp(mode, "atomic_rw") == 0)
            shmem_long_atomic_add((long *)b, 1, right);
        else if (strcmp(mode, "past_end") == 0)
            shmem_putmem(b + 56, &one, 16, right);
        else
            shmem_putmem(b, &one, sizeof(one), right);
    }
    shmem_barrier_all();
    CHECK(0, "mode %s should have ended the job", mode);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    left = (me + npes - 1) % npes;
    right = (me + 1) % npes;
    if (strcmp(mode, "all") == 0) {
        test_rw();
        test_atomic();
        test_several();
        test_refusals();
    } else if (strcmp(mode, "fault") == 0) {
        long *b = malloc(256);
        shmemx_region_t g;
        CHECK(shmemx_register(b, 256, SHMEMX_ACCESS_RW, &g) != 0, "an injected failure fails "
                                                                  "every PE");
        CHECK_EQ("the next registration", 0, shmemx_register(b, 256, SHMEMX_ACCESS_RW, &g));
        CHECK_EQ("its id", 0, g.id);
        b[0] = me;
        shmem_barrier_all();
        long v = -1;
        shmem_getmem(&v, b, sizeof(v), right);
        CHECK_EQ("get after the failed attempt", right, v);
        CHECK_EQ("deregister", 0, shmemx_deregister(&g));
        free(b);
    } else {
        die_mode(mode);
    }
    /* Regions still registered at finalize go back to the program with
     * their bytes: one moved into shared memory, one reached by process_vm. */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    long *kept = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    long *kept_rw = malloc(64);
    shmemx_region_t k1, k2;
    CHECK(kept != MAP_FAILED && kept_rw != NULL, "allocations");
    CHECK_EQ("register kept", 0, shmemx_register(kept, pg, SHMEMX_ACCESS_ALL, &k1));
    CHECK_EQ("register kept_rw", 0, shmemx_register(kept_rw, 64, SHMEMX_ACCESS_RW, &k2));
    shmem_long_atomic_set(kept, 500 + me, right);
    shmem_long_p(kept_rw, 600 + me, right);
    shmem_barrier_all();
    if (me == 0)
        printf("region %s: ok on %d PEs\n", mode, npes);
    shmem_finalize();
    CHECK(kept[0] == 500 + left && kept_rw[0] == 600 + left,
          "registered buffers after finalize hold %ld and %ld, expected %d and %d", kept[0],
          kept_rw[0], 500 + left, 600 + left);
    kept[1] = kept_rw[1] = 1; /* and are still writable */
    munmap(kept, pg);
    free(kept_rw);
    return 0;
}
