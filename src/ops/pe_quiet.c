/*
 * pe_quiet.c - quiet towards some PEs only (OpenSHMEM 1.6 shmem_pe_quiet).
 *
 * Mapped peers: their stores are ordinary stores to shared memory, so a
 * memory fence completes them. With a network transport, it completes what
 * the context issued to the targets (UCX: their endpoints' flush, not the
 * worker's), or everything where it cannot single peers out.
 * Every PE number is checked first; a bad one ends the job naming its
 * index and value. Nothing is allocated: team PEs are turned into world
 * PEs a stack chunk at a time.
 */
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"

#define CHUNK 64

void symm_pe_quiet(symm_instance_t *s, struct symm_ctx *ctx, const int *pes, size_t n,
                   const char *routine)
{
    int limit = ctx->pe_map != NULL ? ctx->team_size : s->n_pes;
    if (n != 0 && pes == NULL)
        symm_fatal(routine, "target_pes is NULL with npes %zu", n);
    for (size_t i = 0; i < n; i++)
        if ((unsigned)pes[i] >= (unsigned)limit)
            symm_fatal(routine, "target_pes[%zu] = %d is outside [0,%d)%s", i, pes[i], limit,
                       ctx->pe_map != NULL ? " of the context's team" : "");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (s->net == NULL)
        return;
    if (s->net->pe_quiet == NULL) {
        symm_net_check(s->net->quiet(ctx), routine, "quiet");
        return;
    }
    /* Mapped targets too: the network may be their atomics' agent
     * (SYMM_AMO_NET), and a target never reached through it costs nothing. */
    int world[CHUNK];
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t k = n - i0 < CHUNK ? n - i0 : CHUNK;
        for (size_t j = 0; j < k; j++)
            world[j] = ctx->pe_map != NULL ? ctx->pe_map[pes[i0 + j]] : pes[i0 + j];
        int rc = s->net->pe_quiet(ctx, world, k);
        if (rc != 0)
            symm_fatal(routine, "completing operations to PEs %d.. failed: %s", world[0],
                       symm_status_str((symm_status_t)rc));
    }
}
