/*
 * The request front's decisions, without libmicrohttpd (policy.h).
 */
#include "http/policy.h"

#include <string.h>
#include <strings.h>

#include "http/app.h"
#include "http/auth.h"
#include "http/rate_limit.h"
#include "http/router.h"
#include "util/api_key.h"

enum http_method policy_method(const char *name)
{
    static const struct {
        const char *name;
        enum http_method method;
    } methods[] = {{"GET", HTTP_GET},        {"HEAD", HTTP_HEAD},   {"POST", HTTP_POST},
                   {"PUT", HTTP_PUT},        {"PATCH", HTTP_PATCH}, {"DELETE", HTTP_DELETE},
                   {"OPTIONS", HTTP_OPTIONS}};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(name, methods[i].name) == 0)
            return methods[i].method;
    return HTTP_OTHER;
}

void policy_route(struct http_request *request)
{
    struct route_match match;
    if (request->via_metrics_listener)
        router_match_metrics_listener(request->path, request->method, &match);
    else
        router_match(request->path, request->method, &match);
    request->route = match.route;
    request->path_route = match.path_route;
    request->allowed_methods = match.allowed;
    /* A call answers CORS as its own route says (GET /quote, a list for an
     * order system's backend, does not, where POST /quote does); a
     * preflight, or a path without a route for the method, as the path. */
    bool cors =
        match.route != NULL && request->method != HTTP_OPTIONS ? match.route->cors : match.cors;
    request->cors_allowed = cors && !request->via_metrics_listener;
    request->cors_methods = match.cors_methods;
    request->n_path_params = match.n_params;
    memcpy(request->path_params, match.params, sizeof request->path_params);
    if (match.n_params > 0)
        memcpy(request->path_id, match.params[0], sizeof request->path_id);
    else
        request->path_id[0] = '\0';
}

/* ---- The body's media type. ---- */

/* "application/json", optionally with parameters ("; charset=utf-8"). */
bool policy_is_json_content_type(const char *value)
{
    static const char json_type[] = "application/json";
    if (value == NULL)
        return false;
    value += strspn(value, " \t");
    size_t length = sizeof json_type - 1;
    if (strncasecmp(value, json_type, length) != 0)
        return false;
    char next = value[length];
    return next == '\0' || next == ';' || next == ' ' || next == '\t';
}

/* One parameter of a media type, "; name=value", the value a token or a
 * quoted string (RFC 9110, 5.6.6); spaces around the name and the "=" are
 * tolerated. Returns where the next ";" is (or the end). */
static const char *read_media_parameter(const char *at, char *name, size_t name_size, char *value,
                                        size_t value_size)
{
    size_t n = 0, v = 0;
    at += strspn(at, " \t");
    while (*at != '\0' && *at != '=' && *at != ';' && *at != ' ' && *at != '\t') {
        if (n + 1 < name_size)
            name[n++] = *at;
        at++;
    }
    at += strspn(at, " \t");
    if (*at == '=') {
        at++;
        at += strspn(at, " \t");
        bool quoted = *at == '"';
        at += quoted;
        while (*at != '\0' && (quoted ? *at != '"' : *at != ';' && *at != ' ' && *at != '\t')) {
            if (quoted && *at == '\\' && at[1] != '\0')
                at++;
            if (v + 1 < value_size)
                value[v++] = *at;
            at++;
        }
        at += quoted && *at == '"';
    }
    name[n] = '\0';
    value[v] = '\0';
    return at + strcspn(at, ";");
}

/* False when the Content-Type names a charset other than UTF-8 (or its
 * subset US-ASCII): JSON is UTF-8 (RFC 8259, 8.1), and a body declared as
 * latin1 would otherwise be read as UTF-8 all the same. Other parameters
 * are ignored. */
static bool charset_is_utf8(const char *content_type)
{
    const char *at = content_type != NULL ? strchr(content_type, ';') : NULL;
    while (at != NULL && *at == ';') {
        char name[16], value[16];
        at = read_media_parameter(at + 1, name, sizeof name, value, sizeof value);
        if (strcasecmp(name, "charset") == 0 && strcasecmp(value, "utf-8") != 0 &&
            strcasecmp(value, "utf8") != 0 && strcasecmp(value, "us-ascii") != 0)
            return false;
    }
    return true;
}

/* GQ_OK when the body may be read as JSON: a route whose body is
 * optional takes none too (nothing sent, and no Content-Type); else 415
 * unsupported_media_type saying why. */
static enum gq_code check_body_media(const struct http_request *request, struct gq_error *err)
{
    /* No body is no body, whatever a client that sends none labels it
     * (curl's empty POST says application/x-www-form-urlencoded); an empty
     * one labelled JSON is malformed JSON (server.c). */
    if (request->route->body == BODY_OPTIONAL_JSON && request->body_length == 0 &&
        !policy_is_json_content_type(request->content_type))
        return GQ_OK;
    if (!policy_is_json_content_type(request->content_type))
        return gq_fail_msg(err, GQ_ERR_UNSUPPORTED_MEDIA_TYPE, NULL, MSG_CONTENT_TYPE_JSON);
    if (request->content_types > 1)
        return gq_fail_msg(err, GQ_ERR_UNSUPPORTED_MEDIA_TYPE, NULL, MSG_CONTENT_TYPE_TWICE);
    if (!charset_is_utf8(request->content_type))
        return gq_fail_msg(err, GQ_ERR_UNSUPPORTED_MEDIA_TYPE, NULL, MSG_CHARSET_UTF8);
    if (request->content_encoding != NULL)
        return gq_fail_msg(err, GQ_ERR_UNSUPPORTED_MEDIA_TYPE, NULL, MSG_CONTENT_ENCODING,
                           MSG_TEXT_CUT(request->content_encoding, 40));
    return GQ_OK;
}

/* ---- The decision. ---- */

/* Takes the request's rate-limit token before anything is answered,
 * whatever the answer: a 404, a 405, a preflight, a refused key or a
 * missing one is work done for the caller like any other. A key in force
 * spends its own bucket; anything else, a wrong key included, its
 * address's. Routes marked unlimited take none unless the request brings
 * a key that is refused (keys are not guessed for free there either); the
 * metrics listener's address is its access control. */
static bool within_rate_limit(struct http_request *request, bool identified, struct gq_error *err)
{
    bool unlimited = request->route != NULL && request->route->unlimited && identified;
    if (request->via_metrics_listener || unlimited)
        return true;
    return rate_limits_take(request, false, err) == GQ_OK;
}

enum policy_verdict policy_decide(struct http_request *request, struct gq_error *err)
{
    /* A refused key's error waits in `err`: a spent rate limit, checked
     * first, overwrites it, and no other verdict reads it. */
    bool identified = auth_identify(request, err) == GQ_OK;
    if (!within_rate_limit(request, identified, err))
        return POLICY_REFUSED;
    if (request->allowed_methods == 0)
        return POLICY_NOT_FOUND;
    if (request->method == HTTP_OPTIONS)
        return POLICY_OPTIONS;
    if (request->route == NULL)
        return POLICY_METHOD_NOT_ALLOWED;
    if (request->body_overflow)
        return POLICY_BODY_TOO_LARGE;
    if (!request->route->takes_query && request->query[0] != '\0')
        return POLICY_QUERY_REFUSED;
    if (!identified)
        return POLICY_REFUSED;
    if (auth_require(request, request->route->scope, err) != GQ_OK)
        return POLICY_REFUSED;
    if (request->route->body != BODY_NONE && check_body_media(request, err) != GQ_OK)
        return POLICY_REFUSED;
    return POLICY_SERVE;
}

/* ---- Headers read on their own. ---- */

const char *policy_cors_origin(const struct gq_config *config, bool cors_allowed,
                               const char *origin)
{
    if (!cors_allowed || origin == NULL) /* the admin API and /metrics: never from a browser */
        return NULL;
    for (size_t i = 0; i < config->n_cors_origins; i++)
        if (strcmp(config->cors_origins[i], "*") == 0 ||
            strcmp(config->cors_origins[i], origin) == 0)
            return origin;
    return NULL;
}

bool policy_idempotency_key(const char *sent, char out[IDEMPOTENCY_KEY_MAX + 1])
{
    out[0] = '\0';
    if (sent == NULL)
        return true;
    /* libmicrohttpd drops the whitespace before a value, not after it. */
    size_t length = strlen(sent);
    while (length > 0 && (sent[length - 1] == ' ' || sent[length - 1] == '\t'))
        length--;
    if (length == 0 || length > IDEMPOTENCY_KEY_MAX)
        return false;
    for (size_t i = 0; i < length; i++)
        if (sent[i] < 0x21 || sent[i] > 0x7e)
            return false;
    memcpy(out, sent, length);
    out[length] = '\0';
    return true;
}

/* The value of a hex digit, or -1. */
static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t policy_unescape(char *text)
{
    char *out = text;
    for (const char *in = text; *in != '\0'; in++) {
        int high = in[0] == '%' ? hex_digit(in[1]) : -1;
        int low = high >= 0 ? hex_digit(in[2]) : -1;
        if (low >= 0 && (high | low) != 0) {
            *out++ = (char)(high * 16 + low);
            in += 2;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
    return (size_t)(out - text);
}
