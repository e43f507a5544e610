/*
 * net_plugin.c - the network transport as a plugin (runtime/plugin.h):
 * libsymm-ucx.so, opened at the first job that needs the network, and the
 * services libsymm gives it (symm_ucx_host_t).
 *
 * Owns the UCX plugin's host table and the answers for symm-info. The
 * plugin is opened once per process and never closed (runtime/plugin.c).
 */
#define _GNU_SOURCE
#include <stddef.h>

#include "boot/boot.h"
#include "runtime/fault.h"
#include "runtime/plugin.h"
#include "runtime/pestatus.h"
#include "transport/transport.h"

static int host_report_elsewhere(const symm_instance_t *s) { return symm_pe_report_elsewhere(s); }

static int host_reporting(void) { return symm_pe_reporting; }

static int host_doing_named(void) { return symm_doing.routine != NULL; }

static const symm_ucx_host_t ucx_host = {
    .fault = symm_fault,
    .boot_agree = symm_boot_agree,
    .pe_end = symm_pe_end,
    .report_elsewhere = host_report_elsewhere,
    .reporting = host_reporting,
    .doing_named = host_doing_named,
};

static const symm_ucx_plugin_ops_t *ucx_plugin(const char **why)
{
    const symm_plugin_t *p = symm_plugin_load("ucx", &ucx_host, why);
    return p != NULL ? p->ops : NULL;
}

const symm_transport_ops_t *symm_ucx_transport(const char **why)
{
    const symm_ucx_plugin_ops_t *ops = ucx_plugin(why);
    return ops != NULL ? ops->transport : NULL;
}

const char *symm_ucx_version(void)
{
    const symm_ucx_plugin_ops_t *ops = ucx_plugin(NULL);
    return ops != NULL ? ops->version() : NULL;
}

int symm_ucx_atomics_probe(char *tl, size_t tl_len)
{
    const symm_ucx_plugin_ops_t *ops = ucx_plugin(NULL);
    if (ops != NULL)
        return ops->atomics_probe(tl, tl_len);
    if (tl_len > 0)
        tl[0] = '\0';
    return -1;
}
