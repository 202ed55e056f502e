/*
 * The open-files budget: the descriptors counted for a configuration, and
 * connection_limit lowered to what a limit leaves.
 */
#include <check.h>
#include <stdlib.h>

#include "util/fd_limit.h"

static struct gq_config defaults(void)
{
    struct gq_config config = {
        .threads = 2, .connection_limit = 1024, .per_ip_connection_limit = 512, .webhooks = true};
    return config;
}

START_TEST(test_reserved_grows_with_threads_metrics_and_webhooks)
{
    struct gq_config config = defaults();
    ck_assert_uint_eq(fd_limit_reserved(&config, 16), 116);
    ck_assert_uint_eq(fd_limit_reserved(&config, 0), 65);
    config.threads = 8; /* 6 more threads: 2 wake-up and 3 database descriptors each */
    ck_assert_uint_eq(fd_limit_reserved(&config, 16), 146);
    config.threads = 2;
    config.metrics_listen = "127.0.0.1:9464"; /* a listener, its wake-up, 16 connections */
    ck_assert_uint_eq(fd_limit_reserved(&config, 16), 135);
}
END_TEST

START_TEST(test_fit_leaves_a_limit_that_fits_alone)
{
    struct gq_config config = defaults();
    ck_assert(!fd_limit_fit(&config, 1140, 116));
    ck_assert_uint_eq(config.connection_limit, 1024);
    ck_assert(!fd_limit_fit(&config, 0, 116)); /* unknown */
    ck_assert_uint_eq(config.connection_limit, 1024);
}
END_TEST

START_TEST(test_fit_lowers_both_limits)
{
    struct gq_config config = defaults();
    ck_assert(fd_limit_fit(&config, 1139, 116));
    ck_assert_uint_eq(config.connection_limit, 1023);
    ck_assert_uint_eq(config.per_ip_connection_limit, 512);
    ck_assert(fd_limit_fit(&config, 256, 116));
    ck_assert_uint_eq(config.connection_limit, 140);
    ck_assert_uint_eq(config.per_ip_connection_limit, 140);
}
END_TEST

/* An unset per-address limit is a share of connection_limit, and stays
 * that share of the lowered one. */
START_TEST(test_fit_keeps_the_per_ip_share)
{
    struct gq_config config = defaults();
    config.per_ip_connection_limit = 1024 / CONFIG_PER_IP_SHARE;
    config.per_ip_connection_limit_is_share = true;
    ck_assert(fd_limit_fit(&config, 1024, 116));
    ck_assert_uint_eq(config.connection_limit, 908);
    ck_assert_uint_eq(config.per_ip_connection_limit, 227);
    ck_assert(fd_limit_fit(&config, 118, 116));
    ck_assert_uint_eq(config.connection_limit, 2);
    ck_assert_uint_eq(config.per_ip_connection_limit, 1);
}
END_TEST

START_TEST(test_fit_keeps_no_per_ip_limit_and_one_connection)
{
    struct gq_config config = defaults();
    config.per_ip_connection_limit = 0; /* none */
    ck_assert(fd_limit_fit(&config, 100, 116));
    ck_assert_uint_eq(config.connection_limit, 1);
    ck_assert_uint_eq(config.per_ip_connection_limit, 0);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("fd_limit");
    TCase *tcase = tcase_create("budget");
    tcase_add_test(tcase, test_reserved_grows_with_threads_metrics_and_webhooks);
    tcase_add_test(tcase, test_fit_leaves_a_limit_that_fits_alone);
    tcase_add_test(tcase, test_fit_lowers_both_limits);
    tcase_add_test(tcase, test_fit_keeps_the_per_ip_share);
    tcase_add_test(tcase, test_fit_keeps_no_per_ip_limit_and_one_connection);
    suite_add_tcase(suite, tcase);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
