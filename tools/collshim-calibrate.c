/*
 * collshim-calibrate: measure this machine and write collshim's configuration for it.
 *
 *   mpiexec.mpich -n P collshim-calibrate [--rules] [-o machine.yaml] [--quick | --budget 20m]
 *                                   [--sizes LIST] [--comm-sizes LIST] [--alltoall-max BYTES]
 *                                   [--reps N] [--noise F] [--target SECONDS] [--colls LIST]
 *                                   [--skip LIST]
 *   mpiexec.mpich -n P collshim-calibrate --fit [-o machine.yaml] [...]
 *   mpiexec.mpich -n P collshim-calibrate --verify machine.yaml [-o fixed.yaml] [--quick] [...]
 *
 * (mpirun.openmpi for Open MPI's build: it times the library it runs on and writes it as
 * model.library.) Run it with the launcher, the nodes and the ranks per node of the real jobs. It
 *
 * 1. fits the model: alpha and beta by least squares over ping-pong times of 0 B to
 *    4 MiB (relative errors, model/fit.h; R^2 and residuals printed), between two
 *    ranks of one node and, when the run spans nodes (MPI_Comm_split_type shared),
 *    between two nodes: the model takes the inter-node fit then (a collective over
 *    nodes waits for its slowest links); rho from copies beyond the caches; gamma
 *    from PMPI_Reduce_local on the common type and operator classes (the model
 *    takes MPI_DOUBLE with MPI_SUM, the type collshim is calibrated with); o
 *    (overhead) from round trips of k tiny messages between two ranks,
 *    k = 1, 2, 4, ... (half of one: alpha + k o), which also show whether
 *    concurrent messages overlap their alpha; the ping-pong's alpha less o is the
 *    model's; a run over nodes gives alpha_node and beta_node from the
 *    intra-node fit (node_levels);
 * 2. times, per collective, communicator size (the world and sub-communicators of
 *    the first q ranks, powers of two and not) and message size, the library's
 *    collective and every algorithm of ours that can run it (each result checked
 *    against the library's), in paired repetitions, each timed two ways: calls
 *    back to back (total / calls, as applications and OSU or IMB loop) and one
 *    call from a common start (common_start.h: what the model prices); prints
 *    medians, each ratio to the library with its noise, the model's
 *    prediction, and the model's error per algorithm (median and worst);
 * 3. writes a complete configuration (src/config/config_write.c): the fitted model
 *    and <coll>.rules per communicator size x size range (calibrate/derive.h): the
 *    library where the best of ours measured no faster than it (beyond the noise
 *    or within it), auto where the model's choice measured as fast as the best of
 *    ours and faster than the library, else the measured best, each
 *    judged by the worse of its two ratios (back to back, common start). A p it
 *    did not measure gets no rule, so select keeps the library there, to be safe.
 *
 * --rules (the default) does all three. --fit does 1 only, times every
 * algorithm of ours as the fitted model tunes it at the world's p and a few
 * sizes for the model's error per algorithm, and writes the model with no
 * rules (select decides every call under it): seconds at p = 2.
 *
 * --verify FILE reads a configuration (either kind) and times, cell by cell,
 * what collshim would run under it (select's decision, as the shim makes it)
 * against the library, both ways, and reports every cell where that is slower
 * beyond the noise by either (what ran, the rule, both times and the ratio) and
 * what to do, and the model's error per algorithm. With -o FIXED it writes FILE
 * with those cells native and every other rule as it was (cs_cal_verify_fix,
 * calibrate/summary.h): rank 0, which timed every cell, gives every rank its
 * verdicts, and writes.
 * Exit status (tools/cs_tool.h, as the other tools): 0; 1 when the work failed (a
 * wrong result, the model not fitted, the file not written); 2 on a usage error
 * (fewer than 2 ranks, an unknown option or bad value, a configuration that
 * cannot be used); 3 when --verify found a cell slower than the library.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate/tool.h"
#include "cs_tool.h"

int cal_rank, cal_world;

static int cmp_cell(const void *a, const void *b)
{
    const cs_cal_cell *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* The configuration: the fitted model and the rules. 0, or -1. */
static int write_config(cal_state *st, const int *qs, int nq, int ncut_q)
{
    FILE *f = fopen(st->o->out, "w");
    if (!f) {
        fprintf(stderr, "collshim-calibrate: %s: %s\n", st->o->out, strerror(errno));
        return -1;
    }
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    if (st->o->fit) { /* the model alone: select decides every call under it */
        fprintf(f, "# Written by collshim-calibrate --fit on %s: %d ranks; the fitted model, no rules.\n", when,
                cal_world);
        int rc = cs_config_write(f, &st->cfg);
        return fclose(f) != 0 || rc != 0 ? -1 : 0;
    }
    fprintf(f, "# Written by collshim-calibrate%s on %s: %d ranks; communicator sizes measured:",
            st->o->quick ? " --quick" : "", when, cal_world);
    for (int i = 0; i < nq; i++)
        fprintf(f, " %d", qs[i]);
    fprintf(f, "%s.\n# Rules cover those sizes; at any other p the MPI library is kept, to be safe.\n",
            ncut_q ? " (the budget cut the rest)" : "");
    for (int coll = 0; coll < CS_COLL_LAST; coll++) {
        cs_coll_config *cc = &st->cfg.coll[coll];
        int cut;
        qsort(st->cells[coll], (size_t)st->ncells[coll], sizeof(cs_cal_cell), cmp_cell);
        cc->nrules = cs_cal_rules(st->cells[coll], st->ncells[coll], cc->rules, CS_MAX_RULES, &cut);
        if (cut)
            fprintf(f, "# %s: rules for %d communicator size(s) did not fit in %d rules: not written\n",
                    cs_coll_name((cs_coll)coll), cut, CS_MAX_RULES);
    }
    int rc = cs_config_write(f, &st->cfg);
    return fclose(f) != 0 || rc != 0 ? -1 : 0;
}

/* --verify FILE -o FIXED: FILE as read (cfg) with the slower cells set[] native (cs_cal_verify_fix), its own
 * opening comments kept under a line that says which were set. 0, or -1. */
static int write_fixed(const cal_opts *o, const cs_config *cfg, const cs_cal_verify_cell *cells, int n, const int *set)
{
    char comments[8192] = "", line[1024], when[64];
    FILE *in = fopen(o->verify, "r"), *f;
    if (in) { /* FILE's opening comments, how it was made: read before FIXED is opened, which may be FILE */
        while (fgets(line, sizeof line, in) && line[0] == '#' && strlen(comments) + strlen(line) < sizeof comments)
            strcat(comments, line);
        fclose(in);
    }
    if (!(f = fopen(o->out, "w"))) {
        fprintf(stderr, "collshim-calibrate: %s: %s\n", o->out, strerror(errno));
        return -1;
    }
    time_t now = time(NULL);
    int nset = 0;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    for (int i = 0; i < n; i++)
        nset += set[i];
    fprintf(f,
            "# Written by collshim-calibrate --verify %s -o %s on %s: %d ranks; %s with %d cell%s measured slower\n"
            "# than the library set native%s\n",
            o->verify, o->out, when, cal_world, o->verify, nset, nset == 1 ? "" : "s", nset ? ":" : "");
    for (int i = 0; i < n; i++)
        if (set[i])
            fprintf(f, "#   %s at p = %d, %zu bytes: was %s, %.2f of the library's time\n", cells[i].coll, cells[i].p,
                    cells[i].bytes, cells[i].what, cells[i].ratio.median);
    fputs(comments, f);
    int rc = cs_config_write(f, cfg);
    return fclose(f) != 0 || rc != 0 ? -1 : 0;
}

/* The library this process runs on, as MPI_Get_library_version names it (its first line in
 * version); where that fails, the one whose mpi.h the tool was built with. */
static cs_library library_running(char *version)
{
    int len;
    if (PMPI_Get_library_version(version, &len) == MPI_SUCCESS) {
        version[strcspn(version, "\n")] = '\0';
        return cs_library_detect(version);
    }
#ifdef OPEN_MPI
    strcpy(version, "Open MPI (its mpi.h)");
    return CS_LIBRARY_OPENMPI;
#else
    strcpy(version, "MPICH (its mpi.h)");
    return CS_LIBRARY_MPICH;
#endif
}

/* The library priced (model.library): the file's (--verify), else COLLSHIM_LIBRARY's, else the
 * one running (the scale lab names SMPI's selector, which no version says); the one timed is
 * always the one running, and a file priced for another is said to be. 0, or -1 with *err. */
static int library_priced(cs_config *cfg, cs_config_error *err)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    const cs_library running = library_running(version);
    const int from_file = cfg->model.library != CS_LIBRARY_AUTO;
    if (!from_file && cs_config_env_apply_one(cfg, "COLLSHIM_LIBRARY", err) != 0)
        return -1;
    if (cfg->model.library == CS_LIBRARY_AUTO)
        cfg->model.library = running;
    if (cal_rank == 0)
        printf("# library timed: %s; priced as %s (model.library)\n", version, cs_library_name(cfg->model.library));
    if (cal_rank == 0 && from_file &&
        (cfg->model.library == CS_LIBRARY_MPICH || cfg->model.library == CS_LIBRARY_OPENMPI) &&
        cfg->model.library != (int)running)
        printf("# warning: the file prices %s, and this run is on %s: calibrate with the library the jobs use\n",
               cs_library_name(cfg->model.library), cs_library_name(running));
    return 0;
}

/* More ranks on a node than it has cores (those this rank may run on): said once, on rank 0, with
 * what it costs and what to do. MPICH's ch4:ucx busy-polls, so each call then waits for time slices:
 * --quick at p = 8 on 2 cores took 300 to 400 s here, and 20 to 35 s with the test suite's yield
 * wrapper preloaded (docs/calibration.md). Every rank calls it. */
static void warn_oversubscribed(void)
{
    MPI_Comm node;
    cpu_set_t cpus;
    int ranks, cores = (int)sysconf(_SC_NPROCESSORS_ONLN), over, any;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0)
        cores = CPU_COUNT(&cpus);
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_size(node, &ranks);
    PMPI_Comm_free(&node);
    over = cores > 0 && ranks > cores;
    PMPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (cal_rank != 0 || !any)
        return;
    const char *preload = getenv("LD_PRELOAD");
    const int yields = preload && strstr(preload, "yield");
    char where[64] = "a node";
    if (over)
        snprintf(where, sizeof where, "rank 0's node (%d ranks, %d cores)", ranks, cores);
    printf("# warning: more ranks than cores on %s: what is timed is an oversubscribed machine, not a job with one "
           "rank per core\n",
           where);
#ifndef OPEN_MPI
    if (!yields)
        printf("#          and MPICH busy-polls, so every call waits for time slices (--quick at p = 8 on 2 cores\n"
               "#          took 300 to 400 s, and 20 to 35 s with the test suite's yield wrapper preloaded:\n"
               "#          LD_PRELOAD=build/libcs_yield.so, as make check runs it; docs/calibration.md)\n");
#endif
    fprintf(stderr, "collshim-calibrate: warning: more ranks than cores on %s%s\n", where,
            yields ? "" : ": see standard output");
}

/* A configuration that cannot be used (--verify's file, COLLSHIM_LIBRARY): said once, and the exit status. */
static int config_failed(const cs_config_error *err)
{
    char text[512];
    cs_config_error_format(err, text, sizeof text);
    if (cal_rank == 0)
        fprintf(stderr, "collshim-calibrate: %s\n", text);
    MPI_Finalize();
    return CS_TOOL_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    static cal_state st;
    cal_opts o;
    int qs[CAL_MAX_Q], nq, done = 0, rc = 0;

    MPI_Init(&argc, &argv);
    cs_tool_check_launcher("collshim-calibrate");
    setvbuf(stdout, NULL, _IOLBF, 0); /* a line at a time: progress shows in a log, also where a run is cut */
    PMPI_Comm_rank(MPI_COMM_WORLD, &cal_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cal_world);
    const int asked = cal_parse_opts(argc, argv, &o);
    if (asked == 1) {
        cal_usage(stdout);
        MPI_Finalize();
        return 0;
    }
    if (asked != 0 || cal_world < 2) {
        cal_usage_error(asked);
        MPI_Finalize();
        return CS_TOOL_EXIT_USAGE;
    }
    st.o = &o;
    warn_oversubscribed();
    cs_config_defaults(&st.cfg);
    st.defaults = st.cfg.model;
    const double t0 = PMPI_Wtime();
    cs_config_error err;
    static cs_config as_read; /* --verify's file as read, for -o */
    if (o.verify && cs_config_load(o.verify, &st.cfg, &err) != 0)
        return config_failed(&err);
    as_read = st.cfg;
    if (library_priced(&st.cfg, &err) != 0)
        return config_failed(&err);
    st.defaults.library = st.cfg.model.library;
    if (o.verify) {
        if (cal_rank == 0)
            printf("# verify %s: what collshim runs under it against the library, per cell\n", o.verify);
    } else if (cal_fit_model(&o, &st.cfg.model) != 0) {
        if (cal_rank == 0)
            fprintf(stderr, "collshim-calibrate: the model could not be fitted\n");
        MPI_Finalize();
        return 1;
    }
    if (o.fit) { /* the file as soon as the model is fitted: the timings below only report its error */
        int bad = cal_rank == 0 && write_config(&st, NULL, 0, 0) != 0;
        PMPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (bad) {
            MPI_Finalize();
            return 1;
        }
        if (cal_rank == 0)
            printf("# wrote %s: the model, fitted in %.3g s\n", o.out, PMPI_Wtime() - t0);
    }
    static cs_hull_table hulls; /* as the shim: Bokhari's hulls on the model and the file */
    cs_hull_table_init(&hulls, &st.cfg.model, st.cfg.coll[CS_COLL_ALLTOALL].hull, st.cfg.coll[CS_COLL_ALLTOALL].nhulls);
    st.cfg.model.hulls = &hulls;

    nq = o.nqs ? o.nqs : o.fit ? (qs[0] = cal_world, 1) : cal_comm_sizes(cal_world, qs);
    if (o.nqs)
        memcpy(qs, o.qs, sizeof(int) * (size_t)nq);
    if (o.colls == CAL_COLLS_NONE) /* the model alone */
        nq = 0;
    if (cal_rank == 0 && nq > 0)
        printf("# per path: back to back (%s calls, seconds per call, median; its ratio to the library's, +-noise),\n"
               "# then one call from a common start (the same), then the model's prediction and its ratio to that\n"
               "%-9s %5s %8s  %-22s %10s  %6s %6s  %10s  %6s %6s  %10s %7s\n",
               o.target > 0 ? "N" : "1", "coll", "p", "bytes", "alg", "loop_s", "/nativ", "noise", "start_s", "/nativ",
               "noise", "predicted", "pred/st");
    st.cells_planned = cal_cells_planned(&o, qs, nq);
    st.t_cells = PMPI_Wtime();
    for (int i = 0; i < nq && rc == 0; i++) {
        int go = o.budget <= 0 || i == 0 || PMPI_Wtime() - t0 < o.budget;
        PMPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!go)
            break;
        int bad = cal_measure_comm(&st, qs[i]) != 0, any;
        PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        rc = any;
        done++;
    }
    /* --verify: rank 0's verdicts, which it timed every cell of, are every rank's; rank 0 alone writes -o. */
    static int set[NELEMS(st.verify)];
    int slower = 0, nverify = st.nverify;
    if (o.verify) {
        int verdict[NELEMS(st.verify)];
        PMPI_Bcast(&nverify, 1, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < nverify && cal_rank == 0; i++)
            verdict[i] = st.verify[i].verdict;
        PMPI_Bcast(verdict, nverify, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < nverify; i++)
            slower += verdict[i] == CS_CAL_SLOWER;
    }
    int unwritten = 0; /* -o FIXED could not be written: the verdicts are said all the same, then exit 1 */
    if (o.verify && o.out_given && rc == 0) {
        if (cal_rank == 0) {
            cs_cal_verify_fix(&as_read, st.verify, st.nverify, set);
            unwritten = write_fixed(&o, &as_read, st.verify, st.nverify, set) != 0;
        }
        PMPI_Bcast(&unwritten, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (cal_rank == 0 && rc == 0) {
        if (done > 0)
            cal_print_errors(&st);
        if (done < nq) {
            printf("# the budget cut communicator sizes");
            for (int i = done; i < nq; i++)
                printf(" %d", qs[i]);
            printf("\n");
        }
        if (o.verify) {
            const int fixed = o.out_given && !unwritten;
            cs_cal_verify_print(stdout, st.verify, st.nverify, o.verify, fixed ? o.out : NULL, fixed ? set : NULL);
        } else {
            if (st.nerr > 0)
                printf("# model error, median |predicted/measured - 1| over %d timings of ours: built-in model "
                       "%.1f%%, fitted %.1f%% (from a common start)\n",
                       st.nerr, 100 * cal_median_of(st.err_default, st.nerr), 100 * cal_median_of(st.err_fit, st.nerr));
            if (o.fit) /* written once fitted */
                printf("# done (%.0f s)\n", PMPI_Wtime() - t0);
            else if (write_config(&st, qs, done, nq - done) != 0)
                rc = 1;
            else
                printf("# wrote %s (%.0f s)\n", o.out, PMPI_Wtime() - t0);
            if (rc == 0)
                cal_print_summary(&st);
        }
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc || unwritten ? 1 : slower ? 3 : 0;
}
