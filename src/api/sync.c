/*
 * sync.c - ordering, barrier and single-variable point-to-point entry points
 * (wait_until, test), the latter generated from the P2P type table.
 */
#include "ops/sync.h"
#include "runtime/log.h"
#include "shmem.h"

#undef shmem_wait_until
#undef shmem_test

void shmem_fence(void)
{
    symm_instance_t *s = symm_inst("shmem_fence");
    symm_fence(s, &s->ctx_default);
}

void shmem_quiet(void)
{
    symm_instance_t *s = symm_inst("shmem_quiet");
    symm_quiet(s, &s->ctx_default);
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    symm_instance_t *s = symm_inst("shmem_ctx_fence");
    if (ctx != SHMEM_CTX_INVALID)
        symm_fence(s, (struct symm_ctx *)ctx);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    symm_instance_t *s = symm_inst("shmem_ctx_quiet");
    if (ctx != SHMEM_CTX_INVALID)
        symm_quiet(s, (struct symm_ctx *)ctx);
}

void shmem_barrier_all(void) { symm_barrier_world(symm_inst("shmem_barrier_all"), 1); }
void shmem_sync_all(void) { symm_barrier_world(symm_inst("shmem_sync_all"), 0); }

/* ivar is updated by other PEs: every read is an atomic acquire load. */
#define SYMM_DEF_P2P(T, N)                                                                   \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                               \
    {                                                                                        \
        symm_instance_t *s = symm_inst(__func__);                                           \
        unsigned polls = 0;                                                                  \
        symm_check_cmp(cmp, __func__);                                                       \
        while (!SYMM_CMP_EVAL(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value))      \
            symm_wait_backoff(s, &polls);                                                    \
    }                                                                                        \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                      \
    {                                                                                        \
        symm_instance_t *s = symm_inst(__func__);                                           \
        symm_check_cmp(cmp, __func__);                                                       \
        if (s->net)                                                                          \
            s->net->progress(s);                                                             \
        return SYMM_CMP_EVAL(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value);       \
    }                                                                                        \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                              \
    {                                                                                        \
        shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                               \
    }
SHMEM_P2P_TYPES(SYMM_DEF_P2P)

void shmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}

void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
