/*
 * pestatus.c - this PE's status record: its identity at init, its phase.
 *
 * The blocking-call part is written by ops/wait_status.c (it needs symmetric
 * address translation, a layer up); the watcher that reads records is
 * core/watch.c.
 */
#define _GNU_SOURCE
#include "runtime/pestatus.h"
#include "runtime/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

__thread symm_doing_t symm_doing __attribute__((tls_model("initial-exec")));
int symm_pe_deferred;
__thread int symm_pe_reporting;

uint64_t symm_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int symm_pe_status_fatal_mark(void)
{
    symm_instance_t *s = symm_cur;
    if (s == NULL || s->heap_base == NULL)
        return 0;
    symm_pe_status_t *r = symm_pe_status(s);
    if (r->magic != SYMM_PE_STATUS_MAGIC || r->pid != (int32_t)getpid())
        return 0;
    symm_pe_status_phase(s, SYMM_PHASE_ABORTED, 255);
    return 1;
}

void symm_pe_status_init(symm_instance_t *s)
{
    symm_log_fatal_mark = symm_pe_status_fatal_mark;
    symm_pe_status_t *r = symm_pe_status(s);
    struct stat st = {0};
    memset(r, 0, sizeof(*r));
    r->pid = (int32_t)getpid();
    if (stat("/proc/self/ns/pid", &st) == 0)
        r->pidns = (uint64_t)st.st_ino;
    gethostname(r->host, sizeof(r->host) - 1);
    r->magic = SYMM_PE_STATUS_MAGIC;
    __atomic_store_n(&r->phase, SYMM_PHASE_RUNNING, __ATOMIC_RELEASE);
}

void symm_pe_status_phase(symm_instance_t *s, symm_pe_phase_t phase, int status)
{
    symm_pe_status_t *r = symm_pe_status(s);
    r->status = status;
    __atomic_store_n(&r->phase, (int32_t)phase, __ATOMIC_RELEASE);
}

void symm_doing_unpublish(void)
{
    /* The call the record names has returned. */
    __atomic_store_n(&symm_doing.published->since_ms, 0, __ATOMIC_RELEASE);
    symm_doing.published = NULL;
}

static void flush_stdout(void)
{
    /* Only if nobody holds it: the PE's thread may be anywhere. */
    if (ftrylockfile(stdout) == 0) {
        fflush_unlocked(stdout);
        funlockfile(stdout);
    }
}

void symm_pe_end(symm_instance_t *s, int status, int self)
{
    if (status == 0)
        status = 1;
    symm_pe_status_phase(s, SYMM_PHASE_ABORTED, status);
    flush_stdout();
    if (getenv("SYMM_CTRL_FD") != NULL) {
        if (self) {
            symm_launcher_say("reported");
            _exit(status);
        }
        for (int i = 0; i < 100; i++)
            usleep(100000);
    }
    _exit(status);
}
