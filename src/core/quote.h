/*
 * A quote: every item priced in the billing asked for and in every other
 * mode the customer may use, the cheapest plan with its saving, the
 * break-even usage, discounts, bundles and the totals.
 *
 * This is the one computation behind POST /quote and behind the prices that
 * POST /recommend reports, so the two always agree to the fen. It takes
 * plain structs (already validated for type by the caller; ranges and
 * eligibility are checked here) and the time `now`, and touches nothing else.
 */
#ifndef GQ_CORE_QUOTE_H
#define GQ_CORE_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/discounts.h"
#include "core/error.h"
#include "core/plans.h"

#define QUOTE_MAX_ITEMS 100
#define QUOTE_MAX_BUNDLES 20
#define QUOTE_MAX_QUANTITY 1000
/* Bundles an item is compared with, at most: the first that cover it in
 * the catalog's order (by id). */
#define QUOTE_MAX_BUNDLE_COMPARISONS 20

struct quote_item_request {
    const struct sku *sku;
    int32_t quantity;          /* instances, 1 .. QUOTE_MAX_QUANTITY */
    bool cheapest;             /* bill at the cheapest plan ... */
    enum billing_mode billing; /* ... or in this mode */
    struct usage usage;
};

struct quote_request {
    enum customer_segment segment;
    const struct quote_item_request *items;
    size_t n_items; /* 1 .. QUOTE_MAX_ITEMS */
    const struct bundle *const *bundles;
    size_t n_bundles;                      /* 0 .. QUOTE_MAX_BUNDLES */
    int64_t now;                           /* unix seconds: discount and bundle validity */
    const struct discount_rule *promotion; /* a promotion code's rule, or NULL */
    /* The customer's own rules, which replace the list's on the lines they
     * cover (discounts.h); NULL: none. */
    const struct discount_rule *customer_rules;
    size_t n_customer_rules;
};

/* One way of paying for an item: a plan for one instance, scaled to the
 * quantity, with the discounts it earns. */
struct priced_option {
    struct plan plan;
    gq_money amount; /* plan.amount × quantity, before discounts */
    struct discount_result discounts;
    gq_money total; /* amount - discounts.total */
};

/* A bundle that covers an item billed "cheapest": one the customer may use
 * (for the quote's segment, on offer at the request's `now`) holding the
 * item's SKU with at least its quantity of instances and at least its
 * billable hours per instance. Buying the bundle instead of the item costs
 * `difference` more (bundle price - the item's total after discounts;
 * negative when the bundle is cheaper). */
struct quote_bundle_comparison {
    const struct bundle *bundle;
    gq_money difference;
};

struct quote_item_result {
    int64_t billable_millihours; /* per instance: hours per day × days */
    /* Every mode the customer may use for this SKU, in enum order. */
    struct priced_option options[BILLING_MODE_COUNT];
    enum billing_mode option_modes[BILLING_MODE_COUNT];
    int n_options;
    struct priced_option cheapest; /* the cheapest plan, possibly mixed */
    /* What the item is billed at: the option asked for, or the cheapest. */
    const struct priced_option *billed;
    /* What the cheapest plan saves against the billing asked for, or, when
     * the cheapest was asked for, against paying by the hour (0 when the
     * customer may not pay by the hour). >= 0. */
    gq_money saving;
    /* plan_break_even_tenths() against the customer's hourly mode, for
     * BILLING_MONTHLY and BILLING_QUARTERLY when the customer may use both
     * the block and the hourly mode; -1 elsewhere. */
    int32_t break_even_tenths[BILLING_MODE_COUNT];
    /* For an item billed "cheapest", every bundle of the catalog that
     * covers it (up to QUOTE_MAX_BUNDLE_COMPARISONS, in catalog order);
     * 0 for other billing. */
    struct quote_bundle_comparison bundle_comparisons[QUOTE_MAX_BUNDLE_COMPARISONS];
    size_t n_bundle_comparisons;
};

struct quote_bundle_result {
    const struct bundle *bundle;
    gq_money list_saving; /* list_price - price: the bundle's own "list" figure */
    /* False when the contents cannot be bought as items by this customer
     * (a SKU with no mode they may use, more than USAGE_MAX_DAYS of hours,
     * an amount too large): then there is no alternative and no saving. */
    bool has_alternative;
    gq_money alternative; /* quote_bundle_alternative() for the quote's segment */
    gq_money saving;      /* alternative - price; negative when the bundle costs more */
};

struct quote_result {
    struct quote_item_result *items; /* room for `capacity` items */
    size_t capacity;
    size_t n_items;
    struct quote_bundle_result bundles[QUOTE_MAX_BUNDLES];
    size_t n_bundles;
    gq_money subtotal;       /* items before discounts + bundles */
    gq_money discount_total; /* all item discounts */
    gq_money total;          /* subtotal - discount_total */
};

/* A result with room for `capacity` items (at most QUOTE_MAX_ITEMS; 0 is
 * fine for a quote of bundles alone). NULL when memory runs out. Sized to
 * the request: an item's result is about 2 KB. */
struct quote_result *quote_result_new(size_t capacity);

/* Frees a result. NULL is fine. */
void quote_result_free(struct quote_result *result);

/* True when `segment` may use `mode` for `sku` (priced and allowed). */
bool quote_mode_allowed(const struct catalog *catalog, const struct sku *sku,
                        enum customer_segment segment, enum billing_mode mode);

/* The status of a stored quote at `now`: "accepted", "expired" (open and
 * past expires_at) or "open". */
const char *quote_status(bool accepted, int64_t expires_at, int64_t now);

/* The cheapest plan for one instance of `item->sku` used `item->hours`
 * hours, by the modes `segment` may use: the plan search a quote bills an
 * item "cheapest" with (plan_cheapest(), before discounts), on the hours
 * used around the clock, 24 h a day. Hours that are not whole days end on
 * a day of their own: that day is either covered by the blocks before it
 * (the search over one more day) or paid by the hour for its hours alone
 * (the search over the whole days, plus those hours), whichever is less;
 * the two together are every cover, so the result is exact. Returns
 * GQ_ERR_NOT_ELIGIBLE when the segment may use no mode that covers it,
 * GQ_ERR_OUT_OF_RANGE above USAGE_MAX_DAYS days, GQ_ERR_AMOUNT_TOO_LARGE. */
enum gq_code quote_bundle_item_plan(const struct catalog *catalog, const struct bundle_item *item,
                                    enum customer_segment segment, struct plan *out);

/* What buying the bundle's contents costs `segment` without the bundle:
 * the sum over its items of quote_bundle_item_plan() × quantity, at the
 * catalog's prices before any discount rule. Errors as above. */
enum gq_code quote_bundle_alternative(const struct catalog *catalog, const struct bundle *bundle,
                                      enum customer_segment segment, gq_money *out);

/* The segment a bundle is listed for in the catalog, where no customer is
 * known: the first in its mask, or individual when it is open to all. */
enum customer_segment quote_bundle_listing_segment(const struct bundle *bundle);

/* The reason a bundle line gives in `lang`, written into `buf` (NUL-
 * terminated): that the bundle costs more than its contents bought at
 * their cheapest plans, by how much, amounts in `currency` (the
 * catalog's). Returns its length, or 0 (and an empty `buf`) when there is
 * nothing to say: no alternative, or a saving of zero or more. */
size_t quote_bundle_reason(const struct quote_bundle_result *line, const char *currency,
                           enum gq_lang lang, char *buf, size_t size);

/* True when a customer of `segment` may buy `bundle` at `now`: it is for
 * their segment and on offer. The check quote_compute() makes of a quote's
 * bundles, and of the bundles it compares an item with. */
bool quote_bundle_usable(const struct bundle *bundle, enum customer_segment segment, int64_t now);

/* True when `bundle` covers `item` (see struct quote_bundle_comparison):
 * one of its lines is the item's SKU with at least the item's quantity
 * and at least `billable_millihours` per instance. Eligibility apart. */
bool quote_bundle_covers(const struct bundle *bundle, const struct quote_item_request *item,
                         int64_t billable_millihours);

/* Prices `request` into `out` (from quote_result_new, with room for the
 * request's items). On failure returns the code and fills `err` with the
 * field path ("items[2].days"); `out` is then unspecified. Codes:
 * GQ_ERR_OUT_OF_RANGE (also when `out` has too little room),
 * GQ_ERR_NOT_ELIGIBLE (a billing or bundle the customer may not use, or an
 * item billed "cheapest" whose SKU has no mode they may use),
 * GQ_ERR_AMOUNT_TOO_LARGE. */
enum gq_code quote_compute(const struct catalog *catalog, const struct quote_request *request,
                           struct quote_result *out, struct gq_error *err);

/* Prices `request` under each segment of `held` (SEGMENT_BIT()s;
 * individual always counts) and keeps the one of the least total in
 * *best, a tie going to the segment first in enum order (individual
 * first); request->segment is left at the segment chosen. *best and
 * *scratch are two results with room for the request's items, which this
 * may swap. A segment the request cannot be priced for (a billing or a
 * bundle it may not use) is passed over; when none can be, returns the
 * first segment's error, as quote_compute() does. */
enum gq_code quote_compute_cheapest_segment(const struct catalog *catalog,
                                            struct quote_request *request, unsigned held,
                                            struct quote_result **best,
                                            struct quote_result **scratch, struct gq_error *err);

#endif
