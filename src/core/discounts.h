/*
 * Discount rules applied to one priced line.
 *
 * A rule applies when the customer's segment, the line's billing, SKU and
 * quantity match and `now` is inside its validity window. Among applicable
 * rules, exclusive ones compete (the single largest wins) and stackable ones
 * apply in priority order (the lowest number first, ties by id), each to
 * what the previous left; the line gets
 * whichever of the two gives the larger discount. Percentages round half-up
 * once per rule (money_scale); a fixed amount never takes a line below zero.
 *
 * A customer's own rules (a negotiated contract) replace the price list's
 * for a line they cover: when one of them applies to the line, the line's
 * discounts are computed from the customer's rules alone, in the same way;
 * otherwise from the list's. A promotion code's rule competes in either.
 */
#ifndef GQ_CORE_DISCOUNTS_H
#define GQ_CORE_DISCOUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/money.h"

#define DISCOUNT_MAX_APPLIED 8

struct applied_discount {
    const struct discount_rule *rule;
    gq_money amount;
};

struct discount_result {
    struct applied_discount applied[DISCOUNT_MAX_APPLIED];
    int n_applied;
    gq_money total; /* sum of applied amounts, never above the line */
};

/* What a discount is computed for. `billing_bit` is (1 << mode) for a
 * single-mode line or DISCOUNT_BILLING_MIXED for a mixed plan. */
struct discount_line {
    enum customer_segment segment;
    uint32_t billing_bit;
    const struct sku *sku;
    int32_t quantity;
    gq_money amount; /* the line before discounts, >= 0 */
    int64_t now;     /* unix seconds */
    /* A rule from outside the catalog (a promotion code's) that competes
     * with the catalog's rules as one of them; NULL: none. */
    const struct discount_rule *extra;
    /* The customer's own rules (`n_own` of them; NULL: none). */
    const struct discount_rule *own;
    size_t n_own;
};

/* Fills `out` with the discounts the catalog's rules give `line`. Never
 * fails: with no applicable rule, out->n_applied is 0 and out->total 0. */
void discounts_apply(const struct catalog *catalog, const struct discount_line *line,
                     struct discount_result *out);

#endif
