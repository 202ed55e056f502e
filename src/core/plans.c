/*
 * Plans: the cost of a usage under each billing mode and the cheapest cover
 * of its days by quarters, months and hours.
 *
 * The cheapest cover is exact. A cover is determined by how many quarters
 * (q) and months (m) it buys: blocks take whole days, so the days they leave
 * over, R - 30m with R = max(0, days - 90q), are paid by the hour. For a
 * fixed q the cost m·M + c·max(0, R - 30m) is convex in m (slope M - 30c
 * while months replace hourly days, then +M), so its minimum is at m = 0 or
 * at one of the two month counts around R/30. When the customer may not pay
 * by the hour, a cover must leave no day over: for a fixed q the cheapest is
 * then the fewest months that cover R, ⌈R/30⌉, one of those same counts.
 * Trying every q from 0 to ⌈days/90⌉ with those three m is therefore the
 * exhaustive optimum, in O(days/90) steps and no memory.
 *
 * Costs are compared in fen × milli-hours (exact integers, 128-bit to rule
 * out overflow) and rounded to the fen once, on the hourly part, at the end.
 */
#include "core/plans.h"

#include <assert.h>

/* One month is 30 days (720 h) and one quarter 90 days (2160 h): the
 * price list's definition of its blocks. catalog_validate() holds the store to it. */
#define MONTH_DAYS 30
#define QUARTER_DAYS 90

__extension__ typedef __int128 exact_cost; /* fen × milli-hours */

int64_t usage_millihours(const struct usage *usage)
{
    return (int64_t)usage->millihours_per_day * usage->days;
}

bool usage_is_valid(const struct usage *usage)
{
    return usage->millihours_per_day >= 1 &&
           usage->millihours_per_day <= USAGE_MAX_MILLIHOURS_PER_DAY && usage->days >= 1 &&
           usage->days <= USAGE_MAX_DAYS;
}

bool plan_is_mixed(const struct plan *plan)
{
    return plan->n_parts > 1;
}

const char *plan_billing_id(const struct plan *plan)
{
    return plan_is_mixed(plan) ? "mixed" : billing_mode_id(plan->parts[0].mode);
}

bool plan_equal(const struct plan *a, const struct plan *b)
{
    if (a->n_parts != b->n_parts || a->amount != b->amount)
        return false;
    for (int i = 0; i < a->n_parts; i++) {
        const struct plan_part *x = &a->parts[i], *y = &b->parts[i];
        if (x->mode != y->mode || x->blocks != y->blocks || x->days != y->days ||
            x->millihours != y->millihours || x->amount != y->amount)
            return false;
    }
    return true;
}

static int32_t block_days(enum billing_mode mode)
{
    assert(!billing_mode_is_hourly(mode));
    return mode == BILLING_QUARTERLY ? QUARTER_DAYS : MONTH_DAYS;
}

static int32_t blocks_to_cover(int32_t days, int32_t days_per_block)
{
    return (days + days_per_block - 1) / days_per_block;
}

/* Appends a part and adds its amount to the plan's, refusing a plan over
 * MONEY_MAX. */
static enum gq_code add_part(struct plan *plan, enum billing_mode mode, int32_t blocks,
                             int32_t days, int32_t millihours_per_day, gq_money amount)
{
    assert(plan->n_parts < PLAN_MAX_PARTS);
    struct plan_part *part = &plan->parts[plan->n_parts++];
    part->mode = mode;
    part->blocks = blocks;
    part->days = days;
    part->millihours = (int64_t)days * millihours_per_day;
    part->amount = amount;
    if (!money_add(plan->amount, amount, &plan->amount) || plan->amount > MONEY_MAX)
        return GQ_ERR_AMOUNT_TOO_LARGE;
    return GQ_OK;
}

static enum gq_code add_hourly_part(const struct sku *sku, enum billing_mode mode, int32_t days,
                                    const struct usage *usage, struct plan *plan)
{
    gq_money amount;
    int64_t millihours = (int64_t)days * usage->millihours_per_day;
    if (!money_scale(sku->price[mode], millihours, USAGE_MILLIHOURS_PER_HOUR, &amount))
        return GQ_ERR_AMOUNT_TOO_LARGE;
    return add_part(plan, mode, 0, days, usage->millihours_per_day, amount);
}

static enum gq_code add_block_part(const struct sku *sku, enum billing_mode mode, int32_t blocks,
                                   int32_t days, const struct usage *usage, struct plan *plan)
{
    gq_money amount;
    if (!money_mul(sku->price[mode], blocks, &amount))
        return GQ_ERR_AMOUNT_TOO_LARGE;
    return add_part(plan, mode, blocks, days, usage->millihours_per_day, amount);
}

enum gq_code plan_single_mode(const struct sku *sku, enum billing_mode mode,
                              const struct usage *usage, struct plan *out)
{
    assert(usage_is_valid(usage));
    *out = (struct plan){0};
    if ((unsigned)mode >= BILLING_MODE_COUNT || !sku->priced[mode])
        return GQ_ERR_NOT_ELIGIBLE;
    if (billing_mode_is_hourly(mode))
        return add_hourly_part(sku, mode, usage->days, usage, out);
    int32_t blocks = blocks_to_cover(usage->days, block_days(mode));
    return add_block_part(sku, mode, blocks, usage->days, usage, out);
}

/* True when the customer may use `mode` (it is in `usable_modes`) and the
 * SKU has a price for it. */
static bool mode_usable(const struct sku *sku, uint32_t usable_modes, enum billing_mode mode)
{
    return sku->priced[mode] && (usable_modes & BILLING_MODE_BIT(mode)) != 0;
}

/* The cost of a cover that cannot be bought, and the price of a mode the
 * cover may not use. Real costs and prices are never negative. */
#define NOT_OFFERED ((exact_cost)-1)

/* A candidate cover: q quarters, m months, the rest by the hour. */
struct cover {
    int32_t quarters;
    int32_t months;
    exact_cost cost; /* NOT_OFFERED until a cover is found */
};

struct cover_prices {
    exact_cost quarter;    /* price × 1000, or NOT_OFFERED */
    exact_cost month;      /* price × 1000, or NOT_OFFERED */
    exact_cost hourly_day; /* rate × milli-hours per day, or NOT_OFFERED */
};

/* The cost of `quarters` quarters and `months` months with the days they
 * leave over paid by the hour, or NOT_OFFERED when days are left over and
 * there is no hourly mode to pay them. */
static exact_cost cover_cost(const struct cover_prices *prices, int32_t days, int32_t quarters,
                             int32_t months)
{
    assert(quarters == 0 || prices->quarter != NOT_OFFERED);
    assert(months == 0 || prices->month != NOT_OFFERED);
    int32_t hourly_days = days - quarters * QUARTER_DAYS - months * MONTH_DAYS;
    if (hourly_days <= 0)
        return quarters * prices->quarter + months * prices->month;
    if (prices->hourly_day == NOT_OFFERED)
        return NOT_OFFERED;
    return quarters * prices->quarter + months * prices->month + hourly_days * prices->hourly_day;
}

/* Keeps the candidate when it can be bought and is cheaper than `best`, or
 * as cheap with fewer blocks. */
static void consider(struct cover *best, const struct cover_prices *prices, int32_t days,
                     int32_t quarters, int32_t months)
{
    if (months < 0)
        return;
    exact_cost cost = cover_cost(prices, days, quarters, months);
    if (cost == NOT_OFFERED)
        return;
    bool first = best->cost == NOT_OFFERED;
    bool cheaper = cost < best->cost;
    bool fewer_blocks = cost == best->cost && quarters + months < best->quarters + best->months;
    if (first || cheaper || fewer_blocks)
        *best = (struct cover){quarters, months, cost};
}

/* The cheapest cover; its cost is NOT_OFFERED when no cover can be bought. */
static struct cover cheapest_cover(const struct cover_prices *prices, int32_t days)
{
    struct cover best = {0, 0, NOT_OFFERED};
    int32_t max_quarters = prices->quarter == NOT_OFFERED ? 0 : blocks_to_cover(days, QUARTER_DAYS);
    for (int32_t quarters = 0; quarters <= max_quarters; quarters++) {
        int32_t rest = days - quarters * QUARTER_DAYS;
        if (rest < 0)
            rest = 0;
        consider(&best, prices, days, quarters, 0);
        if (prices->month == NOT_OFFERED)
            continue;
        consider(&best, prices, days, quarters, rest / MONTH_DAYS);
        consider(&best, prices, days, quarters, blocks_to_cover(rest, MONTH_DAYS));
    }
    return best;
}

/* True when the cover uses at least two of quarters, months and hours,
 * and every month covers a day. (Parts take the days in the order
 * quarters, months, hours, so the last month covers none when the blocks
 * before it cover every day; quarters followed by another part always
 * cover days.) */
static bool is_mixed_cover(int32_t days, int32_t quarters, int32_t months)
{
    int32_t hourly_days = days - quarters * QUARTER_DAYS - months * MONTH_DAYS;
    int parts = (quarters > 0) + (months > 0) + (hourly_days > 0);
    bool every_month_used =
        months == 0 || quarters * QUARTER_DAYS + (months - 1) * MONTH_DAYS < days;
    return parts >= 2 && every_month_used;
}

static void consider_mixed(struct cover *best, const struct cover_prices *prices, int32_t days,
                           int32_t quarters, int32_t months)
{
    if (months >= 0 && is_mixed_cover(days, quarters, months))
        consider(best, prices, days, quarters, months);
}

/* The cheapest mixed cover, by the argument of cheapest_cover(): for a
 * quarter count, the cost is linear in the months while days are left to
 * pay by the hour, so the cheapest mixed month count is at an end of the
 * range that keeps the cover mixed (1 or the most that leave an hourly day
 * with no quarter; none or the most that leave one, with quarters) or is
 * the count that covers every day. */
static struct cover cheapest_mixed_cover(const struct cover_prices *prices, int32_t days)
{
    struct cover best = {0, 0, NOT_OFFERED};
    int32_t max_quarters = prices->quarter == NOT_OFFERED ? 0 : (days - 1) / QUARTER_DAYS;
    for (int32_t quarters = 0; quarters <= max_quarters; quarters++) {
        int32_t rest = days - quarters * QUARTER_DAYS; /* > 0 */
        consider_mixed(&best, prices, days, quarters, 0);
        if (prices->month == NOT_OFFERED)
            continue;
        consider_mixed(&best, prices, days, quarters, 1);
        consider_mixed(&best, prices, days, quarters, (rest - 1) / MONTH_DAYS);
        consider_mixed(&best, prices, days, quarters, rest / MONTH_DAYS);
        consider_mixed(&best, prices, days, quarters, blocks_to_cover(rest, MONTH_DAYS));
    }
    return best;
}

static exact_cost usable_block_price(const struct sku *sku, uint32_t usable_modes,
                                     enum billing_mode mode)
{
    if (!mode_usable(sku, usable_modes, mode))
        return NOT_OFFERED;
    return (exact_cost)sku->price[mode] * USAGE_MILLIHOURS_PER_HOUR;
}

/* Writes `cover` as parts: the quarters, then the months, each covering
 * the days it can of those still uncovered, then the hourly days left. */
static enum gq_code add_cover_parts(const struct sku *sku, enum billing_mode hourly_mode,
                                    const struct cover *cover, const struct usage *usage,
                                    struct plan *out)
{
    int32_t days_left = usage->days;
    int32_t quarter_days =
        cover->quarters * QUARTER_DAYS < days_left ? cover->quarters * QUARTER_DAYS : days_left;
    days_left -= quarter_days;
    int32_t month_days =
        cover->months * MONTH_DAYS < days_left ? cover->months * MONTH_DAYS : days_left;
    days_left -= month_days;

    enum gq_code code = GQ_OK;
    if (cover->quarters > 0)
        code = add_block_part(sku, BILLING_QUARTERLY, cover->quarters, quarter_days, usage, out);
    if (code == GQ_OK && cover->months > 0)
        code = add_block_part(sku, BILLING_MONTHLY, cover->months, month_days, usage, out);
    if (code == GQ_OK && days_left > 0)
        code = add_hourly_part(sku, hourly_mode, days_left, usage, out);
    return code;
}

static struct cover_prices usable_cover_prices(const struct sku *sku, uint32_t usable_modes,
                                               enum billing_mode hourly_mode,
                                               const struct usage *usage)
{
    return (struct cover_prices){
        .quarter = usable_block_price(sku, usable_modes, BILLING_QUARTERLY),
        .month = usable_block_price(sku, usable_modes, BILLING_MONTHLY),
        .hourly_day = mode_usable(sku, usable_modes, hourly_mode)
                          ? (exact_cost)sku->price[hourly_mode] * usage->millihours_per_day
                          : NOT_OFFERED,
    };
}

/* The plan of the cover `search` finds among those the usable modes can
 * buy; GQ_ERR_NOT_ELIGIBLE when it finds none. */
static enum gq_code plan_found_cover(const struct sku *sku, uint32_t usable_modes,
                                     enum billing_mode hourly_mode, const struct usage *usage,
                                     struct cover (*search)(const struct cover_prices *, int32_t),
                                     struct plan *out)
{
    assert(usage_is_valid(usage));
    assert(billing_mode_is_hourly(hourly_mode));
    *out = (struct plan){0};
    struct cover_prices prices = usable_cover_prices(sku, usable_modes, hourly_mode, usage);
    struct cover best = search(&prices, usage->days);
    if (best.cost == NOT_OFFERED)
        return GQ_ERR_NOT_ELIGIBLE;
    return add_cover_parts(sku, hourly_mode, &best, usage, out);
}

enum gq_code plan_cheapest(const struct sku *sku, uint32_t usable_modes,
                           enum billing_mode hourly_mode, const struct usage *usage,
                           struct plan *out)
{
    return plan_found_cover(sku, usable_modes, hourly_mode, usage, cheapest_cover, out);
}

enum gq_code plan_cheapest_mixed(const struct sku *sku, uint32_t usable_modes,
                                 enum billing_mode hourly_mode, const struct usage *usage,
                                 struct plan *out)
{
    return plan_found_cover(sku, usable_modes, hourly_mode, usage, cheapest_mixed_cover, out);
}

/* numerator ÷ denominator in tenths, half-up. Both positive. */
static int32_t tenths_half_up(exact_cost numerator, exact_cost denominator)
{
    exact_cost tenths = (numerator * 10 * 2 + denominator) / (denominator * 2);
    return tenths > INT32_MAX ? INT32_MAX : (int32_t)tenths;
}

int32_t plan_break_even_tenths(const struct sku *sku, enum billing_mode hourly_mode,
                               enum billing_mode block_mode)
{
    assert(billing_mode_is_hourly(hourly_mode) && !billing_mode_is_hourly(block_mode));
    if (!sku->priced[hourly_mode] || !sku->priced[block_mode])
        return -1;
    exact_cost hourly_cost_of_block_days = (exact_cost)sku->price[hourly_mode] * block_days(block_mode);
    return tenths_half_up(sku->price[block_mode], hourly_cost_of_block_days);
}
