/*
 * uid.h - the text of an aclshmem unique id: "symm1:" SECRET ":" ADDRESS,
 * the job secret (secret.h) and PE 0's address (addr.h), and the port that
 * the process which made the id holds for PE 0 until it starts the job.
 *
 * The caller (src/api) owns the id's binary envelope (version, PE numbers);
 * these functions see only its text.
 */
#ifndef SYMM_BOOT_UID_H
#define SYMM_BOOT_UID_H

#include "boot/addr.h"
#include "boot/secret.h"

#include <stddef.h>
#include "runtime/status.h"

/* A new id's text into text[cap]: PE 0's address from SHMEM_UID_SESSION_ID
 * (ip:port, port 0: a free one), else the IPv4 address of
 * SHMEM_UID_SOCK_IFNAME, else of the first interface that is up, else
 * 127.0.0.1; a random secret. A free port is bound and held for the id (see
 * symm_uid_listen_fd). Logs under routine: SYMM_OK (at info level, the
 * address), SYMM_ERR_INVALID, SYMM_ERR_SYS or SYMM_ERR_BOOT. */
SYMM_MUST_CHECK int symm_uid_create(char *text, size_t cap, const char *routine);

/* The secret and PE 0's address (addr[acap]) from the id text text[cap],
 * which need not end in a NUL within cap. Logs under routine:
 * SYMM_ERR_INVALID when it is not an id's text. */
SYMM_MUST_CHECK int symm_uid_parse(const char *text, size_t cap, char secret[SYMM_SECRET_LEN + 1],
                                   char *addr, size_t acap, const char *routine);

/* The port held for the id of secret, taken (once): for rank 0 a socket
 * listening on it, for other ranks closed; -1 when this process holds none,
 * or when it cannot listen (a warning under routine; rank 0 binds addr
 * again). Thread-safe. */
int symm_uid_listen_fd(const char *secret, int rank, const char *addr, const char *routine);

#endif
