/*
 * coll_bufpool.h - the private buffers of the collectives (coll/ internal;
 * coll_bufpool.c): blocks that messages are received into or sent from, and
 * copies that keep a source apart from its dest, kept between collectives.
 */
#ifndef SYMM_COLL_BUFPOOL_H
#define SYMM_COLL_BUFPOOL_H

#include <stddef.h>

#include "coll/coll.h"

#pragma GCC visibility push(hidden)

/* A private buffer of n bytes (a kept one where one is free); fatal if out
 * of memory. */
void *symm_coll_buf_get(symm_group_t *g, size_t n, const char *routine);

/* Give back a buffer of symm_coll_buf_get (NULL: nothing). */
void symm_coll_buf_put(void *p);

/* A private copy of source if it overlaps [dest, dest + dlen): receiving
 * into dest would overwrite blocks not yet sent (the spec leaves such
 * calls undefined; they still work). *tmp is what to give back
 * (symm_coll_buf_put). */
const void *symm_coll_unaliased(symm_group_t *g, const void *source, size_t slen, const void *dest,
                                size_t dlen, void **tmp, const char *routine);

#pragma GCC visibility pop

#endif
