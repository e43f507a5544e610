/*
 * sched_slice.c - the scheduler time slice a PE asks for.
 *
 * Under Linux's EEVDF scheduler (6.6+) a task's time slice sets how soon it
 * runs when it wakes or yields: a task woken by a peer's message waits for
 * the running task's slice to end unless its own is shorter, and each
 * sched_yield pushes the yielder's deadline back a whole slice. A PE whose
 * peer must run before its wait can end (an atomic that UCX emulates needs
 * the target's progress; any wait on an oversubscribed node needs the
 * peer's core) so waited out busy tasks' slices at every hop: 4 PEs on 2
 * cores beside 4 busy loops took minutes for what takes a second quiet.
 * Since 6.12 a SCHED_OTHER task may ask for its own slice (sched_attr's
 * sched_runtime, 100 us .. 100 ms); older kernels accept and ignore it. The
 * fair share of CPU does not change, only how finely it is cut. Every PE
 * asks, not only where the job's own PEs outnumber the cores: the load may
 * be another job, and a job left at the kernel's slice beside one with
 * short slices is the one that waits (a 2-PE job beside oversubscribed
 * ones timed out so). A PE alone on its core is never preempted either way.
 *
 * Must never: change the policy, nice value or flags of the thread, touch
 * a real-time thread, or leave the slice changed after finalize.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/sched_slice.h"
#include "runtime/log.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's bounds on a custom slice (kernel/sched/syscalls.c). */
#define SLICE_MIN_US 100
#define SLICE_MAX_US 100000

/* struct sched_attr as the kernel defines it (SCHED_ATTR_SIZE_VER1). */
typedef struct sched_attr_abi {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
    uint32_t util_min;
    uint32_t util_max;
} sched_attr_abi_t;

/* Ask for slice_ns (0: the kernel's own); *prev_p gets the slice before.
 * 0 on success, else errno. */
static int slice_set(uint64_t slice_ns, uint64_t *prev_p)
{
#if defined(SYS_sched_getattr) && defined(SYS_sched_setattr)
    sched_attr_abi_t a;
    memset(&a, 0, sizeof(a));
    if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof(a), 0) != 0)
        return errno;
    if (a.policy != SCHED_OTHER && a.policy != SCHED_BATCH)
        return EPERM; /* real-time or idle: not ours to touch */
    if (prev_p != NULL)
        *prev_p = a.runtime;
    a.size = sizeof(a);
    a.runtime = slice_ns;
    a.flags &= 0x01; /* SCHED_FLAG_RESET_ON_FORK kept; utilization clamps untouched */
    return syscall(SYS_sched_setattr, 0, &a, 0) == 0 ? 0 : errno;
#else
    (void)slice_ns;
    (void)prev_p;
    return ENOSYS;
#endif
}

/* Back to the kernel's own slice: sched_getattr reports the slice in force,
 * not whether it was asked for, so a slice the program set itself before
 * init is not told apart from the default and is not restored. */
static void slice_restore(symm_instance_t *inst, void *arg)
{
    (void)inst;
    (void)arg;
    (void)slice_set(0, NULL);
}

int symm_sched_slice_check(const symm_config_t *cfg)
{
    int us = cfg->core.sched_slice_us;
    if (us != -1 && us != 0 && (us < SLICE_MIN_US || us > SLICE_MAX_US)) {
        symm_error("shmem_init", "SYMM_SCHED_SLICE_US=%d is not -1, 0 or %d..%d (microseconds)",
                   us, SLICE_MIN_US, SLICE_MAX_US);
        return SYMM_ERR_INVALID;
    }
    return SYMM_OK;
}

void symm_sched_slice_choose(symm_instance_t *inst)
{
    int us = inst->cfg.core.sched_slice_us;
    if (us == -1)
        us = SLICE_MIN_US;
    if (us == 0)
        return;
    uint64_t prev = 0;
    int e = slice_set((uint64_t)us * 1000u, &prev);
    if (e != 0) {
        symm_debug("shmem_init", "scheduler slice of %d us not set: %s", us, strerror(e));
        return;
    }
    symm_debug("shmem_init", "scheduler slice %d us (was %llu ns)", us, (unsigned long long)prev);
    symm_on_fini(inst, SYMM_FINI_RELEASE, slice_restore, NULL);
}
