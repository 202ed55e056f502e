/*
 * The request front's decisions (policy.c): what the service decides from
 * a request's line and headers alone, before its body is parsed — which
 * route it is, whether it is answered 404, 405, 413, 400 or 204, who the
 * caller is and whether its key holds the route's scope, its rate limit,
 * whether its body may be read as JSON, which CORS origin its answer
 * names — as functions of plain values, with no libmicrohttpd connection.
 *
 * server.c fills a struct http_request from libmicrohttpd (the path, the
 * method, the header values of its one pass over the headers) and asks
 * these; the request fuzzer (tests/fuzz/fuzz_request_front.c) fills one
 * from bytes and asks the same, without sockets.
 */
#ifndef GQ_HTTP_POLICY_H
#define GQ_HTTP_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "http/request.h"
#include "util/config.h"

/* The method named `name` (case matters, RFC 9110 9.1); HTTP_OTHER for
 * any other. */
enum http_method policy_method(const char *name);

/* Sets request->route, path_route, allowed_methods, cors_allowed and the
 * path's {...} segments from request->path and request->method, against
 * the route table (or the metrics listener's, for a request that came
 * there). */
void policy_route(struct http_request *request);

/* What the front decides. */
enum policy_verdict {
    POLICY_SERVE,              /* parse the body (if any) and run the route's handler */
    POLICY_NOT_FOUND,          /* no route has the path: 404 */
    POLICY_OPTIONS,            /* 204 with Allow (and the CORS preflight headers) */
    POLICY_METHOD_NOT_ALLOWED, /* the path has no route for the method: 405 with Allow */
    POLICY_BODY_TOO_LARGE,     /* more body arrived than body_limit_bytes: 413 */
    POLICY_QUERY_REFUSED,      /* a query on a route that reads none: 400 */
    POLICY_REFUSED             /* `err` says why: 401, 403, 429, or 415 for the body's type */
};

/* The decision for a routed request (policy_route()), in this order: the
 * rate limit (a token is taken, by the key in force or else the address,
 * for every answer but an unlimited route's: 429 first), the path, the
 * method, the body's size, the query, the caller (its key, the route's
 * scope), then for a route that reads a body, its Content-Type and
 * Content-Encoding. `err` is filled for POLICY_REFUSED. */
enum policy_verdict policy_decide(struct http_request *request, struct gq_error *err);

/* The Origin to echo in Access-Control-Allow-Origin: `origin` when the
 * path may be called from a browser (`cors_allowed`) and the origin is
 * one of cors_origins (or "*" is); NULL otherwise. */
const char *policy_cors_origin(const struct gq_config *config, bool cors_allowed,
                               const char *origin);

/* An Idempotency-Key as sent (NULL: none) into `out`: printable ASCII,
 * 1..IDEMPOTENCY_KEY_MAX characters once the whitespace libmicrohttpd
 * leaves at its end is dropped. False when it is not one (out is then "");
 * true with out "" when none was sent. */
bool policy_idempotency_key(const char *sent, char out[IDEMPOTENCY_KEY_MAX + 1]);

/* Decodes %HH in place as libmicrohttpd's own decoder does, except that
 * "%00" stays as it is (decoded, it would end the C string early: see
 * server.c). Returns the new length. */
size_t policy_unescape(char *text);

/* "application/json", optionally with parameters ("; charset=utf-8"). */
bool policy_is_json_content_type(const char *value);

#endif
