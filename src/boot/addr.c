/*
 * addr.c - bootstrap addresses as text, interfaces, reserved ports.
 *
 * Owns the one host:port parser of symm (see addr.h for its IPv6 rule), the
 * tcp:// / tcp6:// URLs of aclshmem's DEFAULT mode with
 * SHMEM_INSTANCE_PORT_RANGE, the choice of an interface's IPv4 address and
 * binding a free port for a unique id. Callers: tcp/tcp_sock.c (rank 0's
 * address), uid.c, and src/api's aclshmem setup.
 *
 * Must never: accept an IPv6 address without its brackets, or connect,
 * listen or wait (binding is all it does to the network).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/addr.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int symm_addr_split(const char *addr, char *host, size_t hcap, long *port_p)
{
    const char *h = addr, *hend, *colon;
    if (addr == NULL)
        return SYMM_ERR_INVALID;
    if (addr[0] == '[') {
        h = addr + 1;
        hend = strchr(h, ']');
        if (hend == NULL || hend[1] != ':')
            return SYMM_ERR_INVALID;
        colon = hend + 1;
    } else {
        colon = strrchr(addr, ':');
        if (colon == NULL || memchr(addr, ':', (size_t)(colon - addr)) != NULL)
            return SYMM_ERR_INVALID; /* an IPv6 address needs its brackets */
        hend = colon;
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (hend == h || (size_t)(hend - h) >= hcap || colon[1] == '\0' || *end != '\0' || errno != 0 ||
        port < 0 || port > 65535)
        return SYMM_ERR_INVALID;
    memcpy(host, h, (size_t)(hend - h));
    host[hend - h] = '\0';
    *port_p = port;
    return SYMM_OK;
}

void symm_addr_join(const char *host, long port, char *out, size_t cap)
{
    snprintf(out, cap, strchr(host, ':') != NULL ? "[%s]:%ld" : "%s:%ld", host, port);
}

int symm_addr_ipv4_of_interface(const char *ifname, char *out, size_t cap)
{
    struct ifaddrs *list;
    int found = SYMM_ERR_INVALID;
    if (getifaddrs(&list) != 0)
        return SYMM_ERR_SYS;
    for (struct ifaddrs *a = list; a != NULL && found != SYMM_OK; a = a->ifa_next) {
        if (a->ifa_addr == NULL || a->ifa_addr->sa_family != AF_INET)
            continue;
        if (ifname != NULL ? strcmp(a->ifa_name, ifname) != 0
                           : !(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK))
            continue;
        const struct sockaddr_in *in = (const struct sockaddr_in *)a->ifa_addr;
        if (inet_ntop(AF_INET, &in->sin_addr, out, (socklen_t)cap) != NULL)
            found = SYMM_OK;
    }
    freeifaddrs(list);
    return found;
}

int symm_addr_bind_free_port(const char *host, long *port_p, int *fd_p, const char *routine)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *res;
    int rc = getaddrinfo(host, "0", &hints, &res);
    if (rc != 0) {
        symm_error(routine, "'%s' is not a numeric IP address: %s", host, gai_strerror(rc));
        return SYMM_ERR_INVALID;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(fd, res->ai_addr, res->ai_addrlen) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        symm_error(routine, "cannot bind a port on %s: %s", host, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return SYMM_ERR_BOOT;
    }
    freeaddrinfo(res);
    *port_p = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    *fd_p = fd;
    return SYMM_OK;
}

int symm_addr_from_url(const char *url, uint64_t instance_id, char *addr, size_t cap,
                       const char *routine)
{
    char host[SYMM_ADDR_MAX];
    const char *rest;
    long port;
    int v6;
    if (strncmp(url, "tcp://", 6) == 0) {
        rest = url + 6;
        v6 = rest[0] == '[';
    } else if (strncmp(url, "tcp6://", 7) == 0) {
        rest = url + 7;
        v6 = 1;
    } else {
        symm_error(routine, "ip_port '%s' is not tcp://host:port or tcp6://[address]:port", url);
        return SYMM_ERR_INVALID;
    }
    if (symm_addr_split(rest, host, sizeof(host), &port) != SYMM_OK || (v6 && rest[0] != '[')) {
        symm_error(routine, "ip_port '%s': expected %s", url,
                   v6 ? "tcp6://[address]:port" : "tcp://host:port");
        return SYMM_ERR_INVALID;
    }
    if (port == 0) {
        const char *range = getenv("SHMEM_INSTANCE_PORT_RANGE");
        long start, end;
        char tail;
        if (range == NULL || sscanf(range, "%ld:%ld%c", &start, &end, &tail) != 2 || start < 1 ||
            end > 65535 || end < start || instance_id > (uint64_t)(end - start)) {
            symm_error(routine,
                       "ip_port '%s' has port 0: set SHMEM_INSTANCE_PORT_RANGE=start:end "
                       "with room for instance %llu (now %s)",
                       url, (unsigned long long)instance_id, range ? range : "unset");
            return SYMM_ERR_INVALID;
        }
        port = start + (long)instance_id;
    }
    symm_addr_join(host, port, addr, cap);
    return SYMM_OK;
}
