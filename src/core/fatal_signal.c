/*
 * fatal_signal.c - the process-wide handlers of fatal signals: a PE killed
 * by a signal records it in its status record before the default action
 * kills it, so that its peers' reports (core/pe_report.c) can say which.
 *
 * Installed only over the default action (a sanitizer's own handler
 * stays). A crash (not SIGTERM/SIGINT) also prints the PE's backtrace
 * (SYMM_BACKTRACE=1): backtrace() was primed at install (its first call
 * loads libgcc_s), backtrace_symbols_fd() allocates nothing and writes into
 * a memfd, which is read back and written to stderr in one write so PEs'
 * lines never interleave. Names come from dynamic symbols: shared
 * libraries' functions, the executable's only when linked with -rdynamic;
 * the offsets printed (prog(+0x1234)) give file:line with
 * addr2line -e prog 0x1234 (not run here: it is not async-signal-safe).
 * Owns the handlers and the one instance they report for.
 */
#define _GNU_SOURCE
#include "core/fatal_signal.h"

#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/pestatus.h"

static symm_instance_t *signal_inst;
static int signal_backtrace;

static size_t bt_append(char *buf, size_t n, size_t cap, const char *str)
{
    while (*str != '\0' && n < cap)
        buf[n++] = *str++;
    return n;
}

static void print_backtrace(int sig, int pe)
{
    static char text[16384];
    void *frames[64];
    int nf = backtrace(frames, 64);
    int fd = (int)syscall(SYS_memfd_create, "symm-backtrace", 0);
    if (fd < 0 || nf <= 0)
        return;
    /* Frame 0 is this function, 1 the handler, 2 the signal trampoline, 3
     * the interrupted instruction; above it return addresses, which name
     * the caller only when moved back into its call (a noreturn call ends
     * a function: its return address is the next function's start). */
    for (int i = 4; i < nf; i++)
        frames[i] = (char *)frames[i] - 1;
    backtrace_symbols_fd(frames, nf, fd);
    char num[16];
    size_t n = bt_append(text, 0, sizeof(text), "symm: PE ");
    int k = 0, v = pe < 0 ? 0 : pe;
    do
        num[k++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && k < 15);
    while (k > 0 && n < sizeof(text))
        text[n++] = num[--k];
    n = bt_append(text, n, sizeof(text), ": ");
    n = bt_append(text, n, sizeof(text), "killed by SIG");
    n = bt_append(text, n, sizeof(text), sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    n = bt_append(text, n, sizeof(text), ", backtrace (SYMM_BACKTRACE=0: none):\n");
    char raw[8192];
    ssize_t got = pread(fd, raw, sizeof(raw) - 1, 0);
    close(fd);
    if (got <= 0)
        return;
    raw[got] = '\0';
    int line = 0;
    for (char *p = raw; *p != '\0' && n < sizeof(text) - 1;) {
        char *nl = strchr(p, '\n');
        if (nl != NULL)
            *nl = '\0';
        if (line++ >= 2) {
            n = bt_append(text, n, sizeof(text), "symm:   ");
            n = bt_append(text, n, sizeof(text), p);
            n = bt_append(text, n, sizeof(text), "\n");
        }
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    ssize_t w = write(STDERR_FILENO, text, n);
    (void)w;
}

static void on_fatal_signal(int sig)
{
    symm_instance_t *s = signal_inst;
    if (s != NULL)
        symm_pe_status_phase(s, SYMM_PHASE_SIGNALED, sig);
    if (signal_backtrace && sig != SIGTERM && sig != SIGINT)
        print_backtrace(sig, s != NULL ? s->my_pe : -1);
    signal(sig, SIG_DFL);
    raise(sig);
}

void symm_fatal_signals_catch(symm_instance_t *s)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
    signal_inst = s;
    signal_backtrace = s->cfg.core.backtrace;
    if (signal_backtrace) {
        void *prime[2];
        backtrace(prime, 2);
    }
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction old, sa = {.sa_handler = on_fatal_signal, .sa_flags = SA_RESETHAND};
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
            !(old.sa_flags & SA_SIGINFO))
            sigaction(sigs[i], &sa, NULL);
    }
}

void symm_fatal_signals_release(symm_instance_t *s)
{
    if (signal_inst == s)
        signal_inst = NULL;
}
