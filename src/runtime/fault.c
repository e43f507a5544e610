/*
 * fault.c - SYMM_FAULT: make one chosen step fail on one chosen PE, so that
 * tests drive the error and agreement paths (fault.h says the syntax).
 *
 * Process-wide state: a testing aid needs no more, and the sites are cold.
 * Never allocates: sites include the allocator's own metadata.
 */
#include "runtime/fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/log.h"
#include "runtime/status.h"

#define FAULT_MAX 8

static struct fault_rule {
    char site[16];
    long nth; /* 0: every call */
    long calls;
} rules[FAULT_MAX];
static int n_rules;
int symm_fault_armed;

int symm_fault_setup(const char *spec, int my_pe, int n_pes)
{
    n_rules = 0;
    symm_fault_armed = 0;
    if (spec == NULL)
        return SYMM_OK;
    const char *p = spec;
    while (*p != '\0') {
        size_t len = strcspn(p, "@#,");
        long pe = -1, nth = 0;
        if (len == 0 || len >= sizeof(rules[0].site) || n_rules == FAULT_MAX)
            goto bad;
        struct fault_rule r = {.nth = 0};
        memcpy(r.site, p, len);
        p += len;
        while (*p == '@' || *p == '#') {
            char kind = *p++, *end;
            long v = strtol(p, &end, 10);
            if (end == p || v < (kind == '#' ? 1 : 0))
                goto bad;
            *(kind == '@' ? &pe : &nth) = v;
            p = end;
        }
        if (*p == ',')
            p++;
        else if (*p != '\0')
            goto bad;
        r.nth = nth;
        if (pe < 0 || pe % n_pes == my_pe)
            rules[n_rules++] = r;
    }
    symm_fault_armed = n_rules > 0;
    return SYMM_OK;
bad:
    n_rules = 0;
    symm_error("shmem_init", "SYMM_FAULT='%s' is not SITE[@PE][#N][,...] (at '%s')", spec, p);
    return SYMM_ERR_INVALID;
}

int symm_fault(const char *site)
{
    for (int i = 0; i < n_rules; i++) {
        struct fault_rule *r = &rules[i];
        if (strcmp(r->site, site) != 0)
            continue;
        r->calls++;
        if (r->nth == 0 || r->calls == r->nth) {
            errno = strcmp(site, "ftruncate") == 0 ? ENOSPC : ENOMEM;
            return 1;
        }
    }
    return 0;
}
