/*
 * dl_table.h - libraries opened at run time, and tables of the symbols
 * taken from them.
 *
 * Some of symm's dependencies are found at run time only, so that libsymm
 * has no link dependency on them and programs that do not use them never
 * load them: libpmix and libmpi (boot/pmix.c, boot/mpi.c), libucp
 * (transport/ucx/ucx_load.c). Each describes its library (symm_dl_lib_t)
 * and a table of {name, &pointer} entries (symm_dl_sym_t); these calls open
 * the library and fill the table. Nothing here logs: each caller says what
 * failed in its own words (the library's name, the symbol missing, what to
 * install).
 *
 * Layer runtime/ (the bottom layer): used by boot/ and transport/.
 */
#ifndef SYMM_RUNTIME_DL_TABLE_H
#define SYMM_RUNTIME_DL_TABLE_H

#include <stddef.h>

/* One symbol: its name, and the address of the pointer it fills (a
 * function pointer, or a void * for a data symbol's address). */
typedef struct symm_dl_sym {
    const char *name;
    void *ptr;
} symm_dl_sym_t;

/* An entry of a table: SYMM_DL_SYM(px.init, "PMIx_Init"). */
#define SYMM_DL_SYM(field, name) \
    {                            \
        (name), &(field)         \
    }

/* How a library is found and its symbols looked up. */
typedef struct symm_dl_lib {
    const char *const *names; /* sonames tried in turn; NULL-terminated */
    int flags;                /* dlopen flags (RTLD_NOLOAD: only one already loaded) */
    int global_first;         /* look each symbol up in the global scope first (an
                               * executable's copy-relocated data is the one in use) */
} symm_dl_lib_t;

/* The handle of the first of lib->names that opens, or NULL when none does;
 * then *dlerr_p (when not NULL) holds dlerror()'s text for the first name
 * tried (kept in a buffer of the calling thread until its next call here:
 * dlerror()'s own is freed by the next dlopen). */
void *symm_dl_open(const symm_dl_lib_t *lib, const char **dlerr_p);

/* name in h (global scope first when lib->global_first): NULL when absent. */
void *symm_dl_lookup(const symm_dl_lib_t *lib, void *h, const char *name);

/* Fill syms[0..n) from h, in order: NULL when every one was found, else the
 * name of the first missing one (the entries before it are filled). */
const char *symm_dl_resolve(const symm_dl_lib_t *lib, void *h, const symm_dl_sym_t *syms, size_t n);

/* symm_dl_open, then symm_dl_resolve: 0 when the library opened and every
 * symbol was found (the handle in *h_p, if not NULL); -1 when no library
 * opened (*missing_p NULL, *dlerr_p as symm_dl_open); -2 when a symbol is
 * missing (*missing_p its name). Never dlcloses. */
int symm_dl_load(const symm_dl_lib_t *lib, const symm_dl_sym_t *syms, size_t n, void **h_p,
                 const char **missing_p, const char **dlerr_p);

#endif
