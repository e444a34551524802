/*
 * Configuration: the defaults, the order of the sources and the fallback
 * after an error. The file is read in config_yaml.c (its keys are in
 * config_schema.c), the environment in config_env.c, and the values both
 * share are parsed in config_value.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config/config_internal.h"

void cs_config_defaults(cs_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    /* One shared-memory node: about 1 us per message, 0.2 us of the
     * poster's time per message posted, 5 GB/s on the wire, 10 GB/s for a
     * local copy, 4 GB/s through a reduction operator. The library keeps a
     * call unless ours is predicted 10% cheaper: the built-in model errs by
     * more than that on some machines (the scale lab's median error of the
     * calibrated model was 19%), and a call the model is unsure of is safest
     * where it is. */
    cfg->model = (cs_model){
        .alpha = 1.0e-6, .beta = 2.0e-10, .rho = 1.0e-10, .gamma = 2.5e-10, .overhead = 2.0e-7, .margin = 0.1};
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        cfg->coll[c].choice = CS_CHOICE_AUTO;
        cs_params_init(&cfg->coll[c].params);
    }
    cfg->log_level = CS_LOG_OFF;
    strcpy(cfg->log_file, "stderr");
    cfg->log_all_ranks = 1;
    cfg->reproducible = 1;
}

/*
 * After an error the program must still run, and run as if collshim were not
 * there: every collective goes to the MPI library. Strict and logging are
 * kept where they can be trusted, so that a strict user still gets the abort
 * and a user who asked for a log still sees what happened.
 */
static void cs_config_fallback(cs_config *cfg)
{
    static const char *const kept[] = {"COLLSHIM_STRICT", "COLLSHIM_LOG", "COLLSHIM_LOG_LEVEL"};
    int strict = cfg->strict; /* the file's, as far as it was read */
    cs_config_error ignored;

    cs_config_defaults(cfg);
    for (int c = 0; c < CS_COLL_LAST; c++)
        cfg->coll[c].choice = CS_CHOICE_NATIVE;
    cfg->strict = strict;
    /* An invalid one leaves the default; the first error is already reported. */
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        cs_config_env_apply_one(cfg, kept[i], &ignored);
}

int cs_config_init(cs_config *cfg, cs_config_error *err)
{
    const char *path = getenv("COLLSHIM_CONFIG");
    int rc = 0;

    cs_config_defaults(cfg);
    if (path && *path)
        rc = cs_config_load(path, cfg, err);
    if (rc == 0)
        rc = cs_config_apply_env(cfg, err);
    if (rc != 0)
        cs_config_fallback(cfg);
    return rc;
}

void cs_config_error_format(const cs_config_error *err, char *buf, size_t size)
{
    if (size == 0)
        return;
    if (err->line == 0)
        snprintf(buf, size, "%s: %s", err->file, err->message);
    else
        snprintf(buf, size, "%s:%d:%d: %s", err->file, err->line, err->column, err->message);
}

/*
 * Strict mode ends the job, and the user must see why on every run. The
 * launcher forwards what a rank writes while the job lives, and an abort
 * may end it first: MPICH's lost every line of a run, its own "Abort" lines
 * too, about one run in twenty. So a rank that aborts waits CS_STRICT_SAY_S
 * after its line. Rank 0 says so at once. Another rank cannot know whether
 * rank 0 found the same fault (a file bad everywhere) or none (a setting
 * bad on some ranks only): it waits CS_STRICT_GRACE_S, in which rank 0's
 * abort ends it without a second line, then says so itself, naming its
 * rank. No rank waits on another: nothing can hang.
 */
#define CS_STRICT_SAY_S 1
#define CS_STRICT_GRACE_S 3
int cs_config_report(const cs_config *cfg, const cs_config_error *err, int world_rank)
{
    char text[sizeof err->file + sizeof err->message + 32];
    cs_config_error_format(err, text, sizeof text);
    if (world_rank != 0 && !cfg->strict)
        return 0; /* rank 0 says it, once */
    if (world_rank != 0)
        sleep(CS_STRICT_GRACE_S);
    if (world_rank == 0)
        fprintf(stderr, "collshim: %s; %s\n", text,
                cfg->strict ? "aborting (strict)" : "running on the MPI library's collectives");
    else
        fprintf(stderr, "collshim: rank %d: %s; aborting (strict)\n", world_rank, text);
    fflush(stderr);
    if (cfg->strict)
        sleep(CS_STRICT_SAY_S);
    return cfg->strict;
}

/* "MPICH", "Open MPI": the libraries a program runs on, as their users name them. */
static const char *cs_config_library_words(int library)
{
    return library == CS_LIBRARY_OPENMPI ? "Open MPI" : "MPICH";
}

/*
 * The library priced is the one the program runs on: where the
 * configuration says auto, and where it names the other of the two (a file
 * calibrated under MPICH, loaded by Open MPI's build: its rules and costs
 * were measured against MPICH's collectives, and MPICH's defaults priced
 * under Open MPI would decide against a library that is not there).
 * COLLSHIM_LIBRARY is the user's word for this run and stands, as do the
 * simulated libraries (the scale lab names them).
 */
int cs_config_library_running(cs_config *cfg, int running, int say)
{
    const int given = cfg->model.library;
    const char *env = getenv("COLLSHIM_LIBRARY");
    const int real = given == CS_LIBRARY_MPICH || given == CS_LIBRARY_OPENMPI;
    if (given == CS_LIBRARY_AUTO) {
        cfg->model.library = running;
        return 0;
    }
    if (!real || given == running || (running != CS_LIBRARY_MPICH && running != CS_LIBRARY_OPENMPI) || (env && *env))
        return 0;
    cfg->model.library = running;
    if (say)
        fprintf(stderr,
                "collshim: %s was written for %s (model.library: %s) and this program runs %s: its rules and "
                "costs were measured under %s; pricing %s's own collectives (collshim-calibrate under %s writes "
                "a file for it)\n",
                cfg->source[0] ? cfg->source : "the configuration", cs_config_library_words(given),
                cs_library_name(given), cs_config_library_words(running), cs_config_library_words(given),
                cs_config_library_words(running), cs_config_library_words(running));
    return 1;
}

int cs_config_native_range(const cs_coll_config *cc, size_t bytes)
{
    /* The last range starting at or below bytes is the only candidate. */
    int lo = 0, hi = cc->nnative;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (cc->native[mid].lo <= bytes)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && bytes <= cc->native[lo - 1].hi;
}

void cs_cfg_error(cs_config_error *err, const char *file, int line, int column, const char *fmt, ...)
{
    va_list ap;

    snprintf(err->file, sizeof err->file, "%s", file);
    err->line = line;
    err->column = column;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}
