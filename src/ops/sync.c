/*
 * sync.c - shared error paths of the waiting routines.
 */
#include "ops/sync.h"
#include "runtime/log.h"

void symm_bad_cmp(const char *routine, int cmp)
{
    symm_fatal(routine, "invalid comparison operator %d (expected SHMEM_CMP_EQ..SHMEM_CMP_GE)", cmp);
}
