/*
 * Edits of a draft price list's entities (scope catalog:write, the route
 * table says so): PUT and DELETE on /admin/price-lists/{version}/
 * gpu-models/{id}, skus/{id}, discount-rules/{id} and bundles/{id}.
 *
 * A PUT body is the entity in the API's own shape, money as decimal
 * strings and times as RFC 3339, and replaces the entity whole (it is
 * created when the draft has none). This file turns it into the rows the
 * store keeps (struct price_list_edit, codec/price_list_document.h); the
 * document module applies it and checks the whole list (references,
 * catalog_validate(), price_list_check()) inside the store's read and
 * write of the draft, which writes nothing unless it passes, and the
 * audit line with the change.
 *
 * The answer is {"version", "entity", "id", "value"}: the body as it was
 * read (null after a DELETE), so that a client sees what was taken.
 */
#include <math.h>
#include <string.h>

#include "admin/admin.h"
#include "codec/bodies.h"
#include "codec/price_list_document.h"
#include "core/catalog.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/router.h"
#include "store/store.h"
#include "util/clock.h"

enum { ENTITY_ID_MAX = 64, TEXT_MAX = 500 };

/* A percentage rule takes 0.01 % to 99.99 %: like a bundle, which must
 * cost more than 0.00, a rule never makes something free on its own; a
 * price of nothing is far more often a typing slip than a promotion, and
 * a quote is a commitment. */
enum { RULE_BASIS_POINTS_MAX = 9999 };

#define SEGMENTS "individual, student, startup, enterprise"
#define RULE_BILLINGS "on_demand, monthly, quarterly, student, mixed"
#define INTERCONNECTS "none, pcie, nvlink"

/* An entity id in a path: 1..64 of [a-z0-9._-], as the seed's ids are. */
static bool entity_id_ok(const char *id)
{
    size_t length = strlen(id);
    return length > 0 && length <= ENTITY_ID_MAX &&
           strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789._-") == length;
}

/* A required or optional string of 1..TEXT_MAX bytes (optional: "" or
 * JSON null when absent, as `fallback` says). */
static enum gq_code read_text(json_t *body, const char *key, bool required, const char *fallback,
                              json_t **out, struct gq_error *err)
{
    const char *text = NULL;
    json_t *value = json_object_get(body, key);
    enum gq_code code = GQ_OK;
    if (value != NULL && json_is_null(value) && !required)
        value = NULL;
    else
        code = fields_string(body, key, "", required, &text, err);
    if (code == GQ_OK && text != NULL && (text[0] == '\0' || strlen(text) > TEXT_MAX) && required)
        code = gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, key, MSG_FIELD_TEXT_LENGTH, MSG_TEXT(key),
                           MSG_INT(1), MSG_INT(TEXT_MAX));
    if (code == GQ_OK && text != NULL && strlen(text) > TEXT_MAX)
        code = gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, key, MSG_FIELD_TEXT_LENGTH, MSG_TEXT(key),
                           MSG_INT(1), MSG_INT(TEXT_MAX));
    if (code == GQ_OK)
        *out = text != NULL ? json_string(text) : fallback ? json_string(fallback) : json_null();
    return code;
}

/* An RFC 3339 time or unix seconds, or null/absent for an open end
 * (stored as NULL). */
static enum gq_code read_time(json_t *body, const char *key, json_t **out, struct gq_error *err)
{
    json_t *value = json_object_get(body, key);
    int64_t seconds = 0;
    enum gq_code code = fields_time(body, key, "", false, &seconds, err);
    bool given = code == GQ_OK && value != NULL && !json_is_null(value);
    *out = given ? json_integer(seconds) : json_null();
    return code;
}

/* One of `parse`'s ids (a segment, a billing mode, an interconnect), or
 * null when absent or null and `nullable`. */
static enum gq_code read_choice(json_t *body, const char *key, bool nullable,
                                bool (*known)(const char *), const char *choices, json_t **out,
                                struct gq_error *err)
{
    json_t *value = json_object_get(body, key);
    *out = json_null();
    if (nullable && (value == NULL || json_is_null(value)))
        return GQ_OK;
    const char *text = NULL;
    enum gq_code code = fields_string(body, key, "", true, &text, err);
    if (code == GQ_OK && !known(text))
        return fields_fail_one_of("", key, choices, err);
    if (code == GQ_OK)
        *out = json_string(text);
    return code;
}

static bool known_segment(const char *text)
{
    enum customer_segment segment;
    return segment_parse(text, &segment);
}

static bool known_rule_billing(const char *text)
{
    enum billing_mode mode;
    return strcmp(text, "mixed") == 0 || billing_mode_parse(text, &mode);
}

static bool known_interconnect(const char *text)
{
    enum interconnect interconnect;
    return interconnect_parse(text, &interconnect);
}

static json_t *integer_of(int64_t value)
{
    return json_integer((json_int_t)value);
}

/* Sets `key` of `record` to `value` (taken); false when memory ran out. */
static bool put(json_t *record, const char *key, json_t *value)
{
    return record != NULL && value != NULL && json_object_set_new(record, key, value) == 0;
}

/* ---- Texts in other languages. ---- */

/* "translations": {"zh-CN": {"name", "description"}, …} as text rows
 * (`parent` set by the store), after the English row from the entity's own
 * "name" and "description". */
static enum gq_code read_texts(json_t *body, json_t *english_name, json_t *english_description,
                               json_t **rows, struct gq_error *err)
{
    json_t *translations = NULL;
    enum gq_code code = fields_object(body, "translations", "", false, &translations, err);
    *rows = json_array();
    if (*rows == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading texts");
    json_array_append_new(*rows, json_pack("{s:s, s:O, s:O}", "lang", "en", "name", english_name,
                                           "description", english_description));
    const char *tag;
    json_t *text;
    json_object_foreach(translations, tag, text)
    {
        char path[64];
        fields_path(path, sizeof path, "translations", tag);
        enum gq_lang lang;
        if (code != GQ_OK)
            break;
        if (!catalog_lang_parse(tag, &lang) || lang == GQ_LANG_EN) {
            code = gq_fail_msg(err, GQ_ERR_INVALID_VALUE, path, MSG_FIELD_ONE_OF, MSG_TEXT(path),
                               MSG_TEXT("zh-CN"));
            break;
        }
        static const char *const allowed[] = {"name", "description", NULL};
        const char *name = NULL, *description = NULL;
        code = fields_object_only(text, allowed, path, err);
        if (code == GQ_OK)
            code = fields_string(text, "name", path, true, &name, err);
        if (code == GQ_OK)
            code = fields_string(text, "description", path, false, &description, err);
        if (code == GQ_OK)
            json_array_append_new(*rows, json_pack("{s:s, s:s, s:s}", "lang", tag, "name", name,
                                                   "description", description ? description : ""));
    }
    return code;
}

/* ---- The entities. ---- */

/* "compute_capability": NVIDIA's number as a JSON number of one decimal,
 * 1.0..99.9, kept times ten (8.6 is 86); null means not known. Absent,
 * the draft's value for the model stays (price_list_document.c). */
static enum gq_code read_compute_capability(json_t *body, json_t *record, struct gq_error *err)
{
    const char *key = "compute_capability";
    json_t *value = json_object_get(body, key);
    if (value == NULL)
        return GQ_OK;
    double capability = 0;
    enum gq_code code =
        json_is_null(value) ? GQ_OK : fields_real(body, key, "", true, 1.0, 99.9, &capability, err);
    double tenths = round(capability * 10);
    if (code == GQ_OK && fabs(capability * 10 - tenths) > 1e-6)
        code = gq_fail_msg(err, GQ_ERR_INVALID_VALUE, key, MSG_FIELD_ONE_DECIMAL, MSG_TEXT(key));
    if (code == GQ_OK &&
        !put(record, key, json_is_null(value) ? json_null() : integer_of((int64_t)tenths)))
        code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    return code;
}

/* {"model", "memory_gb", "memory_type", "fp16_tflops", "fp32_tflops",
 *  "bf16_tflops" (null: no BF16 tensor cores), "memory_bandwidth_gbps",
 *  "tdp_watts", "compute_capability"}: the catalog's "gpu". */
static enum gq_code read_gpu_model(json_t *body, json_t *record, struct gq_error *err)
{
    static const char *const allowed[] = {"model",
                                          "memory_gb",
                                          "memory_type",
                                          "fp16_tflops",
                                          "fp32_tflops",
                                          "bf16_tflops",
                                          "memory_bandwidth_gbps",
                                          "tdp_watts",
                                          "compute_capability",
                                          NULL};
    json_t *name = NULL, *memory_type = NULL;
    int64_t memory_gb = 0, bandwidth = 0, tdp = 0;
    double fp16 = 0, fp32 = 0, bf16 = 0;
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = read_text(body, "model", true, NULL, &name, err);
    if (code == GQ_OK)
        code = fields_integer(body, "memory_gb", "", true, 1, 4096, &memory_gb, err);
    if (code == GQ_OK)
        code = read_text(body, "memory_type", true, NULL, &memory_type, err);
    if (code == GQ_OK)
        code = fields_real(body, "fp16_tflops", "", true, 0.001, 100000, &fp16, err);
    if (code == GQ_OK)
        code = fields_real(body, "fp32_tflops", "", true, 0.001, 100000, &fp32, err);
    bool has_bf16 = !json_is_null(json_object_get(body, "bf16_tflops")) &&
                    json_object_get(body, "bf16_tflops") != NULL;
    if (code == GQ_OK && has_bf16)
        code = fields_real(body, "bf16_tflops", "", true, 0.001, 100000, &bf16, err);
    if (code == GQ_OK)
        code = fields_integer(body, "memory_bandwidth_gbps", "", true, 1, 100000, &bandwidth, err);
    if (code == GQ_OK)
        code = fields_integer(body, "tdp_watts", "", true, 1, 100000, &tdp, err);
    if (code == GQ_OK)
        code = read_compute_capability(body, record, err);
    bool built =
        code != GQ_OK || (put(record, "name", json_incref(name)) &&
                          put(record, "memory_gb", integer_of(memory_gb)) &&
                          put(record, "memory_type", json_incref(memory_type)) &&
                          put(record, "fp16_tflops", json_real(fp16)) &&
                          put(record, "fp32_tflops", json_real(fp32)) &&
                          put(record, "bf16_tflops", has_bf16 ? json_real(bf16) : json_null()) &&
                          put(record, "memory_bandwidth_gbps", integer_of(bandwidth)) &&
                          put(record, "tdp_watts", integer_of(tdp)));
    json_decref(name);
    json_decref(memory_type);
    return built ? code : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
}

/* "prices": {"on_demand": {"amount": "8.00"}, …}, as the catalog shows
 * them ("per" allowed and ignored): price rows. */
static enum gq_code read_prices(json_t *body, json_t **rows, struct gq_error *err)
{
    json_t *prices = NULL;
    enum gq_code code = fields_object(body, "prices", "", false, &prices, err);
    *rows = NULL;
    if (code != GQ_OK || prices == NULL)
        return code;
    *rows = json_array();
    const char *mode_id;
    json_t *price;
    json_object_foreach(prices, mode_id, price)
    {
        char path[64];
        fields_path(path, sizeof path, "prices", mode_id);
        enum billing_mode mode;
        if (!billing_mode_parse(mode_id, &mode))
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, path, MSG_FIELD_ONE_OF, MSG_TEXT(path),
                               MSG_TEXT("on_demand, monthly, quarterly, student"));
        static const char *const allowed[] = {"amount", "per", NULL};
        gq_money fen = 0;
        code = fields_object_only(price, allowed, path, err);
        if (code == GQ_OK)
            code = fields_price(price, "amount", path, &fen, err);
        if (code != GQ_OK)
            return code;
        json_array_append_new(*rows, json_pack("{s:s, s:I}", "mode_id", billing_mode_id(mode),
                                               "amount_fen", (json_int_t)fen));
    }
    return GQ_OK;
}

/* {"name", "description", "gpu_model", "gpu_count", "interconnect",
 *  "available", "prices", "translations"}; without "prices" or
 *  "translations" the draft's stay. */
static enum gq_code read_sku(json_t *body, json_t *record, json_t *children, struct gq_error *err)
{
    static const char *const allowed[] = {"name",      "description",  "gpu_model",
                                          "gpu_count", "interconnect", "available",
                                          "prices",    "translations", NULL};
    json_t *name = NULL, *description = NULL, *model = NULL, *interconnect = NULL, *prices = NULL,
           *texts = NULL;
    int64_t count = 0;
    bool available = true;
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = read_text(body, "name", true, NULL, &name, err);
    if (code == GQ_OK)
        code = read_text(body, "description", false, "", &description, err);
    if (code == GQ_OK)
        code = read_text(body, "gpu_model", true, NULL, &model, err);
    if (code == GQ_OK)
        code = fields_integer(body, "gpu_count", "", true, 1, 64, &count, err);
    if (code == GQ_OK)
        code = read_choice(body, "interconnect", false, known_interconnect, INTERCONNECTS,
                           &interconnect, err);
    if (code == GQ_OK)
        code = fields_boolean(body, "available", "", false, &available, err);
    if (code == GQ_OK)
        code = read_prices(body, &prices, err);
    if (code == GQ_OK && json_object_get(body, "translations") != NULL)
        code = read_texts(body, name, description, &texts, err);
    bool built =
        code != GQ_OK || (put(record, "name", json_incref(name)) &&
                          put(record, "gpu_model_id", json_incref(model)) &&
                          put(record, "gpu_count", integer_of(count)) &&
                          put(record, "interconnect", json_incref(interconnect)) &&
                          put(record, "available", integer_of(available)) &&
                          (prices == NULL || put(children, "sku_prices", json_incref(prices))) &&
                          (texts == NULL || put(children, "sku_texts", json_incref(texts))));
    json_decref(name);
    json_decref(description);
    json_decref(model);
    json_decref(interconnect);
    json_decref(prices);
    json_decref(texts);
    return built ? code : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
}

/* {"name", "segment", "billing" ("mixed" for a mixed plan), "sku",
 *  "min_quantity", "basis_points" | "amount_off", "valid_from",
 *  "valid_until", "priority", "stackable"}; null or absent segment,
 *  billing and sku mean every one. */
static enum gq_code read_rule(json_t *body, json_t *record, struct gq_error *err)
{
    static const char *const allowed[] = {
        "name",       "segment",    "billing",     "sku",      "min_quantity", "basis_points",
        "amount_off", "valid_from", "valid_until", "priority", "stackable",    NULL};
    json_t *name = NULL, *segment = NULL, *billing = NULL, *sku = NULL, *from = NULL, *until = NULL;
    int64_t min_quantity = 1, basis_points = 0, priority = 100;
    gq_money amount_off = 0;
    bool stackable = false;
    bool percent = json_object_get(body, "basis_points") != NULL,
         fixed = json_object_get(body, "amount_off") != NULL;
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK && percent == fixed)
        code = gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "basis_points", MSG_FIELD_ONE_OF,
                           MSG_TEXT("the discount"), MSG_TEXT("basis_points, amount_off"));
    if (code == GQ_OK)
        code = read_text(body, "name", true, NULL, &name, err);
    if (code == GQ_OK)
        code = read_choice(body, "segment", true, known_segment, SEGMENTS, &segment, err);
    if (code == GQ_OK)
        code = read_choice(body, "billing", true, known_rule_billing, RULE_BILLINGS, &billing, err);
    if (code == GQ_OK)
        code = read_text(body, "sku", false, NULL, &sku, err);
    if (code == GQ_OK)
        code = fields_integer(body, "min_quantity", "", false, 1, 10000, &min_quantity, err);
    if (code == GQ_OK && percent)
        code = fields_integer(body, "basis_points", "", true, 1, RULE_BASIS_POINTS_MAX,
                              &basis_points, err);
    if (code == GQ_OK && fixed)
        code = fields_price(body, "amount_off", "", &amount_off, err);
    if (code == GQ_OK)
        code = read_time(body, "valid_from", &from, err);
    if (code == GQ_OK)
        code = read_time(body, "valid_until", &until, err);
    if (code == GQ_OK)
        code = fields_integer(body, "priority", "", false, -1000000, 1000000, &priority, err);
    if (code == GQ_OK)
        code = fields_boolean(body, "stackable", "", false, &stackable, err);
    bool built =
        code != GQ_OK ||
        (put(record, "name", json_incref(name)) && put(record, "segment", json_incref(segment)) &&
         put(record, "billing", json_incref(billing)) && put(record, "sku_id", json_incref(sku)) &&
         put(record, "min_quantity", integer_of(min_quantity)) &&
         put(record, "basis_points", percent ? integer_of(basis_points) : json_null()) &&
         put(record, "fixed_amount_fen", fixed ? integer_of(amount_off) : json_null()) &&
         put(record, "valid_from", json_incref(from)) &&
         put(record, "valid_until", json_incref(until)) &&
         put(record, "priority", integer_of(priority)) &&
         put(record, "stackable", integer_of(stackable)));
    json_t *own[] = {name, segment, billing, sku, from, until};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        json_decref(own[i]);
    return built ? code : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
}

/* "contents": [{"sku", "quantity", "hours"}] (1..20) as item rows. */
static enum gq_code read_contents(json_t *body, json_t **rows, struct gq_error *err)
{
    json_t *contents = NULL;
    enum gq_code code = fields_array(body, "contents", "", true, 20, &contents, err);
    *rows = json_array();
    if (code == GQ_OK && json_array_size(contents) == 0)
        code = gq_fail_msg(err, GQ_ERR_MISSING_FIELD, "contents[0]", MSG_FIELD_REQUIRED,
                           MSG_TEXT("contents[0]"));
    size_t index;
    json_t *item;
    json_array_foreach(contents, index, item)
    {
        if (code != GQ_OK)
            break;
        char path[48];
        fields_index_path(path, sizeof path, "contents", index);
        static const char *const allowed[] = {"sku", "quantity", "hours", NULL};
        const char *sku = NULL;
        int64_t quantity = 0, hours = 0;
        code = fields_object_only(item, allowed, path, err);
        if (code == GQ_OK)
            code = fields_string(item, "sku", path, true, &sku, err);
        if (code == GQ_OK)
            code = fields_integer(item, "quantity", path, true, 1, 1000, &quantity, err);
        if (code == GQ_OK)
            code = fields_integer(item, "hours", path, true, 1, 8760, &hours, err);
        if (code == GQ_OK)
            json_array_append_new(*rows,
                                  json_pack("{s:s, s:I, s:I}", "sku_id", sku, "quantity",
                                            (json_int_t)quantity, "hours", (json_int_t)hours));
    }
    return code;
}

/* {"name", "description", "list_price", "price", "segment", "valid_from",
 *  "valid_until", "contents", "translations"}. */
static enum gq_code read_bundle(json_t *body, json_t *record, json_t *children,
                                struct gq_error *err)
{
    static const char *const allowed[] = {"name",         "description", "list_price",  "price",
                                          "segment",      "valid_from",  "valid_until", "contents",
                                          "translations", NULL};
    json_t *name = NULL, *description = NULL, *segment = NULL, *from = NULL, *until = NULL,
           *items = NULL, *texts = NULL;
    gq_money list_price = 0, price = 0;
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = read_text(body, "name", true, NULL, &name, err);
    if (code == GQ_OK)
        code = read_text(body, "description", false, "", &description, err);
    if (code == GQ_OK)
        code = fields_price(body, "list_price", "", &list_price, err);
    if (code == GQ_OK)
        code = fields_price(body, "price", "", &price, err);
    if (code == GQ_OK)
        code = read_choice(body, "segment", true, known_segment, SEGMENTS, &segment, err);
    if (code == GQ_OK)
        code = read_time(body, "valid_from", &from, err);
    if (code == GQ_OK)
        code = read_time(body, "valid_until", &until, err);
    if (code == GQ_OK)
        code = read_contents(body, &items, err);
    if (code == GQ_OK)
        code = read_texts(body, name, description, &texts, err);
    bool built = code != GQ_OK || (put(record, "name", json_incref(name)) &&
                                   put(record, "description", json_incref(description)) &&
                                   put(record, "list_price_fen", integer_of(list_price)) &&
                                   put(record, "price_fen", integer_of(price)) &&
                                   put(record, "segment", json_incref(segment)) &&
                                   put(record, "valid_from", json_incref(from)) &&
                                   put(record, "valid_until", json_incref(until)) &&
                                   put(children, "bundle_items", json_incref(items)) &&
                                   put(children, "bundle_texts", json_incref(texts)));
    json_t *own[] = {name, description, segment, from, until, items, texts};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        json_decref(own[i]);
    return built ? code : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
}

/* ---- The handlers. ---- */

static const struct entity_route {
    enum price_list_entity entity;
    const char *name; /* in answers and audit actions */
    const char *noun; /* in messages */
} entity_routes[] = {
    [PRICE_LIST_GPU_MODEL] = {PRICE_LIST_GPU_MODEL, "gpu_model", "GPU model"},
    [PRICE_LIST_SKU] = {PRICE_LIST_SKU, "sku", "SKU"},
    [PRICE_LIST_DISCOUNT_RULE] = {PRICE_LIST_DISCOUNT_RULE, "discount_rule", "discount rule"},
    [PRICE_LIST_BUNDLE] = {PRICE_LIST_BUNDLE, "bundle", "bundle"},
};

/* The entity's row (its key "id" included) and children from the body. */
static enum gq_code read_entity(enum price_list_entity entity, json_t *body, const char *id,
                                json_t *record, json_t *children, struct gq_error *err)
{
    if (!json_is_object(body))
        return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, NULL, MSG_BODY_NOT_OBJECT);
    if (!put(record, "id", json_string(id)))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    switch (entity) {
    case PRICE_LIST_GPU_MODEL:
        return read_gpu_model(body, record, err);
    case PRICE_LIST_SKU:
        return read_sku(body, record, children, err);
    case PRICE_LIST_DISCOUNT_RULE:
        return read_rule(body, record, err);
    case PRICE_LIST_BUNDLE:
        return read_bundle(body, record, children, err);
    default:
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "no such entity");
    }
}

static enum MHD_Result edit_entity(struct http_request *request, enum price_list_entity entity,
                                   bool remove)
{
    const struct entity_route *route = &entity_routes[entity];
    int64_t version;
    if (!price_lists_read_version(request, &version))
        return price_lists_reply_no_list(request);
    const char *id = request->path_params[1];
    if (!entity_id_ok(id))
        return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_LIST_ENTITY, MSG_INT(version),
                              MSG_TEXT(route->noun), MSG_TEXT_CUT(id, 40));
    json_t *record = remove ? NULL : json_object();
    json_t *children = remove ? NULL : json_object();
    struct gq_error err;
    enum gq_code code = GQ_OK;
    if (!remove && (record == NULL || children == NULL))
        code = gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    if (code == GQ_OK && !remove)
        code = read_entity(entity, request->json, id, record, children, &err);
    char action[64];
    snprintf(action, sizeof action, "price_list.%s.%s", route->name, remove ? "delete" : "put");
    struct price_list_edit edit = {entity, id, NULL, record, children};
    struct audit_entry audit = auth_audit_entry(request, action, NULL, NULL);
    if (code == GQ_OK)
        code = price_list_document_edit_list(request->app->store, version, &edit, &audit, &err);
    json_decref(record);
    json_decref(children);
    if (code != GQ_OK)
        return reply_error(request, &err);
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:I, s:s, s:s, s:O}", "version", (json_int_t)version, "entity",
                                route->name, "id", id, "value",
                                remove ? json_null() : request->json));
}

/* PUT and DELETE of a draft's entity: the route's `arg` says which kind
 * (enum price_list_entity). */
enum MHD_Result price_lists_handle_put_entity(struct http_request *request)
{
    return edit_entity(request, (enum price_list_entity)request->route->arg, false);
}

enum MHD_Result price_lists_handle_delete_entity(struct http_request *request)
{
    return edit_entity(request, (enum price_list_entity)request->route->arg, true);
}
