/*
 * fake_plugin.c - plugins for test_plugin.c (runtime/plugin.h), by FAKE_KIND:
 *   0  libsymm-fake.so: a plugin whose ops are a string; it logs one line
 *      through the host's services when it is loaded;
 *   1  libsymm-fake-other.so: refuses every host, as one of another build;
 *   2  libsymm-not-plugin.so: a shared object with no symm_plugin_entry.
 */
#include "runtime/log.h"
#include "runtime/plugin.h"

#if FAKE_KIND == 0
static const char fake_ops[] = "fake ops";

static const symm_plugin_t *fake_loaded(const symm_plugin_t *d)
{
    symm_warn("fake", "loaded, level %d", symm_log_level());
    return d;
}
#endif

#if FAKE_KIND == 2
__attribute__((visibility("default"))) int fake_not_an_entry(void);
int fake_not_an_entry(void) { return 0; }
#else
__attribute__((visibility("default"))) const symm_plugin_t *symm_plugin_entry(
    const symm_plugin_host_t *host);
const symm_plugin_t *symm_plugin_entry(const symm_plugin_host_t *host)
{
#if FAKE_KIND == 0
    static const symm_plugin_t desc = {SYMM_PLUGIN_ABI, "fake", "nothing", fake_ops};
    if (!symm_plugin_host_fits(host))
        return NULL;
    symm_plugin_host = host;
    return fake_loaded(&desc);
#else
    (void)host;
    return NULL;
#endif
}
#endif
