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

#include "http/http.h"
#include "util/clock.h"

static json_t *render_list(const struct price_list_info *info)
{
    return store_price_list_json(info);
}

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

static enum MHD_Result reply_list(struct http_request *request, unsigned status, int64_t version)
{
    struct price_list_info info;
    struct gq_error err;
    if (store_price_list_get(request->app->store, version, &info, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *body = render_list(&info);
    store_price_list_info_clear(&info);
    struct MHD_Response *response = reply_make_json(request, body);
    if (response != NULL && status == MHD_HTTP_CREATED) {
        char location[64];
        snprintf(location, sizeof location, "/admin/price-lists/%lld", (long long)version);
        MHD_add_response_header(response, MHD_HTTP_HEADER_LOCATION, location);
    }
    return reply_queue(request, status, response);
}

enum MHD_Result price_lists_handle_create(struct http_request *request)
{
    struct audit_entry audit = auth_audit_entry(request, "price_list.create", NULL, NULL);
    int64_t version;
    struct gq_error err;
    if (store_price_list_create(request->app->store, clock_now_seconds(), &audit, &version, &err) !=
        GQ_OK)
        return reply_error(request, &err);
    return reply_list(request, MHD_HTTP_CREATED, version);
}

enum MHD_Result price_lists_handle_list(struct http_request *request)
{
    struct price_list_set set;
    struct gq_error err;
    if (store_price_lists_read(request->app->store, &set, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = json_array();
    for (size_t i = 0; data != NULL && i < set.count; i++)
        if (json_array_append_new(data, render_list(&set.items[i])) != 0) {
            json_decref(data);
            data = NULL;
        }
    store_price_list_set_free(&set);
    return reply_json(request, MHD_HTTP_OK,
                      data ? json_pack("{s:o, s:b}", "data", data, "has_more", 0) : NULL);
}

/* The list with its catalog as GET /catalog shows it ("skus"). */
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
    json_t *body = render_list(&info);
    store_price_list_info_clear(&info);
    if (store_price_list_catalog(request->app->store, version, &catalog, &err) != GQ_OK) {
        json_decref(body);
        return reply_error(request, &err);
    }
    json_t *skus = json_array();
    for (size_t i = 0; skus != NULL && i < catalog->n_skus; i++)
        json_array_append_new(skus, catalog_render_sku(catalog, &catalog->skus[i], request->lang));
    catalog_free(catalog);
    if (body != NULL && json_object_set_new(body, "skus", skus) != 0) {
        json_decref(body);
        body = NULL;
    }
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
    if (store_price_list_diff(request->app->store, version, &diff, &err) != GQ_OK)
        return reply_error(request, &err);
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:I, s:o}", "version", (json_int_t)version, "changes", diff));
}

/* ---- A price. ---- */

/* {"amount": "2.50"}: a decimal string (or whole yuan) above 0.00. */
static enum gq_code parse_price(json_t *body, gq_money *fen, struct gq_error *err)
{
    static const char *const allowed[] = {"amount", "per", NULL};
    enum gq_code code = fields_only(body, allowed, "", err);
    json_t *amount = json_object_get(body, "amount");
    const char *text = json_string_value(amount);
    if (code == GQ_OK && ((text != NULL && text[strspn(text, " ")] == '-') ||
                          (json_is_number(amount) && json_number_value(amount) <= 0)))
        return gq_fail_msg(err, GQ_ERR_PRICE_NOT_POSITIVE, "amount", MSG_PRICE_NOT_POSITIVE,
                           MSG_TEXT("amount"));
    if (code == GQ_OK)
        code = fields_money(body, "amount", "", true, fen, err);
    if (code == GQ_OK && *fen <= 0)
        code = gq_fail_msg(err, GQ_ERR_PRICE_NOT_POSITIVE, "amount", MSG_PRICE_NOT_POSITIVE,
                           MSG_TEXT("amount"));
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
    enum gq_code code = store_price_list_edit(request->app->store, version, &edit, &audit, &err);
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

/* {"effective_at": RFC 3339} or no body (at once); a time past is now. */
enum MHD_Result price_lists_handle_publish(struct http_request *request)
{
    int64_t version;
    if (!price_lists_read_version(request, &version))
        return price_lists_reply_no_list(request);
    int64_t now = clock_now_seconds(), effective_at = now;
    struct gq_error err;
    if (request->json != NULL) {
        static const char *const allowed[] = {"effective_at", NULL};
        const char *text = NULL;
        enum gq_code code = fields_only(request->json, allowed, "", &err);
        if (code == GQ_OK)
            code = fields_string(request->json, "effective_at", "", false, &text, &err);
        if (code == GQ_OK && text != NULL && !clock_parse_rfc3339(text, &effective_at))
            code = gq_fail_msg(&err, GQ_ERR_INVALID_VALUE, "effective_at", MSG_FORM_TIME);
        if (code != GQ_OK)
            return reply_error(request, &err);
    }
    struct audit_entry audit = auth_audit_entry(request, "price_list.publish", NULL, NULL);
    bool activated = false;
    if (store_price_list_publish(request->app->store, version, effective_at, now, &audit,
                                 &activated, &err) != GQ_OK)
        return reply_error(request, &err);
    if (activated)
        snapshot_reload(request->app); /* served here at once; elsewhere within a poll */
    return reply_list(request, MHD_HTTP_OK, version);
}
