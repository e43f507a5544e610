/*
 * tcp_priv.h - the TCP bootstrap's object and what the files of tcp/ call of
 * each other. Private to src/boot/tcp/ (the rest of boot/ sees tcp_boot.h
 * only).
 *
 * The bootstrap is one shape, a K-ary tree (a star when the job has at most
 * K+1 PEs): every PE but rank 0 holds a link to its parent and every PE
 * accepts its children (tcp_boot_t).
 * Who does what:
 *   tcp_boot.c    the object: creation (fan-out, TLS mode), the ops, fini
 *   tcp_env.c     oshrun's environment into the parameters of creation
 *   tcp_tree.c    creation, directory messages, collectives, failures
 *   tcp_accept.c  the accepting side: a state machine per connection
 *   tcp_hello.c   the joining side: connect, TLS handshake, hello
 *   tcp_sock.c    sockets and addresses: listen, connect with retry
 *   tcp_conn.c    connections, plain or TLS (tcp_conn.h)
 *   tcp_tls.c     TLS contexts and sessions (tcp_tls.h)
 *   tcp_tls_conf.c  the TLS settings (boot/tls.h), certificate files
 * The wire format is tcp_wire.h's.
 */
#ifndef SYMM_BOOT_TCP_PRIV_H
#define SYMM_BOOT_TCP_PRIV_H

#include "boot/boot.h"
#include "boot/tcp/tcp_conn.h"
#include "boot/tcp/tcp_tls.h"
#include "boot/tcp/tcp_wire.h"

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "runtime/status.h"

/* Rank 0 of a tree deeper than one level: the directory of listening
 * addresses (tcp_accept.c). Only the PEs that have children or whose parent
 * is not rank 0 register (tcp_dir_needed). */
typedef struct tcp_dir {
    char (*addr)[TCP_ADDR_LEN]; /* by rank */
    uint8_t *seen;              /* by rank: 1 registered, 2 answered */
    int answered;               /* ranks answered (every one registered first) */
    int expected;               /* ranks that register */
} tcp_dir_t;

typedef struct tcp_boot {
    symm_boot_t base;
    char secret[TCP_SECRET_LEN + 1]; /* the job secret, 32 hex chars */
    symm_tcp_conn_t up;    /* the link to the parent; fd -1 at rank 0 */
    int up_rank;           /* the parent; -1 at rank 0 */
    symm_tcp_conn_t *peer; /* child r's connection is peer[r - lo] */
    int lo, hi;            /* the children: ranks lo..hi-1 */
    int tree_k;            /* the fan-out K */
    int depth, max_depth;  /* this PE's depth, the deepest PE's */
    tcp_dir_t *dir;        /* rank 0 of a tree deeper than one level */
    uint8_t up_hdr[TCP_HDR_LEN]; /* a header from the parent, arriving */
    size_t up_moved;
    int tls_mode;            /* SYMM_TLS_* (boot/tls.h) */
    symm_tls_ctx_t *tls;     /* accepting side (PEs with children); NULL when TLS is off */
    symm_tls_ctx_t *tls_cli; /* joining side (every rank but 0) */
    int hello_due;           /* leaves with a PSK: the handshake (and the hello
                              * if the parent refused it as early data) come at
                              * the first collective, so that create never waits
                              * for the parent (as the plain hello does not) */
    uint32_t seq;            /* number of the current collective */
    int failed;              /* first failure; later calls return it without a word */
    struct pollfd *pfd;      /* accepting side: scratch for one step, a slot per peer + 1 */
    int *pfd_rank;
    size_t *moved; /* by peer index, as the rest: */
    uint8_t *hdr;  /* TCP_HDR_LEN per peer */
} tcp_boot_t;

/* After one step on poll entry *j of n (a peer c): a finished one leaves the
 * set (the last takes its place, *j stays), else it is re-armed for what c
 * waits for and *j moves on. The new n. */
static inline int tcp_pfd_step(tcp_boot_t *tb, int *j, int n, int done, const symm_tcp_conn_t *c)
{
    if (done) {
        tb->pfd[*j] = tb->pfd[--n];
        tb->pfd_rank[*j] = tb->pfd_rank[n];
    } else {
        tb->pfd[*j].events = c->want;
        tb->pfd[*j].revents = 0;
        (*j)++;
    }
    return n;
}

static inline symm_tcp_conn_t *tcp_peer(tcp_boot_t *tb, int r)
{
    return &tb->peer[r - tb->lo];
}

/* ---- tcp_accept.c ---------------------------------------------------------- */

/* Every PE with children: listen on root_addr unless lfd >= 0 is given, and
 * accept until every rank of lo..hi-1 has presented the secret (rank 0: and
 * its directory, if any, has answered every PE that registers; the others:
 * watching the parent and the joined children for an abort); lfd is closed
 * on return. Logs its failures. */
SYMM_MUST_CHECK int symm_tcp_root_accept(tcp_boot_t *tb, const char *root_addr, int lfd,
                                         double end);

/* ---- tcp_hello.c ----------------------------------------------------------- */

/* This PE's hello (TCP_HELLO_LEN bytes): rank, size, fan-out, secret. */
void symm_tcp_hello_pack(const tcp_boot_t *tb, uint8_t *hello);
/* Every rank but 0: connect to tb->up_rank at addr (retrying while it does
 * not listen yet when retry is set) and say hello: plain, as TLS early data
 * with a PSK (leaving tb->hello_due set), or after the whole handshake with
 * certificates. Logs its failures. */
SYMM_MUST_CHECK int symm_tcp_peer_join(tcp_boot_t *tb, const char *addr, int retry, double end);
/* Ranks with hello_due: finish the TLS handshake, then say hello if
 * the early data did not, by end. t0 is when the caller started waiting (for
 * messages). Logs its failures. */
SYMM_MUST_CHECK int symm_tcp_peer_finish_join(tcp_boot_t *tb, double end, double t0);

/* ---- tcp_sock.c ------------------------------------------------------------ */

/* Listen on addr ("host:port"), retrying while the port is still taken by a
 * previous job's socket (until end, or 60 s when end never passes): the
 * non-blocking socket in *fd_p. Logs its failures. */
SYMM_MUST_CHECK int symm_tcp_listen(const char *addr, double end, int *fd_p);
/* Connect to addr, retrying while refused (rank 0 may not listen yet):
 * SYMM_OK with the socket in *fd_p, else logged. */
SYMM_MUST_CHECK int symm_tcp_connect(const char *addr, int peer, int retry, double end, int *fd_p);
/* Listen on the local address of connected socket fd, any port: the
 * socket and its "host:port". Logs its failures. */
SYMM_MUST_CHECK int symm_tcp_listen_near(int fd, int *fd_p, char *addr, size_t cap);
/* "host:port" or "[v6]:port" of sa, for messages. */
void symm_tcp_addr_text(const struct sockaddr *sa, socklen_t len, char *buf, size_t cap);
/* TCP_NODELAY, best effort: without it collectives are slower, not wrong. */
void symm_tcp_set_nodelay(int fd);
/* Raise the soft limit of open files to need, as far as the hard limit
 * lets (rank 0 holds one socket per PE). */
void symm_tcp_raise_nofile(int need);

/* ---- tcp_tree.c ------------------------------------------------------------ */

/* Create the tree's side of tb (rank, size, K, lo/hi, TLS set): directory,
 * parent, children. Logs its failures. */
SYMM_MUST_CHECK int symm_tree_create(tcp_boot_t *tb, const symm_boot_tcp_params_t *p, double end);
/* The collectives. */
SYMM_MUST_CHECK int symm_tree_collective(tcp_boot_t *tb, int type, const void *in, void *out,
                                         size_t len);
/* Give up with status: tell the parent (unless skip_up) and every child but
 * skip (a rank, or -1); children part-way through a message of total bytes
 * (sent[] by child index, may be NULL) are shut down instead. */
void symm_tree_abort(tcp_boot_t *tb, int culprit, int status, int skip_up, int skip,
                     const size_t *sent, size_t total);
/* A header arrived from PE `from` (the parent or a child) when none was
 * due, or its connection failed with io (< 0): log it and return the status
 * to fail with; *culprit_p the rank to name in the abort. */
SYMM_MUST_CHECK int symm_tree_unexpected(tcp_boot_t *tb, symm_tcp_conn_t *c, int from, int io,
                                         const uint8_t *hdr, const char *during, int *culprit_p);
/* Log a failed exchange with PE pe over c (an I/O result of tcp_conn.h)
 * and return the status for it. */
SYMM_MUST_CHECK int symm_tcp_io_report(const symm_tcp_conn_t *c, int pe, int io,
                                       const char *during, double waited_s);
/* Directory messages (tcp_wire.h's dir): pack one of type (request or
 * answer) with its MAC; unpack checks the MAC (SYMM_OK) and gives the TLS
 * mode and the address (TCP_ADDR_LEN bytes, NUL-terminated). */
void symm_tree_dir_pack(const tcp_boot_t *tb, uint8_t *b, int type, int arg, uint64_t len,
                        const char *addr);
int symm_tree_dir_unpack(const tcp_boot_t *tb, const uint8_t *b, int *mode_p, char *addr);
/* Whether rank r (> 0) registers with rank 0's directory: it has children
 * (they must learn its address) or its parent is not rank 0. */
static inline int tcp_dir_needed(int r, int size, int k)
{
    return r > k || (int64_t)r * k + 1 < size;
}
/* The fan-out K (SYMM_BOOT_TREE_K); -1 (logged) when it is malformed. */
int symm_tree_fanout(void);

#endif
