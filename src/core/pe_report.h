/*
 * pe_report.h - what every PE is doing, in words: the one report a dead
 * peer, a hang or an early exit prints (core/pe_report.c says how it reads
 * the PEs' records).
 */
#ifndef SYMM_PE_REPORT_H
#define SYMM_PE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/pestatus.h"
#include "runtime/state.h"
#include "runtime/status.h"

/* What a report knows of a PE: its record (mapped here, or a copy read
 * through the network transport), the current value of the word it waits
 * on (its mapped copy, or a copy read), whether the record's times are
 * this kernel's clock, and why there is no record. */
typedef struct symm_pe_view {
    const symm_pe_status_t *r;
    const void *word;
    int same_clock;
    const char *none;
} symm_pe_view_t;

/* Room for a report on every PE, made before it is needed: the watcher
 * thread calls no malloc (a static program's remapped libc has deadlocked
 * a second thread's first malloc there). */
typedef struct symm_report_room {
    symm_pe_view_t *views; /* [n_pes] */
    char (*what)[200];     /* [n_pes] */
    char *done;            /* [n_pes] */
    char *text;
    size_t text_cap;
} symm_report_room_t;

SYMM_MUST_CHECK int symm_report_room_alloc(symm_report_room_t *r, int n_pes);
void symm_report_room_free(symm_report_room_t *r);

/* "SIGSEGV" (thread-local buffer). */
const char *symm_sig_name(int sig);

/* The view of a PE whose record is mapped here (or says why not). */
symm_pe_view_t symm_pe_view_mapped(const symm_instance_t *s, int pe);

/* Appends "; PEs 0,2,3 in X; PE 4 outside symm" to buf for every PE but
 * skip, grouping PEs that do the same (gone: [n_pes] processes ended, or
 * NULL); what and done: room for n_pes. Returns the length appended. */
int symm_report_summary(const symm_instance_t *s, int skip, const int *gone,
                        const symm_pe_view_t *views, uint64_t now, char *buf, size_t cap,
                        char (*what)[200], char *done);

/* One line or block to stderr in one write, so PEs' reports never mix. */
void symm_report_emit(const char *text);

/* This PE has waited hang_s in one call: one report for the job (the
 * first PE to claim it, ops/fail_report.h) naming what every PE is doing,
 * then the PE ends. */
__attribute__((noreturn)) void symm_report_hang(symm_instance_t *s, symm_report_room_t *room,
                                                const int *gone, uint64_t now, double hang_s);

/* This PE exits with status != 0 before finalize_name: mark it, and print
 * the one report, naming what the others are doing. */
void symm_report_exit(symm_instance_t *s, int status, const char *finalize_name);

#endif
