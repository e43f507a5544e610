/*
 * log.h - one-line diagnostics and fatal errors.
 *
 * Every message is one line written with one write(2) to stderr, so lines of
 * different PEs never interleave. Format: "symm: <routine>: <what> (PE <n>)".
 * symm_fatal() ends the whole job: it tells the launcher (if any) and exits
 * with a non-zero status; it never returns.
 */
#ifndef SYMM_LOG_H
#define SYMM_LOG_H

#include <stdarg.h>

/* PE number shown in messages; -1 until known. Set by the runtime. */
void symm_log_set_pe(int pe);
/* Verbosity: 0 errors only, 1 warnings (default), 2 info, 3 debug. */
void symm_log_set_level(int level);
int symm_log_level(void);

enum { SYMM_LOG_ERROR = 0, SYMM_LOG_WARN = 1, SYMM_LOG_INFO = 2, SYMM_LOG_DEBUG = 3 };

/* Send every line (without its newline) to sink instead of stderr; NULL
 * restores stderr. For programs that bring their own logger (aclshmem). */
void symm_log_set_sink(void (*sink)(int level, const char *line));

/* The text of the last error logged by this process (without routine and
 * PE), "" if none since symm_log_clear_error: what an agreement round
 * tells the other PEs. */
const char *symm_log_last_error(void);
void symm_log_clear_error(void);
/* What the program called, when it is not the routine itself: a language
 * binding (api/fortran/) sets it ("Fortran shmem_put8") around its call of
 * the C routine, and every line this thread logs meanwhile reads
 * "symm: <routine> (<alias>): ...". NULL (the default) adds nothing. */
extern __thread const char *symm_log_alias __attribute__((tls_model("initial-exec")));
/* "symm: <routine>: <message> (PE n)" if level <= current level. */
void symm_log(int level, const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with the arguments as a va_list (a plugin's symm_log). */
void symm_vlog(int level, const char *routine, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
#define symm_error(routine, ...) symm_log(SYMM_LOG_ERROR, routine, __VA_ARGS__)
#define symm_warn(routine, ...) symm_log(SYMM_LOG_WARN, routine, __VA_ARGS__)
#define symm_info(routine, ...) symm_log(SYMM_LOG_INFO, routine, __VA_ARGS__)
#define symm_debug(routine, ...) symm_log(SYMM_LOG_DEBUG, routine, __VA_ARGS__)

/* Print the error and end the whole job with status 255 (through the launcher
 * when there is one). Never returns. Its line is the job's one report: it
 * first calls symm_log_fatal_mark (when set), which marks this PE's status
 * record (ABORTED: peers that see it end take that end as explained and end
 * quietly) and answers 1 if it did; then oshrun hears "reported" and adds
 * no line of its own: this line says why the PE ends. */
void symm_fatal(const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn, cold));
void symm_vfatal(const char *routine, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0), noreturn, cold));
extern int (*symm_log_fatal_mark)(void);

/* End the whole job with `status`: tells the launcher, then _exit(status). */
/* One line to oshrun over its control pipe (SYMM_CTRL_FD): "global_exit
 * N", "reported", "peer_reported" (tools/oshrun.c reads them). 0 if not
 * started by oshrun. */
int symm_launcher_say(const char *line);
void symm_job_exit(int status) __attribute__((noreturn));

#endif
