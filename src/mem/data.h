/*
 * data.h - the program's global and static data as a symmetric segment.
 *
 * Once per process, the writable data of the main executable (.data, .bss)
 * is moved onto a memfd and mapped back at the same address, so node-local
 * peers can map that memfd and reach our globals with loads and stores.
 */
#ifndef SYMM_DATA_H
#define SYMM_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/state.h"
#include "runtime/status.h"

typedef struct symm_data_layout {
    int fd;                  /* memfd backing the ranges; -1 if not remapped */
    size_t size;             /* bytes of the memfd (sum of range lengths) */
    int n_ranges;
    symm_data_range_t ranges[SYMM_MAX_DATA_RANGES];
    uint64_t signature;      /* hash of range lengths and link-time addresses */
} symm_data_layout_t;

/* Remap the executable's writable data onto a memfd, once per process; later
 * calls return the same layout. Must run before any thread exists. */
SYMM_MUST_CHECK int symm_data_remap(const symm_data_layout_t **layout_p);

#endif
