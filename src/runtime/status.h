/*
 * status.h - the one internal status type of symm.
 *
 * Every internal routine returns symm_status_t: 0 is success, negatives are
 * errors. Conversion to OpenSHMEM return values or aclshmem error codes happens
 * only at the API boundary. Only the code that first detects an error logs it.
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

/* Human-readable text for a status; never NULL. */
const char *symm_status_str(symm_status_t status);

#endif
