/*
 * api_coll.h - the team collectives' shared bodies (api/shmem/shmem_coll.c), for the
 * entry points of both APIs (OpenSHMEM's in shmem/shmem_coll.c, aclshmem's in
 * aclshmem_coll.c): each validates the team (and root), names routine in
 * the status record and in errors, and calls one core collective. 0, or -1
 * for an invalid team or root (logged under SHMEM_DEBUG / always).
 * api/ only.
 */
#ifndef SYMM_API_COLL_H
#define SYMM_API_COLL_H

#include <stddef.h>

#include "coll/coll.h"
#include "shmem.h"

int symm_api_broadcast(shmem_team_t team, void *dest, const void *source, size_t nbytes, int root,
                       const char *routine);
int symm_api_collect(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                     const char *routine);
int symm_api_fcollect(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                      const char *routine);
int symm_api_alltoall(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                      const char *routine);
int symm_api_alltoalls(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t elem, const char *routine);
int symm_api_reduce(shmem_team_t team, void *dest, const void *source, size_t count, size_t elem,
                    symm_reduce_fn op, const char *routine);

#endif
