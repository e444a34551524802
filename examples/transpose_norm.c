/*
 * The demo: an unmodified MPI program with the three collectives collshim
 * intercepts.
 *
 * 1. A distributed transpose: an N x N matrix in row blocks, transposed with
 *    one MPI_Alltoall of b x b tiles and a local transpose of each tile, at
 *    four tile sizes.
 * 2. A residual-norm loop: Jacobi sweeps on a 1-D Poisson problem, the
 *    squared residual summed with MPI_Allreduce of one double per sweep.
 * 3. A histogram of the solution reduced to the last rank with MPI_Reduce.
 * Every result is checked; the exit code says whether all were right.
 *
 * Timing. A program's first call of a collective and size pays for what the
 * library (and the shim) set up once, often many times a later call; so each
 * collective and size is first called WARM times untimed, then REPS times
 * timed (the Jacobi loop: SWEEPS sweeps). Each timed call is made twice, in
 * turn first: through MPI_ (collshim's, where it is preloaded) and through
 * PMPI_, the MPI library's own entry, which no PMPI shim intercepts: the
 * library's time beside the shim's, call by call under the same load. Both
 * results are used or checked: the alltoall's and reduce's must be the same
 * bit for bit (the allreduce's sum of doubles may round otherwise). Each call
 * starts after an MPI_Barrier and is timed with MPI_Wtime on every rank; rank
 * 0 prints, per collective and size, the median over every rank's timed calls
 * each way (gathered with MPI_Gather, which collshim does not intercept):
 *
 *   p=4 transpose ok, residual 1.595e+01 -> 1.552e+01 after 52 sweeps, histogram ok
 *   time alltoall 8 bytes: 1.234e-05 s through MPI_, 1.201e-05 s through PMPI_ (medians of 20 calls x 4 ranks)
 *   ...
 *
 * Without the shim both ways are the library's: their ratio says how far the
 * machine's noise goes. Under COLLSHIM_LOG the log holds the MPI_ calls only,
 * warm-up calls included; collshim-report leaves each rank's first call of a
 * collective, size bin and algorithm out of its medians.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARM = 2, REPS = 20, SWEEPS = 50 };

/* The times of one collective and size's timed calls on this rank, through MPI_ and PMPI_. */
typedef struct series {
    const char *coll;
    long bytes;
    int n;
    double mpi[SWEEPS > REPS ? SWEEPS : REPS], lib[SWEEPS > REPS ? SWEEPS : REPS];
} series;

/* Start a timed call: every rank together (MPI_Barrier is not intercepted). */
static double tick(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
}

/* Of a timed pair's two calls (k = 0, 1), is call k the library's? In turn first. */
static int library_call(const series *s, int k)
{
    return (k + s->n) % 2;
}

static void tock(series *s, int lib, double t0)
{
    (lib ? s->lib : s->mpi)[s->n] = MPI_Wtime() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* At rank 0 (all: p x n doubles), the median of t[0..n) over every rank. Collective. */
static double median_of(int rank, int p, const double *t, int n, double *all)
{
    const size_t m = (size_t)p * n;
    MPI_Gather(t, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return 0;
    qsort(all, m, sizeof(double), cmp_double);
    return m % 2 ? all[m / 2] : 0.5 * (all[m / 2 - 1] + all[m / 2]);
}

/* At rank 0: the medians of s's timed calls each way. Collective. */
static void report(int rank, int p, const series *s)
{
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)p * s->n) : NULL;
    const double mpi = median_of(rank, p, s->mpi, s->n, all), lib = median_of(rank, p, s->lib, s->n, all);
    if (rank == 0)
        printf("time %s %ld bytes: %.3e s through MPI_, %.3e s through PMPI_ (medians of %d calls x %d ranks)\n",
               s->coll, s->bytes, mpi, lib, s->n, p);
    free(all);
}

/* One transpose of b x b tiles, timed into s (NULL: untimed; else the library's alltoall too, which
 * must give the same tiles); the wrong elements. */
static int transpose_check(int rank, int p, int b, series *s)
{
    const int n = b * p; /* the matrix is n x n; this rank has rows rank*b .. rank*b+b-1 */
    double *a = malloc(sizeof(double) * (size_t)b * n), *t = malloc(sizeof(double) * (size_t)b * n);
    double *tiles = malloc(sizeof(double) * (size_t)b * n), *t2 = malloc(sizeof(double) * (size_t)b * n);
    int bad = 0;

    for (int i = 0; i < b; i++)
        for (int j = 0; j < n; j++)
            a[(size_t)i * n + j] = (rank * b + i) * 1000.0 + j;
    /* Tile q (columns q*b..) goes to rank q, laid out contiguously. */
    for (int q = 0; q < p; q++)
        for (int i = 0; i < b; i++)
            for (int j = 0; j < b; j++)
                tiles[(size_t)q * b * b + (size_t)i * b + j] = a[(size_t)i * n + q * b + j];
    if (!s)
        MPI_Alltoall(tiles, b * b, MPI_DOUBLE, t, b * b, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int k = 0; s && k < 2; k++) {
        const int lib = library_call(s, k);
        const double t0 = tick();
        if (lib)
            PMPI_Alltoall(tiles, b * b, MPI_DOUBLE, t2, b * b, MPI_DOUBLE, MPI_COMM_WORLD);
        else
            MPI_Alltoall(tiles, b * b, MPI_DOUBLE, t, b * b, MPI_DOUBLE, MPI_COMM_WORLD);
        tock(s, lib, t0);
    }
    if (s) {
        bad += memcmp(t, t2, sizeof(double) * (size_t)b * n) != 0;
        s->n++;
    }
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
    free(t2);
    free(tiles);
    return bad;
}

/* Jacobi on -u'' = 1, u(0) = u(1) = 0, local points with halo exchange; each sweep's allreduce
 * timed into s (NULL: untimed; else the library's too, whose sum is not used). */
static double jacobi(int rank, int p, int local, int sweeps, double *u, series *s)
{
    const int n = local * p;
    const double h = 1.0 / (n + 1);
    double *v = calloc((size_t)local + 2, sizeof(double)), r2 = 0.0;
    for (int k = 0; k < sweeps; k++) {
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
        if (!s)
            MPI_Allreduce(&local_r2, &r2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int k = 0; s && k < 2; k++) {
            const int lib = library_call(s, k);
            double r2_lib;
            const double t0 = tick();
            if (lib)
                PMPI_Allreduce(&local_r2, &r2_lib, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else
                MPI_Allreduce(&local_r2, &r2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            tock(s, lib, t0);
        }
        if (s)
            s->n++;
    }
    free(v);
    return sqrt(r2);
}

/* The histogram reduced to the last rank, timed into s (NULL: untimed; else the library's reduce
 * too, which must give the same counts); 1 if a count is wrong there. */
static int histogram(int rank, int p, const long *hist, long *total, long *total2, int bins, long expected, series *s)
{
    long count = 0;
    if (!s)
        MPI_Reduce(hist, total, bins, MPI_LONG, MPI_SUM, p - 1, MPI_COMM_WORLD);
    for (int k = 0; s && k < 2; k++) {
        const int lib = library_call(s, k);
        const double t0 = tick();
        if (lib)
            PMPI_Reduce(hist, total2, bins, MPI_LONG, MPI_SUM, p - 1, MPI_COMM_WORLD);
        else
            MPI_Reduce(hist, total, bins, MPI_LONG, MPI_SUM, p - 1, MPI_COMM_WORLD);
        tock(s, lib, t0);
    }
    if (s)
        s->n++;
    if (rank != p - 1)
        return 0;
    for (int k = 0; k < bins; k++)
        count += total[k];
    return count != expected || (s && memcmp(total, total2, sizeof(long) * bins) != 0);
}

int main(int argc, char **argv)
{
    int rank, p, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    series tr[4];
    for (int i = 0, b = 1; i < 4; i++, b *= 4) {
        tr[i] = (series){.coll = "alltoall", .bytes = (long)sizeof(double) * b * b};
        for (int k = 0; k < WARM; k++)
            bad += transpose_check(rank, p, b, NULL);
        for (int k = 0; k < REPS; k++)
            bad += transpose_check(rank, p, b, &tr[i]);
    }

    const int local = 64, bins = 1000;
    series ar = {.coll = "allreduce", .bytes = sizeof(double)};
    double *u = calloc(local + 2, sizeof(double));
    double first = jacobi(rank, p, local, WARM, u, NULL);
    double last = jacobi(rank, p, local, SWEEPS, u, &ar);

    /* Histogram of u over [0, 1/8], summed on the last rank. */
    series re = {.coll = "reduce", .bytes = (long)sizeof(long) * bins};
    long *hist = calloc(bins, sizeof(long)), *total = calloc(bins, sizeof(long)), *total2 = calloc(bins, sizeof(long));
    for (int i = 1; i <= local; i++) {
        int k = (int)(u[i] * 8 * bins);
        hist[k < 0 ? 0 : k >= bins ? bins - 1 : k]++;
    }
    for (int k = 0; k < WARM + REPS; k++)
        bad += histogram(rank, p, hist, total, total2, bins, (long)local * p, k < WARM ? NULL : &re);

    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p=%d transpose %s, residual %.3e -> %.3e after %d sweeps, histogram %s\n", p, bad ? "WRONG" : "ok",
               first, last, WARM + SWEEPS, bad ? "WRONG" : "ok");
    for (int i = 0; i < 4; i++)
        report(rank, p, &tr[i]);
    report(rank, p, &ar);
    report(rank, p, &re);
    free(u);
    free(hist);
    free(total);
    free(total2);
    MPI_Finalize();
    return bad != 0;
}
