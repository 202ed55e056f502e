/*
 * Replies: the one table from error code to HTTP status, the error
 * envelope, the headers every response carries (X-Request-Id, CORS),
 * conditional GETs, and queueing a response with libmicrohttpd.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include "codec/bodies.h"
#include "http/app.h"
#include "http/policy.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/router.h"
#include "util/config.h"
#include "util/log.h"
#include "util/utf8.h"

static const unsigned code_status[GQ_CODE_COUNT] = {
    [GQ_OK] = MHD_HTTP_OK,
    [GQ_ERR_MALFORMED_JSON] = MHD_HTTP_BAD_REQUEST,
    [GQ_ERR_INVALID_PARAMETER] = MHD_HTTP_BAD_REQUEST,
    [GQ_ERR_NOT_FOUND] = MHD_HTTP_NOT_FOUND,
    [GQ_ERR_METHOD_NOT_ALLOWED] = MHD_HTTP_METHOD_NOT_ALLOWED,
    [GQ_ERR_REQUEST_TIMEOUT] = MHD_HTTP_REQUEST_TIMEOUT,
    [GQ_ERR_BODY_TOO_LARGE] = MHD_HTTP_CONTENT_TOO_LARGE,
    [GQ_ERR_UNSUPPORTED_MEDIA_TYPE] = MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
    [GQ_ERR_UNAUTHENTICATED] = MHD_HTTP_UNAUTHORIZED,
    [GQ_ERR_FORBIDDEN] = MHD_HTTP_FORBIDDEN,
    [GQ_ERR_SEGMENT_NOT_VERIFIED] = MHD_HTTP_FORBIDDEN,
    [GQ_ERR_RATE_LIMITED] = MHD_HTTP_TOO_MANY_REQUESTS,
    [GQ_ERR_IDEMPOTENCY_CONFLICT] = MHD_HTTP_CONFLICT,
    [GQ_ERR_QUOTE_EXPIRED] = MHD_HTTP_CONFLICT,
    [GQ_ERR_QUOTE_NOT_OPEN] = MHD_HTTP_CONFLICT,
    [GQ_ERR_PRICE_LIST_NOT_DRAFT] = MHD_HTTP_CONFLICT,
    [GQ_ERR_PRICE_LIST_WOULD_REVERT] = MHD_HTTP_CONFLICT,
    [GQ_ERR_PRICE_LIST_REBASE_CONFLICT] = MHD_HTTP_CONFLICT,
    [GQ_ERR_MISSING_FIELD] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_UNKNOWN_FIELD] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_INVALID_TYPE] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_OUT_OF_RANGE] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_INVALID_VALUE] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_UNKNOWN_SKU] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_UNKNOWN_BUNDLE] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_NOT_ELIGIBLE] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_AMOUNT_TOO_LARGE] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_PRICE_NOT_POSITIVE] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_PRICE_ABOVE_HOURLY] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_INVALID_VALIDITY] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_PROMOTION_CODE_INVALID] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [GQ_ERR_PROMOTION_CODE_EXHAUSTED] = MHD_HTTP_CONFLICT,
    [GQ_ERR_PROMOTION_CODE_EXISTS] = MHD_HTTP_CONFLICT,
    [GQ_ERR_NOT_READY] = MHD_HTTP_SERVICE_UNAVAILABLE,
    [GQ_ERR_RETRY_LATER] = MHD_HTTP_SERVICE_UNAVAILABLE,
    [GQ_ERR_INTERNAL] = MHD_HTTP_INTERNAL_SERVER_ERROR,
    [GQ_ERR_NO_MEMORY] = MHD_HTTP_INTERNAL_SERVER_ERROR,
};

/* Catalog responses may be cached briefly and revalidated with the ETag;
 * a price change reaches every client within a minute. */
#define CATALOG_CACHE_CONTROL "public, max-age=60"
#define CORS_ALLOW_HEADERS "Content-Type, Idempotency-Key, If-None-Match, X-Request-Id"
#define CORS_EXPOSE_HEADERS "ETag, Location, Idempotent-Replayed, Retry-After, X-Request-Id"

unsigned reply_status_for(enum gq_code code)
{
    if ((unsigned)code >= GQ_CODE_COUNT || code_status[code] == 0)
        return MHD_HTTP_INTERNAL_SERVER_ERROR;
    return code_status[code];
}

struct MHD_Response *reply_make_text(struct http_request *request, char *text)
{
    if (text == NULL)
        return NULL;
    size_t length = strlen(text);
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, text, MHD_RESPMEM_MUST_FREE);
    if (response == NULL) {
        free(text);
        return NULL;
    }
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, JSON_CONTENT_TYPE);
    request->response_bytes = length;
    return response;
}

struct MHD_Response *reply_make_json(struct http_request *request, json_t *body)
{
    return reply_make_text(request, render_dump(body));
}

/* The origin to echo in Access-Control-Allow-Origin, or NULL when the
 * request has none or it is not configured. */
static const char *allowed_origin(struct http_request *request)
{
    const struct gq_config *config = request->app->config;
    if (config->n_cors_origins == 0 || !request->cors_allowed)
        return NULL;
    return policy_cors_origin(
        config, request->cors_allowed,
        MHD_lookup_connection_value(request->connection, MHD_HEADER_KIND, "Origin"));
}

/* Vary: with CORS configured, every answer depends on the Origin, also one
 * with no CORS header (no Origin, or another): a shared cache must not hand
 * that copy to an allowed origin, whose browser would refuse it. An answer
 * written in the request's language depends on its Accept-Language, a
 * page's file on Accept-Encoding (gzip or not). One header line:
 * "Origin, Accept-Language". */
static void add_vary(struct http_request *request, struct MHD_Response *response)
{
    bool language = request->content_language != NULL;
    const char *names[3];
    size_t n = 0;
    if (request->app->config->n_cors_origins > 0)
        names[n++] = "Origin";
    if (language)
        names[n++] = "Accept-Language";
    if (request->vary_accept_encoding)
        names[n++] = "Accept-Encoding";
    char vary[64] = "";
    size_t length = 0;
    for (size_t i = 0; i < n; i++) {
        size_t size = strlen(names[i]);
        if (i > 0) {
            memcpy(vary + length, ", ", 2);
            length += 2;
        }
        memcpy(vary + length, names[i], size + 1);
        length += size;
    }
    if (n > 0)
        MHD_add_response_header(response, "Vary", vary);
    if (language)
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_LANGUAGE,
                                request->content_language);
}

void reply_in_language(struct http_request *request)
{
    request->content_language = gq_lang_tag(request->lang);
}

static void add_cors_headers(struct http_request *request, struct MHD_Response *response)
{
    const char *origin = allowed_origin(request);
    if (origin == NULL)
        return;
    MHD_add_response_header(response, "Access-Control-Allow-Origin", origin);
    MHD_add_response_header(response, "Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    if (request->method == HTTP_OPTIONS && request->cors_methods != 0) { /* not on a 404 */
        char allow[64];
        router_allow_header(request->cors_methods, allow, sizeof allow);
        MHD_add_response_header(response, "Access-Control-Allow-Methods", allow);
        MHD_add_response_header(response, "Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
        MHD_add_response_header(response, "Access-Control-Max-Age", "600");
    }
}

/* What a client is told of a fault of the server (MSG_INTERNAL_ERROR), or
 * of a database it cannot use now (MSG_DATABASE_UNAVAILABLE): the cause
 * (SQLite's words, a path on disk, a connection string, SQL) is for the
 * operator, in the error log under the request's id, which the answer
 * carries too. */

/* One error-log line: the request id, the method and the path as sent
 * (the log shows any byte a terminal would act on as '?'), and the cause. */
static void log_internal_error(const struct http_request *request, const char *cause)
{
    log_error("request %s: %s %s: %s", request->request_id[0] ? request->request_id : "-",
              request->method_name != NULL ? request->method_name : "-", request->raw_path, cause);
}

static void log_unavailable(const struct http_request *request, const char *cause)
{
    log_warning("request %s: %s %s: 503: %s", request->request_id[0] ? request->request_id : "-",
                request->method_name != NULL ? request->method_name : "-", request->raw_path,
                cause);
}

/* A 503 in the store's own words rather than a sentence of the message
 * tables (which are written for callers and have a translation). */
static bool is_unavailable_in_detail(const struct gq_error *err)
{
    return reply_status_for(err->code) == MHD_HTTP_SERVICE_UNAVAILABLE &&
           err->message_zh_cn[0] == '\0';
}

/* The envelope for when building a response failed: static, so sending
 * it needs no allocation beyond the response object itself. */
static const char out_of_memory_body[] =
    "{\"error\":{\"code\":\"internal_error\",\"message\":\"the server ran out of memory\"}}";

static struct MHD_Response *make_out_of_memory_response(struct http_request *request)
{
    log_internal_error(request, "out of memory while building the answer");
    struct MHD_Response *response = MHD_create_response_from_buffer(
        sizeof out_of_memory_body - 1, (void *)out_of_memory_body, MHD_RESPMEM_PERSISTENT);
    if (response != NULL)
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, JSON_CONTENT_TYPE);
    request->response_bytes = sizeof out_of_memory_body - 1;
    return response;
}

enum MHD_Result reply_queue(struct http_request *request, unsigned status,
                            struct MHD_Response *response)
{
    if (response == NULL) {
        status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        response = make_out_of_memory_response(request);
        if (response == NULL)
            return MHD_NO;
    }
    if (request->request_id[0] != '\0')
        MHD_add_response_header(response, REQUEST_ID_HEADER, request->request_id);
    /* Only the catalog and contract bodies may be cached (reply_cacheable
     * says so); without a word, a cache may keep a 200 or a 404 by
     * heuristic, and a quote's status changes. */
    if (MHD_get_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL) == NULL)
        MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    add_vary(request, response);
    add_cors_headers(request, response);
    /* Once stopping, a keep-alive connection ends with its request in
     * flight, so that clients stop sending on it and the server can stop. */
    if (atomic_load_explicit(&request->app->stopping, memory_order_relaxed))
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
    request->status = status;
    request->replied = true;
    enum MHD_Result result = MHD_queue_response(request->connection, status, response);
    MHD_destroy_response(response);
    return result;
}

enum MHD_Result reply_json(struct http_request *request, unsigned status, json_t *body)
{
    return reply_queue(request, status, reply_make_json(request, body));
}

enum MHD_Result reply_page(struct http_request *request, json_t *data, bool has_more)
{
    return reply_json(request, MHD_HTTP_OK,
                      data ? json_pack("{s:o, s:b}", "data", data, "has_more", has_more) : NULL);
}

enum MHD_Result reply_created(struct http_request *request, json_t *body, bool no_store,
                              const char *location_format, ...)
{
    struct MHD_Response *response = reply_make_json(request, body);
    if (response != NULL) {
        char location[160];
        va_list args;
        va_start(args, location_format);
        vsnprintf(location, sizeof location, location_format, args);
        va_end(args);
        MHD_add_response_header(response, MHD_HTTP_HEADER_LOCATION, location);
        if (no_store)
            MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    }
    return reply_queue(request, MHD_HTTP_CREATED, response);
}

enum MHD_Result reply_error(struct http_request *request, const struct gq_error *original)
{
    struct gq_error copy = *original;
    const struct gq_error *err = &copy;
    char message[sizeof copy.message_zh_cn];
    if (reply_status_for(err->code) == MHD_HTTP_INTERNAL_SERVER_ERROR) {
        log_internal_error(request, err->message);
        messages_format(request->lang, MSG_INTERNAL_ERROR, NULL, 0, message, sizeof message);
    } else if (is_unavailable_in_detail(err)) {
        log_unavailable(request, err->message);
        messages_format(request->lang, MSG_DATABASE_UNAVAILABLE, NULL, 0, message, sizeof message);
    } else {
        snprintf(message, sizeof message, "%s", gq_error_text(err, request->lang));
    }
    reply_in_language(request);
    /* A message or field may quote the request (a path, a parameter name)
     * and be cut inside a character; jansson refuses such a string, which
     * would turn the error into a bare 500. */
    utf8_repair(message);
    utf8_repair(copy.field);
    json_t *detail = json_pack("{s:s, s:s}", "code", gq_code_name(err->code), "message",
                               message[0] ? message : gq_code_name(err->code));
    if (detail != NULL && err->field[0] != '\0' &&
        json_object_set_new(detail, "field", json_string(err->field)) != 0) {
        json_decref(detail); /* no envelope without its field: the 500 below */
        detail = NULL;
    }
    if (detail != NULL && err->state[0] != '\0' &&
        json_object_set_new(detail, "state", json_string(err->state)) != 0) {
        json_decref(detail);
        detail = NULL;
    }
    struct MHD_Response *response =
        reply_make_json(request, detail ? json_pack("{s:o}", "error", detail) : NULL);
    unsigned status = reply_status_for(err->code);
    if (response != NULL && status == MHD_HTTP_METHOD_NOT_ALLOWED) {
        char allow[64];
        router_allow_header(request->allowed_methods, allow, sizeof allow);
        MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, allow);
    }
    if (response != NULL && status == MHD_HTTP_UNSUPPORTED_MEDIA_TYPE) /* RFC 9110, 12.5.3 */
        MHD_add_response_header(response, MHD_HTTP_HEADER_ACCEPT_ENCODING, "identity");
    if (response != NULL && status == MHD_HTTP_SERVICE_UNAVAILABLE)
        MHD_add_response_header(response, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    if (response != NULL && status == MHD_HTTP_TOO_MANY_REQUESTS) {
        char seconds[16];
        snprintf(seconds, sizeof seconds, "%u",
                 request->retry_after_seconds ? request->retry_after_seconds : 1);
        MHD_add_response_header(response, MHD_HTTP_HEADER_RETRY_AFTER, seconds);
    }
    /* RFC 6750, 3: a key that is no key says so; a missing one does not. */
    if (response != NULL && status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(response, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                request->key_refused
                                    ? "Bearer realm=\"gpuquote\", error=\"invalid_token\""
                                    : "Bearer realm=\"gpuquote\"");
    return reply_queue(request, status, response);
}

enum MHD_Result reply_fail(struct http_request *request, enum gq_code code, const char *field,
                           const char *format, ...)
{
    struct gq_error err = {.code = code};
    snprintf(err.field, sizeof err.field, "%s", field ? field : "");
    va_list args;
    va_start(args, format);
    vsnprintf(err.message, sizeof err.message, format, args);
    va_end(args);
    return reply_error(request, &err);
}

enum MHD_Result reply_fail_args(struct http_request *request, enum gq_code code, const char *field,
                                enum gq_msg id, const struct msg_arg *args, size_t n_args)
{
    struct gq_error err;
    gq_fail_args(&err, code, field, id, args, n_args);
    return reply_error(request, &err);
}

/* Compares one entity tag of an If-None-Match list with ours, weakly (a
 * W/ prefix is ignored, as RFC 9110 prescribes for If-None-Match). */
static bool tag_equals(const char *tag, size_t length, const char *etag)
{
    if (length >= 2 && strncmp(tag, "W/", 2) == 0) {
        tag += 2;
        length -= 2;
    }
    return length == strlen(etag) && strncmp(tag, etag, length) == 0;
}

bool reply_etag_list_matches(const char *list, const char *etag)
{
    const char *p = list;
    while (*p != '\0') {
        p += strspn(p, " \t,");
        size_t length = strcspn(p, ",");
        while (length > 0 && (p[length - 1] == ' ' || p[length - 1] == '\t'))
            length--;
        if ((length == 1 && *p == '*') || (length > 0 && tag_equals(p, length, etag)))
            return true;
        p += strcspn(p, ",");
    }
    return false;
}

struct etag_search {
    const char *etag;
    bool matched;
};

static enum MHD_Result search_if_none_match(void *context, enum MHD_ValueKind kind,
                                            const char *name, const char *value)
{
    (void)kind;
    struct etag_search *search = context;
    if (strcasecmp(name, "If-None-Match") == 0 && value != NULL &&
        reply_etag_list_matches(value, search->etag))
        search->matched = true;
    return search->matched ? MHD_NO : MHD_YES; /* MHD_NO stops the walk */
}

/* Every If-None-Match field line counts: several lines of a list field
 * are one list joined by commas (RFC 9110, 5.3). */
bool reply_etag_matches(struct http_request *request, const char *etag)
{
    struct etag_search search = {etag, false};
    MHD_get_connection_values(request->connection, MHD_HEADER_KIND, search_if_none_match, &search);
    return search.matched;
}

/* The body of a 304, which libmicrohttpd never reads: it sends no body
 * with a 304, only the Content-Length of the size given. */
static ssize_t read_no_body(void *context, uint64_t position, char *buffer, size_t max)
{
    (void)context;
    (void)position;
    (void)buffer;
    (void)max;
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

enum MHD_Result reply_not_modified(struct http_request *request, size_t full_length,
                                   const char *etag)
{
    /* A buffer response would send "Content-Length: 0", which a 304 must
     * not: its Content-Length, if any, is the length of the 200's body. */
    struct MHD_Response *response =
        MHD_create_response_from_callback(full_length, 1024, read_no_body, NULL, NULL);
    if (response == NULL)
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, CATALOG_CACHE_CONTROL);
    request->response_bytes = 0;
    return reply_queue(request, MHD_HTTP_NOT_MODIFIED, response);
}

enum MHD_Result reply_cached(struct http_request *request, const char *content_type,
                             const char *body, size_t length, const char *etag)
{
    if (reply_etag_matches(request, etag))
        return reply_not_modified(request, length, etag);
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_PERSISTENT);
    return reply_cacheable(request, response, content_type, length, etag);
}

enum MHD_Result reply_cacheable(struct http_request *request, struct MHD_Response *response,
                                const char *content_type, size_t length, const char *etag)
{
    if (response == NULL)
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, CATALOG_CACHE_CONTROL);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    request->response_bytes = length;
    return reply_queue(request, MHD_HTTP_OK, response);
}
