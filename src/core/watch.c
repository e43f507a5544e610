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
 * what every PE was doing (core/pe_report.c writes it), and the node's
 * PEs end.
 *
 * PEs on other nodes are watched by the network transport (UCX's peer
 * failure mode, transport/ucx/ucx.c) and by their own node's watchers. A
 * hang's and an early exit's report read their records (and the words they
 * wait on) through the transport's bounded peek, so the report names every
 * PE of the job; a death's keeps to mapped records (no time to wait).
 * A fatal signal is recorded by the handlers of core/fatal_signal.c,
 * installed at start. A failure several PEs see (a hang) is printed once per job: the first
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
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fatal_signal.h"
#include "core/pe_report.h"
#include "ops/fail_report.h"
#include "runtime/log.h"
#include "runtime/pestatus.h"
#include "runtime/status.h"
#include "transport/transport.h"

#define TICK_MS 100

struct symm_watch {
    symm_instance_t *s;
    pthread_t thread;
    int stop_fd;
    int n; /* pollfds: [0] stop, then one per watched peer */
    struct pollfd *pfd;
    int *pe_of;    /* PE of pfd[i] */
    double hang_s; /* 0: no hang report */
    int tick;      /* poll timeout: TICK_MS or -1 */
    /* Allocated at start: the thread calls no malloc. */
    int *gone;               /* [n_pes]: its process ended */
    symm_report_room_t room; /* its reports' */
};

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
        if (ph == SYMM_PHASE_GLOBAL_EXIT || ph == SYMM_PHASE_EXITED || ph == SYMM_PHASE_ABORTED) {
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
    char cause[96], *line = w->room.text;
    if (phase == SYMM_PHASE_SIGNALED) {
        snprintf(cause, sizeof(cause), "killed by %s", symm_sig_name(r->status));
        status = 128 + r->status;
    } else if (wait_status_of(pid, &ws) == 0 && WIFSIGNALED(ws)) {
        snprintf(cause, sizeof(cause), "killed by %s", symm_sig_name(WTERMSIG(ws)));
        status = 128 + WTERMSIG(ws);
    } else if (wait_status_of(pid, &ws) == 0 && WIFEXITED(ws)) {
        snprintf(cause, sizeof(cause), "exited with status %d without shmem_finalize",
                 WEXITSTATUS(ws));
        status = WEXITSTATUS(ws) != 0 ? WEXITSTATUS(ws) : 1;
    } else {
        snprintf(cause, sizeof(cause),
                 "ended without shmem_finalize (killed, or it exited "
                 "without symm's exit handler)");
    }
    if (r != NULL ? !symm_report_claim_node(s) : !lowest_live_on_node(s, gone))
        symm_pe_end(s, status, 0);
    /* No settling: a launcher (mpirun) may end the survivors at once, and
     * they are where the death left them. */
    size_t cap = w->room.text_cap;
    int n = snprintf(line, cap, "symm: PE %d (%s, pid %d) died: %s", pe,
                     r != NULL ? r->host : me->host, pid, cause);
    /* Mapped records only: no settling and no reads through the network.
     * A launcher may end the survivors at once, and the other nodes' PEs
     * stall their transport for a while when they lose this PE's
     * connection (transport/ucx/ucx.c's grace), so they would not answer. */
    for (int q = 0; q < s->n_pes; q++)
        w->room.views[q] = symm_pe_view_mapped(s, q);
    n += symm_report_summary(s, pe, gone, w->room.views, symm_now_ms(), line + n,
                             cap - (size_t)n - 2, w->room.what, w->room.done);
    snprintf(line + n, cap - (size_t)n, "\n");
    symm_report_emit(line);
    symm_launcher_say("peer_reported");
    symm_pe_end(s, status, 0);
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
            symm_report_hang(s, &w->room, gone, now, w->hang_s);
    }
    return NULL;
}

static int pidfd_open_(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void watch_free(struct symm_watch *w)
{
    free(w->pfd);
    free(w->pe_of);
    free(w->gone);
    symm_report_room_free(&w->room);
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
    symm_fatal_signals_release(s);
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
    const symm_transport_ops_t *net = symm_cur != NULL ? symm_cur->net : NULL;
    int in_net = net != NULL && net->in_progress != NULL && net->in_progress();
    if (!in_net && !__atomic_exchange_n(&busy, 1, __ATOMIC_ACQ_REL))
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
    int room_rc = symm_report_room_alloc(&w->room, s->n_pes);
    w->stop_fd = eventfd(0, EFD_CLOEXEC);
    if (w->pfd == NULL || w->pe_of == NULL || w->gone == NULL || room_rc != SYMM_OK ||
        w->stop_fd < 0) {
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
        symm_info("shmem_init",
                  "%d node-local PE(s) cannot be watched from here (other pid "
                  "namespace, or no pidfd_open): their death is seen by the launcher "
                  "only",
                  blind);
    w->tick = w->hang_s > 0 ? TICK_MS : -1;
    symm_fatal_signals_catch(s);
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
