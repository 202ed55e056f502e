/*
 * POST /admin/price-lists/{version}/preview (scope catalog:write): what a
 * list would charge, beside the active one, before it is published.
 *
 * Body: {"usages": [POST /quote bodies]} (1..20) or {"recent_quotes": N}
 * (1..100: the requests of the N newest stored quotes, again). Each is
 * priced, unsaved, by exactly the code POST /quote uses, under the list
 * and under the catalog this replica serves:
 *
 *   {"version", "active_version", "samples": [{"request", "active",
 *    "draft", "difference"}]}
 *
 * where "active" and "draft" are the quote bodies POST /quote would answer
 * (or {"error": {...}} when that list cannot price the request, such as a
 * SKU it does not sell) and "difference" is draft total − active total
 * (a decimal string; null when either could not price it).
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "codec/bodies.h"
#include "core/catalog.h"
#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "util/clock.h"

enum { PREVIEW_USAGES_MAX = 20, PREVIEW_RECENT_MAX = 100 };

/* The error envelope's body for one sample, in the request's language. */
static json_t *render_sample_error(const struct gq_error *err, enum gq_lang lang)
{
    json_t *detail = json_pack("{s:s, s:s}", "code", gq_code_name(err->code), "message",
                               gq_error_text(err, lang));
    if (detail != NULL && err->field[0] != '\0')
        json_object_set_new(detail, "field", json_string(err->field));
    return json_pack("{s:o}", "error", detail);
}

/* Prices `usage` under `catalog` as an unsaved quote: its body, and its
 * total in *total (-1 when it could not be priced). */
static json_t *price_under(const struct catalog *catalog, json_t *usage, enum gq_lang lang,
                           gq_money *total)
{
    *total = -1;
    struct gq_error err;
    struct parsed_quote *parsed = malloc(sizeof *parsed);
    struct quote_result *result =
        quote_result_new(json_array_size(json_object_get(usage, "items")));
    json_t *body = NULL;
    if (parsed == NULL || result == NULL) {
        gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory pricing a preview");
        body = render_sample_error(&err, lang);
    } else if (quote_body_parse(usage, catalog, parsed, &err) != GQ_OK ||
               (parsed->request.now = clock_now_seconds(),
                quote_compute(catalog, &parsed->request, result, &err)) != GQ_OK) {
        body = render_sample_error(&err, lang);
    } else {
        struct quote_meta meta = {.created_at = parsed->request.now, .lang = lang};
        char *text = quote_body_render(catalog, parsed, result, &meta, NULL);
        body = text != NULL ? json_loads(text, 0, NULL) : NULL;
        free(text);
        if (body != NULL)
            *total = result->total;
    }
    free(parsed);
    quote_result_free(result);
    return body;
}

static json_t *render_sample(const struct catalog *active, const struct catalog *draft,
                             json_t *usage, enum gq_lang lang)
{
    gq_money active_total, draft_total;
    json_t *under_active = price_under(active, usage, lang, &active_total);
    json_t *under_draft = price_under(draft, usage, lang, &draft_total);
    json_t *difference = active_total >= 0 && draft_total >= 0
                             ? render_money(draft_total - active_total)
                             : json_null();
    return json_pack("{s:O, s:o, s:o, s:o}", "request", usage, "active", under_active, "draft",
                     under_draft, "difference", difference);
}

/* The usages the body names: its own, or the newest quotes' requests
 * (a stored request that no longer loads is left out). */
static enum gq_code read_usages(struct http_request *request, json_t **usages, struct gq_error *err)
{
    static const char *const allowed[] = {"usages", "recent_quotes", NULL};
    json_t *body = request->json, *own = NULL;
    int64_t recent = 0;
    *usages = NULL;
    enum gq_code code = fields_only(body, allowed, "", err);
    bool has_own = json_object_get(body, "usages") != NULL,
         has_recent = json_object_get(body, "recent_quotes") != NULL;
    if (code == GQ_OK && has_own == has_recent)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "usages", MSG_FIELD_ONE_OF,
                           MSG_TEXT("the body"), MSG_TEXT("usages, recent_quotes"));
    if (code == GQ_OK && has_own)
        code = fields_array(body, "usages", "", true, PREVIEW_USAGES_MAX, &own, err);
    if (code == GQ_OK && has_own && json_array_size(own) == 0)
        code = gq_fail_msg(err, GQ_ERR_MISSING_FIELD, "usages[0]", MSG_FIELD_REQUIRED,
                           MSG_TEXT("usages[0]"));
    if (code != GQ_OK)
        return code;
    if (has_own) {
        for (size_t i = 0; i < json_array_size(own); i++)
            if (!json_is_object(json_array_get(own, i))) {
                char path[32];
                fields_index_path(path, sizeof path, "usages", i);
                return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, path, MSG_FIELD_OBJECT,
                                   MSG_TEXT(path));
            }
        *usages = json_incref(own);
        return GQ_OK;
    }
    code = fields_integer(body, "recent_quotes", "", true, 1, PREVIEW_RECENT_MAX, &recent, err);
    json_t *texts = NULL;
    if (code == GQ_OK)
        code = store_quotes_recent_requests(request->app->store, (int)recent, &texts, err);
    if (code != GQ_OK)
        return code;
    *usages = json_array();
    size_t index;
    json_t *text;
    json_array_foreach(texts, index, text)
    {
        json_t *usage = json_loads(json_string_value(text), 0, NULL);
        if (json_is_object(usage))
            json_array_append(*usages, usage);
        json_decref(usage);
    }
    json_decref(texts);
    return *usages != NULL ? GQ_OK : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
}

enum MHD_Result price_lists_handle_preview(struct http_request *request)
{
    int64_t version;
    if (!price_lists_read_version(request, &version))
        return price_lists_reply_no_list(request);
    struct catalog *draft = NULL;
    json_t *usages = NULL;
    struct gq_error err;
    enum gq_code code = read_usages(request, &usages, &err);
    if (code == GQ_OK)
        code = store_price_list_catalog(request->app->store, version, &draft, &err);
    if (code != GQ_OK) {
        json_decref(usages);
        return reply_error(request, &err);
    }
    const struct catalog *active = request->snapshot->catalog;
    json_t *samples = json_array();
    size_t index;
    json_t *usage;
    json_array_foreach(usages, index, usage)
    {
        json_t *sample = render_sample(active, draft, usage, request->lang);
        if (sample == NULL || json_array_append_new(samples, sample) != 0) {
            json_decref(samples);
            samples = NULL;
            break;
        }
    }
    json_decref(usages);
    catalog_free(draft);
    reply_in_language(request);
    return reply_json(request, MHD_HTTP_OK,
                      samples ? json_pack("{s:I, s:I, s:o}", "version", (json_int_t)version,
                                          "active_version", (json_int_t)active->price_list_version,
                                          "samples", samples)
                              : NULL);
}
