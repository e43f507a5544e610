/*
 * shmem_region.c - shmemx_register / shmemx_deregister: checks of the public
 * arguments, then the collective protocol of core/region_register.c. A bad argument
 * on one PE still takes part in the protocol, so every PE fails the call
 * together instead of waiting for the one that returned early.
 */
#include <stddef.h>

#include "core/region_register.h"
#include "mem/region_table.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "shmemx.h"

_Static_assert(SHMEMX_ACCESS_READ == SYMM_ACCESS_READ && SHMEMX_ACCESS_WRITE == SYMM_ACCESS_WRITE &&
                   SHMEMX_ACCESS_ATOMIC == SYMM_ACCESS_ATOMIC,
               "shmemx.h and mem/region_table.h name the same access bits");

int shmemx_register(void *addr, size_t size, unsigned access, shmemx_region_t *region_p)
{
    symm_instance_t *s = symm_inst(__func__);
    int rc = SYMM_OK, id = -1;
    if (region_p == NULL) {
        symm_error(__func__, "region_p is NULL");
        rc = SYMM_ERR_INVALID;
    }
    rc = symm_region_register(s, addr, size, access, rc, &id, __func__);
    if (rc != SYMM_OK)
        return 1;
    region_p->id = id;
    region_p->addr = addr;
    region_p->size = size;
    region_p->access = access;
    return 0;
}

int shmemx_deregister(shmemx_region_t *region)
{
    symm_instance_t *s = symm_inst(__func__);
    int rc = SYMM_OK;
    if (region == NULL) {
        symm_error(__func__, "region is NULL");
        rc = SYMM_ERR_INVALID;
    }
    rc = symm_region_deregister(s, region != NULL ? region->id : -1,
                                region != NULL ? region->addr : NULL, rc, __func__);
    if (rc != SYMM_OK)
        return 1;
    region->id = -1;
    return 0;
}
