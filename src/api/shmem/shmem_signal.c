/*
 * shmem_signal.c - put-with-signal (typed, sized, mem; blocking and nbi; ctx) and
 * the signal routines, generated from the type tables in shmem.h.
 */
#include "ops/signal.h"
#include "ops/sync.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"

#define CTX_OF(ctx) ((struct symm_ctx *)(ctx))
/* The non-ctx entry points pass NULL: the default context, no load. */
#define DEFAULT_CTX ((struct symm_ctx *)0)
#define SIG_PARAMS uint64_t *sig_addr, uint64_t signal, int sig_op, int pe
#define SIG_ARGS sig_addr, signal, sig_op

#define DEF_PUT_SIGNAL_FORMS(PFX, T, SIZE)                                                   \
    void shmem_ctx_##PFX##_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                  SIG_PARAMS)                                               \
    {                                                                                       \
        symm_put_signal(CTX_OF(ctx), dest, source, nelems * (SIZE), SIG_ARGS, 0, pe,        \
                        __func__);                                                          \
    }                                                                                       \
    void shmem_##PFX##_signal(T *dest, const T *source, size_t nelems, SIG_PARAMS)          \
    {                                                                                       \
        symm_put_signal(DEFAULT_CTX, dest, source, nelems * (SIZE), SIG_ARGS, 0, pe,        \
                        __func__);                                                          \
    }                                                                                       \
    void shmem_ctx_##PFX##_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,            \
                                      size_t nelems, SIG_PARAMS)                            \
    {                                                                                       \
        symm_put_signal(CTX_OF(ctx), dest, source, nelems * (SIZE), SIG_ARGS, 1, pe,        \
                        __func__);                                                          \
    }                                                                                       \
    void shmem_##PFX##_signal_nbi(T *dest, const T *source, size_t nelems, SIG_PARAMS)      \
    {                                                                                       \
        symm_put_signal(DEFAULT_CTX, dest, source, nelems * (SIZE), SIG_ARGS, 1, pe,        \
                        __func__);                                                          \
    }                                                                                       \
    SYMM_PALIAS(shmem_ctx_##PFX##_signal) SYMM_PALIAS(shmem_##PFX##_signal)                 \
    SYMM_PALIAS(shmem_ctx_##PFX##_signal_nbi) SYMM_PALIAS(shmem_##PFX##_signal_nbi)

#define DEF_PUT_SIGNAL(T, N) DEF_PUT_SIGNAL_FORMS(N##_put, T, sizeof(T))
SHMEM_RMA_TYPES(DEF_PUT_SIGNAL)
#define DEF_PUT_SIGNAL_SIZED(BITS) DEF_PUT_SIGNAL_FORMS(put##BITS, void, (BITS) / 8)
SHMEM_SIZES(DEF_PUT_SIGNAL_SIZED)
DEF_PUT_SIGNAL_FORMS(putmem, void, 1)

/* A program may poll the signal with this (the polling entry points'
 * back-off, ops/sync.h): a value equal to the one this thread fetched last
 * from the same word is a miss, which also drives the network's progress,
 * as a wait's poll does; a changed value, or another word, is a hit. */
static __thread const uint64_t *fetch_addr;
static __thread uint64_t fetch_value;

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    symm_instance_t *s = symm_inst(__func__);
    uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    if (sig_addr == fetch_addr && v == fetch_value) {
        symm_poll_miss(s, s->net != NULL ? s->net->progress(s) : 0);
        return v;
    }
    fetch_addr = sig_addr;
    fetch_value = v;
    symm_poll_hit();
    return v;
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    symm_instance_t *s = symm_inst(__func__);
    unsigned polls = 0;
    int taken = 0;
    uint64_t v;
    symm_check_cmp(cmp, __func__);
    while (!SYMM_CMP_EVAL((v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE)), cmp, cmp_value)) {
        if (polls == 0)
            taken = symm_doing_wait(__func__, sig_addr, cmp, cmp_value, 8, 0, 1);
        symm_wait_backoff(s, &polls);
    }
    symm_doing_end(taken);
    return v;
}

void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    symm_signal_update(CTX_OF(ctx), sig_addr, signal, SHMEM_SIGNAL_ADD, pe, __func__);
}
void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    symm_signal_update(DEFAULT_CTX, sig_addr, signal, SHMEM_SIGNAL_ADD, pe, __func__);
}
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    symm_signal_update(CTX_OF(ctx), sig_addr, signal, SHMEM_SIGNAL_SET, pe, __func__);
}
void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    symm_signal_update(DEFAULT_CTX, sig_addr, signal, SHMEM_SIGNAL_SET, pe, __func__);
}
SYMM_PALIAS(shmem_signal_fetch) SYMM_PALIAS(shmem_signal_wait_until)
SYMM_PALIAS(shmem_signal_add) SYMM_PALIAS(shmem_ctx_signal_add)
SYMM_PALIAS(shmem_signal_set) SYMM_PALIAS(shmem_ctx_signal_set)
