/*
 * tcp_boot.h - the TCP bootstrap as the rest of boot/ sees it: the one
 * header of src/boot/tcp/ that files outside that directory include.
 *
 * The TCP bootstrap (a K-ary tree rooted at rank 0, a star in small jobs,
 * over TCP with TLS 1.3 when built with OpenSSL) is created from explicit
 * parameters by symm_boot_tcp_create (boot.h, the unique-id mode) or from
 * the launcher's environment by the calls below (boot.c's choice). The rest
 * of tcp/ is private to it (tcp_priv.h says which file does what).
 */
#ifndef SYMM_BOOT_TCP_BOOT_H
#define SYMM_BOOT_TCP_BOOT_H

#include "boot/boot.h"
#include "runtime/status.h"

/* The first of oshrun's variables (SYMM_RANK, SYMM_SIZE, SYMM_BOOT_ADDR,
 * SYMM_JOB_SECRET, SYMM_BOOT_LISTEN_FD) that is set, or NULL when none is:
 * whether the environment describes a job of the TCP bootstrap. */
const char *symm_tcp_env_var_set(void);

/* The TCP bootstrap from oshrun's variables, at least one of which is set
 * (symm_tcp_env_var_set): a partial or malformed environment is an error
 * naming the variable (SYMM_ERR_INVALID), never a singleton. Sets the PE of
 * log messages to the rank. Writes *boot_p only on success. */
SYMM_MUST_CHECK int symm_tcp_create_from_env(double timeout_s, symm_boot_t **boot_p);

#endif
