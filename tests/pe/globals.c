/*
 * globals.c - the program's global and static data is symmetric.
 *
 * Initialised .data, zero .bss, a 64 MiB .bss array of which only a few
 * pages are touched, and statics inside functions: their initial values
 * survive shmem_init (the remap copies them), put/get/p/g on them from
 * every PE land in the right PE's copy, shmem_ptr gives direct access to a
 * peer's copy, shmem_addr_accessible and shmem_pe_accessible answer
 * correctly, and after fork() a child's writes stay private to the child
 * while the parent's globals stay symmetric.
 *
 * Built three ways (see tests/mem.cmake): default (PIE), non-PIE, static.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shmem.h>

#include "check.h"

#define MAXPES 64
#define BIG ((size_t)64 << 20)

static long gdata[8] = {11, 22, 33, 44, 55, 66, 77, 88}; /* .data */
int gint = 42;                                           /* .data, external linkage */
static long gbss[MAXPES];                                /* .bss */
static long gbss_ptr[MAXPES];                            /* written through shmem_ptr */
static char gbig[BIG];                                   /* 64 MiB .bss, mostly never touched */
static int gfork = 1234;

static long *fn_data(void)
{
    static long x[4] = {5, 6, 7, 8};
    return x;
}

static long *fn_bss(void)
{
    static long y[MAXPES];
    return y;
}

static int me, npes;

static long f(int src, int tgt, int salt)
{
    return (long)(test_hash4((uint64_t)salt, (uint64_t)src, (uint64_t)tgt, 7) >> 1);
}

static void big_msg(unsigned char *m, int src, int tgt)
{
    for (int i = 0; i < 64; i++)
        m[i] = (unsigned char)(test_hash4(99, (uint64_t)src, (uint64_t)tgt, (uint64_t)i));
}

/* A place in gbig only PE src writes on each PE: straddles a page edge. */
static size_t big_off(int src) { return (size_t)src * 3 * 4096 + 4093; }

static long rss_shmem_kib(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (fp == NULL)
        return -1;
    while (fgets(line, sizeof(line), fp))
        if (sscanf(line, "RssShmem: %ld kB", &kib) == 1)
            break;
    fclose(fp);
    return kib;
}

/* KiB actually allocated in all memfds this process holds open (the
 * library's heap and global-data files): st_blocks counts written pages,
 * whether or not they are mapped here. -1 if none is found. */
static long long memfd_committed_kib(void)
{
    DIR *d = opendir("/proc/self/fd");
    long long total = 0;
    int found = 0;
    struct dirent *e;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        char path[300], target[256];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strncmp(target, "/memfd:", 7) != 0 || stat(path, &st) != 0)
            continue;
        total += (long long)st.st_blocks * 512 / 1024;
        found = 1;
    }
    closedir(d);
    return found ? total : -1;
}

static void check_initial_values(void)
{
    for (int i = 0; i < 8; i++)
        CHECK(gdata[i] == 11L * (i + 1), "initial gdata[%d] expected %ld got %ld", i,
              11L * (i + 1), gdata[i]);
    CHECK_EQ("initial gint", 42, gint);
    for (int i = 0; i < MAXPES; i++) {
        CHECK_EQ("initial gbss element", 0, gbss[i]);
        CHECK_EQ("initial fn_bss element", 0, fn_bss()[i]);
    }
    for (int i = 0; i < 4; i++)
        CHECK_EQ("initial static-in-function x[i]", 5 + i, fn_data()[i]);
    for (size_t off = 0; off < BIG; off += BIG / 8)
        CHECK_EQ("initial gbig byte", 0, gbig[off]);
    CHECK_EQ("initial gbig last byte", 0, gbig[BIG - 1]);
    /* The remap copies only pages that exist: the untouched 64 MiB array
     * must not have been committed to the data memfd. (SYMM_PREFAULT
     * commits the heap on purpose: then these numbers say nothing.) */
    const char *prefault = getenv("SYMM_PREFAULT");
    if (prefault != NULL && strcmp(prefault, "0") != 0)
        return;
    long kib = rss_shmem_kib();
    if (kib >= 0)
        CHECK(kib < 32 * 1024, "RssShmem after shmem_init with a 64 MiB .bss expected < 32768 kB "
                               "got %ld kB", kib);
    long long committed = memfd_committed_kib();
    if (committed >= 0)
        CHECK(committed < 32 * 1024, "memory committed to memfds after shmem_init with a 64 MiB "
              ".bss expected < 32768 KiB got %lld KiB", committed);
}

static void test_rma(void)
{
    /* Each PE's own copy of gdata becomes PE-specific; peers read it. */
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        gdata[i] = 1000L * me + i;
    shmem_barrier_all();
    for (int k = 0; k < npes; k++) {
        int t = (me + 1 + k) % npes;
        long buf[8];
        unsigned char m[64];
        shmem_long_get(buf, gdata, 8, t);
        for (int i = 0; i < 8; i++)
            CHECK(buf[i] == 1000L * t + i, "shmem_long_get of gdata[%d] from PE %d expected %ld got %ld",
                  i, t, 1000L * t + i, buf[i]);
        CHECK_EQ("shmem_long_g of gdata[5]", 1000L * t + 5, shmem_long_g(&gdata[5], t));
        CHECK_EQ("shmem_int_g of gint", 42, shmem_int_g(&gint, t));
        for (int i = 0; i < 4; i++)
            CHECK_EQ("shmem_long_g of a static in a function", 5 + i, shmem_long_g(&fn_data()[i], t));

        long v = f(me, t, 1);
        shmem_long_put(&gbss[me], &v, 1, t);
        shmem_long_p(&fn_bss()[me], f(me, t, 2), t);
        big_msg(m, me, t);
        shmem_putmem(&gbig[big_off(me)], m, sizeof(m), t);
        shmem_char_p(&gbig[BIG - 1 - (size_t)me], (char)(me + 1), t);
    }
    shmem_barrier_all();
    for (int s = 0; s < npes; s++) {
        unsigned char m[64];
        CHECK(gbss[s] == f(s, me, 1), "gbss[%d] after put from PE %d expected %ld got %ld", s, s,
              f(s, me, 1), gbss[s]);
        CHECK(fn_bss()[s] == f(s, me, 2), "fn_bss()[%d] after p from PE %d expected %ld got %ld",
              s, s, f(s, me, 2), fn_bss()[s]);
        big_msg(m, s, me);
        for (int i = 0; i < 64; i++)
            CHECK(gbig[big_off(s) + (size_t)i] == (char)m[i],
                  "gbig[%zu] after putmem from PE %d expected %d got %d", big_off(s) + (size_t)i, s,
                  (char)m[i], gbig[big_off(s) + (size_t)i]);
        CHECK_EQ("gbig tail byte after char_p", s + 1, gbig[BIG - 1 - (size_t)s]);
    }
    /* Gets of what other PEs wrote into a third PE's big array. */
    for (int t = 0; t < npes; t++) {
        unsigned char m[64], got[64];
        int s = (t + 1) % npes;
        big_msg(m, s, t);
        shmem_getmem(got, &gbig[big_off(s)], sizeof(got), t);
        CHECK(memcmp(m, got, sizeof(m)) == 0,
              "getmem of gbig from PE %d (written by PE %d) expected its message, first byte "
              "expected %d got %d", t, s, m[0], got[0]);
    }
    shmem_barrier_all();
}

static void test_ptr(void)
{
    int on_stack = 0;
    long *heap = shmem_malloc(sizeof(long) * MAXPES);
    CHECK(heap != NULL, "shmem_malloc expected memory got %p", (void *)heap);
    char *priv = malloc(64);
    CHECK(priv != NULL, "malloc expected memory got %p", (void *)priv);

    for (int t = 0; t < npes; t++) {
        long *p = shmem_ptr(gbss, t);
        if (test_net_forced() && t != me) {
            CHECK(p == NULL, "shmem_ptr(gbss, %d) under SYMM_TRANSPORT=ucx expected NULL got %p",
                  t, (void *)p);
            /* The same checks through UCX: read gbss, write the two words. */
            for (int s = 0; s < npes; s++) {
                long v = shmem_long_g(&gbss[s], t);
                CHECK(v == f(s, t, 1), "shmem_long_g of PE %d's gbss[%d] expected %ld got %ld", t,
                      s, f(s, t, 1), v);
            }
            shmem_long_p(&gbss_ptr[me], f(me, t, 3), t);
            shmem_long_p(&heap[me], f(me, t, 4), t);
            continue;
        }
        CHECK(p != NULL, "shmem_ptr(gbss, %d) on one node expected non-NULL got NULL", t);
        /* For my own PE it may be gbss itself or another mapping of the
         * same memory (the library maps every node-local PE's data): both
         * are checked below by reading and writing through it. */
        /* gbss on t holds f(s, t, 1) from every s (test_rma). */
        for (int s = 0; s < npes; s++)
            CHECK(p[s] == f(s, t, 1), "read of PE %d's gbss[%d] through shmem_ptr expected %ld got %ld",
                  t, s, f(s, t, 1), p[s]);
        CHECK(shmem_ptr(&gbig[BIG - 1], t) != NULL, "shmem_ptr(&gbig[end], %d) expected non-NULL got NULL", t);
        CHECK(shmem_ptr(&fn_data()[1], t) != NULL, "shmem_ptr(static in function, %d) expected non-NULL got NULL", t);
        CHECK(shmem_ptr(heap, t) != NULL, "shmem_ptr(heap, %d) expected non-NULL got NULL", t);
        CHECK_PTR("shmem_ptr(stack address)", NULL, shmem_ptr(&on_stack, t));
        CHECK_PTR("shmem_ptr(malloc address)", NULL, shmem_ptr(priv, t));
        long *q = shmem_ptr(&gbss_ptr[me], t);
        CHECK(q != NULL, "shmem_ptr(&gbss_ptr[%d], %d) expected non-NULL got NULL", me, t);
        *q = f(me, t, 3);
        long *h = shmem_ptr(&heap[me], t);
        *h = f(me, t, 4);
    }
    shmem_barrier_all();
    for (int s = 0; s < npes; s++) {
        CHECK(gbss_ptr[s] == f(s, me, 3), "gbss_ptr[%d] written by PE %d through shmem_ptr "
                                          "expected %ld got %ld", s, s, f(s, me, 3), gbss_ptr[s]);
        CHECK(heap[s] == f(s, me, 4), "heap[%d] written by PE %d through shmem_ptr expected %ld "
                                      "got %ld", s, s, f(s, me, 4), heap[s]);
    }

    for (int t = 0; t < npes; t++) {
        CHECK_EQ("shmem_pe_accessible(pe)", 1, shmem_pe_accessible(t));
        CHECK_EQ("shmem_addr_accessible(&gint)", 1, shmem_addr_accessible(&gint, t));
        CHECK_EQ("shmem_addr_accessible(gdata)", 1, shmem_addr_accessible(gdata, t));
        CHECK_EQ("shmem_addr_accessible(gbss)", 1, shmem_addr_accessible(&gbss[MAXPES - 1], t));
        CHECK_EQ("shmem_addr_accessible(&gbig[end])", 1, shmem_addr_accessible(&gbig[BIG - 1], t));
        CHECK_EQ("shmem_addr_accessible(static in function)", 1,
                 shmem_addr_accessible(fn_data(), t));
        CHECK_EQ("shmem_addr_accessible(heap)", 1, shmem_addr_accessible(heap, t));
        CHECK_EQ("shmem_addr_accessible(stack)", 0, shmem_addr_accessible(&on_stack, t));
        CHECK_EQ("shmem_addr_accessible(malloc)", 0, shmem_addr_accessible(priv, t));
    }
    CHECK_EQ("shmem_pe_accessible(-1)", 0, shmem_pe_accessible(-1));
    CHECK_EQ("shmem_pe_accessible(n_pes)", 0, shmem_pe_accessible(npes));
    CHECK_EQ("shmem_addr_accessible(&gint, -1)", 0, shmem_addr_accessible(&gint, -1));
    CHECK_EQ("shmem_addr_accessible(&gint, n_pes)", 0, shmem_addr_accessible(&gint, npes));
    CHECK_PTR("shmem_ptr(gbss, -1)", NULL, shmem_ptr(gbss, -1));
    CHECK_PTR("shmem_ptr(gbss, n_pes)", NULL, shmem_ptr(gbss, npes));
    free(priv);
    shmem_free(heap);
}

static void test_fork(void)
{
    shmem_barrier_all();
    if (me == 0) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        CHECK(pid >= 0, "fork expected a pid got %d", (int)pid);
        if (pid == 0) {
            /* The child: sees the value at fork time, then writes its copy. */
            if (gfork != 1234)
                _exit(2);
            gfork = 999;
            gbss[0] = -1;
            if (gfork != 999)
                _exit(3);
            _exit(0);
        }
        int st = 0;
        CHECK(waitpid(pid, &st, 0) == pid, "waitpid expected the child %d", (int)pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "forked child expected exit 0 (it saw gfork as at fork time) got status 0x%x", st);
        CHECK_EQ("parent's gfork after the child wrote its copy", 1234, gfork);
        CHECK_EQ("parent's gbss[0] after the child wrote its copy", f(0, 0, 1), gbss[0]);
    }
    shmem_barrier_all();
    /* Peers still see PE 0's (parent's) copy, and can still write it. */
    CHECK_EQ("shmem_int_g of PE 0's gfork after fork", 1234, shmem_int_g(&gfork, 0));
    shmem_barrier_all();
    if (me == npes - 1)
        shmem_int_p(&gfork, 4321, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ("PE 0's gfork after a put from the last PE, after fork", 4321, gfork);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES, "this test runs on up to %d PEs, not %d", MAXPES, npes);
    check_initial_values();
    test_rma();
    test_ptr();
    test_fork();
    if (me == 0)
        printf("globals: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
