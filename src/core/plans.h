/*
 * Plans: what one instance of a SKU costs for a stated usage under each
 * billing mode, the cheapest cover of the usage by quarters, months and
 * hourly billing, and the usage at which a block beats paying by the hour.
 *
 * Usage is held exactly: hours per day in thousandths of an hour, so 7.5 h is
 * 7500 and an hourly charge is rate × milli-hours ÷ 1000, rounded once
 * (money_scale). Amounts here are per instance; the quote multiplies by the
 * quantity afterwards, so three instances cost exactly three times one.
 */
#ifndef GQ_CORE_PLANS_H
#define GQ_CORE_PLANS_H

#include <stdint.h>

#include "core/catalog.h"
#include "core/error.h"
#include "core/money.h"

#define USAGE_MILLIHOURS_PER_HOUR 1000
#define USAGE_MAX_MILLIHOURS_PER_DAY (24 * USAGE_MILLIHOURS_PER_HOUR)
#define USAGE_MAX_DAYS 3650

/* How one instance is used: hours_per_day over `days` consecutive days. */
struct usage {
    int32_t millihours_per_day; /* 1 .. USAGE_MAX_MILLIHOURS_PER_DAY */
    int32_t days;               /* 1 .. USAGE_MAX_DAYS */
};

/* A plan is at most one part per kind: quarters, months, hourly. */
#define PLAN_MAX_PARTS 3

struct plan_part {
    enum billing_mode mode;
    int32_t blocks;     /* blocks bought (monthly, quarterly); 0 for hourly */
    int32_t days;       /* days of the usage this part covers */
    int64_t millihours; /* hours of use it covers, in thousandths */
    gq_money amount;    /* per instance */
};

struct plan {
    struct plan_part parts[PLAN_MAX_PARTS];
    int n_parts;
    gq_money amount; /* per instance: the sum of the parts */
};

/* Total hours of use of one instance, in thousandths. */
int64_t usage_millihours(const struct usage *usage);

/* True when the usage is within the ranges above. */
bool usage_is_valid(const struct usage *usage);

/* Prices the whole usage in one mode: hourly modes charge rate × hours;
 * monthly buys ⌈days/30⌉ months, quarterly ⌈days/90⌉ quarters.
 * Returns GQ_ERR_NOT_ELIGIBLE when the SKU has no price in `mode`,
 * GQ_ERR_AMOUNT_TOO_LARGE on overflow. */
enum gq_code plan_single_mode(const struct sku *sku, enum billing_mode mode,
                              const struct usage *usage, struct plan *out);

/* The minimum-cost cover of the usage's days by quarters, months and hours
 * billed at `hourly_mode` (on-demand, or student for students), using only
 * the modes in `usable_modes` (BILLING_MODE_BIT of each mode the customer
 * may use) that the SKU has a price for. When `hourly_mode` is not usable,
 * every day is covered by blocks, buying more days than used if need be
 * (100 days: a quarter and a month, two quarters or four months, whichever
 * costs least). Exact, not a rule of thumb: every quarter count is tried
 * with the month counts that can be cheapest for it (see plans.c). Ties go
 * to the plan with fewer committed blocks.
 * Returns GQ_ERR_NOT_ELIGIBLE when no usable mode can cover the usage,
 * GQ_ERR_AMOUNT_TOO_LARGE on overflow. */
enum gq_code plan_cheapest(const struct sku *sku, uint32_t usable_modes,
                           enum billing_mode hourly_mode, const struct usage *usage,
                           struct plan *out);

/* The minimum-cost mixed cover: one that uses at least two of quarters,
 * months and hours, each part covering at least one day (1 month and 90
 * days by the hour for 120 days). A discount on mixed plans can make it
 * cheaper than the cheapest cover once discounted. Same modes, ties and
 * errors as plan_cheapest(); GQ_ERR_NOT_ELIGIBLE also when no mixed cover
 * exists (a usage of a month or less, one usable mode). */
enum gq_code plan_cheapest_mixed(const struct sku *sku, uint32_t usable_modes,
                                 enum billing_mode hourly_mode, const struct usage *usage,
                                 struct plan *out);

/* True when the plan uses more than one mode. */
bool plan_is_mixed(const struct plan *plan);

/* What the plan is billed as: its one mode's id, or "mixed". */
const char *plan_billing_id(const struct plan *plan);

/* True when both plans buy the same parts for the same amounts. */
bool plan_equal(const struct plan *a, const struct plan *b);

/* The hours per day above which one `block_mode` block (monthly or
 * quarterly) costs less than paying `hourly_mode` for every day it covers:
 * block price ÷ (hourly rate × block days), in tenths of an hour rounded
 * half-up (180 = 18.0 h/day). A value above 240 means the block never wins.
 * Returns -1 when the SKU lacks either price. Whether the customer may use
 * both modes is the caller's to check. */
int32_t plan_break_even_tenths(const struct sku *sku, enum billing_mode hourly_mode,
                               enum billing_mode block_mode);

#endif
