/*
 * Configuration: read once, at MPI_Init, into a plain struct. Sources, later
 * ones winning: the built-in defaults, the YAML file named by COLLSHIM_CONFIG,
 * the COLLSHIM_* environment variables. collshim.yaml.example documents every
 * key.
 */
#ifndef CS_CONFIG_H
#define CS_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "coll/coll.h"
#include "common.h"
#include "model/hull.h"

#define CS_MAX_RANGES 16
#define CS_MAX_LOG_RANKS 64
#define CS_MAX_HULLS 8  /* alltoall.hull: communicator sizes with configured faces */
#define CS_MAX_RULES 48 /* <coll>.rules */

/* A closed range of message sizes in bytes; hi == SIZE_MAX: no upper bound. */
typedef struct cs_range {
    size_t lo, hi;
} cs_range;

typedef enum cs_choice {
    CS_CHOICE_AUTO,   /* the model and the breakpoints decide */
    CS_CHOICE_NATIVE, /* always the MPI library's collective */
    CS_CHOICE_FORCED  /* one of our algorithms, with parameters */
} cs_choice;

/* One of <coll>.rules: for p in [p_lo, p_hi] and messages in bytes, this
 * choice (native, an algorithm, or auto: the model decides). The first rule
 * that holds decides. */
typedef struct cs_rule {
    int p_lo, p_hi;
    cs_range bytes;
    cs_choice choice;
    const cs_alg *alg; /* CS_CHOICE_FORCED */
    cs_params params;
    int line; /* where it is in the file, for the log */
} cs_rule;

typedef struct cs_coll_config {
    cs_choice choice;
    const cs_alg *alg;              /* CS_CHOICE_FORCED: the algorithm */
    cs_params params;               /* CS_CHOICE_FORCED: its parameters as given */
    int from_env;                   /* the choice came from COLLSHIM_<COLL> */
    cs_range native[CS_MAX_RANGES]; /* sizes where the MPI library is kept, sorted, disjoint */
    int nnative;
    cs_hull_given hull[CS_MAX_HULLS]; /* alltoall: the hull's faces given per p, distinct d */
    int nhulls;
    cs_rule rules[CS_MAX_RULES]; /* in the file's order */
    int nrules;
} cs_coll_config;

typedef enum cs_log_level { CS_LOG_OFF, CS_LOG_SUMMARY, CS_LOG_CALLS } cs_log_level;

typedef struct cs_config {
    cs_model model;
    cs_coll_config coll[CS_COLL_COUNT]; /* the window's: window.method (auto or forced) */
    cs_log_level log_level;
    char log_file[PATH_MAX]; /* pattern: %r rank, %p pid, %% percent; "stderr" */
    int log_all_ranks;       /* 1: every rank logs; else the ranks listed */
    int log_ranks[CS_MAX_LOG_RANKS];
    int nlog_ranks;
    int strict;            /* a configuration error aborts instead of falling back */
    int reproducible;      /* only rank-invariant results (default 1) */
    char source[PATH_MAX]; /* the file read, "" for the built-in defaults */
    /* This process says on stderr what every rank finds alike (a forced
     * algorithm that cannot run, src/select/warn.c): the shim sets it on
     * rank 0 of MPI_COMM_WORLD alone; 0 in the defaults (the tools, the
     * tests). Not a key of the file. */
    int says;
} cs_config;

typedef struct cs_config_error {
    char file[PATH_MAX]; /* the file, or "environment" */
    int line, column;    /* 1-based; the variable's name stands in for env */
    char message[512];
} cs_config_error;

/* The built-in defaults: one shared-memory node, every collective auto,
 * logging off, not strict. */
void cs_config_defaults(cs_config *cfg);

/* Read a YAML file over *cfg. 0, or -1 with *err filled. */
int cs_config_load(const char *path, cs_config *cfg, cs_config_error *err);

/* Apply the COLLSHIM_* environment variables over *cfg. 0, or -1 with *err. */
int cs_config_apply_env(cs_config *cfg, cs_config_error *err);

/* Apply one COLLSHIM_* variable over *cfg (nothing if unset or empty). 0 or -1. */
int cs_config_env_apply_one(cs_config *cfg, const char *name, cs_config_error *err);

/* Unknown COLLSHIM_* variables, in an environment of "NAME=value" entries ending with NULL: one
 * line each on out, "collshim: unknown variable NAME (did you mean KNOWN?); ignored", and their
 * number; or the first as a configuration error (-1 with *err; 0 if none). The parts: whether
 * name[0..len) is a variable collshim or its scripts read, the known name nearest it (NULL:
 * none near), and the edit distance of two names (case ignored, a swap of neighbours one edit). */
int cs_config_env_warn_unknown(const char *const *env, FILE *out);
int cs_config_env_check_unknown(const char *const *env, cs_config_error *err);
int cs_config_env_known(const char *name, size_t len);
const char *cs_config_env_nearest(const char *name, size_t len);
size_t cs_config_env_distance(const char *a, size_t n, const char *b, size_t m);

/*
 * Everything MPI_Init needs: defaults, then COLLSHIM_CONFIG, then the
 * environment. On an error, *cfg is the defaults with every collective
 * native (logging as the environment asks where that is valid, strict if
 * COLLSHIM_STRICT or the file says so) and -1 is returned with *err.
 */
int cs_config_init(cs_config *cfg, cs_config_error *err);

/* Write *cfg as YAML that cs_config_load reads back into the same values
 * (every key; the log file pattern and hull partitions as given). 0, or -1
 * on a write error. */
int cs_config_write(FILE *f, const cs_config *cfg);

/* "FILE:LINE:COL: message" */
void cs_config_error_format(const cs_config_error *err, char *buf, size_t size);

/* After cs_config_init failed on this rank (of MPI_COMM_WORLD): say why on
 * stderr (rank 0; under strict, any rank whose job rank 0 has not ended
 * within a grace period). 1 where the caller must abort (strict). */
int cs_config_report(const cs_config *cfg, const cs_config_error *err, int world_rank);

/* Price the library the program runs on (running: cs_library_detect's),
 * where the configuration says auto or names the other real library (then,
 * if say, one line on stderr naming the file). COLLSHIM_LIBRARY and the
 * simulated libraries stand. 1 where the configuration was overridden. */
int cs_config_library_running(cs_config *cfg, int running, int say);

/* Is a message size in one of the native ranges of a collective? */
int cs_config_native_range(const cs_coll_config *cc, size_t bytes);

#endif
