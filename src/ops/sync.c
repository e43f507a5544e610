/*
 * sync.c - shared error paths of the waiting routines.
 */
#include "ops/sync.h"
#include "runtime/log.h"
#include "ops/p2p_scan.h"

_Thread_local size_t symm_p2p_any_next;

void symm_bad_cmp(const char *routine, int cmp)
{
    symm_fatal(routine, "invalid comparison operator %d (expected SHMEM_CMP_EQ..SHMEM_CMP_GE)", cmp);
}
