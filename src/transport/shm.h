/*
 * shm.h - node-local shared memory: heap memfds and the mappings of every
 * node-local peer's heap and data segment.
 */
#ifndef SYMM_SHM_H
#define SYMM_SHM_H

#include <stddef.h>

#include "mem/data.h"
#include "runtime/state.h"

/* Collective. Create my heap memfd of inst->heap_size bytes, exchange heap
 * and data memfds with the node-local PEs, map every node-local heap at slot
 * local_idx * slot_size of one reserved range and every data memfd into a
 * second one, and fill inst->peers. data may have fd -1 (globals not
 * symmetric). Its local steps (the memfd's size, the mappings) are agreed
 * over the bootstrap: it fails on every PE or on none. */
int symm_shm_init(symm_instance_t *inst, const symm_data_layout_t *data);
void symm_shm_fini(symm_instance_t *inst);

/* Grow my heap file to new_size. Every PE calls it at the same allocation
 * (core/heap.c agrees on the outcome); peers' mappings already cover the
 * slot. Local: logs its failure under routine. */
int symm_shm_heap_grow(symm_instance_t *inst, size_t new_size, const char *routine);
/* Undo a growth the other PEs could not follow: the file back to old_size. */
void symm_shm_heap_restore(symm_instance_t *inst, size_t old_size, const char *routine);

#endif
