/* The unit test runner: one Check suite per module, run one after the other. A line as each
 * suite ends (its tests, failures and seconds; each failure on a line of its own before it), and
 * every 30 s of a suite still running the tests it has done, so that make check-unit shows it
 * moving: one runner for every suite printed nothing but their names for many minutes (the coll
 * suite alone runs for minutes). CK_VERBOSITY (silent, minimal, normal, verbose) set: Check's own
 * output instead, suite by suite. CK_RUN_SUITE and CK_RUN_CASE choose as they do in Check. */
#include <check.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shard.h"

Suite *make_sim_suite(void);
Suite *make_sched_suite(void);
Suite *make_coll_suite(void);
Suite *make_config_suite(void);
Suite *make_select_suite(void);
Suite *make_log_suite(void);
Suite *make_hull_suite(void);
Suite *make_factor_suite(void);
Suite *make_protocols_suite(void);
Suite *make_reduction_suite(void);
Suite *make_window_suite(void);
Suite *make_calibrate_suite(void);
Suite *make_pricer_suite(void);
Suite *make_nodes_suite(void);
Suite *make_library_suite(void);
Suite *make_compose_suite(void);
Suite *make_bands_suite(void);

/* In this order; the name is the one each suite_create gives (for the progress lines). */
static const struct {
    const char *name;
    Suite *(*make)(void);
} suites[] = {
    {"sim", make_sim_suite},
    {"sched", make_sched_suite},
    {"coll", make_coll_suite},
    {"config", make_config_suite},
    {"select", make_select_suite},
    {"log", make_log_suite},
    {"hull", make_hull_suite},
    {"factor", make_factor_suite},
    {"protocols", make_protocols_suite},
    {"reduction", make_reduction_suite},
    {"window", make_window_suite},
    {"calibrate", make_calibrate_suite},
    {"pricer", make_pricer_suite},
    {"nodes", make_nodes_suite},
    {"library", make_library_suite},
    {"compose", make_compose_suite},
    {"bands", make_bands_suite},
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The suite running, for the progress thread: Check writes a line to the runner's log file as
 * each test ends (srunner_set_log), which the thread counts. */
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *progress_suite; /* NULL between suites */
static double progress_t0;
static char progress_log[64];

static int tests_done(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, ":P:") || strstr(line, ":F:") || strstr(line, ":E:");
    fclose(f);
    return n;
}

static void *progress(void *arg)
{
    const char *who = arg;
    double last = 0;
    for (;;) {
        sleep(1);
        pthread_mutex_lock(&progress_lock);
        if (progress_suite && now() - progress_t0 >= last + 30) {
            last = now() - progress_t0;
            printf("%s: %-10s running, %d tests done, %.0f s\n", who, progress_suite, tests_done(progress_log), last);
        } else if (!progress_suite) {
            last = 0;
        }
        pthread_mutex_unlock(&progress_lock);
    }
    return NULL;
}

int main(void)
{
    /* The simulator allocates and frees tables of megabytes for every
     * schedule it runs. Above glibc's mmap threshold each would be mapped,
     * faulted in page by page and unmapped again: kept in the heap, the
     * suites run about three times faster (make check under 30 minutes). */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    /* Each line reaches a pipe (make check's log) when written: two runners share the terminal. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *who = unit_shard_label();
    int own = getenv("CK_VERBOSITY") == NULL;
    int nsuites = 0, ntests = 0, nfailed = 0;
    double t_all = now();
    /* CS_UNIT_PROGRESS=0 (make check-asan): no thread, whose registration LeakSanitizer would
     * see, not running, in every forked test ("False leaks are possible"). */
    const char *progress_env = getenv("CS_UNIT_PROGRESS");
    const int progressing = own && !(progress_env && !strcmp(progress_env, "0"));
    if (progressing) {
        snprintf(progress_log, sizeof progress_log, "%s/cs-unit-%ld.log", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 (long)getpid());
        /* The thread takes no signal: Check's timeouts (SIGALRM) stay the main thread's. */
        sigset_t all, old;
        pthread_t th;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        if (pthread_create(&th, NULL, progress, (void *)who) == 0)
            pthread_detach(th);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        SRunner *sr = srunner_create(suites[i].make());
        double t0 = now();
        if (progressing) {
            remove(progress_log);
            srunner_set_log(sr, progress_log);
            pthread_mutex_lock(&progress_lock);
            progress_suite = suites[i].name;
            progress_t0 = t0;
            pthread_mutex_unlock(&progress_lock);
        }
        srunner_run_all(sr, own ? CK_SILENT : CK_ENV);
        pthread_mutex_lock(&progress_lock);
        progress_suite = NULL;
        pthread_mutex_unlock(&progress_lock);
        int run = srunner_ntests_run(sr), failed = srunner_ntests_failed(sr);
        if (run > 0 && own) { /* not left out by CK_RUN_SUITE / CK_RUN_CASE */
            TestResult **res = srunner_failures(sr);
            for (int k = 0; k < failed; k++)
                printf("%s: %s:%d: %s: %s: %s\n", who, tr_lfile(res[k]), tr_lno(res[k]), tr_tcname(res[k]),
                       tr_rtype(res[k]) == CK_ERROR ? "error" : "failed", tr_msg(res[k]));
            free(res);
            printf("%s: %-10s %4d tests, %d failed, %6.1f s\n", who, suites[i].name, run, failed, now() - t0);
        }
        nsuites += run > 0;
        ntests += run;
        nfailed += failed;
        srunner_free(sr);
    }
    if (progressing)
        remove(progress_log);
    if (own && nsuites > 1)
        printf("%s: %d suites, %d tests, %d failed, %.0f s\n", who, nsuites, ntests, nfailed, now() - t_all);
    return nfailed ? EXIT_FAILURE : EXIT_SUCCESS;
}
