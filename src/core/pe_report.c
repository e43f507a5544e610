/*
 * pe_report.c - what every PE is doing, in words: the report that a dead
 * peer (core/watch.c), a hang (core/watch.c) or an early exit prints.
 *
 * Reads the PEs' status records (runtime/pestatus.h): mapped ones in
 * place; the others, and the words their waits name, through the network
 * transport's bounded peek, all at once, settled like mapped ones. Owns
 * the wording and the one-write output; allocates nothing on the
 * watcher's paths (symm_report_room_t is made at start). Never waits
 * without a bound.
 */
#define _GNU_SOURCE
#include "core/pe_report.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem/seg.h"
#include "ops/fail_report.h"
#include "runtime/log.h"
#include "runtime/pestatus.h"
#include "runtime/status.h"
#include "transport/shm.h"
#include "transport/transport.h"

int symm_report_room_alloc(symm_report_room_t *r, int n_pes)
{
    size_t np = (size_t)n_pes;
    r->views = calloc(np, sizeof(*r->views));
    r->what = calloc(np, sizeof(*r->what));
    r->done = calloc(np, 1);
    r->text_cap = 512 + np * 320;
    r->text = malloc(r->text_cap);
    if (r->views == NULL || r->what == NULL || r->done == NULL || r->text == NULL) {
        symm_report_room_free(r);
        return SYMM_ERR_NOMEM;
    }
    return SYMM_OK;
}

void symm_report_room_free(symm_report_room_t *r)
{
    free(r->views);
    free(r->what);
    free(r->done);
    free(r->text);
    memset(r, 0, sizeof(*r));
}

/* ---- what a PE is doing, in words ---------------------------------------- */

static const char *cmp_name(int cmp)
{
    static const char *const names[] = {"SHMEM_CMP_EQ", "SHMEM_CMP_NE", "SHMEM_CMP_GT",
                                        "SHMEM_CMP_LE", "SHMEM_CMP_LT", "SHMEM_CMP_GE"};
    return cmp >= 0 && cmp < 6 ? names[cmp] : "?";
}

const char *symm_sig_name(int sig)
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
    if (seg == SYMM_SEG_DATA && p->data_base != NULL && off < s->shm->data_size)
        return p->data_base + off;
    return NULL;
}

/* The view of a PE whose record is mapped here (or says why not). */
symm_pe_view_t symm_pe_view_mapped(const symm_instance_t *s, int pe)
{
    const symm_pe_status_t *r = symm_pe_status_of(s, pe);
    symm_pe_view_t v = {.same_clock = 1};
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
static int64_t blocked_ms_v(const symm_pe_view_t *v, uint64_t now)
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
static void fmt_call(const symm_pe_view_t *pv, int detail, char *out, size_t cap)
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
                 r->seg == SYMM_SEG_HEAP   ? "heap"
                 : r->seg == SYMM_SEG_DATA ? "data"
                                           : "?",
                 (unsigned long long)r->off, r->nbytes > 1 ? " ..." : "", cmp_name(r->cmp), v,
                 now_v);
        break;
    }
    case SYMM_DOING_LOCK:
        if (detail)
            snprintf(out + n, cap - (size_t)n, "(lock at %s+%llu)",
                     r->seg == SYMM_SEG_HEAP   ? "heap"
                     : r->seg == SYMM_SEG_DATA ? "data"
                                               : "?",
                     (unsigned long long)r->off);
        break;
    default: break;
    }
}

/* What the PE of view v is doing, as the end of "PE n ...". gone: its
 * process ended. */
static void describe_v(const symm_pe_view_t *v, int gone, int detail, uint64_t now, char *out,
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
    case SYMM_PHASE_FINALIZED: snprintf(out, cap, "finalized"); return;
    case SYMM_PHASE_EXITED: snprintf(out, cap, "exited with status %d", r->status); return;
    case SYMM_PHASE_GLOBAL_EXIT:
        snprintf(out, cap, "called shmem_global_exit(%d)", r->status);
        return;
    case SYMM_PHASE_SIGNALED: snprintf(out, cap, "killed by %s", symm_sig_name(r->status)); return;
    default: break;
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
int symm_report_summary(const symm_instance_t *s, int skip, const int *gone,
                        const symm_pe_view_t *views, uint64_t now, char *buf, size_t cap,
                        char (*what)[200], char *done)
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
void symm_report_emit(const char *text)
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
static void remote_views(symm_instance_t *s, symm_pe_view_t *views, symm_peek_t *q, int *of, int n,
                         const symm_pe_status_t *recs, uint64_t *vals, unsigned timeout_ms)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        symm_pe_view_t *v = &views[q[i].pe];
        const symm_pe_status_t *r = &recs[i];
        if (q[i].rc != 0 || r->magic != SYMM_PE_STATUS_MAGIC) {
            v->none = q[i].rc == SYMM_ERR_TIMEOUT ? "not answering (status not readable in time)"
                      : q[i].rc != 0              ? "unreachable (status not readable)"
                                                  : "without a status record";
            continue;
        }
        *v = (symm_pe_view_t){.r = r, .same_clock = 0};
        if (r->kind == SYMM_DOING_WAIT && r->since_ms != 0 && r->vsize > 0 && r->vsize <= 8 &&
            (r->seg == SYMM_SEG_HEAP || r->seg == SYMM_SEG_DATA)) {
            of[m] = i;
            q[m++] = (symm_peek_t){.pe = q[i].pe,
                                   .seg = r->seg,
                                   .off = r->off,
                                   .buf = &vals[i],
                                   .n = (size_t)r->vsize};
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
static void views_fill(symm_instance_t *s, symm_pe_view_t *views, const int *gone,
                       unsigned timeout_ms)
{
    int np = s->n_pes, n = 0;
    for (int pe = 0; pe < np; pe++) {
        views[pe] = symm_pe_view_mapped(s, pe);
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
        q[k] = (symm_peek_t){.pe = pe,
                             .seg = SYMM_SEG_HEAP,
                             .off = SYMM_PE_STATUS_OFF,
                             .buf = &recs[k],
                             .n = sizeof(recs[k])};
        k++;
    }
    remote_settle(s, q, again, idx, n, timeout_ms);
    remote_views(s, views, q, of, n, recs, vals, timeout_ms);
}

/* ---- the reports ------------------------------------------------------------ */

void symm_report_hang(symm_instance_t *s, symm_report_room_t *room, const int *gone, uint64_t now,
                      double hang_s)
{
    symm_pe_reporting = 1;
    if (!symm_report_claim(s))
        symm_report_defer(s, 1);
    size_t cap = room->text_cap, n = 0;
    char *buf = room->text;
    settle(s, gone);
    views_fill(s, room->views, gone, REMOTE_READ_MS);
    n += (size_t)snprintf(buf, cap,
                          "symm: PE %d has waited %.0f s (SYMM_HANG_TIMEOUT) in one call; what "
                          "every PE is doing:\n",
                          s->my_pe, hang_s);
    for (int pe = 0; pe < s->n_pes && n < cap; pe++) {
        char what[300];
        const symm_pe_view_t *v = &room->views[pe];
        describe_v(v, gone[pe], 1, now, what, sizeof(what));
        if (v->r != NULL)
            n += (size_t)snprintf(buf + n, cap - n, "symm:   PE %d (%.63s, pid %d): %s\n", pe,
                                  v->r->host, (int)v->r->pid, what);
        else
            n += (size_t)snprintf(buf + n, cap - n, "symm:   PE %d: %s\n", pe, what);
    }
    symm_report_emit(buf);
    symm_report_mark_others(s, 1);
    symm_pe_end(s, 1, 1);
}

void symm_report_exit(symm_instance_t *s, int status, const char *finalize_name)
{
    char line[4096];
    char(*what)[200] = calloc((size_t)s->n_pes, sizeof(*what));
    char *done = calloc((size_t)s->n_pes, 1);
    symm_pe_view_t *views = calloc((size_t)s->n_pes, sizeof(*views));
    symm_pe_status_phase(s, SYMM_PHASE_EXITED, status);
    symm_report_claim_node(s);
    settle(s, NULL);
    int n = snprintf(line, sizeof(line), "symm: exit: PE %d exited with status %d before %s",
                     s->my_pe, status, finalize_name);
    if (what != NULL && done != NULL && views != NULL) {
        symm_pe_reporting = 1;
        views_fill(s, views, NULL, REMOTE_READ_EXIT_MS);
        n += symm_report_summary(s, s->my_pe, NULL, views, symm_now_ms(), line + n,
                                 sizeof(line) - (size_t)n - 2, what, done);
    }
    free(what);
    free(done);
    free(views);
    snprintf(line + n, sizeof(line) - (size_t)n, "\n");
    symm_report_emit(line);
    /* PEs this node does not map learn of the exit from the mark, not as
     * a lost peer: they end quietly with its status. */
    symm_report_mark_others(s, status);
    symm_launcher_say("reported");
}
