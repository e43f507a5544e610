/*
 * shm.c - node-local mappings: the heap memfd of each PE and the mapping of
 * every node-local peer's heap and global data into this process.
 *
 * Layout (the aclshmem layout): one reserved virtual range of n_local slots
 * of slot_size bytes; PE with node-local index i has its heap at slot i in
 * every process, so a peer's copy of a heap address is that address plus
 * (i - my_index) * slot_size. Each memfd is mapped over its whole slot, past
 * the file's end, so growing a heap is an ftruncate by its owner. Peer
 * mappings are MADV_DONTDUMP: a core file holds only the PE's own memory.
 * Never on a hot path: everything here runs at init, growth and finalize.
 */
#define _GNU_SOURCE
#include "transport/shm.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "boot/boot.h"
#include "runtime/fault.h"
#include "runtime/log.h"
#include "runtime/status.h"

static int map_fixed(void *at, size_t len, int fd, const char *what)
{
    void *p = symm_fault("mmap")
                  ? MAP_FAILED
                  : mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        symm_error("shmem_init", "mapping %s (%zu bytes): %s", what, len, strerror(errno));
        return SYMM_ERR_SYS;
    }
    return SYMM_OK;
}

static void unmap_node(symm_instance_t *inst)
{
    if (inst->data_reserve)
        munmap(inst->data_reserve, inst->data_size * (size_t)inst->n_local);
    if (inst->heap_reserve)
        munmap(inst->heap_reserve, inst->slot_size * (size_t)inst->n_local);
    inst->data_reserve = inst->heap_reserve = NULL;
}

/* Map every node-local heap (fds[i * nfds]) and data memfd (fds[i * nfds +
 * 1]) into their reserved ranges; on failure nothing stays mapped. Local:
 * the caller agrees on the outcome. */
static int map_node(symm_instance_t *inst, const int *fds, int nfds, const symm_data_layout_t *data)
{
    size_t n_local = (size_t)inst->n_local;
    size_t reserve = inst->slot_size * n_local;
    int rc;

    /* Reserve address space only: no memory, no swap accounting. The range
     * starts at a multiple of heap_align (the largest power of two, at most
     * SYMM_HEAP_ALIGN_MAX, that divides slot_size, the same on every PE),
     * so every slot does: an offset aligned to A <= heap_align is then an
     * address aligned to A on every PE, node-local or not (shmem_align).
     * Over-reserve by heap_align and give back the ends. */
    size_t align = inst->slot_size & -inst->slot_size;
    if (align > SYMM_HEAP_ALIGN_MAX)
        align = SYMM_HEAP_ALIGN_MAX;
    char *raw = mmap(NULL, reserve + align, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
        symm_error("shmem_init", "reserving %zu bytes of address space for %d heaps: %s", reserve,
                   inst->n_local, strerror(errno));
        inst->heap_reserve = NULL;
        return SYMM_ERR_NOMEM;
    }
    size_t head = (size_t)(-(uintptr_t)raw & (align - 1));
    if (head > 0)
        munmap(raw, head);
    if (align - head > 0)
        munmap(raw + head + reserve, align - head);
    inst->heap_reserve = raw + head;
    inst->heap_align = align;
    for (size_t i = 0; i < n_local; i++) {
        char *slot = inst->heap_reserve + i * inst->slot_size;
        rc = map_fixed(slot, inst->slot_size, fds[i * (size_t)nfds], "a node-local heap");
        if (rc != SYMM_OK)
            goto err_unmap_heaps;
        if ((int)i != inst->local_idx)
            madvise(slot, inst->slot_size, MADV_DONTDUMP);
    }
    inst->heap_base = inst->heap_reserve + (size_t)inst->local_idx * inst->slot_size;

    if (data->fd >= 0) {
        size_t dsz = data->size;
        inst->data_size = dsz;
        inst->data_reserve = mmap(NULL, dsz * n_local, PROT_NONE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (inst->data_reserve == MAP_FAILED) {
            symm_error("shmem_init",
                       "reserving %zu bytes of address space for %d PEs' "
                       "global data: %s",
                       dsz * n_local, inst->n_local, strerror(errno));
            inst->data_reserve = NULL;
            rc = SYMM_ERR_NOMEM;
            goto err_unmap_heaps;
        }
        for (size_t i = 0; i < n_local; i++) {
            rc = map_fixed(inst->data_reserve + i * dsz, dsz, fds[i * (size_t)nfds + 1],
                           "a node-local PE's global data");
            if (rc != SYMM_OK)
                goto err_unmap_data;
            madvise(inst->data_reserve + i * dsz, dsz, MADV_DONTDUMP);
        }
    }
    return SYMM_OK;

err_unmap_data:
    munmap(inst->data_reserve, inst->data_size * n_local);
    inst->data_reserve = NULL;
err_unmap_heaps:
    munmap(inst->heap_reserve, reserve);
    inst->heap_reserve = NULL;
    inst->heap_base = NULL;
    return rc;
}

int symm_shm_init(symm_instance_t *inst, const symm_data_layout_t *data)
{
    int rc = SYMM_OK;
    int nfds = 2;
    int my_fds[2];
    int *fds = NULL;
    size_t n_local = (size_t)inst->n_local;

    inst->heap_fd = memfd_create("symm-heap", MFD_CLOEXEC);
    if (inst->heap_fd < 0 || symm_fault("ftruncate") ||
        ftruncate(inst->heap_fd, (off_t)inst->heap_size) != 0) {
        symm_error("shmem_init", "symmetric heap of %zu bytes: %s: %s", inst->heap_size,
                   inst->heap_fd < 0 ? "memfd_create" : "ftruncate", strerror(errno));
        rc = SYMM_ERR_SYS;
    } else if ((fds = malloc(sizeof(int) * n_local * (size_t)nfds)) == NULL) {
        symm_error("shmem_init", "no memory for %zu descriptors", n_local * (size_t)nfds);
        rc = SYMM_ERR_NOMEM;
    }
    /* A PE that failed still takes part, so the others fail here with its
     * reason rather than wait for it in the exchange below. */
    rc = symm_boot_agree(inst->boot, rc, "shmem_init", NULL);
    if (rc != SYMM_OK)
        goto err_free_fds;
    my_fds[0] = inst->heap_fd;
    my_fds[1] = data->fd >= 0 ? data->fd : inst->heap_fd;
    rc = symm_boot_fds_exchange(inst->boot, inst->local_pes, inst->n_local, inst->local_idx, my_fds,
                                nfds, fds);
    if (rc != SYMM_OK)
        goto err_free_fds;

    int mrc = map_node(inst, fds, nfds, data);
    rc = symm_boot_agree(inst->boot, mrc, "shmem_init", NULL);
    if (rc != SYMM_OK) {
        if (mrc == SYMM_OK)
            unmap_node(inst);
        goto err_close_fds;
    }

    for (int pe = 0; pe < inst->n_pes; pe++) {
        inst->peers[pe].local_idx = -1;
        inst->peers[pe].mapped = 0;
    }
    for (int i = 0; i < inst->n_local; i++) {
        symm_peer_t *p = &inst->peers[inst->local_pes[i]];
        p->local_idx = i;
        p->mapped = 1;
        p->heap_delta = (intptr_t)((i - inst->local_idx) * (intptr_t)inst->slot_size);
        p->data_base = inst->data_reserve ? inst->data_reserve + (size_t)i * inst->data_size : NULL;
    }
    /* The mappings hold the files; only my own heap fd is kept, to grow it. */
    for (size_t i = 0; i < n_local * (size_t)nfds; i++)
        close(fds[i]);
    free(fds);
    return SYMM_OK;

err_close_fds:
    for (size_t i = 0; i < n_local * (size_t)nfds; i++)
        close(fds[i]);
err_free_fds:
    free(fds);
    if (inst->heap_fd >= 0)
        close(inst->heap_fd);
    inst->heap_fd = -1;
    return rc;
}

void symm_shm_fini(symm_instance_t *inst)
{
    unmap_node(inst);
    if (inst->heap_fd >= 0)
        close(inst->heap_fd);
    inst->heap_fd = -1;
}

int symm_shm_heap_grow(symm_instance_t *inst, size_t new_size, const char *routine)
{
    if (symm_fault("ftruncate") || ftruncate(inst->heap_fd, (off_t)new_size) != 0) {
        symm_error(routine, "growing the symmetric heap to %zu bytes: ftruncate: %s", new_size,
                   strerror(errno));
        return SYMM_ERR_NOMEM;
    }
    return SYMM_OK;
}

void symm_shm_heap_restore(symm_instance_t *inst, size_t old_size, const char *routine)
{
    /* Shrinking frees the pages past old_size; nobody used them yet. A
     * failure leaves a larger file, which costs nothing but its pages. */
    if (ftruncate(inst->heap_fd, (off_t)old_size) != 0)
        symm_warn(routine, "shrinking the symmetric heap back to %zu bytes: ftruncate: %s",
                  old_size, strerror(errno));
}
