/*
 * check.h - the one assertion of the multi-PE tests.
 *
 * CHECK(cond, fmt, ...) prints "FAIL: <fmt> (PE n) [file:line]" on stderr
 * and ends the whole job with status 1 (shmem_global_exit when the library
 * is initialised, exit(1) otherwise). Messages say what was checked and the
 * expected and actual values: "FAIL: heap[3] expected 7 got 9 (PE 1)".
 * CHECK_EQ(what, expected, got) does that for integers.
 */
#ifndef SYMM_TEST_CHECK_H
#define SYMM_TEST_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <shmem.h>

static void check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn, unused));
static void check_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    int init = 0, fin = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    shmem_query_initialized(&init);
    shmem_query_finalized(&fin);
    if (init && !fin)
        fprintf(stderr, "FAIL: %s (PE %d) [%s:%d]\n", msg, shmem_my_pe(), file, line);
    else
        fprintf(stderr, "FAIL: %s (PE ?) [%s:%d]\n", msg, file, line);
    fflush(stdout);
    fflush(stderr);
    if (init && !fin)
        shmem_global_exit(1);
    exit(1);
}

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond))                                                                       \
            check_fail(__FILE__, __LINE__, __VA_ARGS__);                                   \
    } while (0)

/* Integers of any type, compared and printed as intmax_t (a 64-bit unsigned
 * value converts modulo 2^64: still exact, so no mismatch is hidden). */
#define CHECK_EQ(what, expected, got)                                                      \
    do {                                                                                   \
        if ((intmax_t)(expected) != (intmax_t)(got))                                       \
            check_fail(__FILE__, __LINE__, "%s expected %jd got %jd", (what),              \
                       (intmax_t)(expected), (intmax_t)(got));                             \
    } while (0)

#define CHECK_PTR(what, expected, got)                                                     \
    do {                                                                                   \
        if ((const void *)(expected) != (const void *)(got))                               \
            check_fail(__FILE__, __LINE__, "%s expected %p got %p", (what),                \
                       (const void *)(expected), (const void *)(got));                     \
    } while (0)

/* splitmix64: the value function of the tests (cheap, every bit depends on
 * every input bit). */
static inline uint64_t test_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t test_hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return test_mix(test_mix(test_mix(test_mix(a) ^ b) ^ c) ^ d);
}

/* SYMM_TRANSPORT=ucx: every other PE is reached through UCX, so only my own
 * PE is mapped (shmem_ptr of a peer is NULL, SHMEM_TEAM_SHARED is myself). */
static inline int test_net_forced(void)
{
    const char *t = getenv("SYMM_TRANSPORT");
    return t != NULL && strcmp(t, "ucx") == 0;
}

/* PEs per node as the launcher laid them out: 1 when every peer is forced
 * through the network, TEST_PES_PER_NODE when a script spread the job over
 * several "nodes" (consecutive ranks per node), else all of them. */
static inline int test_pes_per_node(int npes)
{
    const char *p = getenv("TEST_PES_PER_NODE");
    if (test_net_forced())
        return 1;
    return p != NULL && atoi(p) > 0 ? atoi(p) : npes;
}

#endif
