/*
 * sched_slice.c - SYMM_SCHED_SLICE_US: the slice is in force on the thread
 * that called init and on a thread it starts after, and the kernel's own is
 * back after finalize. The slice is read from /proc/thread-self/sched
 * (se.slice, nanoseconds), not from symm.
 *
 *   SYMM_SCHED_SLICE_US=200 oshrun -np N sched_slice
 *
 * Exits 77 (skipped) only where the kernel cannot show it: no custom slices
 * (before Linux 6.12) or no /proc/<pid>/sched (CONFIG_SCHED_DEBUG off).
 * Without SYMM_SCHED_SLICE_US it fails: the test is misconfigured.
 */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* This thread's se.slice in ns, or -1. */
static long long slice_ns(void)
{
    char line[256];
    long long v = -1;
    FILE *f = fopen("/proc/thread-self/sched", "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "se.slice", 8) == 0 && sscanf(strchr(line, ':') + 1, "%lld", &v) != 1)
            v = -1;
    fclose(f);
    return v;
}

static void *thread_main(void *arg)
{
    *(long long *)arg = slice_ns();
    return NULL;
}

static int kernel_has_custom_slices(void)
{
    struct utsname u;
    int major = 0, minor = 0;
    return uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
           (major > 6 || (major == 6 && minor >= 12));
}

int main(void)
{
    const char *env = getenv("SYMM_SCHED_SLICE_US");
    long long want = env != NULL ? atoll(env) * 1000 : -1;
    long long before = slice_ns();
    if (want <= 0) {
        fprintf(stderr, "FAIL: run with SYMM_SCHED_SLICE_US > 0 (the test's setting)\n");
        return 1;
    }
    if (before < 0 || !kernel_has_custom_slices()) {
        printf("SKIP: needs /proc/thread-self/sched (CONFIG_SCHED_DEBUG) and Linux 6.12+\n");
        return 77;
    }
    shmem_init();
    int me = shmem_my_pe(), bad = 0;
    long long during = slice_ns(), in_thread = -1;
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, &in_thread) != 0 || pthread_join(t, NULL) != 0)
        in_thread = -2;
    if (during != want || in_thread != want) {
        fprintf(stderr, "FAIL: PE %d: slice %lld ns in the init thread, %lld ns in a new thread, "
                "%lld wanted\n", me, during, in_thread, want);
        bad = 1;
    }
    shmem_finalize();
    long long after = slice_ns();
    if (after != before) {
        fprintf(stderr, "FAIL: PE %d: slice %lld ns after finalize, %lld ns before init\n", me,
                after, before);
        bad = 1;
    }
    if (!bad)
        printf("PE %d: slice %lld ns before, %lld during, %lld after: ok\n", me, before, during,
               after);
    return bad;
}
