/*
 * The request front, replayed from bytes without sockets: what the
 * request fuzzer (fuzz_request_front.c) runs and the regression suite
 * (tests/front/check_fuzz_front.c) replays.
 *
 * An input is a request's line and headers as text:
 *
 *     METHOD TARGET [FLAGS]
 *     Name: value
 *     ...
 *
 * FLAGS are letters: `m` the request came on the metrics listener, `b` it
 * carries a body, `o` more body came than the limit. Of the headers, the
 * ones the service reads before a body are taken (Authorization,
 * Content-Type, Idempotency-Key, Accept-Language, If-None-Match, Origin,
 * each as often as given); the rest is ignored. The target is split at
 * '?' and its path decoded (policy_unescape), as libmicrohttpd hands them
 * over; then the path is routed (policy_route), the front decides
 * (policy_decide: the rate limit, 404, 405, 413, the query, the key, its
 * scope, the body's type), the CORS origin is chosen, If-None-Match and
 * the Idempotency-Key are read, the query is parsed as its route parses
 * it (the catalog's filters, a list's parameters), and every step's
 * invariants are checked with FUZZ_CHECK.
 *
 * The front runs against an application of its own (fuzz_front_new): the
 * defaults of the configuration, CORS for one origin, rate limits high
 * enough never to refuse, and one key in force (FUZZ_FRONT_KEY) with the
 * scopes quotes:write, quotes:accept, catalog:write and metrics:read (not
 * keys:write, so that a 403 is reachable).
 */
#ifndef GQ_TESTS_FUZZ_REPLAY_FRONT_H
#define GQ_TESTS_FUZZ_REPLAY_FRONT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec/bodies.h"
#include "codec/list_query.h"
#include "core/catalog.h"
#include "core/catalog_query.h"
#include "fuzz/fuzz.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/metrics.h"
#include "http/policy.h"
#include "http/rate_limit.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/router.h"
#include "store/store.h"
#include "util/api_key.h"
#include "util/config.h"

#define FUZZ_FRONT_KEY "gq_sk_fuzzFUZZfuzzFUZZfuzzFUZZfuzzFUZZfuzzFUZZfuz"
#define FUZZ_FRONT_KEY_SCOPES                                                                      \
    (SCOPE_QUOTES_WRITE | SCOPE_QUOTES_ACCEPT | SCOPE_CATALOG_WRITE | SCOPE_METRICS_READ)
#define FUZZ_FRONT_ORIGIN "https://shop.example"
#define FUZZ_FRONT_ETAG "\"f587481f7f314fd67a3ae2e8a87cd875\""
#define FUZZ_FRONT_INPUT_MAX 8192

struct fuzz_front {
    struct gq_config config;
    struct app app;
};

/* What a replay reached, for the regression suite's expectations. */
struct fuzz_front_outcome {
    enum policy_verdict verdict;
    enum gq_code code; /* for POLICY_REFUSED */
    bool routed;       /* a route of the path took the method */
};

static inline void fuzz_front_install_key(struct app *app)
{
    struct key_list list = {calloc(1, sizeof(struct stored_key)), 1};
    FUZZ_CHECK(list.items != NULL);
    struct stored_key *key = &list.items[0];
    snprintf(key->id, sizeof key->id, "key_0123456789abcdef0123456789abcdef");
    snprintf(key->name, sizeof key->name, "fuzz");
    memcpy(key->prefix, FUZZ_FRONT_KEY, API_KEY_VISIBLE);
    key->prefix[API_KEY_VISIBLE] = '\0';
    FUZZ_CHECK(api_key_is_well_formed(FUZZ_FRONT_KEY, strlen(FUZZ_FRONT_KEY)));
    api_key_hash(FUZZ_FRONT_KEY, strlen(FUZZ_FRONT_KEY), key->hash);
    key->scopes = FUZZ_FRONT_KEY_SCOPES;
    FUZZ_CHECK(keyring_install(app, &list));
}

/* The application the front runs against. Free with fuzz_front_free(). */
static inline struct fuzz_front *fuzz_front_new(void)
{
    struct fuzz_front *front = calloc(1, sizeof *front);
    FUZZ_CHECK(front != NULL);
    /* The defaults (and config/gpuquote.json when run from the checkout):
     * what matters here is set below. */
    char *env[] = {NULL};
    char *argv[] = {(char *)"gpuquote", NULL};
    struct gq_error err;
    config_load(&front->config, NULL, 1, argv, env, &err);
    front->config.cors_origins[0] = strdup(FUZZ_FRONT_ORIGIN);
    front->config.n_cors_origins = 1;
    front->config.rate_limit_keyless_per_second = 1000000;
    front->config.rate_limit_keyless_burst = 1000000;
    front->config.rate_limit_key_per_second = 1000000;
    front->config.rate_limit_key_burst = 1000000;
    front->app.config = &front->config;
    pthread_mutex_init(&front->app.keyring_lock, NULL);
    pthread_mutex_init(&front->app.keys_reload_lock, NULL);
    front->app.rate_limits = rate_limits_new(&front->config);
    FUZZ_CHECK(front->app.rate_limits != NULL);
    fuzz_front_install_key(&front->app);
    return front;
}

static inline void fuzz_front_free(struct fuzz_front *front)
{
    keyring_clear(&front->app);
    rate_limits_free(front->app.rate_limits);
    pthread_mutex_destroy(&front->app.keyring_lock);
    pthread_mutex_destroy(&front->app.keys_reload_lock);
    config_free(&front->config);
    free(front);
}

/* The headers of an input, as the server's one pass over them notes them. */
struct fuzz_front_headers {
    const char *origin;
    const char *idempotency_key; /* the last one */
    const char *if_none_match[8];
    size_t n_if_none_match;
    struct language_choice languages;
};

/* Takes one "Name: value" line; the value without the whitespace before it
 * (libmicrohttpd drops it; the one after stays). */
static inline void fuzz_front_header(struct http_request *request, struct fuzz_front_headers *seen,
                                     char *line)
{
    char *colon = strchr(line, ':');
    if (colon == NULL)
        return;
    *colon = '\0';
    const char *value = colon + 1 + strspn(colon + 1, " \t");
    if (strcasecmp(line, "Authorization") == 0) {
        request->authorizations++;
        request->authorization = value;
    } else if (strcasecmp(line, "Content-Type") == 0) {
        request->content_types++;
        request->content_type = value;
    } else if (strcasecmp(line, "Idempotency-Key") == 0) {
        request->idempotency_keys++;
        seen->idempotency_key = value;
    } else if (strcasecmp(line, "Accept-Language") == 0) {
        language_choice_add(&seen->languages, value);
    } else if (strcasecmp(line, "If-None-Match") == 0) {
        if (seen->n_if_none_match < sizeof seen->if_none_match / sizeof seen->if_none_match[0])
            seen->if_none_match[seen->n_if_none_match++] = value;
    } else if (strcasecmp(line, "Origin") == 0) {
        seen->origin = value;
    }
}

/* The request line: method, target (split into the decoded path, kept in
 * `path`, and the query as sent), flags. False when there is no target. */
static inline bool fuzz_front_request_line(struct http_request *request, char *line, char *path,
                                           size_t path_size)
{
    char *space = strchr(line, ' ');
    if (space == NULL)
        return false;
    *space = '\0';
    request->method_name = line;
    request->method = policy_method(line);
    char *target = space + 1;
    char *flags = strchr(target, ' ');
    if (flags != NULL) {
        *flags++ = '\0';
        request->via_metrics_listener = strchr(flags, 'm') != NULL;
        request->body_length = strchr(flags, 'b') != NULL ? 2 : 0;
        request->body_overflow = strchr(flags, 'o') != NULL;
    }
    size_t path_length = strcspn(target, "?");
    if (target[path_length] == '?') {
        const char *query = target + path_length + 1;
        memcpy(request->query, query, strnlen(query, sizeof request->query - 1));
    }
    target[path_length] = '\0';
    snprintf(path, path_size, "%s", target);
    size_t before = strlen(path);
    FUZZ_CHECK(policy_unescape(path) <= before);
    request->path = path;
    return path[0] != '\0';
}

/* A route's pattern and the path it matched agree: as many segments, the
 * fixed ones equal, each {...} one the segment kept in the params. */
static inline void fuzz_front_check_route(const struct http_request *request)
{
    FUZZ_CHECK((request->allowed_methods == 0) == (request->path_route == NULL));
    if (request->route == NULL)
        return;
    FUZZ_CHECK(request->allowed_methods & (unsigned)request->route->method);
    FUZZ_CHECK(request->route->method == request->method ||
               (request->route->method == HTTP_GET && request->method == HTTP_HEAD));
    const char *pattern = request->route->pattern, *path = request->path;
    size_t param = 0;
    while (*pattern != '\0') {
        if (*pattern == '{') {
            FUZZ_CHECK(param < request->n_path_params);
            size_t length = strlen(request->path_params[param]);
            FUZZ_CHECK(length > 0 && strchr(request->path_params[param], '/') == NULL);
            FUZZ_CHECK(strncmp(path, request->path_params[param], length) == 0);
            path += length;
            pattern = strchr(pattern, '}') + 1;
            param++;
            continue;
        }
        FUZZ_CHECK(*pattern == *path);
        pattern++;
        path++;
    }
    FUZZ_CHECK(*path == '\0' && param == request->n_path_params);
}

/* Never a CORS answer from the admin API, /metrics or the metrics listener. */
static inline void fuzz_front_check_cors(const struct fuzz_front *front,
                                         const struct http_request *request, const char *origin)
{
    bool private_path = strncmp(request->path, "/admin/", 7) == 0 ||
                        strcmp(request->path, "/admin") == 0 ||
                        strcmp(request->path, "/metrics") == 0;
    if (private_path || request->via_metrics_listener)
        FUZZ_CHECK(!request->cors_allowed);
    const char *echoed = policy_cors_origin(&front->config, request->cors_allowed, origin);
    FUZZ_CHECK(echoed == NULL || (request->cors_allowed && echoed == origin &&
                                  strcmp(origin, FUZZ_FRONT_ORIGIN) == 0));
    if (request->cors_allowed && origin != NULL && strcmp(origin, FUZZ_FRONT_ORIGIN) == 0)
        FUZZ_CHECK(echoed == origin);
}

/* A key is in force only as the one secret, sent once as a Bearer token. */
static inline void fuzz_front_check_caller(const struct http_request *request,
                                           enum policy_verdict verdict, const struct gq_error *err)
{
    if (request->has_key) {
        FUZZ_CHECK(request->authorizations == 1 && request->authorization != NULL);
        FUZZ_CHECK(strstr(request->authorization, FUZZ_FRONT_KEY) != NULL);
        FUZZ_CHECK(request->key_scopes == FUZZ_FRONT_KEY_SCOPES);
    }
    if (verdict == POLICY_SERVE && request->route->scope != SCOPE_NONE)
        FUZZ_CHECK(request->has_key &&
                   (request->key_scopes & request->route->scope) == request->route->scope);
    if (verdict == POLICY_SERVE && request->authorization != NULL)
        FUZZ_CHECK(request->has_key);
    if (verdict == POLICY_REFUSED)
        FUZZ_CHECK(err->code == GQ_ERR_UNAUTHENTICATED || err->code == GQ_ERR_FORBIDDEN ||
                   err->code == GQ_ERR_RATE_LIMITED || err->code == GQ_ERR_UNSUPPORTED_MEDIA_TYPE);
}

/* The verdict follows from the route match, in policy_decide()'s order. */
static inline void fuzz_front_check_verdict(const struct http_request *request,
                                            enum policy_verdict verdict)
{
    FUZZ_CHECK((verdict == POLICY_NOT_FOUND) == (request->allowed_methods == 0));
    if (request->allowed_methods != 0)
        FUZZ_CHECK((verdict == POLICY_OPTIONS) == (request->method == HTTP_OPTIONS));
    if (verdict == POLICY_METHOD_NOT_ALLOWED)
        FUZZ_CHECK(request->route == NULL);
    if (verdict == POLICY_QUERY_REFUSED)
        FUZZ_CHECK(!request->route->takes_query && request->query[0] != '\0');
    if (verdict == POLICY_SERVE) {
        FUZZ_CHECK(request->route != NULL && !request->body_overflow);
        FUZZ_CHECK(request->route->takes_query || request->query[0] == '\0');
        if (request->route->body == BODY_JSON)
            FUZZ_CHECK(request->content_type != NULL && request->content_types == 1 &&
                       strncasecmp(request->content_type + strspn(request->content_type, " \t"),
                                   "application/json", 16) == 0);
    }
}

/* If-None-Match: a list that names the tag, or "*", matches it. */
static inline void fuzz_front_check_etag(const struct fuzz_front_headers *seen)
{
    for (size_t i = 0; i < seen->n_if_none_match; i++) {
        const char *list = seen->if_none_match[i];
        bool matched = reply_etag_list_matches(list, FUZZ_FRONT_ETAG);
        if (strcmp(list, FUZZ_FRONT_ETAG) == 0 || strcmp(list, "*") == 0)
            FUZZ_CHECK(matched);
        if (strchr(list, '*') == NULL && strstr(list, "f587481f7f314fd67a3ae2e8a87cd875") == NULL)
            FUZZ_CHECK(!matched);
    }
    FUZZ_CHECK(reply_etag_list_matches("W/" FUZZ_FRONT_ETAG ", \"x\"", FUZZ_FRONT_ETAG));
}

static inline void fuzz_front_check_idempotency_key(const struct fuzz_front_headers *seen)
{
    char key[IDEMPOTENCY_KEY_MAX + 1];
    bool accepted = policy_idempotency_key(seen->idempotency_key, key);
    size_t length = strlen(key);
    FUZZ_CHECK(length <= IDEMPOTENCY_KEY_MAX);
    FUZZ_CHECK(!accepted || length > 0 || seen->idempotency_key == NULL);
    for (size_t i = 0; i < length; i++)
        FUZZ_CHECK(key[i] >= 0x21 && key[i] <= 0x7e);
    if (accepted && length > 0)
        FUZZ_CHECK(strncmp(seen->idempotency_key, key, length) == 0);
}

/* The query as the route reads it: split at '&' and the first '=', each
 * part decoded, into the catalog's filters (GET /catalog) or a list's
 * parameters (the others that take one). */
static inline void fuzz_front_parse_query(const struct http_request *request)
{
    static const struct list_param params[] = {{"since", LIST_TIME, NULL},
                                               {"starting_after", LIST_CURSOR, "aud_"},
                                               {"limit", LIST_LIMIT, NULL},
                                               {"name", LIST_TEXT, NULL}};
    char query[sizeof request->query];
    memcpy(query, request->query, sizeof query);
    bool catalog = strcmp(request->route->pattern, "/catalog") == 0;
    struct catalog_query filters;
    catalog_query_init(&filters);
    struct list_query list;
    struct gq_error err = {0};
    struct list_query_parser parser;
    list_query_begin(&parser, params, sizeof params / sizeof params[0], &list, &err);
    bool good = true;
    for (char *pair = strtok(query, "&"); pair != NULL && good; pair = strtok(NULL, "&")) {
        char *equals = strchr(pair, '=');
        if (equals != NULL) {
            *equals = '\0';
            policy_unescape(equals + 1);
        }
        policy_unescape(pair);
        const char *value = equals != NULL ? equals + 1 : NULL;
        good = catalog ? catalog_query_set(&filters, pair, value, &err) == GQ_OK
                       : list_query_add(&parser, pair, value);
    }
    if (!catalog && good)
        FUZZ_CHECK(list.limit >= 1 && list.limit <= LIST_LIMIT_MAX);
    if (!good)
        FUZZ_CHECK(err.code == GQ_ERR_INVALID_PARAMETER);
}

static inline void fuzz_replay_request_front(struct fuzz_front *front, const uint8_t *data,
                                             size_t size, struct fuzz_front_outcome *outcome)
{
    memset(outcome, 0, sizeof *outcome);
    outcome->verdict = POLICY_NOT_FOUND;
    char text[FUZZ_FRONT_INPUT_MAX + 1];
    size = size < FUZZ_FRONT_INPUT_MAX ? size : FUZZ_FRONT_INPUT_MAX;
    memcpy(text, data, size);
    text[size] = '\0'; /* a NUL inside ends the input, as it ends a header value */
    struct http_request *request = calloc(1, sizeof *request);
    FUZZ_CHECK(request != NULL);
    request->app = &front->app;
    struct fuzz_front_headers seen = {0};
    language_choice_init(&seen.languages);
    char path[REQUEST_PATH_KEPT + 1];
    char *line = strtok(text, "\r\n");
    if (line == NULL || !fuzz_front_request_line(request, line, path, sizeof path)) {
        free(request);
        return;
    }
    while ((line = strtok(NULL, "\r\n")) != NULL)
        fuzz_front_header(request, &seen, line);
    policy_route(request);
    fuzz_front_check_route(request);
    struct gq_error err = {0};
    enum policy_verdict verdict = policy_decide(request, &err);
    fuzz_front_check_verdict(request, verdict);
    fuzz_front_check_caller(request, verdict, &err);
    fuzz_front_check_cors(front, request, seen.origin);
    fuzz_front_check_etag(&seen);
    fuzz_front_check_idempotency_key(&seen);
    FUZZ_CHECK((unsigned)language_choice_result(&seen.languages) < GQ_LANG_COUNT);
    if (verdict == POLICY_SERVE && request->route->takes_query)
        fuzz_front_parse_query(request);
    outcome->verdict = verdict;
    outcome->code = verdict == POLICY_REFUSED ? err.code : GQ_OK;
    outcome->routed = request->route != NULL;
    free(request);
}

#endif
