/*
 * status.c - a slow wait publishes what it waits for (runtime/pestatus.h).
 *
 * Called only from the yielding part of a wait (ops/sync.h), where a
 * sched_yield already costs far more: the first yield copies the thread's
 * "doing" descriptor into the PE's record, every yield refreshes its
 * heartbeat. Never on a fast path.
 */
#include "ops/sync.h"

#include <string.h>

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

void symm_wait_slow(symm_instance_t *s, unsigned polls)
{
    symm_pe_status_t *r = symm_pe_status(s);
    uint64_t now = symm_now_ms();
    /* Threads of one PE (the program's, a stream's) share the record: the
     * first to publish writes it, one that finds it busy skips. */
    if ((polls == (unsigned)s->spin || (s->spin < 1 && polls == 1)) &&
        !__atomic_exchange_n(&r->publishing, 1, __ATOMIC_ACQUIRE)) {
        publish(s, r, now);
        __atomic_store_n(&r->publishing, 0, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&r->beat_ms, now, __ATOMIC_RELAXED);
}
