/*
 * Fuzz regressions of the request front. Every input kept under
 * tests/fuzz/regressions/request_front/ is replayed through the code the
 * request fuzzer runs (tests/fuzz/replay_front.h: routing, the policy's
 * decision, the CORS origin, If-None-Match, the Idempotency-Key, the
 * query, every invariant checked with an abort) and must reach the
 * outcome listed below for it; every seed of tests/fuzz/corpus/request_front/
 * is replayed too, so the harness's invariants hold in every `make test`
 * and `make asan`, without clang. A few seeds' verdicts are asserted as
 * well, so that a replay that stopped deciding anything would fail.
 *
 * Links the HTTP layer's objects; nothing here opens a socket.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/replay_files.h"
#include "fuzz/replay_front.h"

static struct fuzz_front *front;

static void setup(void)
{
    front = fuzz_front_new();
}

static void teardown(void)
{
    fuzz_front_free(front);
}

/* What an input must reach. */
struct front_expectation {
    const char *file;
    enum policy_verdict verdict;
    enum gq_code code;
};

/* Inputs a fuzzer found, once fixed (none yet). */
static const struct front_expectation regressions_expected[] = {
    {NULL, POLICY_SERVE, GQ_OK},
};

/* Seeds whose verdict says the replay decides what the server would. */
static const struct front_expectation seeds_expected[] = {
    {"catalog-get", POLICY_SERVE, GQ_OK},
    {"metrics-without-key", POLICY_REFUSED, GQ_ERR_UNAUTHENTICATED},
    {"metrics-with-key", POLICY_SERVE, GQ_OK},
    {"metrics-listener", POLICY_SERVE, GQ_OK},
    {"keys-lacking-scope", POLICY_REFUSED, GQ_ERR_FORBIDDEN},
    {"quote-text-plain", POLICY_REFUSED, GQ_ERR_UNSUPPORTED_MEDIA_TYPE},
    {"quote-query", POLICY_QUERY_REFUSED, GQ_OK},
    {"unknown-path", POLICY_NOT_FOUND, GQ_OK},
    {"catalog-delete", POLICY_METHOD_NOT_ALLOWED, GQ_OK},
    {"quote-options", POLICY_OPTIONS, GQ_OK},
    {"quote-overflow", POLICY_BODY_TOO_LARGE, GQ_OK},
    {"not-a-key", POLICY_REFUSED, GQ_ERR_UNAUTHENTICATED},
    {NULL, POLICY_SERVE, GQ_OK},
};

static const struct front_expectation *find_expected(const struct front_expectation *table,
                                                     const char *file)
{
    for (; table->file != NULL; table++)
        if (strcmp(table->file, file) == 0)
            return table;
    return NULL;
}

/* Replays every file of tests/fuzz/<kind>/request_front; those `table`
 * lists must reach their outcome, and with `all_listed` every file must be
 * listed. Returns how many files there were. */
static size_t replay(const char *kind, const struct front_expectation *table, bool all_listed)
{
    size_t count;
    struct fuzz_file *files = fuzz_files_read(kind, "request_front", &count);
    for (size_t i = 0; i < count; i++) {
        struct fuzz_front_outcome outcome;
        fuzz_replay_request_front(front, files[i].data, files[i].size, &outcome);
        const struct front_expectation *expected = find_expected(table, files[i].name);
        ck_assert_msg(expected != NULL || !all_listed, "%s/%s has no expected outcome in %s", kind,
                      files[i].name, __FILE__);
        if (expected == NULL)
            continue;
        ck_assert_msg(outcome.verdict == expected->verdict, "%s: verdict %d, expected %d",
                      files[i].name, (int)outcome.verdict, (int)expected->verdict);
        ck_assert_msg(outcome.code == expected->code, "%s: %s, expected %s", files[i].name,
                      gq_code_name(outcome.code), gq_code_name(expected->code));
    }
    for (const struct front_expectation *entry = table; entry->file != NULL; entry++) {
        bool found = false;
        for (size_t i = 0; i < count && !found; i++)
            found = strcmp(files[i].name, entry->file) == 0;
        ck_assert_msg(found, "tests/fuzz/%s/request_front/%s is missing", kind, entry->file);
    }
    fuzz_files_free(files, count);
    return count;
}

START_TEST(request_front_regressions_hold)
{
    replay("regressions", regressions_expected, true);
}
END_TEST

START_TEST(request_front_corpus_replays)
{
    ck_assert_uint_ge(replay("corpus", seeds_expected, false), 20);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("fuzz_front_regressions");
    TCase *request_front = tcase_create("request_front");
    tcase_add_checked_fixture(request_front, setup, teardown);
    tcase_add_test(request_front, request_front_regressions_hold);
    tcase_add_test(request_front, request_front_corpus_replays);
    suite_add_tcase(suite, request_front);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(make_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
