/*
 * Discount rules: which rules match a line, the best exclusive rule against
 * the stackable chain in priority order, half-up rounding per rule, and
 * fixed amounts that never take a line below zero.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/discounts.h"
#include "fixture_catalog.h"

#define NOW 1780000000 /* 2026-05-28 */

static struct catalog *catalog;

static void setup(void)
{
    catalog = fixture_catalog_new();
}

static void teardown(void)
{
    catalog_free(catalog);
}

/* A rule with every filter open; tests narrow what they need. */
static struct discount_rule *add_rule(const char *id, enum discount_kind kind, int64_t value,
                                      bool stackable, int32_t priority)
{
    catalog->rules = realloc(catalog->rules, (catalog->n_rules + 1) * sizeof *catalog->rules);
    ck_assert_ptr_nonnull(catalog->rules);
    struct discount_rule *rule = &catalog->rules[catalog->n_rules++];
    memset(rule, 0, sizeof *rule);
    rule->id = fixture_strdup(id);
    rule->name = fixture_strdup(id);
    rule->segment_mask = SEGMENT_MASK_ALL;
    rule->billing_mask = DISCOUNT_BILLING_ALL;
    rule->min_quantity = 1;
    rule->kind = kind;
    if (kind == DISCOUNT_PERCENT)
        rule->basis_points = (int32_t)value;
    else
        rule->fixed_amount = value;
    rule->stackable = stackable;
    rule->priority = priority;
    return rule;
}

static struct discount_line line_of(gq_money amount)
{
    return (struct discount_line){
        .segment = SEGMENT_STARTUP,
        .billing_bit = 1u << BILLING_ON_DEMAND,
        .sku = catalog_find_sku(catalog, "v100-16g-x1"),
        .quantity = 1,
        .amount = amount,
        .now = NOW,
    };
}

START_TEST(no_rules_no_discount)
{
    struct discount_line line = line_of(164160);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 0);
    ck_assert_int_eq(result.total, 0);
}
END_TEST

START_TEST(percent_rounds_half_up)
{
    add_rule("ten-percent", DISCOUNT_PERCENT, 1000, false, 0);
    struct discount_line line = line_of(164165); /* 10 % = 16416.5 fen -> 16417 */
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 1);
    ck_assert_int_eq(result.total, 16417);
    ck_assert_str_eq(result.applied[0].rule->id, "ten-percent");
}
END_TEST

START_TEST(best_exclusive_rule_wins)
{
    add_rule("five-percent", DISCOUNT_PERCENT, 500, false, 0);
    add_rule("fixed-100", DISCOUNT_FIXED, 10000, false, 1);
    add_rule("eight-percent", DISCOUNT_PERCENT, 800, false, 2);
    struct discount_line line = line_of(164160); /* 5 %: 8208, 100.00: 10000, 8 %: 13133 */
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 1);
    ck_assert_str_eq(result.applied[0].rule->id, "eight-percent");
    ck_assert_int_eq(result.total, 13133);
}
END_TEST

START_TEST(stackable_rules_apply_in_priority_order_on_what_remains)
{
    /* Listed out of order on purpose: priority decides, not position. */
    add_rule("then-fixed-50", DISCOUNT_FIXED, 5000, true, 20);
    add_rule("first-ten-percent", DISCOUNT_PERCENT, 1000, true, 10);
    struct discount_line line = line_of(100000);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 2);
    ck_assert_str_eq(result.applied[0].rule->id, "first-ten-percent");
    ck_assert_int_eq(result.applied[0].amount, 10000);
    ck_assert_str_eq(result.applied[1].rule->id, "then-fixed-50");
    ck_assert_int_eq(result.applied[1].amount, 5000);
    ck_assert_int_eq(result.total, 15000);
}
END_TEST

START_TEST(percent_after_fixed_takes_less)
{
    add_rule("first-fixed-50", DISCOUNT_FIXED, 5000, true, 10);
    add_rule("then-ten-percent", DISCOUNT_PERCENT, 1000, true, 20);
    struct discount_line line = line_of(100000);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.applied[1].amount, 9500); /* 10 % of 950.00 */
    ck_assert_int_eq(result.total, 14500);
}
END_TEST

START_TEST(stack_beats_a_smaller_exclusive)
{
    add_rule("exclusive-12-percent", DISCOUNT_PERCENT, 1200, false, 0);
    add_rule("stack-10-percent", DISCOUNT_PERCENT, 1000, true, 1);
    add_rule("stack-5-percent", DISCOUNT_PERCENT, 500, true, 2);
    struct discount_line line = line_of(100000); /* stack: 10000 + 4500 > 12000 */
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 2);
    ck_assert_int_eq(result.total, 14500);
}
END_TEST

START_TEST(exclusive_beats_a_smaller_stack)
{
    add_rule("exclusive-20-percent", DISCOUNT_PERCENT, 2000, false, 0);
    add_rule("stack-10-percent", DISCOUNT_PERCENT, 1000, true, 1);
    add_rule("stack-5-percent", DISCOUNT_PERCENT, 500, true, 2);
    struct discount_line line = line_of(100000);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 1);
    ck_assert_str_eq(result.applied[0].rule->id, "exclusive-20-percent");
    ck_assert_int_eq(result.total, 20000);
}
END_TEST

START_TEST(fixed_never_goes_below_zero)
{
    add_rule("fixed-2000", DISCOUNT_FIXED, 200000, true, 0);
    add_rule("fixed-1", DISCOUNT_FIXED, 100, true, 1);
    struct discount_line line = line_of(150000);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.total, 150000);
    ck_assert_int_eq(result.n_applied, 1); /* nothing left for the second */
}
END_TEST

/* Each filter, one at a time: the rule must not apply. */
enum filter_case { WRONG_SEGMENT, WRONG_BILLING, WRONG_SKU, TOO_FEW, NOT_YET, EXPIRED };

START_TEST(filters_exclude)
{
    struct discount_rule *rule = add_rule("narrow", DISCOUNT_PERCENT, 1000, false, 0);
    switch ((enum filter_case)_i) {
    case WRONG_SEGMENT:
        rule->segment_mask = SEGMENT_BIT(SEGMENT_ENTERPRISE);
        break;
    case WRONG_BILLING:
        rule->billing_mask = 1u << BILLING_QUARTERLY;
        break;
    case WRONG_SKU:
        rule->sku_id = fixture_strdup("v100-32g-x8");
        break;
    case TOO_FEW:
        rule->min_quantity = 2;
        break;
    case NOT_YET:
        rule->valid_from = NOW + 1;
        break;
    case EXPIRED:
        rule->valid_until = NOW; /* exclusive end */
        break;
    }
    struct discount_line line = line_of(100000);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.total, 0);
}
END_TEST

START_TEST(filters_include_when_matching)
{
    struct discount_rule *rule = add_rule("narrow", DISCOUNT_PERCENT, 1000, false, 0);
    rule->segment_mask = SEGMENT_BIT(SEGMENT_STARTUP);
    rule->billing_mask = (1u << BILLING_ON_DEMAND) | DISCOUNT_BILLING_MIXED;
    rule->sku_id = fixture_strdup("v100-16g-x1");
    rule->min_quantity = 1;
    rule->valid_from = NOW;
    rule->valid_until = NOW + 1;
    struct discount_line line = line_of(100000);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.total, 10000);
    line.billing_bit = DISCOUNT_BILLING_MIXED;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.total, 10000);
}
END_TEST

START_TEST(zero_amount_line_gets_nothing)
{
    add_rule("fixed-10", DISCOUNT_FIXED, 1000, false, 0);
    struct discount_line line = line_of(0);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 0);
    ck_assert_int_eq(result.total, 0);
}
END_TEST

START_TEST(at_most_eight_stack)
{
    char id[16];
    for (int i = 0; i < 12; i++) {
        snprintf(id, sizeof id, "r%02d", i);
        add_rule(id, DISCOUNT_FIXED, 100, true, 12 - i); /* r11 has priority 1 */
    }
    struct discount_line line = line_of(100000);
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, DISCOUNT_MAX_APPLIED);
    ck_assert_str_eq(result.applied[0].rule->id, "r11");
    ck_assert_str_eq(result.applied[7].rule->id, "r04");
    ck_assert_int_eq(result.total, 800);
}
END_TEST

/* A customer's own rule that covers the line replaces the list's: a
 * stackable list rule of 10 % and a customer rule of 100.00 off give
 * 100.00 (stacked: 16416 + 10000; the better of the two: 16416). One that
 * does not cover the line (another SKU) leaves the list's 10 %. */
START_TEST(own_rules_replace_the_list)
{
    add_rule("list-ten", DISCOUNT_PERCENT, 1000, true, 0);
    struct discount_rule own = {.id = "deal",
                                .name = "deal",
                                .segment_mask = SEGMENT_MASK_ALL,
                                .billing_mask = DISCOUNT_BILLING_ALL,
                                .min_quantity = 1,
                                .kind = DISCOUNT_FIXED,
                                .fixed_amount = 10000,
                                .stackable = true,
                                .from_customer = true};
    struct discount_line line = line_of(164160);
    line.own = &own;
    line.n_own = 1;
    struct discount_result result;
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 1);
    ck_assert_str_eq(result.applied[0].rule->id, "deal");
    ck_assert_int_eq(result.total, 10000);

    own.sku_id = "t4-16g-x1";
    discounts_apply(catalog, &line, &result);
    ck_assert_int_eq(result.n_applied, 1);
    ck_assert_str_eq(result.applied[0].rule->id, "list-ten");
    ck_assert_int_eq(result.total, 16416);
}
END_TEST

static Suite *discounts_suite(void)
{
    Suite *suite = suite_create("discounts");
    TCase *tc = tcase_create("discounts");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, no_rules_no_discount);
    tcase_add_test(tc, percent_rounds_half_up);
    tcase_add_test(tc, best_exclusive_rule_wins);
    tcase_add_test(tc, stackable_rules_apply_in_priority_order_on_what_remains);
    tcase_add_test(tc, percent_after_fixed_takes_less);
    tcase_add_test(tc, stack_beats_a_smaller_exclusive);
    tcase_add_test(tc, exclusive_beats_a_smaller_stack);
    tcase_add_test(tc, fixed_never_goes_below_zero);
    tcase_add_loop_test(tc, filters_exclude, WRONG_SEGMENT, EXPIRED + 1);
    tcase_add_test(tc, filters_include_when_matching);
    tcase_add_test(tc, zero_amount_line_gets_nothing);
    tcase_add_test(tc, at_most_eight_stack);
    tcase_add_test(tc, own_rules_replace_the_list);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(discounts_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
