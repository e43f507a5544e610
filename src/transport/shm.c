/*
 * shm.c - node-local mappings: the heap memfd of each PE and the mapping of
 * every node-local peer's heap and global data into this process.
 *
 * Layout (the aclshmem layout): one reserved virtual range of n_local slots
 * of slot_size bytes; PE with node-local index i has its heap at slot i in
 * every process, so a peer's copy of a heap address is that address plus
 * (i - my_index) * slot_size. The node's processes agree on where the range
 * starts (SYMM_SAME_ADDRESS, agree_range), so PE i's heap has one address in
 * all of them: a pointer into any node-local heap is valid in every process
 * of the node, stored in symmetric memory or not. Where they cannot agree,
 * each process places its range itself (only offsets are symmetric then,
 * as they always are across nodes). Each memfd is mapped over its whole slot, past
 * the file's end, so growing a heap is an ftruncate by its owner. Peer
 * mappings are MADV_DONTDUMP: a core file holds only the PE's own memory.
 * Never on a hot path: everything here runs at init, growth and finalize.
 */
#define _GNU_SOURCE
#include "transport/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
    void *p = symm_fault("mmap") ? MAP_FAILED
                                 : mmap(at, len, PROT_READ | PROT_WRITE,
                                        MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0);
    if (p == MAP_FAILED) {
        symm_error("shmem_init", "mapping %s (%zu bytes): %s", what, len, strerror(errno));
        return SYMM_ERR_SYS;
    }
    return SYMM_OK;
}

static void unmap_node(symm_instance_t *inst)
{
    if (inst->shm->data_reserve)
        munmap(inst->shm->data_reserve, inst->shm->data_size * (size_t)inst->n_local);
    if (inst->shm->heap_reserve)
        munmap(inst->shm->heap_reserve, inst->slot_size * (size_t)inst->n_local);
    inst->shm->data_reserve = inst->shm->heap_reserve = NULL;
}

/* Reserve len bytes of address space aligned to align, anywhere: no
 * memory, no swap accounting. Over-reserves by align and gives back the
 * ends. NULL on failure (errno set). */
static char *reserve_aligned(size_t len, size_t align)
{
    char *raw =
        mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    size_t head = (size_t)(-(uintptr_t)raw & (align - 1));
    if (head > 0)
        munmap(raw, head);
    if (align - head > 0)
        munmap(raw + head + len, align - head);
    return raw + head;
}

/* Reserve exactly [at, at + len); NULL when any of it is taken here. */
static char *reserve_exact(char *at, size_t len)
{
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
    if (at == NULL)
        return NULL;
    void *p = mmap(at, len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (p != at) { /* a kernel before 4.17 took the flag as a hint */
        munmap(p, len);
        return NULL;
    }
    return p;
}

#define SAME_ADDRESS_TRIES 8
#define SAME_ADDRESS_OFF INT64_MIN /* a PE with SYMM_SAME_ADDRESS=0 proposes it */

/* One round of agree_range. Every PE of a node not yet agreed has reserved
 * a range of its own (*mine, placed by its kernel: below what that process
 * has mapped so far); the lowest of them is the node's proposal, which lies
 * below every one of the node's processes' mappings and so far from their
 * stacks and libraries. Its owner keeps it, the others let theirs go and
 * reserve the proposal. Returns 1 when every PE of every node has its
 * node's range, 0 when some node must try again (its PEs then give the
 * proposal up; the owner keeps it in refused, so its kernel does not offer
 * it again), -1 when some PE wants no agreement, -2 when the bootstrap
 * failed. *node_ok_p: whether this node agreed. Collective. */
static int agree_round(symm_instance_t *inst, size_t len, char **mine, int64_t *props, int *oks,
                       char **refused, int *n_refused, int off, int *node_ok_p)
{
    int64_t prop = off ? SAME_ADDRESS_OFF : (int64_t)(intptr_t)*mine;
    if (symm_boot_allgather(inst->boot, &prop, props, sizeof(prop)) != SYMM_OK)
        return -2;
    int64_t low = 0;
    for (int pe = 0; pe < inst->n_pes; pe++)
        if (props[pe] == SAME_ADDRESS_OFF)
            return -1;
    for (int i = 0; i < inst->n_local; i++) {
        int64_t p = props[inst->local_pes[i]];
        if (p != 0 && (low == 0 || p < low))
            low = p;
    }
    int owner = *mine != NULL && (int64_t)(intptr_t)*mine == low;
    int taken = symm_fault("same_address"); /* testing: this PE finds the proposal taken */
    if (*mine != NULL && !owner) {
        munmap(*mine, len);
        *mine = taken ? NULL : reserve_exact((char *)(intptr_t)low, len);
    }
    int ok = *mine != NULL && !(owner && taken);
    if (symm_boot_allgather(inst->boot, &ok, oks, sizeof(ok)) != SYMM_OK)
        return -2;
    int node_ok = 1, all_ok = 1;
    for (int pe = 0; pe < inst->n_pes; pe++)
        all_ok &= oks[pe] != 0;
    for (int i = 0; i < inst->n_local; i++)
        node_ok &= oks[inst->local_pes[i]] != 0;
    *node_ok_p = node_ok;
    if (!node_ok && *mine != NULL) {
        if (owner)
            refused[(*n_refused)++] = *mine;
        else
            munmap(*mine, len);
        *mine = NULL;
    }
    return all_ok;
}

/* The node's PEs agree on one range of len bytes (aligned to align) for
 * all their heap slots: each reserves one where its kernel puts it, the
 * lowest is taken by all (MAP_FIXED_NOREPLACE); where a PE of a node finds
 * it taken, that node tries again with new ones (rounds are collective
 * over the job, so nodes that agreed wait for the others; a node that
 * agreed keeps its range). After SAME_ADDRESS_TRIES refusals, or with
 * SYMM_SAME_ADDRESS=0 on some PE, every process reserves its own range.
 * Sets heap_reserve (NULL: no address space at all), same_address and its
 * reason. */
static void agree_range(symm_instance_t *inst, size_t len, size_t align)
{
    char *mine = NULL, *refused[SAME_ADDRESS_TRIES];
    int n_refused = 0, rc = 0, node_ok = 0;
    int64_t *props = malloc(sizeof(int64_t) * (size_t)inst->n_pes);
    int *oks = malloc(sizeof(int) * (size_t)inst->n_pes);

    inst->shm->same_address = 0;
    inst->shm->same_address_why = "SYMM_SAME_ADDRESS=0 on some PE";
    for (int t = 0; props != NULL && oks != NULL && t < SAME_ADDRESS_TRIES; t++) {
        if (mine == NULL)
            mine = reserve_aligned(len, align);
        rc = agree_round(inst, len, &mine, props, oks, refused, &n_refused,
                         !inst->cfg.core.same_address, &node_ok);
        if (rc != 0)
            break;
    }
    if (rc >= 0 && node_ok) {
        inst->shm->same_address = 1;
        inst->shm->same_address_why = NULL;
    } else if (rc == 0) {
        inst->shm->same_address_why = "no range was free in every process of a node";
    } else if (rc == -2 || props == NULL || oks == NULL) {
        inst->shm->same_address_why = "the node's processes could not agree (bootstrap)";
    }
    for (int i = 0; i < n_refused; i++)
        munmap(refused[i], len);
    if (mine == NULL && (mine = reserve_aligned(len, align)) == NULL)
        symm_error("shmem_init", "reserving %zu bytes of address space for %d heaps: %s", len,
                   inst->n_local, strerror(errno));
    inst->shm->heap_reserve = mine;
    free(props);
    free(oks);
}

/* Map every node-local heap (fds[i * nfds]) and data memfd (fds[i * nfds +
 * 1]) into their reserved ranges; on failure nothing stays mapped. The
 * range is agreed with the node's other processes (collective); the rest
 * is local: the caller agrees on the outcome. */
static int map_node(symm_instance_t *inst, const int *fds, int nfds, const symm_data_layout_t *data)
{
    size_t n_local = (size_t)inst->n_local;
    size_t reserve = inst->slot_size * n_local;
    int rc;

    /* The range starts at a multiple of heap_align (the largest power of
     * two, at most SYMM_HEAP_ALIGN_MAX, that divides slot_size, the same on
     * every PE), so every slot does: an offset aligned to A <= heap_align
     * is then an address aligned to A on every PE, node-local or not
     * (shmem_align). */
    size_t align = inst->slot_size & -inst->slot_size;
    if (align > SYMM_HEAP_ALIGN_MAX)
        align = SYMM_HEAP_ALIGN_MAX;
    agree_range(inst, reserve, align);
    if (inst->shm->heap_reserve == NULL)
        return SYMM_ERR_NOMEM;
    inst->shm->heap_align = align;
    for (size_t i = 0; i < n_local; i++) {
        char *slot = inst->shm->heap_reserve + i * inst->slot_size;
        rc = map_fixed(slot, inst->slot_size, fds[i * (size_t)nfds], "a node-local heap");
        if (rc != SYMM_OK)
            goto err_unmap_heaps;
        if ((int)i != inst->local_idx)
            madvise(slot, inst->slot_size, MADV_DONTDUMP);
    }
    inst->heap_base = inst->shm->heap_reserve + (size_t)inst->local_idx * inst->slot_size;

    if (data->fd >= 0) {
        size_t dsz = data->size;
        inst->shm->data_size = dsz;
        inst->shm->data_reserve = mmap(NULL, dsz * n_local, PROT_NONE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (inst->shm->data_reserve == MAP_FAILED) {
            symm_error("shmem_init",
                       "reserving %zu bytes of address space for %d PEs' "
                       "global data: %s",
                       dsz * n_local, inst->n_local, strerror(errno));
            inst->shm->data_reserve = NULL;
            rc = SYMM_ERR_NOMEM;
            goto err_unmap_heaps;
        }
        for (size_t i = 0; i < n_local; i++) {
            rc = map_fixed(inst->shm->data_reserve + i * dsz, dsz, fds[i * (size_t)nfds + 1],
                           "a node-local PE's global data");
            if (rc != SYMM_OK)
                goto err_unmap_data;
            madvise(inst->shm->data_reserve + i * dsz, dsz, MADV_DONTDUMP);
        }
    }
    return SYMM_OK;

err_unmap_data:
    munmap(inst->shm->data_reserve, inst->shm->data_size * n_local);
    inst->shm->data_reserve = NULL;
err_unmap_heaps:
    munmap(inst->shm->heap_reserve, reserve);
    inst->shm->heap_reserve = NULL;
    inst->heap_base = NULL;
    return rc;
}

#define HUGE_PAGE ((size_t)2 << 20)

static size_t huge_round(size_t v)
{
    return (v + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/* Free 2 MiB huge pages on this machine (/proc/meminfo), 0 if none or
 * unknown (another default size counts as none). */
static size_t huge_free(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    size_t free_pages = 0, size_kb = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        sscanf(line, "HugePages_Free: %zu", &free_pages);
        sscanf(line, "Hugepagesize: %zu kB", &size_kb);
    }
    fclose(f);
    return size_kb == HUGE_PAGE / 1024 ? free_pages : 0;
}

/* A heap file of size bytes on huge pages, every page allocated now (so a
 * shortage is an error here, not a SIGBUS at a later touch); -1 with why
 * set when there are not enough. */
static int huge_heap_fd(size_t size, char *why, size_t len)
{
    int fd = memfd_create("symm-heap", MFD_CLOEXEC | MFD_HUGETLB);
    if (fd < 0) {
        snprintf(why, len, "no hugetlbfs here (memfd_create: %s)", strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)huge_round(size)) != 0 || symm_fault("hugepages") ||
        fallocate(fd, 0, 0, (off_t)huge_round(size)) != 0) {
        close(fd); /* gives back what it got */
        snprintf(why, len, "%zu huge pages wanted, %zu free", huge_round(size) / HUGE_PAGE,
                 huge_free());
        return -1;
    }
    return fd;
}

/* This PE's heap file: huge pages or normal ones as SYMM_HUGEPAGES says
 * (auto: huge where the node's free huge pages cover every local PE's
 * initial heap and they can be had). -1 (logged) on failure. */
static int heap_file(symm_instance_t *inst)
{
    int mode = inst->cfg.core.hugepages;
    size_t want = huge_round(inst->heap_size) / HUGE_PAGE * (size_t)inst->n_local;
    char *why = inst->shm->heap_huge_why;
    size_t wl = sizeof(inst->shm->heap_huge_why);
    int fd;

    inst->shm->heap_huge = 0;
    if (mode == SYMM_HUGEPAGES_OFF) {
        snprintf(why, wl, "SYMM_HUGEPAGES=off");
    } else if (mode == SYMM_HUGEPAGES_AUTO && huge_free() < want) {
        snprintf(why, wl, "%zu free huge pages, %zu wanted for %d local heaps", huge_free(), want,
                 inst->n_local);
    } else if ((fd = huge_heap_fd(inst->heap_size, why, wl)) >= 0) {
        inst->shm->heap_huge = 1;
        snprintf(why, wl, "%zu MiB in 2 MiB pages", huge_round(inst->heap_size) >> 20);
        return fd;
    } else if (mode == SYMM_HUGEPAGES_ON) {
        symm_error("shmem_init", "SYMM_HUGEPAGES=on: %s (vm.nr_hugepages)", why);
        errno = ENOMEM;
        return -1;
    }
    const char *step = "memfd_create";
    fd = memfd_create("symm-heap", MFD_CLOEXEC);
    if (fd >= 0 && (symm_fault("ftruncate") || ftruncate(fd, (off_t)inst->heap_size) != 0)) {
        int e = errno;
        close(fd);
        errno = e;
        fd = -1;
        step = "ftruncate";
    }
    if (fd < 0)
        symm_error("shmem_init", "symmetric heap of %zu bytes: %s: %s", inst->heap_size, step,
                   strerror(errno));
    return fd;
}

int symm_shm_state_create(symm_instance_t *inst)
{
    inst->shm = calloc(1, sizeof(*inst->shm));
    if (inst->shm == NULL) {
        symm_error("shmem_init", "no memory for the node-local mappings' state");
        return SYMM_ERR_NOMEM;
    }
    inst->shm->heap_fd = -1;
    return SYMM_OK;
}

void symm_shm_state_destroy(symm_instance_t *inst)
{
    free(inst->shm);
    inst->shm = NULL;
}

int symm_shm_init(symm_instance_t *inst, const symm_data_layout_t *data)
{
    int rc = SYMM_OK;
    int nfds = 2;
    int my_fds[2];
    int *fds = NULL;
    size_t n_local = (size_t)inst->n_local;

    inst->shm->heap_fd = heap_file(inst);
    if (inst->shm->heap_fd < 0) {
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
    my_fds[0] = inst->shm->heap_fd;
    my_fds[1] = data->fd >= 0 ? data->fd : inst->shm->heap_fd;
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
        p->data_base = inst->shm->data_reserve
                           ? inst->shm->data_reserve + (size_t)i * inst->shm->data_size
                           : NULL;
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
    if (inst->shm->heap_fd >= 0)
        close(inst->shm->heap_fd);
    inst->shm->heap_fd = -1;
    return rc;
}

void symm_shm_fini(symm_instance_t *inst)
{
    unmap_node(inst);
    if (inst->shm->heap_fd >= 0)
        close(inst->shm->heap_fd);
    inst->shm->heap_fd = -1;
}

int symm_shm_heap_grow(symm_instance_t *inst, size_t new_size, const char *routine)
{
    if (inst->shm->heap_huge) {
        /* hugetlbfs: whole pages, allocated now (a shortage is this error,
         * not a SIGBUS at the first touch). */
        size_t old = huge_round(inst->heap_size), size = huge_round(new_size);
        if (size > old &&
            (ftruncate(inst->shm->heap_fd, (off_t)size) != 0 || symm_fault("hugepages") ||
             fallocate(inst->shm->heap_fd, 0, (off_t)old, (off_t)(size - old)) != 0)) {
            if (ftruncate(inst->shm->heap_fd, (off_t)old) != 0) /* gives back what it got */
                symm_warn(routine, "shrinking the heap file back: %s", strerror(errno));
            symm_error(routine,
                       "growing the symmetric heap to %zu bytes: %zu more huge pages wanted, "
                       "%zu free (the heap is on huge pages: SYMM_HUGEPAGES)",
                       new_size, (size - old) / HUGE_PAGE, huge_free());
            return SYMM_ERR_NOMEM;
        }
        return SYMM_OK;
    }
    if (symm_fault("ftruncate") || ftruncate(inst->shm->heap_fd, (off_t)new_size) != 0) {
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
    size_t bytes = inst->shm->heap_huge ? huge_round(old_size) : old_size;
    if (ftruncate(inst->shm->heap_fd, (off_t)bytes) != 0)
        symm_warn(routine, "shrinking the symmetric heap back to %zu bytes: ftruncate: %s",
                  old_size, strerror(errno));
}
