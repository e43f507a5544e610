/*
 * boot_job.h - what a forked bootstrap job needs from its parent, which
 * plays oshrun: a listening socket rank 0 inherits and a job secret. Shared
 * by the bootstrap unit tests (boot_harness.h) and bench/boot_scale.c.
 */
#ifndef SYMM_BOOT_JOB_H
#define SYMM_BOOT_JOB_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* A listening socket on a free loopback port (exits on failure); its
 * "127.0.0.1:PORT" in addr. */
__attribute__((unused)) static int job_listen(char *addr, size_t cap)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sl) != 0 || listen(fd, 4096) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        perror("listen");
        exit(2);
    }
    snprintf(addr, cap, "127.0.0.1:%d", ntohs(sa.sin_port));
    return fd;
}

/* A fresh job secret: 32 random hex digits and a NUL in out. */
static void job_secret(char *out)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t rnd[16];
    int r = open("/dev/urandom", O_RDONLY);
    if (r < 0 || read(r, rnd, sizeof(rnd)) != sizeof(rnd)) {
        perror("urandom");
        exit(2);
    }
    close(r);
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hex[rnd[i] >> 4];
        out[2 * i + 1] = hex[rnd[i] & 15];
    }
    out[32] = '\0';
}

#endif
