/*
 * The configuration module: the YAML file (one fixture per kind of bad
 * input, each with the exact position and words of its error), sizes and
 * ranges, the environment, the order of the sources and the fallback after
 * an error. Runs from the repository root.
 */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/window/window.h"
#include "config/config.h"
#include "config/config_internal.h"

#ifndef CS_FIXTURES
#define CS_FIXTURES "tests/fixtures/config"
#endif
#ifndef CS_TOPDIR
#define CS_TOPDIR "."
#endif

#define NELEMS(a) (int)(sizeof(a) / sizeof((a)[0]))
#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

Suite *make_config_suite(void);

static const char *const env_names[] = {
    "COLLSHIM_CONFIG", "COLLSHIM_LOG",    "COLLSHIM_LOG_LEVEL",     "COLLSHIM_ALLTOALL", "COLLSHIM_ALLREDUCE",
    "COLLSHIM_REDUCE", "COLLSHIM_STRICT", "COLLSHIM_WINDOW_METHOD", "COLLSHIM_LIBRARY",
};

/* Each test starts from an empty COLLSHIM_* environment, whatever the runner's. */
static void clear_env(void)
{
    for (int i = 0; i < NELEMS(env_names); i++)
        unsetenv(env_names[i]);
}

static void fixture_path(char *buf, const char *name)
{
    snprintf(buf, PATH_MAX, "%s/%s", CS_FIXTURES, name);
}

/* The fields that mean something (padding and unused slots aside). */
static void assert_config_eq(const cs_config *a, const cs_config *b)
{
    ck_assert(a->model.alpha == b->model.alpha && a->model.beta == b->model.beta);
    ck_assert(a->model.rho == b->model.rho && a->model.gamma == b->model.gamma);
    ck_assert_int_eq(a->model.library, b->model.library);
    for (int c = 0; c < CS_COLL_LAST; c++) {
        const cs_coll_config *x = &a->coll[c], *y = &b->coll[c];
        ck_assert_int_eq(x->choice, y->choice);
        ck_assert_ptr_eq(x->alg, y->alg);
        ck_assert_int_eq(x->from_env, y->from_env);
        ck_assert_int_eq(x->nnative, y->nnative);
        for (int i = 0; i < x->nnative; i++)
            ck_assert(x->native[i].lo == y->native[i].lo && x->native[i].hi == y->native[i].hi);
    }
    ck_assert_int_eq(a->log_level, b->log_level);
    ck_assert_str_eq(a->log_file, b->log_file);
    ck_assert_int_eq(a->log_all_ranks, b->log_all_ranks);
    ck_assert_int_eq(a->nlog_ranks, b->nlog_ranks);
    for (int i = 0; i < a->nlog_ranks; i++)
        ck_assert_int_eq(a->log_ranks[i], b->log_ranks[i]);
    ck_assert_int_eq(a->strict, b->strict);
    ck_assert_int_eq(a->reproducible, b->reproducible);
    ck_assert_str_eq(a->source, b->source);
}

static void assert_message(const cs_config_error *err, const char *part)
{
    ck_assert_msg(strstr(err->message, part) != NULL, "message '%s' lacks '%s'", err->message, part);
}

/* ---- defaults ------------------------------------------------------------- */

START_TEST(test_defaults)
{
    cs_config cfg;

    cs_config_defaults(&cfg);
    ck_assert(cfg.model.alpha == 1.0e-6 && cfg.model.beta == 2.0e-10);
    ck_assert(cfg.model.rho == 1.0e-10 && cfg.model.gamma == 2.5e-10);
    for (int c = 0; c < CS_COLL_LAST; c++) {
        ck_assert_int_eq(cfg.coll[c].choice, CS_CHOICE_AUTO);
        ck_assert_int_eq(cfg.coll[c].nnative, 0);
        ck_assert_int_eq(cfg.coll[c].from_env, 0);
    }
    ck_assert_int_eq(cfg.log_level, CS_LOG_OFF);
    ck_assert_str_eq(cfg.log_file, "stderr");
    ck_assert_int_eq(cfg.log_all_ranks, 1);
    ck_assert_int_eq(cfg.strict, 0);
    ck_assert_int_eq(cfg.reproducible, 1);
    ck_assert_str_eq(cfg.source, "");
}
END_TEST

/* ---- good files ------------------------------------------------------------ */

START_TEST(test_good_file)
{
    char path[PATH_MAX];
    cs_config cfg;
    cs_config_error err;
    const cs_coll_config *a2a, *ar, *red;

    fixture_path(path, "good.yaml");
    cs_config_defaults(&cfg);
    ck_assert_int_eq(cs_config_load(path, &cfg, &err), 0);
    ck_assert(cfg.model.alpha == 2.5e-6 && cfg.model.beta == 4.0e-10);
    ck_assert(cfg.model.rho == 3.0e-10 && cfg.model.gamma == 5.0e-10);
    ck_assert(cfg.model.overhead == 3.0e-7 && cfg.model.margin == 0.25);
    ck_assert_int_eq(cfg.model.library, CS_LIBRARY_OPENMPI);
    ck_assert(cfg.model.node_levels && cfg.model.alpha_node == 4.0e-7 && cfg.model.beta_node == 1.0e-10);
    ck_assert_int_eq(cfg.model.node_pairs, 1);
    ck_assert(cfg.model.beta_link == 6.0e-11 && cfg.model.beta_core == 8.0e-10);
    ck_assert_int_eq(cfg.model.ranks_per_node, 16);
    ck_assert(cfg.model.rendezvous_from == 65536);
    ck_assert(cfg.model.distance == CS_DISTANCE_DIFFERENCE && cfg.model.alpha_hop == 2.0e-7);
    ck_assert(cfg.model.bands && cfg.model.bands->n == 2);
    ck_assert(cfg.model.bands->band[0].from == 1024 && cfg.model.bands->band[0].alpha_factor == 1.5 &&
              cfg.model.bands->band[0].beta_factor == 2.0);
    ck_assert(cfg.model.bands->band[1].from == 65536 && cfg.model.bands->band[1].alpha_factor == 11.6436 &&
              cfg.model.bands->band[1].beta_factor == 0.86);

    a2a = &cfg.coll[CS_COLL_ALLTOALL];
    ck_assert_int_eq(a2a->choice, CS_CHOICE_FORCED);
    ck_assert_str_eq(a2a->alg->name, "direct");
    ck_assert_int_eq(a2a->from_env, 0);
    ck_assert_int_eq(a2a->nnative, 2); /* sorted, [0,64] and [65,128] merged */
    ck_assert(a2a->native[0].lo == 0 && a2a->native[0].hi == 128);
    ck_assert(a2a->native[1].lo == MiB && a2a->native[1].hi == SIZE_MAX);

    ar = &cfg.coll[CS_COLL_ALLREDUCE];
    ck_assert_int_eq(ar->choice, CS_CHOICE_FORCED);
    ck_assert_str_eq(ar->alg->name, "butterfly");
    ck_assert_int_eq(ar->params.b, 4096);
    ck_assert_int_eq(ar->nnative, 1);
    ck_assert(ar->native[0].lo == 4 * KiB && ar->native[0].hi == 8 * KiB);

    red = &cfg.coll[CS_COLL_REDUCE];
    ck_assert_int_eq(red->choice, CS_CHOICE_NATIVE);
    ck_assert_int_eq(red->nnative, 0);

    ck_assert_int_eq(cfg.log_level, CS_LOG_SUMMARY);
    ck_assert_str_eq(cfg.log_file, "collshim.%r.%p.%%.log");
    ck_assert_int_eq(cfg.log_all_ranks, 0);
    ck_assert_int_eq(cfg.nlog_ranks, 2); /* [3, 0, 3]: sorted, unique */
    ck_assert_int_eq(cfg.log_ranks[0], 0);
    ck_assert_int_eq(cfg.log_ranks[1], 3);
    ck_assert_int_eq(cfg.strict, 1);
    ck_assert_int_eq(cfg.reproducible, 0);
    ck_assert_str_eq(cfg.source, path);
}
END_TEST

/* alltoall.hull: faces per p, in the order given, sizes with suffixes. */
START_TEST(test_hull_file)
{
    char path[PATH_MAX];
    cs_config cfg;
    cs_config_error err;

    fixture_path(path, "good_hull.yaml");
    cs_config_defaults(&cfg);
    ck_assert_int_eq(cs_config_load(path, &cfg, &err), 0);
    const cs_coll_config *a2a = &cfg.coll[CS_COLL_ALLTOALL];
    ck_assert_int_eq(a2a->nhulls, 2);
    const cs_hull_given *h = &a2a->hull[0];
    ck_assert_int_eq(h->d, 6);
    ck_assert_int_eq(h->nfaces, 4);
    const size_t first[4] = {0, 13, KiB, 2 * KiB};
    const int nparts[4] = {6, 3, 2, 1}, part0[4] = {1, 2, 3, 6};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(h->face[i].first, first[i]);
        ck_assert_int_eq(h->face[i].nparts, nparts[i]);
        ck_assert_int_eq(h->face[i].parts[0], part0[i]);
    }
    h = &a2a->hull[1];
    ck_assert(h->d == 3 && h->nfaces == 2 && h->face[1].first == 100);
    ck_assert(h->face[0].nparts == 2 && h->face[0].parts[0] == 1 && h->face[0].parts[1] == 2);
}
END_TEST

START_TEST(test_empty_file)
{
    char path[PATH_MAX];
    cs_config cfg, defaults;
    cs_config_error err;

    fixture_path(path, "empty.yaml");
    cs_config_defaults(&cfg);
    cs_config_defaults(&defaults);
    ck_assert_int_eq(cs_config_load(path, &cfg, &err), 0);
    snprintf(defaults.source, sizeof defaults.source, "%s", path);
    assert_config_eq(&cfg, &defaults);
}
END_TEST

/* The shipped files must load: users start from them. */
static const char *const shipped[] = {
    "collshim.yaml.example", "config/paper-bokhari.yaml", "config/paper-rabenseifner.yaml",
    "config/laptop.yaml",    "config/cluster.yaml",
};

START_TEST(test_shipped_file)
{
    char path[PATH_MAX], msg[PATH_MAX + 300];
    cs_config cfg;
    cs_config_error err;
    int rc;

    snprintf(path, sizeof path, "%s/%s", CS_TOPDIR, shipped[_i]);
    cs_config_defaults(&cfg);
    rc = cs_config_load(path, &cfg, &err);
    if (rc != 0)
        cs_config_error_format(&err, msg, sizeof msg);
    ck_assert_msg(rc == 0, "%s", msg);
    ck_assert(cfg.model.alpha > 0 && cfg.model.beta > 0 && cfg.model.rho > 0);
}
END_TEST

/* ---- bad files: one fixture per kind of mistake ----------------------------- */

static const struct bad_case {
    const char *file;
    int line, column;
    const char *message;
    int strict; /* strict as far as the file could be read */
} bad_cases[] = {
    {"bad_syntax.yaml", 3, 8, "syntax error: mapping values are not allowed", 0},
    {"bad_syntax_after_strict.yaml", 5, 1, "syntax error: did not find expected ',' or ']'", 1},
    {"bad_utf8.yaml", 2, 13, "cannot decode the file: invalid leading UTF-8 octet", 0},
    {"bad_alias.yaml", 2, 14, "undefined alias", 0},
    {"bad_two_documents.yaml", 3, 1, "a second YAML document", 1},
    {"bad_top_list.yaml", 1, 1, "top level: expected a mapping of keys, got a list", 0},
    {"bad_complex_key.yaml", 1, 3, "expected a key name, got a list", 0},
    {"bad_top_key.yaml", 3, 1,
     "unknown key 'modle' in the top level (valid: model, alltoall, allreduce, reduce, log, "
     "window, strict, reproducible)",
     0},
    {"bad_nested_key.yaml", 3, 3,
     "unknown key 'betta' in model (valid: alpha, beta, rho, gamma, overhead, alpha_node, beta_node, node_paths, "
     "beta_link, beta_core, ranks_per_node, placement, link_share, rendezvous_from, distance, alpha_hop, bands, "
     "margin, library, library_rules)",
     0},
    {"bad_log_key.yaml", 3, 3, "unknown key 'rank' in log (valid: level, file, ranks)", 0},
    {"bad_duplicate_key.yaml", 3, 1, "duplicate key 'model' (first at line 1)", 0},
    {"bad_section_scalar.yaml", 1, 6, "log: expected a mapping of keys, got a scalar", 0},
    {"bad_type_mapping.yaml", 3, 5, "model.alpha: expected a number, got a mapping", 0},
    {"bad_type_string.yaml", 2, 10, "model.alpha: expected a number, got 'fast'", 0},
    {"bad_type_list.yaml", 2, 9, "model.beta: expected a number, got a list", 0},
    {"bad_type_null.yaml", 2, 7, "model.rho: expected a number, got nothing", 0},
    {"bad_hex_cost.yaml", 2, 10, "model.alpha: expected a number, got '0x1p-20'", 0},
    {"bad_negative_cost.yaml", 3, 10, "model.gamma: must be >= 0, got -2.5e-10", 0},
    {"bad_negative_overhead.yaml", 3, 13, "model.overhead: must be >= 0, got -1e-7", 0},
    {"bad_negative_beta_core.yaml", 3, 14, "model.beta_core: must be >= 0, got -8.0e-10", 0},
    {"bad_margin.yaml", 2, 11, "model.margin: must be >= 0 and < 1, got 1.5", 0},
    {"bad_rendezvous_from.yaml", 2, 20, "model.rendezvous_from: must be >= 0, got '-1'", 0},
    {"bad_distance.yaml", 2, 13, "model.distance: expected none, xor or difference, got 'torus'", 0},
    {"bad_link_share.yaml", 2, 15, "model.link_share: expected world or communicator, got 'grid'", 0},
    {"bad_node_paths.yaml", 2, 15, "model.node_paths: expected rank or pair, got 'core'", 0},
    {"bad_placement.yaml", 2, 14, "model.placement: expected block or cyclic, got 'round-robin'", 0},
    {"bad_alpha_hop.yaml", 3, 14, "model.alpha_hop: must be >= 0, got -1e-6", 0},
    {"bad_bands_order.yaml", 2, 24, "model.bands[1]: from must increase, 1024 after 65536", 0},
    {"bad_bands_factor.yaml", 2, 17, "model.bands[0][1]: a factor must be >= 0 and at most 1e9, got -1", 0},
    {"bad_bands_item.yaml", 2, 11,
     "model.bands[0]: expected a band [from, alpha_factor, beta_factor], got a list of "
     "another length",
     0},
    {"bad_ranks_per_node.yaml", 2, 19, "model.ranks_per_node: expected a count of ranks, 0 to 1073741824, got '2.5'",
     0},
    {"bad_ranks_per_node_huge.yaml", 2, 19, "model.ranks_per_node: must be at most 1073741824, got 4294967296", 0},
    {"bad_library.yaml", 2, 12,
     "model.library: unknown library 'mvapich2' (valid: auto, mpich, openmpi, smpi-mpich, smpi-ompi)", 0},
    {"bad_nan_cost.yaml", 2, 8, "model.rho: must be finite, got '.nan'", 0},
    {"bad_inf_cost.yaml", 2, 9, "model.beta: must be finite, got '.inf'", 0},
    {"bad_huge_cost.yaml", 2, 10, "model.alpha: out of range", 0},
    {"bad_value_before_strict.yaml", 2, 10, "model.alpha: must be >= 0", 1},
    {"bad_algorithm.yaml", 2, 14, "alltoall.algorithm: unknown algorithm 'pairwise' (known: auto, native, direct", 0},
    {"bad_algorithm_coll.yaml", 2, 14, "alltoall.algorithm: 'butterfly' is for allreduce", 0},
    {"bad_algorithm_args.yaml", 2, 14, "allreduce.algorithm: bad arguments for butterfly", 0},
    {"bad_algorithm_noargs.yaml", 2, 14, "alltoall.algorithm: bad arguments for direct", 0},
    {"bad_multiphase_factors.yaml", 2, 14,
     "alltoall.algorithm: bad arguments for multiphase: expected a partition of log2 p (2,2,1", 0},
    {"bad_native_args.yaml", 2, 14, "reduce.algorithm: 'native' takes no arguments", 0},
    {"bad_algorithm_empty.yaml", 2, 14, "reduce.algorithm: expected auto, native or an algorithm", 0},
    {"bad_log_level.yaml", 2, 10, "log.level: unknown log level 'verbose' (valid: off, summary, calls)", 0},
    {"bad_log_file.yaml", 2, 9, "log.file: unknown escape '%x'", 0},
    {"bad_ranks_negative.yaml", 2, 14, "log.ranks[1]: must be >= 0, got -1", 0},
    {"bad_ranks_word.yaml", 2, 10, "log.ranks: expected all, a rank or a list of ranks, got 'some'", 0},
    {"bad_ranks_nested.yaml", 2, 14, "log.ranks[1]: expected a rank, got a list", 0},
    {"bad_strict.yaml", 1, 9, "strict: expected true or false", 0},
    {"bad_window_method.yaml", 2, 11,
     "window.method: unknown window method 'fastest' (valid: auto, recursive, prefix-suffix, "
     "prefix-suffix-inverse)",
     0},
    {"bad_reproducible.yaml", 1, 15, "reproducible: expected true or false", 0},
    {"bad_range_order.yaml", 2, 12, "alltoall.native[0]: empty range, lo 1048576 > hi 64", 0},
    {"bad_range_negative.yaml", 2, 13, "alltoall.native[0][0]: must be >= 0, got '-1'", 0},
    {"bad_range_inf_lo.yaml", 2, 13, "allreduce.native[0][0]: inf is only valid as the upper bound", 0},
    {"bad_range_length.yaml", 2, 12, "allreduce.native[0]: expected a range [lo, hi]", 0},
    {"bad_range_flat.yaml", 2, 12, "allreduce.native[0]: expected a range [lo, hi], got a scalar", 0},
    {"bad_range_scalar.yaml", 2, 11, "reduce.native: expected a list of [lo, hi] ranges", 0},
    {"bad_range_suffix.yaml", 2, 16, "reduce.native[0][1]: unknown size suffix 'X'", 0},
    {"bad_range_suffix2.yaml", 2, 16, "reduce.native[0][1]: unknown size suffix 'E'", 0},
    {"bad_range_overflow.yaml", 2, 16, "reduce.native[0][1]: size too large", 0},
    {"bad_range_overflow_suffix.yaml", 2, 16, "reduce.native[0][1]: size too large", 0},
    {"bad_range_too_many.yaml", 19, 7, "alltoall.native: more than 16 ranges", 0},
    {"bad_hull_sum.yaml", 3, 30, "alltoall.hull.64[1][1]: '2,2' is not a partition of log2 p = 6", 0},
    {"bad_hull_p.yaml", 3, 5, "alltoall.hull.48: p must be a power of two from 2 to 2^30, got 48", 0},
    {"bad_hull_first.yaml", 3, 10, "alltoall.hull.16[0]: the first face must start at 0, not 8", 0},
    {"bad_hull_order.yaml", 3, 39, "alltoall.hull.16[2]: block sizes must increase, 64 after 64", 0},
    {"bad_hull_parts.yaml", 3, 14, "alltoall.hull.16[0][1]: expected a partition such as \"2,2,1\", got '2,x'", 0},
    {"bad_hull_list.yaml", 2, 9, "alltoall.hull: expected a mapping of p to faces, got a list", 0},
    /* Found while writing the fuzzer (tests/fuzz/fuzz_config.c): both were accepted. */
    {"bad_key_nul.yaml", 2, 1, "top level: a key contains a NUL byte", 0},
    {"bad_hull_parts_long.yaml", 5, 14, "alltoall.hull.64[0][1]: expected a partition such as \"2,2,1\", got '000", 0},
    {"bad_strict_nul.yaml", 3, 9, "strict: value contains a NUL byte", 0},
    /* Found by the fuzzer: finite, but the model's sums overflowed to inf and NaN. */
    {"fuzz_huge_model_cost.yaml", 5, 16, "model.gamma: must be at most 1e9, got 1e308", 0},
    /* <coll>.rules */
    {"bad_rules_scalar.yaml", 2, 10, "allreduce.rules: expected a list of rules, got a scalar", 0},
    {"bad_rule_item.yaml", 3, 7,
     "reduce.rules[0]: expected a rule {p: [lo, hi], bytes: [lo, hi], algorithm: NAME}, got a list", 0},
    {"bad_rule_key.yaml", 3, 38, "unknown key 'size' in a rule (valid: p, bytes, algorithm)", 0},
    {"bad_rule_no_algorithm.yaml", 3, 7, "allreduce.rules[0]: a rule needs an algorithm", 0},
    {"bad_rule_no_p.yaml", 3, 7, "reduce.rules[0]: a rule needs p: [lo, hi]", 0},
    {"bad_rule_p_zero.yaml", 3, 11, "allreduce.rules[0].p: communicator sizes run from 1 to 2147483647 (or inf)", 0},
    {"bad_rule_algorithm.yaml", 4, 48, "allreduce.rules[1].algorithm: 'direct' is for alltoall, not allreduce", 0},
};

START_TEST(test_bad_file)
{
    const struct bad_case *c = &bad_cases[_i];
    char path[PATH_MAX], line[PATH_MAX + 300], expected[PATH_MAX + 32];
    cs_config cfg, before;
    cs_config_error err;

    fixture_path(path, c->file);
    cs_config_defaults(&cfg);
    cs_config_defaults(&before);
    ck_assert_int_eq(cs_config_load(path, &cfg, &err), -1);
    ck_assert_str_eq(err.file, path);
    ck_assert_msg(err.line == c->line && err.column == c->column, "%s: at %d:%d, expected %d:%d (%s)", c->file,
                  err.line, err.column, c->line, c->column, err.message);
    assert_message(&err, c->message);

    cs_config_error_format(&err, line, sizeof line);
    snprintf(expected, sizeof expected, "%s:%d:%d: ", path, c->line, c->column);
    ck_assert_msg(strncmp(line, expected, strlen(expected)) == 0, "formatted: %s", line);

    /* All or nothing, except strict, which a failed load still reports. */
    ck_assert_int_eq(cfg.strict, c->strict);
    before.strict = c->strict;
    assert_config_eq(&cfg, &before);
}
END_TEST

START_TEST(test_unreadable_file)
{
    static const struct {
        const char *path;
        const char *message;
    } cases[] = {
        {CS_FIXTURES "/no-such-file.yaml", "cannot open: No such file or directory"},
        {CS_FIXTURES, "cannot open: Is a directory"},
    };
    cs_config cfg;
    cs_config_error err;
    char line[PATH_MAX + 300], expected[PATH_MAX + 300];

    cs_config_defaults(&cfg);
    ck_assert_int_eq(cs_config_load(cases[_i].path, &cfg, &err), -1);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 1);
    cs_config_error_format(&err, line, sizeof line);
    snprintf(expected, sizeof expected, "%s:1:1: %s", cases[_i].path, cases[_i].message);
    ck_assert_str_eq(line, expected);
}
END_TEST

/* ---- sizes and ranges -------------------------------------------------------- */

/* Load a YAML text through an anonymous file (memfd), by its /proc path. */
static int load_text(const char *text, cs_config *cfg, cs_config_error *err)
{
    char path[64];
    const int fd = memfd_create("cs_check_config", 0);
    const size_t len = strlen(text);
    int rc;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    rc = cs_config_load(path, cfg, err);
    close(fd);
    return rc;
}

/* model.bands are kept for the process, each set once: a set read again is
 * the same one; past the room for different sets a file says so, with its
 * line and column, and a set kept before still loads. */
START_TEST(test_bands_kept)
{
    static cs_config cfg;
    cs_config_error err;
    char text[96];
    const cs_bands *first = NULL;
    int loaded = 0;
    for (int i = 0; i < 64; i++) { /* past any room a process has */
        snprintf(text, sizeof text, "model:\n  bands: [[%d, 2, 1]]\n", 1000 + i);
        cs_config_defaults(&cfg);
        if (load_text(text, &cfg, &err) != 0) {
            ck_assert_msg(strstr(err.message, "different sets of bands in one process") && err.line == 2 &&
                              err.column == 10,
                          "%d:%d: %s", err.line, err.column, err.message);
            break;
        }
        ck_assert(cfg.model.bands && cfg.model.bands->n == 1 && cfg.model.bands->band[0].from == (size_t)(1000 + i));
        first = first ? first : cfg.model.bands;
        loaded++;
    }
    ck_assert_int_ge(loaded, 1);
    ck_assert_int_lt(loaded, 64);
    cs_config_defaults(&cfg);
    ck_assert_int_eq(load_text("model:\n  bands: [[1000, 2, 1]]\n", &cfg, &err), 0);
    ck_assert_ptr_eq(cfg.model.bands, first);
}
END_TEST

static const struct range_case {
    const char *native;
    int n;
    cs_range want[3];
} range_cases[] = {
    {"[[0, 64]]", 1, {{0, 64}}},
    {"[[1K, 2KB]]", 1, {{KiB, 2 * KiB}}},
    {"[[1Ki, 1KiB]]", 1, {{KiB, KiB}}},
    {"[[1m, 3MiB]]", 1, {{MiB, 3 * MiB}}},
    {"[[1G, 1T]]", 1, {{(size_t)1 << 30, (size_t)1 << 40}}},
    {"[['4 KiB', .inf]]", 1, {{4 * KiB, SIZE_MAX}}},
    {"[[0, 100B], [200, Infinity]]", 2, {{0, 100}, {200, SIZE_MAX}}},
    {"[[5, 5]]", 1, {{5, 5}}},
    {"[[1M, inf], [65, 100], [0, 64], [50, 70], [2M, 3M]]", 2, {{0, 100}, {MiB, SIZE_MAX}}},
    {"[[10, 20], [30, 40], [0, 5]]", 3, {{0, 5}, {10, 20}, {30, 40}}},
    {"[]", 0, {{0, 0}}},
    {"", 0, {{0, 0}}},
};

START_TEST(test_native_sizes)
{
    const struct range_case *c = &range_cases[_i];
    char text[256];
    cs_config cfg;
    cs_config_error err;
    const cs_coll_config *cc = &cfg.coll[CS_COLL_ALLTOALL];

    snprintf(text, sizeof text, "alltoall:\n  native: %s\n", c->native);
    cs_config_defaults(&cfg);
    ck_assert_msg(load_text(text, &cfg, &err) == 0, "%s: %s", c->native, err.message);
    ck_assert_int_eq(cc->nnative, c->n);
    for (int i = 0; i < c->n; i++) {
        ck_assert_msg(cc->native[i].lo == c->want[i].lo, "%s: range %d lo", c->native, i);
        ck_assert_msg(cc->native[i].hi == c->want[i].hi, "%s: range %d hi", c->native, i);
    }
}
END_TEST

static const struct lookup_case {
    size_t bytes;
    int inside;
} lookup_cases[] = {
    {0, 1}, {64, 1}, {65, 0}, {127, 0}, {128, 1}, {256, 1}, {257, 0}, {MiB - 1, 0}, {MiB, 1}, {SIZE_MAX, 1},
};

START_TEST(test_native_range_lookup)
{
    cs_coll_config cc = {.nnative = 3, .native = {{0, 64}, {128, 256}, {MiB, SIZE_MAX}}};
    cs_coll_config none = {.nnative = 0};

    ck_assert_int_eq(cs_config_native_range(&cc, lookup_cases[_i].bytes), lookup_cases[_i].inside);
    ck_assert_int_eq(cs_config_native_range(&none, lookup_cases[_i].bytes), 0);
}
END_TEST

/* ---- the environment ----------------------------------------------------------- */

static const struct env_case {
    const char *name, *value;
    int rc;
    const char *message; /* errors: after "environment: " */
} env_cases[] = {
    {"COLLSHIM_STRICT", "yes", 0, NULL},
    {"COLLSHIM_STRICT", "0", 0, NULL},
    {"COLLSHIM_STRICT", "maybe", -1, "COLLSHIM_STRICT: expected true or false"},
    {"COLLSHIM_LOG", "run.%r.%p.log", 0, NULL},
    {"COLLSHIM_LOG", "run.%q", -1, "COLLSHIM_LOG: unknown escape '%q'"},
    {"COLLSHIM_LOG", "run.%", -1, "COLLSHIM_LOG: log file pattern ends with a lone '%'"},
    {"COLLSHIM_LOG_LEVEL", "summary", 0, NULL},
    {"COLLSHIM_LOG_LEVEL", "loud", -1, "COLLSHIM_LOG_LEVEL: unknown log level 'loud'"},
    {"COLLSHIM_ALLTOALL", "direct", 0, NULL},
    {"COLLSHIM_ALLTOALL", "butterfly", -1, "COLLSHIM_ALLTOALL: 'butterfly' is for"},
    {"COLLSHIM_ALLREDUCE", "butterfly:b=4096", 0, NULL},
    {"COLLSHIM_ALLREDUCE", "butterfly:b=x", -1, "COLLSHIM_ALLREDUCE: bad arguments for butterfly"},
    {"COLLSHIM_REDUCE", "native", 0, NULL},
    {"COLLSHIM_REDUCE", "auto:1", -1, "COLLSHIM_REDUCE: 'auto' takes no arguments"},
    {"COLLSHIM_REDUCE", "bogus", -1, "COLLSHIM_REDUCE: unknown algorithm 'bogus' (known: auto, native, butterfly"},
    {"COLLSHIM_REDUCE", "", 0, NULL}, /* empty is unset */
    {"COLLSHIM_WINDOW_METHOD", "prefix-suffix", 0, NULL},
    {"COLLSHIM_WINDOW_METHOD", "fast", -1, "COLLSHIM_WINDOW_METHOD: unknown window method 'fast'"},
    {"COLLSHIM_LIBRARY", "smpi-ompi", 0, NULL},
    {"COLLSHIM_LIBRARY", "mvapich2", -1, "COLLSHIM_LIBRARY: unknown library 'mvapich2'"},
};

/* <coll>.rules: in the file's order, with their lines; bytes every size
 * unless given; p up to inf; native, auto and algorithms with arguments. */
START_TEST(test_rules)
{
    cs_config cfg;
    cs_config_error err;
    const cs_coll_config *cc = &cfg.coll[CS_COLL_ALLREDUCE];

    cs_config_defaults(&cfg);
    ck_assert_int_eq(cc->nrules, 0);
    ck_assert_msg(load_text("allreduce:\n"
                            "  rules:\n"
                            "    - {p: [2, 4], bytes: [0, 1K], algorithm: native}\n"
                            "    - {p: [5, inf], algorithm: \"ring:rmax=3\"}\n"
                            "    - p: [3, 3]\n"
                            "      algorithm: auto\n",
                            &cfg, &err) == 0,
                  "%s", err.message);
    ck_assert_int_eq(cc->nrules, 3);
    ck_assert(cc->rules[0].p_lo == 2 && cc->rules[0].p_hi == 4 && cc->rules[0].bytes.lo == 0 &&
              cc->rules[0].bytes.hi == 1024 && cc->rules[0].choice == CS_CHOICE_NATIVE && cc->rules[0].line == 3);
    ck_assert(cc->rules[1].p_lo == 5 && cc->rules[1].p_hi == INT_MAX && cc->rules[1].bytes.hi == SIZE_MAX);
    ck_assert(cc->rules[1].choice == CS_CHOICE_FORCED && !strcmp(cc->rules[1].alg->name, "ring"));
    ck_assert_int_eq(cc->rules[1].params.rmax, 3);
    ck_assert(cc->rules[2].choice == CS_CHOICE_AUTO && cc->rules[2].line == 5);
    ck_assert_int_eq(cfg.coll[CS_COLL_REDUCE].nrules, 0);
    ck_assert_int_eq(load_text("reduce:\n  rules: []\n", &cfg, &err), 0);
    ck_assert_int_eq(cfg.coll[CS_COLL_REDUCE].nrules, 0);
}
END_TEST

/* window.method and COLLSHIM_WINDOW_METHOD set the method (a forced row of
 * the window collective); auto lets the model choose. */
START_TEST(test_window_method)
{
    cs_config cfg;
    cs_config_error err;
    const cs_coll_config *w = &cfg.coll[CS_COLL_WINDOW];

    cs_config_defaults(&cfg);
    ck_assert_int_eq(w->choice, CS_CHOICE_AUTO);
    ck_assert_int_eq(load_text("window:\n  method: prefix-suffix-inverse\n", &cfg, &err), 0);
    ck_assert_int_eq(w->choice, CS_CHOICE_FORCED);
    ck_assert_str_eq(w->alg->name, "prefix-suffix-inverse");
    setenv("COLLSHIM_WINDOW_METHOD", "recursive", 1);
    ck_assert_int_eq(cs_config_apply_env(&cfg, &err), 0);
    ck_assert_int_eq(w->choice, CS_CHOICE_FORCED);
    ck_assert_str_eq(w->alg->name, "recursive");
    setenv("COLLSHIM_WINDOW_METHOD", "auto", 1);
    ck_assert_int_eq(cs_config_apply_env(&cfg, &err), 0);
    ck_assert_int_eq(w->choice, CS_CHOICE_AUTO);
}
END_TEST

START_TEST(test_env_value)
{
    const struct env_case *c = &env_cases[_i];
    cs_config cfg, before;
    cs_config_error err;
    char line[600], expected[300];

    setenv(c->name, c->value, 1);
    cs_config_defaults(&cfg);
    cs_config_defaults(&before);
    ck_assert_int_eq(cs_config_apply_env(&cfg, &err), c->rc);
    if (c->rc == 0)
        return;
    ck_assert_str_eq(err.file, "environment");
    ck_assert_int_eq(err.line, 0);
    ck_assert_int_eq(err.column, 0);
    assert_message(&err, c->message);
    cs_config_error_format(&err, line, sizeof line);
    snprintf(expected, sizeof expected, "environment: %s", c->message);
    ck_assert_msg(strncmp(line, expected, strlen(expected)) == 0, "formatted: %s", line);
    assert_config_eq(&cfg, &before); /* all or nothing */
}
END_TEST

START_TEST(test_env_choices)
{
    cs_config cfg;
    cs_config_error err;

    setenv("COLLSHIM_ALLTOALL", "direct", 1);
    setenv("COLLSHIM_ALLREDUCE", "butterfly:b=4096", 1);
    setenv("COLLSHIM_REDUCE", "native", 1);
    setenv("COLLSHIM_STRICT", "on", 1);
    cs_config_defaults(&cfg);
    ck_assert_int_eq(cs_config_apply_env(&cfg, &err), 0);
    ck_assert_int_eq(cfg.coll[CS_COLL_ALLTOALL].choice, CS_CHOICE_FORCED);
    ck_assert_str_eq(cfg.coll[CS_COLL_ALLTOALL].alg->name, "direct");
    ck_assert_int_eq(cfg.coll[CS_COLL_ALLREDUCE].params.b, 4096);
    ck_assert_int_eq(cfg.coll[CS_COLL_REDUCE].choice, CS_CHOICE_NATIVE);
    for (int c = 0; c < CS_COLL_LAST; c++)
        ck_assert_int_eq(cfg.coll[c].from_env, 1);
    ck_assert_int_eq(cfg.strict, 1);
}
END_TEST

/* COLLSHIM_LOG asks for a log; an explicit COLLSHIM_LOG_LEVEL still wins. */
static const struct log_case {
    cs_log_level file_level;
    const char *level; /* COLLSHIM_LOG_LEVEL, or NULL */
    cs_log_level want;
} log_cases[] = {
    {CS_LOG_OFF, NULL, CS_LOG_CALLS},
    {CS_LOG_SUMMARY, NULL, CS_LOG_SUMMARY},
    {CS_LOG_OFF, "summary", CS_LOG_SUMMARY},
    {CS_LOG_CALLS, "off", CS_LOG_OFF},
};

START_TEST(test_env_log)
{
    const struct log_case *c = &log_cases[_i];
    cs_config cfg;
    cs_config_error err;

    setenv("COLLSHIM_LOG", "out.%r", 1);
    if (c->level)
        setenv("COLLSHIM_LOG_LEVEL", c->level, 1);
    cs_config_defaults(&cfg);
    cfg.log_level = c->file_level;
    ck_assert_int_eq(cs_config_apply_env(&cfg, &err), 0);
    ck_assert_int_eq(cfg.log_level, c->want);
    ck_assert_str_eq(cfg.log_file, "out.%r");
}
END_TEST

/* ---- cs_config_init: the order of the sources and the fallback ------------------ */

static void assert_all_native(const cs_config *cfg)
{
    for (int c = 0; c < CS_COLL_LAST; c++) {
        ck_assert_int_eq(cfg->coll[c].choice, CS_CHOICE_NATIVE);
        ck_assert_int_eq(cfg->coll[c].nnative, 0);
    }
    ck_assert(cfg->model.alpha == 1.0e-6); /* the defaults, not the file's */
    ck_assert_str_eq(cfg->source, "");
}

START_TEST(test_init_defaults)
{
    cs_config cfg, defaults;
    cs_config_error err;

    ck_assert_int_eq(cs_config_init(&cfg, &err), 0);
    cs_config_defaults(&defaults);
    assert_config_eq(&cfg, &defaults);
}
END_TEST

START_TEST(test_init_file_then_env)
{
    char path[PATH_MAX];
    cs_config cfg;
    cs_config_error err;

    fixture_path(path, "good.yaml");
    setenv("COLLSHIM_CONFIG", path, 1);
    setenv("COLLSHIM_REDUCE", "butterfly", 1);
    ck_assert_int_eq(cs_config_init(&cfg, &err), 0);
    ck_assert_str_eq(cfg.source, path);
    ck_assert(cfg.model.alpha == 2.5e-6);
    ck_assert_str_eq(cfg.coll[CS_COLL_ALLTOALL].alg->name, "direct");
    ck_assert_int_eq(cfg.coll[CS_COLL_ALLTOALL].from_env, 0);
    ck_assert_int_eq(cfg.coll[CS_COLL_REDUCE].choice, CS_CHOICE_FORCED);
    ck_assert_str_eq(cfg.coll[CS_COLL_REDUCE].alg->name, "butterfly");
    ck_assert_int_eq(cfg.coll[CS_COLL_REDUCE].from_env, 1);
}
END_TEST

/* A bad file: native everywhere; strict and logging from the environment. */
START_TEST(test_init_bad_file)
{
    char path[PATH_MAX];
    cs_config cfg;
    cs_config_error err;

    fixture_path(path, "bad_top_key.yaml");
    setenv("COLLSHIM_CONFIG", path, 1);
    setenv("COLLSHIM_STRICT", "1", 1);
    setenv("COLLSHIM_LOG", "x.%r.log", 1);
    setenv("COLLSHIM_LOG_LEVEL", "summary", 1);
    setenv("COLLSHIM_ALLTOALL", "bogus", 1); /* a later error: the file's is reported */
    ck_assert_int_eq(cs_config_init(&cfg, &err), -1);
    ck_assert_str_eq(err.file, path);
    ck_assert_int_eq(err.line, 3);
    assert_all_native(&cfg);
    ck_assert_int_eq(cfg.strict, 1);
    ck_assert_int_eq(cfg.log_level, CS_LOG_SUMMARY);
    ck_assert_str_eq(cfg.log_file, "x.%r.log");
}
END_TEST

/* Strict from a file that fails after saying so, even on a syntax error. */
START_TEST(test_init_strict_from_file)
{
    static const char *const files[] = {"bad_syntax_after_strict.yaml", "bad_value_before_strict.yaml"};
    char path[PATH_MAX];
    cs_config cfg;
    cs_config_error err;

    fixture_path(path, files[_i]);
    setenv("COLLSHIM_CONFIG", path, 1);
    ck_assert_int_eq(cs_config_init(&cfg, &err), -1);
    assert_all_native(&cfg);
    ck_assert_int_eq(cfg.strict, 1);
    ck_assert_int_eq(cfg.log_level, CS_LOG_OFF);
}
END_TEST

/* A good file and a bad variable: the file is dropped too, but its strict holds;
 * the valid COLLSHIM_LOG is kept, the invalid COLLSHIM_LOG_LEVEL is not. */
START_TEST(test_init_bad_env)
{
    char path[PATH_MAX];
    cs_config cfg;
    cs_config_error err;

    fixture_path(path, "good.yaml");
    setenv("COLLSHIM_CONFIG", path, 1);
    setenv("COLLSHIM_LOG", "f.log", 1);
    setenv("COLLSHIM_LOG_LEVEL", "loud", 1);
    ck_assert_int_eq(cs_config_init(&cfg, &err), -1);
    ck_assert_str_eq(err.file, "environment");
    assert_message(&err, "COLLSHIM_LOG_LEVEL: ");
    assert_all_native(&cfg);
    ck_assert_int_eq(cfg.strict, 1);
    ck_assert_int_eq(cfg.log_level, CS_LOG_CALLS);
    ck_assert_str_eq(cfg.log_file, "f.log");
}
END_TEST

START_TEST(test_init_missing_file)
{
    cs_config cfg;
    cs_config_error err;

    setenv("COLLSHIM_CONFIG", CS_FIXTURES "/no-such-file.yaml", 1);
    ck_assert_int_eq(cs_config_init(&cfg, &err), -1);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 1);
    assert_message(&err, "cannot open: ");
    assert_all_native(&cfg);
    ck_assert_int_eq(cfg.strict, 0);
}
END_TEST

/* ---- formatting ---------------------------------------------------------------- */

START_TEST(test_error_format)
{
    cs_config_error file = {.file = "a.yaml", .line = 4, .column = 7, .message = "oops"};
    cs_config_error env = {.file = "environment", .message = "COLLSHIM_X: bad"};
    char buf[64], tiny[8];

    cs_config_error_format(&file, buf, sizeof buf);
    ck_assert_str_eq(buf, "a.yaml:4:7: oops");
    cs_config_error_format(&env, buf, sizeof buf);
    ck_assert_str_eq(buf, "environment: COLLSHIM_X: bad");
    cs_config_error_format(&file, tiny, sizeof tiny);
    ck_assert_str_eq(tiny, "a.yaml:");
}
END_TEST

/* What a call wrote on stderr, read back from a file stderr was sent to. */
static char stderr_path[64];
static void stderr_to_file(void)
{
    snprintf(stderr_path, sizeof stderr_path, "%s/cs_check_config.%ld", P_tmpdir, (long)getpid());
    ck_assert_ptr_nonnull(freopen(stderr_path, "w", stderr));
}
static const char *stderr_text(void)
{
    static char text[4096];
    fflush(stderr);
    FILE *f = fopen(stderr_path, "r");
    ck_assert_ptr_nonnull(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    remove(stderr_path);
    return text;
}

/* The library priced: the configuration's, the running one's, or the
 * environment's; and where a file names the other real library, one line. */
static const struct {
    int given, running;
    const char *env; /* COLLSHIM_LIBRARY, or NULL */
    int priced;
    const char *said; /* in the line on stderr, or NULL: silent */
} library_cases[] = {
    {CS_LIBRARY_AUTO, CS_LIBRARY_OPENMPI, NULL, CS_LIBRARY_OPENMPI, NULL},
    {CS_LIBRARY_MPICH, CS_LIBRARY_MPICH, NULL, CS_LIBRARY_MPICH, NULL},
    {CS_LIBRARY_MPICH, CS_LIBRARY_OPENMPI, NULL, CS_LIBRARY_OPENMPI,
     "collshim: machine.yaml was written for MPICH (model.library: mpich) and this program runs Open MPI: its rules "
     "and costs were measured under MPICH; pricing Open MPI's own collectives"},
    {CS_LIBRARY_OPENMPI, CS_LIBRARY_MPICH, NULL, CS_LIBRARY_MPICH, "written for Open MPI (model.library: openmpi)"},
    {CS_LIBRARY_MPICH, CS_LIBRARY_OPENMPI, "mpich", CS_LIBRARY_MPICH, NULL},         /* the user's word for this run */
    {CS_LIBRARY_SMPI_OMPI, CS_LIBRARY_SMPI_MPICH, NULL, CS_LIBRARY_SMPI_OMPI, NULL}, /* the lab's */
};

START_TEST(test_library_running)
{
    cs_config cfg;
    cs_config_defaults(&cfg);
    strcpy(cfg.source, "machine.yaml");
    cfg.model.library = library_cases[_i].given;
    if (library_cases[_i].env)
        setenv("COLLSHIM_LIBRARY", library_cases[_i].env, 1);
    stderr_to_file();
    const int overridden = cs_config_library_running(&cfg, library_cases[_i].running, 1);
    cs_config_library_running(&cfg, library_cases[_i].running, 1); /* the second time: nothing more */
    const char *text = stderr_text();
    ck_assert_int_eq(cfg.model.library, library_cases[_i].priced);
    ck_assert_int_eq(overridden, library_cases[_i].said != NULL);
    if (library_cases[_i].said) {
        ck_assert_msg(strstr(text, library_cases[_i].said), "stderr: %s", text);
        ck_assert_ptr_eq(strchr(text, '\n'), text + strlen(text) - 1); /* one line */
    } else {
        ck_assert_str_eq(text, "");
    }
    /* a rank that does not speak: the same price, no word */
    cfg.model.library = library_cases[_i].given;
    stderr_to_file();
    cs_config_library_running(&cfg, library_cases[_i].running, 0);
    ck_assert_str_eq(stderr_text(), "");
    ck_assert_int_eq(cfg.model.library, library_cases[_i].priced);
}
END_TEST

/* A bad configuration: rank 0 says so; another rank says nothing unless
 * strict (cs_config_report). Strict on rank 0: the line, then abort. */
START_TEST(test_report_bad_config)
{
    cs_config cfg;
    cs_config_error err;
    cs_config_defaults(&cfg);
    cs_cfg_error(&err, "x.yaml", 3, 1, "unknown key 'modle'");
    stderr_to_file();
    ck_assert_int_eq(cs_config_report(&cfg, &err, 2), 0);
    ck_assert_str_eq(stderr_text(), "");
    stderr_to_file();
    ck_assert_int_eq(cs_config_report(&cfg, &err, 0), 0);
    ck_assert_str_eq(stderr_text(),
                     "collshim: x.yaml:3:1: unknown key 'modle'; running on the MPI library's collectives\n");
    cfg.strict = 1;
    stderr_to_file();
    ck_assert_int_eq(cs_config_report(&cfg, &err, 0), 1);
    ck_assert_str_eq(stderr_text(), "collshim: x.yaml:3:1: unknown key 'modle'; aborting (strict)\n");
}
END_TEST

/* Unknown COLLSHIM_* variables (src/config/config_env.c). */

static size_t distance(const char *a, const char *b)
{
    return cs_config_env_distance(a, strlen(a), b, strlen(b));
}

START_TEST(test_env_distance)
{
    ck_assert_uint_eq(distance("", ""), 0);
    ck_assert_uint_eq(distance("", "abc"), 3);
    ck_assert_uint_eq(distance("abc", ""), 3);
    ck_assert_uint_eq(distance("ALLREDUCE", "ALLREDUCE"), 0);
    ck_assert_uint_eq(distance("ALLREDUC", "ALLREDUCE"), 1);   /* a letter missing */
    ck_assert_uint_eq(distance("ALLLREDUCE", "ALLREDUCE"), 1); /* one too many */
    ck_assert_uint_eq(distance("ALLREDUXE", "ALLREDUCE"), 1);  /* one wrong */
    ck_assert_uint_eq(distance("ALLRDEUCE", "ALLREDUCE"), 1);  /* two swapped */
    ck_assert_uint_eq(distance("allreduce", "ALLREDUCE"), 0);  /* case is not a typo */
    ck_assert_uint_eq(distance("kitten", "sitting"), 3);
    ck_assert_uint_eq(distance("LOG_LEVEL", "LOGLEVEL"), 1);
}
END_TEST

static const struct nearest_case {
    const char *name, *nearest; /* NULL: none near enough */
} nearest_cases[] = {
    {"COLLSHIM_ALLREDUC", "COLLSHIM_ALLREDUCE"},
    {"COLLSHIM_ALLREDUCE_", "COLLSHIM_ALLREDUCE"},
    {"COLLSHIM_allreduce", "COLLSHIM_ALLREDUCE"},
    {"COLLSHIM_ALLTOAL", "COLLSHIM_ALLTOALL"},
    {"COLLSHIM_REDUSE", "COLLSHIM_REDUCE"},
    {"COLLSHIM_LOGLEVEL", "COLLSHIM_LOG_LEVEL"},
    {"COLLSHIM_LOG_LEVL", "COLLSHIM_LOG_LEVEL"},
    {"COLLSHIM_LGO", "COLLSHIM_LOG"},
    {"COLLSHIM_CONFG", "COLLSHIM_CONFIG"},
    {"COLLSHIM_STRIKT", "COLLSHIM_STRICT"},
    {"COLLSHIM_WINDOW_METOD", "COLLSHIM_WINDOW_METHOD"},
    {"COLLSHIM_LIBARY", "COLLSHIM_LIBRARY"},
    {"COLLSHIM_QQQQQQQQ", NULL},
    {"COLLSHIM_X", NULL},
    {"COLLSHIM_BANANA", NULL},
};

START_TEST(test_env_nearest)
{
    const struct nearest_case *c = &nearest_cases[_i];
    const char *got = cs_config_env_nearest(c->name, strlen(c->name));
    if (c->nearest)
        ck_assert_msg(got && !strcmp(got, c->nearest), "%s: %s, not %s", c->name, got ? got : "none", c->nearest);
    else
        ck_assert_msg(!got, "%s: %s, not none", c->name, got);
}
END_TEST

/* Every variable the shim reads is known, and so are the scripts' own
 * (read by the test drivers, the scale lab and the sanitizer run, set in
 * the environment of the programs they run); nothing else is. */
START_TEST(test_env_known)
{
    static const char *const scripts[] = {"COLLSHIM_TEST_TIMEOUT", "COLLSHIM_TEST_FULL", "COLLSHIM_TEST_QUICK",
                                          "COLLSHIM_TEST_ONLY",    "COLLSHIM_TEST_MPI",  "COLLSHIM_SCALE_TIMEOUT",
                                          "COLLSHIM_ASAN_FULL"};
    for (int i = 0; i < NELEMS(env_names); i++)
        ck_assert_msg(cs_config_env_known(env_names[i], strlen(env_names[i])), "%s", env_names[i]);
    for (int i = 0; i < NELEMS(scripts); i++)
        ck_assert_msg(cs_config_env_known(scripts[i], strlen(scripts[i])), "%s", scripts[i]);
    ck_assert(!cs_config_env_known("COLLSHIM_ALLREDUC", strlen("COLLSHIM_ALLREDUC")));
    ck_assert(!cs_config_env_known("COLLSHIM_LOGX", strlen("COLLSHIM_LOGX")));
    ck_assert(!cs_config_env_known("COLLSHIM_TEST", strlen("COLLSHIM_TEST"))); /* the prefix, not a name */
    /* the name of an entry, up to its '=' */
    ck_assert(cs_config_env_known("COLLSHIM_LOG=stderr", strlen("COLLSHIM_LOG")));
}
END_TEST

static char *read_back(FILE *f)
{
    static char buf[4096];
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    return buf;
}

/* One line per unknown variable, the nearest name where one is near; the
 * known ones, the scripts' and other programs' variables say nothing. */
START_TEST(test_env_warn_unknown)
{
    const char *const env[] = {"PATH=/usr/bin",
                               "COLLSHIM_ALLREDUC=ring",
                               "COLLSHIM_LOG=stderr",
                               "COLLSHIM_TEST_TIMEOUT=600",
                               "COLLSHIM_SCALE_TIMEOUT=60",
                               "collshim_reduce=ring",
                               "COLLSHIM_QQQQQQQQ=1",
                               "COLLSHIM_CONFIG=",
                               "COLLSHIM_STRICT",
                               NULL};
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(cs_config_env_warn_unknown(env, f), 2);
    ck_assert_str_eq(read_back(f),
                     "collshim: unknown variable COLLSHIM_ALLREDUC (did you mean COLLSHIM_ALLREDUCE?); ignored\n"
                     "collshim: unknown variable COLLSHIM_QQQQQQQQ; ignored\n");
    fclose(f);
    const char *const clean[] = {"HOME=/root", "COLLSHIM_ALLREDUCE=ring", NULL};
    f = tmpfile();
    ck_assert_int_eq(cs_config_env_warn_unknown(clean, f), 0);
    ck_assert_str_eq(read_back(f), "");
    fclose(f);
    /* Under strict, the first is a configuration error. */
    cs_config_error err;
    ck_assert_int_eq(cs_config_env_check_unknown(env, &err), -1);
    char text[sizeof err.file + sizeof err.message + 8];
    cs_config_error_format(&err, text, sizeof text);
    ck_assert_str_eq(text, "environment: unknown variable COLLSHIM_ALLREDUC (did you mean COLLSHIM_ALLREDUCE?)");
    ck_assert_int_eq(cs_config_env_check_unknown(clean, &err), 0);
    /* A name too long to say whole is cut. */
    char longname[200] = "COLLSHIM_";
    memset(longname + 9, 'Z', 150);
    strcat(longname, "=1");
    const char *const big[] = {longname, NULL};
    f = tmpfile();
    ck_assert_int_eq(cs_config_env_warn_unknown(big, f), 1);
    ck_assert_ptr_nonnull(strstr(read_back(f), "ZZZ...; ignored\n"));
    fclose(f);
}
END_TEST

Suite *make_config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *load = tcase_create("load");
    TCase *bad = tcase_create("bad files");
    TCase *ranges = tcase_create("ranges");
    TCase *env = tcase_create("environment");
    TCase *init = tcase_create("init");

    tcase_add_test(load, test_defaults);
    tcase_add_test(load, test_good_file);
    tcase_add_test(load, test_bands_kept);
    tcase_add_test(load, test_hull_file);
    tcase_add_test(load, test_empty_file);
    tcase_add_loop_test(load, test_shipped_file, 0, NELEMS(shipped));
    tcase_add_test(load, test_error_format);

    tcase_add_loop_test(bad, test_bad_file, 0, NELEMS(bad_cases));
    tcase_add_loop_test(bad, test_unreadable_file, 0, 2);

    tcase_add_loop_test(ranges, test_native_sizes, 0, NELEMS(range_cases));
    tcase_add_loop_test(ranges, test_native_range_lookup, 0, NELEMS(lookup_cases));

    tcase_add_checked_fixture(env, clear_env, NULL);
    tcase_add_loop_test(env, test_env_value, 0, NELEMS(env_cases));
    tcase_add_test(env, test_window_method);
    tcase_add_test(env, test_rules);
    tcase_add_test(env, test_env_choices);
    tcase_add_loop_test(env, test_env_log, 0, NELEMS(log_cases));
    tcase_add_test(env, test_env_distance);
    tcase_add_loop_test(env, test_env_nearest, 0, NELEMS(nearest_cases));
    tcase_add_test(env, test_env_known);
    tcase_add_test(env, test_env_warn_unknown);

    tcase_add_checked_fixture(init, clear_env, NULL);
    tcase_add_test(init, test_init_defaults);
    tcase_add_test(init, test_init_file_then_env);
    tcase_add_test(init, test_init_bad_file);
    tcase_add_loop_test(init, test_init_strict_from_file, 0, 2);
    tcase_add_test(init, test_init_bad_env);
    tcase_add_test(init, test_init_missing_file);
    tcase_add_loop_test(init, test_library_running, 0, NELEMS(library_cases));
    tcase_add_test(init, test_report_bad_config);

    suite_add_tcase(s, load);
    suite_add_tcase(s, bad);
    suite_add_tcase(s, ranges);
    suite_add_tcase(s, env);
    suite_add_tcase(s, init);
    return s;
}
