/*
 * aclshmem_tls.c - aclshmem's switches for the TLS of the bootstrap.
 *
 * Owns the two public setters of include/symm_tls.h; the settings and their
 * meaning are src/boot/tcp/tcp_tls_conf.c's. Converts internal statuses to aclshmem's
 * error codes (0, -1 ACLSHMEM_INVALID_PARAM, -4 ACLSHMEM_INNER_ERROR) here
 * and nowhere else.
 */
#include "symm_tls.h"

#include "boot/tls.h"
#include "runtime/status.h"

static int32_t acl_code(int status)
{
    switch (status) {
    case SYMM_OK: return 0;
    case SYMM_ERR_INVALID: return -1;
    }
    return -4;
}

int32_t aclshmemx_set_conf_store_tls(bool enable, const char *tls_info, uint32_t tls_info_len)
{
    return acl_code(symm_tls_set_conf(enable, tls_info, tls_info_len));
}

int32_t aclshmemx_set_config_store_tls_key(const char *tls_pk, uint32_t tls_pk_len,
                                           const char *tls_pk_pw, uint32_t tls_pk_pw_len,
                                           aclshmem_decrypt_handler decrypt_handler)
{
    return acl_code(symm_tls_set_key(tls_pk, tls_pk_len, tls_pk_pw, tls_pk_pw_len,
                                     decrypt_handler));
}
