/*
 * cs_test.h: shared helpers of collshim's MPI test programs (tests/mpi/test_*.c).
 *
 * Every test calls MPI_* for the call under test and PMPI_* (never intercepted) for the
 * reference, then compares the two. A failed CHECK records file:line, prints the first few
 * failures of the rank, and the program goes on; cs_test_finish() sums the failures over
 * MPI_COMM_WORLD and rank 0 says whether the program passed. A program that fails exits 1.
 *
 * Data are deterministic functions of (rank in the communicator, element index, salt), the salt a
 * hash of the case, so every rank can compute every other rank's data (float tolerances need it).
 *
 * Buffers are allocated with CS_SLACK sentinel bytes on both sides and sentinel in the gaps of
 * non-contiguous types; the reference buffer gets the same sentinel, so comparing whole buffers
 * also checks that the call under test wrote nothing outside the type map.
 */
#ifndef CS_TEST_H
#define CS_TEST_H

#include <dlfcn.h>
#include <float.h>
#include <stddef.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Helpers are static; a program need not use them all. */
#define CS_FN static __attribute__((unused))

/* ------------------------------------------------------------------ checks and reporting */

enum { CS_MAX_REPORTS = 8, CS_SLACK = 64, CS_SENTINEL = 0xA5 };

static int cs_failures;        /* failed checks on this rank */
static int cs_wrank, cs_wsize; /* rank and size in MPI_COMM_WORLD */
static char cs_case[256];      /* what is being tested, for failure messages */

#define CHECK(cond, ...) ((cond) ? (void)0 : cs_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))

__attribute__((format(printf, 4, 5))) CS_FN void cs_fail(const char *file, int line, const char *cond, const char *fmt,
                                                         ...)
{
    if (++cs_failures > CS_MAX_REPORTS)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL rank %d/%d %s:%d: [%s] %s: %s\n", cs_wrank, cs_wsize, file, line, cs_case, cond, msg);
    fflush(stderr);
}

/* Sets the description of the case under test, printed with its failures. */
__attribute__((format(printf, 1, 2))) CS_FN void cs_set_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cs_case, sizeof cs_case, fmt, ap);
    va_end(ap);
}

CS_FN void cs_test_types_init(void);
CS_FN void cs_test_types_free(void);

CS_FN void cs_test_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &cs_wrank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cs_wsize);
    cs_test_types_init();
}

/* Sums the failures over every rank; rank 0 reports. Returns the exit status. */
CS_FN int cs_test_finish(const char *name)
{
    int total = 0;
    cs_test_types_free();
    PMPI_Allreduce(&cs_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (cs_wrank == 0 && total != 0)
        fprintf(stderr, "%s: FAILED: %d failed check(s) at p=%d\n", name, total, cs_wsize);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

/* Is MPI_Allreduce someone else's than the MPI library's (collshim preloaded)? */
CS_FN int cs_shim_loaded(void)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "MPI_Allreduce");
    if (sym == NULL || dladdr(sym, &info) == 0 || info.dli_fname == NULL)
        return 0;
    return strstr(info.dli_fname, "libmpi") == NULL;
}

/* ------------------------------------------------------------------ deterministic data */

CS_FN uint64_t cs_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

CS_FN uint64_t cs_hash(uint64_t a, uint64_t b, uint64_t c)
{
    return cs_mix(a ^ cs_mix(b ^ cs_mix(c)));
}

/* Memory that owns CS_SLACK sentinel bytes on either side of the span a datatype touches. */
typedef struct cs_buf {
    unsigned char *base;
    void *origin; /* what is passed to MPI */
    size_t total; /* bytes from base */
} cs_buf;

CS_FN cs_buf cs_alloc(MPI_Datatype type, size_t count)
{
    MPI_Aint lb, extent, tlb, textent;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &tlb, &textent);
    size_t span = count == 0 ? 0 : (size_t)((MPI_Aint)(count - 1) * extent + textent);
    cs_buf b;
    b.total = span + 2 * CS_SLACK;
    b.base = malloc(b.total);
    if (b.base == NULL) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", cs_wrank, b.total);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(b.base, CS_SENTINEL, b.total);
    b.origin = b.base + CS_SLACK - tlb;
    return b;
}

CS_FN cs_buf cs_copy(cs_buf src)
{
    cs_buf b = src;
    b.base = malloc(src.total);
    memcpy(b.base, src.base, src.total);
    b.origin = b.base + ((unsigned char *)src.origin - src.base);
    return b;
}

CS_FN void cs_free(cs_buf *b)
{
    free(b->base);
    b->base = NULL;
}

/* Index of the first differing byte of two buffers of the same shape, or -1. */
CS_FN long cs_first_diff(const cs_buf *a, const cs_buf *b)
{
    const unsigned char *x = a->base, *y = b->base;
    if (a->total != b->total)
        return 0;
    if (memcmp(x, y, a->total) == 0)
        return -1;
    for (size_t i = 0; i < a->total; i++)
        if (x[i] != y[i])
            return (long)i;
    return -1;
}

/* A byte index from cs_first_diff, as an offset from the origin MPI was given. */
CS_FN long cs_offset(const cs_buf *b, long d)
{
    return d - (long)((unsigned char *)b->origin - b->base);
}

/* ------------------------------------------------------------------ types and operators */

typedef enum cs_kind {
    CS_I8,
    CS_U8,
    CS_I16,
    CS_U16,
    CS_I32,
    CS_U32,
    CS_I64,
    CS_U64,
    CS_F32,
    CS_F64,
    CS_DI, /* MPI_DOUBLE_INT */
    CS_II, /* MPI_2INT */
    CS_MAT /* 2x2 int matrix, its four ints where the type's layout says */
} cs_kind;

typedef struct cs_di {
    double v;
    int i;
} cs_di;
typedef struct cs_ii {
    int v, i;
} cs_ii;

/* Operator classes, and which classes a type accepts. */
enum {
    CS_ARITH = 1u << 0, /* SUM PROD */
    CS_ORDER = 1u << 1, /* MIN MAX */
    CS_LOGIC = 1u << 2, /* LAND LOR LXOR */
    CS_BIT = 1u << 3,   /* BAND BOR BXOR */
    CS_LOC = 1u << 4,   /* MINLOC MAXLOC */
    CS_USER = 1u << 5,  /* the user operators on CS_MAT */
    CS_INTEGER = CS_ARITH | CS_ORDER | CS_LOGIC | CS_BIT
};

typedef struct cs_type {
    MPI_Datatype type;
    const char *name;
    cs_kind kind;
    unsigned ops;
    int big;    /* also run at the large counts */
    int off[4]; /* CS_MAT: byte offsets of the four ints from an element's origin */
    MPI_Aint extent;
} cs_type;

typedef struct cs_op {
    MPI_Op op;
    const char *name;
    unsigned cls;
    int big;
} cs_op;

enum { CS_NTYPES_MAX = 32 };
static cs_type cs_types[CS_NTYPES_MAX];
static int cs_ntypes;
static cs_op cs_ops[16];
static int cs_nops;
static MPI_Datatype cs_mat_type; /* contiguous, 4 MPI_INT */

CS_FN const cs_type *cs_type_of(MPI_Datatype t)
{
    for (int i = 0; i < cs_ntypes; i++)
        if (cs_types[i].type == t)
            return &cs_types[i];
    return NULL;
}

CS_FN size_t cs_kind_size(cs_kind k)
{
    static const size_t sz[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, sizeof(cs_di), sizeof(cs_ii), 16};
    return sz[k];
}

/*
 * The user operators act on 2x2 matrices of integers mod 2^31, laid out as the datatype's entry
 * in cs_types says (so they work on the derived types too). MPI: inout = in (op) inout, with in
 * the left operand.
 */
CS_FN void cs_mat_apply(void *in, void *inout, int *len, MPI_Datatype *dt, int mul)
{
    const cs_type *t = cs_type_of(*dt);
    if (t == NULL || t->kind != CS_MAT) {
        cs_fail(__FILE__, __LINE__, "known datatype", "user op called with an unknown datatype");
        return;
    }
    for (int e = 0; e < *len; e++) {
        unsigned char *a = (unsigned char *)in + e * t->extent;
        unsigned char *b = (unsigned char *)inout + e * t->extent;
        uint64_t x[4], y[4], r[4];
        for (int k = 0; k < 4; k++) {
            int32_t v;
            memcpy(&v, a + t->off[k], 4);
            x[k] = (uint32_t)v;
            memcpy(&v, b + t->off[k], 4);
            y[k] = (uint32_t)v;
        }
        if (mul) {
            r[0] = x[0] * y[0] + x[1] * y[2];
            r[1] = x[0] * y[1] + x[1] * y[3];
            r[2] = x[2] * y[0] + x[3] * y[2];
            r[3] = x[2] * y[1] + x[3] * y[3];
        } else {
            for (int k = 0; k < 4; k++)
                r[k] = x[k] + y[k];
        }
        for (int k = 0; k < 4; k++) {
            int32_t v = (int32_t)(r[k] & 0x7fffffffu);
            memcpy(b + t->off[k], &v, 4);
        }
    }
}

CS_FN void cs_matmul_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    cs_mat_apply(in, inout, len, dt, 1);
}

CS_FN void cs_matadd_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    cs_mat_apply(in, inout, len, dt, 0);
}

CS_FN void cs_add_type(MPI_Datatype t, const char *name, cs_kind kind, unsigned ops, int big)
{
    cs_type *ct = &cs_types[cs_ntypes++];
    MPI_Aint lb;
    ct->type = t;
    ct->name = name;
    ct->kind = kind;
    ct->ops = ops;
    ct->big = big;
    PMPI_Type_get_extent(t, &lb, &ct->extent);
    for (int k = 0; k < 4; k++)
        ct->off[k] = 4 * k;
}

/* A derived type of four MPI_INT per element, the ints at byte offsets off[]. */
CS_FN void cs_add_mat_type(MPI_Datatype t, const char *name, const int off[4])
{
    PMPI_Type_commit(&t);
    cs_add_type(t, name, CS_MAT, CS_USER, 0);
    memcpy(cs_types[cs_ntypes - 1].off, off, sizeof cs_types[0].off);
}

CS_FN void cs_test_types_init(void)
{
    static const struct {
        MPI_Datatype t;
        const char *name;
        cs_kind kind;
        unsigned ops;
        int big;
    } basic[] = {
        {MPI_SIGNED_CHAR, "SIGNED_CHAR", CS_I8, CS_INTEGER, 0},
        {MPI_UNSIGNED_CHAR, "UNSIGNED_CHAR", CS_U8, CS_INTEGER, 1},
        {MPI_SHORT, "SHORT", CS_I16, CS_INTEGER, 0},
        {MPI_UNSIGNED_SHORT, "UNSIGNED_SHORT", CS_U16, CS_INTEGER, 0},
        {MPI_INT, "INT", CS_I32, CS_INTEGER, 1},
        {MPI_UNSIGNED, "UNSIGNED", CS_U32, CS_INTEGER, 0},
        {MPI_LONG, "LONG", CS_I64, CS_INTEGER, 0},
        {MPI_UINT64_T, "UINT64_T", CS_U64, CS_INTEGER, 0},
        {MPI_BYTE, "BYTE", CS_U8, CS_BIT, 0},
        {MPI_FLOAT, "FLOAT", CS_F32, CS_ARITH | CS_ORDER, 1},
        {MPI_DOUBLE, "DOUBLE", CS_F64, CS_ARITH | CS_ORDER, 1},
        {MPI_DOUBLE_INT, "DOUBLE_INT", CS_DI, CS_LOC, 1},
        {MPI_2INT, "2INT", CS_II, CS_LOC, 0},
    };
    for (size_t i = 0; i < sizeof basic / sizeof basic[0]; i++)
        cs_add_type(basic[i].t, basic[i].name, basic[i].kind, basic[i].ops, basic[i].big);

    /* The matrix type and derived types of it, contiguous or not, with lb != 0. */
    static const int dense[4] = {0, 4, 8, 12}, shifted[4] = {8, 12, 16, 20}, gapped[4] = {0, 4, 12, 16};
    MPI_Datatype t, v;
    PMPI_Type_contiguous(4, MPI_INT, &cs_mat_type);
    cs_add_mat_type(cs_mat_type, "MAT(contig 4 INT)", dense);
    cs_types[cs_ntypes - 1].big = 1;
    int blen = 4;
    MPI_Aint disp = 8;
    PMPI_Type_create_hindexed(1, &blen, &disp, MPI_INT, &t); /* lb 8, extent 16: contiguous */
    cs_add_mat_type(t, "MAT(hindexed 4 INT at +8)", shifted);
    PMPI_Type_create_resized(cs_mat_type, -16, 16, &t); /* lb -16, true lb 0: contiguous */
    cs_add_mat_type(t, "MAT(resized lb=-16)", dense);
    PMPI_Type_vector(2, 2, 3, MPI_INT, &v); /* ints 0 1 _ 3 4: not contiguous */
    cs_add_mat_type(v, "MAT(vector 2x2 stride 3 INT)", gapped);
    PMPI_Type_create_resized(v, 0, 32, &t); /* and a gap at the end */
    cs_add_mat_type(t, "MAT(vector resized to 32)", gapped);

    static const struct {
        MPI_Op op;
        const char *name;
        unsigned cls;
        int big;
    } predef[] = {
        {MPI_SUM, "SUM", CS_ARITH, 1},   {MPI_PROD, "PROD", CS_ARITH, 0},   {MPI_MIN, "MIN", CS_ORDER, 0},
        {MPI_MAX, "MAX", CS_ORDER, 0},   {MPI_LAND, "LAND", CS_LOGIC, 0},   {MPI_LOR, "LOR", CS_LOGIC, 0},
        {MPI_LXOR, "LXOR", CS_LOGIC, 0}, {MPI_BAND, "BAND", CS_BIT, 0},     {MPI_BOR, "BOR", CS_BIT, 0},
        {MPI_BXOR, "BXOR", CS_BIT, 1},   {MPI_MINLOC, "MINLOC", CS_LOC, 0}, {MPI_MAXLOC, "MAXLOC", CS_LOC, 1},
    };
    for (size_t i = 0; i < sizeof predef / sizeof predef[0]; i++)
        cs_ops[cs_nops++] = (cs_op){predef[i].op, predef[i].name, predef[i].cls, predef[i].big};
    MPI_Op mul, add;
    PMPI_Op_create(cs_matmul_fn, 0, &mul);
    PMPI_Op_create(cs_matadd_fn, 1, &add);
    cs_ops[cs_nops++] = (cs_op){mul, "user matmul (non-commutative)", CS_USER, 1};
    cs_ops[cs_nops++] = (cs_op){add, "user matadd (commutative)", CS_USER, 0};

    for (int i = 0; i < cs_ntypes; i++)
        if (cs_types[i].kind != CS_MAT && (size_t)cs_types[i].extent != cs_kind_size(cs_types[i].kind))
            CHECK(0, "extent of %s is %ld, expected %zu", cs_types[i].name, (long)cs_types[i].extent,
                  cs_kind_size(cs_types[i].kind));
}

CS_FN void cs_test_types_free(void)
{
    for (int i = 0; i < cs_ntypes; i++)
        if (cs_types[i].kind == CS_MAT)
            PMPI_Type_free(&cs_types[i].type);
    for (int i = 0; i < cs_nops; i++)
        if (cs_ops[i].cls == CS_USER)
            PMPI_Op_free(&cs_ops[i].op);
    cs_ntypes = cs_nops = 0;
}

/* The value of element i of a rank's vector for an operator class, as a double (float kinds). */
CS_FN double cs_float_value(uint64_t h, unsigned cls)
{
    if (cls == CS_ARITH && (h & 1)) /* PROD: exact whatever the order */
        return (const double[]){1.0, -1.0, 2.0, 0.5}[(h >> 1) % 4];
    /* Magnitudes from 1e-3 to 1e3 and inexact thirds: the order of a sum shows in its bits. */
    return (double)((int64_t)(h % 20001) - 10000) * ldexp(1.0, (int)((h >> 20) % 21) - 10) / 3.0;
}

/* Writes element i of a rank's data (h = its hash) for an operator class. */
CS_FN void cs_set_elem(const cs_type *t, unsigned char *e, uint64_t h, unsigned cls, MPI_Op op)
{
    uint64_t v = h;
    if (cls == CS_ARITH && op == MPI_PROD)
        v = (uint64_t)(const int64_t[]){1, -1, 2, 1, 1}[h % 5];
    else if (cls == CS_ARITH) /* bounded: signed sums never overflow */
        v = (uint64_t)(t->kind == CS_I8 ? (int64_t)(h % 15) - 7 : (int64_t)(h % 2001) - 1000);
    else if (cls == CS_LOGIC)
        v = h % 8 == 0 ? 0 : h >> 3;
    switch (t->kind) {
    case CS_I8:
    case CS_U8: *e = (uint8_t)v; break;
    case CS_I16:
    case CS_U16: {
        uint16_t x = (uint16_t)v;
        memcpy(e, &x, 2);
        break;
    }
    case CS_I32:
    case CS_U32: {
        uint32_t x = (uint32_t)v;
        memcpy(e, &x, 4);
        break;
    }
    case CS_I64:
    case CS_U64: memcpy(e, &v, 8); break;
    case CS_F32: {
        float x = (float)cs_float_value(op == MPI_PROD ? h | 1 : h & ~1ull, cls);
        memcpy(e, &x, 4);
        break;
    }
    case CS_F64: {
        double x = cs_float_value(op == MPI_PROD ? h | 1 : h & ~1ull, cls);
        memcpy(e, &x, 8);
        break;
    }
    case CS_DI: { /* the fields only: the padding is no part of the type map */
        double v = (double)(h % 8);
        int i = (int)((h >> 8) % 1000);
        memcpy(e, &v, sizeof v);
        memcpy(e + offsetof(cs_di, i), &i, sizeof i);
        break;
    }
    case CS_II: {
        cs_ii x = {(int)(h % 8), (int)((h >> 8) % 1000)};
        memcpy(e, &x, sizeof x);
        break;
    }
    case CS_MAT:
        for (int k = 0; k < 4; k++) {
            int32_t x = (int32_t)(cs_mix(h + (uint64_t)k) & 0x7fffffffu);
            memcpy(e + t->off[k], &x, 4);
        }
        break;
    }
}

CS_FN uint64_t cs_elem_hash(int rank, size_t i, uint64_t salt)
{
    return cs_hash((uint64_t)rank, i, salt);
}

CS_FN void cs_fill(const cs_type *t, MPI_Op op, unsigned cls, void *origin, size_t count, int rank, uint64_t salt)
{
    for (size_t i = 0; i < count; i++)
        cs_set_elem(t, (unsigned char *)origin + i * t->extent, cs_elem_hash(rank, i, salt), cls, op);
}

/* ------------------------------------------------------------------ comparisons */

/*
 * Compares a result with the reference. Exact kinds and exact operators: every byte of both
 * buffers, sentinels included (MPI_DOUBLE_INT: its two fields, then the sentinels). Float sums:
 * within tol[i] per element, and the sentinels exactly. Returns the number of differences.
 */
CS_FN size_t cs_compare(const cs_type *t, const cs_buf *got, const cs_buf *want, size_t count, const double *tol,
                        const char *what)
{
    size_t bad = 0, first = 0;
    if (t->kind == CS_DI || tol != NULL) {
        for (size_t i = 0; i < count; i++) {
            const unsigned char *g = (unsigned char *)got->origin + i * t->extent;
            const unsigned char *w = (unsigned char *)want->origin + i * t->extent;
            int ok;
            if (tol != NULL) {
                double gv = t->kind == CS_F32 ? *(const float *)g : *(const double *)g;
                double wv = t->kind == CS_F32 ? *(const float *)w : *(const double *)w;
                ok = fabs(gv - wv) <= tol[i];
            } else {
                ok = memcmp(g, w, sizeof(double)) == 0 &&
                     memcmp(g + offsetof(cs_di, i), w + offsetof(cs_di, i), sizeof(int)) == 0;
            }
            if (!ok && bad++ == 0)
                first = i;
        }
        if (bad)
            CHECK(0, "%s: %zu of %zu elements differ, first at %zu", what, bad, count, first);
        size_t span = got->total - 2 * CS_SLACK;
        int lo = memcmp(got->base, want->base, CS_SLACK) != 0;
        int hi = memcmp(got->base + CS_SLACK + span, want->base + CS_SLACK + span, CS_SLACK) != 0;
        CHECK(!lo && !hi, "%s: bytes written outside the buffer (%s)", what, lo ? "below" : "above");
        return bad + (size_t)lo + (size_t)hi;
    }
    long d = cs_first_diff(got, want);
    CHECK(d < 0, "%s: differs from the reference at byte offset %ld", what, cs_offset(got, d));
    return d >= 0;
}

/* Checks that a buffer is bitwise the same on every rank of comm (rank 0's copy by PMPI_Bcast). */
CS_FN void cs_check_same_everywhere(const cs_buf *b, MPI_Comm comm, const char *what)
{
    cs_buf r0 = cs_copy(*b);
    PMPI_Bcast(r0.base, (int)r0.total, MPI_BYTE, 0, comm);
    long d = cs_first_diff(b, &r0);
    CHECK(d < 0, "%s: result differs from rank 0's at byte offset %ld", what, cs_offset(b, d));
    cs_free(&r0);
}

/* ------------------------------------------------------------------ reductions */

typedef struct cs_red {
    MPI_Comm comm;
    const cs_type *type;
    const cs_op *op;
    size_t count;
    int root;    /* -1: allreduce; else reduce to root */
    int inplace; /* MPI_IN_PLACE (reduce: at the root only) */
} cs_red;

/* The same on every rank: from the names, not the handles (Open MPI's are addresses, which
 * differ from process to process). */
CS_FN uint64_t cs_name_hash(const char *name)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

CS_FN uint64_t cs_red_salt(const cs_red *c)
{
    return cs_hash(cs_name_hash(c->type->name) * 131u + cs_name_hash(c->op->name), c->count,
                   (uint64_t)(c->root + 7) * 2 + (uint64_t)c->inplace);
}

/* Per-element tolerance of a float sum: 8 p eps sum_r |x_r|, from every rank's data. */
CS_FN double *cs_sum_tolerance(const cs_red *c, int p, uint64_t salt)
{
    double eps = c->type->kind == CS_F32 ? FLT_EPSILON : DBL_EPSILON;
    double *tol = calloc(c->count + 1, sizeof *tol);
    for (size_t i = 0; i < c->count; i++) {
        double s = 0;
        for (int r = 0; r < p; r++) {
            double v = cs_float_value(cs_elem_hash(r, i, salt) & ~1ull, CS_ARITH);
            s += fabs(c->type->kind == CS_F32 ? (double)(float)v : v);
        }
        tol[i] = 8.0 * p * eps * s;
    }
    return tol;
}

/*
 * MPICH 4.0.2 itself crashes on MPI_Reduce with MPI_IN_PLACE at a nonzero root above 2048 bytes
 * (its reduce_scatter_gather algorithm; pmodels/mpich#6540, fixed in 4.1.2). Without collshim,
 * such a call is the library's bug, not a test: skipped. With collshim it must work.
 */
CS_FN int cs_mpich_bug_6540(const cs_red *c)
{
    return c->root > 0 && c->inplace && c->count * (size_t)c->type->extent > 2048 && !cs_shim_loaded();
}

/*
 * Runs one reduction through MPI_* and through PMPI_* on the same data and compares: the result
 * (bitwise, or within a bound for float sums), that the send buffer was left alone, and for
 * allreduce that every rank holds bitwise the same result. Non-roots pass recvbuf NULL.
 */
CS_FN void cs_check_reduction(const cs_red *c)
{
    int rank, p;
    if (cs_mpich_bug_6540(c))
        return;
    PMPI_Comm_rank(c->comm, &rank);
    PMPI_Comm_size(c->comm, &p);
    const cs_type *t = c->type;
    unsigned cls = c->op->cls;
    int all = c->root < 0, has_result = all || rank == c->root;
    int inplace = c->inplace && has_result;
    int n = (int)c->count;
    uint64_t salt = cs_red_salt(c);
    char what[200];
    snprintf(what, sizeof what, "%s %s %s count=%d%s%s", all ? "allreduce" : "reduce", t->name, c->op->name, n,
             c->inplace ? " in place" : "", all ? "" : " root");
    if (!all)
        snprintf(what + strlen(what), sizeof what - strlen(what), "=%d", c->root);
    cs_set_case("%s p=%d", what, p);

    cs_buf send = cs_alloc(t->type, c->count);
    cs_fill(t, c->op->op, cls, send.origin, c->count, rank, salt);
    cs_buf send0 = cs_copy(send), ref = cs_alloc(t->type, c->count);
    cs_buf out = inplace ? cs_copy(send) : cs_alloc(t->type, c->count);
    void *ref_p = has_result ? ref.origin : NULL, *out_p = has_result ? out.origin : NULL;
    int rc;
    if (all) {
        PMPI_Allreduce(send.origin, ref_p, n, t->type, c->op->op, c->comm);
        rc = MPI_Allreduce(inplace ? MPI_IN_PLACE : send.origin, out_p, n, t->type, c->op->op, c->comm);
    } else {
        PMPI_Reduce(send.origin, ref_p, n, t->type, c->op->op, c->root, c->comm);
        rc = MPI_Reduce(inplace ? MPI_IN_PLACE : send.origin, out_p, n, t->type, c->op->op, c->root, c->comm);
    }
    CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
    if (!inplace)
        CHECK(cs_first_diff(&send, &send0) < 0, "%s: send buffer modified", what);
    if (has_result) {
        double *tol = NULL;
        if ((t->kind == CS_F32 || t->kind == CS_F64) && c->op->op == MPI_SUM)
            tol = cs_sum_tolerance(c, p, salt);
        cs_compare(t, &out, &ref, c->count, tol, what);
        free(tol);
    }
    if (all)
        cs_check_same_everywhere(&out, c->comm, what);
    cs_free(&send);
    cs_free(&send0);
    cs_free(&ref);
    cs_free(&out);
}

/* The counts every reduction runs at; the large ones only for (type, op) pairs marked big. */
CS_FN int cs_counts(int p, int big, size_t *out)
{
    static const size_t fixed[] = {0, 1, 2, 3, 7, 1000};
    int n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        out[n++] = fixed[i];
    if (p > 1)
        out[n++] = (size_t)(p - 1);
    if (big) {
        out[n++] = 4099;
        out[n++] = 65536 + 3;
    }
    return n;
}

/*
 * With CS_TEST_SPARSE=1 (the test driver sets it above p = 8 in `make check`; `make check-full`
 * runs every pair at every p): a cover of the (type, op) pairs, each type with its first
 * operator, each operator with its first type, and every pair of a user operator (the
 * non-commutative ones). The rank arithmetic of every p is the unit suites' (the simulator);
 * what the large p add here is the same buffers and types on more ranks.
 */
CS_FN int cs_pair_in_cover(int ti, int oi)
{
    const char *sparse = getenv("CS_TEST_SPARSE");
    int first_op = -1, first_type = -1;
    if (!sparse || strcmp(sparse, "1") || (cs_ops[oi].cls & CS_USER))
        return 1;
    for (int o = 0; o < cs_nops && first_op < 0; o++)
        if (cs_types[ti].ops & cs_ops[o].cls)
            first_op = o;
    for (int t = 0; t < cs_ntypes && first_type < 0; t++)
        if (cs_types[t].ops & cs_ops[oi].cls)
            first_type = t;
    return oi == first_op || ti == first_type;
}

/*
 * Every valid (type, op) pair at every count, in place and not, for allreduce (root -1) or
 * reduce to root. `filter`, if not NULL, keeps a subset of the pairs (smaller runs); so does
 * CS_TEST_SPARSE (cs_pair_in_cover).
 */
CS_FN void cs_check_reductions(MPI_Comm comm, int root, int (*filter)(const cs_type *, const cs_op *))
{
    int p;
    PMPI_Comm_size(comm, &p);
    for (int ti = 0; ti < cs_ntypes; ti++) {
        for (int oi = 0; oi < cs_nops; oi++) {
            const cs_type *t = &cs_types[ti];
            const cs_op *op = &cs_ops[oi];
            if (!(t->ops & op->cls) || (filter && !filter(t, op)) || !cs_pair_in_cover(ti, oi))
                continue;
            size_t counts[16];
            int nc = cs_counts(p, t->big && op->big, counts);
            for (int ci = 0; ci < nc; ci++)
                for (int inplace = 0; inplace < 2; inplace++)
                    cs_check_reduction(&(cs_red){comm, t, op, counts[ci], root, inplace});
        }
    }
}

/* ------------------------------------------------------------------ alltoall */

/*
 * One alltoall through MPI_* and PMPI_*: rank r sends the bytes (packed representation) of
 * block d as hash(r, d, k). Checks the result against PMPI's, bitwise with sentinels, and every
 * received byte against the formula; the send buffer must be left alone.
 * inplace: MPI_IN_PLACE as sendbuf, with sendcount -1 and MPI_DATATYPE_NULL: the standard says
 * they are ignored, as a conformance suite passes them.
 */
CS_FN void cs_check_alltoall(MPI_Comm comm, MPI_Datatype st, int scount, MPI_Datatype rt, int rcount, int inplace,
                             const char *desc)
{
    int rank, p, ssize, rsize;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    PMPI_Type_size(st, &ssize);
    PMPI_Type_size(rt, &rsize);
    if (inplace) {
        st = rt;
        scount = rcount;
        ssize = rsize;
    }
    char what[200];
    snprintf(what, sizeof what, "alltoall %s%s", desc, inplace ? " in place" : "");
    cs_set_case("%s p=%d", what, p);
    size_t block = (size_t)rsize * (size_t)rcount;
    CHECK(block == (size_t)ssize * (size_t)scount, "signatures differ in size");

    /* The packed send stream, unpacked into the send type's layout. */
    unsigned char *stream = malloc(block * (size_t)p + 1);
    for (int d = 0; d < p; d++)
        for (size_t k = 0; k < block; k++)
            stream[(size_t)d * block + k] = (unsigned char)cs_hash((uint64_t)rank, (uint64_t)d, k);
    cs_buf send = cs_alloc(st, (size_t)scount * (size_t)p);
    int pos = 0;
    PMPI_Unpack(stream, (int)(block * (size_t)p), &pos, send.origin, scount * p, st, MPI_COMM_SELF);
    cs_buf send0 = cs_copy(send), ref = cs_alloc(rt, (size_t)rcount * (size_t)p), out;
    if (inplace) {
        out = cs_alloc(rt, (size_t)rcount * (size_t)p);
        pos = 0;
        PMPI_Unpack(stream, (int)(block * (size_t)p), &pos, out.origin, rcount * p, rt, MPI_COMM_SELF);
    } else {
        out = cs_alloc(rt, (size_t)rcount * (size_t)p);
    }

    PMPI_Alltoall(send.origin, scount, st, ref.origin, rcount, rt, comm);
    int rc = inplace ? MPI_Alltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, out.origin, rcount, rt, comm)
                     : MPI_Alltoall(send.origin, scount, st, out.origin, rcount, rt, comm);
    CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
    if (!inplace)
        CHECK(cs_first_diff(&send, &send0) < 0, "%s: send buffer modified", what);
    long d = cs_first_diff(&out, &ref);
    CHECK(d < 0, "%s: differs from PMPI_Alltoall at byte offset %ld", what, cs_offset(&out, d));

    pos = 0;
    PMPI_Pack(out.origin, rcount * p, rt, stream, (int)(block * (size_t)p), &pos, MPI_COMM_SELF);
    size_t bad = 0;
    for (int s = 0; s < p && bad == 0; s++)
        for (size_t k = 0; k < block; k++)
            if (stream[(size_t)s * block + k] != (unsigned char)cs_hash((uint64_t)s, (uint64_t)rank, k)) {
                CHECK(0, "%s: byte %zu of the block from rank %d is wrong", what, k, s);
                bad++;
                break;
            }
    free(stream);
    cs_free(&send);
    cs_free(&send0);
    cs_free(&ref);
    cs_free(&out);
}

#endif
