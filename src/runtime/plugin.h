/*
 * plugin.h - the contract between libsymm and its plugins.
 *
 * A plugin is a shared object (MODULE) that holds one backend compiled
 * against its dependency's real headers: a bootstrap (PMIx, MPI of one ABI)
 * or the UCX transport. libsymm itself depends on none of them. It opens a
 * plugin (dlopen, RTLD_LOCAL) only when a job needs that backend, so an
 * install serves machines with and without each dependency, and a program
 * that never leaves the node never loads UCX (nor its memory hooks).
 *
 * A plugin exports one symbol, symm_plugin_entry (SYMM_PLUGIN_DEFINE). It
 * gets the host's services as a table of functions (symm_plugin_host_t)
 * and answers its descriptor, whose ops are of the kind its name says
 * (boot/boot.h: symm_boot_plugin_ops_t; transport/transport.h). It shares
 * symm's internal structures (the instance, the bootstrap) and so must come
 * from the same build: the entry refuses a host of another ABI, version or
 * structure size, and the host then says so. The plugin side of the host's
 * services (runtime/plugin_glue.c, linked into every plugin) defines
 * symm_log and its kin by name, so backend code reads as it would inside
 * libsymm. Plugins are never closed: backends run threads (PMIx, UCX) and
 * their descriptors are used until exit.
 *
 * Where plugins are looked for: $SYMM_PLUGIN_DIR only, when set; else, in
 * order, the directory "symm" beside the library (or executable) that holds
 * libsymm's code, the install's (CMAKE_INSTALL_LIBDIR/symm), the build
 * tree's. A plugin file is libsymm-<name>.so.
 *
 * Layer runtime/ (the lowest): the loader calls only libc and libdl.
 */
#ifndef SYMM_PLUGIN_H
#define SYMM_PLUGIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Raised whenever this file or a structure that plugins share changes
 * shape. A plugin of another ABI, version or structure size is refused. */
#define SYMM_PLUGIN_ABI 1

/* The runtime structures a plugin reads or writes in place; their sizes are
 * checked at load time, a cheap net for a plugin of another build. (A
 * kind's own structures, the bootstrap's, are checked by that kind's
 * host code against sizes its ops carry.) */
enum { SYMM_PLUGIN_SIZE_INSTANCE, SYMM_PLUGIN_SIZE_CTX, SYMM_PLUGIN_NSIZES };

typedef struct symm_plugin_host {
    uint32_t abi;
    const char *version; /* SYMM_VERSION_STRING */
    uint32_t sizes[SYMM_PLUGIN_NSIZES];
    void (*vlog)(int level, const char *routine, const char *fmt, va_list ap);
    void (*log_set_pe)(int pe);
    int (*log_level)(void);
    void (*vfatal)(const char *routine, const char *fmt, va_list ap) __attribute__((noreturn));
    /* The services of one kind of plugin (the UCX transport's), or NULL. */
    const void *kind;
} symm_plugin_host_t;

typedef struct symm_plugin {
    uint32_t abi;
    const char *name;  /* as in its file name */
    const char *about; /* what it was built against ("Open MPI 4.1.4") */
    const void *ops;   /* of its kind */
} symm_plugin_t;

typedef const symm_plugin_t *(*symm_plugin_entry_fn)(const symm_plugin_host_t *host);

/* ---- host side (runtime/plugin.c) ---------------------------------------- */

/* The plugin `name`, loaded once per process (thread-safe), with `kind` as
 * its host services. NULL when it cannot be had: *why (if not NULL) then
 * says why (not found where looked for, refused, dlopen's error), for the
 * caller to put in its own words. */
const symm_plugin_t *symm_plugin_load(const char *name, const void *kind, const char **why);
/* The file the plugin `name` would be loaded from into path (1), or 0 when
 * none is found. For symm-info and error messages; loads nothing. */
int symm_plugin_find(const char *name, char *path, size_t cap);
/* The directories searched, ":"-separated, for messages. */
const char *symm_plugin_dirs(void);

/* ---- plugin side (runtime/plugin_glue.c) --------------------------------- */

/* The host's services, set by the entry before anything else runs. */
extern const symm_plugin_host_t *symm_plugin_host;

/* 1 when this plugin may work with host (same ABI, version and sizes). */
int symm_plugin_host_fits(const symm_plugin_host_t *host);

/* Defines the plugin's entry: checks the host, keeps its services and
 * answers the descriptor {name, about, ops}. */
#define SYMM_PLUGIN_DEFINE(name_, about_, ops_)                                               \
    __attribute__((visibility("default"))) const symm_plugin_t *symm_plugin_entry(           \
        const symm_plugin_host_t *host);                                                     \
    const symm_plugin_t *symm_plugin_entry(const symm_plugin_host_t *host)                   \
    {                                                                                        \
        static const symm_plugin_t desc = {SYMM_PLUGIN_ABI, name_, about_, ops_};            \
        if (!symm_plugin_host_fits(host))                                                    \
            return NULL;                                                                     \
        symm_plugin_host = host;                                                             \
        return &desc;                                                                        \
    }

#endif
