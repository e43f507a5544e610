/*
 * p2p_scan.h - the one scan behind every multi-variable wait and test
 * (OpenSHMEM's all/any/some and _vector families in api/shmem/shmem_p2p.c, aclshmem's in
 * api/acl/aclshmem_p2p.c). SYMM_DEF_P2P_SCAN(N, T) defines, for one type:
 *   symm_p2p_scan_N  one pass over the variables status leaves in, each read
 *                    once with an acquire load (other PEs update them);
 *   symm_p2p_sync_N  wait (back-off, network progress) or test once (a
 *                    poll of the caller's loop: symm_poll_miss/hit), and
 *                    return what the family reports: 1/0 for all, the index
 *                    or SIZE_MAX for any, the count for some;
 *   symm_p2p_one_N   the same for one variable (wait_until, test): waiting
 *                    polls it alone, testing is a scan of one.
 * cmp is in OpenSHMEM numbering (SHMEM_CMP_*); callers convert before.
 */
#ifndef SYMM_P2P_SCAN_H
#define SYMM_P2P_SCAN_H

#include <stdint.h>

#include "ops/sync.h"

enum { SCAN_ALL, SCAN_ANY, SCAN_SOME };

/* Where this thread's next any-scan starts: one past the index the last one
 * returned, so repeated test_any/wait_until_any calls over several satisfied
 * variables return each in turn instead of always the first (a program that
 * loops until it has seen every index must end). Per thread: no lock, no
 * sharing; an index past a shorter array starts that scan at 0. some-scans
 * return every satisfied index at once and keep ascending order. */
extern _Thread_local size_t symm_p2p_any_next;


/* SCAN_ALL: the number of included variables that fail (0: all qualify);
 * SCAN_ANY: 1 with *first set at the first that qualifies, from
 * symm_p2p_any_next on (wrapping), else 0;
 * SCAN_SOME: the number that qualify, their indices in indices[]. *included
 * counts the variables status leaves in. */
#define SYMM_DEF_P2P_SCAN(N, T)                                                                   \
    static inline size_t symm_p2p_scan_##N(T *ivars, size_t n, const int *status, int cmp, const T *vals,    \
                           T value, int mode, size_t *indices, size_t *first,                \
                           size_t *included)                                                 \
    {                                                                                        \
        size_t hits = 0, inc = 0, fails = 0;                                                 \
        size_t i = mode == SCAN_ANY && symm_p2p_any_next < n ? symm_p2p_any_next : 0;        \
        for (size_t k = 0; k < n; k++, i = i + 1 == n ? 0 : i + 1) {                         \
            T v;                                                                             \
            if (status != NULL && status[i] != 0)                                            \
                continue;                                                                    \
            inc++;                                                                           \
            __atomic_load(&ivars[i], &v, __ATOMIC_ACQUIRE);                                  \
            if (!SYMM_CMP_EVAL(v, cmp, vals != NULL ? vals[i] : value)) {                    \
                fails++;                                                                     \
                continue;                                                                    \
            }                                                                                \
            if (mode == SCAN_ANY) {                                                          \
                symm_p2p_any_next = i + 1;                                                   \
                *first = i;                                                                  \
                *included = inc;                                                             \
                return 1;                                                                    \
            }                                                                                \
            if (mode == SCAN_SOME)                                                           \
                indices[hits] = i;                                                           \
            hits++;                                                                          \
        }                                                                                    \
        *included = inc;                                                                     \
        return mode == SCAN_ALL ? fails : mode == SCAN_ANY ? 0 : hits;                       \
    }                                                                                        \
    /* Wait (wait != 0) or test once; the result as the family reports it. */                \
    static inline size_t symm_p2p_sync_##N(const char *routine, int wait, T *ivars, size_t n,                \
                           const int *status, int cmp, const T *vals, T value, int mode,     \
                           size_t *indices)                                                  \
    {                                                                                        \
        symm_instance_t *s = symm_inst(routine);                                             \
        size_t first = SIZE_MAX, inc, r;                                                     \
        unsigned polls = 0, events = 0;                                                      \
        int taken = 0;                                                                       \
        symm_check_cmp(cmp, routine);                                                        \
        if (!wait && s->net != NULL)                                                         \
            events = s->net->progress(s);                                                    \
        for (;;) {                                                                           \
            r = symm_p2p_scan_##N(ivars, n, status, cmp, vals, value, mode, indices, &first, &inc);   \
            int done = mode == SCAN_ALL ? r == 0 : r != 0 || inc == 0;                       \
            if (!wait) {                                                                     \
                /* A test: one poll of the caller's loop (ops/sync.h). */                    \
                if (done)                                                                    \
                    symm_poll_hit();                                                         \
                else                                                                         \
                    symm_poll_miss(s, events);                                               \
                break;                                                                       \
            }                                                                                \
            if (done)                                                                        \
                break;                                                                       \
            if (polls == 0)                                                                  \
                taken = SYMM_DOING_WAIT_OF(T, routine, ivars, cmp, vals ? vals[0] : value, n); \
            symm_wait_backoff(s, &polls);                                                    \
        }                                                                                    \
        symm_doing_end(taken);                                                               \
        return mode == SCAN_ALL ? r == 0 : mode == SCAN_ANY ? first : r;                     \
    }                                                                                        \
    /* One variable: wait until it qualifies (returns 1), or test it once. */                \
    static inline size_t symm_p2p_one_##N(const char *routine, int wait, T *ivar, int cmp,   \
                                          T value)                                           \
    {                                                                                        \
        if (!wait)                                                                           \
            return symm_p2p_sync_##N(routine, 0, ivar, 1, NULL, cmp, NULL, value, SCAN_ALL,  \
                                     NULL);                                                  \
        symm_instance_t *s = symm_inst(routine);                                             \
        unsigned polls = 0;                                                                  \
        int taken = 0;                                                                       \
        T v;                                                                                 \
        symm_check_cmp(cmp, routine);                                                        \
        for (;;) {                                                                           \
            __atomic_load(ivar, &v, __ATOMIC_ACQUIRE);                                       \
            if (SYMM_CMP_EVAL(v, cmp, value))                                                \
                break;                                                                       \
            if (polls == 0)                                                                  \
                taken = SYMM_DOING_WAIT_OF(T, routine, ivar, cmp, value, 1);                 \
            symm_wait_backoff(s, &polls);                                                    \
        }                                                                                    \
        symm_doing_end(taken);                                                               \
        return 1;                                                                            \
    }

#endif
