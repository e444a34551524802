/*
 * collshim-calibrate's size bands (model.bands): a ping-pong at many sizes against the model's
 * line, and the bands that price it where the line does not (model/bands.h).
 */
#include <math.h>
#include <stdio.h>

#include "calibrate/tool.h"
#include "model/bands.h"

/* Size bands (model.bands): ping-pongs at four sizes an octave, 8 bytes to 4 MiB (and 0),
 * against the line; a band where the line misses by more than this. */
#define CAL_BANDS_TOL 0.1
#define CAL_BANDS_SIZES (4 * 19 + 2)

/*
 * model.bands: the ping-pong between world ranks 0 and b (the pair the model's alpha and beta
 * are of, line) at CAL_BANDS_SIZES sizes, and the bands that price them (model/bands.h); none
 * where the line does. Their alpha factors made the model's: the ping-pong's a is alpha + o, the
 * band's latency less o over alpha. peer: scratch, p entries.
 */
int cal_fit_bands(int b, int *peer, const cal_opts *o, const cs_fit *line, cs_model *m)
{
    static cs_bands bands; /* the model keeps a pointer: one fit a run */
    double x[CAL_BANDS_SIZES], t[CAL_BANDS_SIZES];
    int n = 0;
    for (int r = 0; r < cal_world; r++)
        peer[r] = r == 0 ? b : r == b ? 0 : -1;
    x[n++] = 0.0;
    for (int k = 12; n < CAL_BANDS_SIZES; k++) /* 2^(k/4), from 8 bytes */
        x[n++] = floor(ldexp(1.0, k / 4) * pow(2.0, (k % 4) / 4.0));
    for (int i = 0; i < n; i++)
        t[i] = cs_cal_pingpong_pairs(MPI_COMM_WORLD, peer, 0, (size_t)x[i], o->reps, o->target / 4);
    if (line->a <= 0.0 || line->b <= 0.0 || m->alpha <= 0.0 ||
        cs_bands_fit(x, t, n, line->a, line->b, CAL_BANDS_TOL, &bands) != 0)
        bands.n = 0;
    for (int i = 0; i < bands.n; i++)
        bands.band[i].alpha_factor = fmax(1e-3, (bands.band[i].alpha_factor * line->a - m->overhead) / m->alpha);
    m->bands = bands.n > 0 ? &bands : NULL;
    if (cal_rank != 0)
        return 0;
    printf("# bands: %d (a ping-pong at %d sizes; one line misses by up to", bands.n, n);
    double worst = 0.0, banded = 0.0;
    for (int i = 0; i < n; i++) {
        worst = fmax(worst, fabs(t[i] - line->a - line->b * x[i]) / t[i]);
        banded = fmax(
            banded, fabs(t[i] - cs_bands_time(bands.n ? &bands : NULL, m->alpha, line->b, x[i]) - m->overhead) / t[i]);
    }
    printf(" %.0f%%, the bands by %.0f%%)\n", 100 * worst, 100 * banded);
    for (int i = 0; i < bands.n; i++)
        printf("#   from %zu bytes: alpha x %.3f, beta x %.3f\n", bands.band[i].from, bands.band[i].alpha_factor,
               bands.band[i].beta_factor);
    return 0;
}
