/*
 * stress.c - a seeded randomized stress tester of symm (docs/stress.md).
 *
 * Environment:
 *   SYMM_STRESS_SEED=S      the seed (default: from the time, chosen by PE 0)
 *   SYMM_STRESS_STEPS=N     steps per lane (default 200)
 *   SYMM_STRESS_THREADS=T   lanes (threads) per PE, 1-4 (default 1; 2-4 run
 *                           under SHMEM_THREAD_MULTIPLE)
 *   SYMM_STRESS_INJECT=S    corrupt the first expected value checked on PE 0
 *                           at or after step S (the runner's self-test)
 *   SYMM_STRESS_VERBOSE=1   PE 0 prints each step's kind
 *
 * A lane is thread L of every PE: it runs steps 0..N-1 of one schedule that
 * every PE derives from (seed, step, L), on its own teams, contexts,
 * windows and counters. Lane 0 alone uses the world team, the heap
 * (shmem_malloc and friends are collective over the world) and the
 * deprecated active-set routines. Each failure prints one line, then the
 * line that replays the run, and ends the job (shmem_global_exit).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmemx.h>

#include "stress.h"

extern char **environ;

st_cfg_t st;

/* Symmetric because global: the lanes' global windows and the seed's
 * broadcast. */
#define ST_GWIN_BYTES (4u << 20)
static unsigned char st_gwin[ST_GWIN_BYTES] __attribute__((aligned(4096)));
static uint64_t seed_sym[2];

static st_lane_t lanes[ST_MAX_LANES];
static int injected;
static struct timespec t_start;
static size_t heap_start, heap_max; /* shmemx_heap_size: did the heap grow? */

enum {
    K_RMA,
    K_SIG,
    K_AMO,
    K_LOCK,
    K_COLL,
    K_ACTIVE,
    K_TEAM,
    K_CTX,
    K_HEAP,
    K_AUDIT,
    K_STREAM,
    K_NKINDS
};
static const char *const kind_name[K_NKINDS] = {
    "rma", "signal", "amo", "lock", "coll", "active", "team", "ctx", "heap", "audit", "stream"};
/* Weights of the kinds; lanes other than 0 skip active, heap and stream. */
static const unsigned kind_weight[K_NKINDS] = {24, 10, 12, 5, 22, 6, 5, 4, 8, 2, 4};
static int lane0_only(int k)
{
    return k == K_ACTIVE || k == K_HEAP || k == K_STREAM;
}

void *st_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "stress: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

st_rng_t st_rng(const st_lane_t *L, int pe, int purpose)
{
    return (st_rng_t){
        st_hash(st.seed, (uint64_t)L->step, (uint64_t)pe, (uint64_t)L->id, (uint64_t)purpose)};
}

st_rng_t st_rng2(const st_lane_t *L, int pe, int purpose, uint64_t sub)
{
    return (st_rng_t){st_hash(st.seed, (uint64_t)L->step, (uint64_t)pe,
                              (uint64_t)L->id | (sub << 8), (uint64_t)purpose)};
}

/* ---- failure ------------------------------------------------------------- */

static int env_internal(const char *kv)
{
    static const char *const skip[] = {
        "SYMM_RANK=",        "SYMM_SIZE=",         "SYMM_BOOT_ADDR=",    "SYMM_BOOT_LISTEN_FD=",
        "SYMM_JOB_SECRET=",  "SYMM_CTRL_FD=",      "SYMM_LAUNCHER=",     "SYMM_OSHCC_NESTED=",
        "SYMM_STRESS_SEED=", "SYMM_STRESS_STEPS=", "SYMM_STRESS_INJECT="};
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (strncmp(kv, skip[i], strlen(skip[i])) == 0)
            return 1;
    return 0;
}

/* The environment that shapes the run: SYMM_*, SHMEM_* and UCX_* variables
 * but the launcher's own. */
static void replay_env(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *kv = *e;
        if (strncmp(kv, "SYMM_", 5) != 0 && strncmp(kv, "SHMEM_", 6) != 0 &&
            strncmp(kv, "UCX_", 4) != 0)
            continue;
        if (env_internal(kv) || strchr(kv, ' ') != NULL)
            continue;
        int k = snprintf(buf + n, cap - n, "%s ", kv);
        if (k < 0 || (size_t)k >= cap - n)
            break;
        n += (size_t)k;
    }
}

void st_fail(st_lane_t *L, const char *fmt, ...)
{
    char msg[1024], env[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    replay_env(env, sizeof(env));
    fprintf(stderr, "stress: FAIL seed=%" PRIu64 " pe=%d thread=%d step=%ld op=%s team=%s %s%s%s\n",
            st.seed, st.me, L->id, L->step, L->op ? L->op : "?", L->tdesc[0] ? L->tdesc : "-",
            L->what, L->what[0] ? ": " : "", msg);
    fprintf(stderr,
            "replay: SYMM_STRESS_SEED=%" PRIu64 " SYMM_STRESS_STEPS=%ld %soshrun -np %d %s\n",
            st.seed, L->step + 1, env, st.npes, st.prog);
    fflush(stdout);
    fflush(stderr);
    shmem_global_exit(1);
}

int st_inject_now(st_lane_t *L)
{
    if (st.inject < 0 || L->step < st.inject || st.me != 0 || L->id != 0)
        return 0;
    return __atomic_exchange_n(&injected, 1, __ATOMIC_RELAXED) == 0;
}

/* ---- contexts and syncs -------------------------------------------------- */

shmem_ctx_t st_ctx_handle(st_lane_t *L, int ctx)
{
    return ctx < 0 ? SHMEM_CTX_DEFAULT : L->ctxs[ctx].h;
}

void st_quiet_all(st_lane_t *L)
{
    shmem_quiet();
    for (int i = 0; i < ST_MAX_CTX; i++)
        if (L->ctxs[i].used && L->ctxs[i].h != SHMEM_CTX_INVALID)
            shmem_ctx_quiet(L->ctxs[i].h);
}

/* Every lane member: the lane's contexts completed, then one of the
 * barriers over the lane (the same one on every PE: the shared stream). A
 * barrier_all completes the default context itself. */
void st_lane_sync(st_lane_t *L)
{
    st_rng_t r = st_rng2(L, ST_SHARED, P_SYNC, L->nsync++);
    for (int i = 0; i < ST_MAX_CTX; i++)
        if (L->ctxs[i].used && L->ctxs[i].h != SHMEM_CTX_INVALID)
            shmem_ctx_quiet(L->ctxs[i].h);
    unsigned k = L->id == 0 ? (unsigned)st_below(&r, 4) : 2;
    if (k != 0)
        shmem_quiet();
    switch (k) {
    case 0: shmem_barrier_all(); break;
    case 1: shmem_sync_all(); break;
    case 2: {
        int rc = shmem_team_sync(L->team);
        if (rc != 0)
            st_fail(L, "shmem_team_sync of the lane team returned %d", rc);
        break;
    }
    default:
        /* the deprecated whole-world barrier, its two pSyncs in turn */
        shmem_barrier(0, 0, st.npes, L->psync + (L->nbar++ % 2) * SHMEM_SYNC_SIZE);
        break;
    }
}

/* ---- configuration ------------------------------------------------------- */

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return dflt;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 0);
    if (errno != 0 || *end != '\0') {
        fprintf(stderr, "stress: %s=%s is not a number\n", name, v);
        exit(2);
    }
    return x;
}

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return dflt;
    char *end;
    double x = strtod(v, &end);
    switch (*end) {
    case 'k':
    case 'K': x *= 1024; break;
    case 'm':
    case 'M': x *= 1024 * 1024; break;
    case 'g':
    case 'G': x *= 1024.0 * 1024 * 1024; break;
    default: break;
    }
    return x > 0 ? (size_t)x : dflt;
}

static size_t pow2_floor(size_t x)
{
    size_t p = 1;
    while (p * 2 <= x)
        p *= 2;
    return p;
}

static size_t clamp_size(size_t x, size_t lo, size_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

static void config(int argc, char **argv)
{
    (void)argc;
    static char prog[4096];
    st.prog = realpath(argv[0], prog) != NULL ? prog : argv[0];
    st.steps = env_long("SYMM_STRESS_STEPS", 200);
    st.threads = (int)env_long("SYMM_STRESS_THREADS", 1);
    st.inject = env_long("SYMM_STRESS_INJECT", -1);
    st.verbose = (int)env_long("SYMM_STRESS_VERBOSE", 0);
    if (st.threads < 1 || st.threads > ST_MAX_LANES || st.steps < 0) {
        fprintf(stderr, "stress: SYMM_STRESS_THREADS must be 1-%d, SYMM_STRESS_STEPS >= 0\n",
                ST_MAX_LANES);
        exit(2);
    }
    st.heap_size = env_size("SHMEM_SYMMETRIC_SIZE", env_size("SMA_SYMMETRIC_SIZE", 1u << 30));
}

/* Window sizes: up to 4 MiB, the lanes' areas within half the initial heap
 * and the job's windows within 256 MiB. */
static void sizes(void)
{
    size_t n = (size_t)st.npes, t = (size_t)st.threads;
    size_t by_heap = (size_t)((double)st.heap_size / (2.5 * (double)(n + 2) * (double)t));
    size_t by_job = (256u << 20) / (n * n * t);
    size_t w = by_heap < by_job ? by_heap : by_job;
    st.wsize = clamp_size(pow2_floor(w), 64u << 10, 4u << 20);
    st.wsize = (size_t)env_size("SYMM_STRESS_WSIZE", st.wsize);
    st.gwsize = clamp_size(pow2_floor(ST_GWIN_BYTES / (n * t)), 4096, 1u << 20);
}

static void choose_seed(void)
{
    const char *v = getenv("SYMM_STRESS_SEED");
    if (v != NULL && *v != '\0') {
        st.seed = strtoull(v, NULL, 0);
        return;
    }
    /* PE 0 picks; the world learns it by a broadcast (the same on every PE
     * before any step). */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    seed_sym[1] = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
    seed_sym[1] %= 1000000000ull;
    shmem_uint64_broadcast(SHMEM_TEAM_WORLD, &seed_sym[0], &seed_sym[1], 1, 0);
    st.seed = seed_sym[0];
}

/* ---- lanes --------------------------------------------------------------- */

static void lane_setup(st_lane_t *L, int id)
{
    memset(L, 0, sizeof(*L));
    L->id = id;
    L->op = "setup";
    L->step = -1;
    L->team = SHMEM_TEAM_WORLD;
    if (id > 0) {
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, st.npes, NULL, 0, &L->team);
        if (rc != 0 || L->team == SHMEM_TEAM_INVALID)
            st_fail(L, "shmem_team_split_strided(WORLD, 0, 1, %d) returned %d", st.npes, rc);
        if (shmem_team_n_pes(L->team) != st.npes || shmem_team_my_pe(L->team) != st.me)
            st_fail(L, "lane team: n_pes %d my_pe %d, expected %d and %d",
                    shmem_team_n_pes(L->team), shmem_team_my_pe(L->team), st.npes, st.me);
    }
    st_team_t *t = &L->teams[0];
    t->used = 1;
    t->kind = TK_LANE;
    t->parent = -1;
    t->h = L->team;
    t->start = 0;
    t->stride = 1;
    t->size = t->psize = st.npes;
    for (int i = 0; i < st.npes; i++)
        t->pmembers[i] = i;
    L->area[ST_AREA_GLOBAL] = st_gwin + (size_t)id * (size_t)st.npes * st.gwsize;
    L->wsize[ST_AREA_GLOBAL] = st.gwsize;
    L->psync = shmem_malloc(4 * SHMEM_SYNC_SIZE * sizeof(long));
    if (L->psync == NULL)
        st_fail(L, "shmem_malloc of the pSync arrays returned NULL");
    for (int i = 0; i < 4 * SHMEM_SYNC_SIZE; i++)
        L->psync[i] = SHMEM_SYNC_VALUE;
    st_rma_setup(L);
    st_sig_setup(L);
    st_amo_setup(L);
    st_coll_setup(L);
    if (id == 0)
        st_stream_setup(L);
    L->op = "";
}

static void lane_step(st_lane_t *L, long step)
{
    L->step = step;
    L->nsync = 0;
    L->what[0] = L->tdesc[0] = '\0';
    st_rng_t r = st_rng(L, ST_SHARED, P_KIND);
    unsigned total = 0;
    for (int k = 0; k < K_NKINDS; k++)
        if (L->id == 0 || !lane0_only(k))
            total += kind_weight[k];
    unsigned x = (unsigned)st_below(&r, total);
    int kind = 0;
    for (int k = 0; k < K_NKINDS; k++) {
        if (L->id != 0 && lane0_only(k))
            continue;
        if (x < kind_weight[k]) {
            kind = k;
            break;
        }
        x -= kind_weight[k];
    }
    if (st.verbose && st.me == 0)
        printf("stress: lane %d step %ld %s\n", L->id, step, kind_name[kind]);
    L->kinds[kind]++;
    switch (kind) {
    case K_RMA: st_step_rma(L); break;
    case K_SIG: st_step_sig(L); break;
    case K_AMO: st_step_amo(L); break;
    case K_LOCK: st_step_lock(L); break;
    case K_COLL: st_step_coll(L); break;
    case K_ACTIVE: st_step_active(L); break;
    case K_TEAM: st_step_team(L); break;
    case K_CTX: st_step_ctx(L); break;
    case K_HEAP: st_step_heap(L); break;
    case K_STREAM: st_step_stream(L); break;
    default: st_audit(L); break;
    }
}

static void *lane_run(void *arg)
{
    st_lane_t *L = arg;
    for (long s = 0; s < st.steps; s++)
        lane_step(L, s);
    L->step = st.steps;
    L->nsync = 0;
    L->what[0] = '\0';
    st_pool_teardown(L);
    if (L->id == 0)
        st_stream_teardown(L);
    st_audit(L);
    return NULL;
}

static void summary(double secs)
{
    static uint64_t mine[2 + K_NKINDS], all[2 + K_NKINDS];
    memset(mine, 0, sizeof(mine));
    for (int l = 0; l < st.threads; l++) {
        mine[0] += lanes[l].nops;
        mine[1] += lanes[l].nchecks;
        for (int k = 0; k < K_NKINDS; k++)
            mine[2 + k] += lanes[l].kinds[k];
    }
    shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, all, mine, 2 + K_NKINDS);
    if (st.me != 0)
        return;
    char kinds[256];
    size_t n = 0;
    for (int k = 0; k < K_NKINDS && n < sizeof(kinds); k++)
        n += (size_t)snprintf(kinds + n, sizeof(kinds) - n, "%s%s=%" PRIu64, k ? " " : "",
                              kind_name[k], all[2 + k] / (uint64_t)st.npes);
    printf("stress: PASS seed=%" PRIu64 " steps=%ld pes=%d threads=%d ops=%" PRIu64
           " checks=%" PRIu64 " time=%.1fs heap=%zuM->%zuM steps by kind (all lanes): %s\n",
           st.seed, st.steps, st.npes, st.threads, all[0], all[1], secs, heap_start >> 20,
           heap_max >> 20, kinds);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    config(argc, argv);
    clock_gettime(CLOCK_MONOTONIC, &t_start);
    if (st.threads > 1) {
        int provided = -1;
        int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        if (rc != 0 || provided != SHMEM_THREAD_MULTIPLE) {
            fprintf(stderr, "stress: shmem_init_thread(MULTIPLE) returned %d, provided %d\n", rc,
                    provided);
            return 1;
        }
    } else {
        shmem_init();
    }
    st.me = shmem_my_pe();
    st.npes = shmem_n_pes();
    if (st.npes > ST_MAX_PES) {
        fprintf(stderr, "stress: at most %d PEs\n", ST_MAX_PES);
        shmem_global_exit(2);
    }
    choose_seed();
    sizes();
    if (st.me == 0) {
        printf("stress: seed=%" PRIu64
               " steps=%ld pes=%d threads=%d window=%zu global_window=%zu\n",
               st.seed, st.steps, st.npes, st.threads, st.wsize, st.gwsize);
        fflush(stdout);
    }
    heap_start = shmemx_heap_size();
    for (int l = 0; l < st.threads; l++)
        lane_setup(&lanes[l], l);
    shmem_barrier_all();

    pthread_t th[ST_MAX_LANES];
    for (int l = 1; l < st.threads; l++)
        if (pthread_create(&th[l], NULL, lane_run, &lanes[l]) != 0) {
            fprintf(stderr, "stress: pthread_create failed\n");
            shmem_global_exit(1);
        }
    lane_run(&lanes[0]);
    for (int l = 1; l < st.threads; l++)
        pthread_join(th[l], NULL);
    shmem_barrier_all();
    heap_max = shmemx_heap_size();
    st_heap_teardown(&lanes[0]);
    for (int l = 1; l < st.threads; l++)
        shmem_team_destroy(lanes[l].team);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    summary((double)(t1.tv_sec - t_start.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t_start.tv_nsec));
    shmem_finalize();
    return 0;
}
