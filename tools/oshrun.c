/*
 * oshrun.c - the single-node launcher: `oshrun -np N [options] prog [args...]`.
 *
 * Owns: the command line (with the Open MPI spellings existing scripts use),
 * starting N PEs of one program with the bootstrap contract in their
 * environment (SYMM_RANK, SYMM_SIZE, SYMM_JOB_SECRET, SYMM_BOOT_ADDR, the
 * listening socket only PE 0 inherits, the per-PE control pipe that carries
 * shmem_global_exit), forwarding the PEs' stdout and stderr line by line, and
 * ending the job as a whole: the first failure, a global_exit, the timeout or
 * a signal ends every PE and decides oshrun's exit status.
 *
 * Must never: depend on libsymm (it is built and tested without it); sleep
 * or poll on a timer (one ppoll loop waits on a signalfd, every PE pipe and
 * the nearest deadline, so `oshrun -np 4 true` takes milliseconds); write
 * part of a line (each write(2) carries whole lines only, so lines of
 * different PEs never interleave); signal a pid it has already reaped (the
 * pid could belong to someone else by then).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYMM_VERSION
#define SYMM_VERSION "0.1.0"
#endif

#define EXIT_USAGE 2
#define EXIT_TIMEOUT 124
#define LINE_CAP (64 * 1024) /* longer lines are split (each piece ends in '\n') */
#define DRAIN_S 0.2          /* how long to wait for EOF after the last PE exited */
#define TERM_DELAY_S 0.3     /* after a PE failed: time for the others to report */
#define MAX_PES 65536
#define MULTI_NODE "oshrun: multi-node launch is not supported by oshrun; use mpirun/srun (PMIx)"

/* One PE output stream: the read end of its stdout or stderr pipe and the
 * partial line not yet written. */
struct stream {
    int fd;    /* -1 once closed */
    int dest;  /* STDOUT_FILENO or STDERR_FILENO */
    char *buf; /* LINE_CAP + 1 bytes (room to append '\n'), allocated on first read */
    size_t len;
};

struct pe {
    pid_t pid; /* 0 once reaped: never signal it again */
    struct stream out, err;
    int ctrl_fd;
    char ctrl_buf[64];
    size_t ctrl_len;
    int reported;     /* the library printed why this PE ends */
};

static struct {
    int np;
    int tag_output;
    int bind;         /* --bind-to core (default) or none */
    int quiet;        /* -q/--quiet: no notes (warnings and errors still print) */
    double timeout_s; /* 0: none */
    double grace_s;   /* SIGTERM -> SIGKILL */
    char *path;       /* the program, resolved through PATH */
    char **argv;      /* its argv */
} opt = { .np = 1, .bind = 1, .grace_s = 1.0 };

static struct {
    struct pe *pes;
    int live;         /* PEs started and not yet reaped */
    int ending;       /* a cause was recorded: later exits are collateral, not reported */
    int status;       /* oshrun's exit status */
    double timeout_at, kill_at, drain_at; /* absolute CLOCK_MONOTONIC seconds; 0 = unset */
    double term_at;                       /* deferred SIGTERM after a PE failed */
    int peer_reported;                    /* a survivor reported the failure */
    int sfd;          /* signalfd: SIGCHLD and the forwarded signals */
    int dest_dead[3]; /* our stdout/stderr went away (EPIPE): drop output, keep draining */
} job;

static sigset_t orig_mask;           /* restored in each PE */
static struct sigaction orig_sigpipe; /* restored in each PE */
static struct rlimit orig_nofile;     /* restored in each PE; RLIM_INFINITY: untouched */

/* One write per message, so it never lands inside a PE's line. */
static void vmsg(const char *fmt, va_list ap)
{
    char buf[1024];
    int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(buf) - 2)
        n = (int)sizeof(buf) - 2;
    buf[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
    (void)w;
}

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
}

/* Bad usage: "oshrun: what" and exit 2, before any PE exists. */
static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
    exit(EXIT_USAGE);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *sig_name(int sig)
{
#define SIG_NAME(s) { s, #s }
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        SIG_NAME(SIGHUP),  SIG_NAME(SIGINT),  SIG_NAME(SIGQUIT), SIG_NAME(SIGILL),    SIG_NAME(SIGTRAP),
        SIG_NAME(SIGABRT), SIG_NAME(SIGBUS),  SIG_NAME(SIGFPE),  SIG_NAME(SIGKILL),   SIG_NAME(SIGUSR1),
        SIG_NAME(SIGSEGV), SIG_NAME(SIGUSR2), SIG_NAME(SIGPIPE), SIG_NAME(SIGALRM),   SIG_NAME(SIGTERM),
        SIG_NAME(SIGXCPU), SIG_NAME(SIGXFSZ), SIG_NAME(SIGSYS),  SIG_NAME(SIGVTALRM), SIG_NAME(SIGPROF),
    };
#undef SIG_NAME
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].sig == sig)
            return names[i].name;
    return sig >= SIGRTMIN && sig <= SIGRTMAX ? "SIGRT" : "unknown";
}

/* ---------------------------------------------------------------- usage */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: oshrun -np N [options] prog [args...]\n"
            "Start N PEs of prog on this machine and supervise them.\n"
            "\n"
            "  -np N, -n N, --np N, -c N  number of PEs (default 1)\n"
            "  --tag-output               prefix each output line with [pe N]\n"
            "  --timeout SEC              kill the job after SEC seconds, exit 124 (env SYMM_TIMEOUT)\n"
            "  --bind-to core|none        pin PE i to the i-th allowed CPU, (i mod CPUs)-th when\n"
            "                             PEs outnumber them (default core)\n"
            "  -x NAME[=VALUE]            export NAME (set to VALUE) to the PEs\n"
            "  -q, --quiet                no notes (oversubscription); errors still print\n"
            "  -h, --help                 this text\n"
            "  --version                  print the version\n"
            "Accepted and ignored (Open MPI compatibility): --allow-run-as-root,\n"
            "  --oversubscribe, --mca K V, --map-by X, -H/--host and\n"
            "  --hostfile naming only this machine.\n"
            "Long options also take the --opt=VALUE and -opt forms; -- ends the options.\n"
            "\n"
            "Environment: SYMM_TIMEOUT (seconds), SYMM_KILL_GRACE (seconds between SIGTERM\n"
            "and SIGKILL, default 1), SYMM_BOOT_IFADDR (IPv4 address the bootstrap listens on,\n"
            "default 127.0.0.1).\n"
            "Exit status: 0 if every PE exits 0; else that of the first PE to fail (128+signal\n"
            "if killed), the shmem_global_exit status, 124 on timeout, 128+signal when oshrun\n"
            "is signalled, 2 for bad usage.\n");
}

static int parse_count(const char *s, int *out_p)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || !isdigit((unsigned char)s[0]) || v < 1 || v > MAX_PES)
        return -1;
    *out_p = (int)v;
    return 0;
}

static int parse_seconds(const char *s, double *out_p)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < 0)
        return -1;
    *out_p = v;
    return 0;
}

/* Is this name this machine? Accepts "host" and "host:slots". */
static int is_local_host(const char *name)
{
    char host[256], self[256];
    snprintf(host, sizeof(host), "%s", name);
    char *colon = strrchr(host, ':');
    if (colon != NULL && colon[1] != '\0' && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
        strcmp(host, "::1") != 0)
        *colon = '\0';
    if (strcmp(host, "localhost") == 0 || strcmp(host, "localhost.localdomain") == 0 ||
        strcmp(host, "ip6-localhost") == 0 || strcmp(host, "::1") == 0 || strncmp(host, "127.", 4) == 0)
        return 1;
    if (gethostname(self, sizeof(self)) != 0)
        return 0;
    self[sizeof(self) - 1] = '\0';
    /* "node7" and "node7.cluster" are the same machine. */
    size_t hl = strcspn(host, "."), sl = strcspn(self, ".");
    return hl > 0 && hl == sl && strncmp(host, self, hl) == 0;
}

static void check_hosts(const char *list)
{
    char *copy = strdup(list), *save = NULL;
    if (copy == NULL)
        usage_error("oshrun: out of memory");
    for (char *h = strtok_r(copy, ",", &save); h != NULL; h = strtok_r(NULL, ",", &save))
        if (!is_local_host(h))
            usage_error(MULTI_NODE);
    free(copy);
}

static void check_hostfile(const char *file)
{
    FILE *f = fopen(file, "r");
    if (f == NULL)
        usage_error("oshrun: cannot read hostfile %s: %s", file, strerror(errno));
    char line[1024];
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "#\n")] = '\0';
        char *h = line + strspn(line, " \t");
        h[strcspn(h, " \t")] = '\0';
        if (*h != '\0' && !is_local_host(h)) {
            fclose(f);
            usage_error(MULTI_NODE);
        }
    }
    fclose(f);
}

enum opt_id { O_NP, O_TAG, O_TIMEOUT, O_BIND, O_X, O_HELP, O_VERSION, O_HOST, O_HOSTFILE, O_QUIET, O_IGNORE };

static const struct {
    const char *name;
    enum opt_id id;
    int nargs;
} opt_table[] = {
    { "-np", O_NP, 1 },          { "--np", O_NP, 1 },          { "-n", O_NP, 1 },
    { "-c", O_NP, 1 },           { "--n", O_NP, 1 },           { "--tag-output", O_TAG, 0 },
    { "--timeout", O_TIMEOUT, 1 }, { "--bind-to", O_BIND, 1 }, { "-x", O_X, 1 },
    { "-h", O_HELP, 0 },         { "--help", O_HELP, 0 },      { "--version", O_VERSION, 0 },
    { "-H", O_HOST, 1 },         { "--host", O_HOST, 1 },      { "--hostfile", O_HOSTFILE, 1 },
    { "--machinefile", O_HOSTFILE, 1 }, { "--mca", O_IGNORE, 2 }, { "--gmca", O_IGNORE, 2 },
    { "--map-by", O_IGNORE, 1 }, { "--rank-by", O_IGNORE, 1 }, { "--allow-run-as-root", O_IGNORE, 0 },
    { "--oversubscribe", O_IGNORE, 0 }, { "--quiet", O_QUIET, 0 }, { "-q", O_QUIET, 0 },
    { "--report-bindings", O_IGNORE, 0 },
};

/* Open MPI accepts "-tag-output" as well as "--tag-output": a single-dash
 * long name not in the table is looked up again with two dashes. */
static int lookup_opt(const char *arg, size_t len)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++) {
            const char *name = opt_table[i].name + pass;
            if (strlen(name) == len && strncmp(name, arg, len) == 0)
                return (int)i;
        }
        if (len <= 2 || arg[1] == '-')
            break;
    }
    return -1;
}

/* Parses options up to the program; -x settings are collected into xvars
 * and applied by the caller after oshrun has read its own environment. */
static void parse_args(int argc, char **argv, char ***xvars_p, int *nx_p)
{
    int i = 1, have_timeout = 0;
    static int warned_bind;
    char **xvars = calloc((size_t)argc, sizeof(*xvars));
    int nx = 0;
    if (xvars == NULL)
        usage_error("oshrun: out of memory");
    while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
        const char *arg = argv[i++];
        if (strcmp(arg, "--") == 0)
            break;
        const char *eq = strchr(arg, '=');
        size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
        int k = lookup_opt(arg, len);
        if (k < 0)
            usage_error("oshrun: unknown option '%s' (see oshrun --help)", arg);
        const char *val[2] = { NULL, NULL };
        int nargs = opt_table[k].nargs;
        if (eq != NULL) {
            if (nargs != 1)
                usage_error("oshrun: option '%.*s' does not take '=VALUE'", (int)len, arg);
            val[0] = eq + 1;
        } else {
            if (i + nargs > argc)
                usage_error("oshrun: option '%s' needs %s", arg, nargs == 1 ? "a value" : "two values");
            for (int a = 0; a < nargs; a++)
                val[a] = argv[i++];
        }
        switch (opt_table[k].id) {
        case O_NP:
            if (parse_count(val[0], &opt.np) != 0)
                usage_error("oshrun: invalid number of PEs '%s' (expected 1..%d)", val[0], MAX_PES);
            break;
        case O_TAG:
            opt.tag_output = 1;
            break;
        case O_QUIET:
            opt.quiet = 1;
            break;
        case O_TIMEOUT:
            if (parse_seconds(val[0], &opt.timeout_s) != 0)
                usage_error("oshrun: invalid --timeout '%s' (seconds expected)", val[0]);
            have_timeout = 1;
            break;
        case O_BIND:
            if (strcmp(val[0], "core") == 0)
                opt.bind = 1;
            else if (strcmp(val[0], "none") == 0)
                opt.bind = 0;
            else if (!warned_bind++)
                msg("oshrun: warning: --bind-to %s is not supported (only core, none); ignored", val[0]);
            break;
        case O_X:
            if (val[0][0] == '\0' || val[0][0] == '=')
                usage_error("oshrun: -x needs NAME or NAME=VALUE");
            xvars[nx++] = (char *)val[0];
            break;
        case O_HELP:
            usage(stdout);
            exit(0);
        case O_VERSION:
            printf("oshrun (symm) %s\n", SYMM_VERSION);
            exit(0);
        case O_HOST:
            check_hosts(val[0]);
            break;
        case O_HOSTFILE:
            check_hostfile(val[0]);
            break;
        case O_IGNORE:
            break;
        }
    }
    if (i >= argc)
        usage_error("oshrun: no program given (usage: oshrun -np N [options] prog [args...])");
    if (!have_timeout) {
        const char *t = getenv("SYMM_TIMEOUT");
        if (t != NULL && *t != '\0' && parse_seconds(t, &opt.timeout_s) != 0)
            usage_error("oshrun: invalid SYMM_TIMEOUT '%s' (seconds expected)", t);
    }
    const char *g = getenv("SYMM_KILL_GRACE");
    if (g != NULL && *g != '\0' && parse_seconds(g, &opt.grace_s) != 0)
        usage_error("oshrun: invalid SYMM_KILL_GRACE '%s' (seconds expected)", g);
    opt.argv = argv + i;
    *xvars_p = xvars;
    *nx_p = nx;
}

static void apply_xvars(char **xvars, int nx)
{
    for (int k = 0; k < nx; k++) {
        char *eq = strchr(xvars[k], '=');
        if (eq == NULL) {
            /* "-x NAME" exports our value; the environment already passes through. */
            if (getenv(xvars[k]) == NULL)
                msg("oshrun: warning: -x %s: %s is not set", xvars[k], xvars[k]);
            continue;
        }
        *eq = '\0';
        if (setenv(xvars[k], eq + 1, 1) != 0)
            usage_error("oshrun: -x %s: %s", xvars[k], strerror(errno));
        *eq = '=';
    }
}

/* Is path something execve would run? Sets errno like execve when not. */
static int is_executable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
        errno = EACCES;
        return 0;
    }
    return 1;
}

/* Resolves the program once, as execvp would, so a typo is reported before
 * any PE starts instead of N times. */
static char *search_path(const char *prog, int *denied_p);

static char *find_program(const char *prog)
{
    if (strchr(prog, '/') != NULL) {
        if (!is_executable(prog))
            usage_error("oshrun: %s: %s", prog, strerror(errno));
        return strdup(prog);
    }
    int denied = 0;
    char *found = search_path(prog, &denied);
    if (found != NULL)
        return found;
    if (denied)
        usage_error("oshrun: %s: Permission denied", prog);
    usage_error("oshrun: %s: command not found", prog);
}

/* PATH's first executable prog, or NULL (*denied_p set if one was refused). */
static char *search_path(const char *prog, int *denied_p)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/bin:/usr/bin";
    int denied = 0;
    size_t plen = strlen(prog);
    for (const char *dir = path;; dir++) {
        size_t dlen = strcspn(dir, ":");
        char *cand = malloc(dlen + plen + 3);
        if (cand == NULL)
            usage_error("oshrun: out of memory");
        /* An empty PATH element means the current directory, as for execvp. */
        snprintf(cand, dlen + plen + 3, "%.*s/%s", dlen > 0 ? (int)dlen : 1, dlen > 0 ? dir : ".", prog);
        if (is_executable(cand))
            return cand;
        if (errno == EACCES)
            denied = 1;
        free(cand);
        dir += dlen;
        if (*dir == '\0')
            break;
    }
    *denied_p = denied;
    return NULL;
}

#ifdef SYMM_OSHRUN_PYTHON
/* A bare python3 (or python) is the interpreter symm's Python package was
 * built for (cmake's SYMM_PYTHON, Debian's /usr/bin/python3 with its numpy
 * and torch), not whichever python3 is first on PATH (a pyenv or conda one
 * lacks them: ModuleNotFoundError on every PE). The package directory that
 * goes with this oshrun (installed, else the build tree's) is appended to
 * PYTHONPATH. A path (./venv/bin/python3, $(which python3)) runs as given. */
static void use_symm_python(void)
{
    const char *prog = opt.argv[0], *want = SYMM_OSHRUN_PYTHON;
    if (strcmp(prog, "python3") != 0 && strcmp(prog, "python") != 0)
        return;
    if (!is_executable(want))
        return; /* the configured one is gone: plain PATH lookup */
    int denied = 0;
    char *first = search_path(prog, &denied);
    char rw[PATH_MAX], rf[PATH_MAX];
    if (first != NULL && (realpath(want, rw) == NULL || realpath(first, rf) == NULL ||
                          strcmp(rw, rf) != 0))
        msg("oshrun: running %s as %s, the Python symm was built for (%s is first on PATH; "
            "give a path to run another)", prog, want, first);
    free(first);
    opt.argv[0] = (char *)want; /* Python finds its prefix from argv[0] */

    char self[PATH_MAX], dir[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    const char *cands[] = {SYMM_OSHRUN_PYDIR_INSTALL, SYMM_OSHRUN_PYDIR_BUILD};
    for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
        if (cands[i][0] == '/')
            snprintf(dir, sizeof(dir), "%s", cands[i]);
        else
            snprintf(dir, sizeof(dir), "%s/%s", self, cands[i]);
        char init[sizeof(dir) + 32];
        snprintf(init, sizeof(init), "%s/symm/__init__.py", dir);
        if (access(init, R_OK) != 0)
            continue;
        const char *old = getenv("PYTHONPATH");
        size_t len = strlen(dir) + (old ? strlen(old) : 0) + 2;
        char *val = malloc(len);
        if (val == NULL)
            return;
        if (old != NULL && *old != '\0')
            snprintf(val, len, "%s:%s", old, dir);
        else
            snprintf(val, len, "%s", dir);
        setenv("PYTHONPATH", val, 1);
        free(val);
        return;
    }
}
#endif

/* ---------------------------------------------------------------- setup */

static void make_secret(char out[33])
{
    unsigned char raw[16];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            msg("oshrun: getrandom: %s", strerror(errno));
            exit(1);
        }
        got += (size_t)n;
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

/* The bootstrap's rendezvous: bound before any PE starts, so PE 0 cannot
 * lose a race for the port and the others know the address up front. */
static int open_boot_socket(char *addr, size_t cap)
{
    const char *ifaddr = getenv("SYMM_BOOT_IFADDR");
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t salen = sizeof(sa);
    char ip[INET_ADDRSTRLEN];
    int one = 1;
    if (ifaddr == NULL || *ifaddr == '\0')
        ifaddr = "127.0.0.1";
    if (inet_pton(AF_INET, ifaddr, &sa.sin_addr) != 1)
        usage_error("oshrun: SYMM_BOOT_IFADDR '%s' is not an IPv4 address", ifaddr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &salen) != 0) {
        msg("oshrun: cannot listen on %s: %s", ifaddr, strerror(errno));
        exit(1);
    }
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
    snprintf(addr, cap, "%s:%u", ip, (unsigned)ntohs(sa.sin_port));
    return fd;
}

/* Each PE holds 3 of our descriptors (stdout, stderr, control); raise the
 * soft limit rather than fail a large -np halfway through starting. */
static void check_fd_limit(int np)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)np * 3 + 32;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return;
    orig_nofile = rl;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < need)
        usage_error("oshrun: -np %d needs %lu open files but the limit is %lu", np, (unsigned long)need,
                    (unsigned long)rl.rlim_cur);
}

/* The CPUs we may run on, in order; binding PE i to the i-th keeps the
 * placement inside whatever cpuset or taskset the user gave oshrun. */
static int *allowed_cpus(int *n_p)
{
    for (int ncpu = 1024; ncpu <= (1 << 20); ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpu);
        size_t size = CPU_ALLOC_SIZE(ncpu);
        if (set == NULL)
            return NULL;
        if (sched_getaffinity(0, size, set) != 0) {
            CPU_FREE(set);
            if (errno == EINVAL)
                continue;
            return NULL;
        }
        int *cpus = malloc(sizeof(int) * (size_t)CPU_COUNT_S(size, set)), n = 0;
        for (int c = 0; cpus != NULL && c < ncpu; c++)
            if (CPU_ISSET_S(c, size, set))
                cpus[n++] = c;
        CPU_FREE(set);
        *n_p = n;
        return cpus;
    }
    return NULL;
}

static int set_cloexec(int fd, int on)
{
    int fl = fcntl(fd, F_GETFD);
    return fl < 0 ? -1 : fcntl(fd, F_SETFD, on ? fl | FD_CLOEXEC : fl & ~FD_CLOEXEC);
}

/* ---------------------------------------------------------------- PEs */

struct child_fds {
    int out_w, err_w, ctrl_w;
    int listen_fd; /* PE 0 only; -1 for the others */
    int devnull;
    int cpu;       /* -1: do not bind */
    pid_t parent;
};

/* In the forked child: wire up descriptors, environment and affinity, then
 * exec. Our own descriptors are all CLOEXEC, so only what is set up here
 * survives into the PE. */
static void child_exec(int rank, const struct child_fds *c) __attribute__((noreturn));
static void child_exec(int rank, const struct child_fds *c)
{
    char num[32];
    /* If oshrun dies (even by SIGKILL) its PEs must not run on as orphans. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != c->parent)
        _exit(127);
    sigaction(SIGPIPE, &orig_sigpipe, NULL);
    sigprocmask(SIG_SETMASK, &orig_mask, NULL);
    if (orig_nofile.rlim_cur != RLIM_INFINITY)
        setrlimit(RLIMIT_NOFILE, &orig_nofile);
    if (dup2(c->out_w, STDOUT_FILENO) < 0 || dup2(c->err_w, STDERR_FILENO) < 0 ||
        (rank != 0 && dup2(c->devnull, STDIN_FILENO) < 0) || set_cloexec(c->ctrl_w, 0) != 0)
        _exit(127);
    snprintf(num, sizeof(num), "%d", rank);
    setenv("SYMM_RANK", num, 1);
    snprintf(num, sizeof(num), "%d", c->ctrl_w);
    setenv("SYMM_CTRL_FD", num, 1);
    if (c->listen_fd >= 0) {
        if (set_cloexec(c->listen_fd, 0) != 0)
            _exit(127);
        snprintf(num, sizeof(num), "%d", c->listen_fd);
        setenv("SYMM_BOOT_LISTEN_FD", num, 1);
    }
    if (c->cpu >= 0) {
        cpu_set_t *set = CPU_ALLOC(c->cpu + 1);
        size_t size = CPU_ALLOC_SIZE(c->cpu + 1);
        if (set != NULL) {
            CPU_ZERO_S(size, set);
            CPU_SET_S(c->cpu, size, set);
            if (sched_setaffinity(0, size, set) != 0)
                msg("oshrun: PE %d: cannot bind to CPU %d: %s", rank, c->cpu, strerror(errno));
        }
    }
    execv(opt.path, opt.argv);
    if (errno == ENOEXEC) {
        /* No #! line: run it with the shell, as execvp does. */
        int argc = 0;
        while (opt.argv[argc] != NULL)
            argc++;
        char **sh_argv = calloc((size_t)argc + 2, sizeof(char *));
        if (sh_argv != NULL) {
            sh_argv[0] = "sh";
            sh_argv[1] = opt.path;
            memcpy(sh_argv + 2, opt.argv + 1, sizeof(char *) * (size_t)argc);
            execv("/bin/sh", sh_argv);
        }
    }
    msg("oshrun: PE %d: cannot execute %s: %s", rank, opt.path, strerror(errno));
    _exit(127);
}

static void kill_live(int sig, int except)
{
    for (int i = 0; i < opt.np; i++)
        if (job.pes[i].pid > 0 && i != except)
            kill(job.pes[i].pid, sig);
}

/* Records why the job ends (the first cause wins), asks every PE but
 * `except` to stop with sig, and arms the SIGKILL deadline. */
static void end_job(int status, int sig, int except)
{
    job.ending = 1;
    job.status = status;
    kill_live(sig, except);
    job.kill_at = now_s() + opt.grace_s;
}

/* One line per job, so that an oversubscribed run's slowness is not a
 * mystery. Only on a terminal: the test suite (and any script) runs 4 PEs
 * on 2 cores on purpose and on every run, and a line in every log that
 * nobody asked for would teach readers to skip oshrun's lines. The library
 * yields at once when there are more PEs on the machine than its cores
 * (core/instance.c, choose_spin); a taskset that allows fewer CPUs than
 * the machine has leaves that to SYMM_SPIN. */
static void note_oversubscribed(int ncpu)
{
    if (opt.quiet || !isatty(STDERR_FILENO))
        return;
    const char *yield = opt.np > get_nprocs() ? " and waits yield the CPU" : "";
    if (opt.bind)
        msg("oshrun: %d PEs on %d CPUs: oversubscribed, PE i bound to CPU i mod %d%s", opt.np,
            ncpu, ncpu, yield);
    else
        msg("oshrun: %d PEs on %d CPUs: oversubscribed, PEs are not bound%s", opt.np, ncpu, yield);
}

static void start_pes(void)
{
    char secret[33], addr[64], num[32];
    int ncpu = 0, *cpus = allowed_cpus(&ncpu);
    int oversubscribed = cpus != NULL && ncpu < opt.np;
    int bind = opt.bind && cpus != NULL;
    struct child_fds c = { .parent = getpid() };

    if (oversubscribed)
        note_oversubscribed(ncpu);
    make_secret(secret);
    c.listen_fd = open_boot_socket(addr, sizeof(addr));
    c.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    snprintf(num, sizeof(num), "%d", opt.np);
    if (c.devnull < 0 || setenv("SYMM_SIZE", num, 1) != 0 || setenv("SYMM_LAUNCHER", "oshrun", 1) != 0 ||
        setenv("SYMM_JOB_SECRET", secret, 1) != 0 || setenv("SYMM_BOOT_ADDR", addr, 1) != 0) {
        msg("oshrun: cannot prepare the PE environment: %s", strerror(errno));
        exit(1);
    }
    /* Only PE 0 may see a listening fd, even if oshrun itself runs inside a job. */
    unsetenv("SYMM_BOOT_LISTEN_FD");

    for (int i = 0; i < opt.np; i++) {
        struct pe *p = &job.pes[i];
        int fds[6], made = 0; /* read and write ends of stdout, stderr, control */
        while (made < 3 && pipe2(fds + 2 * made, O_CLOEXEC) == 0)
            made++;
        c.out_w = fds[1];
        c.err_w = fds[3];
        c.ctrl_w = fds[5];
        c.cpu = bind ? cpus[i % ncpu] : -1;
        pid_t pid = made == 3 ? fork() : -1;
        if (pid == 0)
            child_exec(i, &c);
        int saved = errno;
        for (int k = 0; k < made; k++) {
            close(fds[2 * k + 1]);
            /* Non-blocking read ends only: the PE's write ends stay blocking. */
            if (pid < 0)
                close(fds[2 * k]);
            else
                fcntl(fds[2 * k], F_SETFL, O_NONBLOCK);
        }
        if (pid < 0) {
            msg("oshrun: cannot start PE %d: %s: %s", i, made < 3 ? "pipe" : "fork", strerror(saved));
            /* The PEs already started cannot bootstrap without this one. */
            opt.np = i;
            end_job(1, SIGTERM, -1);
            break;
        }
        p->pid = pid;
        job.live++;
        p->out = (struct stream){ .fd = fds[0], .dest = STDOUT_FILENO };
        p->err = (struct stream){ .fd = fds[2], .dest = STDERR_FILENO };
        p->ctrl_fd = fds[4];
        if (i == 0) {
            /* The listening socket now belongs to PE 0 alone. */
            close(c.listen_fd);
            c.listen_fd = -1;
        }
    }
    if (c.listen_fd >= 0)
        close(c.listen_fd);
    close(c.devnull);
    free(cpus);
}

/* ---------------------------------------------------------------- output */

/* Writes whole lines to our stdout or stderr. When that goes away (EPIPE),
 * the PEs' output is dropped but still read, so no PE blocks on a full pipe. */
static void out_write(int dest, const char *buf, size_t len)
{
    while (len > 0 && !job.dest_dead[dest]) {
        ssize_t n = write(dest, buf, len);
        if (n >= 0) {
            buf += n;
            len -= (size_t)n;
        } else if (errno == EAGAIN) {
            /* Someone made the terminal non-blocking; wait for room. */
            struct pollfd w = { .fd = dest, .events = POLLOUT };
            poll(&w, 1, -1);
        } else if (errno != EINTR) {
            job.dest_dead[dest] = 1;
        }
    }
}

/* data[0..len) is whole lines, each ending in '\n'. */
static void emit_lines(const struct stream *s, int rank, const char *data, size_t len)
{
    static char stage[2 * LINE_CAP + 64];
    char prefix[32];
    size_t used = 0;
    if (!opt.tag_output) {
        out_write(s->dest, data, len);
        return;
    }
    size_t plen = (size_t)snprintf(prefix, sizeof(prefix), "[pe %d] ", rank);
    const char *end = data + len;
    while (data < end) {
        const char *nl = memchr(data, '\n', (size_t)(end - data));
        size_t llen = (size_t)(nl - data) + 1;
        if (used + plen + llen > sizeof(stage)) {
            out_write(s->dest, stage, used);
            used = 0;
        }
        memcpy(stage + used, prefix, plen);
        memcpy(stage + used + plen, data, llen);
        used += plen + llen;
        data += llen;
    }
    out_write(s->dest, stage, used);
}

/* Writes the pending partial line with a '\n' added (buf has room for it). */
static void flush_partial(struct stream *s, int rank)
{
    if (s->len == 0)
        return;
    s->buf[s->len++] = '\n';
    emit_lines(s, rank, s->buf, s->len);
    s->len = 0;
}

static void stream_close(struct stream *s, int rank)
{
    flush_partial(s, rank);
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
}

/* Reads up to max_reads chunks from one stream and writes the complete lines. */
static void stream_read(struct stream *s, int rank, int max_reads)
{
    while (s->fd >= 0 && max_reads-- > 0) {
        if (s->buf == NULL && (s->buf = malloc(LINE_CAP + 1)) == NULL) {
            msg("oshrun: out of memory");
            exit(1);
        }
        ssize_t n = read(s->fd, s->buf + s->len, LINE_CAP - s->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            stream_close(s, rank);
            return;
        }
        size_t old = s->len;
        s->len += (size_t)n;
        const char *last = memrchr(s->buf + old, '\n', (size_t)n);
        if (last != NULL) {
            size_t done = (size_t)(last - s->buf) + 1;
            emit_lines(s, rank, s->buf, done);
            memmove(s->buf, s->buf + done, s->len - done);
            s->len -= done;
        } else if (s->len == LINE_CAP) {
            flush_partial(s, rank); /* a line longer than LINE_CAP: split it */
        }
    }
}

/* ---------------------------------------------------------------- events */

static void ctrl_line(int rank, char *line)
{
    char *end;
    if (strcmp(line, "reported") == 0) {
        job.pes[rank].reported = 1;
        return;
    }
    if (strcmp(line, "peer_reported") == 0) {
        /* A survivor has said what every PE was doing: no need to wait. */
        job.peer_reported = 1;
        if (job.term_at > 0)
            job.term_at = now_s();
        return;
    }
    if (strncmp(line, "global_exit ", 12) != 0)
        return; /* unknown requests are ignored so the library may add some */
    errno = 0;
    long status = strtol(line + 12, &end, 10);
    if (errno != 0 || end == line + 12 || job.ending)
        return;
    if (status != 0)
        msg("oshrun: PE %d called shmem_global_exit(%ld)", rank, status);
    /* The caller exits by itself; it is killed only if still there after the grace. */
    end_job((int)(status & 0xff), SIGTERM, rank);
}

static void ctrl_read(int rank)
{
    struct pe *p = &job.pes[rank];
    while (p->ctrl_fd >= 0) {
        ssize_t n = read(p->ctrl_fd, p->ctrl_buf + p->ctrl_len, sizeof(p->ctrl_buf) - 1 - p->ctrl_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            close(p->ctrl_fd);
            p->ctrl_fd = -1;
            return;
        }
        p->ctrl_len += (size_t)n;
        char *nl;
        while ((nl = memchr(p->ctrl_buf, '\n', p->ctrl_len)) != NULL) {
            *nl = '\0';
            ctrl_line(rank, p->ctrl_buf);
            p->ctrl_len -= (size_t)(nl + 1 - p->ctrl_buf);
            memmove(p->ctrl_buf, nl + 1, p->ctrl_len);
        }
        if (p->ctrl_len == sizeof(p->ctrl_buf) - 1)
            p->ctrl_len = 0; /* an overlong request is garbage */
    }
}

static void on_pe_exit(int rank, pid_t pid, int wstatus)
{
    int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    if (code == 0 || job.ending)
        return;
    if (!job.pes[rank].reported && WIFEXITED(wstatus))
        msg("oshrun: PE %d (pid %d) exited with status %d", rank, (int)pid, code);
    else if (!job.pes[rank].reported)
        msg("oshrun: PE %d (pid %d) killed by signal %d (%s)", rank, (int)pid, WTERMSIG(wstatus),
            sig_name(WTERMSIG(wstatus)));
    /* The others' symm watchers see the death too and report what each PE
     * was doing (src/core/watch.c): give them a moment before SIGTERM. */
    end_job(code, 0, -1);
    job.term_at = now_s() + (job.pes[rank].reported || job.peer_reported ? 0 : TERM_DELAY_S);
    job.kill_at = job.term_at + opt.grace_s;
}

static void reap_children(void)
{
    int wstatus;
    pid_t pid;
    while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
        int rank = -1;
        for (int i = 0; i < opt.np && rank < 0; i++)
            if (job.pes[i].pid == pid)
                rank = i;
        if (rank < 0)
            continue;
        struct pe *p = &job.pes[rank];
        p->pid = 0;
        job.live--;
        /* Read what it left first: a global_exit request decides how its exit
         * counts, and its last words belong before our report. Bounded, in
         * case a grandchild keeps writing. */
        ctrl_read(rank);
        stream_read(&p->out, rank, 16);
        stream_read(&p->err, rank, 16);
        on_pe_exit(rank, pid, wstatus);
    }
    if (job.live == 0 && job.drain_at == 0)
        job.drain_at = now_s() + DRAIN_S;
}

static void on_signal(int sig)
{
    if (job.ending) {
        /* A second signal (or one during shutdown) means now. */
        kill_live(SIGKILL, -1);
        job.kill_at = 0;
        return;
    }
    end_job(128 + sig, sig, -1);
}

static void read_signals(void)
{
    struct signalfd_siginfo si;
    while (read(job.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGCHLD)
            reap_children();
        else
            on_signal((int)si.ssi_signo);
    }
}

static void setup_signals(void)
{
    static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
        struct sigaction old;
        /* A signal we were told to ignore (nohup, `&` in a script) stays ignored. */
        if (sigaction(forwarded[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaddset(&set, forwarded[i]);
    }
    /* An inherited SIG_IGN for SIGCHLD would make the kernel reap our PEs. */
    sigaction(SIGCHLD, &dfl, NULL);
    /* A closed stdout must not kill the supervisor while PEs run. */
    sigaction(SIGPIPE, &ign, &orig_sigpipe);
    /* Blocked before the first fork, so no SIGCHLD can be missed. */
    sigprocmask(SIG_BLOCK, &set, &orig_mask);
    job.sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (job.sfd < 0) {
        msg("oshrun: signalfd: %s", strerror(errno));
        exit(1);
    }
}

static double earliest(double a, double b)
{
    return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

static void run_loop(void)
{
    struct pollfd *pfd = malloc(sizeof(*pfd) * (1 + 3 * (size_t)opt.np));
    int *who = malloc(sizeof(int) * (1 + 3 * (size_t)opt.np)); /* rank*3 + (0 out, 1 err, 2 ctrl) */
    if (pfd == NULL || who == NULL) {
        msg("oshrun: out of memory");
        exit(1);
    }
    for (;;) {
        double now = now_s();
        if (!job.ending && job.live > 0 && job.timeout_at > 0 && now >= job.timeout_at) {
            msg("oshrun: job timed out after %g s; killing %d PEs", opt.timeout_s, job.live);
            end_job(EXIT_TIMEOUT, SIGTERM, -1);
        }
        if (job.term_at > 0 && now >= job.term_at) {
            kill_live(SIGTERM, -1);
            job.term_at = 0;
        }
        if (job.kill_at > 0 && now >= job.kill_at) {
            kill_live(SIGKILL, -1);
            job.kill_at = 0;
        }
        if (job.live == 0 && job.drain_at == 0)
            job.drain_at = now + DRAIN_S;
        int n = 0;
        pfd[n++] = (struct pollfd){ .fd = job.sfd, .events = POLLIN };
        for (int i = 0; i < opt.np; i++) {
            int fds[3] = { job.pes[i].out.fd, job.pes[i].err.fd, job.pes[i].ctrl_fd };
            for (int k = 0; k < 3; k++)
                if (fds[k] >= 0) {
                    who[n] = i * 3 + k;
                    pfd[n++] = (struct pollfd){ .fd = fds[k], .events = POLLIN };
                }
        }
        if (job.live == 0 && (n == 1 || now >= job.drain_at))
            break;
        double next = earliest(earliest(job.ending ? 0 : job.timeout_at, job.kill_at), job.term_at);
        if (job.live == 0)
            next = earliest(next, job.drain_at);
        struct timespec ts, *tp = NULL;
        if (next > 0) {
            double d = next > now ? next - now : 0;
            ts.tv_sec = (time_t)d;
            ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
            tp = &ts;
        }
        if (ppoll(pfd, (nfds_t)n, tp, NULL) < 0) {
            if (errno == EINTR)
                continue;
            msg("oshrun: poll: %s", strerror(errno));
            exit(1);
        }
        /* Control pipes first, so a global_exit is known before its SIGCHLD. */
        for (int k = 1; k < n; k++)
            if (pfd[k].revents != 0 && who[k] % 3 == 2 && job.pes[who[k] / 3].ctrl_fd == pfd[k].fd)
                ctrl_read(who[k] / 3);
        for (int k = 1; k < n; k++) {
            if (pfd[k].revents == 0 || who[k] % 3 == 2)
                continue;
            struct pe *p = &job.pes[who[k] / 3];
            struct stream *s = who[k] % 3 == 0 ? &p->out : &p->err;
            if (s->fd == pfd[k].fd)
                stream_read(s, who[k] / 3, 1);
        }
        if (pfd[0].revents != 0)
            read_signals();
    }
    /* Drain deadline passed (a grandchild holds a pipe) or all at EOF. */
    for (int i = 0; i < opt.np; i++) {
        stream_close(&job.pes[i].out, i);
        stream_close(&job.pes[i].err, i);
        if (job.pes[i].ctrl_fd >= 0)
            close(job.pes[i].ctrl_fd);
    }
    free(pfd);
    free(who);
}

int main(int argc, char **argv)
{
    char **xvars;
    int nx;

    orig_nofile.rlim_cur = RLIM_INFINITY;
    /* With 0, 1 or 2 closed, a pipe could land there and be clobbered by dup2. */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return 1;
    parse_args(argc, argv, &xvars, &nx);
#ifdef SYMM_OSHRUN_PYTHON
    use_symm_python();
#endif
    opt.path = find_program(opt.argv[0]);
    apply_xvars(xvars, nx);
    free(xvars);
    check_fd_limit(opt.np);
    job.pes = calloc((size_t)opt.np, sizeof(*job.pes));
    if (job.pes == NULL || opt.path == NULL) {
        msg("oshrun: out of memory");
        return 1;
    }
    setup_signals();
    if (opt.timeout_s > 0)
        job.timeout_at = now_s() + opt.timeout_s;
    start_pes();
    run_loop();
    return job.status;
}
