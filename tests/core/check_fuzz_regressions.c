/*
 * Fuzz regressions of the core's text parsers. Every input kept under
 * tests/fuzz/regressions/{money,catalog_query}/ is replayed through the
 * code its libFuzzer harness runs (tests/fuzz/replay_core.h, whose checks
 * abort on a broken invariant) and must give the outcome listed below for
 * it; every seed of tests/fuzz/corpus/{money,catalog_query}/ is replayed
 * too, so the harnesses' invariants hold in every `make test` and
 * `make asan`, without clang.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/replay_core.h"
#include "fuzz/replay_files.h"

static struct catalog *catalog;

static void setup(void)
{
    catalog = fuzz_catalog_new();
}

static void teardown(void)
{
    catalog_free(catalog);
}

/* ---- money -------------------------------------------------------------- */

/* What each kept money input must do: be refused, or parse to `value`. */
static const struct {
    const char *file;
    bool parses;
    gq_money value;
} money_expected[] = {
    {NULL, false, 0},
};

static int find_money(const char *file)
{
    for (int i = 0; money_expected[i].file != NULL; i++)
        if (strcmp(money_expected[i].file, file) == 0)
            return i;
    return -1;
}

START_TEST(money_regressions_hold)
{
    size_t count;
    struct fuzz_file *files = fuzz_files_read("regressions", "money", &count);
    for (size_t i = 0; i < count; i++) {
        int e = find_money(files[i].name);
        ck_assert_msg(e >= 0, "money/%s has no expected outcome in %s", files[i].name, __FILE__);
        gq_money value = -1;
        bool parses = fuzz_replay_money(files[i].data, files[i].size, &value);
        ck_assert_msg(parses == money_expected[e].parses, "money/%s", files[i].name);
        if (parses)
            ck_assert_int_eq(value, money_expected[e].value);
    }
    for (int e = 0; money_expected[e].file != NULL; e++) {
        bool found = false;
        for (size_t i = 0; i < count && !found; i++)
            found = strcmp(files[i].name, money_expected[e].file) == 0;
        ck_assert_msg(found, "tests/fuzz/regressions/money/%s is missing", money_expected[e].file);
    }
    fuzz_files_free(files, count);
}
END_TEST

START_TEST(money_corpus_replays)
{
    size_t count;
    struct fuzz_file *files = fuzz_files_read("corpus", "money", &count);
    ck_assert_uint_gt(count, 0);
    for (size_t i = 0; i < count; i++) {
        gq_money value;
        fuzz_replay_money(files[i].data, files[i].size, &value);
    }
    fuzz_files_free(files, count);
}
END_TEST

/* ---- catalog query ------------------------------------------------------ */

/* What each kept query string must do: its first refusal (GQ_OK: none),
 * the parameter named, and how many SKUs of the fuzz catalog it selects. */
static const struct {
    const char *file;
    enum gq_code code;
    const char *field;
    size_t n_selected;
} query_expected[] = {
    {NULL, GQ_OK, NULL, 0},
};

static int find_query(const char *file)
{
    for (int i = 0; query_expected[i].file != NULL; i++)
        if (strcmp(query_expected[i].file, file) == 0)
            return i;
    return -1;
}

START_TEST(catalog_query_regressions_hold)
{
    size_t count;
    struct fuzz_file *files = fuzz_files_read("regressions", "catalog_query", &count);
    for (size_t i = 0; i < count; i++) {
        int e = find_query(files[i].name);
        ck_assert_msg(e >= 0, "catalog_query/%s has no expected outcome in %s", files[i].name,
                      __FILE__);
        struct fuzz_query_outcome outcome;
        fuzz_replay_catalog_query(catalog, files[i].data, files[i].size, &outcome);
        ck_assert_msg(outcome.code == query_expected[e].code, "catalog_query/%s: %s", files[i].name,
                      gq_code_name(outcome.code));
        ck_assert_str_eq(outcome.field, query_expected[e].field);
        ck_assert_uint_eq(outcome.n_selected, query_expected[e].n_selected);
    }
    for (int e = 0; query_expected[e].file != NULL; e++) {
        bool found = false;
        for (size_t i = 0; i < count && !found; i++)
            found = strcmp(files[i].name, query_expected[e].file) == 0;
        ck_assert_msg(found, "tests/fuzz/regressions/catalog_query/%s is missing",
                      query_expected[e].file);
    }
    fuzz_files_free(files, count);
}
END_TEST

START_TEST(catalog_query_corpus_replays)
{
    size_t count;
    struct fuzz_file *files = fuzz_files_read("corpus", "catalog_query", &count);
    ck_assert_uint_gt(count, 0);
    for (size_t i = 0; i < count; i++) {
        struct fuzz_query_outcome outcome;
        fuzz_replay_catalog_query(catalog, files[i].data, files[i].size, &outcome);
    }
    fuzz_files_free(files, count);
}
END_TEST

static Suite *fuzz_regressions_suite(void)
{
    Suite *suite = suite_create("fuzz_regressions");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, money_regressions_hold);
    tcase_add_test(tc, money_corpus_replays);
    tcase_add_test(tc, catalog_query_regressions_hold);
    tcase_add_test(tc, catalog_query_corpus_replays);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(fuzz_regressions_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
