/*
 * net_rule.c - SYMM_UCX_BULK_EP's rule (transport/transport.h): which way large
 * collective messages to other nodes go, read from this machine (an
 * InfiniBand device, the TCP congestion control), never from UCX.
 *
 * Built into libsymm (symm-info says the rule) and into the UCX plugin (its
 * init applies it); it keeps no state.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/config.h"
#include "transport/transport.h"


/* The default TCP congestion control of this network namespace, the one a
 * new socket gets (UCX sets none of its own). */
static void tcp_cc(char *cc, size_t len)
{
    cc[0] = '\0';
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "r");
    if (f == NULL)
        return;
    if (fgets(cc, (int)len, f) == NULL)
        cc[0] = '\0';
    fclose(f);
    cc[strcspn(cc, "\n")] = '\0';
}

/* auto: the one zero-copy write of a rendezvous beats 64 KiB fragments
 * where TCP sends it at once, and loses where BBR paces it out (large
 * fcollect and sum-reduce across namespaces: docs/performance.md). Only over tcp:
 * verbs transports keep zero-copy rendezvous under peer-failure handling,
 * and a second endpoint there costs a queue pair per peer for nothing. */
int symm_ucx_bulk_rule(int value, char *why, size_t len)
{
    if (value != SYMM_UCX_BULK_EP_AUTO) {
        int on = value == SYMM_UCX_BULK_EP_1;
        snprintf(why, len, "%s (SYMM_UCX_BULK_EP=%d)",
                 on ? "rendezvous on a second endpoint" : "on the first endpoint", on);
        return on;
    }
    if (access("/sys/class/infiniband", F_OK) == 0) {
        snprintf(why, len, "on the first endpoint (SYMM_UCX_BULK_EP=auto; an InfiniBand/RoCE "
                 "device is present)");
        return 0;
    }
    char cc[32];
    tcp_cc(cc, sizeof(cc));
    int on = cc[0] != '\0' && strncmp(cc, "bbr", 3) != 0;
    snprintf(why, len, "%s (SYMM_UCX_BULK_EP=auto; tcp, congestion control %s%s)",
             on ? "rendezvous on a second endpoint" : "on the first endpoint",
             cc[0] != '\0' ? cc : "unknown",
             on ? " sends one large write at once" : cc[0] != '\0' ? " paces one large write" : "");
    return on;
}

