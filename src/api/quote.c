/*
 * POST /quote, GET /quote/{id}, POST /quote/{id}/accept and
 * POST /quote/{id}/cancel.
 *
 * Create is parse -> price (core: quote_compute) -> render -> store: the
 * body becomes plain structs, the core prices them, the result is rendered
 * once (parsing and rendering live in codec/quote_body.c), and that exact text is
 * both stored and sent. Storing is asynchronous: the connection is
 * suspended while the store's writer thread commits the quote with others
 * (src/store/quote_batch.c), and answered when it is resumed. A stored
 * quote is never re-priced: reading it back returns the stored text with
 * only its status brought up to date.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "codec/bodies.h"
#include "codec/store_json.h"
#include "admin/admin.h"
#include "core/catalog.h"
#include "http/app.h"
#include "http/auth.h"
#include "core/promotions.h"
#include "http/metrics.h"
#include "http/policy.h"
#include "http/rate_limit.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "store/verifications.h"
#include "util/api_key.h"
#include "util/clock.h"
#include "util/ids.h"

#define QUOTE_ID_PREFIX "q_"
#define CUSTOMER_ID_PREFIX "cus_"

/* The most items and bundles, together, of a quote saved without a key. */
#define QUOTE_KEYLESS_SAVE_MAX_LINES 10

static void add_location(struct MHD_Response *response, const char *id)
{
    char location[64];
    snprintf(location, sizeof location, "/quote/%s", id);
    MHD_add_response_header(response, MHD_HTTP_HEADER_LOCATION, location);
}

/* The language a stored quote was written in: its "language", or English
 * for a quote stored before quotes had one. */
static const char *stored_language(const json_t *quote)
{
    const char *tag = json_string_value(json_object_get(quote, "language"));
    for (int lang = 0; tag != NULL && lang < GQ_LANG_COUNT; lang++)
        if (strcmp(tag, gq_lang_tag((enum gq_lang)lang)) == 0)
            return gq_lang_tag((enum gq_lang)lang);
    return gq_lang_tag(GQ_LANG_EN);
}

/* The stored quote as of now (codec_quote_json: its status and
 * status_transitions brought up to date), in the language it was written
 * in, whatever this request's. */
static enum MHD_Result reply_stored(struct http_request *request, const struct stored_quote *stored,
                                    unsigned status, bool replayed)
{
    json_t *quote = codec_quote_json(stored, clock_now_seconds());
    if (quote == NULL) /* never the stored status, which may be out of date: a 500 */
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "stored quote %s is unreadable",
                          stored->id);
    request->content_language = stored_language(quote);
    struct MHD_Response *response = reply_make_json(request, quote);
    if (response != NULL && replayed)
        MHD_add_response_header(response, "Idempotent-Replayed", "true");
    if (response != NULL && status == MHD_HTTP_CREATED)
        add_location(response, stored->id);
    return reply_queue(request, status, response);
}

/* A printable ASCII key of 1..255 characters, or NULL (no key). */
static bool read_idempotency_key(struct http_request *request, const char **key)
{
    const char *sent =
        MHD_lookup_connection_value(request->connection, MHD_HEADER_KIND, "Idempotency-Key");
    *key = NULL;
    if (!policy_idempotency_key(sent, request->idempotency_key))
        return false;
    if (request->idempotency_key[0] != '\0')
        *key = request->idempotency_key;
    return true;
}

/* A real with no fraction (24.0) as the integer it is; false for any
 * other value. */
static bool integral_real(const json_t *value, int64_t *whole)
{
    return json_is_real(value) && fields_integral_value(value, whole);
}

/* Writes every integral real in `value` as an integer (24.0 as 24), so
 * that the canonical text of a request does not depend on how a client
 * writes a whole number: openapi accepts both forms as the same value.
 * Other reals are already written one way whatever their spelling (8.50 and
 * 8.5 both as 8.5). Nesting is bounded by jansson's parser. False when
 * memory ran out (jansson refuses a NULL value). */
static bool integral_reals_as_integers(json_t *value)
{
    bool whole = true;
    if (json_is_object(value)) {
        for (void *it = json_object_iter(value); it != NULL && whole;
             it = json_object_iter_next(value, it)) {
            json_t *member = json_object_iter_value(it);
            int64_t number;
            whole = integral_real(member, &number)
                        ? json_object_iter_set_new(value, it, json_integer(number)) == 0
                        : integral_reals_as_integers(member);
        }
    } else if (json_is_array(value)) {
        for (size_t i = 0; i < json_array_size(value) && whole; i++) {
            json_t *element = json_array_get(value, i);
            int64_t number;
            whole = integral_real(element, &number)
                        ? json_array_set_new(value, i, json_integer(number)) == 0
                        : integral_reals_as_integers(element);
        }
    }
    return whole;
}

/* The canonical text of a request body, by which a retry is recognised:
 * compact, keys sorted, whole numbers as integers. Changes `body`. NULL
 * when memory ran out. */
static char *canonical_request(json_t *body)
{
    if (!integral_reals_as_integers(body))
        return NULL;
    return json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
}

enum request_match { REQUEST_SAME, REQUEST_DIFFERENT, REQUEST_UNCOMPARED };

/* Whether this request's body is the request stored as `stored`: the same
 * bytes, or else the same JSON canonically (openapi: key order, whitespace
 * and the spelling of a number aside). A quote stores the body as it was
 * sent; quotes stored before that hold its canonical text, which compares
 * the same way. Canonical texts are made only here, for a retry that was
 * not sent byte for byte again: making one for every saved quote cost a
 * quarter of its request thread's instructions. REQUEST_UNCOMPARED when
 * memory ran out or the stored text does not load (a damaged row). */
static enum request_match match_request(const char *stored, struct http_request *request)
{
    if (strcmp(stored, request->body) == 0)
        return REQUEST_SAME;
    struct gq_error err;
    json_t *then_json = body_load(stored, strlen(stored), &err);
    char *then = then_json != NULL ? canonical_request(then_json) : NULL;
    char *now = canonical_request(request->json); /* parsed already: ours to change */
    enum request_match match = then == NULL || now == NULL ? REQUEST_UNCOMPARED
                               : strcmp(then, now) == 0    ? REQUEST_SAME
                                                           : REQUEST_DIFFERENT;
    json_decref(then_json);
    free(then);
    free(now);
    return match;
}

static enum MHD_Result reply_replay(struct http_request *request, struct stored_quote *existing)
{
    enum MHD_Result result;
    switch (match_request(existing->request_json, request)) {
    case REQUEST_SAME:
        metrics_count_quote(request->app->metrics, METRICS_QUOTE_REPLAYED);
        result = reply_stored(request, existing, MHD_HTTP_CREATED, true);
        break;
    case REQUEST_DIFFERENT:
        result = reply_fail_msg(request, GQ_ERR_IDEMPOTENCY_CONFLICT, "Idempotency-Key",
                                MSG_IDEMPOTENCY_CONFLICT);
        break;
    default:
        result = reply_fail(request, GQ_ERR_INTERNAL, NULL,
                            "cannot compare the retried request with quote %s", existing->id);
    }
    stored_quote_clear(existing);
    return result;
}

/* A saved quote on its way to the store lives in request->waiting while
 * the connection is suspended (quote_batch.c writes it). */
static void pending_save_free(struct quote_save *save)
{
    save->quote.idempotency_key = NULL; /* borrowed from the request */
    stored_quote_clear(&save->quote);
    if (save->replayed)
        stored_quote_clear(&save->existing);
    free(save);
}

static void discard_pending_save(void *waiting)
{
    pending_save_free(waiting);
}

/* Counts a quote handed to the store, unless the daemon is about to stop
 * (http_server_stop waits for the count to reach zero, then stops it: a
 * resume after that would reach a daemon that is gone). Sequentially
 * consistent with that stop: either this sees `closing_saves`, or the stop
 * sees the count. */
static bool enter_store(struct app *app)
{
    atomic_fetch_add(&app->saves_in_flight, 1);
    if (atomic_load(&app->closing_saves)) {
        atomic_fetch_sub(&app->saves_in_flight, 1);
        return false;
    }
    return true;
}

/* The store's thread: the quote is written (or failed); let the request
 * answer. Nothing of the request is touched after the resume, which hands
 * it back to its libmicrohttpd thread. */
static void on_saved(struct quote_save *save)
{
    struct http_request *request = save->context;
    struct app *app = request->app;
    MHD_resume_connection(request->connection);
    atomic_fetch_sub(&app->saves_in_flight, 1);
}

static enum MHD_Result reply_saved(struct http_request *request);

/* True when the quote a key replays is older than the key's life
 * (idempotency_ttl_seconds, as Stripe's 24 h): the key then makes a new
 * quote. */
static bool key_outlived(const struct http_request *request, const struct stored_quote *existing)
{
    return existing->created_at + request->app->config->idempotency_ttl_seconds <=
           clock_now_seconds();
}

/* The old quote lets go of the key (a rare path: a short write on this
 * thread), and this request's quote goes to the store again under it. A
 * replica that took the key meanwhile wins: this one then replays that. */
static enum MHD_Result resave_under_outlived_key(struct http_request *request,
                                                 struct quote_save *save)
{
    bool released = false;
    struct gq_error err;
    if (store_quote_release_key(request->app->store, save->existing.id, save->quote.idempotency_key,
                                &released, &err) != GQ_OK) {
        pending_save_free(save);
        return reply_error(request, &err);
    }
    stored_quote_clear(&save->existing);
    save->replayed = false;
    save->code = GQ_OK;
    if (!enter_store(request->app)) {
        pending_save_free(save);
        return reply_fail_msg(request, GQ_ERR_RETRY_LATER, NULL, MSG_STOPPING);
    }
    request->waiting = save;
    request->resume = reply_saved;
    MHD_suspend_connection(request->connection);
    store_quote_submit(request->app->store, save);
    return MHD_YES;
}

/* The call after the resume: answer with what the store did. */
static enum MHD_Result reply_saved(struct http_request *request)
{
    struct quote_save *save = request->waiting;
    request->waiting = NULL;
    enum MHD_Result result;
    if (save->code == GQ_OK && save->replayed && key_outlived(request, &save->existing))
        return resave_under_outlived_key(request, save);
    if (save->code != GQ_OK) {
        result = reply_error(request, &save->err);
    } else if (save->replayed) {
        result = reply_replay(request, &save->existing);
        save->replayed = false; /* reply_replay cleared it */
    } else {
        struct MHD_Response *response = reply_make_text(request, save->quote.response_json);
        save->quote.response_json = NULL; /* now owned by the response */
        reply_in_language(request);
        if (response != NULL)
            add_location(response, save->quote.id);
        metrics_count_quote(request->app->metrics, METRICS_QUOTE_SAVED);
        result = reply_queue(request, MHD_HTTP_CREATED, response);
    }
    pending_save_free(save);
    return result;
}

/* Hands the rendered quote (taking `text`) to the store and suspends the
 * connection until it is written; reply_saved() answers. */
static enum MHD_Result store_new_quote(struct http_request *request, char *text,
                                       const struct quote_meta *meta, const char *key,
                                       const char *customer_id)
{
    struct quote_save *save = calloc(1, sizeof *save);
    if (save == NULL) {
        free(text);
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    }
    struct stored_quote *quote = &save->quote;
    quote->request_json = strndup(request->body, request->body_length); /* as sent */
    quote->response_json = text;
    quote->idempotency_key = (char *)key;
    quote_owner_of(request, save->owner, sizeof save->owner);
    snprintf(save->customer_id, sizeof save->customer_id, "%s", customer_id ? customer_id : "");
    snprintf(save->created_by, sizeof save->created_by, "%s", meta->created_by);
    quote->price_list_version = request->snapshot->catalog->price_list_version;
    quote->created_at = meta->created_at;
    quote->expires_at = meta->expires_at;
    snprintf(quote->id, sizeof quote->id, "%s", meta->id);
    if (quote->request_json == NULL) {
        pending_save_free(save);
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    }
    if (!enter_store(request->app)) {
        pending_save_free(save);
        return reply_fail_msg(request, GQ_ERR_RETRY_LATER, NULL, MSG_STOPPING);
    }
    save->on_done = on_saved;
    save->context = request;
    request->waiting = save;
    request->discard_waiting = discard_pending_save;
    request->resume = reply_saved;
    /* Suspended before it is queued, so the resume cannot come first. */
    MHD_suspend_connection(request->connection);
    store_quote_submit(request->app->store, save);
    return MHD_YES;
}

void quote_owner_of(const struct http_request *request, char *owner, size_t size)
{
    if (request->has_key)
        snprintf(owner, size, "key:%s", request->key_id);
    else
        snprintf(owner, size, "anon:%s", request->client);
}

bool quote_hidden_from(const struct http_request *request, const char *customer_id)
{
    return request->key_customer[0] != '\0' && strcmp(request->key_customer, customer_id) != 0;
}

/* A key bound to a customer prices and saves for that customer alone: a
 * body naming none is its customer's, one naming another is refused. */
static enum gq_code apply_bound_customer(const struct http_request *request,
                                         struct parsed_quote *parsed, struct gq_error *err)
{
    if (request->key_customer[0] == '\0')
        return GQ_OK;
    if (parsed->customer_id == NULL) {
        parsed->customer_id = request->key_customer;
        return GQ_OK;
    }
    if (strcmp(parsed->customer_id, request->key_customer) == 0)
        return GQ_OK;
    return gq_fail_msg(err, GQ_ERR_FORBIDDEN, "customer.id", MSG_KEY_OTHER_CUSTOMER,
                       MSG_TEXT(request->key_customer), MSG_TEXT("customer.id"));
}

/* A keyless save writes to the database for anyone: it is kept small,
 * and what only an order system uses (its own reference, its metadata)
 * needs a key. */
static enum gq_code check_keyless_save(const struct http_request *request,
                                       const struct parsed_quote *parsed, struct gq_error *err)
{
    if (!parsed->save || request->has_key)
        return GQ_OK;
    size_t items = parsed->request.n_items;
    if (items + parsed->request.n_bundles > QUOTE_KEYLESS_SAVE_MAX_LINES)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE,
                           items > QUOTE_KEYLESS_SAVE_MAX_LINES ? "items" : "bundles",
                           MSG_KEYLESS_SAVE_ITEMS, MSG_INT(QUOTE_KEYLESS_SAVE_MAX_LINES));
    if (parsed->client_reference_id != NULL)
        return gq_fail_msg(err, GQ_ERR_FORBIDDEN, "client_reference_id", MSG_KEYLESS_SAVE_FIELD,
                           MSG_TEXT("client_reference_id"));
    if (parsed->metadata != NULL && json_object_size(parsed->metadata) > 0)
        return gq_fail_msg(err, GQ_ERR_FORBIDDEN, "metadata", MSG_KEYLESS_SAVE_FIELD,
                           MSG_TEXT("metadata"));
    return GQ_OK;
}

/* A body naming a customer needs a key with quotes:write: its
 * verifications are read for the price. A segment without a customer is
 * the handler's to judge (an estimate, or refused when saved). */
enum gq_code quote_authorize_customer(const struct http_request *request, struct gq_error *err)
{
    if (json_object_get(json_object_get(request->json, "customer"), "id") == NULL)
        return GQ_OK;
    return auth_require(request, SCOPE_QUOTES_WRITE, err);
}

/* The segments `customer_id` holds at `now` into *held (SEGMENT_BIT()s:
 * individual, and each verified segment in force). GQ_ERR_NOT_FOUND for a
 * customer unknown or erased. */
static enum gq_code held_segments(const struct http_request *request, const char *customer_id,
                                  int64_t now, unsigned *held, struct gq_error *err)
{
    enum gq_code code = ids_is_well_formed(CUSTOMER_ID_PREFIX, customer_id)
                            ? store_customer_check_live(request->app->store, customer_id, err)
                            : GQ_ERR_NOT_FOUND;
    if (code == GQ_ERR_NOT_FOUND)
        return gq_fail_msg(err, GQ_ERR_NOT_FOUND, "customer.id", MSG_NO_CUSTOMER,
                           MSG_TEXT_CUT(customer_id, 64));
    if (code != GQ_OK)
        return code;
    struct verification_list list = {0};
    code = store_verifications_read(request->app->store, customer_id, NULL, now, &list, err);
    *held = SEGMENT_BIT(SEGMENT_INDIVIDUAL);
    for (size_t i = 0; code == GQ_OK && i < list.count; i++) {
        enum customer_segment segment;
        if (segment_parse(list.items[i].segment, &segment))
            *held |= SEGMENT_BIT(segment);
    }
    store_verification_list_free(&list);
    return code;
}

/* How the quote's segment is settled. */
struct segment_choice {
    unsigned cheapest_of; /* price under each of these, keep the cheapest; 0: as parsed */
    char estimate_reason[256];
};

/* A quote for a customer: the segment asked for, if the customer holds it,
 * or else the cheapest of those held. */
static enum gq_code choose_for_customer(const struct http_request *request,
                                        struct parsed_quote *parsed, struct quote_meta *meta,
                                        struct segment_choice *choice, struct gq_error *err)
{
    unsigned held = 0;
    enum gq_code code =
        held_segments(request, parsed->customer_id, parsed->request.now, &held, err);
    if (code != GQ_OK)
        return code;
    if (!parsed->segment_named) {
        meta->segment_chosen = "cheapest";
        choice->cheapest_of = held;
        return GQ_OK;
    }
    meta->segment_chosen = "requested";
    if ((held & SEGMENT_BIT(parsed->request.segment)) != 0)
        return GQ_OK;
    return gq_fail_msg(err, GQ_ERR_SEGMENT_NOT_VERIFIED, "customer.segment",
                       MSG_SEGMENT_NOT_VERIFIED, MSG_TEXT(segment_id(parsed->request.segment)),
                       MSG_TEXT_CUT(parsed->customer_id, 64));
}

/* The segment the quote is priced for. Without a customer no store is
 * read: individual as it is; another segment is a key's that verifies
 * customers itself, an estimate when not saved, and refused otherwise. */
static enum gq_code choose_segment(const struct http_request *request, struct parsed_quote *parsed,
                                   struct quote_meta *meta, struct segment_choice *choice,
                                   struct gq_error *err)
{
    enum customer_segment segment = parsed->request.segment;
    choice->cheapest_of = 0;
    if (parsed->customer_id != NULL)
        return choose_for_customer(request, parsed, meta, choice, err);
    if (segment == SEGMENT_INDIVIDUAL) {
        meta->segment_chosen = parsed->segment_named ? "requested" : "default";
        return GQ_OK;
    }
    if (request->has_key && (request->key_scopes & SCOPE_CUSTOMERS_VERIFY) != 0) {
        meta->segment_chosen = "asserted";
        return GQ_OK;
    }
    if (parsed->save)
        return gq_fail_msg(err, GQ_ERR_SEGMENT_NOT_VERIFIED, "customer.segment",
                           MSG_SEGMENT_NEEDS_CUSTOMER, MSG_TEXT(segment_id(segment)),
                           MSG_TEXT(api_scope_name(SCOPE_CUSTOMERS_VERIFY)));
    meta->segment_chosen = "estimate";
    const struct msg_arg args[] = {MSG_TEXT(segment_id(segment))};
    messages_format(request->lang, MSG_ESTIMATE_REASON, args, 1, choice->estimate_reason,
                    sizeof choice->estimate_reason);
    meta->estimate_reason = choice->estimate_reason;
    return GQ_OK;
}

/* Prices the quote for the segment chosen, or for the cheapest of several
 * (then *result may be swapped with *scratch). */
static enum gq_code price_quote(const struct catalog *catalog, struct parsed_quote *parsed,
                                const struct segment_choice *choice, struct quote_result **result,
                                struct quote_result **scratch, struct gq_error *err)
{
    if (choice->cheapest_of == 0)
        return quote_compute(catalog, &parsed->request, *result, err);
    size_t items = parsed->request.n_items;
    if (*scratch == NULL && (*scratch = quote_result_new(items)) == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory pricing a quote");
    return quote_compute_cheapest_segment(catalog, &parsed->request, choice->cheapest_of, result,
                                          scratch, err);
}

enum MHD_Result quote_handle_create(struct http_request *request)
{
    const char *key;
    /* Two keys would be read as the first: a retry that sent only the
     * second would then store a second quote. */
    if (request->idempotency_keys > 1)
        return reply_fail_msg(request, GQ_ERR_INVALID_PARAMETER, "Idempotency-Key",
                              MSG_IDEMPOTENCY_KEY_TWICE);
    if (!read_idempotency_key(request, &key))
        return reply_fail_msg(request, GQ_ERR_INVALID_PARAMETER, "Idempotency-Key",
                              MSG_IDEMPOTENCY_KEY_FORM, MSG_INT(IDEMPOTENCY_KEY_MAX));
    struct parsed_quote *parsed = malloc(sizeof *parsed); /* parsing fills what is used */
    struct quote_result *result =
        quote_result_new(json_array_size(json_object_get(request->json, "items")));
    struct quote_result *scratch = NULL; /* the second result a cheapest segment needs */
    struct segment_choice choice;
    struct gq_error err;
    struct promotion_use promotion = {0};
    struct customer_rules own = {0};
    enum MHD_Result reply;
    if (parsed == NULL || result == NULL) {
        reply = reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
        goto done;
    }
    const struct catalog *catalog = request->snapshot->catalog;
    int64_t now = clock_now_seconds();
    struct quote_meta meta = {.created_at = now,
                              .expires_at = now + request->app->config->quote_expiry_seconds,
                              .lang = request->lang};
    enum gq_code code = quote_body_parse(request->json, catalog, parsed, &err);
    parsed->request.now = now;
    /* A quote saved without a key writes to the database: its own, smaller
     * rate limit (rate_limit_keyless_saves_per_minute). */
    if (code == GQ_OK)
        code = check_keyless_save(request, parsed, &err);
    if (code == GQ_OK)
        code = apply_bound_customer(request, parsed, &err);
    if (code == GQ_OK && parsed->save)
        code = rate_limits_take(request, true, &err);
    if (code == GQ_OK)
        code = choose_segment(request, parsed, &meta, &choice, &err);
    if (code == GQ_OK && parsed->promotion_code != NULL)
        code = promotion_codes_for_quote(request, parsed->promotion_code, now, &promotion, &err);
    if (code == GQ_OK && parsed->promotion_code != NULL)
        parsed->request.promotion = &promotion.rule;
    if (code == GQ_OK && parsed->customer_id != NULL)
        code = customer_rules_for_quote(request->app->store, parsed->customer_id, &own, &err);
    parsed->request.customer_rules = own.rules;
    parsed->request.n_customer_rules = own.count;
    if (code == GQ_OK)
        code = price_quote(catalog, parsed, &choice, &result, &scratch, &err);
    if (code == GQ_OK && parsed->promotion_code != NULL)
        code = promotion_check_applied(promotion.code, &promotion.rule, result, &err);
    if (code != GQ_OK) {
        reply = reply_error(request, &err);
        goto done;
    }
    char id[IDS_SIZE];
    if (parsed->save && !ids_generate(QUOTE_ID_PREFIX, id)) {
        reply = reply_fail(request, GQ_ERR_INTERNAL, NULL, "cannot generate a quote id");
        goto done;
    }
    meta.id = parsed->save ? id : NULL;
    if (parsed->save)
        meta.created_by = request->has_key ? request->key_id : "anonymous";
    char *text = quote_body_render(catalog, parsed, result, &meta, NULL);
    if (text == NULL)
        reply = reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    else if (parsed->save)
        reply = store_new_quote(request, text, &meta, key, parsed->customer_id);
    else {
        reply_in_language(request);
        reply = reply_queue(request, MHD_HTTP_OK, reply_make_text(request, text));
    }
done:
    free(parsed);
    quote_result_free(result);
    quote_result_free(scratch);
    promotion_use_clear(&promotion);
    customer_rules_clear(&own);
    return reply;
}

static enum MHD_Result reply_unknown_quote(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_QUOTE,
                          MSG_TEXT_CUT(request->path_id, 64));
}

enum MHD_Result quote_handle_get(struct http_request *request)
{
    if (!ids_is_well_formed(QUOTE_ID_PREFIX, request->path_id))
        return reply_unknown_quote(request);
    struct stored_quote quote = {0};
    struct gq_error err;
    enum MHD_Result result;
    if (store_quote_get(request->app->store, request->path_id, &quote, &err) != GQ_OK)
        result = err.code == GQ_ERR_NOT_FOUND ? reply_unknown_quote(request)
                                              : reply_error(request, &err);
    else if (quote_hidden_from(request, quote.customer_id))
        result = reply_unknown_quote(request);
    else
        result = reply_stored(request, &quote, MHD_HTTP_OK, false);
    stored_quote_clear(&quote);
    return result;
}

/* The accept's body, {"reference", "metadata"} (both optional, or no body
 * at all), as the JSON text kept with the quote; NULL when there is none. */
static enum gq_code read_acceptance(json_t *body, char **acceptance, struct gq_error *err)
{
    static const char *const allowed[] = {"reference", "metadata", NULL};
    const char *reference = NULL;
    json_t *metadata = NULL;
    *acceptance = NULL;
    if (body == NULL)
        return GQ_OK;
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = fields_text(body, "reference", "", QUOTE_REFERENCE_MAX, &reference, err);
    if (code == GQ_OK)
        code = fields_metadata(body, "metadata", "", &metadata, err);
    if (code != GQ_OK)
        return code;
    json_t *kept =
        json_pack("{s:o, s:o}", "reference", reference ? json_string(reference) : json_null(),
                  "metadata", metadata ? json_incref(metadata) : json_object());
    *acceptance = kept != NULL ? json_dumps(kept, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(kept);
    return *acceptance != NULL ? GQ_OK : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
}

/* The cancel's body, {"reason"} (optional, or no body). */
static enum gq_code read_cancel_reason(json_t *body, const char **reason, struct gq_error *err)
{
    static const char *const allowed[] = {"reason", NULL};
    *reason = NULL;
    if (body == NULL)
        return GQ_OK;
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = fields_text(body, "reason", "", QUOTE_CANCEL_REASON_MAX, reason, err);
    return code;
}

enum MHD_Result quote_handle_accept(struct http_request *request)
{
    if (!ids_is_well_formed(QUOTE_ID_PREFIX, request->path_id))
        return reply_unknown_quote(request);
    char *acceptance = NULL;
    struct gq_error err;
    if (read_acceptance(request->json, &acceptance, &err) != GQ_OK)
        return reply_error(request, &err);
    struct stored_quote quote = {0};
    enum MHD_Result result;
    char promotion[STORE_PROMOTION_CODE_SIZE];
    enum gq_code code = store_quote_get(request->app->store, request->path_id, &quote, &err);
    if (code == GQ_OK && quote_hidden_from(request, quote.customer_id))
        code = GQ_ERR_NOT_FOUND;
    bool promoted = code == GQ_OK && promotion_codes_of_request(quote.request_json, promotion);
    stored_quote_clear(&quote);
    if (code == GQ_OK && promoted)
        code =
            store_quote_accept_with_code(request->app->store, request->path_id, clock_now_seconds(),
                                         acceptance, promotion, &quote, &err);
    else if (code == GQ_OK)
        code = store_quote_accept(request->app->store, request->path_id, clock_now_seconds(),
                                  acceptance, &quote, &err);
    free(acceptance);
    if (code == GQ_ERR_NOT_FOUND)
        result = reply_unknown_quote(request);
    else if (code != GQ_OK)
        result = reply_error(request, &err);
    else {
        metrics_count_quote(request->app->metrics, METRICS_QUOTE_ACCEPTED);
        result = reply_stored(request, &quote, MHD_HTTP_OK, false);
    }
    stored_quote_clear(&quote);
    return result;
}

/* GQ_OK when the quote `id` is the bound key's customer's; GQ_ERR_NOT_FOUND
 * when it is another's or none (the store's error otherwise). A quote's
 * customer never changes, so the read may come before the write. */
static enum gq_code check_bound_owns(const struct http_request *request, const char *id,
                                     struct gq_error *err)
{
    struct stored_quote quote = {0};
    enum gq_code code = store_quote_get(request->app->store, id, &quote, err);
    if (code == GQ_OK && quote_hidden_from(request, quote.customer_id))
        code = GQ_ERR_NOT_FOUND;
    stored_quote_clear(&quote);
    return code;
}

enum MHD_Result quote_handle_cancel(struct http_request *request)
{
    if (!ids_is_well_formed(QUOTE_ID_PREFIX, request->path_id))
        return reply_unknown_quote(request);
    const char *reason = NULL;
    struct gq_error err;
    if (read_cancel_reason(request->json, &reason, &err) != GQ_OK)
        return reply_error(request, &err);
    struct stored_quote quote = {0};
    enum MHD_Result result;
    enum gq_code code = request->key_customer[0] != '\0'
                            ? check_bound_owns(request, request->path_id, &err)
                            : GQ_OK;
    if (code == GQ_OK)
        code = store_quote_cancel(request->app->store, request->path_id, clock_now_seconds(),
                                  reason, &quote, &err);
    if (code == GQ_ERR_NOT_FOUND)
        result = reply_unknown_quote(request);
    else if (code != GQ_OK)
        result = reply_error(request, &err);
    else
        result = reply_stored(request, &quote, MHD_HTTP_OK, false);
    stored_quote_clear(&quote);
    return result;
}
