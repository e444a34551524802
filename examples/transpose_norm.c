/*
 * The demo: an unmodified MPI program with the three collectives collshim
 * intercepts.
 *
 * 1. A distributed transpose: an N x N matrix in row blocks, transposed with
 *    one MPI_Alltoall of b x b tiles and a local transpose of each tile.
 * 2. A residual-norm loop: Jacobi sweeps on a 1-D Poisson problem, the
 *    squared residual summed with MPI_Allreduce of one double per sweep.
 * 3. A histogram of the solution reduced to the last rank with MPI_Reduce.
 * Every result is checked; the exit code says whether all were right.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int transpose_check(int rank, int p, int b)
{
    const int n = b * p; /* the matrix is n x n; this rank has rows rank*b .. rank*b+b-1 */
    double *a = malloc(sizeof(double) * (size_t)b * n), *t = malloc(sizeof(double) * (size_t)b * n);
    double *tiles = malloc(sizeof(double) * (size_t)b * n);
    int bad = 0;

    for (int i = 0; i < b; i++)
        for (int j = 0; j < n; j++)
            a[(size_t)i * n + j] = (rank * b + i) * 1000.0 + j;
    /* Tile q (columns q*b..) goes to rank q, laid out contiguously. */
    for (int q = 0; q < p; q++)
        for (int i = 0; i < b; i++)
            for (int j = 0; j < b; j++)
                tiles[(size_t)q * b * b + (size_t)i * b + j] = a[(size_t)i * n + q * b + j];
    MPI_Alltoall(tiles, b * b, MPI_DOUBLE, t, b * b, MPI_DOUBLE, MPI_COMM_WORLD);
    /* Tile q came from rank q: transpose it into columns q*b.. */
    for (int q = 0; q < p; q++)
        for (int i = 0; i < b; i++)
            for (int j = 0; j < b; j++)
                a[(size_t)j * n + q * b + i] = t[(size_t)q * b * b + (size_t)i * b + j];
    for (int i = 0; i < b; i++)
        for (int j = 0; j < n; j++)
            bad += a[(size_t)i * n + j] != j * 1000.0 + (rank * b + i);
    free(a);
    free(t);
    free(tiles);
    return bad;
}

/* Jacobi on -u'' = 1, u(0) = u(1) = 0, local points with halo exchange. */
static double jacobi(int rank, int p, int local, int sweeps, double *u)
{
    const int n = local * p;
    const double h = 1.0 / (n + 1);
    double *v = calloc((size_t)local + 2, sizeof(double)), r2 = 0.0;
    for (int s = 0; s < sweeps; s++) {
        int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < p - 1 ? rank + 1 : MPI_PROC_NULL;
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[local + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[local], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        double local_r2 = 0.0;
        for (int i = 1; i <= local; i++) {
            double res = 1.0 - (2 * u[i] - u[i - 1] - u[i + 1]) / (h * h);
            local_r2 += res * res;
            v[i] = 0.5 * (u[i - 1] + u[i + 1] + h * h);
        }
        for (int i = 1; i <= local; i++)
            u[i] = v[i];
        MPI_Allreduce(&local_r2, &r2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    free(v);
    return sqrt(r2);
}

int main(int argc, char **argv)
{
    int rank, p, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    for (int b = 1; b <= 64; b *= 4)
        bad += transpose_check(rank, p, b);

    const int local = 64, sweeps = 50, bins = 1000;
    double *u = calloc(local + 2, sizeof(double));
    double first = jacobi(rank, p, local, 1, u);
    double last = jacobi(rank, p, local, sweeps, u);

    /* Histogram of u over [0, 1/8], summed on the last rank. */
    long *hist = calloc(bins, sizeof(long)), *total = calloc(bins, sizeof(long));
    for (int i = 1; i <= local; i++) {
        int k = (int)(u[i] * 8 * bins);
        hist[k < 0 ? 0 : k >= bins ? bins - 1 : k]++;
    }
    MPI_Reduce(hist, total, bins, MPI_LONG, MPI_SUM, p - 1, MPI_COMM_WORLD);
    if (rank == p - 1) {
        long count = 0;
        for (int k = 0; k < bins; k++)
            count += total[k];
        bad += count != (long)local * p;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p=%d transpose %s, residual %.3e -> %.3e after %d sweeps, histogram %s\n", p,
               bad ? "WRONG" : "ok", first, last, sweeps, bad ? "WRONG" : "ok");
    free(u);
    free(hist);
    free(total);
    MPI_Finalize();
    return bad != 0;
}
