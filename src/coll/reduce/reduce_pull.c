/*
 * reduce_pull.c - the reductions of a node-local group (every member
 * mapped), both read straight from the peers' sources between an opening
 * (a barrier, or in a team every member's stamp: coll_stage.h) and a
 * closing barrier,
 * always in member order (identical bits everywhere):
 *   whole  small vectors or 2 PEs: every member reduces the whole vector
 *          from every peer into its dest (in place: into a private buffer,
 *          copied out after a barrier)
 *   slice  large vectors, 3+ PEs (SYMM_REDUCE_SLICE_MIN): each member
 *          reduces its 1/n slice from every peer into its dest; a second
 *          opening; each pulls the other slices from their owners
 * Both share reduce_range, the chunked reduction loop.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_pull.h"
#include "coll/coll_stage.h"
#include "mem/seg.h"
#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/log.h"

/* Copy with non-temporal stores where possible. The reduce slices are read
 * by every peer after they are written, so their cache lines sit shared in
 * other cores; ordinary stores then upgrade them one by one, streaming
 * stores do not. */
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

static void reduce_range(symm_group_t *g, char *out, const void *source, size_t first, size_t count,
                         size_t elem, symm_reduce_fn op, int j0, int stream, const char *routine)
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
            const char *p =
                j == g->me ? src + sat : symm_seg_peer_addr(g->s, src + sat, symm_group_pe(g, j));
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
             * runs below memory speed: rep movsb on AMD EPYC). */
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

/* The opening: every member's source may be read (a barrier, or every
 * member's stamp; coll_stage.h). */
static void open_all(symm_group_t *g)
{
    uint64_t open = symm_coll_pull_open(g);
    for (int j = 0; j < g->size; j++)
        symm_coll_pull_ready(g, j, open);
}

/* Whole vector on every member: small vectors, and 2 PEs, where slicing
 * moves as many bytes between the cores but adds a barrier. */
void symm_coll_reduce_pull_whole(symm_group_t *g, void *dest, const void *source, size_t count,
                                 size_t elem, symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    const char *d = dest, *src = source;
    int overlap = d < src + bytes && src < d + bytes;
    if (!overlap) {
        /* Peers read only my source: I may fill dest as I go. */
        open_all(g);
        reduce_range(g, dest, source, 0, count, elem, op, 0, 0, routine);
        symm_group_barrier(g, 0);
        return;
    }
    /* The private result comes from the pool, kept between collectives: a
     * fresh malloc of a large vector is a fresh mapping whose page faults
     * cost more than the reduction (docs/performance.md). */
    char stackbuf[4096];
    char *tmp = bytes <= sizeof(stackbuf) ? stackbuf : symm_coll_buf_get(g, bytes, routine);
    open_all(g);
    /* Every PE reduces in the same order, so all get identical bits. */
    reduce_range(g, tmp, source, 0, count, elem, op, 0, 0, routine);
    /* Everyone has read my source before I overwrite it (in place). */
    symm_group_barrier(g, 0);
    if (bytes != 0)
        memcpy(dest, tmp, bytes);
    if (tmp != stackbuf)
        symm_coll_buf_put(tmp);
}

/* Sliced: each member reduces its 1/n slice, then pulls the others'. */
void symm_coll_reduce_pull_slice(symm_group_t *g, void *dest, const void *source, size_t count,
                                 size_t elem, symm_reduce_fn op, const char *routine)
{
    int n = g->size;
    size_t lo = count * (size_t)g->me / (size_t)n, hi = count * (size_t)(g->me + 1) / (size_t)n;
    open_all(g);
    /* Each slice is reduced once, by its owner, starting with its own
     * source (safe in place), and then copied: all PEs get identical bits. */
    reduce_range(g, (char *)dest + lo * elem, source, lo, hi - lo, elem, op, g->me, 1, routine);
    /* My slice is done: a second opening (stamp or barrier). */
    uint64_t done = symm_coll_pull_open(g);
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        symm_coll_pull_ready(g, j, done);
        size_t jlo = count * (size_t)j / (size_t)n, jhi = count * (size_t)(j + 1) / (size_t)n;
        pull(g, (char *)dest + jlo * elem, (char *)dest + jlo * elem, (jhi - jlo) * elem, j,
             routine);
    }
    symm_group_barrier(g, 0);
}
