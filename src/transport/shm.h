/*
 * shm.h - node-local shared memory: heap memfds and the mappings of every
 * node-local peer's heap and data segment.
 */
#ifndef SYMM_SHM_H
#define SYMM_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "mem/data.h"
#include "runtime/state.h"
#include "runtime/status.h"

/* The node-local mappings' state in an instance (inst->shm): made by
 * symm_shm_state_create at init, before symm_shm_init, and released with
 * the instance. */
struct symm_shm_map {
    char *heap_reserve;           /* n_local slots of inst->slot_size */
    int same_address;             /* heap_reserve is the same address in every process of
                                   * the node */
    const char *same_address_why; /* why not, when same_address is 0 (static text) */
    size_t heap_align;            /* every heap base is a multiple of it */
    int heap_fd;
    int heap_huge;                /* heap_fd is hugetlbfs: 2 MiB pages, its size a multiple */
    char heap_huge_why[96];       /* why it is or is not, for SHMEM_INFO */
    char *data_reserve;           /* n_local mappings of the data memfds */
    size_t data_size;             /* total bytes of the data memfd */
};

/* inst->shm, empty (no descriptor). Logs its failure. */
SYMM_MUST_CHECK int symm_shm_state_create(symm_instance_t *inst);
void symm_shm_state_destroy(symm_instance_t *inst);

/* Collective. Create my heap memfd of inst->heap_size bytes, exchange heap
 * and data memfds with the node-local PEs, map every node-local heap at slot
 * local_idx * slot_size of one reserved range and every data memfd into a
 * second one, and fill inst->peers. data may have fd -1 (globals not
 * symmetric). Its local steps (the memfd's size, the mappings) are agreed
 * over the bootstrap: it fails on every PE or on none. */
SYMM_MUST_CHECK int symm_shm_init(symm_instance_t *inst, const symm_data_layout_t *data);
void symm_shm_fini(symm_instance_t *inst);

/* Grow my heap file to new_size. Every PE calls it at the same allocation
 * (core/heap.c agrees on the outcome); peers' mappings already cover the
 * slot. Local: logs its failure under routine. */
SYMM_MUST_CHECK int symm_shm_heap_grow(symm_instance_t *inst, size_t new_size, const char *routine);
/* Undo a growth the other PEs could not follow: the file back to old_size. */
void symm_shm_heap_restore(symm_instance_t *inst, size_t old_size, const char *routine);

/* ---- registered regions (shm_region.c) -------------------------------- */

/* 0 if [addr, addr + size) may have its pages moved into shared memory:
 * whole pages of private anonymous read-write memory (no file, no stack);
 * else non-zero with the reason in why. */
int symm_shm_region_movable(const void *addr, size_t size, char *why, size_t why_len);
/* Move the pages into a new memfd mapped over the same addresses (the bytes
 * kept); *fd_p is the memfd. Local; logs its failure under routine, and
 * then the buffer is as it was. */
SYMM_MUST_CHECK int symm_shm_region_share(void *addr, size_t size, int *fd_p, const char *routine);
/* Back into private memory with the same bytes, and close fd. Never fails
 * the caller: a failure leaves the buffer shared (warned). */
void symm_shm_region_unshare(void *addr, size_t size, int fd, const char *routine);
/* A node-local peer's region memfd mapped here (NULL: failed, logged). */
char *symm_shm_region_map(int fd, size_t size, const char *routine);
void symm_shm_region_unmap(char *p, size_t size);
/* n bytes between local and raddr in process pid (put: local to remote)
 * with process_vm_writev/readv; 0, or -errno. */
SYMM_MUST_CHECK int symm_shm_cma(int pid, int put, uint64_t raddr, void *local, size_t n);

#endif
