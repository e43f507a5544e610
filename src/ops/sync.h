/*
 * sync.h - ordering (fence, quiet), waiting with back-off, comparisons.
 *
 * Every wait loop in symm polls through symm_wait_backoff: it spins a few
 * thousand polls (a few hundred when PEs outnumber cores), then yields the
 * CPU each poll, and drives the network transport's progress, so 4 PEs on 2
 * cores never crawl and a remote peer's emulated RMA completes.
 */
#ifndef SYMM_SYNC_H
#define SYMM_SYNC_H

#include <sched.h>

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

static inline void symm_wait_backoff(symm_instance_t *s, unsigned *polls)
{
    if (s->net)
        s->net->progress(s);
    if (++*polls < (unsigned)s->spin)
        symm_cpu_relax();
    else
        sched_yield();
}

static inline void symm_fence(symm_instance_t *s, struct symm_ctx *ctx)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (s->net)
        s->net->fence(ctx);
}

static inline void symm_quiet(symm_instance_t *s, struct symm_ctx *ctx)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (s->net)
        s->net->quiet(ctx);
}

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
