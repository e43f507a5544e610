/*
 * ucx.h - the UCX network transport (transport/ucx.c).
 */
#ifndef SYMM_UCX_H
#define SYMM_UCX_H

#include "runtime/state.h"
#include "transport/transport.h"

/* The UCX ops table, or NULL when symm was built without UCX. */
const symm_transport_ops_t *symm_ucx_transport(void);
/* "1.13.1", or NULL without UCX. */
const char *symm_ucx_version(void);

#endif
