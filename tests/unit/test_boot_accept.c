/*
 * test_boot_accept.c - the accepting side of the TCP bootstrap
 * (src/boot/tcp/tcp_accept.c): its per-connection state machine driven over
 * loopback, and the wire format it judges (tcp_wire.h).
 *
 * The test is rank 0 of a job of 2 or 3 PEs at the default fan-out 16 (a
 * star: symm_boot_tcp_create with a listening socket of its own, plain:
 * SYMM_BOOT_TLS=0); threads play the other PEs
 * and strays, writing hellos by hand: a good PE joins; a stray speaking
 * another protocol, one with a wrong secret, one of another protocol
 * version are each refused with the reject message and the reason, and the
 * job still forms; a silent stray delays nobody; a hello arriving a byte at
 * a time is read across polls; a PE with the secret but another job size,
 * a rank out of range, two PEs claiming one rank, another fan-out fail the
 * job naming the cause; a missing PE times out naming its rank; with OpenSSL, a TLS
 * speaker without the secret is refused. Prints one line per check; exits 0
 * only if every check passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/boot.h"
#include "boot/tcp/tcp_wire.h"
#include "boot/tls.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *const SECRET = "0123456789abcdef0123456789abcdef";
static const char *const OTHER = "fedcba9876543210fedcba9876543210";
static int failed;

static void check(int ok, const char *what, const char *detail)
{
    printf("%s: %s%s%s\n", ok ? "ok  " : "FAIL", what, detail ? ": " : "", detail ? detail : "");
    failed |= !ok;
}

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* One client: a PE or a stray. */
typedef struct client {
    int port;
    uint8_t msg[128];
    size_t len;
    int bytewise;        /* send a byte at a time */
    int want_reply;      /* read a header back */
    volatile int *after; /* wait for this flag before connecting */
    volatile int done;   /* it has sent (and read its reply) */
    int fd;
    int got_reply;
    tcp_hdr_t reply;
    pthread_t th;
} client_t;

static void hello(client_t *c, int rank, int size, int k, const char *secret, int version)
{
    tcp_hdr_pack(c->msg, TCP_MSG_HELLO, (uint32_t)k, rank, (uint64_t)size);
    if (version != TCP_VERSION) {
        uint16_t v = htobe16((uint16_t)version);
        memcpy(c->msg + 4, &v, 2);
    }
    memcpy(c->msg + TCP_HDR_LEN, secret, TCP_SECRET_LEN);
    c->len = TCP_HELLO_LEN;
}

static void *client_run(void *arg)
{
    client_t *c = arg;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)c->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; c->after != NULL && !*c->after && i < 10000; i++)
        nap_ms(1);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        goto out;
    for (size_t off = 0; off < c->len;) {
        size_t n = c->bytewise ? 1 : c->len - off;
        ssize_t k = send(c->fd, c->msg + off, n, MSG_NOSIGNAL);
        if (k <= 0)
            goto out;
        off += (size_t)k;
        if (c->bytewise)
            nap_ms(2);
    }
    if (c->want_reply) {
        uint8_t h[TCP_HDR_LEN];
        size_t got = 0;
        while (got < TCP_HDR_LEN) {
            struct pollfd p = {c->fd, POLLIN, 0};
            if (poll(&p, 1, 10000) <= 0)
                break;
            ssize_t k = recv(c->fd, h + got, TCP_HDR_LEN - got, 0);
            if (k <= 0)
                break;
            got += (size_t)k;
        }
        if (got == TCP_HDR_LEN) {
            c->reply = tcp_hdr_unpack(h);
            c->got_reply = 1;
        }
    }
out:
    c->done = 1;
    return NULL;
}

static void client_start(client_t *c, int port)
{
    c->port = port;
    c->fd = -1;
    pthread_create(&c->th, NULL, client_run, c);
}

static void client_end(client_t *c)
{
    pthread_join(c->th, NULL);
    if (c->fd >= 0)
        close(c->fd);
}

/* A listening socket on 127.0.0.1, any port. */
static int listen_any(int *port_p)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t sl = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        perror("listen");
        exit(2);
    }
    *port_p = ntohs(sa.sin_port);
    return fd;
}

/* Rank 0 of a star of size PEs, timing out after timeout_s, with the
 * clients [0, n) connecting meanwhile. */
static int run_root(int size, double timeout_s, client_t *cl, int n)
{
    int port, lfd = listen_any(&port);
    symm_boot_tcp_params_t p = {.rank = 0,
                                .size = size,
                                .root_addr = NULL,
                                .listen_fd = lfd,
                                .secret = SECRET,
                                .timeout_s = timeout_s};
    symm_boot_t *boot = NULL;
    for (int i = 0; i < n; i++)
        client_start(&cl[i], port);
    symm_log_clear_error();
    int rc = symm_boot_tcp_create(&p, &boot);
    if (rc == SYMM_OK && (boot->rank != 0 || boot->size != size))
        rc = SYMM_ERR_INVALID;
    for (int i = 0; i < n; i++)
        client_end(&cl[i]);
    if (boot != NULL)
        symm_boot_destroy(boot);
    return rc;
}

static int last_has(const char *s)
{
    return strstr(symm_log_last_error(), s) != NULL;
}

/* A stray refused with reason, then a good PE 1 joins. */
static void stray_then_pe(const char *what, client_t *stray, int reason, const char *text)
{
    client_t cl[2];
    cl[0] = *stray;
    cl[0].want_reply = 1;
    memset(&cl[1], 0, sizeof(cl[1]));
    hello(&cl[1], 1, 2, 16, SECRET, TCP_VERSION);
    cl[1].after = &cl[0].done;
    int rc = run_root(2, 20, cl, 2);
    char d[256];
    snprintf(d, sizeof(d), "rc %d, reply %s type %u arg %d; last error '%s'", rc,
             cl[0].got_reply ? "got" : "none", cl[0].reply.type, cl[0].reply.arg,
             symm_log_last_error());
    check(rc == SYMM_OK && cl[0].got_reply && cl[0].reply.magic == TCP_MAGIC &&
              cl[0].reply.type == TCP_MSG_REJECT && cl[0].reply.arg == reason &&
              last_has("refused connection from 127.0.0.1:") && last_has(text),
          what, d);
}

/* The job fails with status want, the last error saying text. */
static void job_fails(const char *what, int size, double timeout_s, client_t *cl, int n, int want,
                      const char *text)
{
    int rc = run_root(size, timeout_s, cl, n);
    char d[300];
    snprintf(d, sizeof(d), "rc %d (want %d); last error '%s'", rc, want, symm_log_last_error());
    check(rc == want && last_has(text), what, d);
}

static void test_wire(void)
{
    uint8_t b[TCP_HDR_LEN];
    tcp_hdr_pack(b, TCP_MSG_ALLGATHER, 0xfedcba98u, -7, 0x0123456789abcdefull);
    tcp_hdr_t h = tcp_hdr_unpack(b);
    check(memcmp(b, "SYMB", 4) == 0 && b[4] == 0 && b[5] == TCP_VERSION,
          "header: magic and version first, big-endian", NULL);
    check(h.magic == TCP_MAGIC && h.version == TCP_VERSION && h.type == TCP_MSG_ALLGATHER &&
              h.seq == 0xfedcba98u && h.arg == -7 && h.len == 0x0123456789abcdefull,
          "header: pack then unpack gives every field back", NULL);
    check(strcmp(tcp_reject_text(TCP_REJECT_SECRET), "bad job secret") == 0 &&
              strcmp(tcp_reject_text(99), "unknown reason") == 0,
          "reject reasons as text", NULL);
    check(strcmp(symm_tcp_msg_name(TCP_MSG_BARRIER), "barrier") == 0 &&
              strcmp(symm_tcp_msg_name(99), "unknown message") == 0,
          "message names", NULL);
}

int main(void)
{
    client_t cl[3];
    setenv("SYMM_BOOT_TLS", "0", 1);
    symm_log_set_level(0);
    test_wire();

    /* A good PE joins. */
    memset(cl, 0, sizeof(cl));
    hello(&cl[0], 1, 2, 16, SECRET, TCP_VERSION);
    int rc = run_root(2, 20, cl, 1);
    check(rc == SYMM_OK, "a PE with the secret joins", NULL);

    /* Two PEs, one sending its hello a byte at a time (resumed across
     * polls), and a silent stray that must delay nobody. */
    memset(cl, 0, sizeof(cl));
    hello(&cl[0], 1, 3, 16, SECRET, TCP_VERSION);
    hello(&cl[1], 2, 3, 16, SECRET, TCP_VERSION);
    cl[1].bytewise = 1;
    cl[2].len = 0; /* connects, says nothing */
    rc = run_root(3, 20, cl, 3);
    check(rc == SYMM_OK, "a hello a byte at a time, and a silent stray", NULL);

    /* Strays refused, with the reason, and the job still forms. */
    client_t s;
    memset(&s, 0, sizeof(s));
    memcpy(s.msg, "GET / HTTP/1.0\r\n\r\n", 18);
    s.len = 18;
    stray_then_pe("another protocol is refused", &s, TCP_REJECT_PROTOCOL,
                  "not a symm bootstrap hello");
    memset(&s, 0, sizeof(s));
    hello(&s, 1, 2, 16, OTHER, TCP_VERSION);
    stray_then_pe("a wrong secret is refused", &s, TCP_REJECT_SECRET, "bad job secret");
    memset(&s, 0, sizeof(s));
    hello(&s, 1, 2, 16, SECRET, TCP_VERSION + 1);
    s.len = 8; /* judged on its first 8 bytes */
    char speaks[48];
    snprintf(speaks, sizeof(speaks), "(it speaks %d, this PE %d)", TCP_VERSION + 1, TCP_VERSION);
    stray_then_pe("another protocol version is refused", &s, TCP_REJECT_VERSION, speaks);

    /* PEs of this job whose settings differ fail the job. */
    memset(cl, 0, sizeof(cl));
    hello(&cl[0], 1, 3, 16, SECRET, TCP_VERSION);
    job_fails("another job size fails the job", 2, 20, cl, 1, SYMM_ERR_BOOT,
              "was started with job size 3, PE 0 with 2");
    memset(cl, 0, sizeof(cl));
    hello(&cl[0], 5, 2, 16, SECRET, TCP_VERSION);
    job_fails("a rank out of range fails the job", 2, 20, cl, 1, SYMM_ERR_BOOT,
              "claims rank 5, outside 1..1");
    memset(cl, 0, sizeof(cl));
    hello(&cl[0], 1, 3, 16, SECRET, TCP_VERSION);
    hello(&cl[1], 1, 3, 16, SECRET, TCP_VERSION);
    cl[1].after = &cl[0].done;
    job_fails("two PEs claiming one rank fail the job", 3, 20, cl, 2, SYMM_ERR_BOOT,
              "two PEs claim rank 1");
    memset(cl, 0, sizeof(cl));
    hello(&cl[0], 1, 2, 4, SECRET, TCP_VERSION);
    cl[0].want_reply = 1;
    job_fails("a PE of another fan-out fails the job", 2, 20, cl, 1, SYMM_ERR_BOOT,
              "runs the bootstrap as a tree of fan-out 4, PE 0 of fan-out 16");
    check(cl[0].got_reply && cl[0].reply.type == TCP_MSG_REJECT &&
              cl[0].reply.arg == TCP_REJECT_TREE,
          "... and it is told why", NULL);

    /* A PE that never comes: the timeout names it. */
    memset(cl, 0, sizeof(cl));
    hello(&cl[0], 1, 3, 16, SECRET, TCP_VERSION);
    job_fails("a missing PE times out, named", 3, 0.5, cl, 1, SYMM_ERR_TIMEOUT,
              "timed out after 0.5 s waiting for PE(s) 2 to connect");

    /* A TLS speaker at a plain PE 0 proves no secret: refused. */
    if (symm_tls_built()) {
        memset(&s, 0, sizeof(s));
        /* A TLS handshake record holding an empty ClientHello. */
        static const uint8_t bad_hello[] = {0x16, 0x03, 0x01, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00};
        memcpy(s.msg, bad_hello, sizeof(bad_hello));
        s.len = sizeof(bad_hello);
        s.want_reply = 1;
        memset(cl, 0, sizeof(cl));
        cl[0] = s;
        hello(&cl[1], 1, 2, 16, SECRET, TCP_VERSION);
        cl[1].after = &cl[0].done;
        rc = run_root(2, 20, cl, 2);
        char d[256];
        snprintf(d, sizeof(d), "rc %d; last error '%s'", rc, symm_log_last_error());
        check(rc == SYMM_OK && last_has("TLS handshake failed") &&
                  last_has("it speaks TLS; bootstrap TLS is off on PE 0"),
              "a TLS speaker without the secret is refused", d);
    }

    printf("%s\n", failed ? "FAILED" : "all passed");
    return failed;
}
