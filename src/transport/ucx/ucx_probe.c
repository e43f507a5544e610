/*
 * ucx_probe.c - what kind of atomics UCX would use on this PE
 * (SYMM_NETAMO_* bits for the SYMM_ATOMICS rule, runtime/atomics.h), asked
 * of UCX's API, never read from its printed reports.
 *
 * UCP (1.13) has no query for its atomic transports, so the probe asks UCT,
 * UCP's own layer below: every network interface that UCP would open here
 * (UCX_TLS and UCX_NET_DEVICES, symm_atomics_tl_used) is opened alone and
 * queried for device atomics, UCX's default rule (UCX_ATOMIC_MODE=guess:
 * device atomics where a transport has them). Shared-memory and loopback
 * interfaces apply atomics with the CPU (UCT_IFACE_FLAG_ATOMIC_CPU) and are
 * not opened. Owns nothing past the call: every handle is closed before it
 * returns. Never changes UCX's configuration.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/atomics.h"
#include "transport/ucx/ucx.h"

/* A 64-bit add done by the device: what UCP needs of an atomic lane. */
static int iface_device_atomics(const uct_iface_attr_t *a)
{
    return (a->cap.flags & UCT_IFACE_FLAG_ATOMIC_DEVICE) &&
           ((a->cap.atomic64.op_flags | a->cap.atomic64.fop_flags) &
            UCS_BIT(UCT_ATOMIC_OP_ADD));
}

/* Open the interface of resource r on md and ask it; 1 device atomics,
 * 0 none, -1 it would not open (UCP would not use it either). */
static int tl_device_atomics(uct_md_h md, uct_worker_h worker, const uct_tl_resource_desc_t *r)
{
    uct_iface_config_t *icfg = NULL;
    uct_iface_h iface = NULL;
    if (uct_md_iface_config_read(md, r->tl_name, NULL, NULL, &icfg) != UCS_OK)
        return -1;
    uct_iface_params_t prm = {
        .field_mask = UCT_IFACE_PARAM_FIELD_OPEN_MODE | UCT_IFACE_PARAM_FIELD_DEVICE,
        .open_mode = UCT_IFACE_OPEN_MODE_DEVICE,
        .mode.device = {.tl_name = r->tl_name, .dev_name = r->dev_name},
    };
    ucs_status_t st = uct_iface_open(md, worker, &prm, icfg, &iface);
    uct_config_release(icfg);
    if (st != UCS_OK)
        return -1;
    uct_iface_attr_t attr;
    int dev = uct_iface_query(iface, &attr) == UCS_OK && iface_device_atomics(&attr);
    uct_iface_close(iface);
    return dev;
}

/* The network resources of one memory domain; SYMM_NETAMO_DEVICE (and the
 * first such transport's name in tl, while tl is "") or 0. */
static unsigned md_probe(uct_component_h comp, const char *md_name, uct_worker_h worker,
                         char *tl, size_t tl_len)
{
    uct_md_config_t *mcfg = NULL;
    uct_md_h md = NULL;
    if (uct_md_config_read(comp, NULL, NULL, &mcfg) != UCS_OK)
        return 0;
    ucs_status_t st = uct_md_open(comp, md_name, mcfg, &md);
    uct_config_release(mcfg);
    if (st != UCS_OK)
        return 0;
    uct_tl_resource_desc_t *res = NULL;
    unsigned n = 0, bits = 0;
    const char *tls = getenv("UCX_TLS"), *devs = getenv("UCX_NET_DEVICES");
    if (uct_md_query_tl_resources(md, &res, &n) == UCS_OK) {
        for (unsigned i = 0; i < n; i++) {
            const uct_tl_resource_desc_t *r = &res[i];
            if (r->dev_type != UCT_DEVICE_TYPE_NET || !symm_atomics_tl_used(tls, r->tl_name) ||
                !symm_atomics_dev_used(devs, r->dev_name) ||
                tl_device_atomics(md, worker, r) != 1)
                continue;
            bits |= SYMM_NETAMO_DEVICE;
            if (tl_len > 0 && tl[0] == '\0')
                snprintf(tl, tl_len, "%s", r->tl_name);
        }
        uct_release_tl_resource_list(res);
    }
    uct_md_close(md);
    return bits;
}

/* The memory domains of every UCT component (transport family). */
static unsigned components_probe(uct_worker_h worker, char *tl, size_t tl_len)
{
    uct_component_h *comps = NULL;
    unsigned n_comps = 0, bits = 0;
    if (uct_query_components(&comps, &n_comps) != UCS_OK)
        return SYMM_NETAMO_UNKNOWN;
    for (unsigned c = 0; c < n_comps; c++) {
        uct_component_attr_t ca = {.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT};
        if (uct_component_query(comps[c], &ca) != UCS_OK || ca.md_resource_count == 0)
            continue;
        uct_md_resource_desc_t *mds = calloc(ca.md_resource_count, sizeof(*mds));
        if (mds == NULL) {
            bits |= SYMM_NETAMO_UNKNOWN;
            break;
        }
        ca.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
        ca.md_resources = mds;
        if (uct_component_query(comps[c], &ca) == UCS_OK)
            for (unsigned m = 0; m < ca.md_resource_count; m++)
                bits |= md_probe(comps[c], mds[m].md_name, worker, tl, tl_len);
        free(mds);
    }
    uct_release_component_list(comps);
    return bits;
}

unsigned symm_ucx_amo_probe(char *tl, size_t tl_len)
{
    const char *mode = getenv("UCX_ATOMIC_MODE");
    if (tl_len > 0)
        tl[0] = '\0';
    if (mode != NULL && strcmp(mode, "cpu") == 0)
        return SYMM_NETAMO_CPU_MODE;
    ucs_async_context_t *async = NULL;
    uct_worker_h worker = NULL;
    if (ucs_async_context_create(UCS_ASYNC_MODE_POLL, &async) != UCS_OK)
        return SYMM_NETAMO_UNKNOWN;
    unsigned bits = SYMM_NETAMO_UNKNOWN;
    if (uct_worker_create(async, UCS_THREAD_MODE_SINGLE, &worker) == UCS_OK) {
        bits = components_probe(worker, tl, tl_len);
        uct_worker_destroy(worker);
    }
    ucs_async_context_destroy(async);
    return bits;
}
