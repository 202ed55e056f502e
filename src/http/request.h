/*
 * One request as the transport hands it to the policy and the handlers:
 * its line, the headers read in one pass, its body, the caller, the route
 * and the state of its answer.
 *
 * A request goes: server.c (first call: set up, route, refuse an
 * oversized Content-Length; upload calls: buffer the body up to the cap;
 * last call: parse JSON once, centrally) -> the route's handler in api/ or
 * admin/ (parse through codec/ -> act through the core and the store ->
 * reply) -> reply.c (one table from error code to status, common headers,
 * queue) -> server.c's completion callback (access log, free). A handler
 * that waits for the store (saving a quote) suspends the connection
 * instead of replying; the store's thread resumes it and the next call
 * runs request->resume, which replies.
 */
#ifndef GQ_HTTP_REQUEST_H
#define GQ_HTTP_REQUEST_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/messages.h"

struct app;
struct route;
struct snapshot;
struct watched_connection;

enum http_method {
    HTTP_GET = 1 << 0,
    HTTP_HEAD = 1 << 1,
    HTTP_POST = 1 << 2,
    HTTP_PUT = 1 << 3,
    HTTP_PATCH = 1 << 4,
    HTTP_DELETE = 1 << 5,
    HTTP_OPTIONS = 1 << 6,
    HTTP_OTHER = 1 << 7
};

/* The most {...} segments a route's pattern has. */
#define ROUTE_PARAMS_MAX 4

/* Bytes of the query and of the path, as sent, that a request keeps for
 * the access log (which cuts them there too). */
#define REQUEST_QUERY_KEPT 256
#define REQUEST_PATH_KEPT 256
/* Every answer carries an X-Request-Id: the client's when acceptable
 * (at most REQUEST_ID_MAX characters), otherwise "req_" and 32 hex digits. */
#define REQUEST_ID_HEADER "X-Request-Id"
#define REQUEST_ID_PREFIX "req_"
#define REQUEST_ID_MAX 128

#define IDEMPOTENCY_KEY_MAX 255 /* characters of an Idempotency-Key */

struct http_request {
    struct app *app;
    struct MHD_Connection *connection;
    const char *method_name; /* as sent, owned by libmicrohttpd */
    enum http_method method;
    const char *path; /* owned by libmicrohttpd, valid until completion */
    /* As sent, for the access log; 3 bytes over, so that the log's cut at
     * REQUEST_QUERY_KEPT never splits a UTF-8 character kept whole here. */
    char query[REQUEST_QUERY_KEPT + 3 + 1];
    /* The path as sent, logged instead of `path` when libmicrohttpd refuses
     * the request before the access handler sees it. */
    char raw_path[REQUEST_PATH_KEPT + 3 + 1];
    bool begun; /* the first call of the access handler has set it up */
    /* X-Request-Id: the client's (a proxy's), or one made here; sent on the
     * answer and logged. */
    char request_id[REQUEST_ID_MAX + 1];
    /* The Idempotency-Key of POST /quote without the whitespace a field
     * value may end with (RFC 9110, 5.5); the store borrows it. */
    char idempotency_key[IDEMPOTENCY_KEY_MAX + 1];
    const struct route *route;
    /* The path's first route whatever the method (the metrics' label), and
     * whether the request came on metrics_listen (GET /metrics alone, keyless). */
    const struct route *path_route;
    bool via_metrics_listener;
    char path_id[96]; /* the path's first {...} segment, if any */
    /* Every {...} segment of the path, in order (path_params[0] is
     * path_id): /admin/price-lists/{version}/prices/{sku}/{mode}. */
    char path_params[ROUTE_PARAMS_MAX][96];
    size_t n_path_params;
    bool cors_allowed;         /* this call may be read from a browser (its route allows CORS;
                                  a preflight: some route of the path does) */
    unsigned cors_methods;     /* what a preflight allows: the methods of CORS routes */
    unsigned allowed_methods;  /* for 405 and OPTIONS */
    struct snapshot *snapshot; /* referenced for the whole request */
    char *body;
    size_t body_length;
    size_t body_capacity;   /* bytes allocated, the NUL after the body included */
    uint64_t body_received; /* every body byte, kept or not */
    bool body_overflow;     /* more arrived than the cap: answered 413 */
    json_t *json;           /* the parsed body, for routes that take JSON */
    int64_t started_us;
    int64_t deadline_us;
    /* The connection's place in the watch over slow requests (server.c). */
    struct watched_connection *watched;
    unsigned status; /* what was queued, for the access log */
    uint64_t response_bytes;
    bool replied;
    const char *closed_because; /* set when we close the connection ourselves */
    /* From the one pass over the headers (server.c), owned by libmicrohttpd. */
    const char *declared_length;  /* the Content-Length, if any */
    const char *content_type;     /* the (last) Content-Type, if any */
    unsigned content_types;       /* how many Content-Type headers came */
    const char *content_encoding; /* the first Content-Encoding not "identity" */
    unsigned idempotency_keys;    /* how many Idempotency-Key headers came */
    /* The language of the answer's texts, from Accept-Language (English
     * without one), and the tag sent as Content-Language: set by whoever
     * writes a text in it (an error, a catalog body); NULL sends none. */
    enum gq_lang lang;
    const char *content_language;
    /* The client's address: the peer's, or behind a trusted proxy the one
     * its client_address_header names (auth.c); "" when unknown. */
    char client[48];
    /* The caller's API key, when it sent one in force (auth.c). */
    const char *authorization; /* the Authorization header, owned by libmicrohttpd */
    unsigned authorizations;   /* how many came */
    bool has_key;
    char key_id[40];
    char key_name[104];
    unsigned key_scopes;
    char key_customer[40];        /* the customer a bound key acts for alone; "": none */
    bool key_refused;             /* it sent one that is not a key in force: 401 invalid_token */
    unsigned retry_after_seconds; /* for a 429 */
    bool vary_accept_encoding;    /* the body depends on Accept-Encoding (static.c) */
    /* A handler that waits for the store suspends the connection and sets
     * `resume`, which runs on the call after the connection is resumed;
     * `waiting` is its state, freed by `discard_waiting` if the request
     * ends without that call (the daemon stopping). */
    enum MHD_Result (*resume)(struct http_request *request);
    void *waiting;
    void (*discard_waiting)(void *waiting);
};

struct list_param;
struct list_query;

/* Reads the request's query against `params` (at most LIST_PARAMS_MAX),
 * codec/list_query.h's rules. GQ_ERR_INVALID_PARAMETER naming the
 * parameter otherwise. */
enum gq_code request_list_query(struct http_request *request, const struct list_param *params,
                                size_t count, struct list_query *out, struct gq_error *err);

/* A route's handler: answers the request (reply_*()) or suspends it, and
 * returns what libmicrohttpd's access handler returns. Handlers are
 * declared with it: `http_handler quote_handle_get;`. */
typedef enum MHD_Result http_handler(struct http_request *request);

#endif
