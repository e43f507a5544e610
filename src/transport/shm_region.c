/*
 * shm_region.c - how node-local peers reach a registered region
 * (mem/region_table.h): through the kernel (process_vm_readv/writev into the
 * owner's process, any memory, RMA only), or, for regions with atomic
 * access, through shared memory: the owner's pages are moved into a memfd
 * mapped over the same addresses (copy, then mmap MAP_FIXED|MAP_SHARED, as
 * the data segment is at init), which node-local peers map too, so loads,
 * stores and CPU atomics reach them. Deregistration moves them back into
 * private memory with the same bytes.
 *
 * Why not always move the pages: only whole pages can be moved, and a page
 * the buffer shares with other objects would carry them along (a write to
 * them between the copy and the remap would be lost, and a fork would
 * share them with the child). So moving is opt-in (atomic access) and
 * limited to page-aligned private anonymous memory, which
 * symm_shm_region_movable checks in /proc/self/maps; everything else is
 * reached with a system call per operation.
 *
 * Never on the heap's path; everything here runs at registration, at
 * deregistration, or as the one system call of an operation on a region.
 */
#define _GNU_SOURCE
#include "transport/shm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime/fault.h"
#include "runtime/log.h"
#include "runtime/status.h"

int symm_shm_region_movable(const void *addr, size_t size, char *why, size_t why_len)
{
    uintptr_t lo = (uintptr_t)addr, hi = lo + size, at = lo;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    if (lo % pg != 0 || size % pg != 0) {
        snprintf(why, why_len, "%p + %zu bytes is not whole pages (page size %zu)", addr, size, pg);
        return SYMM_ERR_INVALID;
    }
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL) {
        snprintf(why, why_len, "/proc/self/maps: %s", strerror(errno));
        return SYMM_ERR_SYS;
    }
    char line[512];
    int rc = SYMM_OK;
    while (at < hi && fgets(line, sizeof(line), f) != NULL) {
        uintptr_t s, e;
        char perms[8] = "", path[256] = "";
        unsigned long long inode = 0;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %llu %255[^\n]", &s, &e, perms,
                   &inode, path) < 4)
            continue;
        if (e <= at || s >= hi)
            continue;
        if (s > at)
            break; /* a hole */
        const char *p = path;
        while (*p == ' ')
            p++;
        if (strcmp(perms, "rw-p") != 0 || inode != 0 || (*p != '\0' && strcmp(p, "[heap]") != 0)) {
            snprintf(why, why_len, "%p-%p is not private anonymous read-write memory (%s %s)",
                     (void *)s, (void *)e, perms, *p ? p : "anonymous");
            rc = SYMM_ERR_INVALID;
            break;
        }
        at = e;
    }
    fclose(f);
    if (rc == SYMM_OK && at < hi) {
        snprintf(why, why_len, "%p + %zu bytes is not all mapped memory", addr, size);
        rc = SYMM_ERR_INVALID;
    }
    return rc;
}

int symm_shm_region_share(void *addr, size_t size, int *fd_p, const char *routine)
{
    int fd = memfd_create("symm-region", MFD_CLOEXEC);
    if (fd < 0 || symm_fault("ftruncate") || ftruncate(fd, (off_t)size) != 0) {
        symm_error(routine, "moving %zu registered bytes into shared memory: %s: %s", size,
                   fd < 0 ? "memfd_create" : "ftruncate", strerror(errno));
        if (fd >= 0)
            close(fd);
        return SYMM_ERR_SYS;
    }
    /* pwrite, not a memcpy into a second mapping: no extra address space,
     * and the pages of the file are written once. */
    for (size_t done = 0; done < size;) {
        ssize_t w = pwrite(fd, (const char *)addr + done, size - done, (off_t)done);
        if (w <= 0) {
            symm_error(routine, "copying registered memory into a memfd: %s",
                       w < 0 ? strerror(errno) : "short write");
            close(fd);
            return SYMM_ERR_SYS;
        }
        done += (size_t)w;
    }
    void *p = symm_fault("mmap")
                  ? MAP_FAILED
                  : mmap(addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        /* The old mapping is intact when MAP_FIXED fails before replacing. */
        symm_error(routine, "mapping registered memory %p (%zu bytes) shared: %s", addr, size,
                   strerror(errno));
        close(fd);
        return SYMM_ERR_SYS;
    }
    *fd_p = fd;
    return SYMM_OK;
}

void symm_shm_region_unshare(void *addr, size_t size, int fd, const char *routine)
{
    /* Fresh private pages with the same bytes, then swapped in over addr in
     * one mremap: the buffer is never without its contents. */
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        symm_warn(routine, "registered memory %p stays in shared memory: mmap: %s", addr,
                  strerror(errno));
    } else {
        memcpy(p, addr, size);
        if (mremap(p, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, addr) == MAP_FAILED) {
            symm_warn(routine, "registered memory %p stays in shared memory: mremap: %s", addr,
                      strerror(errno));
            munmap(p, size);
        }
    }
    if (fd >= 0)
        close(fd);
}

char *symm_shm_region_map(int fd, size_t size, const char *routine)
{
    void *p = symm_fault("mmap") ? MAP_FAILED
                                 : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        symm_error(routine, "mapping a node-local PE's registered memory (%zu bytes): %s", size,
                   strerror(errno));
        return NULL;
    }
    madvise(p, size, MADV_DONTDUMP);
    return p;
}

void symm_shm_region_unmap(char *p, size_t size)
{
    if (p != NULL)
        munmap(p, size);
}

int symm_shm_cma(int pid, int put, uint64_t raddr, void *local, size_t n)
{
    while (n > 0) {
        struct iovec l = {.iov_base = local, .iov_len = n};
        struct iovec r = {.iov_base = (void *)(uintptr_t)raddr, .iov_len = n};
        ssize_t k =
            put ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (k == 0)
            return -EFAULT;
        local = (char *)local + k;
        raddr += (uint64_t)k;
        n -= (size_t)k;
    }
    return 0;
}
