/*
 * shm.c - collective algorithms, written as pulls: each PE reads what it
 * needs from its peers' symmetric buffers. For a mapped peer a pull is one
 * memcpy from where the data is to where it goes; for a peer on another
 * node (or every peer under SYMM_TRANSPORT=ucx) it is an RMA get through
 * the network transport into the same place, so one set of algorithms
 * serves both, and a team that spans nodes mixes memcpy and gets.
 *
 *  broadcast  barrier; every PE pulls the root's source; barrier
 *  fcollect   barrier; every PE pulls each peer's block; barrier
 *  collect    publish my count; barrier; exclusive scan of the counts read
 *             from every peer gives my offsets; pull; barrier
 *  alltoall   barrier; every PE pulls block `me` of each peer's source;
 *             barrier
 *  reduce     small or 2 PEs: barrier; every PE reduces the whole vector
 *             from every peer into its dest (in place: into a private
 *             buffer, copied out after a barrier); barrier.
 *             large, 3+ PEs (SYMM_REDUCE_SLICE_MIN): barrier; each PE
 *             reduces its 1/n slice from every peer into its dest; barrier;
 *             each pulls the other slices from their owners; barrier.
 * The closing barrier makes source and dest reusable on return and lets
 * back-to-back collectives run without the caller synchronising.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "coll/coll.h"
#include "mem/seg.h"
#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/log.h"

#define REDUCE_CHUNK 8192

/* Copy n bytes of group member i's copy of the symmetric addr to dst. */
static void pull(symm_group_t *g, void *dst, const void *addr, size_t n, int i,
                 const char *routine)
{
    if (n == 0)
        return;
    if (i == g->me) {
        if (dst != addr)
            memmove(dst, addr, n);
        return;
    }
    symm_rma_get(NULL, dst, addr, n, symm_group_pe(g, i), 0, routine);
}

void symm_coll_broadcast(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                         int update_root, const char *routine)
{
    symm_group_barrier(g, 0);
    if (nbytes != 0) {
        if (g->me != root)
            pull(g, dest, source, nbytes, root, routine);
        else if (update_root && dest != source)
            memmove(dest, source, nbytes);
    }
    symm_group_barrier(g, 0);
}

void symm_coll_fcollect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    symm_group_barrier(g, 0);
    for (int k = 0; k < g->size && nbytes != 0; k++) {
        int j = (g->me + k) % g->size; /* start at my own block: spread the readers */
        pull(g, (char *)dest + (size_t)j * nbytes, source, nbytes, j, routine);
    }
    symm_group_barrier(g, 0);
}

void symm_coll_collect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                       const char *routine)
{
    __atomic_store_n(g->count, (uint64_t)nbytes, __ATOMIC_RELAXED);
    symm_group_barrier(g, 0);
    size_t off = 0;
    for (int j = 0; j < g->size; j++) {
        uint64_t n;
        if (j == g->me)
            n = nbytes;
        else
            pull(g, &n, g->count, sizeof(n), j, routine);
        pull(g, (char *)dest + off, source, n, j, routine);
        off += n;
    }
    symm_group_barrier(g, 0);
}

void symm_coll_alltoall(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    symm_group_barrier(g, 0);
    for (int k = 0; k < g->size && nbytes != 0; k++) {
        int j = (g->me + k) % g->size;
        pull(g, (char *)dest + (size_t)j * nbytes, (const char *)source + (size_t)g->me * nbytes,
             nbytes, j, routine);
    }
    symm_group_barrier(g, 0);
}

void symm_coll_alltoalls(symm_group_t *g, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t elem, const char *routine)
{
    symm_group_barrier(g, 0);
    for (int j = 0; j < g->size && nelems != 0; j++) {
        char *d = (char *)dest + (ptrdiff_t)((size_t)j * nelems) * dst * (ptrdiff_t)elem;
        const char *src =
            (const char *)source + (ptrdiff_t)((size_t)g->me * nelems) * sst * (ptrdiff_t)elem;
        if (j == g->me) {
            for (size_t k = 0; k < nelems; k++)
                memmove(d + (ptrdiff_t)k * dst * (ptrdiff_t)elem,
                        src + (ptrdiff_t)k * sst * (ptrdiff_t)elem, elem);
        } else {
            symm_rma_iget(NULL, d, src, dst, sst, nelems, elem, symm_group_pe(g, j), routine);
        }
    }
    symm_group_barrier(g, 0);
}

/* Copy with non-temporal stores where possible. The reduce slices are read
 * by every peer after they are written, so their cache lines sit shared in
 * other cores; ordinary stores then upgrade them one by one (measured here:
 * 70-320 us for a 1 MiB reduce), streaming stores do not (~60 us). */
static void copy_nt(char *dst, const char *src, size_t n)
{
#if defined(__SSE2__)
    if ((((uintptr_t)dst | (uintptr_t)src) & 15) == 0) {
        size_t i = 0;
        for (; i + 16 <= n; i += 16)
            _mm_stream_si128((__m128i *)(void *)(dst + i),
                             _mm_load_si128((const __m128i *)(const void *)(src + i)));
        if (i < n)
            memcpy(dst + i, src + i, n - i);
        _mm_sfence();
        return;
    }
#endif
    memcpy(dst, src, n);
}

/* out[0..count) = reduction over every member of their source[first..),
 * taking members in order from j0 (then j0+1, ... mod size), a chunk at a
 * time so partial results stay in cache. `stream` (peers will read out, see
 * copy_nt): each chunk is built in a private buffer and streamed out, so
 * out may be my own source (in place). Otherwise out must not overlap any
 * source. Unmapped members' data is fetched ahead, REMOTE_SPAN bytes of
 * every one of them with non-blocking gets and one quiet, so a reduction
 * across nodes makes a round trip per REMOTE_SPAN, not per chunk. */
#define REMOTE_SPAN (256u << 10)

static void reduce_range(symm_group_t *g, char *out, const void *source, size_t first,
                         size_t count, size_t elem, symm_reduce_fn op, int j0, int stream,
                         const char *routine)
{
    int n = g->size, remote = 0;
    size_t per = REDUCE_CHUNK / elem;
    if (n == 1) {
        if (out != (const char *)source + first * elem && count != 0)
            memmove(out, (const char *)source + first * elem, count * elem);
        return;
    }
    for (int k = 0; k < n; k++)
        remote += k != g->me && symm_seg_peer_addr(g->s, source, symm_group_pe(g, k)) == NULL;
    _Alignas(64) char acc[REDUCE_CHUNK];
    const char *src = source;
    const char *base_here[64];
    const char **base = n <= 64 ? base_here : malloc(sizeof(char *) * (size_t)n);
    char *fetched = remote ? malloc((size_t)n * REMOTE_SPAN) : NULL;
    if (base == NULL || (remote && fetched == NULL))
        symm_fatal(routine, "out of memory for a reduction's buffers");
    size_t span = remote ? REMOTE_SPAN / elem : count;
    for (size_t s0 = 0; s0 < count; s0 += span) {
        size_t sc = count - s0 < span ? count - s0 : span;
        size_t sat = (first + s0) * elem;
        /* base[j]: member j's source at element first + s0, here. */
        for (int j = 0; j < n; j++) {
            const char *p = j == g->me ? src + sat
                                       : symm_seg_peer_addr(g->s, src + sat, symm_group_pe(g, j));
            if (p == NULL) {
                p = fetched + (size_t)j * REMOTE_SPAN;
                symm_rma_get(NULL, (char *)p, src + sat, sc * elem, symm_group_pe(g, j), 1,
                             routine);
            }
            base[j] = p;
        }
        if (remote)
            symm_quiet(g->s, &g->s->ctx_default);
        for (size_t d = 0; d < sc; d += per) {
            size_t c = sc - d < per ? sc - d : per, done = s0 + d;
            /* Streamed: build the chunk privately, then stream it out. Else
             * accumulate in place (a memcpy of each chunk from a stack buffer
             * ran at a fraction of memory speed here: rep movsb on this EPYC). */
            char *o = stream ? acc : out + done * elem;
            op(o, base[j0] + d * elem, base[(j0 + 1) % n] + d * elem, c);
            for (int k = 2; k < n; k++)
                op(o, o, base[(j0 + k) % n] + d * elem, c);
            if (stream)
                copy_nt(out + done * elem, acc, c * elem);
        }
    }
    free(fetched);
    if (base != base_here)
        free(base);
}

void symm_coll_reduce(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                      symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    int n = g->size;
    /* Whole vector on every PE: small vectors, and 2 PEs, where slicing
     * moves as many bytes between the cores but adds a barrier. */
    if (n <= 2 || bytes < g->s->cfg.reduce_slice_min || (size_t)n > count) {
        const char *d = dest, *src = source;
        int overlap = d < src + bytes && src < d + bytes;
        if (!overlap) {
            /* Peers read only my source: I may fill dest as I go. */
            symm_group_barrier(g, 0);
            reduce_range(g, dest, source, 0, count, elem, op, 0, 0, routine);
            symm_group_barrier(g, 0);
            return;
        }
        char stackbuf[4096];
        char *tmp = bytes <= sizeof(stackbuf) ? stackbuf : malloc(bytes);
        if (tmp == NULL)
            symm_fatal(routine, "out of memory for a %zu-byte reduction buffer", bytes);
        symm_group_barrier(g, 0);
        /* Every PE reduces in the same order, so all get identical bits. */
        reduce_range(g, tmp, source, 0, count, elem, op, 0, 0, routine);
        /* Everyone has read my source before I overwrite it (in place). */
        symm_group_barrier(g, 0);
        if (bytes != 0)
            memcpy(dest, tmp, bytes);
        if (tmp != stackbuf)
            free(tmp);
        return;
    }
    size_t lo = count * (size_t)g->me / (size_t)n, hi = count * (size_t)(g->me + 1) / (size_t)n;
    symm_group_barrier(g, 0);
    /* Each slice is reduced once, by its owner, starting with its own
     * source (safe in place), and then copied: all PEs get identical bits. */
    reduce_range(g, (char *)dest + lo * elem, source, lo, hi - lo, elem, op, g->me, 1,
                 routine);
    symm_group_barrier(g, 0);
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        size_t jlo = count * (size_t)j / (size_t)n, jhi = count * (size_t)(j + 1) / (size_t)n;
        pull(g, (char *)dest + jlo * elem, (char *)dest + jlo * elem, (jhi - jlo) * elem, j,
             routine);
    }
    symm_group_barrier(g, 0);
}
