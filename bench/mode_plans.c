/*
 * bench/mode_plans.c — the instructions the cheapest plan costs, today's
 * (plans.c, four modes as an enum) against mode_plans.c (modes as data),
 * counted by callgrind: bench/mode_plans.sh runs it with 0 and N calls and
 * divides the difference by N.
 *
 * usage: mode_plans WHAT DAYS MILLIHOURS CALLS
 *   WHAT: today      plan_cheapest() over the seed's modes, V100 16GB × 1
 *         seed       mode_plan_cheapest() over the same four, as data
 *         seven      mode_plan_cheapest() over seven modes (a day, a week,
 *                    a month, a quarter, a year, on demand, by the minute)
 *         quote_today / quote_seven   the plan work of the benchmark's
 *                    3-item quote (every single-mode price, the cheapest
 *                    plan, the break-evens of each item); DAYS and
 *                    MILLIHOURS are then ignored
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mode_plans.h"
#include "core/plans.h"

static struct sku seed_sku(gq_money hourly, gq_money month, gq_money quarter, gq_money student)
{
    struct sku sku;
    memset(&sku, 0, sizeof sku);
    sku.price[BILLING_ON_DEMAND] = hourly;
    sku.price[BILLING_MONTHLY] = month;
    sku.price[BILLING_QUARTERLY] = quarter;
    sku.price[BILLING_STUDENT] = student;
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        sku.priced[m] = true;
    return sku;
}

static int modes_of(const struct sku *sku, bool seven, struct priced_mode *modes)
{
    int n = 0;
    modes[n++] = (struct priced_mode){
        .id = "on_demand", .kind = PRICED_MODE_HOURLY, .price = sku->price[BILLING_ON_DEMAND]};
    modes[n++] = (struct priced_mode){.id = "monthly",
                                      .kind = PRICED_MODE_BLOCK,
                                      .block_days = 30,
                                      .price = sku->price[BILLING_MONTHLY]};
    modes[n++] = (struct priced_mode){.id = "quarterly",
                                      .kind = PRICED_MODE_BLOCK,
                                      .block_days = 90,
                                      .price = sku->price[BILLING_QUARTERLY]};
    if (!seven) {
        modes[n++] = (struct priced_mode){
            .id = "student", .kind = PRICED_MODE_HOURLY, .price = sku->price[BILLING_STUDENT]};
        return n;
    }
    gq_money day = sku->price[BILLING_ON_DEMAND] * 24;
    modes[n++] = (struct priced_mode){
        .id = "daily", .kind = PRICED_MODE_BLOCK, .block_days = 1, .price = day * 9 / 10};
    modes[n++] = (struct priced_mode){
        .id = "weekly", .kind = PRICED_MODE_BLOCK, .block_days = 7, .price = day * 7 * 8 / 10};
    modes[n++] = (struct priced_mode){
        .id = "yearly", .kind = PRICED_MODE_BLOCK, .block_days = 365, .price = day * 365 * 6 / 10};
    modes[n++] = (struct priced_mode){.id = "per_minute",
                                      .kind = PRICED_MODE_HOURLY,
                                      .increment_seconds = 60,
                                      .price = sku->price[BILLING_ON_DEMAND] * 21 / 20};
    return n;
}

/* Today's plan work for one item billed "cheapest" by an individual
 * (on-demand, months, quarters usable), as quote.c does it. */
static gq_money item_today(const struct sku *sku, const struct usage *usage)
{
    const uint32_t usable = BILLING_MODE_BIT(BILLING_ON_DEMAND) |
                            BILLING_MODE_BIT(BILLING_MONTHLY) | BILLING_MODE_BIT(BILLING_QUARTERLY);
    struct plan plan;
    gq_money sum = 0;
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (usable & BILLING_MODE_BIT(m) && plan_single_mode(sku, m, usage, &plan) == GQ_OK)
            sum += plan.amount;
    if (plan_cheapest(sku, usable, BILLING_ON_DEMAND, usage, &plan) == GQ_OK)
        sum += plan.amount;
    sum += plan_break_even_tenths(sku, BILLING_ON_DEMAND, BILLING_MONTHLY);
    sum += plan_break_even_tenths(sku, BILLING_ON_DEMAND, BILLING_QUARTERLY);
    return sum;
}

/* The same with seven modes as data. */
static gq_money item_seven(const struct sku *sku, const struct usage *usage)
{
    struct priced_mode modes[MODE_PLAN_MAX_MODES];
    int n = modes_of(sku, true, modes);
    struct mode_plan plan;
    gq_money sum = 0;
    for (int m = 0; m < n; m++)
        if (mode_plan_single(modes, m, usage, &plan) == GQ_OK)
            sum += plan.amount;
    if (mode_plan_cheapest(modes, n, usage, &plan) == GQ_OK)
        sum += plan.amount;
    int32_t table[MODE_PLAN_MAX_MODES][MODE_PLAN_MAX_MODES];
    mode_plan_break_evens(modes, n, table);
    return sum + table[0][1];
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: mode_plans WHAT DAYS MILLIHOURS CALLS\n");
        return 2;
    }
    const char *what = argv[1];
    struct usage usage = {atoi(argv[3]), atoi(argv[2])};
    long calls = atol(argv[4]);
    /* The benchmark's quote: V100 16GB × 1 8 h × 30 days, T4 4 h × 10
     * days, V100 32GB × 4 24 h × 60 days. */
    const struct sku v100 = seed_sku(228, 123100, 330500, 150);
    const struct sku skus[3] = {v100, seed_sku(990, 535000, 1432100, 650),
                                seed_sku(968, 522700, 1401800, 638)};
    const struct usage items[3] = {{8000, 30}, {4000, 10}, {24000, 60}};
    struct priced_mode modes[MODE_PLAN_MAX_MODES];
    int n = modes_of(&v100, strcmp(what, "seven") == 0, modes);
    if (strcmp(what, "seed") == 0)
        n = 3; /* on demand, months, quarters: what plan_cheapest() is given */
    gq_money sum = 0;
    for (long i = 0; i < calls; i++) {
        struct plan plan;
        struct mode_plan mode_plan;
        if (strcmp(what, "today") == 0) {
            plan_cheapest(&v100, BILLING_MODE_MASK_ALL, BILLING_ON_DEMAND, &usage, &plan);
            sum += plan.amount;
        } else if (strncmp(what, "quote_", 6) == 0) {
            for (int k = 0; k < 3; k++)
                sum += what[6] == 't' ? item_today(&skus[k], &items[k])
                                      : item_seven(&skus[k], &items[k]);
        } else {
            mode_plan_cheapest(modes, n, &usage, &mode_plan);
            sum += mode_plan.amount;
        }
    }
    printf("%lld\n", (long long)sum);
    return 0;
}
