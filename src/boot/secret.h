/*
 * secret.h - job secrets: 32 lowercase hex characters every PE presents to
 * PE 0 (tcp/tcp_wire.h's hello), made at random for a unique id or, in aclshmem's
 * DEFAULT mode, derived from PE 0's address under the owner's job key.
 */
#ifndef SYMM_BOOT_SECRET_H
#define SYMM_BOOT_SECRET_H

#include <stdint.h>
#include "runtime/status.h"

/* Hex characters of a job secret (it is held with its NUL). */
#define SYMM_SECRET_LEN 32

/* 16 random bytes in hex. Logs its failure under routine: SYMM_ERR_SYS. */
SYMM_MUST_CHECK int symm_secret_random(char out[SYMM_SECRET_LEN + 1], const char *routine);

/* A hash of addr in hex: every PE that knows the address computes the same
 * secret. It keeps PEs of other jobs (other addresses) out, not anyone who
 * knows this job's address. */
void symm_secret_from_addr(const char *addr, char out[SYMM_SECRET_LEN + 1]);

/* aclshmem DEFAULT mode's secret for PE 0's address addr ("host:port"):
 * HMAC-SHA256 of addr under the first key there is, in this order: key (the
 * value of SYMM_JOB_KEY; NULL or "" for none), the launcher's SYMM_JOB_SECRET,
 * the user's key file ($XDG_CONFIG_HOME/symm/job.key, else
 * ~/.config/symm/job.key); with none, symm_secret_from_addr's secret and,
 * when loud, a warning under routine (once per process) saying how to set a
 * key. Every PE with the same key and address gets the same secret. A key
 * file that is not a regular file owned by this user with no group or other
 * permission, or is empty or unreadable, and a malformed SYMM_JOB_SECRET, are
 * errors logged under routine (SYMM_ERR_INVALID, SYMM_ERR_SYS), never a
 * fallback to the guessable secret. */
SYMM_MUST_CHECK int symm_secret_default(const char *addr, const char *key, int loud,
                                        char out[SYMM_SECRET_LEN + 1], const char *routine);

/* HMAC-SHA256 of msg under the job secret: the tree's directory messages
 * (tcp/tcp_tree.c) prove with it that they come from a PE of the job. */
void symm_secret_mac(const char *secret, const char *msg, uint8_t out[32]);

#endif
