/*
 * test_atomics.c - the SYMM_ATOMICS rule (src/runtime/atomics.c) alone:
 * reading UCX's reports, as UCX 1.13 prints them and as a node with device
 * atomics would (no such NIC here), and the decision for every mode and
 * finding, with its reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/atomics.h"
#include "runtime/status.h"

static int fails;

#define EXPECT(cond, ...)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL [%s:%d]: ", __FILE__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            fails++;                                                                       \
        }                                                                                  \
    } while (0)

static void parse(const char *info, const char *cfg, unsigned want, const char *want_tl)
{
    char tl[20] = "";
    unsigned got = symm_atomics_parse_ucx(info, cfg, tl, sizeof(tl));
    EXPECT(got == want, "parse of [%s] [%s]: bits expected %u got %u", info ? info : "-",
           cfg ? cfg : "-", want, got);
    EXPECT(strcmp(tl, want_tl) == 0, "parse of [%s]: transport expected '%s' got '%s'",
           info ? info : "-", want_tl, tl);
}

static void choose(const char *mode, int net, int spans, unsigned bits, const char *tl,
                   int want_net, const char *want_why)
{
    symm_peer_t peers[2] = {{.same_node = 1}, {.same_node = !spans}};
    symm_instance_t s;
    memset(&s, 0, sizeof(s));
    s.n_pes = 2;
    s.my_pe = 1; /* no warning printed */
    s.peers = peers;
    s.cfg.core.atomics = mode;
    s.amo_flags = SYMM_AMO_DEBUG;
    symm_atomics_choose(&s, net, bits, tl);
    EXPECT(!!(s.amo_flags & SYMM_AMO_NET) == want_net, "%s net=%d spans=%d bits=%u: network "
           "expected %d", mode, net, spans, bits, want_net);
    EXPECT(s.amo_flags & SYMM_AMO_DEBUG, "%s: the debug bit was lost", mode);
    EXPECT(strcmp(s.amo_why, want_why) == 0, "%s net=%d spans=%d bits=%u: reason expected "
           "'%s' got '%s'", mode, net, spans, bits, want_why, s.amo_why);
}

int main(void)
{
    /* UCX 1.13 here: shared memory and loopback only; tcp is emulated. */
    parse("#\n# UCP worker 'vm:8247'\n#\n#                 address: 215 bytes\n"
          "#                 atomics: 0:self/memory0, 3:sysv/memory, 4:posix/memory\n#\n",
          NULL, 0, "");
    parse("#                 atomics: \n", NULL, 0, "");
    /* Device atomics: an InfiniBand node, devices with ':' in the name. */
    parse("#                 atomics: 2:rc_mlx5/mlx5_0:1, 5:dc_mlx5/mlx5_0:1\n", NULL,
          SYMM_NETAMO_DEVICE, "rc_mlx5");
    parse("# atomics: 0:self/memory0, 7:rc_verbs/mlx4_0:1\n# other: 1:x/y\n", NULL,
          SYMM_NETAMO_DEVICE, "rc_verbs");
    /* Only the atomics line counts. */
    parse("# lane: 2:rc_mlx5/mlx5_0:1\n# atomics: 3:sysv/memory\n", NULL, 0, "");
    parse("# no such line\n", NULL, SYMM_NETAMO_UNKNOWN, "");
    /* The configuration: UCX_ATOMIC_MODE. */
    parse(NULL, "UCX_TLS=all\nUCX_ATOMIC_MODE=cpu\nUCX_CM_USE_ALL_DEVICES=y\n",
          SYMM_NETAMO_CPU_MODE, "");
    parse(NULL, "UCX_TLS=all\nUCX_ATOMIC_MODE=cpu\n", SYMM_NETAMO_CPU_MODE, "");
    parse(NULL, "UCX_ATOMIC_MODE=guess\n", 0, "");
    parse(NULL, "UCX_ATOMIC_MODE=device\n", 0, "");
    parse(NULL, "UCX_ATOMIC_MODE=cpux\n", 0, "");

    /* The decision. */
    choose("auto", 0, 0, 0, "", 0, "cpu (every PE is node-local)");
    choose("network", 0, 0, 0, "", 0,
           "cpu (every PE is node-local; SYMM_ATOMICS=network needs a network transport)");
    choose("auto", 1, 1, 0, "", 0, "cpu (UCX atomics applied by the target CPU; job spans nodes)");
    choose("auto", 1, 1, SYMM_NETAMO_DEVICE, "rc_mlx5", 1,
           "network (UCX device atomics on rc_mlx5; job spans nodes)");
    choose("auto", 1, 0, SYMM_NETAMO_DEVICE, "rc_mlx5", 1,
           "network (UCX device atomics on rc_mlx5; SYMM_TRANSPORT=ucx)");
    choose("auto", 1, 1, SYMM_NETAMO_UNKNOWN, "", 1,
           "network (UCX atomics of unknown kind; job spans nodes)");
    choose("auto", 1, 1, SYMM_NETAMO_CPU_MODE, "", 0, "cpu (UCX_ATOMIC_MODE=cpu; job spans nodes)");
    choose("cpu", 1, 1, SYMM_NETAMO_DEVICE, "rc_mlx5", 0,
           "cpu (SYMM_ATOMICS=cpu; UCX device atomics on rc_mlx5; job spans nodes)");
    choose("network", 1, 1, 0, "", 1,
           "network (SYMM_ATOMICS=network; UCX atomics applied by the target CPU; "
           "job spans nodes)");

    /* The variable's values. */
    symm_config_t cfg = {.core.atomics = "sometimes"};
    symm_atomics_mode_t m;
    EXPECT(symm_atomics_mode(&cfg, "test", &m) == SYMM_ERR_INVALID, "'sometimes' accepted");
    cfg.core.atomics = "network";
    EXPECT(symm_atomics_mode(&cfg, "test", &m) == SYMM_OK && m == SYMM_ATOMICS_NETWORK,
           "'network' not read");
    if (fails == 0)
        printf("test_atomics: ok\n");
    return fails == 0 ? 0 : 1;
}
