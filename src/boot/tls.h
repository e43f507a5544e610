/*
 * tls.h - the settings of the bootstrap's TLS: whether the TCP bootstrap
 * runs TLS 1.3 (OpenSSL), and with a pre-shared key or certificates.
 *
 * The part of the bootstrap's TLS that the rest of symm sees: the public
 * setters (src/api/acl/aclshmem_tls.c) write these settings, and the TCP
 * bootstrap reads them when it is created. Implemented in
 * tcp/tcp_tls_conf.c; the contexts and sessions are tcp/tcp_tls.h's,
 * private to tcp/.
 *
 * Modes: pre-shared key (external PSK = HKDF-SHA256 of the job secret,
 * identity "symm-boot", TLS_AES_128_GCM_SHA256, (EC)DHE for forward secrecy,
 * the first client message as 0-RTT early data) or certificates (mutual,
 * against the configured CA). In a build without OpenSSL (no SYMM_HAVE_TLS)
 * the mode is off and asking for TLS is an error.
 *
 * Must never keep key material beyond the settings that hold it.
 */
#ifndef SYMM_BOOT_TLS_H
#define SYMM_BOOT_TLS_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/status.h"

enum { SYMM_TLS_OFF = 0, SYMM_TLS_PSK = 1, SYMM_TLS_CERT = 2 };

typedef int (*symm_tls_decrypt_fn)(const char *cipher, size_t cipher_len, char *plain,
                                   size_t *plain_len);

/* 1 when built with OpenSSL. */
int symm_tls_built(void);
/* enable 0: off; 1 with info NULL/len 0: PSK; 1 with info: certificate mode
 * (format in include/symm_tls.h). Parses info now; logs and returns
 * SYMM_ERR_INVALID on a bad one, SYMM_ERR_UNSUPPORTED for TLS without
 * OpenSSL. */
SYMM_MUST_CHECK int symm_tls_set_conf(int enable, const char *info, size_t len);
/* The private key (PEM text or a path) and its password for certificate
 * mode; decrypt may be NULL. */
SYMM_MUST_CHECK int symm_tls_set_key(const char *pk, size_t pk_len, const char *pw, size_t pw_len,
                     symm_tls_decrypt_fn decrypt);
/* The mode a bootstrap created now uses: the settings (default PSK when
 * built with OpenSSL, else off), then SYMM_BOOT_TLS. Logs and returns
 * SYMM_ERR_INVALID on a bad SYMM_BOOT_TLS, SYMM_ERR_UNSUPPORTED on
 * SYMM_BOOT_TLS=1 without OpenSSL. */
SYMM_MUST_CHECK int symm_tls_mode(int *mode_p);
const char *symm_tls_mode_name(int mode);

#endif
