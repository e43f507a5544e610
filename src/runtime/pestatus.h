/*
 * pestatus.h - what each PE is doing, published where its peers can read it.
 *
 * Every PE keeps one status record at a fixed offset of its heap's reserved
 * scratch, so a node-local peer reads it through its mapping of that heap,
 * with no message and no cooperation: the watcher (core/watch.c) reads it
 * to say, when a PE dies, exits early or hangs, what every PE was doing.
 *
 * Publishing costs nothing on fast paths. A blocking routine names itself
 * in a thread-local "doing" descriptor (a few stores, only for routines
 * that can block); the record is written from it only when a wait has
 * spun out and starts yielding the CPU (ops/sync.h), and each later yield
 * refreshes a heartbeat. So a record says "blocked in X since T" exactly
 * when a wait is slow, and a stale heartbeat means the PE left symm.
 *
 * Layer runtime/ (the bottom one; docs/ARCHITECTURE.md).
 */
#ifndef SYMM_PESTATUS_H
#define SYMM_PESTATUS_H

#include <stdint.h>
#include <time.h>

#include "runtime/state.h"

/* In the heap's misc scratch (team/team.h: SYMM_MISC_SCRATCH), after the
 * SHMEM_DEBUG allocation word (core/heap.c). */
#define SYMM_PE_STATUS_OFF (48 * 1024)
#define SYMM_PE_STATUS_MAGIC 0x73796d6d73746174ull /* "symmstat" */

/* Life of a PE as its peers see it. */
typedef enum symm_pe_phase {
    SYMM_PHASE_NONE = 0,      /* record not written yet */
    SYMM_PHASE_RUNNING,       /* initialised */
    SYMM_PHASE_FINALIZING,    /* in shmem_finalize, before its final barrier */
    SYMM_PHASE_FINALIZED,     /* passed finalize's barrier: its exit is normal */
    SYMM_PHASE_EXITED,        /* exit(status != 0) before finalize; it reported */
    SYMM_PHASE_GLOBAL_EXIT,   /* shmem_global_exit(status) */
    SYMM_PHASE_ABORTED,       /* ended the job after a report (hang, mismatch, dead peer) */
    SYMM_PHASE_SIGNALED,      /* a fatal signal; status is its number */
} symm_pe_phase_t;

/* What a blocking routine is doing (kind of the descriptor). */
typedef enum symm_doing_kind {
    SYMM_DOING_NONE = 0,
    SYMM_DOING_WAIT,          /* addr cmp value */
    SYMM_DOING_COLL,          /* team, seq, root, nbytes */
    SYMM_DOING_LOCK,          /* addr */
    SYMM_DOING_OTHER,
} symm_doing_kind_t;

/* Value flags of a wait: how to print its value. */
#define SYMM_VAL_SIGNED 1
#define SYMM_VAL_FLOAT 2

/* The thread-local descriptor of the blocking routine a thread is in. */
typedef struct symm_doing {
    const char *routine;      /* NULL: none */
    int kind;
    const char *team_name;
    uint64_t seq;             /* the team's collective number; 0: unnumbered */
    int root;                 /* -1: none */
    uint64_t nbytes;
    const void *addr;         /* wait, lock */
    int cmp;
    int vsize, vflags;
    uint64_t value;           /* compared-with value's bits */
    struct symm_pe_status *published; /* the record it went into, if it did */
} symm_doing_t;

/* The shared record, written by its PE only (the report words excepted:
 * claim of local index 0's record, which every PE of the node may CAS;
 * job_claim of PE 0's record, reported_by and reported_status of each
 * node's first record, which PEs of other nodes set through the network
 * transport, ops/fail_report.c).
 * Text fields are NUL-terminated. Readers tolerate a torn record: it is
 * diagnostic, never a decision input except `phase`, `pid`, the report
 * words and the hang report's since_ms (read once: symm_pe_blocked_ms). A
 * peer on another node reads it with the transport's bounded peek
 * (core/watch.c). */
typedef struct symm_pe_status {
    uint64_t magic;
    int32_t pid;
    int32_t phase;            /* symm_pe_phase_t */
    int32_t status;           /* exit status, or signal number */
    int32_t claim;            /* node-wide: 1 + PE that reports; 0: none yet */
    int32_t job_claim;        /* PE 0's: job-wide, 1 + PE that reports; 0: none yet */
    int32_t reported_by;      /* a node's first: 1 + the PE of another node whose report
                               * of the job is out; 0: none */
    int32_t reported_status;  /* with it: the job's exit status (written first) */
    int32_t pad0;
    uint64_t pidns;           /* pid namespace: pids compare only within one */
    char host[64];
    /* the blocking call */
    uint64_t since_ms;        /* CLOCK_MONOTONIC ms it started to block; 0: never */
    uint64_t beat_ms;         /* last poll of that wait */
    char routine[48];
    char team_name[32];
    int32_t kind, root, cmp, pad;
    uint64_t seq, nbytes;
    int32_t seg, vsize, vflags;
    int32_t publishing;       /* a thread of this PE is writing the call: others skip */
    uint64_t off;             /* wait/lock address: segment offset */
    uint64_t value;
} symm_pe_status_t;

extern __thread symm_doing_t symm_doing __attribute__((tls_model("initial-exec")));

/* Name the blocking routine this thread enters; 1 if it took the
 * descriptor (nothing was there), 0 if an outer routine holds it (a barrier
 * inside a collective). Pair with symm_doing_end(taken). */
static inline int symm_doing_begin(const symm_doing_t *d)
{
    if (symm_doing.routine != NULL)
        return 0;
    symm_doing = *d;
    return 1;
}

void symm_doing_unpublish(void) __attribute__((cold));

static inline void symm_doing_end(int taken)
{
    if (taken) {
        symm_doing.routine = NULL;
        if (symm_doing.published != NULL)
            symm_doing_unpublish();
    }
}

static inline void symm_doing_cleanup(int *taken) { symm_doing_end(*taken); }

/* symm_doing_begin's result, ended when the enclosing scope ends. */
#define SYMM_DOING_SCOPE(taken_expr)                                                          \
    int symm_doing_taken_ __attribute__((cleanup(symm_doing_cleanup), unused)) = (taken_expr)

/* This PE's record and a mapped peer's (NULL if pe is not mapped here). */
static inline symm_pe_status_t *symm_pe_status(const symm_instance_t *s)
{
    return (symm_pe_status_t *)(void *)(s->heap_base + SYMM_PE_STATUS_OFF);
}

static inline symm_pe_status_t *symm_pe_status_of(const symm_instance_t *s, int pe)
{
    const symm_peer_t *p = &s->peers[pe];
    if (!p->mapped)
        return NULL;
    return (symm_pe_status_t *)(void *)(s->heap_base + SYMM_PE_STATUS_OFF + p->heap_delta);
}

/* Has a PE of this node claimed the job's failure report (core/watch.c)?
 * Then other failures this PE sees are consequences: it lets the report
 * finish rather than print one of its own. */
static inline int symm_pe_report_claimed(const symm_instance_t *s)
{
    const symm_pe_status_t *r0 =
        s->local_pes != NULL && s->heap_base != NULL ? symm_pe_status_of(s, s->local_pes[0]) : NULL;
    return r0 != NULL && __atomic_load_n(&r0->claim, __ATOMIC_ACQUIRE) != 0;
}

/* The job's failure report, as this PE knows it (ops/fail_report.c):
 * symm_pe_deferred, this PE lost the claim to another PE and waits to be
 * ended; symm_pe_reporting, this thread is writing a report (a peer's
 * connection lost meanwhile must not end the PE before it is out). */
extern int symm_pe_deferred;
extern __thread int symm_pe_reporting;

/* Has a PE this node does not map marked this node's first record
 * (reported_by) once its report of the job was out? */
static inline int symm_pe_report_marked(const symm_instance_t *s)
{
    const symm_pe_status_t *r0 =
        s->local_pes != NULL && s->heap_base != NULL ? symm_pe_status_of(s, s->local_pes[0]) : NULL;
    int32_t by = r0 != NULL ? __atomic_load_n(&r0->reported_by, __ATOMIC_ACQUIRE) : 0;
    return by > 0 && by <= s->n_pes && s->peers[by - 1].local_idx < 0;
}

/* Is the job's report someone else's, so that a failure this PE sees now
 * (a peer's connection lost, a node-local peer gone) is its consequence and
 * the PE should end quietly? Either it deferred, or its node is marked. */
static inline int symm_pe_report_elsewhere(const symm_instance_t *s)
{
    return __atomic_load_n(&symm_pe_deferred, __ATOMIC_ACQUIRE) || symm_pe_report_marked(s);
}

/* The status a PE ends with as a consequence of the job's report: the one
 * its reporter marked this node with, else dflt. */
static inline int symm_pe_report_status(const symm_instance_t *s, int dflt)
{
    if (!symm_pe_report_marked(s))
        return dflt;
    int32_t st = __atomic_load_n(&symm_pe_status_of(s, s->local_pes[0])->reported_status,
                                 __ATOMIC_ACQUIRE);
    return st != 0 ? st : dflt;
}

/* End this PE because the job failed (the watcher, a report, a consequence
 * of one): status for a launcher that is not oshrun (0 becomes 1); under
 * oshrun (SYMM_CTRL_FD) it waits for oshrun's signal, which ends every PE
 * with the status of the first failure oshrun saw. self: this PE is the
 * one that reported (a hang, a mismatch): under oshrun it says so
 * ("reported": oshrun prints no second line) and exits. Marks the record
 * ABORTED first, so node-local watchers take its end as explained. */
__attribute__((noreturn)) void symm_pe_end(symm_instance_t *s, int status, int self);

/* CLOCK_MONOTONIC in ms, the coarse clock (no system call; it steps once per kernel tick). */
uint64_t symm_now_ms(void);

/* No heartbeat for this long: the PE left the wait its record names. */
#define SYMM_BEAT_STALE_MS 1000

/* How long the PE of record r has been blocked in a symm call at now, in
 * ms, or -1 if it is not (no call published, or a stale heartbeat). The
 * watcher's hang report ends the job on this figure, so since_ms is read
 * once: the PE clears it when the call returns, and a second read could
 * see 0 (now - 0: hours). A call published after the reader took now
 * (with the coarse clock, at the same ms or a tick later) has been
 * blocked 0 ms, not now - since wrapped around. */
static inline int64_t symm_pe_blocked_ms(const symm_pe_status_t *r, uint64_t now)
{
    uint64_t since = __atomic_load_n(&r->since_ms, __ATOMIC_ACQUIRE);
    uint64_t beat = __atomic_load_n(&r->beat_ms, __ATOMIC_RELAXED);
    if (since == 0 || beat + SYMM_BEAT_STALE_MS < now)
        return -1;
    return since < now ? (int64_t)(now - since) : 0;
}

/* CLOCK_MONOTONIC in ns (vDSO: no system call): the waits' timed spin. */
static inline uint64_t symm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fill this PE's record at init (pid, host, namespace; phase RUNNING). */
void symm_pe_status_init(symm_instance_t *s);

/* symm_fatal's mark (runtime/log.h symm_log_fatal_mark, set at init): the
 * current instance's record, if this process wrote it (after init; not in
 * a child forked since), says ABORTED, 255; 1 if it did. */
int symm_pe_status_fatal_mark(void);

/* Set this PE's phase (and status); a release store peers read. */
void symm_pe_status_phase(symm_instance_t *s, symm_pe_phase_t phase, int status);

#endif
