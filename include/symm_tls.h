/*
 * symm_tls.h - TLS of the bootstrap (the "config store" of aclshmem).
 *
 * The bootstrap (rank, size, addresses, keys of the network transport: all
 * out-of-band traffic but the file descriptors, which never leave the node)
 * runs over TLS 1.3 when symm is built with OpenSSL. Two modes:
 *
 *   pre-shared key (the default): the key is HKDF-SHA256 of the job's random
 *     secret, so only the PEs of the job can complete the handshake; nothing
 *     to configure, no certificates.
 *   certificates: every PE presents a certificate and checks the other side's
 *     against the CA given (mutual TLS); the job secret is still checked
 *     inside TLS.
 *
 * Both calls are process-wide settings, to make before init (a bootstrap
 * reads them when it is created); they are not thread-safe against a
 * concurrent init. Every PE of a job must choose alike: a PE with TLS meeting
 * one without (or with another mode) fails the job with a message that says
 * so. The environment variable SYMM_BOOT_TLS=0 or 1 overrides what the
 * program chose (1 keeps the mode chosen, certificates included).
 *
 * Return values follow aclshmem: 0 success, -1 (ACLSHMEM_INVALID_PARAM) a bad
 * argument or tls_info, -4 (ACLSHMEM_INNER_ERROR) TLS asked of a build
 * without OpenSSL, or out of memory. Failures are also logged.
 */
#ifndef SYMM_TLS_H
#define SYMM_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SYMM_TLS_API __attribute__((visibility("default")))
#else
#define SYMM_TLS_API
#endif

/*
 * Decrypts the private key's password: cipher_text[cipher_text_len] is the
 * password given to aclshmemx_set_config_store_tls_key; on entry
 * *plain_text_len is the capacity of plain_text, on return the length of the
 * password written there. Returns 0 on success. (CANN declares the last
 * parameter as size_t &, which is the same thing at the ABI level.)
 */
typedef int (*aclshmem_decrypt_handler)(const char *cipher_text, size_t cipher_text_len,
                                        char *plain_text, size_t *plain_text_len);

/*
 * Turn bootstrap TLS off (enable false: tls_info is ignored; the wire
 * protocol is plain, as in builds without OpenSSL) or on.
 *
 * enable true with tls_info NULL or tls_info_len 0: the pre-shared-key mode
 * (the default).
 *
 * enable true with tls_info: certificate mode. tls_info is text of
 * name=value pairs separated by ';' or newlines (blanks around names and
 * values are ignored; ':' may replace '='; at most 10 KiB):
 *
 *   cert=/path/cert.pem   this PE's certificate (PEM; a chain may follow it)
 *   key=/path/key.pem     its private key (PEM, encrypted or not); or give
 *                         the key with aclshmemx_set_config_store_tls_key
 *                         (key= wins when both are given)
 *   ca=/path/ca.pem       the CA(s) a peer's certificate must chain to;
 *                         several files separated by ','
 *   crl=/path/crl.pem     optional certificate revocation list(s), ','
 *                         separated; with one, every certificate is checked
 *
 * for example "cert=/etc/symm/node.pem;key=/etc/symm/node.key;ca=/etc/symm/ca.pem".
 * CANN's names are accepted too: tlsCert, tlsCaPath (a directory) with
 * tlsCaFile (files in it, ',' separated), tlsCrlPath with tlsCrlFile.
 * Paths may not contain ';', ',' or newlines. Any certificate the CA signed
 * is accepted (host names are not checked: PEs are reached by address); the
 * job secret, checked inside TLS, still keeps PEs of other jobs out.
 */
SYMM_TLS_API int32_t aclshmemx_set_conf_store_tls(bool enable, const char *tls_info,
                                                  uint32_t tls_info_len);

/*
 * The private key of certificate mode, instead of key= in tls_info:
 * tls_pk[tls_pk_len] is the key itself in PEM (as CANN takes it), or, if it
 * holds no "-----BEGIN", the path of a PEM file. tls_pk_pw[tls_pk_pw_len]
 * (may be NULL) is its password, used for whichever key is loaded (key= of
 * tls_info wins over tls_pk); with decrypt_handler it is the encrypted
 * password, which the handler turns into the real one when an encrypted key
 * is loaded (the handler is not called for a key without encryption).
 * The library keeps a copy of both until replaced (erased then).
 */
SYMM_TLS_API int32_t aclshmemx_set_config_store_tls_key(const char *tls_pk, uint32_t tls_pk_len,
                                                        const char *tls_pk_pw,
                                                        uint32_t tls_pk_pw_len,
                                                        aclshmem_decrypt_handler decrypt_handler);

#ifdef __cplusplus
}
#endif

#endif
