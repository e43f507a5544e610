/*
 * test_atomics.c - the SYMM_ATOMICS rule (src/runtime/atomics.c) alone:
 * which transports and devices UCX_TLS and UCX_NET_DEVICES let UCP open
 * (the probe asks only those; the NICs with device atomics are not here),
 * and the decision for every mode and finding, with its reason.
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

static void used(const char *tls, const char *tl, int want)
{
    int got = symm_atomics_tl_used(tls, tl);
    EXPECT(got == want, "UCX_TLS=%s, transport %s: used expected %d got %d", tls ? tls : "(unset)",
           tl, want, got);
}

static void dev_used(const char *devs, const char *dev, int want)
{
    int got = symm_atomics_dev_used(devs, dev);
    EXPECT(got == want, "UCX_NET_DEVICES=%s, device %s: used expected %d got %d",
           devs ? devs : "(unset)", dev, want, got);
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
    s.cfg.core.atomics = strcmp(mode, "cpu") == 0       ? SYMM_ATOMICS_CPU
                         : strcmp(mode, "network") == 0 ? SYMM_ATOMICS_NETWORK
                                                        : SYMM_ATOMICS_AUTO;
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
    /* UCX_TLS as UCP reads it: unset or empty (all), a list, a negated
     * list, "all", and the aliases of transports with device atomics. */
    used(NULL, "rc_mlx5", 1);
    used("", "rc_mlx5", 1);
    used("all", "dc_mlx5", 1);
    used("tcp", "rc_mlx5", 0);
    used("tcp,rc_mlx5", "rc_mlx5", 1);
    used("rc", "rc_mlx5", 1);
    used("rc", "rc_verbs", 1);
    used("rc", "dc_mlx5", 0);
    used("rc_x", "rc_verbs", 0);
    used("rc_v", "rc_verbs", 1);
    used("dc_x,self", "dc_mlx5", 1);
    used("ib", "ud_verbs", 1);
    used("ugni", "ugni_rdma", 1);
    used("ud_mlx5:aux,rc_verbs", "ud_mlx5", 1);
    used("shm,tcp", "rc_mlx5", 0);
    used("^ib", "rc_mlx5", 0);
    used("^shm", "rc_mlx5", 1);
    used("^tcp,rc", "rc_verbs", 0);
    used("^tcp,rc", "dc_mlx5", 1);
    /* No prefix match: "rc" is not "rc_mlx5x", nor "r" "rc". */
    used("rc_mlx", "rc_mlx5", 0);
    used("rc_mlx5x", "rc_mlx5", 0);
    /* UCX_NET_DEVICES. */
    dev_used(NULL, "mlx5_0:1", 1);
    dev_used("all", "mlx5_0:1", 1);
    dev_used("mlx5_0:1", "mlx5_0:1", 1);
    dev_used("eth0,mlx5_1:1", "mlx5_0:1", 0);
    dev_used("eth0,mlx5_1:1", "mlx5_1:1", 1);
    dev_used("mlx5_0", "mlx5_0:1", 0);

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

    /* The variable's values, parsed with the configuration (an ENUM row). */
    symm_config_t cfg;
    setenv("SYMM_ATOMICS", "sometimes", 1);
    EXPECT(symm_config_load(&cfg) == SYMM_ERR_INVALID, "'sometimes' accepted");
    setenv("SYMM_ATOMICS", "network", 1);
    EXPECT(symm_config_load(&cfg) == SYMM_OK && cfg.core.atomics == SYMM_ATOMICS_NETWORK,
           "'network' not read");
    unsetenv("SYMM_ATOMICS");
    EXPECT(symm_config_load(&cfg) == SYMM_OK && cfg.core.atomics == SYMM_ATOMICS_AUTO,
           "unset is not auto");
    if (fails == 0)
        printf("test_atomics: ok\n");
    return fails == 0 ? 0 : 1;
}
