/*
 * A reader for the one JSON shape collshim writes: an object per line whose values are strings,
 * numbers, true, false or null. Keys it does not use (op, plan, r, ...) are skipped, arrays and
 * objects among them, so lines with more fields still read, and so do other records (a summary).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logline.h"

/* The fields a call line must have, as bits of the mask cs_logline_parse keeps. */
enum {
    HAVE_COLL = 1,
    HAVE_ALG = 2,
    HAVE_P = 4,
    HAVE_BYTES = 8,
    HAVE_ELAPSED = 16,
    HAVE_COLL_KEY = 32,
    HAVE_NOT_A_CALL = 64
};

static const char *cs_skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return s;
}

/* A JSON string at *s into buf (truncated to size, escapes resolved; \u.... and control
 * characters become '?', so that a name never breaks a line of the report). Advances *s past the
 * closing quote. 0, or -1 if the string does not end on this line. */
static int cs_json_string(const char **s, char *buf, size_t size)
{
    const char *c = *s + 1;
    size_t n = 0;
    for (; *c && *c != '"'; c++) {
        char ch = *c;
        if (ch == '\\') {
            static const char from[] = "\"\\/bfnrtu", to[] = "\"\\/\b\f\n\r\t?";
            const char *e = c[1] ? strchr(from, c[1]) : NULL;
            if (!e || (*e == 'u' && strnlen(c + 2, 4) < 4))
                return -1;
            ch = to[e - from];
            c += *e == 'u' ? 5 : 1;
        }
        if (n + 1 < size)
            buf[n++] = (unsigned char)ch < 0x20 ? '?' : ch;
    }
    buf[n] = '\0';
    if (*c != '"')
        return -1;
    *s = c + 1;
    return 0;
}

/* A number, true, false or null at *s, copied into buf: what runs up to the next ',' or '}'. */
static int cs_json_literal(const char **s, char *buf, size_t size)
{
    size_t n = strcspn(*s, ",} \t\r\n");
    if (n == 0 || n >= size || strchr("\"{[", **s))
        return -1;
    memcpy(buf, *s, n);
    buf[n] = '\0';
    *s += n;
    return 0;
}

static int cs_parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    return *text && !*end && !errno && isfinite(*out) && *out >= 0 ? 0 : -1;
}

static int cs_parse_size(const char *text, size_t *out, size_t max)
{
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10);
    if (!isdigit((unsigned char)*text) || *end || errno || v > max)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* A quoted value that fits; a longer one is refused, never cut (two collectives or algorithms
 * must not read as one). */
static int cs_set_string(char *dst, size_t size, const char *value, int quoted)
{
    const size_t n = strnlen(value, size);
    if (!quoted || n == size)
        return -1;
    memcpy(dst, value, n);
    dst[n] = '\0';
    return 0;
}

static int cs_parse_int(const char *text, int *out)
{
    char *end;
    errno = 0;
    const long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < INT_MIN || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* The keys that mark a record of another kind: rank 0's summary as JSON. */
static int cs_not_a_call(const char *key, const char *value, int quoted)
{
    if (!strcmp(key, "summary"))
        return 1;
    return (!strcmp(key, "record") || !strcmp(key, "type")) && !(quoted && !strcmp(value, "call"));
}

/* Store one key's value into *out; *have gains the field's bit. 0, or -1 for a wrong type. */
static int cs_field_set(const char *key, const char *value, int quoted, cs_logline *out, int *have)
{
    size_t v = 0;
    int bit = 0, rc = 0;
    if (!strcmp(key, "coll")) {
        rc = cs_set_string(out->coll, sizeof out->coll, value, quoted);
        bit = HAVE_COLL;
    } else if (!strcmp(key, "alg")) {
        rc = cs_set_string(out->alg, sizeof out->alg, value, quoted);
        bit = HAVE_ALG;
    } else if (!strcmp(key, "p")) {
        rc = quoted || cs_parse_size(value, &v, INT_MAX) != 0 || v == 0 ? -1 : 0;
        out->p = (int)v;
        bit = HAVE_P;
    } else if (!strcmp(key, "n")) {
        rc = quoted || cs_parse_size(value, &v, INT_MAX) != 0 ? -1 : 0;
        out->n = (int)v;
    } else if (!strcmp(key, "nodes") || !strcmp(key, "share")) {
        rc = quoted || cs_parse_size(value, &v, INT_MAX) != 0 ? -1 : 0;
        *(key[0] == 'n' ? &out->nodes : &out->share) = rc ? (key[0] == 'n' ? -1 : 1) : (int)v;
    } else if (!strcmp(key, "rank") || !strcmp(key, "root")) {
        rc = quoted || cs_parse_int(value, key[1] == 'a' ? &out->rank : &out->root) != 0 ? -1 : 0;
    } else if (!strcmp(key, "bytes")) {
        rc = quoted ? -1 : cs_parse_size(value, &out->bytes, SIZE_MAX);
        bit = HAVE_BYTES;
    } else if (!strcmp(key, "elapsed_s")) {
        rc = quoted ? -1 : cs_parse_double(value, &out->elapsed);
        bit = HAVE_ELAPSED;
    } else if (!strcmp(key, "reason")) {
        rc = quoted ? 0 : -1;
        out->why = cs_why_of(value);
        const size_t n = strnlen(value, sizeof out->reason - 1); /* cut: only class other shows it */
        memcpy(out->reason, value, n);
        out->reason[n] = '\0';
    } else if (!strcmp(key, "predicted_s")) {
        out->predicted = -1;
        rc = quoted ? -1 : strcmp(value, "null") ? cs_parse_double(value, &out->predicted) : 0;
    } else if (cs_not_a_call(key, value, quoted)) {
        bit = HAVE_NOT_A_CALL;
    }
    *have |= (rc == 0 ? bit : 0) | (!strcmp(key, "coll") ? HAVE_COLL_KEY : 0);
    return rc;
}

/* An array or object at *s skipped, *s past its end (a summary record's rows). 0, or -1 if it
 * does not close on this line. */
static int cs_json_skip_nested(const char **s)
{
    char scratch[8];
    const char *c = *s;
    for (int depth = 0; *c;) {
        if (*c == '"') {
            if (cs_json_string(&c, scratch, sizeof scratch) != 0)
                return -1;
            continue;
        }
        depth += (*c == '[' || *c == '{') - (*c == ']' || *c == '}');
        c++;
        if (depth == 0) {
            *s = c;
            return 0;
        }
    }
    return -1;
}

/* One value at *s into value: a string (*quoted), a literal, or "[...]" for an array or object. */
static int cs_json_value(const char **s, char *value, size_t size, int *quoted)
{
    *quoted = **s == '"';
    if (*quoted)
        return cs_json_string(s, value, size);
    if (**s == '[' || **s == '{') {
        snprintf(value, size, "[...]");
        return cs_json_skip_nested(s);
    }
    return cs_json_literal(s, value, size);
}

/* The pairs of the object after its '{': "key":value, ... up to the closing '}'. 0, or -1 with
 * what is wrong in why. A value of the wrong type is reported in why (the first) and *bad set,
 * and the reading goes on: the object may turn out not to be a call. */
static int cs_parse_pairs(const char *s, cs_logline *out, int *have, int *bad, char *why, size_t whysize)
{
    char key[32], value[256];
    s = cs_skip_space(s);
    while (*s != '}') {
        int quoted;
        if (*s != '"' || cs_json_string(&s, key, sizeof key) != 0)
            goto malformed;
        s = cs_skip_space(s);
        if (*s != ':')
            goto malformed;
        s = cs_skip_space(s + 1);
        if (cs_json_value(&s, value, sizeof value, &quoted) != 0)
            goto malformed;
        if (cs_field_set(key, value, quoted, out, have) != 0 && !(*bad)++)
            snprintf(why, whysize, "\"%s\": unexpected value %s%s%s", key, quoted ? "\"" : "", value,
                     quoted ? "\"" : "");
        s = cs_skip_space(s);
        if (*s == ',')
            s = cs_skip_space(s + 1);
        else if (*s != '}')
            goto malformed;
    }
    if (!*cs_skip_space(s + 1))
        return 0;
    snprintf(why, whysize, "text after the object");
    return -1;
malformed:
    snprintf(why, whysize, "malformed JSON object");
    return -1;
}

cs_line_kind cs_logline_parse(const char *line, cs_logline *out, char *why, size_t whysize)
{
    static const struct {
        int bit;
        const char *name;
    } required[] = {
        {HAVE_COLL, "coll"}, {HAVE_ALG, "alg"}, {HAVE_P, "p"}, {HAVE_BYTES, "bytes"}, {HAVE_ELAPSED, "elapsed_s"}};
    int have = 0, bad = 0;
    const char *s = cs_skip_space(line);
    if (*s != '{')
        return CS_LINE_OTHER;
    memset(out, 0, sizeof *out);
    out->predicted = -1;
    out->rank = out->root = -1;
    out->nodes = -1;
    out->share = 1;
    out->why = CS_WHY_OTHER;
    if (cs_parse_pairs(s + 1, out, &have, &bad, why, whysize) != 0)
        return CS_LINE_BAD;
    if (!(have & HAVE_COLL_KEY) || (have & HAVE_NOT_A_CALL))
        return CS_LINE_OTHER;
    if (bad)
        return CS_LINE_BAD;
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!(have & required[i].bit)) {
            snprintf(why, whysize, "no \"%s\"", required[i].name);
            return CS_LINE_BAD;
        }
    return CS_LINE_CALL;
}
