/*
 * shmemx.h - symm extensions to OpenSHMEM. Everything here is prefixed
 * shmemx_ and may change between releases.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>
#include <symm_stream.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary point, monotonic, for timing. */
SYMM_API double shmemx_wtime(void);
/* Current size in bytes of this PE's symmetric heap (it grows on demand up
 * to SYMM_MAX_SYMMETRIC_SIZE) and the bytes still free in it. */
SYMM_API size_t shmemx_heap_size(void);
SYMM_API size_t shmemx_heap_free(void);

#ifdef __cplusplus
}
#endif
#endif
