/*
 * fault.h - injected failures, a testing aid (SYMM_FAULT).
 *
 * SYMM_FAULT="SITE[@PE][#N][,...]" makes the cold-path step SITE fail on
 * world PE PE (default: every PE; taken modulo the job's size, so that "@1"
 * is PE 0 in a job of one), at its Nth call on that PE (default: every
 * call). Sites, each the one system step it stands for:
 *   ftruncate  the heap memfd's size: the first call is init's, later ones
 *              heap growths
 *   mmap       init's mappings of the node-local heaps
 *   calloc     the heap allocator's metadata (mem/alloc.c)
 *   team       a team split's member list and team record
 *   ucx_reg    the UCX registration of a grown heap (or a registered region)
 *   ucx_worker the creation of a UCX worker: the first call is init's
 *              default worker (before its exchange), later ones contexts'
 * The caller fails as it would have with errno ENOMEM (ENOSPC for
 * ftruncate), so the real error path runs. Only cold paths ask: nothing on
 * a data path pays for this.
 *
 * One site is a delay, not a failure, for the collectives' tests:
 *   stage_lag  a staged collective (coll/coll_stage.h) sleeps 0.2 ms
 *              between seeing a peer's staged copy and reading it, where a
 *              peer that ran ahead would overwrite it if it could
 * It is asked only when some rule is armed (symm_fault_armed).
 */
#ifndef SYMM_FAULT_H
#define SYMM_FAULT_H

#include "runtime/status.h"

/* Arm from the spec (NULL or "" disarms) for world PE my_pe of n_pes. A malformed
 * spec is logged and returns SYMM_ERR_INVALID. */
SYMM_MUST_CHECK int symm_fault_setup(const char *spec, int my_pe, int n_pes);
/* Nonzero when SITE must fail now (errno is set); counts the call. */
int symm_fault(const char *site);
/* Some rule is armed on this PE. */
extern int symm_fault_armed;

#endif
