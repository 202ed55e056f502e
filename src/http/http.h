/*
 * The HTTP layer's shared types: the application context, one request, the
 * route table entry, the catalog snapshot and the reply helpers.
 *
 * libmicrohttpd appears in src/http/ and nowhere else. A request goes:
 * server.c (first call: set up, route, refuse an oversized Content-Length;
 * upload calls: buffer the body up to the cap; last call: parse JSON once,
 * centrally) -> the route's handler (parse -> act through the core and the
 * store -> reply) -> reply.c (one table from error code to status, common
 * headers, queue) -> server.c's completion callback (access log, free).
 * A handler that waits for the store (saving a quote) suspends the
 * connection instead of replying; the store's thread resumes it and the
 * next call runs request->resume, which replies.
 */
#ifndef GQ_HTTP_HTTP_H
#define GQ_HTTP_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/error.h"
#include "store/store.h"
#include "http/bodies.h"
#include "util/address.h"
#include "util/config.h"

/* ---- application ------------------------------------------------------ */

struct snapshot;

struct app {
    const struct gq_config *config;
    struct store *store;
    pthread_mutex_t snapshot_lock;    /* guards `snapshot` (the pointer only) */
    pthread_mutex_t reload_lock;      /* one reload at a time, so none publishes an older one */
    struct snapshot *snapshot;        /* current catalog; NULL until loaded */
    atomic_int active_requests;       /* between first call and completion */
    atomic_int saves_in_flight;       /* quotes handed to the store, not yet handed back */
    atomic_bool closing_saves;        /* the daemon is about to stop: no quote may be handed over */
    atomic_bool stopping;             /* SIGTERM: every answer closes its connection */
    atomic_bool refusing;             /* the daemon is stopping: no request may begin */
    pthread_mutex_t keyring_lock;     /* guards `keyring` (the pointer only) */
    pthread_mutex_t keys_reload_lock; /* one keys reload at a time, so none installs an older set */
    struct keyring *keyring;          /* the keys in force (auth.c); NULL until loaded */
    struct rate_limits *rate_limits;  /* the token buckets (rate_limit.c) */
    /* trusted_proxies, parsed: peers whose client_address_header is believed. */
    struct address_prefix trusted_proxies[ADDRESS_PREFIXES_MAX];
    size_t n_trusted_proxies;
    /* The request counters (metrics.c); NULL counts nothing. */
    struct metrics *metrics;
};

/* ---- the catalog snapshot (snapshot.c) -------------------------------- */

/* A body rendered once per snapshot, with its entity tag. */
struct rendered {
    char *body;
    size_t length;
    char etag[48]; /* quoted, as sent: "\"3f9c...\"" */
};

/* An immutable catalog and everything rendered from it. Shared between
 * threads by reference count: a request holds one reference from its first
 * call to its completion, so a reload never frees what is being sent. */
struct snapshot {
    atomic_uint references;
    struct catalog *catalog;
    /* Every body once per language, each with its own entity tag. */
    struct snapshot_bodies {
        struct rendered catalog_body;  /* GET /catalog, no filters */
        struct rendered billing_modes; /* GET /catalog/billing-modes */
        struct rendered bundles;       /* GET /catalog/bundles */
        struct rendered *skus;         /* GET /catalog/{id}, one per SKU */
    } in[GQ_LANG_COUNT];
    char *catalog_prefix; /* {"currency":..,"price_list_version":..,"skus":[, in every language */
    size_t catalog_prefix_length;
};

/* Builds a snapshot that takes ownership of `catalog`. NULL (and the
 * catalog freed) when memory runs out. */
struct snapshot *snapshot_build(struct catalog *catalog);

/* The current snapshot with a reference taken, or NULL when none is loaded. */
struct snapshot *snapshot_acquire(struct app *app);

/* Drops a reference; frees the snapshot with the last one. NULL is fine. */
void snapshot_release(struct snapshot *snapshot);

/* The length of the listing snapshot_render_listing() would make, without
 * making it. */
size_t snapshot_listing_length(const struct snapshot *snapshot, enum gq_lang lang,
                               const size_t *indices, size_t count);

/* A catalog listing of `count` SKUs (their indices, or the first `count`
 * when `indices` is NULL) from the pre-rendered bodies. The caller frees
 * the result; NULL when memory runs out. */
char *snapshot_render_listing(const struct snapshot *snapshot, enum gq_lang lang,
                              const size_t *indices, size_t count, size_t *length);

/* A quoted entity tag from the SHA-256 of `first` then `second`. */
void snapshot_etag(const char *first, size_t first_length, const char *second, size_t second_length,
                   char etag[48]);

/* Makes `next` current (taking over the caller's reference) and releases
 * the previous one. */
void snapshot_publish(struct app *app, struct snapshot *next);

/* Loads the catalog from the store into a new snapshot and makes it
 * current, one reload at a time. False when loading fails: the snapshot
 * loaded before stays, and the error log says which version it serves.
 * Called at start, on SIGHUP and by the catalog watch. */
bool snapshot_reload(struct app *app);

/* ---- keeping every replica's catalog current (catalog_watch.c) -------- */

struct catalog_watch;

/* Starts a thread that checks the store's price-list version every
 * catalog_poll_ms (at once when the database announces a change) and
 * reloads the snapshot when it differs. NULL when no thread can be made. */
struct catalog_watch *catalog_watch_start(struct app *app);

/* Stops the thread. NULL is fine. */
void catalog_watch_stop(struct catalog_watch *watch);

/* ---- requests --------------------------------------------------------- */

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

struct route;

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
    size_t body_capacity;
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

typedef enum MHD_Result (*http_handler)(struct http_request *request);

/* What a route's request carries. */
enum route_body {
    BODY_NONE,         /* none is read */
    BODY_JSON,         /* a JSON object, required, parsed centrally */
    BODY_OPTIONAL_JSON /* a JSON object when one is sent; none is fine */
};

/* A route and its policy, which server.c checks in one place before the
 * handler runs (routes are written with designated initialisers, so a
 * column left out is the safe default: no body, no query, public, no
 * CORS, no catalog). */
struct route {
    const char *pattern; /* "/quote/{id}/accept": each {name} matches one segment */
    enum http_method method;
    http_handler handler;
    enum route_body body;
    bool takes_query; /* query parameters are read; elsewhere any is refused */
    /* The key's scope the route needs (enum api_scope); SCOPE_NONE: none,
     * the route is public. */
    unsigned scope;
    /* A body whose customer.segment is other than "individual" needs this
     * scope too (POST /quote: a student price is for students a key
     * vouches for). */
    unsigned segment_scope;
    bool cors;          /* may be called from a browser of a cors_origins origin */
    bool needs_catalog; /* answers from the catalog snapshot */
    bool unlimited;     /* no rate limit: liveness and the bodies built into the binary */
};

/* A path matched against the route table. */
struct route_match {
    const struct route *route; /* NULL: the path has no route for the method */
    unsigned allowed;          /* the methods the path has; 0: no such path */
    bool cors;                 /* a route of the path allows CORS (for OPTIONS too) */
    unsigned cors_methods;     /* the methods of the path whose routes allow CORS */
    /* The path's first route, whatever the method; NULL: no such path. */
    const struct route *path_route;
    char params[ROUTE_PARAMS_MAX][96]; /* the route's {...} segments, in order */
    size_t n_params;
};

/* Matches `path` and `method` against the route table. A segment longer
 * than a parameter's room cannot match anything. */
void router_match(const char *path, enum http_method method, struct route_match *out);

/* The same against the table of the metrics listener (metrics_listen),
 * which serves GET /metrics alone, without a key and never to a browser. */
void router_match_metrics_listener(const char *path, enum http_method method,
                                   struct route_match *out);

/* The route table, for tests and tools that walk it (the request fuzzer,
 * the metrics' route labels): *count routes. */
const struct route *router_routes(size_t *count);

/* "GET, HEAD, OPTIONS" for a set of methods. */
void router_allow_header(unsigned methods, char *buf, size_t size);

/* ---- replies (reply.c) ------------------------------------------------ */

/* The HTTP status for an error code. */
unsigned reply_status_for(enum gq_code code);

/* A response holding `body` serialised (compact, reals to 12 digits), its
 * length recorded in the request for the access log; steals `body`. NULL
 * when memory runs out. */
struct MHD_Response *reply_make_json(struct http_request *request, json_t *body);

/* Adds the headers every response carries (CORS for allowed origins,
 * Content-Type when given), records status and size for the access log,
 * queues it and drops the caller's reference. `response` may be NULL
 * (memory ran out): a bare 500 is queued instead. */
enum MHD_Result reply_queue(struct http_request *request, unsigned status,
                            struct MHD_Response *response);

/* A JSON response holding `text` (stolen; freed by libmicrohttpd). */
struct MHD_Response *reply_make_text(struct http_request *request, char *text);

/* reply_make_json + reply_queue. */
enum MHD_Result reply_json(struct http_request *request, unsigned status, json_t *body);

/* The error envelope {"error":{"code","message","field"}} for `err`, with
 * the status of its code; 405 adds Allow, 503 adds Retry-After. */
enum MHD_Result reply_error(struct http_request *request, const struct gq_error *err);

/* reply_error for a code and a formatted message; `field` may be NULL.
 * The message is English whatever the request's language: for the few
 * failures that are the server's (a 500 says its own translated sentence
 * and logs this one). A client's mistake is reply_fail_msg(). */
enum MHD_Result reply_fail(struct http_request *request, enum gq_code code, const char *field,
                           const char *format, ...) __attribute__((format(printf, 4, 5)));

/* reply_error for message `id` of the message tables, said in the
 * request's language. Use reply_fail_msg(). */
enum MHD_Result reply_fail_args(struct http_request *request, enum gq_code code, const char *field,
                                enum gq_msg id, const struct msg_arg *args, size_t n_args);

/* reply_fail_args with its arguments in line, as gq_fail_msg() takes them. */
#define reply_fail_msg(request, code, field, id, ...)                                              \
    reply_fail_args((request), (code), (field), (id),                                              \
                    (const struct msg_arg[]){MSG_TEXT(NULL), __VA_ARGS__} + 1,                     \
                    sizeof((const struct msg_arg[]){MSG_TEXT(NULL), __VA_ARGS__}) /                \
                            sizeof(struct msg_arg) -                                               \
                        1)

/* Marks the answer as written in the request's language: it will carry
 * Content-Language and Vary: Accept-Language. */
void reply_in_language(struct http_request *request);

#define JSON_CONTENT_TYPE "application/json"

/* Sends a body that outlives the request (snapshot or static data) with
 * its ETag and Cache-Control, or 304 when If-None-Match matches `etag`. */
enum MHD_Result reply_cached(struct http_request *request, const char *content_type,
                             const char *body, size_t length, const char *etag);

/* Queues `response`, a body of `length` bytes tagged `etag` that caches may
 * keep, as a 200 with its ETag, Cache-Control and Content-Type; a NULL
 * response is a 500. */
enum MHD_Result reply_cacheable(struct http_request *request, struct MHD_Response *response,
                                const char *content_type, size_t length, const char *etag);

/* 304 for a client whose copy, tagged `etag`, is current: no body, and a
 * Content-Length that is the 200's, `full_length` (RFC 9110 8.6). */
enum MHD_Result reply_not_modified(struct http_request *request, size_t full_length,
                                   const char *etag);

/* True when the request's If-None-Match names `etag` (or is "*"). */
bool reply_etag_matches(struct http_request *request, const char *etag);

/* True when one If-None-Match field value lists `etag` (weakly) or is "*". */
bool reply_etag_list_matches(const char *list, const char *etag);

/* ---- handlers, one file per resource ---------------------------------- */

enum MHD_Result catalog_handle_list(struct http_request *request);
enum MHD_Result catalog_handle_sku(struct http_request *request);
enum MHD_Result catalog_handle_billing_modes(struct http_request *request);
enum MHD_Result catalog_handle_bundles(struct http_request *request);
enum MHD_Result quote_handle_create(struct http_request *request);
enum MHD_Result quote_handle_get(struct http_request *request);
/* GET /quote/{id}/pdf (quote_pdf.c): the quotation as an A4 PDF. */
enum MHD_Result quote_pdf_handle(struct http_request *request);
enum MHD_Result quote_handle_accept(struct http_request *request);
enum MHD_Result quote_handle_cancel(struct http_request *request);
enum MHD_Result quote_handle_list(struct http_request *request);
enum MHD_Result recommend_handle(struct http_request *request);
enum MHD_Result keys_handle_create(struct http_request *request);
enum MHD_Result keys_handle_list(struct http_request *request);
enum MHD_Result keys_handle_get(struct http_request *request);
enum MHD_Result keys_handle_revoke(struct http_request *request);
enum MHD_Result audit_handle_list(struct http_request *request);
enum MHD_Result events_handle_list(struct http_request *request);
enum MHD_Result events_handle_get(struct http_request *request);
enum MHD_Result customers_handle_create(struct http_request *request);
enum MHD_Result customers_handle_list(struct http_request *request);
enum MHD_Result customers_handle_get(struct http_request *request);
enum MHD_Result customers_handle_update(struct http_request *request);
enum MHD_Result customers_handle_delete(struct http_request *request);
enum MHD_Result webhooks_handle_create(struct http_request *request);
enum MHD_Result webhooks_handle_list(struct http_request *request);
enum MHD_Result webhooks_handle_get(struct http_request *request);
enum MHD_Result webhooks_handle_update(struct http_request *request);
enum MHD_Result webhooks_handle_delete(struct http_request *request);
enum MHD_Result webhooks_handle_deliveries(struct http_request *request);
enum MHD_Result webhooks_handle_retry(struct http_request *request);

/* The event types the service writes (events.c): whether `type` is one,
 * and their names for a message ("quote.created, quote.accepted, ..."). */
bool events_type_is_known(const char *type);
void events_type_list(char *out, size_t size);
enum MHD_Result metrics_handle(struct http_request *request);
enum MHD_Result price_lists_handle_create(struct http_request *request);
enum MHD_Result price_lists_handle_list(struct http_request *request);
enum MHD_Result price_lists_handle_get(struct http_request *request);
enum MHD_Result price_lists_handle_diff(struct http_request *request);
enum MHD_Result price_lists_handle_put_price(struct http_request *request);
enum MHD_Result price_lists_handle_delete_price(struct http_request *request);
enum MHD_Result price_lists_handle_preview(struct http_request *request);
enum MHD_Result price_lists_handle_put_gpu_model(struct http_request *request);
enum MHD_Result price_lists_handle_delete_gpu_model(struct http_request *request);
enum MHD_Result price_lists_handle_put_sku(struct http_request *request);
enum MHD_Result price_lists_handle_delete_sku(struct http_request *request);
enum MHD_Result price_lists_handle_put_discount_rule(struct http_request *request);
enum MHD_Result price_lists_handle_delete_discount_rule(struct http_request *request);
enum MHD_Result price_lists_handle_put_bundle(struct http_request *request);
enum MHD_Result price_lists_handle_delete_bundle(struct http_request *request);
/* The path's {version} (1 to 15 digits), and the 404 for one that is not. */
bool price_lists_read_version(const struct http_request *request, int64_t *version);
enum MHD_Result price_lists_reply_no_list(struct http_request *request);
enum MHD_Result price_lists_handle_publish(struct http_request *request);

/* A key as the admin API shows it (no secret, no hash); NULL when memory
 * runs out. And an audit line's change of a key, as JSON text (the caller
 * frees it). */
json_t *keys_render(const struct stored_key *key);
char *keys_change(const struct stored_key *before, const struct stored_key *after);
enum MHD_Result health_handle_live(struct http_request *request);
enum MHD_Result health_handle_ready(struct http_request *request);
enum MHD_Result health_handle_openapi(struct http_request *request);
enum MHD_Result static_handle_index(struct http_request *request);
enum MHD_Result static_handle_asset(struct http_request *request);

/* ---- API keys and limits (auth.c, rate_limit.c) ------------------------ */

struct keyring;

/* Before serving: the trusted proxies parsed, the rate limits made, the
 * keys in force loaded. False (logged) when one fails. auth_stop() undoes
 * it (and records the keys' last uses); safe after a failed start. */
bool auth_start(struct app *app);
void auth_stop(struct app *app);

/* Loads the keys in force from the store and makes them current (the
 * previous set's uses are recorded first). False, with the set loaded
 * before kept, when loading fails. */
bool keyring_reload(struct app *app);

/* Makes the keys of `list` (taken over) the keys in force, as a reload
 * does once it has read them. False (logged) when memory runs out. */
bool keyring_install(struct app *app, struct key_list *list);

/* Records in the store when each key was last used, for keys used since
 * the last call; cheap when none was. */
void keyring_record_uses(struct app *app);

/* Frees the current set (at the end). */
void keyring_clear(struct app *app);

/* Reads the request's Authorization header: no header is no key; a key in
 * force sets request->has_key and what it is; anything else is 401
 * unauthenticated (invalid_token). Returns GQ_OK or the failure in err. */
enum gq_code auth_identify(struct http_request *request, struct gq_error *err);

/* GQ_OK when the request's key holds `scope` (SCOPE_NONE: always); 401
 * without a key, 403 forbidden naming the scope with one that lacks it. */
enum gq_code auth_require(const struct http_request *request, unsigned scope, struct gq_error *err);

/* What an audit line says of the caller: its key, address and request. */
struct audit_entry auth_audit_entry(const struct http_request *request, const char *action,
                                    const char *target, const char *change);

struct rate_limits;

/* The buckets the configuration asks for; NULL when memory runs out. */
struct rate_limits *rate_limits_new(const struct gq_config *config);
void rate_limits_free(struct rate_limits *limits);

/* Takes a token for the request: from its key's bucket, or its address's
 * when it has no key (the route policy, for every call); with `saving`,
 * for a keyless saved quote, from the address's bucket of saves (the
 * quote handler, once it knows). GQ_ERR_RATE_LIMITED, with
 * request->retry_after_seconds, when the bucket is empty. */
enum gq_code rate_limits_take(struct http_request *request, bool saving, struct gq_error *err);

/* ---- connections that make no progress (slow_clients.c) --------------- */

/* A watch over one listener's open connections and a thread that cuts
 * those whose request does not arrive in time, whose client does not take
 * its answer in time, or that idle while the listener runs out of room. */
struct slow_clients;

/* One connection as the watch sees it, kept in the connection's own state.
 * The list links belong to the watch. */
struct watched_connection {
    struct watched_connection *previous, *next;
    int socket;
    _Atomic int64_t deadline_us;          /* monotonic; 0 once the request has arrived */
    _Atomic int64_t idle_since_us;        /* waiting for a request since; 0 while one is on */
    _Atomic int64_t response_deadline_us; /* the last answer's; 0 when none is pending */
    atomic_bool cut;                      /* the watch shut its socket down */
};

/* What the watch holds a listener's connections to. */
struct slow_clients_limits {
    unsigned idle_seconds;     /* libmicrohttpd's idle timeout */
    unsigned request_seconds;  /* a request must arrive within this */
    unsigned response_seconds; /* an answer must be taken within this */
    unsigned connection_limit; /* the listener's; room is kept under it */
};

/* Starts the watch's thread. NULL when a thread cannot be made. */
struct slow_clients *slow_clients_start(const struct slow_clients_limits *limits);

/* Stops the thread and frees the watch; every connection must have been
 * removed. NULL is ignored. */
void slow_clients_stop(struct slow_clients *watch);

/* A connection opened on `socket`: it now waits for its first request.
 * When it takes the room kept for new connections, the connections that
 * have waited longest for a request are closed. */
void slow_clients_add(struct slow_clients *watch, struct watched_connection *connection,
                      int socket);

/* The connection closes; called before its socket is closed. */
void slow_clients_remove(struct slow_clients *watch, struct watched_connection *connection);

/* The connection's last request is over; it waits for the next one. */
void slow_clients_awaiting_request(const struct slow_clients *watch,
                                   struct watched_connection *connection);

/* A request line arrived at `started_us`: the rest of the request has
 * until the request deadline (and the watch's grace). */
void slow_clients_request_begun(const struct slow_clients *watch,
                                struct watched_connection *connection, int64_t started_us);

/* The whole request has arrived: it is handled without a deadline. */
void slow_clients_request_arrived(struct watched_connection *connection);

/* An answer has been queued: the client has until the response deadline
 * to take it. */
void slow_clients_answer_queued(const struct slow_clients *watch,
                                struct watched_connection *connection);

/* True when the watch cut the connection. */
bool slow_clients_was_cut(const struct watched_connection *connection);

/* ---- the server (server.c) -------------------------------------------- */

struct http_server;

/* Binds config->listen:config->port without listening yet (listener.c),
 * so that a port in use is found before the database is touched. Returns
 * the socket, or -1 with a message in `err`. */
int http_listener_bind(const struct gq_config *config, struct gq_error *err);

/* The same for config->metrics_listen ("127.0.0.1:9464"). */
int http_metrics_listener_bind(const struct gq_config *config, struct gq_error *err);

/* Starts libmicrohttpd's thread pool listening on the socket
 * http_listener_bind() returned, which it closes (the daemon serves a
 * duplicate). Returns NULL with a message in `err` when it cannot serve. */
struct http_server *http_server_start(struct app *app, int listener, struct gq_error *err);

/* The port actually bound (the configured one, or the ephemeral one). */
uint16_t http_server_port(const struct http_server *server);

/* Stops accepting connections, waits up to `grace_ms` for requests in
 * flight to complete, then stops the daemon and frees the server. */
void http_server_stop(struct http_server *server, int grace_ms);

#endif
