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
 * Limits: the kind of atomics is read from UCX's own report of its worker
 * (ucp_worker_print_info); when that report has no such line the finding
 * is "unknown" and auto takes the safe side (network). Every PE's finding
 * is ORed in the UCX init exchange, so every PE decides the same.
 */
#ifndef SYMM_RUNTIME_ATOMICS_H
#define SYMM_RUNTIME_ATOMICS_H

#include "runtime/state.h"

/* What a PE's network transport found about its atomics (bits, ORed over
 * every PE of the job). */
#define SYMM_NETAMO_DEVICE 1u   /* device (NIC) atomics */
#define SYMM_NETAMO_CPU_MODE 2u /* UCX_ATOMIC_MODE=cpu */
#define SYMM_NETAMO_UNKNOWN 4u  /* no report to read: assume device */

typedef enum symm_atomics_mode {
    SYMM_ATOMICS_AUTO,
    SYMM_ATOMICS_CPU,
    SYMM_ATOMICS_NETWORK,
} symm_atomics_mode_t;

/* SYMM_ATOMICS parsed; an error naming the variable and value (logged for
 * routine) and SYMM_ERR_INVALID when it is none of auto, cpu, network. */
int symm_atomics_mode(const symm_config_t *cfg, const char *routine, symm_atomics_mode_t *mode);

/* Read UCX's reports (plain text, so this layer needs no UCX): config, the
 * output of ucp_config_print (UCX_ATOMIC_MODE=cpu gives
 * SYMM_NETAMO_CPU_MODE); worker_info, that of ucp_worker_print_info, whose
 * "atomics:" line lists the transports UCP applies atomics with, as
 * "INDEX:TL/DEVICE, ..." ("0:self/memory0, 3:sysv/memory" without a NIC,
 * "2:rc_mlx5/mlx5_0:1" with device atomics; emulated ones, tcp, are not
 * listed): a transport other than the CPU ones (self, sysv, posix, xpmem,
 * knem, cma) gives SYMM_NETAMO_DEVICE and its name in tl (when tl is still
 * ""), no such line SYMM_NETAMO_UNKNOWN. Either text may be NULL. */
unsigned symm_atomics_parse_ucx(const char *worker_info, const char *config, char *tl,
                                size_t tl_len);

/* Set SYMM_AMO_NET in s->amo_flags, and s->amo_why. net: a network transport is in use;
 * bits, tl: its job-wide finding (tl: the device transport, or ""). */
void symm_atomics_choose(symm_instance_t *s, int net, unsigned bits, const char *tl);

#endif
