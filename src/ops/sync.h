/*
 * sync.h - ordering (fence, quiet), waiting with back-off, comparisons.
 *
 * Every wait loop in symm polls through symm_wait_backoff: it spins a few
 * thousand polls (a few hundred when PEs outnumber cores), then yields the
 * CPU each poll, and drives the network transport's progress, so 4 PEs on 2
 * cores never crawl and a remote peer's emulated RMA completes. Once it
 * yields, it also says what it waits for (runtime/pestatus.h). A wait that
 * has found nothing to do for SYMM_WAIT_IDLE_US sleeps between polls
 * (symm_wait_idle, ops/wait_status.c), so idle PEs leave the cores to the ones
 * that communicate. The polling entry points (test, signal_fetch,
 * test_lock), one poll per call, count this thread's consecutive misses
 * and take the same back-off past the same spin (symm_poll_miss).
 */
#ifndef SYMM_SYNC_H
#define SYMM_SYNC_H

#include <sched.h>

#include "runtime/log.h"
#include "runtime/pestatus.h"
#include "runtime/state.h"
#include "transport/transport.h"

static inline void symm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* The yielding part of a wait: publishes what this thread waits for on the
 * first yield (first) and a heartbeat on every one (ops/wait_status.c,
 * runtime/pestatus.h), so a hang or a dead peer can be explained. */
void symm_wait_slow(symm_instance_t *s, int first) __attribute__((cold));

/* The part of a wait past its spin: polls on until spin_ns has passed since
 * the first call of this wait or its last network event (events: what the
 * last progress call found), then symm_wait_slow and a yield, or, once the
 * wait has seen no network event for SYMM_WAIT_IDLE_US, a sleep of at most
 * 1/16 of the time waited so far and 1 ms. With UCX the sleep is in UCX's event wait, so a message
 * for this PE (the target's side of an emulated put, a notification) wakes
 * it at once; only a change a mapped peer makes in memory waits for the end
 * of the nap. */
void symm_wait_idle(symm_instance_t *s, unsigned polls, unsigned events) __attribute__((cold));

static inline void symm_wait_backoff(symm_instance_t *s, unsigned *polls)
{
    unsigned events = 0;
    if (s->net)
        events = s->net->progress(s);
    if (++*polls < (unsigned)s->spin)
        symm_cpu_relax();
    else
        symm_wait_idle(s, *polls, events);
}

/* Polling entry points (the test families of both APIs, signal_fetch,
 * test_lock) are one poll per call, so the loop that calls them is the
 * program's and no per-call count can see it spin. Each thread counts its
 * consecutive misses instead (symm_poll_misses): a miss adds one, a hit
 * (a test that qualifies, a lock taken, a signal that changed) resets it.
 * Below the waits' spin (s->spin) a miss costs that add and nothing else;
 * from there on each miss takes the waits' back-off step
 * (symm_poll_idle), so a PE polling with test while its partner shares
 * its core hands the core over as a wait would. events: what the caller's
 * network progress found (0 without one). */
extern __thread unsigned symm_poll_misses __attribute__((tls_model("initial-exec")));

/* Past the spin: polls on until spin_ns has passed since the streak's
 * first such miss or its last network event, then yields; once the streak
 * has lasted SYMM_WAIT_IDLE_US of tight polling, naps as a wait does (at
 * most 1/16 of the streak so far and 1 ms). A caller that spent a while
 * outside symm since its last miss (work between tests) is not idle: it
 * only yields. Publishes no status (the PE is not blocked in symm: the
 * watcher must not call a program that polls a hang). ops/wait_status.c. */
void symm_poll_idle(symm_instance_t *s, unsigned misses, unsigned events) __attribute__((cold));

static inline void symm_poll_hit(void)
{
    symm_poll_misses = 0;
}

static inline void symm_poll_miss(symm_instance_t *s, unsigned events)
{
    unsigned n = ++symm_poll_misses;
    if (__builtin_expect(n >= (unsigned)s->spin, 0))
        symm_poll_idle(s, n, events);
}

/* Wait until the counter at w (only ever growing, stored with release)
 * reaches v; the value seen. The internal counters' wait: barrier epochs,
 * collective counts, done words. */
static inline uint64_t symm_wait_at_least(symm_instance_t *s, const uint64_t *w, uint64_t v)
{
    unsigned polls = 0;
    uint64_t x;
    while ((x = __atomic_load_n(w, __ATOMIC_ACQUIRE)) < v)
        symm_wait_backoff(s, &polls);
    return x;
}

/* Name a wait on n variables at addr (cmp against value) for the status
 * record; called on its first failed poll, so a wait already satisfied
 * pays nothing. 1 if taken (symm_doing_end). */
static inline int symm_doing_wait(const char *routine, const void *addr, int cmp, uint64_t bits,
                                  int vsize, int vflags, uint64_t n)
{
    symm_doing_t d = {.routine = routine, .kind = SYMM_DOING_WAIT, .root = -1,
                      .addr = addr, .cmp = cmp, .vsize = vsize, .vflags = vflags, .value = bits,
                      .nbytes = n};
    return symm_doing_begin(&d);
}

/* The same for a value of type T. */
#define SYMM_DOING_WAIT_OF(T, routine, addr, cmp, value, n)                                 \
    __extension__({                                                                          \
        T v_ = (value);                                                                      \
        uint64_t b_ = 0;                                                                     \
        __builtin_memcpy(&b_, &v_, sizeof(v_));                                              \
        symm_doing_wait(routine, addr, cmp, b_, (int)sizeof(T),                              \
                        ((T)-1 < (T)1 ? SYMM_VAL_SIGNED : 0) |                               \
                            ((T)0.5 != (T)0 ? SYMM_VAL_FLOAT : 0),                            \
                        n);                                                                  \
    })

/* Under SYMM_AMO_NET an update to a mapped peer goes through the
 * transport, while its loads (atomic_fetch, wait_until) and puts are the
 * CPU's: an order of the transport's alone would let a load or a store
 * issued after the fence pass an atomic issued before it (stress seed
 * 1729011529: swap_nbi, fence, atomic_fetch read the old value). So where
 * the transport applied such an update on ctx since (net_amo_mapped, set
 * after the update is issued), the fence completes what is in flight, as a
 * quiet does; otherwise it orders as the transport does. */
/* A network transport's completion (quiet, fence) that failed ends the job
 * naming routine. (A lost peer ends it inside the transport already.) */
static inline void symm_net_check(int rc, const char *routine, const char *what)
{
    if (__builtin_expect(rc != SYMM_OK, 0))
        symm_fatal(routine, "%s of the network transport failed: %s", what,
                   symm_status_str((symm_status_t)rc));
}

static inline void symm_fence(symm_instance_t *s, struct symm_ctx *ctx)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (s->net) {
        if (__builtin_expect((s->amo_flags & SYMM_AMO_NET) != 0, 0) &&
            __atomic_exchange_n(&ctx->net_amo_mapped, 0, __ATOMIC_ACQ_REL))
            symm_net_check(s->net->quiet(ctx), "shmem_fence", "quiet");
        else
            symm_net_check(s->net->fence(ctx), "shmem_fence", "fence");
    }
}

static inline void symm_quiet(symm_instance_t *s, struct symm_ctx *ctx)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (s->net)
        symm_net_check(s->net->quiet(ctx), "shmem_quiet", "quiet");
}

/* Complete what ctx issued to the n PEs of pes (numbered in ctx's team);
 * fatal on a bad PE, naming it (ops/pe_quiet.c). */
void symm_pe_quiet(symm_instance_t *s, struct symm_ctx *ctx, const int *pes, size_t n,
                   const char *routine);

/* Comparison of wait_until/test; cmp validated by the caller. */
#define SYMM_CMP_EVAL(a, cmp, b)                                                           \
    ((cmp) == 0 ? (a) == (b)                                                               \
     : (cmp) == 1 ? (a) != (b)                                                             \
     : (cmp) == 2 ? (a) > (b)                                                              \
     : (cmp) == 3 ? (a) <= (b)                                                             \
     : (cmp) == 4 ? (a) < (b)                                                              \
                  : (a) >= (b))

void symm_bad_cmp(const char *routine, int cmp) __attribute__((noreturn, cold));
static inline void symm_check_cmp(int cmp, const char *routine)
{
    if (__builtin_expect((unsigned)cmp > 5u, 0))
        symm_bad_cmp(routine, cmp);
}

#endif
