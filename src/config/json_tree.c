/*
 * A JSON reader for selection files (json_tree.h): objects of objects, keys
 * as strings with escapes kept as written, whitespace between. Anything else
 * (an array, a number, a string as a value) is an error at its position, as
 * MPICH's reader asserts on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/json_tree.h"

typedef struct cs_json_reader {
    const char *s;
    size_t len, at;
    int line;
    size_t line_start;
    cs_json_tree *tree;
    int *err_line, *err_col;
    char *why;
    size_t nwhy;
} cs_json_reader;

static int cs_json_fail(cs_json_reader *r, const char *what)
{
    *r->err_line = r->line;
    *r->err_col = (int)(r->at - r->line_start) + 1;
    snprintf(r->why, r->nwhy, "%s", what);
    return -1;
}

static void cs_json_space(cs_json_reader *r)
{
    while (r->at < r->len && strchr(" \t\r\n", r->s[r->at])) {
        if (r->s[r->at] == '\n') {
            r->line++;
            r->line_start = r->at + 1;
        }
        r->at++;
    }
}

static int cs_json_member_new(cs_json_reader *r)
{
    cs_json_tree *t = r->tree;
    if (t->n == t->cap) {
        const int cap = t->cap ? 2 * t->cap : 64;
        cs_json_member *m = realloc(t->members, (size_t)cap * sizeof *m);
        if (!m)
            return cs_json_fail(r, "out of memory");
        t->members = m;
        t->cap = cap;
    }
    return t->n++;
}

/* An object at r->at ('{'); its first member into *first (-1: none). */
static int cs_json_object(cs_json_reader *r, int *first, int depth)
{
    int prev = -1;
    *first = -1;
    if (depth > 64)
        return cs_json_fail(r, "objects nested more than 64 deep");
    r->at++; /* '{' */
    cs_json_space(r);
    if (r->at < r->len && r->s[r->at] == '}') {
        r->at++;
        return 0;
    }
    for (;;) {
        cs_json_space(r);
        if (r->at >= r->len || r->s[r->at] != '"')
            return cs_json_fail(r, r->at >= r->len ? "the text ends inside an object" : "expected a key in quotes");
        const int i = cs_json_member_new(r);
        if (i < 0)
            return -1;
        cs_json_member *m = &r->tree->members[i];
        m->start = r->at;
        m->line = r->line;
        m->col = (int)(r->at - r->line_start) + 1;
        m->key = ++r->at;
        while (r->at < r->len && r->s[r->at] != '"' && r->s[r->at] != '\n')
            r->at += r->s[r->at] == '\\' ? 2 : 1;
        if (r->at >= r->len || r->s[r->at] != '"')
            return cs_json_fail(r, "a key's closing quote is missing");
        m->key_len = r->at - m->key;
        m->next = -1;
        r->at++;
        cs_json_space(r);
        if (r->at >= r->len || r->s[r->at] != ':')
            return cs_json_fail(r, "expected ':' after a key");
        r->at++;
        cs_json_space(r);
        if (r->at >= r->len || r->s[r->at] != '{')
            return cs_json_fail(r, "expected an object as the value (MPICH's selection takes nothing else)");
        r->tree->members[i].value = r->at;
        int child;
        if (cs_json_object(r, &child, depth + 1) != 0)
            return -1;
        r->tree->members[i].first_child = child;
        r->tree->members[i].end = r->at;
        if (prev < 0)
            *first = i;
        else
            r->tree->members[prev].next = i;
        prev = i;
        cs_json_space(r);
        if (r->at < r->len && r->s[r->at] == ',') {
            r->at++;
            continue;
        }
        if (r->at < r->len && r->s[r->at] == '}') {
            r->at++;
            return 0;
        }
        return cs_json_fail(r, r->at >= r->len ? "the text ends inside an object" : "expected ',' or '}'");
    }
}

int cs_json_parse(const char *text, size_t len, cs_json_tree *tree, int *line, int *col, char *why, size_t n)
{
    cs_json_reader r = {
        .s = text, .len = len, .line = 1, .tree = tree, .err_line = line, .err_col = col, .why = why, .nwhy = n};
    memset(tree, 0, sizeof *tree);
    tree->text = text;
    tree->first = -1;
    cs_json_space(&r);
    if (r.at >= r.len || r.s[r.at] != '{')
        return cs_json_fail(&r, r.at >= r.len ? "the file is empty" : "expected '{' to begin the file");
    if (cs_json_object(&r, &tree->first, 0) != 0)
        return -1;
    cs_json_space(&r);
    if (r.at < r.len && r.s[r.at] != '\0')
        return cs_json_fail(&r, "text after the closing '}'");
    return 0;
}

void cs_json_free(cs_json_tree *tree)
{
    free(tree->members);
    tree->members = NULL;
    tree->n = tree->cap = 0;
}

int cs_json_key_is(const cs_json_tree *tree, int i, const char *key)
{
    const cs_json_member *m = &tree->members[i];
    return strlen(key) == m->key_len && !memcmp(tree->text + m->key, key, m->key_len);
}

int cs_json_find(const cs_json_tree *tree, int first, const char *key)
{
    for (int i = first; i >= 0; i = tree->members[i].next)
        if (cs_json_key_is(tree, i, key))
            return i;
    return -1;
}
