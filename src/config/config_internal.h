/*
 * Private to src/config/: the value parsers (config_value.c) that the YAML
 * file and the environment share, so that "strict: yes" and COLLSHIM_STRICT=yes
 * mean the same thing and fail with the same words.
 *
 * Each parser returns 0, or -1 with a reason (no position, no key name) in
 * why[0..n); the caller adds where the value came from.
 */
#ifndef CS_CONFIG_INTERNAL_H
#define CS_CONFIG_INTERNAL_H

#include <stddef.h>

#include "config/config.h"

/* true/false, yes/no, on/off, 1/0, any case. */
int cs_cfg_parse_bool(const char *s, int *out, char *why, size_t n);

/* off | summary | calls */
int cs_cfg_parse_level(const char *s, cs_log_level *out, char *why, size_t n);
/* model.library: a cs_library name. */
int cs_cfg_parse_library(const char *s, int *out, char *why, size_t n);

/* auto | native | name[:args]: sets choice, alg and params of *cc (not from_env). */
int cs_cfg_parse_choice(cs_coll coll, const char *spec, cs_coll_config *cc, char *why, size_t n);

/* The same into the three fields of a choice (a rule's). */
int cs_cfg_parse_pick(cs_coll coll, const char *spec, cs_choice *choice, const cs_alg **alg, cs_params *params,
                      char *why, size_t n);

/* "stderr" or a path pattern with %r, %p, %%; copied into out[PATH_MAX]. */
/* "auto" (-1) or a window method's name (coll/window/window.h). */
int cs_cfg_parse_window_method(const char *s, cs_coll_config *cc, char *why, size_t n);

int cs_cfg_parse_log_file(const char *s, char *out, char *why, size_t n);

/* A decimal number; YAML's and C's spellings of infinity and NaN are errors. */
int cs_cfg_parse_number(const char *s, double *out, char *why, size_t n);

/* Bytes: "4096", "64K", "1 MiB" (powers of 1024); inf (SIZE_MAX) if allow_inf. */
int cs_cfg_parse_size(const char *s, int allow_inf, size_t *out, char *why, size_t n);

/* A count of ranks, 0 to max (model.ranks_per_node). */
int cs_cfg_parse_count(const char *s, int max, int *out, char *why, size_t n);

/* A rank: a non-negative int. */
int cs_cfg_parse_rank(const char *s, int *out, char *why, size_t n);

/* Fill *err; line 0 means the environment (file is then "environment"). */
void cs_cfg_error(cs_config_error *err, const char *file, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
