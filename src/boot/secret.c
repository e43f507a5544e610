/*
 * secret.c - job secrets, random or derived from an address.
 *
 * Owns how a unique id's secret is drawn (getrandom) and how aclshmem's
 * DEFAULT mode derives its secret from PE 0's address. Must never fall back
 * to a guessable secret when random bytes are asked for: no random bytes is
 * an error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/secret.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

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
