/*
 * symm_stream.h - CPU streams: the host equivalent of CANN's device streams.
 *
 * A stream is a FIFO of communication work that a progress thread of its own
 * executes in order, so the calling thread computes while its communication
 * proceeds. The enqueue calls return at once; shmemx_stream_synchronize waits
 * until everything enqueued so far has executed and completed (quiet).
 *
 * The aclshmem half takes CANN's signatures (aclshmemx_*_on_stream with an
 * aclrtStream), so code written for CANN's shmem builds unchanged on a host
 * without an Ascend runtime: aclrtStream is `void *` there as here, and a
 * shmemx_stream_t converts to it. A NULL stream is the default stream, made
 * on first use.
 *
 * Semantics of the work on one stream:
 *  - items run one after another, in enqueue order; each item completes
 *    locally before the next starts (a put's source may be reused, a get's
 *    data has arrived);
 *  - a signal op is ordered after every earlier put of its stream (fence), so
 *    a PE that sees the signal sees the data;
 *  - quiet_on_stream, barrier_on_stream, handle_wait and synchronize complete
 *    every earlier put of the stream *and* of the host (this PE's default
 *    context), as CANN's quiet covers what the host issued;
 *  - different streams are not ordered against each other.
 *
 * Arguments are copied at enqueue; the memory they point to is not. The
 * source of a put, the destination of a get and a signal word must stay valid
 * (and a put's source unchanged) until the stream has executed the item:
 * after shmemx_stream_synchronize at the latest.
 *
 * Rules the caller keeps (the library checks none of them):
 *  - Threads. A stream's thread calls RMA, atomics and waits concurrently
 *    with the caller's threads, as under SHMEM_THREAD_MULTIPLE (symm's
 *    mapped-path RMA and atomics are thread-safe at every level). Collectives
 *    are the exception: while a stream holds a barrier (barrier_on_stream,
 *    barrier_all_on_stream, handle_wait) that has not executed, no other
 *    thread of the PE may call a collective (barrier, sync, broadcast,
 *    shmem_malloc/free, team split, ...) nor put a barrier on another stream:
 *    a PE runs one collective at a time. Synchronize first.
 *  - shmem_malloc/realloc/free/shmem_finalize only while no stream holds
 *    unexecuted work (synchronize first): they change or unmap the heap the
 *    stream's thread addresses.
 *  - Destroy streams before shmem_finalize. A stream still alive then is
 *    harmless while it is empty (its thread sleeps until the process ends);
 *    work left on it races with finalize. shmemx_stream_destroy(NULL) ends
 *    the default stream.
 *  - Streams are created after shmem_init (their thread must not exist while
 *    init remaps the program's globals), and do not survive fork().
 *
 * Placement: a stream's thread needs a core of its own to overlap anything.
 * When the creating thread is pinned to one CPU (oshrun pins each PE when
 * there are enough CPUs), the stream's thread may run on every other CPU;
 * otherwise it inherits the creator's CPU set. With as many PEs as cores it
 * takes turns with some PE's compute, and overlap gains little.
 *
 * Errors in arguments (PE out of range, non-symmetric address, bad operator,
 * a destroyed stream) are fatal at enqueue, naming the routine.
 */
#ifndef SYMM_STREAM_H
#define SYMM_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct symm_stream *shmemx_stream_t;

/* CANN's acl_rt.h: typedef void *aclrtStream. Define SYMM_HAVE_ACL_RUNTIME
 * when that header is included too (the repeated typedef is also valid C11
 * and C++). */
#ifndef SYMM_HAVE_ACL_RUNTIME
typedef void *aclrtStream;
#endif

#include "aclshmem_types.h"

/* ---- streams ------------------------------------------------------------ */
/* Create a stream and its progress thread. 0 on success (*stream_p set), else
 * non-zero (thread or memory unavailable; reported on stderr). */
SYMM_API int shmemx_stream_create(shmemx_stream_t *stream_p);
/* Run everything enqueued, complete it (quiet), end the thread, free the
 * stream. NULL: the default stream, if it was made. 0 on success. */
SYMM_API int shmemx_stream_destroy(shmemx_stream_t stream);
/* Wait until everything enqueued before the call has executed and completed
 * (quiet). NULL: the default stream. 0 on success. */
SYMM_API int shmemx_stream_synchronize(shmemx_stream_t stream);

/* ---- aclshmem work on a stream (CANN's signatures) ---------------------- */
/* Copy elem_size bytes from local src to symmetric dst on PE pe. */
SYMM_API void aclshmemx_putmem_on_stream(void *dst, void *src, size_t elem_size, int32_t pe,
                                         aclrtStream stream);
/* Copy elem_size bytes from symmetric src on PE pe to local dst. */
SYMM_API void aclshmemx_getmem_on_stream(void *dst, void *src, size_t elem_size, int32_t pe,
                                         aclrtStream stream);
/* Set (ACLSHMEM_SIGNAL_SET) or add to (ACLSHMEM_SIGNAL_ADD) the symmetric
 * 32-bit signal word sig_addr on PE pe, after the stream's earlier puts. */
SYMM_API void aclshmemx_signal_op_on_stream(int32_t *sig_addr, int32_t signal, int sig_op, int pe,
                                            aclrtStream stream);
/* Hold the stream (not the caller) until this PE's *sig_addr compares to
 * cmp_val as cmp (ACLSHMEM_CMP_*) says. */
SYMM_API void aclshmemx_signal_wait_until_on_stream(int32_t *sig_addr, int cmp, int32_t cmp_val,
                                                    aclrtStream stream);
/* Barrier of team (ACLSHMEM_TEAM_WORLD, or an aclshmem team id where symm's
 * aclshmem layer is present), with completion of earlier puts, on the
 * stream. Collective: every PE of the team puts it on one of its streams. */
SYMM_API void aclshmemx_barrier_on_stream(aclshmem_team_t team, aclrtStream stream);
SYMM_API void aclshmemx_barrier_all_on_stream(aclrtStream stream);
/* Complete every earlier put of the stream and of the host (default
 * context), on the stream. */
SYMM_API void aclshmemx_quiet_on_stream(aclrtStream stream);
/* As CANN: complete earlier operations towards the PEs of handle.team_id,
 * then meet them in a barrier; on the stream, and collective over that team
 * (every member calls it, in the same order). Equal to quiet + barrier. */
SYMM_API void aclshmemx_handle_wait(aclshmem_handle_t handle, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif
