/*
 * watch.h - the watcher: dead peers, early exits, hangs and mismatched
 * collectives end the job with a report naming the PE and what every PE
 * was doing (core/watch.c says how).
 */
#ifndef SYMM_WATCH_H
#define SYMM_WATCH_H

#include "runtime/state.h"

/* Start watching the node-local peers of s (collective in effect: every PE
 * calls it after init's last barrier, when every record is written).
 * Registers its own stop as a RELEASE hook. */
int symm_watch_start(symm_instance_t *s);

/* This PE exits with status != 0 before finalize_name: mark it, and print the
 * one report, naming what the others are doing. */
void symm_watch_exit_report(symm_instance_t *s, int status, const char *finalize_name);

#endif
