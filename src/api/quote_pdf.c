/*
 * GET /quote/{id}/pdf: the stored quote as a quotation a company can file
 * (src/document/ lays it out). The language is `?lang=` when given, else
 * the request's (Accept-Language), whatever the quote was written in: the
 * names of configurations and bundles come from the catalog in that
 * language, the figures from the stored quote, which is never re-priced.
 *
 * parse (id, lang) -> read the stored quote -> build the document's plain
 * struct from its JSON -> render -> reply application/pdf.
 */
#include <stdlib.h>
#include <string.h>

#include "codec/store_json.h"
#include "document/quote_pdf.h"
#include "api/api.h"
#include "codec/list_query.h"
#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "util/clock.h"
#include "util/ids.h"

#define QUOTE_ID_PREFIX "q_"

static const struct list_param pdf_params[] = {{"lang", LIST_TEXT, NULL}};

/* The document's language: ?lang= (en or zh-CN), else the request's. */
static enum gq_code read_language(struct http_request *request, enum gq_lang *lang,
                                  struct gq_error *err)
{
    struct list_query query;
    enum gq_code code = request_list_query(request, pdf_params, 1, &query, err);
    if (code != GQ_OK)
        return code;
    *lang = request->lang;
    if (query.present[0] && !catalog_lang_parse(query.text[0], lang))
        return gq_fail_msg(err, GQ_ERR_INVALID_PARAMETER, "lang", MSG_FIELD_ONE_OF,
                           MSG_TEXT("lang"), MSG_TEXT("en, zh-CN"));
    return GQ_OK;
}

/* The quote's figures, held while the document is built: the lines and
 * discounts point into `json`. */
struct pdf_source {
    json_t *json;
    struct document_line *lines;
    size_t n_lines;
    struct document_discount *discounts;
    size_t n_discounts;
};

static void pdf_source_clear(struct pdf_source *source)
{
    json_decref(source->json);
    free(source->lines);
    free(source->discounts);
}

static gq_money money_member(const json_t *object, const char *key)
{
    gq_money fen = 0;
    if (!money_parse(json_string_value(json_object_get(object, key)), &fen))
        fen = 0;
    return fen;
}

static enum document_unit unit_of(const char *unit)
{
    if (unit != NULL && strcmp(unit, "month") == 0)
        return DOCUMENT_PER_MONTH;
    if (unit != NULL && strcmp(unit, "quarter") == 0)
        return DOCUMENT_PER_QUARTER;
    return DOCUMENT_PER_HOUR;
}

/* Hours written as "8" or "7.5" in the quote, as millihours. */
static int64_t millihours_member(const json_t *object, const char *key)
{
    const json_t *value = json_object_get(object, key);
    if (json_is_integer(value))
        return json_integer_value(value) * 1000;
    return json_is_real(value) ? (int64_t)(json_real_value(value) * 1000.0 + 0.5) : 0;
}

static void read_item(const json_t *item, const struct catalog *catalog, enum gq_lang lang,
                      struct document_line *line)
{
    const char *sku_id = json_string_value(json_object_get(item, "sku"));
    const struct sku *sku = sku_id != NULL ? catalog_find_sku(catalog, sku_id) : NULL;
    line->item = sku != NULL ? catalog_name(sku->text, lang, sku->name) : sku_id;
    line->quantity = json_integer_value(json_object_get(item, "quantity"));
    line->millihours_per_day = millihours_member(item, "hours_per_day");
    line->days = json_integer_value(json_object_get(item, "days"));
    line->amount = money_member(item, "amount");
    const json_t *parts = json_object_get(json_object_get(item, "plan"), "parts");
    line->n_parts = 0;
    for (size_t i = 0; i < json_array_size(parts) && line->n_parts < DOCUMENT_PARTS_MAX; i++) {
        const json_t *part = json_array_get(parts, i);
        struct document_part *out = &line->parts[line->n_parts];
        if (!billing_mode_parse(json_string_value(json_object_get(part, "billing")), &out->billing))
            continue;
        out->is_bundle = false;
        out->unit_price = money_member(part, "unit_price");
        out->unit = unit_of(json_string_value(json_object_get(part, "unit")));
        line->n_parts++;
    }
}

static void read_bundle(const json_t *bundle, const struct catalog *catalog, enum gq_lang lang,
                        struct document_line *line)
{
    const char *id = json_string_value(json_object_get(bundle, "id"));
    const struct bundle *known = id != NULL ? catalog_find_bundle(catalog, id) : NULL;
    line->item = known != NULL ? catalog_name(known->text, lang, known->name)
                               : json_string_value(json_object_get(bundle, "name"));
    line->quantity = 1;
    line->millihours_per_day = 0;
    line->days = 0;
    line->amount = money_member(bundle, "price");
    line->parts[0] =
        (struct document_part){true, BILLING_ON_DEMAND, line->amount, DOCUMENT_PER_SET};
    line->n_parts = 1;
}

static size_t count_discounts(const json_t *items)
{
    size_t count = 0;
    for (size_t i = 0; i < json_array_size(items); i++)
        count += json_array_size(json_object_get(json_array_get(items, i), "discounts"));
    return count;
}

static void read_discounts(const json_t *items, struct pdf_source *source)
{
    for (size_t i = 0; i < json_array_size(items); i++) {
        const json_t *discounts = json_object_get(json_array_get(items, i), "discounts");
        for (size_t d = 0; d < json_array_size(discounts); d++) {
            const json_t *discount = json_array_get(discounts, d);
            source->discounts[source->n_discounts++] =
                (struct document_discount){json_string_value(json_object_get(discount, "name")),
                                           money_member(discount, "amount")};
        }
    }
}

/* Fills `source` from the stored quote's JSON (taken). False when memory
 * ran out. */
static bool read_source(json_t *json, const struct catalog *catalog, enum gq_lang lang,
                        struct pdf_source *source)
{
    const json_t *items = json_object_get(json, "items");
    const json_t *bundles = json_object_get(json, "bundles");
    size_t n_lines = json_array_size(items) + json_array_size(bundles);
    size_t n_discounts = count_discounts(items);
    source->json = json;
    source->lines = calloc(n_lines ? n_lines : 1, sizeof *source->lines);
    source->discounts = calloc(n_discounts ? n_discounts : 1, sizeof *source->discounts);
    if (source->lines == NULL || source->discounts == NULL)
        return false;
    for (size_t i = 0; i < json_array_size(items); i++)
        read_item(json_array_get(items, i), catalog, lang, &source->lines[source->n_lines++]);
    for (size_t i = 0; i < json_array_size(bundles); i++)
        read_bundle(json_array_get(bundles, i), catalog, lang, &source->lines[source->n_lines++]);
    read_discounts(items, source);
    return true;
}

static int64_t time_member(const json_t *object, const char *key)
{
    int64_t seconds = 0;
    if (!clock_parse_rfc3339(json_string_value(json_object_get(object, key)), &seconds))
        seconds = 0;
    return seconds;
}

static enum MHD_Result reply_pdf(struct http_request *request, const struct pdf_source *source,
                                 enum gq_lang lang)
{
    const struct gq_config *config = request->app->config;
    const struct document_party seller = {
        config->seller.name,   config->seller.address, config->seller.phone,  config->seller.email,
        config->seller.tax_id, config->seller.bank,    config->seller.account};
    const struct document_quote quote = {
        .lang = lang,
        .number = json_string_value(json_object_get(source->json, "id")),
        .created_at = time_member(source->json, "created_at"),
        .expires_at = time_member(source->json, "expires_at"),
        .seller = &seller,
        .customer = NULL,
        .lines = source->lines,
        .n_lines = source->n_lines,
        .discounts = source->discounts,
        .n_discounts = source->n_discounts,
        .subtotal = money_member(source->json, "subtotal"),
        .discount_total = money_member(source->json, "discount_total"),
        .total = money_member(source->json, "total")};
    unsigned char *pdf;
    size_t length;
    if (!document_quote_pdf(&quote, &pdf, &length))
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "cannot render quote %s as a PDF",
                          request->path_id);
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, pdf, MHD_RESPMEM_MUST_FREE);
    if (response == NULL) {
        free(pdf);
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    }
    char disposition[128];
    snprintf(disposition, sizeof disposition, "inline; filename=\"%s.pdf\"", request->path_id);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/pdf");
    MHD_add_response_header(response, "Content-Disposition", disposition);
    request->response_bytes = length;
    request->lang = lang;
    reply_in_language(request);
    return reply_queue(request, MHD_HTTP_OK, response);
}

enum MHD_Result quote_pdf_handle(struct http_request *request)
{
    struct gq_error err;
    enum gq_lang lang;
    if (read_language(request, &lang, &err) != GQ_OK)
        return reply_error(request, &err);
    if (!ids_is_well_formed(QUOTE_ID_PREFIX, request->path_id))
        return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_QUOTE,
                              MSG_TEXT_CUT(request->path_id, 64));
    struct stored_quote stored = {0};
    if (store_quote_get(request->app->store, request->path_id, &stored, &err) != GQ_OK) {
        stored_quote_clear(&stored);
        if (err.code == GQ_ERR_NOT_FOUND)
            return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_QUOTE,
                                  MSG_TEXT_CUT(request->path_id, 64));
        return reply_error(request, &err);
    }
    if (quote_hidden_from(request, stored.customer_id)) {
        stored_quote_clear(&stored);
        return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_QUOTE,
                              MSG_TEXT_CUT(request->path_id, 64));
    }
    json_t *json = codec_quote_json(&stored, clock_now_seconds());
    stored_quote_clear(&stored);
    if (json == NULL)
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "stored quote %s is unreadable",
                          request->path_id);
    struct pdf_source source = {0};
    enum MHD_Result result = read_source(json, request->snapshot->catalog, lang, &source)
                                 ? reply_pdf(request, &source, lang)
                                 : reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    pdf_source_clear(&source);
    return result;
}
