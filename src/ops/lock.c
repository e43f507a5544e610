/*
 * lock.c - the distributed lock of shmem_set_lock / shmem_test_lock /
 * shmem_clear_lock (entry points in api/shmem/shmem_lock.c): an MCS queue lock built
 * on 32-bit AMOs, FIFO fair, no lost wake-ups.
 *
 * The user's symmetric long (initially 0) holds two 32-bit words. Word 0 of
 * PE 0's copy is the queue tail (PE+1 of the last waiter, 0 if free). Word 1
 * of each PE's own copy is that PE's queue node: the successor (PE+1) in
 * bits 0-30, set by the successor, and the hand-over bit 31, set by the
 * predecessor. Both writers use fetch_or on zero bits, so they commute.
 * A waiter spins on its own node in its own memory (local, backs off).
 *
 * Every read-modify-write of a lock word goes through amo32, hence through
 * the network transport for every PE, this one included, when that is the
 * one atomic agent (SYMM_AMO_NET, ops/amo.h): a NIC swap on the tail and a
 * CPU swap on it would not be atomic against each other, and two PEs could
 * both see the lock free. Loads of my own node stay CPU loads (coherent
 * with NIC atomics), and so does the store that clears it before I queue:
 * no update to it is in flight then (the last round's hand-over and link
 * both completed before that round ended, see symm_lock_clear).
 */
#include <stdint.h>

#include "ops/lock.h"

#include "ops/amo.h"
#include "ops/sync.h"
#include "runtime/log.h"

#define LOCK_GO 0x80000000u
#define LOCK_NEXT_MASK 0x7fffffffu

static uint32_t *tail_of(long *lock) { return (uint32_t *)(void *)lock; }
static uint32_t *node_of(long *lock) { return (uint32_t *)(void *)lock + 1; }

static uint32_t amo32(symm_instance_t *s, uint32_t *addr, symm_amo_op_t op, uint32_t operand,
                      uint32_t compare, int pe, const char *routine)
{
    uint32_t res = 0;
    uint32_t *r = symm_amo_target(NULL, addr, sizeof(uint32_t), &pe, routine);
    if (symm_likely(r != NULL)) {
        switch (op) {
        case SYMM_AMO_SWAP: return __atomic_exchange_n(r, operand, SYMM_AMO_ORDER);
        case SYMM_AMO_CSWAP:
            res = compare;
            __atomic_compare_exchange_n(r, &res, operand, 0, SYMM_AMO_ORDER, SYMM_AMO_ORDER);
            return res;
        case SYMM_AMO_OR: return __atomic_fetch_or(r, operand, SYMM_AMO_ORDER);
        default: return __atomic_load_n(r, SYMM_AMO_ORDER);
        }
    }
    symm_amo_slow(&s->ctx_default, addr, op, sizeof(uint32_t), &operand, &compare, &res, 0, pe,
                  routine);
    return res;
}

static void lock_check(symm_instance_t *s, long *lock, const char *routine)
{
    size_t off, room;
    if (lock == NULL)
        symm_fatal(routine, "lock is NULL");
    if (symm_seg_translate(s, lock, &off, &room) == SYMM_SEG_NONE)
        symm_fatal_not_symmetric(routine, "lock", lock);
}

void symm_lock_set(long *lock, const char *routine)
{
    symm_instance_t *s = symm_inst(routine);
    uint32_t me = (uint32_t)s->my_pe + 1;
    lock_check(s, lock, routine);
    __atomic_store_n(node_of(lock), 0, __ATOMIC_RELAXED);
    uint32_t prev = amo32(s, tail_of(lock), SYMM_AMO_SWAP, me, 0, 0, routine);
    if (prev != 0) {
        /* Link behind the predecessor, then wait for its hand-over. */
        amo32(s, node_of(lock), SYMM_AMO_OR, me, 0, (int)prev - 1, routine);
        unsigned polls = 0;
        symm_doing_t d = {.routine = routine, .kind = SYMM_DOING_LOCK,
                          .root = -1, .addr = lock};
        int taken = symm_doing_begin(&d);
        while (!(__atomic_load_n(node_of(lock), __ATOMIC_ACQUIRE) & LOCK_GO))
            symm_wait_backoff(s, &polls);
        symm_doing_end(taken);
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/* A test drives the network's progress once, as the wait/test routines'
 * tests do (ops/p2p_scan.h): a PE spinning on test_lock for a lock word in
 * its own memory may be the one the holder's get or put must reach, and
 * without a progress thread (SYMM_PROGRESS_THREAD=0) nothing else would
 * answer it (the stress tester's hang, seed 25; test lock_noprogress). */
int symm_lock_test(long *lock, const char *routine)
{
    symm_instance_t *s = symm_inst(routine);
    uint32_t me = (uint32_t)s->my_pe + 1;
    unsigned events = 0;
    lock_check(s, lock, routine);
    if (s->net != NULL)
        events = s->net->progress(s);
    __atomic_store_n(node_of(lock), 0, __ATOMIC_RELAXED);
    uint32_t prev = amo32(s, tail_of(lock), SYMM_AMO_CSWAP, me, 0, 0, routine);
    if (prev == 0) {
        symm_poll_hit();
        return 0;
    }
    /* A loop of tests is a wait the program writes (ops/sync.h). */
    symm_poll_miss(s, events);
    return 1;
}

void symm_lock_clear(long *lock, const char *routine)
{
    symm_instance_t *s = symm_inst(routine);
    uint32_t me = (uint32_t)s->my_pe + 1;
    lock_check(s, lock, routine);
    /* Updates made under the lock complete before the next holder enters. */
    symm_quiet(s, &s->ctx_default);
    uint32_t next = __atomic_load_n(node_of(lock), __ATOMIC_ACQUIRE) & LOCK_NEXT_MASK;
    if (next == 0) {
        if (amo32(s, tail_of(lock), SYMM_AMO_CSWAP, 0, me, 0, routine) == me)
            return; /* nobody waiting */
        /* A successor swapped itself in but has not linked yet. */
        unsigned polls = 0;
        while ((next = __atomic_load_n(node_of(lock), __ATOMIC_ACQUIRE) & LOCK_NEXT_MASK) == 0)
            symm_wait_backoff(s, &polls);
    }
    amo32(s, node_of(lock), SYMM_AMO_OR, LOCK_GO, 0, (int)next - 1, routine);
}
