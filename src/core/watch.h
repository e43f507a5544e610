/*
 * watch.h - the watcher: dead peers, early exits, hangs and mismatched
 * collectives end the job with a report naming the PE and what every PE
 * was doing (core/watch.c says how).
 */
#ifndef SYMM_WATCH_H
#define SYMM_WATCH_H

#include "runtime/state.h"
#include "runtime/status.h"

/* Start watching the node-local peers of s (collective in effect: every PE
 * calls it after init's last barrier, when every record is written).
 * Registers its own stop as a RELEASE hook. */
SYMM_MUST_CHECK int symm_watch_start(symm_instance_t *s);

#endif
