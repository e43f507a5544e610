/*
 * fdpass.c - handing file descriptors (memfds) between the PEs of one node.
 *
 * Owns the node's abstract Unix socket (SOCK_SEQPACKET, so each SCM_RIGHTS
 * message keeps its boundaries), the descriptor messages, and the check that
 * every peer runs as this PE's user. The node leader (node_idx 0) listens;
 * every other PE connects and sends its descriptors; the leader sends each PE
 * everyone else's and closes only after the member has closed (it holds them
 * all then). One bootstrap allgather first orders listen before connect,
 * checks that the PEs agree on the node map, and makes a setup failure on any
 * PE fail the call on all of them.
 *
 * The socket's name is "symm-<hash of the job secret>-<leader rank>-<leader
 * pid>" in the abstract namespace: nothing is left in the filesystem, two jobs
 * never collide, and /proc/net/unix (readable by every user) does not show the
 * secret itself.
 *
 * Must never: leak a descriptor on any path (received ones are closed on
 * failure, all are close-on-exec), accept a peer of another user, wait
 * without bound, or write out_fds unless the whole exchange succeeded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, memfd_create, SO_PEERCRED, MSG_CMSG_CLOEXEC */
#endif
#include "boot/boot.h"
#include "boot/boot_io.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FD_MAGIC 0x53594d46u /* "SYMF" */
/* Below the kernel's SCM_MAX_FD (253) descriptors per message. */
#define FD_CHUNK 250
/* Connections not yet identified, beyond the PEs still expected. */
#define PEND_EXTRA 16

/* What each PE tells the whole job before the exchange. */
typedef struct fd_info {
    int32_t status;   /* its own setup (and, on the leader, listen) result */
    int32_t n_node;
    int32_t node_idx;
    int32_t leader;   /* job rank of its node leader */
    int32_t nfds;
    int32_t pid;
} fd_info_t;

/* Data part of every descriptor message; count descriptors ride with it.
 * first is the position of the first one in the sender's stream. */
typedef struct fd_msg {
    uint32_t magic;
    int32_t node_idx;
    int32_t nfds;
    int32_t first;
    int32_t count;
} fd_msg_t;

typedef struct fd_xchg {
    symm_boot_t *boot;
    const int *node_ranks;
    int n_node;
    int node_idx;
    int nfds;
    int *slots;     /* n_node * nfds, -1 where nothing is held yet */
    double end;
    double t0;
} fd_xchg_t;

/* Back off while descriptors in flight drain or a backlog empties. */
static void nap(void) { symm_boot_sleep(200e-6); }

/* ---- descriptor messages ------------------------------------------------ */

/* Send one message carrying fds[0..count). */
static int msg_send(int sock, const fd_msg_t *m, const int *fds, int count, double end)
{
    union {
        char buf[CMSG_SPACE(FD_CHUNK * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {(void *)m, sizeof(*m)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (count > 0) {
        memset(&u, 0, sizeof(u));
        mh.msg_control = u.buf;
        mh.msg_controllen = CMSG_SPACE((size_t)count * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)count * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)count * sizeof(int));
    }
    for (;;) {
        if (sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno == ETOOMANYREFS) {
            /* The user's descriptors in flight exceed its open files
             * limit; they drain as the peers receive. */
            if (symm_boot_deadline_ms(end) == 0)
                return -ETIMEDOUT;
            nap();
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return -errno;
        struct pollfd p = {sock, POLLOUT, 0};
        int pr = symm_boot_poll(&p, 1, end);
        if (pr <= 0)
            return pr == 0 ? -ETIMEDOUT : pr;
    }
}

/* Receive one message, if there is one: 1 got it, 0 nothing yet, -EPIPE the
 * peer closed, -EPROTO malformed, -EMFILE descriptors were dropped, else
 * -errno. On any failure the descriptors that did arrive are closed. */
static int msg_recv(int sock, fd_msg_t *m, int *fds, int *count_p)
{
    union {
        char buf[CMSG_SPACE(FD_CHUNK * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {m, sizeof(*m)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf)};
    ssize_t k;
    int n = 0;

    do {
        k = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    } while (k < 0 && errno == EINTR);
    if (k < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        int got = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < got; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + (size_t)i * sizeof(int), sizeof(int));
            if (n < FD_CHUNK)
                fds[n++] = fd;
            else
                close(fd);
        }
    }
    int rc = 1;
    if (k == 0 && n == 0)
        rc = -EPIPE;
    else if (mh.msg_flags & MSG_CTRUNC)
        rc = -EMFILE;
    else if ((size_t)k != sizeof(*m) || (mh.msg_flags & MSG_TRUNC) || m->magic != FD_MAGIC ||
             m->count != n)
        rc = -EPROTO;
    if (rc < 0) {
        for (int i = 0; i < n; i++)
            close(fds[i]);
        n = 0;
    }
    *count_p = n;
    return rc;
}

static void recv_failed(const fd_xchg_t *x, int pe, int rc)
{
    if (pe < 0)
        symm_error("bootstrap", "descriptors from a node peer were dropped: too many open "
                   "files (raise the open files limit, ulimit -n)");
    else if (rc == -EPIPE || rc == -ECONNRESET)
        symm_error("bootstrap", "PE %d closed its fd-passing connection (did it exit or die?)",
                   pe);
    else if (rc == -EMFILE)
        symm_error("bootstrap", "descriptors from PE %d were dropped: too many open files "
                   "(raise the open files limit, ulimit -n)", pe);
    else if (rc == -EPROTO)
        symm_error("bootstrap", "malformed fd-passing message from PE %d", pe);
    else
        symm_error("bootstrap", "fd passing with PE %d failed: %s", pe, strerror(-rc));
    (void)x;
}

/* ---- socket name, peers --------------------------------------------------- */

static socklen_t sock_name(struct sockaddr_un *sa, const char *secret, int leader, int pid)
{
    /* FNV-1a then a 64-bit finalizer: the name identifies the job without
     * publishing the secret. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = secret; *s != '\0'; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "symm-%016llx-%d-%d",
                     (unsigned long long)h, leader, pid);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int same_user(int sock, struct ucred *cred)
{
    socklen_t len = sizeof(*cred);
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, cred, &len) != 0)
        return 0;
    return cred->uid == geteuid();
}

static int leader_listen(const fd_xchg_t *x, int *fd_p)
{
    struct sockaddr_un sa;
    socklen_t len = sock_name(&sa, x->boot->secret, x->boot->rank, (int)getpid());
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        symm_error("bootstrap", "fd passing: socket failed: %s", strerror(errno));
        return SYMM_ERR_SYS;
    }
    if (bind(fd, (struct sockaddr *)&sa, len) != 0 || listen(fd, x->n_node) != 0) {
        symm_error("bootstrap", "fd passing: cannot listen on @%s: %s", sa.sun_path + 1,
                   strerror(errno));
        close(fd);
        return SYMM_ERR_SYS;
    }
    *fd_p = fd;
    return SYMM_OK;
}

/* ---- node leader ---------------------------------------------------------- */

typedef struct fd_conn {
    int fd;
    int idx; /* node index once its first message came, else -1 */
} fd_conn_t;

static int leader_timeout(const fd_xchg_t *x, const int *got)
{
    int *miss = malloc((size_t)x->n_node * sizeof(*miss)), n = 0;
    char cause[64];
    snprintf(cause, sizeof(cause), "timed out after %g s", symm_boot_now() - x->t0);
    if (miss == NULL) {
        symm_error("bootstrap", "%s waiting for PEs to pass their descriptors", cause);
        return SYMM_ERR_TIMEOUT;
    }
    for (int i = 1; i < x->n_node; i++)
        if (got[i] < x->nfds)
            miss[n++] = x->node_ranks[i];
    int rc = symm_boot_missing(miss, n, cause, "to pass their descriptors");
    free(miss);
    return rc;
}

/* Accept a message from conn c; stores its descriptors. 1: c is used up
 * (refused or closed before it said who it is), 0: keep it, < 0: failure. */
static int leader_take(fd_xchg_t *x, fd_conn_t *c, int *member_fd, int *got)
{
    fd_msg_t m;
    int fds[FD_CHUNK], n, rc;
    int pe = c->idx >= 0 ? x->node_ranks[c->idx] : -1;

    rc = msg_recv(c->fd, &m, fds, &n);
    if (rc == 0)
        return 0;
    if (rc < 0 && c->idx < 0 && rc != -EMFILE) {
        /* Not one of ours yet: a stray of this user, dropped quietly. */
        symm_debug("bootstrap", "fd passing: dropped a connection: %s", strerror(-rc));
        close(c->fd);
        return 1;
    }
    if (rc < 0) {
        recv_failed(x, pe, rc);
        return rc == -EPIPE || rc == -ECONNRESET ? SYMM_ERR_PEER : SYMM_ERR_BOOT;
    }
    int idx = m.node_idx;
    if (idx < 1 || idx >= x->n_node || (c->idx >= 0 && idx != c->idx) ||
        (c->idx < 0 && member_fd[idx] >= 0) || m.nfds != x->nfds || m.first != got[idx] ||
        m.count > x->nfds - got[idx]) {
        symm_error("bootstrap", "fd passing: unexpected message (node index %d, %d of %d "
                   "descriptors from %d)", idx, m.count, m.nfds, m.first);
        for (int i = 0; i < n; i++)
            close(fds[i]);
        return SYMM_ERR_BOOT;
    }
    if (c->idx < 0) {
        c->idx = idx;
        member_fd[idx] = c->fd;
    }
    memcpy(&x->slots[(size_t)idx * (size_t)x->nfds + (size_t)m.first], fds,
           (size_t)n * sizeof(int));
    got[idx] += n;
    return 0;
}

/* Send member idx every slot but its own, in chunks. */
static int leader_send(fd_xchg_t *x, int sock, int idx)
{
    int total = (x->n_node - 1) * x->nfds, skip = idx * x->nfds;
    int fds[FD_CHUNK];
    for (int first = 0; first < total; first += FD_CHUNK) {
        int count = total - first < FD_CHUNK ? total - first : FD_CHUNK;
        for (int k = 0; k < count; k++) {
            int p = first + k;
            fds[k] = x->slots[p < skip ? p : p + x->nfds];
        }
        fd_msg_t m = {FD_MAGIC, 0, x->nfds, first, count};
        int rc = msg_send(sock, &m, fds, count, x->end);
        if (rc == -ETIMEDOUT) {
            symm_error("bootstrap", "timed out after %g s waiting for PE %d to take its "
                       "descriptors", symm_boot_now() - x->t0, x->node_ranks[idx]);
            return SYMM_ERR_TIMEOUT;
        }
        if (rc < 0) {
            symm_error("bootstrap", "fd passing: sending to PE %d failed: %s",
                       x->node_ranks[idx], strerror(-rc));
            return rc == -EPIPE || rc == -ECONNRESET ? SYMM_ERR_PEER : SYMM_ERR_SYS;
        }
    }
    return SYMM_OK;
}

/* Wait for member idx to close its end, which it does once it holds every
 * descriptor. The leader closes last: a Unix socket closed while anything
 * is unread on either side can reset its peer, whose messages still queued
 * are then lost. (Once in a loaded test run a member reported "PE 0 closed
 * its fd-passing connection" while its leader had sent everything and gone
 * on; this ordering rules that out, whichever side was left unread.) */
static int leader_linger(fd_xchg_t *x, int sock, int idx)
{
    for (;;) {
        char b[sizeof(fd_msg_t)];
        ssize_t k = recv(sock, b, sizeof(b), MSG_DONTWAIT);
        if (k == 0 || (k < 0 && errno == ECONNRESET))
            return SYMM_OK; /* closed: it took everything */
        if (k < 0 && errno == EINTR)
            continue;
        if (k > 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
            symm_error("bootstrap", "fd passing: unexpected %s from PE %d after its descriptors",
                       k > 0 ? "message" : strerror(errno), x->node_ranks[idx]);
            return SYMM_ERR_BOOT;
        }
        struct pollfd p = {sock, POLLIN, 0};
        int pr = symm_boot_poll(&p, 1, x->end);
        if (pr == 0) {
            symm_error("bootstrap", "timed out after %g s waiting for PE %d to take its "
                       "descriptors", symm_boot_now() - x->t0, x->node_ranks[idx]);
            return SYMM_ERR_TIMEOUT;
        }
        if (pr < 0) {
            symm_error("bootstrap", "fd passing: poll failed: %s", strerror(-pr));
            return SYMM_ERR_SYS;
        }
    }
}

/* Take the connections lfd holds, up to cap in conn[] (*nc of them), and
 * refuse those of another user. */
static int leader_accept(int lfd, fd_conn_t *conn, int *nc, int cap)
{
    while (*nc < cap) {
        struct ucred cred = {0, 0, 0};
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            symm_error("bootstrap", "fd passing: accept failed: %s", strerror(errno));
            return SYMM_ERR_SYS;
        }
        if (!same_user(fd, &cred)) {
            symm_error("bootstrap", "refused fd-passing connection from pid %d: "
                       "uid %u, not this job's user", (int)cred.pid, (unsigned)cred.uid);
            close(fd);
            continue;
        }
        conn[(*nc)++] = (fd_conn_t){fd, -1};
    }
    return SYMM_OK;
}

static int leader_run(fd_xchg_t *x, int lfd)
{
    int nm = x->n_node - 1, cap = nm + PEND_EXTRA, nc = 0, done = 0, rc = SYMM_OK;
    fd_conn_t *conn = malloc((size_t)cap * sizeof(*conn));
    int *member_fd = malloc((size_t)x->n_node * sizeof(int));
    int *got = calloc((size_t)x->n_node, sizeof(int));
    struct pollfd *pfd = malloc((size_t)(cap + 1) * sizeof(*pfd));
    int *pfd_conn = malloc((size_t)(cap + 1) * sizeof(int));

    if (!conn || !member_fd || !got || !pfd || !pfd_conn) {
        symm_error("bootstrap", "out of memory");
        rc = SYMM_ERR_NOMEM;
        goto err_close_conns;
    }
    for (int i = 0; i < x->n_node; i++)
        member_fd[i] = -1;

    while (done < nm) {
        int np = 0;
        pfd[np++] = (struct pollfd){lfd >= 0 && nc < cap ? lfd : -1, POLLIN, 0};
        for (int i = 0; i < nc; i++) {
            if (conn[i].idx >= 0 && got[conn[i].idx] == x->nfds)
                continue;
            pfd_conn[np] = i;
            pfd[np++] = (struct pollfd){conn[i].fd, POLLIN, 0};
        }
        int pr = symm_boot_poll(pfd, (nfds_t)np, x->end);
        if (pr == 0) {
            rc = leader_timeout(x, got);
            goto err_close_conns;
        }
        if (pr < 0) {
            symm_error("bootstrap", "fd passing: poll failed: %s", strerror(-pr));
            rc = SYMM_ERR_SYS;
            goto err_close_conns;
        }
        /* Backwards, so that dropping a connection by moving the last one
         * in never skips one polled. */
        for (int j = np - 1; j >= 1; j--) {
            if (pfd[j].revents == 0)
                continue;
            fd_conn_t *c = &conn[pfd_conn[j]];
            int before = c->idx >= 0 ? got[c->idx] : -1;
            int used = leader_take(x, c, member_fd, got);
            if (used < 0) {
                rc = used;
                goto err_close_conns;
            }
            if (used)
                *c = conn[--nc];
            else if (c->idx >= 0 && before < x->nfds && got[c->idx] == x->nfds)
                done++;
        }
        if ((pfd[0].revents & POLLIN) && (rc = leader_accept(lfd, conn, &nc, cap)) != SYMM_OK)
            goto err_close_conns;
    }
    /* Everyone is in: take the name off the system before sending. */
    close(lfd);
    lfd = -1;
    for (int i = 1; i < x->n_node && rc == SYMM_OK; i++)
        rc = leader_send(x, member_fd[i], i);
    for (int i = 1; i < x->n_node && rc == SYMM_OK; i++)
        rc = leader_linger(x, member_fd[i], i);

err_close_conns:
    if (lfd >= 0)
        close(lfd);
    for (int i = 0; conn != NULL && i < nc; i++)
        close(conn[i].fd);
    free(conn);
    free(member_fd);
    free(got);
    free(pfd);
    free(pfd_conn);
    return rc;
}

/* ---- other PEs of the node ------------------------------------------------ */

static int member_connect(fd_xchg_t *x, int leader_pid, int *fd_p)
{
    struct sockaddr_un sa;
    int leader = x->node_ranks[0];
    socklen_t len = sock_name(&sa, x->boot->secret, leader, leader_pid);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct ucred cred = {0, 0, 0};

    if (fd < 0) {
        symm_error("bootstrap", "fd passing: socket failed: %s", strerror(errno));
        return SYMM_ERR_SYS;
    }
    /* The leader listens before the allgather ends; a full backlog is the
     * only reason to wait here. */
    while (connect(fd, (struct sockaddr *)&sa, len) != 0) {
        if (errno == EINTR)
            continue;
        if ((errno == EAGAIN || errno == ECONNREFUSED) && symm_boot_deadline_ms(x->end) != 0) {
            nap();
            continue;
        }
        if (errno == EAGAIN || errno == ECONNREFUSED)
            symm_error("bootstrap", "timed out after %g s waiting for PE %d (node leader) to "
                       "accept fd passing (%s)", symm_boot_now() - x->t0, leader, strerror(errno));
        else
            symm_error("bootstrap", "fd passing: cannot reach PE %d (node leader): %s", leader,
                       strerror(errno));
        close(fd);
        return errno == EAGAIN || errno == ECONNREFUSED ? SYMM_ERR_TIMEOUT : SYMM_ERR_PEER;
    }
    if (!same_user(fd, &cred)) {
        symm_error("bootstrap", "fd passing: the socket of PE %d (node leader) is held by uid "
                   "%u, not this job's user", leader, (unsigned)cred.uid);
        close(fd);
        return SYMM_ERR_BOOT;
    }
    *fd_p = fd;
    return SYMM_OK;
}

static int member_run(fd_xchg_t *x, int leader_pid)
{
    int sock, rc, leader = x->node_ranks[0];
    int total = (x->n_node - 1) * x->nfds, skip = x->node_idx * x->nfds, have = 0;
    const int *own = x->slots + skip;

    rc = member_connect(x, leader_pid, &sock);
    if (rc != SYMM_OK)
        return rc;
    for (int first = 0; first < x->nfds; first += FD_CHUNK) {
        int count = x->nfds - first < FD_CHUNK ? x->nfds - first : FD_CHUNK;
        fd_msg_t m = {FD_MAGIC, x->node_idx, x->nfds, first, count};
        int io = msg_send(sock, &m, own + first, count, x->end);
        if (io < 0) {
            if (io == -ETIMEDOUT)
                symm_error("bootstrap", "timed out after %g s waiting for PE %d (node leader) "
                           "to take descriptors", symm_boot_now() - x->t0, leader);
            else
                recv_failed(x, leader, io);
            rc = io == -ETIMEDOUT ? SYMM_ERR_TIMEOUT : SYMM_ERR_PEER;
            goto err_close_sock;
        }
    }
    while (have < total) {
        fd_msg_t m;
        int fds[FD_CHUNK], n;
        int io = msg_recv(sock, &m, fds, &n);
        if (io == 0) {
            struct pollfd p = {sock, POLLIN, 0};
            int pr = symm_boot_poll(&p, 1, x->end);
            if (pr == 0) {
                symm_error("bootstrap", "timed out after %g s waiting for PE %d (node leader) "
                           "to pass descriptors", symm_boot_now() - x->t0, leader);
                rc = SYMM_ERR_TIMEOUT;
                goto err_close_sock;
            }
            if (pr < 0) {
                io = pr;
            } else {
                continue;
            }
        }
        if (io < 0) {
            recv_failed(x, leader, io);
            rc = io == -EPIPE || io == -ECONNRESET ? SYMM_ERR_PEER : SYMM_ERR_BOOT;
            goto err_close_sock;
        }
        if (m.node_idx != 0 || m.nfds != x->nfds || m.first != have || n > total - have) {
            symm_error("bootstrap", "fd passing: unexpected message from PE %d", leader);
            for (int i = 0; i < n; i++)
                close(fds[i]);
            rc = SYMM_ERR_BOOT;
            goto err_close_sock;
        }
        for (int k = 0; k < n; k++, have++)
            x->slots[have < skip ? have : have + x->nfds] = fds[k];
    }
    rc = SYMM_OK;
err_close_sock:
    close(sock);
    return rc;
}

/* ---- the collective call ---------------------------------------------------- */

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

/* After the allgather: did anyone fail, and does the node agree on its map? */
static int check_agreement(const fd_xchg_t *x, const fd_info_t *mine, const fd_info_t *all)
{
    if (mine->status != SYMM_OK)
        return mine->status;
    for (int r = 0; r < x->boot->size; r++) {
        if (all[r].status != SYMM_OK) {
            symm_info("bootstrap", "fd passing: PE %d failed to prepare", r);
            return SYMM_ERR_PEER;
        }
    }
    for (int i = 0; i < x->n_node; i++) {
        const fd_info_t *o = &all[x->node_ranks[i]];
        if (o->n_node != x->n_node || o->node_idx != i || o->leader != x->node_ranks[0] ||
            o->nfds != x->nfds) {
            /* Every PE of the node sees it; its leader says it. */
            symm_log(x->node_idx == 0 ? SYMM_LOG_ERROR : SYMM_LOG_INFO, "bootstrap",
                     "fd passing: PE %d disagrees on the node (it has %d PEs, index %d, "
                     "leader %d, %d fds; here %d PEs, index %d, leader %d, %d fds)",
                     x->node_ranks[i], o->n_node, o->node_idx, o->leader, o->nfds, x->n_node,
                     i, x->node_ranks[0], x->nfds);
            return SYMM_ERR_INVALID;
        }
    }
    return SYMM_OK;
}

int symm_boot_fds_exchange(symm_boot_t *boot, const int *node_ranks, int n_node, int node_idx,
                           const int *fds, int nfds, int *out_fds)
{
    fd_xchg_t x = {boot, node_ranks, n_node, node_idx, nfds, NULL, -1.0, symm_boot_now()};
    fd_info_t mine = {0}, *all;
    size_t nslots = 0;
    int lfd = -1, rc;

    mine.status = check_args(boot, node_ranks, n_node, node_idx, fds, nfds, out_fds);
    if (mine.status == SYMM_OK && n_node > 0) {
        mine.n_node = n_node;
        mine.node_idx = node_idx;
        mine.leader = node_ranks[0];
        mine.nfds = nfds;
        nslots = (size_t)n_node * (size_t)nfds;
    }
    mine.pid = (int32_t)getpid();
    if (mine.status == SYMM_OK && n_node > 1 && nfds > 0 && node_idx == 0)
        mine.status = leader_listen(&x, &lfd);

    all = malloc((size_t)boot->size * sizeof(*all));
    if (all == NULL) {
        symm_error("bootstrap", "out of memory");
        rc = SYMM_ERR_NOMEM;
        goto err_close_listen;
    }
    rc = symm_boot_allgather(boot, &mine, all, sizeof(mine));
    if (rc == SYMM_OK)
        rc = check_agreement(&x, &mine, all);
    if (rc != SYMM_OK || nslots == 0)
        goto err_free_all;

    x.slots = malloc(nslots * sizeof(int));
    if (x.slots == NULL) {
        symm_error("bootstrap", "out of memory");
        rc = SYMM_ERR_NOMEM;
        goto err_free_all;
    }
    for (size_t i = 0; i < nslots; i++)
        x.slots[i] = -1;
    for (int j = 0; j < nfds; j++) {
        int fd = fcntl(fds[j], F_DUPFD_CLOEXEC, 0);
        if (fd < 0) {
            symm_error("bootstrap", "fd passing: cannot dup descriptor %d: %s", fds[j],
                       strerror(errno));
            rc = SYMM_ERR_SYS;
            goto err_close_slots;
        }
        x.slots[(size_t)node_idx * (size_t)nfds + (size_t)j] = fd;
    }
    if (n_node > 1) {
        /* Members wait on the leader, who may be waiting on the others. */
        double t = boot->timeout_s;
        x.t0 = symm_boot_now();
        x.end = t > 0 ? x.t0 + (node_idx == 0 ? t : 2 * t) : -1.0;
        if (node_idx == 0) {
            rc = leader_run(&x, lfd);
            lfd = -1;
        } else {
            rc = member_run(&x, all[node_ranks[0]].pid);
        }
        if (rc != SYMM_OK)
            goto err_close_slots;
    }
    memcpy(out_fds, x.slots, nslots * sizeof(int));
    free(x.slots);
    free(all);
    return SYMM_OK;

err_close_slots:
    for (size_t i = 0; i < nslots; i++)
        if (x.slots[i] >= 0)
            close(x.slots[i]);
    free(x.slots);
err_free_all:
    free(all);
err_close_listen:
    if (lfd >= 0)
        close(lfd);
    return rc;
}
