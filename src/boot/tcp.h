/*
 * tcp.h - what tcp.c (the star collectives), tree.c (the tree's) and
 * tcp_hello.c (joining either) share: the wire format and the bootstrap
 * object. Private to them.
 *
 * Wire format. Every message starts with a 24-byte header, big-endian:
 *   magic u32 | version u16 | type u16 | seq u32 | arg i32 | len u64
 * hello:     arg = rank, len = size, then the 32-byte secret; seq = the tree's
 *            fan-out K, 0 in the star (a PE whose setting differs is named)
 * barrier:   arg = the sender's rank, len 0; rank 0's reply has arg 0
 * allgather: arg = the sender's rank, len = blob length, then the blob;
 *            rank 0's reply has len = size * blob length, then every blob
 * reject:    arg = reason (TCP_REJECT_*); rank 0 closes the connection next
 * abort:     arg = culprit rank or -1, len = -status: rank 0 gave up (in the
 *            tree: any PE, up to its parent and down to its children)
 * dir:       the tree's directory (tree.c), plain TCP to rank 0: seq = K,
 *            arg = rank, len = size, then TCP_DIR_BODY bytes: a MAC of the
 *            fields under the job secret (32), the TLS mode (u32), the
 *            sender's listening address (NUL-padded, empty for a leaf).
 *            Rank 0's answer has the same layout: arg = the parent's rank,
 *            its address (empty: rank 0's own), its MAC.
 * magic and version stay where they are in every future version, so that
 * any version can tell another one apart.
 *
 * TLS (tls.h; on by default when built with OpenSSL): every connection is
 * TLS 1.3 from its first byte, the messages above travel inside it
 * unchanged, the hello (and the secret in it) included: as 0-RTT early data
 * with a pre-shared key, after the handshake with certificates. Without TLS
 * the bytes are exactly the above. The first byte tells the two apart (0x16, a
 * TLS handshake record, against 'S' of the magic), which lets rank 0 name a
 * PE whose TLS setting differs from its own instead of timing out: it fails
 * the job once that PE has proven it holds the secret (a plain hello with
 * it, or a completed PSK handshake), and refuses anything else.
 */
#ifndef SYMM_BOOT_TCP_H
#define SYMM_BOOT_TCP_H

#include "boot/boot.h"
#include "boot/boot_io.h"
#include "boot/tls.h"

#include <endian.h>
#include <poll.h>
#include <string.h>

#define TCP_MAGIC 0x53594d42u /* "SYMB" */
#define TCP_VERSION 1
#define TCP_HDR_LEN 24
#define TCP_SECRET_LEN 32
#define TCP_HELLO_LEN (TCP_HDR_LEN + TCP_SECRET_LEN)
#define TCP_MAC_LEN 32
#define TCP_ADDR_LEN 60
#define TCP_DIR_BODY (TCP_MAC_LEN + 4 + TCP_ADDR_LEN)
#define TCP_DIR_LEN (TCP_HDR_LEN + TCP_DIR_BODY)

enum {
    TCP_MSG_HELLO = 1,
    TCP_MSG_BARRIER,
    TCP_MSG_ALLGATHER,
    TCP_MSG_REJECT,
    TCP_MSG_ABORT,
    TCP_MSG_DIR,
    TCP_MSG_DIR_ANSWER
};
enum {
    TCP_REJECT_PROTOCOL = 1,
    TCP_REJECT_VERSION,
    TCP_REJECT_SECRET,
    TCP_REJECT_TLS,
    TCP_REJECT_TREE
};

/* Rank 0 of a tree: the directory of listening addresses (tcp_hello.c). */
typedef struct tcp_dir {
    char (*addr)[TCP_ADDR_LEN]; /* by rank */
    uint8_t *seen;              /* by rank: 1 registered, 2 answered */
    int answered;               /* ranks answered (every one registered first) */
} tcp_dir_t;

typedef struct tcp_hdr {
    uint32_t magic;
    uint16_t version;
    uint16_t type;
    uint32_t seq;
    int32_t arg;
    uint64_t len;
} tcp_hdr_t;

typedef struct tcp_boot {
    symm_boot_t base;
    symm_boot_conn_t up;    /* the star's other ranks: rank 0; the tree's: the parent */
    int up_rank;            /* whom up leads to; -1 at rank 0 */
    symm_boot_conn_t *peer; /* rank r's connection is peer[r - peer_base] */
    int peer_base;          /* star: 0 ([0].fd is -1); tree: lo */
    int lo, hi;             /* ranks this PE accepts: star rank 0 1..size-1, tree its children */
    int tree_k;             /* the tree's fan-out; 0: the star */
    int depth, max_depth;   /* tree: this PE's depth, the deepest PE's */
    tcp_dir_t *dir;         /* tree rank 0 */
    uint8_t up_hdr[TCP_HDR_LEN]; /* tree: a header from the parent, arriving */
    size_t up_moved;
    int tls_mode;       /* SYMM_TLS_* */
    symm_tls_ctx_t *tls; /* accepting side (rank 0, tree parents); NULL when TLS is off */
    symm_tls_ctx_t *tls_cli; /* joining side (the other ranks) */
    int hello_due;      /* other ranks with a PSK: the handshake (and the
                         * hello if rank 0 refused it as early data) come at
                         * the first collective, so that create never waits
                         * for rank 0 (as the plain hello does not) */
    uint32_t seq;       /* number of the current collective */
    int failed;         /* first failure; later calls return it without a word */
    struct pollfd *pfd; /* accepting side: scratch for one step, a slot per peer + 1 */
    int *pfd_rank;
    size_t *moved;      /* by peer index, as the rest: */
    uint8_t *hdr;       /* TCP_HDR_LEN per peer */
} tcp_boot_t;

/* After one step on poll entry *j of n (a peer c): a finished one leaves the
 * set (the last takes its place, *j stays), else it is re-armed for what c
 * waits for and *j moves on. The new n. */
static inline int tcp_pfd_step(tcp_boot_t *tb, int *j, int n, int done,
                               const symm_boot_conn_t *c)
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

static inline symm_boot_conn_t *tcp_peer(tcp_boot_t *tb, int r)
{
    return &tb->peer[r - tb->peer_base];
}

static inline void tcp_hdr_pack(uint8_t *b, int type, uint32_t seq, int32_t arg, uint64_t len)
{
    uint32_t m = htobe32(TCP_MAGIC), s = htobe32(seq), a = htobe32((uint32_t)arg);
    uint16_t v = htobe16(TCP_VERSION), t = htobe16((uint16_t)type);
    uint64_t l = htobe64(len);
    memcpy(b, &m, 4);
    memcpy(b + 4, &v, 2);
    memcpy(b + 6, &t, 2);
    memcpy(b + 8, &s, 4);
    memcpy(b + 12, &a, 4);
    memcpy(b + 16, &l, 8);
}

static inline tcp_hdr_t tcp_hdr_unpack(const uint8_t *b)
{
    tcp_hdr_t h;
    uint32_t a;
    memcpy(&h.magic, b, 4);
    memcpy(&h.version, b + 4, 2);
    memcpy(&h.type, b + 6, 2);
    memcpy(&h.seq, b + 8, 4);
    memcpy(&a, b + 12, 4);
    memcpy(&h.len, b + 16, 8);
    h.magic = be32toh(h.magic);
    h.version = be16toh(h.version);
    h.type = be16toh(h.type);
    h.seq = be32toh(h.seq);
    h.arg = (int32_t)be32toh(a);
    h.len = be64toh(h.len);
    return h;
}

static inline const char *tcp_reject_text(int reason)
{
    switch (reason) {
    case TCP_REJECT_PROTOCOL: return "not a symm bootstrap hello";
    case TCP_REJECT_VERSION: return "bootstrap protocol version differs";
    case TCP_REJECT_SECRET: return "bad job secret";
    case TCP_REJECT_TLS:
        return "bootstrap TLS is on at one PE and off at the other (turn it on or off alike on "
               "every PE: SYMM_BOOT_TLS, aclshmemx_set_conf_store_tls)";
    case TCP_REJECT_TREE:
        return "bootstrap star or tree chosen differently on the two PEs (set "
               "SYMM_BOOT_TREE_MIN and SYMM_BOOT_TREE_K alike on every PE)";
    }
    return "unknown reason";
}

/* tcp_hello.c. Rank 0 (star or tree) and the tree's parents: listen on
 * root_addr unless lfd >= 0 is given, and accept until every rank of
 * lo..hi-1 has presented the secret (tree rank 0: and the directory has
 * answered every PE; tree parents: watching the parent and the joined
 * children for an abort); lfd is closed on return. Logs its failures. */
int symm_tcp_root_accept(tcp_boot_t *tb, const char *root_addr, int lfd, double end);
/* Other ranks: connect to tb->up_rank at addr (retrying while it does not
 * listen yet when retry is set) and say hello: plain, as TLS early data with
 * a PSK (leaving tb->hello_due set), or after the whole handshake with
 * certificates. Logs its failures. */
int symm_tcp_peer_join(tcp_boot_t *tb, const char *addr, int retry, double end);
/* Connect to addr, retrying while refused (rank 0 may not listen yet):
 * SYMM_OK with the socket in *fd_p, else logged. */
int symm_tcp_connect(const char *addr, int peer, int retry, double end, int *fd_p);
/* Listen on the local address of connected socket fd, any port: the
 * socket and its "host:port". Logs its failures. */
int symm_tcp_listen_near(int fd, int *fd_p, char *addr, size_t cap);
/* Other ranks with hello_due: finish the TLS handshake, then say hello if
 * the early data did not, by end. t0 is when the caller started waiting (for
 * messages). Logs its failures. */
int symm_tcp_peer_finish_join(tcp_boot_t *tb, double end, double t0);

/* tcp.c. Log a failed exchange with PE pe over c (an I/O result of
 * boot_io.h) and return the status for it. */
int symm_tcp_io_report(const symm_boot_conn_t *c, int pe, int io, const char *during,
                       double waited_s);
/* Rank 0 gives up with status: tell every connected PE but the culprit. */
void symm_tcp_root_abort(tcp_boot_t *tb, int culprit, int status, const size_t *sent,
                         size_t total);
/* Rank 0 (or a tree parent) timed out after waited_s waiting for the npend
 * ranks in tb->pfd_rank: log them. */
int symm_tcp_root_timeout(tcp_boot_t *tb, int npend, const char *what, double waited_s);
const char *symm_tcp_msg_name(int type);

/* tree.c. */
/* Create the tree's side of tb (fields of the star already set; tb->tree_k
 * chosen): directory, parent, children. Logs its failures. */
int symm_tree_create(tcp_boot_t *tb, const symm_boot_tcp_params_t *p, double end);
/* The collectives. */
int symm_tree_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len);
/* Give up with status: tell the parent (unless skip_up) and every child but
 * skip (a rank, or -1); children part-way through a message of total bytes
 * (sent[] by peer index, may be NULL) are shut down instead. */
void symm_tree_abort(tcp_boot_t *tb, int culprit, int status, int skip_up, int skip,
                     const size_t *sent, size_t total);
/* A header arrived from PE `from` (the parent or a child) when none was
 * due, or its connection failed with io (< 0): log it and return the status
 * to fail with; *culprit_p the rank to name in the abort. */
int symm_tree_unexpected(tcp_boot_t *tb, symm_boot_conn_t *c, int from, int io,
                         const uint8_t *hdr, const char *during, int *culprit_p);
/* Directory messages (tcp.h's dir): pack one of type (request or answer)
 * with its MAC; unpack checks the MAC (SYMM_OK) and gives the TLS mode and
 * the address (TCP_ADDR_LEN bytes, NUL-terminated). */
void symm_tree_dir_pack(const tcp_boot_t *tb, uint8_t *b, int type, int arg, uint64_t len,
                        const char *addr);
int symm_tree_dir_unpack(const tcp_boot_t *tb, const uint8_t *b, int *mode_p, char *addr);
/* The fan-out a job of size PEs uses: 0 for the star. */
int symm_tree_fanout(int size);

#endif
