/*
 * The factorization algorithm's step counts (Szymanski, Maniatty and
 * Sinharoy 1995, §3.3, Table 1): c(n), the fewest SIMD steps (a shift and a
 * combining step each) that reduce all windows of n, choosing for every n
 * the best of
 *   1. recursive combination (§3.1): c = h(n) + popcount(n) - 1,
 *      s = h(n) = floor(log2 n);
 *   2. composition, n = n1 n2: the windows of n1, then windows of n2 of
 *      them n1 apart: c = c(n1) + c(n2), s = s(n1);
 *   3. addition, n = n1 + n2: both built apart but for their first
 *      min(s1, s2) doubling steps, which they share, then joined:
 *      c = c(n1) + c(n2) - min(s1, s2) + 1, s = max(s1, s2);
 * s the log2 of the largest power-of-two block built on the way. A larger s
 * never costs more later (it only adds sharing), but the fewest steps may
 * come with a smaller s, so every n keeps its front: the fewest steps for
 * each s. Keeping only the fewest steps misses Table 1's row for 4096
 * (c(2267) comes out 16, not 15); the front reproduces all five rows.
 * O(nmax^2 S^2) for S fronts entries, about a second for nmax = 32768.
 *
 * The example of the paper: 47 = 2 + 5*9 in 8 steps, where recursive
 * combination takes 9 (47 = 101111 in binary) and 15 = 3*5 in 5 against 6.
 *
 * collshim counts these steps (collshim-model --spr-table1 prints Table 1,
 * --spr-plan N the plan of any n) but does not build schedules from them: on a
 * message-passing machine a step is a round, and recursive combination
 * needs only ceil(log2 n) rounds (15 = 3*5: 5 rounds of one combining step
 * against 4 rounds and 6 steps), so factorization would save combining
 * steps at the price of start-ups.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll/window/window.h"

enum { CS_FACTOR_NONE = 0xff };

static cs_factor_entry *cs_factor_at(const cs_factor_table *t, int n, int s)
{
    return &t->e[(size_t)n * CS_FACTOR_S + (size_t)s];
}

/* Keep (c, s) for n if it is fewer steps than what n has for s. */
static void cs_factor_offer(cs_factor_table *t, int n, int c, int s, cs_factor_entry how)
{
    cs_factor_entry *e = cs_factor_at(t, n, s);
    if (c < e->c) {
        how.c = (uint8_t)c;
        *e = how;
    }
}

/* The fewest steps of n over its s; *s gets the largest s with them. */
static int cs_factor_best(const cs_factor_table *t, int n, int *s)
{
    int best = CS_FACTOR_NONE;
    for (int k = 0; k < CS_FACTOR_S; k++)
        if (cs_factor_at(t, n, k)->c <= best) {
            best = cs_factor_at(t, n, k)->c;
            *s = k;
        }
    return best;
}

int cs_factor_table_make(int nmax, cs_factor_table *t)
{
    if (nmax < 1 || nmax >= (1 << (CS_FACTOR_S - 1)))
        return MPI_ERR_ARG;
    t->nmax = nmax;
    t->e = malloc(sizeof(cs_factor_entry) * (size_t)(nmax + 1) * CS_FACTOR_S);
    uint8_t *front = malloc((size_t)(nmax + 1) * CS_FACTOR_S), *nfront = calloc((size_t)nmax + 1, 1);
    if (!t->e || !front || !nfront) {
        free(front);
        free(nfront);
        cs_factor_table_free(t);
        return MPI_ERR_NO_MEM;
    }
    for (size_t i = 0; i < (size_t)(nmax + 1) * CS_FACTOR_S; i++)
        t->e[i] = (cs_factor_entry){.c = CS_FACTOR_NONE};
    *cs_factor_at(t, 1, 0) = (cs_factor_entry){.c = 0, .kind = CS_FACTOR_RECURSIVE};
    front[CS_FACTOR_S] = 0;
    nfront[1] = 1;
    for (int n = 2; n <= nmax; n++) {
        const int h = cs_floor_log2(n);
        cs_factor_offer(t, n, h + __builtin_popcount((unsigned)n) - 1, h,
                        (cs_factor_entry){.kind = CS_FACTOR_RECURSIVE});
        for (int a = 2; a * a <= n; a++) {
            if (n % a)
                continue;
            const int b = n / a;
            int sa = 0, sb = 0;
            const int ca = cs_factor_best(t, a, &sa), cb = cs_factor_best(t, b, &sb);
            for (int i = 0; i < nfront[a]; i++) { /* a first, then b of them */
                const int s = front[(size_t)a * CS_FACTOR_S + i];
                cs_factor_offer(
                    t, n, cs_factor_at(t, a, s)->c + cb, s,
                    (cs_factor_entry){.kind = CS_FACTOR_PRODUCT, .a = a, .sa = (uint8_t)s, .sb = (uint8_t)sb});
            }
            for (int i = 0; i < nfront[b]; i++) { /* b first, then a of them */
                const int s = front[(size_t)b * CS_FACTOR_S + i];
                cs_factor_offer(
                    t, n, cs_factor_at(t, b, s)->c + ca, s,
                    (cs_factor_entry){.kind = CS_FACTOR_PRODUCT, .a = b, .sa = (uint8_t)s, .sb = (uint8_t)sa});
            }
        }
        for (int a = 1; a <= n / 2; a++) {
            const int b = n - a;
            for (int i = 0; i < nfront[a]; i++)
                for (int j = 0; j < nfront[b]; j++) {
                    const int s1 = front[(size_t)a * CS_FACTOR_S + i], s2 = front[(size_t)b * CS_FACTOR_S + j];
                    const int c = cs_factor_at(t, a, s1)->c + cs_factor_at(t, b, s2)->c - (s1 < s2 ? s1 : s2) + 1;
                    cs_factor_offer(
                        t, n, c, s1 > s2 ? s1 : s2,
                        (cs_factor_entry){.kind = CS_FACTOR_SUM, .a = a, .sa = (uint8_t)s1, .sb = (uint8_t)s2});
                }
        }
        /* the front: the s whose steps no larger s matches */
        int least = CS_FACTOR_NONE;
        for (int s = CS_FACTOR_S - 1; s >= 0; s--)
            if (cs_factor_at(t, n, s)->c < least) {
                least = cs_factor_at(t, n, s)->c;
                front[(size_t)n * CS_FACTOR_S + nfront[n]++] = (uint8_t)s;
            }
    }
    free(front);
    free(nfront);
    return MPI_SUCCESS;
}

void cs_factor_table_free(cs_factor_table *t)
{
    free(t->e);
    t->e = NULL;
}

int cs_factor_count(const cs_factor_table *t, int n)
{
    int s = 0;
    return n >= 1 && n <= t->nmax ? cs_factor_best(t, n, &s) : -1;
}

/* Append the plan of (n, s) to buf at *len; parenthesized when a sum is a factor. */
static void cs_factor_put(const cs_factor_table *t, int n, int s, int paren, char *buf, size_t size, size_t *len)
{
    const cs_factor_entry *e = cs_factor_at(t, n, s);
    const int b = e->kind == CS_FACTOR_PRODUCT ? n / e->a : n - e->a;
#define CS_PUT(...)                                                                                                    \
    (*len += (size_t)snprintf(buf + (*len < size ? *len : size), *len < size ? size - *len : 0, __VA_ARGS__))
    if (e->kind == CS_FACTOR_RECURSIVE) {
        CS_PUT("%d", n);
        return;
    }
    if (paren && e->kind == CS_FACTOR_SUM)
        CS_PUT("(");
    cs_factor_put(t, e->a, e->sa, e->kind == CS_FACTOR_PRODUCT, buf, size, len);
    CS_PUT(e->kind == CS_FACTOR_PRODUCT ? "*" : " + ");
    cs_factor_put(t, b, e->sb, e->kind == CS_FACTOR_PRODUCT, buf, size, len);
    if (paren && e->kind == CS_FACTOR_SUM)
        CS_PUT(")");
#undef CS_PUT
}

int cs_factor_format(const cs_factor_table *t, int n, char *buf, size_t size)
{
    size_t len = 0;
    int s = 0;
    if (n < 1 || n > t->nmax || size == 0)
        return -1;
    cs_factor_best(t, n, &s);
    cs_factor_put(t, n, s, 0, buf, size, &len);
    return len < size ? 0 : -1;
}
