/*
 * boot.c - choosing the bootstrap from the environment; the singleton; the
 * agreement on a step's outcome.
 *
 * Owns the choice (SYMM_BOOTSTRAP=auto|tcp|pmix|mpi|singleton, default auto:
 * oshrun's variables give tcp, else PMIx's (PMIX_RANK, PMIX_NAMESPACE) give
 * pmix, else a PMI launcher's PMI_SIZE > 1 (MPICH's hydra) gives mpi when
 * the process has an MPI (an error otherwise), else a singleton), the
 * bootstrap of a job of one PE and symm_boot_agree. The launcher's
 * variables are parsed by the TCP bootstrap (tcp/tcp_env.c, through
 * tcp/tcp_boot.h). pmix.c and mpi.c are plugins
 * (boot_plugin.c loads them); asking for one that is not installed is an
 * error saying so.
 *
 * Must never guess: a partial or malformed environment is an error naming the
 * variable, never a silent singleton (that would turn one job of N PEs into N
 * jobs of one PE); so is a PMIx launcher's environment in an install without
 * the PMIx plugin. Must never modify the environment (not thread-safe).
 */
#include "boot/boot.h"
#include "boot/tcp/tcp_boot.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- singleton ---------------------------------------------------------- */

static int single_barrier(symm_boot_t *boot)
{
    (void)boot;
    return SYMM_OK;
}

static int single_allgather(symm_boot_t *boot, const void *in, void *out, size_t len)
{
    (void)boot;
    if (len > 0)
        memmove(out, in, len);
    return SYMM_OK;
}

static void single_fini(symm_boot_t *boot) { free(boot); }

static const symm_boot_ops_t single_ops = {
    .name = "singleton",
    .barrier = single_barrier,
    .allgather = single_allgather,
    .fini = single_fini,
};

int symm_boot_singleton_create(symm_boot_t **boot_p)
{
    symm_boot_t *boot = calloc(1, sizeof(*boot));
    if (boot == NULL) {
        symm_error("bootstrap", "out of memory");
        return SYMM_ERR_NOMEM;
    }
    boot->ops = &single_ops;
    boot->rank = 0;
    boot->size = 1;
    boot->timeout_s = 0;
    *boot_p = boot;
    return SYMM_OK;
}

/* ---- the choice ---------------------------------------------------------- */

/* A singleton that keeps the timeout it was asked for. */
static int create_singleton(double timeout_s, symm_boot_t **boot_p)
{
    int rc = symm_boot_singleton_create(boot_p);
    if (rc == SYMM_OK)
        (*boot_p)->timeout_s = timeout_s;
    return rc;
}

int symm_boot_create_from_env(double timeout_s, symm_boot_t **boot_p)
{
    const char *want = getenv("SYMM_BOOTSTRAP");
    const char *lvar = symm_tcp_env_var_set();

    if (want == NULL || want[0] == '\0' || strcmp(want, "auto") == 0) {
        if (lvar != NULL)
            return symm_tcp_create_from_env(timeout_s, boot_p);
        const char *pr = getenv("PMIX_RANK"), *pn = getenv("PMIX_NAMESPACE");
        if ((pr != NULL && pr[0] != '\0') || (pn != NULL && pn[0] != '\0'))
            return symm_boot_pmix_create("the job was started by a PMIx launcher (PMIX_RANK is "
                                         "set)", timeout_s, boot_p);
        const char *ps = getenv("PMI_SIZE");
        if (ps != NULL && atoi(ps) > 1) {
            if (symm_boot_mpi_in_process())
                return symm_boot_mpi_create(NULL, timeout_s, boot_p);
            symm_error("bootstrap", "the job was started by a PMI launcher (PMI_SIZE=%s: MPICH's "
                       "mpiexec, srun --mpi=pmi2), which symm joins only through MPI: call "
                       "MPI_Init before shmem_init, or start the job with oshrun or a PMIx "
                       "launcher", ps);
            return SYMM_ERR_UNSUPPORTED;
        }
        return create_singleton(timeout_s, boot_p);
    }
    if (strcmp(want, "tcp") == 0) {
        if (lvar == NULL) {
            symm_error("bootstrap", "SYMM_BOOTSTRAP=tcp, but none of SYMM_RANK, SYMM_SIZE, "
                       "SYMM_BOOT_ADDR, SYMM_JOB_SECRET is set: start the job with oshrun");
            return SYMM_ERR_INVALID;
        }
        return symm_tcp_create_from_env(timeout_s, boot_p);
    }
    if (strcmp(want, "pmix") == 0)
        return symm_boot_pmix_create("SYMM_BOOTSTRAP=pmix", timeout_s, boot_p);
    if (strcmp(want, "mpi") == 0)
        return symm_boot_mpi_create(NULL, timeout_s, boot_p);
    if (strcmp(want, "singleton") == 0)
        return create_singleton(timeout_s, boot_p);
    symm_error("bootstrap", "SYMM_BOOTSTRAP='%s' is not one of auto, tcp, pmix, mpi, singleton",
               want);
    return SYMM_ERR_INVALID;
}

/* ---- agreement ---------------------------------------------------------- */

/* An agreement is one allgather of 4-byte statuses; only when some PE
 * failed does a second round carry each PE's reason (BOOT_WHY_LEN bytes).
 * Reasons in every round would cost 128 bytes per PE, which over a star
 * makes rank 0 send 128 * N^2 bytes per agreement (128 MiB at 1024 PEs)
 * for text that is read only on failure. Every
 * PE sees the same statuses, so all take the second round or none. */
#define BOOT_WHY_LEN 124

int symm_boot_agree(symm_boot_t *boot, int rc, const char *routine, int *failed_pe_p)
{
    int32_t mine = rc, here[256], *all = here;
    char *whys = NULL;
    /* The stack serves small jobs; a larger one that cannot get memory here
     * cannot take part, and its peers see the bootstrap's timeout instead. */
    if ((size_t)boot->size > sizeof(here) / sizeof(here[0]) &&
        (all = malloc((size_t)boot->size * sizeof(*all))) == NULL) {
        symm_error(routine, "no memory for the agreement round of %d PEs", boot->size);
        return SYMM_ERR_NOMEM;
    }
    int arc = symm_boot_allgather(boot, &mine, all, sizeof(mine));
    int first = -1, n_failed = 0;
    for (int pe = 0; arc == SYMM_OK && pe < boot->size; pe++)
        if (all[pe] != SYMM_OK && n_failed++ == 0)
            first = pe;
    if (arc == SYMM_OK && n_failed > 0) {
        char why[BOOT_WHY_LEN] = {0};
        if (rc != SYMM_OK) {
            const char *last = symm_log_last_error();
            snprintf(why, sizeof(why), "%s",
                     last[0] != '\0' ? last : symm_status_str((symm_status_t)rc));
        }
        if ((whys = malloc((size_t)boot->size * BOOT_WHY_LEN)) == NULL) {
            symm_error(routine, "no memory for the reasons of %d failed PEs", n_failed);
            arc = SYMM_ERR_NOMEM;
        } else {
            arc = symm_boot_allgather(boot, why, whys, BOOT_WHY_LEN);
        }
    }
    if (arc != SYMM_OK) {
        rc = arc;
    } else if (first >= 0 && rc == SYMM_OK) {
        char *w = whys + (size_t)first * BOOT_WHY_LEN;
        w[BOOT_WHY_LEN - 1] = '\0';
        if (n_failed > 1)
            symm_error(routine, "PE %d failed: %s (and %d other PEs)", first, w, n_failed - 1);
        else
            symm_error(routine, "PE %d failed: %s", first, w);
        rc = SYMM_ERR_PEER;
    }
    if (failed_pe_p != NULL)
        *failed_pe_p = first;
    free(whys);
    if (all != here)
        free(all);
    return rc;
}
