/*
 * The admin API's webhook endpoints, for keys with the scope
 * webhooks:write: POST /admin/webhook-endpoints (a new endpoint, its
 * signing secret shown this once), GET (all, or one), PATCH (events,
 * enabled), DELETE; GET .../{id}/deliveries (each delivery with its tries)
 * and POST .../{id}/deliveries/{delivery}/retry. Every change writes its
 * audit line in the same transaction. A secret is never shown again, never
 * logged, and never part of an audit line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "admin/admin.h"
#include "api/api.h"
#include "codec/bodies.h"
#include "codec/list_query.h"
#include "codec/store_json.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/ids.h"
#include "util/secret_box.h"
#include "util/webhook.h"

#define ENDPOINT_PREFIX "we_"
#define DELIVERY_PREFIX "whd_"
#define DESCRIPTION_MAX 500
#define EVENTS_MAX 16

/* ---- As JSON. ---- */

static json_t *time_json(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return json_string(clock_format_rfc3339(unix_seconds, text));
}

static json_t *render_endpoint(const struct stored_endpoint *endpoint)
{
    return codec_endpoint_json(endpoint);
}

/* The audit's change of an endpoint, without its secret (the caller frees
 * it; NULL when memory runs out). */
static char *endpoint_change(const struct stored_endpoint *before,
                             const struct stored_endpoint *after)
{
    json_t *change = json_pack("{s:o, s:o}", "old", before ? render_endpoint(before) : json_null(),
                               "new", after ? render_endpoint(after) : json_null());
    char *text = change != NULL ? json_dumps(change, JSON_COMPACT) : NULL;
    json_decref(change);
    return text;
}

/* ---- Reading bodies. ---- */

/* "events": a non-empty list of known types, or ["*"], as the stored text
 * (" a b " or " * ") into `out`. */
static enum gq_code parse_events(json_t *body, bool required, char *out, size_t size, bool *present,
                                 struct gq_error *err)
{
    json_t *list;
    enum gq_code code = fields_array(body, "events", "", required, EVENTS_MAX, &list, err);
    *present = code == GQ_OK && list != NULL;
    if (code != GQ_OK || list == NULL)
        return code;
    if (json_array_size(list) == 0)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "events", MSG_EVENTS_NONE,
                           MSG_TEXT("events"));
    snprintf(out, size, " ");
    bool every = false;
    size_t index;
    json_t *item;
    json_array_foreach(list, index, item)
    {
        char path[32];
        fields_index_path(path, sizeof path, "events", index);
        if (!json_is_string(item))
            return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, path, MSG_FIELD_WRONG_TYPE, MSG_TEXT(path),
                               MSG_SAY(MSG_TYPE_STRING), MSG_SAY(MSG_TYPE_NUMBER));
        const char *type = json_string_value(item);
        if (strcmp(type, "*") == 0) {
            every = true;
            continue;
        }
        if (!fields_is_text(item) || !events_type_is_known(type)) {
            char names[200];
            events_type_list(names, sizeof names);
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, path, MSG_WEBHOOK_EVENT_TYPE,
                               MSG_TEXT(path), MSG_TEXT(names));
        }
        char spaced[64];
        snprintf(spaced, sizeof spaced, " %s ", type);
        if (strstr(out, spaced) == NULL) /* each once */
            snprintf(out + strlen(out), size - strlen(out), "%s ", type);
    }
    if (every)
        snprintf(out, size, " * ");
    return GQ_OK;
}

static enum gq_code check_url(const struct gq_config *config, const char *url, struct gq_error *err)
{
    switch (webhook_url_check(url, config->webhooks_allow_http, config->webhooks_allow_private)) {
    case WEBHOOK_URL_OK:
        return GQ_OK;
    case WEBHOOK_URL_PRIVATE:
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "url", MSG_WEBHOOK_URL_PRIVATE,
                           MSG_TEXT("url"));
    case WEBHOOK_URL_MALFORMED:
    default:
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "url", MSG_WEBHOOK_URL_FORM, MSG_TEXT("url"));
    }
}

static enum gq_code parse_new_endpoint(const struct gq_config *config, json_t *body,
                                       const char **url, const char **description, char *events,
                                       size_t events_size, struct gq_error *err)
{
    static const char *const allowed[] = {"url", "events", "description", NULL};
    bool present;
    *description = NULL;
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = fields_string(body, "url", "", true, url, err);
    if (code == GQ_OK)
        code = check_url(config, *url, err);
    if (code == GQ_OK)
        code = parse_events(body, true, events, events_size, &present, err);
    if (code == GQ_OK)
        code = fields_string(body, "description", "", false, description, err);
    if (code == GQ_OK && *description != NULL && strlen(*description) > DESCRIPTION_MAX)
        code = gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "description", MSG_FIELD_TEXT_LENGTH,
                           MSG_TEXT("description"), MSG_INT(0), MSG_INT(DESCRIPTION_MAX));
    return code;
}

/* ---- Handlers. ---- */

/* The endpoint's secret as stored: sealed with the keyring's first key
 * into `sealed` (and pointed at) when there is a keyring; else as it is. */
static bool seal_secret(const struct secret_keyring *ring, struct stored_endpoint *endpoint,
                        char *sealed, size_t size)
{
    if (ring == NULL || ring->count == 0)
        return true;
    if (!secret_box_seal(ring, endpoint->id, endpoint->secret, sealed, size))
        return false;
    endpoint->secret = sealed;
    return true;
}

enum MHD_Result webhook_endpoints_handle_create(struct http_request *request)
{
    const char *url, *description;
    char events[512];
    struct gq_error err;
    if (parse_new_endpoint(request->app->config, request->json, &url, &description, events,
                           sizeof events, &err) != GQ_OK)
        return reply_error(request, &err);
    char secret[WEBHOOK_SECRET_SIZE];
    struct stored_endpoint endpoint = {
        .url = (char *)url,
        .description = (char *)(description ? description : ""),
        .events = events,
        .secret = secret,
        .enabled = true,
        .created_at = clock_now_seconds(),
    };
    endpoint.updated_at = endpoint.created_at;
    char sealed[SECRET_BOX_SEALED_SIZE];
    if (!webhook_secret_generate(secret) || !ids_generate(ENDPOINT_PREFIX, endpoint.id) ||
        !seal_secret(request->app->config->secrets_keyring, &endpoint, sealed, sizeof sealed)) {
        memset(secret, 0, sizeof secret);
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "cannot make a webhook endpoint");
    }
    char *change = endpoint_change(NULL, &endpoint);
    struct audit_entry audit =
        auth_audit_entry(request, "webhook_endpoint.create", endpoint.id, change ? change : "{}");
    enum gq_code code = change != NULL
                            ? store_endpoint_create(request->app->store, &endpoint, &audit, &err)
                            : gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    free(change);
    json_t *body = code == GQ_OK ? render_with_secret(render_endpoint(&endpoint), secret) : NULL;
    memset(secret, 0, sizeof secret);
    if (code != GQ_OK)
        return reply_error(request, &err);
    return reply_created(request, body, true, "/admin/webhook-endpoints/%s", endpoint.id);
}

static json_t *render_endpoint_item(const void *endpoint)
{
    return render_endpoint(endpoint);
}

enum MHD_Result webhook_endpoints_handle_list(struct http_request *request)
{
    struct endpoint_list list;
    struct gq_error err;
    if (store_endpoints_read(request->app->store, NULL, &list, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = render_each(list.items, list.count, sizeof *list.items, render_endpoint_item);
    store_endpoint_list_free(&list);
    return reply_page(request, data, false);
}

static enum MHD_Result reply_no_endpoint(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_ENDPOINT,
                          MSG_TEXT_CUT(request->path_id, 40));
}

/* The endpoint of the path into *out; false when the reply is queued. */
static bool read_endpoint(struct http_request *request, struct stored_endpoint *out,
                          enum MHD_Result *reply)
{
    struct gq_error err;
    if (!ids_is_well_formed(ENDPOINT_PREFIX, request->path_id)) {
        *reply = reply_no_endpoint(request);
        return false;
    }
    enum gq_code code = store_endpoint_get(request->app->store, request->path_id, out, &err);
    if (code == GQ_OK)
        return true;
    *reply = code == GQ_ERR_NOT_FOUND ? reply_no_endpoint(request) : reply_error(request, &err);
    return false;
}

enum MHD_Result webhook_endpoints_handle_get(struct http_request *request)
{
    struct stored_endpoint endpoint;
    enum MHD_Result reply;
    if (!read_endpoint(request, &endpoint, &reply))
        return reply;
    reply = reply_json(request, MHD_HTTP_OK, render_endpoint(&endpoint));
    store_endpoint_clear(&endpoint);
    return reply;
}

enum MHD_Result webhook_endpoints_handle_update(struct http_request *request)
{
    static const char *const allowed[] = {"events", "enabled", NULL};
    struct gq_error err;
    char events[512];
    bool has_events = false, enabled = true, has_enabled;
    enum gq_code code = fields_only(request->json, allowed, "", &err);
    if (code == GQ_OK)
        code = parse_events(request->json, false, events, sizeof events, &has_events, &err);
    if (code == GQ_OK)
        code = fields_boolean(request->json, "enabled", "", false, &enabled, &err);
    has_enabled = json_object_get(request->json, "enabled") != NULL;
    if (code != GQ_OK)
        return reply_error(request, &err);
    struct stored_endpoint before;
    enum MHD_Result reply;
    if (!read_endpoint(request, &before, &reply))
        return reply;
    struct stored_endpoint after = before;
    after.events = has_events ? events : before.events;
    after.enabled = has_enabled ? enabled : before.enabled;
    after.updated_at = clock_now_seconds();
    char *change = endpoint_change(&before, &after);
    struct audit_entry audit =
        auth_audit_entry(request, "webhook_endpoint.update", before.id, change ? change : "{}");
    code = change != NULL ? store_endpoint_update(request->app->store, &after, &audit, &err)
                          : gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    free(change);
    reply = code == GQ_OK ? reply_json(request, MHD_HTTP_OK, render_endpoint(&after))
                          : reply_error(request, &err);
    store_endpoint_clear(&before);
    return reply;
}

enum MHD_Result webhook_endpoints_handle_delete(struct http_request *request)
{
    struct stored_endpoint before;
    enum MHD_Result reply;
    if (!read_endpoint(request, &before, &reply))
        return reply;
    char *change = endpoint_change(&before, NULL);
    struct audit_entry audit =
        auth_audit_entry(request, "webhook_endpoint.delete", before.id, change ? change : "{}");
    struct gq_error err;
    enum gq_code code = change != NULL
                            ? store_endpoint_delete(request->app->store, before.id, &audit, &err)
                            : gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    free(change);
    json_t *body = NULL;
    if (code == GQ_OK)
        body = json_pack("{s:s, s:s, s:b}", "id", before.id, "object", "webhook_endpoint",
                         "deleted", 1);
    store_endpoint_clear(&before);
    return code == GQ_OK ? reply_json(request, MHD_HTTP_OK, body) : reply_error(request, &err);
}

/* ---- Deliveries. ---- */

static json_t *ms_time_json(int64_t unix_ms)
{
    return time_json(unix_ms / 1000);
}

static json_t *render_delivery(const void *item)
{
    const struct stored_delivery *delivery = item;
    json_t *tries = json_array();
    for (size_t i = 0; tries != NULL && i < delivery->n_tries; i++) {
        const struct stored_attempt *attempt = &delivery->tries[i];
        json_array_append_new(
            tries,
            json_pack("{s:i, s:o, s:o, s:o, s:I}", "attempt", attempt->attempt, "at",
                      ms_time_json(attempt->at_ms), "status_code",
                      attempt->status_code > 0 ? json_integer(attempt->status_code) : json_null(),
                      "error", attempt->error ? json_string(attempt->error) : json_null(),
                      "duration_ms", (json_int_t)attempt->duration_ms));
    }
    bool pending = strcmp(delivery->status, "pending") == 0;
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:o, s:o, s:o}", "id", delivery->id, "object",
                     "webhook_delivery", "endpoint", delivery->endpoint_id, "event",
                     delivery->event_id, "status", delivery->status, "attempt_count",
                     delivery->attempts, "next_attempt_at",
                     pending ? ms_time_json(delivery->next_attempt_at) : json_null(), "created_at",
                     ms_time_json(delivery->created_at), "attempts", tries);
}

enum { PARAM_STARTING_AFTER, PARAM_LIMIT };

static const struct list_param delivery_params[] = {
    [PARAM_STARTING_AFTER] = {"starting_after", LIST_CURSOR, DELIVERY_PREFIX},
    [PARAM_LIMIT] = {"limit", LIST_LIMIT, NULL},
};

enum MHD_Result webhook_endpoints_handle_deliveries(struct http_request *request)
{
    struct list_query query;
    struct gq_error err = {0};
    if (request_list_query(request, delivery_params, 2, &query, &err) != GQ_OK)
        return reply_error(request, &err);
    struct stored_endpoint endpoint;
    enum MHD_Result reply;
    if (!read_endpoint(request, &endpoint, &reply))
        return reply;
    store_endpoint_clear(&endpoint);
    const char *after = list_query_text(&query, PARAM_STARTING_AFTER);
    struct delivery_page page;
    if (store_deliveries_read(request->app->store, request->path_id, after, query.limit, &page,
                              &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = render_each(page.items, page.count, sizeof *page.items, render_delivery);
    bool has_more = page.has_more;
    store_delivery_page_free(&page);
    return reply_page(request, data, has_more);
}

enum MHD_Result webhook_endpoints_handle_retry(struct http_request *request)
{
    const char *delivery_id = request->path_params[1];
    struct stored_endpoint endpoint;
    enum MHD_Result reply;
    if (!read_endpoint(request, &endpoint, &reply))
        return reply;
    store_endpoint_clear(&endpoint);
    if (!ids_is_well_formed(DELIVERY_PREFIX, delivery_id))
        return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_DELIVERY,
                              MSG_TEXT_CUT(delivery_id, 40));
    struct timeval now;
    gettimeofday(&now, NULL);
    int64_t now_ms = (int64_t)now.tv_sec * 1000 + now.tv_usec / 1000;
    char change[160];
    snprintf(change, sizeof change,
             "{\"old\":null,\"new\":{\"delivery\":\"%s\",\"status\":\"pending\"}}", delivery_id);
    struct audit_entry audit =
        auth_audit_entry(request, "webhook_delivery.retry", delivery_id, change);
    struct gq_error err;
    if (store_delivery_retry(request->app->store, request->path_id, delivery_id, now_ms, &audit,
                             &err) != GQ_OK)
        return reply_error(request, &err);
    return reply_json(request, MHD_HTTP_ACCEPTED,
                      json_pack("{s:s, s:s, s:s}", "id", delivery_id, "object", "webhook_delivery",
                                "status", "pending"));
}
