/*
 * region_register.h - registering and deregistering existing memory (the protocol;
 * the records are mem/region_table.h's, the operations ops/region_ops.h's).
 */
#ifndef SYMM_CORE_REGION_H
#define SYMM_CORE_REGION_H

#include <stddef.h>

#include "runtime/state.h"
#include "runtime/status.h"

/* Collective over the world: every PE passes its own buffer, all of the
 * same size, with the same access bits (SYMM_ACCESS_*), in the same order
 * of calls. local_rc is the outcome of the caller's own checks (logged
 * already if not SYMM_OK), agreed on with the rest. On success *id_p is the
 * region's id, the same on every PE, and the buffer is reachable by every
 * PE's one-sided operations. Fails on every PE or on none, the PE that
 * found a problem naming it, and then nothing is changed. */
SYMM_MUST_CHECK int symm_region_register(symm_instance_t *s, void *addr, size_t size,
                                         unsigned access, int local_rc, int *id_p,
                                         const char *routine);

/* Collective: every PE deregisters the same region (id, its own buffer
 * addr). After it, the buffer is the program's alone again, with the bytes
 * it held (moved back into private memory where it had been shared). The
 * caller must have no operation outstanding on the region in any context
 * but the default one, which this completes. */
SYMM_MUST_CHECK int symm_region_deregister(symm_instance_t *s, int id, const void *addr,
                                           int local_rc, const char *routine);

#endif
