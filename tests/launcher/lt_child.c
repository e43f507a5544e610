/*
 * lt_child.c - the PE program the launcher tests start under oshrun.
 *
 * Owns nothing but behaviours chosen by argv (see usage()), each reading its
 * rank from SYMM_RANK as a libsymm PE would. It must not link libsymm: the
 * launcher is tested on its own. Output it checks itself goes out as
 * "pe=R ..." lines, so run_tests.sh can tell PEs apart.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rank;

static void usage(void)
{
    fprintf(stderr,
            "usage: lt_child MODE [args]\n"
            "  ok                        exit 0\n"
            "  exit R CODE               rank R exits CODE now; the others wait forever\n"
            "  ignterm_exit R CODE       as exit, but the others ignore SIGTERM (armed\n"
            "                            before R exits: a barrier over the boot socket)\n"
            "  signal R SIG              rank R raises SIG; the others wait forever\n"
            "  staggered                 all ignore SIGTERM, barrier, then rank r exits 10+r\n"
            "                            after r*200 ms\n"
            "  sleep                     print ready, wait forever\n"
            "  ignore                    ignore SIGTERM/INT/HUP/QUIT, print ready, wait forever\n"
            "  term_report               print ready; on SIGTERM print it and exit 0\n"
            "  lines COUNT LEN           COUNT checkable lines to stdout and to stderr\n"
            "  longline LEN              one line of LEN 'x'\n"
            "  partial                   a last line without newline\n"
            "  global_exit R S           rank R asks oshrun for global_exit S, exits S\n"
            "  env NAME...               print the variables\n"
            "  bootfd                    check the bootstrap socket and the fds inherited\n"
            "  listfds                   (not a PE) list open fds above 2, for LT_INHERITED\n"
            "  affinity                  print the CPUs this PE may run on\n"
            "  stdin                     print what stdin holds\n"
            "  grandchild                leave a grandchild holding the output pipes\n"
            "  exec_dfl PROG ARGS...     (not a PE) reset SIGINT/SIGQUIT, exec PROG\n");
    exit(64);
}

static void wait_forever(void)
{
    for (;;)
        pause();
}

static void ignore_signal(int sig)
{
    struct sigaction sa = { .sa_handler = SIG_IGN };
    sigaction(sig, &sa, NULL);
}

static void print_ready(void)
{
    printf("pe=%d pid=%d ready\n", rank, (int)getpid());
    fflush(stdout);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            exit(3);
        p += n;
        len -= (size_t)n;
    }
}

/* Lines "pe=R s=out i=K <LEN times one letter>|end": a checker can tell an
 * intact line from pieces of two. Written in chunks of random size so the
 * launcher sees lines split across reads. */
static void mode_lines(long count, long len)
{
    const char *names[2] = { "out", "err" };
    for (int s = 0; s < 2; s++) {
        size_t cap = (size_t)count * ((size_t)len + 48), used = 0;
        char *buf = malloc(cap);
        if (buf == NULL)
            exit(3);
        for (long k = 0; k < count; k++) {
            used += (size_t)sprintf(buf + used, "pe=%d s=%s i=%ld ", rank, names[s], k);
            memset(buf + used, 'a' + (int)((rank + k) % 26), (size_t)len);
            used += (size_t)len;
            used += (size_t)sprintf(buf + used, "|end\n");
        }
        unsigned seed = (unsigned)rank * 7919u + (unsigned)s;
        for (size_t off = 0; off < used;) {
            size_t chunk = 1 + (size_t)rand_r(&seed) % 8191;
            if (chunk > used - off)
                chunk = used - off;
            write_all(s == 0 ? 1 : 2, buf + off, chunk);
            off += chunk;
        }
        free(buf);
    }
}

/* A barrier over the bootstrap socket oshrun set up, so a case can be sure
 * every PE has armed its signal dispositions before one of them fails. */
static void boot_barrier(void)
{
    int size = atoi(getenv("SYMM_SIZE") ? getenv("SYMM_SIZE") : "1");
    char c = 'b';
    if (rank == 0) {
        int lfd = atoi(getenv("SYMM_BOOT_LISTEN_FD") ? getenv("SYMM_BOOT_LISTEN_FD") : "-1");
        int *peers = calloc((size_t)size, sizeof(int));
        for (int k = 1; k < size; k++)
            if ((peers[k] = accept(lfd, NULL, NULL)) < 0 || recv(peers[k], &c, 1, MSG_WAITALL) != 1)
                exit(3);
        for (int k = 1; k < size; k++) {
            write_all(peers[k], &c, 1);
            close(peers[k]);
        }
        free(peers);
        return;
    }
    char ip[64];
    snprintf(ip, sizeof(ip), "%s", getenv("SYMM_BOOT_ADDR") ? getenv("SYMM_BOOT_ADDR") : "");
    char *colon = strrchr(ip, ':');
    if (colon == NULL)
        exit(3);
    *colon = '\0';
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1)) };
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1 || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        exit(3);
    write_all(fd, &c, 1);
    if (recv(fd, &c, 1, MSG_WAITALL) != 1)
        exit(3);
    close(fd);
}

static int fail(const char *what)
{
    printf("pe=%d bootfd FAIL: %s (%s)\n", rank, what, strerror(errno));
    return 1;
}

/* Descriptors oshrun itself inherited (listed by the test in LT_INHERITED,
 * from "lt_child listfds") are the caller's business, not a leak. */
static int inherited(int fd)
{
    const char *list = getenv("LT_INHERITED");
    char *end;
    while (list != NULL && *list != '\0') {
        if (strtol(list, &end, 10) == fd && end != list)
            return 1;
        list = *end == ',' ? end + 1 : "";
    }
    return 0;
}

static void mode_listfds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    const char *sep = "";
    while (d != NULL && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd > 2 && fd != dirfd(d)) {
            printf("%s%d", sep, fd);
            sep = ",";
        }
    }
    printf("\n");
}

/* The contract of oshrun: PE 0 alone holds the listening socket, every PE
 * holds its control pipe, nothing else leaks in; a peer presenting the
 * secret at SYMM_BOOT_ADDR reaches PE 0 (the socket listens before any PE
 * runs, so no retry is needed). */
static int mode_bootfd(void)
{
    const char *secret = getenv("SYMM_JOB_SECRET"), *addr = getenv("SYMM_BOOT_ADDR");
    const char *lfd_s = getenv("SYMM_BOOT_LISTEN_FD"), *ctrl_s = getenv("SYMM_CTRL_FD");
    const char *size_s = getenv("SYMM_SIZE"), *launcher = getenv("SYMM_LAUNCHER");
    if (secret == NULL || strlen(secret) != 32 || strspn(secret, "0123456789abcdef") != 32)
        return fail("SYMM_JOB_SECRET is not 32 lowercase hex chars");
    if (addr == NULL || size_s == NULL || ctrl_s == NULL || launcher == NULL || strcmp(launcher, "oshrun") != 0)
        return fail("SYMM_BOOT_ADDR, SYMM_SIZE, SYMM_CTRL_FD or SYMM_LAUNCHER missing");
    int size = atoi(size_s), ctrl = atoi(ctrl_s), lfd = lfd_s != NULL ? atoi(lfd_s) : -1;
    struct stat st;
    if (fstat(ctrl, &st) != 0 || !S_ISFIFO(st.st_mode) || (fcntl(ctrl, F_GETFL) & O_ACCMODE) != O_WRONLY ||
        (fcntl(ctrl, F_GETFD) & FD_CLOEXEC))
        return fail("SYMM_CTRL_FD is not an inheritable pipe write end");
    char ip[64];
    snprintf(ip, sizeof(ip), "%s", addr);
    char *colon = strrchr(ip, ':');
    if (colon == NULL)
        return fail("SYMM_BOOT_ADDR has no port");
    *colon = '\0';
    struct sockaddr_in want = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1)) };
    if (inet_pton(AF_INET, ip, &want.sin_addr) != 1)
        return fail("SYMM_BOOT_ADDR is not IPv4");

    /* Every descriptor beyond 0-2 must be one we were promised. */
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] == '.' || fd <= 2 || fd == ctrl || fd == lfd || fd == dirfd(d) || inherited(fd))
            continue;
        char target[256] = "";
        char link[64];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        printf("pe=%d bootfd FAIL: leaked fd %d -> %s\n", rank, fd, target);
        return 1;
    }
    if (d != NULL)
        closedir(d);

    if (rank == 0) {
        int acc = 0;
        socklen_t len = sizeof(acc);
        struct sockaddr_in got;
        socklen_t glen = sizeof(got);
        if (lfd < 0)
            return fail("PE 0 has no SYMM_BOOT_LISTEN_FD");
        if (getsockopt(lfd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) != 0 || !acc)
            return fail("SYMM_BOOT_LISTEN_FD is not a listening socket");
        if (fcntl(lfd, F_GETFD) & FD_CLOEXEC)
            return fail("SYMM_BOOT_LISTEN_FD is close-on-exec");
        if (getsockname(lfd, (struct sockaddr *)&got, &glen) != 0 || got.sin_port != want.sin_port ||
            got.sin_addr.s_addr != want.sin_addr.s_addr)
            return fail("SYMM_BOOT_LISTEN_FD is not bound to SYMM_BOOT_ADDR");
        for (int k = 1; k < size; k++) {
            char buf[33] = "";
            int c = accept(lfd, NULL, NULL);
            if (c < 0 || recv(c, buf, 32, MSG_WAITALL) != 32)
                return fail("accept/recv");
            if (strcmp(buf, secret) != 0)
                return fail("a peer presented a wrong secret");
            write_all(c, "ok", 2);
            close(c);
        }
    } else {
        char buf[3] = "";
        if (lfd_s != NULL)
            return fail("SYMM_BOOT_LISTEN_FD is set on a PE other than 0");
        int c = socket(AF_INET, SOCK_STREAM, 0);
        if (c < 0 || connect(c, (struct sockaddr *)&want, sizeof(want)) != 0)
            return fail("connect to SYMM_BOOT_ADDR");
        write_all(c, secret, 32);
        if (recv(c, buf, 2, MSG_WAITALL) != 2 || strcmp(buf, "ok") != 0)
            return fail("no ok from PE 0");
        close(c);
    }
    printf("pe=%d bootfd ok addr=%s\n", rank, addr);
    return 0;
}

static void mode_affinity(void)
{
    cpu_set_t set;
    char list[4096] = "";
    size_t used = 0;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        exit(3);
    for (int c = 0; c < CPU_SETSIZE && used < sizeof(list) - 16; c++)
        if (CPU_ISSET(c, &set))
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d", used ? "," : "", c);
    printf("pe=%d cpus=%s\n", rank, list);
}

static void on_term(int sig)
{
    char buf[64];
    int n = snprintf(buf, sizeof(buf), "pe=%d got SIGTERM\n", rank);
    (void)sig;
    write_all(1, buf, (size_t)n);
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *r = getenv("SYMM_RANK");
    rank = r != NULL ? atoi(r) : -1;
    if (argc < 2)
        usage();
    const char *mode = argv[1];
    long a = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    long b = argc > 3 ? strtol(argv[3], NULL, 10) : 0;

    if (strcmp(mode, "ok") == 0)
        return 0;
    if (strcmp(mode, "exit") == 0) {
        if (rank == a)
            return (int)b;
        wait_forever();
    }
    if (strcmp(mode, "ignterm_exit") == 0) {
        if (rank != a)
            ignore_signal(SIGTERM);
        boot_barrier();
        if (rank == a)
            return (int)b;
        wait_forever();
    }
    if (strcmp(mode, "signal") == 0) {
        if (rank == a) {
            signal((int)b, SIG_DFL);
            raise((int)b);
        }
        wait_forever();
    }
    if (strcmp(mode, "staggered") == 0) {
        ignore_signal(SIGTERM);
        boot_barrier();
        sleep_ms(200L * rank);
        return 10 + rank;
    }
    if (strcmp(mode, "sleep") == 0) {
        print_ready();
        wait_forever();
    }
    if (strcmp(mode, "ignore") == 0) {
        ignore_signal(SIGTERM);
        ignore_signal(SIGINT);
        ignore_signal(SIGHUP);
        ignore_signal(SIGQUIT);
        print_ready();
        wait_forever();
    }
    if (strcmp(mode, "term_report") == 0) {
        struct sigaction sa = { .sa_handler = on_term };
        sigaction(SIGTERM, &sa, NULL);
        print_ready();
        wait_forever();
    }
    if (strcmp(mode, "lines") == 0 && argc == 4) {
        mode_lines(a, b);
        return 0;
    }
    if (strcmp(mode, "longline") == 0 && argc == 3) {
        char *buf = malloc((size_t)a + 1);
        if (buf == NULL)
            return 3;
        memset(buf, 'x', (size_t)a);
        buf[a] = '\n';
        write_all(1, buf, (size_t)a + 1);
        return 0;
    }
    if (strcmp(mode, "partial") == 0) {
        printf("pe=%d partial", rank);
        return 0;
    }
    if (strcmp(mode, "global_exit") == 0 && argc == 4) {
        if (rank != a)
            wait_forever();
        const char *fd = getenv("SYMM_CTRL_FD");
        char line[64];
        int n = snprintf(line, sizeof(line), "global_exit %ld\n", b);
        if (fd == NULL)
            return 99;
        write_all(atoi(fd), line, (size_t)n);
        return (int)b;
    }
    if (strcmp(mode, "env") == 0) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            printf("pe=%d %s=%s\n", rank, argv[i], v != NULL ? v : "(unset)");
        }
        return 0;
    }
    if (strcmp(mode, "bootfd") == 0)
        return mode_bootfd();
    if (strcmp(mode, "listfds") == 0) {
        mode_listfds();
        return 0;
    }
    if (strcmp(mode, "affinity") == 0) {
        mode_affinity();
        return 0;
    }
    if (strcmp(mode, "stdin") == 0) {
        char buf[256];
        ssize_t n = read(0, buf, sizeof(buf) - 1);
        if (n <= 0) {
            printf("pe=%d stdin eof\n", rank);
        } else {
            buf[n] = '\0';
            buf[strcspn(buf, "\n")] = '\0';
            printf("pe=%d stdin=%s\n", rank, buf);
        }
        return 0;
    }
    if (strcmp(mode, "grandchild") == 0) {
        if (fork() == 0) {
            sleep_ms(3000);
            _exit(0);
        }
        printf("pe=%d bye\n", rank);
        return 0;
    }
    if (strcmp(mode, "exec_dfl") == 0 && argc > 2) {
        /* A script's background job starts with SIGINT ignored, which oshrun
         * respects; give it the default so the SIGINT cases can run. */
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        execv(argv[2], argv + 2);
        perror("lt_child: exec");
        return 127;
    }
    usage();
}
