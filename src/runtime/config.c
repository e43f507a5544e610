/*
 * config.c - the environment parser and SHMEM_INFO printer, generated from
 * env_def.h. Owns no state: the parsed values live in the instance.
 */
#define _GNU_SOURCE
#include "runtime/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "runtime/log.h"
#include "runtime/status.h"
#include "shmem.h"

/* HIDDEN rows are printed only when asked for everything. */
#define SYMM_ENV_USER 0
#define SYMM_ENV_HIDDEN 1

int symm_parse_size(const char *s, size_t *bytes_p)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || v < 0)
        return SYMM_ERR_INVALID;
    double mult = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K': mult = 1024.0; end++; break;
    case 'M': mult = 1024.0 * 1024; end++; break;
    case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (strcasecmp(end, "iB") == 0)
        end += 2;
    else if (toupper((unsigned char)*end) == 'B')
        end++;
    if (*end != '\0' || v * mult > 9.0e18)
        return SYMM_ERR_INVALID;
    *bytes_p = (size_t)(v * mult);
    return SYMM_OK;
}

void symm_format_size(size_t bytes, char *buf, size_t len)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (u < 3 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%zu", bytes);
    else
        snprintf(buf, len, "%zu%c", bytes, units[u]);
}

/* An ENUM row's value strings (NULL-terminated), or NULL for other kinds:
 * SYMM_CFG_CHOICES_<KIND>(NAME). */
#define SYMM_CFG_CHOICE_STR(e, str) str,
#define SYMM_CFG_CHOICES_ENUM(name) \
    ((const char *const[]){name##_CHOICES(SYMM_CFG_CHOICE_STR) NULL})
#define SYMM_CFG_CHOICES_SIZE(name) NULL
#define SYMM_CFG_CHOICES_BOOL(name) NULL
#define SYMM_CFG_CHOICES_INT(name) NULL
#define SYMM_CFG_CHOICES_DOUBLE(name) NULL
#define SYMM_CFG_CHOICES_STR(name) NULL
#define SYMM_CFG_CHOICES_SECRET(name) NULL

/* An ENUM value: its index among choices, or an error naming them all. */
static int parse_enum(const char *routine, const char *name, const char *const *choices,
                      const char *val, int *out)
{
    char list[256];
    size_t off = 0;
    for (int i = 0; choices[i] != NULL; i++) {
        if (strcmp(val, choices[i]) == 0) {
            *out = i;
            return SYMM_OK;
        }
        if (off < sizeof(list))
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i > 0 ? ", " : "",
                                    choices[i]);
    }
    symm_error(routine, "%s='%s' is not one of %s", name, val, list);
    return SYMM_ERR_INVALID;
}

static int parse_one(const char *routine, const char *name, const char *kind,
                     const char *const *choices, const char *val, void *out)
{
    char *end;
    errno = 0;
    if (choices != NULL)
        return parse_enum(routine, name, choices, val, out);
    if (strcmp(kind, "SIZE") == 0) {
        if (symm_parse_size(val, out) == SYMM_OK)
            return SYMM_OK;
    } else if (strcmp(kind, "BOOL") == 0) {
        if (strcmp(val, "1") == 0 || strcasecmp(val, "y") == 0 || strcasecmp(val, "yes") == 0 ||
            strcasecmp(val, "on") == 0 || strcasecmp(val, "true") == 0) {
            *(bool *)out = true;
            return SYMM_OK;
        }
        if (strcmp(val, "0") == 0 || strcasecmp(val, "n") == 0 || strcasecmp(val, "no") == 0 ||
            strcasecmp(val, "off") == 0 || strcasecmp(val, "false") == 0 || val[0] == '\0') {
            *(bool *)out = false;
            return SYMM_OK;
        }
    } else if (strcmp(kind, "INT") == 0) {
        long v = strtol(val, &end, 0);
        if (end != val && *end == '\0' && errno == 0 && v >= -2147483647L && v <= 2147483647L) {
            *(int *)out = (int)v;
            return SYMM_OK;
        }
    } else if (strcmp(kind, "DOUBLE") == 0) {
        double v = strtod(val, &end);
        if (end != val && *end == '\0' && errno == 0) {
            *(double *)out = v;
            return SYMM_OK;
        }
    } else {
        *(const char **)out = val;
        return SYMM_OK;
    }
    symm_error(routine, "environment variable %s has invalid value '%s' (expected %s)", name,
               val, strcmp(kind, "SIZE") == 0 ? "a size such as 512M or 2G" : kind);
    return SYMM_ERR_INVALID;
}

int symm_config_load(symm_config_t *cfg) { return symm_config_load_as(cfg, "shmem_init"); }

int symm_config_load_as(symm_config_t *cfg, const char *routine)
{
    int rc = SYMM_OK;
#define SYMM_CFG_LOAD(name, kind, vis, comp, field, def, help)                    \
    do {                                                                          \
        const char *v = getenv(#name);                                            \
        const char *const *ch = SYMM_CFG_CHOICES_##kind(name);                    \
        if (parse_one(routine, #name, #kind, ch, def, &cfg->comp.field) != SYMM_OK)        \
            rc = SYMM_ERR_INVALID;                                                \
        if (v != NULL && parse_one(routine, #name, #kind, ch, v, &cfg->comp.field) != SYMM_OK) \
            rc = SYMM_ERR_INVALID;                                                \
    } while (0);
    SYMM_ENV_TABLE(SYMM_CFG_LOAD)
#undef SYMM_CFG_LOAD
#define SYMM_CFG_ALIAS(alias, name, kind, comp, field)                                   \
    do {                                                                                 \
        const char *v = getenv(#alias);                                                  \
        __typeof__(cfg->comp.field) tmp;                                                 \
        if (v == NULL)                                                                   \
            break;                                                                       \
        if (parse_one(routine, #alias, #kind, SYMM_CFG_CHOICES_##kind(name), v, &tmp) != \
            SYMM_OK) {                                                                   \
            rc = SYMM_ERR_INVALID;                                                       \
        } else if (getenv(#name) == NULL) {                                              \
            cfg->comp.field = tmp;                                                       \
        } else if (tmp != cfg->comp.field) {                                             \
            symm_warn(routine, "%s=%s and %s=%s disagree: using %s", #alias, v, #name,   \
                      getenv(#name), #name);                                             \
        }                                                                                \
    } while (0);
    SYMM_ENV_ALIASES(SYMM_CFG_ALIAS)
#undef SYMM_CFG_ALIAS
    if (cfg->coll.window < 1 || cfg->coll.window > 64) {
        symm_error(routine, "SYMM_COLL_WINDOW=%d is outside 1-64", cfg->coll.window);
        rc = SYMM_ERR_INVALID;
    }
    size_t stage;
    const char *st = cfg->coll.stage_max;
    if (strcmp(st, "auto") != 0 && symm_parse_size(st, &stage) != SYMM_OK) {
        symm_error(routine, "SYMM_COLL_STAGE_MAX='%s' is neither auto nor a size", st);
        rc = SYMM_ERR_INVALID;
    }
    return rc;
}

static void print_value(char *buf, size_t len, const char *kind, const char *const *choices,
                        const void *p)
{
    if (choices != NULL)
        snprintf(buf, len, "%s", choices[*(const int *)p]);
    else if (strcmp(kind, "SIZE") == 0)
        snprintf(buf, len, "%zu", *(const size_t *)p);
    else if (strcmp(kind, "BOOL") == 0)
        snprintf(buf, len, "%d", *(const bool *)p ? 1 : 0);
    else if (strcmp(kind, "INT") == 0)
        snprintf(buf, len, "%d", *(const int *)p);
    else if (strcmp(kind, "DOUBLE") == 0)
        snprintf(buf, len, "%g", *(const double *)p);
    else if (strcmp(kind, "SECRET") == 0)
        snprintf(buf, len, "%s", **(const char *const *)p != '\0' ? "(hidden)" : "");
    else
        snprintf(buf, len, "%s", *(const char *const *)p);
}

int symm_config_value(const symm_config_t *cfg, const char *name, char *buf, size_t len)
{
#define SYMM_CFG_VALUE(name_, kind, vis, comp, field, def, help)                        \
    if (strcmp(name, #name_) == 0) {                                                    \
        print_value(buf, len, #kind, SYMM_CFG_CHOICES_##kind(name_), &cfg->comp.field); \
        return 1;                                                                       \
    }
    SYMM_ENV_TABLE(SYMM_CFG_VALUE)
#undef SYMM_CFG_VALUE
    snprintf(buf, len, "?");
    return 0;
}

void symm_config_print(const symm_config_t *cfg, int fd)
{
    bool all = cfg->core.log_level >= 3;
    dprintf(fd, "symm: version %s (OpenSHMEM %d.%d)\n", SYMM_VERSION_STRING, SHMEM_MAJOR_VERSION,
            SHMEM_MINOR_VERSION);
    dprintf(fd, "symm: environment variables (value, default, meaning)%s:\n",
            all ? "" : "; those oshrun sets for its PEs at SYMM_LOG_LEVEL=3");
#define SYMM_CFG_PRINT(name, kind, vis, comp, field, def, help)              \
    do {                                                                     \
        char val[64];                                                        \
        if (SYMM_ENV_##vis && !all)                                          \
            break;                                                           \
        print_value(val, sizeof(val), #kind, SYMM_CFG_CHOICES_##kind(name),  \
                    &cfg->comp.field);                                       \
        dprintf(fd, "  %-24s %-12s (default %s%s)\n      %s\n", #name, val,  \
                def[0] ? def : "unset", getenv(#name) ? ", set" : "", help); \
    } while (0);
    SYMM_ENV_TABLE(SYMM_CFG_PRINT)
#undef SYMM_CFG_PRINT
    dprintf(fd, "symm: legacy names (read when the standard name is unset):\n");
#define SYMM_CFG_PRINT_ALIAS(alias, name, kind, comp, field)                                     \
    dprintf(fd, "  %-24s %-12s (alias of %s%s)\n", #alias, getenv(#alias) ? getenv(#alias) : "", \
            #name, getenv(#alias) ? ", set" : "");
    SYMM_ENV_ALIASES(SYMM_CFG_PRINT_ALIAS)
#undef SYMM_CFG_PRINT_ALIAS
}
