/*
 * config.h - parsed configuration of one instance, from env_def.h.
 */
#ifndef SYMM_CONFIG_H
#define SYMM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/env_def.h"
#include "runtime/status.h"

#define SYMM_CFG_TYPE_SIZE size_t
#define SYMM_CFG_TYPE_BOOL bool
#define SYMM_CFG_TYPE_INT int
#define SYMM_CFG_TYPE_DOUBLE double
#define SYMM_CFG_TYPE_STR const char *
#define SYMM_CFG_TYPE_SECRET const char *
#define SYMM_CFG_TYPE_ENUM int

/* The enumerators of every ENUM row (env_def.h's NAME_CHOICES), numbered in
 * the order listed: cfg.core.transport == SYMM_TRANSPORT_UCX. */
#define SYMM_CFG_ENUMERATOR(e, str) e,
#define SYMM_CFG_ENUM_DECL(name) enum { name##_CHOICES(SYMM_CFG_ENUMERATOR) };
SYMM_ENV_ENUMS(SYMM_CFG_ENUM_DECL)
#undef SYMM_CFG_ENUM_DECL
#undef SYMM_CFG_ENUMERATOR

/* One struct per component (env_def.h's tables), nested in the instance's
 * configuration: a layer reads cfg.core, cfg.boot, cfg.net or cfg.coll, the
 * tools' rows sit in cfg.tools. */
#define SYMM_CFG_FIELD(name, kind, vis, comp, field, def, help) SYMM_CFG_TYPE_##kind field;
typedef struct symm_config_core {
    SYMM_ENV_CORE(SYMM_CFG_FIELD)
} symm_config_core_t;
typedef struct symm_config_boot {
    SYMM_ENV_BOOT(SYMM_CFG_FIELD)
} symm_config_boot_t;
typedef struct symm_config_net {
    SYMM_ENV_NET(SYMM_CFG_FIELD)
} symm_config_net_t;
typedef struct symm_config_coll {
    SYMM_ENV_COLL(SYMM_CFG_FIELD)
} symm_config_coll_t;
typedef struct symm_config_tools {
    SYMM_ENV_TOOLS(SYMM_CFG_FIELD)
} symm_config_tools_t;
#undef SYMM_CFG_FIELD

typedef struct symm_config {
    symm_config_core_t core;
    symm_config_boot_t boot;
    symm_config_net_t net;
    symm_config_coll_t coll;
    symm_config_tools_t tools;
} symm_config_t;

/* Parse the environment into *cfg. A malformed value is an error that quotes
 * it (logged here, under routine: shmem_init for symm_config_load); returns
 * 0 or SYMM_ERR_INVALID. */
SYMM_MUST_CHECK int symm_config_load(symm_config_t *cfg);
SYMM_MUST_CHECK int symm_config_load_as(symm_config_t *cfg, const char *routine);

/* Variable name's value in cfg as SHMEM_INFO prints it (an ENUM's string)
 * into buf; 0 ("?") if name is not a row of env_def.h. */
int symm_config_value(const symm_config_t *cfg, const char *name, char *buf, size_t len);

/* Parse "<number>[K|M|G|T][B|iB]" (case-insensitive) into bytes. */
SYMM_MUST_CHECK int symm_parse_size(const char *s, size_t *bytes_p);

/* Write bytes with the largest unit that divides it exactly ("1T",
 * "1536M", "100"): how a SIZE reads back in messages. */
void symm_format_size(size_t bytes, char *buf, size_t len);

/* Print the version line, then every variable with its value and meaning
 * (SHMEM_INFO, symm-info); HIDDEN ones only at SYMM_LOG_LEVEL >= 3. */
void symm_config_print(const symm_config_t *cfg, int fd);

#endif
