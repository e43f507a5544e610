/*
 * acl_host.c - the aclshmem host API, from a file that includes aclshmem.h
 * and nothing of OpenSHMEM. Runs under oshrun at 1, 2 and 4 PEs, but starts
 * every aclshmem job itself in unique-id mode: the PE that is PE 0 of the job
 * writes its id to a file, the others read it; SYMM_RANK and SYMM_SIZE only
 * tell a process its rank and the job size (the launcher's bootstrap is not
 * used). argv[1] names the part:
 *   basic      queries, heap, setup errors, finalize
 *   rma        typed (11 types), sized and mem put/get/p/g/iput/iget, nbi
 *   allgather  CANN's allgather demo: every PE writes its slice to every PE
 *   signal     put-with-signal producer/consumer on int32 signals, SET, ADD
 *   p2p        wait/test families of 10 types; ACLSHMEM_CMP_GE/LE mapping
 *   team       split_strided, split_2d, team barrier/sync, translate, config
 *   instances  two instances (two unique ids, ranks reversed in the second)
 *              in every process: allocation, puts, isolation, switching
 *   coll       team collectives on aclshmem_team_t (world, the even PEs, the
 *              rows of a 2d split): broadcast, fcollect, team_all_gather,
 *              collect, alltoall(s), and/or/xor/max/min/sum/prod reductions,
 *              typed and mem forms, each value computed from the layout
 *   order      host aclshmemx_signal_op (SET, ADD), aclshmem_fence between
 *              data and signal, aclshmem_quiet before a sync
 *   tamper     (2 PEs) PE 1 presents an id with another secret: refused
 *   stale      (1 process) an id nobody serves: times out naming PE 0
 *   leak       two blocks left at finalize (SHMEM_DEBUG's listing: debug.cmake)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <aclshmem.h>

static int g_rank, g_size;

static void fail(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fail(int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL: %s (rank %d, PE %d) [acl_host.c:%d]\n", msg, g_rank, aclshmem_my_pe(),
            line);
    fflush(stderr);
    if (aclshmemx_init_status() == ACLSHMEM_STATUS_IS_INITIALIZED)
        aclshmem_global_exit(1);
    exit(1);
}

#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond))                                                                        \
            fail(__LINE__, __VA_ARGS__);                                                    \
    } while (0)
#define CHECK_EQ(what, expected, got)                                                       \
    do {                                                                                    \
        long long e_ = (long long)(expected), g_ = (long long)(got);                        \
        if (e_ != g_)                                                                       \
            fail(__LINE__, "%s: expected %lld got %lld", (what), e_, g_);                   \
    } while (0)

/* ---- starting a job in unique-id mode ------------------------------------- */

static void uid_path(char *buf, size_t cap, const char *tag)
{
    const char *dir = getenv("TMPDIR"), *sec = getenv("SYMM_JOB_SECRET");
    unsigned long h = 5381;
    for (const char *p = sec ? sec : ""; *p; p++)
        h = h * 33 + (unsigned char)*p;
    snprintf(buf, cap, "%s/symm-acl-%ld-%lx-%s.uid", dir && *dir ? dir : "/tmp",
             (long)getppid(), h, tag);
}

/* The id of the job: made by rank root, handed to the others in a file. */
static void uid_share(aclshmemx_uniqueid_t *uid, int root, const char *tag)
{
    char path[512], tmp[600];
    uid_path(path, sizeof(path), tag);
    if (g_rank == root) {
        CHECK_EQ("aclshmemx_get_uniqueid", ACLSHMEM_SUCCESS, aclshmemx_get_uniqueid(uid));
        snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        CHECK(f != NULL && fwrite(uid, sizeof(*uid), 1, f) == 1 && fclose(f) == 0,
              "cannot write %s", tmp);
        CHECK(rename(tmp, path) == 0, "cannot rename %s", tmp);
        return;
    }
    for (int i = 0; i < 6000; i++) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            size_t got = fread(uid, sizeof(*uid), 1, f);
            fclose(f);
            if (got == 1)
                return;
        }
        usleep(5000);
    }
    fail(__LINE__, "no unique id in %s after 30 s", path);
}

/* Join instance id as my_pe, the job's PE 0 being rank root. */
static void acl_start(uint64_t id, int my_pe, int root, const char *tag, int64_t heap)
{
    aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
    aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    char path[512];
    uid_share(&uid, root, tag);
    CHECK_EQ("set_attr_uniqueid_args", ACLSHMEM_SUCCESS,
             aclshmemx_set_attr_uniqueid_args(my_pe, g_size, heap, &uid, &attr));
    CHECK(attr.comm_args == &uid && attr.my_pe == my_pe && attr.n_pes == g_size,
          "attributes not filled");
    attr.instance_id = id;
    attr.option_attr.shm_init_timeout = 30;
    CHECK_EQ("aclshmemx_init_attr", ACLSHMEM_SUCCESS,
             aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr));
    if (g_rank == root) {
        uid_path(path, sizeof(path), tag);
        unlink(path); /* every PE has joined: it read the file */
    }
}

/* ---- basic ------------------------------------------------------------------ */

static int logged_level = -1;
static char logged[512];

static void logger(int level, const char *msg)
{
    logged_level = level;
    snprintf(logged, sizeof(logged), "%s", msg);
}

static void part_basic(void)
{
    aclshmemx_init_attr_t bad = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    aclshmemx_uniqueid_t junk = ACLSHMEM_UNIQUEID_INITIALIZER;
    char name[ACLSHMEM_MAX_NAME_LEN] = "";
    int major = 0, minor = 0, rc;

    CHECK_EQ("status before init", ACLSHMEM_STATUS_NOT_INITIALIZED, aclshmemx_init_status());
    CHECK_EQ("my_pe before init", -1, aclshmem_my_pe());
    CHECK_EQ("n_pes before init", -1, aclshmem_n_pes());
    CHECK(aclshmemx_instance_ctx_get() == NULL, "a current instance before init");
    CHECK(aclshmemx_get_heap_base(DEVICE_SIDE) == NULL, "a heap before init");

    /* Setup errors, all local and immediate. */
    CHECK_EQ("init NULL", ACLSHMEM_INVALID_PARAM,
             aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, NULL));
    bad.n_pes = 2;
    bad.my_pe = 5;
    CHECK_EQ("my_pe >= n_pes", ACLSHMEM_INVALID_PARAM,
             aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &bad));
    bad.my_pe = 0;
    bad.n_pes = 1;
    /* An engine bit CANN does not name (0x40): refused before any start. */
    bad.option_attr.data_op_engine_type = (data_op_engine_type_t)0x40;
    CHECK_EQ("engine 0x40", ACLSHMEM_INVALID_PARAM,
             aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &bad));
    bad.option_attr.data_op_engine_type = ACLSHMEM_DATA_OP_MTE;
    CHECK_EQ("no mode", ACLSHMEM_INVALID_PARAM, aclshmemx_init_attr((aclshmemx_bootstrap_t)0, &bad));
    rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &bad);
    CHECK(rc == ACLSHMEM_NOT_SUPPORTED || rc == ACLSHMEM_INVALID_PARAM,
          "MPI mode without a communicator: %d", rc);
    static const char *const bad_urls[] = {"", "udp://127.0.0.1:5000", "tcp://127.0.0.1",
                                           "tcp://127.0.0.1:99999", "tcp6://::1:5000",
                                           "tcp://127.0.0.1:0"};
    unsetenv("SHMEM_INSTANCE_PORT_RANGE");
    for (size_t i = 0; i < sizeof(bad_urls) / sizeof(bad_urls[0]); i++) {
        snprintf(bad.ip_port, sizeof(bad.ip_port), "%s", bad_urls[i]);
        CHECK_EQ(bad_urls[i], ACLSHMEM_INVALID_PARAM,
                 aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &bad));
    }
    CHECK_EQ("uid NULL", ACLSHMEM_INVALID_PARAM, aclshmemx_get_uniqueid(NULL));
    CHECK_EQ("a zeroed uid", ACLSHMEM_INVALID_PARAM,
             aclshmemx_set_attr_uniqueid_args(0, 1, 0, &junk, &bad));
    CHECK_EQ("uid mode without uid", ACLSHMEM_INVALID_PARAM,
             aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &bad));
    CHECK_EQ("log level 7", ACLSHMEM_INVALID_PARAM, aclshmemx_set_log_level(7));
    CHECK_EQ("log level warn", ACLSHMEM_SUCCESS, aclshmemx_set_log_level(2));
    CHECK_EQ("extern logger", ACLSHMEM_SUCCESS, aclshmemx_set_extern_logger(logger));
    CHECK_EQ("ctx_set unknown", ACLSHMEM_INVALID_PARAM, aclshmemx_instance_ctx_set(99));
    CHECK(logged_level == 3 && strstr(logged, "no instance 99") != NULL,
          "the logger got level %d '%s'", logged_level, logged);
    CHECK_EQ("logger off", ACLSHMEM_SUCCESS, aclshmemx_set_extern_logger(NULL));
    CHECK_EQ("finalize unknown", ACLSHMEM_INVALID_PARAM, aclshmemx_finalize(99));
    CHECK_EQ("finalize before init", ACLSHMEM_SUCCESS, aclshmem_finalize());

    acl_start(0, g_rank, 0, "basic", 64 << 20);
    CHECK_EQ("status", ACLSHMEM_STATUS_IS_INITIALIZED, aclshmemx_init_status());
    CHECK_EQ("my_pe", g_rank, aclshmem_my_pe());
    CHECK_EQ("n_pes", g_size, aclshmem_n_pes());
    aclshmem_instance_ctx *ctx = aclshmemx_instance_ctx_get();
    CHECK(ctx != NULL && ctx->id == 0 && ctx->instance != NULL, "instance context");
    aclshmem_info_get_version(&major, &minor);
    CHECK(major == ACLSHMEM_MAJOR_VERSION && minor == ACLSHMEM_MINOR_VERSION, "version %d.%d",
          major, minor);
    aclshmem_info_get_name(name);
    CHECK(name[0] != '\0', "empty vendor name");

    char *base = (char *)aclshmemx_get_heap_base(DEVICE_SIDE);
    CHECK(base != NULL && base == aclshmemx_get_heap_base(HOST_SIDE), "heap base");
    char *p = (char *)aclshmem_malloc(1000);
    CHECK(p != NULL && p >= base && p + 1000 <= base + (64 << 20), "malloc %p base %p",
          (void *)p, (void *)base);
    CHECK(aclshmem_ptr(p, g_rank) == p, "aclshmem_ptr to myself");
    for (int pe = 0; pe < g_size; pe++)
        CHECK(aclshmem_ptr(p, pe) != NULL, "node-local PE %d not mapped", pe);
    CHECK(aclshmem_ptr(p, g_size) == NULL, "aclshmem_ptr to PE n_pes");
    int64_t *z = (int64_t *)aclshmem_calloc(100, sizeof(int64_t));
    for (int i = 0; i < 100; i++)
        CHECK_EQ("calloc", 0, z[i]);
    void *al = aclshmem_align(4096, 100);
    CHECK(al != NULL && ((uintptr_t)al & 4095) == 0, "align");
    CHECK(aclshmem_align(3, 100) == NULL, "align 3");
    void *hx = aclshmemx_malloc(256, HOST_SIDE);
    int32_t *cx = (int32_t *)aclshmemx_calloc(8, 4, DEVICE_SIDE);
    void *ax = aclshmemx_align(256, 64, DEVICE_SIDE);
    CHECK(hx && cx && ax && cx[7] == 0 && ((uintptr_t)ax & 255) == 0, "aclshmemx_ allocation");
    aclshmemx_free(ax, DEVICE_SIDE);
    aclshmemx_free(cx, DEVICE_SIDE);
    aclshmemx_free(hx, HOST_SIDE);
    aclshmem_free(al);
    aclshmem_free(z);
    aclshmem_free(p);
    aclshmem_free(NULL);

    CHECK_EQ("world team my_pe", g_rank, aclshmem_team_my_pe(ACLSHMEM_TEAM_WORLD));
    CHECK_EQ("world team n_pes", g_size, aclshmem_team_n_pes(ACLSHMEM_TEAM_WORLD));
    /* The same instance id again: made current, not created twice. */
    aclshmemx_init_attr_t again = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    again.n_pes = g_size;
    again.my_pe = g_rank;
    CHECK_EQ("init twice", ACLSHMEM_SUCCESS, aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &again));
    aclshmem_barrier_all();
    aclshmem_sync_all();
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
    CHECK_EQ("status after", ACLSHMEM_STATUS_NOT_INITIALIZED, aclshmemx_init_status());
    CHECK_EQ("my_pe after", -1, aclshmem_my_pe());
    CHECK_EQ("finalize twice", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* ---- rma -------------------------------------------------------------------- */

#define RMA_N 16
#define RMA_TYPES(X)                                                                        \
    X(float, float) X(double, double) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t)   \
    X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t)             \
    X(uint64, uint64_t) X(char, char)

#define RMA_TEST(N, T)                                                                      \
    static void rma_##N(int me, int n)                                                      \
    {                                                                                       \
        int right = (me + 1) % n, left = (me + n - 1) % n;                                  \
        T *d = (T *)aclshmem_calloc(4 * RMA_N, sizeof(T));                                  \
        T src[RMA_N], got[RMA_N];                                                           \
        for (int i = 0; i < RMA_N; i++)                                                     \
            src[i] = (T)(me * 3 + i + 1);                                                   \
        aclshmem_##N##_put(d, src, RMA_N, right);                                           \
        aclshmem_##N##_put_nbi(d + RMA_N, src, RMA_N, right);                               \
        aclshmem_##N##_p(&d[2 * RMA_N], (T)(me + 7), right);                                \
        aclshmem_##N##_iput(d + 3 * RMA_N, src, 2, 1, RMA_N / 2, right);                    \
        aclshmem_barrier_all();                                                             \
        for (int i = 0; i < RMA_N; i++) {                                                   \
            CHECK_EQ(#N " put", left * 3 + i + 1, d[i]);                                    \
            CHECK_EQ(#N " put_nbi", left * 3 + i + 1, d[RMA_N + i]);                        \
        }                                                                                   \
        CHECK_EQ(#N " p", left + 7, d[2 * RMA_N]);                                          \
        for (int k = 0; k < RMA_N / 2; k++) {                                               \
            CHECK_EQ(#N " iput", left * 3 + k + 1, d[3 * RMA_N + 2 * k]);                   \
            CHECK_EQ(#N " iput gap", 0, d[3 * RMA_N + 2 * k + 1]);                          \
        }                                                                                   \
        memset(got, 0, sizeof(got));                                                        \
        aclshmem_##N##_get(got, d, RMA_N, right);                                           \
        for (int i = 0; i < RMA_N; i++)                                                     \
            CHECK_EQ(#N " get", me * 3 + i + 1, got[i]);                                    \
        memset(got, 0, sizeof(got));                                                        \
        aclshmem_##N##_get_nbi(got, d + RMA_N, RMA_N, right);                               \
        aclshmem_barrier_all();                                                             \
        for (int i = 0; i < RMA_N; i++)                                                     \
            CHECK_EQ(#N " get_nbi", me * 3 + i + 1, got[i]);                                \
        CHECK_EQ(#N " g", me + 7, aclshmem_##N##_g(&d[2 * RMA_N], right));                  \
        memset(got, 0, sizeof(got));                                                        \
        aclshmem_##N##_iget(got, d + 3 * RMA_N, 1, 2, RMA_N / 2, right);                    \
        for (int k = 0; k < RMA_N / 2; k++)                                                 \
            CHECK_EQ(#N " iget", me * 3 + k + 1, got[k]);                                   \
        aclshmem_barrier_all();                                                             \
        aclshmem_free(d);                                                                   \
    }
RMA_TYPES(RMA_TEST)

#define SIZED_TEST(BITS)                                                                    \
    static void sized_##BITS(int me, int n)                                                 \
    {                                                                                       \
        enum { B = (BITS) / 8, E = 6 };                                                     \
        int right = (me + 1) % n, left = (me + n - 1) % n;                                  \
        unsigned char *d = (unsigned char *)aclshmem_calloc(4 * E, B);                      \
        unsigned char src[E * B], got[2 * E * B];                                           \
        for (int i = 0; i < E * B; i++)                                                     \
            src[i] = (unsigned char)(me * 50 + i);                                          \
        aclshmem_put##BITS(d, src, E, right);                                               \
        aclshmem_put##BITS##_nbi(d + E * B, src, E, right);                                 \
        aclshmem_iput##BITS(d + 2 * E * B, src, 2, 1, E / 2, right);                        \
        aclshmem_barrier_all();                                                             \
        for (int i = 0; i < E * B; i++) {                                                   \
            CHECK_EQ("put" #BITS, (unsigned char)(left * 50 + i), d[i]);                    \
            CHECK_EQ("put" #BITS "_nbi", (unsigned char)(left * 50 + i), d[E * B + i]);     \
        }                                                                                   \
        for (int k = 0; k < E / 2; k++)                                                     \
            for (int b = 0; b < B; b++) {                                                   \
                CHECK_EQ("iput" #BITS, (unsigned char)(left * 50 + k * B + b),              \
                         d[2 * E * B + 2 * k * B + b]);                                     \
                CHECK_EQ("iput" #BITS " gap", 0, d[2 * E * B + (2 * k + 1) * B + b]);       \
            }                                                                               \
        memset(got, 0, sizeof(got));                                                        \
        aclshmem_get##BITS(got, d, E, right);                                               \
        aclshmem_get##BITS##_nbi(got + E * B, d + E * B, E, right);                         \
        aclshmem_barrier_all();                                                             \
        for (int i = 0; i < 2 * E * B; i++)                                                 \
            CHECK_EQ("get" #BITS, (unsigned char)(me * 50 + i % (E * B)), got[i]);          \
        memset(got, 0, sizeof(got));                                                        \
        aclshmem_iget##BITS(got, d + 2 * E * B, 1, 2, E / 2, right);                        \
        for (int i = 0; i < E / 2 * B; i++)                                                 \
            CHECK_EQ("iget" #BITS, (unsigned char)(me * 50 + i), got[i]);                   \
        aclshmem_barrier_all();                                                             \
        aclshmem_free(d);                                                                   \
    }
SIZED_TEST(8)
SIZED_TEST(16)
SIZED_TEST(32)
SIZED_TEST(64)
SIZED_TEST(128)

static void part_rma(void)
{
    acl_start(0, g_rank, 0, "rma", 32 << 20);
    int me = aclshmem_my_pe(), n = aclshmem_n_pes();
#define RMA_CALL(N, T) rma_##N(me, n);
    RMA_TYPES(RMA_CALL)
    sized_8(me, n);
    sized_16(me, n);
    sized_32(me, n);
    sized_64(me, n);
    sized_128(me, n);

    int right = (me + 1) % n, left = (me + n - 1) % n;
    char *buf = (char *)aclshmem_calloc(2, 4096);
    char src[4096], got[4096];
    for (int i = 0; i < 4096; i++)
        src[i] = (char)(me + i);
    aclshmem_putmem(buf, src, 4096, right);
    aclshmem_putmem_nbi(buf + 4096, src, 100, right);
    aclshmem_barrier_all();
    for (int i = 0; i < 4096; i++)
        CHECK_EQ("putmem", (char)(left + i), buf[i]);
    for (int i = 0; i < 100; i++)
        CHECK_EQ("putmem_nbi", (char)(left + i), buf[4096 + i]);
    aclshmem_getmem(got, buf, 4096, left);
    for (int i = 0; i < 4096; i++)
        CHECK_EQ("getmem", (char)((left + n - 1) % n + i), got[i]);
    aclshmem_getmem_nbi(got, buf + 4096, 100, right);
    aclshmem_barrier_all();
    for (int i = 0; i < 100; i++)
        CHECK_EQ("getmem_nbi", (char)(me + i), got[i]);
    aclshmem_free(buf);
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* ---- allgather (CANN's host demo) --------------------------------------------- */

#define AG_CHUNK 1024

static void part_allgather(void)
{
    acl_start(0, g_rank, 0, "allgather", 16 << 20);
    int me = aclshmem_my_pe(), n = aclshmem_n_pes();
    int32_t *gather = (int32_t *)aclshmem_calloc((size_t)n * AG_CHUNK, sizeof(int32_t));
    int32_t mine[AG_CHUNK];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < AG_CHUNK; i++)
            mine[i] = round * 1000000 + me * 10000 + i;
        /* Every PE writes its slice into every PE's gather buffer. */
        for (int k = 0; k < n; k++) {
            int pe = (me + k) % n;
            if (round == 0)
                aclshmem_int32_put(gather + me * AG_CHUNK, mine, AG_CHUNK, pe);
            else if (round == 1)
                aclshmem_putmem_nbi(gather + me * AG_CHUNK, mine, sizeof(mine), pe);
            else
                aclshmem_put32(gather + me * AG_CHUNK, mine, AG_CHUNK, pe);
        }
        aclshmem_barrier_all();
        for (int pe = 0; pe < n; pe++)
            for (int i = 0; i < AG_CHUNK; i++)
                CHECK_EQ("gathered", round * 1000000 + pe * 10000 + i,
                         gather[pe * AG_CHUNK + i]);
        aclshmem_barrier_all(); /* nobody overwrites a slice still being checked */
    }
    if (me == 0)
        printf("allgather of %d x %d int32 on %d PEs: ok\n", n, AG_CHUNK, n);
    aclshmem_free(gather);
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* SHMEM_DEBUG's leak listing at aclshmem_finalize (tests/debug.cmake): a
 * 300-byte and a 40-byte block are left allocated, a third is freed. */
static void part_leak(void)
{
    acl_start(0, g_rank, 0, "leak", 16 << 20);
    void *kept = aclshmem_malloc(300);
    void *gone = aclshmem_calloc(10, 7);
    void *aligned = aclshmem_align(128, 40);
    CHECK(kept != NULL && gone != NULL && aligned != NULL, "leak part's blocks");
    aclshmem_free(gone);
    if (aclshmem_my_pe() == 0)
        printf("leak: 2 blocks left\n");
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* ---- put-with-signal ------------------------------------------------------------ */

#define SIG_CH 256
#define SIG_ROUNDS 64

static void part_signal(void)
{
    acl_start(0, g_rank, 0, "signal", 16 << 20);
    int me = aclshmem_my_pe(), n = aclshmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int32_t *sig = (int32_t *)aclshmem_calloc(4, sizeof(int32_t)); /* ready, ack, add, add */
    int64_t *data = (int64_t *)aclshmem_calloc(SIG_CH, sizeof(int64_t));
    int32_t *slots = (int32_t *)aclshmem_calloc((size_t)n * 2, sizeof(int32_t));
    int64_t msg[SIG_CH];

    /* Producer/consumer around the ring: round k's data, then signal k; the
     * consumer checks and acknowledges before the producer sends round k+1. */
    for (int k = 1; k <= SIG_ROUNDS; k++) {
        aclshmem_int32_wait_until(&sig[1], ACLSHMEM_CMP_GE, k - 1);
        for (int i = 0; i < SIG_CH; i++)
            msg[i] = (int64_t)me * 100000 + k * 100 + i;
        switch (k % 6) {
        case 0: aclshmem_int64_put_signal(data, msg, SIG_CH, (uint8_t *)&sig[0], k,
                                          ACLSHMEM_SIGNAL_SET, right); break;
        case 1: aclshmem_put64_signal(data, msg, SIG_CH, &sig[0], k, ACLSHMEM_SIGNAL_SET, right);
            break;
        case 2: aclshmemx_putmem_signal(data, msg, sizeof(msg), &sig[0], k, ACLSHMEM_SIGNAL_SET,
                                        right); break;
        case 3: aclshmemx_putmem_signal_nbi(data, msg, sizeof(msg), &sig[0], k,
                                            ACLSHMEM_SIGNAL_SET, right); break;
        case 4: aclshmem_put64_signal_nbi(data, msg, SIG_CH, &sig[0], k, ACLSHMEM_SIGNAL_SET,
                                          right); break;
        default: aclshmem_uint64_put_signal_nbi((uint64_t *)data, (uint64_t *)msg, SIG_CH,
                                                (uint8_t *)&sig[0], k, ACLSHMEM_SIGNAL_SET,
                                                right); break;
        }
        aclshmem_signal_wait_until(&sig[0], ACLSHMEM_CMP_GE, k);
        CHECK_EQ("signal value", k, sig[0]);
        for (int i = 0; i < SIG_CH; i++)
            CHECK_EQ("data under the signal", (int64_t)left * 100000 + k * 100 + i, data[i]);
        aclshmem_int32_p(&sig[1], k, left);
    }
    aclshmem_barrier_all();

    /* ADD: every PE adds 1 to every PE's counter along with its slot. */
    int32_t one = me + 1;
    for (int k = 0; k < n; k++) {
        int pe = (me + k) % n;
        if (k % 2)
            aclshmem_put32_signal(&slots[me], &one, 1, &sig[2], 1, ACLSHMEM_SIGNAL_ADD, pe);
        else
            aclshmem_int32_put_signal(&slots[me], &one, 1, (uint8_t *)&sig[2], 1,
                                      ACLSHMEM_SIGNAL_ADD, pe);
        aclshmem_uint32_put_signal_nbi((uint32_t *)&slots[n + me], (uint32_t *)&one, 1,
                                       (uint8_t *)&sig[3], 2, ACLSHMEM_SIGNAL_ADD, pe);
    }
    aclshmem_signal_wait_until(&sig[2], ACLSHMEM_CMP_EQ, n);
    for (int pe = 0; pe < n; pe++)
        CHECK_EQ("slot under an ADD signal", pe + 1, slots[pe]);
    aclshmem_signal_wait_until(&sig[3], ACLSHMEM_CMP_GE, 2 * n);
    aclshmem_signal_wait_until(&sig[3], ACLSHMEM_CMP_LE, 2 * n); /* GE/LE: CANN's values */
    aclshmem_signal_wait_until(&sig[3], ACLSHMEM_CMP_GT, 2 * n - 1);
    aclshmem_signal_wait_until(&sig[3], ACLSHMEM_CMP_LT, 2 * n + 1);
    aclshmem_signal_wait_until(&sig[3], ACLSHMEM_CMP_NE, 0);
    for (int pe = 0; pe < n; pe++)
        CHECK_EQ("slot under an nbi ADD signal", pe + 1, slots[n + pe]);
    aclshmem_barrier_all();
    aclshmem_free(slots);
    aclshmem_free(data);
    aclshmem_free(sig);
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* ---- point-to-point synchronization --------------------------------------------- */

#define P2P_TYPES(X)                                                                        \
    X(float, float) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)   \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t)           \
    X(char, char)

#define P2P_TEST(N, T)                                                                      \
    static void p2p_##N(int me, int n)                                                      \
    {                                                                                       \
        T *v = (T *)aclshmem_calloc(8, sizeof(T));                                          \
        int r;                                                                              \
        size_t res, idx[4];                                                                 \
        v[0] = 5;                                                                           \
        /* CANN's comparison values: GE is 3, LE is 5. */                                   \
        static const struct { int cmp, x, want; } t[] = {                                   \
            {ACLSHMEM_CMP_GE, 5, 1}, {ACLSHMEM_CMP_GE, 6, 0}, {ACLSHMEM_CMP_LE, 5, 1},      \
            {ACLSHMEM_CMP_LE, 4, 0}, {ACLSHMEM_CMP_GT, 4, 1}, {ACLSHMEM_CMP_GT, 5, 0},      \
            {ACLSHMEM_CMP_LT, 6, 1}, {ACLSHMEM_CMP_LT, 5, 0}, {ACLSHMEM_CMP_EQ, 5, 1},      \
            {ACLSHMEM_CMP_NE, 5, 0}, {3, 4, 1}, {5, 4, 0}};                                 \
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {                            \
            r = -1;                                                                         \
            aclshmem_##N##_test(v, t[i].cmp, (T)t[i].x, &r);                                \
            if (r != t[i].want)                                                             \
                fail(__LINE__, #N "_test(5 cmp %d %d) = %d", t[i].cmp, t[i].x, r);          \
        }                                                                                   \
        aclshmem_##N##_wait_until(v, ACLSHMEM_CMP_GE, (T)5);                                \
        aclshmem_##N##_wait_until(v, ACLSHMEM_CMP_LE, (T)5);                                \
        aclshmem_##N##_wait(v, (T)4);                                                       \
        T four[4] = {1, 2, 3, 4};                                                           \
        memcpy(v, four, sizeof(four));                                                      \
        int st[4] = {0, 0, 1, 0}, none[4] = {1, 1, 1, 1};                                   \
        aclshmem_##N##_test_any(v, 4, st, ACLSHMEM_CMP_GE, (T)3, &res);                     \
        CHECK_EQ(#N "_test_any", 3, res);                                                   \
        aclshmem_##N##_test_any(v, 4, none, ACLSHMEM_CMP_GE, (T)0, &res);                   \
        CHECK(res == (size_t)-1, #N "_test_any of nothing: %zu", res);                      \
        aclshmem_##N##_test_some(v, 4, idx, st, ACLSHMEM_CMP_LE, (T)2, &res);               \
        CHECK(res == 2 && idx[0] == 0 && idx[1] == 1, #N "_test_some %zu", res);            \
        T c1[4] = {1, 2, 3, 4}, c2[4] = {1, 2, 3, 5}, c3[4] = {9, 9, 3, 4};                 \
        T c4[4] = {1, 1, 3, 3}, c5[4] = {9, 9, 9, 4}, c6[4] = {1, 9, 3, 9};                 \
        aclshmem_##N##_test_all_vector(v, 4, NULL, ACLSHMEM_CMP_GE, c1, &r);                \
        CHECK_EQ(#N "_test_all_vector", 1, r);                                              \
        aclshmem_##N##_test_all_vector(v, 4, NULL, ACLSHMEM_CMP_GE, c2, &r);                \
        CHECK_EQ(#N "_test_all_vector (one short)", 0, r);                                  \
        aclshmem_##N##_test_any_vector(v, 4, st, ACLSHMEM_CMP_EQ, c3, &res);                \
        CHECK_EQ(#N "_test_any_vector", 3, res);                                            \
        aclshmem_##N##_test_some_vector(v, 4, idx, NULL, ACLSHMEM_CMP_LE, c4, &res);        \
        CHECK(res == 2 && idx[0] == 0 && idx[1] == 2, #N "_test_some_vector %zu", res);     \
        aclshmem_##N##_wait_until_all(v, 4, st, ACLSHMEM_CMP_GE, (T)1);                     \
        aclshmem_##N##_wait_until_any(v, 4, st, ACLSHMEM_CMP_GE, (T)4, &res);               \
        CHECK_EQ(#N "_wait_until_any", 3, res);                                             \
        aclshmem_##N##_wait_until_any(v, 4, none, ACLSHMEM_CMP_GE, (T)4, &res);             \
        CHECK(res == (size_t)-1, #N "_wait_until_any of nothing: %zu", res);                \
        aclshmem_##N##_wait_until_some(v, 4, idx, NULL, ACLSHMEM_CMP_LE, (T)2, &res);       \
        CHECK_EQ(#N "_wait_until_some", 2, res);                                            \
        aclshmem_##N##_wait_until_all_vector(v, 4, NULL, ACLSHMEM_CMP_LE, c1);              \
        aclshmem_##N##_wait_until_any_vector(v, 4, NULL, ACLSHMEM_CMP_GE, c5, &res);        \
        CHECK_EQ(#N "_wait_until_any_vector", 3, res);                                      \
        aclshmem_##N##_wait_until_some_vector(v, 4, idx, NULL, ACLSHMEM_CMP_GE, c6, &res);  \
        CHECK(res == 2 && idx[0] == 0 && idx[1] == 2, #N "_wait_until_some_vector %zu", res); \
        /* Across PEs: the left neighbour raises v[4] and lowers v[5]. */                   \
        v[4] = 0;                                                                           \
        v[5] = 9;                                                                           \
        aclshmem_barrier_all();                                                             \
        aclshmem_##N##_p(&v[4], (T)3, (me + 1) % n);                                        \
        aclshmem_##N##_p(&v[5], (T)1, (me + 1) % n);                                        \
        aclshmem_##N##_wait_until(&v[4], ACLSHMEM_CMP_GE, (T)3);                            \
        aclshmem_##N##_wait_until(&v[5], ACLSHMEM_CMP_LE, (T)1);                            \
        aclshmem_barrier_all();                                                             \
        aclshmem_free(v);                                                                   \
    }
P2P_TYPES(P2P_TEST)

static void part_p2p(void)
{
    acl_start(0, g_rank, 0, "p2p", 16 << 20);
    int me = aclshmem_my_pe(), n = aclshmem_n_pes();
#define P2P_CALL(N, T) p2p_##N(me, n);
    P2P_TYPES(P2P_CALL)
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* ---- teams ------------------------------------------------------------------------ */

static void part_team(void)
{
    acl_start(0, g_rank, 0, "team", 16 << 20);
    int me = aclshmem_my_pe(), n = aclshmem_n_pes();
    aclshmem_team_t even = -7, x = -7, y = -7;
    aclshmem_team_config_t cfg;
    int32_t *box = (int32_t *)aclshmem_calloc(4, sizeof(int32_t));

    for (int round = 0; round < 3; round++) {
        CHECK_EQ("split_strided", ACLSHMEM_SUCCESS,
                 aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &even));
        if (me % 2) {
            CHECK_EQ("odd PE in the even team", ACLSHMEM_TEAM_INVALID, even);
            CHECK_EQ("team_my_pe of no team", -1, aclshmem_team_my_pe(even));
        } else {
            int tme = aclshmem_team_my_pe(even), tn = aclshmem_team_n_pes(even);
            CHECK(even > 0, "even team handle %d", even);
            CHECK_EQ("even team_my_pe", me / 2, tme);
            CHECK_EQ("even team_n_pes", (n + 1) / 2, tn);
            CHECK_EQ("translate to world", me, aclshmem_team_translate_pe(even, tme, ACLSHMEM_TEAM_WORLD));
            CHECK_EQ("translate from world", tme,
                     aclshmem_team_translate_pe(ACLSHMEM_TEAM_WORLD, me, even));
            CHECK_EQ("get_config", ACLSHMEM_SUCCESS, aclshmem_team_get_config(even, &cfg));
            CHECK_EQ("config uniqueid", even, cfg.uniqueid);
            /* A ring inside the team, then the team barrier. */
            int to = aclshmem_team_translate_pe(even, (tme + 1) % tn, ACLSHMEM_TEAM_WORLD);
            aclshmem_int32_p(&box[0], 100 * round + me, to);
            aclshmem_barrier(even);
            int from = aclshmem_team_translate_pe(even, (tme + tn - 1) % tn, ACLSHMEM_TEAM_WORLD);
            CHECK_EQ("value through the team barrier", 100 * round + from, box[0]);
            aclshmem_sync(even);
            aclshmem_team_destroy(even);
            CHECK_EQ("destroyed team", -1, aclshmem_team_n_pes(even));
        }
        aclshmem_barrier_all();
    }

    CHECK_EQ("split_2d", ACLSHMEM_SUCCESS, aclshmem_team_split_2d(ACLSHMEM_TEAM_WORLD, 2, &x, &y));
    int xn = me / 2 == (n - 1) / 2 ? n - 2 * (me / 2) : 2, yn = (n - me % 2 + 1) / 2;
    CHECK_EQ("x team size", xn, aclshmem_team_n_pes(x));
    CHECK_EQ("x team my_pe", me % 2, aclshmem_team_my_pe(x));
    CHECK_EQ("y team size", yn, aclshmem_team_n_pes(y));
    CHECK_EQ("y team my_pe", me / 2, aclshmem_team_my_pe(y));
    aclshmem_barrier(x);
    aclshmem_barrier(y);
    aclshmem_sync(y);
    CHECK_EQ("translate x to y", me / 2, aclshmem_team_translate_pe(x, me % 2, y));
    CHECK_EQ("get_config of an invalid team", ACLSHMEM_INVALID_PARAM,
             aclshmem_team_get_config(ACLSHMEM_TEAM_INVALID, &cfg));
    CHECK_EQ("translate with an invalid team", -1,
             aclshmem_team_translate_pe(ACLSHMEM_TEAM_INVALID, 0, ACLSHMEM_TEAM_WORLD));
    aclshmem_team_destroy(x);
    aclshmem_team_destroy(y);
    aclshmem_team_destroy(ACLSHMEM_TEAM_WORLD); /* refused with a message, no harm */
    aclshmem_barrier(ACLSHMEM_TEAM_WORLD);
    aclshmem_free(box);
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* ---- team collectives ------------------------------------------------------------ */

#define CK 5 /* elements per member */

/* Member j of a team is world PE base + j * stride here. */
typedef struct { aclshmem_team_t team; int base, stride, size, me; } coll_team_t;

static int64_t cval(int world, int i) { return (int64_t)world * 1000 + i * 7 + 3; }

static void coll_on(const coll_team_t *t, int round)
{
    int n = t->size, tme = t->me, me_w = t->base + t->stride * tme;
    int64_t *b_src = (int64_t *)aclshmem_malloc(CK * sizeof(int64_t));
    int64_t *b_dst = (int64_t *)aclshmem_malloc(CK * sizeof(int64_t));
    int32_t *f_src = (int32_t *)aclshmem_malloc(CK * sizeof(int32_t));
    int32_t *f_dst = (int32_t *)aclshmem_malloc((size_t)n * CK * sizeof(int32_t));
    uint8_t *g_dst = (uint8_t *)aclshmem_malloc((size_t)n * CK);
    double *c_src = (double *)aclshmem_malloc((size_t)n * sizeof(double));
    double *c_dst = (double *)aclshmem_malloc((size_t)n * (n + 1) / 2 * sizeof(double));
    uint16_t *a_src = (uint16_t *)aclshmem_malloc((size_t)n * CK * sizeof(uint16_t));
    uint16_t *a_dst = (uint16_t *)aclshmem_malloc((size_t)n * CK * sizeof(uint16_t));
    float *s_src = (float *)aclshmem_malloc((size_t)n * 2 * sizeof(float));
    float *s_dst = (float *)aclshmem_malloc((size_t)n * 2 * sizeof(float));
    int32_t *r32 = (int32_t *)aclshmem_malloc(8 * sizeof(int32_t));
    uint64_t *r64 = (uint64_t *)aclshmem_malloc(8 * sizeof(uint64_t));
    float *rf = (float *)aclshmem_malloc(4 * sizeof(float));
    double *rd = (double *)aclshmem_malloc(4 * sizeof(double));
    char *rc = (char *)aclshmem_malloc(4);
    int root = (round + 1) % n, root_w = t->base + t->stride * root;

    /* broadcast */
    for (int i = 0; i < CK; i++) {
        b_src[i] = cval(me_w, i);
        b_dst[i] = -1;
    }
    CHECK_EQ("int64_broadcast", 0, aclshmem_int64_broadcast(t->team, b_dst, b_src, CK, root));
    for (int i = 0; i < CK; i++)
        CHECK_EQ("broadcast value", cval(root_w, i), b_dst[i]);
    CHECK_EQ("broadcastmem", 0, aclshmem_broadcastmem(t->team, b_dst, b_src, 8, (root + 1) % n));
    CHECK_EQ("broadcastmem value", cval(t->base + t->stride * ((root + 1) % n), 0), b_dst[0]);

    /* fcollect, team_all_gather, fcollectmem */
    for (int i = 0; i < CK; i++)
        f_src[i] = (int32_t)cval(me_w, i);
    CHECK_EQ("int32_fcollect", 0, aclshmem_int32_fcollect(t->team, f_dst, f_src, CK));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < CK; i++)
            CHECK_EQ("fcollect value", cval(t->base + t->stride * j, i), f_dst[j * CK + i]);
    uint8_t *g_src = (uint8_t *)aclshmem_malloc(CK);
    for (int i = 0; i < CK; i++)
        g_src[i] = (uint8_t)(me_w * 16 + i);
    CHECK_EQ("team_all_gather", 0, aclshmem_team_all_gather(t->team, g_dst, g_src, CK));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < CK; i++)
            CHECK_EQ("all_gather byte", (uint8_t)((t->base + t->stride * j) * 16 + i),
                     g_dst[j * CK + i]);
    memset(g_dst, 0, (size_t)n * CK);
    CHECK_EQ("fcollectmem", 0, aclshmem_fcollectmem(t->team, g_dst, g_src, 2));
    CHECK_EQ("fcollectmem last", (uint8_t)((t->base + t->stride * (n - 1)) * 16 + 1),
             g_dst[2 * n - 1]);

    /* collect: member j contributes j + 1 values */
    for (int i = 0; i <= tme; i++)
        c_src[i] = tme * 10.0 + i;
    CHECK_EQ("double_collect", 0, aclshmem_double_collect(t->team, c_dst, c_src, (size_t)tme + 1));
    for (int j = 0, k = 0; j < n; j++)
        for (int i = 0; i <= j; i++, k++)
            CHECK(c_dst[k] == j * 10.0 + i, "collect[%d] = %g, expected %g", k, c_dst[k],
                  j * 10.0 + i);
    CHECK_EQ("collectmem", 0, aclshmem_collectmem(t->team, c_dst, c_src, sizeof(double)));
    CHECK(c_dst[n - 1] == (n - 1) * 10.0, "collectmem last %g", c_dst[n - 1]);

    /* alltoall: block j of my source goes to member j */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < CK; i++)
            a_src[j * CK + i] = (uint16_t)(me_w * 256 + j * 16 + i);
    CHECK_EQ("uint16_alltoall", 0, aclshmem_uint16_alltoall(t->team, a_dst, a_src, CK));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < CK; i++)
            CHECK_EQ("alltoall value", (uint16_t)((t->base + t->stride * j) * 256 + tme * 16 + i),
                     a_dst[j * CK + i]);
    /* 2 bytes per member: element j of every source goes to member j. */
    CHECK_EQ("alltoallmem", 0, aclshmem_alltoallmem(t->team, a_dst, a_src, 2));
    for (int j = 0; j < n; j++)
        CHECK_EQ("alltoallmem value",
                 (uint16_t)((t->base + t->stride * j) * 256 + tme / CK * 16 + tme % CK),
                 a_dst[j]);
    /* alltoalls: one element per member, source stride 2, dest stride 1 */
    for (int j = 0; j < 2 * n; j++)
        s_src[j] = (float)(me_w * 100 + j);
    CHECK_EQ("float_alltoalls", 0, aclshmem_float_alltoalls(t->team, s_dst, s_src, 1, 2, 1));
    for (int j = 0; j < n; j++)
        CHECK(s_dst[j] == (float)((t->base + t->stride * j) * 100 + 2 * tme),
              "alltoalls[%d] = %g", j, s_dst[j]);
    CHECK_EQ("alltoallsmem", 0, aclshmem_alltoallsmem(t->team, s_dst, s_src, 2, 2, 1));

    /* reductions, expected values from the members' world numbers */
    int64_t sum = 0, mx = 0;
    uint64_t band = ~0ull, bor = 0, bxor = 0;
    double prod = 1;
    for (int j = 0; j < n; j++) {
        int w = t->base + t->stride * j;
        sum += w + 1;
        mx = w > mx ? w : mx;
        band &= 0xf0f0ull | (uint64_t)1 << (w + 16);
        bor |= (uint64_t)1 << w;
        bxor ^= (uint64_t)(w * 3 + 1);
        prod *= (w % 3) + 1;
    }
    r32[0] = me_w + 1;
    CHECK_EQ("int32_sum_reduce", 0, aclshmem_int32_sum_reduce(t->team, &r32[1], &r32[0], 1));
    CHECK_EQ("sum", sum, r32[1]);
    r64[0] = 0xf0f0ull | (uint64_t)1 << (me_w + 16);
    r64[1] = (uint64_t)1 << me_w;
    r64[2] = (uint64_t)(me_w * 3 + 1);
    CHECK_EQ("uint64_and_reduce", 0, aclshmem_uint64_and_reduce(t->team, &r64[3], &r64[0], 1));
    CHECK_EQ("uint64_or_reduce", 0, aclshmem_uint64_or_reduce(t->team, &r64[4], &r64[1], 1));
    CHECK_EQ("uint64_xor_reduce", 0, aclshmem_uint64_xor_reduce(t->team, &r64[5], &r64[2], 1));
    CHECK_EQ("and", band, r64[3]);
    CHECK_EQ("or", bor, r64[4]);
    CHECK_EQ("xor", bxor, r64[5]);
    rf[0] = (float)me_w;
    CHECK_EQ("float_max_reduce", 0, aclshmem_float_max_reduce(t->team, &rf[1], &rf[0], 1));
    CHECK(rf[1] == (float)mx, "max %g, expected %lld", rf[1], (long long)mx);
    rc[0] = (char)('a' + me_w);
    CHECK_EQ("char_min_reduce", 0, aclshmem_char_min_reduce(t->team, &rc[1], &rc[0], 1));
    CHECK_EQ("min", 'a' + t->base, rc[1]);
    rd[0] = (me_w % 3) + 1;
    CHECK_EQ("double_prod_reduce", 0, aclshmem_double_prod_reduce(t->team, &rd[1], &rd[0], 1));
    CHECK(rd[1] == prod, "prod %g, expected %g", rd[1], prod);

    aclshmem_barrier(t->team);
    void *all[] = {b_src, b_dst, f_src, f_dst, g_dst, c_src, c_dst, a_src, a_dst,
                   s_src, s_dst, r32,   r64,   rf,    rd,    rc,    g_src};
    for (size_t i = sizeof(all) / sizeof(all[0]); i-- > 0;)
        aclshmem_free(all[i]);
}

static void part_coll(void)
{
    acl_start(0, g_rank, 0, "coll", 16 << 20);
    int me = aclshmem_my_pe(), n = aclshmem_n_pes();
    aclshmem_team_t even = ACLSHMEM_TEAM_INVALID, odd = ACLSHMEM_TEAM_INVALID;
    aclshmem_team_t x = ACLSHMEM_TEAM_INVALID, y;
    CHECK_EQ("split even", ACLSHMEM_SUCCESS,
             aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &even));
    if (n > 1)
        CHECK_EQ("split odd", ACLSHMEM_SUCCESS,
                 aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 1, 2, n / 2, &odd));
    CHECK_EQ("split_2d", ACLSHMEM_SUCCESS, aclshmem_team_split_2d(ACLSHMEM_TEAM_WORLD, 2, &x, &y));
    for (int round = 0; round < 2; round++) {
        coll_team_t w = {ACLSHMEM_TEAM_WORLD, 0, 1, n, me};
        coll_on(&w, round);
        /* The even and the odd PEs at once, each team on its own (every
         * PE allocates alike: allocation is collective over the world). */
        coll_team_t par = {me % 2 ? odd : even, me % 2, 2, me % 2 ? n / 2 : (n + 1) / 2, me / 2};
        coll_on(&par, round);
        /* The rows of the 2d split: PEs 2k and 2k+1. */
        coll_team_t row = {x, me - me % 2, 1, aclshmem_team_n_pes(x), me % 2};
        coll_on(&row, round);
        aclshmem_barrier_all();
    }
    /* Invalid handles: quietly for ACLSHMEM_TEAM_INVALID, said otherwise. */
    int32_t *v = (int32_t *)aclshmem_calloc(2, sizeof(int32_t));
    CHECK_EQ("collective on ACLSHMEM_TEAM_INVALID", ACLSHMEM_INVALID_PARAM,
             aclshmem_int32_sum_reduce(ACLSHMEM_TEAM_INVALID, &v[1], &v[0], 1));
    CHECK_EQ("collective on an unknown handle", ACLSHMEM_INVALID_PARAM,
             aclshmem_team_all_gather(1234, &v[1], &v[0], 1));
    CHECK_EQ("broadcast from a root outside the team", ACLSHMEM_INVALID_PARAM,
             aclshmem_int32_broadcast(ACLSHMEM_TEAM_WORLD, &v[1], &v[0], 1, n));
    aclshmem_free(v);
    aclshmem_team_destroy(me % 2 ? odd : even);
    aclshmem_team_destroy(x);
    aclshmem_team_destroy(y);
    if (me == 0)
        printf("team collectives on %d PEs: ok\n", n);
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* ---- host signal_op, fence, quiet ----------------------------------------------- */

#define ORD_ROUNDS 50
#define ORD_N 64

static void part_order(void)
{
    acl_start(0, g_rank, 0, "order", 16 << 20);
    int me = aclshmem_my_pe(), n = aclshmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int32_t *sig = (int32_t *)aclshmem_calloc(4, sizeof(int32_t)); /* add, set, ready, ack */
    int64_t *data = (int64_t *)aclshmem_calloc(ORD_N, sizeof(int64_t));
    int64_t *late = (int64_t *)aclshmem_calloc(ORD_N, sizeof(int64_t));
    int64_t msg[ORD_N];

    for (int t = 0; t < n; t++)
        aclshmemx_signal_op(&sig[0], 2, ACLSHMEM_SIGNAL_ADD, t);
    aclshmemx_signal_op(&sig[1], 100 + me, ACLSHMEM_SIGNAL_SET, right);
    aclshmem_barrier_all();
    CHECK_EQ("signal_op ADD from every PE", 2 * n, sig[0]);
    CHECK_EQ("signal_op SET from the left", 100 + left, sig[1]);

    /* Data, fence, signal: who sees the signal sees the data. */
    for (int k = 1; k <= ORD_ROUNDS; k++) {
        aclshmem_signal_wait_until(&sig[3], ACLSHMEM_CMP_GE, k - 1);
        for (int i = 0; i < ORD_N; i++)
            msg[i] = (int64_t)me * 100000 + k * 100 + i;
        aclshmem_putmem_nbi(data, msg, sizeof(msg), right);
        aclshmem_fence();
        aclshmemx_signal_op(&sig[2], k, ACLSHMEM_SIGNAL_SET, right);
        aclshmem_signal_wait_until(&sig[2], ACLSHMEM_CMP_EQ, k);
        for (int i = 0; i < ORD_N; i++)
            CHECK_EQ("data before its signal", (int64_t)left * 100000 + k * 100 + i, data[i]);
        aclshmemx_signal_op(&sig[3], k, ACLSHMEM_SIGNAL_SET, left);
    }
    /* quiet completes non-blocking puts; sync_all only meets. */
    for (int i = 0; i < ORD_N; i++)
        msg[i] = (int64_t)me * 7 + i;
    aclshmem_putmem_nbi(late, msg, sizeof(msg), right);
    aclshmem_quiet();
    aclshmem_sync_all();
    for (int i = 0; i < ORD_N; i++)
        CHECK_EQ("put_nbi complete after quiet", (int64_t)left * 7 + i, late[i]);
    aclshmem_barrier_all();
    aclshmem_free(late);
    aclshmem_free(data);
    aclshmem_free(sig);
    if (me == 0)
        printf("signal_op, fence, quiet on %d PEs: ok\n", n);
    CHECK_EQ("finalize", ACLSHMEM_SUCCESS, aclshmem_finalize());
}

/* ---- two instances in every process ------------------------------------------------ */

static void part_instances(void)
{
    int n = g_size, r = g_rank, me2 = n - 1 - r;
    acl_start(1, r, 0, "inst1", 8 << 20);
    aclshmem_instance_ctx *ctx = aclshmemx_instance_ctx_get();
    CHECK(ctx != NULL && ctx->id == 1, "instance 1 current after its init");
    int32_t *a = (int32_t *)aclshmem_calloc(64, sizeof(int32_t));
    char *base1 = (char *)aclshmemx_get_heap_base(DEVICE_SIDE);

    /* Instance 2: the same processes, PE numbers reversed, PE 0 = rank n-1. */
    acl_start(2, me2, n - 1, "inst2", 16 << 20);
    CHECK(aclshmemx_instance_ctx_get()->id == 2, "instance 2 current after its init");
    CHECK_EQ("my_pe in instance 2", me2, aclshmem_my_pe());
    CHECK_EQ("n_pes in instance 2", n, aclshmem_n_pes());
    int32_t *b = (int32_t *)aclshmem_calloc(64, sizeof(int32_t));
    char *base2 = (char *)aclshmemx_get_heap_base(DEVICE_SIDE);
    CHECK(base1 != base2, "the two instances share a heap");
    CHECK(aclshmem_ptr(a, 0) == NULL, "instance 1's memory is symmetric in instance 2");
    aclshmem_team_t t2;
    CHECK_EQ("split in instance 2", ACLSHMEM_SUCCESS,
             aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, n, &t2));
    CHECK_EQ("team of instance 2", n, aclshmem_team_n_pes(t2));

    int32_t v2 = 2000 + me2;
    aclshmem_int32_put(b, &v2, 1, (me2 + 1) % n);
    aclshmem_barrier_all();

    CHECK_EQ("switch to 1", ACLSHMEM_SUCCESS, aclshmemx_instance_ctx_set(1));
    CHECK_EQ("my_pe in instance 1", r, aclshmem_my_pe());
    CHECK(aclshmem_ptr(b, 0) == NULL, "instance 2's memory is symmetric in instance 1");
    CHECK_EQ("instance 2's team in instance 1", -1, aclshmem_team_n_pes(t2));
    int32_t v1 = 1000 + r;
    aclshmem_int32_put(a, &v1, 1, (r + 1) % n);
    aclshmem_barrier_all();
    CHECK_EQ("instance 1 put", 1000 + (r + n - 1) % n, a[0]);
    CHECK_EQ("instance 1 buffer untouched past [0]", 0, a[1]);

    CHECK_EQ("switch to 2", ACLSHMEM_SUCCESS, aclshmemx_instance_ctx_set(2));
    CHECK_EQ("instance 2 put", 2000 + (me2 + n - 1) % n, b[0]);
    CHECK_EQ("instance 2 buffer untouched past [0]", 0, b[1]);
    /* A put-with-signal in instance 2 while instance 1 holds a value too. */
    int32_t *sig2 = (int32_t *)aclshmem_calloc(1, sizeof(int32_t));
    aclshmem_put32_signal(&b[2], &v2, 1, sig2, 1, ACLSHMEM_SIGNAL_SET, (me2 + 1) % n);
    aclshmem_signal_wait_until(sig2, ACLSHMEM_CMP_EQ, 1);
    CHECK_EQ("instance 2 signalled data", 2000 + (me2 + n - 1) % n, b[2]);
    aclshmem_team_destroy(t2);
    aclshmem_free(sig2);
    aclshmem_free(b);

    /* Finalize 2 from instance 1: 1 stays current. */
    CHECK_EQ("switch to 1 again", ACLSHMEM_SUCCESS, aclshmemx_instance_ctx_set(1));
    CHECK_EQ("finalize instance 2", ACLSHMEM_SUCCESS, aclshmemx_finalize(2));
    CHECK(aclshmemx_instance_ctx_get()->id == 1, "instance 1 no longer current");
    CHECK_EQ("instance 2 is gone", ACLSHMEM_INVALID_PARAM, aclshmemx_instance_ctx_set(2));
    CHECK_EQ("a[0] kept", 1000 + (r + n - 1) % n, a[0]);
    aclshmem_free(a);
    CHECK_EQ("finalize instance 1", ACLSHMEM_SUCCESS, aclshmem_finalize());
    CHECK_EQ("nothing current", ACLSHMEM_STATUS_NOT_INITIALIZED, aclshmemx_init_status());
    if (r == 0)
        printf("two instances of %d PEs in every process: ok\n", n);
}

/* ---- ids that must be refused -------------------------------------------------------- */

static void part_tamper(void)
{
    aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
    aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    CHECK(g_size == 2, "tamper runs at 2 PEs");
    uid_share(&uid, 0, "tamper");
    if (g_rank == 1) {
        /* The same address, another (valid) secret: a stale or forged id. */
        char *c = &uid.internal[6];
        *c = *c == '0' ? '1' : '0';
    }
    CHECK_EQ("set_attr", ACLSHMEM_SUCCESS,
             aclshmemx_set_attr_uniqueid_args(g_rank, 2, 0, &uid, &attr));
    attr.option_attr.shm_init_timeout = 3;
    int rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr);
    CHECK(rc != ACLSHMEM_SUCCESS, "a PE with a forged id joined");
    CHECK_EQ("status", ACLSHMEM_STATUS_NOT_INITIALIZED, aclshmemx_init_status());
    if (g_rank == 0) {
        char path[512];
        uid_path(path, sizeof(path), "tamper");
        unlink(path);
    }
    printf("rank %d refused as expected (%d)\n", g_rank, rc);
}

static void part_stale(void)
{
    aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
    aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    /* An id whose PE 0 never comes: PE 1 waits for it, then gives up. */
    CHECK_EQ("get_uniqueid", ACLSHMEM_SUCCESS, aclshmemx_get_uniqueid(&uid));
    CHECK_EQ("set_attr", ACLSHMEM_SUCCESS, aclshmemx_set_attr_uniqueid_args(1, 2, 0, &uid, &attr));
    attr.option_attr.shm_init_timeout = 2;
    time_t t0 = time(NULL);
    int rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr);
    CHECK_EQ("stale id", ACLSHMEM_TIMEOUT_ERROR, rc);
    CHECK(time(NULL) - t0 < 20, "the timeout of 2 s took %ld s", (long)(time(NULL) - t0));
    printf("stale id refused as expected (%d)\n", rc);
}

int main(int argc, char **argv)
{
    const char *r = getenv("SYMM_RANK"), *s = getenv("SYMM_SIZE");
    g_rank = r ? atoi(r) : 0;
    g_size = s ? atoi(s) : 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2)
        fail(__LINE__, "usage: acl_host basic|rma|allgather|signal|p2p|team|coll|order|"
                       "instances|tamper|stale|leak");
    static const struct { const char *name; void (*fn)(void); } parts[] = {
        {"basic", part_basic},         {"rma", part_rma},     {"allgather", part_allgather},
        {"signal", part_signal},       {"p2p", part_p2p},     {"team", part_team},
        {"instances", part_instances}, {"tamper", part_tamper}, {"stale", part_stale},
        {"coll", part_coll},           {"order", part_order}, {"leak", part_leak}};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (strcmp(argv[1], parts[i].name) == 0) {
            parts[i].fn();
            return 0;
        }
    }
    fail(__LINE__, "unknown part '%s'", argv[1]);
}
