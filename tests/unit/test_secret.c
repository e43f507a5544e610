/*
 * test_secret.c - aclshmem DEFAULT mode's job secret (src/boot/secret.c).
 *
 * Known answers (HMAC-SHA256 as Python's hmac module computes it, so the
 * SHA-256 here is checked too, across block and padding boundaries), the
 * order of the key sources, and every refusal of a key file: wrong mode,
 * empty, not a regular file. HOME and XDG_CONFIG_HOME point into a fresh
 * temporary directory, so the user's real key file never matters.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot/secret.h"
#include "runtime/status.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                          \
    do {                                                          \
        if (!(cond)) {                                            \
            fprintf(stderr, "FAIL test_secret.c:%d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);                         \
            fputc('\n', stderr);                                  \
            failures++;                                           \
        }                                                         \
    } while (0)

/* The secret for addr, or "" when symm_secret_default fails; two buffers in
 * turn, so one comparison may hold two results. */
static const char *secret_of(const char *addr, const char *key)
{
    static char out[2][SYMM_SECRET_LEN + 1];
    static int turn;
    char *s = out[turn++ & 1];
    if (symm_secret_default(addr, key, 0, s, "test_secret") != SYMM_OK)
        return "";
    return s;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchmod(fd, mode) != 0) {
        perror(path);
        exit(1);
    }
    close(fd);
}

int main(void)
{
    static const char *const addr = "127.0.0.1:5000";
    char tmp[] = "/tmp/symm_secret_XXXXXX", dir[256], file[300], xdg[256], plain[33];
    char long_key[101];

    if (mkdtemp(tmp) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    setenv("HOME", tmp, 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("SYMM_JOB_SECRET");
    snprintf(dir, sizeof(dir), "%s/.config/symm", tmp);
    snprintf(file, sizeof(file), "%s/job.key", dir);

    /* Known answers: short and long (hashed) keys; messages of 55, 56 and 120
     * bytes after the HMAC pad put the SHA-256 padding on each boundary. */
    CHECK(strcmp(secret_of(addr, "key"), "df7184739ef9e3a713abbbb72a8586fd") == 0, "key");
    memset(long_key, 'k', 100);
    long_key[100] = '\0';
    CHECK(strcmp(secret_of(addr, long_key), "9bdf7dacf72ee311f7e3297f2b928b42") == 0, "long key");
    static const struct {
        int len;
        const char *want;
    } lens[] = {{33, "e527335149a9d3041c289fcb41292793"},
                {34, "ea98878d286bc1e0d9ace66bb9f13f89"},
                {98, "76a0b05f0354aac23e66f25e3b55d107"}};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        char a[128];
        memset(a, 'h', (size_t)lens[i].len - 5);
        strcpy(a + lens[i].len - 5, ":5000");
        CHECK(strcmp(secret_of(a, "key"), lens[i].want) == 0, "address of %d bytes", lens[i].len);
    }
    CHECK(strcmp(secret_of("127.0.0.1:5001", "key"), secret_of(addr, "key")) != 0,
          "another address, the same secret");

    /* No key anywhere: the address's plain hash, as before keys existed. */
    symm_secret_from_addr(addr, plain);
    CHECK(strcmp(secret_of(addr, NULL), plain) == 0, "no key");
    CHECK(strcmp(secret_of(addr, ""), plain) == 0, "an empty SYMM_JOB_KEY is none");

    /* The key file, its trailing newline dropped: the same as the variable. */
    snprintf(xdg, sizeof(xdg), "%s/.config", tmp);
    if (mkdir(xdg, 0700) != 0 || mkdir(dir, 0700) != 0) {
        perror(dir);
        return 1;
    }
    write_file(file, "key\n", 0600);
    CHECK(strcmp(secret_of(addr, NULL), "df7184739ef9e3a713abbbb72a8586fd") == 0, "key file");
    CHECK(strcmp(secret_of(addr, "other"), secret_of(addr, NULL)) != 0,
          "the key file came before SYMM_JOB_KEY");

    /* Refusals: readable or writable by others, empty, not a regular file. */
    static const mode_t bad_modes[] = {0644, 0640, 0604, 0620, 0602};
    for (size_t i = 0; i < sizeof(bad_modes) / sizeof(bad_modes[0]); i++) {
        chmod(file, bad_modes[i]);
        CHECK(strcmp(secret_of(addr, NULL), "") == 0, "mode %04o accepted", (unsigned)bad_modes[i]);
    }
    CHECK(strcmp(secret_of(addr, "key"), "df7184739ef9e3a713abbbb72a8586fd") == 0,
          "SYMM_JOB_KEY set, yet the unsafe file was read");
    write_file(file, " \n", 0600);
    CHECK(strcmp(secret_of(addr, NULL), "") == 0, "an empty key file accepted");
    unlink(file);
    mkdir(file, 0700);
    CHECK(strcmp(secret_of(addr, NULL), "") == 0, "a directory accepted as the key file");
    rmdir(file);

    /* XDG_CONFIG_HOME, when absolute, says where the file is. */
    snprintf(xdg, sizeof(xdg), "%s/xdg", tmp);
    snprintf(dir, sizeof(dir), "%s/xdg/symm", tmp);
    snprintf(file, sizeof(file), "%s/job.key", dir);
    mkdir(xdg, 0700);
    mkdir(dir, 0700);
    write_file(file, "key", 0600);
    setenv("XDG_CONFIG_HOME", xdg, 1);
    CHECK(strcmp(secret_of(addr, NULL), "df7184739ef9e3a713abbbb72a8586fd") == 0,
          "XDG_CONFIG_HOME's key file");

    /* The launcher's secret comes before the file; a malformed one is refused. */
    setenv("SYMM_JOB_SECRET", "0123456789abcdef0123456789abcdef", 1);
    CHECK(strcmp(secret_of(addr, NULL), "762cc0b06c6c51825ac33fa24fdac727") == 0,
          "SYMM_JOB_SECRET");
    setenv("SYMM_JOB_SECRET", "not hex", 1);
    CHECK(strcmp(secret_of(addr, NULL), "") == 0, "a malformed SYMM_JOB_SECRET accepted");

    unlink(file);
    rmdir(dir);
    rmdir(xdg);
    snprintf(dir, sizeof(dir), "%s/.config/symm", tmp);
    rmdir(dir);
    snprintf(dir, sizeof(dir), "%s/.config", tmp);
    rmdir(dir);
    rmdir(tmp);
    printf("%s\n", failures == 0 ? "test_secret: all passed" : "test_secret: FAILED");
    return failures != 0;
}
