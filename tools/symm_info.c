/*
 * symm-info - what this symm is: version, build, transports, and every
 * environment variable with its current value and meaning.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "runtime/atomics.h"
#include "runtime/config.h"
#include "runtime/plugin.h"
#include "transport/transport.h"
#include "shmem.h"

/* The bootstraps and transports this install has: built in, or plugins
 * (runtime/plugin.h) found where libsymm looks for them. */
static void print_plugins(void)
{
    static const struct {
        const char *name, *what;
    } plugins[] = {
        {"boot-pmix", "bootstrap pmix (mpirun, srun --mpi=pmix)"},
        {"boot-mpi-openmpi", "bootstrap mpi, Open MPI's ABI"},
        {"boot-mpi-mpich", "bootstrap mpi, MPICH's ABI (Intel MPI, Cray MPICH, MVAPICH)"},
        {"ucx", "transport ucx (PEs on other nodes)"},
    };
    char path[4096];
    printf("bootstrap: tcp (oshrun), singleton; choose with "
           "SYMM_BOOTSTRAP=auto|tcp|pmix|mpi|singleton\n");
    printf("plugins (looked for in %s):\n", symm_plugin_dirs());
    for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++) {
        if (symm_plugin_find(plugins[i].name, path, sizeof(path)))
            printf("  %-17s %s: %s\n", plugins[i].name, plugins[i].what, path);
        else
            printf("  %-17s %s: not installed\n", plugins[i].name, plugins[i].what);
    }
}

int main(int argc, char **argv)
{
    symm_config_t cfg;
    char name[SHMEM_MAX_NAME_LEN];
    int major, minor, version_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: symm-info [--version | --algorithms | --help]\n"
                   "Prints symm's version, transports, atomics, bootstraps and every environment\n"
                   "variable with its value and meaning (SYMM_LOG_LEVEL=3: also those oshrun\n"
                   "sets for its PEs).\n"
                   "  --version   one line: symm's version and the OpenSHMEM version\n"
                   "  --algorithms  each collective's forms in the automatic choice's order:\n"
                   "              name (for SYMM_<COLL>_ALGORITHM), file, when it is chosen\n"
                   "  -h, --help  this text\n");
            return 0;
        }
        if (strcmp(argv[i], "--algorithms") == 0) {
            symm_coll_forms_print(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            version_only = 1;
            continue;
        }
        fprintf(stderr, "symm-info: unknown option '%s' (try symm-info --help)\n", argv[i]);
        return 2;
    }
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    printf("symm %s (%s), OpenSHMEM %d.%d\n", SYMM_VERSION_STRING, name, major, minor);
    if (version_only)
        return 0;
    int bad = symm_config_load_as(&cfg, "symm-info") != 0;
    char val[64];
    const char *ucx = symm_ucx_version();
    symm_config_value(&cfg, "SYMM_TRANSPORT", val, sizeof(val));
    printf("transports (SYMM_TRANSPORT=%s):\n", val);
    if (cfg.core.transport == SYMM_TRANSPORT_UCX)
        printf("  node-local peers : ucx %s (forced: every peer but myself)\n",
               ucx ? ucx : "(not in this build)");
    else
        printf("  node-local peers : shm (mapped memfd heaps and global data; put = memcpy)\n");
    if (cfg.core.transport == SYMM_TRANSPORT_SHM)
        printf("  other nodes      : none (SYMM_TRANSPORT=shm)\n");
    else if (ucx != NULL)
        printf("  other nodes      : ucx %s (UCP RMA + AMO; UCX_TLS and other UCX_* apply)\n", ucx);
    else
        printf("  other nodes      : none in this build (no libucx-dev when it was built)\n");
    /* The rule of runtime/atomics.h, and what this process's UCX offers;
     * a job's decision (which needs every PE's finding) is in SHMEM_INFO. */
    symm_config_value(&cfg, "SYMM_ATOMICS", val, sizeof(val));
    printf("atomics (SYMM_ATOMICS=%s): who applies AMOs, signal updates and lock words\n", val);
    printf("  cpu     : the issuing PE's CPU on mapped peers, UCX for the others (not atomic\n"
           "            against each other if UCX uses device atomics)\n"
           "  network : UCX for every PE, mapped ones and itself included (one agent per word)\n"
           "  auto    : network iff the job spans nodes (or SYMM_TRANSPORT=ucx) and UCX uses\n"
           "            device (NIC) atomics; cpu otherwise, so under UCX_ATOMIC_MODE=cpu\n");
    char tl[32];
    int amo = symm_ucx_atomics_probe(tl, sizeof(tl));
    if (amo < 0)
        printf("  UCX here: not available\n");
    else if (amo & SYMM_NETAMO_DEVICE)
        printf("  UCX here: device atomics on %s: auto gives network when the job spans nodes\n",
               tl);
    else if (amo & SYMM_NETAMO_UNKNOWN)
        printf("  UCX here: atomics of unknown kind (assumed device): auto gives network\n"
               "            when the job spans nodes\n");
    else
        printf("  UCX here: atomics applied by the target CPU%s: auto gives cpu\n",
               (amo & SYMM_NETAMO_CPU_MODE) ? " (UCX_ATOMIC_MODE=cpu)" : "");
    printf("  a singleton: cpu (every PE is node-local)\n");
    /* The same rule a PE applies at init where UCX reaches other nodes. */
    char why[128];
    symm_ucx_bulk_rule(cfg.net.ucx_bulk_ep, why, sizeof(why));
    printf("large collective messages to other nodes: %s\n", why);
    {
        FILE *f = fopen("/proc/meminfo", "r");
        char line[128];
        long free_pages = -1, kb = 0;
        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
            sscanf(line, "HugePages_Free: %ld", &free_pages);
            sscanf(line, "Hugepagesize: %ld kB", &kb);
        }
        if (f != NULL)
            fclose(f);
        printf("heap backing (SYMM_HUGEPAGES=%s): %ld free huge pages of %ld kB here; auto uses "
               "them when they cover every local PE's initial heap (SHMEM_INFO says what a job "
               "got)\n",
               (symm_config_value(&cfg, "SYMM_HUGEPAGES", val, sizeof(val)), val), free_pages,
               kb);
    }
    print_plugins();
    fflush(stdout); /* the table is written to the fd directly */
    symm_config_print(&cfg, STDOUT_FILENO);
    return bad ? 1 : 0;
}
