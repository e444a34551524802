/*
 * Distance (common.h, model.distance): the most links between the partners
 * of a level of a schedule, or of a shift, under the XOR or the difference
 * of their ranks.
 */
#include "common.h"

/* Bits in a - 1 for a >= 2: the most bits two ranks below a differ in. */
static long cs_bits_below(long a)
{
    long k = 0;
    for (unsigned long v = (unsigned long)(a - 1); v; v >>= 1)
        k++;
    return k;
}

static int cs_pow2(long x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

/* The farthest pair of one instance: members base + j stride below p. */
static long cs_instance_hops(int distance, long p, long base, long stride, long f)
{
    long most = 1, n = f;
    if (base + (n - 1) * stride >= p)
        n = (p - 1 - base) / stride + 1;
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++) {
            if (f > 16 && j != i + 1 && !(i == 0 && j == n - 1))
                continue; /* a large instance: its neighbours (a ring's), not every pair */
            const long h = cs_hops(distance, base + i * stride, base + j * stride);
            most = h > most ? h : most;
        }
    return most;
}

long cs_level_hops(int distance, long p, long stride, long f)
{
    if (distance == CS_DISTANCE_NONE || stride < 1 || f < 2 || p < 2)
        return 1;
    if (stride == 1 && f >= p) /* every pair of ranks */
        return distance == CS_DISTANCE_XOR ? cs_bits_below(p) : p - 1;
    if (stride * f <= p) { /* instance 0 is whole: the farthest there is */
        if (distance == CS_DISTANCE_DIFFERENCE)
            return (f - 1) * stride;
        if (cs_pow2(stride) && cs_pow2(f))
            return cs_bits_below(f);
    }
    long most = 1;
    for (long base = 0; base < p; base++)
        if ((base / stride) % f == 0) {
            const long h = cs_instance_hops(distance, p, base, stride, f);
            most = h > most ? h : most;
        }
    return most;
}

long cs_tree_hops(int distance, long p, long d, long r, long child)
{
    long most = 1;
    if (distance == CS_DISTANCE_NONE || d < 1 || r < 2)
        return 1;
    for (long parent = 0; parent < p; parent += r * d)
        for (long j = child ? child : 1; j < (child ? child + 1 : r) && parent + j * d < p; j++) {
            const long h = cs_hops(distance, parent, parent + j * d);
            most = h > most ? h : most;
        }
    return most;
}

/* A folded rank's rank: the first 2 rem ranks' odd ones, then the others. */
static long cs_unfolded(long i, long rem)
{
    return i < rem ? 2 * i + 1 : i + rem;
}

double cs_model_folded_latency(const cs_model *model, int p, int passes)
{
    const long pof2 = 1L << cs_floor_log2(p), rem = p - pof2;
    double t = 0.0;
    if (!model->distance || rem == 0)
        return 0.0;
    for (long mask = 1; mask < pof2; mask <<= 1) {
        long most = 1;
        for (long i = 0; i < pof2; i++) {
            const long h = cs_hops(model->distance, cs_unfolded(i, rem), cs_unfolded(i ^ mask, rem));
            most = h > most ? h : most;
        }
        const long folded = cs_level_hops(model->distance, pof2, mask, 2); /* what the row priced on pof2 ranks */
        t += most > folded ? model->alpha_hop * (double)(most - folded) : 0.0;
    }
    return passes * t;
}

long cs_shift_hops(int distance, long p, long d)
{
    if (distance == CS_DISTANCE_NONE || p < 2 || d % p == 0)
        return 1;
    d = ((d % p) + p) % p;
    if (distance == CS_DISTANCE_DIFFERENCE)
        return d > p - d ? d : p - d;
    long most = 1;
    for (long r = 0; r < p; r++) {
        const long h = cs_hops(distance, r, (r + d) % p);
        most = h > most ? h : most;
    }
    return most;
}
