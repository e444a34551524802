/* The unit test runner: one Check suite per module. */
#include <check.h>
#include <malloc.h>
#include <stdlib.h>

Suite *make_sim_suite(void);
Suite *make_sched_suite(void);
Suite *make_coll_suite(void);
Suite *make_config_suite(void);
Suite *make_select_suite(void);
Suite *make_log_suite(void);
Suite *make_hull_suite(void);
Suite *make_factor_suite(void);
Suite *make_protocols_suite(void);
Suite *make_reduction_suite(void);
Suite *make_window_suite(void);
Suite *make_calibrate_suite(void);
Suite *make_pricer_suite(void);
Suite *make_nodes_suite(void);
Suite *make_library_suite(void);
Suite *make_compose_suite(void);
Suite *make_bands_suite(void);

int main(void)
{
    /* The simulator allocates and frees tables of megabytes for every
     * schedule it runs. Above glibc's mmap threshold each would be mapped,
     * faulted in page by page and unmapped again: kept in the heap, the
     * suites run about three times faster (make check under 30 minutes). */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    SRunner *sr = srunner_create(make_sim_suite());
    srunner_add_suite(sr, make_sched_suite());
    srunner_add_suite(sr, make_coll_suite());
    srunner_add_suite(sr, make_config_suite());
    srunner_add_suite(sr, make_select_suite());
    srunner_add_suite(sr, make_log_suite());
    srunner_add_suite(sr, make_hull_suite());
    srunner_add_suite(sr, make_factor_suite());
    srunner_add_suite(sr, make_protocols_suite());
    srunner_add_suite(sr, make_reduction_suite());
    srunner_add_suite(sr, make_window_suite());
    srunner_add_suite(sr, make_calibrate_suite());
    srunner_add_suite(sr, make_pricer_suite());
    srunner_add_suite(sr, make_nodes_suite());
    srunner_add_suite(sr, make_library_suite());
    srunner_add_suite(sr, make_compose_suite());
    srunner_add_suite(sr, make_bands_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
