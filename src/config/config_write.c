/*
 * A configuration written as YAML that cs_config_load reads back into the
 * same values: collshim-calibrate's output, and what a user can start from.
 * Every key of collshim.yaml.example is written (the defaults too, so the
 * file says everything it means), costs in the shortest decimal that reads
 * back exactly (0.1, not 0.10000000000000001).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "config/library_rules.h"

/* v in the fewest significant digits (15 to 17) that strtod reads back to v. */
static const char *cs_write_double(char buf[32], double v)
{
    for (int digits = 15; digits <= 17; digits++)
        if (snprintf(buf, 32, "%.*g", digits, v) > 0 && strtod(buf, NULL) == v)
            break;
    return buf;
}

static void cs_write_size(FILE *f, size_t v)
{
    if (v == SIZE_MAX)
        fputs("inf", f);
    else
        fprintf(f, "%zu", v);
}

static void cs_write_range(FILE *f, cs_range r)
{
    fputc('[', f);
    cs_write_size(f, r.lo);
    fputs(", ", f);
    cs_write_size(f, r.hi);
    fputc(']', f);
}

/* auto, native or "name:args" (quoted: the arguments may hold commas). */
static void cs_write_choice(FILE *f, cs_choice choice, const cs_alg *alg, const cs_params *params)
{
    char spec[256];
    if (choice == CS_CHOICE_FORCED) {
        cs_alg_spec(alg, params, spec, sizeof spec);
        fprintf(f, "\"%s\"", spec);
    } else {
        fputs(choice == CS_CHOICE_NATIVE ? "native" : "auto", f);
    }
}

static void cs_write_hull(FILE *f, const cs_coll_config *cc)
{
    fputs("  hull: {", f);
    for (int h = 0; h < cc->nhulls; h++) {
        const cs_hull_given *g = &cc->hull[h];
        fprintf(f, "%s%d: [", h ? ", " : "", 1 << g->d);
        for (int i = 0; i < g->nfaces; i++) {
            fprintf(f, "%s[%zu, \"", i ? ", " : "", g->face[i].first);
            for (int j = 0; j < g->face[i].nparts; j++)
                fprintf(f, "%s%d", j ? "," : "", g->face[i].parts[j]);
            fputs("\"]", f);
        }
        fputc(']', f);
    }
    fputs("}\n", f);
}

static void cs_write_coll(FILE *f, cs_coll coll, const cs_coll_config *cc)
{
    fprintf(f, "%s:\n  algorithm: ", cs_coll_name(coll));
    cs_write_choice(f, cc->choice, cc->alg, &cc->params);
    fputs("\n  native: [", f);
    for (int i = 0; i < cc->nnative; i++) {
        fputs(i ? ", " : "", f);
        cs_write_range(f, cc->native[i]);
    }
    fputs("]\n", f);
    if (coll == CS_COLL_ALLTOALL)
        cs_write_hull(f, cc);
    fputs(cc->nrules ? "  rules:\n" : "  rules: []\n", f);
    for (int i = 0; i < cc->nrules; i++) {
        const cs_rule *r = &cc->rules[i];
        fprintf(f, "    - {p: [%d, ", r->p_lo);
        if (r->p_hi == INT_MAX)
            fputs("inf", f);
        else
            fprintf(f, "%d", r->p_hi);
        fputs("], bytes: ", f);
        cs_write_range(f, r->bytes);
        fputs(", algorithm: ", f);
        cs_write_choice(f, r->choice, r->alg, &r->params);
        fputs("}\n", f);
    }
}

int cs_config_write(FILE *f, const cs_config *cfg)
{
    static const char *const level[] = {"off", "summary", "calls"};
    const cs_coll_config *win = &cfg->coll[CS_COLL_WINDOW];

    const cs_model *mo = &cfg->model;
    char d[7][32];
    fprintf(f, "model:\n  alpha: %s\n  beta: %s\n  rho: %s\n  gamma: %s\n  overhead: %s\n",
            cs_write_double(d[0], mo->alpha), cs_write_double(d[1], mo->beta), cs_write_double(d[2], mo->rho),
            cs_write_double(d[3], mo->gamma), cs_write_double(d[4], mo->overhead));
    if (mo->node_levels)
        fprintf(f, "  alpha_node: %s\n  beta_node: %s\n", cs_write_double(d[5], mo->alpha_node),
                cs_write_double(d[6], mo->beta_node));
    if (mo->node_pairs)
        fprintf(f, "  node_paths: pair\n");
    fprintf(f, "  beta_link: %s\n", cs_write_double(d[0], mo->beta_link));
    if (mo->beta_core > 0.0)
        fprintf(f, "  beta_core: %s\n", cs_write_double(d[0], mo->beta_core));
    fprintf(f, "  ranks_per_node: %d\n", mo->ranks_per_node);
    fprintf(f, "  placement: %s\n", mo->cyclic ? "cyclic" : "block");
    if (mo->link_own)
        fprintf(f, "  link_share: communicator\n");
    fprintf(f, "  rendezvous_from: %zu\n", mo->rendezvous_from);
    if (mo->distance) /* only where the network has it: no key, no distance */
        fprintf(f, "  distance: %s\n  alpha_hop: %s\n", mo->distance == CS_DISTANCE_XOR ? "xor" : "difference",
                cs_write_double(d[0], mo->alpha_hop));
    fputs("  bands: [", f); /* every time, [] where none: a file's keys do not depend on what a fit found */
    for (int i = 0; mo->bands && i < mo->bands->n; i++)
        fprintf(f, "%s[%zu, %s, %s]", i ? ", " : "", mo->bands->band[i].from,
                cs_write_double(d[0], mo->bands->band[i].alpha_factor),
                cs_write_double(d[1], mo->bands->band[i].beta_factor));
    fputs("]\n", f);
    fprintf(f, "  margin: %s\n", cs_write_double(d[0], mo->margin));
    fprintf(f, "  library: %s\n", cs_library_name(mo->library));
    if (mo->library_rules) /* the tuning file the library runs under, read again where this is */
        fprintf(f, "  library_rules: \"%s\"\n", mo->library_rules->path);
    for (int c = 0; c < CS_COLL_LAST; c++)
        cs_write_coll(f, (cs_coll)c, &cfg->coll[c]);
    fprintf(f, "log:\n  level: %s\n  file: \"%s\"\n  ranks: ", level[cfg->log_level], cfg->log_file);
    if (cfg->log_all_ranks) {
        fputs("all\n", f);
    } else {
        fputc('[', f);
        for (int i = 0; i < cfg->nlog_ranks; i++)
            fprintf(f, "%s%d", i ? ", " : "", cfg->log_ranks[i]);
        fputs("]\n", f);
    }
    fprintf(f, "window:\n  method: %s\n", win->choice == CS_CHOICE_FORCED ? win->alg->name : "auto");
    fprintf(f, "strict: %s\nreproducible: %s\n", cfg->strict ? "true" : "false", cfg->reproducible ? "true" : "false");
    return ferror(f) ? -1 : 0;
}
