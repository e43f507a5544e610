/*
 * shmem_setup.c - OpenSHMEM setup, exit and query routines.
 *
 * Owns the transition between "no instance" and "initialised instance" for
 * the OpenSHMEM API. shmem_init after shmem_finalize is an error; finalize
 * twice is harmless; a program that exits with status 0 without finalize is
 * finalized by an exit handler so that peers blocked in finalize are
 * released. One that exits with another status before finalize is not: its
 * peers are not coming to a finalize, so the handler says so and lets the
 * exit go on (stdio flushed by exit), and the launcher ends the job with
 * that status.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api_instance.h"
#include "core/instance.h"
#include "core/pe_report.h"
#include "runtime/pestatus.h"
#include "mem/seg.h"
#include "ops/fail_report.h"
#include "ops/region_ops.h"
#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"
#include "shmemx.h"

SYMM_API_VAR shmem_ctx_t SHMEM_CTX_DEFAULT;
SYMM_API_VAR shmem_team_t SHMEM_TEAM_WORLD;
SYMM_API_VAR shmem_team_t SHMEM_TEAM_SHARED;

static int finalized_once;
static int atexit_registered;

static void finalize_at_exit(int status, void *arg)
{
    (void)arg;
    if (symm_cur == NULL)
        return;
    if (status != 0) {
        symm_report_exit(symm_cur, status, "shmem_finalize");
        return;
    }
    /* Its output first: the implicit finalize waits for every peer. */
    fflush(stdout);
    shmem_finalize();
}

static int do_init(int requested, int *provided, const char *routine)
{
    if (symm_cur != NULL) {
        if (provided)
            *provided = symm_cur->thread_level;
        return 0; /* repeated init is harmless */
    }
    if (finalized_once)
        symm_fatal(routine, "the library cannot be initialized again after shmem_finalize");
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        symm_fatal(routine, "invalid thread level %d", requested);
    symm_instance_t *inst;
    symm_instance_args_t args = {.thread_level = requested};
    int rc = symm_instance_create(&args, &inst);
    if (rc != 0)
        symm_fatal(routine, "initialization failed: %s", symm_status_str((symm_status_t)rc));
    symm_instance_select(inst);
    if (!atexit_registered) {
        on_exit(finalize_at_exit, NULL);
        atexit_registered = 1;
    }
    if (provided)
        *provided = requested;
    return 0;
}

void shmem_init(void) { do_init(SHMEM_THREAD_SINGLE, NULL, "shmem_init"); }

int shmem_init_thread(int requested, int *provided)
{
    return do_init(requested, provided, "shmem_init_thread");
}

void start_pes(int npes)
{
    (void)npes;
    do_init(SHMEM_THREAD_SINGLE, NULL, "start_pes");
}

void shmem_query_thread(int *provided)
{
    *provided = symm_inst("shmem_query_thread")->thread_level;
}

void shmem_finalize(void)
{
    symm_instance_t *s = symm_cur;
    if (s == NULL)
        return;
    int rc = symm_instance_finalize(s, "shmem_finalize");
    if (rc != 0)
        symm_error("shmem_finalize", "final bootstrap barrier failed: %s",
                   symm_status_str((symm_status_t)rc));
    symm_instance_select(NULL);
    finalized_once = 1;
    symm_instance_destroy(s);
}

int shmem_query_initialized(int *initialized)
{
    *initialized = symm_cur != NULL;
    return 0;
}

int shmem_query_finalized(int *finalized)
{
    *finalized = finalized_once;
    return 0;
}

int shmem_my_pe(void) { return symm_inst("shmem_my_pe")->my_pe; }
int shmem_n_pes(void) { return symm_inst("shmem_n_pes")->n_pes; }
int _my_pe(void) { return symm_inst("_my_pe")->my_pe; }
int _num_pes(void) { return symm_inst("_num_pes")->n_pes; }

int shmem_pe_accessible(int pe)
{
    symm_instance_t *s = symm_inst("shmem_pe_accessible");
    if (pe < 0 || pe >= s->n_pes)
        return 0;
    return s->peers[pe].mapped || s->net != NULL;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    symm_instance_t *s = symm_inst("shmem_addr_accessible");
    size_t off, room;
    if (!shmem_pe_accessible(pe))
        return 0;
    return symm_seg_translate(s, addr, &off, &room) != SYMM_SEG_NONE ||
           symm_region_find(s, addr, &off, &room) != NULL;
}

void *shmem_ptr(const void *dest, int pe)
{
    symm_instance_t *s = symm_inst("shmem_ptr");
    if (pe < 0 || pe >= s->n_pes)
        return NULL;
    void *p = symm_seg_peer_addr(s, dest, pe);
    if (p == NULL)
        return symm_region_peer_ptr(s, dest, pe); /* registered memory */
    /* My own globals: the address itself, not the second mapping. */
    return pe == s->my_pe ? (void *)dest : p;
}

void shmem_global_exit(int status)
{
    symm_instance_t *s = symm_cur;
    if (s != NULL) {
        symm_quiet(s, &s->ctx_default);
        /* Node-local watchers end with this status instead of reporting a
         * death (core/watch.c); PEs this one does not map (other nodes,
         * SYMM_TRANSPORT=ucx) learn it from the mark, not as a lost peer. */
        symm_pe_status_phase(s, SYMM_PHASE_GLOBAL_EXIT, status);
        symm_report_mark_others(s, status);
    }
    fflush(stdout);
    fflush(stderr);
    symm_job_exit(status);
}

void shmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

double shmemx_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Profiling control: symm has no built-in profiling; the level is kept for
 * tools that interpose on the pshmem_ names. */
void shmem_pcontrol(int level, ...) { (void)level; }

/* Deprecated cache routines: symm keeps no caches to manage. */
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }

SYMM_PALIAS(shmem_init)
SYMM_PALIAS(shmem_init_thread)
SYMM_PALIAS(start_pes)
SYMM_PALIAS(shmem_query_thread)
SYMM_PALIAS(shmem_finalize)
SYMM_PALIAS(shmem_query_initialized)
SYMM_PALIAS(shmem_query_finalized)
SYMM_PALIAS(shmem_my_pe)
SYMM_PALIAS(shmem_n_pes)
SYMM_PALIAS(_my_pe)
SYMM_PALIAS(_num_pes)
SYMM_PALIAS(shmem_pe_accessible)
SYMM_PALIAS(shmem_addr_accessible)
SYMM_PALIAS(shmem_ptr)
extern __typeof__(shmem_global_exit) pshmem_global_exit
    __attribute__((alias("shmem_global_exit"), visibility("default"), noreturn));
SYMM_PALIAS(shmem_info_get_version)
SYMM_PALIAS(shmem_info_get_name)
SYMM_PALIAS(shmem_pcontrol)
SYMM_PALIAS(shmem_clear_cache_inv)
SYMM_PALIAS(shmem_set_cache_inv)
SYMM_PALIAS(shmem_clear_cache_line_inv)
SYMM_PALIAS(shmem_set_cache_line_inv)
SYMM_PALIAS(shmem_udcflush)
SYMM_PALIAS(shmem_udcflush_line)
