/*
 * ucx_progress.c - who runs the UCX workers, and the workers themselves: one
 * per instance, one per context, pooled.
 *
 * Where the selected UCX transport emulates RMA/AMO in software (tcp,
 * shared memory without a hardware path) the target must run UCX progress:
 * every symm wait loop calls progress, and a progress thread runs it while
 * the PE computes (SYMM_PROGRESS_THREAD, progress_main).
 *
 * Owns the progress thread (start, back-off, stop), the list of every
 * worker (all_wks) and the pool of context workers. The thread never
 * competes with a PE that progresses itself (it backs off), is not bound to
 * the PE's core, and never calls the operations; a context's worker is
 * never destroyed before finalize (destroyed contexts' workers are reused).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "runtime/fault.h"
#include "runtime/pestatus.h"
#include "transport/ucx/ucx.h"

/* ---- progress ---------------------------------------------------------- */

/* How deep this thread is in progress (symm_ucx_in_progress). Initial-exec:
 * progress runs in every wait loop, and the general model's lookup is a
 * call; glibc keeps room in the static TLS block for a dlopened module's
 * few bytes. */
static __thread int ucx_progressing __attribute__((tls_model("initial-exec")));

int symm_ucx_in_progress(void) { return ucx_progressing != 0; }

unsigned symm_ucx_progress_all(ucx_state_t *u)
{
    ucx_progressing++;
    unsigned n = ucp_worker_progress(u->dflt.worker);
    int k = __atomic_load_n(&u->n_all_wks, __ATOMIC_ACQUIRE);
    for (int i = 0; i < k; i++)
        n += ucp_worker_progress(u->all_wks[i]);
    ucx_progressing--;
    return n;
}

unsigned symm_ucx_progress(symm_instance_t *s)
{
    ucx_state_t *u = state_of(s);
    __atomic_store_n(&u->activity, u->activity + 1, __ATOMIC_RELAXED);
    return symm_ucx_progress_all(u);
}

/* An idle wait's nap (ops/wait_status.c): arm every worker and sleep in their
 * event fds, so that a message for this PE (the target's part of a peer's
 * emulated put, get or AMO, a notification, a collective's data) ends the
 * nap at once. A worker with events pending (UCS_ERR_BUSY) ends it before
 * it starts: the wait loop runs progress next. -1 where a worker has no
 * event fd: sleeping there would hold up a peer's operation. */
int symm_ucx_sleep(symm_instance_t *s, long usec)
{
    ucx_state_t *u = state_of(s);
    struct pollfd pf[1 + SYMM_UCX_MAX_CTX_WORKERS];
    int k = __atomic_load_n(&u->n_all_wks, __ATOMIC_ACQUIRE), n = 0;
    for (int i = -1; i < k; i++) {
        ucp_worker_h w = i < 0 ? u->dflt.worker : u->all_wks[i];
        int fd = i < 0 ? u->dflt.efd : u->all_efds[i];
        if (fd < 0)
            return -1;
        ucs_status_t st = ucp_worker_arm(w);
        if (st == UCS_ERR_BUSY)
            return 0;
        if (st != UCS_OK)
            return -1;
        pf[n].fd = fd;
        pf[n].events = POLLIN;
        pf[n++].revents = 0;
    }
    struct timespec ts = {.tv_sec = usec / 1000000, .tv_nsec = (usec % 1000000) * 1000};
    (void)ppoll(pf, (nfds_t)n, &ts, NULL);
    return 0;
}

/* Runs the workers while the PE computes, so a peer's emulated RMA/AMO on
 * my memory completes. It looks every SYMM_PROGRESS_INTERVAL microseconds
 * while the PE is away from symm (computing) and runs UCX then. While the
 * PE itself runs progress (it is inside symm calls), the thread only backs
 * off, doubling its sleep up to PROGRESS_MAX_US: its wake-ups cost the
 * communicating PE its core (frequent looks made small put+quiet over tcp
 * markedly slower on a machine with few cores), and then they are rare.
 * A look that finds nothing to do doubles the sleep too, up to
 * PROGRESS_IDLE_MAX_US (never below SYMM_PROGRESS_INTERVAL), and any event
 * brings it back to the interval: a PE waiting in the bootstrap (init,
 * finalize, heap growth) runs no UCX itself, and many oversubscribed PEs
 * looking often at nothing cost a large UCX init much of its CPU time. The
 * price is the first message to a PE that computed
 * for a while unobserved: answered within PROGRESS_IDLE_MAX_US, not the
 * interval. A look runs at most PROGRESS_BURST progress calls before it
 * sleeps again: while a peer streams data in, every call finds events, and
 * an unbounded loop took a core for the whole transfer, from a PE that was
 * computing (a fused all-gather+matmul over tcp slowed its matmul down). */
#define PROGRESS_MAX_US 50000
#define PROGRESS_IDLE_MAX_US 2000
#define PROGRESS_BURST 16

static void *progress_main(void *arg)
{
    ucx_state_t *u = arg;
    /* Run on any core, not the one the launcher bound the PE to: the thread
     * is for a PE that keeps its own core busy computing. */
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < get_nprocs_conf() && c < CPU_SETSIZE; c++)
        CPU_SET(c, &all);
    pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
    struct pollfd pf = {.fd = u->stop_pipe[0], .events = POLLIN};
    long base = u->inst->cfg.net.progress_interval, us = base;
    unsigned long seen = 0;
    for (;;) {
        struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
        if (ppoll(&pf, 1, &ts, NULL) > 0)
            return NULL;
        unsigned long now = __atomic_load_n(&u->activity, __ATOMIC_RELAXED);
        if (now != seen) {
            seen = now;
            us = us * 2 > PROGRESS_MAX_US ? (base > PROGRESS_MAX_US ? base : PROGRESS_MAX_US)
                                          : us * 2;
            continue;
        }
        /* Until idle or PROGRESS_BURST calls, yielding to the PE as soon as it
         * progresses itself. */
        unsigned events = 0, n, rounds = 0;
        while ((n = symm_ucx_progress_all(u)) != 0 && ++rounds < PROGRESS_BURST &&
               __atomic_load_n(&u->activity, __ATOMIC_RELAXED) == seen)
            events += n;
        if (events != 0 || n != 0)
            us = base;
        else if (us < PROGRESS_IDLE_MAX_US)
            us = us * 2 > PROGRESS_IDLE_MAX_US ? PROGRESS_IDLE_MAX_US : us * 2;
    }
}

/* Whether the PE keeps a progress thread after init: SYMM_PROGRESS_THREAD
 * auto or 1: yes. (An auto that left it out where PEs fill every core made
 * put bandwidth steadier here, but then the p2p and lock tests stalled over
 * tcp with progress only inside symm calls; until that is understood the
 * thread stays, and 0 is for experiments.) */
int symm_ucx_progress_thread_wanted(ucx_state_t *u, int *wanted)
{
    if (u->inst->cfg.net.progress_interval < 1) {
        symm_error("shmem_init", "SYMM_PROGRESS_INTERVAL=%ld must be at least 1 microsecond",
                   (long)u->inst->cfg.net.progress_interval);
        return SYMM_ERR_INVALID;
    }
    *wanted = u->inst->cfg.net.progress_thread != SYMM_PROGRESS_THREAD_0;
    return SYMM_OK;
}

int symm_ucx_start_progress_thread(ucx_state_t *u)
{
    if (pipe2(u->stop_pipe, O_CLOEXEC) != 0)
        return SYMM_ERR_SYS;
    if (pthread_create(&u->thread, NULL, progress_main, u) != 0) {
        close(u->stop_pipe[0]);
        close(u->stop_pipe[1]);
        return SYMM_ERR_SYS;
    }
    u->thread_on = 1;
    return SYMM_OK;
}

void symm_ucx_stop_progress_thread(ucx_state_t *u)
{
    if (!u->thread_on)
        return;
    char c = 1;
    if (write(u->stop_pipe[1], &c, 1) != 1)
        symm_warn("shmem_finalize", "cannot stop the progress thread: %s", strerror(errno));
    pthread_join(u->thread, NULL);
    close(u->stop_pipe[0]);
    close(u->stop_pipe[1]);
    u->thread_on = 0;
}

/* ---- workers and contexts --------------------------------------------- */

int symm_ucx_wk_init(ucx_state_t *u, ucx_wk_t *wk, ucs_thread_mode_t mode)
{
    ucs_status_t st;
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = mode};
    memset(wk, 0, sizeof(*wk));
    pthread_mutex_init(&wk->connect_lock, NULL);
    wk->conn = calloc((size_t)u->inst->n_pes, sizeof(ucx_conn_t));
    wk->pending = malloc(PENDING_MAX * sizeof(void *));
    if (wk->conn == NULL || wk->pending == NULL)
        return SYMM_ERR_NOMEM;
    wk->efd = -1;
    /* SYMM_FAULT=ucx_worker: as if UCX had no memory for it. */
    st = symm_fault("ucx_worker") ? UCS_ERR_NO_MEMORY : ucp_worker_create(u->ctx, &wp, &wk->worker);
    if (st != UCS_OK) {
        symm_error("ucx", "creating a UCX worker: %s", ucs_status_string(st));
        return SYMM_ERR_SYS;
    }
    if ((st = ucp_worker_get_efd(wk->worker, &wk->efd)) != UCS_OK) {
        symm_debug("ucx", "no event fd for a worker (%s): idle waits yield, never sleep",
                   ucs_status_string(st));
        wk->efd = -1;
    }
    return SYMM_OK;
}

/* Complete, disconnect and destroy. */
void symm_ucx_wk_fini(ucx_state_t *u, ucx_wk_t *wk, int force)
{
    if (wk->worker != NULL) {
        symm_ucx_wk_quiet(u, wk);
        for (int pe = 0; wk->conn != NULL && pe < u->inst->n_pes; pe++)
            symm_ucx_conn_close(u, wk, pe, force);
        ucp_worker_destroy(wk->worker);
    }
    free(wk->conn);
    free(wk->pending);
    pthread_mutex_destroy(&wk->connect_lock);
    memset(wk, 0, sizeof(*wk));
}

/* A context gets its own worker, connected to peers on first use: its
 * quiet and fence flush and order its own operations only, and threads with
 * their own contexts do not share a worker. A destroyed context's worker
 * (completed by the destroy's quiet) goes to a pool for the next context:
 * closing endpoints while the job runs left UCX 1.13 peers with endpoints
 * back to a worker that was gone (connection refused, then a hang), and
 * reuse makes create/destroy cheap. Pooled workers are destroyed at
 * finalize, when every PE closes. Context workers are thread-safe (a pooled
 * one may next serve a shared context). */
int symm_ucx_ctx_create(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    pthread_mutex_lock(&u->ctx_lock);
    ucx_wk_t *wk = u->free_wks;
    if (wk != NULL)
        u->free_wks = wk->next;
    pthread_mutex_unlock(&u->ctx_lock);
    if (wk == NULL) {
        if (__atomic_load_n(&u->n_all_wks, __ATOMIC_RELAXED) >= SYMM_UCX_MAX_CTX_WORKERS) {
            symm_warn("shmem_ctx_create", "%d contexts exist: new ones share the default "
                      "context's worker", SYMM_UCX_MAX_CTX_WORKERS);
            return SYMM_OK;
        }
        wk = malloc(sizeof(*wk));
        if (wk == NULL)
            return SYMM_ERR_NOMEM;
        int rc = symm_ucx_wk_init(u, wk, UCS_THREAD_MODE_MULTI);
        if (rc != SYMM_OK) {
            symm_ucx_wk_fini(u, wk, 1);
            free(wk);
            return rc;
        }
        pthread_mutex_lock(&u->ctx_lock);
        int k = u->n_all_wks;
        u->all_wks[k] = wk->worker;
        u->all_efds[k] = wk->efd;
        __atomic_store_n(&u->n_all_wks, k + 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&u->ctx_lock);
    }
    pthread_mutex_lock(&u->ctx_lock);
    wk->next = u->ctx_wks;
    u->ctx_wks = wk;
    pthread_mutex_unlock(&u->ctx_lock);
    ctx->net = wk;
    return SYMM_OK;
}

void symm_ucx_ctx_destroy(struct symm_ctx *ctx)
{
    ucx_state_t *u = state_of(ctx->inst);
    ucx_wk_t *wk = ctx->net;
    if (wk == NULL)
        return;
    pthread_mutex_lock(&u->ctx_lock);
    for (ucx_wk_t **pp = &u->ctx_wks; *pp != NULL; pp = &(*pp)->next)
        if (*pp == wk) {
            *pp = wk->next;
            break;
        }
    wk->next = u->free_wks;
    u->free_wks = wk;
    pthread_mutex_unlock(&u->ctx_lock);
    ctx->net = NULL;
}
