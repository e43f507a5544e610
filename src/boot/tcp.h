/*
 * tcp.h - what tcp.c (the star collectives) and tcp_hello.c (joining the
 * star) share: the wire format and the bootstrap object. Private to them.
 *
 * Wire format. Every message starts with a 24-byte header, big-endian:
 *   magic u32 | version u16 | type u16 | seq u32 | arg i32 | len u64
 * hello:     arg = rank, len = size, then the 32-byte secret; seq 0
 * barrier:   arg = the sender's rank, len 0; rank 0's reply has arg 0
 * allgather: arg = the sender's rank, len = blob length, then the blob;
 *            rank 0's reply has len = size * blob length, then every blob
 * reject:    arg = reason (TCP_REJECT_*); rank 0 closes the connection next
 * abort:     arg = culprit rank or -1, len = -status: rank 0 gave up
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

enum { TCP_MSG_HELLO = 1, TCP_MSG_BARRIER, TCP_MSG_ALLGATHER, TCP_MSG_REJECT, TCP_MSG_ABORT };
enum { TCP_REJECT_PROTOCOL = 1, TCP_REJECT_VERSION, TCP_REJECT_SECRET, TCP_REJECT_TLS };

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
    symm_boot_conn_t root;  /* other ranks: the connection to rank 0 */
    symm_boot_conn_t *peer; /* rank 0: connection of each rank; [0].fd is -1 */
    int tls_mode;       /* SYMM_TLS_* */
    symm_tls_ctx_t *tls; /* NULL when TLS is off (or a job of one PE) */
    int hello_due;      /* other ranks with a PSK: the handshake (and the
                         * hello if rank 0 refused it as early data) come at
                         * the first collective, so that create never waits
                         * for rank 0 (as the plain hello does not) */
    uint32_t seq;       /* number of the current collective */
    int failed;         /* first failure; later calls return it without a word */
    struct pollfd *pfd; /* rank 0: scratch for one step, sized for the job */
    int *pfd_rank;
    size_t *moved;
    uint8_t *hdr;       /* rank 0: TCP_HDR_LEN per rank */
} tcp_boot_t;

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
    }
    return "unknown reason";
}

/* tcp_hello.c. Rank 0: listen on root_addr unless lfd >= 0 is given, and
 * accept until every other rank has presented the secret; lfd is closed on
 * return. Logs its failures. */
int symm_tcp_root_accept(tcp_boot_t *tb, const char *root_addr, int lfd, double end);
/* Other ranks: connect to rank 0 (retrying while it does not listen yet) and
 * say hello: plain, as TLS early data with a PSK (leaving tb->hello_due set),
 * or after the whole handshake with certificates. Logs its failures. */
int symm_tcp_peer_join(tcp_boot_t *tb, const char *root_addr, double end);
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
/* Rank 0 timed out waiting for the npend ranks in tb->pfd_rank: log them. */
int symm_tcp_root_timeout(tcp_boot_t *tb, int npend, const char *what);

#endif
