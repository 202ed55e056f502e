/*
 * Request and response bodies: JSON to the plain structs the core takes,
 * and the core's results back to JSON. Nothing here touches HTTP, so the
 * parsers and renderers can be unit-tested and fuzzed on their own
 * (tests/fuzz/); the handlers in quote.c and recommend.c only add the
 * HTTP around them.
 */
#ifndef GQ_CODEC_BODIES_H
#define GQ_CODEC_BODIES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/error.h"
#include "core/money.h"
#include "core/quote.h"
#include "core/recommend.h"
#include "util/json_writer.h"

/* ---- JSON bodies (fields.c) ------------------------------------------- */

/* Readers of a request object's fields that report the exact JSON path of
 * what is wrong. Each returns GQ_OK, or fills `err` (422 codes:
 * missing_field, invalid_type, out_of_range, invalid_value, unknown_field). */

/* Every key of `object` must be in `allowed` (NULL-terminated). */
enum gq_code fields_only(json_t *object, const char *const *allowed, const char *path,
                         struct gq_error *err);

/* `value`, found at `path` (an element or a member), must be an object
 * whose keys are all in `allowed`. */
enum gq_code fields_object_only(json_t *value, const char *const *allowed, const char *path,
                                struct gq_error *err);

/* A string field. Absent: *out = NULL, or missing_field when `required`.
 * A string holding U+0000 ("\u0000", valid JSON) is invalid_value: C
 * would read it only up to there; so is one holding a control character
 * (utf8_find_control(): C0, DEL, C1, U+2028/2029, the bidirectional
 * overrides and isolates), named with its byte offset. */
enum gq_code fields_string(json_t *object, const char *key, const char *path, bool required,
                           const char **out, struct gq_error *err);

/* A whole number in [min, max] (an integral real such as 90.0 is accepted).
 * Absent: *out untouched, or missing_field when `required`. */
enum gq_code fields_integer(json_t *object, const char *key, const char *path, bool required,
                            int64_t min, int64_t max, int64_t *out, struct gq_error *err);

/* A number in (0, 24] with at most three decimals, as milli-hours. */
enum gq_code fields_hours_per_day(json_t *object, const char *key, const char *path, bool required,
                                  int32_t *out_millihours, struct gq_error *err);

/* A non-negative real in [min, max]. */
enum gq_code fields_real(json_t *object, const char *key, const char *path, bool required,
                         double min, double max, double *out, struct gq_error *err);

/* true/false. */
enum gq_code fields_boolean(json_t *object, const char *key, const char *path, bool required,
                            bool *out, struct gq_error *err);

/* Money as a decimal string ("3000.00") or a whole number of yuan (3000,
 * 3000.0), at most MONEY_MAX. */
enum gq_code fields_money(json_t *object, const char *key, const char *path, bool required,
                          gq_money *out, struct gq_error *err);

/* A time: an RFC 3339 string ("2027-01-01T00:00:00Z") or a whole number
 * of unix seconds, from 0 to FIELDS_TIME_MAX (the end of year 9999);
 * anything else is invalid_value. Absent: *out untouched, or
 * missing_field when `required`. */
#define FIELDS_TIME_MAX ((int64_t)253402300799)
enum gq_code fields_time(json_t *object, const char *key, const char *path, bool required,
                         int64_t *out, struct gq_error *err);

/* A required price of a price list: money as fields_money() reads it,
 * above 0.00 (price_not_positive, "-1.00" included) and at most
 * PRICE_LIST_PRICE_MAX (out_of_range naming that ceiling). */
enum gq_code fields_price(json_t *object, const char *key, const char *path, gq_money *out,
                          struct gq_error *err);

/* True when `value` is a JSON string without U+0000, so that its C string
 * is the whole of it. */
bool fields_is_text(const json_t *value);

/* A JSON number as an exact integer, if it is one: an integer, or a real
 * with no fraction within ±9e15 (where a double still holds every whole
 * number), such as 90.0. */
bool fields_integral_value(const json_t *value, int64_t *out);

/* An array of at most `max` elements. Absent: *out = NULL, or missing. */
enum gq_code fields_array(json_t *object, const char *key, const char *path, bool required,
                          size_t max, json_t **out, struct gq_error *err);

/* An object. Absent: *out = NULL, or missing. */
enum gq_code fields_object(json_t *object, const char *key, const char *path, bool required,
                           json_t **out, struct gq_error *err);

/* An optional string of 1 to `max` bytes. Absent: *out = NULL. */
enum gq_code fields_text(json_t *object, const char *key, const char *path, size_t max,
                         const char **out, struct gq_error *err);

/* Optional metadata: an object of at most FIELDS_METADATA_KEYS string
 * values (keys of 1..40 bytes, values of 0..500). Absent: *out = NULL;
 * else *out borrows it from `object`. */
#define FIELDS_METADATA_KEYS 50
#define FIELDS_METADATA_KEY_BYTES 40
#define FIELDS_METADATA_VALUE_BYTES 500
enum gq_code fields_metadata(json_t *object, const char *key, const char *path, json_t **out,
                             struct gq_error *err);

/* A request body as JSON (body_load.c): any JSON value, repeated keys
 * refused. NULL with `err` set: malformed_json, or out_of_range naming the
 * field of a number too large to hold (RFC 8259 sets no limit on numbers;
 * the rest of the body is still checked for syntax). */
json_t *body_load(const char *body, size_t length, struct gq_error *err);

/* Writes "parent.key" (or "key" at the root) into buf. */
void fields_path(char *buf, size_t size, const char *parent, const char *key);

/* Fails with invalid_value at `path`.`key` (`key` alone at the root),
 * which must be one of `choices` (the names as the message lists them). */
enum gq_code fields_fail_one_of(const char *path, const char *key, const char *choices,
                                struct gq_error *err);

/* Writes "parent[index]" into buf. */
void fields_index_path(char *buf, size_t size, const char *parent, size_t index);

/* ---- A discount rule's body (discount_rule_body.c) ------------------- */

/* The discount rule in `body`, an object at `path` ("" at the root): name,
 * segment, billing ("mixed" too), sku, min_quantity, basis_points |
 * amount_off, priority, stackable and, when `windowed`, valid_from and
 * valid_until; any other key is unknown_field. *rule is zeroed first and
 * borrows strings from `body`; its id and source are the caller's to set. */
enum gq_code discount_rule_body_read(json_t *body, const char *path, bool windowed,
                                     struct discount_rule *rule, struct gq_error *err);

/* ---- Accept-Language (language.c) ------------------------------------- */

/* What the Accept-Language lines of a request say so far: each language's
 * weight in thousandths (-1: not listed), "*" as the last entry, and
 * where in the list each was named. */
struct language_choice {
    int weight[GQ_LANG_COUNT + 1];
    int order[GQ_LANG_COUNT + 1];
    int position;
};

void language_choice_init(struct language_choice *choice);

/* Reads one Accept-Language field value (a request may send several lines:
 * they are one list). NULL is ignored. */
void language_choice_add(struct language_choice *choice, const char *field_value);

/* The language to answer in: the acceptable one of highest weight, the
 * first listed among equals; English when none is acceptable or none was
 * asked for. */
enum gq_lang language_choice_result(const struct language_choice *choice);

/* The three above for a single field value (NULL: none sent). */
enum gq_lang language_negotiate(const char *field_value);

/* ---- JSON rendering shared by handlers (render.c) --------------------- */

/* Serialises `value` (stolen) the way every response is serialised:
 * compact, reals to 12 significant digits. NULL when memory runs out. */
char *render_dump(json_t *value);

/* A decimal money string ("1641.60"). NULL on memory exhaustion. */
json_t *render_money(gq_money amount);

/* Appends `value` (stolen; NULL is a failure) to `array` and returns the
 * array; on failure frees both and returns NULL, so that a loop building a
 * list can go on with the result while it is not NULL. */
json_t *render_append(json_t *array, json_t *value);

/* `body` (stolen) with "secret": `secret` added, for the one answer that
 * shows a secret; NULL when `body` is NULL or memory ran out. */
json_t *render_with_secret(json_t *body, const char *secret);

/* A new array of render(item) for each of the `count` items of `size`
 * bytes at `items` (a list a store read); NULL when memory ran out. */
json_t *render_each(const void *items, size_t count, size_t size,
                    json_t *(*render)(const void *item));

/* ---- the catalog's bodies, for the snapshot (catalog_render.c) -------- */

/* Each returns a new reference, or NULL when memory ran out: never a body
 * with a member missing. */
json_t *catalog_render_sku(const struct catalog *catalog, const struct sku *sku, enum gq_lang lang);
json_t *catalog_render_billing_modes(const struct catalog *catalog, enum gq_lang lang);
json_t *catalog_render_bundles(const struct catalog *catalog, enum gq_lang lang);
/* A GPU model's compute capability as developers write it (8.6), or null
 * when not known. */
json_t *catalog_render_compute_capability(const struct gpu_model *gpu);

/* Writes a plan for one instance of `sku`:
 * {"summary", "amount_per_instance", "parts": [{"billing", "units", "unit",
 *  "unit_price", "days", "hours", "amount"}]}. */
struct plan;
void render_plan(struct jsonw *writer, const struct sku *sku, const struct plan *plan);

/* The same with the summary in `lang` ("1 个季度 + 10 天按需计费"); render_plan
 * is this in English (what /recommend says until its texts are translated). */
void render_plan_in(struct jsonw *writer, const struct sku *sku, const struct plan *plan,
                    enum gq_lang lang);

/* A plan's one-line summary in `lang` ("1 quarter + 10 days on demand")
 * into `buf` (NUL-terminated, cut to fit); returns its length. */
size_t render_plan_summary(const struct plan *plan, enum gq_lang lang, char *buf, size_t size);

/* Room for a bundle alternative's summary: a few items' worth. */
#define RENDER_ALTERNATIVE_SUMMARY_SIZE 512

/* What the cheapest alternative to a bundle buys, item by item, in `lang`:
 * "4 × T4 16GB × 1: 1 quarter" joined by "; ", each item's plan from
 * quote_bundle_item_plan() for `segment` (call it only where
 * quote_bundle_alternative() succeeded). Cut to fit `buf`. */
void render_bundle_alternative_summary(const struct catalog *catalog, const struct bundle *bundle,
                                       enum customer_segment segment, enum gq_lang lang, char *buf,
                                       size_t size);

/* ---- POST /quote (quote_body.c) --------------------------------------- */

/* The most bytes of a quote's client_reference_id and of an accept's
 * reference. */
#define QUOTE_REFERENCE_MAX 200
/* The most bytes of a cancel's reason. */
#define QUOTE_CANCEL_REASON_MAX 500

/* What the request asked for, as plain structs the core takes. */
struct parsed_quote {
    struct quote_request request;
    struct quote_item_request items[QUOTE_MAX_ITEMS];
    const struct bundle *bundles[QUOTE_MAX_BUNDLES];
    bool save;
    const char *client_reference_id; /* the order system's own id; NULL: none */
    json_t *metadata;                /* string -> string; NULL: none */
    const char *promotion_code;      /* as typed; NULL: none */
    const char *customer_id;         /* customer.id as sent; NULL: none */
    bool segment_named;              /* customer.segment was sent */
};

/* Reads a POST /quote body into `out` (caller-owned), resolving SKUs and
 * bundles in `catalog`. Returns GQ_OK or a 422 code with err->field the
 * JSON path at fault. `out` borrows strings from `body` and pointers from
 * `catalog`: both must outlive it. */
enum gq_code quote_body_parse(json_t *body, const struct catalog *catalog, struct parsed_quote *out,
                              struct gq_error *err);

/* Where and when a quote lives (absent, id NULL, for an unsaved quote),
 * and the language its texts are written in. */
struct quote_meta {
    const char *id;
    int64_t created_at;
    int64_t expires_at;
    enum gq_lang lang; /* 0, GQ_LANG_EN, unless set */
    /* Why the segment is the quote's: "requested", "cheapest" (of those
     * the customer holds), "asserted" (by a key that verifies customers),
     * "estimate" or "default" (NULL). */
    const char *segment_chosen;
    const char *estimate_reason; /* an estimate's reason; NULL: not an estimate */
    const char *created_by;      /* a key's id or "anonymous"; NULL: not saved */
};

/* The quote as sent and stored: malloc'd JSON text and its length, NULL
 * when memory runs out. */
char *quote_body_render(const struct catalog *catalog, const struct parsed_quote *parsed,
                        const struct quote_result *result, const struct quote_meta *meta,
                        size_t *length);

/* ---- workload.model as a config.json (model_config_body.c) ------------- */

/* `workload.model` of `workload_object` is {"config": {…}}: fills
 * workload->model_config (model_config_given set, model NULL) and, from its
 * quantization_config, the workload's quantization and (unless given) its
 * precision. Unknown keys of the config are ignored. Returns GQ_OK or a 422
 * code with the field's path. */
enum gq_code model_config_body_parse(json_t *workload_object, struct sizing_workload *workload,
                                     struct gq_error *err);

/* ---- POST /recommend (recommend_body.c) ------------------------------- */

/* Reads a POST /recommend body into `out`, defaults filled in. Returns
 * GQ_OK or a 422 code with err->field the JSON path at fault. */
enum gq_code recommend_body_parse(json_t *body, struct recommend_request *out,
                                  struct gq_error *err);

/* The recommendation as sent: malloc'd JSON text and its length, NULL
 * when memory runs out. */
char *recommend_body_render(const struct catalog *catalog, const struct recommend_request *request,
                            const struct recommend_result *result, size_t *length);

#endif
