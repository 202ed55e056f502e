/*
 * quote_compute: the worked figures of the price list, to the fen;
 * eligibility and range errors with their field paths; discounts, bundles
 * and totals; and properties over thousands of random quotes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/quote.h"
#include "fixture_catalog.h"

#define NOW 1780000000

static struct catalog *catalog;
static struct quote_result *result;

static void setup(void)
{
    catalog = fixture_catalog_new();
    result = quote_result_new(QUOTE_MAX_ITEMS);
    ck_assert_ptr_nonnull(result);
}

static void teardown(void)
{
    quote_result_free(result);
    catalog_free(catalog);
}

static struct quote_item_request item(const char *sku, int32_t quantity, const char *billing,
                                      int32_t hours, int32_t days)
{
    struct quote_item_request request = {
        .sku = catalog_find_sku(catalog, sku),
        .quantity = quantity,
        .cheapest = strcmp(billing, "cheapest") == 0,
        .usage = {hours * USAGE_MILLIHOURS_PER_HOUR, days},
    };
    ck_assert_ptr_nonnull(request.sku);
    if (!request.cheapest)
        ck_assert(billing_mode_parse(billing, &request.billing));
    return request;
}

static enum gq_code price(enum customer_segment segment, const struct quote_item_request *items,
                          size_t n_items, struct gq_error *err)
{
    struct quote_request request = {
        .segment = segment, .items = items, .n_items = n_items, .now = NOW};
    return quote_compute(catalog, &request, result, err);
}

static const struct priced_option *option(const struct quote_item_result *line,
                                          enum billing_mode mode)
{
    for (int i = 0; i < line->n_options; i++)
        if (line->option_modes[i] == mode)
            return &line->options[i];
    return NULL;
}

/* A mode whose price for the usage is too large to hold is left out of the
 * options, and fails the item only when it is the mode billed: a quarterly
 * price of 10^15 fen makes two quarters overflow at 91 days. */
START_TEST(an_overflowing_mode_is_left_out_unless_billed)
{
    struct sku *v100 = (struct sku *)catalog_find_sku(catalog, "v100-16g-x1");
    v100->price[BILLING_QUARTERLY] = MONEY_MAX;
    struct quote_item_request by_the_hour = item("v100-16g-x1", 1, "on_demand", 1, 91);
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, &by_the_hour, 1, NULL), GQ_OK);
    const struct quote_item_result *line = &result->items[0];
    ck_assert_int_eq(line->n_options, 2);
    ck_assert_ptr_null(option(line, BILLING_QUARTERLY));
    ck_assert_int_eq(line->billed->total, 91 * 228);
    ck_assert_int_eq(line->cheapest.total, 91 * 228);

    struct quote_item_request cheapest = item("v100-16g-x1", 1, "cheapest", 1, 91);
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, &cheapest, 1, NULL), GQ_OK);
    ck_assert_int_eq(result->items[0].billed->total, 91 * 228);

    struct quote_item_request quarterly = item("v100-16g-x1", 1, "quarterly", 1, 91);
    struct gq_error err;
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, &quarterly, 1, &err), GQ_ERR_AMOUNT_TOO_LARGE);
    ck_assert_str_eq(err.field, "items[0]");
    /* One quarter still holds: 90 days price as before, quarterly included. */
    struct quote_item_request ninety = item("v100-16g-x1", 1, "on_demand", 1, 90);
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, &ninety, 1, NULL), GQ_OK);
    ck_assert_int_eq(option(&result->items[0], BILLING_QUARTERLY)->total, MONEY_MAX);
}
END_TEST

/* "cheapest" measures its saving against paying by the hour: when that
 * price is too large to hold, so is the saving, and the item fails; billed
 * monthly, the same usage prices without the hourly option. */
START_TEST(an_overflowing_hourly_mode_fails_a_cheapest_item)
{
    struct sku *t4 = (struct sku *)catalog_find_sku(catalog, "t4-16g-x1");
    t4->price[BILLING_ON_DEMAND] = MONEY_MAX / 100;
    struct quote_item_request cheapest = item("t4-16g-x1", 1, "cheapest", 24, 10);
    struct gq_error err;
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, &cheapest, 1, &err), GQ_ERR_AMOUNT_TOO_LARGE);
    ck_assert_str_eq(err.field, "items[0]");

    struct quote_item_request monthly = item("t4-16g-x1", 1, "monthly", 24, 10);
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, &monthly, 1, NULL), GQ_OK);
    const struct quote_item_result *line = &result->items[0];
    ck_assert_int_eq(line->n_options, 2);
    ck_assert_ptr_null(option(line, BILLING_ON_DEMAND));
    ck_assert_int_eq(line->billed->total, 535000);
    ck_assert_int_eq(line->cheapest.total, 535000);
    ck_assert_int_eq(line->saving, 0);
}
END_TEST

START_TEST(digest_example_on_demand_wins_at_8_hours)
{
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "on_demand", 8, 90)};
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 1, NULL), GQ_OK);
    const struct quote_item_result *line = &result->items[0];
    ck_assert_int_eq(line->billed->amount, 164160);
    ck_assert_int_eq(line->n_options, 3); /* no student rate for an individual */
    ck_assert_int_eq(option(line, BILLING_MONTHLY)->amount, 369300);
    ck_assert_int_eq(option(line, BILLING_QUARTERLY)->amount, 330500);
    ck_assert_ptr_null(option(line, BILLING_STUDENT));
    ck_assert_int_eq(line->cheapest.total, 164160);
    ck_assert_int_eq(line->cheapest.plan.parts[0].mode, BILLING_ON_DEMAND);
    ck_assert_int_eq(line->saving, 0);
    ck_assert_int_eq(line->break_even_tenths[BILLING_MONTHLY], 180);
    ck_assert_int_eq(line->break_even_tenths[BILLING_QUARTERLY], 161);
    ck_assert_int_eq(line->break_even_tenths[BILLING_ON_DEMAND], -1);
    ck_assert_int_eq(line->billable_millihours, 720000);
    ck_assert_int_eq(result->subtotal, 164160);
    ck_assert_int_eq(result->total, 164160);
}
END_TEST

START_TEST(monthly_asked_shows_the_saving)
{
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "monthly", 8, 90)};
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 1, NULL), GQ_OK);
    ck_assert_int_eq(result->items[0].billed->amount, 369300);
    ck_assert_int_eq(result->items[0].saving, 369300 - 164160);
}
END_TEST

START_TEST(student_pays_the_student_rate)
{
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "student", 8, 90)};
    ck_assert_int_eq(price(SEGMENT_STUDENT, items, 1, NULL), GQ_OK);
    const struct quote_item_result *line = &result->items[0];
    ck_assert_int_eq(line->billed->amount, 108000);
    ck_assert_int_eq(line->n_options, 4);
    ck_assert_int_eq(line->cheapest.total, 108000);
    ck_assert_int_eq(line->break_even_tenths[BILLING_MONTHLY], 274);
}
END_TEST

/* The cheapest of the segments held: a student billed at the cheapest
 * pays the student rate (1080.00, not 1641.60); at an on-demand price the
 * same for every segment the tie goes to individual; a billing only a
 * student may use passes individual over; none usable is the first
 * segment's error. */
START_TEST(cheapest_segment_held_wins_and_ties_go_to_individual)
{
    struct quote_result *scratch = quote_result_new(QUOTE_MAX_ITEMS);
    ck_assert_ptr_nonnull(scratch);
    struct quote_item_request cheapest[] = {item("v100-16g-x1", 1, "cheapest", 8, 90)};
    struct quote_request request = {.items = cheapest, .n_items = 1, .now = NOW};
    unsigned held = SEGMENT_BIT(SEGMENT_STARTUP) | SEGMENT_BIT(SEGMENT_STUDENT);
    ck_assert_int_eq(
        quote_compute_cheapest_segment(catalog, &request, held, &result, &scratch, NULL), GQ_OK);
    ck_assert_int_eq(request.segment, SEGMENT_STUDENT);
    ck_assert_int_eq(result->total, 108000);

    struct quote_item_request on_demand[] = {item("v100-16g-x1", 1, "on_demand", 8, 90)};
    request.items = on_demand;
    ck_assert_int_eq(quote_compute_cheapest_segment(catalog, &request, SEGMENT_BIT(SEGMENT_STUDENT),
                                                    &result, &scratch, NULL),
                     GQ_OK);
    ck_assert_int_eq(request.segment, SEGMENT_INDIVIDUAL);
    ck_assert_int_eq(result->total, 164160);

    struct quote_item_request student[] = {item("v100-16g-x1", 1, "student", 8, 90)};
    request.items = student;
    ck_assert_int_eq(quote_compute_cheapest_segment(catalog, &request, SEGMENT_BIT(SEGMENT_STUDENT),
                                                    &result, &scratch, NULL),
                     GQ_OK);
    ck_assert_int_eq(request.segment, SEGMENT_STUDENT);
    ck_assert_int_eq(result->total, 108000);
    struct gq_error err;
    ck_assert_int_eq(quote_compute_cheapest_segment(catalog, &request, 0, &result, &scratch, &err),
                     GQ_ERR_NOT_ELIGIBLE);
    ck_assert_str_eq(err.field, "items[0].billing");
    ck_assert_int_eq(request.segment, SEGMENT_INDIVIDUAL);
    quote_result_free(scratch);
}
END_TEST

START_TEST(cheapest_is_quarterly_at_24_hours_for_90_days)
{
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "cheapest", 24, 90)};
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 1, NULL), GQ_OK);
    const struct quote_item_result *line = &result->items[0];
    ck_assert_ptr_eq(line->billed, &line->cheapest);
    ck_assert_int_eq(line->billed->amount, 330500);
    ck_assert_int_eq(line->billed->plan.parts[0].mode, BILLING_QUARTERLY);
    /* Against paying by the hour: 2.28 × 24 × 90 = 4924.80. */
    ck_assert_int_eq(line->saving, 492480 - 330500);
}
END_TEST

START_TEST(cheapest_mixes_a_quarter_and_ten_days)
{
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "cheapest", 24, 100)};
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 1, NULL), GQ_OK);
    const struct plan *plan = &result->items[0].billed->plan;
    ck_assert_int_eq(result->items[0].billed->amount, 385220);
    ck_assert_int_eq(plan->n_parts, 2);
    ck_assert_int_eq(plan->parts[0].mode, BILLING_QUARTERLY);
    ck_assert_int_eq(plan->parts[1].mode, BILLING_ON_DEMAND);
    ck_assert_int_eq(plan->parts[1].days, 10);
}
END_TEST

/* Quantity 3 triples every figure of the cases above. */
static const struct {
    const char *billing;
    enum customer_segment segment;
    int32_t hours, days;
    gq_money one;
} triple_cases[] = {
    {"on_demand", SEGMENT_INDIVIDUAL, 8, 90, 164160},
    {"monthly", SEGMENT_INDIVIDUAL, 8, 90, 369300},
    {"student", SEGMENT_STUDENT, 8, 90, 108000},
    {"cheapest", SEGMENT_INDIVIDUAL, 24, 90, 330500},
    {"cheapest", SEGMENT_INDIVIDUAL, 24, 100, 385220},
};

START_TEST(quantity_three_triples)
{
    struct quote_item_request items[] = {item("v100-16g-x1", 3, triple_cases[_i].billing,
                                              triple_cases[_i].hours, triple_cases[_i].days)};
    ck_assert_int_eq(price(triple_cases[_i].segment, items, 1, NULL), GQ_OK);
    ck_assert_int_eq(result->items[0].billed->amount, 3 * triple_cases[_i].one);
    ck_assert_int_eq(result->total, 3 * triple_cases[_i].one);
    ck_assert_int_eq(result->items[0].billed->plan.amount, triple_cases[_i].one);
}
END_TEST

/* Errors name the field of the item at fault. */
static const struct {
    int32_t quantity, millihours, days;
    const char *billing;
    enum customer_segment segment;
    enum gq_code code;
    const char *field;
} error_cases[] = {
    {0, 8000, 90, "on_demand", SEGMENT_INDIVIDUAL, GQ_ERR_OUT_OF_RANGE, "items[1].quantity"},
    {1001, 8000, 90, "on_demand", SEGMENT_INDIVIDUAL, GQ_ERR_OUT_OF_RANGE, "items[1].quantity"},
    {1, 0, 90, "on_demand", SEGMENT_INDIVIDUAL, GQ_ERR_OUT_OF_RANGE, "items[1].hours_per_day"},
    {1, 24001, 90, "on_demand", SEGMENT_INDIVIDUAL, GQ_ERR_OUT_OF_RANGE, "items[1].hours_per_day"},
    {1, 8000, 0, "on_demand", SEGMENT_INDIVIDUAL, GQ_ERR_OUT_OF_RANGE, "items[1].days"},
    {1, 8000, 3651, "on_demand", SEGMENT_INDIVIDUAL, GQ_ERR_OUT_OF_RANGE, "items[1].days"},
    {1, 8000, 90, "student", SEGMENT_INDIVIDUAL, GQ_ERR_NOT_ELIGIBLE, "items[1].billing"},
    {1, 8000, 90, "student", SEGMENT_ENTERPRISE, GQ_ERR_NOT_ELIGIBLE, "items[1].billing"},
};

START_TEST(rejects_with_field_path)
{
    struct quote_item_request items[2] = {item("t4-16g-x1", 1, "on_demand", 1, 1),
                                          item("v100-16g-x1", 1, "on_demand", 1, 1)};
    items[1].quantity = error_cases[_i].quantity;
    items[1].usage.millihours_per_day = error_cases[_i].millihours;
    items[1].usage.days = error_cases[_i].days;
    ck_assert(billing_mode_parse(error_cases[_i].billing, &items[1].billing));
    struct gq_error err;
    ck_assert_int_eq(price(error_cases[_i].segment, items, 2, &err), error_cases[_i].code);
    ck_assert_str_eq(err.field, error_cases[_i].field);
    ck_assert_int_eq(err.code, error_cases[_i].code);
}
END_TEST

START_TEST(rejects_an_empty_quote_and_too_many_items)
{
    struct gq_error err;
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, NULL, 0, &err), GQ_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(err.field, "items");
    struct quote_item_request *many = calloc(QUOTE_MAX_ITEMS + 1, sizeof *many);
    for (int i = 0; i <= QUOTE_MAX_ITEMS; i++)
        many[i] = item("t4-16g-x1", 1, "on_demand", 1, 1);
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, many, QUOTE_MAX_ITEMS + 1, &err),
                     GQ_ERR_OUT_OF_RANGE);
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, many, QUOTE_MAX_ITEMS, &err), GQ_OK);
    ck_assert_int_eq(result->total, QUOTE_MAX_ITEMS * 990);
    free(many);
}
END_TEST

static struct discount_rule *add_rule(const char *id, int32_t basis_points, uint32_t billing_mask)
{
    catalog->rules = realloc(catalog->rules, (catalog->n_rules + 1) * sizeof *catalog->rules);
    struct discount_rule *rule = &catalog->rules[catalog->n_rules++];
    memset(rule, 0, sizeof *rule);
    rule->id = fixture_strdup(id);
    rule->name = fixture_strdup(id);
    rule->segment_mask = SEGMENT_BIT(SEGMENT_ENTERPRISE);
    rule->billing_mask = billing_mask;
    rule->min_quantity = 1;
    rule->kind = DISCOUNT_PERCENT;
    rule->basis_points = basis_points;
    return rule;
}

START_TEST(discounts_reach_item_and_totals)
{
    add_rule("enterprise-5", 500, DISCOUNT_BILLING_ALL);
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "on_demand", 8, 90),
                                         item("v100-16g-x1", 1, "monthly", 8, 90)};
    ck_assert_int_eq(price(SEGMENT_ENTERPRISE, items, 2, NULL), GQ_OK);
    ck_assert_int_eq(result->items[0].billed->discounts.total, 8208);
    ck_assert_int_eq(result->items[0].billed->total, 155952);
    ck_assert_int_eq(result->items[1].billed->discounts.total, 18465);
    ck_assert_int_eq(result->subtotal, 164160 + 369300);
    ck_assert_int_eq(result->discount_total, 8208 + 18465);
    ck_assert_int_eq(result->total, 164160 + 369300 - 8208 - 18465);
    /* An individual gets none of it. */
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 2, NULL), GQ_OK);
    ck_assert_int_eq(result->discount_total, 0);
}
END_TEST

START_TEST(a_mode_discount_can_change_the_cheapest)
{
    /* 60 % off quarterly makes one quarter (1322.00) beat 90 days on
     * demand at 8 h (1641.60). */
    add_rule("quarterly-60", 6000, 1u << BILLING_QUARTERLY);
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "cheapest", 8, 90)};
    ck_assert_int_eq(price(SEGMENT_ENTERPRISE, items, 1, NULL), GQ_OK);
    const struct priced_option *cheapest = &result->items[0].cheapest;
    ck_assert_int_eq(cheapest->plan.parts[0].mode, BILLING_QUARTERLY);
    ck_assert_int_eq(cheapest->total, 132200);
    ck_assert_int_eq(result->total, 132200);
}
END_TEST

/* 30 % off mixed plans: a month and 90 days by the hour (3693.40, 2585.38
 * after the discount) beats 120 days by the hour (3283.20), the cheapest
 * before discounts, though no mixed plan is cheapest before them. */
START_TEST(a_mixed_discount_can_change_the_cheapest)
{
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "cheapest", 12, 120)};
    ck_assert_int_eq(price(SEGMENT_ENTERPRISE, items, 1, NULL), GQ_OK);
    ck_assert_int_eq(result->items[0].cheapest.total, 328320);

    add_rule("mixed-30", 3000, DISCOUNT_BILLING_MIXED);
    ck_assert_int_eq(price(SEGMENT_ENTERPRISE, items, 1, NULL), GQ_OK);
    const struct priced_option *cheapest = &result->items[0].cheapest;
    ck_assert(plan_is_mixed(&cheapest->plan));
    ck_assert_int_eq(cheapest->plan.parts[0].mode, BILLING_MONTHLY);
    ck_assert_int_eq(cheapest->plan.parts[1].mode, BILLING_ON_DEMAND);
    ck_assert_int_eq(cheapest->amount, 369340);
    ck_assert_int_eq(cheapest->discounts.total, 110802);
    ck_assert_int_eq(cheapest->total, 258538);
    ck_assert_int_eq(result->total, 258538);
    /* By the hour, the saving is what the mixed plan saves. */
    ck_assert_int_eq(result->items[0].saving, 328320 - 258538);
    /* 30 days: no mixed cover exists, by the hour stays cheapest. */
    items[0] = item("v100-16g-x1", 1, "cheapest", 12, 30);
    ck_assert_int_eq(price(SEGMENT_ENTERPRISE, items, 1, NULL), GQ_OK);
    ck_assert_int_eq(result->items[0].cheapest.total, 82080);
    ck_assert_int_eq(result->items[0].cheapest.plan.parts[0].mode, BILLING_ON_DEMAND);
}
END_TEST

static struct bundle *add_bundle(const char *id, gq_money list_price, gq_money bundle_price,
                                 uint32_t segments)
{
    catalog->bundles =
        realloc(catalog->bundles, (catalog->n_bundles + 1) * sizeof *catalog->bundles);
    struct bundle *bundle = &catalog->bundles[catalog->n_bundles++];
    memset(bundle, 0, sizeof *bundle);
    bundle->id = fixture_strdup(id);
    bundle->name = fixture_strdup(id);
    bundle->description = fixture_strdup(id);
    bundle->list_price = list_price;
    bundle->price = bundle_price;
    bundle->segment_mask = segments;
    return bundle;
}

static void add_bundle_item(struct bundle *bundle, const char *sku, int32_t quantity, int32_t hours)
{
    bundle->items = realloc(bundle->items, (bundle->n_items + 1) * sizeof *bundle->items);
    ck_assert_ptr_nonnull(bundle->items);
    bundle->items[bundle->n_items++] =
        (struct bundle_item){catalog_find_sku(catalog, sku), quantity, hours};
    ck_assert_ptr_nonnull(bundle->items[bundle->n_items - 1].sku);
}

/* The seed's two bundles (migrations/sqlite/0002_seed_catalog.sql), with
 * their names in both languages (0005). */
static void add_seed_bundles(void)
{
    struct bundle *training =
        add_bundle("training-starter-monthly", 164200, 123100, SEGMENT_MASK_ALL);
    add_bundle_item(training, "v100-16g-x1", 1, 720);
    free(training->name);
    training->name = fixture_strdup("Training starter monthly card");
    training->text[GQ_LANG_ZH_CN].name = fixture_strdup("训练入门月卡");
    struct bundle *enterprise = add_bundle("enterprise-inference-quarterly", 8484500, 5729300,
                                           SEGMENT_BIT(SEGMENT_ENTERPRISE));
    add_bundle_item(enterprise, "t4-16g-x1", 4, 2160);
    free(enterprise->name);
    enterprise->name = fixture_strdup("Enterprise inference quarterly card");
    enterprise->text[GQ_LANG_ZH_CN].name = fixture_strdup("企业推理季卡");
}

static const struct quote_bundle_result *quote_bundle_alone(const struct bundle *bundle,
                                                            enum customer_segment segment)
{
    const struct bundle *bundles[] = {bundle};
    struct quote_request request = {
        .segment = segment, .bundles = bundles, .n_bundles = 1, .now = NOW};
    ck_assert_int_eq(quote_compute(catalog, &request, result, NULL), GQ_OK);
    return &result->bundles[0];
}

/* 企业推理季卡: four T4 16GB × 1 for 2160 h each. Bought as items, each is
 * one quarter (14321.00; three months are 16050.00, 2160 h on demand
 * 21384.00), 4 × 14321.00 = 57284.00: the card's 57293.00 is 9.00 dearer,
 * though its list figure (84845.00) makes it look 27552.00 cheaper. */
START_TEST(enterprise_card_costs_more_than_its_contents)
{
    add_seed_bundles();
    const struct bundle *card = &catalog->bundles[1];
    const struct quote_bundle_result *line = quote_bundle_alone(card, SEGMENT_ENTERPRISE);
    ck_assert_int_eq(card->price, 5729300);
    ck_assert_int_eq(line->list_saving, 2755200);
    ck_assert(line->has_alternative);
    ck_assert_int_eq(line->alternative, 5728400);
    ck_assert_int_eq(line->saving, -900);
    ck_assert_int_eq(result->total, 5729300);

    struct plan plan;
    ck_assert_int_eq(quote_bundle_item_plan(catalog, &card->items[0], SEGMENT_ENTERPRISE, &plan),
                     GQ_OK);
    ck_assert_int_eq(plan.n_parts, 1);
    ck_assert_int_eq(plan.parts[0].mode, BILLING_QUARTERLY);
    ck_assert_int_eq(plan.parts[0].blocks, 1);
    ck_assert_int_eq(plan.amount, 1432100);
    ck_assert_int_eq(quote_bundle_listing_segment(card), SEGMENT_ENTERPRISE);
    gq_money alternative = 0;
    ck_assert_int_eq(quote_bundle_alternative(catalog, card, SEGMENT_ENTERPRISE, &alternative),
                     GQ_OK);
    ck_assert_int_eq(alternative, 5728400);

    char reason[512];
    ck_assert_uint_gt(quote_bundle_reason(line, "CNY", GQ_LANG_EN, reason, sizeof reason), 0);
    ck_assert_str_eq(reason, "Enterprise inference quarterly card costs ¥9.00 more than its "
                             "contents bought at their cheapest plans: ¥57293.00 against "
                             "¥57284.00");
    ck_assert_uint_gt(quote_bundle_reason(line, "CNY", GQ_LANG_ZH_CN, reason, sizeof reason), 0);
    ck_assert_str_eq(reason, "企业推理季卡比按最便宜方案单独购买其内容贵 ¥9.00：套餐价 "
                             "¥57293.00，单独购买 ¥57284.00");
}
END_TEST

/* 训练入门月卡: one V100 16GB × 1 for 720 h, list 1642.00, price 1231.00.
 * By hand from the seed prices: on demand 720 h × 2.28 = 1641.60, one
 * month 1231.00, one quarter 3305.00, so bought as an item the cheapest is
 * one month, 1231.00: the card saves 0.00 (its list saving is 411.00) and
 * gives no reason. A student pays 720 h × 1.50 = 1080.00 by the hour, so
 * to a student the card is 151.00 dearer. */
START_TEST(training_card_saves_nothing_and_is_dearer_for_students)
{
    add_seed_bundles();
    const struct bundle *card = &catalog->bundles[0];
    const struct quote_bundle_result *line = quote_bundle_alone(card, SEGMENT_INDIVIDUAL);
    ck_assert_int_eq(line->list_saving, 41100);
    ck_assert_int_eq(line->alternative, 123100);
    ck_assert_int_eq(line->saving, 0);
    char reason[512];
    ck_assert_uint_eq(quote_bundle_reason(line, "CNY", GQ_LANG_EN, reason, sizeof reason), 0);
    ck_assert_str_eq(reason, "");
    ck_assert_int_eq(quote_bundle_listing_segment(card), SEGMENT_INDIVIDUAL);

    line = quote_bundle_alone(card, SEGMENT_STUDENT);
    ck_assert_int_eq(line->alternative, 108000);
    ck_assert_int_eq(line->saving, -15100);
    ck_assert_uint_gt(quote_bundle_reason(line, "CNY", GQ_LANG_ZH_CN, reason, sizeof reason), 0);
    ck_assert_str_eq(reason, "训练入门月卡比按最便宜方案单独购买其内容贵 ¥151.00：套餐价 "
                             "¥1231.00，单独购买 ¥1080.00");
}
END_TEST

/* Hours that are not whole days: the last day is either inside the blocks
 * or paid by the hour for its hours alone, whichever costs less. */
START_TEST(bundle_hours_that_are_not_whole_days)
{
    struct plan plan;
    /* 730 h of a V100: a month (30 days) and 10 h on demand, 1231.00 +
     * 22.80 = 1253.80; 31 days around the clock would be 1285.72. */
    struct bundle_item v100 = {catalog_find_sku(catalog, "v100-16g-x1"), 1, 730};
    ck_assert_int_eq(quote_bundle_item_plan(catalog, &v100, SEGMENT_INDIVIDUAL, &plan), GQ_OK);
    ck_assert_int_eq(plan.amount, 125380);
    ck_assert_int_eq(plan.n_parts, 2);
    ck_assert_int_eq(plan.parts[0].mode, BILLING_MONTHLY);
    ck_assert_int_eq(plan.parts[1].mode, BILLING_ON_DEMAND);
    ck_assert_int_eq(plan.parts[1].days, 1);
    ck_assert_int_eq(plan.parts[1].millihours, 10000);
    ck_assert_int_eq(plan.parts[1].amount, 2280);
    /* 2150 h of a T4 (89 days and 14 h): the quarter covers the last day
     * too, 14321.00, not 14321.00 + 14 h × 9.90. */
    struct bundle_item t4 = {catalog_find_sku(catalog, "t4-16g-x1"), 1, 2150};
    ck_assert_int_eq(quote_bundle_item_plan(catalog, &t4, SEGMENT_INDIVIDUAL, &plan), GQ_OK);
    ck_assert_int_eq(plan.amount, 1432100);
    ck_assert_int_eq(plan.n_parts, 1);
    ck_assert_int_eq(plan.parts[0].mode, BILLING_QUARTERLY);
    /* 5 h alone: on demand, 5 × 2.28; a student pays 5 × 1.50. */
    struct bundle_item hours = {catalog_find_sku(catalog, "v100-16g-x1"), 1, 5};
    ck_assert_int_eq(quote_bundle_item_plan(catalog, &hours, SEGMENT_INDIVIDUAL, &plan), GQ_OK);
    ck_assert_int_eq(plan.amount, 1140);
    ck_assert_int_eq(quote_bundle_item_plan(catalog, &hours, SEGMENT_STUDENT, &plan), GQ_OK);
    ck_assert_int_eq(plan.amount, 750);
    ck_assert_int_eq(plan.parts[0].mode, BILLING_STUDENT);
    /* More days than a usage holds: no alternative. */
    struct bundle_item years = {catalog_find_sku(catalog, "v100-16g-x1"), 1, 24 * 3651};
    ck_assert_int_eq(quote_bundle_item_plan(catalog, &years, SEGMENT_INDIVIDUAL, &plan),
                     GQ_ERR_OUT_OF_RANGE);
}
END_TEST

START_TEST(bundles_add_their_own_price)
{
    add_seed_bundles();
    const struct bundle *bundles[] = {&catalog->bundles[0], &catalog->bundles[1]};
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "on_demand", 8, 90)};
    struct quote_request request = {.segment = SEGMENT_ENTERPRISE,
                                    .items = items,
                                    .n_items = 1,
                                    .bundles = bundles,
                                    .n_bundles = 2,
                                    .now = NOW};
    ck_assert_int_eq(quote_compute(catalog, &request, result, NULL), GQ_OK);
    ck_assert_int_eq(result->bundles[0].list_saving, 41100);
    ck_assert_int_eq(result->bundles[0].saving, 0);
    ck_assert_int_eq(result->bundles[1].list_saving, 2755200);
    ck_assert_int_eq(result->bundles[1].saving, -900);
    ck_assert_int_eq(result->subtotal, 164160 + 123100 + 5729300);
    ck_assert_int_eq(result->total, result->subtotal);

    struct gq_error err;
    request.segment = SEGMENT_STARTUP;
    ck_assert_int_eq(quote_compute(catalog, &request, result, &err), GQ_ERR_NOT_ELIGIBLE);
    ck_assert_str_eq(err.field, "bundles[1]");
    /* A bundle alone is a valid quote. */
    request.n_items = 0;
    request.n_bundles = 1;
    ck_assert_int_eq(quote_compute(catalog, &request, result, NULL), GQ_OK);
    ck_assert_int_eq(result->total, 123100);
}
END_TEST

/* An item billed "cheapest" alone, for `segment`, with the seed's bundles
 * in the catalog (none in the quote). */
static const struct quote_item_result *cheapest_item(enum customer_segment segment, const char *sku,
                                                     int32_t quantity, int32_t hours, int32_t days)
{
    struct quote_item_request items[] = {item(sku, quantity, "cheapest", hours, days)};
    ck_assert_int_eq(price(segment, items, 1, NULL), GQ_OK);
    return &result->items[0];
}

/* The training starter card (V100 16GB x 1 for 720 h, 1231.00, for all)
 * against an individual's V100 16GB x 1 billed cheapest. */
START_TEST(a_covering_bundle_is_compared_with_a_cheapest_item)
{
    add_seed_bundles();
    /* 24 h x 30 days = 720 h: cheapest is one month, 1231.00 (on demand
     * 720 x 2.28 = 1641.60, a quarter 3305.00). The card, 1231.00, covers
     * it (1 >= 1 instance, 720 >= 720 h): 1231.00 - 1231.00 = 0.00, a tie,
     * so the item is not dearer: "item". The enterprise card is not the
     * individual's. */
    const struct quote_item_result *line =
        cheapest_item(SEGMENT_INDIVIDUAL, "v100-16g-x1", 1, 24, 30);
    ck_assert_int_eq(line->billed->total, 123100);
    ck_assert_uint_eq(line->n_bundle_comparisons, 1);
    ck_assert_str_eq(line->bundle_comparisons[0].bundle->id, "training-starter-monthly");
    ck_assert_int_eq(line->bundle_comparisons[0].difference, 123100 - 123100);

    /* 8 h x 30 days = 240 h: cheapest on demand, 240 x 2.28 = 547.20; the
     * card covers 240 h and is dearer by 1231.00 - 547.20 = 683.80. */
    line = cheapest_item(SEGMENT_INDIVIDUAL, "v100-16g-x1", 1, 8, 30);
    ck_assert_int_eq(line->billed->total, 54720);
    ck_assert_uint_eq(line->n_bundle_comparisons, 1);
    ck_assert_int_eq(line->bundle_comparisons[0].difference, 68380);

    /* Two instances: a one-instance card does not cover them. */
    line = cheapest_item(SEGMENT_INDIVIDUAL, "v100-16g-x1", 2, 24, 30);
    ck_assert_uint_eq(line->n_bundle_comparisons, 0);
    /* 24 h x 31 days = 744 h: more hours than the card's 720. */
    line = cheapest_item(SEGMENT_INDIVIDUAL, "v100-16g-x1", 1, 24, 31);
    ck_assert_uint_eq(line->n_bundle_comparisons, 0);
    /* Another SKU: not covered. */
    line = cheapest_item(SEGMENT_INDIVIDUAL, "v100-16g-x2", 1, 8, 30);
    ck_assert_uint_eq(line->n_bundle_comparisons, 0);

    /* Billed in a mode, an item is compared with nothing. */
    struct quote_item_request monthly[] = {item("v100-16g-x1", 1, "monthly", 24, 30)};
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, monthly, 1, NULL), GQ_OK);
    ck_assert_uint_eq(result->items[0].n_bundle_comparisons, 0);
}
END_TEST

/* The enterprise inference card (4 x T4 for 2160 h each, 57293.00,
 * enterprise only) against 4 x T4 billed cheapest for 90 days, 24 h. */
START_TEST(the_enterprise_card_is_dearer_than_four_t4_quarters)
{
    add_seed_bundles();
    /* Cheapest: one quarter each, 4 x 14321.00 = 57284.00. The card covers
     * it (4 >= 4, 2160 >= 2160 h) and costs 57293.00 - 57284.00 = 9.00
     * more: the item is cheaper. The training card is a V100's. */
    const struct quote_item_result *line =
        cheapest_item(SEGMENT_ENTERPRISE, "t4-16g-x1", 4, 24, 90);
    ck_assert_int_eq(line->billed->total, 5728400);
    ck_assert_uint_eq(line->n_bundle_comparisons, 1);
    ck_assert_str_eq(line->bundle_comparisons[0].bundle->id, "enterprise-inference-quarterly");
    ck_assert_int_eq(line->bundle_comparisons[0].difference, 900);
    /* Three T4s are covered too; 3 x 14321.00 = 42963.00, so the card is
     * dearer by 57293.00 - 42963.00 = 14330.00. */
    line = cheapest_item(SEGMENT_ENTERPRISE, "t4-16g-x1", 3, 24, 90);
    ck_assert_uint_eq(line->n_bundle_comparisons, 1);
    ck_assert_int_eq(line->bundle_comparisons[0].difference, 1433000);
    /* A startup may not buy the card: nothing to compare. */
    line = cheapest_item(SEGMENT_STARTUP, "t4-16g-x1", 4, 24, 90);
    ck_assert_uint_eq(line->n_bundle_comparisons, 0);
}
END_TEST

/* A bundle cheaper than the item says so with a negative difference; one
 * not on offer at `now` is not compared. */
START_TEST(a_cheaper_bundle_and_one_not_on_offer)
{
    struct bundle *cheap = add_bundle("cheap-v100-month", 164200, 100000, SEGMENT_MASK_ALL);
    add_bundle_item(cheap, "v100-16g-x1", 2, 720);
    struct bundle *later = add_bundle("later-v100-month", 164200, 90000, SEGMENT_MASK_ALL);
    add_bundle_item(later, "v100-16g-x1", 1, 720);
    later->valid_from = NOW + 1;
    struct bundle *over = add_bundle("over-v100-month", 164200, 90000, SEGMENT_MASK_ALL);
    add_bundle_item(over, "v100-16g-x1", 1, 720);
    over->valid_until = NOW;
    /* A student at 10 h x 30 days: 300 h at 1.50 = 450.00; the cheap
     * bundle (1000.00, two instances of 720 h) covers it and is dearer by
     * 1000.00 - 450.00 = 550.00. */
    const struct quote_item_result *line = cheapest_item(SEGMENT_STUDENT, "v100-16g-x1", 1, 10, 30);
    ck_assert_int_eq(line->billed->total, 45000);
    ck_assert_uint_eq(line->n_bundle_comparisons, 1);
    ck_assert_int_eq(line->bundle_comparisons[0].difference, 55000);
    /* An individual at 24 h x 30 days: 1231.00; the bundle is cheaper by
     * 231.00, a difference of 1000.00 - 1231.00 = -231.00. */
    line = cheapest_item(SEGMENT_INDIVIDUAL, "v100-16g-x1", 1, 24, 30);
    ck_assert_uint_eq(line->n_bundle_comparisons, 1);
    ck_assert_str_eq(line->bundle_comparisons[0].bundle->id, "cheap-v100-month");
    ck_assert_int_eq(line->bundle_comparisons[0].difference, 100000 - 123100);
    /* The later one, at its start, is on offer. */
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "cheapest", 24, 30)};
    struct quote_request request = {
        .segment = SEGMENT_INDIVIDUAL, .items = items, .n_items = 1, .now = NOW + 1};
    ck_assert_int_eq(quote_compute(catalog, &request, result, NULL), GQ_OK);
    ck_assert_uint_eq(result->items[0].n_bundle_comparisons, 2);
    ck_assert_str_eq(result->items[0].bundle_comparisons[1].bundle->id, "later-v100-month");
    ck_assert_int_eq(result->items[0].bundle_comparisons[1].difference, 90000 - 123100);
}
END_TEST

/* Restricts `mode` to `segments` in the test's catalog, as a row of the
 * catalog's billing-mode table would. */
static void restrict_mode(enum billing_mode mode, uint32_t segments)
{
    catalog->modes[mode].segment_mask = segments;
}

START_TEST(cheapest_skips_blocks_the_customer_may_not_use)
{
    restrict_mode(BILLING_MONTHLY, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    restrict_mode(BILLING_QUARTERLY, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "cheapest", 24, 100)};

    /* An individual may only pay on demand: 2.28 × 24 × 100 = 5472.00. */
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 1, NULL), GQ_OK);
    const struct quote_item_result *line = &result->items[0];
    ck_assert_int_eq(line->n_options, 1);
    ck_assert_int_eq(line->cheapest.plan.n_parts, 1);
    ck_assert_int_eq(line->cheapest.plan.parts[0].mode, BILLING_ON_DEMAND);
    ck_assert_int_eq(line->cheapest.total, 547200);
    ck_assert_int_eq(line->cheapest.total, option(line, BILLING_ON_DEMAND)->total);
    ck_assert_int_eq(line->billed->amount, 547200);
    ck_assert_int_eq(line->saving, 0);
    ck_assert_int_eq(line->break_even_tenths[BILLING_MONTHLY], -1);
    ck_assert_int_eq(line->break_even_tenths[BILLING_QUARTERLY], -1);
    ck_assert_int_eq(result->total, 547200);

    /* An enterprise still gets a quarter and ten days on demand: 3852.20. */
    ck_assert_int_eq(price(SEGMENT_ENTERPRISE, items, 1, NULL), GQ_OK);
    line = &result->items[0];
    ck_assert_int_eq(line->cheapest.plan.parts[0].mode, BILLING_QUARTERLY);
    ck_assert_int_eq(line->cheapest.plan.parts[1].mode, BILLING_ON_DEMAND);
    ck_assert_int_eq(line->billed->amount, 385220);
    ck_assert_int_eq(line->saving, 547200 - 385220);
    ck_assert_int_eq(line->break_even_tenths[BILLING_QUARTERLY], 161);
}
END_TEST

START_TEST(asked_billing_saves_nothing_against_an_unusable_cheaper_plan)
{
    restrict_mode(BILLING_MONTHLY, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    restrict_mode(BILLING_QUARTERLY, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "on_demand", 24, 100)};
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 1, NULL), GQ_OK);
    ck_assert_int_eq(result->items[0].billed->amount, 547200);
    ck_assert_int_eq(result->items[0].cheapest.total, 547200);
    ck_assert_int_eq(result->items[0].saving, 0);
}
END_TEST

/* Blocks only when on-demand is enterprise-only: the days are covered by
 * months and quarters, buying more days than used. */
static const struct {
    int32_t hours, days;
    gq_money one; /* per instance */
    int n_parts;
    enum billing_mode modes[2];
    int32_t blocks[2];
} blocks_only_cases[] = {
    /* A quarter and a month (4536) beat four months (4924) and two quarters. */
    {24, 100, 453600, 2, {BILLING_QUARTERLY, BILLING_MONTHLY}, {1, 1}},
    /* One month (1231), though 30 days on demand at 8 h would be 547.20. */
    {8, 30, 123100, 1, {BILLING_MONTHLY}, {1}},
    /* One month for a single hour. */
    {1, 1, 123100, 1, {BILLING_MONTHLY}, {1}},
    /* One quarter (3305) beats three months (3693). */
    {8, 85, 330500, 1, {BILLING_QUARTERLY}, {1}},
};

START_TEST(cheapest_is_blocks_only_without_on_demand)
{
    restrict_mode(BILLING_ON_DEMAND, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    struct quote_item_request items[] = {item(
        "v100-16g-x1", 3, "cheapest", blocks_only_cases[_i].hours, blocks_only_cases[_i].days)};
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 1, NULL), GQ_OK);
    const struct quote_item_result *line = &result->items[0];
    ck_assert_ptr_null(option(line, BILLING_ON_DEMAND));
    ck_assert_int_eq(line->n_options, 2);
    const struct plan *plan = &line->billed->plan;
    ck_assert_int_eq(plan->amount, blocks_only_cases[_i].one);
    ck_assert_int_eq(plan->n_parts, blocks_only_cases[_i].n_parts);
    for (int p = 0; p < plan->n_parts; p++) {
        ck_assert_int_eq(plan->parts[p].mode, blocks_only_cases[_i].modes[p]);
        ck_assert_int_eq(plan->parts[p].blocks, blocks_only_cases[_i].blocks[p]);
    }
    /* Three instances, billed at the cheapest. */
    ck_assert_int_eq(line->billed->amount, 3 * blocks_only_cases[_i].one);
    ck_assert_int_eq(result->total, 3 * blocks_only_cases[_i].one);
    /* Nothing to compare by the hour. */
    ck_assert_int_eq(line->saving, 0);
    ck_assert_int_eq(line->break_even_tenths[BILLING_MONTHLY], -1);
    ck_assert_int_eq(line->break_even_tenths[BILLING_QUARTERLY], -1);
}
END_TEST

START_TEST(asked_monthly_without_on_demand_saves_nothing)
{
    restrict_mode(BILLING_ON_DEMAND, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "monthly", 8, 30)};
    ck_assert_int_eq(price(SEGMENT_INDIVIDUAL, items, 1, NULL), GQ_OK);
    ck_assert_int_eq(result->items[0].billed->amount, 123100);
    ck_assert_int_eq(result->items[0].cheapest.total, 123100);
    ck_assert_int_eq(result->items[0].saving, 0);
}
END_TEST

/* A start-up allowed the student rate but not on-demand pays by the hour at
 * the student rate, and its break-even is against that rate, not against
 * on-demand (1231 / (2.28 × 30) = 18.0 h). */
START_TEST(break_even_is_against_the_hourly_mode_the_customer_may_use)
{
    restrict_mode(BILLING_ON_DEMAND, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    restrict_mode(BILLING_STUDENT, SEGMENT_BIT(SEGMENT_STUDENT) | SEGMENT_BIT(SEGMENT_STARTUP));
    struct quote_item_request items[] = {item("v100-16g-x1", 1, "cheapest", 24, 100)};
    ck_assert_int_eq(price(SEGMENT_STARTUP, items, 1, NULL), GQ_OK);
    const struct quote_item_result *line = &result->items[0];
    /* 1.50 × 24 × 100 = 3600.00 beats a quarter and ten student days. */
    ck_assert_int_eq(line->billed->amount, 360000);
    ck_assert_int_eq(line->billed->plan.n_parts, 1);
    ck_assert_int_eq(line->billed->plan.parts[0].mode, BILLING_STUDENT);
    ck_assert_int_eq(line->break_even_tenths[BILLING_MONTHLY], 274);   /* 1231 / (1.50 × 30) */
    ck_assert_int_eq(line->break_even_tenths[BILLING_QUARTERLY], 245); /* 3305 / (1.50 × 90) */
}
END_TEST

START_TEST(cheapest_with_no_usable_mode_is_not_eligible)
{
    restrict_mode(BILLING_ON_DEMAND, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    restrict_mode(BILLING_MONTHLY, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    restrict_mode(BILLING_QUARTERLY, 0); /* no row: usable by nobody */
    struct quote_item_request items[] = {item("t4-16g-x1", 1, "student", 8, 30),
                                         item("v100-16g-x1", 1, "cheapest", 24, 100)};
    struct gq_error err;
    ck_assert_int_eq(price(SEGMENT_STARTUP, items, 2, &err), GQ_ERR_NOT_ELIGIBLE);
    ck_assert_int_eq(err.code, GQ_ERR_NOT_ELIGIBLE);
    ck_assert_str_eq(err.field, "items[0].billing"); /* student billing, not theirs */
    items[0] = item("t4-16g-x1", 1, "cheapest", 8, 30);
    ck_assert_int_eq(price(SEGMENT_STARTUP, items, 2, &err), GQ_ERR_NOT_ELIGIBLE);
    ck_assert_str_eq(err.field, "items[0].billing");
    ck_assert_str_eq(err.message,
                     "no billing mode of SKU 't4-16g-x1' is available to customers of segment "
                     "startup");
    /* An enterprise may use on-demand and months: for the V100, three
     * months and ten days on demand (3693 + 547.20). */
    ck_assert_int_eq(price(SEGMENT_ENTERPRISE, items, 2, NULL), GQ_OK);
    ck_assert_int_eq(result->items[1].billed->amount, 424020);
    ck_assert_int_eq(result->items[1].billed->plan.parts[0].mode, BILLING_MONTHLY);
    ck_assert_int_eq(result->items[1].billed->plan.parts[0].blocks, 3);
}
END_TEST

static bool may_use_some_mode(const struct sku *sku, enum customer_segment segment)
{
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (quote_mode_allowed(catalog, sku, segment, (enum billing_mode)m))
            return true;
    return false;
}

/* Random quotes against random restrictions: every plan uses only modes
 * the customer may use, the cheapest is no dearer than any option, and a
 * SKU with no usable mode is reported at its own item. */
START_TEST(random_restricted_quotes_use_only_usable_modes)
{
    struct quote_item_request items[8];
    srand(7);
    for (int trial = 0; trial < 2000; trial++) {
        for (int m = 0; m < BILLING_MODE_COUNT; m++)
            restrict_mode((enum billing_mode)m, (uint32_t)rand() & SEGMENT_MASK_ALL);
        enum customer_segment segment = (enum customer_segment)(rand() % SEGMENT_COUNT);
        size_t n = 1 + (size_t)(rand() % 8);
        for (size_t i = 0; i < n; i++) {
            items[i] = item(catalog->skus[rand() % (int)catalog->n_skus].id, 1 + rand() % 20,
                            "cheapest", 1, 1);
            items[i].usage = (struct usage){1 + rand() % 24000, 1 + rand() % 400};
        }
        struct gq_error err;
        enum gq_code code = price(segment, items, n, &err);
        size_t unusable = 0;
        while (unusable < n && may_use_some_mode(items[unusable].sku, segment))
            unusable++;
        if (unusable < n) {
            char field[64];
            snprintf(field, sizeof field, "items[%zu].billing", unusable);
            ck_assert_int_eq(code, GQ_ERR_NOT_ELIGIBLE);
            ck_assert_str_eq(err.field, field);
            continue;
        }
        ck_assert_int_eq(code, GQ_OK);
        for (size_t i = 0; i < n; i++) {
            const struct quote_item_result *line = &result->items[i];
            const struct plan *plan = &line->cheapest.plan;
            for (int p = 0; p < plan->n_parts; p++)
                ck_assert(quote_mode_allowed(catalog, items[i].sku, segment, plan->parts[p].mode));
            for (int o = 0; o < line->n_options; o++)
                ck_assert_int_le(line->cheapest.total, line->options[o].total);
        }
    }
}
END_TEST

START_TEST(quote_status_over_time)
{
    ck_assert_str_eq(quote_status(false, NOW + 1, NOW), "open");
    ck_assert_str_eq(quote_status(false, NOW, NOW), "expired");
    ck_assert_str_eq(quote_status(true, NOW - 100, NOW), "accepted");
}
END_TEST

START_TEST(random_quotes_hold_their_invariants)
{
    static const char *const billings[] = {"on_demand", "monthly", "quarterly", "student",
                                           "cheapest"};
    add_rule("enterprise-7", 700, DISCOUNT_BILLING_ALL)->stackable = true;
    struct quote_item_request items[QUOTE_MAX_ITEMS];
    srand(42);
    for (int trial = 0; trial < 3000; trial++) {
        enum customer_segment segment = (enum customer_segment)(rand() % SEGMENT_COUNT);
        size_t n = 1 + (size_t)(rand() % 8);
        for (size_t i = 0; i < n; i++) {
            const char *billing = billings[rand() % 5];
            if (strcmp(billing, "student") == 0 && segment != SEGMENT_STUDENT)
                billing = "cheapest";
            items[i] = item(catalog->skus[rand() % (int)catalog->n_skus].id, 1 + rand() % 20,
                            billing, 1, 1);
            items[i].usage = (struct usage){1 + rand() % 24000, 1 + rand() % 400};
        }
        ck_assert_int_eq(price(segment, items, n, NULL), GQ_OK);
        gq_money sum = 0, discounts = 0;
        for (size_t i = 0; i < n; i++) {
            const struct quote_item_result *line = &result->items[i];
            for (int o = 0; o < line->n_options; o++) {
                ck_assert_int_le(line->cheapest.total, line->options[o].total);
                ck_assert_int_ge(line->options[o].total, 0);
                ck_assert_int_eq(line->options[o].amount,
                                 line->options[o].plan.amount * items[i].quantity);
            }
            ck_assert_int_ge(line->saving, 0);
            ck_assert_int_ge(line->billed->total, 0);
            sum += line->billed->amount;
            discounts += line->billed->discounts.total;
        }
        ck_assert_int_eq(result->subtotal, sum);
        ck_assert_int_eq(result->discount_total, discounts);
        ck_assert_int_eq(result->total, sum - discounts);
    }
}
END_TEST

#define LOOP(tc, test, table)                                                                      \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof((table)[0])))

static Suite *quote_suite(void)
{
    Suite *suite = suite_create("quote");
    TCase *tc = tcase_create("quote");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, digest_example_on_demand_wins_at_8_hours);
    tcase_add_test(tc, cheapest_segment_held_wins_and_ties_go_to_individual);
    tcase_add_test(tc, an_overflowing_mode_is_left_out_unless_billed);
    tcase_add_test(tc, an_overflowing_hourly_mode_fails_a_cheapest_item);
    tcase_add_test(tc, monthly_asked_shows_the_saving);
    tcase_add_test(tc, student_pays_the_student_rate);
    tcase_add_test(tc, cheapest_is_quarterly_at_24_hours_for_90_days);
    tcase_add_test(tc, cheapest_mixes_a_quarter_and_ten_days);
    LOOP(tc, quantity_three_triples, triple_cases);
    LOOP(tc, rejects_with_field_path, error_cases);
    tcase_add_test(tc, rejects_an_empty_quote_and_too_many_items);
    tcase_add_test(tc, discounts_reach_item_and_totals);
    tcase_add_test(tc, a_mode_discount_can_change_the_cheapest);
    tcase_add_test(tc, a_mixed_discount_can_change_the_cheapest);
    tcase_add_test(tc, bundles_add_their_own_price);
    tcase_add_test(tc, a_covering_bundle_is_compared_with_a_cheapest_item);
    tcase_add_test(tc, the_enterprise_card_is_dearer_than_four_t4_quarters);
    tcase_add_test(tc, a_cheaper_bundle_and_one_not_on_offer);
    tcase_add_test(tc, enterprise_card_costs_more_than_its_contents);
    tcase_add_test(tc, training_card_saves_nothing_and_is_dearer_for_students);
    tcase_add_test(tc, bundle_hours_that_are_not_whole_days);
    tcase_add_test(tc, cheapest_skips_blocks_the_customer_may_not_use);
    tcase_add_test(tc, asked_billing_saves_nothing_against_an_unusable_cheaper_plan);
    LOOP(tc, cheapest_is_blocks_only_without_on_demand, blocks_only_cases);
    tcase_add_test(tc, asked_monthly_without_on_demand_saves_nothing);
    tcase_add_test(tc, break_even_is_against_the_hourly_mode_the_customer_may_use);
    tcase_add_test(tc, cheapest_with_no_usable_mode_is_not_eligible);
    tcase_add_test(tc, random_restricted_quotes_use_only_usable_modes);
    tcase_add_test(tc, quote_status_over_time);
    tcase_add_test(tc, random_quotes_hold_their_invariants);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(quote_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
