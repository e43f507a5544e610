/*
 * api_instance.h - making an instance the one the API acts on.
 *
 * shmem_init makes its instance current once; the aclshmem layer switches
 * between several (aclshmemx_init_attr, aclshmemx_instance_ctx_set,
 * finalize). Selecting sets everything that names the current instance:
 * symm_cur, SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and the
 * PE number of log lines.
 */
#ifndef SYMM_INSTANCE_SELECT_H
#define SYMM_INSTANCE_SELECT_H

#include "runtime/state.h"

/* Make inst current; NULL leaves no instance current (SHMEM_CTX_DEFAULT
 * NULL, the predefined teams SHMEM_TEAM_INVALID). Callers serialise. */
void symm_instance_select(symm_instance_t *inst);

#endif
