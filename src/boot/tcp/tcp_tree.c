/*
 * tcp_tree.c - the built-in bootstrap's one shape, a K-ary tree: creation,
 * collectives, failures.
 *
 * The wire format, the TLS sessions, the hello and its judgement are
 * tcp_wire.h's, tcp_tls.c's, tcp_hello.c's and tcp_accept.c's; every link of
 * the tree is the same: the same secret check, TLS mode, early data,
 * refusals.
 *
 * Shape: rank r's parent is (r-1)/K, its children K*r+1 .. K*r+K (K from
 * SYMM_BOOT_TREE_K, default 16). A job of at most K+1 PEs is a star: every
 * PE a child of rank 0, one hop, no directory. Above that rank 0 does K TLS
 * handshakes instead of N-1, and sends K*N*L bytes per allgather of L bytes
 * per PE instead of N*N*L (docs/performance.md measures both at 2..1024).
 *
 * Finding the parent (only rank 0's address is known): every PE that has
 * children listens on an ephemeral port of the address it reaches rank 0
 * from. The PEs that have children or whose parent is not rank 0
 * (tcp_dir_needed) make one short plain exchange with rank 0's directory
 * (tcp_accept.c serves it in the same poll loop as the hellos): "I am rank
 * r, my listening address is A; where is my parent?", answered once the
 * parent has registered. Both messages carry an HMAC of their fields under
 * the job secret, so a stray or stale client is refused without costing the
 * job anything, and a forged answer cannot pass; a wrong address could only
 * make the TLS handshake (or the hello's secret check) with the parent
 * fail, which names the parent: no PE ever joins the wrong job. The
 * exchange is authenticated, not encrypted, under TLS too, on purpose: it
 * carries ranks, the job size, K, the TLS mode and listening addresses,
 * never the secret or any allgathered data, and every address in it is
 * shown anyway, in the TCP headers, by the connection the child then opens
 * to its parent; encrypting it would hide nothing from someone on the path.
 * Then the PE joins its parent (tcp_hello.c) and accepts its own children,
 * watching its parent and its joined children for an abort meanwhile. A PE
 * with children completes its TLS handshake at creation (they wait for it,
 * and a refusal shows at once); a leaf with a pre-shared key sends its
 * hello as early data and completes the handshake at its first collective,
 * so that creation never waits for the parent.
 *
 * Collectives: each PE gathers its children's subtrees (each in preorder:
 * the PE's own blob, then its children's subtrees in rank order), sends its
 * own subtree up, and forwards the whole result, which rank 0 puts in rank
 * order, down to its children. Every message carries the collective's
 * sequence number, checked at every link: a mismatch is named by the first
 * PE that sees it. A failure anywhere is logged once, where it is seen, and
 * an abort travels up to rank 0 and down from every PE it passes through.
 * Waits are bounded by timeout_s, scaled so that a PE nearer the leaves
 * gives up first (it names the PEs it waits for, and the PEs above it get
 * its abort before their own time runs out): a parent waits for its
 * children timeout_s * (1 + (D-1-d)/4) at depth d (D the deepest PE's
 * depth), for its parent timeout_s * (2 + D/4). The others log an abort at
 * info level only, which keeps one error line per failed job.
 *
 * Must never: wait without a deadline, sleep on the common path, raise
 * SIGPIPE, log more than one error line per failure it sees, forward an
 * abort to the link it came from, or mix the data of two collectives. Not
 * thread-safe: one caller at a time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/boot_io.h"
#include "boot/secret.h"
#include "boot/tcp/tcp_priv.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TREE_K_DEFAULT 16
#define TREE_K_MAX 1024

/* ---- shape ------------------------------------------------------------------ */

int symm_tree_fanout(void)
{
    const char *v = getenv("SYMM_BOOT_TREE_K");
    char *endp;
    if (v == NULL || v[0] == '\0')
        return TREE_K_DEFAULT;
    errno = 0;
    long x = strtol(v, &endp, 10);
    if (errno != 0 || *endp != '\0' || x < 2 || x > TREE_K_MAX) {
        symm_error("bootstrap", "SYMM_BOOT_TREE_K='%s' is not a number in 2..%d", v, TREE_K_MAX);
        return -1;
    }
    return (int)x;
}

static int tree_depth(int r, int k)
{
    int d = 0;
    for (; r > 0; r = (r - 1) / k)
        d++;
    return d;
}

/* PEs in the subtree of r: a range of ranks per level. */
static size_t subtree_size(int r, int n, int k)
{
    size_t s = 0;
    for (int64_t lo = r, hi = r; lo < n; lo = lo * k + 1, hi = hi * k + k)
        s += (size_t)((hi < n ? hi : n - 1) - lo + 1);
    return s;
}

/* Preorder (the order of a subtree's blobs on the way up) into rank order. */
static void preorder_place(const uint8_t *pre, uint8_t *out, size_t len, int r, int n, int k,
                           size_t *pos)
{
    memcpy(out + (size_t)r * len, pre + *pos * len, len);
    (*pos)++;
    for (int64_t c = (int64_t)r * k + 1; c < n && c <= (int64_t)r * k + k; c++)
        preorder_place(pre, out, len, (int)c, n, k, pos);
}

/* ---- directory messages ----------------------------------------------------- */

static void dir_mac(const tcp_boot_t *tb, int type, int arg, uint64_t len, int mode,
                    const char *addr, uint8_t out[TCP_MAC_LEN])
{
    char m[160];
    snprintf(m, sizeof(m), "dir %d %d %d %llu %d %s", type, tb->tree_k, arg,
             (unsigned long long)len, mode, addr);
    symm_secret_mac(tb->secret, m, out);
}

void symm_tree_dir_pack(const tcp_boot_t *tb, uint8_t *b, int type, int arg, uint64_t len,
                        const char *addr)
{
    uint32_t mode = htobe32((uint32_t)tb->tls_mode);
    memset(b, 0, TCP_DIR_LEN);
    tcp_hdr_pack(b, type, (uint32_t)tb->tree_k, arg, len);
    dir_mac(tb, type, arg, len, tb->tls_mode, addr, b + TCP_HDR_LEN);
    memcpy(b + TCP_HDR_LEN + TCP_MAC_LEN, &mode, 4);
    snprintf((char *)b + TCP_HDR_LEN + TCP_MAC_LEN + 4, TCP_ADDR_LEN, "%s", addr);
}

int symm_tree_dir_unpack(const tcp_boot_t *tb, const uint8_t *b, int *mode_p, char *addr)
{
    tcp_hdr_t h = tcp_hdr_unpack(b);
    uint8_t mac[TCP_MAC_LEN];
    uint32_t mode;
    unsigned diff = 0;
    memcpy(&mode, b + TCP_HDR_LEN + TCP_MAC_LEN, 4);
    memcpy(addr, b + TCP_HDR_LEN + TCP_MAC_LEN + 4, TCP_ADDR_LEN);
    addr[TCP_ADDR_LEN - 1] = '\0';
    *mode_p = (int)be32toh(mode);
    /* The MAC covers the sender's K, not ours: a PE whose K differs is
     * still recognised as one of this job, and told so. */
    tcp_boot_t theirs = *tb;
    theirs.tree_k = (int)h.seq;
    dir_mac(&theirs, h.type, h.arg, h.len, *mode_p, addr, mac);
    for (int i = 0; i < TCP_MAC_LEN; i++)
        diff |= (unsigned)(mac[i] ^ b[TCP_HDR_LEN + i]);
    return diff == 0 ? SYMM_OK : SYMM_ERR_BOOT;
}

/* ---- failures ----------------------------------------------------------------- */

const char *symm_tcp_msg_name(int type)
{
    switch (type) {
    case TCP_MSG_HELLO: return "hello";
    case TCP_MSG_BARRIER: return "barrier";
    case TCP_MSG_ALLGATHER: return "allgather";
    case TCP_MSG_REJECT: return "reject";
    case TCP_MSG_ABORT: return "abort";
    case TCP_MSG_DIR: return "directory";
    }
    return "unknown message";
}

int symm_tcp_io_report(const symm_tcp_conn_t *c, int pe, int io, const char *during,
                       double waited_s)
{
    if (io == SYMM_IO_TLS) {
        symm_error("bootstrap", "TLS connection to PE %d failed during %s: %s", pe, during,
                   c->tls ? symm_tls_error(c->tls) : "no session");
        return SYMM_ERR_PEER;
    }
    if (io == SYMM_IO_TIMEOUT) {
        symm_error("bootstrap", "timed out after %g s waiting for PE %d (%s)", waited_s, pe,
                   during);
        return SYMM_ERR_TIMEOUT;
    }
    if (io == SYMM_IO_EOF || io == -ECONNRESET || io == -EPIPE) {
        symm_error("bootstrap", "PE %d closed its bootstrap connection during %s "
                   "(did it exit or die?)", pe, during);
        return SYMM_ERR_PEER;
    }
    symm_error("bootstrap", "connection to PE %d failed during %s: %s", pe, during,
               strerror(-io));
    return SYMM_ERR_PEER;
}

void symm_tree_abort(tcp_boot_t *tb, int culprit, int status, int skip_up, int skip,
                     const size_t *sent, size_t total)
{
    uint8_t h[TCP_HDR_LEN];
    size_t off = 0;
    tcp_hdr_pack(h, TCP_MSG_ABORT, tb->seq, culprit, (uint64_t)(-(int64_t)status));
    /* Best effort, never waiting: a link that cannot take it now is broken
     * or stuck, and its PE learns from the connection's end instead. */
    if (!skip_up && tb->up.fd >= 0 &&
        symm_tcp_conn_send_some(&tb->up, h, TCP_HDR_LEN, NULL, 0, &off) != 1)
        (void)shutdown(tb->up.fd, SHUT_RDWR);
    for (int r = tb->lo; tb->peer != NULL && r < tb->hi; r++) {
        symm_tcp_conn_t *c = tcp_peer(tb, r);
        size_t s = sent != NULL ? sent[r - tb->lo] : 0;
        off = 0;
        if (c->fd < 0 || r == skip)
            continue;
        /* A child part-way through a message would misread the header. */
        if ((s > 0 && s < TCP_HDR_LEN + total) ||
            symm_tcp_conn_send_some(c, h, TCP_HDR_LEN, NULL, 0, &off) != 1)
            (void)shutdown(c->fd, SHUT_RDWR);
    }
    tb->failed = status;
}

int symm_tree_unexpected(tcp_boot_t *tb, symm_tcp_conn_t *c, int from, int io, const uint8_t *hdr,
                         const char *during, int *culprit_p)
{
    *culprit_p = from;
    if (io == SYMM_IO_TLS && from == tb->up_rank && tb->seq <= 1) {
        /* The parent judges a certificate after this side's handshake is
         * done: its refusal arrives as a TLS alert. */
        *culprit_p = -1;
        symm_error("bootstrap",
                   "PE %d refused this PE's connection: TLS handshake failed (wrong "
                   "job secret or certificate): %s",
                   from, symm_tls_error(c->tls));
        return SYMM_ERR_BOOT;
    }
    if (io < 0)
        return symm_tcp_io_report(c, from, io, during, 0);
    tcp_hdr_t h = tcp_hdr_unpack(hdr);
    if (h.magic != TCP_MAGIC) {
        symm_error("bootstrap", "garbled message from PE %d during %s", from, during);
        return SYMM_ERR_BOOT;
    }
    if (h.type == TCP_MSG_ABORT) {
        /* Whoever saw the cause logged it; one line per job is enough. */
        *culprit_p = h.arg;
        if (h.arg >= 0)
            symm_info("bootstrap", "PE %d gave up during %s: PE %d %s", from, during, h.arg,
                      symm_status_str(-(int)h.len));
        else
            symm_info("bootstrap", "PE %d gave up during %s: %s", from, during,
                      symm_status_str(-(int)h.len));
        return SYMM_ERR_PEER;
    }
    if (h.type == TCP_MSG_REJECT && from == tb->up_rank) {
        *culprit_p = -1;
        symm_error("bootstrap", "PE %d refused this PE's connection: %s", from,
                   tcp_reject_text(h.arg));
        return SYMM_ERR_BOOT;
    }
    symm_error("bootstrap", "unexpected %s #%u from PE %d during %s", symm_tcp_msg_name(h.type),
               h.seq, from, during);
    return SYMM_ERR_BOOT;
}

/* ---- creation ------------------------------------------------------------------ */

/* Register this PE's address with rank 0's directory and learn the
 * parent's: *addr (TCP_ADDR_LEN) is "" when the parent is rank 0. */
static int dir_ask(tcp_boot_t *tb, const char *root_addr, int *lfd_p, char *parent_addr, double end)
{
    uint8_t msg[TCP_DIR_LEN];
    symm_tcp_conn_t c = {-1, NULL, POLLIN};
    char mine_buf[64] = "";
    const char *mine = "";
    int io, rc, mode;

    rc = symm_tcp_connect(root_addr, 0, 1, end, &c.fd);
    if (rc != SYMM_OK)
        return rc;
    if (lfd_p != NULL) {
        /* Listen where rank 0 sees this PE: other PEs reach it the same way. */
        rc = symm_tcp_listen_near(c.fd, lfd_p, mine_buf, sizeof(mine_buf));
        if (rc != SYMM_OK)
            goto out;
        mine = mine_buf;
    }
    if (strlen(mine) >= TCP_ADDR_LEN) {
        symm_error("bootstrap", "listening address %s is too long", mine);
        rc = SYMM_ERR_BOOT;
        goto out;
    }
    symm_tree_dir_pack(tb, msg, TCP_MSG_DIR, tb->base.rank, (uint64_t)tb->base.size, mine);
    io = symm_tcp_conn_send_all(&c, msg, TCP_DIR_LEN, NULL, 0, end);
    if (io == 0 || io == SYMM_IO_EOF || io == -EPIPE || io == -ECONNRESET)
        /* After a failed send, rank 0 may still have said why. */
        io = symm_tcp_conn_recv_all(&c, msg, TCP_HDR_LEN, io == 0 ? end : symm_boot_now());
    if (io != 0) {
        rc = symm_tcp_io_report(&c, 0, io, "the bootstrap directory", tb->base.timeout_s);
        goto out;
    }
    tcp_hdr_t h = tcp_hdr_unpack(msg);
    rc = SYMM_ERR_BOOT;
    if (h.magic == TCP_MAGIC && h.type == TCP_MSG_REJECT) {
        symm_error("bootstrap",
                   "PE 0 refused this PE's connection: %s (its bootstrap "
                   "directory request)",
                   tcp_reject_text(h.arg));
    } else if (h.magic == TCP_MAGIC && h.type == TCP_MSG_ABORT) {
        int culprit;
        rc = symm_tree_unexpected(tb, &c, 0, 0, msg, "the bootstrap directory", &culprit);
    } else if (h.magic != TCP_MAGIC || h.type != TCP_MSG_DIR_ANSWER) {
        symm_error("bootstrap", "garbled answer from PE 0's bootstrap directory");
    } else if ((io = symm_tcp_conn_recv_all(&c, msg + TCP_HDR_LEN, TCP_DIR_BODY, end)) != 0) {
        rc = symm_tcp_io_report(&c, 0, io, "the bootstrap directory", tb->base.timeout_s);
    } else if (symm_tree_dir_unpack(tb, msg, &mode, parent_addr) != SYMM_OK ||
               h.seq != (uint32_t)tb->tree_k || h.arg != tb->up_rank ||
               h.len != (uint64_t)tb->base.rank) {
        symm_error("bootstrap",
                   "the answer of PE 0's bootstrap directory fails its check "
                   "(PE 0 of another job at %s?)",
                   root_addr);
    } else {
        rc = SYMM_OK;
    }
out:
    symm_tcp_conn_close(&c);
    return rc;
}

/* Rank 0's directory, when some PE registers with it. */
static int dir_create(tcp_boot_t *tb)
{
    int n = tb->base.size, expected = 0;
    for (int r = 1; r < n; r++)
        expected += tcp_dir_needed(r, n, tb->tree_k);
    if (expected == 0)
        return SYMM_OK;
    tb->dir = calloc(1, sizeof(*tb->dir));
    if (tb->dir == NULL)
        return SYMM_ERR_NOMEM;
    tb->dir->expected = expected;
    tb->dir->addr = calloc((size_t)n, TCP_ADDR_LEN);
    tb->dir->seen = calloc((size_t)n, 1);
    return tb->dir->addr != NULL && tb->dir->seen != NULL ? SYMM_OK : SYMM_ERR_NOMEM;
}

/* Every rank but 0: find the parent, join it, then accept the children. */
static int join_parent(tcp_boot_t *tb, const symm_boot_tcp_params_t *p)
{
    int nkids = tb->hi - tb->lo, lfd = -1, rc = SYMM_OK;
    char parent_addr[TCP_ADDR_LEN] = "";
    /* Rank 0 waits timeout_s for every PE to register: it reports the
     * missing ones first, then its abort reaches those waiting here. */
    double t0 = symm_boot_now(), T = tb->base.timeout_s;
    double end_up = T > 0 ? t0 + 2 * T : -1.0, end_kids = T > 0 ? t0 + 1.5 * T : -1.0;
    if (tcp_dir_needed(p->rank, p->size, tb->tree_k))
        rc = dir_ask(tb, p->root_addr, nkids > 0 ? &lfd : NULL, parent_addr, end_up);
    if (rc == SYMM_OK)
        rc = symm_tcp_peer_join(tb, parent_addr[0] ? parent_addr : p->root_addr,
                                parent_addr[0] == '\0', end_up);
    /* A PE with children finishes its handshake now: they wait for it, and
     * a refusal shows here. A leaf finishes at its first collective. */
    if (rc == SYMM_OK && tb->hello_due && nkids > 0)
        rc = symm_tcp_peer_finish_join(tb, end_up, t0);
    if (rc == SYMM_OK && nkids > 0)
        return symm_tcp_root_accept(tb, NULL, lfd, end_kids);
    if (lfd >= 0)
        close(lfd);
    return rc;
}

int symm_tree_create(tcp_boot_t *tb, const symm_boot_tcp_params_t *p, double end)
{
    int n = p->size, nkids = tb->hi - tb->lo, rc = SYMM_OK;
    size_t npfd = (size_t)nkids + 2, nrank = p->rank == 0 ? (size_t)n : (size_t)nkids + 1;

    tb->depth = tree_depth(p->rank, tb->tree_k);
    tb->max_depth = tree_depth(n - 1, tb->tree_k);
    tb->peer = malloc((size_t)(nkids > 0 ? nkids : 1) * sizeof(*tb->peer));
    tb->pfd = malloc(npfd * sizeof(*tb->pfd));
    tb->pfd_rank = malloc(nrank * sizeof(*tb->pfd_rank));
    tb->moved = calloc((size_t)nkids + 1, sizeof(*tb->moved));
    tb->hdr = malloc(((size_t)nkids + 1) * TCP_HDR_LEN);
    for (int i = 0; tb->peer != NULL && i < nkids; i++)
        tb->peer[i] = (symm_tcp_conn_t){-1, NULL, POLLIN};
    if (p->rank == 0)
        rc = dir_create(tb);
    if (!tb->peer || !tb->pfd || !tb->pfd_rank || !tb->moved || !tb->hdr || rc != SYMM_OK) {
        symm_error("bootstrap", "out of memory for %d PEs", n);
        if (p->rank == 0 && p->listen_fd >= 0)
            close(p->listen_fd);
        return SYMM_ERR_NOMEM;
    }
    if (n == 1) {
        /* A job of one PE: nobody to wait for. */
        if (p->listen_fd >= 0)
            close(p->listen_fd);
        return SYMM_OK;
    }
    if (nkids > 0)
        symm_info("bootstrap", "tree of fan-out %d: parent PE %d, children %d..%d", tb->tree_k,
                  tb->up_rank, tb->lo, tb->hi - 1);
    else
        symm_info("bootstrap", "tree of fan-out %d: parent PE %d, a leaf", tb->tree_k, tb->up_rank);
    if (p->rank == 0)
        return symm_tcp_root_accept(tb, p->root_addr, p->listen_fd, end);
    return join_parent(tb, p);
}

/* ---- collectives ---------------------------------------------------------------- */

typedef struct tree_op {
    int type;
    size_t len;   /* per PE */
    uint8_t *pre; /* this PE's subtree, preorder */
    double t0, end_kids, end_up;
    char during[48];
} tree_op_t;

/* Child i's header is in: is it the step this PE is in? */
static int kid_check_hdr(tcp_boot_t *tb, const tree_op_t *op, int i, const uint8_t *b,
                         int *culprit_p)
{
    int r = tb->lo + i;
    size_t sub = subtree_size(r, tb->base.size, tb->tree_k);
    tcp_hdr_t h = tcp_hdr_unpack(b);
    if (h.magic == TCP_MAGIC && h.type == op->type && h.seq == tb->seq && h.arg == r &&
        h.len == sub * op->len)
        return SYMM_OK;
    if (h.magic == TCP_MAGIC && (h.type == TCP_MSG_ABORT || h.type == TCP_MSG_REJECT))
        return symm_tree_unexpected(tb, &tb->peer[i], r, 0, b, op->during, culprit_p);
    *culprit_p = r;
    if (h.magic != TCP_MAGIC || h.arg != r) {
        symm_error("bootstrap", "garbled message from PE %d during %s", r, op->during);
    } else if (h.type != op->type || h.seq != tb->seq) {
        symm_error("bootstrap", "mismatched calls: PE %d is in bootstrap %s #%u, PE %d in %s", r,
                   symm_tcp_msg_name(h.type), h.seq, tb->base.rank, op->during);
    } else {
        symm_error("bootstrap",
                   "mismatched calls: PE %d%s gives %llu bytes to %s, PE %d "
                   "gives %zu",
                   r, sub > 1 ? " (with its subtree)" : "", (unsigned long long)(h.len / sub),
                   op->during, tb->base.rank, op->len);
    }
    return SYMM_ERR_BOOT;
}

/* Progress child i's subtree; *done_p once it is all there. */
static int kid_recv_step(tcp_boot_t *tb, const tree_op_t *op, int i, size_t at, int *done_p,
                         int *culprit_p)
{
    symm_tcp_conn_t *c = &tb->peer[i];
    uint8_t *h = tb->hdr + (size_t)i * TCP_HDR_LEN;
    size_t bytes = subtree_size(tb->lo + i, tb->base.size, tb->tree_k) * op->len;
    int io = 1, rc;
    if (tb->moved[i] < TCP_HDR_LEN) {
        io = symm_tcp_conn_recv_some(c, h, TCP_HDR_LEN, &tb->moved[i]);
        if (io == 1 && (rc = kid_check_hdr(tb, op, i, h, culprit_p)) != SYMM_OK)
            return rc;
    }
    if (io == 1 && bytes > 0) {
        size_t off = tb->moved[i] - TCP_HDR_LEN;
        io = symm_tcp_conn_recv_some(c, op->pre + at * op->len, bytes, &off);
        tb->moved[i] = TCP_HDR_LEN + off;
    }
    if (io < 0) {
        *culprit_p = tb->lo + i;
        return symm_tcp_io_report(c, tb->lo + i, io, op->during, 0);
    }
    *done_p = io == 1;
    return SYMM_OK;
}

/* The n ranks of tb->pfd_rank did not come by a deadline op->t0 set: name
 * them (symm_boot_missing). */
static int kids_missing(tcp_boot_t *tb, const tree_op_t *op, int n, const char *what)
{
    char cause[48];
    snprintf(cause, sizeof(cause), "timed out after %.3g s", symm_boot_now() - op->t0);
    return symm_boot_missing(tb->pfd_rank, n, cause, what);
}

/* Gather the children's subtrees into op->pre, watching the parent for an
 * abort meanwhile. *from_p: the rank the failure came from, or -1. */
static int gather(tcp_boot_t *tb, tree_op_t *op, int *culprit_p, int *from_p)
{
    int nkids = tb->hi - tb->lo, n = 0;
    size_t at[TREE_K_MAX];
    size_t pos = 1;
    for (int i = 0; i < nkids; i++) {
        at[i] = pos;
        pos += subtree_size(tb->lo + i, tb->base.size, tb->tree_k);
        /* A header that came while this PE still accepted its children
         * (tcp_accept.c's watch) is checked now; moved[] is 0 otherwise. */
        if (tb->moved[i] >= TCP_HDR_LEN) {
            int rc = kid_check_hdr(tb, op, i, tb->hdr + (size_t)i * TCP_HDR_LEN, culprit_p);
            if (rc != SYMM_OK)
                return rc;
        }
        tb->pfd[n] = (struct pollfd){tb->peer[i].fd, POLLIN, POLLIN};
        tb->pfd_rank[n++] = tb->lo + i;
    }
    /* Every child is tried once before the first poll: a header that came
     * early (and a barrier's whole message) is no longer on the socket. */
    tb->pfd[n] = (struct pollfd){tb->up.fd, POLLIN, 0};
    for (;;) {
        if (tb->pfd[n].revents != 0 && tb->up.fd >= 0) {
            /* Nothing is due from the parent before this PE's part is up. */
            int io = symm_tcp_conn_recv_some(&tb->up, tb->up_hdr, TCP_HDR_LEN, &tb->up_moved);
            if (io != 0) {
                *from_p = tb->up_rank;
                return symm_tree_unexpected(tb, &tb->up, tb->up_rank, io == 1 ? 0 : io, tb->up_hdr,
                                            op->during, culprit_p);
            }
        }
        for (int j = 0; j < n;) {
            int i = tb->pfd_rank[j] - tb->lo, done = 0, rc;
            if (tb->pfd[j].revents == 0) {
                j++;
                continue;
            }
            rc = kid_recv_step(tb, op, i, at[i], &done, culprit_p);
            if (rc != SYMM_OK) {
                /* An abort is not sent back where it came from; a child that
                 * failed otherwise (a mismatch) still hears the abort. */
                const uint8_t *kh = tb->hdr + (size_t)i * TCP_HDR_LEN;
                if (tb->moved[i] >= TCP_HDR_LEN && tcp_hdr_unpack(kh).type == TCP_MSG_ABORT)
                    *from_p = tb->lo + i;
                return rc;
            }
            n = tcp_pfd_step(tb, &j, n, done, &tb->peer[i]);
        }
        if (n == 0)
            return SYMM_OK;
        int pending = 0;
        tb->pfd[n] = (struct pollfd){tb->up.fd, POLLIN, 0};
        for (int i = 0; i < n && !pending; i++)
            pending = symm_tcp_conn_pending(&tb->peer[tb->pfd_rank[i] - tb->lo]);
        pending |= symm_tcp_conn_pending(&tb->up);
        int pr = symm_boot_poll(tb->pfd, (nfds_t)n + 1, pending ? 0.0 : op->end_kids);
        if (pending && pr >= 0) {
            for (int i = 0; i < n; i++)
                if (symm_tcp_conn_pending(&tb->peer[tb->pfd_rank[i] - tb->lo]))
                    tb->pfd[i].revents |= POLLIN;
            if (symm_tcp_conn_pending(&tb->up))
                tb->pfd[n].revents |= POLLIN;
            pr = 1;
        }
        if (pr == 0) {
            char what[96];
            snprintf(what, sizeof(what), "in %s (%s of PE %d in the bootstrap tree)", op->during,
                     n > 1 ? "children" : "a child", tb->base.rank);
            return kids_missing(tb, op, n, what);
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            return SYMM_ERR_SYS;
        }
    }
}

/* Receive the rest of a header from the parent, by op->end_up. */
static int up_recv_hdr(tcp_boot_t *tb, const tree_op_t *op)
{
    for (;;) {
        int io = symm_tcp_conn_recv_some(&tb->up, tb->up_hdr, TCP_HDR_LEN, &tb->up_moved);
        if (io != 0)
            return io == 1 ? 0 : io;
        struct pollfd p = {tb->up.fd, tb->up.want, 0};
        int pr = symm_boot_poll(&p, 1, op->end_up);
        if (pr <= 0)
            return pr == 0 ? SYMM_IO_TIMEOUT : pr;
    }
}

/* Send this PE's subtree up and receive the whole result into out. */
static int up_exchange(tcp_boot_t *tb, tree_op_t *op, void *out, int *culprit_p)
{
    size_t mine = subtree_size(tb->base.rank, tb->base.size, tb->tree_k) * op->len;
    size_t total = (size_t)tb->base.size * op->len;
    uint8_t h[TCP_HDR_LEN];
    int up = tb->up_rank;
    tcp_hdr_pack(h, op->type, tb->seq, tb->base.rank, mine);
    int io = symm_tcp_conn_send_all(&tb->up, h, TCP_HDR_LEN, op->pre, mine, op->end_up);
    if (io == 0 || io == SYMM_IO_EOF || io == -EPIPE || io == -ECONNRESET) {
        /* After a failed send the parent may still have said why. */
        int why = io == 0
                      ? up_recv_hdr(tb, op)
                      : symm_tcp_conn_recv_some(&tb->up, tb->up_hdr, TCP_HDR_LEN, &tb->up_moved);
        if (io == 0 || why == 1)
            io = why == 1 ? 0 : why;
    }
    if (io == SYMM_IO_TIMEOUT) {
        *culprit_p = up;
        symm_error("bootstrap",
                   "timed out after %.3g s waiting for PE %d (the parent in the "
                   "bootstrap tree) in %s",
                   symm_boot_now() - op->t0, up, op->during);
        return SYMM_ERR_TIMEOUT;
    }
    if (io != 0)
        return symm_tree_unexpected(tb, &tb->up, up, io, tb->up_hdr, op->during, culprit_p);
    tcp_hdr_t r = tcp_hdr_unpack(tb->up_hdr);
    tb->up_moved = 0;
    if (r.magic != TCP_MAGIC || r.type != op->type || r.seq != tb->seq || r.len != total) {
        if (r.magic == TCP_MAGIC && (r.type == TCP_MSG_ABORT || r.type == TCP_MSG_REJECT))
            return symm_tree_unexpected(tb, &tb->up, up, 0, tb->up_hdr, op->during, culprit_p);
        *culprit_p = up;
        symm_error("bootstrap", "PE %d answered %s #%u (%llu bytes) to %s (%zu bytes)", up,
                   symm_tcp_msg_name(r.type), r.seq, (unsigned long long)r.len, op->during, total);
        return SYMM_ERR_BOOT;
    }
    io = total > 0 ? symm_tcp_conn_recv_all(&tb->up, out, total, op->end_up) : 0;
    if (io != 0) {
        *culprit_p = up;
        return symm_tcp_io_report(&tb->up, up, io, op->during, symm_boot_now() - op->t0);
    }
    return SYMM_OK;
}

/* Send the result to every child at once, as fast as each one takes it. */
static int scatter(tcp_boot_t *tb, const tree_op_t *op, const void *data, int *culprit_p)
{
    size_t total = (size_t)tb->base.size * op->len;
    int nkids = tb->hi - tb->lo, n = 0;
    uint8_t h[TCP_HDR_LEN];
    tcp_hdr_pack(h, op->type, tb->seq, 0, total);
    for (int i = 0; i < nkids; i++) {
        tb->moved[i] = 0;
        tb->pfd[n] = (struct pollfd){tb->peer[i].fd, POLLOUT, POLLOUT};
        tb->pfd_rank[n++] = tb->lo + i;
    }
    for (;;) {
        for (int j = 0; j < n;) {
            int i = tb->pfd_rank[j] - tb->lo;
            if (tb->pfd[j].revents == 0) {
                j++;
                continue;
            }
            int io =
                symm_tcp_conn_send_some(&tb->peer[i], h, TCP_HDR_LEN, data, total, &tb->moved[i]);
            if (io < 0) {
                *culprit_p = tb->lo + i;
                return symm_tcp_io_report(&tb->peer[i], tb->lo + i, io, op->during, 0);
            }
            n = tcp_pfd_step(tb, &j, n, io == 1, &tb->peer[i]);
        }
        if (n == 0) {
            for (int i = 0; i < nkids; i++)
                tb->moved[i] = 0; /* for the next gather */
            return SYMM_OK;
        }
        int pr = symm_boot_poll(tb->pfd, (nfds_t)n, op->end_up);
        if (pr == 0) {
            char what[80];
            snprintf(what, sizeof(what), "to take the result of %s", op->during);
            return kids_missing(tb, op, n, what);
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            return SYMM_ERR_SYS;
        }
    }
}

int symm_tree_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len)
{
    double T = tb->base.timeout_s;
    size_t total = (size_t)tb->base.size * len;
    int culprit = -1, from = -1, rc;
    tree_op_t op = {.type = type, .len = len, .pre = out, .t0 = symm_boot_now()};
    /* Nearer the leaves gives up first (the header comment). */
    op.end_kids = T > 0 ? op.t0 + T * (1 + 0.25 * (tb->max_depth - 1 - tb->depth)) : -1.0;
    op.end_up = T > 0 ? op.t0 + T * (2 + 0.25 * tb->max_depth) : -1.0;
    snprintf(op.during, sizeof(op.during), "%s #%u", symm_tcp_msg_name(type), tb->seq);

    if (tb->base.rank == 0 && len > 0 && (op.pre = malloc(total)) == NULL) {
        symm_error("bootstrap", "out of memory for an allgather of %zu bytes", total);
        rc = SYMM_ERR_NOMEM;
        goto err_abort;
    }
    if (len > 0)
        memmove(op.pre, in, len);
    rc = gather(tb, &op, &culprit, &from);
    if (rc != SYMM_OK)
        goto err_abort;
    if (tb->hello_due && (rc = symm_tcp_peer_finish_join(tb, op.end_up, op.t0)) != SYMM_OK) {
        from = tb->up_rank;
        goto err_abort;
    }
    if (tb->base.rank != 0) {
        rc = up_exchange(tb, &op, out, &culprit);
        if (rc != SYMM_OK) {
            from = tb->up_rank;
            goto err_abort;
        }
    } else if (len > 0) {
        size_t pos = 0;
        preorder_place(op.pre, out, len, 0, tb->base.size, tb->tree_k, &pos);
        free(op.pre);
        op.pre = NULL;
    }
    rc = scatter(tb, &op, out, &culprit);
    if (rc != SYMM_OK) {
        symm_tree_abort(tb, culprit, rc, 0, -1, tb->moved, total);
        return rc;
    }
    return SYMM_OK;

err_abort:
    if (tb->base.rank == 0 && op.pre != out)
        free(op.pre);
    /* Not back where it came from; a parent that broke is not told. */
    symm_tree_abort(tb, culprit, rc, from >= 0 && from == tb->up_rank, from, NULL, 0);
    return rc;
}
