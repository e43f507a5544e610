/*
 * data.c - remap the executable's writable data (.data, .bss) onto a memfd.
 *
 * Owns the process-wide data layout (one per process, shared by every
 * instance: the executable has one data segment). Facts it relies on:
 *  - dl_iterate_phdr reports the main program first; its writable PT_LOADs
 *    minus PT_GNU_RELRO are the ranges (lld may emit a writable PT_LOAD that
 *    lies wholly inside RELRO: skipped).
 *  - A write between the copy and the MAP_FIXED is lost, so in that window
 *    this code makes only raw system calls on stack data: no malloc (a
 *    static libc keeps its arena in .data), no stdio, signals blocked.
 *  - Untouched .bss pages are zero: /proc/self/pagemap tells which anonymous
 *    pages exist, so a large .bss costs nothing. File-backed .data pages are
 *    copied even if not resident (their content comes from the file).
 *  - After fork() the child would share our globals with the parent: an
 *    atfork child handler gives it a private copy.
 */
#define _GNU_SOURCE
#include "mem/data.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/log.h"
#include "runtime/status.h"

static symm_data_layout_t data_layout = {.fd = -1};
static int data_done;

struct scan {
    int n;
    uintptr_t start[SYMM_MAX_DATA_RANGES];
    uintptr_t end[SYMM_MAX_DATA_RANGES];
    uintptr_t file_end[SYMM_MAX_DATA_RANGES];
    uintptr_t link_addr[SYMM_MAX_DATA_RANGES];
    int too_many;
};

static uintptr_t page_down(uintptr_t v, uintptr_t pg) { return v & ~(pg - 1); }
static uintptr_t page_up(uintptr_t v, uintptr_t pg) { return (v + pg - 1) & ~(pg - 1); }

static int scan_main(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct scan *s = arg;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t relro_lo = 0, relro_hi = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) {
            relro_lo = page_down(info->dlpi_addr + ph->p_vaddr, pg);
            relro_hi = page_down(info->dlpi_addr + ph->p_vaddr + ph->p_memsz, pg);
        }
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0)
            continue;
        uintptr_t lo = page_down(info->dlpi_addr + ph->p_vaddr, pg);
        uintptr_t hi = page_up(info->dlpi_addr + ph->p_vaddr + ph->p_memsz, pg);
        uintptr_t fend = page_up(info->dlpi_addr + ph->p_vaddr + ph->p_filesz, pg);
        if (relro_hi > relro_lo && relro_lo <= lo && relro_hi > lo)
            lo = relro_hi; /* the RELRO head becomes read-only: not ours */
        if (lo >= hi)
            continue;
        if (s->n == SYMM_MAX_DATA_RANGES) {
            s->too_many = 1;
            break;
        }
        s->start[s->n] = lo;
        s->end[s->n] = hi;
        s->file_end[s->n] = fend > lo ? fend : lo;
        s->link_addr[s->n] = lo - info->dlpi_addr;
        s->n++;
    }
    return 1; /* the main program only */
}

/* Write [p, p+len) to fd at off with raw syscalls (no interceptor, no errno
 * handling that could touch our data). */
static int raw_pwrite_all(int fd, const char *p, size_t len, size_t off)
{
    while (len > 0) {
        long w = syscall(SYS_pwrite64, fd, p, len, (long)off);
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
        off += (size_t)w;
    }
    return 0;
}

/* Copy one range into the memfd. Pages of the anonymous tail (.bss beyond the
 * file) are copied only if present or swapped per the pagemap bits in pm. */
static int copy_range(int fd, uintptr_t lo, uintptr_t hi, uintptr_t fend, size_t off,
                      const uint64_t *pm, uintptr_t pg)
{
    uintptr_t p = lo;
    while (p < hi) {
        int want = p < fend || pm == NULL || (pm[(p - lo) / pg] >> 62) != 0;
        if (!want) {
            p += pg;
            continue;
        }
        uintptr_t q = p + pg;
        while (q < hi && (q < fend || pm == NULL || (pm[(q - lo) / pg] >> 62) != 0))
            q += pg;
        if (raw_pwrite_all(fd, (const char *)p, q - p, off + (p - lo)) != 0)
            return -1;
        p = q;
    }
    return 0;
}

static void data_atfork_child(void)
{
    /* Give the child private globals; the parent keeps the shared ones. The
     * copy comes from the memfd with a raw read: no interceptor (ASan) sees
     * the globals' redzones. */
    for (int i = 0; i < data_layout.n_ranges; i++) {
        symm_data_range_t *r = &data_layout.ranges[i];
        void *tmp = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (tmp == MAP_FAILED)
            continue;
        size_t done = 0;
        while (done < r->len) {
            long got = syscall(SYS_pread64, data_layout.fd, (char *)tmp + done, r->len - done,
                               (long)(r->off + done));
            if (got <= 0)
                break;
            done += (size_t)got;
        }
        /* Raw mremap: UCX's memory hooks (libucm) patch mremap and drop
         * its fifth argument, the new address. */
        if (done == r->len)
            syscall(SYS_mremap, tmp, r->len, r->len, MREMAP_MAYMOVE | MREMAP_FIXED, r->start);
        else
            munmap(tmp, r->len);
    }
}

/* The size of the writable ranges together and their signature (sizes and
 * link addresses: every PE of one program has the same). */
static void ranges_sum(const struct scan *s, size_t *total_p, uint64_t *sig_p)
{
    size_t total = 0;
    uint64_t sig = 1469598103934665603ull;
    for (int i = 0; i < s->n; i++) {
        total += s->end[i] - s->start[i];
        sig = (sig ^ (s->end[i] - s->start[i])) * 1099511628211ull;
        sig = (sig ^ s->link_addr[i]) * 1099511628211ull;
    }
    *total_p = total;
    *sig_p = sig;
}

/* The memfd of total bytes that will back the global data; -1 (reported)
 * if it cannot be had. */
static int data_memfd(size_t total)
{
    int fd = memfd_create("symm-data", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)total) != 0) {
        symm_error("shmem_init", "memfd for global data (%zu bytes): %s", total, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Pagemap bits for the anonymous tails, read before the copy window into
 * mmap'd (not malloc'd) memory; pm[i] NULL where they cannot be read (the
 * whole range is copied then). */
static void pagemap_read(const struct scan *s, uintptr_t pg, uint64_t **pm, size_t *pm_len)
{
    int pmfd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    for (int i = 0; i < s->n && pmfd >= 0; i++) {
        size_t npages = (s->end[i] - s->start[i]) / pg;
        pm_len[i] = page_up(npages * sizeof(uint64_t), pg);
        void *buf =
            mmap(NULL, pm_len[i], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED)
            continue;
        off_t at = (off_t)(s->start[i] / pg * sizeof(uint64_t));
        if (pread(pmfd, buf, npages * sizeof(uint64_t), at) !=
            (ssize_t)(npages * sizeof(uint64_t))) {
            munmap(buf, pm_len[i]);
            continue;
        }
        pm[i] = buf;
    }
    if (pmfd >= 0)
        close(pmfd);
}

/* Every range copied into fd, then fd mapped over it, with every signal
 * blocked: the index of the range that failed, or -1. Nothing here writes
 * program data (only the stack and fd). */
static int remap_window(int fd, const struct scan *s, uint64_t *const *pm, uintptr_t pg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* --- window: no writes to program data until every range is mapped --- */
    int failed = -1;
    size_t off = 0;
    for (int i = 0; i < s->n && failed < 0; i++) {
        if (copy_range(fd, s->start[i], s->end[i], s->file_end[i], off, pm[i], pg) != 0)
            failed = i;
        off += s->end[i] - s->start[i];
    }
    off = 0;
    for (int i = 0; i < s->n && failed < 0; i++) {
        long m = syscall(SYS_mmap, s->start[i], s->end[i] - s->start[i], PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_FIXED, fd, off);
        if (m < 0 && m > -4096)
            failed = i;
        off += s->end[i] - s->start[i];
    }
    /* --- end of window --- */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return failed;
}

/* The layout the instance gets (data_layout), once the ranges are mapped. */
static void layout_record(int fd, const struct scan *s, size_t total, uint64_t sig)
{
    data_layout.fd = fd;
    data_layout.size = total;
    data_layout.n_ranges = s->n;
    data_layout.signature = sig;
    size_t off = 0;
    for (int i = 0; i < s->n; i++) {
        data_layout.ranges[i].start = s->start[i];
        data_layout.ranges[i].len = s->end[i] - s->start[i];
        data_layout.ranges[i].off = off;
        off += s->end[i] - s->start[i];
    }
}

int symm_data_remap(const symm_data_layout_t **layout_p)
{
    struct scan s;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (data_done) {
        *layout_p = &data_layout;
        return data_layout.fd >= 0 ? SYMM_OK : SYMM_ERR_UNSUPPORTED;
    }
    memset(&s, 0, sizeof(s));
    dl_iterate_phdr(scan_main, &s);
    if (s.too_many || s.n == 0) {
        symm_error("shmem_init", "cannot find the program's writable data (%d ranges)", s.n);
        return SYMM_ERR_UNSUPPORTED;
    }
    size_t total;
    uint64_t sig;
    ranges_sum(&s, &total, &sig);
    int fd = data_memfd(total);
    if (fd < 0)
        return SYMM_ERR_SYS;
    uint64_t *pm[SYMM_MAX_DATA_RANGES] = {0};
    size_t pm_len[SYMM_MAX_DATA_RANGES] = {0};
    pagemap_read(&s, pg, pm, pm_len);
    int failed = remap_window(fd, &s, pm, pg);
    for (int i = 0; i < s.n; i++)
        if (pm[i])
            munmap(pm[i], pm_len[i]);
    if (failed >= 0) {
        /* A failed MAP_FIXED after an earlier success would be fatal anyway. */
        symm_error("shmem_init", "remapping global data range %d failed", failed);
        close(fd);
        data_done = 1;
        return SYMM_ERR_SYS;
    }
    layout_record(fd, &s, total, sig);
    pthread_atfork(NULL, NULL, data_atfork_child);
    data_done = 1;
    *layout_p = &data_layout;
    return SYMM_OK;
}
