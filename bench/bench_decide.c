/*
 * What deciding costs: a communicator's first decision of a collective and
 * variant (its breakpoints: the model's choice, ours or the library's, at
 * every size) at p = 16 to 65,536 (powers of two and not), and a later decision (a lookup), beside
 * a call forced to the library (COLLSHIM_<COLL>=native: what stepping aside
 * costs). No MPI process is started: select is pure.
 *     make bench-decide        (build/bench_decide [REPS])
 * Medians of REPS (default 9) runs; the breakpoints are recomputed each run.
 *     build/bench_decide REPS CONFIG PPN
 * prices under CONFIG's model (collshim-calibrate's output, say) with PPN
 * ranks a node (0: none; the built-in model: PPN only), where a model with
 * nodes prices each level on them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "config/config.h"
#include "select/select.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds for the first decision (breakpoints computed) of prob. */
static double first_decision(const cs_config *cfg, const cs_problem *prob, cs_decision *d)
{
    static cs_select_cache cache;
    memset(&cache, 0, sizeof cache);
    const double t0 = now();
    cs_select(cfg, &cache, prob, d);
    return now() - t0;
}

/* Seconds per decision once the breakpoints are there. */
static double later_decision(const cs_config *cfg, const cs_problem *prob)
{
    static cs_select_cache cache;
    cs_decision d;
    enum { CALLS = 200000 };
    memset(&cache, 0, sizeof cache);
    cs_select(cfg, &cache, prob, &d);
    const double t0 = now();
    for (int i = 0; i < CALLS; i++)
        cs_select(cfg, &cache, prob, &d);
    return (now() - t0) / CALLS;
}

int main(int argc, char **argv)
{
    const int reps = argc > 1 ? atoi(argv[1]) : 9;
    const char *file = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
    const int ppn = argc > 3 ? atoi(argv[3]) : 0;
    static const int ps[] = {16, 64, 96, 128, 1000, 1024, 65535, 65536};
    static const size_t sizes[] = {8, 4096};
    static const cs_coll colls[] = {CS_COLL_ALLTOALL, CS_COLL_ALLREDUCE, CS_COLL_REDUCE};
    cs_config cfg, forced;
    cs_config_error err;
    cs_config_defaults(&cfg);
    if (file && cs_config_load(file, &cfg, &err) != 0) {
        char text[512];
        cs_config_error_format(&err, text, sizeof text);
        fprintf(stderr, "bench_decide: %s\n", text);
        return 1;
    }
    printf("# model: %s, %d ranks a node\n", file ? file : "built-in", ppn);
    forced = cfg;
    static cs_hull_table hulls;
    cs_hull_table_init(&hulls, &cfg.model, NULL, 0);
    cfg.model.hulls = forced.model.hulls = &hulls;
    for (int c = 0; c < CS_COLL_LAST; c++)
        forced.coll[c].choice = CS_CHOICE_NATIVE;

    printf("%-9s %6s %6s  %-28s %12s %10s %10s\n", "coll", "p", "bytes", "decision", "first_ms", "later_ns",
           "native_ns");
    for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                const size_t elem = colls[c] == CS_COLL_ALLTOALL ? 1 : 8;
                const cs_problem prob = {.coll = colls[c],
                                         .p = ps[i],
                                         .count = sizes[s] / elem,
                                         .elem = elem,
                                         .bytes = sizes[s],
                                         .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE,
                                         .ppn = ppn > 1 && ps[i] % ppn == 0 ? ppn : 0};
                double first[64], later[64], native[64];
                cs_decision d;
                for (int r = 0; r < reps && r < 64; r++) {
                    first[r] = first_decision(&cfg, &prob, &d);
                    later[r] = later_decision(&cfg, &prob);
                    native[r] = later_decision(&forced, &prob);
                }
                const int n = reps < 64 ? reps : 64;
                char spec[96];
                cs_alg_spec(d.alg, &d.params, spec, sizeof spec);
                printf("%-9s %6d %6zu  %-28s %12.3f %10.1f %10.1f\n", cs_coll_name(colls[c]), ps[i], sizes[s], spec,
                       1e3 * bench_median(first, n), 1e9 * bench_median(later, n), 1e9 * bench_median(native, n));
            }
    return 0;
}
