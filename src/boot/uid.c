/*
 * uid.c - unique ids as text, and the ports held for them.
 *
 * Owns the id text's format ("symm1:" + 32-hex secret + ':' + PE 0's
 * address), where a new id's address comes from (SHMEM_UID_SESSION_ID,
 * SHMEM_UID_SOCK_IFNAME, the interfaces), and the table of ports this
 * process bound for its ids: bound (not listening) from the id's making, so
 * that no other program takes the port, until the job starts and PE 0
 * listens on it.
 *
 * Must never: let a held port outlive its use (taken once; rank 0 listens,
 * others close), or write an id whose text does not fit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/uid.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define UID_MAGIC "symm1:"
#define UID_MAGIC_LEN 6
#define UID_MAX_HELD 16

/* A port a unique id names, bound since symm_uid_create. */
typedef struct held_port {
    int used;
    int fd;
    char secret[SYMM_SECRET_LEN + 1];
} held_port_t;

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static held_port_t held[UID_MAX_HELD];

/* The bound socket of secret's unique id, taken out of the table; -1. */
static int held_take(const char *secret)
{
    int fd = -1;
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < UID_MAX_HELD && fd < 0; i++) {
        if (held[i].used && strcmp(held[i].secret, secret) == 0) {
            held[i].used = 0;
            fd = held[i].fd;
        }
    }
    pthread_mutex_unlock(&held_lock);
    return fd;
}

static void held_put(int fd, const char *secret)
{
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < UID_MAX_HELD && fd >= 0; i++) {
        if (!held[i].used) {
            held[i].used = 1;
            held[i].fd = fd;
            memcpy(held[i].secret, secret, SYMM_SECRET_LEN + 1);
            fd = -1;
        }
    }
    pthread_mutex_unlock(&held_lock);
    if (fd >= 0)
        close(fd); /* PE 0 binds the address again at init */
}

int symm_uid_create(char *text, size_t cap, const char *routine)
{
    char host[INET6_ADDRSTRLEN + 8] = "", addr[SYMM_ADDR_MAX], secret[SYMM_SECRET_LEN + 1];
    const char *session = getenv("SHMEM_UID_SESSION_ID");
    const char *ifname = getenv("SHMEM_UID_SOCK_IFNAME");
    long port = 0;
    int fd = -1, rc;

    if (session != NULL && session[0] != '\0') {
        if (symm_addr_split(session, host, sizeof(host), &port) != SYMM_OK) {
            symm_error(routine, "SHMEM_UID_SESSION_ID='%s' is not ip:port (or [ipv6]:port)",
                       session);
            return SYMM_ERR_INVALID;
        }
    } else if (ifname != NULL && ifname[0] != '\0') {
        if (symm_addr_ipv4_of_interface(ifname, host, sizeof(host)) != SYMM_OK) {
            symm_error(routine,
                       "SHMEM_UID_SOCK_IFNAME=%s: no such interface with an IPv4 "
                       "address",
                       ifname);
            return SYMM_ERR_INVALID;
        }
    } else if (symm_addr_ipv4_of_interface(NULL, host, sizeof(host)) != SYMM_OK) {
        snprintf(host, sizeof(host), "127.0.0.1");
    }
    if ((rc = symm_secret_random(secret, routine)) != SYMM_OK)
        return rc;
    if (port == 0 && (rc = symm_addr_bind_free_port(host, &port, &fd, routine)) != SYMM_OK)
        return rc;
    symm_addr_join(host, port, addr, sizeof(addr));
    size_t len = UID_MAGIC_LEN + SYMM_SECRET_LEN + 1 + strlen(addr);
    if (len + 1 > cap || snprintf(text, cap, "%s%s:%s", UID_MAGIC, secret, addr) != (int)len) {
        symm_error(routine, "address %s is too long for a unique id", addr);
        if (fd >= 0)
            close(fd);
        return SYMM_ERR_INVALID;
    }
    if (fd >= 0)
        held_put(fd, secret);
    symm_log(SYMM_LOG_INFO, routine, "unique id for PE 0 at %s", addr);
    return SYMM_OK;
}

int symm_uid_parse(const char *text, size_t cap, char secret[SYMM_SECRET_LEN + 1], char *addr,
                   size_t acap, const char *routine)
{
    size_t len = strnlen(text, cap);
    if (len == cap || len <= UID_MAGIC_LEN + SYMM_SECRET_LEN + 1 ||
        memcmp(text, UID_MAGIC, UID_MAGIC_LEN) != 0 ||
        text[UID_MAGIC_LEN + SYMM_SECRET_LEN] != ':' ||
        len - (UID_MAGIC_LEN + SYMM_SECRET_LEN + 1) >= acap) {
        symm_error(routine,
                   "the unique id holds no address and secret (not made by "
                   "aclshmemx_get_uniqueid?): every PE needs the bytes PE 0's call produced");
        return SYMM_ERR_INVALID;
    }
    memcpy(secret, text + UID_MAGIC_LEN, SYMM_SECRET_LEN);
    secret[SYMM_SECRET_LEN] = '\0';
    memcpy(addr, text + UID_MAGIC_LEN + SYMM_SECRET_LEN + 1,
           len - (UID_MAGIC_LEN + SYMM_SECRET_LEN + 1) + 1);
    return SYMM_OK;
}

int symm_uid_listen_fd(const char *secret, int rank, const char *addr, const char *routine)
{
    int fd = held_take(secret);
    if (fd >= 0 && rank != 0) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0 && listen(fd, SOMAXCONN) != 0) {
        symm_warn(routine, "cannot listen on the reserved port of %s (%s): binding it again", addr,
                  strerror(errno));
        close(fd);
        fd = -1;
    }
    return fd;
}
