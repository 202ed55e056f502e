/*
 * Catalog queries: every filter and sort order on the seed catalog, with
 * the exact SKUs and order expected; every malformed parameter refused
 * with its name; canonical text independent of parameter order.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog_query.h"
#include "fixture_catalog.h"

static struct catalog *catalog;

static void setup(void)
{
    catalog = fixture_catalog_new();
}

static void teardown(void)
{
    catalog_free(catalog);
}

/* Runs "name=value&name=value" and returns the ids joined by spaces. */
static void run_query(const char *query_text, char *ids, size_t size)
{
    struct catalog_query query;
    catalog_query_init(&query);
    char copy[256];
    snprintf(copy, sizeof copy, "%s", query_text);
    char *save = NULL;
    for (char *pair = strtok_r(copy, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
        char *equals = strchr(pair, '=');
        ck_assert_ptr_nonnull(equals);
        *equals = '\0';
        struct gq_error err;
        ck_assert_msg(catalog_query_set(&query, pair, equals + 1, &err) == GQ_OK, "%s: %s", pair,
                      err.message);
    }
    size_t indices[8];
    size_t count = catalog_query_run(catalog, &query, indices);
    ids[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        strncat(ids, i ? " " : "", size - strlen(ids) - 1);
        strncat(ids, catalog->skus[indices[i]].id, size - strlen(ids) - 1);
    }
}

static const struct {
    const char *query;
    const char *ids;
} query_cases[] = {
    {"sort=id", "t4-16g-x1 v100-16g-x1 v100-16g-x2 v100-32g-x4 v100-32g-x8"},
    {"gpu=V100", "v100-16g-x1 v100-16g-x2 v100-32g-x4 v100-32g-x8"},
    {"gpu=t4", "t4-16g-x1"},
    {"gpu=A100", ""},
    {"min_memory_gb=32", "v100-32g-x4 v100-32g-x8"},
    {"min_memory_gb=16", "t4-16g-x1 v100-16g-x1 v100-16g-x2 v100-32g-x4 v100-32g-x8"},
    {"min_total_memory_gb=64", "v100-32g-x4 v100-32g-x8"},
    {"min_total_memory_gb=32", "v100-16g-x2 v100-32g-x4 v100-32g-x8"},
    {"gpu_count=1", "t4-16g-x1 v100-16g-x1"},
    {"gpu_count=8", "v100-32g-x8"},
    {"max_hourly=5", "v100-16g-x1 v100-16g-x2"},
    {"max_hourly=9.90", "t4-16g-x1 v100-16g-x1 v100-16g-x2 v100-32g-x4"},
    {"max_hourly=9.89", "v100-16g-x1 v100-16g-x2 v100-32g-x4"},
    {"sort=price", "v100-16g-x1 v100-16g-x2 v100-32g-x4 t4-16g-x1 v100-32g-x8"},
    {"sort=-price", "v100-32g-x8 t4-16g-x1 v100-32g-x4 v100-16g-x2 v100-16g-x1"},
    /* Equal memory keeps ids ascending in either direction. */
    {"sort=memory", "t4-16g-x1 v100-16g-x1 v100-16g-x2 v100-32g-x4 v100-32g-x8"},
    {"sort=-memory", "v100-32g-x8 v100-32g-x4 v100-16g-x2 t4-16g-x1 v100-16g-x1"},
    {"sort=tflops", "t4-16g-x1 v100-16g-x1 v100-16g-x2 v100-32g-x4 v100-32g-x8"},
    {"sort=-id", "v100-32g-x8 v100-32g-x4 v100-16g-x2 v100-16g-x1 t4-16g-x1"},
    {"gpu=v100&min_total_memory_gb=32&sort=-price", "v100-32g-x8 v100-32g-x4 v100-16g-x2"},
    /* Leading zeros are not digits of the value (the limit is 9 digits). */
    {"min_memory_gb=0000000032", "v100-32g-x4 v100-32g-x8"},
    {"gpu_count=000000000000000000008", "v100-32g-x8"},
    {"min_memory_gb=0", "t4-16g-x1 v100-16g-x1 v100-16g-x2 v100-32g-x4 v100-32g-x8"},
};

START_TEST(filters_and_sorts)
{
    char ids[256];
    run_query(query_cases[_i].query, ids, sizeof ids);
    ck_assert_str_eq(ids, query_cases[_i].ids);
}
END_TEST

static const struct {
    const char *name;
    const char *value;
} bad_cases[] = {
    {"min_memory_gb", "abc"}, {"min_memory_gb", "-1"},   {"min_memory_gb", ""},
    {"min_memory_gb", "1e3"}, {"min_memory_gb", "9999999999"}, {"min_total_memory_gb", "1.5"},
    {"min_memory_gb", "00009999999999"}, {"gpu_count", "0000"},
    {"gpu_count", "0"},       {"gpu_count", "2000"},     {"max_hourly", "cheap"},
    {"max_hourly", "-5"},     {"max_hourly", "1.234"},   {"sort", "colour"},
    {"sort", "--price"},      {"sort", ""},              {"gpu", ""},
    {"gpu", "V100;DROP"},     {"gpu", "a-very-long-gpu-model-name-over-32"},
    {"colour", "red"},        {"min_memory_gb", NULL},
};

START_TEST(refuses_bad_parameters_by_name)
{
    struct catalog_query query;
    catalog_query_init(&query);
    struct gq_error err;
    ck_assert_int_eq(catalog_query_set(&query, bad_cases[_i].name, bad_cases[_i].value, &err),
                     GQ_ERR_INVALID_PARAMETER);
    ck_assert_str_eq(err.field, bad_cases[_i].name);
    ck_assert(catalog_query_is_empty(&query));
}
END_TEST

START_TEST(refuses_a_repeated_parameter)
{
    struct catalog_query query;
    catalog_query_init(&query);
    struct gq_error err;
    ck_assert_int_eq(catalog_query_set(&query, "gpu", "V100", &err), GQ_OK);
    ck_assert_int_eq(catalog_query_set(&query, "gpu", "T4", &err), GQ_ERR_INVALID_PARAMETER);
    ck_assert_str_eq(err.field, "gpu");
    ck_assert_str_eq(err.message, "parameter 'gpu' is given twice");
}
END_TEST

START_TEST(canonical_text_ignores_order)
{
    struct catalog_query a, b;
    catalog_query_init(&a);
    catalog_query_init(&b);
    ck_assert_int_eq(catalog_query_set(&a, "gpu", "V100", NULL), GQ_OK);
    ck_assert_int_eq(catalog_query_set(&a, "sort", "-price", NULL), GQ_OK);
    ck_assert_int_eq(catalog_query_set(&b, "sort", "-price", NULL), GQ_OK);
    ck_assert_int_eq(catalog_query_set(&b, "gpu", "v100", NULL), GQ_OK);
    char text_a[CATALOG_QUERY_CANONICAL_SIZE], text_b[CATALOG_QUERY_CANONICAL_SIZE];
    catalog_query_canonical(&a, text_a);
    catalog_query_canonical(&b, text_b);
    ck_assert_str_eq(text_a, text_b);
    ck_assert_str_eq(text_a, "gpu=v100&min_memory_gb=0&min_total_memory_gb=0&gpu_count=0&"
                             "max_hourly=&sort=-price");
}
END_TEST

#define LOOP(tc, test, table) \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof((table)[0])))

static Suite *catalog_query_suite(void)
{
    Suite *suite = suite_create("catalog_query");
    TCase *tc = tcase_create("catalog_query");
    tcase_add_checked_fixture(tc, setup, teardown);
    LOOP(tc, filters_and_sorts, query_cases);
    LOOP(tc, refuses_bad_parameters_by_name, bad_cases);
    tcase_add_test(tc, refuses_a_repeated_parameter);
    tcase_add_test(tc, canonical_text_ignores_order);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(catalog_query_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
