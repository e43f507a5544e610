/*
 * tcp_env.c - the TCP bootstrap from oshrun's environment.
 *
 * Owns the parsing and validation of the launcher's variables (SYMM_RANK,
 * SYMM_SIZE, SYMM_BOOT_ADDR, SYMM_JOB_SECRET, SYMM_BOOT_LISTEN_FD: the
 * listening socket rank 0 inherits) into symm_boot_tcp_create's parameters.
 * boot.c decides whether the environment describes such a job
 * (symm_tcp_env_var_set); this file never falls back to a singleton.
 *
 * Must never guess: a partial or malformed environment is an error naming
 * the variable (that would otherwise turn one job of N PEs into N jobs of
 * one PE). Must never modify the environment (not thread-safe), nor close a
 * descriptor it does not own.
 */
#include "boot/boot_io.h"
#include "boot/tcp/tcp_boot.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Far above any real job; it keeps size * blob length products sane. */
#define BOOT_MAX_SIZE (1 << 20)

/* Whole-string decimal integer in [lo, hi]. */
static int parse_int(const char *s, long lo, long hi, int *val_p)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *val_p = (int)v;
    return 0;
}

/* The launcher's listening socket: check it is one, and keep it from leaking
 * into programs the PE executes. */
static int take_listen_fd(const char *s, int *fd_p)
{
    int fd, accepting = 0, type = 0;
    socklen_t alen = sizeof(accepting), tlen = sizeof(type);

    if (parse_int(s, 0, INT_MAX, &fd) != 0) {
        symm_error("bootstrap", "SYMM_BOOT_LISTEN_FD='%s' is not a file descriptor number", s);
        return SYMM_ERR_INVALID;
    }
    if (fcntl(fd, F_GETFD) < 0) {
        symm_error("bootstrap", "SYMM_BOOT_LISTEN_FD=%d is not an open descriptor: %s", fd,
                   strerror(errno));
        return SYMM_ERR_INVALID;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &alen) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 || !accepting ||
        type != SOCK_STREAM) {
        symm_error("bootstrap", "SYMM_BOOT_LISTEN_FD=%d is not a listening TCP socket", fd);
        return SYMM_ERR_INVALID;
    }
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        symm_error("bootstrap", "SYMM_BOOT_LISTEN_FD=%d: cannot set close-on-exec: %s", fd,
                   strerror(errno));
        return SYMM_ERR_SYS;
    }
    *fd_p = fd;
    return SYMM_OK;
}

static const char *const launcher_vars[] = {"SYMM_RANK", "SYMM_SIZE", "SYMM_BOOT_ADDR",
                                            "SYMM_JOB_SECRET", "SYMM_BOOT_LISTEN_FD"};

const char *symm_tcp_env_var_set(void)
{
    for (size_t i = 0; i < sizeof(launcher_vars) / sizeof(launcher_vars[0]); i++)
        if (getenv(launcher_vars[i]) != NULL)
            return launcher_vars[i];
    return NULL;
}

int symm_tcp_create_from_env(double timeout_s, symm_boot_t **boot_p)
{
    const char *const *names = launcher_vars;
    const char *val[4];
    const char *lfd_s = getenv("SYMM_BOOT_LISTEN_FD");
    int missing = -1, present = -1;

    for (int i = 0; i < 4; i++) {
        val[i] = getenv(names[i]);
        if (val[i] != NULL) {
            if (present < 0)
                present = i;
        } else if (missing < 0) {
            missing = i;
        }
    }

    if (missing >= 0) {
        symm_error("bootstrap",
                   "%s is not set, but %s is: the launcher's environment is "
                   "incomplete (run the program under oshrun, or with none of SYMM_RANK, "
                   "SYMM_SIZE, SYMM_BOOT_ADDR, SYMM_JOB_SECRET for a single PE)",
                   names[missing], present >= 0 ? names[present] : "SYMM_BOOT_LISTEN_FD");
        return SYMM_ERR_INVALID;
    }

    symm_boot_tcp_params_t p = {.listen_fd = -1, .timeout_s = timeout_s};
    if (parse_int(val[1], 1, BOOT_MAX_SIZE, &p.size) != 0) {
        symm_error("bootstrap", "SYMM_SIZE='%s' is not a PE count in 1..%d", val[1], BOOT_MAX_SIZE);
        return SYMM_ERR_INVALID;
    }
    if (parse_int(val[0], 0, p.size - 1, &p.rank) != 0) {
        symm_error("bootstrap", "SYMM_RANK='%s' is not a rank in 0..%d (SYMM_SIZE=%d)", val[0],
                   p.size - 1, p.size);
        return SYMM_ERR_INVALID;
    }
    if (!symm_boot_secret_valid(val[3])) {
        symm_error("bootstrap", "SYMM_JOB_SECRET is not 32 hexadecimal characters");
        return SYMM_ERR_INVALID;
    }
    p.root_addr = val[2];
    p.secret = val[3];
    /* Messages from here on name this PE. */
    symm_log_set_pe(p.rank);

    /* Only rank 0 listens; another rank ignores a stray inherited variable
     * rather than closing a descriptor it does not own. */
    if (p.rank == 0 && lfd_s != NULL) {
        int rc = take_listen_fd(lfd_s, &p.listen_fd);
        if (rc != SYMM_OK)
            return rc;
    }
    return symm_boot_tcp_create(&p, boot_p);
}
