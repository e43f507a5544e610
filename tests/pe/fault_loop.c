/*
 * fault_loop.c - a loop of every kind of blocking call, for killing PEs in
 * the middle of one (tests/scripts/kill_loop.sh, tests/faults.cmake).
 *
 * Each iteration: shmem_barrier_all, a broadcast on a team split from the
 * world (root rotating), fcollect, a sum reduction, a ring put-with-signal
 * and shmem_signal_wait_until, a reverse ring of atomic sets and
 * shmem_long_wait_until, and an increment of a counter on PE 0 under
 * shmem_set_lock. Before each call a PE sometimes dawdles (up to 0.5 ms),
 * and sometimes holds the lock up to 2 ms, so its peers really block in
 * each call. Every value is checked.
 *
 *   fault_loop shmem [OPTS]                  shmem_init (oshrun, mpirun + PMIx)
 *   fault_loop mpi [OPTS]                    MPI_Init, then shmem_init (built
 *                                            as fault_loop_mpi; SYMM_BOOTSTRAP=mpi)
 *   fault_loop default ME NP URL [OPTS]      aclshmem DEFAULT mode, no launcher
 *   fault_loop uid ME NP FILE [OPTS]         aclshmem UNIQUEID mode, the id in FILE
 *                                            (PE 0 writes it, the others read it)
 * OPTS:
 *   iters=N          N iterations, then finalize and exit 0 (default: until killed)
 *   exit=PE,MS,ST    PE calls exit(ST) at the first step after MS ms of looping,
 *                    printing "fault_loop: PE p exit(ST) at T" (T: CLOCK_REALTIME s)
 *
 * Once initialised and through a first barrier, every PE prints
 * "fault_loop: ready PE p pid P" on stdout, so a script knows whom to kill.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <aclshmem.h>
#include <shmem.h>
#ifdef FAULT_MPI
#include <mpi.h>
#endif

#define NELEMS 64

static int me, npes;
static long exit_after_ms = -1;
static int exit_pe = -1, exit_status = 3;
static struct timespec t0;
static unsigned seed;

#define FAILIF(cond, ...)                                                                   \
    do {                                                                                    \
        if (cond) {                                                                         \
            fprintf(stderr, "fault_loop: FAIL (PE %d, line %d): ", me, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
            shmem_global_exit(1);                                                           \
        }                                                                                   \
    } while (0)

static double now_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Before each call: maybe exit (the exit variant), maybe dawdle. */
static void step(void)
{
    if (me == exit_pe && exit_after_ms >= 0) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (ms >= exit_after_ms) {
            fprintf(stderr, "fault_loop: PE %d exit(%d) at %.6f\n", me, exit_status,
                    now_s(CLOCK_REALTIME));
            fflush(stderr);
            exit(exit_status);
        }
    }
    if (rand_r(&seed) % 8 == 0)
        usleep((useconds_t)(rand_r(&seed) % 500));
}

static int share_uid(aclshmemx_uniqueid_t *uid, const char *path, int rank)
{
    if (rank == 0) {
        char tmp[4096];
        if (aclshmemx_get_uniqueid(uid) != ACLSHMEM_SUCCESS)
            return -1;
        snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        if (f == NULL || fwrite(uid, sizeof(*uid), 1, f) != 1 || fclose(f) != 0)
            return -1;
        return rename(tmp, path);
    }
    for (int i = 0; i < 3000; i++) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            size_t got = fread(uid, sizeof(*uid), 1, f);
            fclose(f);
            if (got == 1)
                return 0;
        }
        usleep(10000);
    }
    return -1;
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s shmem|mpi [OPTS] | default ME NP URL [OPTS] | uid ME NP FILE [OPTS]\n"
            "  OPTS: iters=N exit=PE,MS,STATUS\n",
            prog);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage(argv[0]);
    const char *mode = argv[1];
    int a = 2, acl = 0;
    if (strcmp(mode, "default") == 0 || strcmp(mode, "uid") == 0) {
        if (argc < 5)
            usage(argv[0]);
        acl = 1;
        int rank = atoi(argv[2]), size = atoi(argv[3]);
        aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER;
        int rc;
        if (mode[0] == 'd') {
            attr.my_pe = rank;
            attr.n_pes = size;
            attr.local_mem_size = 64u << 20;
            attr.option_attr.shm_init_timeout = 30;
            snprintf(attr.ip_port, sizeof(attr.ip_port), "%s", argv[4]);
            rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &attr);
        } else {
            aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
            if (share_uid(&uid, argv[4], rank) != 0) {
                fprintf(stderr, "fault_loop: PE %d: no unique id in %s\n", rank, argv[4]);
                return 1;
            }
            rc = aclshmemx_set_attr_uniqueid_args(rank, size, 64 << 20, &uid, &attr);
            if (rc == ACLSHMEM_SUCCESS)
                rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr);
            if (rc == ACLSHMEM_SUCCESS && rank == 0)
                unlink(argv[4]);
        }
        if (rc != ACLSHMEM_SUCCESS) {
            fprintf(stderr, "fault_loop: PE %d: aclshmemx_init_attr failed: %d\n", rank, rc);
            return 1;
        }
        a = 5;
    } else if (strcmp(mode, "mpi") == 0) {
#ifdef FAULT_MPI
        MPI_Init(&argc, &argv);
        shmem_init();
#else
        fprintf(stderr, "fault_loop: mode mpi needs the MPI build (fault_loop_mpi)\n");
        return 2;
#endif
    } else if (strcmp(mode, "shmem") == 0) {
        shmem_init();
    } else {
        usage(argv[0]);
    }
    long iters = -1;
    for (; a < argc; a++) {
        if (strncmp(argv[a], "iters=", 6) == 0)
            iters = atol(argv[a] + 6);
        else if (strncmp(argv[a], "exit=", 5) == 0 &&
                 sscanf(argv[a] + 5, "%d,%ld,%d", &exit_pe, &exit_after_ms, &exit_status) == 3)
            ;
        else
            usage(argv[0]);
    }

    /* The OpenSHMEM API on either kind of instance (aclshmem's is current). */
    me = shmem_my_pe();
    npes = shmem_n_pes();
    seed = (unsigned)(me * 7919 + getpid());
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_team_t team;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team) != 0) {
        fprintf(stderr, "fault_loop: team split failed (PE %d)\n", me);
        shmem_global_exit(1);
    }
    long *bsrc = shmem_calloc(NELEMS, sizeof(long)), *bdst = shmem_calloc(NELEMS, sizeof(long));
    long *fsrc = shmem_calloc(NELEMS, sizeof(long));
    long *fdst = shmem_calloc((size_t)npes * NELEMS, sizeof(long));
    long *rsrc = shmem_calloc(NELEMS, sizeof(long)), *rdst = shmem_calloc(NELEMS, sizeof(long));
    long *ring = shmem_calloc(1, sizeof(long)), *flag = shmem_calloc(1, sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long *lock = shmem_calloc(1, sizeof(long)), *counter = shmem_calloc(1, sizeof(long));
    FAILIF(bsrc == NULL || bdst == NULL || fsrc == NULL || fdst == NULL || rsrc == NULL ||
               rdst == NULL || ring == NULL || flag == NULL || sig == NULL || lock == NULL ||
               counter == NULL,
           "shmem_calloc failed");
    shmem_barrier_all();
    printf("fault_loop: ready PE %d pid %d\n", me, (int)getpid());
    fflush(stdout);
    clock_gettime(CLOCK_MONOTONIC, &t0);

    for (long it = 1; iters < 0 || it <= iters; it++) {
        step();
        shmem_barrier_all();

        int root = (int)(it % npes);
        for (int i = 0; i < NELEMS; i++)
            bsrc[i] = it * 1000 + root * 100 + i;
        step();
        shmem_long_broadcast(team, bdst, bsrc, NELEMS, root);
        FAILIF(bdst[NELEMS - 1] != it * 1000 + root * 100 + NELEMS - 1,
               "broadcast: %ld, expected %ld", bdst[NELEMS - 1], it * 1000 + root * 100 + 63);

        for (int i = 0; i < NELEMS; i++)
            fsrc[i] = it * 1000 + me * 100 + i;
        step();
        shmem_long_fcollect(SHMEM_TEAM_WORLD, fdst, fsrc, NELEMS);
        for (int pe = 0; pe < npes; pe++)
            FAILIF(fdst[pe * NELEMS + 3] != it * 1000 + pe * 100 + 3,
                   "fcollect from PE %d: %ld", pe, fdst[pe * NELEMS + 3]);

        for (int i = 0; i < NELEMS; i++)
            rsrc[i] = me + i;
        step();
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, rdst, rsrc, NELEMS);
        FAILIF(rdst[5] != (long)npes * (npes - 1) / 2 + 5L * npes, "sum: %ld", rdst[5]);

        long v = it * 10 + me;
        step();
        shmem_long_put_signal(ring, &v, 1, sig, (uint64_t)it, SHMEM_SIGNAL_SET, right);
        shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)it);
        FAILIF(*ring != it * 10 + left, "ring: %ld, expected %ld", *ring, it * 10 + left);

        step();
        shmem_long_atomic_set(flag, it, left);
        shmem_long_wait_until(flag, SHMEM_CMP_GE, it);

        step();
        shmem_set_lock(lock);
        if (rand_r(&seed) % 4 == 0) /* hold it a while: peers queue in set_lock */
            usleep((useconds_t)(rand_r(&seed) % 2000));
        long c = shmem_long_g(counter, 0);
        shmem_long_p(counter, c + 1, 0);
        shmem_quiet();
        shmem_clear_lock(lock);
    }

    shmem_barrier_all();
    if (me == 0 && *counter != iters * npes) {
        fprintf(stderr, "fault_loop: FAIL: lock counter %ld, expected %ld\n", *counter,
                iters * npes);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("fault_loop: %ld iterations on %d PEs ok\n", iters, npes);
    shmem_team_destroy(team);
    if (acl) {
        aclshmem_finalize();
    } else {
        shmem_finalize();
#ifdef FAULT_MPI
        MPI_Finalize();
#endif
    }
    return 0;
}
