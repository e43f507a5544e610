/*
 * shm.c - collective algorithms. Node-local groups pull: each PE reads what
 * it needs from its peers' symmetric buffers, one memcpy from where the data
 * is to where it goes. A group with members on other nodes (or every group
 * under SYMM_TRANSPORT=ucx) pushes where the transport can: blocks travel
 * as messages into the receivers' dest and each receiver counts arrivals on
 * a symmetric word of the group (UCX delivers large blocks by rendezvous
 * straight into place, several times faster over tcp than its emulated
 * gets); a mapped member of such a group gets a memcpy and a release add.
 * What has no push form pulls with RMA gets.
 *
 *  broadcast  pull: barrier; every PE pulls the root's source; barrier
 *             push: barrier; binomial tree from the root; quiet; barrier
 *  fcollect   pull: barrier; every PE pulls each peer's block; barrier
 *             push: barrier; every PE pushes its block to every peer
 *             (next one first); waits for n-1 arrivals; quiet; barrier
 *  collect    publish my count; barrier; exclusive scan of the counts read
 *             from every peer gives my offsets; pull; barrier
 *  alltoall   as fcollect, block j of the source going to PE j
 *  reduce     small or 2 PEs: barrier; every PE reduces the whole vector
 *             from every peer into its dest (in place: into a private
 *             buffer, copied out after a barrier); barrier.
 *             large, 3+ PEs (SYMM_REDUCE_SLICE_MIN): barrier; each PE
 *             reduces its 1/n slice from every peer into its dest; barrier;
 *             each pulls the other slices from their owners (push: each
 *             pushes its slice to every peer); barrier.
 * The opening barrier keeps writers out of a dest its owner may still read;
 * the closing one makes source and dest reusable on return and lets
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
#include "runtime/status.h"

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

/* ---- pushes: groups with members on other nodes -------------------------- */

/* Whether this collective pushes: some member is unmapped, the transport
 * has messages, and dest is symmetric (the spec requires it; a pull works
 * with any dest, so a program that got it wrong still runs). */
static int use_push(const symm_group_t *g, const void *dest)
{
    size_t off, room;
    return !g->all_mapped && g->s->net != NULL && g->s->net->push != NULL &&
           symm_seg_translate(g->s, dest, &off, &room) != SYMM_SEG_NONE;
}

/* Deliver n bytes from src to dest (a symmetric address) on member i and
 * count one arrival there: a copy and a release add for a mapped member, a
 * transport push (complete at the next quiet) otherwise. */
static void push(symm_group_t *g, void *dest, const void *src, size_t n, int i,
                 const char *routine)
{
    symm_instance_t *s = g->s;
    int pe = symm_group_pe(g, i);
    char *r = symm_seg_peer_addr(s, dest, pe);
    if (r != NULL) {
        memcpy(r, src, n);
        /* A CPU atomic even under SYMM_AMO_NET (ops/amo.h): network peers
         * count arrivals here only through pushes whose add the owner's
         * CPU applies (ucx/am.c), so this word has one kind of agent. */
        __atomic_fetch_add((uint64_t *)symm_seg_peer_addr(s, g->arrive, pe), 1,
                           __ATOMIC_RELEASE);
        return;
    }
    size_t off = 0, foff = 0, room;
    int seg = symm_seg_translate(s, dest, &off, &room);
    int fseg = symm_seg_translate(s, g->arrive, &foff, &room);
    int rc = s->net->push(&s->ctx_default, seg, off, src, n, fseg, foff, pe);
    if (rc != 0)
        symm_fatal(routine, "sending %zu bytes to PE %d failed: %s", n, pe,
                   symm_status_str((symm_status_t)rc));
}

/* Wait until k blocks have arrived here, and count them off: the word
 * counts arrivals across collectives, and one that ends before a peer's
 * push for the next has landed (the closing barrier orders them) leaves it
 * at zero. */
static void wait_arrivals(symm_group_t *g, uint64_t k)
{
    unsigned polls = 0;
    while (__atomic_load_n(g->arrive, __ATOMIC_ACQUIRE) < k)
        symm_wait_backoff(g->s, &polls);
    __atomic_fetch_sub(g->arrive, k, __ATOMIC_RELAXED);
}

/* Binomial tree from the root: each member waits for the block from its
 * parent, then forwards it to its children, farthest first. The spec has
 * dest ready on every member before any calls, but programs (test suites
 * among them) check dest after one collective and call the next at once,
 * which is only safe if nobody writes a dest before its owner has entered:
 * hence the opening barrier, as with pulls. The closing one (after a quiet:
 * the pushes are complete) makes source and dest reusable. */
static void broadcast_push(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                           int root, int update_root, const char *routine)
{
    int n = g->size, v = (g->me - root + n) % n, mask = 1;
    const void *from = source;
    symm_group_barrier(g, 0);
    if (v != 0) {
        wait_arrivals(g, 1);
        from = dest;
    } else if (update_root && dest != source) {
        memmove(dest, source, nbytes);
    }
    while (mask < n && !(v & mask))
        mask <<= 1;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            push(g, dest, from, nbytes, (v + mask + root) % n, routine);
    symm_group_barrier(g, 1);
}

/* Send nbytes to `at` (a symmetric address) on every other member, from
 * src + j*stride for member j (stride 0: the same block to all), starting
 * with the next member so that no member receives from everyone at once;
 * wait for the n-1 blocks sent to me; quiet (my pushes are complete) and
 * the closing barrier. */
static void push_to_all(symm_group_t *g, void *at, const char *src, size_t stride,
                        size_t nbytes, const char *routine)
{
    int n = g->size;
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        push(g, at, src + (size_t)j * stride, nbytes, j, routine);
    }
    wait_arrivals(g, (uint64_t)(n - 1));
    symm_group_barrier(g, 1);
}

/* fcollect (per_peer 0: my whole source to every member) and alltoall
 * (per_peer 1: block j of my source to member j), each landing at offset
 * me*nbytes of dest. */
static void exchange_push(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                          int per_peer, const char *routine)
{
    char *mine = (char *)dest + (size_t)g->me * nbytes;
    size_t stride = per_peer ? nbytes : 0;
    symm_group_barrier(g, 0); /* as in broadcast_push */
    memmove(mine, (const char *)source + (size_t)g->me * stride, nbytes);
    push_to_all(g, mine, source, stride, nbytes, routine);
}

/* ---- the collectives -------------------------------------------------- */

void symm_coll_broadcast(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                         int update_root, const char *routine)
{
    if (nbytes != 0 && use_push(g, dest)) {
        broadcast_push(g, dest, source, nbytes, root, update_root, routine);
        return;
    }
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
    if (nbytes != 0 && use_push(g, dest)) {
        exchange_push(g, dest, source, nbytes, 0, routine);
        return;
    }
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
    if (nbytes != 0 && use_push(g, dest)) {
        exchange_push(g, dest, source, nbytes, 1, routine);
        return;
    }
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
    if (use_push(g, dest)) {
        /* Every source has been read: send my slice to every member. */
        push_to_all(g, (char *)dest + lo * elem, (char *)dest + lo * elem, 0, (hi - lo) * elem,
                    routine);
        return;
    }
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        size_t jlo = count * (size_t)j / (size_t)n, jhi = count * (size_t)(j + 1) / (size_t)n;
        pull(g, (char *)dest + jlo * elem, (char *)dest + jlo * elem, (jhi - jlo) * elem, j,
             routine);
    }
    symm_group_barrier(g, 0);
}
