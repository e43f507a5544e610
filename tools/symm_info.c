/*
 * symm-info - what this symm is: version, build, transports, and every
 * environment variable with its current value and meaning.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/config.h"
#include "transport/transport.h"
#include "shmem.h"

int main(int argc, char **argv)
{
    symm_config_t cfg;
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: symm-info\nPrints symm's version, transports and environment variables.\n");
        return 0;
    }
    char name[SHMEM_MAX_NAME_LEN];
    int major, minor;
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    printf("symm %s (%s), OpenSHMEM %d.%d\n", SYMM_VERSION_STRING, name, major, minor);
    symm_config_load(&cfg);
    const char *ucx = symm_ucx_version();
    printf("transports (SYMM_TRANSPORT=%s):\n", cfg.transport);
    if (strcmp(cfg.transport, "ucx") == 0)
        printf("  node-local peers : ucx %s (forced: every peer but myself)\n",
               ucx ? ucx : "(not in this build)");
    else
        printf("  node-local peers : shm (mapped memfd heaps and global data; put = memcpy)\n");
    if (strcmp(cfg.transport, "shm") == 0)
        printf("  other nodes      : none (SYMM_TRANSPORT=shm)\n");
    else if (ucx != NULL)
        printf("  other nodes      : ucx %s (UCP RMA + AMO; UCX_TLS and other UCX_* apply)\n", ucx);
    else
        printf("  other nodes      : none in this build (no libucx-dev when it was built)\n");
    printf("bootstrap: tcp (oshrun), singleton"
#ifdef SYMM_HAVE_PMIX
           ", pmix (mpirun, srun --mpi=pmix; libpmix.so.2 loaded at run time)"
#endif
#ifdef SYMM_HAVE_MPI
           ", mpi (MPI_COMM_WORLD or a given communicator; Open MPI, found at run time)"
#endif
           "; choose with SYMM_BOOTSTRAP=auto|tcp|pmix|mpi|singleton\n");
    int rc = symm_config_load(&cfg);
    fflush(stdout); /* the table is written to the fd directly */
    symm_config_print(&cfg, STDOUT_FILENO);
    return rc == 0 ? 0 : 1;
}
