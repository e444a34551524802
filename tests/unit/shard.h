/*
 * `make check-unit` runs the heaviest loop tests (every algorithm at every
 * p in the simulator) in two processes at once, one per core:
 * CS_UNIT_SHARD=k/n runs only the iterations i with i mod n == k of the
 * loops that ask, and the others return at once (Check counts them as
 * passed, so each process reports every check). Unset: every iteration.
 */
#ifndef CS_UNIT_SHARD_H
#define CS_UNIT_SHARD_H

#include <stdio.h>
#include <stdlib.h>

static inline int unit_shard_skip(int i)
{
    const char *s = getenv("CS_UNIT_SHARD");
    int k, n;
    if (!s || sscanf(s, "%d/%d", &k, &n) != 2 || n < 2 || k < 0 || k >= n)
        return 0;
    return i % n != k;
}

/* How the runner's progress lines name this process: "unit 1/2" for a shard (make check-unit's
 * two halves share the terminal), "unit" alone. */
static inline const char *unit_shard_label(void)
{
    static char label[32];
    const char *s = getenv("CS_UNIT_SHARD");
    int k, n;
    if (!s || sscanf(s, "%d/%d", &k, &n) != 2 || n < 2 || k < 0 || k >= n)
        return "unit";
    snprintf(label, sizeof label, "unit %d/%d", k, n);
    return label;
}

#endif
