/* The log: JSON lines with the documented fields, the summary, file name
 * patterns, an unwritable path. Check forks each test, so the log's process
 * state starts fresh in each. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/log.h"

static char dir[64];

static void setup(void)
{
    /* Check forks each test: the process id names a fresh directory. */
    snprintf(dir, sizeof dir, "%s/cs_check_log.%ld", P_tmpdir, (long)getpid());
    ck_assert_int_eq(mkdir(dir, 0700), 0);
}

static void teardown(void)
{
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static char *slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void config_logging(cs_config *cfg, cs_log_level level, const char *pattern)
{
    cs_config_defaults(cfg);
    cfg->log_level = level;
    snprintf(cfg->log_file, sizeof(cfg->log_file), "%s/%s", dir, pattern);
}

static void log_one(const cs_alg *alg, const char *reason, const cs_sched_stats *stats)
{
    cs_problem prob = {.coll = alg->coll, .p = 8, .count = 250, .elem = 4, .bytes = 1000, .flags = CS_PROB_COMMUTATIVE};
    cs_decision d = {.alg = alg, .reason = reason, .predicted = alg->build ? 1.5e-6 : -1};
    cs_params_init(&d.params);
    d.params.k = 2;
    cs_record r = {.prob = &prob, .d = &d, .rank = 3, .op = MPI_SUM, .elapsed = 2e-6, .stats = stats};
    cs_log_call(&r);
}

START_TEST(test_calls_json_fields)
{
    cs_config cfg;
    int n;
    const cs_alg *const *table = cs_alg_table(CS_COLL_ALLREDUCE, &n);
    cs_sched_stats stats = {.rounds = 3, .sent_bytes = 1750};
    char path[128];

    config_logging(&cfg, CS_LOG_CALLS, "log.%r.%%");
    cs_log_open(&cfg, 3, 8);
    ck_assert(cs_log_active());
    log_one(table[1], "forced by the environment", &stats);
    log_one(table[0], "native by the configuration", NULL);
    cs_log_finalize();

    snprintf(path, sizeof(path), "%s/log.3.%%", dir);
    const char *text = slurp(path);
    const char *fields[] = {"{\"coll\":\"allreduce\",",
                            "\"rank\":3,",
                            "\"p\":8,",
                            "\"bytes\":1000,",
                            "\"op\":\"MPI_SUM\",",
                            "\"commutative\":true,",
                            "\"inplace\":false,",
                            "\"alg\":\"butterfly:k=2\",",
                            "\"reason\":\"forced by the environment\",",
                            "\"predicted_s\":1.500e-06,",
                            "\"elapsed_s\":2.000e-06,",
                            "\"rounds\":3,",
                            "\"sent_bytes\":1750}\n",
                            "\"alg\":\"native\",",
                            "\"predicted_s\":null,",
                            "\"rounds\":null,\"sent_bytes\":null}\n"};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        ck_assert_msg(strstr(text, fields[i]), "log lacks %s:\n%s", fields[i], text);
    /* Rank 3 writes no summary: that is rank 0's. */
    ck_assert_ptr_null(strstr(text, "@ collshim summary"));
}
END_TEST

/* Algorithms over any p say their plan: which protocol took each odd factor. */
START_TEST(test_plan_field)
{
    cs_config cfg;
    cs_params params;
    const char *why;
    char path[128];
    const cs_alg *ring = cs_alg_lookup(CS_COLL_ALLREDUCE, "ring:rmax=3,k=2", &params, &why);
    ck_assert_ptr_nonnull(ring);
    cs_problem prob = {.coll = CS_COLL_ALLREDUCE, .p = 60, .count = 600, .elem = 4, .bytes = 2400};
    cs_decision d = {.alg = ring, .params = params, .reason = "forced by the environment", .predicted = 1e-5};
    cs_record r = {.prob = &prob, .d = &d, .rank = 0, .op = MPI_SUM, .elapsed = 2e-5};

    config_logging(&cfg, CS_LOG_CALLS, "plan.%r");
    cs_log_open(&cfg, 0, 1);
    cs_log_call(&r);
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/plan.0", dir);
    /* 60 = 2^2 * 3 * 5: two butterflies split, the ring of 3 whole, then 5 eliminated. */
    ck_assert_ptr_nonnull(strstr(slurp(path), "\"plan\":\"butterfly x2 split, ring 3 whole, elimination 5 whole\","));
}
END_TEST

START_TEST(test_summary_on_rank0)
{
    cs_config cfg;
    int n;
    const cs_alg *const *table = cs_alg_table(CS_COLL_ALLREDUCE, &n);
    cs_sched_stats stats = {0};
    char path[128];

    config_logging(&cfg, CS_LOG_SUMMARY, "sum.%r");
    cfg.model.library = CS_LIBRARY_OPENMPI;
    cs_log_open(&cfg, 0, 4);
    for (int i = 0; i < 5; i++)
        log_one(table[1], "breakpoint", &stats);
    cs_log_finalize();
    /* Beside the log, never in it: the log is JSON Lines. */
    snprintf(path, sizeof(path), "%s/sum.0", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    snprintf(path, sizeof(path), "%s/sum.0.summary", dir);
    const char *text = slurp(path);
    ck_assert_ptr_nonnull(strstr(text, "@ collshim summary"));
    ck_assert_ptr_nonnull(strstr(text, "built-in defaults"));
    ck_assert_ptr_nonnull(strstr(text, "@ library priced : openmpi\n"));
    /* allreduce, butterfly, the 64-1K bin, 5 calls of 1000 bytes. */
    const char *row = strstr(text, "allreduce");
    ck_assert_ptr_nonnull(row);
    char coll[32], alg[32], bin[32];
    unsigned long long calls, bytes;
    double total, mean;
    ck_assert_int_eq(sscanf(row, "%31s %31s %31s %llu %llu %lf %lf", coll, alg, bin, &calls, &bytes, &total, &mean), 7);
    ck_assert_str_eq(alg, "butterfly");
    ck_assert_str_eq(bin, "64-1K");
    ck_assert_uint_eq(calls, 5);
    ck_assert_uint_eq(bytes, 5000);
    ck_assert_double_eq_tol(total, 1e-5, 1e-9);
    ck_assert_double_eq_tol(mean, 2e-6, 1e-9);
    /* Level summary writes no call lines. */
    ck_assert_ptr_null(strstr(text, "{\"coll\""));
    /* The why column: the step that chose our algorithm (a breakpoint: the model's). */
    ck_assert_ptr_nonnull(strstr(text, "mean s why\n"));
    ck_assert_ptr_nonnull(strstr(row, "2.000e-06 model\n"));
}
END_TEST

/* Calls the library ran, one row per cause, each saying which. */
START_TEST(test_summary_native_why)
{
    cs_config cfg;
    char path[128];
    const cs_alg *native = cs_alg_native(CS_COLL_ALLREDUCE);
    cs_problem prob = {.coll = CS_COLL_ALLREDUCE, .p = 1, .count = 250, .elem = 4, .bytes = 1000};
    cs_decision one = {.alg = native, .reason = "p = 1: nothing to exchange", .predicted = -1};
    cs_decision vec = {.alg = native,
                       .reason = "model: cheapest that can run",
                       .predicted = -1,
                       .passed = cs_alg_table(CS_COLL_ALLREDUCE, &(int){0})[1],
                       .declined = "needs a contiguous datatype"};
    cs_decision cheap = {.alg = native, .reason = "model: cheapest that can run", .predicted = -1};
    const cs_decision *ds[] = {&one, &one, &vec, &cheap};

    config_logging(&cfg, CS_LOG_SUMMARY, "why.%r");
    cs_log_open(&cfg, 0, 4);
    for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
        cs_record r = {.prob = &prob, .d = ds[i], .rank = 0, .op = MPI_SUM, .elapsed = 1e-6};
        cs_log_call(&r);
    }
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/why.0.summary", dir);
    const char *text = slurp(path);
    const char *rows[] = {" 2 ", " p=1\n", " non-contiguous\n", " model\n"};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ck_assert_msg(strstr(text, rows[i]), "summary lacks '%s':\n%s", rows[i], text);
}
END_TEST

/* Calls our algorithms ran: the word of the step that chose them, as
 * collshim-report classes the same reasons (model, rule, forced), one row
 * per word; "-" only for a reason no rule names. */
START_TEST(test_summary_ours_why)
{
    cs_config cfg;
    char path[128];
    int n;
    const cs_alg *butterfly = cs_alg_table(CS_COLL_ALLREDUCE, &n)[1];
    static const struct {
        const char *reason, *word;
    } cases[] = {
        {"breakpoint: the model's choice for this size", "model"},
        {"model: cheapest that can run", "model"},
        {"forced by the environment", "forced"},
        {"forced by the configuration", "forced"},
        {"in place of the forced algorithm", "forced"},
        {"rule", "rule"},
        {"the library computes MPI_SUM on MPI_CHAR wrongly", "library-wrong"},
        {NULL, "-"},
    };
    cs_sched_stats stats = {.rounds = 1};
    cs_problem prob = {.coll = CS_COLL_ALLREDUCE, .p = 8, .count = 250, .elem = 4, .bytes = 1000};

    config_logging(&cfg, CS_LOG_SUMMARY, "ours.%r");
    cs_log_open(&cfg, 0, 8);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t k = 0; k <= i; k++) { /* i + 1 calls of the i-th: each row is its own */
            cs_decision d = {.alg = butterfly, .reason = cases[i].reason, .predicted = 1e-6};
            cs_record r = {.prob = &prob, .d = &d, .rank = 0, .op = MPI_SUM, .elapsed = 1e-6, .stats = &stats};
            cs_log_call(&r);
        }
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/ours.0.summary", dir);
    const char *text = slurp(path);
    /* the rows' calls per word: model 1 + 2, forced 3 + 4 + 5, rule 6, library-wrong 7, "-" 8 */
    static const struct {
        const char *word;
        unsigned long long calls;
    } rows[] = {{"model", 3}, {"forced", 12}, {"rule", 6}, {"library-wrong", 7}, {"-", 8}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char line[160];
        snprintf(line, sizeof line, "     %-10s %-12s %-9s %10llu ", "allreduce", "butterfly", "64-1K", rows[i].calls);
        const char *row = strstr(text, line);
        ck_assert_msg(row, "summary lacks a row of %llu calls:\n%s", rows[i].calls, text);
        const char *end = strchr(row, '\n');
        ck_assert_ptr_nonnull(end);
        const size_t w = strlen(rows[i].word);
        ck_assert_msg(end - row > (long)w + 1 && end[-(long)w - 1] == ' ' && !strncmp(end - w, rows[i].word, w),
                      "the row of %llu calls does not end in %s:\n%s", rows[i].calls, rows[i].word, text);
    }
}
END_TEST

/* The collectives the shim did not intercept: a section of rank 0's
 * summary and one record of the log, once, at finalize. */
START_TEST(test_uncaught)
{
    cs_config cfg;
    char path[128];
    config_logging(&cfg, CS_LOG_CALLS, "nc.%r.jsonl");
    cs_log_open(&cfg, 0, 2);
    log_one(cs_alg_native(CS_COLL_ALLREDUCE), "breakpoint", NULL);
    cs_log_uncaught("MPI_Iallreduce", 200);
    cs_log_uncaught("MPI_Allreduce_init", 1);
    cs_log_uncaught("MPI_Bcast", 0); /* nothing to say */
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/nc.0.jsonl", dir);
    const char *text = slurp(path);
    const char *record = "{\"record\":\"not_intercepted\",\"rank\":0,\"calls\":{\"MPI_Iallreduce\":200,"
                         "\"MPI_Allreduce_init\":1},\"note\":\"ran by the MPI library, not priced or logged\"}\n";
    ck_assert_msg(strstr(text, record), "the log lacks %s:\n%s", record, text);
    const char *at = strstr(text, "not_intercepted");
    ck_assert_ptr_null(strstr(at + 1, "not_intercepted")); /* once, */
    ck_assert(at[-11] == '{' && at[-12] == '\n');          /* a line of its own, */
    ck_assert_str_eq(strstr(text, record), record);        /* the last */
    ck_assert_ptr_null(strstr(text, "MPI_Bcast"));
    snprintf(path, sizeof(path), "%s/nc.0.jsonl.summary", dir);
    text = slurp(path);
    const char *section = "@--- not intercepted ---\n"
                          "     MPI_Iallreduce 200 calls: ran by the MPI library, not priced or logged\n"
                          "     MPI_Allreduce_init 1 call: ran by the MPI library, not priced or logged\n";
    ck_assert_msg(strstr(text, section), "the summary lacks\n%s:\n%s", section, text);

    /* Another rank: its own record, no summary. Level summary: the section, no log. */
    config_logging(&cfg, CS_LOG_CALLS, "nc.%r.jsonl");
    cs_log_open(&cfg, 1, 2);
    cs_log_uncaught("MPI_Ireduce", 3);
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/nc.1.jsonl", dir);
    ck_assert_ptr_nonnull(
        strstr(slurp(path), "{\"record\":\"not_intercepted\",\"rank\":1,\"calls\":{\"MPI_Ireduce\":3}"));
    snprintf(path, sizeof(path), "%s/nc.1.jsonl.summary", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    config_logging(&cfg, CS_LOG_SUMMARY, "ns.%r");
    cs_log_open(&cfg, 0, 2);
    cs_log_uncaught("MPI_Ialltoall", 5);
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/ns.0.summary", dir);
    ck_assert_ptr_nonnull(
        strstr(slurp(path), "@--- not intercepted ---\n     MPI_Ialltoall 5 calls: ran by the MPI library"));
    snprintf(path, sizeof(path), "%s/ns.0", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    /* Logging off: nothing kept, nothing written. */
    cs_config_defaults(&cfg);
    cs_log_open(&cfg, 0, 2);
    cs_log_uncaught("MPI_Ialltoall", 5);
    cs_log_finalize();
}
END_TEST

/* Rank `rank` of 8 opens its log at `level` (file pattern `pattern`), records a
 * call and closes it: is there a file `name`? */
static int log_file_made(cs_log_level level, const char *pattern, int rank, const char *name)
{
    cs_config cfg;
    char path[128];
    config_logging(&cfg, level, pattern);
    cs_log_open(&cfg, rank, 8);
    log_one(cs_alg_native(CS_COLL_ALLREDUCE), "breakpoint", NULL);
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* At level summary only rank 0 writes; the others make no file. */
START_TEST(test_summary_no_empty_files)
{
    ck_assert(!log_file_made(CS_LOG_SUMMARY, "none.%r", 2, "none.2"));
    ck_assert(log_file_made(CS_LOG_SUMMARY, "some.%r", 0, "some.0.summary"));
}
END_TEST

START_TEST(test_pid_pattern)
{
    char name[64];
    snprintf(name, sizeof(name), "p%ld.r5", (long)getpid());
    ck_assert(log_file_made(CS_LOG_CALLS, "p%p.r%r", 5, name));
}
END_TEST

/* An unwritable path: one warning from the first logging rank, logging off,
 * and nothing else happens. */
START_TEST(test_unwritable_path)
{
    cs_config cfg;
    char errpath[128];
    snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
    ck_assert_ptr_nonnull(freopen(errpath, "w", stderr));
    cs_config_defaults(&cfg);
    cfg.log_level = CS_LOG_CALLS;
    strcpy(cfg.log_file, "/nonexistent-dir/log.%r");
    cs_log_open(&cfg, 0, 4);
    ck_assert(!cs_log_active());
    cs_log_open(&cfg, 1, 4); /* another rank: silent */
    fflush(stderr);
    const char *text = slurp(errpath);
    ck_assert_ptr_nonnull(strstr(text, "cannot write the log /nonexistent-dir/log.0"));
    ck_assert_ptr_null(strstr(text, "log.1"));
}
END_TEST

/* Level calls: rank 0's log holds its call records and nothing else (the
 * summary table went to <log>.summary: jq reads the log to its end). */
START_TEST(test_calls_log_pure_json)
{
    cs_config cfg;
    char path[128];
    config_logging(&cfg, CS_LOG_CALLS, "pure.%r.jsonl");
    cs_log_open(&cfg, 0, 2);
    for (int i = 0; i < 3; i++)
        log_one(cs_alg_native(CS_COLL_ALLREDUCE), "breakpoint", NULL);
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/pure.0.jsonl", dir);
    const char *text = slurp(path);
    int lines = 0;
    for (const char *l = text; *l; l = strchr(l, '\n') + 1, lines++)
        ck_assert_msg(l[0] == '{' && strchr(l, '\n')[-1] == '}', "not a JSON object line: %s", l);
    ck_assert_int_eq(lines, 3);
    snprintf(path, sizeof(path), "%s/pure.0.jsonl.summary", dir);
    ck_assert_ptr_nonnull(strstr(slurp(path), "@ collshim summary"));
}
END_TEST

/* A name without %r that several ranks write: one file per rank, the rank
 * before the extension, said once by the first logging rank. */
START_TEST(test_shared_name_per_rank)
{
    char errpath[128];
    snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
    ck_assert_ptr_nonnull(freopen(errpath, "w", stderr));
    ck_assert(log_file_made(CS_LOG_CALLS, "run.jsonl", 0, "run.0.jsonl"));
    ck_assert(log_file_made(CS_LOG_CALLS, "run.jsonl", 3, "run.3.jsonl"));
    ck_assert(log_file_made(CS_LOG_CALLS, "plain", 5, "plain.5"));
    fflush(stderr);
    const char *text = slurp(errpath);
    const char *said = strstr(text, "run.jsonl has no %r and several ranks write it: each writes its own, ");
    ck_assert_msg(said && strstr(said, "/run.<rank>.jsonl\n"), "stderr: %s", text);
    ck_assert_ptr_null(strstr(said + 1, "run.jsonl has no %r")); /* rank 3: silent */
}
END_TEST

/* One rank alone writes the name (level summary, or log.ranks: [2]): kept. */
START_TEST(test_one_writer_keeps_name)
{
    cs_config cfg;
    config_logging(&cfg, CS_LOG_CALLS, "only.jsonl");
    cfg.log_all_ranks = 0;
    cfg.nlog_ranks = 1;
    cfg.log_ranks[0] = 2;
    cs_log_open(&cfg, 2, 8);
    log_one(cs_alg_native(CS_COLL_ALLREDUCE), "breakpoint", NULL);
    cs_log_finalize();
    char path[128];
    snprintf(path, sizeof(path), "%s/only.jsonl", dir);
    ck_assert_ptr_nonnull(strstr(slurp(path), "{\"coll\":\"allreduce\""));
}
END_TEST

/* A configuration file's name in a rule's reason is escaped: the record
 * stays JSON whatever the name holds. */
START_TEST(test_source_escaped)
{
    cs_config cfg;
    char path[128];
    config_logging(&cfg, CS_LOG_CALLS, "esc.%r");
    strcpy(cfg.source, "/tmp/a \"b\"\\c.yaml");
    cs_log_open(&cfg, 1, 2);
    cs_problem prob = {.coll = CS_COLL_ALLREDUCE, .p = 2, .count = 1, .elem = 4, .bytes = 4};
    cs_decision d = {
        .alg = cs_alg_native(CS_COLL_ALLREDUCE), .reason = "rule", .predicted = -1, .rule = 1, .rule_line = 7};
    cs_record r = {.prob = &prob, .d = &d, .rank = 1, .op = MPI_SUM, .elapsed = 1e-6};
    cs_log_call(&r);
    cs_log_finalize();
    snprintf(path, sizeof(path), "%s/esc.1", dir);
    const char *text = slurp(path);
    ck_assert_msg(strstr(text, "(allreduce.rules[0], /tmp/a \\\"b\\\"\\\\c.yaml:7)"), "%s", text);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(cs_log_op_name(MPI_SUM), "MPI_SUM");
    ck_assert_str_eq(cs_log_op_name(MPI_MAXLOC), "MPI_MAXLOC");
    ck_assert_str_eq(cs_log_op_name(MPI_OP_NULL), "none");
    cs_decision d = {.alg = cs_alg_native(CS_COLL_REDUCE)};
    char buf[64];
    cs_log_alg_spec(&d, buf, sizeof(buf));
    ck_assert_str_eq(buf, "native");
}
END_TEST

Suite *make_log_suite(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("log");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_calls_json_fields);
    tcase_add_test(tc, test_plan_field);
    tcase_add_test(tc, test_summary_on_rank0);
    tcase_add_test(tc, test_summary_native_why);
    tcase_add_test(tc, test_summary_ours_why);
    tcase_add_test(tc, test_uncaught);
    tcase_add_test(tc, test_summary_no_empty_files);
    tcase_add_test(tc, test_pid_pattern);
    tcase_add_test(tc, test_unwritable_path);
    tcase_add_test(tc, test_calls_log_pure_json);
    tcase_add_test(tc, test_shared_name_per_rank);
    tcase_add_test(tc, test_one_writer_keeps_name);
    tcase_add_test(tc, test_source_escaped);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    return s;
}
