/*
 * status.h - the one internal status type of symm, and how routines report.
 *
 * The convention, which the compiler checks where it can:
 *  - A routine that can fail returns int: 0 (SYMM_OK) on success, a
 *    negative value on failure. The negative is a symm_status_t wherever a
 *    caller may act on its kind or print it (bootstrap, transports, heap
 *    growth, registration, teams): callers pass it on unchanged and print it
 *    with symm_status_str. A routine with a single way to fail may return -1
 *    (SYMM_ERR_INVALID's value); its header says so. Every such routine of a
 *    header, and every operation of a table (boot.h, transport.h), is
 *    declared SYMM_MUST_CHECK: a caller that drops the status is a compiler
 *    warning, an error in CI. Where dropping it is right (a failure already
 *    reported, a best-effort step on an error path), SYMM_IGNORE(call) says
 *    so, with a comment saying why.
 *  - A routine that finds something (an index, a slot, a PE) returns it, or
 *    -1 for "none": not an error.
 *  - boot/'s socket I/O (boot_io.h) returns 1 done, 0 would block, or a
 *    negative -errno / SYMM_IO_*: a different domain, converted to a status
 *    by its callers in boot/, never passed out of it.
 *  - Errors the program cannot recover from end the job through symm_fatal
 *    (runtime/log.h), the one fatal path of every layer, which names the
 *    routine and the PE. Besides it only shmem_global_exit (symm_job_exit) and
 *    the watcher of a failed job (core/watch.c) end the process.
 * Conversion to OpenSHMEM return values or aclshmem error codes happens only
 * at the API boundary (src/api/). Only the code that first detects an error
 * logs it.
 */
#ifndef SYMM_STATUS_H
#define SYMM_STATUS_H

#define SYMM_STATUS_TABLE(X)                                           \
    X(SYMM_OK, 0, "success")                                           \
    X(SYMM_ERR_INVALID, -1, "invalid argument")                        \
    X(SYMM_ERR_NOMEM, -2, "out of memory")                             \
    X(SYMM_ERR_SYS, -3, "system call failed")                          \
    X(SYMM_ERR_TIMEOUT, -4, "timed out")                               \
    X(SYMM_ERR_BOOT, -5, "bootstrap failed")                           \
    X(SYMM_ERR_NOT_INIT, -6, "not initialized")                        \
    X(SYMM_ERR_UNSUPPORTED, -7, "not supported")                       \
    X(SYMM_ERR_PEER, -8, "peer failed")

typedef enum {
#define SYMM_STATUS_ENUM(name, value, text) name = value,
    SYMM_STATUS_TABLE(SYMM_STATUS_ENUM)
#undef SYMM_STATUS_ENUM
} symm_status_t;

/* A routine (or table operation) whose status must not be dropped. */
#define SYMM_MUST_CHECK __attribute__((warn_unused_result))
/* A status dropped on purpose (GCC does not take a (void) cast for it). */
#define SYMM_IGNORE(call)                                        \
    do {                                                         \
        int symm_ignored_ __attribute__((unused)) = (int)(call); \
    } while (0)

/* Human-readable text for a status; never NULL. */
const char *symm_status_str(symm_status_t status);

#endif
