/*
 * Size bands from ping-pong times (src/model/bands.c):
 * - times on one line, exact or within +-3%, give no bands, fitted line or
 *   exact; and so do lines with one point far off (first, middle or last)
 *   and lines with +-15% noise, where the line misses tol but bands would
 *   fit noise; +-5% noise against tol = 0.01 (the penalty from the noise);
 *   a rise within tol beside a point beyond it that no band sets right;
 * - SimGrid SMPI 3.32's default latency and bandwidth factors: bands within
 *   7% of every point (10% with +-3% noise), one from 65536 bytes (the first
 *   size past SMPI's 65472) with SMPI's latency and bandwidth there;
 * - a rendezvous switch (alpha tripled from a size on): one band from the
 *   first size past it, factors 3 and 1; against the line fitted over all
 *   points, a band from 0 and one there with 3 times the first's latency;
 *   repeated sizes; a rise under 5% below the step, priced by the model,
 *   and one over, a band; a rise under 5% past it, no band of its own;
 *   bands of small sizes (their slope from the band above) and of large
 *   ones (their alpha from below) under noise; more steps than
 *   CS_BANDS_MAX;
 * - cs_bands_time, and bad input.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/bands.h"
#include "model/fit.h"

Suite *make_bands_suite(void);

enum { BANDS_POINTS = 320 }; /* 16 sizes an octave */

/* Ping-pong points: 0 bytes, then 2^(k/per) from 8 B to 4 MiB, whole bytes. */
typedef struct points {
    int n;
    double x[BANDS_POINTS], t[BANDS_POINTS];
} points;

static void sizes_per_octave(points *p, int per)
{
    p->n = 0;
    p->x[p->n++] = 0.0;
    for (int k = 3 * per; k <= 22 * per; k++)
        p->x[p->n++] = round(pow(2.0, (double)k / per));
}

/* 4 an octave, as collshim-calibrate's ping-pong might measure. */
static void sizes(points *p)
{
    sizes_per_octave(p, 4);
}

/* A reproducible value in [-1, 1) for point i (splitmix64's mixer). */
static double noise(int i)
{
    uint64_t z = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

/* Every time times 1 + amp * noise. */
static void add_noise(points *p, double amp)
{
    for (int i = 0; i < p->n; i++)
        p->t[i] *= 1.0 + amp * noise(i);
}

/* The largest relative error of bands b against the points. */
static double bands_max_error(const points *p, const cs_bands *b, double alpha, double beta)
{
    double max = 0.0;
    for (int i = 0; i < p->n; i++)
        max = fmax(max, fabs(cs_bands_time(b, alpha, beta, p->x[i]) - p->t[i]) / p->t[i]);
    return max;
}

/* The line fitted over all points, as calibration fits alpha and beta. */
static cs_fit fitted(const points *p)
{
    cs_fit f;
    ck_assert_int_eq(cs_fit_line(p->x, p->t, p->n, &f), 0);
    ck_assert(f.a > 0.0 && f.b > 0.0);
    return f;
}

/* Bands that are well formed: at most CS_BANDS_MAX, from increasing, factors >= 0. */
static void check_shape(const cs_bands *b)
{
    ck_assert_int_ge(b->n, 0);
    ck_assert_int_le(b->n, CS_BANDS_MAX);
    for (int i = 0; i < b->n; i++) {
        ck_assert(b->band[i].alpha_factor >= 0.0 && isfinite(b->band[i].alpha_factor));
        ck_assert(b->band[i].beta_factor >= 0.0 && isfinite(b->band[i].beta_factor));
        if (i > 0)
            ck_assert(b->band[i].from > b->band[i - 1].from);
    }
}

/* The band starting at from, or NULL. */
static const cs_band *band_from(const cs_bands *b, size_t from)
{
    for (int i = 0; i < b->n; i++)
        if (b->band[i].from == from)
            return &b->band[i];
    return NULL;
}

static int near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

/* ------------------------------------------------------------- one line */

static const struct {
    double alpha, beta;
} lines[] = {
    {2e-6, 1e-10}, /* shared memory */
    {50e-6, 1e-9}, /* TCP */
    {1e-7, 1e-11}, /* a fast network */
    {1e-3, 1e-12}, /* latency everywhere */
    {1e-9, 1e-9},  /* bandwidth everywhere but 0 bytes */
};
enum { NLINES = sizeof(lines) / sizeof(lines[0]) };

static void line_points(points *p, int l)
{
    sizes(p);
    for (int i = 0; i < p->n; i++)
        p->t[i] = lines[l].alpha + lines[l].beta * p->x[i];
}

/* No bands on a line, against its own alpha and beta or the fitted ones, exact or with +-3% noise. */
START_TEST(test_linear)
{
    for (int noisy = 0; noisy < 2; noisy++) {
        points p;
        cs_bands b;
        line_points(&p, _i);
        add_noise(&p, noisy ? 0.03 : 0.0);
        const cs_fit f = fitted(&p);
        ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, f.a, f.b, 0.1, &b), 0);
        ck_assert_int_eq(b.n, 0);
        ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, lines[_i].alpha, lines[_i].beta, 0.1, &b), 0);
        ck_assert_int_eq(b.n, 0);
    }
}
END_TEST

/* One point 25% off the line (the first, one in the middle, the last): the
 * line misses tol there, but no band sets one point right; nor against the
 * line fitted to them. */
START_TEST(test_outlier)
{
    const int at[] = {0, 40, -1};
    for (int w = 0; w < 3; w++) {
        points p;
        cs_bands b;
        line_points(&p, _i);
        add_noise(&p, 0.03);
        const int i = at[w] < 0 ? p.n - 1 : at[w];
        p.t[i] *= 1.25;
        ck_assert(bands_max_error(&p, NULL, lines[_i].alpha, lines[_i].beta) > 0.2);
        ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, lines[_i].alpha, lines[_i].beta, 0.1, &b), 0);
        ck_assert_msg(b.n == 0, "line %d, point %d off: %d bands", _i, i, b.n);
        const cs_fit f = fitted(&p); /* pulled towards the point */
        ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, f.a, f.b, 0.1, &b), 0);
        ck_assert_msg(b.n == 0, "line %d, point %d off, fitted line: %d bands", _i, i, b.n);
    }
}
END_TEST

/* +-15% noise: the line misses tol = 0.1, and bands would only fit the noise. */
START_TEST(test_noisy)
{
    points p;
    cs_bands b;
    line_points(&p, _i);
    add_noise(&p, 0.15);
    const cs_fit f = fitted(&p);
    ck_assert(bands_max_error(&p, NULL, f.a, f.b) > 0.1);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, f.a, f.b, 0.1, &b), 0);
    ck_assert_msg(b.n == 0, "line %d: %d bands", _i, b.n);
}
END_TEST

/* +-5% noise against tol = 0.01: the line misses tol, and the penalty of a
 * band (from the noise, not tol) keeps bands from fitting the noise. */
START_TEST(test_noise_floor)
{
    points p;
    cs_bands b;
    line_points(&p, _i);
    add_noise(&p, 0.05);
    ck_assert(bands_max_error(&p, NULL, lines[_i].alpha, lines[_i].beta) > 0.01);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, lines[_i].alpha, lines[_i].beta, 0.01, &b), 0);
    ck_assert_msg(b.n == 0, "line %d: %d bands", _i, b.n);
}
END_TEST

/* Times 1 + rise from the 61st size (2^(71/4) = 220436 bytes) on, +-1%
 * noise, and one point (the 31st) 20% off. */
static void rise_points(points *p, double rise)
{
    line_points(p, 0);
    for (int i = 60; i < p->n; i++)
        p->t[i] *= 1.0 + rise;
    add_noise(p, 0.01);
    p->t[30] *= 1.2;
}

/* A rise within tol (7%) and one point beyond it: a band would fit the
 * rise but leave the point as far off, so none. A rise beyond tol (30%):
 * its band, the point still off. */
START_TEST(test_unfixed)
{
    points p;
    cs_bands b;
    const double alpha = lines[0].alpha, beta = lines[0].beta;
    rise_points(&p, 0.07);
    ck_assert(fabs(p.t[30] - alpha - beta * p.x[30]) / p.t[30] > 0.1);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, alpha, beta, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 0);
    rise_points(&p, 0.3);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, alpha, beta, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 1);
    ck_assert_uint_eq(b.band[0].from, 220436);
    ck_assert_msg(near(b.band[0].alpha_factor, 1.3, 0.05), "%g", b.band[0].alpha_factor);
    ck_assert_msg(near(b.band[0].beta_factor, 1.3, 0.02), "%g", b.band[0].beta_factor);
    ck_assert(fabs(cs_bands_time(&b, alpha, beta, p.x[30]) - p.t[30]) / p.t[30] > 0.1);
}
END_TEST

/* ------------------------------------------------------------------- SMPI */

/* SimGrid SMPI 3.32's default factors: a message of m bytes in the band
 * from smpi_from[j] takes L * smpi_lat[j] + m / (B * smpi_bw[j]). */
static const double smpi_from[] = {0, 257, 732, 1426, 3484, 5776, 9376, 15424, 65472};
static const double smpi_lat[] = {2.01467, 1.95341, 1.9503, 1.61075, 1.88101, 2.18796, 2.59299, 3.48845, 11.6436};
static const double smpi_bw[] = {0.812084, 0.338112, 0.341987, 0.608902, 0.77493, 1.08739, 0.58729, 0.697866, 0.940694};
enum { SMPI_BANDS = sizeof(smpi_from) / sizeof(smpi_from[0]) };
#define SMPI_L 2e-6
#define SMPI_B 1.25e10

static double smpi_time(double m)
{
    int j = 0;
    while (j + 1 < SMPI_BANDS && m >= smpi_from[j + 1])
        j++;
    return SMPI_L * smpi_lat[j] + m / (SMPI_B * smpi_bw[j]);
}

static void smpi_points(points *p)
{
    sizes(p);
    for (int i = 0; i < p->n; i++)
        p->t[i] = smpi_time(p->x[i]);
}

/* Against the fitted line: the bands price every point within 7%, and the
 * band of SMPI's largest messages starts at 65536 with its latency and
 * bandwidth (those points lie on one line, so within 0.1%). */
START_TEST(test_smpi)
{
    points p;
    cs_bands b;
    smpi_points(&p);
    const cs_fit f = fitted(&p);
    ck_assert(bands_max_error(&p, NULL, f.a, f.b) > 0.5); /* one line is far off */
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, f.a, f.b, 0.1, &b), 0);
    check_shape(&b);
    ck_assert_int_ge(b.n, 3);
    const double err = bands_max_error(&p, &b, f.a, f.b);
    ck_assert_msg(err <= 0.07, "bands within %.1f%% of the points", 100 * err);
    const cs_band *rdv = band_from(&b, 65536);
    ck_assert_ptr_nonnull(rdv);
    ck_assert_ptr_eq(rdv, &b.band[b.n - 1]);
    ck_assert(near(f.a * rdv->alpha_factor, SMPI_L * smpi_lat[SMPI_BANDS - 1], 1e-3));
    ck_assert(near(f.b * rdv->beta_factor, 1.0 / (SMPI_B * smpi_bw[SMPI_BANDS - 1]), 1e-3));
}
END_TEST

/* Against SMPI's own base line (its factors below 257 bytes), the last band's
 * factors are SMPI's ratios to the base: 11.6436 / 2.01467 for latency and
 * 0.812084 / 0.940694 for the time of a byte. */
START_TEST(test_smpi_base)
{
    points p;
    cs_bands b;
    smpi_points(&p);
    const double alpha = SMPI_L * smpi_lat[0], beta = 1.0 / (SMPI_B * smpi_bw[0]);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, alpha, beta, 0.1, &b), 0);
    check_shape(&b);
    ck_assert_msg(bands_max_error(&p, &b, alpha, beta) <= 0.07, "%.3f", bands_max_error(&p, &b, alpha, beta));
    /* The smallest sizes are on the base line: no band from 0. */
    ck_assert(b.n > 0 && b.band[0].from > 0);
    const cs_band *rdv = band_from(&b, 65536);
    ck_assert_ptr_nonnull(rdv);
    ck_assert(near(rdv->alpha_factor, smpi_lat[SMPI_BANDS - 1] / smpi_lat[0], 1e-3));
    ck_assert(near(rdv->beta_factor, smpi_bw[0] / smpi_bw[SMPI_BANDS - 1], 1e-3));
}
END_TEST

/* With +-3% noise: within 10% of every point, and the 65536 band within 5%. */
START_TEST(test_smpi_noisy)
{
    points p;
    cs_bands b;
    smpi_points(&p);
    add_noise(&p, 0.03);
    const cs_fit f = fitted(&p);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, f.a, f.b, 0.1, &b), 0);
    check_shape(&b);
    const double err = bands_max_error(&p, &b, f.a, f.b);
    ck_assert_msg(err <= 0.1, "bands within %.1f%% of the points", 100 * err);
    const cs_band *rdv = band_from(&b, 65536);
    ck_assert_ptr_nonnull(rdv);
    ck_assert(near(f.a * rdv->alpha_factor, SMPI_L * smpi_lat[SMPI_BANDS - 1], 0.05));
    ck_assert(near(f.b * rdv->beta_factor, 1.0 / (SMPI_B * smpi_bw[SMPI_BANDS - 1]), 0.05));
}
END_TEST

/* ------------------------------------------------------------------- steps */

#define STEP_ALPHA 2e-6
#define STEP_BETA 1e-10

/* alpha tripled from `at` bytes on (a rendezvous protocol's extra round trip). */
static void step_points(points *p, double at)
{
    sizes(p);
    for (int i = 0; i < p->n; i++)
        p->t[i] = (p->x[i] >= at ? 3.0 : 1.0) * STEP_ALPHA + STEP_BETA * p->x[i];
}

/* Against the line below the step: one band, from the first size at or
 * past it (65536 itself; 55109 = 2^15.75 for a step at 50000), factors 3, 1. */
START_TEST(test_step)
{
    const double at[] = {65536, 50000};
    const size_t first[] = {65536, 55109};
    for (int noisy = 0; noisy < 2; noisy++)
        for (int s = 0; s < 2; s++) {
            points p;
            cs_bands b;
            step_points(&p, at[s]);
            add_noise(&p, noisy ? 0.03 : 0.0);
            ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, STEP_ALPHA, STEP_BETA, 0.1, &b), 0);
            ck_assert_int_eq(b.n, 1);
            ck_assert_uint_eq(b.band[0].from, first[s]);
            ck_assert_msg(near(b.band[0].alpha_factor, 3.0, noisy ? 0.1 : 1e-6), "%g", b.band[0].alpha_factor);
            ck_assert_msg(near(b.band[0].beta_factor, 1.0, noisy ? 0.05 : 1e-6), "%g", b.band[0].beta_factor);
        }
}
END_TEST

/* Against the line fitted across the step, which is neither: a band from 0
 * for the sizes below and one from 65536 with three times its latency, both
 * with the true bandwidth, every point priced exactly. */
START_TEST(test_step_fitted)
{
    points p;
    cs_bands b;
    step_points(&p, 65536);
    const cs_fit f = fitted(&p);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, f.a, f.b, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 2);
    ck_assert_uint_eq(b.band[0].from, 0);
    ck_assert_uint_eq(b.band[1].from, 65536);
    ck_assert(near(f.a * b.band[0].alpha_factor, STEP_ALPHA, 1e-6));
    ck_assert(near(f.a * b.band[1].alpha_factor, 3 * STEP_ALPHA, 1e-6));
    for (int i = 0; i < 2; i++)
        ck_assert(near(f.b * b.band[i].beta_factor, STEP_BETA, 1e-6));
    ck_assert(bands_max_error(&p, &b, f.a, f.b) < 1e-9);
}
END_TEST

/* Every size measured twice, the second 2% slower: the band starts at a
 * size, not between its two measurements. */
START_TEST(test_repeated_sizes)
{
    points one, p;
    cs_bands b;
    step_points(&one, 65536);
    p.n = 0;
    for (int i = 0; i < one.n; i++)
        for (int r = 0; r < 2; r++) {
            p.x[p.n] = one.x[i];
            p.t[p.n++] = one.t[i] * (r ? 1.02 : 1.0);
        }
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, STEP_ALPHA, STEP_BETA, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 1);
    ck_assert_uint_eq(b.band[0].from, 65536);
    ck_assert(near(b.band[0].alpha_factor, 3.0, 0.05));
}
END_TEST

/* A rise of 1 + rise in both terms from 1024 bytes on, and alpha tripled
 * from 65536 on, 16 sizes an octave: under 5%, the model prices the sizes
 * below 65536, and the one band is the step's (with the rise); over 5%, the
 * rise is a band of its own. */
START_TEST(test_small_rise)
{
    const double rise[] = {0.03, 0.045, 0.06};
    for (int r = 0; r < 3; r++) {
        points p;
        cs_bands b;
        sizes_per_octave(&p, 16);
        for (int i = 0; i < p.n; i++)
            p.t[i] =
                ((p.x[i] >= 65536 ? 3.0 : 1.0) * STEP_ALPHA + STEP_BETA * p.x[i]) * (p.x[i] >= 1024 ? 1 + rise[r] : 1);
        ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, STEP_ALPHA, STEP_BETA, 0.1, &b), 0);
        ck_assert_int_eq(b.n, rise[r] < 0.05 ? 1 : 2);
        if (b.n == 2) {
            ck_assert_uint_eq(b.band[0].from, 1024);
            ck_assert(near(b.band[0].alpha_factor, 1 + rise[r], 1e-6));
            ck_assert(near(b.band[0].beta_factor, 1 + rise[r], 1e-6));
        }
        ck_assert_uint_eq(b.band[b.n - 1].from, 65536);
        ck_assert(near(b.band[b.n - 1].alpha_factor, 3 * (1 + rise[r]), 1e-6));
        ck_assert(near(b.band[b.n - 1].beta_factor, 1 + rise[r], 1e-6));
        ck_assert(bands_max_error(&p, &b, STEP_ALPHA, STEP_BETA) <= rise[r] + 1e-9);
    }
}
END_TEST

/* A rise of 4% in both terms from 1 MiB on, past a step at 65536, 16
 * sizes an octave: one band from 65536, within 5% of every point. */
START_TEST(test_rise_past_step)
{
    points p;
    cs_bands b;
    sizes_per_octave(&p, 16);
    for (int i = 0; i < p.n; i++)
        p.t[i] = ((p.x[i] >= 65536 ? 3.0 : 1.0) * STEP_ALPHA + STEP_BETA * p.x[i]) * (p.x[i] >= 1048576 ? 1.04 : 1);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, STEP_ALPHA, STEP_BETA, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 1);
    ck_assert_uint_eq(b.band[0].from, 65536);
    ck_assert(bands_max_error(&p, &b, STEP_ALPHA, STEP_BETA) <= 0.05);
}
END_TEST

/*
 * Terms a band cannot measure, with +-3% noise: alpha 1.5 times from 257
 * to 1023 bytes, where beta*m is under 4% of the time, takes the slope of
 * the sizes above (the noise alone would give anything from 0 up); beta 1.3
 * times from 1 MiB on, where alpha is under 2%, keeps alpha.
 */
START_TEST(test_unmeasured)
{
    points p;
    cs_bands b;
    sizes(&p);
    for (int i = 0; i < p.n; i++)
        p.t[i] = (p.x[i] >= 257 && p.x[i] < 1024 ? 1.5 : 1.0) * STEP_ALPHA + STEP_BETA * p.x[i];
    add_noise(&p, 0.03);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, STEP_ALPHA, STEP_BETA, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 2);
    ck_assert_uint_eq(b.band[0].from, 304); /* 2^8.25, the first size from 257 */
    ck_assert_uint_eq(b.band[1].from, 1024);
    ck_assert_msg(near(b.band[0].alpha_factor, 1.5, 0.05), "%g", b.band[0].alpha_factor);
    ck_assert_msg(near(b.band[0].beta_factor, b.band[1].beta_factor, 1e-12), "%g", b.band[0].beta_factor);
    for (int i = 0; i < 2; i++)
        ck_assert_msg(near(b.band[i].beta_factor, 1.0, 0.05), "%g", b.band[i].beta_factor);

    sizes(&p);
    for (int i = 0; i < p.n; i++)
        p.t[i] = STEP_ALPHA + (p.x[i] >= 1048576 ? 1.3 : 1.0) * STEP_BETA * p.x[i];
    add_noise(&p, 0.03);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, STEP_ALPHA, STEP_BETA, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 1);
    ck_assert_uint_eq(b.band[0].from, 1048576);
    ck_assert_msg(near(b.band[0].alpha_factor, 1.0, 0.05), "%g", b.band[0].alpha_factor);
    ck_assert_msg(near(b.band[0].beta_factor, 1.3, 0.05), "%g", b.band[0].beta_factor);
}
END_TEST

/* A latency that doubles and halves every 4 sizes: 19 bands would price
 * every point; there are at most CS_BANDS_MAX, and they price every point
 * within tol where the line misses 28 by up to 50%. */
START_TEST(test_too_many)
{
    points p;
    cs_bands b;
    sizes(&p);
    for (int i = 0; i < p.n; i++)
        p.t[i] = (i / 4 % 2 ? 2.0 : 1.0) * STEP_ALPHA + STEP_BETA * p.x[i];
    ck_assert(bands_max_error(&p, NULL, STEP_ALPHA, STEP_BETA) > 0.45);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, STEP_ALPHA, STEP_BETA, 0.1, &b), 0);
    check_shape(&b);
    ck_assert_int_ge(b.n, 10);
    ck_assert(bands_max_error(&p, &b, STEP_ALPHA, STEP_BETA) <= 0.1);
}
END_TEST

/* ---------------------------------------------------------- time and input */

START_TEST(test_time)
{
    const cs_bands b = {.n = 2,
                        .band = {{.from = 100, .alpha_factor = 2, .beta_factor = 0.5},
                                 {.from = 1000, .alpha_factor = 4, .beta_factor = 0.25}}};
    const double a = 1e-6, be = 1e-9;
    ck_assert(near(cs_bands_time(NULL, a, be, 500), a + be * 500, 1e-15));
    ck_assert(near(cs_bands_time(&b, a, be, 0), a, 1e-15));
    ck_assert(near(cs_bands_time(&b, a, be, 99), a + be * 99, 1e-15));
    ck_assert(near(cs_bands_time(&b, a, be, 100), 2 * a + 0.5 * be * 100, 1e-15));
    ck_assert(near(cs_bands_time(&b, a, be, 999), 2 * a + 0.5 * be * 999, 1e-15));
    ck_assert(near(cs_bands_time(&b, a, be, 1000), 4 * a + 0.25 * be * 1000, 1e-15));
    ck_assert(near(cs_bands_time(&b, a, be, 1e9), 4 * a + 0.25 * be * 1e9, 1e-15));
}
END_TEST

START_TEST(test_bad_input)
{
    points p;
    cs_bands b;
    step_points(&p, 65536);
    const double a = STEP_ALPHA, be = STEP_BETA;
    b.n = 7;
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, 0, a, be, 0.1, &b), -1);
    ck_assert_int_eq(b.n, 0);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, be, 0.1, NULL), -1);
    ck_assert_int_eq(cs_bands_fit(NULL, p.t, p.n, a, be, 0.1, &b), -1);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, 0, be, 0.1, &b), -1);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, -be, 0.1, &b), -1);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, be, 0, &b), -1);
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, NAN, be, 0.1, &b), -1);
    const double keep_t = p.t[10], keep_x = p.x[10];
    p.t[10] = 0;
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, be, 0.1, &b), -1);
    p.t[10] = -1e-6;
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, be, 0.1, &b), -1);
    p.t[10] = NAN;
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, be, 0.1, &b), -1);
    p.t[10] = keep_t;
    p.x[10] = p.x[9] - 1; /* descending */
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, be, 0.1, &b), -1);
    p.x[10] = keep_x;
    p.x[0] = -1;
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, be, 0.1, &b), -1);
    p.x[0] = 0;
    /* The same points, put right, have their band; too few points for a run, none. */
    ck_assert_int_eq(cs_bands_fit(p.x, p.t, p.n, a, be, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 1);
    const double x2[] = {0, 1e6}, t2[] = {1e-6, 1e-3};
    ck_assert_int_eq(cs_bands_fit(x2, t2, 2, a, be, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 0);
    ck_assert_int_eq(cs_bands_fit(x2, t2, 1, a, be, 0.1, &b), 0);
    ck_assert_int_eq(b.n, 0);
}
END_TEST

Suite *make_bands_suite(void)
{
    Suite *s = suite_create("bands");
    TCase *line = tcase_create("line");
    TCase *smpi = tcase_create("smpi");
    TCase *step = tcase_create("step");
    TCase *api = tcase_create("api");

    tcase_add_loop_test(line, test_linear, 0, NLINES);
    tcase_add_loop_test(line, test_outlier, 0, NLINES);
    tcase_add_loop_test(line, test_noisy, 0, NLINES);
    tcase_add_loop_test(line, test_noise_floor, 0, NLINES);
    tcase_add_test(line, test_unfixed);

    tcase_add_test(smpi, test_smpi);
    tcase_add_test(smpi, test_smpi_base);
    tcase_add_test(smpi, test_smpi_noisy);

    tcase_add_test(step, test_step);
    tcase_add_test(step, test_step_fitted);
    tcase_add_test(step, test_repeated_sizes);
    tcase_add_test(step, test_small_rise);
    tcase_add_test(step, test_rise_past_step);
    tcase_add_test(step, test_unmeasured);
    tcase_add_test(step, test_too_many);

    tcase_add_test(api, test_time);
    tcase_add_test(api, test_bad_input);

    suite_add_tcase(s, line);
    suite_add_tcase(s, smpi);
    suite_add_tcase(s, step);
    suite_add_tcase(s, api);
    return s;
}
