/*
 * Quote and request ids: the documented form, no repeats (across threads
 * too: each draws its random bytes from a pool of its own), and time
 * order (ids made later sort after ids made earlier), which keeps inserts
 * at the end of the database's index.
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/ids.h"

static int compare_ids(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

START_TEST(ids_have_the_documented_form)
{
    char id[IDS_SIZE];
    ck_assert(ids_generate("q_", id));
    ck_assert_uint_eq(strlen(id), 34);
    ck_assert(ids_is_well_formed("q_", id));
    ck_assert(!ids_is_well_formed("x_", id));
    ck_assert(!ids_is_well_formed("q_", "q_0123"));
    ck_assert(!ids_is_well_formed("q_", "q_0123456789ABCDEF0123456789abcdef"));
    ck_assert(!ids_is_well_formed("q_", "q_0123456789abcdef0123456789abcdefa"));
    ck_assert(ids_is_well_formed("q_", "q_0123456789abcdef0123456789abcdef"));
}
END_TEST

START_TEST(ids_do_not_repeat)
{
    enum { COUNT = 20000 };
    char(*ids)[IDS_SIZE] = malloc(COUNT * sizeof *ids);
    ck_assert_ptr_nonnull(ids);
    for (int i = 0; i < COUNT; i++)
        ck_assert(ids_generate("q_", ids[i]));
    qsort(ids, COUNT, sizeof *ids, compare_ids);
    for (int i = 1; i < COUNT; i++)
        ck_assert_str_ne(ids[i - 1], ids[i]);
    free(ids);
}
END_TEST

enum { PER_THREAD = 10000 };

static void *generate_many(void *ids)
{
    char(*out)[IDS_SIZE] = ids;
    for (int i = 0; i < PER_THREAD; i++)
        if (!ids_generate("req_", out[i]))
            out[i][0] = '\0';
    return NULL;
}

START_TEST(ids_do_not_repeat_across_threads)
{
    enum { THREADS = 4 };
    char(*ids)[IDS_SIZE] = malloc(THREADS * PER_THREAD * sizeof *ids);
    ck_assert_ptr_nonnull(ids);
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        ck_assert_int_eq(pthread_create(&threads[t], NULL, generate_many, ids + t * PER_THREAD), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    for (int i = 0; i < THREADS * PER_THREAD; i++)
        ck_assert(ids_is_well_formed("req_", ids[i]));
    qsort(ids, THREADS * PER_THREAD, sizeof *ids, compare_ids);
    for (int i = 1; i < THREADS * PER_THREAD; i++)
        ck_assert_str_ne(ids[i - 1], ids[i]);
    free(ids);
}
END_TEST

START_TEST(ids_sort_by_time)
{
    char earlier[IDS_SIZE], later[IDS_SIZE];
    ck_assert(ids_generate("q_", earlier));
    struct timespec pause = {0, 3 * 1000 * 1000}; /* past the next millisecond */
    nanosleep(&pause, NULL);
    ck_assert(ids_generate("q_", later));
    ck_assert_int_lt(strcmp(earlier, later), 0);
    /* The first 12 digits are the time in milliseconds. */
    char time_digits[13];
    memcpy(time_digits, earlier + 2, 12);
    time_digits[12] = '\0';
    long long milliseconds = strtoll(time_digits, NULL, 16);
    long long now = (long long)time(NULL) * 1000;
    ck_assert_int_le(llabs(now - milliseconds), 5000);
}
END_TEST

/* Ordered ids grow within a millisecond too: 10,000 in a row (far more
 * than a millisecond holds) each greater than the one before, and of the
 * documented form. */
START_TEST(ordered_ids_grow_within_a_millisecond)
{
    char previous[IDS_SIZE] = "aud_";
    for (int i = 0; i < 10000; i++) {
        char id[IDS_SIZE];
        ck_assert(ids_generate_ordered("aud_", id));
        ck_assert(ids_is_well_formed("aud_", id));
        ck_assert_msg(strcmp(id, previous) > 0, "%s after %s", id, previous);
        memcpy(previous, id, sizeof id);
    }
}
END_TEST

static Suite *ids_suite(void)
{
    Suite *suite = suite_create("ids");
    TCase *tc = tcase_create("ids");
    tcase_add_test(tc, ids_have_the_documented_form);
    tcase_add_test(tc, ids_do_not_repeat);
    tcase_add_test(tc, ids_do_not_repeat_across_threads);
    tcase_add_test(tc, ids_sort_by_time);
    tcase_add_test(tc, ordered_ids_grow_within_a_millisecond);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(ids_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
