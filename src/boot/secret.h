/*
 * secret.h - job secrets: 32 lowercase hex characters every PE presents to
 * PE 0 (tcp.h's hello), made at random for a unique id or, in aclshmem's
 * DEFAULT mode, derived from PE 0's address.
 */
#ifndef SYMM_BOOT_SECRET_H
#define SYMM_BOOT_SECRET_H

/* Hex characters of a job secret (it is held with its NUL). */
#define SYMM_SECRET_LEN 32

/* 16 random bytes in hex. Logs its failure under routine: SYMM_ERR_SYS. */
int symm_secret_random(char out[SYMM_SECRET_LEN + 1], const char *routine);

/* A hash of addr in hex: every PE that knows the address computes the same
 * secret. It keeps PEs of other jobs (other addresses) out, not anyone who
 * knows this job's address. */
void symm_secret_from_addr(const char *addr, char out[SYMM_SECRET_LEN + 1]);

#endif
