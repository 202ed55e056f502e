/*
 * Tests of the clock helpers: a deadline for the timed waits of pthreads,
 * normalised whatever the offset, and the RFC 3339 form of a time.
 */
#include "util/clock.h"

#include <check.h>
#include <stdlib.h>

static int64_t nanoseconds_of(struct timespec at)
{
    return (int64_t)at.tv_sec * 1000000000 + at.tv_nsec;
}

static int64_t now_ns(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return nanoseconds_of(now);
}

/* Offsets that carry into the seconds, by one and by several. */
static const int64_t offsets_ns[] = {0,          1,         999999999, 1000000000,
                                     1500000000, 250000000, 7999999999};

START_TEST(test_clock_after_is_the_offset_from_now)
{
    const clockid_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME};
    for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
        int64_t offset = offsets_ns[_i];
        int64_t before = now_ns(clocks[c]);
        struct timespec at = clock_after(clocks[c], offset);
        int64_t after = now_ns(clocks[c]);
        ck_assert_int_ge(at.tv_nsec, 0);
        ck_assert_int_lt(at.tv_nsec, 1000000000);
        ck_assert_int_ge(nanoseconds_of(at), before + offset);
        ck_assert_int_le(nanoseconds_of(at), after + offset);
    }
}
END_TEST

START_TEST(test_clock_format_rfc3339)
{
    char buf[CLOCK_RFC3339_SIZE];
    ck_assert_str_eq(clock_format_rfc3339(0, buf), "1970-01-01T00:00:00Z");
    ck_assert_str_eq(clock_format_rfc3339(1796060679, buf), "2026-11-30T17:44:39Z");
    ck_assert_str_eq(clock_format_rfc3339(253402300799, buf), "9999-12-31T23:59:59Z");
}
END_TEST

static Suite *clock_suite(void)
{
    Suite *suite = suite_create("clock");
    TCase *tc = tcase_create("clock");
    tcase_add_loop_test(tc, test_clock_after_is_the_offset_from_now, 0,
                        (int)(sizeof offsets_ns / sizeof offsets_ns[0]));
    tcase_add_test(tc, test_clock_format_rfc3339);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(clock_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
