/*
 * boot.h - out-of-band bootstrap contract.
 *
 * A bootstrap gives each PE its rank and the job size and offers collective
 * barrier and allgather of small blobs, used only at init, at finalize and on
 * rare control paths (never on a data path). Implementations: tcp/ (built-in
 * K-ary tree over TCP, the default under oshrun, also the unique-id mode),
 * and as plugins (runtime/plugin.h, loaded by boot_plugin.c) pmix.c and
 * mpi.c. All calls are collective over the whole job unless noted,
 * every wait is bounded by the timeout given at creation, and a timeout or a
 * dead peer is reported naming the PEs concerned.
 *
 * fdpass.c, on top of any bootstrap, hands file descriptors (memfds) between
 * PEs of one node: each publishes its pid and descriptor numbers, the others
 * open them as /proc/<pid>/fd/<n>.
 *
 * Layer boot/ (below mem/, above runtime/; docs/ARCHITECTURE.md): the out-of-
 * band bootstrap and its addresses. It includes and calls only its own
 * directory and those below it (scripts/check_layers.sh).
 */
#ifndef SYMM_BOOT_H
#define SYMM_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/status.h"

typedef struct symm_boot symm_boot_t;

typedef struct symm_boot_ops {
    const char *name;
    SYMM_MUST_CHECK int (*barrier)(symm_boot_t *boot);
    /* out holds size*len bytes, rank r's blob at out + r*len. */
    SYMM_MUST_CHECK int (*allgather)(symm_boot_t *boot, const void *in, void *out, size_t len);
    void (*fini)(symm_boot_t *boot);
} symm_boot_ops_t;

struct symm_boot {
    const symm_boot_ops_t *ops;
    int rank;
    int size;
    double timeout_s;        /* bound on every wait */
};

/* Parameters of the TCP bootstrap. */
typedef struct symm_boot_tcp_params {
    int rank;
    int size;
    const char *root_addr;   /* "host:port" or "[v6]:port" of rank 0 (addr.h) */
    int listen_fd;           /* rank 0: inherited listening socket, or -1 to bind root_addr */
    const char *secret;      /* 32 hex chars, presented by every PE to rank 0 */
    double timeout_s;
} symm_boot_tcp_params_t;

/* Create the bootstrap the environment describes: under oshrun (SYMM_RANK,
 * SYMM_SIZE, SYMM_BOOT_ADDR, SYMM_BOOT_LISTEN_FD, SYMM_JOB_SECRET) the TCP
 * bootstrap; with none of those, a singleton job of 1 PE. Writes *boot_p only on
 * success. */
SYMM_MUST_CHECK int symm_boot_create_from_env(double timeout_s, symm_boot_t **boot_p);

/* The TCP bootstrap (tcp/): a K-ary tree rooted at rank 0 (a star up to
 * K+1 PEs); every link must present the secret (others are refused and
 * logged); collectives gather up the tree and come back down. */
SYMM_MUST_CHECK int symm_boot_tcp_create(const symm_boot_tcp_params_t *params,
                                         symm_boot_t **boot_p);

/* A job of one PE: barrier is a no-op, allgather copies. */
SYMM_MUST_CHECK int symm_boot_singleton_create(symm_boot_t **boot_p);

/* What a bootstrap plugin (runtime/plugin.h: boot-pmix, boot-mpi-openmpi,
 * boot-mpi-mpich) offers: its creation. arg is the MPI plugins'
 * communicator (a pointer to an MPI_Comm, NULL: MPI_COMM_WORLD), unused by
 * PMIx. boot_size is sizeof(symm_boot_t) as the plugin was built. */
typedef struct symm_boot_plugin_ops {
    uint32_t boot_size;
    SYMM_MUST_CHECK int (*create)(void *arg, double timeout_s, symm_boot_t **boot_p);
} symm_boot_plugin_ops_t;

/* The MPI bootstrap (mpi.c, the plugin of the ABI of the MPI this process
 * loaded) over a communicator of a program that has called MPI_Init: comm
 * points at an MPI_Comm, NULL is MPI_COMM_WORLD. Logs its failures. Returns
 * SYMM_ERR_UNSUPPORTED (logged) when the process has no MPI or this install
 * no plugin for its ABI; symm_boot_mpi_built tells callers that say it
 * themselves whether any MPI plugin is installed (without logging). */
SYMM_MUST_CHECK int symm_boot_mpi_create(void *comm, double timeout_s, symm_boot_t **boot_p);
/* 1 when an MPI plugin of some ABI is installed, else 0. */
int symm_boot_mpi_built(void);
/* 1 when this process has loaded an MPI library. */
int symm_boot_mpi_in_process(void);

/* The PMIx bootstrap (pmix.c, the plugin boot-pmix): rank, size and the
 * exchange through the PMIx server of mpirun/srun. `why` says who asked for
 * it, for the error when the plugin is missing. */
SYMM_MUST_CHECK int symm_boot_pmix_create(const char *why, double timeout_s, symm_boot_t **boot_p);

SYMM_MUST_CHECK static inline int symm_boot_barrier(symm_boot_t *boot)
{
    return boot->ops->barrier(boot);
}
SYMM_MUST_CHECK static inline int symm_boot_allgather(symm_boot_t *boot, const void *in, void *out,
                                                      size_t len)
{
    return boot->ops->allgather(boot, in, out, len);
}
/* Agreement on a collective step's outcome: every PE passes its own status
 * (a PE whose local part failed still calls this, having logged why) and
 * every PE gets SYMM_OK only if all succeeded. Otherwise a PE that failed
 * gets its own status back; the others log "PE n failed: <its last error>"
 * under routine and get SYMM_ERR_PEER; *failed_pe_p (if not NULL) is the
 * lowest failed PE or -1. So a failure on one PE makes every PE fail the
 * same step, promptly, instead of leaving the others in the next exchange
 * until the timeout. Collective over the whole job. */
SYMM_MUST_CHECK int symm_boot_agree(symm_boot_t *boot, int rc, const char *routine,
                                    int *failed_pe_p);

static inline void symm_boot_destroy(symm_boot_t *boot) { boot->ops->fini(boot); }

/* Exchange file descriptors among the PEs of one node. Collective over the
 * whole job (non-node PEs pass n_node = 0 and still take part in the
 * bootstrap barriers it uses). node_ranks[0..n_node) lists the job ranks on
 * this node in increasing order, my own among them at index node_idx. Each
 * PE contributes nfds descriptors; on success out_fds[i*nfds + j] is a
 * descriptor (owned by the caller, to close) for PE node_ranks[i]'s j-th fd;
 * the caller's own slots hold dup()s of its own fds. The PEs of a node must
 * share a PID namespace and may open each other's /proc/<pid>/fd (one user,
 * dumpable); a PE that cannot says which peer and why, and all fail. */
SYMM_MUST_CHECK int symm_boot_fds_exchange(symm_boot_t *boot, const int *node_ranks, int n_node,
                                           int node_idx, const int *fds, int nfds, int *out_fds);

#endif
