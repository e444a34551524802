/*
 * The values that the file and the environment share, parsed from text: the
 * caller adds where the text came from (file:line:column and key, or the
 * variable's name).
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "config/config_internal.h"

/* ---- value parsers ---------------------------------------------------- */

int cs_cfg_parse_bool(const char *s, int *out, char *why, size_t n)
{
    static const struct {
        const char *word;
        int value;
    } words[] = {{"true", 1}, {"false", 0}, {"yes", 1}, {"no", 0}, {"on", 1}, {"off", 0}, {"1", 1}, {"0", 0}};

    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (strcasecmp(s, words[i].word) == 0) {
            *out = words[i].value;
            return 0;
        }
    }
    snprintf(why, n, "expected true or false (or yes/no, on/off, 1/0), got '%.40s'", s);
    return -1;
}

int cs_cfg_parse_level(const char *s, cs_log_level *out, char *why, size_t n)
{
    static const char *const names[] = {[CS_LOG_OFF] = "off", [CS_LOG_SUMMARY] = "summary", [CS_LOG_CALLS] = "calls"};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(s, names[i]) == 0) {
            *out = (cs_log_level)i;
            return 0;
        }
    }
    snprintf(why, n, "unknown log level '%.40s' (valid: off, summary, calls)", s);
    return -1;
}

int cs_cfg_parse_library(const char *s, int *out, char *why, size_t n)
{
    const int library = cs_library_parse(s);

    if (library < 0) {
        snprintf(why, n, "unknown library '%.40s' (valid: auto, mpich, openmpi, smpi-mpich, smpi-ompi)", s);
        return -1;
    }
    *out = library;
    return 0;
}

static void cs_alg_names(cs_coll coll, char *buf, size_t size);
static void cs_choice_set(cs_coll_config *cc, cs_choice choice, const cs_alg *alg, const cs_params *params);
static void cs_pick_set(cs_choice *choice, const cs_alg **alg, cs_params *params, cs_choice c, const cs_alg *a,
                        const cs_params *given);

/* window.method: auto, or a row of the window collective, which takes no arguments. */
int cs_cfg_parse_window_method(const char *s, cs_coll_config *cc, char *why, size_t n)
{
    const char *why_lookup = NULL;
    cs_params params;
    const cs_alg *alg = strchr(s, ':') ? NULL : cs_alg_lookup(CS_COLL_WINDOW, s, &params, &why_lookup);
    char names[160];

    if (strcasecmp(s, "auto") == 0) {
        cs_choice_set(cc, CS_CHOICE_AUTO, NULL, NULL);
        return 0;
    }
    if (alg) {
        cs_choice_set(cc, CS_CHOICE_FORCED, alg, &params);
        return 0;
    }
    cs_alg_names(CS_COLL_WINDOW, names, sizeof names);
    snprintf(why, n, "unknown window method '%.40s' (valid: %s)", s, names);
    return -1;
}

int cs_cfg_parse_log_file(const char *s, char *out, char *why, size_t n)
{
    if (*s == '\0') {
        snprintf(why, n, "empty log file (use stderr or a path)");
        return -1;
    }
    if (strlen(s) >= PATH_MAX) {
        snprintf(why, n, "log file pattern longer than %d bytes", PATH_MAX - 1);
        return -1;
    }
    /* Checked here, once, so that the log never meets a pattern it cannot expand. */
    for (const char *c = strchr(s, '%'); c; c = strchr(c + 2, '%')) {
        if (c[1] != 'r' && c[1] != 'p' && c[1] != '%') {
            if (c[1] == '\0')
                snprintf(why, n, "log file pattern ends with a lone '%%' (use %%%% for a percent)");
            else
                snprintf(why, n, "unknown escape '%%%c' in log file pattern (valid: %%r, %%p, %%%%)", c[1]);
            return -1;
        }
    }
    strcpy(out, s);
    return 0;
}

/* ---- algorithm choice --------------------------------------------------- */

static int cs_name_is(const char *name, size_t len, const char *word)
{
    return strlen(word) == len && strncmp(name, word, len) == 0;
}

/* The collective whose table has this name, preferring coll; CS_COLL_LAST if none. */
static cs_coll cs_alg_owner(cs_coll coll, const char *name, size_t len)
{
    for (int k = 0; k < CS_COLL_LAST; k++) {
        cs_coll c = (cs_coll)((coll + k) % CS_COLL_LAST);
        int n = 0;
        const cs_alg *const *table = cs_alg_table(c, &n);
        for (int i = 0; i < n; i++)
            if (cs_name_is(name, len, table[i]->name))
                return c;
    }
    return CS_COLL_LAST;
}

/* "auto, native, direct, ..." for an error message; truncated if it must be. */
static void cs_alg_names(cs_coll coll, char *buf, size_t size)
{
    int n = 0;
    const cs_alg *const *table = cs_alg_table(coll, &n);
    size_t used = (size_t)snprintf(buf, size, "auto");

    for (int i = 0; i < n && used < size; i++)
        if (strcmp(table[i]->name, "auto") != 0)
            used += (size_t)snprintf(buf + used, size - used, ", %s", table[i]->name);
}

static void cs_choice_set(cs_coll_config *cc, cs_choice choice, const cs_alg *alg, const cs_params *params)
{
    cs_pick_set(&cc->choice, &cc->alg, &cc->params, choice, alg, params);
}

int cs_cfg_parse_choice(cs_coll coll, const char *spec, cs_coll_config *cc, char *why, size_t n)
{
    return cs_cfg_parse_pick(coll, spec, &cc->choice, &cc->alg, &cc->params, why, n);
}

static void cs_pick_set(cs_choice *choice, const cs_alg **alg, cs_params *params, cs_choice c, const cs_alg *a,
                        const cs_params *given)
{
    *choice = c;
    *alg = a;
    if (given)
        *params = *given;
    else
        cs_params_init(params);
}

int cs_cfg_parse_pick(cs_coll coll, const char *spec, cs_choice *choice, const cs_alg **pick, cs_params *pick_params,
                      char *why, size_t n)
{
    size_t len = strcspn(spec, ":");
    const char *why_lookup = NULL;
    const cs_alg *alg;
    cs_params params;
    cs_coll owner;
    char names[160];

    if (len == 0) {
        snprintf(why, n, "expected auto, native or an algorithm name, got '%.40s'", spec);
        return -1;
    }
    /* The two keywords are ours, not rows of the table: they take no arguments. */
    if (cs_name_is(spec, len, "auto") || cs_name_is(spec, len, "native")) {
        if (spec[len] == ':') {
            snprintf(why, n, "'%.*s' takes no arguments", (int)len, spec);
            return -1;
        }
        cs_pick_set(choice, pick, pick_params, spec[0] == 'a' ? CS_CHOICE_AUTO : CS_CHOICE_NATIVE, NULL, NULL);
        return 0;
    }
    cs_params_init(&params);
    alg = cs_alg_lookup(coll, spec, &params, &why_lookup);
    if (alg) {
        cs_pick_set(choice, pick, pick_params, CS_CHOICE_FORCED, alg, &params);
        return 0;
    }
    owner = cs_alg_owner(coll, spec, len);
    if (owner == coll) {
        snprintf(why, n, "bad arguments for %.*s: %s", (int)len, spec, why_lookup ? why_lookup : "rejected");
        return -1;
    }
    cs_alg_names(coll, names, sizeof names);
    if (owner != CS_COLL_LAST)
        snprintf(why, n, "'%.*s' is for %s, not %s (known: %s)", (int)len, spec, cs_coll_name(owner),
                 cs_coll_name(coll), names);
    else
        snprintf(why, n, "unknown algorithm '%.*s' (known: %s)", len > 40 ? 40 : (int)len, spec, names);
    return -1;
}

/* ---- numbers and sizes -------------------------------------------------- */

static int cs_is_word(const char *s, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(s, words[i]) == 0)
            return 1;
    return 0;
}

static int cs_is_inf(const char *s)
{
    static const char *const infs[] = {".inf", "+.inf", "inf", "+inf", "infinity"};
    return cs_is_word(s, infs, sizeof infs / sizeof infs[0]);
}

/* A decimal number; YAML's and C's spellings of infinity and NaN are named as such. */
int cs_cfg_parse_number(const char *s, double *out, char *why, size_t n)
{
    static const char *const nonfinite[] = {"-.inf", "-inf", ".nan", "nan"};
    char *end;

    if (cs_is_inf(s) || cs_is_word(s, nonfinite, sizeof nonfinite / sizeof nonfinite[0])) {
        snprintf(why, n, "must be finite, got '%.40s'", s);
        return -1;
    }
    /* Only decimal digits: strtod would also take hex floats and "nan(...)". */
    *out = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || strspn(s, "0123456789+-.eE") != strlen(s)) {
        snprintf(why, n, "expected a number, got '%.40s'", s);
        return -1;
    }
    if (!isfinite(*out)) {
        snprintf(why, n, "out of range: '%.40s'", s);
        return -1;
    }
    return 0;
}

/* Digits into a size_t; 0, or -1 on overflow. *end is past the digits. */
static int cs_parse_digits(const char *s, size_t *out, const char **end)
{
    size_t v = 0;

    for (; isdigit((unsigned char)*s); s++) {
        size_t d = (size_t)(*s - '0');
        if (v > (SIZE_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    *end = s;
    return 0;
}

/* K, M, G, T, binary; each may be followed by B, i or iB. -1 if not a suffix. */
static int cs_size_shift(const char *suffix)
{
    static const char prefixes[] = "KMGT";
    static const char *const tails[] = {"", "B", "i", "iB"};
    const char *at;

    if (*suffix == '\0' || strcasecmp(suffix, "B") == 0)
        return 0;
    at = strchr(prefixes, toupper((unsigned char)*suffix));
    if (!at || !cs_is_word(suffix + 1, tails, sizeof tails / sizeof tails[0]))
        return -1;
    return 10 * (int)(at - prefixes + 1);
}

/* "4096", "64K", "1 MiB"; inf (SIZE_MAX) only where allowed. */
int cs_cfg_parse_size(const char *s, int allow_inf, size_t *out, char *why, size_t n)
{
    const char *end;
    size_t v;
    int shift;

    if (cs_is_inf(s)) {
        if (allow_inf) {
            *out = SIZE_MAX;
            return 0;
        }
        snprintf(why, n, "inf is only valid as the upper bound of a range");
        return -1;
    }
    if (*s == '-') {
        snprintf(why, n, "must be >= 0, got '%.40s'", s);
        return -1;
    }
    if (!isdigit((unsigned char)*s)) {
        snprintf(why, n, "expected a size in bytes (e.g. 4096, 64K, 1MiB), got '%.40s'", s);
        return -1;
    }
    if (cs_parse_digits(s, &v, &end) != 0)
        goto too_large;
    while (*end == ' ')
        end++;
    if ((shift = cs_size_shift(end)) < 0) {
        snprintf(why, n, "unknown size suffix '%.20s' in '%.40s' (use K, M, G, T: powers of 1024)", end, s);
        return -1;
    }
    if (v > (SIZE_MAX >> shift))
        goto too_large;
    *out = v << shift;
    return 0;
too_large:
    snprintf(why, n, "size too large: '%.40s'", s);
    return -1;
}

/* A count of ranks, 0 to max: digits only. */
int cs_cfg_parse_count(const char *s, int max, int *out, char *why, size_t n)
{
    const char *end;
    size_t v;

    if (!isdigit((unsigned char)*s) || cs_parse_digits(s, &v, &end) != 0 || *end != '\0') {
        snprintf(why, n, "expected a count of ranks, 0 to %d, got '%.40s'", max, s);
        return -1;
    }
    if (v > (size_t)max) {
        snprintf(why, n, "must be at most %d, got %.40s", max, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int cs_cfg_parse_rank(const char *s, int *out, char *why, size_t n)
{
    const char *end;
    size_t v;

    if (*s == '-' && isdigit((unsigned char)s[1])) {
        snprintf(why, n, "must be >= 0, got %.40s", s);
        return -1;
    }
    if (!isdigit((unsigned char)*s) || cs_parse_digits(s, &v, &end) != 0 || *end != '\0' || v > INT_MAX) {
        snprintf(why, n, "expected all, a rank or a list of ranks, got '%.40s'", s);
        return -1;
    }
    *out = (int)v;
    return 0;
}
