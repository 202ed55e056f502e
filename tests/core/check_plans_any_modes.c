/*
 * Mode plans: the cheapest plan over any set of billing modes.
 *
 * Three kinds of evidence. The seed's four modes, written as data, give
 * exactly what plans.c gives, part for part, over a grid of usages, SKUs
 * and usable modes, and every figure of check_plans.c. On thousands of
 * random mode sets (block lengths 1–400 days, prices in fen, hourly modes
 * with increments and minimums) the plan costs, to the fen, the least of
 * an exhaustive search over block counts written apart. And fixed cases:
 * increments per day of use, weeks, years, two monthly products, break-even
 * with increments, plans in words in both languages.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/mode_plans.h"
#include "core/plans.h"
#include "fixture_catalog.h"

__extension__ typedef __int128 wide;

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

/* ---- the seed's modes as data ------------------------------------------ */

static struct priced_mode seed_mode(const struct sku *s, enum billing_mode mode)
{
    struct priced_mode data = {.id = billing_mode_id(mode), .price = s->price[mode]};
    switch (mode) {
    case BILLING_QUARTERLY:
    case BILLING_MONTHLY:
        data.kind = PRICED_MODE_BLOCK;
        data.block_days = mode == BILLING_QUARTERLY ? 90 : 30;
        data.name_one[GQ_LANG_EN] = mode == BILLING_QUARTERLY ? "quarter" : "month";
        data.name_many[GQ_LANG_EN] = mode == BILLING_QUARTERLY ? "quarters" : "months";
        data.name_one[GQ_LANG_ZH_CN] = mode == BILLING_QUARTERLY ? "个季度" : "个月";
        break;
    case BILLING_ON_DEMAND:
    case BILLING_STUDENT:
    case BILLING_MODE_COUNT:
        data.kind = PRICED_MODE_HOURLY; /* increment 0: billed as used, as today */
        data.name_one[GQ_LANG_EN] = mode == BILLING_STUDENT ? "at the student rate" : "on demand";
        data.name_one[GQ_LANG_ZH_CN] = mode == BILLING_STUDENT ? "学生优惠价" : "按需计费";
        break;
    }
    return data;
}

/* The modes plan_cheapest() may use with these arguments, as data; seeds[i]
 * says which enum each is. */
static int seed_modes(const struct sku *s, uint32_t usable, enum billing_mode hourly,
                      struct priced_mode *modes, enum billing_mode *seeds)
{
    const enum billing_mode candidates[] = {hourly, BILLING_MONTHLY, BILLING_QUARTERLY};
    int n = 0;
    for (size_t i = 0; i < 3; i++) {
        enum billing_mode mode = candidates[i];
        if (!s->priced[mode] || (usable & BILLING_MODE_BIT(mode)) == 0)
            continue;
        seeds[n] = mode;
        modes[n++] = seed_mode(s, mode);
    }
    return n;
}

static void assert_same_plan(const struct plan *old, const struct mode_plan *new,
                             const enum billing_mode *seeds, const char *what)
{
    ck_assert_msg(old->amount == new->amount, "%s: amount %lld, was %lld", what,
                  (long long)new->amount, (long long)old->amount);
    ck_assert_msg(old->n_parts == new->n_parts, "%s: %d parts, were %d", what, new->n_parts,
                  old->n_parts);
    for (int p = 0; p < old->n_parts; p++) {
        const struct plan_part *a = &old->parts[p];
        const struct mode_plan_part *b = &new->parts[p];
        ck_assert_msg(a->mode == seeds[b->mode] && a->blocks == b->blocks && a->days == b->days &&
                          a->millihours == b->millihours && a->amount == b->amount,
                      "%s: part %d is %s × %d, %d days, %lld fen; was %s × %d, %d days, %lld fen",
                      what, p, billing_mode_id(seeds[b->mode]), b->blocks, b->days,
                      (long long)b->amount, billing_mode_id(a->mode), a->blocks, a->days,
                      (long long)a->amount);
        if (billing_mode_is_hourly(a->mode))
            ck_assert_int_eq(b->billed_deciseconds, a->millihours * 36);
    }
}

static const int32_t grid_millihours[] = {1,     2,     3,     49,    50,    1000,  7500,  8000,
                                          12345, 16000, 16107, 17996, 18000, 20000, 23999, 24000};

/* Every SKU, both hourly modes, every subset of the modes, a grid of hours
 * and every length from 1 to 400 days and some to 3650: today's cheapest
 * cover and single-mode prices, part for part. The loop index picks the
 * SKU. */
START_TEST(seed_modes_give_todays_plans)
{
    const struct sku *s = &catalog->skus[_i];
    int compared = 0;
    for (int h = 0; h < 2; h++) {
        enum billing_mode hourly = h == 0 ? BILLING_ON_DEMAND : BILLING_STUDENT;
        for (uint32_t usable = 0; usable <= BILLING_MODE_MASK_ALL; usable++) {
            struct priced_mode modes[3];
            enum billing_mode seeds[3];
            int n = seed_modes(s, usable, hourly, modes, seeds);
            for (size_t g = 0; g < sizeof grid_millihours / sizeof grid_millihours[0]; g++) {
                for (int32_t days = 1; days <= USAGE_MAX_DAYS; days += days < 400 ? 1 : 97) {
                    struct usage usage = {grid_millihours[g], days};
                    struct plan old;
                    struct mode_plan new;
                    char what[160];
                    snprintf(what, sizeof what, "%s, %s, modes %#x, %d mh, %d days", s->id,
                             billing_mode_id(hourly), usable, usage.millihours_per_day, days);
                    enum gq_code old_code = plan_cheapest(s, usable, hourly, &usage, &old);
                    ck_assert_int_eq(mode_plan_cheapest(modes, n, &usage, &new), old_code);
                    if (old_code == GQ_OK)
                        assert_same_plan(&old, &new, seeds, what);
                    compared++;
                }
            }
        }
    }
    ck_assert_int_gt(compared, 100000);
}
END_TEST

START_TEST(seed_modes_give_todays_single_prices_and_break_evens)
{
    const struct sku *s = &catalog->skus[_i];
    const enum billing_mode all[] = {BILLING_ON_DEMAND, BILLING_MONTHLY, BILLING_QUARTERLY,
                                     BILLING_STUDENT};
    struct priced_mode modes[4];
    for (int m = 0; m < 4; m++)
        modes[m] = seed_mode(s, all[m]);
    for (size_t g = 0; g < sizeof grid_millihours / sizeof grid_millihours[0]; g++) {
        for (int32_t days = 1; days <= USAGE_MAX_DAYS; days += days < 200 ? 1 : 89) {
            struct usage usage = {grid_millihours[g], days};
            for (int m = 0; m < 4; m++) {
                struct plan old;
                struct mode_plan new;
                ck_assert_int_eq(plan_single_mode(s, all[m], &usage, &old), GQ_OK);
                ck_assert_int_eq(mode_plan_single(modes, m, &usage, &new), GQ_OK);
                assert_same_plan(&old, &new, all, "single mode");
            }
        }
    }
    int32_t table[MODE_PLAN_MAX_MODES][MODE_PLAN_MAX_MODES];
    mode_plan_break_evens(modes, 4, table);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            bool pair = billing_mode_is_hourly(all[i]) && !billing_mode_is_hourly(all[j]);
            ck_assert_int_eq(table[i][j], pair ? plan_break_even_tenths(s, all[i], all[j]) : -1);
        }
}
END_TEST

/* ---- every figure of check_plans.c, through the new search ------------- */

static const struct {
    const char *sku;
    enum billing_mode mode;
    int32_t millihours_per_day, days;
    gq_money amount;
    int32_t blocks;
} single_figures[] = {
    {"v100-16g-x1", BILLING_ON_DEMAND, 8000, 90, 164160, 0},
    {"v100-16g-x1", BILLING_MONTHLY, 8000, 90, 369300, 3},
    {"v100-16g-x1", BILLING_QUARTERLY, 8000, 90, 330500, 1},
    {"v100-16g-x1", BILLING_STUDENT, 8000, 90, 108000, 0},
    {"v100-16g-x1", BILLING_MONTHLY, 24000, 100, 492400, 4},
    {"v100-16g-x1", BILLING_QUARTERLY, 24000, 100, 661000, 2},
    {"v100-16g-x1", BILLING_ON_DEMAND, 7500, 1, 1710, 0},
    {"v100-16g-x1", BILLING_ON_DEMAND, 2, 1, 0, 0},
    {"v100-16g-x1", BILLING_ON_DEMAND, 3, 1, 1, 0},
    {"t4-16g-x1", BILLING_ON_DEMAND, 50, 1, 50, 0},
    {"t4-16g-x1", BILLING_ON_DEMAND, 49, 1, 49, 0},
    {"t4-16g-x1", BILLING_ON_DEMAND, 24000, 30, 712800, 0},
    {"v100-32g-x8", BILLING_QUARTERLY, 24000, 3650, 2790700 * 41, 41},
    {"v100-32g-x4", BILLING_STUDENT, 12345, 7, 55133, 0},
};

START_TEST(single_figures_of_today)
{
    struct priced_mode mode = seed_mode(sku(single_figures[_i].sku), single_figures[_i].mode);
    struct usage usage = {single_figures[_i].millihours_per_day, single_figures[_i].days};
    struct mode_plan plan;
    ck_assert_int_eq(mode_plan_single(&mode, 0, &usage, &plan), GQ_OK);
    ck_assert_int_eq(plan.amount, single_figures[_i].amount);
    ck_assert_int_eq(plan.n_parts, 1);
    ck_assert_int_eq(plan.parts[0].blocks, single_figures[_i].blocks);
    ck_assert_int_eq(plan.parts[0].days, single_figures[_i].days);
}
END_TEST

#define OD BILLING_MODE_BIT(BILLING_ON_DEMAND)
#define MONTHS BILLING_MODE_BIT(BILLING_MONTHLY)
#define QUARTERS BILLING_MODE_BIT(BILLING_QUARTERLY)
#define ALL BILLING_MODE_MASK_ALL

/* check_plans.c's cheapest covers on V100 16GB × 1, in words. */
static const struct {
    uint32_t usable;
    int32_t hours, days;
    enum billing_mode hourly;
    gq_money amount;
    const char *words;
} cheapest_figures[] = {
    {ALL, 8, 90, BILLING_ON_DEMAND, 164160, "90 days on demand"},
    {ALL, 8, 90, BILLING_STUDENT, 108000, "90 days at the student rate"},
    {ALL, 24, 90, BILLING_ON_DEMAND, 330500, "1 quarter"},
    {ALL, 24, 100, BILLING_ON_DEMAND, 385220, "1 quarter + 10 days on demand"},
    {ALL, 24, 120, BILLING_ON_DEMAND, 453600, "1 quarter + 1 month"},
    {ALL, 24, 30, BILLING_ON_DEMAND, 123100, "1 month"},
    {ALL, 24, 85, BILLING_ON_DEMAND, 330500, "1 quarter"},
    {ALL, 24, 30, BILLING_STUDENT, 108000, "30 days at the student rate"},
    {OD, 24, 100, BILLING_ON_DEMAND, 547200, "100 days on demand"},
    {OD | MONTHS, 24, 100, BILLING_ON_DEMAND, 424020, "3 months + 10 days on demand"},
    {MONTHS | QUARTERS, 24, 100, BILLING_ON_DEMAND, 453600, "1 quarter + 1 month"},
    {MONTHS | QUARTERS, 8, 30, BILLING_ON_DEMAND, 123100, "1 month"},
    {MONTHS | QUARTERS, 1, 1, BILLING_ON_DEMAND, 123100, "1 month"},
    {MONTHS | QUARTERS, 8, 85, BILLING_ON_DEMAND, 330500, "1 quarter"},
    {QUARTERS, 24, 100, BILLING_ON_DEMAND, 661000, "2 quarters"},
    {MONTHS, 24, 100, BILLING_ON_DEMAND, 492400, "4 months"},
    {OD | MONTHS | QUARTERS, 8, 90, BILLING_STUDENT, 330500, "1 quarter"},
};

START_TEST(cheapest_figures_of_today)
{
    struct priced_mode modes[3];
    enum billing_mode seeds[3];
    int n = seed_modes(sku("v100-16g-x1"), cheapest_figures[_i].usable, cheapest_figures[_i].hourly,
                       modes, seeds);
    struct usage usage = {cheapest_figures[_i].hours * 1000, cheapest_figures[_i].days};
    struct mode_plan plan;
    char words[128];
    ck_assert_int_eq(mode_plan_cheapest(modes, n, &usage, &plan), GQ_OK);
    ck_assert_int_eq(plan.amount, cheapest_figures[_i].amount);
    mode_plan_words(&plan, modes, GQ_LANG_EN, words, sizeof words);
    ck_assert_str_eq(words, cheapest_figures[_i].words);
}
END_TEST

/* check_plans.c's break-evens: 1231 / (2.28 × 30) = 17.997 h and so on. */
START_TEST(break_even_figures_of_today)
{
    const struct sku *v100 = sku("v100-16g-x1");
    struct priced_mode od = seed_mode(v100, BILLING_ON_DEMAND),
                       student = seed_mode(v100, BILLING_STUDENT),
                       month = seed_mode(v100, BILLING_MONTHLY),
                       quarter = seed_mode(v100, BILLING_QUARTERLY);
    ck_assert_int_eq(mode_plan_break_even_tenths(&od, &month), 180);
    ck_assert_int_eq(mode_plan_break_even_tenths(&od, &quarter), 161);
    ck_assert_int_eq(mode_plan_break_even_tenths(&student, &month), 274);
    struct priced_mode t4 = seed_mode(sku("t4-16g-x1"), BILLING_ON_DEMAND),
                       t4_month = seed_mode(sku("t4-16g-x1"), BILLING_MONTHLY);
    ck_assert_int_eq(mode_plan_break_even_tenths(&t4, &t4_month), 180);
    struct priced_mode x8 = seed_mode(sku("v100-32g-x8"), BILLING_ON_DEMAND),
                       x8_quarter = seed_mode(sku("v100-32g-x8"), BILLING_QUARTERLY);
    ck_assert_int_eq(mode_plan_break_even_tenths(&x8, &x8_quarter), 161);
}
END_TEST

/* ---- the exhaustive search, written apart ----------------------------- */

/* The time one day of use bills, in tenths of a second, by its own
 * arithmetic: whole increments of at least the use, then the minimum. */
static int64_t reference_billed_day(const struct priced_mode *mode, int32_t millihours)
{
    int64_t used = (int64_t)millihours * 36; /* 1 mh = 3.6 s */
    int64_t billed = used;
    if (mode->increment_seconds > 0) {
        int64_t increment = (int64_t)mode->increment_seconds * 10;
        int64_t whole = used / increment + (used % increment != 0 ? 1 : 0);
        billed = whole * increment;
    }
    if (billed < (int64_t)mode->minimum_seconds * 10)
        billed = (int64_t)mode->minimum_seconds * 10;
    return billed;
}

struct exhaustive {
    const struct priced_mode *modes;
    int n_modes;
    const struct usage *usage;
    int blocks[MODE_PLAN_MAX_MODES]; /* indices of the block modes */
    int n_blocks;
    wide hourly_day; /* least cost of a day by the hour, fen × 36,000; -1: none */
    wide best;       /* fen × 36,000; -1 until a cover is found */
    long long covers;
};

/* Every count of every block mode from 0 to enough to cover the days
 * alone, the days they leave paid by the cheapest hourly day. */
static void try_counts(struct exhaustive *search, int next, int64_t covered, wide cost)
{
    if (next == search->n_blocks) {
        int64_t left = search->usage->days - covered;
        if (left > 0 && search->hourly_day < 0)
            return;
        wide total = cost + (left > 0 ? left * search->hourly_day : 0);
        search->covers++;
        if (search->best < 0 || total < search->best)
            search->best = total;
        return;
    }
    const struct priced_mode *mode = &search->modes[search->blocks[next]];
    int64_t most = (search->usage->days + mode->block_days - 1) / mode->block_days;
    for (int64_t count = 0; count <= most; count++)
        try_counts(search, next + 1, covered + count * mode->block_days,
                   cost + (wide)count * mode->price * 36000);
}

static wide exhaustive_cheapest(const struct priced_mode *modes, int n_modes,
                                const struct usage *usage)
{
    struct exhaustive search = {
        .modes = modes, .n_modes = n_modes, .usage = usage, .hourly_day = -1, .best = -1};
    for (int i = 0; i < n_modes; i++) {
        if (modes[i].kind == PRICED_MODE_BLOCK) {
            search.blocks[search.n_blocks++] = i;
            continue;
        }
        wide day =
            (wide)modes[i].price * reference_billed_day(&modes[i], usage->millihours_per_day);
        if (search.hourly_day < 0 || day < search.hourly_day)
            search.hourly_day = day;
    }
    try_counts(&search, 0, 0, 0);
    return search.best;
}

/* The plan's cost in fen × 36,000 from its parts, by the reference's own
 * billing. */
static wide plan_exact_cost(const struct priced_mode *modes, const struct mode_plan *plan,
                            const struct usage *usage)
{
    wide total = 0;
    for (int p = 0; p < plan->n_parts; p++) {
        const struct mode_plan_part *part = &plan->parts[p];
        const struct priced_mode *mode = &modes[part->mode];
        if (mode->kind == PRICED_MODE_BLOCK) {
            total += (wide)part->blocks * mode->price * 36000;
        } else {
            int64_t billed = part->days * reference_billed_day(mode, usage->millihours_per_day);
            ck_assert_int_eq(part->billed_deciseconds, billed);
            total += (wide)mode->price * billed;
        }
    }
    return total;
}

static int random_between(int low, int high)
{
    return low + rand() % (high - low + 1);
}

static const int32_t increments[] = {0, 1, 60, 3600};
static const int32_t minimums[] = {0, 0, 0, 60, 600, 3600, 7200};

/* A random mode set: up to four blocks of 1–400 days priced around what
 * their days cost by the hour, and up to three hourly modes. */
static int random_modes(struct priced_mode *modes)
{
    int n_blocks = random_between(0, 4), n_hourly = random_between(n_blocks == 0 ? 1 : 0, 3);
    int rate = random_between(1, 5000), n = 0;
    for (int i = 0; i < n_hourly; i++)
        modes[n++] = (struct priced_mode){
            .id = "hourly",
            .kind = PRICED_MODE_HOURLY,
            .increment_seconds = increments[rand() % 4],
            .minimum_seconds = minimums[rand() % 7],
            .price = rate + random_between(-rate / 2, rate / 2),
        };
    for (int i = 0; i < n_blocks; i++) {
        int days = rand() % 3 == 0 ? random_between(1, 14) : random_between(1, 400);
        int64_t hours_cost = (int64_t)days * 24 * rate;
        modes[n++] = (struct priced_mode){
            .id = "block",
            .kind = PRICED_MODE_BLOCK,
            .block_days = days,
            .price = 1 + hours_cost * random_between(15, 110) / 100,
        };
    }
    return n;
}

/* The exhaustive search's size: the product of each block's counts. */
static double search_size(const struct priced_mode *modes, int n, int32_t days)
{
    double size = 1;
    for (int i = 0; i < n; i++)
        if (modes[i].kind == PRICED_MODE_BLOCK)
            size *= (double)(days / modes[i].block_days + 2);
    return size;
}

START_TEST(cheapest_matches_exhaustive_search)
{
    srand(20270127);
    int mixed = 0, with_increments = 0;
    for (int trial = 0; trial < 6000; trial++) {
        struct priced_mode modes[8];
        int n = random_modes(modes);
        struct usage usage = {random_between(1, 24000), random_between(1, 400)};
        if (trial % 3 == 0)
            usage.millihours_per_day = 1000 * random_between(1, 24) - rand() % 2 * 500;
        while (search_size(modes, n, usage.days) > 200000)
            usage.days = usage.days / 2 + 1;
        wide best = exhaustive_cheapest(modes, n, &usage);
        struct mode_plan plan;
        ck_assert_int_eq(mode_plan_cheapest(modes, n, &usage, &plan), GQ_OK);
        ck_assert_msg(plan_exact_cost(modes, &plan, &usage) == best,
                      "trial %d: %d days at %d mh: plan %lld, exhaustive %lld (×1/36000 fen)",
                      trial, usage.days, usage.millihours_per_day,
                      (long long)plan_exact_cost(modes, &plan, &usage), (long long)best);
        ck_assert_int_eq(plan.amount, (gq_money)((best + 18000) / 36000)); /* to the fen */
        gq_money sum = 0;
        int32_t covered = 0;
        for (int p = 0; p < plan.n_parts; p++) {
            ck_assert_int_gt(plan.parts[p].days, 0);
            covered += plan.parts[p].days;
            sum += plan.parts[p].amount;
            if (modes[plan.parts[p].mode].kind == PRICED_MODE_HOURLY &&
                modes[plan.parts[p].mode].increment_seconds > 0)
                with_increments++;
        }
        ck_assert_int_eq(covered, usage.days);
        ck_assert_int_eq(sum, plan.amount);
        mixed += plan.n_parts > 1;
    }
    ck_assert_int_gt(mixed, 600); /* the search is not vacuous: hundreds of plans mix modes */
    ck_assert_int_gt(with_increments, 500);
}
END_TEST

/* ---- any modes --------------------------------------------------------- */

#define HOURLY(id_, rate, increment, minimum, en, zh)                                              \
    {                                                                                              \
        .id = (id_), .kind = PRICED_MODE_HOURLY, .increment_seconds = (increment),                 \
        .minimum_seconds = (minimum), .price = (rate), .name_one = {                               \
            (en),                                                                                  \
            (zh)                                                                                   \
        }                                                                                          \
    }
#define BLOCK(id_, days, price_, one, many, zh)                                                    \
    {                                                                                              \
        .id = (id_), .kind = PRICED_MODE_BLOCK, .block_days = (days), .price = (price_),           \
        .name_one = {(one), (zh)}, .name_many = {                                                  \
            (many),                                                                                \
            NULL                                                                                   \
        }                                                                                          \
    }

/* V100 16GB × 1's prices with a day, a week and a year beside them. */
static const struct priced_mode seven[] = {
    HOURLY("on_demand", 228, 0, 0, "on demand", "按需"),
    BLOCK("daily", 1, 6000, "day", "days", "天"), /* dearer than 24 h on demand */
    BLOCK("weekly", 7, 30000, "week", "weeks", "周"),
    BLOCK("monthly", 30, 123100, "month", "months", "个月"),
    BLOCK("quarterly", 90, 330500, "quarter", "quarters", "个季度"),
    BLOCK("yearly", 365, 1000000, "year", "years", "年"),
    HOURLY("per_minute", 240, 60, 0, "by the minute", "按分钟计费"),
};
#define SEVEN ((int)(sizeof seven / sizeof seven[0]))

static const struct {
    int32_t millihours, days;
    gq_money amount;
    const char *en, *zh;
} seven_cases[] = {
    /* 330500 + 30000 + 3 × 24 × 228 */
    {24000, 100, 376916, "1 quarter + 1 week + 3 days on demand", "1 个季度 + 1 周 + 3 天按需"},
    {24000, 195, 726472, "2 quarters + 2 weeks + 1 day on demand", "2 个季度 + 2 周 + 1 天按需"},
    {24000, 365, 1000000, "1 year", "1 年"},
    {24000, 7, 30000, "1 week", "1 周"},
    /* 6 days at 24 h (32832) beat a week (30000)? No: the week wins. */
    {24000, 6, 30000, "1 week", "1 周"},
    {24000, 5, 27360, "5 days on demand", "5 天按需"},
    {8000, 30, 54720, "30 days on demand", "30 天按需"},
};

START_TEST(plans_over_seven_modes)
{
    struct usage usage = {seven_cases[_i].millihours, seven_cases[_i].days};
    struct mode_plan plan;
    char words[160];
    ck_assert_int_eq(mode_plan_cheapest(seven, SEVEN, &usage, &plan), GQ_OK);
    ck_assert_int_eq(plan.amount, seven_cases[_i].amount);
    ck_assert_int_eq((gq_money)((exhaustive_cheapest(seven, SEVEN, &usage) + 18000) / 36000),
                     seven_cases[_i].amount);
    mode_plan_words(&plan, seven, GQ_LANG_EN, words, sizeof words);
    ck_assert_str_eq(words, seven_cases[_i].en);
    mode_plan_words(&plan, seven, GQ_LANG_ZH_CN, words, sizeof words);
    ck_assert_str_eq(words, seven_cases[_i].zh);
}
END_TEST

/* 7.5 h a day at 3,600 s increments bills 8 h a day; at 60 s or 1 s,
 * 7.5 h; 7.501 h at 60 s bills 7 h 31 min, at 1 s 27,004 s. */
START_TEST(increments_apply_per_day_of_use)
{
    static const struct {
        int32_t increment, minimum, millihours, days;
        int64_t billed_deciseconds;
        gq_money amount;
    } cases[] = {
        {3600, 0, 7500, 1, 288000, 1824},    /* 8 h × 2.28 */
        {3600, 0, 7500, 30, 8640000, 54720}, /* 240 h, not 225 h */
        {60, 0, 7500, 30, 8100000, 51300},   /* 225 h */
        {1, 0, 7500, 1, 270000, 1710},
        {60, 0, 7501, 1, 270600, 1714},     /* 7.51667 h × 2.28 = 17.138 */
        {1, 0, 7501, 1, 270040, 1710},      /* 27,004 s: 17.1025 */
        {0, 0, 7501, 1, 270036, 1710},      /* as used: 7.501 h */
        {60, 3600, 500, 10, 360000, 2280},  /* half an hour a day, an hour's minimum */
        {3600, 7200, 1500, 1, 72000, 456},  /* 1.5 h -> 2 h, the minimum */
        {3600, 7200, 2500, 1, 108000, 684}, /* 2.5 h -> 3 h, above the minimum */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct priced_mode mode =
            HOURLY("od", 228, cases[i].increment, cases[i].minimum, "on demand", "按需");
        struct usage usage = {cases[i].millihours, cases[i].days};
        struct mode_plan plan;
        ck_assert_int_eq(mode_plan_cheapest(&mode, 1, &usage, &plan), GQ_OK);
        ck_assert_int_eq(plan.parts[0].billed_deciseconds, cases[i].billed_deciseconds);
        ck_assert_int_eq(plan.parts[0].millihours, (int64_t)cases[i].millihours * cases[i].days);
        ck_assert_int_eq(plan.amount, cases[i].amount);
    }
}
END_TEST

/* Per-minute billing at a higher rate beats per-hour at 7.1 h a day (2.40 ×
 * 7.1 = 17.04 < 2.28 × 8 = 18.24), not at 8 h; blocks only: the cheapest
 * block that covers the days; two monthly products: the cheaper one. */
START_TEST(cheapest_hourly_and_blocks_only)
{
    struct priced_mode hourly[] = {HOURLY("hourly", 228, 3600, 0, "by the hour", "按小时计费"),
                                   HOURLY("minute", 240, 60, 0, "by the minute", "按分钟计费")};
    struct mode_plan plan;
    char words[96];
    struct usage usage = {7100, 10};
    ck_assert_int_eq(mode_plan_cheapest(hourly, 2, &usage, &plan), GQ_OK);
    ck_assert_int_eq(plan.parts[0].mode, 1);
    ck_assert_int_eq(plan.amount, 17040);
    mode_plan_words(&plan, hourly, GQ_LANG_ZH_CN, words, sizeof words);
    ck_assert_str_eq(words, "10 天按分钟计费");
    usage.millihours_per_day = 8000;
    ck_assert_int_eq(mode_plan_cheapest(hourly, 2, &usage, &plan), GQ_OK);
    ck_assert_int_eq(plan.parts[0].mode, 0);
    ck_assert_int_eq(plan.amount, 18240);

    struct priced_mode blocks[] = {
        BLOCK("monthly", 30, 123100, "month", "months", "个月"),
        BLOCK("monthly_flex", 30, 120000, "flexible month", "flexible months", "个灵活月"),
        BLOCK("weekly", 7, 30000, "week", "weeks", "周"),
    };
    usage = (struct usage){1000, 1};
    ck_assert_int_eq(mode_plan_cheapest(blocks, 3, &usage, &plan), GQ_OK);
    mode_plan_words(&plan, blocks, GQ_LANG_EN, words, sizeof words);
    ck_assert_str_eq(words, "1 week");
    usage.days = 60; /* 2 flexible months (240000) beat 9 weeks (270000) */
    ck_assert_int_eq(mode_plan_cheapest(blocks, 3, &usage, &plan), GQ_OK);
    mode_plan_words(&plan, blocks, GQ_LANG_EN, words, sizeof words);
    ck_assert_str_eq(words, "2 flexible months");
    ck_assert_int_eq(plan.amount, 240000);
    usage.days = 33; /* a flexible month and a week (150000) */
    ck_assert_int_eq(mode_plan_cheapest(blocks, 3, &usage, &plan), GQ_OK);
    mode_plan_words(&plan, blocks, GQ_LANG_ZH_CN, words, sizeof words);
    ck_assert_str_eq(words, "1 个灵活月 + 1 周");
    ck_assert_int_eq(plan.parts[1].days, 3);
}
END_TEST

START_TEST(break_even_with_increments_and_minimums)
{
    struct priced_mode month = BLOCK("monthly", 30, 123100, "month", "months", "个月");
    /* x = 1231 / (2.28 × 30) = 17.997 h */
    struct priced_mode exact = HOURLY("od", 228, 0, 0, "on demand", "按需");
    struct priced_mode hour = HOURLY("od", 228, 3600, 0, "on demand", "按需");
    struct priced_mode minute = HOURLY("od", 228, 60, 0, "on demand", "按需");
    struct priced_mode floor = HOURLY("od", 228, 60, 18 * 3600, "on demand", "按需");
    ck_assert_int_eq(mode_plan_break_even_tenths(&exact, &month), 180);
    ck_assert_int_eq(mode_plan_break_even_tenths(&hour, &month), 170);   /* 17.1 h bills 18 h */
    ck_assert_int_eq(mode_plan_break_even_tenths(&minute, &month), 180); /* 17 h 59 min */
    ck_assert_int_eq(mode_plan_break_even_tenths(&floor, &month), 0);    /* 18 h a day at least */
    ck_assert_int_eq(mode_plan_break_even_tenths(&month, &exact), -1);
    ck_assert_int_eq(mode_plan_break_even_tenths(&exact, &hour), -1);
    ck_assert_int_eq(mode_plan_break_even_tenths(&month, &month), -1);
    /* The plan agrees: at 17.0 h by the hour is no dearer, at 17.1 h the month wins. */
    struct priced_mode both[] = {hour, month};
    struct mode_plan plan;
    struct usage usage = {17000, 30};
    ck_assert_int_eq(mode_plan_cheapest(both, 2, &usage, &plan), GQ_OK);
    ck_assert_int_eq(plan.parts[0].mode, 0);
    usage.millihours_per_day = 17100;
    ck_assert_int_eq(mode_plan_cheapest(both, 2, &usage, &plan), GQ_OK);
    ck_assert_int_eq(plan.parts[0].mode, 1);
}
END_TEST

START_TEST(no_modes_and_amounts_too_large)
{
    struct mode_plan plan;
    struct usage usage = {24000, 3650};
    ck_assert_int_eq(mode_plan_cheapest(seven, 0, &usage, &plan), GQ_ERR_NOT_ELIGIBLE);
    ck_assert_int_eq(plan.n_parts, 0);
    struct priced_mode dear[] = {BLOCK("daily", 1, MONEY_MAX, "day", "days", "天"),
                                 HOURLY("od", MONEY_MAX, 0, 0, "on demand", "按需")};
    ck_assert_int_eq(mode_plan_cheapest(dear, 2, &usage, &plan), GQ_ERR_AMOUNT_TOO_LARGE);
    ck_assert_int_eq(plan.n_parts, 0);
    ck_assert_int_eq(plan.amount, 0);
    usage = (struct usage){2000, 1}; /* one block at MONEY_MAX fits exactly; 2 h do not */
    ck_assert_int_eq(mode_plan_cheapest(dear, 1, &usage, &plan), GQ_OK);
    ck_assert_int_eq(plan.amount, MONEY_MAX);
    ck_assert_int_eq(mode_plan_single(dear, 1, &usage, &plan), GQ_ERR_AMOUNT_TOO_LARGE);
}
END_TEST

START_TEST(validates_modes)
{
    ck_assert(mode_plan_mode_is_valid(&seven[0]));
    ck_assert(mode_plan_mode_is_valid(&seven[5]));
    struct priced_mode mode = seven[5];
    mode.block_days = MODE_PLAN_MAX_BLOCK_DAYS + 1;
    ck_assert(!mode_plan_mode_is_valid(&mode));
    mode.block_days = 0;
    ck_assert(!mode_plan_mode_is_valid(&mode));
    mode = seven[0];
    mode.price = -1;
    ck_assert(!mode_plan_mode_is_valid(&mode));
    mode = seven[0];
    mode.increment_seconds = MODE_PLAN_SECONDS_PER_DAY + 1;
    ck_assert(!mode_plan_mode_is_valid(&mode));
}
END_TEST

/* A long plan is cut at the buffer, still NUL-terminated. */
START_TEST(words_are_cut_to_fit)
{
    struct usage usage = {24000, 100};
    struct mode_plan plan;
    char words[12];
    ck_assert_int_eq(mode_plan_cheapest(seven, SEVEN, &usage, &plan), GQ_OK);
    ck_assert_uint_eq(mode_plan_words(&plan, seven, GQ_LANG_EN, words, sizeof words), 11);
    ck_assert_str_eq(words, "1 quarter +");
}
END_TEST

#define LOOP(tc, test, table)                                                                      \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof((table)[0])))

static Suite *any_modes_suite(void)
{
    Suite *suite = suite_create("plans_any_modes");
    TCase *tc = tcase_create("plans_any_modes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, seed_modes_give_todays_plans, 0, (int)FIXTURE_SEED_SKU_COUNT);
    tcase_add_loop_test(tc, seed_modes_give_todays_single_prices_and_break_evens, 0,
                        (int)FIXTURE_SEED_SKU_COUNT);
    LOOP(tc, single_figures_of_today, single_figures);
    LOOP(tc, cheapest_figures_of_today, cheapest_figures);
    tcase_add_test(tc, break_even_figures_of_today);
    tcase_add_test(tc, cheapest_matches_exhaustive_search);
    LOOP(tc, plans_over_seven_modes, seven_cases);
    tcase_add_test(tc, increments_apply_per_day_of_use);
    tcase_add_test(tc, cheapest_hourly_and_blocks_only);
    tcase_add_test(tc, break_even_with_increments_and_minimums);
    tcase_add_test(tc, no_modes_and_amounts_too_large);
    tcase_add_test(tc, validates_modes);
    tcase_add_test(tc, words_are_cut_to_fit);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(any_modes_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
