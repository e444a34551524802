#include <stdio.h>
#include <string.h>

#include "why.h"

/* Each reason the log writes begins with one of these (what follows varies: the rule and its
 * file, the algorithm a restriction turned down, the prices). Older logs' window reasons too. */
static const struct {
    const char *prefix;
    cs_why why;
} cs_why_prefixes[] = {
    {"breakpoint:", CS_WHY_MODEL},
    {"model:", CS_WHY_MODEL},
    {"the model's", CS_WHY_MODEL},
    {"rule", CS_WHY_RULE}, /* "rule", "rule's algorithm cannot run this call" */
    {"no rule covers", CS_WHY_RULE},
    {"forced", CS_WHY_FORCED},
    {"native by the", CS_WHY_FORCED},
    {"in place of the forced", CS_WHY_FORCED},
    {"window.method", CS_WHY_FORCED},
    {"in a native size range", CS_WHY_RANGE},
    {"no algorithm of ours applies", CS_WHY_RESTRICTION},
    {"no exact inverse", CS_WHY_RESTRICTION},
    {"the operator has an exact inverse", CS_WHY_RESTRICTION},
    {"erroneous", CS_WHY_ERRONEOUS},
    {"operator query failed", CS_WHY_ERRONEOUS},
    {"p = 1", CS_WHY_OUTSIDE},
    {"empty message", CS_WHY_OUTSIDE},
    {"a message would exceed INT_MAX", CS_WHY_OUTSIDE},
    {"intercommunicator", CS_WHY_OUTSIDE},
    {"the library computes", CS_WHY_WRONG},
};

static const struct {
    const char *word;
    char letter;
    const char *meaning;
} cs_why_classes[CS_WHY_LAST] = {
    [CS_WHY_MODEL] = {"model", 'M', "the model's choice (ours, or the library's own where it prices that as cheap)"},
    [CS_WHY_RULE] = {"rule", 'R', "a rule of the configuration (or no rule covering the call: native)"},
    [CS_WHY_FORCED] = {"forced", 'F', "forced by the environment or the configuration (native included)"},
    [CS_WHY_RANGE] = {"native-range", 'N', "in a native size range of the configuration"},
    [CS_WHY_RESTRICTION] = {"restriction", 'X', "none of our algorithms can run the call (p, operator, datatype)"},
    [CS_WHY_ERRONEOUS] = {"erroneous", 'E', "an erroneous call: the library's to judge"},
    [CS_WHY_OUTSIDE] = {"outside", 'O', "p = 1, an empty message, over INT_MAX bytes, an intercommunicator"},
    [CS_WHY_WRONG] = {"library-wrong", 'W', "the library computes the operator on the type otherwise: ours, always"},
    [CS_WHY_OTHER] = {"other", '?', "a reason this report does not know (listed at the end)"},
};

cs_why cs_why_of(const char *reason)
{
    for (size_t i = 0; i < sizeof cs_why_prefixes / sizeof cs_why_prefixes[0]; i++)
        if (!strncmp(reason, cs_why_prefixes[i].prefix, strlen(cs_why_prefixes[i].prefix)))
            return cs_why_prefixes[i].why;
    return CS_WHY_OTHER;
}

const char *cs_why_word(cs_why why)
{
    return cs_why_classes[why].word;
}

char cs_why_letter(cs_why why)
{
    return cs_why_classes[why].letter;
}

const char *cs_why_meaning(cs_why why)
{
    return cs_why_classes[why].meaning;
}

cs_why cs_why_main(const size_t *counts)
{
    cs_why best = CS_WHY_MODEL;
    for (int w = 1; w < CS_WHY_LAST; w++)
        if (counts[w] > counts[best])
            best = (cs_why)w;
    return best;
}

void cs_why_label(const size_t *counts, char *buf, size_t size)
{
    size_t left[CS_WHY_LAST], n = 0, classes = 0;
    memcpy(left, counts, sizeof left);
    for (int w = 0; w < CS_WHY_LAST; w++)
        classes += counts[w] > 0;
    buf[0] = '\0';
    while (n < size) { /* by calls, most first */
        const cs_why w = cs_why_main(left);
        if (!left[w])
            break;
        if (classes == 1)
            snprintf(buf, size, "%s", cs_why_word(w));
        else
            n += (size_t)snprintf(buf + n, size - n, "%s%s %zu", n ? ", " : "", cs_why_word(w), left[w]);
        left[w] = 0;
    }
}

int cs_far_off(double predicted, double measured, double *factor)
{
    *factor = 1;
    if (!(predicted > 0 && measured > 0))
        return 0;
    if (measured >= CS_FAR_OFF * predicted) {
        *factor = measured / predicted;
        return -1;
    }
    if (predicted >= CS_FAR_OFF * measured) {
        *factor = predicted / measured;
        return 1;
    }
    return 0;
}

void cs_far_off_words(int dir, double factor, cs_far_cause cause, int ranks, int cores, char *buf, size_t size)
{
    char hint[96];
    if (cause == CS_FAR_SETUP)
        snprintf(hint, sizeof hint, "set-up? (one call a rank)");
    else if (cause == CS_FAR_OVERSUBSCRIBED)
        snprintf(hint, sizeof hint, "oversubscribed? (%d ranks on a node of %d core%s)", ranks, cores,
                 cores == 1 ? "" : "s");
    else
        snprintf(hint, sizeof hint, "not calibrated on this machine? (collshim-calibrate)");
    snprintf(buf, size, "the model predicted %.*fx %s: %s", factor < 10 ? 1 : 0, factor, dir < 0 ? "faster" : "slower",
             hint);
}
