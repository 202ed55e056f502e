/*
 * The POST /quote body: JSON to a quote_request (types, unknown fields,
 * SKUs and bundles resolved, each problem with its JSON path), and a priced
 * quote back to the JSON that is sent and stored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/bodies.h"
#include "util/clock.h"

/* ---- parse ------------------------------------------------------------ */

/* "customer": {"id", "segment"}, both optional: whom the quote is for,
 * and the segment asked for (individual when none is). */
static enum gq_code parse_customer(json_t *body, struct parsed_quote *parsed, struct gq_error *err)
{
    static const char *const customer_fields[] = {"id", "segment", NULL};
    json_t *customer;
    const char *name = NULL;
    parsed->request.segment = SEGMENT_INDIVIDUAL;
    parsed->customer_id = NULL;
    enum gq_code code = fields_object(body, "customer", "", false, &customer, err);
    if (code != GQ_OK || customer == NULL)
        return code;
    if ((code = fields_only(customer, customer_fields, "customer", err)) != GQ_OK ||
        (code = fields_string(customer, "id", "customer", false, &parsed->customer_id, err)) !=
            GQ_OK ||
        (code = fields_string(customer, "segment", "customer", false, &name, err)) != GQ_OK)
        return code;
    parsed->segment_named = name != NULL;
    if (name != NULL && !segment_parse(name, &parsed->request.segment))
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "customer.segment", MSG_FIELD_ONE_OF,
                           MSG_TEXT("customer.segment"),
                           MSG_TEXT("individual, student, startup, enterprise"));
    return GQ_OK;
}

static enum gq_code parse_billing(const char *name, const char *path,
                                  struct quote_item_request *item, struct gq_error *err)
{
    item->cheapest = false;
    item->billing = BILLING_ON_DEMAND;
    if (name == NULL)
        return GQ_OK;
    if (strcmp(name, "cheapest") == 0) {
        item->cheapest = true;
        return GQ_OK;
    }
    if (billing_mode_parse(name, &item->billing))
        return GQ_OK;
    return fields_fail_one_of(path, "billing", "on_demand, monthly, quarterly, student, cheapest",
                              err);
}

static enum gq_code find_sku(const struct catalog *catalog, const char *sku_id, const char *path,
                             const struct sku **out, struct gq_error *err)
{
    *out = catalog_find_sku(catalog, sku_id);
    if (*out != NULL)
        return GQ_OK;
    char field[96];
    fields_path(field, sizeof field, path, "sku");
    return gq_fail_msg(err, GQ_ERR_UNKNOWN_SKU, field, MSG_NO_SKU, MSG_TEXT_CUT(sku_id, 64));
}

static enum gq_code parse_item(json_t *object, const char *path, const struct catalog *catalog,
                               struct quote_item_request *item, struct gq_error *err)
{
    static const char *const item_fields[] = {"sku",           "quantity", "billing",
                                              "hours_per_day", "days",     NULL};
    const char *sku_id, *billing;
    int64_t quantity = 1, days = 0;
    enum gq_code code;
    /* Each field whole (its type, range and meaning) before the next, in
     * the order of item_fields: the first error is the first field's. */
    if ((code = fields_object_only(object, item_fields, path, err)) != GQ_OK ||
        (code = fields_string(object, "sku", path, true, &sku_id, err)) != GQ_OK ||
        (code = find_sku(catalog, sku_id, path, &item->sku, err)) != GQ_OK ||
        (code = fields_integer(object, "quantity", path, false, 1, QUOTE_MAX_QUANTITY, &quantity,
                               err)) != GQ_OK ||
        (code = fields_string(object, "billing", path, false, &billing, err)) != GQ_OK ||
        (code = parse_billing(billing, path, item, err)) != GQ_OK ||
        (code = fields_hours_per_day(object, "hours_per_day", path, true,
                                     &item->usage.millihours_per_day, err)) != GQ_OK ||
        (code = fields_integer(object, "days", path, true, 1, USAGE_MAX_DAYS, &days, err)) != GQ_OK)
        return code;
    item->quantity = (int32_t)quantity;
    item->usage.days = (int32_t)days;
    return GQ_OK;
}

static enum gq_code parse_items(json_t *body, const struct catalog *catalog,
                                struct parsed_quote *parsed, struct gq_error *err)
{
    json_t *items;
    /* Optional even without bundles: a quote of nothing is quote_compute's
     * out_of_range, reported once every field present has its type. */
    enum gq_code code = fields_array(body, "items", "", false, QUOTE_MAX_ITEMS, &items, err);
    if (code != GQ_OK)
        return code;
    for (size_t i = 0; i < json_array_size(items); i++) {
        char path[32];
        fields_index_path(path, sizeof path, "items", i);
        code = parse_item(json_array_get(items, i), path, catalog, &parsed->items[i], err);
        if (code != GQ_OK)
            return code;
    }
    parsed->request.items = parsed->items;
    parsed->request.n_items = json_array_size(items);
    return GQ_OK;
}

static enum gq_code parse_bundles(json_t *body, const struct catalog *catalog,
                                  struct parsed_quote *parsed, struct gq_error *err)
{
    json_t *bundles;
    enum gq_code code = fields_array(body, "bundles", "", false, QUOTE_MAX_BUNDLES, &bundles, err);
    if (code != GQ_OK)
        return code;
    for (size_t i = 0; i < json_array_size(bundles); i++) {
        char field[32];
        fields_index_path(field, sizeof field, "bundles", i);
        json_t *id = json_array_get(bundles, i);
        if (!json_is_string(id))
            return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, field, MSG_FIELD_BUNDLE_ID,
                               MSG_TEXT(field));
        if (!fields_is_text(id))
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_FIELD_NO_NUL, MSG_TEXT(field));
        parsed->bundles[i] = catalog_find_bundle(catalog, json_string_value(id));
        if (parsed->bundles[i] == NULL) {
            return gq_fail_msg(err, GQ_ERR_UNKNOWN_BUNDLE, field, MSG_NO_BUNDLE,
                               MSG_TEXT_CUT(json_string_value(id), 64));
        }
    }
    parsed->request.bundles = parsed->bundles;
    parsed->request.n_bundles = json_array_size(bundles);
    return GQ_OK;
}

enum gq_code quote_body_parse(json_t *body, const struct catalog *catalog,
                              struct parsed_quote *parsed, struct gq_error *err)
{
    static const char *const body_fields[] = {"customer",       "items",    "bundles",
                                              "save",           "metadata", "client_reference_id",
                                              "promotion_code", NULL};
    parsed->request = (struct quote_request){.segment = SEGMENT_INDIVIDUAL};
    parsed->save = true;
    parsed->segment_named = false;
    enum gq_code code;
    if ((code = fields_only(body, body_fields, "", err)) != GQ_OK ||
        (code = parse_customer(body, parsed, err)) != GQ_OK ||
        (code = parse_items(body, catalog, parsed, err)) != GQ_OK ||
        (code = parse_bundles(body, catalog, parsed, err)) != GQ_OK ||
        (code = fields_boolean(body, "save", "", false, &parsed->save, err)) != GQ_OK ||
        (code = fields_text(body, "client_reference_id", "", QUOTE_REFERENCE_MAX,
                            &parsed->client_reference_id, err)) != GQ_OK ||
        (code = fields_metadata(body, "metadata", "", &parsed->metadata, err)) != GQ_OK ||
        (code = fields_string(body, "promotion_code", "", false, &parsed->promotion_code, err)) !=
            GQ_OK)
        return code;
    return GQ_OK;
}

/* ---- render ----------------------------------------------------------- */

/* Rendered with the streaming writer: a quote is the largest body built
 * per request (json_writer.h says why not a jansson tree). */

static void write_discounts(struct jsonw *w, const struct discount_result *discounts)
{
    jsonw_array_begin(w);
    for (int i = 0; i < discounts->n_applied; i++) {
        const struct applied_discount *applied = &discounts->applied[i];
        jsonw_object_begin(w);
        jsonw_key_string(w, "rule", applied->rule->id);
        jsonw_key_string(w, "name", applied->rule->name);
        jsonw_key_string(w, "source",
                         applied->rule->from_promotion_code ? "promotion_code"
                         : applied->rule->from_customer     ? "customer"
                                                            : "price_list");
        jsonw_key_money(w, "amount", applied->amount);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
}

/* The plans an item's members show, with where each was written: the plan
 * billed, the options and the cheapest are often the same plan (three
 * times over for an item billed at its cheapest option), and copying the
 * bytes written the first time costs a fraction of writing them again. */
struct written_plan {
    const struct plan *plan;
    size_t start, end; /* its bytes in the document */
};

struct written_plans {
    struct written_plan seen[BILLING_MODE_COUNT + 2];
    int n_seen;
    enum gq_lang lang; /* of the plans' summaries */
};

static void write_plan(struct jsonw *w, const struct sku *sku, const struct plan *plan,
                       struct written_plans *written)
{
    for (int i = 0; i < written->n_seen; i++)
        if (written->seen[i].plan == plan || plan_equal(written->seen[i].plan, plan)) {
            jsonw_repeat(w, written->seen[i].start, written->seen[i].end);
            return;
        }
    size_t start = jsonw_length(w);
    render_plan_in(w, sku, plan, written->lang);
    if (written->n_seen < (int)(sizeof written->seen / sizeof written->seen[0]))
        written->seen[written->n_seen++] = (struct written_plan){plan, start, jsonw_length(w)};
}

/* The members of an option: "billing", "amount", "discount_total",
 * "total", "plan" (the caller opens and closes the object). */
static void write_option_members(struct jsonw *w, const struct sku *sku,
                                 const struct priced_option *option, struct written_plans *written)
{
    jsonw_key_string(w, "billing", plan_billing_id(&option->plan));
    jsonw_key_money(w, "amount", option->amount);
    jsonw_key_money(w, "discount_total", option->discounts.total);
    jsonw_key_money(w, "total", option->total);
    jsonw_key(w, "plan");
    write_plan(w, sku, &option->plan, written);
}

static void write_options(struct jsonw *w, const struct sku *sku,
                          const struct quote_item_result *result, struct written_plans *written)
{
    jsonw_array_begin(w);
    for (int i = 0; i < result->n_options; i++) {
        jsonw_object_begin(w);
        write_option_members(w, sku, &result->options[i], written);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
}

static void write_break_even(struct jsonw *w, const struct quote_item_result *result)
{
    jsonw_object_begin(w);
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (result->break_even_tenths[m] >= 0)
            jsonw_key_fixed(w, billing_mode_id((enum billing_mode)m), result->break_even_tenths[m],
                            1);
    jsonw_object_end(w);
}

/* An item billed "cheapest": each bundle that covers it, its price, the
 * item's total, the difference (bundle - item, negative when the bundle
 * is cheaper) and which is cheaper ("item" on a tie). */
static void write_bundle_comparisons(struct jsonw *w, const struct quote_item_result *result)
{
    jsonw_array_begin(w);
    for (size_t i = 0; i < result->n_bundle_comparisons; i++) {
        const struct quote_bundle_comparison *comparison = &result->bundle_comparisons[i];
        jsonw_object_begin(w);
        jsonw_key_string(w, "bundle", comparison->bundle->id);
        jsonw_key_money(w, "price", comparison->bundle->price);
        jsonw_key_money(w, "item_total", result->billed->total);
        jsonw_key_money(w, "difference", comparison->difference);
        jsonw_key_string(w, "cheaper", comparison->difference < 0 ? "bundle" : "item");
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
}

static void write_item(struct jsonw *w, const struct quote_item_request *item,
                       const struct quote_item_result *result, enum gq_lang lang)
{
    const struct priced_option *billed = result->billed;
    struct written_plans written = {.n_seen = 0, .lang = lang};
    jsonw_object_begin(w);
    jsonw_key_string(w, "sku", item->sku->id);
    jsonw_key_integer(w, "quantity", item->quantity);
    jsonw_key_string(w, "billing", item->cheapest ? "cheapest" : billing_mode_id(item->billing));
    jsonw_key_fixed(w, "hours_per_day", item->usage.millihours_per_day, 3);
    jsonw_key_integer(w, "days", item->usage.days);
    jsonw_key_fixed(w, "billable_hours", result->billable_millihours * item->quantity, 3);
    jsonw_key_money(w, "amount", billed->amount);
    jsonw_key(w, "discounts");
    write_discounts(w, &billed->discounts);
    jsonw_key_money(w, "discount_total", billed->discounts.total);
    jsonw_key_money(w, "total", billed->total);
    jsonw_key(w, "plan");
    write_plan(w, item->sku, &billed->plan, &written);
    jsonw_key(w, "options");
    write_options(w, item->sku, result, &written);
    jsonw_key(w, "cheapest");
    jsonw_object_begin(w);
    write_option_members(w, item->sku, &result->cheapest, &written);
    jsonw_key_money(w, "saving", result->saving);
    jsonw_object_end(w);
    jsonw_key(w, "break_even_hours_per_day");
    write_break_even(w, result);
    if (item->cheapest) {
        jsonw_key(w, "bundle_comparisons");
        write_bundle_comparisons(w, result);
    }
    jsonw_object_end(w);
}

/* A bundle line: its figures, what its contents cost bought as items at
 * their cheapest plans (null when they cannot be) and the saving against
 * that, which may be negative: then `reasons` says so. */
static void write_bundle_line(struct jsonw *w, const struct catalog *catalog,
                              enum customer_segment segment, const struct quote_bundle_result *line,
                              enum gq_lang lang)
{
    jsonw_object_begin(w);
    jsonw_key_string(w, "id", line->bundle->id);
    jsonw_key_string(w, "name", catalog_name(line->bundle->text, lang, line->bundle->name));
    jsonw_key_money(w, "list_price", line->bundle->list_price);
    jsonw_key_money(w, "price", line->bundle->price);
    jsonw_key_money(w, "list_saving", line->list_saving);
    jsonw_key(w, "cheapest_alternative");
    if (line->has_alternative) {
        char summary[RENDER_ALTERNATIVE_SUMMARY_SIZE];
        render_bundle_alternative_summary(catalog, line->bundle, segment, lang, summary,
                                          sizeof summary);
        jsonw_object_begin(w);
        jsonw_key_money(w, "amount", line->alternative);
        jsonw_key_string(w, "summary", summary);
        jsonw_object_end(w);
        jsonw_key_money(w, "saving", line->saving);
    } else {
        jsonw_null(w);
        jsonw_key(w, "saving");
        jsonw_null(w);
    }
    jsonw_key(w, "reasons");
    jsonw_array_begin(w);
    char reason[512];
    if (quote_bundle_reason(line, catalog->currency, lang, reason, sizeof reason) > 0)
        jsonw_string(w, reason);
    jsonw_array_end(w);
    jsonw_object_end(w);
}

/* id, status and the times, first, so a reader sees what the quote is. */
static void write_header(struct jsonw *w, const struct catalog *catalog,
                         const struct quote_meta *meta)
{
    char time[CLOCK_RFC3339_SIZE];
    if (meta->id != NULL)
        jsonw_key_string(w, "id", meta->id);
    jsonw_key_string(w, "status", meta->id ? "open" : "unsaved");
    jsonw_key_string(w, "currency", catalog->currency);
    jsonw_key_integer(w, "price_list_version", catalog->price_list_version);
    jsonw_key_string(w, "created_at", clock_format_rfc3339(meta->created_at, time));
    if (meta->id != NULL)
        jsonw_key_string(w, "expires_at", clock_format_rfc3339(meta->expires_at, time));
    jsonw_key_string(w, "language", gq_lang_tag(meta->lang));
}

static void jsonw_key_raw_literal(struct jsonw *w, const char *key, const char *json)
{
    jsonw_key(w, key);
    jsonw_raw(w, json, strlen(json));
}

/* "client_reference_id" (or null) and "metadata" ({} when none), as sent. */
static void write_references(struct jsonw *w, const struct parsed_quote *parsed)
{
    jsonw_key(w, "client_reference_id");
    if (parsed->client_reference_id != NULL)
        jsonw_string(w, parsed->client_reference_id);
    else
        jsonw_null(w);
    /* Its keys are the client's: jansson escapes them, the writer's keys
     * are literals it does not. */
    jsonw_key(w, "metadata");
    char *metadata = json_object_size(parsed->metadata) > 0
                         ? json_dumps(parsed->metadata, JSON_COMPACT | JSON_PRESERVE_ORDER)
                         : NULL;
    if (metadata != NULL)
        jsonw_raw(w, metadata, strlen(metadata));
    else if (json_object_size(parsed->metadata) > 0)
        w->failed = true; /* out of memory: no quote without its metadata */
    else
        jsonw_raw(w, "{}", 2);
    free(metadata);
}

/* "customer": {"id" (or null), "segment", "segment_chosen"}, then, for an
 * estimate, "estimate": true and its "estimate_reason", then "created_by"
 * (a key's id, "anonymous" or, unsaved, null). */
static void write_customer(struct jsonw *w, const struct parsed_quote *parsed,
                           const struct quote_meta *meta)
{
    jsonw_key(w, "customer");
    jsonw_object_begin(w);
    jsonw_key(w, "id");
    if (parsed->customer_id != NULL)
        jsonw_string(w, parsed->customer_id);
    else
        jsonw_null(w);
    jsonw_key_string(w, "segment", segment_id(parsed->request.segment));
    jsonw_key_string(w, "segment_chosen", meta->segment_chosen ? meta->segment_chosen : "default");
    jsonw_object_end(w);
    if (meta->estimate_reason != NULL) {
        jsonw_key_raw_literal(w, "estimate", "true");
        jsonw_key_string(w, "estimate_reason", meta->estimate_reason);
    }
    jsonw_key(w, "created_by");
    if (meta->created_by != NULL)
        jsonw_string(w, meta->created_by);
    else
        jsonw_null(w);
}

char *quote_body_render(const struct catalog *catalog, const struct parsed_quote *parsed,
                        const struct quote_result *result, const struct quote_meta *meta,
                        size_t *length)
{
    struct jsonw w;
    jsonw_init(&w, 2048 * (result->n_items + 1));
    jsonw_object_begin(&w);
    write_header(&w, catalog, meta);
    write_customer(&w, parsed, meta);
    write_references(&w, parsed);
    jsonw_key(&w, "items");
    jsonw_array_begin(&w);
    for (size_t i = 0; i < result->n_items; i++)
        write_item(&w, &parsed->items[i], &result->items[i], meta->lang);
    jsonw_array_end(&w);
    jsonw_key(&w, "bundles");
    jsonw_array_begin(&w);
    for (size_t i = 0; i < result->n_bundles; i++)
        write_bundle_line(&w, catalog, parsed->request.segment, &result->bundles[i], meta->lang);
    jsonw_array_end(&w);
    jsonw_key_money(&w, "subtotal", result->subtotal);
    jsonw_key_money(&w, "discount_total", result->discount_total);
    jsonw_key_money(&w, "total", result->total);
    if (meta->id != NULL) /* a saved quote's lifecycle, brought up to date when read */
        jsonw_key_raw_literal(&w, "status_transitions",
                              "{\"accepted_at\":null,\"canceled_at\":null,\"expired_at\":null}");
    jsonw_object_end(&w);
    return jsonw_finish(&w, length);
}
