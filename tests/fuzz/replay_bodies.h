/*
 * Replaying one fuzz input as a POST /quote or POST /recommend body, along
 * the path the handlers take minus the HTTP: bytes -> body_load (the
 * server's) -> *_body_parse -> quote_compute / recommend_run ->
 * *_body_render (JSON text) -> json_loadb again, with the invariants of each result checked
 * on the way (FUZZ_CHECK aborts).
 *
 * Needs jansson and the codecs of src/codec/ (body_load.c, fields.c,
 * render.c, quote_body.c, recommend_body.c, which call no libmicrohttpd) besides the
 * core and src/util/{clock,json_writer,utf8}.c.
 */
#ifndef GQ_TESTS_FUZZ_REPLAY_BODIES_H
#define GQ_TESTS_FUZZ_REPLAY_BODIES_H

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/bodies.h"
#include "core/quote.h"
#include "core/recommend.h"
#include "fuzz/fuzz.h"
#include "util/utf8.h"

/* How far an input got. */
enum fuzz_body_stage {
    FUZZ_BODY_MALFORMED,  /* not JSON: 400 malformed_json */
    FUZZ_BODY_NOT_OBJECT, /* JSON, not an object: 422 invalid_type */
    FUZZ_BODY_REFUSED,    /* *_body_parse refused it */
    FUZZ_BODY_NOT_PRICED, /* quote_compute or recommend_run refused it */
    FUZZ_BODY_RENDERED    /* a 200/201 body */
};

struct fuzz_body_outcome {
    enum fuzz_body_stage stage;
    enum gq_code code; /* GQ_OK unless refused */
    char field[sizeof(((struct gq_error *)0)->field)];
};

/* Stands in for memory a handler gets from malloc: whatever the code reads
 * before writing is this pattern, the same in every run. */
#define FUZZ_POISON 0xa5

/* ---- shared checks ------------------------------------------------------ */

/* NUL-terminated within `size` and well-formed UTF-8 (what a JSON string
 * may hold unrepaired). */
static inline bool fuzz_text_is_utf8(const char *text, size_t size)
{
    if (memchr(text, '\0', size) == NULL)
        return false;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0';) {
        size_t length = utf8_sequence_length(p);
        if (length == 0)
            return false;
        p += length;
    }
    return true;
}

/* Every money string of a rendered body parses back to itself: a
 * non-negative amount of at most MONEY_MAX in its canonical text. A
 * `saving` may also be negative (a bundle dearer than its contents bought
 * as items) or null (contents that cannot be bought as items). */
static inline void fuzz_check_money_strings(json_t *value)
{
    static const char *const money_keys[] = {
        "amount", "discount_total",      "total",      "subtotal",    "saving", "unit_price",
        "price",  "amount_per_instance", "list_price", "list_saving", NULL};
    const char *key;
    json_t *member;
    size_t index;
    if (json_is_array(value)) {
        json_array_foreach(value, index, member)
        {
            fuzz_check_money_strings(member);
        }
        return;
    }
    if (!json_is_object(value))
        return;
    json_object_foreach(value, key, member)
    {
        bool is_money = false;
        for (const char *const *name = money_keys; *name != NULL; name++)
            is_money = is_money || strcmp(*name, key) == 0;
        if (!is_money) {
            fuzz_check_money_strings(member);
            continue;
        }
        bool is_saving = strcmp(key, "saving") == 0;
        if (is_saving && json_is_null(member))
            continue;
        FUZZ_CHECK(json_is_string(member));
        const char *text = json_string_value(member);
        bool negative = is_saving && text[0] == '-';
        gq_money amount = -1;
        char again[MONEY_FORMAT_SIZE];
        FUZZ_CHECK(money_parse(text + negative, &amount));
        FUZZ_CHECK(!negative || amount > 0);
        FUZZ_CHECK(strcmp(money_format(negative ? -amount : amount, again), text) == 0);
    }
}

/* Loads a rendered body back: it must be one JSON object with no repeated
 * key, of exactly `length` bytes (the server stores the text and
 * json_loads it again for GET /quote/{id}). A new reference. */
static inline json_t *fuzz_load_rendered(const char *text, size_t length)
{
    FUZZ_CHECK(text != NULL);
    FUZZ_CHECK(strlen(text) == length);
    json_error_t error;
    json_t *rendered = json_loadb(text, length, JSON_REJECT_DUPLICATES, &error);
    if (rendered == NULL)
        fprintf(stderr, "rendered body is not JSON: %s at %d: %.200s\n", error.text, error.position,
                text + (error.position > 40 ? error.position - 40 : 0));
    FUZZ_CHECK(rendered != NULL && json_is_object(rendered));
    return rendered;
}

/* A JSON number holding milli-hours as hours (7500 -> 7.5). */
static inline bool fuzz_is_millihours(json_t *value, int64_t millihours)
{
    return json_is_number(value) &&
           fabs(json_number_value(value) * USAGE_MILLIHOURS_PER_HOUR - (double)millihours) < 1e-6;
}

/* A JSON number within `tolerance` of `expected`. */
static inline bool fuzz_is_near(json_t *value, double expected, double tolerance)
{
    return json_is_number(value) && fabs(json_number_value(value) - expected) <= tolerance;
}

/* As written with 12 significant digits ("%.12g"). */
static inline bool fuzz_is_real(json_t *value, double expected)
{
    return fuzz_is_near(value, expected, 1e-11 * fmax(1.0, fabs(expected)));
}

/* As shown to two decimals (an estimate). */
static inline bool fuzz_is_hundredths(json_t *value, double expected)
{
    return fuzz_is_near(value, expected, 0.005 + 1e-12 * fabs(expected));
}

/* A need shown to two decimals rounded up: never below the value (but for
 * noise), less than a hundredth above it. */
static inline bool fuzz_is_hundredths_up(json_t *value, double expected)
{
    double slack = 1e-9 + 1e-12 * fabs(expected);
    double shown = json_number_value(value);
    return json_is_number(value) && shown >= expected - slack && shown < expected + 0.01 + slack;
}

static inline void fuzz_check_refusal(const struct gq_error *err, enum gq_code code,
                                      const enum gq_code *allowed)
{
    bool known = false;
    for (const enum gq_code *c = allowed; *c != GQ_OK; c++)
        known = known || *c == code;
    FUZZ_CHECK(known);
    FUZZ_CHECK(err->code == code);
    FUZZ_CHECK(memchr(err->field, '\0', sizeof err->field) != NULL);
    FUZZ_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL);
    FUZZ_CHECK(err->message[0] != '\0');
}

static inline void fuzz_refused(struct fuzz_body_outcome *out, enum fuzz_body_stage stage,
                                const struct gq_error *err)
{
    out->stage = stage;
    out->code = err->code;
    snprintf(out->field, sizeof out->field, "%s", err->field);
}

static const enum gq_code fuzz_parse_codes[] = {
    GQ_ERR_MISSING_FIELD, GQ_ERR_UNKNOWN_FIELD, GQ_ERR_INVALID_TYPE,   GQ_ERR_OUT_OF_RANGE,
    GQ_ERR_INVALID_VALUE, GQ_ERR_UNKNOWN_SKU,   GQ_ERR_UNKNOWN_BUNDLE, GQ_OK};

/* Loads `data` as the server does; NULL (with out->stage set) for what it
 * answers before any handler runs. */
static inline json_t *fuzz_load_body(const uint8_t *data, size_t size,
                                     struct fuzz_body_outcome *out)
{
    memset(out, 0, sizeof *out);
    struct gq_error err;
    json_t *body = body_load((const char *)data, size, &err);
    out->stage = FUZZ_BODY_MALFORMED;
    if (body == NULL)
        return NULL;
    out->stage = FUZZ_BODY_NOT_OBJECT;
    if (!json_is_object(body)) {
        json_decref(body);
        return NULL;
    }
    return body;
}

/* ---- POST /quote -------------------------------------------------------- */

/* What a quote replay allocates once: the parsed request (large). */
struct fuzz_quote_workspace {
    struct parsed_quote parsed;
};

/* The pieces of one priced option add up: parts to the plan, the plan
 * times the quantity to the amount, the discounts to at most the amount. */
static inline void fuzz_check_option(const struct quote_item_request *item,
                                     const struct priced_option *option)
{
    const struct plan *plan = &option->plan;
    FUZZ_CHECK(plan->n_parts >= 1 && plan->n_parts <= PLAN_MAX_PARTS);
    gq_money parts = 0;
    int64_t days = 0, millihours = 0;
    for (int p = 0; p < plan->n_parts; p++) {
        const struct plan_part *part = &plan->parts[p];
        FUZZ_CHECK((unsigned)part->mode < BILLING_MODE_COUNT);
        FUZZ_CHECK(part->amount >= 0 && part->days >= 1);
        FUZZ_CHECK(billing_mode_is_hourly(part->mode) ? part->blocks == 0 : part->blocks >= 1);
        parts += part->amount;
        days += part->days;
        millihours += part->millihours;
    }
    FUZZ_CHECK(parts == plan->amount);
    FUZZ_CHECK(days == item->usage.days);
    FUZZ_CHECK(millihours == usage_millihours(&item->usage));
    FUZZ_CHECK(plan->amount >= 0 && plan->amount <= MONEY_MAX);
    FUZZ_CHECK(option->amount == plan->amount * item->quantity);
    FUZZ_CHECK(option->amount <= MONEY_MAX);
    const struct discount_result *discounts = &option->discounts;
    FUZZ_CHECK(discounts->n_applied >= 0 && discounts->n_applied <= DISCOUNT_MAX_APPLIED);
    gq_money applied = 0;
    for (int d = 0; d < discounts->n_applied; d++) {
        FUZZ_CHECK(discounts->applied[d].rule != NULL && discounts->applied[d].amount > 0);
        applied += discounts->applied[d].amount;
    }
    FUZZ_CHECK(applied == discounts->total);
    FUZZ_CHECK(discounts->total >= 0 && discounts->total <= option->amount);
    FUZZ_CHECK(option->total == option->amount - discounts->total);
}

static inline void fuzz_check_quote_item(const struct quote_item_request *item,
                                         const struct quote_item_result *line)
{
    FUZZ_CHECK(line->n_options >= 1 && line->n_options <= BILLING_MODE_COUNT);
    fuzz_check_option(item, &line->cheapest);
    bool billed_found = line->billed == &line->cheapest;
    for (int k = 0; k < line->n_options; k++) {
        fuzz_check_option(item, &line->options[k]);
        FUZZ_CHECK(line->options[k].plan.n_parts == 1);
        FUZZ_CHECK(line->options[k].plan.parts[0].mode == line->option_modes[k]);
        FUZZ_CHECK(line->cheapest.total <= line->options[k].total);
        if (line->billed == &line->options[k]) {
            billed_found = true;
            FUZZ_CHECK(!item->cheapest && line->option_modes[k] == item->billing);
        }
    }
    FUZZ_CHECK(billed_found);
    FUZZ_CHECK(item->cheapest == (line->billed == &line->cheapest));
    FUZZ_CHECK(line->saving >= 0);
    FUZZ_CHECK(line->billable_millihours == usage_millihours(&item->usage));
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (billing_mode_is_hourly((enum billing_mode)m))
            FUZZ_CHECK(line->break_even_tenths[m] == -1);
}

/* plan_cheapest claims the exact minimum-cost cover by the modes the
 * customer may use, ties to fewer blocks. Every cover of the days by q
 * quarters and m months (the rest by the hour, when the customer may pay by
 * the hour) is tried here by brute force, in exact fen × milli-hours. */
static inline void fuzz_check_cheapest_cover(const struct catalog *catalog,
                                             enum customer_segment segment,
                                             const struct quote_item_request *item)
{
    const struct sku *sku = item->sku;
    uint32_t usable = 0;
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        if (quote_mode_allowed(catalog, sku, segment, (enum billing_mode)m))
            usable |= BILLING_MODE_BIT(m);
    enum billing_mode hourly =
        (usable & BILLING_MODE_BIT(BILLING_STUDENT)) ? BILLING_STUDENT : BILLING_ON_DEMAND;
    const bool pays_by_the_hour = (usable & BILLING_MODE_BIT(hourly)) != 0;
    const int32_t days = item->usage.days, per_day = item->usage.millihours_per_day;
    const int32_t max_quarters =
        (usable & BILLING_MODE_BIT(BILLING_QUARTERLY)) ? (days + 89) / 90 : 0;
    const int32_t max_months = (usable & BILLING_MODE_BIT(BILLING_MONTHLY)) ? (days + 29) / 30 : 0;
    __extension__ __int128 best = -1;
    int32_t best_blocks = 0;
    for (int32_t q = 0; q <= max_quarters; q++)
        for (int32_t m = 0; m <= max_months; m++) {
            int32_t hourly_days = days - 90 * q - 30 * m;
            if (hourly_days > 0 && !pays_by_the_hour)
                continue;
            __extension__ __int128 cost =
                ((__int128)q * sku->price[BILLING_QUARTERLY] +
                 (__int128)m * sku->price[BILLING_MONTHLY]) *
                    USAGE_MILLIHOURS_PER_HOUR +
                (__int128)(hourly_days > 0 ? hourly_days : 0) * per_day * sku->price[hourly];
            if (best < 0 || cost < best || (cost == best && q + m < best_blocks)) {
                best = cost;
                best_blocks = q + m;
            }
        }

    struct plan plan;
    enum gq_code code = plan_cheapest(sku, usable, hourly, &item->usage, &plan);
    if (best < 0) {
        FUZZ_CHECK(code == GQ_ERR_NOT_ELIGIBLE);
        return;
    }
    /* Rounded to the fen (half-up) as the plan's hourly part is. */
    __extension__ __int128 best_fen =
        (best + USAGE_MILLIHOURS_PER_HOUR / 2) / USAGE_MILLIHOURS_PER_HOUR;
    if (code != GQ_OK) {
        FUZZ_CHECK(code == GQ_ERR_AMOUNT_TOO_LARGE && best_fen > MONEY_MAX);
        return;
    }
    __extension__ __int128 cost = 0;
    int32_t blocks = 0;
    for (int p = 0; p < plan.n_parts; p++) {
        const struct plan_part *part = &plan.parts[p];
        FUZZ_CHECK(part->mode == hourly || !billing_mode_is_hourly(part->mode));
        FUZZ_CHECK((usable & BILLING_MODE_BIT(part->mode)) != 0);
        blocks += part->blocks;
        cost += billing_mode_is_hourly(part->mode)
                    ? (__int128)part->millihours * sku->price[part->mode]
                    : (__int128)part->blocks * sku->price[part->mode] * USAGE_MILLIHOURS_PER_HOUR;
    }
    FUZZ_CHECK(cost == best && blocks == best_blocks);
    FUZZ_CHECK(plan.amount == (gq_money)best_fen);
}

/* Brute force costs up to a few thousand covers an item: enough items to
 * catch a wrong plan, few enough to keep a 100-item body fast. */
#define FUZZ_COVERS_CHECKED 4

static inline void fuzz_check_quote(const struct catalog *catalog,
                                    const struct parsed_quote *parsed,
                                    const struct quote_result *result)
{
    const struct quote_request *request = &parsed->request;
    FUZZ_CHECK(result->n_items == request->n_items && result->n_bundles == request->n_bundles);
    gq_money subtotal = 0, discount_total = 0;
    for (size_t i = 0; i < result->n_items; i++) {
        if (i < FUZZ_COVERS_CHECKED)
            fuzz_check_cheapest_cover(catalog, request->segment, &request->items[i]);
        fuzz_check_quote_item(&request->items[i], &result->items[i]);
        subtotal += result->items[i].billed->amount;
        discount_total += result->items[i].billed->discounts.total;
    }
    for (size_t i = 0; i < result->n_bundles; i++) {
        const struct quote_bundle_result *line = &result->bundles[i];
        FUZZ_CHECK(line->bundle == request->bundles[i]);
        FUZZ_CHECK(line->list_saving == line->bundle->list_price - line->bundle->price);
        FUZZ_CHECK(line->has_alternative ? line->saving == line->alternative - line->bundle->price
                                         : line->saving == 0);
        subtotal += line->bundle->price;
    }
    FUZZ_CHECK(result->subtotal == subtotal && result->subtotal <= MONEY_MAX);
    FUZZ_CHECK(result->discount_total == discount_total);
    FUZZ_CHECK(result->total == result->subtotal - result->discount_total);
    FUZZ_CHECK(result->total >= 0);
}

/* The rendered quote is JSON that shows every line the result holds, with
 * every amount and every number of hours as the result has it. */
static inline void fuzz_check_quote_render(const struct parsed_quote *parsed,
                                           const struct quote_result *result, const char *text,
                                           size_t length)
{
    json_t *rendered = fuzz_load_rendered(text, length);
    json_t *items = json_object_get(rendered, "items");
    FUZZ_CHECK(json_array_size(items) == result->n_items);
    FUZZ_CHECK(json_array_size(json_object_get(rendered, "bundles")) == result->n_bundles);
    for (size_t i = 0; i < result->n_items; i++) {
        json_t *item = json_array_get(items, i);
        const struct quote_item_request *asked = &parsed->items[i];
        const struct quote_item_result *line = &result->items[i];
        FUZZ_CHECK(json_array_size(json_object_get(item, "options")) == (size_t)line->n_options);
        FUZZ_CHECK(json_array_size(json_object_get(item, "discounts")) ==
                   (size_t)line->billed->discounts.n_applied);
        json_t *parts = json_object_get(json_object_get(item, "plan"), "parts");
        FUZZ_CHECK(json_array_size(parts) == (size_t)line->billed->plan.n_parts);
        for (int p = 0; p < line->billed->plan.n_parts; p++)
            FUZZ_CHECK(
                fuzz_is_millihours(json_object_get(json_array_get(parts, (size_t)p), "hours"),
                                   line->billed->plan.parts[p].millihours));
        FUZZ_CHECK(json_is_object(json_object_get(item, "cheapest")));
        FUZZ_CHECK(strcmp(json_string_value(json_object_get(item, "sku")), asked->sku->id) == 0);
        FUZZ_CHECK(json_integer_value(json_object_get(item, "quantity")) == asked->quantity);
        FUZZ_CHECK(json_integer_value(json_object_get(item, "days")) == asked->usage.days);
        FUZZ_CHECK(fuzz_is_millihours(json_object_get(item, "hours_per_day"),
                                      asked->usage.millihours_per_day));
        FUZZ_CHECK(fuzz_is_millihours(json_object_get(item, "billable_hours"),
                                      line->billable_millihours * asked->quantity));
    }
    gq_money total = -1;
    FUZZ_CHECK(money_parse(json_string_value(json_object_get(rendered, "total")), &total));
    FUZZ_CHECK(total == result->total);
    FUZZ_CHECK(json_is_string(json_object_get(rendered, "id")) == parsed->save);
    fuzz_check_money_strings(rendered);
    json_decref(rendered);
}

/* Replays `data` as a POST /quote body priced at FUZZ_NOW against
 * `catalog`, using `work` (allocated once by the caller). */
static inline void fuzz_replay_quote_body(const struct catalog *catalog,
                                          struct fuzz_quote_workspace *work, const uint8_t *data,
                                          size_t size, struct fuzz_body_outcome *out)
{
    static const enum gq_code compute_codes[] = {GQ_ERR_OUT_OF_RANGE, GQ_ERR_NOT_ELIGIBLE,
                                                 GQ_ERR_AMOUNT_TOO_LARGE, GQ_OK};
    json_t *body = fuzz_load_body(data, size, out);
    if (body == NULL)
        return;
    /* As quote_handle_create: the parsed request is malloc'd (parsing fills
     * what is used; the poison stands in for whatever malloc returns), the
     * result sized to the body's "items" before parsing, and `now` set
     * after parsing. */
    memset(&work->parsed, FUZZ_POISON, sizeof work->parsed);
    struct quote_result *result = quote_result_new(json_array_size(json_object_get(body, "items")));
    FUZZ_CHECK(result != NULL);
    struct parsed_quote *parsed = &work->parsed;
    struct gq_error err;
    gq_error_clear(&err);
    enum gq_code code = quote_body_parse(body, catalog, parsed, &err);
    parsed->request.now = FUZZ_NOW;
    if (code == GQ_OK) {
        FUZZ_CHECK(parsed->request.n_items <= QUOTE_MAX_ITEMS);
        FUZZ_CHECK(parsed->request.n_bundles <= QUOTE_MAX_BUNDLES);
        for (size_t i = 0; i < parsed->request.n_items; i++)
            FUZZ_CHECK(parsed->items[i].sku != NULL);
        code = quote_compute(catalog, &parsed->request, result, &err);
        if (code != GQ_OK) {
            fuzz_check_refusal(&err, code, compute_codes);
            fuzz_refused(out, FUZZ_BODY_NOT_PRICED, &err);
        }
    } else {
        fuzz_check_refusal(&err, code, fuzz_parse_codes);
        fuzz_refused(out, FUZZ_BODY_REFUSED, &err);
    }
    if (code == GQ_OK) {
        fuzz_check_quote(catalog, parsed, result);
        /* What quote_handle_create stores and sends. */
        char *request_text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
        FUZZ_CHECK(request_text != NULL);
        free(request_text);
        /* Both languages: a saved quote in Chinese, an unsaved one in English. */
        struct quote_meta meta = {.id = parsed->save ? "q_fuzz0000000000000000000000" : NULL,
                                  .created_at = FUZZ_NOW,
                                  .expires_at = FUZZ_NOW + 7 * 86400,
                                  .lang = parsed->save ? GQ_LANG_ZH_CN : GQ_LANG_EN,
                                  .created_by = parsed->save ? "anonymous" : NULL};
        size_t length = 0;
        char *text = quote_body_render(catalog, parsed, result, &meta, &length);
        fuzz_check_quote_render(parsed, result, text, length);
        free(text);
        out->stage = FUZZ_BODY_RENDERED;
    }
    quote_result_free(result);
    json_decref(body);
}

/* ---- POST /recommend ---------------------------------------------------- */

/* What a recommend replay allocates once. */
struct fuzz_recommend_workspace {
    struct recommend_result result;
    struct quote_result *quote; /* one item: re-pricing recommendations */
};

static inline struct fuzz_recommend_workspace *fuzz_recommend_workspace_new(void)
{
    struct fuzz_recommend_workspace *work = malloc(sizeof *work);
    FUZZ_CHECK(work != NULL);
    work->quote = quote_result_new(1);
    FUZZ_CHECK(work->quote != NULL);
    return work;
}

static inline void fuzz_recommend_workspace_free(struct fuzz_recommend_workspace *work)
{
    if (work != NULL)
        quote_result_free(work->quote);
    free(work);
}

/* A recommendation is what POST /quote would bill for it, to the fen. */
static inline void fuzz_check_requote(const struct catalog *catalog,
                                      const struct recommend_request *request,
                                      const struct recommendation *r, struct quote_result *quote)
{
    struct quote_item_request item = {
        .sku = r->sku,
        .quantity = r->quantity,
        .cheapest = true,
        .billing = BILLING_ON_DEMAND,
        .usage = r->usage,
    };
    struct quote_request again = {
        .segment = request->segment, .items = &item, .n_items = 1, .now = FUZZ_NOW};
    struct gq_error err;
    FUZZ_CHECK(quote_compute(catalog, &again, quote, &err) == GQ_OK);
    FUZZ_CHECK(quote->total == r->total);
    FUZZ_CHECK(quote->subtotal == r->amount && quote->discount_total == r->discount);
    FUZZ_CHECK(quote->items[0].billed->plan.amount == r->plan.amount);
}

/* An inference recommendation serves what was asked: every request at the
 * per-request floor or faster, the concurrency within its replicas' batches
 * and memory, the target reached. */
static inline void fuzz_check_serving(const struct sizing_estimate *e,
                                      const struct recommendation *r)
{
    const struct sizing_serving *v = &r->serving;
    FUZZ_CHECK(v->limit == SIZING_SERVES && v->replicas == (double)r->quantity);
    FUZZ_CHECK(v->batch >= 1 && v->batch <= v->max_batch && v->max_batch <= v->max_batch_memory);
    FUZZ_CHECK(v->tokens_per_second_per_request >= e->per_request_floor * (1.0 - 1e-9));
    FUZZ_CHECK(isfinite(v->prefill_seconds) && v->prefill_seconds >= 0.0);
    FUZZ_CHECK(isfinite(v->step_seconds) && v->step_seconds > 0.0);
    if (e->concurrent_requests > 0)
        FUZZ_CHECK((int64_t)r->quantity * v->batch >= e->concurrent_requests);
    if (e->tokens_per_second > 0.0)
        FUZZ_CHECK(v->tokens_per_second >= e->tokens_per_second * (1.0 - 1e-9));
}

static inline void fuzz_check_recommendation(const struct catalog *catalog,
                                             const struct recommend_request *request,
                                             const struct recommend_result *result, int i,
                                             struct quote_result *quote)
{
    const struct recommendation *r = &result->recommendations[i];
    FUZZ_CHECK(r->rank == i + 1);
    FUZZ_CHECK(r->sku >= catalog->skus && r->sku < catalog->skus + catalog->n_skus);
    FUZZ_CHECK(r->quantity >= 1 && r->quantity <= SIZING_MAX_INSTANCES_LIMIT);
    FUZZ_CHECK(r->quantity <= (int32_t)result->estimate.assumptions[SIZING_MAX_INSTANCES]);
    FUZZ_CHECK(usage_is_valid(&r->usage));
    FUZZ_CHECK(r->total == r->amount - r->discount);
    FUZZ_CHECK(r->discount >= 0 && r->discount <= r->amount && r->amount <= MONEY_MAX);
    FUZZ_CHECK(request->budget == 0 || r->total <= request->budget);
    FUZZ_CHECK(request->deadline_days == 0 || r->usage.days <= request->deadline_days);
    struct sizing_placement placement;
    FUZZ_CHECK(sizing_place(&result->estimate, r->sku, r->quantity, &placement));
    FUZZ_CHECK(placement.strategy == r->placement.strategy);
    FUZZ_CHECK(r->placement.memory_gb <= r->sku->gpu->memory_gb + 1e-9);
    FUZZ_CHECK(r->memory_gb_needed <= r->memory_gb_available + 1e-9);
    if (result->estimate.task == SIZING_TASK_INFERENCE)
        fuzz_check_serving(&result->estimate, r);
    FUZZ_CHECK(r->cards == r->quantity * r->sku->gpu_count);
    FUZZ_CHECK(isfinite(r->estimated_hours) && r->estimated_hours >= 0);
    FUZZ_CHECK(isfinite(r->estimated_days) && r->estimated_days >= 0);
    FUZZ_CHECK(r->billing != NULL);
    FUZZ_CHECK(r->n_reasons >= 3 && r->n_reasons <= RECOMMEND_MAX_REASONS);
    for (int k = 0; k < r->n_reasons; k++)
        FUZZ_CHECK(fuzz_text_is_utf8(r->reasons[k], sizeof r->reasons[k]));
    if (i > 0) {
        const struct recommendation *before = &result->recommendations[i - 1];
        if (request->objective == RECOMMEND_OBJECTIVE_COST)
            FUZZ_CHECK(before->total <= r->total);
        else
            FUZZ_CHECK(before->estimated_hours <= r->estimated_hours);
    }
    fuzz_check_requote(catalog, request, r, quote);
}

/* One configuration of the restated choice below. */
struct fuzz_choice {
    const struct sku *sku;
    int32_t instances;
    double hours;
    struct usage usage;
    gq_money total;
};

/* < 0 when `a` ranks first: the objective's figure, then the other one,
 * fewer cards, the SKU id, fewer instances (recommend.h, "ranked"). */
static inline int fuzz_choice_order(const struct fuzz_choice *a, const struct fuzz_choice *b,
                                    enum recommend_objective objective)
{
    int by_cost = (a->total > b->total) - (a->total < b->total);
    int by_time = (a->hours > b->hours) - (a->hours < b->hours);
    int order = objective == RECOMMEND_OBJECTIVE_TIME ? (by_time ? by_time : by_cost)
                                                      : (by_cost ? by_cost : by_time);
    /* two free answers tie on cost: fewer cards win before the time */
    if (objective != RECOMMEND_OBJECTIVE_TIME && a->total == 0 && b->total == 0)
        order = 0;
    int32_t cards_a = a->instances * a->sku->gpu_count, cards_b = b->instances * b->sku->gpu_count;
    if (order == 0)
        order = (cards_a > cards_b) - (cards_a < cards_b);
    if (order == 0)
        order = strcmp(a->sku->id, b->sku->id);
    if (order == 0)
        order = (a->instances > b->instances) - (a->instances < b->instances);
    return order;
}

/* The schedule of a configuration as recommend.h documents it: a rental
 * uses the requested hours per day for the rental's days; a training run
 * of H hours at h hours per day takes ⌈H / h⌉ days at ⌈H / days⌉ per day
 * (whole milli-hours, ignoring 1e-6 of floating-point noise). False when
 * it would run past USAGE_MAX_DAYS. */
static inline bool fuzz_choice_schedule(const struct recommend_result *result,
                                        struct fuzz_choice *c)
{
    const int32_t per_day = result->millihours_per_day;
    if (!(result->estimate.flops > 0.0)) {
        c->usage = (struct usage){per_day, result->days};
        c->hours = (double)usage_millihours(&c->usage) / USAGE_MILLIHOURS_PER_HOUR;
        return true;
    }
    struct sizing_placement placement;
    sizing_place(&result->estimate, c->sku, c->instances, &placement);
    c->hours =
        sizing_training_hours_as(&result->estimate, placement.strategy, c->sku, c->instances);
    if (!(c->hours <= (double)USAGE_MAX_DAYS * per_day / USAGE_MILLIHOURS_PER_HOUR))
        return false;
    int64_t millihours = (int64_t)ceil(c->hours * USAGE_MILLIHOURS_PER_HOUR - 1e-6);
    if (millihours < 1)
        millihours = 1;
    int64_t days = (millihours + per_day - 1) / per_day;
    if (days > USAGE_MAX_DAYS)
        return false;
    c->usage = (struct usage){(int32_t)((millihours + days - 1) / days), (int32_t)days};
    return true;
}

/* The whole choice restated from recommend.h: for each SKU that holds the
 * workload, the instance counts it may use (1 … max_instances for a
 * training run, else the replicas the throughput needs, if no more than
 * max_instances), each scheduled, kept when it meets the deadline, can be
 * priced as POST /quote prices it and keeps the budget; the SKU's best
 * under the objective competes for the top `limit`; a SKU with none is a
 * rejection. The result must be exactly that. */
static inline void fuzz_check_choice(const struct catalog *catalog,
                                     const struct recommend_request *request,
                                     const struct recommend_result *result,
                                     struct quote_result *quote)
{
    const struct sizing_estimate *estimate = &result->estimate;
    const bool training = estimate->flops > 0.0;
    const int32_t max_instances = (int32_t)estimate->assumptions[SIZING_MAX_INSTANCES];
    struct fuzz_choice top[RECOMMEND_MAX_LIMIT];
    size_t n_top = 0, n_served = 0;
    const size_t limit = (size_t)result->limit;
    for (size_t s = 0; s < catalog->n_skus; s++) {
        const struct sku *sku = &catalog->skus[s];
        int32_t first = 1, last = max_instances;
        struct sizing_placement placement;
        if (!sizing_place(estimate, sku, 1, &placement) &&
            !(training && sizing_place(estimate, sku, max_instances, &placement)))
            continue;
        if (!training)
            first = last = sizing_replicas_needed(estimate, sku);
        if (first > max_instances)
            continue;
        struct fuzz_choice best = {0};
        bool has_best = false;
        for (int32_t n = first; n <= last; n++) {
            struct fuzz_choice c = {.sku = sku, .instances = n};
            if (!sizing_place(estimate, sku, n, &placement) || !fuzz_choice_schedule(result, &c) ||
                (request->deadline_days > 0 && c.usage.days > request->deadline_days))
                continue;
            struct quote_item_request item = {
                .sku = sku, .quantity = n, .cheapest = true, .usage = c.usage};
            struct quote_request priced = {
                .segment = request->segment, .items = &item, .n_items = 1, .now = FUZZ_NOW};
            if (quote_compute(catalog, &priced, quote, NULL) != GQ_OK)
                continue;
            c.total = quote->total;
            if (request->budget > 0 && c.total > request->budget)
                continue;
            if (!has_best || fuzz_choice_order(&c, &best, request->objective) < 0)
                best = c;
            has_best = true;
        }
        if (!has_best)
            continue;
        n_served++;
        size_t at = n_top;
        while (at > 0 && fuzz_choice_order(&best, &top[at - 1], request->objective) < 0)
            at--;
        if (at >= limit)
            continue;
        size_t kept = n_top < limit ? n_top : limit - 1;
        memmove(&top[at + 1], &top[at], (kept - at) * sizeof top[0]);
        top[at] = best;
        if (n_top < limit)
            n_top++;
    }
    FUZZ_CHECK((size_t)result->n_recommendations == n_top);
    for (size_t i = 0; i < n_top; i++) {
        const struct recommendation *r = &result->recommendations[i];
        FUZZ_CHECK(r->sku == top[i].sku && r->quantity == top[i].instances);
        FUZZ_CHECK(r->total == top[i].total && r->estimated_hours == top[i].hours);
        FUZZ_CHECK(r->usage.days == top[i].usage.days &&
                   r->usage.millihours_per_day == top[i].usage.millihours_per_day);
    }
    FUZZ_CHECK(result->n_rejected_total == catalog->n_skus - n_served);
}

static inline void fuzz_check_recommend(const struct catalog *catalog,
                                        const struct recommend_request *request,
                                        const struct recommend_result *result,
                                        struct quote_result *quote)
{
    int32_t limit = request->limit > 0 ? request->limit : RECOMMEND_DEFAULT_LIMIT;
    FUZZ_CHECK(result->limit == limit);
    FUZZ_CHECK(result->n_recommendations >= 0 && result->n_recommendations <= limit);
    FUZZ_CHECK(result->millihours_per_day >= 1 &&
               result->millihours_per_day <= USAGE_MAX_MILLIHOURS_PER_DAY);
    for (int i = 0; i < result->n_recommendations; i++) {
        fuzz_check_recommendation(catalog, request, result, i, quote);
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(result->recommendations[j].sku != result->recommendations[i].sku);
    }
    FUZZ_CHECK(result->n_rejected >= 0 && result->n_rejected <= RECOMMEND_MAX_REJECTED);
    FUZZ_CHECK((size_t)result->n_rejected <= result->n_rejected_total);
    FUZZ_CHECK(result->n_rejected_total + (size_t)result->n_recommendations <= catalog->n_skus);
    size_t by_reason = 0;
    for (int k = 0; k < RECOMMEND_REJECT_REASON_COUNT; k++)
        by_reason += result->rejected_by_reason[k];
    FUZZ_CHECK(by_reason == result->n_rejected_total);
    for (int i = 0; i < result->n_rejected; i++) {
        const struct recommend_rejection *rejection = &result->rejected[i];
        FUZZ_CHECK((unsigned)rejection->reason < RECOMMEND_REJECT_REASON_COUNT);
        FUZZ_CHECK(rejection->sku >= catalog->skus &&
                   rejection->sku < catalog->skus + catalog->n_skus);
        FUZZ_CHECK(!isnan(rejection->shortfall));
        FUZZ_CHECK(fuzz_text_is_utf8(rejection->detail, sizeof rejection->detail));
        for (int j = 0; j < result->n_recommendations; j++)
            FUZZ_CHECK(result->recommendations[j].sku != rejection->sku);
        if (i > 0)
            FUZZ_CHECK(result->rejected[i - 1].reason <= rejection->reason);
    }
    FUZZ_CHECK(fuzz_text_is_utf8(result->hint, sizeof result->hint));
    /* Nothing recommended always says what to change; a recommendation
     * may come with a cheaper change. */
    FUZZ_CHECK(result->n_recommendations > 0 || result->hint[0] != '\0');
    fuzz_check_choice(catalog, request, result, quote);
}

static inline void fuzz_check_recommend_render(const struct recommend_result *result,
                                               const char *text, size_t length)
{
    json_t *rendered = fuzz_load_rendered(text, length);
    json_t *recommendations = json_object_get(rendered, "recommendations");
    FUZZ_CHECK(json_array_size(recommendations) == (size_t)result->n_recommendations);
    FUZZ_CHECK(json_array_size(json_object_get(rendered, "rejected")) ==
               (size_t)result->n_rejected);
    for (int i = 0; i < result->n_recommendations; i++) {
        const struct recommendation *r = &result->recommendations[i];
        json_t *shown = json_array_get(recommendations, (size_t)i);
        FUZZ_CHECK(json_array_size(json_object_get(shown, "reasons")) == (size_t)r->n_reasons);
        FUZZ_CHECK(
            fuzz_is_hundredths(json_object_get(shown, "estimated_hours"), r->estimated_hours));
        FUZZ_CHECK(
            fuzz_is_hundredths_up(json_object_get(shown, "memory_gb_needed"), r->memory_gb_needed));
        json_t *usage = json_object_get(shown, "usage");
        FUZZ_CHECK(json_integer_value(json_object_get(usage, "days")) == r->usage.days);
        FUZZ_CHECK(fuzz_is_millihours(json_object_get(usage, "hours_per_day"),
                                      r->usage.millihours_per_day));
    }
    FUZZ_CHECK(
        fuzz_is_millihours(json_object_get(rendered, "hours_per_day"), result->millihours_per_day));
    const struct sizing_estimate *estimate = &result->estimate;
    json_t *shown = json_object_get(rendered, "estimate");
    json_t *assumptions = json_object_get(shown, "assumptions");
    for (int a = 0; a < SIZING_ASSUMPTION_COUNT; a++) {
        json_t *echo =
            json_object_get(assumptions, sizing_assumption_id((enum sizing_assumption)a));
        /* An assumption with no default, not given, is echoed as null. */
        FUZZ_CHECK(isnan(estimate->assumptions[a]) ? json_is_null(echo)
                                                   : fuzz_is_real(echo, estimate->assumptions[a]));
    }
    FUZZ_CHECK(fuzz_is_real(json_object_get(shown, "flops"), estimate->flops));
    FUZZ_CHECK(
        fuzz_is_real(json_object_get(shown, "allowance_fraction"), estimate->allowance_fraction));
    FUZZ_CHECK(fuzz_is_hundredths_up(json_object_get(shown, "memory_gb"), estimate->memory_gb));
    FUZZ_CHECK(fuzz_is_hundredths(json_object_get(shown, "model_params_b"), estimate->params_b));
    FUZZ_CHECK(json_is_string(json_object_get(rendered, "hint")) == (result->hint[0] != '\0'));
    fuzz_check_money_strings(rendered);
    json_decref(rendered);
}

/* Replays `data` as a POST /recommend body at FUZZ_NOW against `catalog`,
 * using `work` (allocated once by the caller). */
static inline void fuzz_replay_recommend_body(const struct catalog *catalog,
                                              struct fuzz_recommend_workspace *work,
                                              const uint8_t *data, size_t size,
                                              struct fuzz_body_outcome *out)
{
    static const enum gq_code run_codes[] = {GQ_ERR_INVALID_VALUE, GQ_ERR_OUT_OF_RANGE, GQ_OK};
    json_t *body = fuzz_load_body(data, size, out);
    if (body == NULL)
        return;
    struct recommend_request request;
    memset(&request, FUZZ_POISON, sizeof request);
    memset(&work->result, FUZZ_POISON, sizeof work->result);
    struct gq_error err;
    gq_error_clear(&err);
    enum gq_code code = recommend_body_parse(body, &request, &err);
    if (code != GQ_OK) {
        fuzz_check_refusal(&err, code, fuzz_parse_codes);
        fuzz_refused(out, FUZZ_BODY_REFUSED, &err);
        json_decref(body);
        return;
    }
    code = recommend_run(catalog, &request, FUZZ_NOW, &work->result, &err);
    if (code != GQ_OK) {
        fuzz_check_refusal(&err, code, run_codes);
        fuzz_refused(out, FUZZ_BODY_NOT_PRICED, &err);
        json_decref(body);
        return;
    }
    fuzz_check_recommend(catalog, &request, &work->result, work->quote);
    size_t length = 0;
    char *text = recommend_body_render(catalog, &request, &work->result, &length);
    fuzz_check_recommend_render(&work->result, text, length);
    free(text);
    json_decref(body);
    out->stage = FUZZ_BODY_RENDERED;
}

#endif
