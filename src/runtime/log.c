/*
 * log.c - one-line diagnostics, fatal errors, whole-job exit.
 *
 * Owns the PE number shown in messages and the launcher's control pipe.
 * Must never allocate: it runs on error paths, possibly in a signal-unsafe
 * state, so it formats into a stack buffer and does one write(2).
 */
#define _GNU_SOURCE
#include "log.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int log_pe = -1;
static int log_lvl = SYMM_LOG_WARN;
static void (*log_sink)(int level, const char *line);
/* The last error's text (no routine, no PE), for agreement rounds that tell
 * the other PEs why this one failed. */
static char last_error[160];
__thread const char *symm_log_alias __attribute__((tls_model("initial-exec")));

void symm_log_set_sink(void (*sink)(int level, const char *line)) { log_sink = sink; }

void symm_log_set_pe(int pe) { log_pe = pe; }
void symm_log_set_level(int level) { log_lvl = level; }
int symm_log_level(void) { return log_lvl; }

const char *symm_status_str(symm_status_t status)
{
    switch (status) {
#define SYMM_STATUS_CASE(name, value, text) \
    case name:                              \
        return text;
        SYMM_STATUS_TABLE(SYMM_STATUS_CASE)
#undef SYMM_STATUS_CASE
    }
    return "unknown status";
}

static void log_vwrite(int level, const char *routine, const char *fmt, va_list ap)
{
    char buf[1024];
    const char *alias = symm_log_alias;
    int n = alias != NULL ? snprintf(buf, sizeof(buf), "symm: %s (%s): ", routine, alias)
                          : snprintf(buf, sizeof(buf), "symm: %s: ", routine);
    if (n < 0)
        return;
    int text = n;
    if ((size_t)n < sizeof(buf))
        n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    if ((size_t)n >= sizeof(buf) - 24)
        n = (int)sizeof(buf) - 24;
    if (level == SYMM_LOG_ERROR)
        snprintf(last_error, sizeof(last_error), "%.*s", n - text, buf + text);
    if (log_pe >= 0)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (PE %d)\n", log_pe);
    else
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, "\n");
    void (*sink)(int, const char *) = log_sink;
    if (sink != NULL) {
        buf[n - 1] = '\0'; /* the sink gets the line without its newline */
        sink(level, buf);
        return;
    }
    ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
    (void)w;
}

const char *symm_log_last_error(void) { return last_error; }

void symm_log_clear_error(void) { last_error[0] = '\0'; }

void symm_vlog(int level, const char *routine, const char *fmt, va_list ap)
{
    if (level <= log_lvl)
        log_vwrite(level, routine, fmt, ap);
}

void symm_log(int level, const char *routine, const char *fmt, ...)
{
    if (level > log_lvl)
        return;
    va_list ap;
    va_start(ap, fmt);
    log_vwrite(level, routine, fmt, ap);
    va_end(ap);
}

int symm_launcher_say(const char *line)
{
    const char *s = getenv("SYMM_CTRL_FD");
    if (s == NULL)
        return 0;
    char msg[64];
    int n = snprintf(msg, sizeof(msg), "%s\n", line);
    ssize_t w = write(atoi(s), msg, (size_t)n);
    (void)w;
    return 1;
}

void symm_job_exit(int status)
{
    /* The launcher gave us a pipe: say the job ends, so it ends the other
     * PEs with our status instead of reporting them as failures. */
    char line[32];
    snprintf(line, sizeof(line), "global_exit %d", status);
    symm_launcher_say(line);
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}

int (*symm_log_fatal_mark)(void);

void symm_vfatal(const char *routine, const char *fmt, va_list ap)
{
    /* This line is the job's report: the record says so (ABORTED) before
     * the line goes out, so that peers that see this PE end take its end
     * as explained and end quietly with its status (core/watch.c), and
     * oshrun prints no line of its own for it. */
    int (*mark)(void) = symm_log_fatal_mark;
    if (mark != NULL)
        (void)mark();
    log_vwrite(SYMM_LOG_ERROR, routine, fmt, ap);
    fflush(stdout);
    symm_launcher_say("reported");
    /* A plain non-zero exit: a launcher other than oshrun ends the others. */
    _exit(255);
}

void symm_fatal(const char *routine, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    symm_vfatal(routine, fmt, ap);
}
