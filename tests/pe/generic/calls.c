/*
 * calls.c - one generic called with every type of its spec table (plain
 * and, where the generic has one, the ctx form). Included by a wrapper
 * that tests/generic.cmake writes per generic, which defines:
 *   GEN_NAME      the generic's name, a string ("shmem_atomic_and")
 *   GEN_FN        the function this unit defines (gen_fn_atomic_and)
 *   GEN_LIST      the spec table (SPEC_AMO_BIT)
 *   GEN_CALL(T)   the call, plain; GEN_CALL_CTX(T) the ctx one, if any.
 * Compiled as C (the C11 selections) and as C++ (the overloads).
 */
#include "generic/gen.h"

#define GEN_PLAIN(T, SP)                                                       \
    gen_reset();                                                               \
    (void)GEN_CALL(T);                                                         \
    gen_check(GEN_NAME, 0, SP, sizeof(T), GEN_KIND(T));
#ifdef GEN_CALL_CTX
#define GEN_CTX(T, SP)                                                         \
    gen_reset();                                                               \
    (void)GEN_CALL_CTX(T);                                                     \
    gen_check(GEN_NAME, 1, SP, sizeof(T), GEN_KIND(T));
#else
#define GEN_CTX(T, SP)
#endif
#define GEN_BOTH(T, SP) GEN_PLAIN(T, SP) GEN_CTX(T, SP)

#ifdef __cplusplus
extern "C" void GEN_FN(void);
#else
void GEN_FN(void);
#endif
void GEN_FN(void) { GEN_LIST(GEN_BOTH) }
