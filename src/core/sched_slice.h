/*
 * sched_slice.h - the scheduler time slice a PE asks for (core/).
 *
 * Part of the instance's creation (core/instance.c), split out because it
 * talks to the kernel's scheduler, not to peers. Layer core/
 * (docs/ARCHITECTURE.md).
 */
#ifndef SYMM_CORE_SCHED_SLICE_H
#define SYMM_CORE_SCHED_SLICE_H

#include "runtime/state.h"
#include "runtime/status.h"

/* At init's start, with the other settings: SYMM_ERR_INVALID (logged) for a
 * SYMM_SCHED_SLICE_US the kernel would not take. */
SYMM_MUST_CHECK int symm_sched_slice_check(const symm_config_t *cfg);

/* SYMM_SCHED_SLICE_US for the calling thread (-1: the kernel's shortest),
 * set back to the kernel's own by a RELEASE hook. A kernel that refuses is
 * logged at debug level only: the slice is a hint. */
void symm_sched_slice_choose(symm_instance_t *inst);

#endif
