/*
 * tcp.c - the built-in bootstrap: a star over TCP (also the unique-id mode).
 *
 * Owns the sockets between rank 0 and every other PE, the hello handshake
 * (magic, version, rank, size, job secret) and the star collectives: each PE
 * sends its part to rank 0, rank 0 answers everyone. Rank 0 listens on the
 * socket the launcher gave it, or binds root_addr itself (unique-id mode);
 * the others connect, retrying while rank 0 is not listening yet.
 *
 * Every socket is non-blocking and every wait is a poll() bounded by a
 * deadline, so rank 0 serves 1024 PEs at once and never blocks on one slow
 * peer. Rank 0 bounds its waits by timeout_s and names the PEs it waits for;
 * the others wait twice as long for rank 0, so that rank 0's precise report
 * (and the abort message it sends them) comes first. timeout_s <= 0 waits
 * forever.
 *
 * Must never: sleep on the common path (a small job's init costs a few round
 * trips, no timer ticks), raise SIGPIPE, accept a peer that did not present
 * the job secret, let an unauthenticated connection end the job, or log more
 * than one line per failure. Not thread-safe: one caller at a time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, memfd_create, SO_PEERCRED, MSG_CMSG_CLOEXEC */
#endif
#include "boot/boot.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ---- wire format ---------------------------------------------------------
 * Every message starts with a 24-byte header, big-endian:
 *   magic u32 | version u16 | type u16 | seq u32 | arg i32 | len u64
 * hello:     arg = rank, len = size, then the 32-byte secret; seq 0
 * barrier:   arg = sender's rank, len 0; rank 0's reply has arg 0
 * allgather: arg = sender's rank, len = blob length, then the blob; rank 0's
 *            reply has len = size * blob length, then every blob
 * reject:    arg = reason (REJECT_*), sent by rank 0 before closing
 * abort:     arg = culprit rank or -1, len = -status; rank 0 gave up
 * magic and version stay where they are in every future version. */
#define TCP_MAGIC 0x53594d42u /* "SYMB" */
#define TCP_VERSION 1
#define HDR_LEN 24
#define SECRET_LEN 32
#define HELLO_LEN (HDR_LEN + SECRET_LEN)

enum { MSG_HELLO = 1, MSG_BARRIER, MSG_ALLGATHER, MSG_REJECT, MSG_ABORT };
enum { REJECT_PROTOCOL = 1, REJECT_VERSION, REJECT_SECRET };

/* Connections that have not finished their hello, beyond the PEs still
 * expected; past that rank 0 leaves new ones in the listen backlog. */
#define PEND_EXTRA 64

/* Results of the I/O helpers besides 1 (done) and 0 (would block). */
#define IO_EOF (-5000)
#define IO_TIMEOUT (-5001)

typedef struct tcp_hdr {
    uint32_t magic;
    uint16_t version;
    uint16_t type;
    uint32_t seq;
    int32_t arg;
    uint64_t len;
} tcp_hdr_t;

static void hdr_pack(uint8_t *b, int type, uint32_t seq, int32_t arg, uint64_t len)
{
    uint32_t m = htobe32(TCP_MAGIC), s = htobe32(seq), a = htobe32((uint32_t)arg);
    uint16_t v = htobe16(TCP_VERSION), t = htobe16((uint16_t)type);
    uint64_t l = htobe64(len);
    memcpy(b, &m, 4);
    memcpy(b + 4, &v, 2);
    memcpy(b + 6, &t, 2);
    memcpy(b + 8, &s, 4);
    memcpy(b + 12, &a, 4);
    memcpy(b + 16, &l, 8);
}

static tcp_hdr_t hdr_unpack(const uint8_t *b)
{
    tcp_hdr_t h;
    uint32_t a;
    memcpy(&h.magic, b, 4);
    memcpy(&h.version, b + 4, 2);
    memcpy(&h.type, b + 6, 2);
    memcpy(&h.seq, b + 8, 4);
    memcpy(&a, b + 12, 4);
    memcpy(&h.len, b + 16, 8);
    h.magic = be32toh(h.magic);
    h.version = be16toh(h.version);
    h.type = be16toh(h.type);
    h.seq = be32toh(h.seq);
    h.arg = (int32_t)be32toh(a);
    h.len = be64toh(h.len);
    return h;
}

static const char *msg_name(int type)
{
    switch (type) {
    case MSG_HELLO: return "hello";
    case MSG_BARRIER: return "barrier";
    case MSG_ALLGATHER: return "allgather";
    case MSG_REJECT: return "reject";
    case MSG_ABORT: return "abort";
    }
    return "unknown message";
}

static const char *reject_text(int reason)
{
    switch (reason) {
    case REJECT_PROTOCOL: return "not a symm bootstrap hello";
    case REJECT_VERSION: return "bootstrap protocol version differs";
    case REJECT_SECRET: return "bad job secret";
    }
    return "unknown reason";
}

/* ---- time, poll, rank lists --------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A deadline is a monotonic time in seconds; < 0 means never. */
static double deadline_after(double timeout_s) { return timeout_s > 0 ? now_s() + timeout_s : -1.0; }

static int deadline_ms(double end)
{
    if (end < 0)
        return -1;
    double left = end - now_s();
    if (left <= 0)
        return 0;
    return left > 1e6 ? 1000000000 : (int)(left * 1e3) + 1;
}

/* poll() until something is ready (> 0), the deadline passes (0) or an error
 * (-errno). Ready descriptors are reported even at the deadline. */
static int poll_until(struct pollfd *p, nfds_t n, double end)
{
    for (;;) {
        int ms = deadline_ms(end);
        int rc = poll(p, n, ms);
        if (rc > 0 || (rc == 0 && ms == 0))
            return rc;
        if (rc < 0 && errno != EINTR)
            return -errno;
    }
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* "2, 3, 7-9" from ascending ranks; "..., (N in all)" when it does not fit. */
static void ranks_format(char *buf, size_t cap, const int *r, int n)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n;) {
        int j = i;
        char item[40];
        while (j + 1 < n && r[j + 1] == r[j] + 1)
            j++;
        if (j == i)
            snprintf(item, sizeof(item), "%d", r[i]);
        else if (j == i + 1)
            snprintf(item, sizeof(item), "%d, %d", r[i], r[j]);
        else
            snprintf(item, sizeof(item), "%d-%d", r[i], r[j]);
        if (off + strlen(item) + 32 >= cap) {
            snprintf(buf + off, cap - off, "%s... (%d in all)", off ? ", " : "", n);
            return;
        }
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", off ? ", " : "", item);
        i = j + 1;
    }
}

/* ---- socket I/O ----------------------------------------------------------- */

/* Send a then b from *off on; 1 when all is sent, 0 when the socket is full,
 * else -errno. Never raises SIGPIPE. */
static int send_some(int fd, const void *a, size_t alen, const void *b, size_t blen, size_t *off)
{
    while (*off < alen + blen) {
        struct iovec iov[2];
        int n = 0;
        if (*off < alen) {
            iov[n++] = (struct iovec){(char *)a + *off, alen - *off};
            if (blen > 0)
                iov[n++] = (struct iovec){(void *)b, blen};
        } else {
            iov[n++] = (struct iovec){(char *)b + (*off - alen), alen + blen - *off};
        }
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t k = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k >= 0)
            *off += (size_t)k;
        else if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        else if (errno != EINTR)
            return -errno;
    }
    return 1;
}

/* Receive into buf[*off, n); 1 when full, 0 when nothing more is there yet,
 * IO_EOF when the peer closed, else -errno. */
static int recv_some(int fd, void *buf, size_t n, size_t *off)
{
    while (*off < n) {
        ssize_t k = recv(fd, (char *)buf + *off, n - *off, MSG_DONTWAIT);
        if (k > 0)
            *off += (size_t)k;
        else if (k == 0)
            return IO_EOF;
        else if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        else if (errno != EINTR)
            return -errno;
    }
    return 1;
}

static int send_all(int fd, const void *a, size_t alen, const void *b, size_t blen, double end)
{
    size_t off = 0;
    for (;;) {
        int rc = send_some(fd, a, alen, b, blen, &off);
        if (rc != 0)
            return rc == 1 ? 0 : rc;
        struct pollfd p = {fd, POLLOUT, 0};
        rc = poll_until(&p, 1, end);
        if (rc <= 0)
            return rc == 0 ? IO_TIMEOUT : rc;
    }
}

static int recv_all(int fd, void *buf, size_t n, double end)
{
    size_t off = 0;
    for (;;) {
        int rc = recv_some(fd, buf, n, &off);
        if (rc != 0)
            return rc == 1 ? 0 : rc;
        struct pollfd p = {fd, POLLIN, 0};
        rc = poll_until(&p, 1, end);
        if (rc <= 0)
            return rc == 0 ? IO_TIMEOUT : rc;
    }
}

static void set_nodelay(int fd)
{
    int one = 1;
    /* Best effort: without it collectives are slower, not wrong. */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void addr_text(const struct sockaddr *sa, socklen_t len, char *buf, size_t cap)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(buf, cap, "an unknown address");
    else
        snprintf(buf, cap, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
}

/* "host:port" or "[v6]:port" into host and port; 0 on success. */
static int addr_split(const char *addr, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon, *h = addr, *hend;
    if (addr == NULL)
        return -1;
    if (addr[0] == '[') {
        h = addr + 1;
        hend = strchr(h, ']');
        if (hend == NULL || hend[1] != ':')
            return -1;
        colon = hend + 1;
    } else {
        colon = strrchr(addr, ':');
        if (colon == NULL)
            return -1;
        hend = colon;
    }
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (hend == h || (size_t)(hend - h) >= hcap || colon[1] == '\0' || *end != '\0' || p < 1 ||
        p > 65535)
        return -1;
    memcpy(host, h, (size_t)(hend - h));
    host[hend - h] = '\0';
    snprintf(port, pcap, "%ld", p);
    return 0;
}

/* ---- the bootstrap object ------------------------------------------------ */

typedef struct tcp_boot {
    symm_boot_t base;
    int root_fd;          /* other ranks: the socket to rank 0 */
    int *peer_fd;         /* rank 0: socket of each rank; [0] is -1 */
    uint32_t seq;         /* number of the current collective */
    int failed;           /* first failure; later calls return it without a word */
    struct pollfd *pfd;   /* rank 0: scratch for one step, sized for the job */
    int *pfd_rank;
    size_t *moved;
    uint8_t *hdr;         /* rank 0: HDR_LEN per rank */
} tcp_boot_t;

static void step_text(char *buf, size_t cap, int type, uint32_t seq)
{
    snprintf(buf, cap, "%s #%u", msg_name(type), seq);
}

/* Log a failed exchange with PE `pe`; returns the status for it. */
static int io_report(tcp_boot_t *tb, int pe, int io, const char *during, double waited_s)
{
    if (io == IO_TIMEOUT) {
        symm_error("bootstrap", "timed out after %g s waiting for PE %d (%s)", waited_s, pe,
                   during);
        return SYMM_ERR_TIMEOUT;
    }
    if (io == IO_EOF || io == -ECONNRESET || io == -EPIPE) {
        symm_error("bootstrap", "PE %d closed its bootstrap connection during %s "
                   "(did it exit or die?)", pe, during);
        return SYMM_ERR_PEER;
    }
    symm_error("bootstrap", "connection to PE %d failed during %s: %s", pe, during,
               strerror(-io));
    (void)tb;
    return SYMM_ERR_PEER;
}

/* Rank 0 gives up: tell every connected PE but the culprit, so they fail now
 * instead of at their own timeout. A PE that has part of a reply would
 * misread an abort header after it, so its socket is shut down instead. */
static void root_abort(tcp_boot_t *tb, int culprit, int status, const size_t *sent, size_t total)
{
    uint8_t h[HDR_LEN];
    hdr_pack(h, MSG_ABORT, tb->seq, culprit, (uint64_t)(-(int64_t)status));
    for (int r = 1; r < tb->base.size; r++) {
        int fd = tb->peer_fd[r];
        if (fd < 0 || r == culprit)
            continue;
        if (sent != NULL && sent[r] > 0 && sent[r] < HDR_LEN + total)
            (void)shutdown(fd, SHUT_RDWR);
        else
            (void)send(fd, h, HDR_LEN, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    tb->failed = status;
}

static int root_timeout(tcp_boot_t *tb, int npend, const char *what)
{
    int *miss = malloc((size_t)npend * sizeof(*miss)), n = 0;
    char list[512];
    if (miss == NULL) {
        symm_error("bootstrap", "timed out after %g s waiting for %d PE(s) %s",
                   tb->base.timeout_s, npend, what);
        return SYMM_ERR_TIMEOUT;
    }
    /* The pending set is in poll order; the flags put it in rank order. */
    char *flag = calloc((size_t)tb->base.size, 1);
    if (flag != NULL) {
        for (int i = 0; i < npend; i++)
            flag[tb->pfd_rank[i]] = 1;
        for (int r = 0; r < tb->base.size; r++)
            if (flag[r])
                miss[n++] = r;
        free(flag);
    } else {
        for (int i = 0; i < npend; i++)
            miss[n++] = tb->pfd_rank[i];
    }
    ranks_format(list, sizeof(list), miss, n);
    symm_error("bootstrap", "timed out after %g s waiting for PE(s) %s %s", tb->base.timeout_s,
               list, what);
    free(miss);
    return SYMM_ERR_TIMEOUT;
}

/* ---- hello phase, rank 0 ------------------------------------------------- */

typedef struct pend_conn {
    int fd;
    size_t got;
    uint8_t buf[HELLO_LEN];
    char from[64];
} pend_conn_t;

static int root_listen(const char *addr, double end, int *fd_p)
{
    char host[256], port[8];
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res;
    double backoff = 1e-3, give_up = end >= 0 ? end : now_s() + 60;
    int err = 0, rc;

    if (addr_split(addr, host, sizeof(host), port, sizeof(port)) != 0) {
        symm_error("bootstrap", "bad bootstrap address '%s' (expected host:port)",
                   addr ? addr : "(null)");
        return SYMM_ERR_INVALID;
    }
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        symm_error("bootstrap", "cannot resolve '%s': %s", addr, gai_strerror(rc));
        return SYMM_ERR_BOOT;
    }
    for (;;) {
        for (struct addrinfo *a = res; a != NULL; a = a->ai_next) {
            int one = 1;
            int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                err = errno;
                continue;
            }
            (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
            if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) {
                freeaddrinfo(res);
                *fd_p = fd;
                return SYMM_OK;
            }
            err = errno;
            close(fd);
        }
        /* A previous job's socket may still hold the port for a moment. */
        if (err != EADDRINUSE || now_s() + backoff > give_up)
            break;
        sleep_s(backoff);
        backoff = backoff < 0.05 ? backoff * 2 : 0.1;
    }
    freeaddrinfo(res);
    symm_error("bootstrap", "cannot listen on %s: %s", addr, strerror(err));
    return SYMM_ERR_BOOT;
}

static void conn_refuse(pend_conn_t *c, int reason, const char *detail)
{
    uint8_t h[HDR_LEN];
    hdr_pack(h, MSG_REJECT, 0, reason, 0);
    (void)send(c->fd, h, HDR_LEN, MSG_NOSIGNAL | MSG_DONTWAIT);
    symm_error("bootstrap", "refused connection from %s: %s%s", c->from, reject_text(reason),
               detail);
    close(c->fd);
    c->fd = -1;
}

static int secret_equal(const uint8_t *a, const char *b)
{
    unsigned diff = 0;
    for (int i = 0; i < SECRET_LEN; i++)
        diff |= (unsigned)(a[i] ^ (uint8_t)b[i]);
    return diff == 0;
}

/* Progress one pending connection. Returns 1 when it is used up (a PE
 * joined, or the connection was refused or lost), 0 to keep waiting, or a
 * failure status of the job. */
static int hello_step(tcp_boot_t *tb, pend_conn_t *c, int *joined_p)
{
    int rc = recv_some(c->fd, c->buf, HELLO_LEN, &c->got);
    if (rc < 0) {
        symm_debug("bootstrap", "connection from %s lost before its hello", c->from);
        close(c->fd);
        c->fd = -1;
        return 1;
    }
    /* Judge the first 8 bytes at once, so that a stray client that sends a
     * few bytes and waits is dropped now. */
    if (c->got >= 8) {
        tcp_hdr_t h = hdr_unpack(c->buf);
        if (h.magic != TCP_MAGIC) {
            conn_refuse(c, REJECT_PROTOCOL, "");
            return 1;
        }
        if (h.version != TCP_VERSION) {
            char d[64];
            snprintf(d, sizeof(d), " (it speaks %u, this PE %u)", h.version, TCP_VERSION);
            conn_refuse(c, REJECT_VERSION, d);
            return 1;
        }
    }
    if (rc == 0)
        return 0;

    tcp_hdr_t h = hdr_unpack(c->buf);
    if (h.type != MSG_HELLO) {
        conn_refuse(c, REJECT_PROTOCOL, "");
        return 1;
    }
    if (!secret_equal(c->buf + HDR_LEN, tb->base.secret)) {
        conn_refuse(c, REJECT_SECRET, "");
        return 1;
    }
    /* From here the peer is part of this job: a mismatch is the launcher's
     * or the user's error, and waiting would only turn it into a timeout. */
    int size = tb->base.size, r = h.arg;
    if (h.len != (uint64_t)size) {
        symm_error("bootstrap", "PE %d (from %s) was started with job size %llu, PE 0 with %d",
                   r, c->from, (unsigned long long)h.len, size);
        return SYMM_ERR_BOOT;
    }
    if (r <= 0 || r >= size) {
        symm_error("bootstrap", "a PE from %s claims rank %d, outside 1..%d", c->from, r,
                   size - 1);
        return SYMM_ERR_BOOT;
    }
    if (tb->peer_fd[r] >= 0) {
        symm_error("bootstrap", "two PEs claim rank %d (the second from %s)", r, c->from);
        return SYMM_ERR_BOOT;
    }
    tb->peer_fd[r] = c->fd;
    c->fd = -1;
    (*joined_p)++;
    return 1;
}

/* Accept until every other rank has said hello; the listening socket stays
 * the caller's to close. */
static int root_accept_all(tcp_boot_t *tb, int lfd, double end)
{
    int size = tb->base.size, joined = 0, np = 0, cap = 0, rc = SYMM_OK;
    pend_conn_t *pend = NULL;
    struct pollfd *pfd = NULL;

    while (joined < size - 1) {
        int max_pend = size - 1 - joined + PEND_EXTRA;
        if (cap < max_pend) {
            pend_conn_t *np_ = realloc(pend, (size_t)max_pend * sizeof(*pend));
            struct pollfd *nf = realloc(pfd, (size_t)(max_pend + 1) * sizeof(*pfd));
            if (np_ != NULL)
                pend = np_;
            if (nf != NULL)
                pfd = nf;
            if (np_ == NULL || nf == NULL) {
                symm_error("bootstrap", "out of memory");
                rc = SYMM_ERR_NOMEM;
                goto err_close_pending;
            }
            cap = max_pend;
        }
        pfd[0] = (struct pollfd){np < max_pend ? lfd : -1, POLLIN, 0};
        for (int i = 0; i < np; i++)
            pfd[i + 1] = (struct pollfd){pend[i].fd, POLLIN, 0};

        int pr = poll_until(pfd, (nfds_t)np + 1, end);
        if (pr == 0) {
            int n = 0;
            for (int r = 1; r < size; r++)
                if (tb->peer_fd[r] < 0)
                    tb->pfd_rank[n++] = r;
            rc = root_timeout(tb, n, "to connect");
            goto err_close_pending;
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            rc = SYMM_ERR_SYS;
            goto err_close_pending;
        }
        /* Backwards, so that removing by moving the last one in is safe. */
        for (int i = np - 1; i >= 0; i--) {
            if (pfd[i + 1].revents == 0)
                continue;
            int used = hello_step(tb, &pend[i], &joined);
            if (used < 0) {
                rc = used;
                goto err_close_pending;
            }
            if (used)
                pend[i] = pend[--np];
        }
        while ((pfd[0].revents & POLLIN) && np < max_pend) {
            struct sockaddr_storage ss;
            socklen_t sl = sizeof(ss);
            int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    break;
                if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
                    continue;
                struct rlimit rl = {0, 0};
                getrlimit(RLIMIT_NOFILE, &rl);
                symm_error("bootstrap", "accepting PE connections failed: %s (%d of %d "
                           "PEs joined; open files limit %llu)", strerror(errno), joined + 1,
                           size, (unsigned long long)rl.rlim_cur);
                rc = SYMM_ERR_SYS;
                goto err_close_pending;
            }
            set_nodelay(fd);
            pend[np].fd = fd;
            pend[np].got = 0;
            addr_text((struct sockaddr *)&ss, sl, pend[np].from, sizeof(pend[np].from));
            np++;
        }
    }
    /* Connections still mid-hello are strays: every PE has joined. */
err_close_pending:
    for (int i = 0; i < np; i++)
        close(pend[i].fd);
    free(pend);
    free(pfd);
    if (rc != SYMM_OK)
        root_abort(tb, -1, rc, NULL, 0);
    return rc;
}

/* ---- hello phase, other ranks -------------------------------------------- */

static int connect_retryable(int err)
{
    return err == ECONNREFUSED || err == ETIMEDOUT || err == ECONNRESET ||
           err == ECONNABORTED || err == ENETUNREACH || err == EHOSTUNREACH || err == EAGAIN ||
           err == EINTR;
}

/* Connect to rank 0, which in unique-id mode may not listen yet. */
static int peer_connect(const char *addr, double end, int *fd_p)
{
    char host[256], port[8];
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res;
    double t0 = now_s(), backoff = 1e-3;
    int err = 0, rc;

    if (addr_split(addr, host, sizeof(host), port, sizeof(port)) != 0) {
        symm_error("bootstrap", "bad bootstrap address '%s' (expected host:port)",
                   addr ? addr : "(null)");
        return SYMM_ERR_INVALID;
    }
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        symm_error("bootstrap", "cannot resolve '%s': %s", addr, gai_strerror(rc));
        return SYMM_ERR_BOOT;
    }
    for (;;) {
        for (struct addrinfo *a = res; a != NULL; a = a->ai_next) {
            int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                err = errno;
                continue;
            }
            rc = connect(fd, a->ai_addr, a->ai_addrlen);
            if (rc != 0 && errno == EINPROGRESS) {
                struct pollfd p = {fd, POLLOUT, 0};
                int pr = poll_until(&p, 1, end);
                socklen_t el = sizeof(err);
                if (pr <= 0)
                    err = pr == 0 ? ETIMEDOUT : -pr;
                else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
                    err = errno;
                rc = err == 0 ? 0 : -1;
            } else if (rc != 0) {
                err = errno;
            }
            if (rc == 0) {
                set_nodelay(fd);
                freeaddrinfo(res);
                *fd_p = fd;
                return SYMM_OK;
            }
            close(fd);
        }
        int ms = deadline_ms(end);
        if (!connect_retryable(err) || ms == 0)
            break;
        sleep_s(ms < 0 || backoff < ms * 1e-3 ? backoff : ms * 1e-3);
        backoff = backoff < 0.05 ? backoff * 2 : 0.1;
    }
    freeaddrinfo(res);
    if (connect_retryable(err)) {
        symm_error("bootstrap", "timed out after %g s waiting for PE 0 at %s (%s)",
                   now_s() - t0, addr, strerror(err));
        return SYMM_ERR_TIMEOUT;
    }
    symm_error("bootstrap", "cannot connect to PE 0 at %s: %s", addr, strerror(err));
    return SYMM_ERR_BOOT;
}

/* ---- collectives ---------------------------------------------------------- */

static int root_check_hdr(tcp_boot_t *tb, int r, int type, size_t len, const uint8_t *b)
{
    tcp_hdr_t h = hdr_unpack(b);
    if (h.magic == TCP_MAGIC && h.type == type && h.seq == tb->seq && h.arg == r &&
        h.len == len)
        return SYMM_OK;
    if (h.magic != TCP_MAGIC) {
        symm_error("bootstrap", "garbled message from PE %d during %s #%u", r, msg_name(type),
                   tb->seq);
    } else if (h.type != type || h.seq != tb->seq) {
        symm_error("bootstrap", "mismatched calls: PE %d is in bootstrap %s #%u, PE 0 in %s #%u",
                   r, msg_name(h.type), h.seq, msg_name(type), tb->seq);
    } else {
        symm_error("bootstrap", "mismatched calls: PE %d gives %llu bytes to allgather #%u, "
                   "PE 0 gives %zu", r, (unsigned long long)h.len, tb->seq, len);
    }
    return SYMM_ERR_BOOT;
}

/* Progress rank r's part of a gather; sets *done_p when it is all there. */
static int root_recv_step(tcp_boot_t *tb, int r, int type, void *out, size_t len, int *done_p)
{
    int fd = tb->peer_fd[r], io = 1, rc;
    uint8_t *h = tb->hdr + (size_t)r * HDR_LEN;
    char during[48];

    if (tb->moved[r] < HDR_LEN) {
        io = recv_some(fd, h, HDR_LEN, &tb->moved[r]);
        if (io == 1 && (rc = root_check_hdr(tb, r, type, len, h)) != SYMM_OK)
            return rc;
    }
    if (io == 1 && len > 0) {
        size_t off = tb->moved[r] - HDR_LEN;
        io = recv_some(fd, (uint8_t *)out + (size_t)r * len, len, &off);
        tb->moved[r] = HDR_LEN + off;
    }
    if (io < 0) {
        step_text(during, sizeof(during), type, tb->seq);
        return io_report(tb, r, io, during, 0);
    }
    *done_p = io == 1;
    return SYMM_OK;
}

static int root_gather(tcp_boot_t *tb, int type, void *out, size_t len, double end, int *culprit_p)
{
    char what[48];
    int n = 0;
    for (int r = 1; r < tb->base.size; r++) {
        tb->moved[r] = 0;
        tb->pfd[n] = (struct pollfd){tb->peer_fd[r], POLLIN, 0};
        tb->pfd_rank[n++] = r;
    }
    while (n > 0) {
        int pr = poll_until(tb->pfd, (nfds_t)n, end);
        if (pr == 0) {
            snprintf(what, sizeof(what), "in %s #%u", msg_name(type), tb->seq);
            return root_timeout(tb, n, what);
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            return SYMM_ERR_SYS;
        }
        for (int i = 0; i < n;) {
            int r = tb->pfd_rank[i], done = 0, rc;
            if (tb->pfd[i].revents == 0) {
                i++;
                continue;
            }
            rc = root_recv_step(tb, r, type, out, len, &done);
            if (rc != SYMM_OK) {
                *culprit_p = r;
                return rc;
            }
            if (done) {
                tb->pfd[i] = tb->pfd[--n];
                tb->pfd_rank[i] = tb->pfd_rank[n];
            } else {
                i++;
            }
        }
    }
    return SYMM_OK;
}

/* Send the result to every rank at once, as fast as each one takes it. */
static int root_scatter(tcp_boot_t *tb, int type, const void *data, size_t total, double end,
                        int *culprit_p)
{
    uint8_t h[HDR_LEN];
    char what[64];
    int n = 0;
    hdr_pack(h, type, tb->seq, 0, total);
    for (int r = 1; r < tb->base.size; r++) {
        tb->moved[r] = 0;
        /* Try every socket once before the first poll: usually it all fits. */
        tb->pfd[n] = (struct pollfd){tb->peer_fd[r], POLLOUT, POLLOUT};
        tb->pfd_rank[n++] = r;
    }
    for (;;) {
        for (int i = 0; i < n;) {
            int r = tb->pfd_rank[i];
            if (tb->pfd[i].revents == 0) {
                i++;
                continue;
            }
            int io = send_some(tb->peer_fd[r], h, HDR_LEN, data, total, &tb->moved[r]);
            if (io < 0) {
                step_text(what, sizeof(what), type, tb->seq);
                *culprit_p = r;
                return io_report(tb, r, io, what, 0);
            }
            if (io == 1) {
                tb->pfd[i] = tb->pfd[--n];
                tb->pfd_rank[i] = tb->pfd_rank[n];
            } else {
                tb->pfd[i].revents = 0;
                i++;
            }
        }
        if (n == 0)
            return SYMM_OK;
        int pr = poll_until(tb->pfd, (nfds_t)n, end);
        if (pr == 0) {
            snprintf(what, sizeof(what), "to take the result of %s #%u", msg_name(type),
                     tb->seq);
            return root_timeout(tb, n, what);
        }
        if (pr < 0) {
            symm_error("bootstrap", "poll failed: %s", strerror(-pr));
            return SYMM_ERR_SYS;
        }
    }
}

static int root_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len)
{
    double end = deadline_after(tb->base.timeout_s);
    size_t total = (size_t)tb->base.size * len;
    int culprit = -1, rc;

    if (len > 0)
        memmove(out, in, len);
    rc = root_gather(tb, type, out, len, end, &culprit);
    if (rc != SYMM_OK) {
        root_abort(tb, culprit, rc, NULL, 0);
        return rc;
    }
    rc = root_scatter(tb, type, out, total, end, &culprit);
    if (rc != SYMM_OK)
        root_abort(tb, culprit, rc, tb->moved, total);
    return rc;
}

static int peer_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len)
{
    double t0 = now_s();
    double end = tb->base.timeout_s > 0 ? t0 + 2 * tb->base.timeout_s : -1.0;
    size_t total = (size_t)tb->base.size * len;
    uint8_t h[HDR_LEN];
    char during[48];
    int io, rc = SYMM_ERR_BOOT;

    step_text(during, sizeof(during), type, tb->seq);
    hdr_pack(h, type, tb->seq, tb->base.rank, len);
    io = send_all(tb->root_fd, h, HDR_LEN, in, len, end);
    if (io == 0)
        io = recv_all(tb->root_fd, h, HDR_LEN, end);
    if (io != 0) {
        rc = io_report(tb, 0, io, during, now_s() - t0);
        goto err_fail;
    }
    tcp_hdr_t r = hdr_unpack(h);
    if (r.magic != TCP_MAGIC) {
        symm_error("bootstrap", "garbled message from PE 0 during %s", during);
    } else if (r.type == MSG_REJECT) {
        symm_error("bootstrap", "PE 0 refused this PE's connection: %s", reject_text(r.arg));
    } else if (r.type == MSG_ABORT) {
        /* Rank 0 logged the cause; one line per job is enough. */
        rc = SYMM_ERR_PEER;
        if (r.arg >= 0)
            symm_info("bootstrap", "PE 0 gave up during %s: PE %d %s", during, r.arg,
                      symm_status_str(-(int)r.len));
        else
            symm_info("bootstrap", "PE 0 gave up during %s: %s", during,
                      symm_status_str(-(int)r.len));
    } else if (r.type != type || r.seq != tb->seq || r.len != total) {
        symm_error("bootstrap", "PE 0 answered %s #%u (%llu bytes) to %s (%zu bytes)",
                   msg_name(r.type), r.seq, (unsigned long long)r.len, during, total);
    } else {
        io = total > 0 ? recv_all(tb->root_fd, out, total, end) : 0;
        if (io == 0)
            return SYMM_OK;
        rc = io_report(tb, 0, io, during, now_s() - t0);
    }
err_fail:
    tb->failed = rc;
    return rc;
}

static int tcp_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len)
{
    if (tb->failed != SYMM_OK)
        return tb->failed;
    tb->seq++;
    if (tb->base.rank == 0)
        return root_collective(tb, type, in, out, len);
    return peer_collective(tb, type, in, out, len);
}

static int tcp_barrier(symm_boot_t *boot)
{
    return tcp_collective((tcp_boot_t *)boot, MSG_BARRIER, NULL, NULL, 0);
}

static int tcp_allgather(symm_boot_t *boot, const void *in, void *out, size_t len)
{
    if (len > SIZE_MAX / 2 / (size_t)boot->size) {
        symm_error("bootstrap", "allgather of %zu bytes per PE is too large", len);
        return SYMM_ERR_INVALID;
    }
    return tcp_collective((tcp_boot_t *)boot, MSG_ALLGATHER, in, out, len);
}

static void tcp_fini(symm_boot_t *boot)
{
    tcp_boot_t *tb = (tcp_boot_t *)boot;
    if (tb->root_fd >= 0)
        close(tb->root_fd);
    for (int r = 1; tb->peer_fd != NULL && r < boot->size; r++)
        if (tb->peer_fd[r] >= 0)
            close(tb->peer_fd[r]);
    free(tb->peer_fd);
    free(tb->pfd);
    free(tb->pfd_rank);
    free(tb->moved);
    free(tb->hdr);
    free(tb);
}

static const symm_boot_ops_t tcp_ops = {
    .name = "tcp",
    .barrier = tcp_barrier,
    .allgather = tcp_allgather,
    .fini = tcp_fini,
};

/* ---- creation ------------------------------------------------------------- */

static int secret_valid(const char *s)
{
    size_t i = 0;
    for (; s != NULL && s[i] != '\0'; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F')))
            return 0;
    return i == SECRET_LEN;
}

/* Rank 0 holds one socket per PE; a large job outgrows the default limit. */
static void raise_nofile(int need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= (rlim_t)need)
        return;
    rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need ? rl.rlim_max
                                                                            : (rlim_t)need;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
}

static int root_start(tcp_boot_t *tb, const symm_boot_tcp_params_t *p, int lfd, double end)
{
    size_t n = (size_t)p->size;
    int rc;

    tb->peer_fd = malloc(n * sizeof(*tb->peer_fd));
    for (int r = 0; tb->peer_fd != NULL && r < p->size; r++)
        tb->peer_fd[r] = -1;
    tb->pfd = malloc(n * sizeof(*tb->pfd));
    tb->pfd_rank = malloc(n * sizeof(*tb->pfd_rank));
    tb->moved = calloc(n, sizeof(*tb->moved));
    tb->hdr = malloc(n * HDR_LEN);
    if (!tb->peer_fd || !tb->pfd || !tb->pfd_rank || !tb->moved || !tb->hdr) {
        symm_error("bootstrap", "out of memory for %d PEs", p->size);
        rc = SYMM_ERR_NOMEM;
        goto err_close_listen;
    }
    if (p->size == 1) {
        rc = SYMM_OK;
        goto err_close_listen;
    }
    raise_nofile(p->size + 64);
    if (lfd < 0) {
        rc = root_listen(p->root_addr, end, &lfd);
        if (rc != SYMM_OK)
            return rc;
    } else if (fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK) != 0 ||
               fcntl(lfd, F_SETFD, FD_CLOEXEC) != 0) {
        symm_error("bootstrap", "listening socket %d unusable: %s", lfd, strerror(errno));
        rc = SYMM_ERR_SYS;
        goto err_close_listen;
    }
    rc = root_accept_all(tb, lfd, end);
    /* Every PE is in (or it failed): free the port at once. */
err_close_listen:
    if (lfd >= 0)
        close(lfd);
    return rc;
}

static int peer_start(tcp_boot_t *tb, const symm_boot_tcp_params_t *p, double end)
{
    uint8_t hello[HELLO_LEN];
    int rc = peer_connect(p->root_addr, end, &tb->root_fd);
    if (rc != SYMM_OK)
        return rc;
    hdr_pack(hello, MSG_HELLO, 0, p->rank, (uint64_t)p->size);
    memcpy(hello + HDR_LEN, p->secret, SECRET_LEN);
    /* A fresh socket takes 56 bytes at once; a refusal shows at the first
     * collective, where rank 0's answer is read. */
    int io = send_all(tb->root_fd, hello, HELLO_LEN, NULL, 0, end);
    if (io != 0)
        return io_report(tb, 0, io, "hello", tb->base.timeout_s);
    return SYMM_OK;
}

/* Takes ownership of params->listen_fd: it is closed once every PE has
 * connected, or on failure. */
int symm_boot_tcp_create(const symm_boot_tcp_params_t *params, symm_boot_t **boot_p)
{
    const symm_boot_tcp_params_t *p = params;
    double end = deadline_after(p->timeout_s);
    tcp_boot_t *tb;
    int rc;

    if (p->size < 1 || p->rank < 0 || p->rank >= p->size || !secret_valid(p->secret)) {
        symm_error("bootstrap", "bad TCP bootstrap parameters (rank %d, size %d, secret %s)",
                   p->rank, p->size, secret_valid(p->secret) ? "ok" : "not 32 hex characters");
        rc = SYMM_ERR_INVALID;
        goto err_close_listen;
    }
    tb = calloc(1, sizeof(*tb));
    if (tb == NULL) {
        symm_error("bootstrap", "out of memory");
        rc = SYMM_ERR_NOMEM;
        goto err_close_listen;
    }
    tb->base.ops = &tcp_ops;
    tb->base.rank = p->rank;
    tb->base.size = p->size;
    tb->base.timeout_s = p->timeout_s;
    memcpy(tb->base.secret, p->secret, SECRET_LEN);
    tb->base.secret[SECRET_LEN] = '\0';
    tb->root_fd = -1;

    if (p->rank == 0)
        rc = root_start(tb, p, p->listen_fd, end);
    else
        rc = peer_start(tb, p, end);
    if (rc != SYMM_OK)
        goto err_free_boot;
    *boot_p = &tb->base;
    return SYMM_OK;

err_free_boot:
    tcp_fini(&tb->base);
    return rc;
err_close_listen:
    if (p->listen_fd >= 0 && p->rank == 0)
        close(p->listen_fd);
    return rc;
}
