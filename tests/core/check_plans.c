/*
 * Plans: single-mode prices, the cheapest cover and break-even usage, on
 * the seed catalog. The worked figures are asserted to the fen; the
 * cheapest cover is checked against an independent day-by-day dynamic
 * programme over thousands of random usages, with every mode usable and
 * with only some.
 */
#include <check.h>
#include <stdlib.h>

#include "core/plans.h"
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

static const struct sku *sku(const char *id)
{
    const struct sku *found = catalog_find_sku(catalog, id);
    ck_assert_ptr_nonnull(found);
    return found;
}

static struct usage hours_days(int32_t hours, int32_t days)
{
    return (struct usage){hours * USAGE_MILLIHOURS_PER_HOUR, days};
}

/* Every worked figure of the plans, per instance. */
static const struct {
    const char *sku;
    enum billing_mode mode;
    int32_t millihours_per_day;
    int32_t days;
    gq_money amount;
    int32_t blocks;
} single_cases[] = {
    {"v100-16g-x1", BILLING_ON_DEMAND, 8000, 90, 164160, 0},    /* 2.28 × 8 × 90 */
    {"v100-16g-x1", BILLING_MONTHLY, 8000, 90, 369300, 3},      /* 3 × 1231 */
    {"v100-16g-x1", BILLING_QUARTERLY, 8000, 90, 330500, 1},    /* 1 × 3305 */
    {"v100-16g-x1", BILLING_STUDENT, 8000, 90, 108000, 0},      /* 1.50 × 720 */
    {"v100-16g-x1", BILLING_MONTHLY, 24000, 100, 492400, 4},    /* ⌈100/30⌉ = 4 */
    {"v100-16g-x1", BILLING_QUARTERLY, 24000, 100, 661000, 2},  /* ⌈100/90⌉ = 2 */
    {"v100-16g-x1", BILLING_ON_DEMAND, 7500, 1, 1710, 0},       /* 2.28 × 7.5 = 17.10 */
    {"v100-16g-x1", BILLING_ON_DEMAND, 2, 1, 0, 0},             /* 0.456 fen -> 0.00 */
    {"v100-16g-x1", BILLING_ON_DEMAND, 3, 1, 1, 0},             /* 0.684 fen -> 0.01 */
    {"t4-16g-x1", BILLING_ON_DEMAND, 50, 1, 50, 0},             /* 49.5 fen: half-up -> 0.50 */
    {"t4-16g-x1", BILLING_ON_DEMAND, 49, 1, 49, 0},             /* 48.51 fen -> 0.49 */
    {"t4-16g-x1", BILLING_ON_DEMAND, 24000, 30, 712800, 0},     /* 9.90 × 720 */
    {"v100-32g-x8", BILLING_QUARTERLY, 24000, 3650, 2790700 * 41, 41},
    {"v100-32g-x4", BILLING_STUDENT, 12345, 7, 55133, 0},       /* 6.38 × 86.415 = 551.3277 */
};

START_TEST(prices_one_mode_exactly)
{
    struct plan plan;
    struct usage usage = {single_cases[_i].millihours_per_day, single_cases[_i].days};
    ck_assert_int_eq(plan_single_mode(sku(single_cases[_i].sku), single_cases[_i].mode, &usage,
                                      &plan),
                     GQ_OK);
    ck_assert_int_eq(plan.amount, single_cases[_i].amount);
    ck_assert_int_eq(plan.n_parts, 1);
    ck_assert_int_eq(plan.parts[0].mode, single_cases[_i].mode);
    ck_assert_int_eq(plan.parts[0].blocks, single_cases[_i].blocks);
    ck_assert_int_eq(plan.parts[0].days, single_cases[_i].days);
}
END_TEST

START_TEST(unpriced_mode_is_not_eligible)
{
    struct sku copy = *sku("v100-16g-x1");
    copy.priced[BILLING_MONTHLY] = false;
    struct plan plan;
    struct usage usage = hours_days(8, 90);
    ck_assert_int_eq(plan_single_mode(&copy, BILLING_MONTHLY, &usage, &plan), GQ_ERR_NOT_ELIGIBLE);
}
END_TEST

/* The parts a cover is expected to have: a mode, blocks and days each. */
struct expected_parts {
    gq_money amount;
    int n_parts;
    enum billing_mode modes[3];
    int32_t blocks[3];
    int32_t part_days[3];
};

static void assert_parts(const struct plan *plan, const struct expected_parts *expected)
{
    ck_assert_int_eq(plan->amount, expected->amount);
    ck_assert_int_eq(plan->n_parts, expected->n_parts);
    for (int p = 0; p < plan->n_parts; p++) {
        ck_assert_int_eq(plan->parts[p].mode, expected->modes[p]);
        ck_assert_int_eq(plan->parts[p].blocks, expected->blocks[p]);
        ck_assert_int_eq(plan->parts[p].days, expected->part_days[p]);
    }
}

/* The cheapest covers of the worked figures, as parts. */
static const struct {
    int32_t hours, days;
    enum billing_mode hourly;
    struct expected_parts expected;
} cheapest_cases[] = {
    {8, 90, BILLING_ON_DEMAND, {164160, 1, {BILLING_ON_DEMAND}, {0}, {90}}},
    {8, 90, BILLING_STUDENT, {108000, 1, {BILLING_STUDENT}, {0}, {90}}},
    {24, 90, BILLING_ON_DEMAND, {330500, 1, {BILLING_QUARTERLY}, {1}, {90}}},
    {24, 100, BILLING_ON_DEMAND,
     {385220, 2, {BILLING_QUARTERLY, BILLING_ON_DEMAND}, {1, 0}, {90, 10}}},
    /* 24 h × 120 days: a quarter + a month (4536) beats a quarter + 30
     * on-demand days (4946.60) and two quarters (6610). */
    {24, 120, BILLING_ON_DEMAND,
     {453600, 2, {BILLING_QUARTERLY, BILLING_MONTHLY}, {1, 1}, {90, 30}}},
    /* 24 h × 30 days: one month (1231) beats 30 days on demand (1641.60). */
    {24, 30, BILLING_ON_DEMAND, {123100, 1, {BILLING_MONTHLY}, {1}, {30}}},
    /* 24 h × 85 days: one quarter (3305) beats 2 months + 25 days (3830). */
    {24, 85, BILLING_ON_DEMAND, {330500, 1, {BILLING_QUARTERLY}, {1}, {85}}},
    /* Students: the student rate beats a month at any usage (27.4 h). */
    {24, 30, BILLING_STUDENT, {108000, 1, {BILLING_STUDENT}, {0}, {30}}},
};

START_TEST(finds_the_cheapest_cover)
{
    struct usage usage = hours_days(cheapest_cases[_i].hours, cheapest_cases[_i].days);
    struct plan plan;
    ck_assert_int_eq(plan_cheapest(sku("v100-16g-x1"), BILLING_MODE_MASK_ALL,
                                   cheapest_cases[_i].hourly, &usage, &plan),
                     GQ_OK);
    assert_parts(&plan, &cheapest_cases[_i].expected);
}
END_TEST

START_TEST(mixed_plan_parts_add_up)
{
    struct usage usage = hours_days(24, 100);
    struct plan plan;
    ck_assert_int_eq(
        plan_cheapest(sku("v100-16g-x1"), BILLING_MODE_MASK_ALL, BILLING_ON_DEMAND, &usage, &plan),
        GQ_OK);
    ck_assert(plan_is_mixed(&plan));
    ck_assert_int_eq(plan.parts[0].amount, 330500);
    ck_assert_int_eq(plan.parts[1].amount, 54720); /* 2.28 × 240 h */
    ck_assert_int_eq(plan.parts[1].millihours, 240000);
}
END_TEST

/* Equal plans: the same parts for the same amounts, whatever their
 * addresses; any one field apart makes them different. */
START_TEST(compares_plans)
{
    struct usage usage = hours_days(24, 100);
    struct plan mixed, again, monthly;
    ck_assert_int_eq(
        plan_cheapest(sku("v100-16g-x1"), BILLING_MODE_MASK_ALL, BILLING_ON_DEMAND, &usage, &mixed),
        GQ_OK);
    ck_assert_int_eq(
        plan_cheapest(sku("v100-16g-x1"), BILLING_MODE_MASK_ALL, BILLING_ON_DEMAND, &usage, &again),
        GQ_OK);
    ck_assert_int_eq(plan_single_mode(sku("v100-16g-x1"), BILLING_MONTHLY, &usage, &monthly),
                     GQ_OK);
    ck_assert(plan_equal(&mixed, &again));
    ck_assert(!plan_equal(&mixed, &monthly));
    again.parts[1].days++;
    ck_assert(!plan_equal(&mixed, &again));
    again = mixed;
    again.parts[0].amount--;
    ck_assert(!plan_equal(&mixed, &again));
    again = mixed;
    again.n_parts = 1;
    ck_assert(!plan_equal(&mixed, &again));
}
END_TEST

#define OD BILLING_MODE_BIT(BILLING_ON_DEMAND)
#define MONTHS BILLING_MODE_BIT(BILLING_MONTHLY)
#define QUARTERS BILLING_MODE_BIT(BILLING_QUARTERLY)
#define BLOCKS (MONTHS | QUARTERS)

/* Covers by only the modes a customer may use, on V100 16GB × 1 (2.28/h,
 * 1231 a month, 3305 a quarter). */
static const struct {
    uint32_t usable;
    int32_t hours, days;
    enum billing_mode hourly;
    struct expected_parts expected;
} restricted_cases[] = {
    /* No blocks: 2.28 × 24 × 100 = 5472.00, though a quarter and ten days
     * on demand (3852.20) would be cheaper. */
    {OD, 24, 100, BILLING_ON_DEMAND, {547200, 1, {BILLING_ON_DEMAND}, {0}, {100}}},
    /* No quarters: three months and ten days (3693 + 547.20) beat four
     * months (4924). */
    {OD | MONTHS, 24, 100, BILLING_ON_DEMAND, {424020, 2, {BILLING_MONTHLY, BILLING_ON_DEMAND},
     {3, 0}, {90, 10}}},
    /* Blocks only, 100 days: a quarter and a month (4536) beat four months
     * (4924) and two quarters (6610). */
    {BLOCKS, 24, 100, BILLING_ON_DEMAND, {453600, 2, {BILLING_QUARTERLY, BILLING_MONTHLY}, {1, 1},
     {90, 10}}},
    /* Blocks only, 30 days at 8 h: one month (1231), though on demand would
     * be 547.20. */
    {BLOCKS, 8, 30, BILLING_ON_DEMAND, {123100, 1, {BILLING_MONTHLY}, {1}, {30}}},
    /* Blocks only, one hour on one day: still a whole month. */
    {BLOCKS, 1, 1, BILLING_ON_DEMAND, {123100, 1, {BILLING_MONTHLY}, {1}, {1}}},
    /* Blocks only, 85 days: one quarter (3305) beats three months (3693). */
    {BLOCKS, 8, 85, BILLING_ON_DEMAND, {330500, 1, {BILLING_QUARTERLY}, {1}, {85}}},
    /* Quarters alone: 100 days take two. */
    {QUARTERS, 24, 100, BILLING_ON_DEMAND, {661000, 1, {BILLING_QUARTERLY}, {2}, {100}}},
    /* Months alone: 100 days take four. */
    {MONTHS, 24, 100, BILLING_ON_DEMAND, {492400, 1, {BILLING_MONTHLY}, {4}, {100}}},
    /* The hourly mode passed (student) is not usable: blocks only, even
     * with on-demand in the mask (falling back is the caller's choice). */
    {OD | BLOCKS, 8, 90, BILLING_STUDENT, {330500, 1, {BILLING_QUARTERLY}, {1}, {90}}},
};

START_TEST(cheapest_uses_only_usable_modes)
{
    struct usage usage = hours_days(restricted_cases[_i].hours, restricted_cases[_i].days);
    struct plan plan;
    ck_assert_int_eq(plan_cheapest(sku("v100-16g-x1"), restricted_cases[_i].usable,
                                   restricted_cases[_i].hourly, &usage, &plan),
                     GQ_OK);
    assert_parts(&plan, &restricted_cases[_i].expected);
}
END_TEST

/* Nothing the customer may use can cover the days. */
START_TEST(cheapest_without_a_usable_mode_is_not_eligible)
{
    struct usage usage = hours_days(8, 90);
    struct plan plan;
    ck_assert_int_eq(plan_cheapest(sku("v100-16g-x1"), 0, BILLING_ON_DEMAND, &usage, &plan),
                     GQ_ERR_NOT_ELIGIBLE);
    ck_assert_int_eq(plan.n_parts, 0);
    ck_assert_int_eq(plan.amount, 0);
    /* Student usable, but on-demand is the hourly mode asked for. */
    ck_assert_int_eq(plan_cheapest(sku("v100-16g-x1"), BILLING_MODE_BIT(BILLING_STUDENT),
                                   BILLING_ON_DEMAND, &usage, &plan),
                     GQ_ERR_NOT_ELIGIBLE);
    /* Blocks usable, but the SKU has no block prices. */
    struct sku hourly_only = *sku("v100-16g-x1");
    hourly_only.priced[BILLING_MONTHLY] = false;
    hourly_only.priced[BILLING_QUARTERLY] = false;
    ck_assert_int_eq(plan_cheapest(&hourly_only, BLOCKS, BILLING_ON_DEMAND, &usage, &plan),
                     GQ_ERR_NOT_ELIGIBLE);
}
END_TEST

/* Break-even usage in tenths of an hour per day. */
static const struct {
    const char *sku;
    enum billing_mode hourly, block;
    int32_t tenths;
} break_even_cases[] = {
    {"v100-16g-x1", BILLING_ON_DEMAND, BILLING_MONTHLY, 180},   /* 1231 / (2.28 × 30) = 17.997 */
    {"v100-16g-x1", BILLING_ON_DEMAND, BILLING_QUARTERLY, 161}, /* 3305 / (2.28 × 90) = 16.106 */
    {"v100-16g-x1", BILLING_STUDENT, BILLING_MONTHLY, 274},     /* 1231 / (1.50 × 30) = 27.36 */
    {"t4-16g-x1", BILLING_ON_DEMAND, BILLING_MONTHLY, 180},     /* 5350 / (9.90 × 30) = 18.01 */
    {"v100-32g-x8", BILLING_ON_DEMAND, BILLING_QUARTERLY, 161}, /* 27907 / (19.28 × 90) = 16.08 */
};

START_TEST(computes_break_even)
{
    ck_assert_int_eq(plan_break_even_tenths(sku(break_even_cases[_i].sku),
                                            break_even_cases[_i].hourly,
                                            break_even_cases[_i].block),
                     break_even_cases[_i].tenths);
}
END_TEST

#define NO_COVER INT64_MAX

/* `cost` of what came before plus `step`, unless there is no such cover. */
static int64_t extend(int64_t cost, int64_t step)
{
    return cost == NO_COVER ? NO_COVER : cost + step;
}

static int64_t cheaper(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Independent reference: cost[d] = min(cost[d-1] + one hourly day,
 * cost[d-30] + a month, cost[d-90] + a quarter), in fen × milli-hours,
 * each step taken only when its mode is in `usable` (and priced).
 * NO_COVER when the usable modes cannot cover the days. */
static int64_t reference_cheapest(const struct sku *s, uint32_t usable, enum billing_mode hourly,
                                  const struct usage *usage)
{
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (!s->priced[m])
            usable &= ~BILLING_MODE_BIT(m);
    int64_t *cost = malloc(((size_t)usage->days + 1) * sizeof *cost);
    ck_assert_ptr_nonnull(cost);
    cost[0] = 0;
    int64_t day = s->price[hourly] * usage->millihours_per_day;
    for (int32_t d = 1; d <= usage->days; d++) {
        int64_t before_month = cost[d >= 30 ? d - 30 : 0];
        int64_t before_quarter = cost[d >= 90 ? d - 90 : 0];
        int64_t best = NO_COVER;
        if (usable & BILLING_MODE_BIT(hourly))
            best = extend(cost[d - 1], day);
        if (usable & MONTHS)
            best = cheaper(best, extend(before_month, s->price[BILLING_MONTHLY] * 1000));
        if (usable & QUARTERS)
            best = cheaper(best, extend(before_quarter, s->price[BILLING_QUARTERLY] * 1000));
        cost[d] = best;
    }
    int64_t result = cost[usage->days];
    free(cost);
    return result;
}

static int64_t exact_plan_cost(const struct sku *s, const struct plan *plan)
{
    int64_t total = 0;
    for (int p = 0; p < plan->n_parts; p++) {
        const struct plan_part *part = &plan->parts[p];
        total += billing_mode_is_hourly(part->mode) ? s->price[part->mode] * part->millihours
                                                    : s->price[part->mode] * part->blocks * 1000;
    }
    return total;
}

START_TEST(cheapest_matches_reference_and_beats_every_mode)
{
    srand(20261130);
    for (int trial = 0; trial < 4000; trial++) {
        const struct sku *s = &catalog->skus[rand() % (int)catalog->n_skus];
        enum billing_mode hourly = rand() % 4 == 0 ? BILLING_STUDENT : BILLING_ON_DEMAND;
        struct usage usage = {1 + rand() % USAGE_MAX_MILLIHOURS_PER_DAY, 1 + rand() % 400};
        if (trial % 10 == 0)
            usage.days = 1 + rand() % USAGE_MAX_DAYS;
        struct plan cheapest;
        ck_assert_int_eq(plan_cheapest(s, BILLING_MODE_MASK_ALL, hourly, &usage, &cheapest), GQ_OK);
        ck_assert_int_eq(exact_plan_cost(s, &cheapest),
                         reference_cheapest(s, BILLING_MODE_MASK_ALL, hourly, &usage));
        ck_assert_int_ge(cheapest.amount, 0);
        int32_t covered = 0;
        for (int p = 0; p < cheapest.n_parts; p++)
            covered += cheapest.parts[p].days;
        ck_assert_int_eq(covered, usage.days);
        enum billing_mode modes[] = {hourly, BILLING_MONTHLY, BILLING_QUARTERLY};
        for (size_t m = 0; m < 3; m++) {
            struct plan single;
            ck_assert_int_eq(plan_single_mode(s, modes[m], &usage, &single), GQ_OK);
            ck_assert_int_le(cheapest.amount, single.amount);
        }
    }
}
END_TEST

/* Every subset of the modes, against the same reference: the plan uses
 * only usable modes, covers every day, and is NOT_ELIGIBLE exactly when
 * the reference finds no cover. */
START_TEST(restricted_cheapest_matches_reference)
{
    srand(20260214);
    for (int trial = 0; trial < 4000; trial++) {
        const struct sku *s = &catalog->skus[rand() % (int)catalog->n_skus];
        uint32_t usable = (uint32_t)rand() & BILLING_MODE_MASK_ALL;
        enum billing_mode hourly = rand() % 2 == 0 ? BILLING_STUDENT : BILLING_ON_DEMAND;
        struct usage usage = {1 + rand() % USAGE_MAX_MILLIHOURS_PER_DAY, 1 + rand() % 400};
        if (trial % 10 == 0)
            usage.days = 1 + rand() % USAGE_MAX_DAYS;
        int64_t reference = reference_cheapest(s, usable, hourly, &usage);
        struct plan cheapest;
        enum gq_code code = plan_cheapest(s, usable, hourly, &usage, &cheapest);
        if (reference == NO_COVER) {
            ck_assert_int_eq(code, GQ_ERR_NOT_ELIGIBLE);
            continue;
        }
        ck_assert_int_eq(code, GQ_OK);
        ck_assert_int_eq(exact_plan_cost(s, &cheapest), reference);
        int32_t covered = 0;
        for (int p = 0; p < cheapest.n_parts; p++) {
            ck_assert(usable & BILLING_MODE_BIT(cheapest.parts[p].mode));
            covered += cheapest.parts[p].days;
        }
        ck_assert_int_eq(covered, usage.days);
    }
}
END_TEST

/* Independent reference for the cheapest mixed cover: every quarter and
 * month count, kept when it uses two of quarters, months and hours with no
 * month covering no day. NO_COVER when there is none. */
static int64_t reference_cheapest_mixed(const struct sku *s, uint32_t usable,
                                        enum billing_mode hourly, const struct usage *usage)
{
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (!s->priced[m])
            usable &= ~BILLING_MODE_BIT(m);
    int32_t days = usage->days;
    int64_t best = NO_COVER;
    for (int32_t q = 0; q <= days / 90 + 1; q++) {
        for (int32_t m = 0; m <= days / 30 + 2; m++) {
            int32_t hourly_days = days - 90 * q - 30 * m;
            bool month_wasted = m > 0 && 90 * q + 30 * (m - 1) >= days;
            bool quarter_wasted = q > 0 && (m > 0 || hourly_days > 0) && 90 * q >= days;
            int parts = (q > 0) + (m > 0) + (hourly_days > 0);
            bool offered = (q == 0 || (usable & QUARTERS)) && (m == 0 || (usable & MONTHS)) &&
                           (hourly_days <= 0 || (usable & BILLING_MODE_BIT(hourly)));
            if (parts < 2 || month_wasted || quarter_wasted || !offered)
                continue;
            int64_t cost = q * s->price[BILLING_QUARTERLY] * 1000 +
                           m * s->price[BILLING_MONTHLY] * 1000 +
                           (hourly_days > 0 ? hourly_days * s->price[hourly] * usage->millihours_per_day
                                            : 0);
            best = cheaper(best, cost);
        }
    }
    return best;
}

START_TEST(cheapest_mixed_matches_exhaustive_search)
{
    srand(20261201);
    int found = 0;
    for (int trial = 0; trial < 4000; trial++) {
        const struct sku *s = &catalog->skus[rand() % (int)catalog->n_skus];
        uint32_t usable = trial % 2 == 0 ? BILLING_MODE_MASK_ALL
                                          : (uint32_t)rand() & BILLING_MODE_MASK_ALL;
        enum billing_mode hourly = rand() % 4 == 0 ? BILLING_STUDENT : BILLING_ON_DEMAND;
        struct usage usage = {1 + rand() % USAGE_MAX_MILLIHOURS_PER_DAY, 1 + rand() % 400};
        if (trial % 10 == 0)
            usage.days = 1 + rand() % USAGE_MAX_DAYS;
        int64_t reference = reference_cheapest_mixed(s, usable, hourly, &usage);
        struct plan mixed;
        enum gq_code code = plan_cheapest_mixed(s, usable, hourly, &usage, &mixed);
        if (reference == NO_COVER) {
            ck_assert_int_eq(code, GQ_ERR_NOT_ELIGIBLE);
            continue;
        }
        found++;
        ck_assert_int_eq(code, GQ_OK);
        ck_assert(plan_is_mixed(&mixed));
        ck_assert_int_eq(exact_plan_cost(s, &mixed), reference);
        int32_t covered = 0;
        for (int p = 0; p < mixed.n_parts; p++) {
            ck_assert(usable & BILLING_MODE_BIT(mixed.parts[p].mode));
            ck_assert_int_gt(mixed.parts[p].days, 0);
            covered += mixed.parts[p].days;
        }
        ck_assert_int_eq(covered, usage.days);
    }
    ck_assert_int_gt(found, 1000); /* the search is not vacuous */
}
END_TEST

/* 120 days at 12 h on v100-16g-x1: by the hour is cheapest (3283.20); the
 * cheapest mixed cover is a month and 90 days by the hour (3693.40), not
 * a quarter and 30 days (4125.80). A month covers 30 days or less: none. */
START_TEST(cheapest_mixed_cover_examples)
{
    const struct sku *s = sku("v100-16g-x1");
    struct plan mixed;
    struct usage usage = hours_days(12, 120);
    ck_assert_int_eq(plan_cheapest_mixed(s, BILLING_MODE_MASK_ALL, BILLING_ON_DEMAND, &usage, &mixed),
                     GQ_OK);
    ck_assert_int_eq(mixed.amount, 369340);
    ck_assert_int_eq(mixed.n_parts, 2);
    ck_assert_int_eq(mixed.parts[0].mode, BILLING_MONTHLY);
    ck_assert_int_eq(mixed.parts[0].blocks, 1);
    ck_assert_int_eq(mixed.parts[1].mode, BILLING_ON_DEMAND);
    ck_assert_int_eq(mixed.parts[1].days, 90);
    usage = hours_days(24, 30);
    ck_assert_int_eq(plan_cheapest_mixed(s, BILLING_MODE_MASK_ALL, BILLING_ON_DEMAND, &usage, &mixed),
                     GQ_ERR_NOT_ELIGIBLE);
}
END_TEST

START_TEST(usage_ranges)
{
    ck_assert(usage_is_valid(&(struct usage){1, 1}));
    ck_assert(usage_is_valid(&(struct usage){24000, 3650}));
    ck_assert(!usage_is_valid(&(struct usage){0, 1}));
    ck_assert(!usage_is_valid(&(struct usage){24001, 1}));
    ck_assert(!usage_is_valid(&(struct usage){8000, 0}));
    ck_assert(!usage_is_valid(&(struct usage){8000, 3651}));
    ck_assert_int_eq(usage_millihours(&(struct usage){7500, 90}), 675000);
}
END_TEST

#define LOOP(tc, test, table) \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof((table)[0])))

static Suite *plans_suite(void)
{
    Suite *suite = suite_create("plans");
    TCase *tc = tcase_create("plans");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    LOOP(tc, prices_one_mode_exactly, single_cases);
    tcase_add_test(tc, unpriced_mode_is_not_eligible);
    LOOP(tc, finds_the_cheapest_cover, cheapest_cases);
    tcase_add_test(tc, mixed_plan_parts_add_up);
    tcase_add_test(tc, compares_plans);
    LOOP(tc, cheapest_uses_only_usable_modes, restricted_cases);
    tcase_add_test(tc, cheapest_without_a_usable_mode_is_not_eligible);
    LOOP(tc, computes_break_even, break_even_cases);
    tcase_add_test(tc, cheapest_matches_reference_and_beats_every_mode);
    tcase_add_test(tc, restricted_cheapest_matches_reference);
    tcase_add_test(tc, cheapest_mixed_matches_exhaustive_search);
    tcase_add_test(tc, cheapest_mixed_cover_examples);
    tcase_add_test(tc, usage_ranges);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(plans_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
