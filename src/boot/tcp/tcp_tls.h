/*
 * tcp_tls.h - TLS 1.3 sessions over the TCP bootstrap's sockets (OpenSSL).
 *
 * Private to src/boot/tcp/. Both ends of every link of the tree (tcp_accept.c,
 * tcp_hello.c) wrap each connection in a symm_tls_t after connect/accept;
 * tcp_conn.c reads and writes through it. Everything is non-blocking: a
 * call that cannot go on says which poll() event it waits for, and the
 * caller bounds the wait with its deadline. The mode comes from the
 * settings (boot/tls.h). In a build without OpenSSL (no SYMM_HAVE_TLS) every
 * constructor fails.
 *
 * Must never: raise SIGPIPE (its socket BIO sends with MSG_NOSIGNAL), block,
 * log from the I/O calls (the caller knows the PE; symm_tls_error says what
 * failed), or keep key material beyond the objects that need it.
 */
#ifndef SYMM_BOOT_TCP_TLS_H
#define SYMM_BOOT_TCP_TLS_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/status.h"

/* ---- contexts and sessions ---------------------------------------------- */

typedef struct symm_tls_ctx symm_tls_ctx_t;
typedef struct symm_tls symm_tls_t;

/* A context for one bootstrap: mode SYMM_TLS_PSK or SYMM_TLS_CERT, server
 * (rank 0) or client, secret the job secret (32 hex characters). Loads the
 * certificate files in certificate mode. Logs its failures. */
SYMM_MUST_CHECK int symm_tls_ctx_create(int mode, int server, const char *secret,
                                        symm_tls_ctx_t **ctx_p);
void symm_tls_ctx_destroy(symm_tls_ctx_t *ctx);
/* "TLS 1.3, pre-shared key from the job secret (TLS_AES_128_GCM_SHA256)"... */
const char *symm_tls_ctx_describe(const symm_tls_ctx_t *ctx);

/* A session over the connected non-blocking socket fd (not taken over:
 * symm_tls_free leaves it open). */
SYMM_MUST_CHECK int symm_tls_new(symm_tls_ctx_t *ctx, int fd, symm_tls_t **t_p);
void symm_tls_free(symm_tls_t *t);

/* Results of the calls below: as tcp_conn.h (1 done or > 0 bytes, 0 would
 * block, SYMM_IO_EOF, -errno) plus SYMM_IO_TLS (tcp_conn.h), a TLS failure
 * that symm_tls_error describes. After a 0, *want is POLLIN or POLLOUT. */
int symm_tls_handshake(symm_tls_t *t, short *want);
long symm_tls_read(symm_tls_t *t, void *buf, size_t n, short *want);
long symm_tls_write(symm_tls_t *t, const void *buf, size_t n, short *want);
/* Client of PSK mode: its first bytes as 0-RTT early data, sent with the
 * ClientHello without waiting for the server (symm_tls_can_early). After the
 * handshake, symm_tls_early_accepted says whether the server took them (if
 * not, they must be sent again). On the server, symm_tls_read returns early
 * data first, then the rest of the stream. */
int symm_tls_can_early(const symm_tls_ctx_t *ctx);
long symm_tls_write_early(symm_tls_t *t, const void *buf, size_t n, short *want);
int symm_tls_early_accepted(const symm_tls_t *t);
/* Decrypted bytes waiting in the session, which poll() cannot see. */
int symm_tls_pending(const symm_tls_t *t);

/* Why the last call failed: OpenSSL's reason ("certificate verify failed",
 * "tlsv1 alert unknown ca", ...); never NULL. */
const char *symm_tls_error(const symm_tls_t *t);
/* The failure says the two sides hold different pre-shared keys: a wrong
 * job secret (the server's binder check, or the client seeing its alert). */
int symm_tls_failed_on_secret(const symm_tls_t *t);
/* The first bytes from the other side were a plain symm bootstrap message
 * (TCP_MAGIC): it runs without TLS. */
int symm_tls_saw_plain(const symm_tls_t *t);

#ifdef SYMM_HAVE_TLS
/* Between tcp_tls.c and tcp_tls_conf.c. */
struct ssl_ctx_st;
/* Certificate mode: the settings' certificate, private key, CAs and CRLs
 * into ctx, and its description into desc[cap]. Logs its failures
 * (SYMM_ERR_INVALID). */
SYMM_MUST_CHECK int symm_tls_conf_load_certs(struct ssl_ctx_st *ctx, char *desc, size_t cap);
/* Log "TLS: what arg: <OpenSSL's errors>", emptying OpenSSL's queue. */
void symm_tls_ssl_fail(const char *what, const char *arg);
#endif

#endif
