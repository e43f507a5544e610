/*
 * shmem_lock.c - shmem_set_lock, shmem_test_lock, shmem_clear_lock (the lock
 * itself is ops/lock.c).
 */
#include "api/shmem/shmem_profile.h"
#include "ops/lock.h"
#include "shmem.h"

void shmem_set_lock(long *lock) { symm_lock_set(lock, __func__); }
int shmem_test_lock(long *lock) { return symm_lock_test(lock, __func__); }
void shmem_clear_lock(long *lock) { symm_lock_clear(lock, __func__); }

SYMM_PALIAS(shmem_set_lock)
SYMM_PALIAS(shmem_test_lock)
SYMM_PALIAS(shmem_clear_lock)
