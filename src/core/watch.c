/*
 * watch.c - the watcher: a PE that dies, exits early, hangs or enters the
 * wrong collective ends the job with a report, in every launch mode.
 *
 * One thread per instance sleeps in poll() on a pidfd of every node-local
 * peer (and, when a hang timeout asks for it, wakes every 100 ms). Nothing
 * runs on the PE's own paths: the records it reads are published by slow
 * waits only (runtime/pestatus.h). When a peer's process
 * ends, its record says whether that was normal (it passed finalize's
 * barrier), already reported (it exited early, called global_exit, or
 * reported a hang), or a death nobody explained; then the first PE of the
 * node to claim the node's report word prints one block naming the PE and
 * what every PE was doing, and the node's PEs end.
 *
 * PEs on other nodes are watched by the network transport (UCX's peer
 * failure mode, transport/ucx/ucx.c) and by their own node's watchers. A
 * hang's and an early exit's report read their records (and the words they
 * wait on) through the transport's bounded peek, so the report names every
 * PE of the job; a death's keeps to mapped records (no time to wait).
 * A failure several PEs see (a hang) is printed once per job: the first
 * PE to claim the job's report (ops/fail_report.h) prints, the others
 * defer and end quietly.
 *
 * Under oshrun (SYMM_CTRL_FD set) the launcher owns the job's end and its
 * status: a PE that reports tells it so (it then prints no second line) and
 * survivors wait for its SIGTERM instead of exiting with a status of their
 * own, which it could mistake for the first failure.
 */
#define _GNU_SOURCE
#include "core/watch.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mem/seg.h"
#include "ops/fail_report.h"
#include "runtime/log.h"
#include "runtime/pestatus.h"
#include "runtime/status.h"
#include "transport/transport.h"

#define TICK_MS 100

/* What a report knows of a PE: its record (mapped here, or a copy read
 * through the network transport), the current value of the word it waits
 * on (its mapped copy, or a copy read), whether the record's times are
 * this kernel's clock, and why there is no record. */
typedef struct pe_view {
    const symm_pe_status_t *r;
    const void *word;
    int same_clock;
    const char *none;
} pe_view_t;

struct symm_watch {
    symm_instance_t *s;
    pthread_t thread;
    int stop_fd;
    int n;                    /* pollfds: [0] stop, then one per watched peer */
    struct pollfd *pfd;
    int *pe_of;               /* PE of pfd[i] */
    double hang_s;            /* 0: no hang report */
    int tick;                 /* poll timeout: TICK_MS or -1 */
    /* The thread's report buffers, allocated at start: it calls no malloc
     * (a static program's remapped libc has deadlocked a second thread's
     * first malloc here). */
    int *gone;                /* [n_pes]: its process ended */
    pe_view_t *views;         /* [n_pes]: the hang report's */
    char (*what)[200];        /* [n_pes] */
    char *done;               /* [n_pes] */
    char *text;
    size_t text_cap;
};

/* ---- what a PE is doing, in words ---------------------------------------- */

static const char *cmp_name(int cmp)
{
    static const char *const names[] = {"SHMEM_CMP_EQ", "SHMEM_CMP_NE", "SHMEM_CMP_GT",
                                        "SHMEM_CMP_LE", "SHMEM_CMP_LT", "SHMEM_CMP_GE"};
    return cmp >= 0 && cmp < 6 ? names[cmp] : "?";
}

static const char *sig_name(int sig)
{
    static __thread char name[16];
    const char *d = sigabbrev_np(sig);
    snprintf(name, sizeof(name), "SIG%s", d != NULL ? d : "?");
    return name;
}

/* A value of the record's type from its bits. */
static int fmt_value(char *out, size_t cap, uint64_t bits, int vsize, int vflags)
{
    if (vflags & SYMM_VAL_FLOAT) {
        double d;
        if (vsize == 4) {
            float f;
            memcpy(&f, &bits, 4);
            d = f;
        } else {
            memcpy(&d, &bits, 8);
        }
        return snprintf(out, cap, "%g", d);
    }
    if (vsize > 0 && vsize < 8) {
        uint64_t mask = (1ull << (vsize * 8)) - 1;
        bits &= mask;
        if ((vflags & SYMM_VAL_SIGNED) && (bits >> (vsize * 8 - 1)) & 1)
            bits |= ~mask;
    }
    if (vflags & SYMM_VAL_SIGNED)
        return snprintf(out, cap, "%lld", (long long)bits);
    return snprintf(out, cap, "%llu", (unsigned long long)bits);
}

/* Where pe's copy of a symmetric (segment, offset) is mapped here. */
static const void *peer_copy(const symm_instance_t *s, int pe, int seg, uint64_t off)
{
    const symm_peer_t *p = &s->peers[pe];
    if (seg == SYMM_SEG_HEAP && p->mapped && off < symm_heap_size(s))
        return s->heap_base + off + p->heap_delta;
    if (seg == SYMM_SEG_DATA && p->data_base != NULL && off < s->data_size)
        return p->data_base + off;
    return NULL;
}

/* The view of a PE whose record is mapped here (or says why not). */
static pe_view_t view_mapped(const symm_instance_t *s, int pe)
{
    const symm_pe_status_t *r = symm_pe_status_of(s, pe);
    pe_view_t v = {.same_clock = 1};
    if (r == NULL || r->magic != SYMM_PE_STATUS_MAGIC) {
        /* Its own node's watchers report what it does. */
        v.none = s->peers[pe].same_node ? "not mapped here (state not visible)"
                                        : "on another node (state not visible here)";
        return v;
    }
    v.r = r;
    v.word = r->kind == SYMM_DOING_WAIT ? peer_copy(s, pe, r->seg, r->off) : NULL;
    return v;
}

/* How long the PE of view v has been blocked in a symm call at now, in
 * ms, or -1 if it is not (symm_pe_blocked_ms: since_ms read once). With
 * another kernel's clock, a published call is taken as blocked (its
 * heartbeat cannot be compared with this clock; the call's end clears
 * it), for as long as its own clock says: last heartbeat - since. */
static int64_t blocked_ms_v(const pe_view_t *v, uint64_t now)
{
    if (v->same_clock)
        return symm_pe_blocked_ms(v->r, now);
    uint64_t since = __atomic_load_n(&v->r->since_ms, __ATOMIC_ACQUIRE);
    uint64_t beat = __atomic_load_n(&v->r->beat_ms, __ATOMIC_RELAXED);
    if (since == 0)
        return -1;
    return beat > since ? (int64_t)(beat - since) : 0;
}

static int blocked(const symm_pe_status_t *r, uint64_t now)
{
    return symm_pe_blocked_ms(r, now) >= 0;
}

/* "shmem_x on TEAM (call #k, root r, n bytes)" or "shmem_wait_until(...)". */
static void fmt_call(const pe_view_t *pv, int detail, char *out, size_t cap)
{
    const symm_pe_status_t *r = pv->r;
    char v[32], now_v[32] = "";
    int n = snprintf(out, cap, "%.47s", r->routine);
    if ((size_t)n >= cap)
        return;
    switch (r->kind) {
    case SYMM_DOING_COLL:
        n += snprintf(out + n, cap - (size_t)n, " on %.31s",
                      r->team_name[0] ? r->team_name : "a team");
        if (detail && (size_t)n < cap) {
            n += snprintf(out + n, cap - (size_t)n, " (");
            if (r->seq != 0 && (size_t)n < cap)
                n += snprintf(out + n, cap - (size_t)n, "call #%llu", (unsigned long long)r->seq);
            if (r->root >= 0 && (size_t)n < cap)
                n += snprintf(out + n, cap - (size_t)n, ", root %d", r->root);
            if (r->nbytes != 0 && (size_t)n < cap)
                n += snprintf(out + n, cap - (size_t)n, ", %llu bytes",
                              (unsigned long long)r->nbytes);
            if ((size_t)n < cap)
                snprintf(out + n, cap - (size_t)n, ")");
        }
        break;
    case SYMM_DOING_WAIT: {
        if (!detail)
            break;
        fmt_value(v, sizeof(v), r->value, r->vsize, r->vflags);
        if (pv->word != NULL && r->vsize > 0 && r->vsize <= 8) {
            uint64_t cur = 0;
            memcpy(&cur, pv->word, (size_t)r->vsize);
            memcpy(now_v, "; now ", 7);
            fmt_value(now_v + 6, sizeof(now_v) - 6, cur, r->vsize, r->vflags);
        }
        snprintf(out + n, cap - (size_t)n, "(%s+%llu%s, %s %s%s)",
                 r->seg == SYMM_SEG_HEAP ? "heap" : r->seg == SYMM_SEG_DATA ? "data" : "?",
                 (unsigned long long)r->off, r->nbytes > 1 ? " ..." : "", cmp_name(r->cmp), v,
                 now_v);
        break;
    }
    case SYMM_DOING_LOCK:
        if (detail)
            snprintf(out + n, cap - (size_t)n, "(lock at %s+%llu)",
                     r->seg == SYMM_SEG_HEAP ? "heap" : r->seg == SYMM_SEG_DATA ? "data" : "?",
                     (unsigned long long)r->off);
        break;
    default:
        break;
    }
}

/* What the PE of view v is doing, as the end of "PE n ...". gone: its
 * process ended. */
static void describe_v(const pe_view_t *v, int gone, int detail, uint64_t now, char *out,
                       size_t cap)
{
    const symm_pe_status_t *r = v->r;
    if (r == NULL) {
        snprintf(out, cap, "%s", v->none);
        return;
    }
    int phase = __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE);
    char call[192];
    switch (phase) {
    case SYMM_PHASE_FINALIZED:
        snprintf(out, cap, "finalized");
        return;
    case SYMM_PHASE_EXITED:
        snprintf(out, cap, "exited with status %d", r->status);
        return;
    case SYMM_PHASE_GLOBAL_EXIT:
        snprintf(out, cap, "called shmem_global_exit(%d)", r->status);
        return;
    case SYMM_PHASE_SIGNALED:
        snprintf(out, cap, "killed by %s", sig_name(r->status));
        return;
    default:
        break;
    }
    if (gone) {
        snprintf(out, cap, "gone");
        return;
    }
    int64_t for_ms = blocked_ms_v(v, now);
    if (for_ms >= 0) {
        fmt_call(v, detail, call, sizeof(call));
        if (detail)
            snprintf(out, cap, "in %s for %.1f s", call, (double)for_ms / 1e3);
        else
            snprintf(out, cap, "in %s", call);
        return;
    }
    snprintf(out, cap, phase == SYMM_PHASE_FINALIZING ? "in shmem_finalize" : "outside symm");
}

/* Appends "; PEs 0,2,3 in X; PE 4 outside symm" for every PE but skip,
 * grouping PEs that do the same. */
static int summarize(const symm_instance_t *s, int skip, const int *gone, const pe_view_t *views,
                     uint64_t now, char *buf, size_t cap, char (*what)[200], char *done)
{
    int n = 0, np = s->n_pes;
    memset(done, 0, (size_t)np);
    for (int pe = 0; pe < np; pe++)
        if (pe != skip)
            describe_v(&views[pe], gone != NULL && gone[pe], 0, now, what[pe], sizeof(what[pe]));
    for (int pe = 0; pe < np && (size_t)n < cap; pe++) {
        if (pe == skip || done[pe])
            continue;
        int count = 0;
        for (int q = pe; q < np; q++)
            count += q != skip && !done[q] && strcmp(what[q], what[pe]) == 0;
        n += snprintf(buf + n, cap - (size_t)n, "; PE%s ", count > 1 ? "s" : "");
        int first = 1;
        for (int q = pe; q < np && (size_t)n < cap; q++) {
            if (q == skip || done[q] || strcmp(what[q], what[pe]) != 0)
                continue;
            done[q] = 1;
            n += snprintf(buf + n, cap - (size_t)n, first ? "%d" : ",%d", q);
            first = 0;
        }
        if ((size_t)n < cap)
            n += snprintf(buf + n, cap - (size_t)n, " %s", what[pe]);
    }
    return (size_t)n < cap ? n : (int)cap - 1;
}

/* One line or block to stderr in one write, so PEs' reports never mix. */
static void emit(const char *text)
{
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(STDERR_FILENO, text + off, len - off);
        if (w <= 0 && errno != EINTR)
            return;
        if (w > 0)
            off += (size_t)w;
    }
}

/* Peers a moment behind (still on their way into the call they will block
 * in, or yet to notice the end of the one before) get up to 200 ms to say
 * where they wait: until every running one (dead ones aside) is blocked and none has moved
 * for 30 ms. Makes a report say what the job is stuck in, not what it was
 * passing through. */
static void settle(const symm_instance_t *s, const int *gone)
{
    uint64_t last = 0;
    for (int tries = 0, still = 0; tries < 20 && still < 3; tries++) {
        int settled = 1;
        uint64_t now = symm_now_ms(), sum = 0;
        for (int i = 0; i < s->n_local; i++) {
            const symm_pe_status_t *r = symm_pe_status_of(s, s->local_pes[i]);
            int ph = r != NULL ? __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE) : 0;
            if (ph != SYMM_PHASE_RUNNING || (gone != NULL && gone[s->local_pes[i]]))
                continue;
            if (!blocked(r, now))
                settled = 0;
            sum = sum * 31 + __atomic_load_n(&r->since_ms, __ATOMIC_ACQUIRE);
        }
        still = settled && sum == last ? still + 1 : 0;
        last = sum;
        usleep(10000);
    }
}

/* ---- records this node does not map ------------------------------------- */

/* How long a report waits for the records it reads through the network:
 * a hang's (nothing is urgent), an early exit's (it holds up the exit). */
#define REMOTE_READ_MS 1000
#define REMOTE_READ_EXIT_MS 300

#define REMOTE_SETTLE_ROUNDS 8
#define REMOTE_SETTLE_US 20000

/* Read the n records of q (recs, one each) and re-read the ones that
 * answered, as settle() watches mapped ones: every REMOTE_SETTLE_US until
 * every running PE is blocked and none has moved since the read before, at
 * most REMOTE_SETTLE_ROUNDS times. again and idx: room for n. */
static void remote_settle(symm_instance_t *s, symm_peek_t *q, symm_peek_t *again, int *idx, int n,
                          unsigned timeout_ms)
{
    uint64_t last = 0;
    s->net->peek(s, q, n, timeout_ms);
    for (int round = 0; round < REMOTE_SETTLE_ROUNDS; round++) {
        int k = 0, settled = 1;
        uint64_t sum = 0;
        for (int i = 0; i < n; i++) {
            const symm_pe_status_t *r = q[i].buf;
            if (q[i].rc != 0)
                continue;
            if (r->phase == SYMM_PHASE_RUNNING && r->since_ms == 0)
                settled = 0;
            sum = sum * 31 + r->since_ms;
            idx[k] = i;
            again[k++] = q[i];
        }
        if (k == 0 || (round > 0 && settled && sum == last))
            return;
        last = sum;
        usleep(REMOTE_SETTLE_US);
        s->net->peek(s, again, k, timeout_ms);
        for (int j = 0; j < k; j++)
            q[idx[j]].rc = again[j].rc;
    }
}

/* The views of the n PEs of q from their records (recs), then the words
 * the waiting ones wait on, read (into vals) with q's room reused. */
static void remote_views(symm_instance_t *s, pe_view_t *views, symm_peek_t *q, int *of, int n,
                         const symm_pe_status_t *recs, uint64_t *vals, unsigned timeout_ms)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        pe_view_t *v = &views[q[i].pe];
        const symm_pe_status_t *r = &recs[i];
        if (q[i].rc != 0 || r->magic != SYMM_PE_STATUS_MAGIC) {
            v->none = q[i].rc == SYMM_ERR_TIMEOUT ? "not answering (status not readable in time)"
                      : q[i].rc != 0                ? "unreachable (status not readable)"
                                                    : "without a status record";
            continue;
        }
        *v = (pe_view_t){.r = r, .same_clock = 0};
        if (r->kind == SYMM_DOING_WAIT && r->since_ms != 0 && r->vsize > 0 && r->vsize <= 8 &&
            (r->seg == SYMM_SEG_HEAP || r->seg == SYMM_SEG_DATA)) {
            of[m] = i;
            q[m++] = (symm_peek_t){.pe = q[i].pe, .seg = r->seg, .off = r->off,
                                   .buf = &vals[i], .n = (size_t)r->vsize};
        }
    }
    if (m > 0)
        s->net->peek(s, q, m, timeout_ms);
    for (int j = 0; j < m; j++)
        if (q[j].rc == 0)
            views[q[j].pe].word = &vals[of[j]];
}

/* The views of every PE: mapped records as they are; the others (but gone
 * ones) read through the network transport, all at once and bounded
 * (timeout_ms), settled (remote_settle), then the words the waiting ones
 * wait on. Their times are their kernel's clock. Memory from mmap, never
 * unmapped: the watcher calls no malloc, and a read that did not answer in
 * time may still land (the PE ends right after its report). */
static void views_fill(symm_instance_t *s, pe_view_t *views, const int *gone, unsigned timeout_ms)
{
    int np = s->n_pes, n = 0;
    for (int pe = 0; pe < np; pe++) {
        views[pe] = view_mapped(s, pe);
        if (views[pe].r == NULL && gone != NULL && gone[pe])
            views[pe].none = "gone";
        n += views[pe].r == NULL && (gone == NULL || !gone[pe]);
    }
    if (n == 0 || s->net == NULL || s->net->peek == NULL)
        return;
    size_t bytes = (size_t)n * (sizeof(symm_pe_status_t) + sizeof(uint64_t) +
                                2 * sizeof(symm_peek_t) + 2 * sizeof(int));
    char *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return;
    symm_pe_status_t *recs = (symm_pe_status_t *)(void *)mem;
    uint64_t *vals = (uint64_t *)(void *)(recs + n);
    symm_peek_t *q = (symm_peek_t *)(void *)(vals + n), *again = q + n;
    int *idx = (int *)(void *)(again + n), *of = idx + n, k = 0;
    for (int pe = 0; pe < np; pe++) {
        if (views[pe].r != NULL || (gone != NULL && gone[pe]))
            continue;
        q[k] = (symm_peek_t){.pe = pe, .seg = SYMM_SEG_HEAP, .off = SYMM_PE_STATUS_OFF,
                             .buf = &recs[k], .n = sizeof(recs[k])};
        k++;
    }
    remote_settle(s, q, again, idx, n, timeout_ms);
    remote_views(s, views, q, of, n, recs, vals, timeout_ms);
}

/* ---- a peer's process ended ---------------------------------------------- */

/* To oshrun (symm_launcher_say): "reported", this PE said why it ends (no
 * second line for it); "peer_reported", a PE's death is reported (end the
 * others now). symm_pe_end (runtime/pestatus.h) ends a PE. */

/* How a process that is not our child ended, if it is still a zombie:
 * field 52 of /proc/PID/stat (Linux >= 3.5) is its wait status. */
static int wait_status_of(pid_t pid, int *wstatus)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL || p[1] != ' ' || p[2] != 'Z')
        return -1;
    /* Fields after the command: state is 3; exit_code is 52. */
    int field = 2;
    for (p++; *p != '\0' && field < 52; p++)
        if (*p == ' ')
            field++;
    if (field != 52)
        return -1;
    *wstatus = atoi(p);
    return 0;
}

/* Without a shared report word (peers on this node not mapped): the
 * lowest live PE of the node reports. */
static int lowest_live_on_node(const symm_instance_t *s, const int *gone)
{
    for (int pe = 0; pe < s->my_pe; pe++)
        if (s->peers[pe].same_node && !gone[pe])
            return 0;
    return 1;
}

/* A mapped PE that said why the job ends (it called shmem_global_exit, or
 * exited early or aborted after its report), the dead PE dead first: 1 with
 * its status in *status_p. The dead PE's end is then expected, and so are
 * the deaths that follow another's (the launcher or that PE ends the
 * others): its consequence, not news. */
static int job_end_explained(const symm_instance_t *s, int dead, int *status_p)
{
    for (int k = 0; k < s->n_pes; k++) {
        const symm_pe_status_t *r = symm_pe_status_of(s, (dead + k) % s->n_pes);
        if (r == NULL)
            continue;
        int ph = __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE);
        if (ph == SYMM_PHASE_GLOBAL_EXIT || ph == SYMM_PHASE_EXITED ||
            ph == SYMM_PHASE_ABORTED) {
            *status_p = r->status;
            return 1;
        }
    }
    return 0;
}

static void peer_gone(struct symm_watch *w, int idx, int *gone)
{
    symm_instance_t *s = w->s;
    int pe = w->pe_of[idx];
    const symm_pe_status_t *r = symm_pe_status_of(s, pe), *me = symm_pe_status(s);
    /* A node-local PE that is not mapped (SYMM_TRANSPORT=ucx) has no record
     * here: its end is normal once this PE has passed finalize's barrier
     * (it cannot leave its own finalize before), a death before. */
    int phase = r != NULL ? __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE)
                : __atomic_load_n(&me->phase, __ATOMIC_ACQUIRE) == SYMM_PHASE_FINALIZED
                    ? SYMM_PHASE_FINALIZED
                    : SYMM_PHASE_RUNNING;
    int pid = s->peers[pe].pid;
    w->pfd[idx].fd = -w->pfd[idx].fd - 1; /* poll no more; close at stop */
    gone[pe] = 1;
    if (phase == SYMM_PHASE_FINALIZED)
        return; /* a normal end after finalize's barrier */
    int status = 1, ws;
    if (job_end_explained(s, pe, &status))
        symm_pe_end(s, status, 0); /* the job ends with that PE's status */
    /* The job's report is another PE's (this one deferred to it, or it
     * marked this node): an end now is its consequence, or its reporter's
     * own where its record is not mapped here (SYMM_TRANSPORT=ucx). */
    if (symm_pe_report_elsewhere(s))
        symm_pe_end(s, symm_pe_report_status(s, 1), 0);
    char cause[96], *line = w->text;
    if (phase == SYMM_PHASE_SIGNALED) {
        snprintf(cause, sizeof(cause), "killed by %s", sig_name(r->status));
        status = 128 + r->status;
    } else if (wait_status_of(pid, &ws) == 0 && WIFSIGNALED(ws)) {
        snprintf(cause, sizeof(cause), "killed by %s", sig_name(WTERMSIG(ws)));
        status = 128 + WTERMSIG(ws);
    } else if (wait_status_of(pid, &ws) == 0 && WIFEXITED(ws)) {
        snprintf(cause, sizeof(cause), "exited with status %d without shmem_finalize",
                 WEXITSTATUS(ws));
        status = WEXITSTATUS(ws) != 0 ? WEXITSTATUS(ws) : 1;
    } else {
        snprintf(cause, sizeof(cause), "ended without shmem_finalize (killed, or it exited "
                                       "without symm's exit handler)");
    }
    if (r != NULL ? !symm_report_claim_node(s) : !lowest_live_on_node(s, gone))
        symm_pe_end(s, status, 0);
    /* No settling: a launcher (mpirun) may end the survivors at once, and
     * they are where the death left them. */
    size_t cap = w->text_cap;
    int n = snprintf(line, cap, "symm: PE %d (%s, pid %d) died: %s", pe,
                     r != NULL ? r->host : me->host, pid, cause);
    /* Mapped records only: no settling and no reads through the network.
     * A launcher may end the survivors at once, and the other nodes' PEs
     * stall their transport for a while when they lose this PE's
     * connection (transport/ucx/ucx.c's grace), so they would not answer. */
    for (int q = 0; q < s->n_pes; q++)
        w->views[q] = view_mapped(s, q);
    n += summarize(s, pe, gone, w->views, symm_now_ms(), line + n, cap - (size_t)n - 2, w->what,
                   w->done);
    snprintf(line + n, cap - (size_t)n, "\n");
    emit(line);
    symm_launcher_say("peer_reported");
    symm_pe_end(s, status, 0);
}

/* ---- hang report ----------------------------------------------------------- */

/* This PE has waited hang_s in one call: one report for the job (the first
 * PE to claim it, ops/fail_report.h) naming what every PE is doing, read
 * through the mappings or, for PEs this node does not map, through the
 * network transport. */
static __attribute__((noreturn)) void hang_report(struct symm_watch *w, const int *gone,
                                                  uint64_t now)
{
    symm_instance_t *s = w->s;
    symm_pe_reporting = 1;
    if (!symm_report_claim(s))
        symm_report_defer(s, 1);
    size_t cap = w->text_cap, n = 0;
    char *buf = w->text;
    settle(s, gone);
    views_fill(s, w->views, gone, REMOTE_READ_MS);
    n += (size_t)snprintf(buf, cap,
                          "symm: PE %d has waited %.0f s (SYMM_HANG_TIMEOUT) in one call; what "
                          "every PE is doing:\n",
                          s->my_pe, w->hang_s);
    for (int pe = 0; pe < s->n_pes && n < cap; pe++) {
        char what[300];
        const pe_view_t *v = &w->views[pe];
        describe_v(v, gone[pe], 1, now, what, sizeof(what));
        if (v->r != NULL)
            n += (size_t)snprintf(buf + n, cap - n, "symm:   PE %d (%.63s, pid %d): %s\n", pe,
                                  v->r->host, (int)v->r->pid, what);
        else
            n += (size_t)snprintf(buf + n, cap - n, "symm:   PE %d: %s\n", pe, what);
    }
    emit(buf);
    symm_report_mark_others(s, 1);
    symm_pe_end(s, 1, 1);
}

/* ---- the thread ----------------------------------------------------------- */

static void *watch_main(void *arg)
{
    struct symm_watch *w = arg;
    symm_instance_t *s = w->s;
    int *gone = w->gone;
    for (;;) {
        int rc = poll(w->pfd, (nfds_t)w->n, w->tick);
        if (rc < 0 && errno != EINTR)
            break;
        if (w->pfd[0].revents != 0)
            break;
        for (int i = 1; i < w->n; i++)
            if (w->pfd[i].fd >= 0 && w->pfd[i].revents != 0)
                peer_gone(w, i, gone);
        /* Another node's PE reported the job's failure (ops/fail_report.h). */
        if (w->tick > 0 && symm_pe_report_marked(s))
            symm_pe_end(s, symm_pe_report_status(s, 1), 0);
        uint64_t now = symm_now_ms();
        const symm_pe_status_t *me = symm_pe_status(s);
        /* One read of the record (symm_pe_blocked_ms): reading since_ms
         * again after the check took the 0 of a call that had just
         * returned, or a publication a tick ahead of now, for hours
         * (active_debug.ucx.np3 reported a 60 s hang 2 s into its run). */
        if (w->hang_s > 0 && symm_pe_blocked_ms(me, now) >= (int64_t)(w->hang_s * 1e3))
            hang_report(w, gone, now);
    }
    return NULL;
}

static int pidfd_open_(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/* A fatal signal records itself before the default action kills the PE,
 * so that peers can say which. Installed only over the default action (a
 * sanitizer's own handler stays). A crash (not SIGTERM/SIGINT) also prints
 * the PE's backtrace (SYMM_BACKTRACE=1): backtrace() was primed at install
 * (its first call loads libgcc_s), backtrace_symbols_fd() allocates nothing
 * and writes into a memfd, which is read back and written to stderr in one
 * write so PEs' lines never interleave. Names come from dynamic symbols:
 * shared libraries' functions, the executable's only when linked with
 * -rdynamic; the offsets printed (prog(+0x1234)) give file:line with
 * addr2line -e prog 0x1234 (not run here: it is not async-signal-safe). */
static symm_instance_t *signal_inst;
static int signal_backtrace;

static size_t bt_append(char *buf, size_t n, size_t cap, const char *str)
{
    while (*str != '\0' && n < cap)
        buf[n++] = *str++;
    return n;
}

static void print_backtrace(int sig, int pe)
{
    static char text[16384];
    void *frames[64];
    int nf = backtrace(frames, 64);
    int fd = (int)syscall(SYS_memfd_create, "symm-backtrace", 0);
    if (fd < 0 || nf <= 0)
        return;
    /* Frame 0 is this function, 1 the handler, 2 the signal trampoline, 3
     * the interrupted instruction; above it return addresses, which name
     * the caller only when moved back into its call (a noreturn call ends
     * a function: its return address is the next function's start). */
    for (int i = 4; i < nf; i++)
        frames[i] = (char *)frames[i] - 1;
    backtrace_symbols_fd(frames, nf, fd);
    char num[16];
    size_t n = bt_append(text, 0, sizeof(text), "symm: PE ");
    int k = 0, v = pe < 0 ? 0 : pe;
    do
        num[k++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && k < 15);
    while (k > 0 && n < sizeof(text))
        text[n++] = num[--k];
    n = bt_append(text, n, sizeof(text), ": ");
    n = bt_append(text, n, sizeof(text), "killed by SIG");
    n = bt_append(text, n, sizeof(text), sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    n = bt_append(text, n, sizeof(text), ", backtrace (SYMM_BACKTRACE=0: none):\n");
    char raw[8192];
    ssize_t got = pread(fd, raw, sizeof(raw) - 1, 0);
    close(fd);
    if (got <= 0)
        return;
    raw[got] = '\0';
    int line = 0;
    for (char *p = raw; *p != '\0' && n < sizeof(text) - 1;) {
        char *nl = strchr(p, '\n');
        if (nl != NULL)
            *nl = '\0';
        if (line++ >= 2) {
            n = bt_append(text, n, sizeof(text), "symm:   ");
            n = bt_append(text, n, sizeof(text), p);
            n = bt_append(text, n, sizeof(text), "\n");
        }
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    ssize_t w = write(STDERR_FILENO, text, n);
    (void)w;
}

static void on_fatal_signal(int sig)
{
    symm_instance_t *s = signal_inst;
    if (s != NULL)
        symm_pe_status_phase(s, SYMM_PHASE_SIGNALED, sig);
    if (signal_backtrace && sig != SIGTERM && sig != SIGINT)
        print_backtrace(sig, s != NULL ? s->my_pe : -1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_fatal_signals(symm_instance_t *s)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
    signal_inst = s;
    signal_backtrace = s->cfg.core.backtrace;
    if (signal_backtrace) {
        void *prime[2];
        backtrace(prime, 2);
    }
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction old, sa = {.sa_handler = on_fatal_signal, .sa_flags = SA_RESETHAND};
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
            !(old.sa_flags & SA_SIGINFO))
            sigaction(sigs[i], &sa, NULL);
    }
}

static void watch_free(struct symm_watch *w)
{
    free(w->pfd);
    free(w->pe_of);
    free(w->gone);
    free(w->views);
    free(w->what);
    free(w->done);
    free(w->text);
    free(w);
}

static void watch_stop(symm_instance_t *s, void *arg)
{
    struct symm_watch *w = arg;
    (void)s;
    uint64_t one = 1;
    ssize_t wr = write(w->stop_fd, &one, sizeof(one));
    (void)wr;
    pthread_join(w->thread, NULL);
    for (int i = 1; i < w->n; i++)
        close(w->pfd[i].fd >= 0 ? w->pfd[i].fd : -w->pfd[i].fd - 1);
    close(w->stop_fd);
    if (signal_inst == s)
        signal_inst = NULL;
    watch_free(w);
}

/* symm_fatal's mark once the watcher runs: the record (ABORTED), then the
 * first record of every node this PE does not map, so that their PEs take
 * its end as reported and end quietly with its status, as after an early
 * exit (symm_watch_exit_report). Not from inside the transport's progress
 * (a callback's error: marking needs progress), and once: a fatal error
 * inside the marking marks no further. */
static int watch_fatal_mark(void)
{
    static int busy;
    if (!symm_pe_status_fatal_mark())
        return 0;
    if (symm_net_progressing == 0 && !__atomic_exchange_n(&busy, 1, __ATOMIC_ACQ_REL))
        symm_report_mark_others(symm_cur, 255);
    return 1;
}

int symm_watch_start(symm_instance_t *s)
{
    symm_log_fatal_mark = watch_fatal_mark;
    struct symm_watch *w = calloc(1, sizeof(*w));
    if (w == NULL)
        return SYMM_ERR_NOMEM;
    w->s = s;
    size_t np = (size_t)s->n_pes;
    double h = s->cfg.core.hang_timeout;
    w->hang_s = h > 0 ? h : h < 0 && s->debug ? 60.0 : 0.0;
    w->pfd = calloc(np + 1, sizeof(*w->pfd));
    w->pe_of = calloc(np + 1, sizeof(int));
    w->gone = calloc(np, sizeof(int));
    w->views = calloc(np, sizeof(*w->views));
    w->what = calloc(np, sizeof(*w->what));
    w->done = calloc(np, 1);
    w->text_cap = 512 + np * 320;
    w->text = malloc(w->text_cap);
    w->stop_fd = eventfd(0, EFD_CLOEXEC);
    if (w->pfd == NULL || w->pe_of == NULL || w->gone == NULL || w->views == NULL ||
        w->what == NULL ||
        w->done == NULL || w->text == NULL || w->stop_fd < 0) {
        if (w->stop_fd >= 0)
            close(w->stop_fd);
        watch_free(w);
        return SYMM_ERR_NOMEM;
    }
    w->pfd[0] = (struct pollfd){.fd = w->stop_fd, .events = POLLIN};
    w->n = 1;
    int blind = 0;
    for (int pe = 0; pe < s->n_pes; pe++) {
        if (pe == s->my_pe || !s->peers[pe].same_node)
            continue;
        /* pid 0: in another pid namespace, where its pid means nothing. */
        int fd = s->peers[pe].pid > 0 ? pidfd_open_(s->peers[pe].pid) : -1;
        if (fd < 0) {
            blind++;
            continue;
        }
        w->pfd[w->n] = (struct pollfd){.fd = fd, .events = POLLIN};
        w->pe_of[w->n++] = pe;
    }
    if (blind != 0)
        symm_info("shmem_init", "%d node-local PE(s) cannot be watched from here (other pid "
                                "namespace, or no pidfd_open): their death is seen by the launcher "
                                "only", blind);
    w->tick = w->hang_s > 0 ? TICK_MS : -1;
    catch_fatal_signals(s);
    /* The thread takes no signal meant for the program. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, watch_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        symm_error("shmem_init", "cannot start the watcher thread: %s", strerror(rc));
        for (int i = 1; i < w->n; i++)
            close(w->pfd[i].fd);
        close(w->stop_fd);
        watch_free(w);
        return SYMM_ERR_SYS;
    }
    symm_on_fini(s, SYMM_FINI_RELEASE, watch_stop, w);
    return SYMM_OK;
}

void symm_watch_exit_report(symm_instance_t *s, int status, const char *finalize_name)
{
    char line[4096];
    char (*what)[200] = calloc((size_t)s->n_pes, sizeof(*what));
    char *done = calloc((size_t)s->n_pes, 1);
    pe_view_t *views = calloc((size_t)s->n_pes, sizeof(*views));
    symm_pe_status_phase(s, SYMM_PHASE_EXITED, status);
    symm_report_claim_node(s);
    settle(s, NULL);
    int n = snprintf(line, sizeof(line), "symm: exit: PE %d exited with status %d before %s",
                     s->my_pe, status, finalize_name);
    if (what != NULL && done != NULL && views != NULL) {
        symm_pe_reporting = 1;
        views_fill(s, views, NULL, REMOTE_READ_EXIT_MS);
        n += summarize(s, s->my_pe, NULL, views, symm_now_ms(), line + n,
                       sizeof(line) - (size_t)n - 2, what, done);
    }
    free(what);
    free(done);
    free(views);
    snprintf(line + n, sizeof(line) - (size_t)n, "\n");
    emit(line);
    /* PEs this node does not map learn of the exit from the mark, not as
     * a lost peer: they end quietly with its status. */
    symm_report_mark_others(s, status);
    symm_launcher_say("reported");
}
