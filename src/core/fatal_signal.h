/*
 * fatal_signal.h - handlers that record a fatal signal in the PE's status
 * record (and print a backtrace on a crash) before the default action
 * (core/fatal_signal.c).
 */
#ifndef SYMM_FATAL_SIGNAL_H
#define SYMM_FATAL_SIGNAL_H

#include "runtime/state.h"

/* Install the handlers for s (where the action is still the default). */
void symm_fatal_signals_catch(symm_instance_t *s);
/* s ends: the handlers record for no instance any more. */
void symm_fatal_signals_release(symm_instance_t *s);

#endif
