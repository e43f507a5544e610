/*
 * plugin_glue.c - the plugin side of the host's services (runtime/plugin.h).
 *
 * Linked into every plugin, never into libsymm: it defines the logging
 * routines of runtime/log.h by name, each a call through the table the host
 * gave the plugin's entry, so a backend's code calls symm_log, symm_fatal
 * and symm_log_set_pe as it would inside libsymm, and the host keeps the one
 * log state (level, PE, last error, sink). Everything here is hidden: a
 * plugin exports only its entry.
 */
#define _GNU_SOURCE
#include "runtime/plugin.h"

#include <string.h>

#include "runtime/log.h"
#include "runtime/state.h"
#include "shmem.h"

const symm_plugin_host_t *symm_plugin_host;

int symm_plugin_host_fits(const symm_plugin_host_t *host)
{
    return host != NULL && host->abi == SYMM_PLUGIN_ABI && host->version != NULL &&
           strcmp(host->version, SYMM_VERSION_STRING) == 0 &&
           host->sizes[SYMM_PLUGIN_SIZE_INSTANCE] == sizeof(symm_instance_t) &&
           host->sizes[SYMM_PLUGIN_SIZE_CTX] == sizeof(struct symm_ctx);
}

void symm_vlog(int level, const char *routine, const char *fmt, va_list ap)
{
    symm_plugin_host->vlog(level, routine, fmt, ap);
}

void symm_log(int level, const char *routine, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    symm_plugin_host->vlog(level, routine, fmt, ap);
    va_end(ap);
}

void symm_log_set_pe(int pe) { symm_plugin_host->log_set_pe(pe); }

int symm_log_level(void) { return symm_plugin_host->log_level(); }

void symm_vfatal(const char *routine, const char *fmt, va_list ap)
{
    symm_plugin_host->vfatal(routine, fmt, ap);
}

void symm_fatal(const char *routine, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    symm_plugin_host->vfatal(routine, fmt, ap);
}
