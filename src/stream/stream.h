/*
 * stream.h - CPU streams (internal): a FIFO of work items per stream, run in
 * order by the stream's own progress thread.
 *
 * stream.c owns the queue, the thread and the streams' lifecycle; work.c
 * owns what an item does (symm_stream_exec runs one item on the thread).
 * The public entry points (api/api_stream.c) check their arguments on the
 * caller's thread, resolve team handles, and enqueue: the engine never looks
 * anything up in the API's tables. The queue is a list of fixed blocks of
 * items: producers append under the stream's mutex; the thread reads items
 * without the lock, up to the count it last read with acquire order. Nothing here is on symm's RMA
 * hot path, and nothing here runs before shmem_init (no thread may exist while init remaps the
 * program's globals).
 *
 * Layer stream/ (below core/, above coll/; docs/ARCHITECTURE.md): the CPU
 * stream engine. It includes and calls only its own directory and those below
 * it (scripts/check_layers.sh).
 */
#ifndef SYMM_STREAM_INTERNAL_H
#define SYMM_STREAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "symm_stream.h"
#include "runtime/status.h"

typedef enum symm_stream_op {
    SYMM_STREAM_PUT,     /* dst, src, n, pe */
    SYMM_STREAM_GET,     /* dst, src, n, pe */
    SYMM_STREAM_SIGNAL,  /* dst = signal word, value, arg = sig_op, pe */
    SYMM_STREAM_WAIT,    /* dst = signal word, value, arg = aclshmem cmp */
    SYMM_STREAM_BARRIER, /* dst = struct symm_team * (NULL: world), resolved by the caller */
    SYMM_STREAM_QUIET,
    SYMM_STREAM_SYNC, /* quiet, then wake synchronize's waiters */
} symm_stream_op_t;

/* One unit of work: the arguments of the call that enqueued it, copied. */
typedef struct symm_stream_item {
    uint8_t op;
    int32_t pe;
    int32_t value;
    int32_t arg;
    void *dst;
    const void *src;
    size_t n;
    const char *routine; /* for messages from the thread */
} symm_stream_item_t;

/* The stream named by an API argument: NULL is the default stream (made on
 * first use). Fatal if the library is not initialised or h is not a live
 * stream. */
struct symm_stream *symm_stream_get(void *h, const char *routine);

/* Append a copy of *item; returns its ticket (1 for a stream's first item).
 * Never blocks on the thread; fatal if memory runs out. */
uint64_t symm_stream_enqueue(struct symm_stream *st, const symm_stream_item_t *item);

/* Run one item on the stream's thread (work.c). */
void symm_stream_exec(const symm_stream_item_t *item);

/* The public lifecycle calls, routine naming the caller in messages; h NULL
 * is the default stream. 0, or -1 after an error report. */
SYMM_MUST_CHECK int symm_stream_create(struct symm_stream **st_p, const char *routine);
SYMM_MUST_CHECK int symm_stream_destroy(void *h, const char *routine);
SYMM_MUST_CHECK int symm_stream_synchronize(void *h, const char *routine);

/* Drain, join and free every live stream (the default one too). Registered
 * as a DRAIN hook of the instance when a stream is made, so finalize runs it
 * before its final barrier; from the user's thread. */
void symm_stream_fini_all(void);

#endif
