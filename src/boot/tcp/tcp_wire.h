/*
 * tcp_wire.h - the wire format of the TCP bootstrap (a K-ary tree).
 *
 * Private to src/boot/tcp/. Packing and unpacking only; nothing here does
 * I/O or logs.
 *
 * Wire format. Every message starts with a 24-byte header, big-endian:
 *   magic u32 | version u16 | type u16 | seq u32 | arg i32 | len u64
 * hello:     arg = rank, len = size, then the 32-byte secret; seq = the tree's
 *            fan-out K (a PE whose setting differs is named)
 * barrier:   arg = the sender's rank, len 0; rank 0's reply has arg 0
 * allgather: arg = the sender's rank, len = blob length, then the blob;
 *            rank 0's reply has len = size * blob length, then every blob
 * reject:    arg = reason (TCP_REJECT_*); rank 0 closes the connection next
 * abort:     arg = culprit rank or -1, len = -status: rank 0 gave up (in the
 *            tree: any PE, up to its parent and down to its children)
 * dir:       the tree's directory (tcp_tree.c), plain TCP to rank 0: seq = K,
 *            arg = rank, len = size, then TCP_DIR_BODY bytes: a MAC of the
 *            fields under the job secret (32), the TLS mode (u32), the
 *            sender's listening address (NUL-padded, empty for a leaf).
 *            Rank 0's answer has the same layout: arg = the parent's rank,
 *            its address (empty: rank 0's own), its MAC.
 * magic and version stay where they are in every future version, so that
 * any version can tell another one apart.
 *
 * TLS (tcp_tls.h; on by default when built with OpenSSL): every connection is
 * TLS 1.3 from its first byte, the messages above travel inside it
 * unchanged, the hello (and the secret in it) included: as 0-RTT early data
 * with a pre-shared key, after the handshake with certificates. Without TLS
 * the bytes are exactly the above. The first byte tells the two apart (0x16, a
 * TLS handshake record, against 'S' of the magic), which lets rank 0 name a
 * PE whose TLS setting differs from its own instead of timing out: it fails
 * the job once that PE has proven it holds the secret (a plain hello with
 * it, or a completed PSK handshake), and refuses anything else.
 */
#ifndef SYMM_BOOT_TCP_WIRE_H
#define SYMM_BOOT_TCP_WIRE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#define TCP_MAGIC 0x53594d42u /* "SYMB" */
#define TCP_VERSION 2
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

typedef struct tcp_hdr {
    uint32_t magic;
    uint16_t version;
    uint16_t type;
    uint32_t seq;
    int32_t arg;
    uint64_t len;
} tcp_hdr_t;

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
        return "bootstrap tree of another fan-out on the two PEs (set "
               "SYMM_BOOT_TREE_K alike on every PE)";
    }
    return "unknown reason";
}

/* "hello", "barrier", ...: a message type's name, for messages. */
const char *symm_tcp_msg_name(int type);

#endif
