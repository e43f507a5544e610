/*
 * tcp_tls_conf.c - the settings of the bootstrap's TLS, and the files of
 * certificate mode they name.
 *
 * Owns the process-wide TLS settings (boot/tls.h: set by
 * src/api/acl/aclshmem_tls.c, read when a bootstrap is created): the
 * tls_info text parsed into certificate, key, CA and CRL files, the private
 * key and its password, SYMM_BOOT_TLS and the mode they give. With OpenSSL
 * it also loads certificate mode's files into a context for tcp_tls.c
 * (symm_tls_conf_load_certs), under the same lock, so that the settings
 * never leave this file. Key material is erased when it is replaced.
 */
#include "boot/tls.h"
#include "boot/tcp/tcp_tls.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef SYMM_HAVE_TLS
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#endif

#define MAX_INFO_LEN (10 * 1024)
#define MAX_LIST 16

/* ---- settings ------------------------------------------------------------ */

typedef struct tls_conf {
    int set; /* the program chose (else the default) */
    int enable;
    /* certificate mode when cert != NULL */
    char *cert;
    char *key; /* key file from tls_info */
    char *ca[MAX_LIST];
    int nca;
    char *crl[MAX_LIST];
    int ncrl;
    /* from aclshmemx_set_config_store_tls_key */
    char *pk;
    size_t pk_len;
    char *pw;
    size_t pw_len;
    symm_tls_decrypt_fn decrypt;
} tls_conf_t;

static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static tls_conf_t conf;

int symm_tls_built(void)
{
#ifdef SYMM_HAVE_TLS
    return 1;
#else
    return 0;
#endif
}

const char *symm_tls_mode_name(int mode)
{
    switch (mode) {
    case SYMM_TLS_PSK: return "pre-shared key";
    case SYMM_TLS_CERT: return "certificates";
    }
    return "off";
}

static void erase_free(char *p, size_t n)
{
    if (p == NULL)
        return;
    volatile char *v = p;
    for (size_t i = 0; i < n; i++)
        v[i] = 0;
    free(p);
}

static void conf_clear_files(tls_conf_t *c)
{
    free(c->cert);
    free(c->key);
    for (int i = 0; i < c->nca; i++)
        free(c->ca[i]);
    for (int i = 0; i < c->ncrl; i++)
        free(c->crl[i]);
    c->cert = c->key = NULL;
    c->nca = c->ncrl = 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* dir/name, or name when it is absolute or there is no dir. */
static char *path_join(const char *dir, const char *name)
{
    if (dir == NULL || name[0] == '/')
        return strdup(name);
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return p;
}

/* Split a ','-separated list of files (relative to dir) into list[]. */
static int add_files(const char *what, char *val, const char *dir, char **list, int *n)
{
    for (char *save = NULL, *f = strtok_r(val, ",", &save); f != NULL;
         f = strtok_r(NULL, ",", &save)) {
        f = trim(f);
        if (*f == '\0')
            continue;
        if (*n == MAX_LIST) {
            symm_error("aclshmemx_set_conf_store_tls", "more than %d %s files in tls_info",
                       MAX_LIST, what);
            return SYMM_ERR_INVALID;
        }
        if ((list[*n] = path_join(dir, f)) == NULL)
            return SYMM_ERR_NOMEM;
        (*n)++;
    }
    return SYMM_OK;
}

static int set_once(char **slot, const char *name, const char *val)
{
    if (*slot != NULL) {
        symm_error("aclshmemx_set_conf_store_tls", "'%s' given twice in tls_info", name);
        return SYMM_ERR_INVALID;
    }
    *slot = strdup(val);
    return *slot == NULL ? SYMM_ERR_NOMEM : SYMM_OK;
}

/* tls_info (see include/symm_tls.h) into c's file settings. */
static int parse_info(tls_conf_t *c, const char *info, size_t len)
{
    static const char *const who = "aclshmemx_set_conf_store_tls";
    char *text = malloc(len + 1), *ca_dir = NULL, *crl_dir = NULL;
    char *ca_files[MAX_LIST] = {NULL}, *crl_files[MAX_LIST] = {NULL};
    int nca_files = 0, ncrl_files = 0, rc = SYMM_OK;
    if (text == NULL)
        return SYMM_ERR_NOMEM;
    memcpy(text, info, len);
    text[len] = '\0';
    if (strlen(text) != len) {
        symm_error(who, "tls_info holds a NUL byte before its end (%zu bytes)", len);
        rc = SYMM_ERR_INVALID;
        goto out;
    }
    /* First the directories, so that the order of the items does not matter:
     * collect items, then resolve. */
    for (char *save = NULL, *item = strtok_r(text, ";\n\r", &save); rc == SYMM_OK && item != NULL;
         item = strtok_r(NULL, ";\n\r", &save)) {
        item = trim(item);
        if (*item == '\0')
            continue;
        size_t k = strcspn(item, "=:");
        if (item[k] == '\0') {
            symm_error(who, "tls_info item '%s' is not name=value", item);
            rc = SYMM_ERR_INVALID;
            break;
        }
        item[k] = '\0';
        char *name = trim(item), *val = trim(item + k + 1);
        if (*name == '\0' || *val == '\0') {
            symm_error(who, "tls_info item '%s' has an empty name or value", name);
            rc = SYMM_ERR_INVALID;
        } else if (!strcasecmp(name, "cert") || !strcmp(name, "tlsCert")) {
            rc = set_once(&c->cert, name, val);
        } else if (!strcasecmp(name, "key")) {
            rc = set_once(&c->key, name, val);
        } else if (!strcasecmp(name, "ca") || !strcmp(name, "tlsCaFile")) {
            rc = add_files("CA", val, NULL, ca_files, &nca_files);
        } else if (!strcasecmp(name, "crl") || !strcmp(name, "tlsCrlFile")) {
            rc = add_files("CRL", val, NULL, crl_files, &ncrl_files);
        } else if (!strcmp(name, "tlsCaPath")) {
            rc = set_once(&ca_dir, name, val);
        } else if (!strcmp(name, "tlsCrlPath")) {
            rc = set_once(&crl_dir, name, val);
        } else {
            symm_error(who,
                       "unknown name '%s' in tls_info (known: cert, key, ca, crl; CANN's "
                       "tlsCert, tlsCaPath, tlsCaFile, tlsCrlPath, tlsCrlFile)",
                       name);
            rc = SYMM_ERR_INVALID;
        }
    }
    for (int i = 0; rc == SYMM_OK && i < nca_files; i++)
        if ((c->ca[c->nca++] = path_join(ca_dir, ca_files[i])) == NULL)
            rc = SYMM_ERR_NOMEM;
    for (int i = 0; rc == SYMM_OK && i < ncrl_files; i++)
        if ((c->crl[c->ncrl++] = path_join(crl_dir, crl_files[i])) == NULL)
            rc = SYMM_ERR_NOMEM;
    if (rc == SYMM_OK && (c->cert == NULL || c->nca == 0)) {
        symm_error(who, "certificate mode needs cert= and ca= in tls_info (cert %s, ca %s)",
                   c->cert ? "given" : "missing", c->nca ? "given" : "missing");
        rc = SYMM_ERR_INVALID;
    }
out:
    for (int i = 0; i < nca_files; i++)
        free(ca_files[i]);
    for (int i = 0; i < ncrl_files; i++)
        free(crl_files[i]);
    free(ca_dir);
    free(crl_dir);
    erase_free(text, len);
    return rc;
}

int symm_tls_set_conf(int enable, const char *info, size_t len)
{
    tls_conf_t files = {0};
    int rc = SYMM_OK;
    if (enable && !symm_tls_built()) {
        symm_error("aclshmemx_set_conf_store_tls", "TLS asked for, but symm was built without "
                                                   "OpenSSL (the bootstrap runs without TLS)");
        return SYMM_ERR_UNSUPPORTED;
    }
    if (enable && info != NULL && len > 0) {
        if (len > MAX_INFO_LEN) {
            symm_error("aclshmemx_set_conf_store_tls",
                       "tls_info of %zu bytes is longer than "
                       "%d",
                       len, MAX_INFO_LEN);
            return SYMM_ERR_INVALID;
        }
        rc = parse_info(&files, info, len);
        if (rc != SYMM_OK) {
            conf_clear_files(&files);
            return rc;
        }
    } else if (enable && info == NULL && len > 0) {
        symm_error("aclshmemx_set_conf_store_tls", "tls_info is NULL but its length is %zu", len);
        return SYMM_ERR_INVALID;
    }
    pthread_mutex_lock(&conf_lock);
    conf_clear_files(&conf);
    conf.set = 1;
    conf.enable = enable;
    conf.cert = files.cert;
    conf.key = files.key;
    conf.nca = files.nca;
    conf.ncrl = files.ncrl;
    memcpy(conf.ca, files.ca, sizeof(conf.ca));
    memcpy(conf.crl, files.crl, sizeof(conf.crl));
    pthread_mutex_unlock(&conf_lock);
    return SYMM_OK;
}

static char *memdup0(const char *p, size_t n)
{
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, p, n);
        d[n] = '\0';
    }
    return d;
}

int symm_tls_set_key(const char *pk, size_t pk_len, const char *pw, size_t pw_len,
                     symm_tls_decrypt_fn decrypt)
{
    static const char *const who = "aclshmemx_set_config_store_tls_key";
    if (!symm_tls_built()) {
        symm_error(who, "symm was built without OpenSSL: no TLS, no certificates");
        return SYMM_ERR_UNSUPPORTED;
    }
    if (pk == NULL || pk_len == 0 || pk_len > MAX_INFO_LEN || (pw == NULL && pw_len > 0) ||
        pw_len > MAX_INFO_LEN) {
        symm_error(who, "bad private key (%s, %zu bytes) or password (%s, %zu bytes)",
                   pk ? "set" : "NULL", pk_len, pw ? "set" : "NULL", pw_len);
        return SYMM_ERR_INVALID;
    }
    char *k = memdup0(pk, pk_len), *p = pw ? memdup0(pw, pw_len) : NULL;
    if (k == NULL || (pw != NULL && p == NULL)) {
        erase_free(k, pk_len);
        erase_free(p, pw_len);
        return SYMM_ERR_NOMEM;
    }
    pthread_mutex_lock(&conf_lock);
    erase_free(conf.pk, conf.pk_len);
    erase_free(conf.pw, conf.pw_len);
    conf.pk = k;
    conf.pk_len = pk_len;
    conf.pw = p;
    conf.pw_len = p ? pw_len : 0;
    conf.decrypt = decrypt;
    pthread_mutex_unlock(&conf_lock);
    return SYMM_OK;
}

int symm_tls_mode(int *mode_p)
{
    const char *env = getenv("SYMM_BOOT_TLS");
    int mode;
    pthread_mutex_lock(&conf_lock);
    if (!conf.set)
        mode = symm_tls_built() ? SYMM_TLS_PSK : SYMM_TLS_OFF;
    else
        mode = !conf.enable ? SYMM_TLS_OFF : conf.cert ? SYMM_TLS_CERT : SYMM_TLS_PSK;
    int cert = conf.cert != NULL;
    pthread_mutex_unlock(&conf_lock);

    if (env != NULL && *env != '\0') {
        if (!strcmp(env, "0") || !strcasecmp(env, "off") || !strcasecmp(env, "no") ||
            !strcasecmp(env, "false")) {
            mode = SYMM_TLS_OFF;
        } else if (!strcmp(env, "1") || !strcasecmp(env, "on") || !strcasecmp(env, "yes") ||
                   !strcasecmp(env, "true")) {
            if (!symm_tls_built()) {
                symm_error("bootstrap", "SYMM_BOOT_TLS=%s, but symm was built without OpenSSL",
                           env);
                return SYMM_ERR_UNSUPPORTED;
            }
            if (mode == SYMM_TLS_OFF)
                mode = cert ? SYMM_TLS_CERT : SYMM_TLS_PSK;
        } else {
            symm_error("bootstrap", "SYMM_BOOT_TLS='%s' is not 0 or 1", env);
            return SYMM_ERR_INVALID;
        }
    }
    *mode_p = mode;
    return SYMM_OK;
}

#ifdef SYMM_HAVE_TLS

/* ---- certificate mode's files ------------------------------------------ */

/* The password of the private key, asked for by OpenSSL only when the key
 * is encrypted (under conf_lock). */
typedef struct key_pass {
    int failed; /* the decrypt handler failed */
} key_pass_t;

static int pass_cb(char *buf, int size, int rwflag, void *u)
{
    key_pass_t *kp = u;
    (void)rwflag;
    /* Never let OpenSSL prompt on a terminal: no password is an error. */
    if (conf.pw == NULL || size <= 0)
        return -1;
    if (conf.decrypt == NULL) {
        if (conf.pw_len > (size_t)size)
            return -1;
        memcpy(buf, conf.pw, conf.pw_len);
        return (int)conf.pw_len;
    }
    size_t len = (size_t)size;
    int hr = conf.decrypt(conf.pw, conf.pw_len, buf, &len);
    if (hr != 0 || len > (size_t)size) {
        if (hr != 0)
            symm_error("bootstrap",
                       "TLS: the private key password's decrypt handler failed "
                       "(returned %d)",
                       hr);
        else
            symm_error("bootstrap",
                       "TLS: the private key password's decrypt handler failed "
                       "(a password of %zu bytes, room for %d)",
                       len, size);
        kp->failed = 1;
        OPENSSL_cleanse(buf, (size_t)size);
        return -1;
    }
    return (int)len;
}

/* The private key of certificate mode (from the settings, under conf_lock):
 * key= of tls_info, else aclshmemx_set_config_store_tls_key's. */
static int load_key(SSL_CTX *ctx)
{
    key_pass_t kp = {0};
    BIO *bio = NULL;
    const char *what = conf.key;

    if (what == NULL && conf.pk != NULL && strstr(conf.pk, "-----BEGIN") != NULL) {
        bio = BIO_new_mem_buf(conf.pk, (int)conf.pk_len);
        what = "(given in memory)";
    } else {
        if (what == NULL)
            what = conf.pk;
        if (what == NULL) {
            symm_error("bootstrap", "TLS certificate mode needs a private key: key= in "
                                    "tls_info, or aclshmemx_set_config_store_tls_key");
            return SYMM_ERR_INVALID;
        }
        bio = BIO_new_file(what, "r");
    }
    EVP_PKEY *pkey = bio ? PEM_read_bio_PrivateKey(bio, NULL, pass_cb, &kp) : NULL;
    BIO_free(bio);
    if (pkey == NULL) {
        if (kp.failed)
            ERR_clear_error();
        else
            symm_tls_ssl_fail("cannot read the private key", what);
        return SYMM_ERR_INVALID;
    }
    int rc = SYMM_OK;
    if (SSL_CTX_use_PrivateKey(ctx, pkey) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        symm_tls_ssl_fail("the private key does not fit the certificate:", what);
        rc = SYMM_ERR_INVALID;
    }
    EVP_PKEY_free(pkey);
    return rc;
}

static int load_crls(SSL_CTX *ctx, char *const *crl, int n)
{
    X509_STORE *st = SSL_CTX_get_cert_store(ctx);
    for (int i = 0; i < n; i++) {
        X509_LOOKUP *lu = X509_STORE_add_lookup(st, X509_LOOKUP_file());
        if (lu == NULL || X509_load_crl_file(lu, crl[i], X509_FILETYPE_PEM) <= 0) {
            symm_tls_ssl_fail("cannot load the revocation list", crl[i]);
            return SYMM_ERR_INVALID;
        }
    }
    if (n > 0)
        X509_STORE_set_flags(st, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
    return SYMM_OK;
}

int symm_tls_conf_load_certs(SSL_CTX *ctx, char *desc, size_t cap)
{
    int rc;
    size_t off;
    pthread_mutex_lock(&conf_lock);
    if (conf.cert == NULL) {
        pthread_mutex_unlock(&conf_lock);
        symm_error("bootstrap", "TLS certificate mode without a certificate");
        return SYMM_ERR_INVALID;
    }
    rc = SYMM_ERR_INVALID;
    if (SSL_CTX_use_certificate_chain_file(ctx, conf.cert) != 1) {
        symm_tls_ssl_fail("cannot use the certificate", conf.cert);
        goto out;
    }
    if ((rc = load_key(ctx)) != SYMM_OK)
        goto out;
    rc = SYMM_ERR_INVALID;
    for (int i = 0; i < conf.nca; i++) {
        if (SSL_CTX_load_verify_file(ctx, conf.ca[i]) != 1) {
            symm_tls_ssl_fail("cannot load the CA", conf.ca[i]);
            goto out;
        }
    }
    if ((rc = load_crls(ctx, conf.crl, conf.ncrl)) != SYMM_OK)
        goto out;
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    off = (size_t)snprintf(desc, cap, "on: TLS 1.3 with certificates (cert %s, CA %s", conf.cert,
                           conf.ca[0]);
    if (conf.nca > 1 && off < cap)
        off += (size_t)snprintf(desc + off, cap - off, " and %d more", conf.nca - 1);
    if (conf.ncrl > 0 && off < cap)
        off += (size_t)snprintf(desc + off, cap - off, ", %d CRL(s)", conf.ncrl);
    if (off < cap)
        snprintf(desc + off, cap - off, ")");
    rc = SYMM_OK;
out:
    pthread_mutex_unlock(&conf_lock);
    return rc;
}

#endif
