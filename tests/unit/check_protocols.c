/* Table 1 of Rabenseifner and Träff 2004, from the formulas of §3.5: every
 * entry (in multiples of alpha, as printed: three significant digits) and
 * the fastest protocol of each line. */
#include <check.h>
#include <math.h>

#include "model/protocols.h"

/* The sizes of Table 1: beta m and gamma m in multiples of alpha. */
static const struct {
    char name;
    double beta_m, gamma_m;
} sizes[] = {{'S', 0.1, 0.01}, {'M', 1.0, 0.1}, {'L', 10.0, 1.0}, {'X', 100.0, 10.0}};

/* p, size, ring-lat, elim-lat, ring-bw, elim-bw, the protocol marked fastest
 * (-1: a tie, both marked). */
static const struct {
    int p;
    char size;
    double t[CS_PROTO_LAST];
    int fastest;
} table1[] = {
    {3, 'S', {2.22, 3.32, 4.14, 4.21}, 0},   {3, 'M', {4.20, 6.20, 5.40, 6.10}, 0},
    {3, 'L', {24.0, 35.0, 18.0, 25.0}, 2},   {5, 'S', {3.44, 4.43, 7.17, 6.26}, 0},
    {5, 'M', {7.40, 8.30, 8.68, 8.63}, 0},   {5, 'L', {47.0, 47.0, 23.8, 32.3}, 2},
    {7, 'S', {3.66, 4.43, 9.18, 6.26}, 0},   {7, 'M', {9.60, 8.30, 10.8, 8.63}, 1},
    {7, 'L', {69.0, 47.0, 27.0, 32.3}, 2},   {13, 'S', {5.32, 5.54, 16.2, 8.29}, 0},
    {13, 'M', {17.2, 10.4, 18.0, 10.9}, 1},  {13, 'L', {136., 59.0, 35.4, 36.9}, 2},
    {15, 'S', {5.54, 5.54, 18.2, 8.29}, -1}, {15, 'M', {19.4, 10.4, 20.0, 10.9}, 1},
    {15, 'L', {158., 59.0, 37.6, 36.9}, 3},  {23, 'S', {7.42, 6.65, 27.2, 10.3}, 1},
    {23, 'M', {29.2, 12.5, 29.0, 13.0}, 1},  {23, 'L', {247., 71.0, 47.1, 40.2}, 3},
    {23, 'X', {2425, 656., 228., 312.}, 2},  {63, 'S', {12.8, 7.66, 68.2, 12.3}, 1},
    {63, 'M', {74.2, 13.6, 70.1, 15.1}, 1},  {63, 'L', {688., 73.0, 88.7, 42.9}, 3},
    {63, 'X', {6826, 667., 275., 321.}, 2},
};

/* Round as the table prints: three significant digits, whole numbers from
 * 1000 up. */
static double sig3(double x)
{
    if (x == 0)
        return 0;
    if (fabs(x) >= 1000)
        return round(x);
    const double scale = pow(10.0, 2 - floor(log10(fabs(x))));
    return round(x * scale) / scale;
}

/*
 * An erratum of the paper: for p = 63 its elim-lat column prices the beta
 * term as beta m ceil(log2 p) (0.6, 6.0, 60. for S, M, L), while §3.5's
 * formula, which its alpha term and every other p follow, gives beta m
 * (ceil(log2 p) + 1). The formula is what collshim uses; the test checks that
 * the two differ by exactly that one beta m.
 */
static double erratum(int p, int proto, double beta_m)
{
    return p == 63 && proto == CS_PROTO_ELIM_LAT ? beta_m : 0.0;
}

START_TEST(test_table1_line)
{
    const int p = table1[_i].p;
    double beta_m = 0, gamma_m = 0, times[CS_PROTO_LAST];
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        if (sizes[s].name == table1[_i].size) {
            beta_m = sizes[s].beta_m;
            gamma_m = sizes[s].gamma_m;
        }
    int fastest = 0;
    for (int k = 0; k < CS_PROTO_LAST; k++) {
        double terms[3];
        cs_protocol_terms((cs_protocol)k, p, 1.0, beta_m, gamma_m, terms);
        /* The paper adds its terms as printed. */
        terms[1] -= erratum(p, k, beta_m);
        times[k] = sig3(sig3(terms[0]) + sig3(terms[1]) + sig3(terms[2]));
        /* Within one unit of the third digit printed: the paper's own sums
         * slip by that much once (p = 13, M, ring-bw: 16 + 1.85 + 0.09 is
         * printed 18.0). */
        const double unit = table1[_i].t[k] >= 1000 ? 1.0 : pow(10.0, floor(log10(table1[_i].t[k])) - 2);
        ck_assert_msg(fabs(times[k] - table1[_i].t[k]) <= unit * 1.000001, "p=%d %c %s: %g, the paper %g", p,
                      table1[_i].size, cs_protocol_name((cs_protocol)k), times[k], table1[_i].t[k]);
        if (cs_protocol_time((cs_protocol)k, p, 1.0, beta_m, gamma_m) <
            cs_protocol_time((cs_protocol)fastest, p, 1.0, beta_m, gamma_m))
            fastest = k;
    }
    if (table1[_i].fastest >= 0)
        ck_assert_int_eq(fastest, table1[_i].fastest);
    else
        ck_assert_double_eq(times[0], times[1]);
}
END_TEST

Suite *make_protocols_suite(void)
{
    Suite *s = suite_create("protocols");
    TCase *tc = tcase_create("table1");
    tcase_add_loop_test(tc, test_table1_line, 0, sizeof(table1) / sizeof(table1[0]));
    suite_add_tcase(s, tc);
    return s;
}
