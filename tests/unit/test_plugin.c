/*
 * test_plugin.c - the plugin loader (src/runtime/plugin.c) against the fake
 * plugins of fake_plugin.c in the directory argv[1], which the test names
 * as SYMM_PLUGIN_DIR: a plugin found, loaded once (the same descriptor
 * again, its one log line through the host once), its ops; a missing one
 * named with the directory searched; a plugin of another build refused; a
 * file that is not a plugin refused naming the missing entry; the search
 * path when SYMM_PLUGIN_DIR is set. Prints one line per check; exits 0
 * only if every check passed.
 */
#include "runtime/plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/log.h"

static int failed, lines_fake;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    failed |= !ok;
}

static void sink(int level, const char *line)
{
    (void)level;
    lines_fake += strstr(line, "fake: loaded, level 1") != NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_plugin DIR\n");
        return 2;
    }
    setenv("SYMM_PLUGIN_DIR", argv[1], 1);
    symm_log_set_sink(sink);
    check(strcmp(symm_plugin_dirs(), argv[1]) == 0, "SYMM_PLUGIN_DIR is the only directory");

    char path[4096];
    check(symm_plugin_find("fake", path, sizeof(path)) && strstr(path, "/libsymm-fake.so"),
          "find: libsymm-fake.so");
    check(!symm_plugin_find("absent", path, sizeof(path)), "find: an absent plugin");

    const char *why = NULL;
    const symm_plugin_t *p = symm_plugin_load("fake", NULL, &why);
    check(p != NULL && strcmp(p->name, "fake") == 0 && strcmp(p->about, "nothing") == 0,
          "load: the descriptor");
    check(p != NULL && strcmp((const char *)p->ops, "fake ops") == 0, "load: its ops");
    check(symm_plugin_load("fake", NULL, NULL) == p, "load again: the same descriptor");
    check(lines_fake == 1, "the plugin logged through the host, once");

    p = symm_plugin_load("absent", NULL, &why);
    check(p == NULL && strstr(why, "libsymm-absent.so is not in ") && strstr(why, argv[1]),
          "absent: named with the directory");
    p = symm_plugin_load("fake-other", NULL, &why);
    check(p == NULL && strstr(why, "another build of symm"), "another build: refused");
    p = symm_plugin_load("not-plugin", NULL, &why);
    check(p == NULL && strstr(why, "not a symm plugin (no symm_plugin_entry)"),
          "not a plugin: refused");
    check(symm_plugin_load("absent", NULL, &why) == NULL && strstr(why, "is not in"),
          "absent again: the same answer, no second search");
    return failed;
}
