/*
 * Message sizes as the tools take them on the command line: a number of bytes, or with K, M or
 * G (KiB, MiB, GiB: powers of 1024; k, m, g and a trailing "iB" too), in a comma-separated list:
 * "8,4096,1M". collshim-calibrate's --sizes and --alltoall-max and collshim-model's --bytes read
 * them here, so that a size means the same to every tool.
 */
#ifndef CS_CAL_SIZES_H
#define CS_CAL_SIZES_H

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One size at s: its value in *v and the end in *end; 0, or -1 where s does not start with one
 * (a sign, no digit, an unknown suffix is left at *end for the caller to refuse) or it overflows. */
static inline int cs_size_parse(const char *s, const char **end, unsigned long long *v)
{
    char *e;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    *v = strtoull(s, &e, 10);
    if (errno)
        return -1;
    int shift = 0;
    switch (*e) {
    case 'K':
    case 'k': shift = 10; break;
    case 'M':
    case 'm': shift = 20; break;
    case 'G':
    case 'g': shift = 30; break;
    default: break;
    }
    if (shift) {
        e++;
        if (!strncmp(e, "iB", 2))
            e += 2;
        if (*v > (~0ull >> shift))
            return -1;
        *v <<= shift;
    }
    *end = e;
    return 0;
}

/* The list s ("8,1K,64K") into out[0..max): its length, or -1 where an item is not a size (then
 * *bad points at it), an item is empty, or there are more than max. */
static inline int cs_size_list(const char *s, unsigned long long *out, int max, const char **bad)
{
    int n = 0;
    *bad = s;
    while (*s) {
        const char *end;
        *bad = s;
        if (n == max || cs_size_parse(s, &end, &out[n]) != 0 || (*end && *end != ','))
            return -1;
        n++;
        s = *end ? end + 1 : end;
        if (*end && !*s) { /* a trailing comma */
            *bad = s;
            return -1;
        }
    }
    return n ? n : -1;
}

#endif
