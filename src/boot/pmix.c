/*
 * pmix.c - the PMIx bootstrap: rank, size and collectives from the job's
 * PMIx server (Open MPI's mpirun (ORTE/PRRTE), srun --mpi=pmix, prun, ...).
 *
 * Owns the PMIx collectives. A plugin (runtime/plugin.h,
 * libsymm-boot-pmix.so, built by cmake/pmix.cmake where pmix.h is found)
 * linked with libpmix: libsymm loads it only for a job under PMIx, so
 * programs that never run under PMIx neither load nor need libpmix.
 *
 * A collective is: PMIx_Put of this PE's blob (allgather) or of a mark
 * (barrier) under key "symm.boot.<k>", PMIx_Commit, a fence over the whole
 * namespace (collecting data for an allgather) with PMIX_TIMEOUT, then, for
 * an allgather, a PMIx_Get of every PE's key. k counts the PMIx collectives
 * of the process (every bootstrap, every instance, across finalize and init
 * again), so no two collectives ever share a key; all PEs make the same
 * collectives in the same order, so they agree on k. The fence is
 * PMIx_Fence_nb and this PE waits for its callback with its own deadline too,
 * in case the server ignores PMIX_TIMEOUT. After a failed fence each PE asks
 * the server for every PE's key of that collective: the PEs whose key cannot
 * be found (within about a second) are the ones that did not arrive, and the
 * error names them.
 *
 * Must never: wait without bound when timeout_s > 0, free memory a pending
 * PMIx callback may still write (on a timeout it is leaked: the job is
 * failing), or call PMIx after PMIx_Finalize. Not thread-safe: one caller at
 * a time, like every bootstrap.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif


#include "boot/boot.h"
#include "boot/boot_io.h"
#include "runtime/log.h"
#include "runtime/plugin.h"
#include "runtime/status.h"

#include <errno.h>
#include <pmix.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Far above any real job; keeps size * blob length products sane. */
#define PMIX_BOOT_MAX_SIZE (1 << 20)
/* How long the diagnosis after a failed fence waits for each PE's key. */
#define PMIX_PROBE_S 1
/* How long the PEs other than the reporter of a failed fence wait before
 * they report it too (report_fence). */
#define REPORT_GRACE_S 2.0

static void value_release(pmix_value_t *v)
{
    if (v != NULL) {
        PMIx_Value_destruct(v);
        free(v);
    }
}

/* ---- info arrays, filled by hand (the PMIX_INFO_* macros call into libpmix) */

/* Whole seconds for PMIX_TIMEOUT, rounded up; 0 (forever) stays 0. */
static int whole_s(double t)
{
    if (t <= 0)
        return 0;
    if (t >= 1e6)
        return 1000000;
    int s = (int)t;
    return (double)s < t ? s + 1 : s;
}

static void info_int(pmix_info_t *in, const char *key, int v)
{
    memset(in, 0, sizeof(*in));
    snprintf(in->key, sizeof(in->key), "%s", key);
    in->value.type = PMIX_INT;
    in->value.data.integer = v;
}

static void info_bool(pmix_info_t *in, const char *key, bool v)
{
    memset(in, 0, sizeof(*in));
    snprintf(in->key, sizeof(in->key), "%s", key);
    in->value.type = PMIX_BOOL;
    in->value.data.flag = v;
}

/* ---- waiting for callbacks --------------------------------------------- */

/* One pending non-blocking call. Freed by whoever finishes last: the waiter
 * after the callback, or nobody when the waiter gave up (leaked on purpose:
 * the callback may still come). */
typedef struct pmix_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
    /* What the call reads, kept until its callback as the standard asks. */
    pmix_proc_t proc;
    pmix_info_t info[2];
} pmix_wait_t;

static pmix_wait_t *wait_new(void)
{
    pmix_wait_t *w = calloc(1, sizeof(*w));
    pthread_condattr_t ca;
    if (w == NULL)
        return NULL;
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &ca);
    pthread_condattr_destroy(&ca);
    return w;
}

static void wait_free(pmix_wait_t *w)
{
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

static void wait_signal(pmix_wait_t *w, pmix_status_t status)
{
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = 1;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static void op_cb(pmix_status_t status, void *cbdata) { wait_signal(cbdata, status); }

/* Only whether the key exists matters; the value stays libpmix's. */
static void value_cb(pmix_status_t status, pmix_value_t *value, void *cbdata)
{
    (void)value;
    wait_signal(cbdata, status);
}

/* 1 when done, 0 when the monotonic deadline `end` passed (end < 0: never). */
static int wait_until(pmix_wait_t *w, double end)
{
    int done;
    pthread_mutex_lock(&w->lock);
    while (!w->done) {
        if (end < 0) {
            pthread_cond_wait(&w->cond, &w->lock);
            continue;
        }
        struct timespec ts;
        ts.tv_sec = (time_t)end;
        ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
        if (pthread_cond_timedwait(&w->cond, &w->lock, &ts) == ETIMEDOUT)
            break;
    }
    done = w->done;
    pthread_mutex_unlock(&w->lock);
    return done;
}

/* ---- the bootstrap ----------------------------------------------------- */

typedef struct pmix_boot {
    symm_boot_t base;
    pmix_proc_t me;
    pmix_proc_t all; /* the namespace, wildcard rank */
    uint32_t seq; /* this bootstrap's collectives, for messages */
    uint32_t key; /* the current collective's k */
    int failed;
} pmix_boot_t;

static const char *pmix_err(pmix_status_t s) { return PMIx_Error_string(s); }

/* The process's PMIx collectives so far (see above). */
static uint32_t pmix_key_seq;

static void key_of(char key[PMIX_MAX_KEYLEN + 1], uint32_t k)
{
    snprintf(key, PMIX_MAX_KEYLEN + 1, "symm.boot.%u", k);
}

/* After a failed fence: which PEs published their key for this collective?
 * Asks for every PE's key at once, bounded by about PMIX_PROBE_S, and sets
 * arrived[r] for each that did (and for this PE). SYMM_OK, or
 * SYMM_ERR_NOMEM when the question could not be asked. */
static int find_arrived(pmix_boot_t *pb, const char *key, uint8_t *arrived)
{
    int n = pb->base.size;
    pmix_wait_t **w = calloc((size_t)n, sizeof(*w));
    double end = symm_boot_deadline(PMIX_PROBE_S + 1.0);

    if (w == NULL)
        return SYMM_ERR_NOMEM;
    arrived[pb->base.rank] = 1;
    for (int r = 0; r < n; r++) {
        if (r == pb->base.rank)
            continue;
        w[r] = wait_new();
        if (w[r] != NULL) {
            w[r]->proc = pb->me;
            w[r]->proc.rank = (pmix_rank_t)r;
            info_int(&w[r]->info[0], PMIX_TIMEOUT, PMIX_PROBE_S);
        }
        if (w[r] == NULL ||
            PMIx_Get_nb(&w[r]->proc, key, w[r]->info, 1, value_cb, w[r]) != PMIX_SUCCESS) {
            if (w[r] != NULL)
                wait_free(w[r]);
            w[r] = NULL;
        }
    }
    for (int r = 0; r < n; r++) {
        if (w[r] == NULL)
            continue;
        if (!wait_until(w[r], end))
            continue; /* leaked: its callback may still come */
        arrived[r] = w[r]->status == PMIX_SUCCESS;
        wait_free(w[r]);
    }
    free(w);
    return SYMM_OK;
}

static int report_fence(pmix_boot_t *pb, const char *what, const char *key, int timed_out,
                        pmix_status_t st, double waited)
{
    int n = pb->base.size, rc = timed_out || st == PMIX_ERR_TIMEOUT ? SYMM_ERR_TIMEOUT
                                                                     : SYMM_ERR_PEER;
    uint8_t *arrived = calloc((size_t)n, 1);
    int *missing = malloc(sizeof(int) * (size_t)n);
    char cause[160], where[96];

    if (timed_out)
        snprintf(cause, sizeof(cause), "PMIx fence timed out after %g s", waited);
    else
        snprintf(cause, sizeof(cause), "PMIx fence failed after %.3g s (%s)", waited,
                 pmix_err(st));
    snprintf(where, sizeof(where), "in %s", what);
    if (arrived == NULL || missing == NULL || find_arrived(pb, key, arrived) != SYMM_OK) {
        symm_error("bootstrap", "%s %s (could not tell which PEs are missing)", cause, where);
    } else {
        /* Every PE that arrived sees the same; the lowest of them reports
         * it at once. The others wait REPORT_GRACE_S first and report only
         * if still alive: usually the launcher has ended the job by then
         * (one error line per job), but if the reporter was slower than a
         * PE whose exit made the launcher kill it, the cause still shows. */
        int reporter = 0;
        while (reporter < n && !arrived[reporter])
            reporter++;
        if (pb->base.rank != reporter)
            symm_boot_sleep(REPORT_GRACE_S);
        (void)symm_boot_missing(missing, symm_boot_absent(arrived, n, -1, missing), cause, where);
    }
    free(arrived);
    free(missing);
    return rc;
}

/* Put + commit + fence for collective #pb->seq. */
static int pmix_step(pmix_boot_t *pb, const char *what, const void *in, size_t len, int gather)
{
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_value_t val;
    size_t ninfo = 0;
    double t = pb->base.timeout_s, t0 = symm_boot_now();
    pmix_status_t st;
    int rc;

    key_of(key, pb->key);
    memset(&val, 0, sizeof(val));
    if (gather) {
        val.type = PMIX_BYTE_OBJECT;
        val.data.bo.bytes = (char *)(uintptr_t)in; /* PMIx_Put copies it */
        val.data.bo.size = len;
    } else {
        val.type = PMIX_UINT32;
        val.data.uint32 = pb->seq;
    }
    st = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (st == PMIX_SUCCESS)
        st = PMIx_Commit();
    if (st != PMIX_SUCCESS) {
        symm_error("bootstrap", "PMIx put/commit for %s failed: %s", what, pmix_err(st));
        return SYMM_ERR_BOOT;
    }

    pmix_wait_t *w = wait_new();
    if (w == NULL) {
        symm_error("bootstrap", "out of memory");
        return SYMM_ERR_NOMEM;
    }
    if (t > 0)
        info_int(&w->info[ninfo++], PMIX_TIMEOUT, whole_s(t));
    info_bool(&w->info[ninfo++], PMIX_COLLECT_DATA, gather != 0);
    w->proc = pb->all;
    st = PMIx_Fence_nb(&w->proc, 1, w->info, ninfo, op_cb, w);
    if (st == PMIX_OPERATION_SUCCEEDED) {
        wait_free(w);
        return SYMM_OK;
    }
    if (st != PMIX_SUCCESS) {
        wait_free(w);
        symm_error("bootstrap", "PMIx fence for %s could not start: %s", what, pmix_err(st));
        return SYMM_ERR_BOOT;
    }
    /* The server should end the fence at t; our own bound comes a little later. */
    if (!wait_until(w, t > 0 ? t0 + t + 2.0 + t / 10 : -1.0))
        return report_fence(pb, what, key, 1, PMIX_ERR_TIMEOUT, symm_boot_now() - t0);
    st = w->status;
    wait_free(w);
    if (st == PMIX_SUCCESS)
        return SYMM_OK;
    rc = report_fence(pb, what, key, st == PMIX_ERR_TIMEOUT, st, symm_boot_now() - t0);
    return rc;
}

static int pmix_collective(pmix_boot_t *pb, const void *in, void *out, size_t len, int gather)
{
    char what[48];
    int rc;

    if (pb->failed != SYMM_OK)
        return pb->failed;
    pb->seq++;
    pb->key = ++pmix_key_seq;
    snprintf(what, sizeof(what), "bootstrap %s #%u", gather ? "allgather" : "barrier", pb->seq);
    rc = pmix_step(pb, what, in, len, gather);
    if (rc != SYMM_OK || !gather)
        goto out;

    char key[PMIX_MAX_KEYLEN + 1];
    pmix_info_t info;
    key_of(key, pb->key);
    info_int(&info, PMIX_TIMEOUT, whole_s(pb->base.timeout_s));
    for (int r = 0; r < pb->base.size && rc == SYMM_OK; r++) {
        uint8_t *dst = (uint8_t *)out + (size_t)r * len;
        pmix_proc_t p = pb->me;
        pmix_value_t *v = NULL;
        if (r == pb->base.rank) {
            if (len > 0)
                memmove(dst, in, len);
            continue;
        }
        p.rank = (pmix_rank_t)r;
        pmix_status_t st = PMIx_Get(&p, key, &info, 1, &v);
        if (st != PMIX_SUCCESS || v == NULL) {
            symm_error("bootstrap", "PMIx get of PE %d's part of %s failed: %s", r, what,
                       pmix_err(st));
            rc = SYMM_ERR_BOOT;
        } else if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != len) {
            symm_error("bootstrap", "mismatched calls: PE %d gives %zu bytes to %s, this PE %zu",
                       r, v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : (size_t)0, what, len);
            rc = SYMM_ERR_BOOT;
        } else if (len > 0) {
            memcpy(dst, v->data.bo.bytes, len);
        }
        value_release(v);
    }
out:
    if (rc != SYMM_OK)
        pb->failed = rc;
    return rc;
}

static int pmix_barrier(symm_boot_t *boot)
{
    return pmix_collective((pmix_boot_t *)boot, NULL, NULL, 0, 0);
}

static int pmix_allgather(symm_boot_t *boot, const void *in, void *out, size_t len)
{
    if (len > SIZE_MAX / 2 / (size_t)boot->size || len > UINT32_MAX) {
        symm_error("bootstrap", "allgather of %zu bytes per PE is too large", len);
        return SYMM_ERR_INVALID;
    }
    return pmix_collective((pmix_boot_t *)boot, in, out, len, 1);
}

static void pmix_fini(symm_boot_t *boot)
{
    pmix_status_t st = PMIx_Finalize(NULL, 0);
    if (st != PMIX_SUCCESS)
        symm_warn("bootstrap", "PMIx_Finalize: %s", pmix_err(st));
    free(boot);
}

static const symm_boot_ops_t pmix_ops = {
    .name = "pmix",
    .barrier = pmix_barrier,
    .allgather = pmix_allgather,
    .fini = pmix_fini,
};

/* ---- creation ---------------------------------------------------------- */

static int get_job_size(const pmix_proc_t *all, int *size_p)
{
    pmix_value_t *v = NULL;
    unsigned long long n = 0;
    pmix_status_t st = PMIx_Get(all, PMIX_JOB_SIZE, NULL, 0, &v);
    if (st != PMIX_SUCCESS || v == NULL) {
        symm_error("bootstrap", "PMIx has no job size (%s): %s", PMIX_JOB_SIZE, pmix_err(st));
        return SYMM_ERR_BOOT;
    }
    switch (v->type) {
    case PMIX_UINT32: n = v->data.uint32; break;
    case PMIX_UINT64: n = v->data.uint64; break;
    case PMIX_UINT16: n = v->data.uint16; break;
    case PMIX_INT: n = v->data.integer > 0 ? (unsigned long long)v->data.integer : 0; break;
    case PMIX_SIZE: n = v->data.size; break;
    default: n = 0; break;
    }
    value_release(v);
    if (n < 1 || n > PMIX_BOOT_MAX_SIZE) {
        symm_error("bootstrap", "PMIx job size %llu is not a PE count in 1..%d", n,
                   PMIX_BOOT_MAX_SIZE);
        return SYMM_ERR_BOOT;
    }
    *size_p = (int)n;
    return SYMM_OK;
}

static int pmix_create(void *arg, double timeout_s, symm_boot_t **boot_p)
{
    pmix_boot_t *pb;
    pmix_status_t st;
    int rc;

    (void)arg;
    pb = calloc(1, sizeof(*pb));
    if (pb == NULL) {
        symm_error("bootstrap", "out of memory");
        return SYMM_ERR_NOMEM;
    }
    st = PMIx_Init(&pb->me, NULL, 0);
    if (st != PMIX_SUCCESS) {
        symm_error("bootstrap", "PMIx_Init failed: %s (is this process started by a PMIx "
                   "launcher such as mpirun or srun --mpi=pmix?)", pmix_err(st));
        free(pb);
        return SYMM_ERR_BOOT;
    }
    pb->all = pb->me;
    pb->all.rank = PMIX_RANK_WILDCARD;
    rc = get_job_size(&pb->all, &pb->base.size);
    if (rc == SYMM_OK && pb->me.rank >= (pmix_rank_t)pb->base.size) {
        symm_error("bootstrap", "PMIx rank %u is not below the job size %d", pb->me.rank,
                   pb->base.size);
        rc = SYMM_ERR_BOOT;
    }
    if (rc != SYMM_OK) {
        PMIx_Finalize(NULL, 0);
        free(pb);
        return rc;
    }
    pb->base.ops = &pmix_ops;
    pb->base.rank = (int)pb->me.rank;
    pb->base.timeout_s = timeout_s;
    symm_log_set_pe(pb->base.rank);
    symm_debug("bootstrap", "pmix: namespace %s, rank %d of %d", pb->me.nspace, pb->base.rank,
               pb->base.size);
    *boot_p = &pb->base;
    return SYMM_OK;
}

static const symm_boot_plugin_ops_t pmix_plugin_ops = {
    .boot_size = sizeof(symm_boot_t),
    .create = pmix_create,
};

SYMM_PLUGIN_DEFINE("boot-pmix", "PMIx, libpmix.so.2", &pmix_plugin_ops)
