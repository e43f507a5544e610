/*
 * acl_port.c - print a TCP port that is free on the loopback address (IPv4,
 * or IPv6 with argument "6"), for tests that start aclshmem jobs in DEFAULT
 * mode without a launcher and so must name PE 0's port themselves.
 *
 * The port is drawn below the kernel's ephemeral range: PE 0 binds it only
 * after the others have started connecting, and a port inside that range may
 * meanwhile be given to another connection (whose TIME_WAIT then holds it
 * for a minute). It is free when printed: bound without SO_REUSEADDR, so
 * that no socket, TIME_WAIT included, holds it. Falls back to a port the
 * kernel picks.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The loopback address at port; its length. */
static socklen_t loopback(struct sockaddr_storage *ss, int v6, int port)
{
    memset(ss, 0, sizeof(*ss));
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        a->sin6_port = htons((unsigned short)port);
        return sizeof(*a);
    }
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a->sin_port = htons((unsigned short)port);
    return sizeof(*a);
}

/* Bind port (0: the kernel's choice); the port bound, or -1. */
static int try_port(int v6, int port)
{
    struct sockaddr_storage ss;
    socklen_t len = loopback(&ss, v6, port);
    int fd = socket(ss.ss_family, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int ok = bind(fd, (struct sockaddr *)&ss, len) == 0 &&
             getsockname(fd, (struct sockaddr *)&ss, &len) == 0;
    close(fd);
    if (!ok)
        return -1;
    return ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                    : ((struct sockaddr_in *)&ss)->sin_port);
}

int main(int argc, char **argv)
{
    int v6 = argc > 1 && strcmp(argv[1], "6") == 0;
    int lo = 32768, hi = 60999, port = -1;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f != NULL) {
        if (fscanf(f, "%d %d", &lo, &hi) != 2)
            lo = 32768;
        fclose(f);
    }
    srand((unsigned)time(NULL) ^ (unsigned)getpid() << 8);
    /* 10000 up to the range: clear of the well-known and registered
     * services most machines run. */
    for (int i = 0; i < 200 && lo > 10100 && port < 0; i++)
        port = try_port(v6, 10000 + rand() % (lo - 10000 - 8));
    if (port < 0)
        port = try_port(v6, 0);
    if (port < 0) {
        perror("acl_port");
        return 1;
    }
    printf("%d\n", port);
    return 0;
}
