/*
 * Which calls collshim's algorithms may run. A call the MPI standard calls
 * erroneous is the MPI library's to judge: it goes there, and the library
 * reports it through the communicator's error handler exactly as it would
 * without collshim. An argument the standard says is ignored is never looked
 * at.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "shim/args.h"
#include "shim/probe.h"

/* ------------------------------------------------------------------ operators and types */

/* The predefined operators a collective may use (MPI 4.0 §6.9.2); MPI_REPLACE
 * and MPI_NO_OP are for one-sided accumulates only. */
static const MPI_Op cs_ops[] = {MPI_SUM,  MPI_MAX,  MPI_MIN, MPI_PROD, MPI_BAND,   MPI_BOR,
                                MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MINLOC, MPI_MAXLOC};
enum { CS_NOPS = sizeof cs_ops / sizeof cs_ops[0], CS_OP_SUM = 0, CS_OP_PROD = 3, CS_OP_BAND = 4 };

/* Every predefined datatype of MPI 4.0 (§3.2.2, §6.9.3, §19.2.5 and the
 * optional Fortran sizes), the common ones first: the lookup is a scan. A
 * library without one gives MPI_DATATYPE_NULL, which is skipped. */
static const MPI_Datatype cs_types[] = {MPI_INT,
                                        MPI_DOUBLE,
                                        MPI_FLOAT,
                                        MPI_LONG,
                                        MPI_UNSIGNED,
                                        MPI_LONG_LONG,
                                        MPI_UNSIGNED_LONG,
                                        MPI_CHAR,
                                        MPI_BYTE,
                                        MPI_INT64_T,
                                        MPI_INT32_T,
                                        MPI_UINT64_T,
                                        MPI_UINT32_T,
                                        MPI_SHORT,
                                        MPI_UNSIGNED_SHORT,
                                        MPI_SIGNED_CHAR,
                                        MPI_UNSIGNED_CHAR,
                                        MPI_UNSIGNED_LONG_LONG,
                                        MPI_LONG_DOUBLE,
                                        MPI_WCHAR,
                                        MPI_C_BOOL,
                                        MPI_INT8_T,
                                        MPI_INT16_T,
                                        MPI_UINT8_T,
                                        MPI_UINT16_T,
                                        MPI_AINT,
                                        MPI_OFFSET,
                                        MPI_COUNT,
                                        MPI_PACKED,
                                        MPI_C_COMPLEX,
                                        MPI_C_FLOAT_COMPLEX,
                                        MPI_C_DOUBLE_COMPLEX,
                                        MPI_C_LONG_DOUBLE_COMPLEX,
                                        MPI_FLOAT_INT,
                                        MPI_DOUBLE_INT,
                                        MPI_LONG_INT,
                                        MPI_2INT,
                                        MPI_SHORT_INT,
                                        MPI_LONG_DOUBLE_INT,
                                        MPI_INTEGER,
                                        MPI_REAL,
                                        MPI_DOUBLE_PRECISION,
                                        MPI_COMPLEX,
                                        MPI_DOUBLE_COMPLEX,
                                        MPI_LOGICAL,
                                        MPI_CHARACTER,
                                        MPI_2REAL,
                                        MPI_2DOUBLE_PRECISION,
                                        MPI_2INTEGER,
                                        MPI_INTEGER1,
                                        MPI_INTEGER2,
                                        MPI_INTEGER4,
                                        MPI_INTEGER8,
                                        MPI_REAL4,
                                        MPI_REAL8,
                                        MPI_REAL16,
                                        MPI_COMPLEX8,
                                        MPI_COMPLEX16,
                                        MPI_COMPLEX32,
                                        MPI_CXX_BOOL,
                                        MPI_CXX_FLOAT_COMPLEX,
                                        MPI_CXX_DOUBLE_COMPLEX,
                                        MPI_CXX_LONG_DOUBLE_COMPLEX};
enum { CS_NTYPES = sizeof cs_types / sizeof cs_types[0] };

/* Bit i of cs_defined[t]: cs_ops[i] is defined on cs_types[t]. Written once
 * by cs_args_probe_ops, read only afterwards. */
static unsigned short cs_defined[CS_NTYPES];
static int cs_probed;

/* Bit 0 (MPI_SUM), bit 1 (MPI_PROD) of cs_wrong[t]: the library computes
 * the operator on cs_types[t] wrongly (it does not wrap), and our
 * algorithms combine it with our own loop; cs_wrong_text[t][bit] says so
 * for the log. Written at start-up, agreed on by every rank (a decision
 * depends on it), read only afterwards. */
static unsigned char cs_wrong[CS_NTYPES];
static char cs_wrong_text[CS_NTYPES][2][80];
static int cs_wrong_any;

/* MPI_CHAR is a character type, on which MPI 4.0 defines no reduction; MPICH
 * and Open MPI both compute the C integer operators on it as on C's char
 * (signed on x86). Where the library computes an operator on it bit for bit
 * as on that type (cs_probe_same), collshim takes it as that type. */
static MPI_Datatype cs_char_as(void)
{
    return CHAR_MIN < 0 ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR;
}

/* The operators MPI 4.0 defines on a predefined type (§6.9.2, its groups:
 * C integer, Fortran integer, multi-language, floating point, complex,
 * logical, byte, and the pairs of MINLOC and MAXLOC), as bits of cs_ops. */
static unsigned cs_ops_allowed(MPI_Datatype t)
{
    enum { ARITH = 0x0F /* SUM MAX MIN PROD */, BITWISE = 0x70, LOGICAL = 0x380, LOC = 0xC00 };
    static const MPI_Datatype c_int[] = {MPI_INT,         MPI_LONG,          MPI_SHORT,     MPI_UNSIGNED_SHORT,
                                         MPI_UNSIGNED,    MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG,
                                         MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T,    MPI_INT16_T,
                                         MPI_INT32_T,     MPI_INT64_T,       MPI_UINT8_T,   MPI_UINT16_T,
                                         MPI_UINT32_T,    MPI_UINT64_T};
    static const MPI_Datatype f_int[] = {MPI_INTEGER,  MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
                                         MPI_INTEGER8, MPI_AINT,     MPI_OFFSET,   MPI_COUNT};
    static const MPI_Datatype floating[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION,
                                            MPI_REAL4, MPI_REAL8,  MPI_REAL16};
    static const MPI_Datatype complex[] = {
        MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX,   MPI_C_DOUBLE_COMPLEX,   MPI_C_LONG_DOUBLE_COMPLEX,
        MPI_COMPLEX,   MPI_DOUBLE_COMPLEX,    MPI_COMPLEX8,           MPI_COMPLEX16,
        MPI_COMPLEX32, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX};
    static const MPI_Datatype logical[] = {MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL};
    static const MPI_Datatype pairs[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT,        MPI_LONG_INT,
                                         MPI_2INT,      MPI_SHORT_INT,         MPI_LONG_DOUBLE_INT,
                                         MPI_2REAL,     MPI_2DOUBLE_PRECISION, MPI_2INTEGER};
    static const struct {
        const MPI_Datatype *types;
        size_t n;
        unsigned ops;
    } groups[] = {
        {c_int, sizeof c_int / sizeof c_int[0], ARITH | BITWISE | LOGICAL},
        {f_int, sizeof f_int / sizeof f_int[0], ARITH | BITWISE},
        {floating, sizeof floating / sizeof floating[0], ARITH},
        {complex, sizeof complex / sizeof complex[0], 0x09 /* SUM PROD */},
        {logical, sizeof logical / sizeof logical[0], LOGICAL},
        {pairs, sizeof pairs / sizeof pairs[0], LOC},
    };
    if (t == MPI_BYTE)
        return BITWISE;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        for (size_t i = 0; i < groups[g].n; i++)
            if (groups[g].types[i] == t)
                return groups[g].ops;
    return 0;
}

/* Is cs_types[t] an integer type, by the library's own judgement (MPI_SUM
 * and MPI_BAND both defined on it, cs_args_op_defined)? */
static int cs_type_integer(int t)
{
    const unsigned integer = (1u << CS_OP_SUM) | (1u << CS_OP_BAND);
    return (cs_defined[t] & integer) == integer;
}

/* Which integer sums and products the library gets wrong (cs_wrong): a
 * few PMPI_Reduce_local calls on 256-element vectors, some 0.1 ms. */
static void cs_args_probe_wrong(void)
{
    static const int ops[2] = {CS_OP_SUM, CS_OP_PROD};
    for (int t = 0; t < CS_NTYPES; t++) {
        int size = 0;
        if (!cs_type_integer(t) || PMPI_Type_size(cs_types[t], &size) != MPI_SUCCESS)
            continue;
        for (int k = 0; k < 2; k++)
            if (((cs_defined[t] >> ops[k]) & 1) && cs_probe_wraps(cs_ops[ops[k]], cs_types[t], (size_t)size) == 0)
                cs_wrong[t] |= (unsigned char)(1u << k);
    }
}

/*
 * Where the library defines each operator, among the pairs MPI defines
 * and MPI_CHAR's as C's char (cs_char_as): a pair it does not define is
 * refused here, and the call goes to the library, which judges it as
 * without collshim (a library that also takes another pair MPI does not
 * define loses nothing but our algorithms for it; a call that repeats it
 * goes straight there, src/shim/native_memo.c).
 * Probing only those pairs, which mostly succeed, costs some 0.1 ms at
 * MPI_Init; probing all 780, most of which fail and make MPICH format an
 * error, took 36 million instructions (10 to 15 ms) per process.
 */
void cs_args_probe_ops(void)
{
    /* Reduce_local of no elements checks (op, type) and nothing else. MPICH
     * reports an error without a communicator through MPI_COMM_WORLD's
     * handler, MPI 4.0 through MPI_COMM_SELF's: both return for the probe. */
    MPI_Errhandler world, self;
    char in[1], inout[1];
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int t = 0; t < CS_NTYPES; t++) {
        const int is_char = cs_types[t] == MPI_CHAR;
        const unsigned allowed = cs_types[t] == MPI_DATATYPE_NULL ? 0
                                 : is_char                        ? cs_ops_allowed(cs_char_as())
                                                                  : cs_ops_allowed(cs_types[t]);
        for (int o = 0; o < CS_NOPS; o++)
            if (((allowed >> o) & 1) && PMPI_Reduce_local(in, inout, 0, cs_types[t], cs_ops[o]) == MPI_SUCCESS &&
                (!is_char || cs_probe_same(cs_ops[o], MPI_CHAR, cs_char_as(), 1) == 1))
                cs_defined[t] |= (unsigned short)(1u << o);
    }
    cs_args_probe_wrong();
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, self);
    PMPI_Errhandler_free(&world);
    PMPI_Errhandler_free(&self);
    cs_probed = 1;
    cs_args_probe_agree(MPI_COMM_NULL); /* this rank's own, until MPI_Init's ranks agree */
}

void cs_args_probe_agree(MPI_Comm comm)
{
    if (!cs_probed)
        return;
    /* A rank on another processor may see its library err where this one
     * does not: the pair is wrong wherever any rank finds it so. */
    if (comm != MPI_COMM_NULL)
        PMPI_Allreduce(MPI_IN_PLACE, cs_wrong, CS_NTYPES, MPI_UNSIGNED_CHAR, MPI_BOR, comm);
    for (int t = 0; t < CS_NTYPES; t++)
        for (int k = 0; k < 2; k++) {
            char name[MPI_MAX_OBJECT_NAME] = "";
            int len;
            if (!((cs_wrong[t] >> k) & 1))
                continue;
            if (PMPI_Type_get_name(cs_types[t], name, &len) != MPI_SUCCESS || !name[0])
                snprintf(name, sizeof name, "a predefined type");
            snprintf(cs_wrong_text[t][k], sizeof cs_wrong_text[t][k], "the library computes %s on %s wrongly",
                     k ? "MPI_PROD" : "MPI_SUM", name);
            cs_wrong_any = 1;
        }
}

static int cs_op_index(MPI_Op op)
{
    for (int o = 0; o < CS_NOPS; o++)
        if (cs_ops[o] == op)
            return o;
    return -1;
}

static int cs_type_index(MPI_Datatype type)
{
    for (int t = 0; t < CS_NTYPES; t++)
        if (cs_types[t] == type && type != MPI_DATATYPE_NULL)
            return t;
    return -1;
}

int cs_args_predefined(MPI_Datatype type, MPI_Op op)
{
    return (op == MPI_OP_NULL || cs_op_index(op) >= 0) && cs_type_index(type) >= 0;
}

int cs_args_op_user(MPI_Op op)
{
    return cs_op_index(op) < 0;
}

const char *cs_args_library_wrong(MPI_Op op, MPI_Datatype type)
{
    int t;
    if (!cs_wrong_any || (op != MPI_SUM && op != MPI_PROD) || (t = cs_type_index(type)) < 0)
        return NULL;
    const int k = op == MPI_PROD;
    return (cs_wrong[t] >> k) & 1 ? cs_wrong_text[t][k] : NULL;
}

/*
 * A user operator is defined on every type, and its result depends on the
 * order (not exact). A predefined one is defined where the library says; a
 * derived type with a predefined operator is the library's to judge (MPICH
 * refuses even a contiguous run of MPI_INT). Exact: MIN, MAX, MINLOC, MAXLOC,
 * the logical and bitwise operators, and sums and products of integers, which
 * wrap around. The integer types (C, Fortran, multi-language) are those on
 * which both MPI_SUM and MPI_BAND are defined: MPI_BAND alone adds MPI_BYTE,
 * MPI_SUM alone the floating-point and complex types (§6.9.2).
 */
int cs_args_op_defined(MPI_Op op, MPI_Datatype type, int *exact)
{
    int is_user = 0, o = cs_op_index(op), t;
    if (exact)
        *exact = 0;
    if (o < 0) {
        /* MPI_OP_NULL, MPI_REPLACE, MPI_NO_OP, or a user operator. */
        if (op == MPI_OP_NULL || op == MPI_REPLACE || op == MPI_NO_OP)
            return 0;
        return PMPI_Op_commutative(op, &is_user) == MPI_SUCCESS; /* any valid handle */
    }
    if (!cs_probed || (t = cs_type_index(type)) < 0 || !(cs_defined[t] & (1u << o)))
        return 0;
    if (exact) {
        *exact = op != MPI_SUM && op != MPI_PROD ? 1 : cs_type_integer(t);
    }
    return 1;
}

/* ------------------------------------------------------------------ arguments */

static int cs_layout_get(MPI_Datatype type, cs_layout *l)
{
    MPI_Count lb;
    int rc = PMPI_Type_size_x(type, &l->size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent_x(type, &lb, &l->extent);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_true_extent_x(type, &l->true_lb, &l->true_extent);
    l->contig = rc == MPI_SUCCESS && l->size > 0 && l->size == l->true_extent && l->extent == l->true_extent;
    return rc;
}

/* MPI_ERR_BUFFER in MPICH: no buffer for data whose layout starts at its
 * origin (a type with a true lower bound elsewhere may address MPI_BOTTOM). */
static int cs_buffer_missing(const void *buf, int count, const cs_layout *l)
{
    return buf == NULL && count > 0 && l->size > 0 && l->true_lb == 0;
}

/*
 * The arguments of the three collectives (MPI 4.0 §6.8 MPI_Alltoall, §6.9.1
 * MPI_Reduce, §6.9.6 MPI_Allreduce): where each is significant, and what
 * happens to a call that gets it wrong. "library": this rank hands the call
 * to the MPI library, which reports the error through the communicator's
 * error handler (class in brackets, as MPICH 4.0 gives it); "ignored": never
 * read.
 *
 * | argument              | significant                         | wrong                                      |
 * |-----------------------|-------------------------------------|--------------------------------------------|
 * | comm                  | every rank                          | MPI_COMM_NULL: library [COMM]              |
 * |                       |                                     | intercommunicator: library (valid, not ours)|
 * | alltoall sendbuf      | every rank; MPI_IN_PLACE: at all    | NULL with data: library [BUFFER]           |
 * |                       |                                     | the same as recvbuf: library [BUFFER]      |
 * | alltoall sendcount,   | only when sendbuf is not            | < 0: MPI_ERR_COUNT, by collshim (MPICH 4.0 |
 * |   sendtype            |   MPI_IN_PLACE; ignored in place    |   asserts); MPI_DATATYPE_NULL: library     |
 * |                       |   (-1, MPI_DATATYPE_NULL are fine)  |   [TYPE]                                   |
 * | alltoall recvbuf,     | every rank                          | as sendbuf, sendcount, sendtype            |
 * |   recvcount, recvtype |                                     |                                            |
 * | alltoall block sizes  | sendcount·size(sendtype) =          | differ on this rank: library (the standard |
 * |                       |   recvcount·size(recvtype)          |   requires equal signatures)               |
 * | allreduce sendbuf     | every rank; MPI_IN_PLACE: at all    | NULL with data, or recvbuf: library [BUFFER]|
 * | allreduce recvbuf     | every rank                          | NULL with data: library [BUFFER]           |
 * | reduce sendbuf        | every rank; MPI_IN_PLACE: root only | MPI_IN_PLACE elsewhere: library [BUFFER]   |
 * |                       |                                     | NULL with data: library [BUFFER]           |
 * | reduce recvbuf        | root only; ignored elsewhere (NULL  | root: NULL with data, or sendbuf: library  |
 * |                       |   is fine, never written)           |   [BUFFER]                                 |
 * | count, datatype       | every rank (both reductions)        | < 0: MPI_ERR_COUNT, by collshim (MPICH 4.0 |
 * |                       |                                     |   asserts); MPI_DATATYPE_NULL: library     |
 * | op                    | every rank (both reductions)        | MPI_OP_NULL, MPI_REPLACE, MPI_NO_OP, or a  |
 * |                       |                                     |   predefined op not defined on the type    |
 * |                       |                                     |   (the library's own judgement, probed at  |
 * |                       |                                     |   start-up; a derived type with a          |
 * |                       |                                     |   predefined op): library [OP]             |
 * | root (reduce)         | every rank                          | outside 0..p-1: library [ROOT]             |
 *
 * "With data": a positive count of a type with a positive size whose true
 * lower bound is 0 (a type whose data starts elsewhere may address
 * MPI_BOTTOM, which is NULL in MPICH). A count of 0, p = 1, or an
 * intercommunicator goes to the library before this function.
 *
 * Not detected, as in MPICH: datatype signatures that differ between ranks,
 * overlapping (not identical) buffers, an uncommitted datatype whose layout
 * collshim can still read, MPI_IN_PLACE on some ranks of an allreduce or
 * alltoall but not all. These are erroneous programs; collshim runs them as
 * the library would have: with unspecified results.
 *
 * An erroneous call is judged on the rank that makes it: that rank goes to
 * the library, which returns an error (or aborts, under the default
 * MPI_ERRORS_ARE_FATAL) before communicating; the other ranks, if their
 * arguments were right, run the collective and wait for it as they would in
 * the library's own.
 *
 * Not intercepted at all (the library's own, untouched): the nonblocking
 * (§6.12) and persistent (§6.13) variants, MPI_Alltoallv/w, and the
 * large-count (_c) bindings.
 */
const char *cs_args_check(const cs_call *c, const cs_context *ctx, cs_local *l)
{
    const int reduction = c->coll != CS_COLL_ALLTOALL;
    const int has_result = c->coll != CS_COLL_REDUCE || ctx->rank == c->root;

    if (c->coll == CS_COLL_REDUCE && (c->root < 0 || c->root >= ctx->p))
        return "erroneous: root outside the communicator";
    l->inplace = c->sendbuf == MPI_IN_PLACE;
    if (l->inplace && !has_result)
        return "erroneous: MPI_IN_PLACE at a rank other than the root";
    if (c->rtype == MPI_DATATYPE_NULL || (!l->inplace && c->stype == MPI_DATATYPE_NULL))
        return "erroneous: MPI_DATATYPE_NULL";
    if (cs_layout_get(c->rtype, &l->recv) != MPI_SUCCESS ||
        (!l->inplace && cs_layout_get(c->stype, &l->send) != MPI_SUCCESS))
        return "erroneous: datatype query failed";
    if (l->inplace)
        l->send = l->recv;
    l->exact = 0;
    l->library_wrong = NULL;
    if (reduction && !cs_args_op_defined(c->op, c->stype, &l->exact))
        return "erroneous: operator not defined on this datatype";
    if (reduction)
        l->library_wrong = cs_args_library_wrong(c->op, c->stype);

    const int scount = l->inplace ? c->rcount : c->scount;
    const size_t sbytes = (size_t)scount * (size_t)l->send.size, rbytes = (size_t)c->rcount * (size_t)l->recv.size;
    if (!reduction && sbytes != rbytes)
        return "erroneous: send and receive blocks differ in size";
    return NULL;
}

const char *cs_args_check_buffers(const cs_call *c, const cs_context *ctx, const cs_local *l)
{
    const int has_result = c->coll != CS_COLL_REDUCE || ctx->rank == c->root;
    if (!l->inplace && cs_buffer_missing(c->sendbuf, c->scount, &l->send))
        return "erroneous: no send buffer";
    if (has_result && cs_buffer_missing(c->recvbuf, c->rcount, &l->recv))
        return "erroneous: no receive buffer";
    if (!l->inplace && has_result && c->sendbuf == c->recvbuf && (size_t)c->scount * (size_t)l->send.size > 0)
        return "erroneous: send and receive buffers are the same (use MPI_IN_PLACE)";
    return NULL;
}
