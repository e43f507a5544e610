/*
 * tcp_hello.c - joining the TCP bootstrap: connect to the parent in the
 * tree, and say hello.
 *
 * Owns the joining side of the connection phase: the hello every rank but 0
 * sends (magic, version, rank, size, the tree's fan-out, job secret;
 * tcp_wire.h) and its TLS handshake. With a pre-shared key the hello goes
 * out as 0-RTT early data with the ClientHello and a leaf finishes the
 * handshake at its first collective, so that creation waits for the parent
 * no more than without TLS; with certificates (no early data) the handshake
 * and the hello come at creation. A refusal (a reject message, a TLS alert)
 * is then read at the first collective, where the parent's answer is read,
 * and named as precisely as this side can tell. The accepting side is
 * tcp_accept.c's.
 *
 * Must never wait past the deadline, or raise SIGPIPE.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/boot_io.h"
#include "boot/tcp/tcp_priv.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <string.h>

void symm_tcp_hello_pack(const tcp_boot_t *tb, uint8_t *hello)
{
    tcp_hdr_pack(hello, TCP_MSG_HELLO, (uint32_t)tb->tree_k, tb->base.rank,
                 (uint64_t)tb->base.size);
    memcpy(hello + TCP_HDR_LEN, tb->secret, TCP_SECRET_LEN);
}

/* The TLS handshake with the parent failed with io: say why, as precisely as
 * this side can tell. */
static int peer_handshake_failed(tcp_boot_t *tb, int io, double waited_s)
{
    symm_tls_t *t = tb->up.tls;
    int up = tb->up_rank;
    if (symm_tls_saw_plain(t)) {
        symm_error("bootstrap",
                   "PE %d answered without TLS: bootstrap TLS is off on PE %d and on "
                   "here (turn it on or off alike on every PE: SYMM_BOOT_TLS, "
                   "aclshmemx_set_conf_store_tls)",
                   up, up);
        return SYMM_ERR_BOOT;
    }
    if (io == SYMM_IO_TLS && symm_tls_failed_on_secret(t)) {
        symm_error("bootstrap",
                   "PE %d refused this PE's connection: %s (TLS handshake failed: "
                   "PE %d rejected this PE's pre-shared key: %s)%s",
                   up, tcp_reject_text(TCP_REJECT_SECRET), up, symm_tls_error(t),
                   up != 0 ? " (or the directory gave a wrong address for it)" : "");
        return SYMM_ERR_BOOT;
    }
    if (io == SYMM_IO_TLS) {
        symm_error("bootstrap",
                   "TLS handshake with PE %d failed (wrong job secret or "
                   "certificate, or TLS settings that differ between PEs%s): %s",
                   up, up != 0 ? ", or a wrong address from the directory" : "",
                   symm_tls_error(t));
        return SYMM_ERR_BOOT;
    }
    return symm_tcp_io_report(&tb->up, up, io, "the TLS handshake", waited_s);
}

int symm_tcp_peer_join(tcp_boot_t *tb, const char *addr, int retry, double end)
{
    uint8_t hello[TCP_HELLO_LEN];
    int rc = symm_tcp_connect(addr, tb->up_rank, retry, end, &tb->up.fd);
    if (rc != SYMM_OK)
        return rc;
    symm_tcp_hello_pack(tb, hello);
    if (tb->tls_cli != NULL) {
        rc = symm_tls_new(tb->tls_cli, tb->up.fd, &tb->up.tls);
        if (rc != SYMM_OK)
            return rc;
        tb->hello_due = 1;
        if (!symm_tls_can_early(tb->tls_cli))
            return symm_tcp_peer_finish_join(tb, end, symm_boot_now());
        /* Out go the ClientHello and the hello as early data; rank 0
         * answers when it gets to it, and this PE reads the answer at its
         * first collective. */
        size_t off = 0;
        for (;;) {
            long k =
                symm_tls_write_early(tb->up.tls, hello + off, TCP_HELLO_LEN - off, &tb->up.want);
            if (k > 0 && (off += (size_t)k) == TCP_HELLO_LEN)
                return SYMM_OK;
            if (k < 0)
                return peer_handshake_failed(tb, (int)k, 0);
            if (k == 0) {
                struct pollfd p = {tb->up.fd, tb->up.want, 0};
                int pr = symm_boot_poll(&p, 1, end);
                if (pr <= 0)
                    return symm_tcp_io_report(&tb->up, tb->up_rank, pr == 0 ? SYMM_IO_TIMEOUT : pr,
                                              "hello", tb->base.timeout_s);
            }
        }
    }
    /* A fresh socket takes 56 bytes at once; a refusal shows at the first
     * collective, where rank 0's answer is read. */
    int io = symm_tcp_conn_send_all(&tb->up, hello, TCP_HELLO_LEN, NULL, 0, end);
    if (io != 0)
        return symm_tcp_io_report(&tb->up, tb->up_rank, io, "hello", tb->base.timeout_s);
    return SYMM_OK;
}

int symm_tcp_peer_finish_join(tcp_boot_t *tb, double end, double t0)
{
    uint8_t hello[TCP_HELLO_LEN];
    for (;;) {
        int io = symm_tls_handshake(tb->up.tls, &tb->up.want);
        if (io == 1)
            break;
        if (io == 0) {
            struct pollfd p = {tb->up.fd, tb->up.want, 0};
            int pr = symm_boot_poll(&p, 1, end);
            if (pr > 0)
                continue;
            io = pr == 0 ? SYMM_IO_TIMEOUT : pr;
        }
        return peer_handshake_failed(tb, io, symm_boot_now() - t0);
    }
    tb->hello_due = 0;
    if (symm_tls_early_accepted(tb->up.tls))
        return SYMM_OK;
    /* No early data (certificates), or rank 0 did not take it. */
    symm_tcp_hello_pack(tb, hello);
    int io = symm_tcp_conn_send_all(&tb->up, hello, TCP_HELLO_LEN, NULL, 0, end);
    /* Rank 0 may have judged this side's certificate and closed already:
     * its alert is read at the first collective, which tells why. */
    if (io != 0 && io != SYMM_IO_EOF && io != -EPIPE && io != -ECONNRESET)
        return symm_tcp_io_report(&tb->up, tb->up_rank, io, "hello", symm_boot_now() - t0);
    return SYMM_OK;
}
