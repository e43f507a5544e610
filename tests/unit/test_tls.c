/*
 * test_tls.c - TLS of the tcp bootstrap, without a launcher.
 *
 * Usage: test_tls [--quick]   (--quick: 3 timing rounds instead of 10)
 *
 * Like test_boot.c, the parent plays oshrun: it opens a listening socket on
 * 127.0.0.1:0, makes a job secret and forks PEs that build the bootstrap
 * parameters by hand. Checked:
 *   - jobs of 1, 2, 4 PEs with TLS (pre-shared key, the default): barrier,
 *     allgather (1 B to 100 KiB), fd exchange, no descriptor leaked, and
 *     rank 0's info line saying TLS is on;
 *   - an impostor with a wrong secret (over TLS, then without TLS) is
 *     refused and logged while the job completes;
 *   - the wire: PE 1 reaches PE 0 through a relay process that records every
 *     byte both ways; with TLS neither the allgather's marker nor the job
 *     secret is in it, without TLS both are (so the relay does see them);
 *   - certificate mode with a CA and certificates made by the openssl CLI
 *     (skipped with a message without it): a job whose PEs get their key
 *     from tls_info, from memory with a password, and through a decrypt
 *     handler; an impostor with another CA's certificate refused; bad
 *     files and passwords reported at creation;
 *   - mismatched settings (TLS on at one PE, off at the other, either way
 *     round) fail both PEs fast, with messages that say so; a PSK PE
 *     against a certificate rank 0 fails at once, rank 0 times out;
 *   - the settings: the aclshmemx_ calls, SYMM_BOOT_TLS, bad tls_info;
 *   - the cost: create + barrier of 4 PEs with and without TLS (printed).
 *
 * Children record each check in shared memory; the parent prints one line
 * per check and exits 0 only if all passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "boot/boot.h"
#include "boot/tls.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "symm_tls.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PES 8
#define MAX_CHECKS 12
#define MSG_LEN 300
#define WIRE_CAP (4 << 20)
#define MARKER "SYMM-WIRE-MARKER"

enum {
    SC_BASIC,
    SC_IMPOSTOR,
    SC_WIRE,
    SC_CERT,
    SC_CERT_IMPOSTOR,
    SC_CERT_BAD,
    SC_MISMATCH,
    SC_MODE_MISMATCH,
    SC_CONF,
    SC_TIME,
};

typedef struct check_slot {
    int state;          /* 0 not run, 1 passed, -1 failed */
    char note[MSG_LEN];
    double value;       /* a measurement */
} check_slot_t;

#include "boot_harness.h"

typedef struct job {
    int n;              /* PEs */
    int lfd;
    char addr[64];      /* rank 0's */
    char peer_addr[64]; /* where the other ranks connect (a relay, or addr) */
    char secret[33];
    int scenario;
    int variant;
    check_slot_t *res;  /* shared: [rank][check]; the impostor's row is [n] */
    pid_t pid[MAX_PES + 1];
} job_t;

static const char *check_name[][MAX_CHECKS] = {
    [SC_BASIC] = {"create", "barrier", "allgather 1 B", "allgather 8 B", "allgather 100 KiB",
                  "fds: one node, 2 fds", "final barrier", "no descriptor leaked",
                  "rank 0 logs TLS status (info)"},
    [SC_IMPOSTOR] = {"impostor told it was refused", "job completes",
                     "rank 0 logs the refusal"},
    [SC_WIRE] = {"job through the relay"},
    [SC_CERT] = {"create", "barrier + allgather", "key source of this PE",
                 "rank 0 logs certificate mode"},
    [SC_CERT_IMPOSTOR] = {"impostor fails with a TLS reason", "job completes",
                          "rank 0 logs the refusal"},
    [SC_CERT_BAD] = {"missing certificate file", "wrong key password",
                     "decrypt handler failure", "key of another certificate"},
    [SC_MISMATCH] = {"rank 0 names the mismatch fast", "rank 1 told fast"},
    [SC_MODE_MISMATCH] = {"rank 0 times out naming PE 1", "rank 1 fails with a TLS reason"},
    [SC_CONF] = {"default on", "set off / on", "SYMM_BOOT_TLS overrides",
                 "bad SYMM_BOOT_TLS refused", "tls_info parsed (ours and CANN's names)",
                 "bad tls_info refused", "bad key arguments refused",
                 "bad SYMM_BOOT_TLS fails create"},
    [SC_TIME] = {"create + barrier"},
};

static char cert_dir[64];  /* "" when the openssl CLI is missing */


/* ---- child side ----------------------------------------------------------- */





/* The first line of captured stderr, for a failure's note. */
static const char *captured_any(void)
{
    const char *l = captured("symm:");
    return l ? l : "nothing logged";
}



static void check_fds(symm_boot_t *b, int check, int nfds)
{
    int n = b->size, ranks[MAX_PES], mine[4], out[MAX_PES * 4], bad = 0;
    for (int r = 0; r < n; r++)
        ranks[r] = r;
    for (int j = 0; j < nfds; j++) {
        int v[2] = {b->rank, j};
        mine[j] = memfd_create("pe", MFD_CLOEXEC);
        if (mine[j] < 0 || write(mine[j], v, sizeof(v)) != sizeof(v))
            bad++;
    }
    int rc = symm_boot_fds_exchange(b, ranks, n, b->rank, mine, nfds, out);
    for (int i = 0; rc == 0 && i < n; i++) {
        for (int j = 0; j < nfds; j++) {
            int v[2] = {-1, -1};
            if (pread(out[i * nfds + j], v, sizeof(v), 0) != sizeof(v) || v[0] != i || v[1] != j)
                bad++;
            close(out[i * nfds + j]);
        }
    }
    for (int j = 0; j < nfds; j++)
        close(mine[j]);
    mark(check, rc == 0 && bad == 0, "rc %d, %d bad descriptors", rc, bad);
}


/* The bootstrap of `rank`, parameters by hand; rank 0 takes the job's
 * listening socket, the others close their copy. */
static int create(const job_t *job, int rank, const char *secret, double timeout, symm_boot_t **b)
{
    symm_boot_tcp_params_t p = {rank, job->n, rank == 0 ? job->addr : job->peer_addr,
                                rank == 0 ? job->lfd : -1, secret, timeout};
    if (rank != 0 && job->lfd >= 0)
        close(job->lfd);
    symm_log_set_pe(rank);
    return symm_boot_tcp_create(&p, b);
}

static void pe_basic(const job_t *job, int rank)
{
    symm_boot_t *b;
    symm_log_set_level(2);
    int fds_before = count_fds() - 1; /* the job's socket: rank 0's is taken, the others close it */
    int rc = create(job, rank, job->secret, 20.0, &b);
    mark(0, rc == 0 && b->rank == rank && b->size == job->n, "rc %d: %s", rc, captured_any());
    if (rc != 0)
        return;
    mark(1, symm_boot_barrier(b) == 0, NULL);
    check_allgather(b, 2, 1);
    check_allgather(b, 3, 8);
    check_allgather(b, 4, 100 * 1024);
    check_fds(b, 5, 2);
    mark(6, symm_boot_barrier(b) == 0, NULL);
    symm_boot_destroy(b);
    int fds_after = count_fds();
    mark(7, fds_after == fds_before, "%d open before, %d after", fds_before, fds_after);
    if (rank == 0) {
        const char *line = captured(job->n > 1 ? "TLS on: TLS 1.3, pre-shared key"
                                               : "nothing to protect in a job of one PE");
        mark(8, line != NULL, "%s", line ? line : captured_any());
    }
}

/* Rank -1: the impostor (variant 0 over TLS, 1 without), with a wrong
 * secret, claiming rank 1. It is started after rank 0 and before the other
 * ranks, and ends before they start, so rank 0 judges it for sure. */
static void pe_impostor(const job_t *job, int rank)
{
    symm_boot_t *b;
    if (rank < 0) {
        char bad[33];
        memcpy(bad, job->secret, 33);
        bad[0] = bad[0] == 'a' ? 'b' : 'a';
        if (job->variant == 1)
            aclshmemx_set_conf_store_tls(false, NULL, 0);
        int rc = create(job, 1, bad, 10.0, &b);
        if (rc == 0) {
            rc = symm_boot_barrier(b);
            symm_boot_destroy(b);
        }
        const char *line = captured("refused this PE's connection: bad job secret");
        mark(0, rc == SYMM_ERR_BOOT && line != NULL, "rc %d: %s", rc,
             line ? line : captured_any());
        return;
    }
    int rc = create(job, rank, job->secret, 10.0, &b);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        if (rc == 0)
            check_allgather(b, 1, 64);
        symm_boot_destroy(b);
    }
    mark(1, rc == 0, "rc %d", rc);
    if (rank == 0) {
        const char *line = job->variant == 0
                               ? captured("TLS handshake failed (wrong job secret or certificate)")
                               : captured("bad job secret (and it runs the bootstrap without TLS)");
        mark(2, line != NULL && strstr(line, "refused connection from 127.0.0.1:") != NULL, "%s",
             line ? line : captured_any());
    }
}

/* A 2-PE job through the relay; variant 1 without TLS. */
static void pe_wire(const job_t *job, int rank)
{
    symm_boot_t *b;
    char in[64] = {0}, *out = NULL;
    if (job->variant == 1)
        aclshmemx_set_conf_store_tls(false, NULL, 0);
    int rc = create(job, rank, job->secret, 10.0, &b);
    if (rc == 0) {
        snprintf(in, sizeof(in), "%s from PE %d, to be seen by all", MARKER, rank);
        out = malloc(sizeof(in) * 2);
        rc = symm_boot_allgather(b, in, out, sizeof(in));
        if (rc == 0 && (strcmp(out, MARKER " from PE 0, to be seen by all") != 0 ||
                        strcmp(out + sizeof(in), MARKER " from PE 1, to be seen by all") != 0))
            rc = -100;
        if (rc == 0)
            rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    free(out);
    if (rc == 0)
        mark(0, 1, NULL);
    else
        mark(0, 0, "rc %d: %s", rc, captured_any());
}

/* ---- certificates ---- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    char *buf = malloc(65536);
    *len = f && buf ? fread(buf, 1, 65535, f) : 0;
    if (f)
        fclose(f);
    if (buf)
        buf[*len] = '\0';
    return buf;
}

/* The test's "encryption" of the password: reversed. */
static int reverse_handler(const char *cipher, size_t len, char *plain, size_t *plain_len)
{
    if (len > *plain_len)
        return -1;
    for (size_t i = 0; i < len; i++)
        plain[i] = cipher[len - 1 - i];
    *plain_len = len;
    return 0;
}

static int failing_handler(const char *cipher, size_t len, char *plain, size_t *plain_len)
{
    (void)cipher;
    (void)len;
    (void)plain;
    (void)plain_len;
    return 7;
}

static int set_cert_conf(const char *cert, const char *key, const char *ca)
{
    char info[1024];
    int n = snprintf(info, sizeof(info), " cert = %s/%s ;\nca=%s/%s", cert_dir, cert, cert_dir, ca);
    if (key != NULL)
        n += snprintf(info + n, sizeof(info) - (size_t)n, "; key=%s/%s", cert_dir, key);
    return aclshmemx_set_conf_store_tls(true, info, (uint32_t)n);
}

/* Each PE loads its key another way: 0 and 1 from tls_info, 2 from memory
 * with its password, 3 from memory with a decrypt handler. */
static void pe_cert(const job_t *job, int rank)
{
    symm_boot_t *b;
    char path[128];
    size_t len = 0;
    int rc;
    const char *how = rank < 2    ? "key= in tls_info"
                      : rank == 2 ? "PEM in memory + password"
                                  : "PEM in memory + decrypt handler";
    symm_log_set_level(2);
    rc = set_cert_conf("node.pem", rank < 2 ? "node.key" : NULL, "ca.pem");
    if (rc == 0 && rank >= 2) {
        snprintf(path, sizeof(path), "%s/node_enc.key", cert_dir);
        char *pem = slurp(path, &len);
        rc = rank == 2 ? aclshmemx_set_config_store_tls_key(pem, (uint32_t)len, "sekrit", 6, NULL)
                       : aclshmemx_set_config_store_tls_key(pem, (uint32_t)len, "tirkes", 6,
                                                            reverse_handler);
        free(pem);
    }
    mark(2, rc == 0, "%s: rc %d", how, rc);
    rc = create(job, rank, job->secret, 10.0, &b);
    mark(0, rc == 0, rc ? "rc %d: %s" : "rc %d%s", rc, rc ? captured_any() : "");
    if (rc != 0)
        return;
    rc = symm_boot_barrier(b);
    if (rc == 0)
        check_allgather(b, 1, 4096);
    else
        mark(1, 0, "barrier rc %d", rc);
    symm_boot_destroy(b);
    if (rank == 0) {
        const char *line = captured("TLS on: TLS 1.3 with certificates");
        mark(3, line != NULL, "%s", line ? line : captured_any());
    }
}

static void pe_cert_impostor(const job_t *job, int rank)
{
    symm_boot_t *b;
    if (rank < 0) {
        /* Trusts the job's CA, but its own certificate is another CA's. */
        set_cert_conf("evil.pem", "evil.key", "ca.pem");
        int rc = create(job, 1, job->secret, 10.0, &b);
        if (rc == 0) {
            rc = symm_boot_barrier(b);
            symm_boot_destroy(b);
        }
        const char *line = captured("TLS handshake failed");
        mark(0, rc == SYMM_ERR_BOOT && line != NULL, "rc %d: %s", rc,
             line ? line : captured_any());
        return;
    }
    set_cert_conf("node.pem", "node.key", "ca.pem");
    int rc = create(job, rank, job->secret, 10.0, &b);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        if (rc == 0)
            check_allgather(b, 1, 64);
        symm_boot_destroy(b);
    }
    mark(1, rc == 0, rc ? "rc %d: %s" : "rc %d%s", rc, rc ? captured_any() : "");
    if (rank == 0) {
        const char *line = captured("TLS handshake failed (wrong job secret or certificate)");
        mark(2, line != NULL && strstr(line, "refused connection from 127.0.0.1:") != NULL, "%s",
             line ? line : captured_any());
    }
}

/* One PE alone (job of 2, the other never comes): creation must fail at
 * loading the files, naming the problem. */
static void pe_cert_bad(const job_t *job)
{
    static const struct {
        const char *cert, *key, *pw, *needle;
        int handler;
    } cases[] = {
        {"missing.pem", "node.key", NULL, "cannot use the certificate", 0},
        {"node.pem", NULL, "wrong", "cannot read the private key", 0},
        {"node.pem", NULL, "tirkes", "decrypt handler failed", 1},
        {"node.pem", "evil.key", NULL, "does not fit the certificate", 0},
    };
    char path[128];
    size_t len;
    job_t j = *job; /* PE 1 of 2, alone: its copy of the job's socket goes now */
    close(j.lfd);
    j.lfd = -1;
    j.n = 2;
    snprintf(path, sizeof(path), "%s/node_enc.key", cert_dir);
    char *pem = slurp(path, &len);
    for (int i = 0; i < 4; i++) {
        symm_boot_t *b;
        capture();
        set_cert_conf(cases[i].cert, cases[i].key, "ca.pem");
        if (cases[i].pw != NULL)
            aclshmemx_set_config_store_tls_key(pem, (uint32_t)len, cases[i].pw,
                                               (uint32_t)strlen(cases[i].pw),
                                               cases[i].handler ? failing_handler : NULL);
        double t0 = now_s();
        int rc = create(&j, 1, j.secret, 5.0, &b);
        double t = now_s() - t0;
        if (rc == 0)
            symm_boot_destroy(b);
        const char *line = captured(cases[i].needle);
        mark(i, rc != 0 && line != NULL && t < 1.0, "rc %d after %.2f s: %s", rc, t,
             line ? line : captured_any());
    }
    free(pem);
}

/* variant 0: TLS on at rank 0, off at rank 1; variant 1: the reverse. */
static void pe_mismatch(const job_t *job, int rank)
{
    symm_boot_t *b;
    if ((rank == 1) == (job->variant == 0))
        aclshmemx_set_conf_store_tls(false, NULL, 0);
    double t0 = now_s();
    int rc = create(job, rank, job->secret, 10.0, &b);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    double t = now_s() - t0;
    const char *line;
    if (rank == 0) {
        line = captured(job->variant == 0 ? "runs the bootstrap without TLS, PE 0 with it"
                                          : "runs the bootstrap with TLS, PE 0 without");
        mark(0, rc == SYMM_ERR_BOOT && line != NULL && t < 3.0, "rc %d after %.2f s: %s", rc, t,
             line ? line : captured_any());
    } else {
        line = captured("bootstrap TLS is on at one PE and off at the other");
        mark(1, rc == SYMM_ERR_BOOT && line != NULL && t < 3.0, "rc %d after %.2f s: %s", rc, t,
             line ? line : captured_any());
    }
}

/* Rank 0 with certificates, rank 1 with a PSK: rank 1 cannot prove it
 * belongs to the job, so it is refused and rank 0 times out. */
static void pe_mode_mismatch(const job_t *job, int rank)
{
    symm_boot_t *b;
    if (rank == 0)
        set_cert_conf("node.pem", "node.key", "ca.pem");
    double t0 = now_s();
    int rc = create(job, rank, job->secret, 1.5, &b);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        symm_boot_destroy(b);
    }
    double t = now_s() - t0;
    if (rank == 0) {
        /* PE 1 rejects rank 0's certificate before it sends anything rank
         * 0 can read (its alert is under its early-data key, which rank 0
         * declined): rank 0 sees a reset connection, not a refusal. */
        const char *line = captured("waiting for PE(s) 1 to connect");
        mark(0, rc == SYMM_ERR_TIMEOUT && line != NULL && t < 2.5, "rc %d after %.2f s: %s", rc,
             t, line ? line : captured_any());
    } else {
        const char *line = captured("TLS handshake");
        mark(1, rc == SYMM_ERR_BOOT && line != NULL && t < 2.0, "rc %d after %.2f s: %s", rc, t,
             line ? line : captured_any());
    }
}

/* SYMM_BOOT_TLS's mode as symm_tls_mode finds it; -2 when it fails (no
 * mode matches that, so the check that reads it fails). */
static int mode_of(void)
{
    int m = -1;
    return symm_tls_mode(&m) == 0 ? m : -2;
}

static void pe_conf(const job_t *job)
{
    int mode = -1, rc;
    symm_boot_t *b;
    unsetenv("SYMM_BOOT_TLS");
    rc = symm_tls_mode(&mode);
    mark(0, rc == 0 && mode == SYMM_TLS_PSK, "rc %d, mode %s", rc, symm_tls_mode_name(mode));

    int r1 = aclshmemx_set_conf_store_tls(false, NULL, 0), m1 = -1, m2 = -1;
    m1 = mode_of();
    int r2 = aclshmemx_set_conf_store_tls(true, NULL, 0);
    m2 = mode_of();
    mark(1, r1 == 0 && r2 == 0 && m1 == SYMM_TLS_OFF && m2 == SYMM_TLS_PSK, "%d %d: %s, %s", r1,
         r2, symm_tls_mode_name(m1), symm_tls_mode_name(m2));

    setenv("SYMM_BOOT_TLS", "0", 1);
    m1 = mode_of();
    aclshmemx_set_conf_store_tls(false, NULL, 0);
    setenv("SYMM_BOOT_TLS", "1", 1);
    m2 = mode_of();
    mark(2, m1 == SYMM_TLS_OFF && m2 == SYMM_TLS_PSK,
         "SYMM_BOOT_TLS=0 over on: %s, =1 over off: %s", symm_tls_mode_name(m1),
         symm_tls_mode_name(m2));

    capture();
    setenv("SYMM_BOOT_TLS", "maybe", 1);
    rc = symm_tls_mode(&mode);
    const char *line = captured("SYMM_BOOT_TLS='maybe' is not 0 or 1");
    mark(3, rc == SYMM_ERR_INVALID && line != NULL, "rc %d: %s", rc, line ? line : captured_any());

    static const char cann[] = "tlsCert:/d/cert.pem;tlsCaPath:/d/ca;tlsCaFile:a.pem, b.pem;"
                               "tlsCrlPath:/d/crl;tlsCrlFile:c.pem";
    unsetenv("SYMM_BOOT_TLS");
    static const char ours[] = "cert=/c.pem\nkey=/k.pem\nca=/ca.pem,/ca2.pem\n";
    r1 = aclshmemx_set_conf_store_tls(true, ours, (uint32_t)strlen(ours));
    m1 = mode_of();
    r2 = aclshmemx_set_conf_store_tls(true, cann, (uint32_t)strlen(cann));
    m2 = mode_of();
    mark(4, r1 == 0 && r2 == 0 && m1 == SYMM_TLS_CERT && m2 == SYMM_TLS_CERT, "%d %d: %s, %s", r1,
         r2, symm_tls_mode_name(m1), symm_tls_mode_name(m2));

    static const struct {
        const char *info, *needle;
    } bad[] = {
        {"cert=/c.pem", "needs cert= and ca="},
        {"cert=/c.pem;ca=/a.pem;colour=blue", "unknown name 'colour'"},
        {"cert=/c.pem;ca=/a.pem;cert=/d.pem", "given twice"},
        {"cert /c.pem", "is not name=value"},
        {"cert=;ca=/a.pem", "empty name or value"},
    };
    int ok = 1;
    char why[MSG_LEN] = "";
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        capture();
        rc = aclshmemx_set_conf_store_tls(true, bad[i].info, (uint32_t)strlen(bad[i].info));
        line = captured(bad[i].needle);
        if (rc != -1 || line == NULL) {
            ok = 0;
            snprintf(why, sizeof(why), "'%s': rc %d, %.200s", bad[i].info, rc, captured_any());
        }
    }
    capture();
    rc = aclshmemx_set_conf_store_tls(true, NULL, 5);
    if (rc != -1 || captured("tls_info is NULL") == NULL) {
        ok = 0;
        snprintf(why, sizeof(why), "NULL tls_info with a length: rc %d", rc);
    }
    mark(5, ok, "%s", why);

    capture();
    r1 = aclshmemx_set_config_store_tls_key(NULL, 10, NULL, 0, NULL);
    r2 = aclshmemx_set_config_store_tls_key("x", 1, NULL, 3, NULL);
    mark(6, r1 == -1 && r2 == -1, "rc %d, %d", r1, r2);

    /* A bad SYMM_BOOT_TLS fails the bootstrap, even before any connection. */
    capture();
    aclshmemx_set_conf_store_tls(true, NULL, 0);
    setenv("SYMM_BOOT_TLS", "2", 1);
    rc = create(job, 0, job->secret, 1.0, &b);
    line = captured("SYMM_BOOT_TLS='2' is not 0 or 1");
    mark(7, rc == SYMM_ERR_INVALID && line != NULL, "rc %d: %s", rc, line ? line : captured_any());
    unsetenv("SYMM_BOOT_TLS");
}

static void pe_time(const job_t *job, int rank)
{
    symm_boot_t *b;
    if (job->variant == 1)
        aclshmemx_set_conf_store_tls(false, NULL, 0);
    double t0 = now_s();
    int rc = create(job, rank, job->secret, 20.0, &b);
    if (rc == 0) {
        rc = symm_boot_barrier(b);
        my_res[0].value = now_s() - t0;
        symm_boot_destroy(b);
    }
    mark(0, rc == 0, "rc %d", rc);
}

static void run_pe(const job_t *job, int rank)
{
    my_res = job->res + (size_t)(rank < 0 ? job->n : rank) * MAX_CHECKS;
    alarm(30);
    capture();
    switch (job->scenario) {
    case SC_BASIC: pe_basic(job, rank); break;
    case SC_IMPOSTOR: pe_impostor(job, rank); break;
    case SC_WIRE: pe_wire(job, rank); break;
    case SC_CERT: pe_cert(job, rank); break;
    case SC_CERT_IMPOSTOR: pe_cert_impostor(job, rank); break;
    case SC_CERT_BAD: pe_cert_bad(job); break;
    case SC_MISMATCH: pe_mismatch(job, rank); break;
    case SC_MODE_MISMATCH: pe_mode_mismatch(job, rank); break;
    case SC_CONF: pe_conf(job); break;
    case SC_TIME: pe_time(job, rank); break;
    }
    _exit(0);
}

/* ---- the relay ------------------------------------------------------------ */

typedef struct wire_log {
    size_t len;
    int up_first;       /* first byte PE 1 sent */
    int done;
    uint8_t bytes[];
} wire_log_t;

/* Accept one connection on lfd, connect to port on 127.0.0.1, pass bytes
 * both ways, recording them, until both sides are done. */
static void relay_run(int lfd, int port, wire_log_t *w)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                             .sin_port = htons((uint16_t)port)};
    struct pollfd p = {lfd, POLLIN, 0};
    alarm(30);
    if (poll(&p, 1, 20000) != 1)
        _exit(3);
    int a = accept(lfd, NULL, NULL), b = socket(AF_INET, SOCK_STREAM, 0);
    if (a < 0 || b < 0 || connect(b, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        _exit(4);
    close(lfd);
    int fd[2] = {a, b}, open_in[2] = {1, 1};
    w->up_first = -1;
    while (open_in[0] || open_in[1]) {
        struct pollfd q[2] = {{open_in[0] ? a : -1, POLLIN, 0}, {open_in[1] ? b : -1, POLLIN, 0}};
        if (poll(q, 2, 20000) <= 0)
            break;
        for (int i = 0; i < 2; i++) {
            uint8_t buf[65536];
            if (!q[i].revents)
                continue;
            ssize_t k = read(fd[i], buf, sizeof(buf));
            if (k <= 0) {
                open_in[i] = 0;
                shutdown(fd[1 - i], SHUT_WR);
                continue;
            }
            if (i == 0 && w->up_first < 0)
                w->up_first = buf[0];
            if (w->len + (size_t)k <= WIRE_CAP) {
                memcpy(w->bytes + w->len, buf, (size_t)k);
                w->len += (size_t)k;
            }
            for (ssize_t off = 0; off < k;) {
                ssize_t m = write(fd[1 - i], buf + off, (size_t)(k - off));
                if (m <= 0)
                    break;
                off += m;
            }
        }
    }
    w->done = 1;
    _exit(0);
}

static int memfind(const uint8_t *hay, size_t n, const char *needle)
{
    return memmem(hay, n, needle, strlen(needle)) != NULL;
}

/* ---- parent side ---------------------------------------------------------- */

static void job_init(job_t *job, int scenario, int variant, int n)
{
    memset(job, 0, sizeof(*job));
    job->scenario = scenario;
    job->variant = variant;
    job->n = n;
    job->lfd = job_listen(job->addr, sizeof(job->addr));
    memcpy(job->peer_addr, job->addr, sizeof(job->addr));
    job_secret(job->secret);
    job->res = job_results(n);
}

static void job_fork(job_t *job, int rank)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0)
        run_pe(job, rank);
    job->pid[rank < 0 ? job->n : rank] = pid;
}

static int wait_ok(pid_t pid)
{
    int st = 0;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Wait for the job; print one line per check; returns failures. */
static int job_report(job_t *job, const char *label, double t0)
{
    int failed = 0, crashed = 0;
    if (job->lfd >= 0)
        close(job->lfd);
    for (int r = 0; r <= job->n; r++) {
        if (job->pid[r] > 0 && !wait_ok(job->pid[r])) {
            fprintf(stderr, "  %s: PE %d ended abnormally\n", label, r);
            crashed++;
        }
    }
    double ms = (now_s() - t0) * 1e3;
    failed += checks_report(job->res, job->n, check_name[job->scenario], label, crashed);
    printf("     %s: %.1f ms in all\n", label, ms);
    fflush(stdout);
    return failed + crashed;
}

static void job_free(job_t *job)
{
    munmap(job->res, sizeof(check_slot_t) * MAX_CHECKS * (size_t)(job->n + 1));
}

static int run_simple(int scenario, int variant, int n, const char *label)
{
    static job_t j;
    double t0 = now_s();
    job_init(&j, scenario, variant, n);
    for (int r = 0; r < n; r++)
        job_fork(&j, r);
    int f = job_report(&j, label, t0);
    job_free(&j);
    return f;
}

/* Rank 0 first, then the impostor, alone until it has its answer, then the
 * other ranks. */
static int run_impostor(int scenario, int variant, int n, const char *label)
{
    static job_t j;
    double t0 = now_s();
    job_init(&j, scenario, variant, n);
    job_fork(&j, 0);
    job_fork(&j, -1);
    if (!wait_ok(j.pid[n]))
        fprintf(stderr, "  %s: the impostor ended abnormally\n", label);
    j.pid[n] = 0;
    for (int r = 1; r < n; r++)
        job_fork(&j, r);
    int f = job_report(&j, label, t0);
    job_free(&j);
    return f;
}

static int run_wire(int variant)
{
    static job_t j;
    char label[64];
    int port, failed;
    double t0 = now_s();
    wire_log_t *w = mmap(NULL, sizeof(*w) + WIRE_CAP, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    job_init(&j, SC_WIRE, variant, 2);
    sscanf(strrchr(j.addr, ':') + 1, "%d", &port);
    int rfd = job_listen(j.peer_addr, sizeof(j.peer_addr));
    pid_t relay = fork();
    if (relay == 0) {
        close(j.lfd);
        relay_run(rfd, port, w);
    }
    close(rfd);
    for (int r = 0; r < 2; r++)
        job_fork(&j, r);
    snprintf(label, sizeof(label), "wire, TLS %s", variant ? "off" : "on");
    int relay_ok = wait_ok(relay);
    failed = job_report(&j, label, t0);
    int marker = memfind(w->bytes, w->len, MARKER), secret = memfind(w->bytes, w->len, j.secret);
    int ok = relay_ok && w->done && w->len > 100 &&
             (variant == 0 ? !marker && !secret && w->up_first == 0x16
                           : marker && secret && w->up_first == 'S');
    printf("%s %s: %s -- %zu bytes recorded, first byte from PE 1 0x%02x, marker %s, secret %s\n",
           ok ? "ok  " : "FAIL", label, variant == 0 ? "no plaintext on the wire"
                                                   : "plaintext seen (the relay works)",
           w->len, w->up_first & 0xff, marker ? "found" : "absent", secret ? "found" : "absent");
    fflush(stdout);
    job_free(&j);
    munmap(w, sizeof(*w) + WIRE_CAP);
    return failed + !ok;
}

static int sh(const char *cmd)
{
    char full[1024];
    snprintf(full, sizeof(full), "cd %s && %s >/dev/null 2>&1", cert_dir, cmd);
    return system(full);
}

/* A CA, a node certificate (key plain and encrypted), and an impostor's
 * certificate from another CA, in a fresh directory. */
static int make_certs(void)
{
    static const char *const cmds[] = {
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
        "-keyout ca.key -out ca.pem -days 2 -subj /CN=symm-test-ca",
        "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout node.key "
        "-out node.csr -subj /CN=symm-node",
        "openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out node.pem "
        "-days 2",
        "openssl pkey -in node.key -aes256 -passout pass:sekrit -out node_enc.key",
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
        "-keyout evilca.key -out evilca.pem -days 2 -subj /CN=other-ca",
        "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout evil.key "
        "-out evil.csr -subj /CN=symm-node",
        "openssl x509 -req -in evil.csr -CA evilca.pem -CAkey evilca.key -CAcreateserial "
        "-out evil.pem -days 2",
    };
    if (system("openssl version >/dev/null 2>&1") != 0) {
        printf("skip certificate mode: no openssl command\n");
        return -1;
    }
    snprintf(cert_dir, sizeof(cert_dir), "/tmp/symm-tls-XXXXXX");
    if (mkdtemp(cert_dir) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        if (sh(cmds[i]) != 0) {
            printf("FAIL making test certificates: %s\n", cmds[i]);
            return 1;
        }
    }
    return 0;
}

static void remove_certs(void)
{
    if (cert_dir[0] != '\0') {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", cert_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", cert_dir);
    }
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over rounds of the slowest PE's create + barrier. */
static double time_jobs(int variant, int rounds)
{
    static job_t j;
    double t[32];
    for (int k = 0; k < rounds; k++) {
        job_init(&j, SC_TIME, variant, 4);
        for (int r = 0; r < 4; r++)
            job_fork(&j, r);
        close(j.lfd);
        j.lfd = -1;
        t[k] = -1;
        for (int r = 0; r < 4; r++) {
            check_slot_t *s = &j.res[(size_t)r * MAX_CHECKS];
            if (!wait_ok(j.pid[r]) || s->state != 1)
                t[k] = 1e9;
            else if (s->value > t[k])
                t[k] = s->value;
        }
        job_free(&j);
    }
    qsort(t, (size_t)rounds, sizeof(double), dbl_cmp);
    return t[rounds / 2];
}

int main(int argc, char **argv)
{
    int failed = 0, rounds = argc > 1 && !strcmp(argv[1], "--quick") ? 3 : 10;

    signal(SIGPIPE, SIG_DFL); /* the library must not need it ignored */
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsetenv("SYMM_BOOT_TLS");

    failed += run_simple(SC_BASIC, 0, 1, "N=1 TLS");
    failed += run_simple(SC_BASIC, 0, 2, "N=2 TLS");
    failed += run_simple(SC_BASIC, 0, 4, "N=4 TLS");
    failed += run_simple(SC_CONF, 0, 1, "settings");
    failed += run_impostor(SC_IMPOSTOR, 0, 4, "N=4 impostor over TLS");
    failed += run_impostor(SC_IMPOSTOR, 1, 4, "N=4 impostor without TLS");
    failed += run_wire(0);
    failed += run_wire(1);
    failed += run_simple(SC_MISMATCH, 0, 2, "TLS on at PE 0, off at PE 1");
    failed += run_simple(SC_MISMATCH, 1, 2, "TLS off at PE 0, on at PE 1");

    int certs = make_certs();
    if (certs > 0)
        failed++;
    if (certs == 0) {
        failed += run_simple(SC_CERT, 0, 4, "N=4 certificates");
        failed += run_impostor(SC_CERT_IMPOSTOR, 0, 3, "N=3 impostor with another CA's cert");
        failed += run_simple(SC_CERT_BAD, 0, 1, "bad certificate settings");
        failed += run_simple(SC_MODE_MISMATCH, 0, 2, "certificates at PE 0, PSK at PE 1");
    }
    remove_certs();

    double plain = time_jobs(1, rounds), tls = time_jobs(0, rounds);
    int ok = plain < 1e8 && tls < 1e8;
    printf("%s init cost (4 PEs, create + barrier, slowest PE, median of %d jobs): "
           "plain %.2f ms, TLS %.2f ms (+%.2f ms)\n", ok ? "ok  " : "FAIL", rounds, plain * 1e3,
           tls * 1e3, (tls - plain) * 1e3);
    failed += !ok;

    printf("%s: %d failure(s)\n", failed ? "FAIL" : "PASS", failed);
    return failed ? 1 : 0;
}
