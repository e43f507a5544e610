/*
 * profile.h - the OpenSHMEM profiling interface.
 *
 * Every public routine shmem_X is a weak symbol with a strong alias
 * pshmem_X, so a profiling tool can define its own shmem_X (statically, or
 * by preloading) and forward to pshmem_X. SYMM_PALIAS(name) follows each
 * definition; the weak binding comes from SYMM_API while building symm.
 */
#ifndef SYMM_PROFILE_H
#define SYMM_PROFILE_H

#define SYMM_PALIAS(name)                                                                   \
    extern __typeof__(name) p##name __attribute__((alias(#name), visibility("default")));

#endif
