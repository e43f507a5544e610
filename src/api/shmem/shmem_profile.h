/*
 * shmem_profile.h - the OpenSHMEM profiling interface.
 *
 * Every public routine shmem_X is a weak symbol with a strong alias
 * pshmem_X, so a profiling tool can define its own shmem_X (statically, or
 * by preloading) and forward to pshmem_X. SYMM_PALIAS(name) follows each
 * definition; the weak binding comes from SYMM_API while building symm.
 *
 * Layer api/ (the top layer, above core/; docs/ARCHITECTURE.md): every public
 * entry point (OpenSHMEM, pshmem, aclshmem, streams, locks) as thin checked
 * shims. It includes and calls only its own directory and those below it
 * (scripts/check_layers.sh).
 */
#ifndef SYMM_PROFILE_H
#define SYMM_PROFILE_H

#define SYMM_PALIAS(name)                                                                   \
    extern __typeof__(name) p##name __attribute__((alias(#name), visibility("default")));

#endif
