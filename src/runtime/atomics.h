/*
 * atomics.h - who applies atomic updates to symmetric words: the PE's CPU
 * or the network transport (SYMM_ATOMICS), decided once per instance.
 *
 * The rule (symm_atomics_choose). A word must have one atomic agent: a NIC
 * atomic (UCX device atomics: rc_verbs, rc_mlx5, dc_mlx5, ...) is not
 * atomic against a CPU atomic on the same word, so a counter hit both by a
 * node-local PE's CPU and by another node's NIC loses updates and a lock
 * word can let two PEs in. Atomics UCX emulates in software (tcp, and
 * UCX_ATOMIC_MODE=cpu over any fabric: an active message applied by the
 * target's CPU) and shared-memory UCX atomics (CPU atomics on the mapped
 * word) are coherent with the CPU path. So:
 *   cpu      the CPU of the issuing PE on mapped peers, always (unsafe with
 *            device atomics across nodes);
 *   network  the transport for every PE, mapped ones and itself included,
 *            whenever a network transport is in use (else cpu);
 *   auto     network iff some PE is reached through the network (the job
 *            spans nodes, or SYMM_TRANSPORT=ucx) and some PE's UCX would
 *            use device atomics (the atomic transports of its default
 *            worker); cpu otherwise, in particular under UCX_ATOMIC_MODE=cpu.
 * Why auto prefers UCX_ATOMIC_MODE=cpu when the user set it, rather than
 * setting it ourselves: it keeps node-local atomics at CPU speed (tens of
 * ns against a loopback round trip through the NIC), but every remote
 * atomic then needs the target's CPU to run UCX progress (the progress
 * thread, or the target inside a symm call) and costs a software round
 * trip even on hardware that could do it alone; device atomics through one
 * agent keep remote atomics at NIC latency and independent of the target.
 * The finding, from UCX's API (symm_ucx_amo_probe): UCX_ATOMIC_MODE=cpu in
 * the environment, else device atomics where some network interface that
 * UCP would open (UCX_TLS, UCX_NET_DEVICES) says it has them
 * (uct_iface_query: UCT_IFACE_FLAG_ATOMIC_DEVICE and a 64-bit add), which
 * is UCX's own default rule (UCX_ATOMIC_MODE=guess). Limits: a mode set in
 * ucx.conf is not seen (the finding then stays device, the safe side);
 * when the probe cannot run the finding is "unknown" and auto takes the
 * safe side (network). Every PE's finding is ORed in the UCX init
 * exchange, so every PE decides the same.
 */
#ifndef SYMM_RUNTIME_ATOMICS_H
#define SYMM_RUNTIME_ATOMICS_H

#include "runtime/state.h"

/* What a PE's network transport found about its atomics (bits, ORed over
 * every PE of the job). */
#define SYMM_NETAMO_DEVICE 1u   /* device (NIC) atomics */
#define SYMM_NETAMO_CPU_MODE 2u /* UCX_ATOMIC_MODE=cpu */
#define SYMM_NETAMO_UNKNOWN 4u  /* the probe could not run: assume device */

/* Would UCP open transport tl (e.g. "rc_mlx5") under UCX_TLS=tls (NULL:
 * unset), with UCX's aliases of the transports that have device atomics
 * ("ib", "rc", "dc", ...) and its negation ("^...")? And device dev
 * under UCX_NET_DEVICES=devs? The transport's probe (ucx.c) asks only the
 * interfaces UCP would open. */
int symm_atomics_tl_used(const char *tls, const char *tl);
int symm_atomics_dev_used(const char *devs, const char *dev);

/* Set SYMM_AMO_NET in s->amo_flags, and s->amo_why. net: a network transport is in use;
 * bits, tl: its job-wide finding (tl: the device transport, or ""). */
void symm_atomics_choose(symm_instance_t *s, int net, unsigned bits, const char *tl);

#endif
