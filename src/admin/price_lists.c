/*
 * The admin API's price lists (scope catalog:write, the route table says
 * so): POST /admin/price-lists (a draft copied from the active list), GET
 * /admin/price-lists and /admin/price-lists/{version}, GET .../diff (field
 * by field against the active list), PUT and DELETE
 * .../prices/{sku}/{mode} on a draft, POST .../publish {"effective_at"}.
 * Every change writes its audit line in its own transaction (the store
 * does, store.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "codec/bodies.h"
#include "codec/price_list_document.h"
#include "codec/store_json.h"
#include "core/catalog.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "util/clock.h"

/* The path's {version}: 1 to 15 digits. */
bool price_lists_read_version(const struct http_request *request, int64_t *version)
{
    const char *text = request->path_params[0];
    size_t length = strlen(text);
    if (length == 0 || length > 15 || strspn(text, "0123456789") != length)
        return false;
    *version = strtoll(text, NULL, 10);
    return *version > 0;
}

enum MHD_Result price_lists_reply_no_list(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_PRICE_LIST,
                          MSG_TEXT_CUT(request->path_params[0], 40));
}

enum MHD_Result price_lists_reply(struct http_request *request, unsigned status, int64_t version)
{
    struct price_list_info info;
    struct gq_error err;
    if (store_price_list_get(request->app->store, version, &info, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *body = codec_price_list_json(&info);
    store_price_list_info_clear(&info);
    return status == MHD_HTTP_CREATED
               ? reply_created(request, body, false, "/admin/price-lists/%lld", (long long)version)
               : reply_json(request, status, body);
}

/* No body, or {}: a draft is always a copy of the active list, so a
 * field sent is one the client expects to count, and it would not. */
enum MHD_Result price_lists_handle_create(struct http_request *request)
{
    struct audit_entry audit = auth_audit_entry(request, "price_list.create", NULL, NULL);
    int64_t version;
    struct gq_error err;
    static const char *const allowed[] = {NULL};
    if (request->json != NULL && fields_only(request->json, allowed, "", &err) != GQ_OK)
        return reply_error(request, &err);
    if (store_price_list_create(request->app->store, clock_now_seconds(), &audit, &version, &err) !=
        GQ_OK)
        return reply_error(request, &err);
    return price_lists_reply(request, MHD_HTTP_CREATED, version);
}

static json_t *render_list_item(const void *info)
{
    return codec_price_list_json(info);
}

enum MHD_Result price_lists_handle_list(struct http_request *request)
{
    struct price_list_set set;
    struct gq_error err;
    if (store_price_lists_read(request->app->store, &set, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = render_each(set.items, set.count, sizeof *set.items, render_list_item);
    store_price_list_set_free(&set);
    return reply_page(request, data, false);
}

/* ---- A list's content, in the shapes its edits take. ---- */

static json_t *time_or_null(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return unix_seconds != 0 ? json_string(clock_format_rfc3339(unix_seconds, text)) : json_null();
}

/* The one segment of a mask, or null for every segment. */
static json_t *segment_or_null(uint32_t mask)
{
    for (int s = 0; mask != SEGMENT_MASK_ALL && s < SEGMENT_COUNT; s++)
        if (mask & SEGMENT_BIT(s))
            return json_string(segment_id((enum customer_segment)s));
    return json_null();
}

/* A rule's billing: a mode, "mixed", or null for every billing. */
static json_t *rule_billing_or_null(uint32_t mask)
{
    if (mask == DISCOUNT_BILLING_ALL)
        return json_null();
    if (mask == DISCOUNT_BILLING_MIXED)
        return json_string("mixed");
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (mask & (1u << m))
            return json_string(billing_mode_id((enum billing_mode)m));
    return json_null();
}

static json_t *render_gpu_model(const struct gpu_model *gpu)
{
    return json_pack(
        "{s:s, s:s, s:i, s:s, s:f, s:f, s:o, s:i, s:i, s:o}", "id", gpu->id, "model", gpu->name,
        "memory_gb", (int)gpu->memory_gb, "memory_type", gpu->memory_type, "fp16_tflops",
        gpu->fp16_tflops, "fp32_tflops", gpu->fp32_tflops, "bf16_tflops",
        gpu->bf16_tflops > 0 ? json_real(gpu->bf16_tflops) : json_null(), "memory_bandwidth_gbps",
        (int)gpu->memory_bandwidth_gbps, "tdp_watts", (int)gpu->tdp_watts, "compute_capability",
        catalog_render_compute_capability(gpu));
}

static json_t *render_rule(const struct discount_rule *rule)
{
    bool percent = rule->kind == DISCOUNT_PERCENT;
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:i, s:b}", "id", rule->id,
                     "name", rule->name, "segment", segment_or_null(rule->segment_mask), "billing",
                     rule_billing_or_null(rule->billing_mask), "sku",
                     rule->sku_id ? json_string(rule->sku_id) : json_null(), "min_quantity",
                     (int)rule->min_quantity, "basis_points",
                     percent ? json_integer(rule->basis_points) : json_null(), "amount_off",
                     percent ? json_null() : render_money(rule->fixed_amount), "valid_from",
                     time_or_null(rule->valid_from), "valid_until", time_or_null(rule->valid_until),
                     "priority", (int)rule->priority, "stackable", rule->stackable);
}

/* Appends render(i) for i < n to a new array set as `key` of *body;
 * *body becomes NULL when memory runs out (no half list is answered). */
static void add_list(json_t **body, const char *key, size_t n,
                     json_t *(*render)(const struct catalog *, size_t),
                     const struct catalog *catalog)
{
    json_t *array = json_array();
    for (size_t i = 0; array != NULL && i < n; i++)
        if (json_array_append_new(array, render(catalog, i)) != 0) {
            json_decref(array);
            array = NULL;
        }
    if (*body != NULL && (array == NULL || json_object_set_new(*body, key, array) != 0)) {
        json_decref(*body);
        *body = NULL;
    }
}

static json_t *gpu_model_at(const struct catalog *catalog, size_t i)
{
    return render_gpu_model(&catalog->models[i]);
}

static json_t *rule_at(const struct catalog *catalog, size_t i)
{
    return render_rule(&catalog->rules[i]);
}

/* The list with its catalog: "skus" and "bundles" as GET /catalog shows
 * them, "gpu_models" and "discount_rules" in the shapes their PUTs take. */
enum MHD_Result price_lists_handle_get(struct http_request *request)
{
    int64_t version;
    if (!price_lists_read_version(request, &version))
        return price_lists_reply_no_list(request);
    struct price_list_info info;
    struct catalog *catalog = NULL;
    struct gq_error err;
    if (store_price_list_get(request->app->store, version, &info, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *body = codec_price_list_json(&info);
    store_price_list_info_clear(&info);
    if (store_price_list_catalog(request->app->store, version, &catalog, &err) != GQ_OK) {
        json_decref(body);
        return reply_error(request, &err);
    }
    json_t *skus = json_array();
    for (size_t i = 0; skus != NULL && i < catalog->n_skus; i++)
        json_array_append_new(skus, catalog_render_sku(catalog, &catalog->skus[i], request->lang));
    if (body != NULL && json_object_set_new(body, "skus", skus) != 0) {
        json_decref(body);
        body = NULL;
    }
    add_list(&body, "gpu_models", catalog->n_models, gpu_model_at, catalog);
    add_list(&body, "discount_rules", catalog->n_rules, rule_at, catalog);
    json_t *bundles = catalog_render_bundles(catalog, request->lang);
    if (body != NULL &&
        (bundles == NULL ||
         json_object_set(body, "bundles", json_object_get(bundles, "bundles")) != 0)) {
        json_decref(body);
        body = NULL;
    }
    json_decref(bundles);
    catalog_free(catalog);
    reply_in_language(request);
    return reply_json(request, MHD_HTTP_OK, body);
}

enum MHD_Result price_lists_handle_diff(struct http_request *request)
{
    int64_t version;
    if (!price_lists_read_version(request, &version))
        return price_lists_reply_no_list(request);
    json_t *diff;
    struct gq_error err;
    if (price_list_document_diff_list(request->app->store, version, &diff, &err) != GQ_OK)
        return reply_error(request, &err);
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:I, s:o}", "version", (json_int_t)version, "changes", diff));
}

/* ---- A price. ---- */

/* {"amount": "2.50"}: a decimal string (or whole yuan) above 0.00, at most
 * PRICE_LIST_PRICE_MAX. */
static enum gq_code parse_price(json_t *body, gq_money *fen, struct gq_error *err)
{
    static const char *const allowed[] = {"amount", "per", NULL};
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = fields_price(body, "amount", "", fen, err);
    return code;
}

static enum MHD_Result edit_price(struct http_request *request, bool remove)
{
    int64_t version;
    if (!price_lists_read_version(request, &version))
        return price_lists_reply_no_list(request);
    const char *sku = request->path_params[1], *mode_text = request->path_params[2];
    enum billing_mode mode;
    if (!billing_mode_parse(mode_text, &mode))
        return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_LIST_ENTITY, MSG_INT(version),
                              MSG_TEXT("billing mode"), MSG_TEXT_CUT(mode_text, 40));
    gq_money fen = 0;
    struct gq_error err;
    if (!remove && parse_price(request->json, &fen, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *record = remove ? NULL
                            : json_pack("{s:s, s:s, s:I}", "sku_id", sku, "mode_id",
                                        billing_mode_id(mode), "amount_fen", (json_int_t)fen);
    if (!remove && record == NULL)
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    struct price_list_edit edit = {PRICE_LIST_PRICE, sku, billing_mode_id(mode), record, NULL};
    struct audit_entry audit = auth_audit_entry(
        request, remove ? "price_list.price.delete" : "price_list.price.put", NULL, NULL);
    enum gq_code code =
        price_list_document_edit_list(request->app->store, version, &edit, &audit, &err);
    json_decref(record);
    if (code != GQ_OK)
        return reply_error(request, &err);
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:I, s:s, s:s, s:o}", "version", (json_int_t)version, "sku", sku,
                                "billing", billing_mode_id(mode), "amount",
                                remove ? json_null() : render_money(fen)));
}

enum MHD_Result price_lists_handle_put_price(struct http_request *request)
{
    return edit_price(request, false);
}

enum MHD_Result price_lists_handle_delete_price(struct http_request *request)
{
    return edit_price(request, true);
}

/* ---- Publishing. ---- */

/* {"effective_at": RFC 3339 or unix seconds} or no body (at once); a time
 * past is now. */
enum MHD_Result price_lists_handle_publish(struct http_request *request)
{
    int64_t version;
    if (!price_lists_read_version(request, &version))
        return price_lists_reply_no_list(request);
    int64_t now = clock_now_seconds(), effective_at = now;
    bool allow_revert = false;
    struct gq_error err;
    if (request->json != NULL) {
        static const char *const allowed[] = {"effective_at", "revert_scheduled", NULL};
        enum gq_code code = fields_only(request->json, allowed, "", &err);
        if (code == GQ_OK)
            code = fields_time(request->json, "effective_at", "", false, &effective_at, &err);
        if (code == GQ_OK)
            code = price_lists_read_revert(request->json, &allow_revert, &err);
        if (code != GQ_OK)
            return reply_error(request, &err);
    }
    struct audit_entry audit = auth_audit_entry(request, "price_list.publish", NULL, NULL);
    bool activated = false;
    struct price_list_publish_check check = {.allow_revert = allow_revert};
    if (store_price_list_publish(request->app->store, version, effective_at, now,
                                 price_list_document_publish_check, &check, &audit, &activated,
                                 &err) != GQ_OK)
        return price_lists_reply_listing(request, &err, "reverts", check.reverts);
    if (activated)
        snapshot_reload(request->app); /* served here at once; elsewhere within a poll */
    return price_lists_reply(request, MHD_HTTP_OK, version);
}
