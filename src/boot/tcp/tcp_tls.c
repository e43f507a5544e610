/*
 * tcp_tls.c - TLS 1.3 over the TCP bootstrap's sockets (OpenSSL): contexts
 * and sessions.
 *
 * Owns the OpenSSL contexts of the two modes and the sessions over the
 * bootstrap's sockets (tcp_tls.h for the contract); the settings that choose
 * the mode, and certificate mode's files, are tcp_tls_conf.c's.
 *
 * Pre-shared-key mode: the PSK is HKDF-SHA256(job secret, info "symm
 * bootstrap psk"), offered by the client under identity "symm-boot" as an
 * external TLS 1.3 PSK (psk_dhe_ke: an ECDHE exchange as well, so a leaked
 * secret does not decrypt recorded jobs); the server finds it by identity.
 * A peer without the secret fails the binder check, so the server refuses
 * it before any application byte is read. No certificates, no tickets.
 * The client sends its first message (the bootstrap hello) as 0-RTT early
 * data, protected by the PSK: like the plain hello it needs no answer, so a
 * PE's bootstrap creation never waits for rank 0, and rank 0 knows each
 * connection's rank as early as without TLS. The server reads early data
 * and then the rest as one stream. Early data can be replayed by someone on
 * the path (to no gain but a failed job: a replayed hello cannot finish its
 * handshake, and nothing is read past it before the handshake completes).
 *
 * Certificate mode: mutual verification against the configured CA(s), with
 * optional CRLs; the private key may be encrypted (password or decrypt
 * handler).
 *
 * The sockets are driven through a BIO of our own: send(MSG_NOSIGNAL |
 * MSG_DONTWAIT) and recv(MSG_DONTWAIT), so that nothing raises SIGPIPE, and
 * so that the first bytes from the other side can be recognised as a plain
 * symm message (a PE without TLS) for a clear error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#endif
#include "boot/tcp/tcp_tls.h"
#include "boot/tcp/tcp_conn.h"
#include "boot/tcp/tcp_wire.h"
#include "boot/tls.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifdef SYMM_HAVE_TLS
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#endif

#define PSK_IDENTITY "symm-boot"
#define PSK_LABEL "symm bootstrap psk"
#define PSK_LEN 32
#define EARLY_MAX 1024 /* 0-RTT bytes: the 56-byte hello */

#ifdef SYMM_HAVE_TLS

/* ---- contexts ---------------------------------------------------------- */

struct symm_tls_ctx {
    SSL_CTX *ctx;
    int mode;
    int server;
    SSL_SESSION *psk;       /* PSK mode: the session the PSK lives in */
    char desc[320];
};

struct symm_tls {
    SSL *ssl;
    BIO *bio;
    symm_tls_ctx_t *ctx;
    int fd;
    int err;                /* errno of the last failed socket call */
    int eof;
    int early;              /* server: early data may still come (SSL_read_early_data) */
    int secret;             /* the failure was a PSK mismatch */
    uint8_t first[4];       /* first bytes from the other side */
    size_t nfirst;
    char why[200];
};

/* OpenSSL's error queue as text ("a; b"), emptied. */
static void ssl_errors(char *buf, size_t cap)
{
    size_t off = 0;
    unsigned long e;
    buf[0] = '\0';
    while ((e = ERR_get_error()) != 0) {
        const char *r = ERR_SYSTEM_ERROR(e) ? strerror(ERR_GET_REASON(e))
                                            : ERR_reason_error_string(e);
        char tmp[64];
        if (r != NULL && !strcmp(r, "system lib"))
            continue; /* the errno entry next to it says more */
        if (r == NULL) {
            snprintf(tmp, sizeof(tmp), "error %lu", e);
            r = tmp;
        }
        if (off + strlen(r) + 3 < cap && !strstr(buf, r))
            off += (size_t)snprintf(buf + off, cap - off, "%s%s", off ? "; " : "", r);
    }
    if (off == 0)
        snprintf(buf, cap, "unknown OpenSSL error");
}

void symm_tls_ssl_fail(const char *what, const char *arg)
{
    char why[256];
    ssl_errors(why, sizeof(why));
    symm_error("bootstrap", "TLS: %s%s%s: %s", what, arg ? " " : "", arg ? arg : "", why);
}

static int psk_use_cb(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
                      SSL_SESSION **sess)
{
    symm_tls_ctx_t *c = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
    const SSL_CIPHER *cipher = SSL_SESSION_get0_cipher(c->psk);
    *sess = NULL;
    *id = NULL;
    *idlen = 0;
    if (md != NULL && md != SSL_CIPHER_get_handshake_digest(cipher))
        return 1; /* not usable with the suite chosen: offer none */
    if (!SSL_SESSION_up_ref(c->psk))
        return 0;
    *sess = c->psk;
    *id = (const unsigned char *)PSK_IDENTITY;
    *idlen = strlen(PSK_IDENTITY);
    return 1;
}

static int psk_find_cb(SSL *ssl, const unsigned char *id, size_t idlen, SSL_SESSION **sess)
{
    symm_tls_ctx_t *c = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
    *sess = NULL;
    if (idlen != strlen(PSK_IDENTITY) || memcmp(id, PSK_IDENTITY, idlen) != 0)
        return 1; /* unknown identity: no PSK, and without a certificate no handshake */
    if (!SSL_SESSION_up_ref(c->psk))
        return 0;
    *sess = c->psk;
    return 1;
}

static int make_psk(symm_tls_ctx_t *c, const char *secret)
{
    unsigned char key[PSK_LEN];
    static const unsigned char suite[2] = {0x13, 0x01}; /* TLS_AES_128_GCM_SHA256 */
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *kc = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, TCP_SECRET_LEN),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)PSK_LABEL,
                                          strlen(PSK_LABEL)),
        OSSL_PARAM_construct_end(),
    };
    int ok = kc != NULL && EVP_KDF_derive(kc, key, sizeof(key), params) == 1;
    EVP_KDF_CTX_free(kc);
    EVP_KDF_free(kdf);
    if (!ok) {
        symm_tls_ssl_fail("cannot derive the pre-shared key", NULL);
        return SYMM_ERR_SYS;
    }
    SSL *tmp = SSL_new(c->ctx);
    const SSL_CIPHER *cipher = tmp ? SSL_CIPHER_find(tmp, suite) : NULL;
    c->psk = SSL_SESSION_new();
    ok = cipher != NULL && c->psk != NULL &&
         SSL_SESSION_set1_master_key(c->psk, key, sizeof(key)) &&
         SSL_SESSION_set_cipher(c->psk, cipher) &&
         SSL_SESSION_set_protocol_version(c->psk, TLS1_3_VERSION) &&
         SSL_SESSION_set_max_early_data(c->psk, EARLY_MAX) &&
         (!c->server || (SSL_CTX_set_max_early_data(c->ctx, EARLY_MAX) &&
                         SSL_CTX_set_recv_max_early_data(c->ctx, EARLY_MAX)));
    SSL_free(tmp);
    OPENSSL_cleanse(key, sizeof(key));
    if (!ok) {
        symm_tls_ssl_fail("cannot make the pre-shared-key session", NULL);
        return SYMM_ERR_SYS;
    }
    SSL_CTX_set_psk_use_session_callback(c->ctx, psk_use_cb);
    SSL_CTX_set_psk_find_session_callback(c->ctx, psk_find_cb);
    /* A server that declines the PSK and shows a certificate instead (one
     * with certificates, or one without the secret) fails verification: no
     * CA is trusted here. */
    if (!c->server)
        SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
    return SYMM_OK;
}

int symm_tls_ctx_create(int mode, int server, const char *secret, symm_tls_ctx_t **ctx_p)
{
    symm_tls_ctx_t *c = calloc(1, sizeof(*c));
    int rc = SYMM_ERR_SYS;
    if (c == NULL) {
        symm_error("bootstrap", "out of memory");
        return SYMM_ERR_NOMEM;
    }
    c->mode = mode;
    c->server = server;
    ERR_clear_error();
    c->ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (c->ctx == NULL) {
        symm_tls_ssl_fail("cannot create a context", NULL);
        goto err;
    }
    SSL_CTX_set_app_data(c->ctx, c);
    if (SSL_CTX_set_min_proto_version(c->ctx, TLS1_3_VERSION) != 1 ||
        SSL_CTX_set_max_proto_version(c->ctx, TLS1_3_VERSION) != 1 ||
        SSL_CTX_set_ciphersuites(c->ctx, mode == SYMM_TLS_PSK
                                             ? "TLS_AES_128_GCM_SHA256"
                                             : "TLS_AES_128_GCM_SHA256:"
                                               "TLS_AES_256_GCM_SHA384:"
                                               "TLS_CHACHA20_POLY1305_SHA256") != 1) {
        symm_tls_ssl_fail("cannot restrict the context to TLS 1.3", NULL);
        goto err;
    }
    /* One connection per PE, never resumed: no tickets, no session cache. */
    SSL_CTX_set_num_tickets(c->ctx, 0);
    SSL_CTX_set_session_cache_mode(c->ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(c->ctx, SSL_OP_NO_TICKET | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(c->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (mode == SYMM_TLS_PSK) {
        if ((rc = make_psk(c, secret)) != SYMM_OK)
            goto err;
        snprintf(c->desc, sizeof(c->desc), "on: TLS 1.3, pre-shared key from the job secret "
                 "(TLS_AES_128_GCM_SHA256, ECDHE)");
    } else if (mode == SYMM_TLS_CERT) {
        if ((rc = symm_tls_conf_load_certs(c->ctx, c->desc, sizeof(c->desc))) != SYMM_OK)
            goto err;
    } else {
        symm_error("bootstrap", "TLS: no context for mode %d", mode);
        rc = SYMM_ERR_INVALID;
        goto err;
    }
    *ctx_p = c;
    return SYMM_OK;
err:
    symm_tls_ctx_destroy(c);
    return rc;
}

void symm_tls_ctx_destroy(symm_tls_ctx_t *c)
{
    if (c == NULL)
        return;
    SSL_SESSION_free(c->psk);
    SSL_CTX_free(c->ctx);
    free(c);
}

const char *symm_tls_ctx_describe(const symm_tls_ctx_t *c) { return c->desc; }

/* ---- the socket BIO ----------------------------------------------------- */

static BIO_METHOD *sock_meth;
static pthread_once_t sock_meth_once = PTHREAD_ONCE_INIT;

static int bio_write(BIO *b, const char *buf, int len)
{
    symm_tls_t *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    for (;;) {
        ssize_t k = send(t->fd, buf, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k >= 0)
            return (int)k;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            BIO_set_retry_write(b);
        else
            t->err = errno;
        return -1;
    }
}

static int bio_read(BIO *b, char *buf, int len)
{
    symm_tls_t *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    for (;;) {
        ssize_t k = recv(t->fd, buf, (size_t)len, MSG_DONTWAIT);
        if (k > 0) {
            for (ssize_t i = 0; i < k && t->nfirst < sizeof(t->first); i++)
                t->first[t->nfirst++] = (uint8_t)buf[i];
            return (int)k;
        }
        if (k == 0) {
            t->eof = 1;
            return 0;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            BIO_set_retry_read(b);
        else
            t->err = errno;
        return -1;
    }
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    symm_tls_t *t = BIO_get_data(b);
    (void)num;
    (void)ptr;
    switch (cmd) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_EOF: return t != NULL && t->eof;
    }
    return 0;
}

static void sock_meth_init(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "symm socket");
    if (m != NULL && (!BIO_meth_set_write(m, bio_write) || !BIO_meth_set_read(m, bio_read) ||
                      !BIO_meth_set_ctrl(m, bio_ctrl))) {
        BIO_meth_free(m);
        m = NULL;
    }
    sock_meth = m;
}

/* ---- sessions ----------------------------------------------------------- */

int symm_tls_new(symm_tls_ctx_t *ctx, int fd, symm_tls_t **t_p)
{
    symm_tls_t *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        symm_error("bootstrap", "out of memory");
        return SYMM_ERR_NOMEM;
    }
    pthread_once(&sock_meth_once, sock_meth_init);
    t->ctx = ctx;
    t->fd = fd;
    ERR_clear_error();
    t->ssl = SSL_new(ctx->ctx);
    t->bio = sock_meth ? BIO_new(sock_meth) : NULL;
    if (t->ssl == NULL || t->bio == NULL) {
        symm_tls_ssl_fail("cannot create a session", NULL);
        BIO_free(t->bio);
        SSL_free(t->ssl);
        free(t);
        return SYMM_ERR_NOMEM;
    }
    BIO_set_data(t->bio, t);
    BIO_set_init(t->bio, 1);
    SSL_set_bio(t->ssl, t->bio, t->bio); /* the session owns the BIO now */
    if (ctx->server)
        SSL_set_accept_state(t->ssl);
    else
        SSL_set_connect_state(t->ssl);
    t->early = ctx->server && ctx->mode == SYMM_TLS_PSK;
    *t_p = t;
    return SYMM_OK;
}

void symm_tls_free(symm_tls_t *t)
{
    if (t == NULL)
        return;
    SSL_free(t->ssl);
    free(t);
}

/* Turn a failed call into a result of tls.h, noting why. */
static long fail(symm_tls_t *t, int ok_ret, short *want)
{
    int e = SSL_get_error(t->ssl, ok_ret);
    switch (e) {
    case SSL_ERROR_WANT_READ:
        *want = POLLIN;
        return 0;
    case SSL_ERROR_WANT_WRITE:
        *want = POLLOUT;
        return 0;
    case SSL_ERROR_ZERO_RETURN:
        ERR_clear_error();
        return SYMM_IO_EOF;
    case SSL_ERROR_SYSCALL:
        if (t->err != 0) {
            ERR_clear_error();
            return -t->err;
        }
        if (ERR_peek_error() == 0)
            return SYMM_IO_EOF;
        break;
    }
    unsigned long first = ERR_peek_error();
    ssl_errors(t->why, sizeof(t->why));
    if (ERR_GET_LIB(first) == ERR_LIB_SSL) {
        int r = ERR_GET_REASON(first);
        /* A wrong PSK fails the server's binder check, which OpenSSL
         * answers with an illegal_parameter alert (decrypt_error in other
         * TLS stacks). */
        if (t->ctx->mode == SYMM_TLS_PSK &&
            (r == SSL_R_BINDER_DOES_NOT_VERIFY || r == SSL_R_TLSV1_ALERT_DECRYPT_ERROR ||
             (!t->ctx->server && r == SSL_R_SSLV3_ALERT_ILLEGAL_PARAMETER)))
            t->secret = 1;
        if (r == SSL_R_CERTIFICATE_VERIFY_FAILED) {
            long v = SSL_get_verify_result(t->ssl);
            size_t n = strlen(t->why);
            if (v != X509_V_OK && n + 8 < sizeof(t->why))
                snprintf(t->why + n, sizeof(t->why) - n, " (%s)", X509_verify_cert_error_string(v));
        }
    }
    return SYMM_IO_TLS;
}

int symm_tls_handshake(symm_tls_t *t, short *want)
{
    ERR_clear_error();
    t->err = 0;
    int r = SSL_do_handshake(t->ssl);
    if (r != 1)
        return (int)fail(t, r, want);
    /* Authenticated by the PSK, or not at all: never talk to a server that
     * got around it (the verification above already refuses that). */
    if (t->ctx->mode == SYMM_TLS_PSK && !SSL_session_reused(t->ssl)) {
        snprintf(t->why, sizeof(t->why), "the other side did not use the job's pre-shared key");
        return SYMM_IO_TLS;
    }
    return 1;
}

long symm_tls_read(symm_tls_t *t, void *buf, size_t n, short *want)
{
    size_t got = 0;
    ERR_clear_error();
    t->err = 0;
    while (t->early) {
        /* Until the client's early data ends (EndOfEarlyData, or none was
         * sent), only SSL_read_early_data may read. */
        int r = SSL_read_early_data(t->ssl, buf, n, &got);
        if (r == SSL_READ_EARLY_DATA_ERROR)
            return fail(t, 0, want);
        if (r == SSL_READ_EARLY_DATA_FINISH)
            t->early = 0;
        if (got > 0)
            return (long)got;
    }
    if (SSL_read_ex(t->ssl, buf, n, &got) == 1)
        return (long)got;
    return fail(t, 0, want);
}

long symm_tls_write_early(symm_tls_t *t, const void *buf, size_t n, short *want)
{
    size_t put = 0;
    ERR_clear_error();
    t->err = 0;
    if (SSL_write_early_data(t->ssl, buf, n, &put) == 1)
        return (long)put;
    return fail(t, 0, want);
}

int symm_tls_early_accepted(const symm_tls_t *t)
{
    return SSL_get_early_data_status(t->ssl) == SSL_EARLY_DATA_ACCEPTED;
}

int symm_tls_can_early(const symm_tls_ctx_t *ctx)
{
    return !ctx->server && ctx->mode == SYMM_TLS_PSK;
}

long symm_tls_write(symm_tls_t *t, const void *buf, size_t n, short *want)
{
    size_t put = 0;
    ERR_clear_error();
    t->err = 0;
    /* A server still in the client's early data (its handshake finishes
     * when the client's Finished comes) can answer already: 0.5-RTT data,
     * under keys only the holder of the PSK can have. A refusal or an abort
     * gets through that way. */
    if (t->early ? SSL_write_early_data(t->ssl, buf, n, &put) == 1
                 : SSL_write_ex(t->ssl, buf, n, &put) == 1)
        return (long)put;
    return fail(t, 0, want);
}

int symm_tls_pending(const symm_tls_t *t) { return t != NULL && SSL_pending(t->ssl) > 0; }

const char *symm_tls_error(const symm_tls_t *t)
{
    return t->why[0] ? t->why : t->err ? strerror(t->err) : "connection closed";
}

int symm_tls_failed_on_secret(const symm_tls_t *t) { return t->secret; }

int symm_tls_saw_plain(const symm_tls_t *t)
{
    static const uint8_t magic[4] = {(TCP_MAGIC >> 24) & 0xff, (TCP_MAGIC >> 16) & 0xff,
                                     (TCP_MAGIC >> 8) & 0xff, TCP_MAGIC & 0xff};
    return t->nfirst == sizeof(t->first) && memcmp(t->first, magic, sizeof(magic)) == 0;
}

#else /* !SYMM_HAVE_TLS: nothing can be created, so nothing else is called. */

struct symm_tls_ctx {
    int unused;
};
struct symm_tls {
    int unused;
};

int symm_tls_ctx_create(int mode, int server, const char *secret, symm_tls_ctx_t **ctx_p)
{
    (void)mode;
    (void)server;
    (void)secret;
    (void)ctx_p;
    symm_error("bootstrap", "TLS: symm was built without OpenSSL");
    return SYMM_ERR_UNSUPPORTED;
}
void symm_tls_ctx_destroy(symm_tls_ctx_t *ctx) { (void)ctx; }
const char *symm_tls_ctx_describe(const symm_tls_ctx_t *ctx)
{
    (void)ctx;
    return "off";
}
int symm_tls_new(symm_tls_ctx_t *ctx, int fd, symm_tls_t **t_p)
{
    (void)ctx;
    (void)fd;
    (void)t_p;
    return SYMM_ERR_UNSUPPORTED;
}
void symm_tls_free(symm_tls_t *t) { (void)t; }
int symm_tls_handshake(symm_tls_t *t, short *want)
{
    (void)t;
    (void)want;
    return SYMM_IO_TLS;
}
long symm_tls_read(symm_tls_t *t, void *buf, size_t n, short *want)
{
    (void)t;
    (void)buf;
    (void)n;
    (void)want;
    return SYMM_IO_TLS;
}
long symm_tls_write(symm_tls_t *t, const void *buf, size_t n, short *want)
{
    (void)t;
    (void)buf;
    (void)n;
    (void)want;
    return SYMM_IO_TLS;
}
long symm_tls_write_early(symm_tls_t *t, const void *buf, size_t n, short *want)
{
    return symm_tls_write(t, buf, n, want);
}
int symm_tls_early_accepted(const symm_tls_t *t)
{
    (void)t;
    return 0;
}
int symm_tls_can_early(const symm_tls_ctx_t *ctx)
{
    (void)ctx;
    return 0;
}
int symm_tls_pending(const symm_tls_t *t)
{
    (void)t;
    return 0;
}
const char *symm_tls_error(const symm_tls_t *t)
{
    (void)t;
    return "built without TLS";
}
int symm_tls_failed_on_secret(const symm_tls_t *t)
{
    (void)t;
    return 0;
}
int symm_tls_saw_plain(const symm_tls_t *t)
{
    (void)t;
    return 0;
}

#endif
