/*
 * ucx_plugin.c - the UCX transport's plugin entry (runtime/plugin.h) and
 * the host's services it calls (symm_ucx_host_t, transport/transport.h).
 *
 * Owns the host table the entry was given. The routines of runtime/ and
 * boot/ the transport calls are defined here by name, each a call through
 * that table, so the transport's code reads as it would inside libsymm and
 * the one copy of their state stays libsymm's. Hidden, like all of the
 * plugin but its entry; never on a put/get/AMO path.
 */
#define _GNU_SOURCE
#include "runtime/plugin.h"

#include "boot/boot.h"
#include "runtime/fault.h"
#include "runtime/pestatus.h"
#include "transport/ucx/ucx.h"

const symm_ucx_host_t *symm_ucx_host;

int symm_fault(const char *site) { return symm_ucx_host->fault(site); }

int symm_boot_agree(symm_boot_t *boot, int rc, const char *routine, int *failed_pe_p)
{
    return symm_ucx_host->boot_agree(boot, rc, routine, failed_pe_p);
}

void symm_pe_end(symm_instance_t *s, int status, int self)
{
    symm_ucx_host->pe_end(s, status, self);
}

#define UCX_STR_(x) #x
#define UCX_STR(x) UCX_STR_(x)

static const char *ucx_version(void) { return ucp_get_version_string(); }

static int ucx_atomics_probe(char *tl, size_t tl_len)
{
    if (tl_len > 0)
        tl[0] = '\0';
    return (int)symm_ucx_amo_probe(tl, tl_len);
}

static const symm_ucx_plugin_ops_t *ucx_plugin_ops(void)
{
    static symm_ucx_plugin_ops_t ops;
    ops.transport = symm_ucx_ops();
    ops.version = ucx_version;
    ops.atomics_probe = ucx_atomics_probe;
    symm_ucx_host = symm_plugin_host->kind;
    return &ops;
}

__attribute__((visibility("default"))) const symm_plugin_t *symm_plugin_entry(
    const symm_plugin_host_t *host);
const symm_plugin_t *symm_plugin_entry(const symm_plugin_host_t *host)
{
    static symm_plugin_t desc = {SYMM_PLUGIN_ABI, "ucx", "UCX API " UCX_STR(UCP_API_MAJOR) "." UCX_STR(UCP_API_MINOR), NULL};
    if (!symm_plugin_host_fits(host) || host->kind == NULL)
        return NULL;
    symm_plugin_host = host;
    desc.ops = ucx_plugin_ops();
    return &desc;
}
