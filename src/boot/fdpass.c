/*
 * fdpass.c - handing file descriptors (memfds) between the PEs of one node.
 *
 * Every PE publishes, through two bootstrap allgathers, its pid, its PID
 * namespace, and for each descriptor its number and the (device, inode) of
 * its file; each PE then opens its node peers' files as
 * /proc/<pid>/fd/<n> itself and checks that what it opened is the file
 * published. A closing agreement keeps every owner's descriptors open until
 * all have opened them, and makes a failure on any PE fail the call on all.
 *
 * Why not an SCM_RIGHTS socket (NCCL's and NVSHMEM's ipc sockets): the
 * kernel already checks, when /proc/<pid>/fd is opened, that the opener may
 * read the owner (same user, or CAP_SYS_PTRACE); the pids come from the
 * authenticated bootstrap, so no other job can offer a file; and there is no
 * socket to name, no leader that holds n^2 descriptors in flight (the
 * per-user ETOOMANYREFS limit), no chunking and no wait beyond the
 * bootstrap's own bounded ones.
 *
 * Must never: leak a descriptor on any path (all are close-on-exec), write
 * out_fds unless the whole exchange succeeded on every PE, or hand out a file
 * other than the one its owner published (a reused pid or descriptor number
 * is refused by the inode check).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/boot.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What each PE tells the whole job before the exchange. */
typedef struct fd_info {
    int32_t status; /* its own argument and fstat result */
    int32_t n_node;
    int32_t node_idx;
    int32_t first;  /* job rank of its node's first PE */
    int32_t nfds;
    int32_t pid;
    uint64_t pidns; /* inode of /proc/self/ns/pid; 0 where unreadable */
} fd_info_t;

/* One published descriptor. */
typedef struct fd_pub {
    uint64_t dev;
    uint64_t ino;
    int32_t fd;
    int32_t pad;
} fd_pub_t;

static int check_args(symm_boot_t *boot, const int *node_ranks, int n_node, int node_idx,
                      const int *fds, int nfds, const int *out_fds)
{
    if (n_node < 0 || nfds < 0 || (n_node > 0 && (node_idx < 0 || node_idx >= n_node)) ||
        (n_node > 0 && nfds > 0 && (fds == NULL || out_fds == NULL || node_ranks == NULL)) ||
        (size_t)n_node * (size_t)nfds > (size_t)1 << 24) {
        symm_error("bootstrap", "fd passing: bad arguments (n_node %d, node_idx %d, nfds %d)",
                   n_node, node_idx, nfds);
        return SYMM_ERR_INVALID;
    }
    for (int i = 0; i < n_node && node_ranks != NULL; i++) {
        if (node_ranks[i] < 0 || node_ranks[i] >= boot->size ||
            (i > 0 && node_ranks[i] <= node_ranks[i - 1]) ||
            (i == node_idx && node_ranks[i] != boot->rank)) {
            symm_error("bootstrap", "fd passing: bad node map (entry %d is PE %d; this PE is "
                       "%d at index %d)", i, node_ranks[i], boot->rank, node_idx);
            return SYMM_ERR_INVALID;
        }
    }
    return SYMM_OK;
}

/* My part of the first allgather; *pub gets my descriptors' identities. */
static void info_fill(fd_info_t *mine, fd_pub_t *pub, const int *node_ranks, int n_node,
                      int node_idx, const int *fds, int nfds)
{
    struct stat st;
    mine->pid = (int32_t)getpid();
    mine->pidns = stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
    if (mine->status != SYMM_OK || n_node == 0)
        return;
    mine->n_node = n_node;
    mine->node_idx = node_idx;
    mine->first = node_ranks[0];
    mine->nfds = nfds;
    for (int j = 0; j < nfds; j++) {
        if (fstat(fds[j], &st) != 0) {
            symm_error("bootstrap", "fd passing: descriptor %d (#%d) cannot be shared: %s",
                       fds[j], j, strerror(errno));
            mine->status = SYMM_ERR_SYS;
            return;
        }
        pub[j] = (fd_pub_t){(uint64_t)st.st_dev, (uint64_t)st.st_ino, fds[j], 0};
    }
}

/* After the first allgather: does the node agree on its map, and can its PEs
 * see each other's /proc? (Failures elsewhere come out of the agreement.) */
static int check_node(symm_boot_t *boot, const int *node_ranks, int n_node,
                      const fd_info_t *all)
{
    const fd_info_t *mine = &all[boot->rank];
    if (mine->status != SYMM_OK)
        return mine->status;
    for (int i = 0; i < n_node; i++) {
        const fd_info_t *o = &all[node_ranks[i]];
        if (o->status != SYMM_OK)
            continue;
        if (o->n_node != n_node || o->node_idx != i || o->first != node_ranks[0] ||
            o->nfds != mine->nfds) {
            symm_error("bootstrap", "fd passing: PE %d disagrees on the node (it has %d PEs, "
                       "index %d, first PE %d, %d fds; PE %d has %d PEs, index %d, first PE "
                       "%d, %d fds)", node_ranks[i], o->n_node, o->node_idx, o->first, o->nfds,
                       boot->rank, n_node, i, node_ranks[0], mine->nfds);
            return SYMM_ERR_INVALID;
        }
        if (o->pidns != mine->pidns) {
            symm_error("bootstrap", "fd passing: node-local PE %d (pid %d) runs in another PID "
                       "namespace than PE %d, so its memory cannot be opened through /proc; "
                       "run the PEs of one node in one PID namespace", node_ranks[i], o->pid,
                       boot->rank);
            return SYMM_ERR_UNSUPPORTED;
        }
    }
    return SYMM_OK;
}

/* Open PE pe's published descriptor p (a copy of my own for myself). */
static int fd_open(symm_boot_t *boot, int pe, int32_t pid, int j, const fd_pub_t *p)
{
    char path[64];
    struct stat st;
    if (pe == boot->rank) {
        int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            symm_error("bootstrap", "fd passing: cannot dup descriptor %d: %s", p->fd,
                       strerror(errno));
        return fd;
    }
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, (int)p->fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        symm_error("bootstrap", "fd passing: PE %d cannot open node-local PE %d's memory "
                   "(descriptor #%d, %s): %s%s", boot->rank, pe, j, path, strerror(e),
                   e == EACCES || e == EPERM
                       ? " (the PEs of one node must run as one user and be dumpable)"
                       : e == ENOENT ? " (has it exited, or is /proc not mounted?)" : "");
        return -1;
    }
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != p->dev || (uint64_t)st.st_ino != p->ino) {
        symm_error("bootstrap", "fd passing: %s is not the file node-local PE %d published "
                   "(descriptor #%d); its process was replaced", path, pe, j);
        close(fd);
        return -1;
    }
    return fd;
}

/* Open every node peer's descriptors into slots; SYMM_OK or an error, with
 * whatever was opened still in slots (-1 elsewhere) for the caller. */
static int open_all(symm_boot_t *boot, const int *node_ranks, int n_node, int nfds, int maxfds,
                    const fd_info_t *info, const fd_pub_t *pubs, int *slots)
{
    for (int i = 0; i < n_node; i++) {
        int pe = node_ranks[i];
        for (int j = 0; j < nfds; j++) {
            const fd_pub_t *p = &pubs[(size_t)pe * (size_t)maxfds + (size_t)j];
            if ((slots[(size_t)i * (size_t)nfds + (size_t)j] =
                     fd_open(boot, pe, info[pe].pid, j, p)) < 0)
                return SYMM_ERR_SYS;
        }
    }
    return SYMM_OK;
}

/* The second allgather (every PE's descriptors, maxfds each) and the opens.
 * Collective: every PE takes part even when it has nothing to open, and
 * every step is agreed, so all PEs leave at the same step. */
static int exchange(symm_boot_t *boot, const int *node_ranks, int n_node, int nfds,
                    const fd_pub_t *pub, const fd_info_t *all, int *slots)
{
    int maxfds = 0;
    for (int r = 0; r < boot->size; r++)
        maxfds = all[r].nfds > maxfds ? all[r].nfds : maxfds;
    if (maxfds == 0)
        return SYMM_OK;
    size_t per = (size_t)maxfds * sizeof(fd_pub_t);
    fd_pub_t *mine = calloc(1, per), *pubs = malloc(per * (size_t)boot->size);
    int rc = SYMM_OK;
    if (mine == NULL || pubs == NULL) {
        symm_error("bootstrap", "fd passing: no memory for %d PEs' %d descriptors", boot->size,
                   maxfds);
        rc = SYMM_ERR_NOMEM;
    } else {
        memcpy(mine, pub, (size_t)nfds * sizeof(*pub));
    }
    rc = symm_boot_agree(boot, rc, "bootstrap", NULL);
    if (rc == SYMM_OK)
        rc = symm_boot_allgather(boot, mine, pubs, per);
    /* Owners keep their descriptors until every PE has opened them. */
    if (rc == SYMM_OK)
        rc = symm_boot_agree(boot, open_all(boot, node_ranks, n_node, nfds, maxfds, all, pubs,
                                            slots), "bootstrap", NULL);
    free(mine);
    free(pubs);
    return rc;
}

int symm_boot_fds_exchange(symm_boot_t *boot, const int *node_ranks, int n_node, int node_idx,
                           const int *fds, int nfds, int *out_fds)
{
    fd_info_t mine = {0}, *all;
    size_t nslots = 0;
    int rc;

    mine.status = check_args(boot, node_ranks, n_node, node_idx, fds, nfds, out_fds);
    if (mine.status == SYMM_OK && n_node > 0)
        nslots = (size_t)n_node * (size_t)nfds;
    else
        nfds = 0;
    all = malloc((size_t)boot->size * sizeof(*all));
    int *slots = malloc((nslots > 0 ? nslots : 1) * sizeof(int));
    fd_pub_t *pub = malloc((size_t)(nfds > 0 ? nfds : 1) * sizeof(*pub));
    if (all == NULL || slots == NULL || pub == NULL) {
        symm_error("bootstrap", "fd passing: out of memory");
        mine.status = SYMM_ERR_NOMEM;
    } else {
        info_fill(&mine, pub, node_ranks, n_node, node_idx, fds, nfds);
    }
    for (size_t i = 0; slots != NULL && i < nslots; i++)
        slots[i] = -1;
    /* A PE without memory for the round cannot take part; its peers see the
     * bootstrap's timeout naming it. */
    rc = all == NULL ? SYMM_ERR_NOMEM : symm_boot_allgather(boot, &mine, all, sizeof(mine));
    if (rc == SYMM_OK) {
        rc = symm_boot_agree(boot, check_node(boot, node_ranks, n_node, all), "bootstrap",
                             NULL);
        if (rc == SYMM_OK)
            rc = exchange(boot, node_ranks, n_node, nfds, pub, all, slots);
    }
    if (rc == SYMM_OK && nslots > 0)
        memcpy(out_fds, slots, nslots * sizeof(int));
    for (size_t i = 0; rc != SYMM_OK && slots != NULL && i < nslots; i++)
        if (slots[i] >= 0)
            close(slots[i]);
    free(pub);
    free(slots);
    free(all);
    return rc;
}
