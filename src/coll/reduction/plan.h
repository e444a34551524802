/*
 * The plan of a reduction over any p (Rabenseifner and Träff 2004, §3.6):
 * p = 2^n q_1 ... q_j r, reduced level by level, each level over groups of
 * consecutive ranks so that partial results combine in canonical order:
 *   n butterfly levels (stride 1, 2, ..., 2^(n-1)),
 *   one ring level per small odd factor q_i (§3.4),
 *   one elimination level for the odd rest r > 1 (§3.3, Fig. 5): a 3-2
 *   elimination and pairs of 2-1 eliminations leave 2^floor(log2 r)
 *   survivors, which go on as butterfly "units" of two processes.
 * A stage is one step that may split the block: a butterfly or ring level
 * is one stage, an elimination level is floor(log2 r) stages (its pair
 * exchange and the unit butterflies). The first k stages split the block
 * (bandwidth mode), the others exchange it whole (latency mode).
 * Everything here is rank arithmetic: no MPI, no buffers.
 */
#ifndef CS_PLAN_H
#define CS_PLAN_H

#define CS_MAX_LEVELS 64

typedef enum cs_level_kind { CS_LEVEL_BUTTERFLY, CS_LEVEL_RING, CS_LEVEL_ELIM } cs_level_kind;

typedef struct cs_level {
    cs_level_kind kind;
    int f;           /* 2, the ring's size, or the odd factor eliminated */
    int stride;      /* the members of an instance of the level are stride apart */
    int first_stage; /* the index of the level's first stage */
    int nstages;
} cs_level;

typedef struct cs_plan {
    int p;
    int nlevels, nstages;
    cs_level level[CS_MAX_LEVELS];
} cs_plan;

/* Odd prime factors of p up to rmax become rings (rmax < 3: none); the odd
 * rest is eliminated. */
void cs_plan_make(int p, int rmax, cs_plan *plan);

/* Does a ring level split the block (its stage among the first k)? */
static inline int cs_plan_splits_ring(const cs_plan *plan, int k)
{
    for (int i = 0; i < plan->nlevels; i++)
        if (plan->level[i].kind == CS_LEVEL_RING && plan->level[i].first_stage < k)
            return 1;
    return 0;
}

/* The digit of rank at a level: its member index in its instance. */
static inline int cs_level_digit(const cs_level *l, int rank)
{
    return (rank / l->stride) % l->f;
}

/* The rank of member x of rank's instance. */
static inline int cs_level_member(const cs_level *l, int rank, int x)
{
    return rank + (x - cs_level_digit(l, rank)) * l->stride;
}

/* Elimination of an odd q (Fig. 5, non-overlapping): members 0, 1, 2 are
 * the triple (T0, T1 survive, T2 is eliminated by the 3-2 step), then
 * pairs (3,4), (5,6), ...; the first 2 * merged pairs are merged two by two
 * by 2-1 steps (the second pair of each two is eliminated into the first).
 * The survivors form 2^(h-1) units, each a lower and an upper process. */
typedef enum cs_elim_kind {
    CS_ELIM_T0,   /* triple, lower survivor */
    CS_ELIM_T1,   /* triple, upper survivor */
    CS_ELIM_T2,   /* triple, eliminated into T0 (and T1) */
    CS_ELIM_PAIR, /* a pair member that survives, nothing merged into it */
    CS_ELIM_KEEP, /* a pair member that survives and absorbs a pair member */
    CS_ELIM_GONE  /* a pair member eliminated into the member two below it */
} cs_elim_kind;

typedef struct cs_elim_role {
    cs_elim_kind kind;
    int unit;  /* survivors: the unit; eliminated: the unit it joins */
    int upper; /* the side: 0 lower, 1 upper */
} cs_elim_role;

typedef struct cs_elim {
    int q;      /* the odd factor */
    int h;      /* floor(log2 q): 2^h survivors */
    int units;  /* 2^(h-1) */
    int merged; /* pairs of pairs merged by 2-1 elimination */
} cs_elim;

void cs_elim_init(int q, cs_elim *el);
cs_elim_role cs_elim_role_of(const cs_elim *el, int v);
/* The member of a unit on a side. */
int cs_elim_member(const cs_elim *el, int unit, int upper);
/* The survivor that holds member v's result: v itself, or the member an
 * eliminated v (T2, or the second pair of a merged unit) gave its block to. */
int cs_elim_collector(const cs_elim *el, int v);

/* Reduce's whole levels: a one-way tree over members 0..n-1 towards member
 * `to` in ceil(log2 n) rounds that only ever joins adjacent runs, so the
 * result is in canonical order for any `to`. What `me` does in round t: */
typedef enum cs_tree_act {
    CS_TREE_IDLE,
    CS_TREE_RECV_LEFT,  /* receive the run to the right of mine: mine is the left operand */
    CS_TREE_RECV_RIGHT, /* receive the run to the left of mine */
    CS_TREE_SEND        /* send all I hold to *peer; done */
} cs_tree_act;
cs_tree_act cs_tree_step(int n, int to, int me, int t, int *peer);
/* How many times `me` receives in that tree (*sends: 1 if it sends, else
 * 0), in O(log n): what cs_tree_step says over every round. */
int cs_tree_receives(int n, int to, int me, int *sends);

#endif
