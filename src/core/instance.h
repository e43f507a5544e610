/*
 * instance.h - the life of an instance: create, finalize, destroy.
 *
 * core/ is the layer that makes the others work together: it alone knows
 * the order in which the bootstrap, the node's mappings, the transports,
 * the allocator and the predefined teams come up, and it ends an instance
 * by running the shutdown hooks each layer registered (runtime/state.h), so
 * no layer is named by the code that ends it. The API layer (api/shmem/shmem_setup.c,
 * api/acl/aclshmem_init.c) decides when; this layer decides how.
 *
 * Layer core/ (below api/, above stream/; docs/ARCHITECTURE.md): the life of
 * an instance and collective heap growth. It includes and calls only its own
 * directory and those below it (scripts/check_layers.sh).
 */
#ifndef SYMM_CORE_INSTANCE_H
#define SYMM_CORE_INSTANCE_H

#include "runtime/state.h"
#include "runtime/status.h"

struct symm_boot;

/* How to create an instance. Zero-initialised means: the bootstrap the
 * environment describes (oshrun, or a singleton), sizes from the
 * environment, instance id 0. */
typedef struct symm_instance_args {
    int thread_level;
    struct symm_boot *boot;  /* a bootstrap made by the caller (taken over), or NULL */
    size_t heap_size;        /* initial heap bytes; 0: SHMEM_SYMMETRIC_SIZE */
    uint64_t instance_id;    /* several instances may live in one process */
} symm_instance_args_t;

/* Create and initialise an instance (collective over the bootstrap's job).
 * Writes *inst_p only on success; on failure a given boot is destroyed. */
SYMM_MUST_CHECK int symm_instance_create(const symm_instance_args_t *args,
                                         symm_instance_t **inst_p);

/* Collective, first half of the end: the DRAIN hooks (work still queued
 * completes), then everything issued completes and every PE meets, so no
 * PE unmaps a heap a peer may still be writing to. Under SHMEM_DEBUG,
 * first the blocks still allocated, listed in routine's name (core/heap.c).
 * Returns the bootstrap barrier's status for the caller to report in its
 * own words. */
SYMM_MUST_CHECK int symm_instance_finalize(symm_instance_t *inst, const char *routine);

/* Second half: the RELEASE hooks (last registered first), the bootstrap,
 * the memory. inst is gone on return. */
void symm_instance_destroy(symm_instance_t *inst);

#endif
