/*
 * The COLLSHIM_* environment variables, applied over the file. An unset or
 * empty variable changes nothing. Errors have no position: the variable's
 * name stands first in the message.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_doc.h"
#include "config/config_internal.h"

typedef struct cs_env_var cs_env_var;

/* Apply one value; 0, or -1 with why. */
typedef int (*cs_env_set)(const cs_env_var *var, const char *value, cs_config *cfg, char *why,
                          size_t n);

struct cs_env_var {
    const char *name;
    cs_env_set set;
    cs_coll coll; /* the collective variables only */
};

static int cs_env_strict(const cs_env_var *var, const char *value, cs_config *cfg, char *why,
                         size_t n)
{
    return cs_cfg_parse_bool(value, &cfg->strict, why, n);
}

/* Naming a log file is asking for a log: an off level becomes calls. An
 * explicit COLLSHIM_LOG_LEVEL, applied after this one, still wins. */
static int cs_env_log(const cs_env_var *var, const char *value, cs_config *cfg, char *why, size_t n)
{
    if (cs_cfg_parse_log_file(value, cfg->log_file, why, n) != 0)
        return -1;
    if (cfg->log_level == CS_LOG_OFF)
        cfg->log_level = CS_LOG_CALLS;
    return 0;
}

static int cs_env_log_level(const cs_env_var *var, const char *value, cs_config *cfg, char *why,
                            size_t n)
{
    return cs_cfg_parse_level(value, &cfg->log_level, why, n);
}

static int cs_env_library(const cs_env_var *var, const char *value, cs_config *cfg, char *why, size_t n)
{
    return cs_cfg_parse_library(value, &cfg->model.library, why, n);
}

static int cs_env_coll(const cs_env_var *var, const char *value, cs_config *cfg, char *why,
                       size_t n)
{
    cs_coll_config *cc = &cfg->coll[var->coll];

    const int rc = var->coll == CS_COLL_WINDOW ? cs_cfg_parse_window_method(value, cc, why, n)
                                               : cs_cfg_parse_choice(var->coll, value, cc, why, n);
    if (rc != 0)
        return -1;
    cc->from_env = 1;
    return 0;
}

/* In the order they are applied: COLLSHIM_LOG before COLLSHIM_LOG_LEVEL. */
static const cs_env_var cs_env_vars[] = {
    {"COLLSHIM_STRICT", cs_env_strict, 0},
    {"COLLSHIM_LOG", cs_env_log, 0},
    {"COLLSHIM_LOG_LEVEL", cs_env_log_level, 0},
    {"COLLSHIM_ALLTOALL", cs_env_coll, CS_COLL_ALLTOALL},
    {"COLLSHIM_ALLREDUCE", cs_env_coll, CS_COLL_ALLREDUCE},
    {"COLLSHIM_REDUCE", cs_env_coll, CS_COLL_REDUCE},
    {"COLLSHIM_WINDOW_METHOD", cs_env_coll, CS_COLL_WINDOW},
    {"COLLSHIM_LIBRARY", cs_env_library, 0},
};

#define CS_NENV (sizeof cs_env_vars / sizeof cs_env_vars[0])

static int cs_env_apply(const cs_env_var *var, cs_config *cfg, cs_config_error *err)
{
    const char *value = getenv(var->name);
    char why[sizeof err->message];

    if (!value || !*value)
        return 0;
    if (var->set(var, value, cfg, why, sizeof why) == 0)
        return 0;
    cs_cfg_error(err, "environment", 0, 0, "%s: %s", var->name, why);
    return -1;
}

int cs_config_env_apply_one(cs_config *cfg, const char *name, cs_config_error *err)
{
    for (size_t i = 0; i < CS_NENV; i++)
        if (strcmp(cs_env_vars[i].name, name) == 0)
            return cs_env_apply(&cs_env_vars[i], cfg, err);
    return 0;
}

/* All or nothing: on an error *cfg is as it was. */
int cs_config_apply_env(cs_config *cfg, cs_config_error *err)
{
    cs_config next = *cfg;

    for (size_t i = 0; i < CS_NENV; i++)
        if (cs_env_apply(&cs_env_vars[i], &next, err) != 0)
            return -1;
    *cfg = next;
    return 0;
}

const char *cs_config_env_name(size_t i)
{
    return i < CS_NENV ? cs_env_vars[i].name : NULL;
}
