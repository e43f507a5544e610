/*
 * secret.c - job secrets: random, keyed, or derived from an address.
 *
 * Owns how a unique id's secret is drawn (getrandom) and how aclshmem's
 * DEFAULT mode makes its secret: HMAC-SHA256 of PE 0's address under a key
 * only the job's owner holds (SYMM_JOB_KEY, the launcher's SYMM_JOB_SECRET,
 * or the user's key file), else a plain hash of the address with a warning.
 * SHA-256 is here, small, rather than from OpenSSL: the secret must be the
 * same on every PE whether or not its build has TLS.
 *
 * Must never fall back to a guessable secret when random bytes are asked
 * for, nor when a key was meant to be used (an unsafe or unreadable key file
 * is an error, not a quiet fallback); must never create the key file (PEs on
 * several hosts would race to make different keys).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/secret.h"
#include "boot/boot_io.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The most of a key file that is read; longer keys add nothing. */
#define KEY_MAX 4096

static void hex_encode(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void symm_secret_from_addr(const char *addr, char out[SYMM_SECRET_LEN + 1])
{
    uint64_t h[2] = {0xcbf29ce484222325ull, 0x6c62272e07bb0142ull};
    uint8_t bytes[SYMM_SECRET_LEN / 2];
    for (int k = 0; k < 2; k++) {
        for (const char *p = "symm-aclshmem-default:"; *p; p++)
            h[k] = (h[k] ^ (uint8_t)*p) * 0x100000001b3ull;
        for (const char *p = addr; *p; p++)
            h[k] = (h[k] ^ (uint8_t)*p) * 0x100000001b3ull;
        h[k] = mix64(h[k] + (uint64_t)k);
        for (int b = 0; b < 8; b++)
            bytes[8 * k + b] = (uint8_t)(h[k] >> (8 * b));
    }
    hex_encode(bytes, sizeof(bytes), out);
}

int symm_secret_random(char out[SYMM_SECRET_LEN + 1], const char *routine)
{
    uint8_t bytes[SYMM_SECRET_LEN / 2];
    size_t got = 0;
    while (got < sizeof(bytes)) {
        ssize_t r = getrandom(bytes + got, sizeof(bytes) - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            symm_error(routine, "no random bytes for the job secret: %s", strerror(errno));
            return SYMM_ERR_SYS;
        }
        got += (size_t)r;
    }
    hex_encode(bytes, sizeof(bytes), out);
    return SYMM_OK;
}

/* ---- SHA-256 and HMAC (FIPS 180-4, RFC 2104) ------------------------------ */

/* The plain address hash above is invertible step by step, so a keyed hash
 * built on it would give away the key's state to whoever saw one secret
 * (a plain hello, with TLS off); HMAC-SHA256 does not. */

typedef struct sha256 {
    uint32_t h[8];
    uint8_t block[64];
    size_t fill;    /* bytes in block */
    uint64_t total; /* bytes hashed */
} sha256_t;

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t ror32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha256_block(sha256_t *s, const uint8_t *p)
{
    uint32_t w[64], v[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(v, s->h, sizeof(v));
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = v[7] + (ror32(v[4], 6) ^ ror32(v[4], 11) ^ ror32(v[4], 25)) +
                      ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha256_k[i] + w[i];
        uint32_t t2 = (ror32(v[0], 2) ^ ror32(v[0], 13) ^ ror32(v[0], 22)) +
                      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        memmove(v + 1, v, 7 * sizeof(v[0]));
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        s->h[i] += v[i];
}

static void sha256_init(sha256_t *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof(h0));
    s->fill = 0;
    s->total = 0;
}

static void sha256_update(sha256_t *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    s->total += n;
    while (n > 0) {
        size_t take = sizeof(s->block) - s->fill < n ? sizeof(s->block) - s->fill : n;
        memcpy(s->block + s->fill, p, take);
        s->fill += take;
        p += take;
        n -= take;
        if (s->fill == sizeof(s->block)) {
            sha256_block(s, s->block);
            s->fill = 0;
        }
    }
}

static void sha256_final(sha256_t *s, uint8_t out[32])
{
    uint64_t bits = s->total * 8;
    uint8_t pad[72] = {0x80};
    size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
    for (int i = 0; i < 8; i++)
        pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(s, pad, padlen + 8);
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++)
            out[4 * i + b] = (uint8_t)(s->h[i] >> (24 - 8 * b));
}

/* HMAC-SHA256 under key[klen] of the message m1 || m2 (two strings). */
static void hmac_sha256(const void *key, size_t klen, const char *m1, const char *m2,
                        uint8_t out[32])
{
    uint8_t k[64] = {0}, pad[64];
    sha256_t s;
    if (klen > sizeof(k)) {
        sha256_init(&s);
        sha256_update(&s, key, klen);
        sha256_final(&s, k);
    } else {
        memcpy(k, key, klen);
    }
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x36;
    sha256_init(&s);
    sha256_update(&s, pad, sizeof(pad));
    sha256_update(&s, m1, strlen(m1));
    sha256_update(&s, m2, strlen(m2));
    sha256_final(&s, out);
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x5c;
    sha256_init(&s);
    sha256_update(&s, pad, sizeof(pad));
    sha256_update(&s, out, 32);
    sha256_final(&s, out);
}

void symm_secret_mac(const char *secret, const char *msg, uint8_t out[32])
{
    hmac_sha256(secret, strlen(secret), "symm-boot-mac:", msg, out);
}

/* ---- DEFAULT mode's key ----------------------------------------------------- */

/* $XDG_CONFIG_HOME/symm/job.key, else ~/.config/symm/job.key; -1 when
 * neither variable says where that is. */
static int key_path(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;
    /* The XDG base directory rules ignore a relative XDG_CONFIG_HOME. */
    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(buf, cap, "%s/symm/job.key", xdg);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(buf, cap, "%s/.config/symm/job.key", home);
    else
        return -1;
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The key in the file at path, without trailing white space (so that
 * SYMM_JOB_KEY=$(cat FILE) is the same key), into key[KEY_MAX + 1]; *len_p
 * is 0 when there is no such file. A file anyone but its owner (this user)
 * may read or write is refused: its key would be no secret. */
static int key_file_read(const char *path, char *key, size_t *len_p, const char *routine)
{
    struct stat st;
    size_t len = 0;
    ssize_t r;
    int rc = SYMM_ERR_INVALID;
    /* O_NONBLOCK: a FIFO put there must not hang the PE before fstat says so. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            *len_p = 0;
            return SYMM_OK;
        }
        symm_error(routine, "cannot open the job key file %s: %s", path, strerror(errno));
        return SYMM_ERR_SYS;
    }
    if (fstat(fd, &st) != 0) {
        symm_error(routine, "cannot stat the job key file %s: %s", path, strerror(errno));
        rc = SYMM_ERR_SYS;
        goto err_close;
    }
    if (!S_ISREG(st.st_mode)) {
        symm_error(routine, "the job key file %s is not a regular file: refused", path);
        goto err_close;
    }
    if (st.st_uid != geteuid()) {
        symm_error(routine, "the job key file %s belongs to uid %u, not to this user (uid %u): "
                   "refused", path, (unsigned)st.st_uid, (unsigned)geteuid());
        goto err_close;
    }
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        symm_error(routine, "the job key file %s has mode %04o: users other than its owner may "
                   "read or change it, so it is refused (chmod 600 %s)", path,
                   (unsigned)(st.st_mode & 07777), path);
        goto err_close;
    }
    if (st.st_size > KEY_MAX) {
        symm_error(routine, "the job key file %s holds %lld bytes, more than a key (at most %d): "
                   "refused", path, (long long)st.st_size, KEY_MAX);
        goto err_close;
    }
    while ((r = read(fd, key + len, KEY_MAX - len)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            symm_error(routine, "cannot read the job key file %s: %s", path, strerror(errno));
            rc = SYMM_ERR_SYS;
            goto err_close;
        }
        len += (size_t)r;
    }
    while (len > 0 && isspace((unsigned char)key[len - 1]))
        len--;
    if (len == 0) {
        symm_error(routine, "the job key file %s is empty: refused", path);
        goto err_close;
    }
    close(fd);
    *len_p = len;
    return SYMM_OK;

err_close:
    close(fd);
    return rc;
}

int symm_secret_default(const char *addr, const char *key, int loud, char out[SYMM_SECRET_LEN + 1],
                        const char *routine)
{
    static int warned;
    const char *launcher = getenv("SYMM_JOB_SECRET");
    char file_key[KEY_MAX + 1], path[PATH_MAX] = "~/.config/symm/job.key";
    const char *k = NULL;
    size_t klen = 0;
    uint8_t mac[32];

    if (key != NULL && key[0] != '\0') {
        k = key;
        klen = strlen(key);
    } else if (launcher != NULL) {
        if (!symm_boot_secret_valid(launcher)) {
            symm_error(routine, "SYMM_JOB_SECRET is not 32 hexadecimal characters");
            return SYMM_ERR_INVALID;
        }
        k = launcher;
        klen = SYMM_SECRET_LEN;
    } else if (key_path(path, sizeof(path)) == 0) {
        int rc = key_file_read(path, file_key, &klen, routine);
        if (rc != SYMM_OK)
            return rc;
        if (klen > 0)
            k = file_key;
    }
    if (k == NULL) {
        symm_secret_from_addr(addr, out);
        if (loud && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            symm_warn(routine, "no job key: the job secret is derived from PE 0's address %s "
                      "alone, so anyone who can reach that address may join the job or pose as "
                      "PE 0; set SYMM_JOB_KEY to one secret on every PE, or create %s "
                      "(mode 0600)", addr, path);
        return SYMM_OK;
    }
    hmac_sha256(k, klen, "symm-aclshmem-default:", addr, mac);
    hex_encode(mac, SYMM_SECRET_LEN / 2, out);
    return SYMM_OK;
}
