/*
 * What a forced choice could not do, said on stderr with the log off: an
 * algorithm forced on a call it cannot run (the call is decided as if
 * nothing were forced), or a parameter the call cannot take as given (it
 * runs with the nearest it can). The user asked for something and does not
 * get it; without a word they would measure the wrong algorithm.
 *
 * Said once per process for each (collective, restriction) and each
 * collective's clamped parameters, by the process that says what every
 * rank finds alike (cs_config.says: rank 0 of MPI_COMM_WORLD). A decision
 * is made once per communicator and problem, not per call, and the words
 * are formatted only when something is wrong and not said yet.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "select/select.h"
#include "select/select_internal.h"

/* The restrictions said, per collective (static strings: compared by address). */
#define CS_WARN_MAX 16
static struct {
    pthread_mutex_t lock;
    const char *declined[CS_COLL_COUNT][CS_WARN_MAX];
    int clamped[CS_COLL_COUNT];
} cs_warned = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Where the choice was forced: "COLLSHIM_ALLREDUCE=ring:k=9" or
 * "allreduce.algorithm: ring:k=9 (machine.yaml)". */
static void cs_warn_origin(const cs_config *cfg, cs_coll coll, char *buf, size_t size)
{
    const cs_coll_config *cc = &cfg->coll[coll];
    char spec[128], name[32];
    cs_alg_spec(cc->alg, &cc->params, spec, sizeof spec);
    snprintf(name, sizeof name, "%s", coll >= CS_COLL_LAST ? "window_method" : cs_coll_name(coll));
    if (cc->from_env) {
        for (char *c = name; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        snprintf(buf, size, "COLLSHIM_%s=%s", name, spec);
    } else {
        snprintf(buf, size, "%s: %s (%s)", coll >= CS_COLL_LAST ? "window.method" : strcat(name, ".algorithm"), spec,
                 cfg->source[0] ? cfg->source : "the configuration");
    }
}

/* The given parameters that tune changed, "k=9 clamped to k=1", into buf; 0 if none. */
static int cs_warn_clamped_params(const cs_params *given, const cs_params *ran, char *buf, size_t size)
{
    const struct {
        const char *name;
        int given, ran;
    } f[] = {{"k", given->k, ran->k},
             {"rmax", given->rmax, ran->rmax},
             {"r", given->radix, ran->radix},
             {"l", given->levels, ran->levels},
             {"w", given->window, ran->window}};
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof f / sizeof f[0] && n < size; i++)
        if (f[i].given >= 0 && f[i].ran >= 0 && f[i].ran != f[i].given) /* < 0: consumed (knomial's l) */
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%d clamped to %s=%d", n ? ", " : "", f[i].name, f[i].given,
                                  f[i].name, f[i].ran);
    return n > 0;
}

int cs_select_warning(const cs_config *cfg, const cs_problem *prob, const cs_decision *d, char *buf, size_t size)
{
    const cs_coll_config *cc = &cfg->coll[prob->coll];
    char origin[PATH_MAX + 200], ran[128], clamped[160];
    if (cc->choice != CS_CHOICE_FORCED || !cc->alg)
        return 0;
    if (d->alg == cc->alg) {
        if (!cs_warn_clamped_params(&cc->params, &d->params, clamped, sizeof clamped))
            return 0;
        cs_warn_origin(cfg, prob->coll, origin, sizeof origin);
        cs_alg_spec(d->alg, &d->params, ran, sizeof ran);
        return snprintf(buf, size, "collshim: %s: out of range for this call (p = %d, %zu bytes): %s; it runs %s\n",
                        origin, prob->p, prob->bytes, clamped, ran);
    }
    if (d->passed != cc->alg || !d->declined)
        return 0;
    cs_warn_origin(cfg, prob->coll, origin, sizeof origin);
    cs_alg_spec(d->alg, &d->params, ran, sizeof ran);
    return snprintf(buf, size,
                    "collshim: %s cannot run here: %s %s (p = %d, %zu bytes); %s, as if nothing were forced: "
                    "this call runs %s\n",
                    origin, cc->alg->name, d->declined, prob->p, prob->bytes,
                    d->alg == cc->alg->instead ? "its stand-in runs instead" : "such calls are decided", ran);
}

/* Not said yet for this collective and what went wrong? Then it is now. */
static int cs_warn_first(const cs_config *cfg, const cs_problem *prob, const cs_decision *d)
{
    int first = 0;
    pthread_mutex_lock(&cs_warned.lock);
    if (d->alg == cfg->coll[prob->coll].alg) {
        first = !cs_warned.clamped[prob->coll];
        cs_warned.clamped[prob->coll] = 1;
    } else {
        const char **seen = cs_warned.declined[prob->coll];
        int i = 0;
        while (i < CS_WARN_MAX && seen[i] && seen[i] != d->declined)
            i++;
        first = i < CS_WARN_MAX && !seen[i];
        if (first)
            seen[i] = d->declined;
    }
    pthread_mutex_unlock(&cs_warned.lock);
    return first;
}

void cs_select_warn(const cs_config *cfg, const cs_problem *prob, const cs_decision *d)
{
    char text[PATH_MAX + 600];
    const cs_coll_config *cc = &cfg->coll[prob->coll];
    /* the cheap tests first: whether anything can be wrong at all */
    if (!cfg->says || cc->choice != CS_CHOICE_FORCED || (d->alg != cc->alg && d->passed != cc->alg))
        return;
    if (d->alg == cc->alg) {
        char unused[160];
        if (!cs_warn_clamped_params(&cc->params, &d->params, unused, sizeof unused))
            return;
    }
    if (!cs_warn_first(cfg, prob, d))
        return;
    if (cs_select_warning(cfg, prob, d, text, sizeof text) > 0)
        fputs(text, stderr);
}
