/*
 * collshim-model: predicted times of allreduce for p processes.
 *
 * usage: collshim-model -p P [--config FILE] [--alpha S] [--beta S] [--gamma S] [--rho S]
 *                       [--bytes M[,M...]] [--window N:R]
 *        collshim-model --table1 | --spr-table1 | --spr-plan N
 *        collshim-model -p P --domain COLL:ALG
 *        collshim-model -p P --library COLL [--config FILE] [--bytes M[,M...]]
 *        collshim-model --export mpich|openmpi [-p P] [--config FILE] [--base FILE] -o FILE
 *
 * For each message size: the four protocols of Rabenseifner and Träff 2004,
 * §3.5 (ring and elimination, latency- and bandwidth-optimal), as the paper
 * prices them, and collshim's own allreduce algorithms with the parameters
 * the model tunes and their exact closed forms. --table1 prints the paper's
 * Table 1 from the same formulas (times in multiples of alpha).
 * --window N:R prices instead collshim_window_reduce's methods for window N
 * and offset R on p ranks (the slowest rank's schedule) and names the one
 * chosen (with and without an inverse operator). --spr-table1 prints
 * Table 1 of Szymanski et al. 1995 (the factorization algorithm's step
 * counts, §3.3) and --spr-plan N the factorization of one window.
 * --domain prints the p from 2 to P where an algorithm's restrictions on p
 * hold (for a commutative operator on an exact contiguous type): the test
 * driver reads the restrictions from here, where select states them.
 * --library prices the MPI library's default algorithm for a collective
 * (select/library.c: the choice of model.library, MPICH 4.0.2's unless
 * the configuration names another, as select prices it against ours) per
 * size. --export writes the library's own tuning file for allreduce,
 * alltoall and reduce from the model (tools/model/export.c) and says on
 * stdout where collshim's own algorithms would gain over it.
 */
#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/window/window.h"
#include "config/config.h"
#include "calibrate/sizes.h"
#include "cs_tool.h"
#include "model/export.h"
#include "select/library.h"
#include "model/protocols.h"
#include "select/select.h"

static const char *const cs_prog = "collshim-model";

static void cs_usage(FILE *f)
{
    fprintf(f, "usage: collshim-model -p P [--config FILE] [--alpha S] [--beta S] [--gamma S] [--rho S]\n"
               "                      [--bytes M[,M...]] [--window N:R]\n"
               "       collshim-model --table1 | --spr-table1 | --spr-plan N\n"
               "       collshim-model -p P --domain COLL:ALG\n"
               "       collshim-model -p P --library COLL [--config FILE] [--bytes M[,M...]]\n"
               "       collshim-model --export mpich|openmpi [-p P] [--config FILE] [--base FILE] -o FILE\n"
               "Predicted times of allreduce at p under the model: the four protocols of Rabenseifner and\n"
               "Traeff 2004 (section 3.5) and collshim's algorithms with their tuned parameters.\n"
               "\n"
               "  -p P             the communicator size, 1 to 2^30\n"
               "  --config FILE    the model of a collshim configuration (default: the built-in model)\n"
               "  --alpha S        seconds per message, over the file's\n"
               "  --beta S         seconds per byte sent\n"
               "  --gamma S        seconds per byte combined\n"
               "  --rho S          seconds per byte copied\n"
               "  --bytes LIST     message sizes in bytes, e.g. 8,4K,1M (K, M, G: KiB, MiB, GiB, powers of 1024;\n"
               "                   default 8 B to 2 MiB, every factor 8)\n"
               "  --window N:R     price collshim_window_reduce's methods for window N, offset R instead\n"
               "  --table1         Table 1 of Rabenseifner and Traeff 2004, in multiples of alpha\n"
               "  --spr-table1     Table 1 of Szymanski, Maniatty and Sinharoy 1995 (factorization steps)\n"
               "  --spr-plan N     the factorization of one window of N\n"
               "  --domain COLL:ALG  the p from 2 to P (at most 4096) where the row's restrictions on p hold\n"
               "  --library COLL   the MPI library's default for COLL (allreduce, reduce, alltoall) per size:\n"
               "                   its price under the model and its name (model.library's choice; doubles,\n"
               "                   a sum; alltoall: bytes per destination); under library openmpi, the\n"
               "                   algorithm OMPI_MCA_coll_tuned_COLL_algorithm forces where\n"
               "                   OMPI_MCA_coll_tuned_use_dynamic_rules is set, as Open MPI runs it\n"
               "  --export LIB     write the library's tuning file for allreduce, alltoall and reduce: per band\n"
               "                   of p (2 to P, default 64; past it the library's own) and size, its algorithm\n"
               "                   the model prices cheapest; mpich: MPICH 4.0's JSON selection\n"
               "                   (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), openmpi: Open MPI 4.1's\n"
               "                   dynamic rules (coll_tuned_dynamic_rules_filename). Prints where collshim's\n"
               "                   own algorithms would gain over the file (the model's ratio)\n"
               "  -o FILE          the file --export writes\n"
               "  --base FILE      MPICH's tree for the other collectives (default: libmpich's built-in)\n"
               "  -h, --help       this text\n" CS_TOOL_EXIT_STATUS);
}

/* As the paper prints: three significant digits, whole numbers from 1000 up. */
static const char *cs_paper_number(double x, char *buf, size_t size)
{
    if (x >= 1000)
        snprintf(buf, size, "%.0f", x);
    else
        snprintf(buf, size, "%.3g", x);
    return buf;
}

static void cs_print_table1(void)
{
    static const int ps[] = {3, 5, 7, 13, 15, 23, 63};
    static const struct {
        const char *name;
        double beta_m, gamma_m;
    } sizes[] = {{"S", 0.1, 0.01}, {"M", 1.0, 0.1}, {"L", 10.0, 1.0}, {"XL", 100.0, 10.0}};
    printf("Table 1 (Rabenseifner and Traeff 2004): times in multiples of alpha; * fastest\n");
    printf("%3s %-3s", "p", "m");
    for (int k = 0; k < CS_PROTO_LAST; k++)
        printf(" %26s", cs_protocol_name((cs_protocol)k));
    printf("\n");
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            if (s == 3 && ps[i] < 23)
                continue; /* the paper gives XL for p = 23 and 63 only */
            double best = -1;
            for (int k = 0; k < CS_PROTO_LAST; k++) {
                double t = cs_protocol_time((cs_protocol)k, ps[i], 1.0, sizes[s].beta_m, sizes[s].gamma_m);
                best = best < 0 || t < best ? t : best;
            }
            printf("%3d %-3s", ps[i], sizes[s].name);
            for (int k = 0; k < CS_PROTO_LAST; k++) {
                double t[3];
                cs_protocol_terms((cs_protocol)k, ps[i], 1.0, sizes[s].beta_m, sizes[s].gamma_m, t);
                const double sum = t[0] + t[1] + t[2];
                char a[16], b[16], g[16], total[16];
                printf("  %3s + %5s + %5s = %5s%s", cs_paper_number(t[0], a, sizeof(a)),
                       cs_paper_number(t[1], b, sizeof(b)), cs_paper_number(t[2], g, sizeof(g)),
                       cs_paper_number(sum, total, sizeof(total)), sum <= best * (1 + 1e-12) ? "*" : " ");
            }
            printf("\n");
        }
    printf("From the formulas of section 3.5. The paper's p = 63 elim-lat entries price beta m by\n"
           "ceil(log2 p) = 6, not ceil(log2 p) + 1 = 7 as its formula: 7.66, 13.6, 73.0, 667 there.\n");
}

/* A cost: a finite number >= 0; exits 2 on anything else. */
static double cs_cost_arg(const char *name, const char *arg)
{
    char *end;
    const double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= 0) || v > 1e300) {
        exit(cs_tool_usage_error(cs_prog, "--%s must be a finite number >= 0, got '%s'", name, arg));
    }
    return v;
}

/* --bytes's list (calibrate/sizes.h); exits 2 on an item that is not a size. */
static int cs_parse_sizes(const char *arg, size_t *out, int max)
{
    unsigned long long v[64];
    const char *bad;
    const int n = cs_size_list(arg, v, max < 64 ? max : 64, &bad);
    unsigned long long one;
    if (n < 0 && cs_size_list(bad, &one, 1, &bad) == 1) /* a size past the max */
        exit(cs_tool_usage_error(cs_prog, "--bytes: at most %d sizes, got '%s'", max, arg));
    if (n < 0)
        exit(cs_tool_usage_error(cs_prog,
                                 "--bytes: '%.*s' is not a size (bytes, or with K, M or G for KiB, MiB, GiB), in '%s'",
                                 (int)strcspn(bad, ","), bad, arg));
    for (int i = 0; i < n; i++)
        out[i] = (size_t)v[i];
    return n;
}

/* collshim's allreduce algorithms that can run p, tuned, as "name seconds params" lines. */
static int cs_ours(const cs_model *model, const cs_problem *prob, char lines[][128], int max)
{
    int n, count = 0;
    const cs_alg *const *table = cs_alg_table(CS_COLL_ALLREDUCE, &n);
    for (int row = 0; row < n && count < max; row++) {
        const cs_alg *alg = table[row];
        cs_params params;
        char args[64] = "";
        if (!alg->cost || cs_alg_restriction(alg, prob))
            continue;
        cs_params_init(&params);
        if (alg->tune)
            alg->tune(model, prob, &params);
        if (alg->format)
            alg->format(&params, args, sizeof(args));
        snprintf(lines[count++], 128, "%-13s %12.4e %s", alg->name, alg->cost(model, prob, &params), args);
    }
    return count;
}

static void cs_print_model(int p, const cs_model *model, const size_t *sizes, int nsizes)
{
    printf("allreduce, p = %d, alpha %.3g s, beta %.3g s/B, gamma %.3g s/B, rho %.3g s/B\n", p, model->alpha,
           model->beta, model->gamma, model->rho);
    printf("%12s  %-13s %12s   %-13s %12s %s\n", "bytes", "paper", "seconds", "collshim", "seconds", "parameters");
    for (int i = 0; i < nsizes; i++) {
        const double m = (double)sizes[i];
        const cs_problem prob = {.coll = CS_COLL_ALLREDUCE,
                                 .p = p,
                                 .count = sizes[i],
                                 .elem = 1,
                                 .bytes = sizes[i],
                                 .flags = CS_PROB_CONTIG};
        char ours[8][128];
        const int nours = cs_ours(model, &prob, ours, 8);
        for (int k = 0; k < CS_PROTO_LAST || k < nours; k++) {
            char size[24] = "", paper[40] = "";
            if (k == 0)
                snprintf(size, sizeof(size), "%zu", sizes[i]);
            if (k < CS_PROTO_LAST)
                snprintf(paper, sizeof(paper), "%-13s %12.4e", cs_protocol_name((cs_protocol)k),
                         cs_protocol_time((cs_protocol)k, p, model->alpha, model->beta * m, model->gamma * m));
            printf("%12s  %-26s   %s\n", size, paper, k < nours ? ours[k] : "");
        }
    }
}

/* collshim_window_reduce's methods for window n, offset r on p ranks. */
static void cs_print_window(int p, int n, int r, const cs_model *model, const size_t *sizes, int nsizes)
{
    printf("collshim_window_reduce, p = %d, n = %d, r = %d: the slowest rank's predicted seconds\n", p, n, r);
    printf("%12s", "bytes");
    for (int m = 0; m < CS_WIN_METHODS; m++)
        printf(" %22s", cs_window_method_name((cs_window_method)m));
    printf("  %-22s %s\n", "chosen", "(no inverse)");
    for (int i = 0; i < nsizes; i++) {
        double cost[CS_WIN_METHODS];
        const cs_window_method with = cs_window_method_choose(model, p, n, r, sizes[i], 0, 1, cost);
        const cs_window_method without = cs_window_method_choose(model, p, n, r, sizes[i], 0, 0, NULL);
        printf("%12zu", sizes[i]);
        for (int m = 0; m < CS_WIN_METHODS; m++)
            printf(" %22.4e", cost[m]);
        printf("  %-22s %s\n", cs_window_method_name(with), cs_window_method_name(without));
    }
}

/* Table 1 of Szymanski et al. 1995: max c(k) over k <= n, and the first such k. */
static int cs_print_spr_table1(void)
{
    static const int rows[] = {8, 64, 512, 4096, 32768};
    cs_factor_table t;
    if (cs_factor_table_make(32768, &t) != MPI_SUCCESS)
        return 1;
    printf("Table 1 (Szymanski, Maniatty and Sinharoy 1995): factorization algorithm's steps\n");
    printf("%6s %12s %14s %6s  %s\n", "n", "ceil(log2 n)", "max c(k<=n)", "k", "plan of k");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int most = -1, at = 0;
        char plan[256];
        for (int k = 1; k <= rows[i]; k++)
            if (cs_factor_count(&t, k) > most) {
                most = cs_factor_count(&t, k);
                at = k;
            }
        cs_factor_format(&t, at, plan, sizeof plan);
        printf("%6d %12d %14d %6d  %s\n", rows[i], cs_ceil_log2(rows[i]), most, at, plan);
    }
    cs_factor_table_free(&t);
    return 0;
}

static int cs_print_spr_plan(const char *arg)
{
    const int n = atoi(arg);
    cs_factor_table t;
    char plan[512];
    if (n < 1 || cs_factor_table_make(n, &t) != MPI_SUCCESS) {
        return cs_tool_usage_error(cs_prog, "--spr-plan must be a window from 1 to 65535, got '%s'", arg);
    }
    cs_factor_format(&t, n, plan, sizeof plan);
    printf("n = %d: %d steps by factorization (%s), %d by recursive combination\n", n, cs_factor_count(&t, n), plan,
           cs_floor_log2(n) + __builtin_popcount((unsigned)n) - 1);
    cs_factor_table_free(&t);
    return 0;
}

/* Open MPI's algorithms forced in the environment, as mpirun --mca passes
 * them (the shim reads them through MPI_T, parameter files included):
 * OMPI_MCA_coll_tuned_use_dynamic_rules and _<coll>_algorithm, numbers. */
static void cs_forced_from_env(cs_model *model)
{
    const char *dynamic = getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
    if (model->library != CS_LIBRARY_OPENMPI || !dynamic || !(atoi(dynamic) || !strcmp(dynamic, "true")))
        return;
    for (int c = 0; c < CS_COLL_LAST; c++) {
        char name[64];
        snprintf(name, sizeof name, "OMPI_MCA_coll_tuned_%s_algorithm", cs_coll_name((cs_coll)c));
        const char *alg = getenv(name);
        const int n = alg ? atoi(alg) : 0;
        if (n > 0 && n < 256)
            model->library_forced[c] = (unsigned char)n;
    }
}

/* The library's default for coll at p per size: its price and its name. */
static int cs_print_library(const char *coll_name, int p, const cs_model *model, const size_t *sizes, int nsizes)
{
    int coll = 0;
    while (coll < CS_COLL_COUNT && strcmp(cs_coll_name((cs_coll)coll), coll_name))
        coll++;
    if (coll != CS_COLL_ALLREDUCE && coll != CS_COLL_REDUCE && coll != CS_COLL_ALLTOALL)
        return cs_tool_usage_error(cs_prog, "--library takes allreduce, reduce or alltoall, got '%s'", coll_name);
    printf("# the library's default for %s at p = %d under the model: bytes, seconds, algorithm\n", coll_name, p);
    for (int i = 0; i < nsizes; i++) {
        const int a2a = coll == CS_COLL_ALLTOALL;
        const size_t elem = a2a || sizes[i] % 8 ? 1 : 8;
        const cs_problem prob = {.coll = (cs_coll)coll,
                                 .p = p,
                                 .count = sizes[i] / elem,
                                 .elem = elem,
                                 .bytes = sizes[i],
                                 .flags = CS_PROB_COMMUTATIVE | CS_PROB_EXACT * (elem == 1) | CS_PROB_CONTIG};
        const char *name;
        const double t = cs_library_price(model, &prob, &name);
        printf("%zu %.4e %s\n", sizes[i], t, name);
    }
    return 0;
}

/* The p in 2..maxp where the row named spec ("allreduce:ring") can run. */
static int cs_print_domain(const char *spec, int maxp)
{
    const char *colon = strchr(spec, ':');
    int coll = 0;
    while (coll < CS_COLL_COUNT && (!colon || strncmp(cs_coll_name((cs_coll)coll), spec, (size_t)(colon - spec)) ||
                                    cs_coll_name((cs_coll)coll)[colon - spec]))
        coll++;
    cs_params params;
    const char *why = "unknown collective";
    const cs_alg *alg = coll < CS_COLL_COUNT ? cs_alg_lookup((cs_coll)coll, colon + 1, &params, &why) : NULL;
    if (!alg) {
        return cs_tool_usage_error(cs_prog, "--domain %s: %s", spec, why);
    }
    for (int p = 2; p <= maxp; p++) {
        const cs_problem prob = {.coll = (cs_coll)coll,
                                 .p = p,
                                 .count = 1,
                                 .elem = 1,
                                 .bytes = 1,
                                 .n = 1,
                                 .flags = CS_PROB_COMMUTATIVE | CS_PROB_EXACT | CS_PROB_CONTIG | CS_PROB_INVERSE};
        if (!cs_alg_restriction(alg, &prob))
            printf("%d ", p);
    }
    printf("\n");
    return 0;
}

/* --export: the plan, the file, the report. */
static int cs_export(const char *library, int pmax, const cs_config *cfg, const char *base, const char *path)
{
    const int lib = !strcmp(library, "mpich")     ? CS_LIBRARY_MPICH
                    : !strcmp(library, "openmpi") ? CS_LIBRARY_OPENMPI
                                                  : -1;
    if (lib < 0)
        return cs_tool_usage_error(cs_prog, "--export takes mpich or openmpi, got '%s'", library);
    if (!path)
        return cs_tool_usage_error(cs_prog, "--export needs -o FILE");
    if (pmax < 2 || pmax > 4096)
        return cs_tool_usage_error(cs_prog, "--export takes -p from 2 to 4096, got %d", pmax);
    cs_export_plan plan;
    char why[PATH_MAX + 200];
    FILE *out = NULL;
    int rc = CS_TOOL_EXIT_FAILED;
    if (cs_export_plan_make(&cfg->model, lib, pmax, &plan) != 0)
        snprintf(why, sizeof why, "out of memory");
    else if (!(out = fopen(path, "w")))
        snprintf(why, sizeof why, "%s: %s", path, strerror(errno));
    else if ((lib == CS_LIBRARY_MPICH ? cs_export_write_mpich(&plan, base, out, why, sizeof why)
                                      : cs_export_write_openmpi(&plan, out)) != 0)
        snprintf(why + strlen(why), sizeof why - strlen(why), "%s", "");
    else
        rc = 0;
    if (out && fclose(out) && !rc) {
        snprintf(why, sizeof why, "%s: %s", path, strerror(errno));
        rc = CS_TOOL_EXIT_FAILED;
    }
    if (rc) {
        fprintf(stderr, "%s: %s\n", cs_prog, why);
        remove(path);
    } else {
        printf("# %s: %s's tuning file for p = 2 to %d under the model\n", path, library, pmax);
        cs_export_report_unsafe(&plan, cs_prog, stderr);
        cs_export_report(&plan, cfg->model.margin, stdout);
    }
    cs_export_plan_free(&plan);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        {"config", required_argument, 0, 'c'},   {"alpha", required_argument, 0, 'a'},
        {"beta", required_argument, 0, 'b'},     {"gamma", required_argument, 0, 'g'},
        {"rho", required_argument, 0, 'r'},      {"bytes", required_argument, 0, 'm'},
        {"table1", no_argument, 0, 't'},         {"help", no_argument, 0, 'h'},
        {"window", required_argument, 0, 'w'},   {"spr-table1", no_argument, 0, 'T'},
        {"spr-plan", required_argument, 0, 'P'}, {"domain", required_argument, 0, 'D'},
        {"library", required_argument, 0, 'L'},  {"export", required_argument, 0, 'E'},
        {"base", required_argument, 0, 'B'},     {0, 0, 0, 0}};
    cs_config cfg;
    cs_config_error err;
    size_t sizes[64] = {8, 64, 512, 4096, 32768, 262144, 2097152};
    int nsizes = 7, p = 0, opt, wn = 0, wr = 0;
    const char *domain = NULL, *library = NULL, *export = NULL, *output = NULL, *base = NULL;

    cs_config_defaults(&cfg);
    opterr = 0; /* its messages name argv[0]; ours name the tool */
    while ((opt = getopt_long(argc, argv, ":p:o:h", longs, NULL)) != -1) {
        switch (opt) {
        case 'p': {
            char *end;
            const long v = strtol(optarg, &end, 10);
            if (*end || !*optarg || v < 1 || v > (1 << 30))
                return cs_tool_usage_error(cs_prog, "-p must be a communicator size from 1 to 2^30, got '%s'", optarg);
            p = (int)v;
            break;
        }
        case 'c':
            if (cs_config_load(optarg, &cfg, &err)) {
                char text[PATH_MAX + 300];
                cs_config_error_format(&err, text, sizeof(text));
                fprintf(stderr, "%s: %s\n", cs_prog, text);
                return CS_TOOL_EXIT_USAGE;
            }
            break;
        case 'a': cfg.model.alpha = cs_cost_arg("alpha", optarg); break;
        case 'b': cfg.model.beta = cs_cost_arg("beta", optarg); break;
        case 'g': cfg.model.gamma = cs_cost_arg("gamma", optarg); break;
        case 'r': cfg.model.rho = cs_cost_arg("rho", optarg); break;
        case 'm': nsizes = cs_parse_sizes(optarg, sizes, 64); break;
        case 't': cs_print_table1(); return 0;
        case 'T': return cs_print_spr_table1();
        case 'P': return cs_print_spr_plan(optarg);
        case 'w':
            if (sscanf(optarg, "%d:%d", &wn, &wr) != 2 || wn < 1 || wr < 0 || wr >= wn) {
                return cs_tool_usage_error(cs_prog, "--window must be N:R with 0 <= R < N, got '%s'", optarg);
            }
            break;
        case 'D': domain = optarg; break;
        case 'L': library = optarg; break;
        case 'E': export = optarg; break;
        case 'o': output = optarg; break;
        case 'B': base = optarg; break;
        case 'h': cs_usage(stdout); return 0;
        case ':':
            /* getopt_long sets optopt to a long option's val too: name it as written */
            if (strncmp(argv[optind - 1], "--", 2))
                return cs_tool_usage_error(cs_prog, "-%c needs a value", optopt);
            return cs_tool_usage_error(cs_prog, "%s needs a value", argv[optind - 1]);
        default:
            if (optopt && strncmp(argv[optind - 1], "--", 2))
                return cs_tool_usage_error(cs_prog, "unknown option '-%c'", optopt);
            return cs_tool_usage_error(cs_prog, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (export)
        return cs_export(export, p ? p : 64, &cfg, base, output);
    if (domain && p >= 1 && p <= 4096)
        return cs_print_domain(domain, p);
    if (domain && p > 4096)
        return cs_tool_usage_error(cs_prog, "--domain takes p up to 4096, got %d", p);
    if (p < 1)
        return cs_tool_usage_error(cs_prog, "-p P is needed (or --table1, --spr-table1, --spr-plan)");
    if (library) {
        cs_forced_from_env(&cfg.model);
        return cs_print_library(library, p, &cfg.model, sizes, nsizes);
    }
    if (wn > p) {
        return cs_tool_usage_error(cs_prog, "--window %d:%d needs p >= %d", wn, wr, wn);
    }
    if (wn)
        cs_print_window(p, wn, wr, &cfg.model, sizes, nsizes);
    else
        cs_print_model(p, &cfg.model, sizes, nsizes);
    return 0;
}
