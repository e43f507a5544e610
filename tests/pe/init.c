/*
 * init.c - setup and query routines.
 *
 *   init                 shmem_init
 *   init thread=L        shmem_init_thread(L) for L in 0..3; with MULTIPLE,
 *                        several threads put concurrently
 *   init start_pes       the deprecated start_pes, _my_pe, _num_pes
 *   init singleton       run WITHOUT oshrun: a job of one PE
 *
 * Every mode checks: query_initialized/finalized before and after init and
 * finalize; my_pe/n_pes agree with the launcher's SYMM_RANK/SYMM_SIZE and
 * every rank 0..n-1 is taken exactly once; info_get_version is 1.5 and
 * info_get_name a non-empty string terminated within SHMEM_MAX_NAME_LEN
 * (both before init too); finalize twice is harmless.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

static void check_info(const char *when)
{
    int major = -1, minor = -1;
    char name[SHMEM_MAX_NAME_LEN + 16];
    shmem_info_get_version(&major, &minor);
    CHECK(major == 1 && minor == 5, "shmem_info_get_version %s expected 1.5 got %d.%d", when,
          major, minor);
    CHECK(SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 5,
          "SHMEM_MAJOR/MINOR_VERSION expected 1.5 got %d.%d", SHMEM_MAJOR_VERSION,
          SHMEM_MINOR_VERSION);
    memset(name, 'X', sizeof(name));
    shmem_info_get_name(name);
    size_t len = strnlen(name, SHMEM_MAX_NAME_LEN);
    CHECK(len < SHMEM_MAX_NAME_LEN, "shmem_info_get_name %s expected a NUL within %d bytes got none",
          when, SHMEM_MAX_NAME_LEN);
    CHECK(len > 0, "shmem_info_get_name %s expected a non-empty name got \"\"", when);
    for (size_t i = SHMEM_MAX_NAME_LEN; i < sizeof(name); i++)
        CHECK(name[i] == 'X', "shmem_info_get_name %s wrote byte %zu, past SHMEM_MAX_NAME_LEN", when, i);
}

static void check_query(int want_init, int want_fin, const char *when)
{
    int init = -1, fin = -1;
    CHECK_EQ("shmem_query_initialized return value", 0, shmem_query_initialized(&init));
    CHECK(init == want_init, "shmem_query_initialized %s expected %d got %d", when, want_init, init);
    CHECK_EQ("shmem_query_finalized return value", 0, shmem_query_finalized(&fin));
    CHECK(fin == want_fin, "shmem_query_finalized %s expected %d got %d", when, want_fin, fin);
}

#define NTHREADS 4
#define PER_THREAD 64
static long *tslots;
static int t_me, t_right;

static void *thread_puts(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        long v = (long)t_me * 1000000 + id * 1000 + i;
        shmem_long_put(&tslots[id * PER_THREAD + i], &v, 1, t_right);
    }
    shmem_quiet();
    return NULL;
}

static void test_threads(int me, int npes)
{
    pthread_t th[NTHREADS];
    int left = (me + npes - 1) % npes;
    t_me = me;
    t_right = (me + 1) % npes;
    tslots = shmem_calloc(NTHREADS * PER_THREAD, sizeof(long));
    CHECK(tslots != NULL, "shmem_calloc expected memory got NULL");
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&th[i], NULL, thread_puts, (void *)(intptr_t)i) == 0,
              "pthread_create %d expected 0", i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    shmem_barrier_all();
    for (int id = 0; id < NTHREADS; id++)
        for (int i = 0; i < PER_THREAD; i++)
            CHECK(tslots[id * PER_THREAD + i] == (long)left * 1000000 + id * 1000 + i,
                  "slot %d of thread %d expected %ld got %ld", i, id,
                  (long)left * 1000000 + id * 1000 + i, tslots[id * PER_THREAD + i]);
    shmem_free(tslots);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "init";
    const char *rank_s = getenv("SYMM_RANK"), *size_s = getenv("SYMM_SIZE");
    int singleton = strcmp(mode, "singleton") == 0;

    check_query(0, 0, "before init");
    check_info("before init");

    if (strncmp(mode, "thread=", 7) == 0) {
        int level = atoi(mode + 7), provided = -1, q = -1;
        CHECK(level >= SHMEM_THREAD_SINGLE && level <= SHMEM_THREAD_MULTIPLE,
              "mode thread=L expected L in 0..3 got %d", level);
        CHECK_EQ("shmem_init_thread return value", 0, shmem_init_thread(level, &provided));
        CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE,
              "shmem_init_thread(%d) expected a thread level as provided got %d", level, provided);
        shmem_query_thread(&q);
        CHECK(q == provided, "shmem_query_thread expected %d (as provided by init_thread) got %d",
              provided, q);
        if (provided == SHMEM_THREAD_MULTIPLE)
            test_threads(shmem_my_pe(), shmem_n_pes());
    } else if (strcmp(mode, "start_pes") == 0) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        start_pes(0);
        CHECK_EQ("_my_pe() vs shmem_my_pe()", shmem_my_pe(), _my_pe());
        CHECK_EQ("_num_pes() vs shmem_n_pes()", shmem_n_pes(), _num_pes());
#pragma GCC diagnostic pop
    } else {
        CHECK(singleton || strcmp(mode, "init") == 0,
              "mode expected init, thread=L, start_pes or singleton got '%s'", mode);
        shmem_init();
        int q = -1;
        shmem_query_thread(&q);
        CHECK(q >= SHMEM_THREAD_SINGLE && q <= SHMEM_THREAD_MULTIPLE,
              "shmem_query_thread after shmem_init expected a thread level got %d", q);
    }
    check_query(1, 0, "after init");
    check_info("after init");

    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (singleton) {
        CHECK(rank_s == NULL && size_s == NULL, "singleton mode expected no SYMM_RANK/SYMM_SIZE "
              "in the environment got %s/%s", rank_s ? rank_s : "-", size_s ? size_s : "-");
        CHECK_EQ("shmem_n_pes in a singleton", 1, npes);
        CHECK_EQ("shmem_my_pe in a singleton", 0, me);
    } else {
        CHECK(rank_s != NULL && size_s != NULL, "SYMM_RANK and SYMM_SIZE expected from oshrun got %s/%s",
              rank_s ? rank_s : "-", size_s ? size_s : "-");
        CHECK_EQ("shmem_n_pes vs SYMM_SIZE (the -np)", atoi(size_s), npes);
        CHECK_EQ("shmem_my_pe vs SYMM_RANK", atoi(rank_s), me);
    }
    CHECK(me >= 0 && me < npes, "shmem_my_pe expected in [0,%d) got %d", npes, me);

    /* Every rank exactly once: each PE puts rank+1 into slot `rank` on
     * PE 0, which finds every slot holding its own index + 1. */
    int *ranks = shmem_calloc((size_t)npes, sizeof(int));
    CHECK(ranks != NULL, "shmem_calloc expected memory got NULL");
    shmem_int_p(&ranks[me], me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 0; pe < npes; pe++)
            CHECK(ranks[pe] == pe + 1, "rank slot %d on PE 0 expected %d got %d", pe, pe + 1,
                  ranks[pe]);
    shmem_free(ranks);

    shmem_finalize();
    check_query(0, 1, "after finalize");
    check_info("after finalize");
    shmem_finalize(); /* harmless */
    check_query(0, 1, "after a second finalize");
    if (me == 0)
        printf("init %s: ok on %d PEs\n", mode, npes);
    return 0;
}
