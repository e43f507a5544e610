/*
 * barrier.c - the world barrier: dissemination over symmetric flags.
 *
 * Round k: signal PE (me + 2^k) mod n by writing the barrier epoch into its
 * round-k flag, then wait until my own round-k flag reaches the epoch.
 * Epochs only grow, so a fast peer already in the next barrier cannot break
 * a slow one (>= comparison). Each flag has its own cache line in the
 * internal scratch at the start of the heap. A mapped peer's flag is a
 * release store; other peers get a put and fence through the transport.
 */
#include <stdint.h>

#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/log.h"

#define FLAG_STRIDE (SYMM_CACHE_LINE / sizeof(uint64_t))

void symm_bad_cmp(const char *routine, int cmp)
{
    symm_fatal(routine, "invalid comparison operator %d (expected SHMEM_CMP_EQ..SHMEM_CMP_GE)", cmp);
}

static void flag_signal(symm_instance_t *s, uint64_t *flag, uint64_t value, int pe)
{
    uint64_t *r = symm_seg_peer_addr(s, flag, pe);
    if (r != NULL) {
        __atomic_store_n(r, value, __ATOMIC_RELEASE);
        return;
    }
    symm_rma_put_slow(&s->ctx_default, flag, &value, sizeof(value), pe, 0, "shmem_barrier_all");
    s->net->quiet(&s->ctx_default);
}

void symm_barrier_world(symm_instance_t *s, int quiet)
{
    int n = s->n_pes, me = s->my_pe;
    if (quiet)
        symm_quiet(s, &s->ctx_default);
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint64_t epoch = ++s->barrier_epoch;
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        uint64_t *flag = s->barrier_flags + (size_t)k * FLAG_STRIDE;
        flag_signal(s, flag, epoch, (me + dist) % n);
        unsigned polls = 0;
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < epoch)
            symm_wait_backoff(s, &polls);
    }
}
