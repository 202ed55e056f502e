/*
 * The catalog's bodies as the snapshot keeps them: one SKU, the billing
 * modes, the bundles, each in one language (its names and descriptions;
 * everything else is the same in every language). Rendered once per
 * catalog load and language (snapshot.c), never per request; built with jansson, without
 * libmicrohttpd, so that they are tested on their own (tests/bodies/check_catalog_render.c).
 *
 * A body that cannot be built whole (memory ran out inside jansson) is
 * NULL, never a body with a member missing: the snapshot would publish it,
 * with an ETag, until the next reload.
 */
#include <string.h>

#include "codec/bodies.h"
#include "util/clock.h"

/* Appends `value` (taken, also on failure, as jansson does) to *array.
 * When it cannot be appended (a NULL value from a failed allocation, or no
 * room), *array is freed and set to NULL: a body missing a member is never
 * published, as jansson's -1 alone would let it be. */
static void append_or_drop(json_t **array, json_t *value)
{
    if (*array == NULL) {
        json_decref(value);
        return;
    }
    if (json_array_append_new(*array, value) != 0) {
        json_decref(*array);
        *array = NULL;
    }
}

/* The same for the member `key` of *object. */
static void set_or_drop(json_t **object, const char *key, json_t *value)
{
    if (*object == NULL) {
        json_decref(value);
        return;
    }
    if (json_object_set_new(*object, key, value) != 0) {
        json_decref(*object);
        *object = NULL;
    }
}

static json_t *render_segments(uint32_t mask)
{
    json_t *segments = json_array();
    for (int s = 0; segments != NULL && s < SEGMENT_COUNT; s++)
        if (mask & SEGMENT_BIT(s))
            append_or_drop(&segments, json_string(segment_id((enum customer_segment)s)));
    return segments;
}

json_t *catalog_render_compute_capability(const struct gpu_model *gpu)
{
    return gpu->compute_capability > 0 ? json_real(gpu->compute_capability / 10.0) : json_null();
}

/* bf16_tflops is null on a GPU without BF16 tensor cores. */
static json_t *render_gpu(const struct gpu_model *gpu)
{
    json_t *bf16 = gpu->bf16_tflops > 0.0 ? json_real(gpu->bf16_tflops) : json_null();
    return json_pack("{s:s, s:i, s:s, s:f, s:f, s:o, s:i, s:i, s:o}", "model", gpu->name,
                     "memory_gb", (int)gpu->memory_gb, "memory_type", gpu->memory_type,
                     "fp16_tflops", gpu->fp16_tflops, "fp32_tflops", gpu->fp32_tflops,
                     "bf16_tflops", bf16, "memory_bandwidth_gbps", (int)gpu->memory_bandwidth_gbps,
                     "tdp_watts", (int)gpu->tdp_watts, "compute_capability",
                     catalog_render_compute_capability(gpu));
}

/* {"amount", "per"} and, for blocks, what an hour of the block costs
 * ("hourly_equivalent": 1231.00 / 720 h = "1.71"), for comparison. */
static json_t *render_price(const struct catalog *catalog, const struct sku *sku,
                            enum billing_mode mode)
{
    json_t *price = json_pack("{s:o, s:s}", "amount", render_money(sku->price[mode]), "per",
                              billing_mode_unit(mode));
    const struct billing_mode_info *info = &catalog->modes[mode];
    gq_money per_hour;
    if (price != NULL && info->block_hours > 0 &&
        money_scale(sku->price[mode], 1, info->block_hours, &per_hour))
        set_or_drop(&price, "hourly_equivalent", render_money(per_hour));
    if (price != NULL && info->segment_mask != SEGMENT_MASK_ALL)
        set_or_drop(&price, "eligible_segments", render_segments(info->segment_mask));
    return price;
}

static json_t *render_prices(const struct catalog *catalog, const struct sku *sku)
{
    json_t *prices = json_object();
    for (int m = 0; prices != NULL && m < BILLING_MODE_COUNT; m++)
        if (sku->priced[m])
            set_or_drop(&prices, billing_mode_id((enum billing_mode)m),
                        render_price(catalog, sku, (enum billing_mode)m));
    return prices;
}

/* "CUDA,PyTorch" as ["CUDA", "PyTorch"]. */
static json_t *render_software(const char *list)
{
    json_t *names = json_array();
    const char *p = list;
    while (names != NULL && p != NULL && *p != '\0') {
        size_t length = strcspn(p, ",");
        append_or_drop(&names, json_stringn(p, length));
        p += length + (p[length] == ',');
    }
    return names;
}

/* The host's facts, its region named in `lang` (its id where the
 * database has no name in that language or in English). */
static json_t *render_host(const struct sku_host *host, enum gq_lang lang)
{
    const char *region = host->region_name[lang] != NULL         ? host->region_name[lang]
                         : host->region_name[GQ_LANG_EN] != NULL ? host->region_name[GQ_LANG_EN]
                                                                 : host->region_id;
    return json_pack(
        "{s:s, s:i, s:i, s:i, s:f, s:{s:s, s:s}, s:{s:i, s:i, s:i}, s:o, s:b}", "instance_type",
        host->instance_type, "vcpus", (int)host->vcpus, "memory_gib", (int)host->memory_gib,
        "system_disk_gb", (int)host->system_disk_gb, "bandwidth_gbps", host->bandwidth_gbps,
        "region", "id", host->region_id, "name", region, "provisioning_minutes", "min",
        (int)host->provisioning_min_minutes, "max", (int)host->provisioning_max_minutes, "average",
        (int)host->provisioning_average_minutes, "software", render_software(host->software), "ssh",
        host->ssh);
}

json_t *catalog_render_sku(const struct catalog *catalog, const struct sku *sku, enum gq_lang lang)
{
    json_t *body =
        json_pack("{s:s, s:s, s:s, s:b, s:o, s:i, s:i, s:f, s:s}", "id", sku->id, "name",
                  catalog_name(sku->text, lang, sku->name), "description",
                  catalog_description(sku->text, lang, NULL), "available", sku->available, "gpu",
                  render_gpu(sku->gpu), "gpu_count", (int)sku->gpu_count, "total_memory_gb",
                  (int)sku_total_memory_gb(sku), "total_fp16_tflops", sku_total_fp16_tflops(sku),
                  "interconnect", interconnect_id(sku->interconnect));
    if (sku->host != NULL)
        set_or_drop(&body, "host", render_host(sku->host, lang));
    set_or_drop(&body, "prices", render_prices(catalog, sku));
    return body;
}

json_t *catalog_render_billing_modes(const struct catalog *catalog, enum gq_lang lang)
{
    json_t *modes = json_array();
    for (int m = 0; modes != NULL && m < BILLING_MODE_COUNT; m++) {
        const struct billing_mode_info *info = &catalog->modes[m];
        append_or_drop(&modes,
                       json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o}", "id",
                                 billing_mode_id((enum billing_mode)m), "name",
                                 catalog_name(info->text, lang, info->name), "description",
                                 catalog_description(info->text, lang, info->description), "per",
                                 billing_mode_unit((enum billing_mode)m), "block_hours",
                                 (int)info->block_hours, "block_days", (int)info->block_days,
                                 "list_basis_points", (int)info->list_basis_points,
                                 "eligible_segments", render_segments(info->segment_mask)));
    }
    return json_pack("{s:o}", "billing_modes", modes);
}

static json_t *render_bundle_contents(const struct bundle *bundle)
{
    json_t *contents = json_array();
    for (size_t i = 0; contents != NULL && i < bundle->n_items; i++)
        append_or_drop(&contents, json_pack("{s:s, s:i, s:i}", "sku", bundle->items[i].sku->id,
                                            "quantity", (int)bundle->items[i].quantity, "hours",
                                            (int)bundle->items[i].hours));
    return contents;
}

/* A bound of a validity window in RFC 3339, or null when the window is
 * open on that side (0). */
static json_t *render_bound(int64_t unix_seconds)
{
    if (unix_seconds == 0)
        return json_null();
    char text[CLOCK_RFC3339_SIZE];
    return json_string(clock_format_rfc3339(unix_seconds, text));
}

/* What the contents cost the segment the bundle is listed for, bought as
 * items at their cheapest plans, or null when they cannot be. */
static json_t *render_bundle_alternative(const struct catalog *catalog, const struct bundle *bundle,
                                         enum gq_lang lang, gq_money alternative)
{
    char summary[RENDER_ALTERNATIVE_SUMMARY_SIZE];
    render_bundle_alternative_summary(catalog, bundle, quote_bundle_listing_segment(bundle), lang,
                                      summary, sizeof summary);
    return json_pack("{s:s, s:o, s:o}", "segment", segment_id(quote_bundle_listing_segment(bundle)),
                     "amount", render_money(alternative), "summary", json_string(summary));
}

/* The window is listed so that a storefront can tell a bundle on offer now
 * from one that has ended or not begun (quoting those is not_eligible);
 * the body is rendered once per catalog load, so it cannot leave them out
 * as time passes. `saving` is against buying the contents as items
 * (quote_bundle_alternative() for quote_bundle_listing_segment()), and
 * may be negative; `list_saving` is against the bundle's own list figure. */
static json_t *render_bundle(const struct catalog *catalog, const struct bundle *bundle,
                             enum gq_lang lang)
{
    gq_money alternative = 0;
    bool has_alternative =
        quote_bundle_alternative(catalog, bundle, quote_bundle_listing_segment(bundle),
                                 &alternative) == GQ_OK;
    json_t *body = json_pack(
        "{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id", bundle->id, "name",
        catalog_name(bundle->text, lang, bundle->name), "description",
        catalog_description(bundle->text, lang, bundle->description), "list_price",
        render_money(bundle->list_price), "price", render_money(bundle->price), "list_saving",
        render_money(bundle->list_price - bundle->price), "cheapest_alternative",
        has_alternative ? render_bundle_alternative(catalog, bundle, lang, alternative)
                        : json_null(),
        "saving", has_alternative ? render_money(alternative - bundle->price) : json_null(),
        "eligible_segments", render_segments(bundle->segment_mask), "valid_from",
        render_bound(bundle->valid_from), "valid_until", render_bound(bundle->valid_until),
        "contents", render_bundle_contents(bundle));
    return body;
}

/* The bundles as one offer (the article's 套餐礼包), then each of them. */
json_t *catalog_render_bundles(const struct catalog *catalog, enum gq_lang lang)
{
    json_t *bundles = json_array();
    for (size_t i = 0; bundles != NULL && i < catalog->n_bundles; i++)
        append_or_drop(&bundles, render_bundle(catalog, &catalog->bundles[i], lang));
    return json_pack("{s:s, s:I, s:s, s:s, s:o}", "currency", catalog->currency,
                     "price_list_version", (json_int_t)catalog->price_list_version, "name",
                     catalog_name(catalog->bundles_text, lang, "Bundles"), "description",
                     catalog_description(catalog->bundles_text, lang, NULL), "bundles", bundles);
}
