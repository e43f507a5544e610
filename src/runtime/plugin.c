/*
 * plugin.c - finding and loading plugins (runtime/plugin.h), host side.
 *
 * Owns the search directories, the one dlopen of each plugin and the host's
 * table of services. A plugin, once loaded, stays loaded; a plugin that
 * could not be loaded is not tried again (its reason is kept), so a wait
 * loop never retries a dlopen.
 */
#define _GNU_SOURCE
#include "runtime/plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/log.h"
#include "runtime/state.h"
#include "shmem.h"

#define PLUGIN_MAX 8
#define PLUGIN_DIRS_MAX 4

typedef struct plugin_slot {
    char name[32];
    const symm_plugin_t *desc;
    char why[PATH_MAX + 256];
} plugin_slot_t;

static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;
static plugin_slot_t plugin_slots[PLUGIN_MAX];
static int plugin_count;
static char plugin_dir_list[PLUGIN_DIRS_MAX * (PATH_MAX + 1)];

/* The directories searched, in order; n of them into dirs[]. */
static int plugin_dirs(char dirs[PLUGIN_DIRS_MAX][PATH_MAX])
{
    int n = 0;
    const char *env = getenv("SYMM_PLUGIN_DIR");
    if (env != NULL && env[0] != '\0') {
        snprintf(dirs[n++], PATH_MAX, "%s", env);
        return n;
    }
    Dl_info info;
    if (dladdr((void *)plugin_dirs, &info) != 0 && info.dli_fname != NULL) {
        char self[PATH_MAX];
        if (realpath(info.dli_fname, self) != NULL) {
            char *slash = strrchr(self, '/');
            if (slash != NULL && (size_t)(slash - self) + sizeof("/symm") <= PATH_MAX) {
                memcpy(dirs[n], self, (size_t)(slash - self));
                memcpy(dirs[n] + (slash - self), "/symm", sizeof("/symm"));
                n++;
            }
        }
    }
    const char *fixed[] = {
#ifdef SYMM_PLUGIN_DIR_INSTALL
        SYMM_PLUGIN_DIR_INSTALL,
#endif
#ifdef SYMM_PLUGIN_DIR_BUILD
        SYMM_PLUGIN_DIR_BUILD,
#endif
        NULL};
    for (int i = 0; fixed[i] != NULL; i++) {
        int dup = 0;
        for (int k = 0; k < n; k++)
            dup |= strcmp(dirs[k], fixed[i]) == 0;
        if (!dup)
            snprintf(dirs[n++], PATH_MAX, "%s", fixed[i]);
    }
    return n;
}

const char *symm_plugin_dirs(void)
{
    char dirs[PLUGIN_DIRS_MAX][PATH_MAX];
    int n = plugin_dirs(dirs);
    size_t off = 0;
    plugin_dir_list[0] = '\0';
    for (int i = 0; i < n && off < sizeof(plugin_dir_list); i++)
        off += (size_t)snprintf(plugin_dir_list + off, sizeof(plugin_dir_list) - off, "%s%s",
                                i > 0 ? ":" : "", dirs[i]);
    return plugin_dir_list;
}

int symm_plugin_find(const char *name, char *path, size_t cap)
{
    char dirs[PLUGIN_DIRS_MAX][PATH_MAX];
    int n = plugin_dirs(dirs);
    for (int i = 0; i < n; i++) {
        if ((size_t)snprintf(path, cap, "%s/libsymm-%s.so", dirs[i], name) >= cap)
            continue;
        if (access(path, R_OK) == 0)
            return 1;
    }
    return 0;
}

/* Open the plugin's file and ask its entry for the descriptor; on failure
 * slot->why says why. */
static const symm_plugin_t *plugin_open(plugin_slot_t *slot, const char *name, const void *kind)
{
    char path[PATH_MAX];
    if (!symm_plugin_find(name, path, sizeof(path))) {
        snprintf(slot->why, sizeof(slot->why), "libsymm-%s.so is not in %s", name,
                 symm_plugin_dirs());
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(slot->why, sizeof(slot->why), "%s", e != NULL ? e : path);
        return NULL;
    }
    symm_plugin_entry_fn entry;
    *(void **)&entry = dlsym(h, "symm_plugin_entry");
    if (entry == NULL) {
        snprintf(slot->why, sizeof(slot->why), "%s is not a symm plugin (no symm_plugin_entry)",
                 path);
        return NULL;
    }
    /* Each plugin gets its own copy: kind differs by plugin. */
    symm_plugin_host_t *host = malloc(sizeof(*host));
    if (host == NULL) {
        snprintf(slot->why, sizeof(slot->why), "out of memory");
        return NULL;
    }
    *host = (symm_plugin_host_t){
        .abi = SYMM_PLUGIN_ABI,
        .version = SYMM_VERSION_STRING,
        .sizes = {[SYMM_PLUGIN_SIZE_INSTANCE] = sizeof(symm_instance_t),
                  [SYMM_PLUGIN_SIZE_CTX] = sizeof(struct symm_ctx)},
        .vlog = symm_vlog,
        .log_set_pe = symm_log_set_pe,
        .log_level = symm_log_level,
        .vfatal = symm_vfatal,
        .kind = kind,
    };
    const symm_plugin_t *desc = entry(host);
    if (desc == NULL || desc->abi != SYMM_PLUGIN_ABI) {
        snprintf(slot->why, sizeof(slot->why), "%s is of another build of symm than this "
                 "libsymm %s (reinstall both from one build)", path, SYMM_VERSION_STRING);
        free(host);
        return NULL;
    }
    symm_debug("plugin", "loaded %s (%s)", path, desc->about);
    return desc;
}

const symm_plugin_t *symm_plugin_load(const char *name, const void *kind, const char **why)
{
    pthread_mutex_lock(&plugin_lock);
    plugin_slot_t *slot = NULL;
    for (int i = 0; i < plugin_count && slot == NULL; i++)
        if (strcmp(plugin_slots[i].name, name) == 0)
            slot = &plugin_slots[i];
    if (slot == NULL && plugin_count < PLUGIN_MAX) {
        slot = &plugin_slots[plugin_count++];
        snprintf(slot->name, sizeof(slot->name), "%s", name);
        slot->desc = plugin_open(slot, name, kind);
    }
    const symm_plugin_t *desc = slot != NULL ? slot->desc : NULL;
    if (why != NULL)
        *why = slot != NULL ? slot->why : "too many plugins";
    pthread_mutex_unlock(&plugin_lock);
    return desc;
}
