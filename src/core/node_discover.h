/*
 * node_discover.h - which PEs share this node, found at init (core/).
 *
 * Part of the instance's creation (core/instance.c), split out because it
 * is one job with its own rules: what makes two PEs node-local, the
 * emulated nodes of SYMM_NODE_SIZE, and whether a network transport is
 * needed. Layer core/ (docs/ARCHITECTURE.md).
 */
#ifndef SYMM_CORE_NODE_DISCOVER_H
#define SYMM_CORE_NODE_DISCOVER_H

#include "runtime/state.h"
#include "runtime/status.h"

/* Collective. Fills inst->n_host, local_pes (allocated here; the caller
 * frees it, on failure too), n_local, local_idx, and every peer's pid,
 * same_node and map_node; sets inst->net where some PE must be reached
 * over the network. Checks SYMM_TRANSPORT and SYMM_ATOMICS first. */
SYMM_MUST_CHECK int symm_node_discover(symm_instance_t *inst);

#endif
