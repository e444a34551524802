/*
 * Windowed reduction across ranks by prefixes and suffixes: Szymanski,
 * Maniatty and Sinharoy, "Simultaneous Parallel Reduction on SIMD Machines"
 * (1995), §3.2, fine-grain case, as message passing.
 *
 * The ranks are cut into sections of n: [0, n-1], [n, 2n-1], ... (the last
 * one cut at p - 1). A window of n ranks is a whole section or the suffix S
 * of one section joined with the prefix P of the next (eq. (2)):
 *   res[i] = S[lo] (+) P[lo + n - 1],  lo = i - r,
 * with S empty left of rank 0 and P the last section's total right of p - 1
 * (the clipping of eq. (1)).
 *
 * Stage 1 computes, inside every section, the prefix P, the suffix S and the
 * section's total T of every rank in ceil(log2 n) rounds by the hypercube
 * scan: in round k a rank exchanges with the rank 2^k away in the section
 * (local index xor 2^k) the total of its aligned half-block of 2^k ranks and
 * combines what it receives into T and into P (the half before it) or S (the
 * half after it). One vector per message, where Fig. 1's shifts would need a
 * second scan for P (Fig. 3) or the inverse operator and a broadcast of T.
 * So here the inverse (-) (integer sums, exclusive or: sched/inverse.h)
 * buys no round; it saves combining steps: a rank that needs both P and S
 * keeps the one with fewer updates and gets the other in two steps at the
 * end, S = A (+) (T (-) P) or P = A (+) (T (-) S), A its own vector (these
 * operators commute). When the section is
 * not a power of two long, a half-block that ends past the section is
 * represented by its ranks in the section, round robin (they all know its
 * total): a rank may then send one message more in that round.
 * Stage 2 is one round: rank i receives S[lo] from rank lo and P[hi] from
 * rank hi (the last section's total, from one of its ranks, when hi is past
 * p - 1) and combines them, S on the left.
 *
 * Restrictions: contiguous datatype. Any associative operator: every step
 * joins adjacent runs of ranks, the left one first.
 *
 * Cost, m bytes, L = ceil(log2 n), e_k the extra messages of round k (0 when
 * n is a power of two), u_P and u_S the rounds that update P and S
 * (u_P + u_S <= L):
 *   sum_k (alpha (1 + e_k) + beta m) + 2 alpha + 2 beta m
 *   + gamma m (L + u_P + u_S + 1) + rho m y
 * for an interior rank (y: its copies); with the inverse u_P + u_S becomes
 * min(u_P, u_S) + 2 where that is less. Against recursive combination
 * (L alpha + beta m sum_k v_k, 1 <= v_k <= 2 vectors, fewer combining steps)
 * it trades two start-ups and some combining for the second vectors, so the
 * model picks it only for long vectors on a network slow next to the
 * processor (window_method.c prices both on the actual schedules).
 */
#include <mpi.h>

#include "coll/window/window.h"

enum { CS_PS_SLOTS = 8 };

/* A value: where its vector lives; slot >= 0 for TMP0 slots. */
typedef struct cs_ps_val {
    cs_buf buf;
    size_t off;
    int slot;
} cs_ps_val;

typedef struct cs_ps {
    int p, n, r, rank;
    int sec, len, x; /* the rank's section: first rank, ranks in it, the rank's index */
    size_t m;
    cs_sched *s;
    int refs[CS_PS_SLOTS];
    int slots_max;
    cs_ps_val A, T, P, S;
    int need_s, need_p; /* S and P kept through the scan */
    int derive;         /* with the inverse: 'S' or 'P' comes from T and the other at the end */
} cs_ps;

static cs_ps_val cs_ps_new(cs_ps *w)
{
    for (int i = 0; i < CS_PS_SLOTS; i++)
        if (w->refs[i] == 0) {
            w->refs[i] = 1;
            if (i + 1 > w->slots_max)
                w->slots_max = i + 1;
            return (cs_ps_val){CS_BUF_TMP0, (size_t)i * w->m, i};
        }
    w->s->error = MPI_ERR_INTERN;
    return (cs_ps_val){CS_BUF_TMP0, 0, -1};
}

static cs_ps_val cs_ps_share(cs_ps *w, cs_ps_val v)
{
    if (v.slot >= 0)
        w->refs[v.slot]++;
    return v;
}

static void cs_ps_drop(cs_ps *w, cs_ps_val v)
{
    if (v.slot >= 0)
        w->refs[v.slot]--;
}

/* *v in a slot of its own, to reduce into: copied when shared or external. */
static void cs_ps_own(cs_ps *w, cs_ps_val *v)
{
    if (v->slot >= 0 && w->refs[v->slot] == 1)
        return;
    const cs_ps_val c = cs_ps_new(w);
    cs_sched_copy(w->s, v->buf, v->off, c.buf, c.off, w->m);
    cs_ps_drop(w, *v);
    *v = c;
}

/* dst = src (+) dst. */
static void cs_ps_reduce(cs_ps *w, cs_ps_val src, cs_ps_val *dst)
{
    cs_ps_own(w, dst);
    cs_sched_reduce(w->s, src.buf, src.off, dst->buf, dst->off, w->m);
}

static int cs_ps_section_len(const cs_ps *w, int first)
{
    return first + w->n <= w->p ? w->n : w->p - first;
}

/* The rank to use S of rank j (window start j), and P of rank j (window end
 * j): -1 if none. A window that is a whole section takes T from its start. */
static int cs_ps_s_user(const cs_ps *w, int j)
{
    return j + w->r <= w->p - 1 ? j + w->r : -1;
}

static int cs_ps_p_user(const cs_ps *w, int j)
{
    const int i = j - w->n + 1 + w->r;
    return i >= 0 && i <= w->p - 1 && j % w->n != w->n - 1 ? i : -1;
}

/* The rank of the section starting at `first` (len ranks) that stands for
 * index z >= len of the half-block [base, base + 2^k) when serving index
 * `to`, or the rank of z itself. */
static int cs_ps_source(int first, int len, int z, int base, int to_base, int to)
{
    return z < len ? first + z : first + base + (to - to_base) % (len - base);
}

/* Round k of the scan. */
static void cs_ps_scan_round(cs_ps *w, int k, int last)
{
    const int bit = 1 << k, x = w->x, len = w->len, y = x ^ bit;
    const int mine = x & ~(bit - 1), theirs = mine ^ bit;
    const int upper = (x & bit) != 0; /* the partner half is before this rank's */
    cs_ps_val R = {CS_BUF_TMP0, 0, -1};

    cs_sched_round(w->s);
    if (theirs < len) { /* their half has ranks in the section */
        R = cs_ps_new(w);
        cs_sched_recv(w->s, cs_ps_source(w->sec, len, y, theirs, mine, x), R.buf, R.off, w->m);
    }
    if (y < len)
        cs_sched_send(w->s, w->sec + y, w->T.buf, w->T.off, w->m);
    if (upper && len < mine + bit) /* this half stands for its missing ranks */
        for (int z = y + (len - mine); z < theirs + bit; z += len - mine)
            cs_sched_send(w->s, w->sec + z, w->T.buf, w->T.off, w->m);
    if (R.slot < 0)
        return;

    const int need_s = w->need_s, need_p = w->need_p;
    const int need_t = !last || x == 0 || x == len - 1 || len < w->n || w->derive;
    if (upper) { /* R is before this rank: T = R (+) T, P = R (+) P */
        if (need_p)
            cs_ps_reduce(w, R, &w->P);
        if (need_t)
            cs_ps_reduce(w, R, &w->T);
        cs_ps_drop(w, R);
    } else { /* R is after: S = S (+) R, T = T (+) R */
        if (need_s) {
            cs_ps_val c = cs_ps_new(w);
            cs_sched_copy(w->s, R.buf, R.off, c.buf, c.off, w->m);
            cs_sched_reduce(w->s, w->S.buf, w->S.off, c.buf, c.off, w->m);
            cs_ps_drop(w, w->S);
            w->S = c;
        }
        if (need_t) {
            cs_sched_reduce(w->s, w->T.buf, w->T.off, R.buf, R.off, w->m);
            cs_ps_drop(w, w->T);
            w->T = R;
        } else {
            cs_ps_drop(w, R);
        }
    }
}

/* A part of the result: the rank that holds it, and which value there. */
typedef struct cs_ps_part {
    int from;    /* -1: no such part */
    int total;   /* 1: T, else S (left part) or P (right part) */
    cs_ps_val v; /* where it is once here */
} cs_ps_part;

/* What this rank sends in stage 2: its S or T to the rank whose window
 * starts here, its P or T to the one whose window ends here, and, in a
 * short last section, T for windows that end past p - 1. */
static void cs_ps_final_sends(cs_ps *w)
{
    const int j = w->rank, i1 = cs_ps_s_user(w, j), i2 = cs_ps_p_user(w, j);
    if (i1 >= 0 && i1 != j) {
        const cs_ps_val v = w->x == 0 ? w->T : w->S;
        cs_sched_send(w->s, i1, v.buf, v.off, w->m);
    }
    if (i2 >= 0 && i2 != j) {
        const cs_ps_val v = w->x == w->len - 1 ? w->T : w->P;
        cs_sched_send(w->s, i2, v.buf, v.off, w->m);
    }
    if (w->len < w->n) /* windows ending at hi = p + x + t len, short of the section's end */
        for (int hi = w->p + w->x; hi < w->sec + w->n - 1; hi += w->len) {
            const int i = hi - w->n + 1 + w->r;
            if (i >= 0 && i <= w->p - 1 && i != j)
                cs_sched_send(w->s, i, w->T.buf, w->T.off, w->m);
        }
}

/* Stage 2: the parts of this rank's window, and the result into RECV. */
static void cs_ps_final(cs_ps *w)
{
    const int i = w->rank, lo = i - w->r, hi = lo + w->n - 1, hsec = hi - hi % w->n;
    cs_ps_part part[2] = {{-1, 0, {0}}, {-1, 0, {0}}};

    cs_sched_round(w->s);
    if (lo >= 0)
        part[0] = (cs_ps_part){lo, lo % w->n == 0, {0}};
    if (!(lo >= 0 && lo % w->n == 0) && hsec <= w->p - 1) {
        const int len = cs_ps_section_len(w, hsec);
        if (hi <= w->p - 1)
            part[1] = (cs_ps_part){hi, hi - hsec == len - 1, {0}};
        else
            part[1] = (cs_ps_part){hsec + (hi - w->p) % len, 1, {0}};
    }
    cs_ps_final_sends(w);
    for (int t = 0; t < 2; t++) {
        if (part[t].from < 0)
            continue;
        if (part[t].from == i) {
            part[t].v = cs_ps_share(w, part[t].total ? w->T : t == 0 ? w->S : w->P);
        } else {
            part[t].v = cs_ps_new(w);
            cs_sched_recv(w->s, part[t].from, part[t].v.buf, part[t].v.off, w->m);
        }
    }

    if (part[0].from < 0 || part[1].from < 0) {
        const cs_ps_val v = part[part[0].from < 0].v;
        cs_sched_copy(w->s, v.buf, v.off, CS_BUF_RECV, 0, w->m);
    } else if (part[0].v.buf != CS_BUF_RECV) {
        cs_sched_copy(w->s, part[1].v.buf, part[1].v.off, CS_BUF_RECV, 0, w->m);
        cs_sched_reduce(w->s, part[0].v.buf, part[0].v.off, CS_BUF_RECV, 0, w->m);
    } else { /* in place, the left part still the rank's own vector */
        cs_ps_reduce(w, part[0].v, &part[1].v);
        cs_sched_copy(w->s, part[1].v.buf, part[1].v.off, CS_BUF_RECV, 0, w->m);
    }
}

/* Which values live on: S and P only where a window uses them (S of the
 * first rank and P of the last one are T); with the inverse, only the one
 * with fewer updates when both are used and the other would cost more than
 * the two steps that derive it. */
static void cs_ps_needs(cs_ps *w, int rounds, int inverse)
{
    int up = 0, us = 0;
    w->need_s = w->x != 0 && cs_ps_s_user(w, w->rank) >= 0;
    w->need_p = w->x != w->len - 1 && cs_ps_p_user(w, w->rank) >= 0;
    for (int k = 0; k < rounds; k++) {
        const int bit = 1 << k;
        up += (w->x & bit) != 0;
        us += !(w->x & bit) && ((w->x & ~(bit - 1)) ^ bit) < w->len;
    }
    if (!inverse || !w->need_s || !w->need_p || (up > us ? up : us) <= 2)
        return;
    w->derive = up > us ? 'P' : 'S';
    if (w->derive == 'P')
        w->need_p = 0;
    else
        w->need_s = 0;
}

/* With the inverse: the value not kept, from T, the kept one and A. */
static void cs_ps_derive(cs_ps *w)
{
    cs_ps_val *kept = w->derive == 'P' ? &w->S : &w->P, *out = w->derive == 'P' ? &w->P : &w->S;
    cs_ps_val c = cs_ps_new(w);
    cs_sched_copy(w->s, w->T.buf, w->T.off, c.buf, c.off, w->m);
    cs_sched_unreduce(w->s, kept->buf, kept->off, c.buf, c.off, w->m);
    cs_sched_reduce(w->s, w->A.buf, w->A.off, c.buf, c.off, w->m);
    cs_ps_drop(w, *out);
    *out = c;
}

int cs_window_ps_build(int p, int n, int r, int rank, size_t count, size_t elem, int inplace, int inverse, cs_sched *s)
{
    if (p < 1 || n < 1 || n > p || r < 0 || r >= n || rank < 0 || rank >= p)
        return MPI_ERR_ARG;
    cs_ps w = {.p = p, .n = n, .r = r, .rank = rank, .m = count * elem, .s = s};
    if (w.m == 0)
        return MPI_SUCCESS;
    w.sec = rank - rank % n;
    w.len = cs_ps_section_len(&w, w.sec);
    w.x = rank - w.sec;
    w.A = w.T = w.P = w.S = (cs_ps_val){inplace ? CS_BUF_RECV : CS_BUF_SEND, 0, -1};

    const int rounds = cs_ceil_log2(n);
    cs_ps_needs(&w, rounds, inverse);
    for (int k = 0; k < rounds && !s->error; k++)
        cs_ps_scan_round(&w, k, k == rounds - 1);
    if (w.derive)
        cs_ps_derive(&w);
    cs_ps_final(&w);
    cs_sched_scratch(s, CS_BUF_TMP0, (size_t)w.slots_max * w.m);
    return s->error;
}
