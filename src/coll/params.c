/*
 * Algorithm parameters as written after the name: "b=4096", "k=2",
 * "rmax=5", "r=4", "l=2", "w=32", joined by commas. Each row accepts the keys it knows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/params.h"

static const struct {
    const char *key;
    unsigned bit;
    long long max;
} cs_param_keys[] = {
    {"b", CS_PARAM_B, 1ll << 62}, {"k", CS_PARAM_K, 62}, {"rmax", CS_PARAM_RMAX, 7},
    {"r", CS_PARAM_R, 1 << 30},   {"l", CS_PARAM_L, 62}, {"w", CS_PARAM_W, 1 << 30},
};

static void cs_param_set(cs_params *params, unsigned bit, long long v)
{
    if (bit == CS_PARAM_B)
        params->b = v;
    else if (bit == CS_PARAM_K)
        params->k = (int)v;
    else if (bit == CS_PARAM_RMAX)
        params->rmax = (int)v;
    else if (bit == CS_PARAM_R)
        params->radix = (int)v;
    else if (bit == CS_PARAM_L)
        params->levels = (int)v;
    else
        params->window = (int)v;
}

int cs_params_parse(const char *args, unsigned keys, cs_params *params)
{
    const char *at = args;
    do {
        const char *eq = strchr(at, '=');
        size_t i, n = sizeof(cs_param_keys) / sizeof(cs_param_keys[0]);
        if (!eq)
            return -1;
        for (i = 0; i < n; i++)
            if (strlen(cs_param_keys[i].key) == (size_t)(eq - at) &&
                !strncmp(cs_param_keys[i].key, at, (size_t)(eq - at)))
                break;
        if (i == n || !(keys & cs_param_keys[i].bit))
            return -1;
        char *end;
        long long v = strtoll(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && *end != ',') || v < 0 || v > cs_param_keys[i].max)
            return -1;
        cs_param_set(params, cs_param_keys[i].bit, v);
        at = *end ? end + 1 : end;
    } while (*at);
    return 0;
}

int cs_params_format(const cs_params *params, unsigned keys, char *buf, size_t size)
{
    const long long v[] = {params->b, params->k, params->rmax, params->radix, params->levels, params->window};
    int n = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof(cs_param_keys) / sizeof(cs_param_keys[0]); i++)
        if ((keys & cs_param_keys[i].bit) && v[i] >= 0)
            n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%s%s=%lld", n ? "," : "",
                          cs_param_keys[i].key, v[i]);
    return n;
}

int cs_params_parse_bk(const char *args, cs_params *params)
{
    return cs_params_parse(args, CS_PARAM_B | CS_PARAM_K, params);
}

int cs_params_format_bk(const cs_params *params, char *buf, size_t size)
{
    return cs_params_format(params, CS_PARAM_B | CS_PARAM_K, buf, size);
}

int cs_params_parse_bkr(const char *args, cs_params *params)
{
    return cs_params_parse(args, CS_PARAM_B | CS_PARAM_K | CS_PARAM_RMAX, params);
}

int cs_params_format_bkr(const cs_params *params, char *buf, size_t size)
{
    return cs_params_format(params, CS_PARAM_B | CS_PARAM_K | CS_PARAM_RMAX, buf, size);
}

int cs_params_parse_radix(const char *args, cs_params *params)
{
    return cs_params_parse(args, CS_PARAM_R, params) || params->radix < 2 ? -1 : 0;
}

int cs_params_format_radix(const cs_params *params, char *buf, size_t size)
{
    return cs_params_format(params, CS_PARAM_R, buf, size);
}

int cs_params_parse_radix_or_levels(const char *args, cs_params *params)
{
    if (cs_params_parse(args, CS_PARAM_R | CS_PARAM_L, params))
        return -1;
    const int radix_only = params->radix >= 2 && params->levels < 0;
    const int levels_only = params->levels >= 1 && params->radix < 0;
    return radix_only || levels_only ? 0 : -1;
}

int cs_params_format_radix_or_levels(const cs_params *params, char *buf, size_t size)
{
    return cs_params_format(params, CS_PARAM_R | CS_PARAM_L, buf, size);
}

int cs_params_parse_window(const char *args, cs_params *params)
{
    return cs_params_parse(args, CS_PARAM_W, params) || params->window < 1 ? -1 : 0;
}

int cs_params_format_window(const cs_params *params, char *buf, size_t size)
{
    return cs_params_format(params, CS_PARAM_W, buf, size);
}
