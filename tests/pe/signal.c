/*
 * signal.c - put-with-signal and the signal routines.
 *
 *  - A stream of 2000 messages around the ring (each PE sends to its right
 *    neighbour, receives from its left), two buffers used alternately with
 *    an ack for flow control. Message i uses variant i of: every typed
 *    put_signal (from SHMEM_RMA_TYPES), every sized one (SHMEM_SIZES),
 *    putmem_signal; blocking and _nbi; plain, ctx SHMEM_CTX_DEFAULT and a
 *    created ctx and a ctx of the world team reversed (PE numbers within
 *    the team); SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD. The signal of
 *    buffer b goes through strictly increasing values V(i), by SET to V(i)
 *    or by ADD of V(i) - V(i-2), so the receiver knows the exact value; it
 *    waits with shmem_signal_wait_until (GE, EQ, GT, NE in turn), which must
 *    return exactly V(i), then checks every byte of the message (data
 *    before signal) and acks with shmem_signal_add / shmem_signal_set and
 *    their ctx forms. Lengths vary from 16 bytes to 16 KiB.
 *  - SHMEM_SIGNAL_ADD from every PE into one signal word of every PE, 20
 *    rounds: the signal sums exactly, and every sender's data is there
 *    when the sum is reached. shmem_signal_add from every PE too.
 *  - shmem_signal_wait_until with every comparison operator returns the
 *    value that satisfied it; shmem_signal_fetch; 64-bit signal values;
 *    a zero-length put_signal still updates the signal; the C11 generic
 *    shmem_put_signal / shmem_put_signal_nbi with and without a ctx.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

#define NMSG 2000
#define MAXLEN 16384
#define ROUNDS 20

static int me, npes, left, right;
static shmem_ctx_t ctx_new = SHMEM_CTX_INVALID;

/* Modes: plain names; ctx_ names with SHMEM_CTX_DEFAULT, with a created
 * context, and with a context of the team of all PEs in reverse order (team
 * PE k is world PE n-1-k: the ctx_ routines number PEs within the team). */
enum { M_PLAIN, M_CTX_DEFAULT, M_CTX_NEW, M_CTX_TEAM, N_MODES };
static const char *const mode_name[N_MODES] = {"plain", "ctx SHMEM_CTX_DEFAULT", "ctx created",
                                               "ctx of the reversed team"};
static shmem_ctx_t ctx_team = SHMEM_CTX_INVALID;
static shmem_team_t team_rev = SHMEM_TEAM_INVALID;
static shmem_ctx_t mode_ctx(int m)
{
    return m == M_CTX_NEW ? ctx_new : m == M_CTX_TEAM ? ctx_team : SHMEM_CTX_DEFAULT;
}
/* The PE argument that reaches world PE w in mode m. */
#define TPE(m, w) ((m) == M_CTX_TEAM ? npes - 1 - (w) : (w))
static void mode_quiet(int m)
{
    if (m == M_PLAIN)
        shmem_quiet();
    else
        shmem_ctx_quiet(mode_ctx(m));
}

/* ---- the put_signal variants: every type, every size, mem --------------- */
enum {
#define KIND_T(T, N) K_##N,
    SHMEM_RMA_TYPES(KIND_T)
#define KIND_S(B) K_S##B,
    SHMEM_SIZES(KIND_S)
    K_MEM,
    N_KINDS
};
static const size_t kind_size[N_KINDS] = {
#define SIZE_T(T, N) sizeof(T),
    SHMEM_RMA_TYPES(SIZE_T)
#define SIZE_S(B) (B) / 8,
    SHMEM_SIZES(SIZE_S) 1};
static const char *const kind_name[N_KINDS] = {
#define NAME_T(T, N) "shmem_" #N "_put_signal",
    SHMEM_RMA_TYPES(NAME_T)
#define NAME_S(B) "shmem_put" #B "_signal",
    SHMEM_SIZES(NAME_S) "shmem_putmem_signal"};

/* Send nbytes (a multiple of the kind's element size) through one variant. */
static void send_kind(int kind, int nbi, int m, void *dest, const void *src, size_t nbytes,
                      uint64_t *sig, uint64_t value, int op, int pe)
{
    size_t ne = nbytes / kind_size[kind];
    shmem_ctx_t c = mode_ctx(m);
    switch (kind) {
#define CASE_T(T, N)                                                                               \
    case K_##N:                                                                                    \
        if (m == M_PLAIN && !nbi)                                                                  \
            shmem_##N##_put_signal((T *)dest, (const T *)src, ne, sig, value, op, pe);             \
        else if (m == M_PLAIN)                                                                     \
            shmem_##N##_put_signal_nbi((T *)dest, (const T *)src, ne, sig, value, op, pe);         \
        else if (!nbi)                                                                             \
            shmem_ctx_##N##_put_signal(c, (T *)dest, (const T *)src, ne, sig, value, op, pe);      \
        else                                                                                       \
            shmem_ctx_##N##_put_signal_nbi(c, (T *)dest, (const T *)src, ne, sig, value, op,       \
                                           pe);                                                    \
        break;
        SHMEM_RMA_TYPES(CASE_T)
#define CASE_S(B)                                                                                  \
    case K_S##B:                                                                                   \
        if (m == M_PLAIN && !nbi)                                                                  \
            shmem_put##B##_signal(dest, src, ne, sig, value, op, pe);                              \
        else if (m == M_PLAIN)                                                                     \
            shmem_put##B##_signal_nbi(dest, src, ne, sig, value, op, pe);                          \
        else if (!nbi)                                                                             \
            shmem_ctx_put##B##_signal(c, dest, src, ne, sig, value, op, pe);                       \
        else                                                                                       \
            shmem_ctx_put##B##_signal_nbi(c, dest, src, ne, sig, value, op, pe);                   \
        break;
        SHMEM_SIZES(CASE_S)
    default:
        if (m == M_PLAIN && !nbi)
            shmem_putmem_signal(dest, src, ne, sig, value, op, pe);
        else if (m == M_PLAIN)
            shmem_putmem_signal_nbi(dest, src, ne, sig, value, op, pe);
        else if (!nbi)
            shmem_ctx_putmem_signal(c, dest, src, ne, sig, value, op, pe);
        else
            shmem_ctx_putmem_signal_nbi(c, dest, src, ne, sig, value, op, pe);
        break;
    }
}

/* Message i of sender s: its length and its bytes. */
static size_t msg_len(int i)
{
    if (i % 97 == 50)
        return MAXLEN;
    return 16 * (size_t)(1 + (i * 37) % 64);
}
static void msg_fill(unsigned char *buf, int s, int i, size_t len)
{
    for (size_t j = 0; j < len; j += 8) {
        uint64_t h = test_hash4(7, (uint64_t)s, (uint64_t)i, j);
        memcpy(buf + j, &h, 8);
    }
}
/* Index of the first wrong byte, or len. */
static size_t msg_check(const unsigned char *buf, int s, int i, size_t len)
{
    for (size_t j = 0; j < len; j += 8) {
        uint64_t h = test_hash4(7, (uint64_t)s, (uint64_t)i, j);
        const unsigned char *e = (const unsigned char *)&h;
        for (size_t k = 0; k < 8; k++)
            if (buf[j + k] != e[k])
                return j + k;
    }
    return len;
}

static uint64_t V(int i) { return i < 0 ? 0 : 8 * (uint64_t)(i + 1); }
static const char *const cmp_name[6] = {"EQ", "NE", "GT", "LE", "LT", "GE"};

static void test_stream(void)
{
    unsigned char *dbuf = shmem_align(64, 2 * MAXLEN);
    uint64_t *sig = shmem_calloc(2, sizeof(uint64_t));
    uint64_t *ack = shmem_calloc(1, sizeof(uint64_t));
    unsigned char *src = aligned_alloc(64, 2 * MAXLEN);
    CHECK(dbuf && sig && ack && src, "allocation expected memory got NULL");
    shmem_barrier_all();
    for (int i = 0; i < NMSG; i++) {
        int b = i % 2;
        int kind = i % N_KINDS, nbi = (i / N_KINDS) % 2, m = (i / (2 * N_KINDS)) % N_MODES;
        int op = (i / (2 * N_KINDS * N_MODES)) % 2 ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
        size_t len = msg_len(i);
        /* Send message i once the right neighbour consumed message i-2. */
        if (i >= 2) {
            uint64_t a = shmem_signal_wait_until(ack, SHMEM_CMP_GE, (uint64_t)(i - 1));
            CHECK(a >= (uint64_t)(i - 1) && a <= (uint64_t)i,
                  "ack wait_until(GE %d) returned %llu expected %d or %d", i - 1,
                  (unsigned long long)a, i - 1, i);
        }
        msg_fill(src + b * MAXLEN, me, i, len);
        uint64_t sv = op == SHMEM_SIGNAL_SET ? V(i) : V(i) - V(i - 2);
        send_kind(kind, nbi, m, dbuf + b * MAXLEN, src + b * MAXLEN, len, &sig[b], sv, op,
                  TPE(m, right));
        mode_quiet(m); /* source reuse, and completion on a created ctx */

        /* Receive message i from the left neighbour. */
        uint64_t got;
        int c = (i / 2) % 4;
        switch (c) {
        case 0: got = shmem_signal_wait_until(&sig[b], SHMEM_CMP_GE, V(i)); break;
        case 1: got = shmem_signal_wait_until(&sig[b], SHMEM_CMP_EQ, V(i)); break;
        case 2: got = shmem_signal_wait_until(&sig[b], SHMEM_CMP_GT, V(i) - 1); break;
        default: got = shmem_signal_wait_until(&sig[b], SHMEM_CMP_NE, V(i - 2)); break;
        }
        CHECK(got == V(i), "message %d (%s, %s%s, %s): shmem_signal_wait_until returned %llu "
              "expected %llu", i, kind_name[kind], mode_name[m], nbi ? ", nbi" : "",
              op == SHMEM_SIGNAL_SET ? "SET" : "ADD", (unsigned long long)got,
              (unsigned long long)V(i));
        size_t bad = msg_check(dbuf + b * MAXLEN, left, i, len);
        CHECK(bad == len, "message %d of %zu bytes (%s, %s%s, %s): byte %zu wrong after the "
              "signal (data must arrive before the signal)", i, len, kind_name[kind],
              mode_name[m], nbi ? ", nbi" : "", op == SHMEM_SIGNAL_SET ? "SET" : "ADD", bad);
        uint64_t f = shmem_signal_fetch(&sig[b]);
        CHECK(f == V(i), "message %d: shmem_signal_fetch expected %llu got %llu", i,
              (unsigned long long)V(i), (unsigned long long)f);
        /* Ack: the sender's ack word becomes i+1. */
        switch (i % 5) {
        case 0: shmem_signal_add(ack, 1, left); break;
        case 1: shmem_ctx_signal_add(ctx_new, ack, 1, left); break;
        case 2: shmem_signal_set(ack, (uint64_t)i + 1, left); break;
        case 3: shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, ack, (uint64_t)i + 1, left); break;
        default: shmem_ctx_signal_add(ctx_team, ack, 1, TPE(M_CTX_TEAM, left)); break;
        }
        shmem_quiet();
        shmem_ctx_quiet(ctx_new);
        shmem_ctx_quiet(ctx_team);
    }
    shmem_barrier_all();
    CHECK(*ack == NMSG, "ack word after the stream expected %d got %llu", NMSG,
          (unsigned long long)*ack);
    CHECK(sig[0] == V(NMSG - 2) && sig[1] == V(NMSG - 1),
          "signals after the stream expected %llu %llu got %llu %llu",
          (unsigned long long)V(NMSG - 2), (unsigned long long)V(NMSG - 1),
          (unsigned long long)sig[0], (unsigned long long)sig[1]);
    shmem_barrier_all();
    free(src);
    shmem_free(ack);
    shmem_free(sig);
    shmem_free(dbuf);
}

/* SHMEM_SIGNAL_ADD from every PE into one word of every PE. */
#define SLOT 256
static uint64_t allsig, addsig;

static void test_add_all(void)
{
    unsigned char *slots = shmem_align(64, (size_t)npes * SLOT);
    unsigned char *src = aligned_alloc(64, SLOT);
    CHECK(slots && src, "allocation expected memory got NULL");
    const uint64_t per_round = (uint64_t)npes * (uint64_t)(npes + 1) / 2;
    allsig = 0;
    addsig = 0;
    shmem_barrier_all();
    for (int r = 0; r < ROUNDS; r++) {
        int m = r % N_MODES, nbi = (r / N_MODES) % 2;
        msg_fill(src, me, 1000 + r, SLOT);
        for (int j = 0; j < npes; j++) {
            int t = (me + j) % npes;
            int kind = (r * 7 + j) % N_KINDS;
            send_kind(kind, nbi, m, slots + (size_t)me * SLOT, src, SLOT, &allsig,
                      (uint64_t)me + 1, SHMEM_SIGNAL_ADD, TPE(m, t));
            if (j % 2)
                shmem_ctx_signal_add(mode_ctx(m), &addsig, (uint64_t)me + 1, TPE(m, t));
            else
                shmem_signal_add(&addsig, (uint64_t)me + 1, t);
        }
        mode_quiet(m);
        shmem_quiet();
        uint64_t want = (uint64_t)(r + 1) * per_round;
        uint64_t got = shmem_signal_wait_until(&allsig, SHMEM_CMP_EQ, want);
        CHECK(got == want, "round %d: wait_until(EQ %llu) on the ADD signal returned %llu", r,
              (unsigned long long)want, (unsigned long long)got);
        for (int p = 0; p < npes; p++) {
            size_t bad = msg_check(slots + (size_t)p * SLOT, p, 1000 + r, SLOT);
            CHECK(bad == SLOT, "round %d: PE %d's data byte %zu wrong once the ADD signal summed "
                  "to %llu", r, p, bad, (unsigned long long)want);
        }
        got = shmem_signal_wait_until(&addsig, SHMEM_CMP_GE, want);
        CHECK(got == want, "round %d: shmem_signal_add sum expected %llu got %llu", r,
              (unsigned long long)want, (unsigned long long)got);
        shmem_barrier_all(); /* nobody sends round r+1 before all checked round r */
    }
    CHECK(shmem_signal_fetch(&allsig) == ROUNDS * per_round,
          "shmem_signal_fetch after %d rounds expected %llu got %llu", ROUNDS,
          (unsigned long long)(ROUNDS * per_round),
          (unsigned long long)shmem_signal_fetch(&allsig));
    shmem_barrier_all();
    free(src);
    shmem_free(slots);
}

/* wait_until with each operator returns the value that satisfied it. */
static const uint64_t init_c[6] = {0, 10, 10, 11, 10, 9};
static const uint64_t final_c[6] = {10, 11, 12, 10, 9, 10};
static uint64_t csig[2];

static void test_wait_ops(void)
{
    for (int c = SHMEM_CMP_EQ; c <= SHMEM_CMP_GE; c++) {
        uint64_t *s = &csig[c % 2];
        *s = init_c[c];
        shmem_barrier_all();
        if (c % 3 == 0)
            shmem_signal_set(s, final_c[c], right);
        else if (c % 3 == 1)
            shmem_ctx_signal_set(ctx_new, s, final_c[c], right);
        else
            shmem_ctx_signal_set(ctx_team, s, final_c[c], TPE(M_CTX_TEAM, right));
        shmem_quiet();
        shmem_ctx_quiet(ctx_new);
        shmem_ctx_quiet(ctx_team);
        uint64_t got = shmem_signal_wait_until(s, c, 10);
        CHECK(got == final_c[c], "shmem_signal_wait_until(%s 10) returned %llu expected %llu",
              cmp_name[c], (unsigned long long)got, (unsigned long long)final_c[c]);
        CHECK(shmem_signal_fetch(s) == final_c[c], "shmem_signal_fetch after wait_until(%s) "
              "expected %llu got %llu", cmp_name[c], (unsigned long long)final_c[c],
              (unsigned long long)shmem_signal_fetch(s));
        shmem_barrier_all();
    }
    /* 64-bit values, both ways, to self and to the neighbour. */
    const uint64_t big = 0xfedcba9876543210ull;
    csig[0] = 0;
    csig[1] = 0x7fffffffffffffffull;
    shmem_barrier_all();
    shmem_signal_set(&csig[0], big, right);
    shmem_signal_add(&csig[1], 0x8000000000000001ull, me); /* wraps to 0 */
    shmem_quiet();
    CHECK(shmem_signal_wait_until(&csig[0], SHMEM_CMP_EQ, big) == big,
          "64-bit signal value expected 0x%llx got 0x%llx", (unsigned long long)big,
          (unsigned long long)shmem_signal_fetch(&csig[0]));
    CHECK(shmem_signal_fetch(&csig[1]) == 0, "signal_add wrapping at 2^64 expected 0 got 0x%llx",
          (unsigned long long)shmem_signal_fetch(&csig[1]));
    shmem_barrier_all();
}

/* Zero-length put_signal, and the C11 generic forms. */
static long gdata[64];
static double gdbl[8];
static uint64_t gsig[4];

static void test_zero_and_generic(void)
{
    long src[64];
    double dsrc[8];
    memset(gsig, 0, sizeof(gsig));
    memset(gdata, 0, sizeof(gdata));
    shmem_barrier_all();
    shmem_putmem_signal(gdata, src, 0, &gsig[0], 41, SHMEM_SIGNAL_SET, right);
    shmem_ctx_long_put_signal_nbi(ctx_new, gdata, src, 0, &gsig[0], 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_putmem_signal(ctx_team, gdata, src, 0, &gsig[3], 9, SHMEM_SIGNAL_SET,
                            TPE(M_CTX_TEAM, right));
    shmem_ctx_quiet(ctx_new);
    shmem_ctx_quiet(ctx_team);
    CHECK(shmem_signal_wait_until(&gsig[3], SHMEM_CMP_EQ, 9) == 9,
          "zero-length put_signal on the reversed team's ctx: signal expected 9 got %llu",
          (unsigned long long)shmem_signal_fetch(&gsig[3]));
    CHECK(shmem_signal_wait_until(&gsig[0], SHMEM_CMP_EQ, 42) == 42,
          "zero-length put_signal: signal expected 42 got %llu",
          (unsigned long long)shmem_signal_fetch(&gsig[0]));
    for (int i = 0; i < 64; i++)
        CHECK(gdata[i] == 0, "zero-length put_signal wrote gdata[%d] = %ld", i, gdata[i]);
    shmem_barrier_all();

    for (int i = 0; i < 64; i++)
        src[i] = (long)test_hash4(9, (uint64_t)me, (uint64_t)i, 0);
    for (int i = 0; i < 8; i++)
        dsrc[i] = me * 100.0 + i + 0.5;
    shmem_put_signal(gdata, src, 32, &gsig[1], 5, SHMEM_SIGNAL_SET, right);
    shmem_put_signal(ctx_new, gdata + 32, src + 32, 32, &gsig[1], 6, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(gdbl, dsrc, 4, &gsig[2], 7, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, gdbl + 4, dsrc + 4, 4, &gsig[2], 8, SHMEM_SIGNAL_ADD,
                         right);
    shmem_quiet();
    shmem_ctx_quiet(ctx_new);
    CHECK(shmem_signal_wait_until(&gsig[1], SHMEM_CMP_EQ, 11) == 11,
          "generic shmem_put_signal: signal expected 11 got %llu",
          (unsigned long long)shmem_signal_fetch(&gsig[1]));
    CHECK(shmem_signal_wait_until(&gsig[2], SHMEM_CMP_EQ, 15) == 15,
          "generic shmem_put_signal_nbi: signal expected 15 got %llu",
          (unsigned long long)shmem_signal_fetch(&gsig[2]));
    for (int i = 0; i < 64; i++)
        CHECK(gdata[i] == (long)test_hash4(9, (uint64_t)left, (uint64_t)i, 0),
              "generic shmem_put_signal: gdata[%d] expected %ld got %ld", i,
              (long)test_hash4(9, (uint64_t)left, (uint64_t)i, 0), gdata[i]);
    for (int i = 0; i < 8; i++)
        CHECK(gdbl[i] == left * 100.0 + i + 0.5, "generic shmem_put_signal_nbi: gdbl[%d] expected "
              "%g got %g", i, left * 100.0 + i + 0.5, gdbl[i]);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK_EQ("shmem_ctx_create(0) return", 0, shmem_ctx_create(0, &ctx_new));
    CHECK(ctx_new != SHMEM_CTX_INVALID,
          "shmem_ctx_create expected a context got SHMEM_CTX_INVALID");
    CHECK_EQ("shmem_team_split_strided(world reversed: start n-1, stride -1) return", 0,
             shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &team_rev));
    CHECK_EQ("shmem_team_create_ctx(reversed team) return", 0,
             shmem_team_create_ctx(team_rev, 0, &ctx_team));
    test_stream();
    test_add_all();
    test_wait_ops();
    test_zero_and_generic();
    shmem_ctx_destroy(ctx_team);
    shmem_team_destroy(team_rev);
    shmem_ctx_destroy(ctx_new);
    if (me == 0)
        printf("signal: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
