/*
 * atomics.c - the SYMM_ATOMICS rule (atomics.h says it and its limits).
 */
#include "runtime/atomics.h"

#include <stdio.h>
#include <string.h>

#include "runtime/log.h"
#include "runtime/status.h"

/* UCX's aliases (ucp_context.c, 1.13) that name transports with device
 * atomics; the others name only transports without. */
static const char *const tl_aliases[][6] = {
    {"ib", "rc_verbs", "ud_verbs", "rc_mlx5", "ud_mlx5", "dc_mlx5"},
    {"rc", "rc_mlx5", "rc_verbs"},
    {"rc_v", "rc_verbs"},
    {"rc_x", "rc_mlx5"},
    {"dc", "dc_mlx5"},
    {"dc_x", "dc_mlx5"},
    {"ud", "ud_mlx5", "ud_verbs"},
    {"ud_v", "ud_verbs"},
    {"ud_x", "ud_mlx5"},
    {"ugni", "ugni_smsg", "ugni_udt", "ugni_rdma"},
};

/* Does the item [item, item + len) of a UCX_TLS list name tl? */
static int tl_item_names(const char *item, size_t len, const char *tl)
{
    const char *colon = memchr(item, ':', len); /* "ud_mlx5:aux" */
    if (colon != NULL)
        len = (size_t)(colon - item);
    if ((len == 3 && strncmp(item, "all", 3) == 0) ||
        (strlen(tl) == len && strncmp(item, tl, len) == 0))
        return 1;
    for (size_t a = 0; a < sizeof(tl_aliases) / sizeof(tl_aliases[0]); a++) {
        if (strlen(tl_aliases[a][0]) != len || strncmp(item, tl_aliases[a][0], len) != 0)
            continue;
        for (int k = 1; k < 6 && tl_aliases[a][k] != NULL; k++)
            if (strcmp(tl_aliases[a][k], tl) == 0)
                return 1;
    }
    return 0;
}

/* Does the comma-separated list name (or, by tl_item_names, alias) name? */
static int list_names(const char *list, const char *name, int (*item_names)(const char *, size_t,
                                                                             const char *))
{
    for (const char *p = list; *p != '\0';) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len > 0 && item_names(p, len, name))
            return 1;
        p += len + (comma != NULL);
    }
    return 0;
}

int symm_atomics_tl_used(const char *tls, const char *tl)
{
    if (tls == NULL || tls[0] == '\0')
        return 1;
    if (tls[0] == '^')
        return !list_names(tls + 1, tl, tl_item_names);
    return list_names(tls, tl, tl_item_names);
}

static int dev_item_names(const char *item, size_t len, const char *dev)
{
    return (len == 3 && strncmp(item, "all", 3) == 0) ||
           (strlen(dev) == len && strncmp(item, dev, len) == 0);
}

int symm_atomics_dev_used(const char *devs, const char *dev)
{
    return devs == NULL || devs[0] == '\0' || list_names(devs, dev, dev_item_names);
}

void symm_atomics_choose(symm_instance_t *s, int net, unsigned bits, const char *tl)
{
    int mode = s->cfg.core.atomics;
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
