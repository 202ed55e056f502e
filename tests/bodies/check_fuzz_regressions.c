/*
 * Fuzz regressions of the request bodies. Every input kept under
 * tests/fuzz/regressions/{quote_body,recommend_body}/ is replayed through
 * the code its libFuzzer harness runs (tests/fuzz/replay_bodies.h: JSON
 * load, body parse, quote_compute or recommend_run, render, the text
 * loaded back, every invariant checked with an abort) and must reach the
 * outcome listed below for it; every seed of tests/fuzz/corpus/ for the
 * two targets is replayed too, so the harnesses' invariants hold in every
 * `make test` and `make asan`, without clang.
 *
 * Links the codecs of src/codec/ (body_load.c, fields.c, render.c, quote_body.c,
 * recommend_body.c), which call no libmicrohttpd.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/replay_bodies.h"
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

/* What a kept input must do now: how far it gets, and for a refusal the
 * code and the JSON path named. */
struct body_expectation {
    const char *file;
    enum fuzz_body_stage stage;
    enum gq_code code;
    const char *field;
};

static const struct body_expectation quote_expected[] = {
    {NULL, FUZZ_BODY_RENDERED, GQ_OK, NULL},
};

static const struct body_expectation recommend_expected[] = {
    {NULL, FUZZ_BODY_RENDERED, GQ_OK, NULL},
};

static const struct body_expectation *find_expected(const struct body_expectation *table,
                                                    const char *file)
{
    for (; table->file != NULL; table++)
        if (strcmp(table->file, file) == 0)
            return table;
    return NULL;
}

static void assert_outcome(const char *target, const struct fuzz_file *file,
                           const struct body_expectation *expected,
                           const struct fuzz_body_outcome *outcome)
{
    ck_assert_msg(expected != NULL, "%s/%s has no expected outcome in %s", target, file->name,
                  __FILE__);
    ck_assert_msg(outcome->stage == expected->stage, "%s/%s: stage %d, expected %d", target,
                  file->name, (int)outcome->stage, (int)expected->stage);
    ck_assert_msg(outcome->code == expected->code, "%s/%s: %s, expected %s", target, file->name,
                  gq_code_name(outcome->code), gq_code_name(expected->code));
    if (expected->field != NULL)
        ck_assert_str_eq(outcome->field, expected->field);
}

/* Every entry of `table` names a file that exists. */
static void assert_files_exist(const char *target, const struct body_expectation *table,
                               const struct fuzz_file *files, size_t count)
{
    for (; table->file != NULL; table++) {
        bool found = false;
        for (size_t i = 0; i < count && !found; i++)
            found = strcmp(files[i].name, table->file) == 0;
        ck_assert_msg(found, "tests/fuzz/regressions/%s/%s is missing", target, table->file);
    }
}

/* ---- POST /quote ---------------------------------------------------------- */

static void replay_quote_files(const char *kind, const struct body_expectation *table)
{
    struct fuzz_quote_workspace *work = malloc(sizeof *work);
    ck_assert_ptr_nonnull(work);
    size_t count;
    struct fuzz_file *files = fuzz_files_read(kind, "quote_body", &count);
    if (table == NULL)
        ck_assert_uint_gt(count, 0);
    for (size_t i = 0; i < count; i++) {
        struct fuzz_body_outcome outcome;
        fuzz_replay_quote_body(catalog, work, files[i].data, files[i].size, &outcome);
        if (table != NULL)
            assert_outcome("quote_body", &files[i], find_expected(table, files[i].name), &outcome);
    }
    if (table != NULL)
        assert_files_exist("quote_body", table, files, count);
    fuzz_files_free(files, count);
    free(work);
}

START_TEST(quote_body_regressions_hold)
{
    replay_quote_files("regressions", quote_expected);
}
END_TEST

START_TEST(quote_body_corpus_replays)
{
    replay_quote_files("corpus", NULL);
}
END_TEST

/* ---- POST /recommend ------------------------------------------------------ */

static void replay_recommend_files(const char *kind, const struct body_expectation *table)
{
    struct fuzz_recommend_workspace *work = fuzz_recommend_workspace_new();
    size_t count;
    struct fuzz_file *files = fuzz_files_read(kind, "recommend_body", &count);
    if (table == NULL)
        ck_assert_uint_gt(count, 0);
    for (size_t i = 0; i < count; i++) {
        struct fuzz_body_outcome outcome;
        fuzz_replay_recommend_body(catalog, work, files[i].data, files[i].size, &outcome);
        if (table != NULL)
            assert_outcome("recommend_body", &files[i], find_expected(table, files[i].name),
                           &outcome);
    }
    if (table != NULL)
        assert_files_exist("recommend_body", table, files, count);
    fuzz_files_free(files, count);
    fuzz_recommend_workspace_free(work);
}

START_TEST(recommend_body_regressions_hold)
{
    replay_recommend_files("regressions", recommend_expected);
}
END_TEST

START_TEST(recommend_body_corpus_replays)
{
    replay_recommend_files("corpus", NULL);
}
END_TEST

static Suite *fuzz_regressions_suite(void)
{
    Suite *suite = suite_create("fuzz_regressions");
    TCase *tc = tcase_create("bodies");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30); /* the corpora hold quotes of 100 items */
    tcase_add_test(tc, quote_body_regressions_hold);
    tcase_add_test(tc, quote_body_corpus_replays);
    tcase_add_test(tc, recommend_body_regressions_hold);
    tcase_add_test(tc, recommend_body_corpus_replays);
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
