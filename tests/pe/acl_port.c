/*
 * acl_port.c - print a TCP port that is free on the loopback address (IPv4,
 * or IPv6 with argument "6"), for tests that start aclshmem jobs in DEFAULT
 * mode without a launcher and so must name PE 0's port themselves.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int v6 = argc > 1 && strcmp(argv[1], "6") == 0;
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    memset(&ss, 0, sizeof(ss));
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    int fd = socket(ss.ss_family, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&ss, v6 ? sizeof(struct sockaddr_in6)
                                                     : sizeof(struct sockaddr_in)) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        perror("acl_port");
        return 1;
    }
    printf("%d\n", ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                            : ((struct sockaddr_in *)&ss)->sin_port));
    close(fd);
    return 0;
}
