/*
 * mpi.c - the MPI bootstrap: rank, size and collectives from an MPI
 * communicator of a program that has called MPI_Init.
 *
 * A plugin (runtime/plugin.h), built once per MPI ABI found at build time
 * with that MPI's own mpi.h (cmake/mpi.cmake: libsymm-boot-mpi-openmpi.so
 * from Open MPI's wrapper, libsymm-boot-mpi-mpich.so from MPICH's, which
 * also serves the MPIs of MPICH's ABI: Intel MPI, Cray MPICH, MVAPICH). It
 * calls MPI by name and is not linked with libmpi: the MPI functions and
 * handles are those of the libmpi the program loaded (boot/boot_plugin.c
 * picks the plugin of that library's ABI and makes its symbols global
 * first), so loading the plugin never loads a second MPI.
 *
 * The bootstrap works on its own duplicate of the communicator (MPI_Comm_idup,
 * errors returned, not fatal). Collective #n is an MPI_Ibarrier or
 * MPI_Iallgather, polled with MPI_Test until a deadline, so that it can time
 * out; alongside it every PE sends PE 0 a small note (sequence, kind,
 * length), so that on a timeout PE 0 names the PEs that did not arrive and a
 * mismatched call is named instead of being undefined behaviour. Like the tcp
 * bootstrap, the other PEs wait twice as long so that PE 0's report comes
 * first. Only the communicator duplication in create cannot name missing PEs
 * (there is no private communicator to send notes on yet); its timeout says
 * so. A collective that timed out cannot be cancelled: its buffers (owned
 * here, never the caller's) are leaked and the bootstrap stays failed.
 *
 * Rules for callers: MPI_Init (or MPI_Init_thread) before creation, and
 * shmem_finalize (fini) before MPI_Finalize. Not thread-safe: one caller at a
 * time, and it must be a thread allowed to call MPI (the main thread under
 * MPI_THREAD_FUNNELED).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "boot/boot.h"
#include "boot/boot_io.h"
#include "runtime/log.h"
#include "runtime/plugin.h"
#include "runtime/status.h"

#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MPI_BOOT_TAG 0x5359 /* "SY"; below the minimum MPI_TAG_UB of 32767 */

static const char *mpi_err(int code, char buf[256])
{
    int n = 0;
    char full[MPI_MAX_ERROR_STRING + 1];
    if (MPI_Error_string(code, full, &n) != MPI_SUCCESS || n <= 0)
        snprintf(buf, 256, "MPI error %d", code);
    else
        snprintf(buf, 256, "%.*s", n, full);
    return buf;
}

/* Polling backoff: spin a little, then yield, then nap (a long wait, i.e. a
 * slow or missing PE, should not burn a core). */
static void backoff(unsigned *spins, double t0)
{
    if (++*spins < 256)
        return;
    if (symm_boot_now() - t0 < 0.01)
        sched_yield();
    else
        symm_boot_sleep(200e-6);
}

/* ---- the bootstrap ----------------------------------------------------- */

enum { NOTE_BARRIER = 1, NOTE_ALLGATHER = 2 };

/* What every PE tells PE 0 as it enters a collective. */
typedef struct mpi_note {
    uint32_t seq;
    uint32_t kind;
    uint64_t len;
} mpi_note_t;

/* One collective's MPI state. Freed when the collective completed; leaked
 * when it did not (MPI may still write into it). */
typedef struct mpi_op {
    MPI_Request coll;  /* the collective's request */
    MPI_Request send;  /* non-root: the note's send */
    MPI_Request *recv; /* root: note receives, [1, size) */
    uint8_t *arrived;  /* root: note r is in */
    mpi_note_t mine;
    mpi_note_t *notes; /* root: [size] */
    uint8_t *buf;      /* in (len) then out (size * len) */
} mpi_op_t;

typedef struct mpi_boot {
    symm_boot_t base;
    MPI_Comm comm; /* our duplicate */
    uint32_t seq;
    int failed;
} mpi_boot_t;

static const char *kind_name(uint32_t kind)
{
    return kind == NOTE_BARRIER ? "barrier" : kind == NOTE_ALLGATHER ? "allgather" : "unknown";
}

static void op_free(mpi_op_t *op)
{
    free(op->recv);
    free(op->arrived);
    free(op->notes);
    free(op->buf);
    free(op);
}

static int check_finalized(const char *what)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin) {
        symm_error("bootstrap", "MPI bootstrap: MPI was finalized before %s (call "
                   "shmem_finalize before MPI_Finalize)", what);
        return SYMM_ERR_BOOT;
    }
    return SYMM_OK;
}

static int root_timeout(mpi_boot_t *mb, mpi_op_t *op, const char *what, double waited)
{
    int *miss = malloc(sizeof(int) * (size_t)mb->base.size);
    char cause[64], where[96];
    snprintf(cause, sizeof(cause), "timed out after %g s", waited);
    snprintf(where, sizeof(where), "in %s (MPI)", what);
    if (miss == NULL) {
        symm_error("bootstrap", "%s %s", cause, where);
        return SYMM_ERR_TIMEOUT;
    }
    int rc = symm_boot_missing(miss, symm_boot_absent(op->arrived, mb->base.size, 0, miss), cause,
                               where);
    free(miss);
    return rc;
}

/* Root: take in the notes that arrived; a mismatched one is an error. */
static int root_notes(mpi_boot_t *mb, mpi_op_t *op, const char *what, int *pending)
{
    char eb[256];
    for (int r = 1; r < mb->base.size; r++) {
        int flag = 0, e;
        if (op->arrived[r])
            continue;
        e = MPI_Test(&op->recv[r], &flag, MPI_STATUS_IGNORE);
        if (e != 0) {
            symm_error("bootstrap", "MPI receive of PE %d's note for %s failed: %s", r, what,
                       mpi_err(e, eb));
            return SYMM_ERR_PEER;
        }
        if (!flag)
            continue;
        op->arrived[r] = 1;
        (*pending)--;
        const mpi_note_t *nt = &op->notes[r];
        if (nt->seq != op->mine.seq || nt->kind != op->mine.kind) {
            symm_error("bootstrap", "mismatched calls: PE %d is in bootstrap %s #%u, PE 0 in %s",
                       r, kind_name(nt->kind), nt->seq, what);
            return SYMM_ERR_BOOT;
        }
        if (nt->len != op->mine.len) {
            symm_error("bootstrap", "mismatched calls: PE %d gives %llu bytes to %s, PE 0 gives "
                       "%llu", r, (unsigned long long)nt->len, what,
                       (unsigned long long)op->mine.len);
            return SYMM_ERR_BOOT;
        }
    }
    return SYMM_OK;
}

/* A collective's state for len bytes per PE (root: with the notes' room),
 * or NULL when out of memory. */
static mpi_op_t *op_new(int n, int root, size_t len)
{
    mpi_op_t *op = calloc(1, sizeof(*op));
    if (op == NULL || (op->buf = malloc(len + (size_t)n * len + 1)) == NULL ||
        (root && ((op->recv = calloc((size_t)n, sizeof(MPI_Request))) == NULL ||
                  (op->arrived = calloc((size_t)n, 1)) == NULL ||
                  (op->notes = calloc((size_t)n, sizeof(mpi_note_t))) == NULL))) {
        if (op)
            op_free(op);
        return NULL;
    }
    return op;
}

/* Start the notes, then the collective: 0 or MPI's error code. */
static int op_start(mpi_boot_t *mb, mpi_op_t *op, uint32_t kind, size_t len)
{
    int n = mb->base.size, e = 0;
    if (mb->base.rank == 0) {
        for (int r = 1; r < n && e == 0; r++)
            e = MPI_Irecv(&op->notes[r], (int)sizeof(mpi_note_t), MPI_BYTE, r, MPI_BOOT_TAG,
                          mb->comm, &op->recv[r]);
    } else {
        e = MPI_Isend(&op->mine, (int)sizeof(mpi_note_t), MPI_BYTE, 0, MPI_BOOT_TAG, mb->comm,
                      &op->send);
    }
    if (e == 0)
        e = kind == NOTE_BARRIER ? MPI_Ibarrier(mb->comm, &op->coll)
                                 : MPI_Iallgather(op->buf, (int)len, MPI_BYTE, op->buf + len,
                                                  (int)len, MPI_BYTE, mb->comm, &op->coll);
    return e;
}

/* Poll op until the collective and the notes are done, or until end (PE 0
 * then names the PEs whose notes did not come). */
static int op_wait(mpi_boot_t *mb, mpi_op_t *op, const char *what, double t0, double end)
{
    int root = mb->base.rank == 0, pending = root ? mb->base.size - 1 : 1, coll_done = 0;
    unsigned spins = 0;
    char eb[256];
    for (;;) {
        int flag = 0, e, rc;
        if (!coll_done) {
            e = MPI_Test(&op->coll, &coll_done, MPI_STATUS_IGNORE);
            if (e != 0) {
                symm_error("bootstrap", "MPI %s failed: %s", what, mpi_err(e, eb));
                return SYMM_ERR_PEER;
            }
        }
        if (root && pending > 0) {
            rc = root_notes(mb, op, what, &pending);
            if (rc != SYMM_OK)
                return rc;
        } else if (!root && pending > 0) {
            e = MPI_Test(&op->send, &flag, MPI_STATUS_IGNORE);
            if (e != 0) {
                symm_error("bootstrap", "MPI send of this PE's note for %s failed: %s", what,
                           mpi_err(e, eb));
                return SYMM_ERR_PEER;
            }
            pending -= flag != 0;
        }
        if (coll_done && pending == 0)
            return SYMM_OK;
        if (end >= 0 && symm_boot_now() > end) {
            if (root)
                return root_timeout(mb, op, what, symm_boot_now() - t0);
            symm_error("bootstrap", "timed out after %g s in %s: the MPI collective did not "
                       "complete (PE 0 names the PEs that did not arrive)",
                       symm_boot_now() - t0, what);
            return SYMM_ERR_TIMEOUT;
        }
        backoff(&spins, t0);
    }
}

static int mpi_collective(mpi_boot_t *mb, uint32_t kind, const void *in, void *out, size_t len)
{
    int n = mb->base.size, root = mb->base.rank == 0, e, rc;
    double t0 = symm_boot_now(), t = mb->base.timeout_s;
    double end = t > 0 ? t0 + (root ? t : 2 * t) : -1.0;
    char what[48], eb[256];
    mpi_op_t *op;

    if (mb->failed != SYMM_OK)
        return mb->failed;
    mb->seq++;
    snprintf(what, sizeof(what), "bootstrap %s #%u", kind_name(kind), mb->seq);
    if ((rc = check_finalized(what)) != SYMM_OK)
        goto fail;
    op = op_new(n, root, len);
    if (op == NULL) {
        symm_error("bootstrap", "out of memory for %s", what);
        rc = SYMM_ERR_NOMEM;
        goto fail;
    }
    op->mine = (mpi_note_t){mb->seq, kind, len};
    if (len > 0)
        memcpy(op->buf, in, len);
    e = op_start(mb, op, kind, len);
    if (e != 0) {
        /* Requests may be pending: leak op rather than free their buffers. */
        symm_error("bootstrap", "MPI could not start %s: %s", what, mpi_err(e, eb));
        rc = SYMM_ERR_BOOT;
        goto fail;
    }
    /* On a failure op is leaked: MPI may still write into it. */
    rc = op_wait(mb, op, what, t0, end);
    if (rc != SYMM_OK)
        goto fail;
    if (kind == NOTE_ALLGATHER && len > 0)
        memcpy(out, op->buf + len, (size_t)n * len);
    op_free(op);
    return SYMM_OK;

fail:
    mb->failed = rc;
    return rc;
}

static int mpi_barrier(symm_boot_t *boot)
{
    return mpi_collective((mpi_boot_t *)boot, NOTE_BARRIER, NULL, NULL, 0);
}

static int mpi_allgather(symm_boot_t *boot, const void *in, void *out, size_t len)
{
    if (len > INT_MAX || len > SIZE_MAX / 2 / ((size_t)boot->size + 1)) {
        symm_error("bootstrap", "allgather of %zu bytes per PE is too large", len);
        return SYMM_ERR_INVALID;
    }
    return mpi_collective((mpi_boot_t *)boot, NOTE_ALLGATHER, in, out, len);
}

static void mpi_fini(symm_boot_t *boot)
{
    mpi_boot_t *mb = (mpi_boot_t *)boot;
    int fin = 1;
    MPI_Finalized(&fin);
    /* A failed bootstrap may have operations pending on comm: leave it. */
    if (!fin && mb->failed == SYMM_OK && mb->comm != MPI_COMM_NULL)
        MPI_Comm_free(&mb->comm);
    free(mb);
}

static const symm_boot_ops_t mpi_ops = {
    .name = "mpi",
    .barrier = mpi_barrier,
    .allgather = mpi_allgather,
    .fini = mpi_fini,
};

/* ---- creation ---------------------------------------------------------- */

/* Duplicate the communicator, bounded by the timeout. */
static int dup_comm(MPI_Comm comm, int size, double timeout_s, MPI_Comm *dup_p)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm dup = MPI_COMM_NULL;
    double t0 = symm_boot_now();
    double end = timeout_s > 0 ? t0 + timeout_s : -1.0;
    unsigned spins = 0;
    int done = 0, e;
    char eb[256];

    e = MPI_Comm_idup(comm, &dup, &req);
    while (e == 0 && !done) {
        e = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (e == 0 && !done && end >= 0 && symm_boot_now() > end) {
            symm_error("bootstrap", "timed out after %g s duplicating the MPI communicator "
                       "(%d PEs): some PE did not call shmem_init, or called it with another "
                       "communicator (MPI cannot tell which PEs are missing at this step)",
                       symm_boot_now() - t0, size);
            return SYMM_ERR_TIMEOUT;
        }
        if (!done)
            backoff(&spins, t0);
    }
    if (e != 0) {
        symm_error("bootstrap", "MPI_Comm_idup failed: %s", mpi_err(e, eb));
        return SYMM_ERR_BOOT;
    }
    *dup_p = dup;
    return SYMM_OK;
}

static int mpi_create(void *comm, double timeout_s, symm_boot_t **boot_p)
{
    mpi_boot_t *mb;
    MPI_Comm c;
    int init = 0, rank = -1, size = 0, rc;
    char eb[256];

    MPI_Initialized(&init);
    if (!init) {
        symm_error("bootstrap", "MPI bootstrap: MPI is not initialized (call MPI_Init before "
                   "shmem_init)");
        return SYMM_ERR_INVALID;
    }
    if ((rc = check_finalized("shmem_init")) != SYMM_OK)
        return rc;
    c = comm != NULL ? *(MPI_Comm *)comm : MPI_COMM_WORLD;
    if (c == MPI_COMM_NULL) {
        symm_error("bootstrap", "MPI bootstrap: the communicator is MPI_COMM_NULL");
        return SYMM_ERR_INVALID;
    }
    /* Errors returned, not fatal, on the caller's communicator too. */
    MPI_Errhandler old;
    if ((rc = MPI_Comm_get_errhandler(c, &old)) == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        if ((rc = MPI_Comm_size(c, &size)) == MPI_SUCCESS)
            rc = MPI_Comm_rank(c, &rank);
        MPI_Comm_set_errhandler(c, old);
        MPI_Errhandler_free(&old);
    }
    if (rc != MPI_SUCCESS) {
        symm_error("bootstrap", "MPI bootstrap: not a valid communicator: %s", mpi_err(rc, eb));
        return SYMM_ERR_INVALID;
    }
    if (rank < 0 || size < 1) {
        symm_error("bootstrap", "MPI bootstrap: this process is not in the communicator");
        return SYMM_ERR_INVALID;
    }
    symm_log_set_pe(rank);

    mb = calloc(1, sizeof(*mb));
    if (mb == NULL) {
        symm_error("bootstrap", "out of memory");
        return SYMM_ERR_NOMEM;
    }
    mb->base.ops = &mpi_ops;
    mb->base.rank = rank;
    mb->base.size = size;
    mb->base.timeout_s = timeout_s;
    mb->comm = MPI_COMM_NULL;
    rc = dup_comm(c, size, timeout_s, &mb->comm);
    if (rc != SYMM_OK) {
        free(mb); /* the pending idup writes only into its own request */
        return rc;
    }
    /* Failures come back as codes, never abort from inside MPI. */
    MPI_Comm_set_errhandler(mb->comm, MPI_ERRORS_RETURN);

    symm_debug("bootstrap", "mpi: rank %d of %d", rank, size);
    *boot_p = &mb->base;
    return SYMM_OK;
}

/* What the plugin was built against, from that MPI's own header. */
#if defined(OMPI_MAJOR_VERSION)
#define MPI_STR_(x) #x
#define MPI_STR(x) MPI_STR_(x)
#define MPI_ABOUT                                                                             \
    "Open MPI " MPI_STR(OMPI_MAJOR_VERSION) "." MPI_STR(OMPI_MINOR_VERSION) "." MPI_STR(     \
        OMPI_RELEASE_VERSION) " ABI"
#elif defined(MPICH_VERSION)
#define MPI_ABOUT "MPICH " MPICH_VERSION " ABI"
#else
#define MPI_ABOUT "MPI"
#endif

static const symm_boot_plugin_ops_t mpi_plugin_ops = {
    .boot_size = sizeof(symm_boot_t),
    .create = mpi_create,
};

SYMM_PLUGIN_DEFINE(SYMM_BOOT_MPI_PLUGIN_NAME, MPI_ABOUT, &mpi_plugin_ops)
