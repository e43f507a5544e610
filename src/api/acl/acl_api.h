/*
 * acl_api.h - what the aclshmem entry points share among themselves (api/ only).
 */
#ifndef SYMM_API_ACL_H
#define SYMM_API_ACL_H

#include "shmem.h"

/* A message of the aclshmem layer at symm's level (SYMM_LOG_*): symm's log
 * line, or the program's logger (aclshmemx_set_extern_logger). */
void symm_acl_log(int level, const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The symm team of an aclshmem team handle in the current instance, or
 * SHMEM_TEAM_INVALID (aclshmem_team.c). */
shmem_team_t symm_acl_team_lookup(int team);

#endif
