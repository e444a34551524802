/*
 * A JSON reader for MPICH's collective selection files (config/library_rules.c,
 * the exporter): objects whose values are objects, as MPICH's own reader
 * (csel.c) takes them. Every member keeps where it is in the text, so that a
 * caller can name a line and a column, or copy a member's text whole.
 */
#ifndef CS_JSON_TREE_H
#define CS_JSON_TREE_H

#include <stddef.h>

typedef struct cs_json_member {
    size_t key, key_len;   /* the key's text (without quotes) in the parsed text */
    size_t start, end;     /* the member's text: the key's opening quote to its value's closing brace */
    size_t value;          /* the value's opening brace */
    int line, col;         /* the key's position, from 1 */
    int first_child, next; /* members of the value, the next member of this object: indexes, -1 none */
} cs_json_member;

typedef struct cs_json_tree {
    const char *text;
    cs_json_member *members;
    int n, cap;
    int first; /* the top object's first member, -1: it is empty */
} cs_json_tree;

/*
 * Parse text (len bytes, which the tree points into: keep it while the tree
 * lives). 0, or -1 with *line, *col where it stops and why.
 */
int cs_json_parse(const char *text, size_t len, cs_json_tree *tree, int *line, int *col, char *why, size_t n);
void cs_json_free(cs_json_tree *tree);

/* Does member i's key equal key? */
int cs_json_key_is(const cs_json_tree *tree, int i, const char *key);

/* The member of the object whose first member is first with key key, -1 none. */
int cs_json_find(const cs_json_tree *tree, int first, const char *key);

#endif
