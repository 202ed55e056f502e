/*
 * A stored quote as the API returns it at a moment (GET /quote/{id}, GET
 * /quote, and the object of quote.accepted, quote.canceled and
 * quote.expired): the response text kept when it was made, with the status
 * and times of its life since.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "codec/store_json.h"
#include "util/clock.h"

/* Sets `key` to the time, or to null when there is none (0). */
static bool set_time(json_t *object, const char *key, int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    json_t *value =
        unix_seconds > 0 ? json_string(clock_format_rfc3339(unix_seconds, text)) : json_null();
    return json_object_set_new(object, key, value) == 0;
}

/* The accept's {"reference", "metadata"} as stored, or null. */
static json_t *acceptance_of(const struct stored_quote *quote)
{
    json_t *acceptance = quote->acceptance ? json_loads(quote->acceptance, 0, NULL) : NULL;
    return acceptance != NULL ? acceptance : json_null();
}

/* A quote stored before quotes recorded whom they are for and who saved
 * them reads with customer.id and created_by null, as one saved for no
 * customer: every quote has the same members. */
static bool fill_unrecorded(json_t *object)
{
    json_t *customer = json_object_get(object, "customer");
    bool whole = true;
    if (json_is_object(customer) && json_object_get(customer, "id") == NULL)
        whole = json_object_set_new(customer, "id", json_null()) == 0;
    if (whole && json_object_get(object, "created_by") == NULL)
        whole = json_object_set_new(object, "created_by", json_null()) == 0;
    return whole;
}

json_t *codec_quote_json(const struct stored_quote *quote, int64_t now)
{
    json_t *object = json_loads(quote->response_json, 0, NULL);
    json_t *transitions = json_object();
    if (!json_is_object(object) || transitions == NULL) {
        json_decref(object);
        json_decref(transitions);
        return NULL;
    }
    /* Expired at expires_at, whether the sweeper has marked it yet or not. */
    const char *status = stored_quote_status(quote, now);
    int64_t expired_at = strcmp(status, "expired") == 0
                             ? (quote->expired_at > 0 ? quote->expired_at : quote->expires_at)
                             : 0;
    /* status_transitions is attached first, so that the quote owns it from
     * here on whatever fails next. */
    bool whole = json_object_set_new(object, "status_transitions", transitions) == 0 &&
                 set_time(transitions, "accepted_at", quote->accepted_at) &&
                 set_time(transitions, "canceled_at", quote->canceled_at) &&
                 set_time(transitions, "expired_at", expired_at) &&
                 json_object_set_new(object, "status", json_string(status)) == 0 &&
                 fill_unrecorded(object);
    if (whole && quote->accepted)
        whole = set_time(object, "accepted_at", quote->accepted_at) &&
                json_object_set_new(object, "acceptance", acceptance_of(quote)) == 0;
    if (whole && quote->canceled_at > 0)
        whole = json_object_set_new(object, "cancellation_reason",
                                    quote->cancel_reason ? json_string(quote->cancel_reason)
                                                         : json_null()) == 0;
    if (!whole) {
        json_decref(object);
        return NULL;
    }
    return object;
}
