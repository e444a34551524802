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
typedef int (*cs_env_set)(const cs_env_var *var, const char *value, cs_config *cfg, char *why, size_t n);

struct cs_env_var {
    const char *name;
    cs_env_set set;
    cs_coll coll; /* the collective variables only */
};

static int cs_env_strict(const cs_env_var *var, const char *value, cs_config *cfg, char *why, size_t n)
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

static int cs_env_log_level(const cs_env_var *var, const char *value, cs_config *cfg, char *why, size_t n)
{
    return cs_cfg_parse_level(value, &cfg->log_level, why, n);
}

static int cs_env_library(const cs_env_var *var, const char *value, cs_config *cfg, char *why, size_t n)
{
    return cs_cfg_parse_library(value, &cfg->model.library, why, n);
}

static int cs_env_coll(const cs_env_var *var, const char *value, cs_config *cfg, char *why, size_t n)
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

/*
 * Variables that nothing reads. A misspelt COLLSHIM_ALLREDUC would change
 * nothing, silently, where a misspelt key of the file is an error: the shim
 * says so (cs_config_env_warn_unknown) with the nearest name it knows.
 * Known: the variables above, COLLSHIM_CONFIG (cs_config_init), and the
 * prefixes of the variables that only the scripts read (the test drivers'
 * COLLSHIM_TEST_*, the scale lab's COLLSHIM_SCALE_*, the sanitizer run's
 * COLLSHIM_ASAN_*), set in the environment of the programs they run.
 */
#define CS_ENV_PREFIX "COLLSHIM_"
#define CS_ENV_NAME_MAX 64 /* the part of a name compared and said */

static const char *const cs_env_script_prefixes[] = {"COLLSHIM_TEST_", "COLLSHIM_SCALE_", "COLLSHIM_ASAN_"};

/* The shim's names, i < CS_NENV + 1: the table's, then COLLSHIM_CONFIG. */
static const char *cs_env_known_name(size_t i)
{
    return i < CS_NENV ? cs_env_vars[i].name : i == CS_NENV ? "COLLSHIM_CONFIG" : NULL;
}

/* The length of a "NAME=value" entry's name (or of a plain name). */
static size_t cs_env_name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

int cs_config_env_known(const char *name, size_t len)
{
    for (size_t i = 0; cs_env_known_name(i); i++)
        if (strlen(cs_env_known_name(i)) == len && !strncmp(cs_env_known_name(i), name, len))
            return 1;
    for (size_t i = 0; i < sizeof cs_env_script_prefixes / sizeof cs_env_script_prefixes[0]; i++)
        if (len >= strlen(cs_env_script_prefixes[i]) &&
            !strncmp(name, cs_env_script_prefixes[i], strlen(cs_env_script_prefixes[i])))
            return 1;
    return 0;
}

static char cs_env_upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* The edit distance of a[0..n) and b[0..m), letters' case ignored: the
 * insertions, deletions, substitutions and swaps of two neighbours that
 * make one the other (optimal string alignment); both cut at
 * CS_ENV_NAME_MAX. */
size_t cs_config_env_distance(const char *a, size_t n, const char *b, size_t m)
{
    size_t row[3][CS_ENV_NAME_MAX + 1]; /* the rows i - 2, i - 1 and i */
    n = n < CS_ENV_NAME_MAX ? n : CS_ENV_NAME_MAX;
    m = m < CS_ENV_NAME_MAX ? m : CS_ENV_NAME_MAX;
    for (size_t j = 0; j <= m; j++)
        row[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t *cur = row[i % 3], *up = row[(i + 2) % 3], *up2 = row[(i + 1) % 3];
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            const int same = cs_env_upper(a[i - 1]) == cs_env_upper(b[j - 1]);
            size_t d = up[j - 1] + !same;
            if (up[j] + 1 < d)
                d = up[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && cs_env_upper(a[i - 1]) == cs_env_upper(b[j - 2]) &&
                cs_env_upper(a[i - 2]) == cs_env_upper(b[j - 1]) && up2[j - 2] + 1 < d)
                d = up2[j - 2] + 1;
            cur[j] = d;
        }
    }
    return row[n % 3][m];
}

const char *cs_config_env_nearest(const char *name, size_t len)
{
    const size_t skip = strncmp(name, CS_ENV_PREFIX, strlen(CS_ENV_PREFIX)) ? 0 : strlen(CS_ENV_PREFIX);
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    /* After the prefix, a name within a third of its length, and at least 2. */
    for (size_t i = 0; cs_env_known_name(i); i++) {
        const char *known = cs_env_known_name(i) + strlen(CS_ENV_PREFIX);
        const size_t klen = strlen(known), limit = klen / 3 > 2 ? klen / 3 : 2;
        const size_t d = cs_config_env_distance(name + skip, len - skip, known, klen);
        if (d <= limit && d < best_d) {
            best = cs_env_known_name(i);
            best_d = d;
        }
    }
    return best;
}

/* The words of one unknown variable: "unknown variable NAME (did you mean KNOWN?)". */
static void cs_env_unknown_words(const char *entry, size_t len, char *out, size_t n)
{
    const char *near = cs_config_env_nearest(entry, len);
    const int shown = (int)(len < CS_ENV_NAME_MAX ? len : CS_ENV_NAME_MAX);
    if (near)
        snprintf(out, n, "unknown variable %.*s%s (did you mean %s?)", shown, entry, shown < (int)len ? "..." : "",
                 near);
    else
        snprintf(out, n, "unknown variable %.*s%s", shown, entry, shown < (int)len ? "..." : "");
}

/* The next entry of env at or after *i that is an unknown COLLSHIM_*; its
 * name's length in *len. */
static const char *cs_env_next_unknown(const char *const *env, size_t *i, size_t *len)
{
    for (; env && env[*i]; (*i)++) {
        const char *e = env[*i];
        if (strncmp(e, CS_ENV_PREFIX, strlen(CS_ENV_PREFIX)) != 0)
            continue;
        *len = cs_env_name_len(e);
        if (!cs_config_env_known(e, *len))
            return env[(*i)++];
    }
    return NULL;
}

int cs_config_env_warn_unknown(const char *const *env, FILE *out)
{
    size_t i = 0, len;
    int count = 0;
    const char *e;
    char words[160];
    while ((e = cs_env_next_unknown(env, &i, &len)) != NULL) {
        cs_env_unknown_words(e, len, words, sizeof words);
        fprintf(out, "collshim: %s; ignored\n", words);
        count++;
    }
    if (count)
        fflush(out);
    return count;
}

int cs_config_env_check_unknown(const char *const *env, cs_config_error *err)
{
    size_t i = 0, len;
    char words[160];
    const char *e = cs_env_next_unknown(env, &i, &len);
    if (!e)
        return 0;
    cs_env_unknown_words(e, len, words, sizeof words);
    cs_cfg_error(err, "environment", 0, 0, "%s", words);
    return -1;
}
