/*
 * lock.h - the distributed queue lock on a symmetric long (ops/lock.c).
 * routine names the caller in messages.
 */
#ifndef SYMM_LOCK_H
#define SYMM_LOCK_H

void symm_lock_set(long *lock, const char *routine);
/* 0 if the lock was taken, 1 if it is held by someone else. */
int symm_lock_test(long *lock, const char *routine);
void symm_lock_clear(long *lock, const char *routine);

#endif
