/*
 * fail_report.h - one report per job for a failure several PEs see.
 *
 * A hang is seen by the watcher of every PE that waits (core/watch.c), a
 * collective mismatch by every member that compares (team/team.c): each
 * would print its own block. The first to claim the job's report prints
 * it; the others defer. The claim has two levels: the node's word (claim
 * in the record of local index 0, a CPU compare-and-swap among the node's
 * mapped PEs), then, where the job has PEs this node does not map, the
 * job's (job_claim in PE 0's record), taken by the atomic agent every PE
 * uses on PE 0's memory (runtime/atomics.h): a CPU compare-and-swap where
 * PE 0 is mapped here and the CPU applies atomics, else the network
 * transport's bounded peek. A PE 0 that does not answer within
 * SYMM_REPORT_CLAIM_MS leaves the report to the PE that asked: two reports
 * are better than none.
 *
 * The PE that reports, once its report is out, marks the first record of
 * every other node (reported_by, through the transport), so that their
 * PEs end quietly: a deferring one at once, the others when their watcher
 * next looks or their connection to an ended PE fails
 * (symm_pe_report_elsewhere). A deferring PE ends when the report is out
 * (marked, or its node's claimer ended), or after SYMM_REPORT_DEFER_MS.
 *
 * Layer ops/ (below team/, above transport/): cold paths only.
 */
#ifndef SYMM_FAIL_REPORT_H
#define SYMM_FAIL_REPORT_H

#include "runtime/state.h"

#define SYMM_REPORT_CLAIM_MS 500
#define SYMM_REPORT_DEFER_MS 3000

/* The node's word alone: 1 if this PE took it now (a death, an early exit:
 * only this node's watchers see those). 0 where another PE holds it, or
 * local index 0 is not mapped here. */
int symm_report_claim_node(const symm_instance_t *s);

/* The node's word, then the job's: 1 if this PE prints the job's report,
 * 0 if another PE does (then symm_report_defer). A report already out
 * (reported_by) counts as another's. */
int symm_report_claim(symm_instance_t *s);

/* After this PE's report is out: mark every other node's first record,
 * with the status the job ends with. */
void symm_report_mark_others(symm_instance_t *s, int status);

/* Another PE reports: end quietly with status once its report is out, or
 * after SYMM_REPORT_DEFER_MS (running the transport's progress meanwhile,
 * so this PE's memory stays readable and its peers' claims answered). */
__attribute__((noreturn)) void symm_report_defer(symm_instance_t *s, int status);

#endif
