/*
 * boot_plugin.c - the bootstraps that are plugins (runtime/plugin.h): PMIx
 * (pmix.c) and MPI (mpi.c, one plugin per MPI ABI), loaded when a job asks
 * for them.
 *
 * Owns which MPI plugin serves this process: the one of the ABI of the MPI
 * the program loaded (Open MPI's, or MPICH's, which Intel MPI, Cray MPICH
 * and MVAPICH share). The MPI plugins are not linked with libmpi and take
 * MPI's symbols from the process's global scope, so a libmpi that was
 * loaded with RTLD_LOCAL (by a language binding) is made global first.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "runtime/log.h"
#include "runtime/plugin.h"
#include "runtime/status.h"

/* A loaded bootstrap plugin's creation, or NULL (*why says why). */
static const symm_boot_plugin_ops_t *boot_plugin(const char *name, const char **why)
{
    const symm_plugin_t *p = symm_plugin_load(name, NULL, why);
    if (p == NULL)
        return NULL;
    const symm_boot_plugin_ops_t *ops = p->ops;
    if (ops->boot_size != sizeof(symm_boot_t)) {
        *why = "the plugin is of another build of symm (reinstall both from one build)";
        return NULL;
    }
    return ops;
}

int symm_boot_pmix_create(const char *why, double timeout_s, symm_boot_t **boot_p)
{
    const char *no;
    const symm_boot_plugin_ops_t *ops = boot_plugin("boot-pmix", &no);
    if (ops == NULL) {
        symm_error("bootstrap", "%s, but the PMIx bootstrap plugin cannot be loaded: %s "
                   "(it is built where pmix.h is found: install libpmix-dev and rebuild); start "
                   "the job with oshrun, or set SYMM_BOOTSTRAP=singleton for a job of one PE",
                   why, no);
        return SYMM_ERR_UNSUPPORTED;
    }
    return ops->create(NULL, timeout_s, boot_p);
}

/* The MPI ABIs a plugin exists for: a data symbol only that ABI defines
 * (NULL: any MPI that defines MPI_Init), the sonames its libraries have. */
static const struct mpi_abi {
    const char *plugin, *label, *marker;
    const char *sonames[4];
} mpi_abis[] = {
    {"boot-mpi-openmpi", "Open MPI", "ompi_mpi_comm_world", {"libmpi.so.40", NULL}},
    {"boot-mpi-mpich", "MPICH", NULL,
     {"libmpich.so.12", "libmpi.so.12", "libmpi_ilp64.so.12", NULL}},
};

/* The ABI of the MPI in this process, its symbols made global; NULL if the
 * process has no MPI. */
static const struct mpi_abi *mpi_abi_here(void)
{
    for (size_t i = 0; i < sizeof(mpi_abis) / sizeof(mpi_abis[0]); i++) {
        const struct mpi_abi *a = &mpi_abis[i];
        for (int k = 0; a->sonames[k] != NULL; k++) {
            void *h = dlopen(a->sonames[k], RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
            if (h != NULL) {
                dlclose(h); /* still loaded: the program holds it */
                return a;
            }
        }
        if (a->marker != NULL && dlsym(RTLD_DEFAULT, a->marker) != NULL)
            return a;
    }
    /* A libmpi of another name, linked into the program: MPICH's ABI unless
     * it has Open MPI's marker (checked above). */
    return dlsym(RTLD_DEFAULT, "MPI_Init") != NULL ? &mpi_abis[1] : NULL;
}

int symm_boot_mpi_create(void *comm, double timeout_s, symm_boot_t **boot_p)
{
    const struct mpi_abi *abi = mpi_abi_here();
    if (abi == NULL) {
        symm_error("bootstrap", "MPI bootstrap: no MPI library in this process; the program "
                   "must be linked with MPI and call MPI_Init before shmem_init");
        return SYMM_ERR_UNSUPPORTED;
    }
    const char *no;
    const symm_boot_plugin_ops_t *ops = boot_plugin(abi->plugin, &no);
    if (ops == NULL) {
        symm_error("bootstrap", "MPI bootstrap: this process's MPI is of %s's ABI, but the "
                   "plugin for it cannot be loaded: %s (it is built where that MPI's mpicc is "
                   "found; or use the PMIx or tcp bootstrap)", abi->label, no);
        return SYMM_ERR_UNSUPPORTED;
    }
    return ops->create(comm, timeout_s, boot_p);
}

int symm_boot_mpi_in_process(void) { return mpi_abi_here() != NULL; }

int symm_boot_mpi_built(void)
{
    char path[4096];
    for (size_t i = 0; i < sizeof(mpi_abis) / sizeof(mpi_abis[0]); i++)
        if (symm_plugin_find(mpi_abis[i].plugin, path, sizeof(path)))
            return 1;
    return 0;
}
