/*
 * region_table.c - the table of registered regions (region_table.h): made on first
 * use, slots taken lowest first. Never communicates; the registration
 * protocol is core/region_register.c's.
 */
#include "mem/region_table.h"

#include <stdlib.h>

#include "runtime/status.h"

int symm_region_table_get(symm_instance_t *s, symm_region_table_t **t_p)
{
    if (s->regions == NULL) {
        symm_region_table_t *t = calloc(1, sizeof(*t));
        if (t == NULL)
            return SYMM_ERR_NOMEM;
        for (int i = 0; i < SYMM_MAX_REGIONS; i++) {
            t->slot[i].id = i;
            t->slot[i].fd = -1;
        }
        s->regions = t;
    }
    *t_p = s->regions;
    return SYMM_OK;
}

int symm_region_slot_free(const symm_region_table_t *t)
{
    for (int i = 0; i < SYMM_MAX_REGIONS; i++)
        if (!t->slot[i].live)
            return i;
    return -1;
}

const char *symm_region_access_str(unsigned access, char buf[4])
{
    int n = 0;
    if (access & SYMM_ACCESS_READ)
        buf[n++] = 'r';
    if (access & SYMM_ACCESS_WRITE)
        buf[n++] = 'w';
    if (access & SYMM_ACCESS_ATOMIC)
        buf[n++] = 'a';
    if (n == 0)
        buf[n++] = '-';
    buf[n] = '\0';
    return buf;
}
