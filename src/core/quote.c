/*
 * Pricing a quote: validate each item's ranges and eligibility, price it in
 * every mode the customer may use and at its cheapest plan, apply
 * discounts, price the bundles, and add everything up with checked
 * arithmetic.
 */
#include "core/quote.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct quote_result *quote_result_new(size_t capacity)
{
    if (capacity > QUOTE_MAX_ITEMS)
        capacity = QUOTE_MAX_ITEMS;
    struct quote_result *result = calloc(1, sizeof *result);
    if (result == NULL)
        return NULL;
    /* Not zeroed: pricing writes every member of an item that is read
     * back, and zeroing ~1.6 KB an item was most of this function's cost. */
    result->items = malloc((capacity ? capacity : 1) * sizeof *result->items);
    if (result->items == NULL) {
        free(result);
        return NULL;
    }
    result->capacity = capacity;
    return result;
}

void quote_result_free(struct quote_result *result)
{
    if (result == NULL)
        return;
    free(result->items);
    free(result);
}

bool quote_mode_allowed(const struct catalog *catalog, const struct sku *sku,
                        enum customer_segment segment, enum billing_mode mode)
{
    return sku->priced[mode] && (catalog->modes[mode].segment_mask & SEGMENT_BIT(segment)) != 0;
}

/* BILLING_MODE_BIT of every mode `segment` may use for `sku`. */
static uint32_t usable_modes_for(const struct catalog *catalog, const struct sku *sku,
                                 enum customer_segment segment)
{
    uint32_t usable = 0;
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (quote_mode_allowed(catalog, sku, segment, (enum billing_mode)m))
            usable |= BILLING_MODE_BIT(m);
    return usable;
}

static bool is_usable(uint32_t usable_modes, enum billing_mode mode)
{
    return (usable_modes & BILLING_MODE_BIT(mode)) != 0;
}

/* The hourly mode a customer who may use `usable_modes` pays: the student
 * rate when they may use it, else on-demand. They pay by the hour at all
 * only when the mode returned is usable; when even on-demand is not, the
 * SKU is theirs in blocks only (plan_cheapest covers the days with blocks,
 * and there is no hourly option to compare with). */
static enum billing_mode hourly_mode_for(uint32_t usable_modes)
{
    return is_usable(usable_modes, BILLING_STUDENT) ? BILLING_STUDENT : BILLING_ON_DEMAND;
}

const char *quote_status(bool accepted, int64_t expires_at, int64_t now)
{
    if (accepted)
        return "accepted";
    return now >= expires_at ? "expired" : "open";
}

static enum gq_code check_item(const struct catalog *catalog, const struct quote_item_request *item,
                               enum customer_segment segment, size_t index, struct gq_error *err)
{
    char field[64];
    if (item->quantity < 1 || item->quantity > QUOTE_MAX_QUANTITY) {
        snprintf(field, sizeof field, "items[%zu].quantity", index);
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_QUANTITY_RANGE,
                           MSG_INT(QUOTE_MAX_QUANTITY), MSG_INT(item->quantity));
    }
    if (item->usage.millihours_per_day < 1 ||
        item->usage.millihours_per_day > USAGE_MAX_MILLIHOURS_PER_DAY) {
        snprintf(field, sizeof field, "items[%zu].hours_per_day", index);
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_HOURS_PER_DAY_RANGE);
    }
    if (item->usage.days < 1 || item->usage.days > USAGE_MAX_DAYS) {
        snprintf(field, sizeof field, "items[%zu].days", index);
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_DAYS_RANGE, MSG_INT(USAGE_MAX_DAYS),
                           MSG_INT(item->usage.days));
    }
    if (!item->cheapest && !quote_mode_allowed(catalog, item->sku, segment, item->billing)) {
        snprintf(field, sizeof field, "items[%zu].billing", index);
        if (!item->sku->priced[item->billing])
            return gq_fail_msg(err, GQ_ERR_NOT_ELIGIBLE, field, MSG_SKU_NOT_PRICED_IN,
                               MSG_TEXT(item->sku->id), MSG_TEXT(billing_mode_id(item->billing)));
        return gq_fail_msg(err, GQ_ERR_NOT_ELIGIBLE, field, MSG_MODE_NOT_FOR_SEGMENT,
                           MSG_TEXT(billing_mode_id(item->billing)), MSG_TEXT(segment_id(segment)));
    }
    return GQ_OK;
}

/* Scales a per-instance plan to the quantity and applies the discounts a
 * line billed as `billing_bit` earns. */
static enum gq_code price_option(const struct catalog *catalog, const struct quote_request *request,
                                 const struct quote_item_request *item, uint32_t billing_bit,
                                 struct priced_option *option)
{
    if (!money_mul(option->plan.amount, item->quantity, &option->amount) ||
        option->amount > MONEY_MAX)
        return GQ_ERR_AMOUNT_TOO_LARGE;
    struct discount_line line = {
        .segment = request->segment,
        .billing_bit = billing_bit,
        .sku = item->sku,
        .quantity = item->quantity,
        .amount = option->amount,
        .now = request->now,
        .extra = request->promotion,
        .own = request->customer_rules,
        .n_own = request->n_customer_rules,
    };
    discounts_apply(catalog, &line, &option->discounts);
    option->total = option->amount - option->discounts.total;
    return GQ_OK;
}

static uint32_t plan_billing_bit(const struct plan *plan)
{
    return plan_is_mixed(plan) ? DISCOUNT_BILLING_MIXED : 1u << plan->parts[0].mode;
}

/* The modes an item cannot be priced without: the one billed, or, for
 * "cheapest", the hourly mode its saving is measured against. */
static bool option_needed(const struct quote_item_request *item, uint32_t usable_modes,
                          enum billing_mode mode)
{
    if (item->cheapest)
        return mode == hourly_mode_for(usable_modes) && is_usable(usable_modes, mode);
    return mode == item->billing;
}

static enum gq_code price_every_mode(const struct catalog *catalog,
                                     const struct quote_request *request,
                                     const struct quote_item_request *item, uint32_t usable_modes,
                                     struct quote_item_result *result)
{
    result->n_options = 0;
    bool overflowed = false;
    for (int m = 0; m < BILLING_MODE_COUNT; m++) {
        enum billing_mode mode = (enum billing_mode)m;
        if (!is_usable(usable_modes, mode))
            continue;
        struct priced_option *option = &result->options[result->n_options];
        enum gq_code code = plan_single_mode(item->sku, mode, &item->usage, &option->plan);
        if (code == GQ_OK)
            code = price_option(catalog, request, item, 1u << mode, option);
        /* A mode whose price for this usage is too large to hold is left
         * out of the options, unless the quote needs it: an absurd
         * quarterly price must not stop a quote billed by the hour. */
        if (code == GQ_ERR_AMOUNT_TOO_LARGE && !option_needed(item, usable_modes, mode)) {
            overflowed = true;
            continue;
        }
        if (code != GQ_OK)
            return code;
        result->option_modes[result->n_options++] = mode;
    }
    return overflowed && result->n_options == 0 ? GQ_ERR_AMOUNT_TOO_LARGE : GQ_OK;
}

/* True when some rule of the catalog discounts mixed plans. */
static bool mixed_plans_discounted(const struct catalog *catalog)
{
    for (size_t i = 0; i < catalog->n_rules; i++)
        if (catalog->rules[i].billing_mask & DISCOUNT_BILLING_MIXED)
            return true;
    return false;
}

/* Replaces the cheapest option by the cheapest mixed cover if, once
 * discounted, it costs less: a discount on mixed plans can make it win
 * though it costs more before discounts. */
static enum gq_code consider_cheapest_mixed(const struct catalog *catalog,
                                            const struct quote_request *request,
                                            const struct quote_item_request *item,
                                            uint32_t usable_modes, struct priced_option *cheapest)
{
    struct priced_option mixed = {0};
    enum gq_code code = plan_cheapest_mixed(item->sku, usable_modes, hourly_mode_for(usable_modes),
                                            &item->usage, &mixed.plan);
    if (code == GQ_ERR_NOT_ELIGIBLE) /* no mixed cover of this usage */
        return GQ_OK;
    if (code == GQ_OK)
        code = price_option(catalog, request, item, DISCOUNT_BILLING_MIXED, &mixed);
    if (code == GQ_OK && mixed.total < cheapest->total)
        *cheapest = mixed;
    return code;
}

/* The cheapest plan after discounts: the exact cheapest cover by the modes
 * the customer may use, unless a discount makes a single-mode option or
 * (where mixed plans are discounted) the cheapest mixed cover cheaper.
 * Discounts never raise a cheaper line above a dearer one of the same
 * billing, so each kind of billing is represented by its cheapest plan.
 * GQ_ERR_NOT_ELIGIBLE when the customer may use no mode. */
static enum gq_code price_cheapest(const struct catalog *catalog,
                                   const struct quote_request *request,
                                   const struct quote_item_request *item, uint32_t usable_modes,
                                   struct quote_item_result *result)
{
    enum billing_mode hourly = hourly_mode_for(usable_modes);
    struct priced_option *cheapest = &result->cheapest;
    enum gq_code code =
        plan_cheapest(item->sku, usable_modes, hourly, &item->usage, &cheapest->plan);
    if (code == GQ_OK)
        code = price_option(catalog, request, item, plan_billing_bit(&cheapest->plan), cheapest);
    if (code != GQ_OK)
        return code;
    for (int i = 0; i < result->n_options; i++)
        if (result->options[i].total < cheapest->total)
            *cheapest = result->options[i];
    if (!plan_is_mixed(&cheapest->plan) && mixed_plans_discounted(catalog))
        return consider_cheapest_mixed(catalog, request, item, usable_modes, cheapest);
    return GQ_OK;
}

static const struct priced_option *option_for_mode(const struct quote_item_result *result,
                                                   enum billing_mode mode)
{
    for (int i = 0; i < result->n_options; i++)
        if (result->option_modes[i] == mode)
            return &result->options[i];
    return NULL;
}

/* A break-even compares a block with paying by the hour, so there is one
 * only where the customer may use both. */
static void fill_break_even(const struct quote_item_request *item, uint32_t usable_modes,
                            struct quote_item_result *result)
{
    enum billing_mode hourly = hourly_mode_for(usable_modes);
    for (int m = 0; m < BILLING_MODE_COUNT; m++) {
        enum billing_mode mode = (enum billing_mode)m;
        bool comparable = !billing_mode_is_hourly(mode) && is_usable(usable_modes, mode) &&
                          is_usable(usable_modes, hourly);
        result->break_even_tenths[m] =
            comparable ? plan_break_even_tenths(item->sku, hourly, mode) : -1;
    }
}

static void compare_with_bundles(const struct catalog *catalog, const struct quote_request *request,
                                 const struct quote_item_request *item,
                                 struct quote_item_result *result);

/* Prices one item whose ranges check_item() has accepted. Returns
 * GQ_ERR_NOT_ELIGIBLE when the customer may use no mode of its SKU,
 * GQ_ERR_AMOUNT_TOO_LARGE on overflow. */
static enum gq_code price_item(const struct catalog *catalog, const struct quote_request *request,
                               const struct quote_item_request *item,
                               struct quote_item_result *result)
{
    uint32_t usable_modes = usable_modes_for(catalog, item->sku, request->segment);
    result->billable_millihours = usage_millihours(&item->usage);
    enum gq_code code = price_every_mode(catalog, request, item, usable_modes, result);
    if (code == GQ_OK)
        code = price_cheapest(catalog, request, item, usable_modes, result);
    if (code != GQ_OK)
        return code;

    if (item->cheapest) {
        result->billed = &result->cheapest;
        enum billing_mode hourly = hourly_mode_for(usable_modes);
        /* NULL when the customer may not pay by the hour: no saving then. */
        const struct priced_option *by_the_hour = option_for_mode(result, hourly);
        result->saving = by_the_hour ? by_the_hour->total - result->cheapest.total : 0;
    } else {
        result->billed = option_for_mode(result, item->billing);
        result->saving = result->billed->total - result->cheapest.total;
    }
    fill_break_even(item, usable_modes, result);
    compare_with_bundles(catalog, request, item, result);
    return GQ_OK;
}

static bool bundle_for_segment(const struct bundle *bundle, enum customer_segment segment)
{
    return (bundle->segment_mask & SEGMENT_BIT(segment)) != 0;
}

static bool bundle_on_offer(const struct bundle *bundle, int64_t now)
{
    return validity_contains(bundle->valid_from, bundle->valid_until, now);
}

bool quote_bundle_usable(const struct bundle *bundle, enum customer_segment segment, int64_t now)
{
    return bundle_for_segment(bundle, segment) && bundle_on_offer(bundle, now);
}

static enum gq_code check_bundle(const struct bundle *bundle, const struct quote_request *request,
                                 size_t index, struct gq_error *err)
{
    char field[32];
    snprintf(field, sizeof field, "bundles[%zu]", index);
    if (!bundle_for_segment(bundle, request->segment))
        return gq_fail_msg(err, GQ_ERR_NOT_ELIGIBLE, field, MSG_BUNDLE_NOT_FOR_SEGMENT,
                           MSG_TEXT(bundle->id), MSG_TEXT(segment_id(request->segment)));
    if (!bundle_on_offer(bundle, request->now))
        return gq_fail_msg(err, GQ_ERR_NOT_ELIGIBLE, field, MSG_BUNDLE_NOT_ON_OFFER,
                           MSG_TEXT(bundle->id));
    return GQ_OK;
}

bool quote_bundle_covers(const struct bundle *bundle, const struct quote_item_request *item,
                         int64_t billable_millihours)
{
    for (size_t i = 0; i < bundle->n_items; i++) {
        const struct bundle_item *line = &bundle->items[i];
        if (line->sku != NULL && strcmp(line->sku->id, item->sku->id) == 0 &&
            line->quantity >= item->quantity &&
            (int64_t)line->hours * USAGE_MILLIHOURS_PER_HOUR >= billable_millihours)
            return true;
    }
    return false;
}

/* The bundles of the catalog that cover an item billed "cheapest", each
 * with what it costs more than the item as billed. */
static void compare_with_bundles(const struct catalog *catalog, const struct quote_request *request,
                                 const struct quote_item_request *item,
                                 struct quote_item_result *result)
{
    result->n_bundle_comparisons = 0;
    if (!item->cheapest)
        return;
    for (size_t i = 0; i < catalog->n_bundles; i++) {
        const struct bundle *bundle = &catalog->bundles[i];
        if (result->n_bundle_comparisons == QUOTE_MAX_BUNDLE_COMPARISONS)
            break;
        if (!quote_bundle_usable(bundle, request->segment, request->now) ||
            !quote_bundle_covers(bundle, item, result->billable_millihours))
            continue;
        /* Both within 0 .. MONEY_MAX: the difference cannot overflow. */
        result->bundle_comparisons[result->n_bundle_comparisons++] =
            (struct quote_bundle_comparison){bundle, bundle->price - result->billed->total};
    }
}

#define HOURS_PER_DAY 24

/* Adds `hours` on a day of their own, billed at `hourly_mode`, to the
 * plan: to its hourly part (the last one, if any), or as a new one. */
static enum gq_code add_tail_hours(const struct sku *sku, enum billing_mode hourly_mode,
                                   int32_t hours, struct plan *plan)
{
    gq_money amount;
    if (!money_mul(sku->price[hourly_mode], hours, &amount))
        return GQ_ERR_AMOUNT_TOO_LARGE;
    struct plan_part *last = plan->n_parts > 0 ? &plan->parts[plan->n_parts - 1] : NULL;
    if (last == NULL || !billing_mode_is_hourly(last->mode)) {
        assert(plan->n_parts < PLAN_MAX_PARTS);
        last = &plan->parts[plan->n_parts++];
        *last = (struct plan_part){.mode = hourly_mode};
    }
    last->days += 1;
    last->millihours += (int64_t)hours * USAGE_MILLIHOURS_PER_HOUR;
    if (!money_add(last->amount, amount, &last->amount) ||
        !money_add(plan->amount, amount, &plan->amount) || plan->amount > MONEY_MAX)
        return GQ_ERR_AMOUNT_TOO_LARGE;
    return GQ_OK;
}

/* plan_cheapest() around the clock for `days` days (0: an empty plan). */
static enum gq_code plan_whole_days(const struct sku *sku, uint32_t usable_modes, int32_t days,
                                    struct plan *out)
{
    *out = (struct plan){0};
    if (days == 0)
        return GQ_OK;
    if (days > USAGE_MAX_DAYS)
        return GQ_ERR_OUT_OF_RANGE;
    struct usage usage = {.millihours_per_day = HOURS_PER_DAY * USAGE_MILLIHOURS_PER_HOUR,
                          .days = days};
    return plan_cheapest(sku, usable_modes, hourly_mode_for(usable_modes), &usage, out);
}

enum gq_code quote_bundle_item_plan(const struct catalog *catalog, const struct bundle_item *item,
                                    enum customer_segment segment, struct plan *out)
{
    uint32_t usable_modes = usable_modes_for(catalog, item->sku, segment);
    enum billing_mode hourly = hourly_mode_for(usable_modes);
    if (item->hours < 1)
        return GQ_ERR_OUT_OF_RANGE;
    int32_t days = item->hours / HOURS_PER_DAY, tail = item->hours % HOURS_PER_DAY;
    if (tail == 0)
        return plan_whole_days(item->sku, usable_modes, days, out);

    /* The last day covered by blocks: the search over one more day, which
     * is exact when that day is not paid by the hour (and dearer when it
     * is, a cover the next candidate prices exactly). */
    struct plan covered;
    enum gq_code covered_code = plan_whole_days(item->sku, usable_modes, days + 1, &covered);
    if (covered_code == GQ_OK && covered.n_parts > 0 &&
        billing_mode_is_hourly(covered.parts[covered.n_parts - 1].mode))
        covered_code = GQ_ERR_NOT_ELIGIBLE; /* not a cover of the tail alone */
    /* The last day paid by the hour for its hours. */
    struct plan by_the_hour;
    enum gq_code hourly_code = is_usable(usable_modes, hourly)
                                   ? plan_whole_days(item->sku, usable_modes, days, &by_the_hour)
                                   : GQ_ERR_NOT_ELIGIBLE;
    if (hourly_code == GQ_OK)
        hourly_code = add_tail_hours(item->sku, hourly, tail, &by_the_hour);

    if (covered_code != GQ_OK && hourly_code != GQ_OK)
        return covered_code == GQ_ERR_NOT_ELIGIBLE ? hourly_code : covered_code;
    bool take_covered =
        covered_code == GQ_OK && (hourly_code != GQ_OK || covered.amount <= by_the_hour.amount);
    *out = take_covered ? covered : by_the_hour;
    return GQ_OK;
}

enum gq_code quote_bundle_alternative(const struct catalog *catalog, const struct bundle *bundle,
                                      enum customer_segment segment, gq_money *out)
{
    gq_money total = 0;
    for (size_t i = 0; i < bundle->n_items; i++) {
        struct plan plan;
        gq_money amount;
        enum gq_code code = quote_bundle_item_plan(catalog, &bundle->items[i], segment, &plan);
        if (code != GQ_OK)
            return code;
        if (!money_mul(plan.amount, bundle->items[i].quantity, &amount) ||
            !money_add(total, amount, &total) || total > MONEY_MAX)
            return GQ_ERR_AMOUNT_TOO_LARGE;
    }
    *out = total;
    return GQ_OK;
}

enum customer_segment quote_bundle_listing_segment(const struct bundle *bundle)
{
    for (int s = 0; s < SEGMENT_COUNT; s++)
        if (bundle->segment_mask & SEGMENT_BIT(s))
            return (enum customer_segment)s;
    return SEGMENT_INDIVIDUAL;
}

/* A bundle line: its list saving, and its saving against buying the
 * contents as items (none when they cannot be). */
static void price_bundle_line(const struct catalog *catalog, const struct bundle *bundle,
                              enum customer_segment segment, struct quote_bundle_result *line)
{
    *line = (struct quote_bundle_result){.bundle = bundle,
                                         .list_saving = bundle->list_price - bundle->price};
    line->has_alternative =
        quote_bundle_alternative(catalog, bundle, segment, &line->alternative) == GQ_OK;
    line->saving = line->has_alternative ? line->alternative - bundle->price : 0;
}

/* "¥" and an amount, or an amount, a space and a 3-letter code. */
#define AMOUNT_TEXT_SIZE (MONEY_FORMAT_SIZE + 4)

/* An amount as a reason says it, as /recommend's do: "¥57293.00" in CNY,
 * else with the catalog's ISO code ("57293.00 USD"); the same in every
 * language. */
static const char *amount_text(const char *currency, gq_money fen, char buf[AMOUNT_TEXT_SIZE])
{
    char digits[MONEY_FORMAT_SIZE];
    if (currency == NULL || strcmp(currency, "CNY") == 0)
        snprintf(buf, AMOUNT_TEXT_SIZE, "¥%s", money_format(fen, digits));
    else
        snprintf(buf, AMOUNT_TEXT_SIZE, "%s %.3s", money_format(fen, digits), currency);
    return buf;
}

size_t quote_bundle_reason(const struct quote_bundle_result *line, const char *currency,
                           enum gq_lang lang, char *buf, size_t size)
{
    if (size > 0)
        buf[0] = '\0';
    if (!line->has_alternative || line->saving >= 0 || size == 0)
        return 0;
    char more[AMOUNT_TEXT_SIZE], price[AMOUNT_TEXT_SIZE], alternative[AMOUNT_TEXT_SIZE];
    const struct msg_arg args[] = {
        MSG_CLAUSE(catalog_name(line->bundle->text, lang, line->bundle->name)),
        MSG_TEXT(amount_text(currency, -line->saving, more)),
        MSG_TEXT(amount_text(currency, line->bundle->price, price)),
        MSG_TEXT(amount_text(currency, line->alternative, alternative)),
    };
    return messages_format(lang, MSG_BUNDLE_DEARER_THAN_CONTENTS, args,
                           sizeof args / sizeof args[0], buf, size);
}

static enum gq_code too_large(struct gq_error *err, const char *field)
{
    return gq_fail_msg(err, GQ_ERR_AMOUNT_TOO_LARGE, field, MSG_AMOUNT_TOO_LARGE);
}

/* Reports why price_item() failed for item `index`. */
static enum gq_code item_not_priced(enum gq_code code, const struct quote_item_request *item,
                                    enum customer_segment segment, size_t index,
                                    struct gq_error *err)
{
    char field[64];
    if (code == GQ_ERR_NOT_ELIGIBLE) {
        snprintf(field, sizeof field, "items[%zu].billing", index);
        return gq_fail_msg(err, GQ_ERR_NOT_ELIGIBLE, field, MSG_NO_MODE_FOR_SEGMENT,
                           MSG_TEXT(item->sku->id), MSG_TEXT(segment_id(segment)));
    }
    assert(code == GQ_ERR_AMOUNT_TOO_LARGE);
    snprintf(field, sizeof field, "items[%zu]", index);
    return too_large(err, field);
}

static enum gq_code add_totals(struct quote_result *out, struct gq_error *err)
{
    out->subtotal = 0;
    out->discount_total = 0;
    for (size_t i = 0; i < out->n_items; i++) {
        const struct priced_option *billed = out->items[i].billed;
        if (!money_add(out->subtotal, billed->amount, &out->subtotal) ||
            !money_add(out->discount_total, billed->discounts.total, &out->discount_total))
            return too_large(err, "items");
    }
    for (size_t i = 0; i < out->n_bundles; i++)
        if (!money_add(out->subtotal, out->bundles[i].bundle->price, &out->subtotal))
            return too_large(err, "bundles");
    if (out->subtotal > MONEY_MAX)
        return too_large(err, "items");
    out->total = out->subtotal - out->discount_total;
    return GQ_OK;
}

enum gq_code quote_compute(const struct catalog *catalog, const struct quote_request *request,
                           struct quote_result *out, struct gq_error *err)
{
    if (request->n_items > QUOTE_MAX_ITEMS)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "items", MSG_TOO_MANY_ITEMS,
                           MSG_INT(QUOTE_MAX_ITEMS));
    if (request->n_bundles > QUOTE_MAX_BUNDLES)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "bundles", MSG_TOO_MANY_BUNDLES,
                           MSG_INT(QUOTE_MAX_BUNDLES));
    if (request->n_items > out->capacity)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "items", MSG_RESULT_ROOM,
                           MSG_INT(out->capacity));
    if (request->n_items + request->n_bundles == 0)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "items", MSG_QUOTE_EMPTY);
    out->n_items = request->n_items;
    out->n_bundles = request->n_bundles;
    for (size_t i = 0; i < request->n_items; i++) {
        const struct quote_item_request *item = &request->items[i];
        enum gq_code code = check_item(catalog, item, request->segment, i, err);
        if (code != GQ_OK)
            return code;
        code = price_item(catalog, request, item, &out->items[i]);
        if (code != GQ_OK)
            return item_not_priced(code, item, request->segment, i, err);
    }
    for (size_t i = 0; i < request->n_bundles; i++) {
        enum gq_code code = check_bundle(request->bundles[i], request, i, err);
        if (code != GQ_OK)
            return code;
        price_bundle_line(catalog, request->bundles[i], request->segment, &out->bundles[i]);
    }
    return add_totals(out, err);
}

enum gq_code quote_compute_cheapest_segment(const struct catalog *catalog,
                                            struct quote_request *request, unsigned held,
                                            struct quote_result **best,
                                            struct quote_result **scratch, struct gq_error *err)
{
    struct gq_error first_failure = {.code = GQ_OK}, attempt;
    enum customer_segment chosen = SEGMENT_INDIVIDUAL;
    bool priced = false;
    held |= SEGMENT_BIT(SEGMENT_INDIVIDUAL);
    for (int s = 0; s < SEGMENT_COUNT; s++) {
        if ((held & SEGMENT_BIT(s)) == 0)
            continue;
        request->segment = (enum customer_segment)s;
        struct quote_result *into = priced ? *scratch : *best;
        if (quote_compute(catalog, request, into, &attempt) != GQ_OK) {
            if (first_failure.code == GQ_OK)
                first_failure = attempt;
            continue;
        }
        /* Strictly cheaper only: on a tie the segment met first stays. */
        if (priced && into->total < (*best)->total) {
            *scratch = *best;
            *best = into;
        }
        if (!priced || *best == into)
            chosen = (enum customer_segment)s;
        priced = true;
    }
    request->segment = chosen;
    if (priced)
        return GQ_OK;
    if (err != NULL)
        *err = first_failure;
    return first_failure.code;
}
