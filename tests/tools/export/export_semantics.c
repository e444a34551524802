/*
 * export_semantics: the calls whose results a tuning file can break, run
 * natively (no collshim) and checked against a reference every rank computes
 * alone from every rank's inputs. Per count of COUNTS:
 *  - allreduce and reduce (roots 0 and p-1) of a non-commutative user
 *    operator on a struct type with gaps (affine maps composed, exact), into
 *    a separate buffer and in place;
 *  - alltoall of COUNT ints a block into a vector receive type (every other
 *    int; the gaps must stay untouched), and in place.
 * One line per call: "<call> <count> right" or "... WRONG at rank R, element
 * I"; exit 1 if any was wrong.
 * Usage: mpiexec -n P export_semantics COUNT [COUNT ...]
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x -> a x + b (mod 2^32); c rides along, summed (exact for small values) */
typedef struct affine {
    uint32_t a;
    double c;
    uint32_t b;
} affine;

/* (u o v)(x) = u(v(x)): associative, not commutative */
static affine affine_compose(affine u, affine v)
{
    return (affine){.a = u.a * v.a, .b = u.a * v.b + u.b, .c = u.c + v.c};
}

/* MPI's order: inout = in (the lower ranks) o inout */
static void affine_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const affine *x = in;
    affine *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = affine_compose(x[i], y[i]);
}

static affine affine_input(int rank, int i)
{
    return (affine){.a = 2u * (uint32_t)(rank * 7919 + i * 104729) + 1u,
                    .b = (uint32_t)(rank * 31 + i * 17 + 3),
                    .c = (double)((rank + i) % 5)};
}

static int affine_same(affine u, affine v)
{
    return u.a == v.a && u.b == v.b && u.c == v.c;
}

static int rank, size, failures;

/* The verdict of one call, agreed over the communicator. */
static void report(const char *call, int count, int bad_at)
{
    int bad[2] = {bad_at >= 0 ? rank : size, bad_at}, first[2];
    MPI_Allreduce(bad, first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    if (first[0] < size) {
        failures++;
        if (rank == 0)
            printf("%s %d WRONG at rank %d, element %d\n", call, count, first[0], first[1]);
    } else if (rank == 0)
        printf("%s %d right\n", call, count);
}

static void check_reductions(MPI_Datatype type, MPI_Op op, int count)
{
    affine *mine = malloc(sizeof(affine) * (size_t)count), *want = malloc(sizeof(affine) * (size_t)count),
           *got = malloc(sizeof(affine) * (size_t)count);
    for (int i = 0; i < count; i++) {
        mine[i] = affine_input(rank, i);
        want[i] = affine_input(0, i);
        for (int r = 1; r < size; r++)
            want[i] = affine_compose(want[i], affine_input(r, i));
    }
    for (int in_place = 0; in_place < 2; in_place++) {
        int bad = -1;
        if (in_place)
            memcpy(got, mine, sizeof(affine) * (size_t)count);
        else
            memset(got, 0, sizeof(affine) * (size_t)count);
        MPI_Allreduce(in_place ? MPI_IN_PLACE : mine, got, count, type, op, MPI_COMM_WORLD);
        for (int i = 0; i < count && bad < 0; i++)
            if (!affine_same(got[i], want[i]))
                bad = i;
        report(in_place ? "allreduce-inplace" : "allreduce", count, bad);
        for (int root = 0; root<size; root += size> 1 ? size - 1 : 1) {
            bad = -1;
            const int here = in_place && rank == root;
            if (here)
                memcpy(got, mine, sizeof(affine) * (size_t)count);
            else
                memset(got, 0, sizeof(affine) * (size_t)count);
            MPI_Reduce(here ? MPI_IN_PLACE : mine, got, count, type, op, root, MPI_COMM_WORLD);
            for (int i = 0; rank == root && i < count && bad < 0; i++)
                if (!affine_same(got[i], want[i]))
                    bad = i;
            char call[48];
            snprintf(call, sizeof call, "reduce%s-root%d", in_place ? "-inplace" : "", root);
            report(call, count, bad);
        }
    }
    free(mine);
    free(want);
    free(got);
}

static int sent(int from, int to, int i)
{
    return from * 1000003 + to * 1009 + i;
}

static void check_alltoall(int count)
{
    const size_t block = (size_t)count, n = block * (size_t)size;
    int *send = malloc(sizeof(int) * n + 1), *recv = malloc(sizeof(int) * 2 * n + 1);
    for (int to = 0; to < size; to++)
        for (int i = 0; i < count; i++)
            send[(size_t)to * block + (size_t)i] = sent(rank, to, i);
    /* COUNT ints, every other one: blocks 2 COUNT ints apart */
    MPI_Datatype strided, vector;
    MPI_Type_vector(count, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(strided, 0, (MPI_Aint)(2 * sizeof(int) * block), &vector);
    MPI_Type_commit(&vector);
    for (size_t i = 0; i < 2 * n; i++)
        recv[i] = -1;
    MPI_Alltoall(send, count, MPI_INT, recv, 1, vector, MPI_COMM_WORLD);
    int bad = -1;
    for (int from = 0; from < size && bad < 0; from++)
        for (int i = 0; i < count && bad < 0; i++) {
            const size_t at = 2 * ((size_t)from * block + (size_t)i);
            if (recv[at] != sent(from, rank, i) || recv[at + 1] != -1)
                bad = (int)at;
        }
    report("alltoall-vector", count, bad);
    memcpy(recv, send, sizeof(int) * n);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, MPI_INT, MPI_COMM_WORLD);
    bad = -1;
    for (int from = 0; from < size && bad < 0; from++)
        for (int i = 0; i < count && bad < 0; i++)
            if (recv[(size_t)from * block + (size_t)i] != sent(from, rank, i))
                bad = from * count + i;
    report("alltoall-inplace", count, bad);
    MPI_Type_free(&strided);
    MPI_Type_free(&vector);
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int lens[3] = {1, 1, 1};
    const MPI_Aint disps[3] = {offsetof(affine, a), offsetof(affine, c), offsetof(affine, b)};
    const MPI_Datatype types[3] = {MPI_UINT32_T, MPI_DOUBLE, MPI_UINT32_T};
    MPI_Datatype raw, type;
    MPI_Type_create_struct(3, lens, disps, types, &raw);
    MPI_Type_create_resized(raw, 0, (MPI_Aint)sizeof(affine), &type);
    MPI_Type_commit(&type);
    MPI_Op op;
    MPI_Op_create(affine_op, 0, &op);
    for (int a = 1; a < argc; a++) {
        const int count = atoi(argv[a]);
        check_reductions(type, op, count);
        check_alltoall(count);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&type);
    MPI_Type_free(&raw);
    MPI_Finalize();
    return failures ? 1 : 0;
}
