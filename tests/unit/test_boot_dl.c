/*
 * test_boot_dl.c - the table of run-time symbols (src/runtime/dl_table.c)
 * that the PMIx and MPI bootstraps and the UCX transport fill.
 *
 * Resolves from libm and libc: a library found after a name that is not
 * there, a table filled in order, the first missing symbol named (and the
 * entries after it left alone), no library at all (dlerror's text kept for
 * the first name, past the dlopen of the next), a library already loaded
 * (RTLD_NOLOAD), and the global scope first for a data symbol (an
 * executable's copy-relocated environ). Prints one line per
 * check; exits 0 only if every check passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "runtime/dl_table.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int failed;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    failed |= !ok;
}

int main(void)
{
    static const char *const m_libs[] = {"libsymm-not-there.so.7", "libm.so.6", NULL};
    const symm_dl_lib_t m_lib = {m_libs, RTLD_NOW | RTLD_LOCAL, 0};
    double (*my_cos)(double) = NULL, (*my_sqrt)(double) = NULL, (*my_floor)(double) = NULL;
    const char *missing = "unset", *dlerr = NULL;
    void *h = NULL;

    /* Every symbol there: filled in order, usable. */
    const symm_dl_sym_t good[] = {SYMM_DL_SYM(my_cos, "cos"), SYMM_DL_SYM(my_sqrt, "sqrt")};
    int rc = symm_dl_load(&m_lib, good, 2, &h, &missing, &dlerr);
    check(rc == 0 && missing == NULL && h != NULL, "libm found after a name that is not there");
    check(my_cos != NULL && my_cos(0.0) == 1.0, "cos resolved and callable");
    check(my_sqrt != NULL && my_sqrt(16.0) == 4.0, "sqrt resolved and callable");
    check(dlerr != NULL && strstr(dlerr, "libsymm-not-there.so.7") != NULL,
          "dlerror of the first name tried is kept");

    /* The first missing symbol is named; those before it are filled, those
     * after it are not touched. */
    my_cos = my_sqrt = NULL;
    my_floor = (double (*)(double))(void (*)(void))main;
    void *nothing = &missing;
    const symm_dl_sym_t bad[] = {SYMM_DL_SYM(my_cos, "cos"),
                                 SYMM_DL_SYM(nothing, "symm_no_such_symbol"),
                                 SYMM_DL_SYM(my_floor, "floor")};
    rc = symm_dl_load(&m_lib, bad, 3, NULL, &missing, NULL);
    check(rc == -2 && missing != NULL && strcmp(missing, "symm_no_such_symbol") == 0,
          "the first missing symbol is named");
    check(my_cos != NULL && nothing == NULL, "entries up to the missing one are filled");
    check(my_floor == (double (*)(double))(void (*)(void))main,
          "entries after the missing one are left alone");

    /* No library. */
    static const char *const none_libs[] = {"libsymm-none.so.1", "libsymm-none.so", NULL};
    const symm_dl_lib_t none_lib = {none_libs, RTLD_NOW, 0};
    dlerr = "unset";
    rc = symm_dl_load(&none_lib, good, 2, NULL, &missing, &dlerr);
    check(rc == -1 && missing == NULL, "no library: -1, no symbol named");
    check(dlerr != NULL && strstr(dlerr, "libsymm-none.so.1") != NULL,
          "no library: dlerror names the first soname");

    /* Symbols of a library the program has loaded already (RTLD_NOLOAD),
     * looked up there. */
    static const char *const c_libs[] = {"libc.so.6", NULL};
    const symm_dl_lib_t c_nolocal = {c_libs, RTLD_NOW | RTLD_NOLOAD, 0};
    pid_t (*my_getpid)(void) = NULL;
    const symm_dl_sym_t libc_syms[] = {SYMM_DL_SYM(my_getpid, "getpid")};
    rc = symm_dl_load(&c_nolocal, libc_syms, 1, &h, &missing, NULL);
    check(rc == 0 && h != NULL && my_getpid != NULL && my_getpid() == getpid(),
          "getpid from libc opened with RTLD_NOLOAD");

    /* The global scope first gives the executable's copy of a data symbol
     * (copy relocation), not libc's own. */
    const symm_dl_lib_t c_lib = {c_libs, RTLD_NOW | RTLD_NOLOAD, 1};
    void *env_addr = NULL;
    const symm_dl_sym_t data[] = {SYMM_DL_SYM(env_addr, "environ")};
    rc = symm_dl_load(&c_lib, data, 1, &h, &missing, NULL);
    check(rc == 0 && env_addr == (void *)&environ, "global scope first: the executable's environ");
    check(symm_dl_lookup(&c_lib, h, "symm_no_such_symbol") == NULL, "lookup of a missing name");

    printf("%s\n", failed ? "FAILED" : "all passed");
    return failed;
}
