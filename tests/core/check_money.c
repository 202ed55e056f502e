/*
 * Money: checked arithmetic, the half-up rule, formatting and parsing,
 * and the seed's derived prices reproduced to the fen.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/money.h"

static const struct {
    gq_money value;
    const char *text;
} format_cases[] = {
    {0, "0.00"},
    {5, "0.05"},
    {164160, "1641.60"},
    {369300, "3693.00"},
    {-5, "-0.05"},
    {-123456, "-1234.56"},
    {MONEY_MAX, "10000000000000.00"},
    {INT64_MAX, "92233720368547758.07"},
    {INT64_MIN, "-92233720368547758.08"},
};

START_TEST(formats_with_two_places)
{
    char buf[MONEY_FORMAT_SIZE];
    ck_assert_str_eq(money_format(format_cases[_i].value, buf), format_cases[_i].text);
}
END_TEST

/* The same bytes, no NUL written after them, and their length. */
START_TEST(writes_in_place_with_its_length)
{
    char buf[MONEY_FORMAT_SIZE];
    memset(buf, '#', sizeof buf);
    size_t length = money_write(format_cases[_i].value, buf);
    ck_assert_uint_eq(length, strlen(format_cases[_i].text));
    ck_assert_mem_eq(buf, format_cases[_i].text, length);
    ck_assert_int_eq(buf[length], '#');
}
END_TEST

static const struct {
    const char *text;
    gq_money value;
} parse_ok_cases[] = {
    {"0", 0},           {"3000", 300000},  {"3000.5", 300050},         {"3000.50", 300050},
    {"0.01", 1},        {"1641.60", 164160}, {"10000000000000", MONEY_MAX},
    {"007.10", 710},
};

START_TEST(parses_decimal_amounts)
{
    gq_money value = -1;
    ck_assert_msg(money_parse(parse_ok_cases[_i].text, &value), "%s", parse_ok_cases[_i].text);
    ck_assert_int_eq(value, parse_ok_cases[_i].value);
}
END_TEST

static const char *const parse_bad_cases[] = {
    "",    "-1",    "+1",   "1.",     ".5",   "1.234", "1e3", " 1", "1 ", "1,00",
    "abc", "1.2.3", "0x10", "NaN",    "1.-1", "10000000000000.01",
    "99999999999999999999999999",
};

START_TEST(refuses_anything_else)
{
    gq_money value = 42;
    ck_assert_msg(!money_parse(parse_bad_cases[_i], &value), "accepted '%s'", parse_bad_cases[_i]);
    ck_assert_int_eq(value, 42);
}
END_TEST

START_TEST(refuses_null)
{
    gq_money value = 42;
    ck_assert(!money_parse(NULL, &value));
}
END_TEST

/* Why an amount is refused: too large only when it is otherwise well
 * formed, so that a caller can say "out of range" truthfully. */
static const struct {
    const char *text;
    enum money_parse_result result;
} parse_reason_cases[] = {
    {"10000000000000.00", MONEY_PARSE_OK},
    {"10000000000000.01", MONEY_PARSE_TOO_LARGE},
    {"10000000000001", MONEY_PARSE_TOO_LARGE},
    {"99999999999999999999999999999999999999.99", MONEY_PARSE_TOO_LARGE},
    {"99999999999999999999999999999999999999x", MONEY_PARSE_MALFORMED},
    {"99999999999999999999.123", MONEY_PARSE_MALFORMED},
    {"1.234", MONEY_PARSE_MALFORMED},
    {"", MONEY_PARSE_MALFORMED},
};

START_TEST(says_why_an_amount_is_refused)
{
    gq_money value = 42;
    ck_assert_int_eq(money_parse_amount(parse_reason_cases[_i].text, &value),
                     parse_reason_cases[_i].result);
    ck_assert_int_eq(value, parse_reason_cases[_i].result == MONEY_PARSE_OK ? MONEY_MAX : 42);
}
END_TEST

/* money_scale(a, num, den): half-up, away from zero at exactly half. */
static const struct {
    gq_money a;
    int64_t num, den;
    gq_money expected;
} scale_cases[] = {
    {228, 720000, 1000, 164160}, /* 2.28 × 720 h */
    {228, 7500, 10000, 171},     /* 2.28 × 0.75 = 1.71 */
    {990, 7500, 10000, 743},     /* 9.90 × 0.75 = 7.425 -> 7.43 (half-up) */
    {990, 6700, 10000, 663},     /* 9.90 × 0.67 = 6.633 -> 6.63 */
    {1, 1, 2, 1},                /* 0.5 fen -> 1 */
    {1, 1, 3, 0},                /* 0.33 fen -> 0 */
    {2, 1, 3, 1},                /* 0.67 fen -> 1 */
    {-1, 1, 2, -1},              /* -0.5 fen -> -1, away from zero */
    {-2, 1, 3, -1},
    {INT64_MAX, 1, 1, INT64_MAX},
    {INT64_MAX / 2, 3, 3, INT64_MAX / 2}, /* intermediate exceeds 64 bits */
};

START_TEST(scales_half_up)
{
    gq_money out = 0;
    ck_assert(money_scale(scale_cases[_i].a, scale_cases[_i].num, scale_cases[_i].den, &out));
    ck_assert_int_eq(out, scale_cases[_i].expected);
}
END_TEST

START_TEST(scale_refuses_overflow)
{
    gq_money out = 7;
    ck_assert(!money_scale(INT64_MAX, 2, 1, &out));
    ck_assert_int_eq(out, 7);
}
END_TEST

START_TEST(checked_arithmetic_refuses_overflow)
{
    gq_money out = 7;
    ck_assert(!money_add(INT64_MAX, 1, &out));
    ck_assert(!money_sub(INT64_MIN, 1, &out));
    ck_assert(!money_mul(INT64_MAX / 2 + 1, 2, &out));
    ck_assert_int_eq(out, 7);
    ck_assert(money_add(164160, 369300, &out));
    ck_assert_int_eq(out, 533460);
    ck_assert(money_sub(369300, 164160, &out));
    ck_assert_int_eq(out, 205140);
    ck_assert(money_mul(123100, 3, &out));
    ck_assert_int_eq(out, 369300);
}
END_TEST

/* The price list's rule: block price = (rate × share, rounded to the fen) × hours,
 * rounded to the yuan. The seed's monthly and quarterly figures must come
 * out of that rule exactly. */
static const struct {
    gq_money hourly;
    gq_money monthly;
    gq_money quarterly;
} seed_prices[] = {
    {228, 123100, 330500},   {428, 231100, 619900},    {968, 522700, 1401800},
    {1928, 1041100, 2790700}, {990, 535000, 1432100},
};

static gq_money block_price(gq_money hourly, int64_t basis_points, int64_t hours)
{
    gq_money rate, block_fen, yuan;
    ck_assert(money_scale(hourly, basis_points, 10000, &rate));
    ck_assert(money_mul(rate, hours, &block_fen));
    ck_assert(money_scale(block_fen, 1, 100, &yuan));
    return yuan * 100;
}

START_TEST(seed_block_prices_follow_the_rule)
{
    ck_assert_int_eq(block_price(seed_prices[_i].hourly, 7500, 720), seed_prices[_i].monthly);
    ck_assert_int_eq(block_price(seed_prices[_i].hourly, 6700, 2160), seed_prices[_i].quarterly);
}
END_TEST

START_TEST(format_parse_round_trip)
{
    srand(7);
    for (int i = 0; i < 10000; i++) {
        gq_money value = ((gq_money)rand() << 20 ^ rand()) % MONEY_MAX;
        char buf[MONEY_FORMAT_SIZE];
        gq_money back = -1;
        ck_assert(money_parse(money_format(value, buf), &back));
        ck_assert_int_eq(back, value);
    }
}
END_TEST

#define LOOP(tc, test, table) \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof((table)[0])))

static Suite *money_suite(void)
{
    Suite *suite = suite_create("money");
    TCase *tc = tcase_create("money");
    LOOP(tc, formats_with_two_places, format_cases);
    LOOP(tc, writes_in_place_with_its_length, format_cases);
    LOOP(tc, parses_decimal_amounts, parse_ok_cases);
    LOOP(tc, refuses_anything_else, parse_bad_cases);
    tcase_add_test(tc, refuses_null);
    tcase_add_loop_test(tc, says_why_an_amount_is_refused, 0,
                        (int)(sizeof parse_reason_cases / sizeof parse_reason_cases[0]));
    LOOP(tc, scales_half_up, scale_cases);
    tcase_add_test(tc, scale_refuses_overflow);
    tcase_add_test(tc, checked_arithmetic_refuses_overflow);
    LOOP(tc, seed_block_prices_follow_the_rule, seed_prices);
    tcase_add_test(tc, format_parse_round_trip);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(money_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
