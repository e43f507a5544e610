/*
 * shmem_ctx_session.c - OpenSHMEM 1.6 communication sessions (hints).
 *
 * A session tells the library that a context will issue a batch of small
 * operations and may have them delayed and combined. symm never delays an
 * operation: to a mapped peer it is a store already, and over UCX every
 * put/get/atomic is handed to UCX at once (UCX does its own aggregation).
 * So start only checks its arguments and stop has nothing to push out on
 * either path; neither flushes, since the spec lets sessions change no
 * completion or ordering (a quiet completes what a session issued, as
 * ever). The names and arguments are the spec's, so programs written for
 * 1.6 build and run unchanged.
 */
#include "runtime/log.h"
#include "runtime/state.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"

void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask)
{
    symm_instance_t *s = symm_inst(__func__);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    /* Unknown options and a NULL config are harmless hints (the spec: no
     * combination of options is undefined); SHMEM_DEBUG says so. */
    if (s->debug && (options & ~SHMEM_CTX_SESSION_BATCH) != 0)
        symm_warn(__func__, "unknown options 0x%lx ignored", options & ~SHMEM_CTX_SESSION_BATCH);
    if (s->debug && config == NULL && (config_mask & SHMEM_CTX_SESSION_TOTAL_OPS) != 0)
        symm_warn(__func__, "config is NULL with SHMEM_CTX_SESSION_TOTAL_OPS in config_mask");
}

void shmem_ctx_session_stop(shmem_ctx_t ctx)
{
    symm_inst(__func__);
    (void)ctx;
}

SYMM_PALIAS(shmem_ctx_session_start)
SYMM_PALIAS(shmem_ctx_session_stop)
