/*
 * Reduce, priced two ways: for every reduce row, p = 2..64, roots 0 and
 * p - 1, commutative or not, sizes 4 B to 4 MiB of 4-byte elements and each
 * parameter the row can take (k, or the radix), under the built-in model and
 * two others, the model's price of the row (its cost function) against the
 * critical path of the schedules it builds (the event pricer), and what
 * tuning by the model costs on the critical path against the best parameter
 * there. For the rows priced exactly (binomial, knomial) both agree; the
 * engine's rows (butterfly, elimination, ring) are priced by the slowest
 * rank's sum over its rounds, which this measures.
 *     make bench-reduce-paths   (build/bench_reduce_paths)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "sched/pricer.h"
#include "select/select.h"

typedef struct tally {
    long cases, off;                /* price != critical path beyond 1e-9 */
    double worst_over, worst_under; /* price / path - 1 */
    long tuned, missed;             /* tuned cases; the tuned parameter not the path's best */
    double worst_regret;            /* path(tuned) / path(best) - 1 */
} tally;

static double path_of(const cs_alg *alg, const cs_problem *prob, const cs_params *params, const cs_model *mo,
                      cs_sched *s)
{
    for (int r = 0; r < prob->p; r++) {
        cs_sched_reset(&s[r]);
        if (alg->build(prob, params, r, &s[r]))
            return -1.0;
    }
    return cs_price_critical_path(mo, s, prob->p, 0, NULL);
}

/* The parameters a row can take here: k = 0..8, or radices 2..16. */
static int variants(const cs_alg *alg, cs_params *out)
{
    static const char *const specs[] = {"k=0", "k=1", "k=2", "k=3", "k=4", "k=5", "k=6",  "k=7", "k=8",
                                        "r=2", "r=3", "r=4", "r=5", "r=6", "r=8", "r=12", "r=16"};
    int n = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        cs_params_init(&out[n]);
        if (alg->parse && alg->parse(specs[i], &out[n]) == 0)
            n++;
    }
    return n;
}

int main(void)
{
    cs_config cfg;
    cs_config_defaults(&cfg);
    const cs_model models[] = {cfg.model,
                               {.alpha = 5e-5, .beta = 1e-9, .rho = 1e-10, .gamma = 5e-10, .overhead = 1e-6},
                               {.alpha = 1e-6, .beta = 1e-8, .rho = 1e-9, .gamma = 2e-9}};
    int n;
    const cs_alg *const *table = cs_alg_table(CS_COLL_REDUCE, &n);
    cs_sched *s = calloc(64, sizeof *s);
    printf("%-12s %8s %8s %10s %10s %8s %8s %10s\n", "row", "cases", "off", "over", "under", "tuned", "missed",
           "regret");
    for (int a = 1; a < n; a++) {
        const cs_alg *alg = table[a];
        tally t = {0};
        cs_params var[32];
        const int nv = variants(alg, var);
        for (int p = 2; p <= 64; p++)
            for (size_t count = 1; count <= ((size_t)1 << 20); count *= 8)
                for (int root = 0; root < 2; root++)
                    for (int comm = 0; comm < 2; comm++)
                        for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
                            const cs_model *mo = &models[mi];
                            const cs_problem prob = {.coll = CS_COLL_REDUCE,
                                                     .p = p,
                                                     .root = root ? p - 1 : 0,
                                                     .count = count,
                                                     .elem = 4,
                                                     .bytes = 4 * count,
                                                     .flags = CS_PROB_CONTIG | (comm ? CS_PROB_COMMUTATIVE : 0u)};
                            if (cs_select_restriction(alg, &prob))
                                continue;
                            double best = INFINITY;
                            for (int v = 0; v < nv; v++) {
                                cs_params params = var[v];
                                if (cs_select_restriction_given(alg, &prob, &params))
                                    continue;
                                if (alg->tune)
                                    alg->tune(mo, &prob, &params);
                                const double price = alg->cost(mo, &prob, &params),
                                             path = path_of(alg, &prob, &params, mo, s);
                                const double rel = price / path - 1.0;
                                t.cases++;
                                t.off += fabs(rel) > 1e-9;
                                t.worst_over = fmax(t.worst_over, rel);
                                t.worst_under = fmin(t.worst_under, rel);
                                best = fmin(best, path);
                            }
                            cs_params tuned;
                            cs_params_init(&tuned);
                            if (alg->tune)
                                alg->tune(mo, &prob, &tuned);
                            const double got = path_of(alg, &prob, &tuned, mo, s);
                            t.tuned++;
                            t.missed += got > best * (1 + 1e-9);
                            t.worst_regret = fmax(t.worst_regret, got / best - 1.0);
                        }
        printf("%-12s %8ld %8ld %+9.1f%% %+9.1f%% %8ld %8ld %+9.1f%%\n", alg->name, t.cases, t.off, 100 * t.worst_over,
               100 * t.worst_under, t.tuned, t.missed, 100 * t.worst_regret);
    }
    for (int r = 0; r < 64; r++)
        cs_sched_free(&s[r]);
    free(s);
    return 0;
}
