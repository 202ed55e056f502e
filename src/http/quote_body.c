/*
 * The POST /quote body: JSON to a quote_request (types, unknown fields,
 * SKUs and bundles resolved, each problem with its JSON path), and a priced
 * quote back to the JSON that is sent and stored.
 */
#include <stdio.h>
#include <string.h>

#include "http/bodies.h"
#include "util/clock.h"

/* ---- parse ------------------------------------------------------------ */

static enum gq_code parse_segment(json_t *body, enum customer_segment *segment,
                                  struct gq_error *err)
{
    static const char *const customer_fields[] = {"segment", NULL};
    json_t *customer;
    const char *name = NULL;
    *segment = SEGMENT_INDIVIDUAL;
    enum gq_code code = fields_object(body, "customer", "", false, &customer, err);
    if (code != GQ_OK || customer == NULL)
        return code;
    if ((code = fields_only(customer, customer_fields, "customer", err)) != GQ_OK ||
        (code = fields_string(customer, "segment", "customer", false, &name, err)) != GQ_OK)
        return code;
    if (name != NULL && !segment_parse(name, segment))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "customer.segment",
                       "customer.segment must be one of individual, student, startup, enterprise");
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
    char field[96];
    fields_path(field, sizeof field, path, "billing");
    return gq_fail(err, GQ_ERR_INVALID_VALUE, field,
                   "%s must be one of on_demand, monthly, quarterly, student, cheapest", field);
}

static enum gq_code parse_item(json_t *object, const char *path, const struct catalog *catalog,
                               struct quote_item_request *item, struct gq_error *err)
{
    static const char *const item_fields[] = {"sku", "quantity", "billing", "hours_per_day",
                                              "days", NULL};
    if (!json_is_object(object))
        return gq_fail(err, GQ_ERR_INVALID_TYPE, path, "%s must be an object", path);
    const char *sku_id, *billing;
    int64_t quantity = 1, days = 0;
    enum gq_code code;
    if ((code = fields_only(object, item_fields, path, err)) != GQ_OK ||
        (code = fields_string(object, "sku", path, true, &sku_id, err)) != GQ_OK ||
        (code = fields_integer(object, "quantity", path, false, 1, QUOTE_MAX_QUANTITY, &quantity,
                               err)) != GQ_OK ||
        (code = fields_string(object, "billing", path, false, &billing, err)) != GQ_OK ||
        (code = fields_hours_per_day(object, "hours_per_day", path, true,
                                     &item->usage.millihours_per_day, err)) != GQ_OK ||
        (code = fields_integer(object, "days", path, true, 1, USAGE_MAX_DAYS, &days, err)) !=
            GQ_OK ||
        (code = parse_billing(billing, path, item, err)) != GQ_OK)
        return code;
    item->sku = catalog_find_sku(catalog, sku_id);
    if (item->sku == NULL) {
        char field[96];
        fields_path(field, sizeof field, path, "sku");
        return gq_fail(err, GQ_ERR_UNKNOWN_SKU, field, "no SKU '%.64s'", sku_id);
    }
    item->quantity = (int32_t)quantity;
    item->usage.days = (int32_t)days;
    return GQ_OK;
}

static enum gq_code parse_items(json_t *body, const struct catalog *catalog,
                                struct parsed_quote *parsed, struct gq_error *err)
{
    json_t *items;
    bool has_bundles = json_array_size(json_object_get(body, "bundles")) > 0;
    enum gq_code code =
        fields_array(body, "items", "", !has_bundles, QUOTE_MAX_ITEMS, &items, err);
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
            return gq_fail(err, GQ_ERR_INVALID_TYPE, field, "%s must be a bundle id string", field);
        parsed->bundles[i] = catalog_find_bundle(catalog, json_string_value(id));
        if (parsed->bundles[i] == NULL)
            return gq_fail(err, GQ_ERR_UNKNOWN_BUNDLE, field, "no bundle '%.64s'",
                           json_string_value(id));
    }
    parsed->request.bundles = parsed->bundles;
    parsed->request.n_bundles = json_array_size(bundles);
    return GQ_OK;
}

enum gq_code quote_body_parse(json_t *body, const struct catalog *catalog,
                              struct parsed_quote *parsed, struct gq_error *err)
{
    static const char *const body_fields[] = {"customer", "items", "bundles", "save", NULL};
    parsed->save = true;
    enum gq_code code;
    if ((code = fields_only(body, body_fields, "", err)) != GQ_OK ||
        (code = parse_segment(body, &parsed->request.segment, err)) != GQ_OK ||
        (code = parse_items(body, catalog, parsed, err)) != GQ_OK ||
        (code = parse_bundles(body, catalog, parsed, err)) != GQ_OK ||
        (code = fields_boolean(body, "save", "", false, &parsed->save, err)) != GQ_OK)
        return code;
    return GQ_OK;
}

/* ---- render ----------------------------------------------------------- */

static json_t *render_discounts(const struct discount_result *discounts)
{
    json_t *list = json_array();
    for (int i = 0; list != NULL && i < discounts->n_applied; i++) {
        const struct applied_discount *applied = &discounts->applied[i];
        json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "rule", applied->rule->id,
                                              "name", applied->rule->name, "amount",
                                              render_money(applied->amount)));
    }
    return list;
}

/* {"billing", "amount", "discount_total", "total", "plan"}. */
static json_t *render_option(const struct sku *sku, const struct priced_option *option)
{
    return json_pack("{s:s, s:o, s:o, s:o, s:o}", "billing", render_plan_billing(&option->plan),
                     "amount", render_money(option->amount), "discount_total",
                     render_money(option->discounts.total), "total", render_money(option->total),
                     "plan", render_plan(sku, &option->plan));
}

static json_t *render_break_even(const struct quote_item_result *result)
{
    json_t *break_even = json_object();
    for (int m = 0; break_even != NULL && m < BILLING_MODE_COUNT; m++)
        if (result->break_even_tenths[m] >= 0)
            json_object_set_new(break_even, billing_mode_id((enum billing_mode)m),
                                json_real(result->break_even_tenths[m] / 10.0));
    return break_even;
}

static json_t *render_item(const struct quote_item_request *item,
                           const struct quote_item_result *result)
{
    json_t *options = json_array();
    for (int i = 0; options != NULL && i < result->n_options; i++)
        json_array_append_new(options, render_option(item->sku, &result->options[i]));
    json_t *cheapest = render_option(item->sku, &result->cheapest);
    if (cheapest != NULL)
        json_object_set_new(cheapest, "saving", render_money(result->saving));
    const struct priced_option *billed = result->billed;
    return json_pack(
        "{s:s, s:i, s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "sku",
        item->sku->id, "quantity", (int)item->quantity, "billing",
        item->cheapest ? "cheapest" : billing_mode_id(item->billing), "hours_per_day",
        render_hours(item->usage.millihours_per_day), "days", (int)item->usage.days,
        "billable_hours", render_hours(result->billable_millihours * item->quantity), "amount",
        render_money(billed->amount), "discounts", render_discounts(&billed->discounts),
        "discount_total", render_money(billed->discounts.total), "total",
        render_money(billed->total), "plan", render_plan(item->sku, &billed->plan), "options",
        options, "cheapest", cheapest, "break_even_hours_per_day", render_break_even(result));
}

static json_t *render_bundle_line(const struct quote_bundle_result *line)
{
    return json_pack("{s:s, s:s, s:o, s:o, s:o}", "id", line->bundle->id, "name",
                     line->bundle->name, "list_price", render_money(line->bundle->list_price),
                     "price", render_money(line->bundle->price), "saving",
                     render_money(line->saving));
}

json_t *quote_body_render(const struct catalog *catalog, const struct parsed_quote *parsed,
                          const struct quote_result *result, const struct quote_meta *meta)
{
    json_t *items = json_array();
    for (size_t i = 0; items != NULL && i < result->n_items; i++)
        json_array_append_new(items, render_item(&parsed->items[i], &result->items[i]));
    json_t *bundles = json_array();
    for (size_t i = 0; bundles != NULL && i < result->n_bundles; i++)
        json_array_append_new(bundles, render_bundle_line(&result->bundles[i]));
    char created[CLOCK_RFC3339_SIZE];
    json_t *quote = json_pack(
        "{s:s, s:s, s:I, s:s, s:{s:s}, s:o, s:o, s:o, s:o, s:o}", "status",
        meta->id ? "open" : "unsaved", "currency", catalog->currency,
        "price_list_version", (json_int_t)catalog->price_list_version, "created_at",
        clock_format_rfc3339(meta->created_at, created), "customer", "segment",
        segment_id(parsed->request.segment), "items", items, "bundles", bundles, "subtotal",
        render_money(result->subtotal), "discount_total", render_money(result->discount_total),
        "total", render_money(result->total));
    if (quote != NULL && meta->id != NULL) {
        char expires[CLOCK_RFC3339_SIZE];
        json_object_set_new(quote, "id", json_string(meta->id));
        json_object_set_new(quote, "expires_at",
                            json_string(clock_format_rfc3339(meta->expires_at, expires)));
    }
    return quote;
}

