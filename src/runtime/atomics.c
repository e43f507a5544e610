/*
 * atomics.c - the SYMM_ATOMICS rule (atomics.h says it and its limits).
 */
#include "runtime/atomics.h"

#include <stdio.h>
#include <string.h>

#include "runtime/log.h"
#include "runtime/status.h"

int symm_atomics_mode(const symm_config_t *cfg, const char *routine, symm_atomics_mode_t *mode)
{
    const char *v = cfg->core.atomics != NULL ? cfg->core.atomics : "auto";
    if (strcmp(v, "auto") == 0)
        *mode = SYMM_ATOMICS_AUTO;
    else if (strcmp(v, "cpu") == 0)
        *mode = SYMM_ATOMICS_CPU;
    else if (strcmp(v, "network") == 0)
        *mode = SYMM_ATOMICS_NETWORK;
    else {
        symm_error(routine, "SYMM_ATOMICS='%s' is not one of auto, cpu, network", v);
        return SYMM_ERR_INVALID;
    }
    return SYMM_OK;
}

/* The transports UCX applies atomics on with the CPU (shared memory,
 * loopback): coherent with symm's CPU atomics on mapped peers. */
static int cpu_atomic_tl(const char *tl, size_t len)
{
    static const char *const cpu[] = {"self", "sysv", "posix", "xpmem", "knem", "cma"};
    for (size_t i = 0; i < sizeof(cpu) / sizeof(cpu[0]); i++)
        if (strlen(cpu[i]) == len && strncmp(tl, cpu[i], len) == 0)
            return 1;
    return 0;
}

unsigned symm_atomics_parse_ucx(const char *worker_info, const char *config, char *tl,
                                size_t tl_len)
{
    unsigned bits = 0;
    if (config != NULL) {
        for (const char *m = config; (m = strstr(m, "UCX_ATOMIC_MODE=")) != NULL; m += 16)
            if (strncmp(m + 16, "cpu", 3) == 0 && (m[19] == '\n' || m[19] == '\0'))
                bits |= SYMM_NETAMO_CPU_MODE;
    }
    if (worker_info == NULL)
        return bits;
    const char *line = strstr(worker_info, "atomics:");
    if (line == NULL)
        return bits | SYMM_NETAMO_UNKNOWN;
    const char *end = strchr(line, '\n');
    if (end == NULL)
        end = line + strlen(line);
    for (const char *p = line + 8; p < end;) {
        const char *colon = memchr(p, ':', (size_t)(end - p));
        if (colon == NULL)
            break;
        const char *name = colon + 1;
        const char *slash = memchr(name, '/', (size_t)(end - name));
        if (slash == NULL)
            break;
        size_t n = (size_t)(slash - name);
        if (!cpu_atomic_tl(name, n)) {
            if (tl_len > 0 && tl[0] == '\0')
                snprintf(tl, tl_len, "%.*s", (int)n, name);
            bits |= SYMM_NETAMO_DEVICE;
        }
        const char *comma = memchr(slash, ',', (size_t)(end - slash));
        p = comma != NULL ? comma + 1 : end;
    }
    return bits;
}

void symm_atomics_choose(symm_instance_t *s, int net, unsigned bits, const char *tl)
{
    symm_atomics_mode_t mode = SYMM_ATOMICS_AUTO;
    (void)symm_atomics_mode(&s->cfg, "shmem_init", &mode); /* checked before */
    int spans = 0;
    for (int pe = 0; pe < s->n_pes; pe++)
        spans |= !s->peers[pe].same_node;
    const char *where = spans ? "job spans nodes" : "SYMM_TRANSPORT=ucx";
    char kind[64];
    if (bits & SYMM_NETAMO_DEVICE)
        snprintf(kind, sizeof(kind), "UCX device atomics on %s", tl[0] ? tl : "a NIC");
    else if (bits & SYMM_NETAMO_UNKNOWN)
        snprintf(kind, sizeof(kind), "UCX atomics of unknown kind");
    else if (bits & SYMM_NETAMO_CPU_MODE)
        snprintf(kind, sizeof(kind), "UCX_ATOMIC_MODE=cpu");
    else
        snprintf(kind, sizeof(kind), "UCX atomics applied by the target CPU");

    bool net_agent = false;
    if (!net)
        snprintf(s->amo_why, sizeof(s->amo_why), "cpu (every PE is node-local%s)",
                 mode == SYMM_ATOMICS_NETWORK ? "; SYMM_ATOMICS=network needs a network "
                                                "transport" : "");
    else if (mode == SYMM_ATOMICS_CPU) {
        snprintf(s->amo_why, sizeof(s->amo_why), "cpu (SYMM_ATOMICS=cpu; %s; %s)", kind, where);
        /* The user's choice, but one that loses updates: say so once. */
        if ((bits & SYMM_NETAMO_DEVICE) && s->my_pe == 0)
            symm_warn("shmem_init", "SYMM_ATOMICS=cpu with %s: an atomic from a node-local PE "
                      "and one from another node on the same word are not atomic against "
                      "each other", kind);
    }
    else if (mode == SYMM_ATOMICS_NETWORK) {
        net_agent = true;
        snprintf(s->amo_why, sizeof(s->amo_why), "network (SYMM_ATOMICS=network; %s; %s)",
                 kind, where);
    } else {
        net_agent = (bits & (SYMM_NETAMO_DEVICE | SYMM_NETAMO_UNKNOWN)) != 0;
        snprintf(s->amo_why, sizeof(s->amo_why), "%s (%s; %s)", net_agent ? "network" : "cpu",
                 kind, where);
    }
    s->amo_flags = (uint8_t)((s->amo_flags & ~SYMM_AMO_NET) | (net_agent ? SYMM_AMO_NET : 0));
}
