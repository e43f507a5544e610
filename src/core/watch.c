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
 * failure mode, transport/ucx/ucx.c) and by their own node's watchers;
 * their records are not readable here, and reports say so.
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
#include <sys/syscall.h>
#include <unistd.h>

#include "mem/seg.h"
#include "runtime/log.h"
#include "runtime/pestatus.h"
#include "runtime/status.h"

#define TICK_MS 100
#define BEAT_STALE_MS 1000    /* no heartbeat for this long: the PE left the wait */

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

/* When the PE of record r started the symm call it is blocked in now; 0
 * if it is not blocked. */
static uint64_t blocked_since(const symm_pe_status_t *r, uint64_t now)
{
    uint64_t since = __atomic_load_n(&r->since_ms, __ATOMIC_ACQUIRE);
    uint64_t beat = __atomic_load_n(&r->beat_ms, __ATOMIC_RELAXED);
    return since != 0 && beat + BEAT_STALE_MS >= now ? since : 0;
}

/* Is the PE of record r blocked in a symm call now? */
static int blocked(const symm_pe_status_t *r, uint64_t now) { return blocked_since(r, now) != 0; }

/* "shmem_x on TEAM (call #k, root r, n bytes)" or "shmem_wait_until(...)". */
static void fmt_call(const symm_instance_t *s, int pe, const symm_pe_status_t *r, int detail,
                     char *out, size_t cap)
{
    char v[32], now_v[32] = "";
    int n = snprintf(out, cap, "%.47s", r->routine);
    if ((size_t)n >= cap)
        return;
    switch (r->kind) {
    case SYMM_DOING_COLL:
        n += snprintf(out + n, cap - (size_t)n, " on %s", r->team_name[0] ? r->team_name : "a team");
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
        const void *at = peer_copy(s, pe, r->seg, r->off);
        fmt_value(v, sizeof(v), r->value, r->vsize, r->vflags);
        if (at != NULL && r->vsize > 0 && r->vsize <= 8) {
            uint64_t cur = 0;
            memcpy(&cur, at, (size_t)r->vsize);
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

/* What pe is doing, as the end of "PE n ...". gone: its process ended. */
static void describe(const symm_instance_t *s, int pe, int gone, int detail, uint64_t now,
                     char *out, size_t cap)
{
    const symm_pe_status_t *r = symm_pe_status_of(s, pe);
    if (r == NULL || r->magic != SYMM_PE_STATUS_MAGIC) {
        /* Its own node's watchers report what it does. */
        snprintf(out, cap, s->peers[pe].same_node ? "not mapped here (state not visible)"
                                                  : "on another node (state not visible here)");
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
    if (blocked(r, now)) {
        fmt_call(s, pe, r, detail, call, sizeof(call));
        if (detail)
            snprintf(out, cap, "in %s for %.1f s", call,
                     (double)(now - __atomic_load_n(&r->since_ms, __ATOMIC_RELAXED)) / 1e3);
        else
            snprintf(out, cap, "in %s", call);
        return;
    }
    snprintf(out, cap, phase == SYMM_PHASE_FINALIZING ? "in shmem_finalize" : "outside symm");
}

/* Appends "; PEs 0,2,3 in X; PE 4 outside symm" for every PE but skip,
 * grouping PEs that do the same. */
static int summarize(const symm_instance_t *s, int skip, const int *gone, uint64_t now, char *buf,
                     size_t cap, char (*what)[200], char *done)
{
    int n = 0, np = s->n_pes;
    memset(done, 0, (size_t)np);
    for (int pe = 0; pe < np; pe++)
        if (pe != skip)
            describe(s, pe, gone != NULL && gone[pe], 0, now, what[pe], sizeof(what[pe]));
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

/* ---- ending the job ------------------------------------------------------ */

static int under_oshrun(void) { return getenv("SYMM_CTRL_FD") != NULL; }

/* To oshrun (symm_launcher_say): "reported", this PE said why it ends (no
 * second line for it); "peer_reported", a PE's death is reported (end the
 * others now). */

/* The node's report word: 1 if this PE is the one to report. */
static int claim_report(const symm_instance_t *s)
{
    symm_pe_status_t *r0 = symm_pe_status_of(s, s->local_pes[0]);
    int32_t none = 0;
    return r0 != NULL && __atomic_compare_exchange_n(&r0->claim, &none, s->my_pe + 1, 0,
                                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void flush_stdout(void)
{
    /* Only if nobody holds it: the PE's thread may be anywhere. */
    if (ftrylockfile(stdout) == 0) {
        fflush_unlocked(stdout);
        funlockfile(stdout);
    }
}

/* End this PE because the job failed: status for a launcher that is not
 * oshrun; under oshrun, wait for its signal (it ends every PE, with the
 * status of the first failure it saw). self: this PE is the failure (it
 * reported a hang or a mismatch): under oshrun it exits, telling oshrun it
 * has reported. */
static __attribute__((noreturn)) void end_pe(symm_instance_t *s, int status, int self)
{
    if (status == 0)
        status = 1;
    symm_pe_status_phase(s, SYMM_PHASE_ABORTED, status);
    flush_stdout();
    if (under_oshrun()) {
        if (self) {
            symm_launcher_say("reported");
            _exit(status);
        }
        for (int i = 0; i < 100; i++)
            usleep(100000);
    }
    _exit(status);
}

/* ---- a peer's process ended ---------------------------------------------- */

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
    if (phase == SYMM_PHASE_EXITED || phase == SYMM_PHASE_GLOBAL_EXIT ||
        phase == SYMM_PHASE_ABORTED) {
        /* It said why; the job ends with its status. */
        end_pe(s, r->status, 0);
    }
    int status = 1, ws;
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
    if (r != NULL ? !claim_report(s) : !lowest_live_on_node(s, gone))
        end_pe(s, status, 0);
    /* No settling: a launcher (mpirun) may end the survivors at once, and
     * they are where the death left them. */
    size_t cap = w->text_cap;
    int n = snprintf(line, cap, "symm: PE %d (%s, pid %d) died: %s", pe,
                     r != NULL ? r->host : me->host, pid, cause);
    n += summarize(s, pe, gone, symm_now_ms(), line + n, cap - (size_t)n - 2, w->what, w->done);
    snprintf(line + n, cap - (size_t)n, "\n");
    emit(line);
    symm_launcher_say("peer_reported");
    end_pe(s, status, 0);
}

/* ---- hang report and collective mismatch --------------------------------- */

static __attribute__((noreturn)) void hang_report(struct symm_watch *w, const int *gone,
                                                  uint64_t now)
{
    symm_instance_t *s = w->s;
    if (!claim_report(s))
        end_pe(s, 1, 0);
    size_t cap = w->text_cap, n = 0;
    char *buf = w->text;
    settle(s, gone);
    n += (size_t)snprintf(buf, cap,
                          "symm: PE %d has waited %.0f s (SYMM_HANG_TIMEOUT) in one call; what "
                          "every PE is doing:\n",
                          s->my_pe, w->hang_s);
    for (int pe = 0; pe < s->n_pes && n < cap; pe++) {
        char what[300];
        const symm_pe_status_t *r = symm_pe_status_of(s, pe);
        describe(s, pe, gone[pe], 1, now, what, sizeof(what));
        if (r != NULL && r->magic == SYMM_PE_STATUS_MAGIC)
            n += (size_t)snprintf(buf + n, cap - n, "symm:   PE %d (%s, pid %d): %s\n", pe,
                                  r->host, (int)r->pid, what);
        else
            n += (size_t)snprintf(buf + n, cap - n, "symm:   PE %d: %s\n", pe, what);
    }
    emit(buf);
    end_pe(s, 1, 1);
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
        uint64_t now = symm_now_ms();
        const symm_pe_status_t *me = symm_pe_status(s);
        /* One atomic read of since_ms: the call may end between two, and
         * a second plain read (TSan: a data race with its store) of the 0
         * it leaves made now - 0 look like an endless wait. */
        uint64_t since = w->hang_s > 0 ? blocked_since(me, now) : 0;
        if (since != 0 && now - since >= (uint64_t)(w->hang_s * 1e3))
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

int symm_watch_start(symm_instance_t *s)
{
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
    w->what = calloc(np, sizeof(*w->what));
    w->done = calloc(np, 1);
    w->text_cap = 512 + np * 320;
    w->text = malloc(w->text_cap);
    w->stop_fd = eventfd(0, EFD_CLOEXEC);
    if (w->pfd == NULL || w->pe_of == NULL || w->gone == NULL || w->what == NULL ||
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
    symm_pe_status_phase(s, SYMM_PHASE_EXITED, status);
    claim_report(s);
    settle(s, NULL);
    int n = snprintf(line, sizeof(line), "symm: exit: PE %d exited with status %d before %s",
                     s->my_pe, status, finalize_name);
    if (what != NULL && done != NULL)
        n += summarize(s, s->my_pe, NULL, symm_now_ms(), line + n, sizeof(line) - (size_t)n - 2,
                       what, done);
    free(what);
    free(done);
    snprintf(line + n, sizeof(line) - (size_t)n, "\n");
    emit(line);
    symm_launcher_say("reported");
}
