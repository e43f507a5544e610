/*
 * wait_status.c - a slow wait publishes what it waits for (runtime/pestatus.h).
 *
 * Called only from the yielding part of a wait (ops/sync.h), where a
 * sched_yield already costs far more: the first yield copies the thread's
 * "doing" descriptor into the PE's record, every yield refreshes its
 * heartbeat. Never on a fast path.
 */
#include "ops/sync.h"

#include <sched.h>
#include <string.h>
#include <time.h>

#include "mem/seg.h"
#include "runtime/pestatus.h"

static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = src != NULL ? strlen(src) : 0;
    if (n >= cap)
        n = cap - 1;
    if (n != 0)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

static void publish(symm_instance_t *s, symm_pe_status_t *r, uint64_t now)
{
    const symm_doing_t *d = &symm_doing;
    size_t off = 0, room;
    copy_text(r->routine, sizeof(r->routine), d->routine != NULL ? d->routine : "a wait inside symm");
    copy_text(r->team_name, sizeof(r->team_name), d->team_name);
    r->kind = d->routine != NULL ? d->kind : SYMM_DOING_OTHER;
    r->seq = d->seq;
    r->root = d->root;
    r->nbytes = d->nbytes;
    r->cmp = d->cmp;
    r->vsize = d->vsize;
    r->vflags = d->vflags;
    r->value = d->value;
    r->seg = d->addr != NULL ? (int32_t)symm_seg_translate(s, d->addr, &off, &room) : SYMM_SEG_NONE;
    r->off = off;
    __atomic_store_n(&r->since_ms, now, __ATOMIC_RELEASE);
    if (d->routine != NULL)
        symm_doing.published = r;
}

void symm_wait_slow(symm_instance_t *s, int first)
{
    symm_pe_status_t *r = symm_pe_status(s);
    uint64_t now = symm_now_ms();
    /* Threads of one PE (the program's, a stream's) share the record: the
     * first to publish writes it, one that finds it busy skips. */
    if (first && !__atomic_exchange_n(&r->publishing, 1, __ATOMIC_ACQUIRE)) {
        publish(s, r, now);
        __atomic_store_n(&r->publishing, 0, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&r->beat_ms, now, __ATOMIC_RELAXED);
}

/* When this thread's current wait last saw something happen (its first
 * call here, or the last network event its progress found), until when it
 * polls on without yielding (spin_ns after either), and when it last
 * published its status (symm_wait_slow; a PE kept spinning by a stream of
 * events still publishes every millisecond). */
static __thread uint64_t idle_since_us, spin_until_ns, slow_at_us;
static __thread int published;

#define WAIT_NAP_MIN_US 20
#define WAIT_NAP_MAX_US 1000

/* The back-off of a wait (or a streak of polls) that found nothing for
 * waited_us: a yield, or past SYMM_WAIT_IDLE_US a nap. */
static void idle_step(symm_instance_t *s, uint64_t waited)
{
    long idle = s->cfg.core.wait_idle_us;
    if (idle < 0 || waited < (uint64_t)idle) {
        sched_yield();
        return;
    }
    /* A nap of 1/16 of the wait so far: a change by a mapped peer is seen
     * at most about 6 % later than by polling. */
    long nap = (long)(waited / 16);
    nap = nap < WAIT_NAP_MIN_US ? WAIT_NAP_MIN_US : nap > WAIT_NAP_MAX_US ? WAIT_NAP_MAX_US : nap;
    if (s->net != NULL) {
        /* No event wait on this transport: keep yielding, a peer's
         * operation may need this PE's progress. */
        if (s->net->sleep == NULL || s->net->sleep(s, nap) < 0)
            sched_yield();
        return;
    }
    struct timespec ts = {.tv_sec = 0, .tv_nsec = nap * 1000};
    nanosleep(&ts, NULL);
}

void symm_wait_idle(symm_instance_t *s, unsigned polls, unsigned events)
{
    int first = polls == (unsigned)s->spin || (s->spin < 1 && polls == 1);
    uint64_t tn = symm_now_ns(), t = tn / 1000u;
    if (first) {
        published = 0;
        slow_at_us = t;
    }
    if (first || events != 0) {
        idle_since_us = t;
        spin_until_ns = tn + (uint64_t)s->spin_ns;
    }
    if (tn < spin_until_ns && t - slow_at_us < 1000)
        return;
    symm_wait_slow(s, !published);
    published = 1;
    slow_at_us = t;
    if (tn < spin_until_ns)
        return;
    idle_step(s, t - idle_since_us);
}

/* The polling entry points' streak (symm_poll_idle): when its back-off
 * began or last saw a network event or work between polls, until when it
 * polls on, and when the previous call here returned. */
__thread unsigned symm_poll_misses __attribute__((tls_model("initial-exec")));
static __thread uint64_t poll_idle_since_us, poll_spin_until_ns, poll_left_ns;

/* A gap this long between two misses is the program's work, not polling. */
#define POLL_WORK_NS 20000

void symm_poll_idle(symm_instance_t *s, unsigned misses, unsigned events)
{
    unsigned first_at = s->spin > 0 ? (unsigned)s->spin : 1u;
    uint64_t tn = symm_now_ns(), t = tn / 1000u;
    if (misses == first_at || events != 0 || tn - poll_left_ns > POLL_WORK_NS) {
        poll_idle_since_us = t;
        poll_spin_until_ns = tn + (uint64_t)s->spin_ns;
    }
    /* A streak of billions: stay past the spin without wrapping to 0. */
    if (misses > (1u << 30))
        symm_poll_misses = first_at + 1;
    if (tn >= poll_spin_until_ns)
        idle_step(s, t - poll_idle_since_us);
    poll_left_ns = symm_now_ns();
}
