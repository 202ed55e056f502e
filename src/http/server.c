/*
 * The libmicrohttpd daemon: options, the access handler that turns MHD's
 * calls into one request's life, body buffering under a cap, the central
 * JSON parse, and a graceful stop.
 *
 * libmicrohttpd 0.9.75 calls the access handler (1) once with the headers,
 * (2) once per piece of body, (3) once more when the request is complete.
 * Responses are queued on the last call only: queueing on the first makes
 * this version answer "Connection: close" and lose keep-alive. Three
 * exceptions are refused at once, where closing the connection is what we
 * want: ambiguous framing or a missing Host (400), and a Content-Length
 * over the cap, on an unknown path (404) or a known one (413), so that the
 * body is never read.
 * A body without Content-Length (chunked) is buffered up to the cap and the
 * rest drained unread; it gets its 413 at the end, within the request
 * deadline.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "codec/bodies.h"
#include "core/catalog.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/metrics.h"
#include "http/policy.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/router.h"
#include "http/server.h"
#include "http/slow_clients.h"
#include "http/snapshot.h"
#include "util/address.h"
#include "util/buffer.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/ids.h"
#include "util/log.h"

/* The first body allocation; it doubles while the body is under the
 * configured cap (so it may end up to twice the cap). */
#define BODY_INITIAL_CAPACITY 1024
/* Pending connections the kernel may hold while every thread is busy. */
#define LISTEN_BACKLOG 1024
/* libmicrohttpd's per-connection memory: request line, headers, pieces of
 * body and the response headers. 0.9.75 clears the whole pool after every
 * request, so the larger its default of 32 KB, the more every request pays
 * (most of a GET /catalog's instructions: bench/ANALYSIS.md); 16 KB still
 * holds 8 KB of headers. */
#define CONNECTION_MEMORY_BYTES ((size_t)16384)
/* When stopping: how long requests whose quote the store has just handed
 * back may take to send their answer once the grace is over. The answer is
 * already computed; this is the time to write a few KB. */
#define ANSWER_AFTER_STORE_MS 2000

/* The metrics listener's connections: a scraper or two. */
#define METRICS_CONNECTION_LIMIT 16

struct http_server {
    struct MHD_Daemon *daemon;
    struct MHD_Daemon *metrics_daemon; /* on metrics_listen; NULL when none is configured */
    uint16_t metrics_port;
    struct app *app;
    struct slow_clients *slow_clients;    /* the main listener's connections */
    struct slow_clients *metrics_clients; /* the metrics listener's; NULL without one */
    uint16_t port;
};

/* What the server keeps for a connection, as its socket context: made
 * when it opens, freed when it closes. */
struct connection_state {
    /* The peer's address as text (it cannot change), for the access log
     * lines of all its requests; "" when unknown. */
    char client[INET6_ADDRSTRLEN];
    /* The request whose request line has been read and whose completion
     * has not been reported yet. libmicrohttpd 0.9.75 closes a connection
     * without reporting it when it cannot queue its own error answer (a
     * query with more parameters than the connection's memory holds; any
     * refusal when memory is short): such a request is finished when its
     * connection closes, so it is neither lost from the log nor leaked. */
    struct http_request *open_request;
    /* What its listener's watch knows of it: its deadlines, how long it
     * has waited for a request. */
    struct watched_connection watched;
    struct slow_clients *watch; /* its listener's watch */
    bool metrics_only;          /* accepted on metrics_listen */
};

static struct connection_state *connection_state_of(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info != NULL ? info->socket_context : NULL;
}

/* libmicrohttpd calls this with the request target as sent, once it has
 * read the request line and before it splits off the query and decodes it
 * in place: the one moment the target can be kept as the client wrote it,
 * for the access log. The request is allocated here, timed from here, and
 * set up by begin_request(). Returning NULL (no memory) makes the access
 * handler refuse the request. */
static void *note_request_target(void *context, const char *target,
                                 struct MHD_Connection *connection)
{
    struct app *app = context;
    struct connection_state *state = connection_state_of(connection);
    if (state == NULL) /* track_connection() had no memory */
        return NULL;
    struct http_request *request = calloc(1, sizeof *request);
    if (request == NULL)
        return NULL;
    state->open_request = request;
    request->app = app; /* for the metrics of a request refused before it began */
    request->via_metrics_listener = state->metrics_only;
    request->started_us = clock_monotonic_us();
    request->watched = &state->watched;
    slow_clients_request_begun(state->watch, request->watched, request->started_us);
    if (target == NULL) /* "GET " with no target */
        return request;
    size_t path_length = strcspn(target, "?");
    /* calloc ended both copies */
    memcpy(request->raw_path, target,
           path_length < sizeof request->raw_path - 1 ? path_length : sizeof request->raw_path - 1);
    if (target[path_length] == '?') {
        const char *query = target + path_length + 1;
        memcpy(request->query, query, strnlen(query, sizeof request->query - 1));
    }
    return request;
}

/* The path of a target in absolute form ("http://host:8080/catalog"),
 * which an HTTP/1.1 server must accept (RFC 9112, 3.2.2) and a proxy may
 * send; any other target as it is. */
static const char *origin_form_path(const char *target)
{
    size_t scheme = strncasecmp(target, "http://", 7) == 0    ? 7
                    : strncasecmp(target, "https://", 8) == 0 ? 8
                                                              : 0;
    if (scheme == 0)
        return target;
    const char *path = strchr(target + scheme, '/'); /* the authority holds no '/' */
    return path != NULL ? path : "/";
}

/* Sets up a request on the first call of the access handler and counts it
 * as active; false when the server is stopping (the caller then closes the
 * connection unanswered, and complete_request() frees the request). */
static bool begin_request(struct http_request *request, struct app *app,
                          struct MHD_Connection *connection, const char *path, const char *method)
{
    request->app = app;
    request->connection = connection;
    request->method_name = method;
    request->method = policy_method(method);
    request->path = origin_form_path(path);
    request->deadline_us =
        request->started_us + (int64_t)app->config->request_timeout_seconds * 1000000;
    /* Sequentially consistent with http_server_stop(): either this request
     * sees `refusing`, or the stop sees it active and waits for it. */
    atomic_fetch_add(&app->active_requests, 1);
    if (atomic_load(&app->refusing)) {
        atomic_fetch_sub(&app->active_requests, 1);
        request->closed_because = "shutdown";
        return false;
    }
    policy_route(request);
    request->snapshot = snapshot_acquire(app);
    request->begun = true;
    return true;
}

/* True when the declared body is over the cap. A malformed Content-Length
 * is left to libmicrohttpd, which refuses it itself. */
static bool declared_body_too_large(const struct http_request *request)
{
    if (request->declared_length == NULL)
        return false;
    char *end;
    unsigned long long length = strtoull(request->declared_length, &end, 10);
    return *end == '\0' && length > request->app->config->body_limit_bytes;
}

/* What the one pass over a request's headers notes: the headers whose
 * repetition matters, counted (libmicrohttpd's lookup returns the first of
 * a repeated header and does not say there were more), and the
 * X-Request-Id. */
struct headers_seen {
    struct http_request *request; /* receives the Content-Length and the key count */
    unsigned host, content_length, transfer_encoding, request_ids;
    const char *coding;     /* the Transfer-Encoding's value */
    const char *request_id; /* the X-Request-Id's value */
    size_t request_id_length;
    struct language_choice languages; /* every Accept-Language line */
    bool name_not_token;              /* "Content-Length : 5" names "Content-Length " */
    const char *line_end;             /* where the line before ended; NULL: not checked */
    bool line_ending_bad;             /* a bare LF or a folded line (head_layout_known()) */
};

/* libmicrohttpd 0.9.75 parses a request's head in place: each line's CRLF
 * becomes two NULs and the next line starts right after, so a header whose
 * name starts one byte after the previous line's end followed a bare LF,
 * and a folded line (obs-fold), which that version appends to the name in
 * memory of its own, leaves the name away from where its line was. Only
 * the line before the blank one is checked, not the blank line itself.
 * With another version the layout is not relied on. */
static bool head_layout_known(void)
{
    return strcmp(MHD_get_version(), "0.9.75") == 0;
}

/* A tchar (RFC 9110 5.6.2): a letter, a digit or one of !#$%&'*+-.^_`|~.
 * Letters and '-' first: they are what header names are made of. */
static bool is_tchar(unsigned char c)
{
    bool letter = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    bool digit = c >= '0' && c <= '9';
    return letter || c == '-' || digit || (c != '\0' && strchr("!#$%&'*+.^_`|~", c) != NULL);
}

/* A header name is a token: at least one tchar, and nothing else. */
static bool is_token(const char *name, size_t length)
{
    if (length == 0)
        return false;
    for (size_t i = 0; i < length; i++)
        if (!is_tchar((unsigned char)name[i]))
            return false;
    return true;
}

/* Notes what a header line shows of the head's syntax (RFC 9112 2.2, 5.1,
 * 5.2): libmicrohttpd 0.9.75 accepts whitespace before the colon, bare LF
 * line ends and folded lines, each of which a proxy in front may read
 * otherwise (a "Content-Length : 5" it honours is a header we ignore, and
 * the body becomes a second request). */
static void note_line_syntax(struct headers_seen *seen, const char *name, size_t name_length,
                             const char *value, size_t value_length)
{
    if (!is_token(name, name_length))
        seen->name_not_token = true;
    if (seen->line_end != NULL && name != seen->line_end + 2)
        seen->line_ending_bad = true;
    if (seen->line_end != NULL)
        seen->line_end = value + value_length;
}

/* No Content-Encoding, or "identity": the body is as sent. A compressed
 * body would parse as garbage and be called malformed JSON. */
static bool is_identity_coding(const char *value)
{
    static const char identity[] = "identity";
    const size_t length = sizeof identity - 1;
    value += strspn(value, " \t");
    if (value[0] == '\0')
        return true;
    return strncasecmp(value, identity, length) == 0 &&
           value[length + strspn(value + length, " \t")] == '\0';
}

/* The headers a request's handling reads. */
enum known_header {
    HEADER_HOST,
    HEADER_CONTENT_LENGTH,
    HEADER_TRANSFER_ENCODING,
    HEADER_CONTENT_TYPE,
    HEADER_CONTENT_ENCODING,
    HEADER_IDEMPOTENCY_KEY,
    HEADER_AUTHORIZATION,
    HEADER_ACCEPT_LANGUAGE,
    HEADER_REQUEST_ID,
    HEADER_OTHER
};

/* Which header `name` is, in any case; lengths first, since most headers
 * of a request (User-Agent, Accept) are none of these. */
static enum known_header known_header(const char *name, size_t length)
{
#define KNOWN(text, which)                                                                         \
    {                                                                                              \
        text, sizeof text - 1, which                                                               \
    }
    static const struct {
        const char *name;
        size_t length;
        enum known_header which;
    } known[] = {
        KNOWN(MHD_HTTP_HEADER_HOST, HEADER_HOST),
        KNOWN(MHD_HTTP_HEADER_CONTENT_LENGTH, HEADER_CONTENT_LENGTH),
        KNOWN(MHD_HTTP_HEADER_TRANSFER_ENCODING, HEADER_TRANSFER_ENCODING),
        KNOWN(MHD_HTTP_HEADER_CONTENT_TYPE, HEADER_CONTENT_TYPE),
        KNOWN(MHD_HTTP_HEADER_CONTENT_ENCODING, HEADER_CONTENT_ENCODING),
        KNOWN("Idempotency-Key", HEADER_IDEMPOTENCY_KEY),
        KNOWN(MHD_HTTP_HEADER_AUTHORIZATION, HEADER_AUTHORIZATION),
        KNOWN(MHD_HTTP_HEADER_ACCEPT_LANGUAGE, HEADER_ACCEPT_LANGUAGE),
        KNOWN(REQUEST_ID_HEADER, HEADER_REQUEST_ID),
    };
#undef KNOWN
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].length == length && strcasecmp(known[i].name, name) == 0)
            return known[i].which;
    return HEADER_OTHER;
}

static enum MHD_Result note_header(void *context, enum MHD_ValueKind kind, const char *name,
                                   size_t name_length, const char *value, size_t value_length)
{
    (void)kind;
    struct headers_seen *seen = context;
    struct http_request *request = seen->request;
    note_line_syntax(seen, name, name_length, value, value_length);
    switch (known_header(name, name_length)) {
    case HEADER_HOST:
        seen->host++;
        break;
    case HEADER_CONTENT_LENGTH:
        seen->content_length++;
        request->declared_length = value;
        break;
    case HEADER_TRANSFER_ENCODING:
        seen->transfer_encoding++;
        seen->coding = value;
        break;
    case HEADER_CONTENT_TYPE:
        request->content_types++;
        request->content_type = value;
        break;
    case HEADER_CONTENT_ENCODING:
        if (!is_identity_coding(value) && request->content_encoding == NULL)
            request->content_encoding = value; /* the first coding not allowed */
        break;
    case HEADER_IDEMPOTENCY_KEY:
        request->idempotency_keys++;
        break;
    case HEADER_AUTHORIZATION:
        request->authorizations++;
        request->authorization = value;
        break;
    case HEADER_ACCEPT_LANGUAGE:
        language_choice_add(&seen->languages, value);
        break;
    case HEADER_REQUEST_ID:
        seen->request_ids++;
        seen->request_id = value;
        seen->request_id_length = value_length;
        break;
    case HEADER_OTHER:
        break;
    }
    return MHD_YES;
}

/* A request id worth passing on: 1..REQUEST_ID_MAX letters, digits and
 * "-_.:" (UUIDs, trace ids), nothing that could break a log line or a
 * header. (libmicrohttpd 0.9.75 ends every header value at a NUL byte, so
 * "a<NUL>b" arrives, and is kept, as "a".) */
static bool is_acceptable_request_id(const char *id, size_t length)
{
    if (length == 0 || length > REQUEST_ID_MAX)
        return false;
    for (size_t i = 0; i < length; i++) {
        char c = id[i];
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!plain && c != '-' && c != '_' && c != '.' && c != ':')
            return false;
    }
    return true;
}

/* Keeps the id a proxy or client sent, so that one request can be followed
 * through every service's logs; otherwise (none, two, or an unacceptable
 * one) makes one. libmicrohttpd drops the whitespace before a value but not
 * after it, which is not part of the value either (RFC 9110 5.5). */
static void assign_request_id(struct http_request *request, const struct headers_seen *seen)
{
    const char *id = seen->request_id;
    size_t length = seen->request_id_length;
    while (length > 0 && (id[length - 1] == ' ' || id[length - 1] == '\t'))
        length--;
    if (seen->request_ids == 1 && is_acceptable_request_id(id, length)) {
        memcpy(request->request_id, id, length);
        request->request_id[length] = '\0';
        return;
    }
    char generated[IDS_SIZE];
    if (ids_generate(REQUEST_ID_PREFIX, generated))
        strcpy(request->request_id, generated);
}

/* Every line of one header, joined in order with ',' (a list header's
 * lines are one list, RFC 9110 5.3); NULL with no line, or no memory. */
struct joined_header {
    const char *name;
    char *text;
    size_t length;
    bool failed;
};

static enum MHD_Result join_header_line(void *context, enum MHD_ValueKind kind, const char *name,
                                        size_t name_length, const char *value, size_t value_length)
{
    (void)kind;
    (void)name_length;
    struct joined_header *joined = context;
    if (strcasecmp(name, joined->name) != 0)
        return MHD_YES;
    char *grown = realloc(joined->text, joined->length + value_length + 2);
    if (grown == NULL) {
        joined->failed = true;
        return MHD_NO;
    }
    if (joined->length > 0)
        grown[joined->length++] = ',';
    memcpy(grown + joined->length, value, value_length);
    joined->length += value_length;
    grown[joined->length] = '\0';
    joined->text = grown;
    return MHD_YES;
}

/* The client's address: the peer's, or, when the peer is a trusted proxy,
 * the one client_address_header names, read from the right over all its
 * lines (address.h): a client can put its own line or addresses before
 * the proxy's, never after them. */
static void assign_client_address(struct http_request *request)
{
    const struct connection_state *state = connection_state_of(request->connection);
    snprintf(request->client, sizeof request->client, "%s", state != NULL ? state->client : "");
    const struct app *app = request->app;
    const char *header = app->config->client_address_header;
    if (header == NULL || app->n_trusted_proxies == 0 ||
        !address_in_prefixes(request->client, app->trusted_proxies, app->n_trusted_proxies))
        return;
    struct joined_header joined = {.name = header};
    MHD_get_connection_values_n(request->connection, MHD_HEADER_KIND, join_header_line, &joined);
    enum address_header_form form =
        strcasecmp(header, "Forwarded") == 0 ? ADDRESS_FORWARDED : ADDRESS_LIST;
    char client[sizeof request->client];
    if (joined.text != NULL && !joined.failed &&
        address_forwarded_client(joined.text, form, app->trusted_proxies, app->n_trusted_proxies,
                                 client, sizeof client))
        memcpy(request->client, client, sizeof client);
    free(joined.text);
}

/* Refuses a request whose head is malformed (whitespace before a colon, a
 * bare LF, a folded line) or whose length or target is ambiguous (RFC 9112
 * 3.2 and 6.3), which libmicrohttpd 0.9.75 lets through: with two Content-Lengths
 * it reads the first, so a proxy that trusts another would see a second
 * request hidden in this one's body. Returns false after replying. Replied
 * to this early, the connection is closed after the answer, as it must be
 * once the framing is in doubt. */
static bool framing_is_sound(struct http_request *request, const struct headers_seen *seen,
                             const char *version, enum MHD_Result *result)
{
    const char *field = NULL;
    enum gq_msg problem = MSG_NONE;
    if (seen->name_not_token) {
        problem = MSG_HEADER_NAME;
    } else if (seen->line_ending_bad) {
        problem = MSG_LINE_ENDING;
    } else if (seen->content_length > 1) {
        field = MHD_HTTP_HEADER_CONTENT_LENGTH;
        problem = MSG_CONTENT_LENGTH_TWICE;
    } else if (seen->content_length > 0 && seen->transfer_encoding > 0) {
        field = MHD_HTTP_HEADER_TRANSFER_ENCODING;
        problem = MSG_LENGTH_AND_CHUNKED;
    } else if (seen->transfer_encoding > 1 ||
               (seen->transfer_encoding == 1 && strcasecmp(seen->coding, "chunked") != 0)) {
        /* Any other coding would leave the body's end unknown: libmicrohttpd
         * then waits for it until the request times out. */
        field = MHD_HTTP_HEADER_TRANSFER_ENCODING;
        problem = MSG_ONLY_CHUNKED;
    } else if (seen->host > 1) {
        field = MHD_HTTP_HEADER_HOST;
        problem = MSG_HOST_TWICE;
    } else if (seen->host == 0 && strcmp(version, MHD_HTTP_VERSION_1_0) != 0) {
        /* Not only "HTTP/1.1": libmicrohttpd serves 1.2 to 1.9 as 1.1. */
        field = MHD_HTTP_HEADER_HOST;
        problem = MSG_HOST_MISSING;
    }
    if (problem == MSG_NONE)
        return true;
    *result = reply_fail_msg(request, GQ_ERR_INVALID_PARAMETER, field, problem);
    return false;
}

static bool append_body(struct http_request *request, const char *data, size_t size)
{
    size_t needed = request->body_length + size;
    /* One byte more for the NUL after the body. */
    if (!buffer_grow(&request->body, &request->body_capacity, needed + 1, BODY_INITIAL_CAPACITY))
        return false;
    memcpy(request->body + request->body_length, data, size);
    request->body_length = needed;
    request->body[needed] = '\0';
    return true;
}

/* Takes one piece of body. Every byte counts toward the cap, wanted or
 * not; only routes that take JSON keep them. Past the deadline the
 * connection is closed: a client trickling a body cannot hold a
 * connection slot forever (libmicrohttpd 0.9.75 cannot answer mid-body). */
static enum MHD_Result receive_body(struct http_request *request, const char *data, size_t size)
{
    if (clock_monotonic_us() > request->deadline_us) {
        request->closed_because = "timeout";
        return MHD_NO;
    }
    request->body_received += size;
    if (request->body_received > request->app->config->body_limit_bytes)
        request->body_overflow = true;
    bool wanted = request->route != NULL && request->route->body != BODY_NONE;
    if (!wanted || request->body_overflow)
        return MHD_YES;
    return append_body(request, data, size) ? MHD_YES : MHD_NO;
}

/* Parses the body once for routes that take JSON (its media type passed
 * policy_decide()); replies itself and returns false when the body is not
 * a JSON object. A route whose body is optional takes none too: nothing
 * sent, under no Content-Type or another than JSON (policy.c). */
static bool parse_json_body(struct http_request *request, enum MHD_Result *result)
{
    if (request->route->body == BODY_OPTIONAL_JSON && request->body_length == 0 &&
        (request->content_type == NULL || !policy_is_json_content_type(request->content_type)))
        return true;
    if (request->body_length == 0) {
        *result = reply_fail_msg(request, GQ_ERR_MALFORMED_JSON, NULL, MSG_BODY_EMPTY);
        return false;
    }
    struct gq_error err;
    request->json = body_load(request->body, request->body_length, &err);
    if (request->json == NULL) {
        *result = reply_error(request, &err);
        return false;
    }
    if (!json_is_object(request->json)) {
        *result = reply_fail_msg(request, GQ_ERR_INVALID_TYPE, NULL, MSG_BODY_NOT_OBJECT);
        return false;
    }
    return true;
}

static enum MHD_Result reply_options(struct http_request *request)
{
    struct MHD_Response *response =
        MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (response != NULL) {
        char allow[64];
        router_allow_header(request->allowed_methods, allow, sizeof allow);
        MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, allow);
    }
    return reply_queue(request, MHD_HTTP_NO_CONTENT, response);
}

static enum MHD_Result note_first_name(void *context, enum MHD_ValueKind kind, const char *name,
                                       const char *value)
{
    (void)kind;
    (void)value;
    *(const char **)context = name;
    return MHD_NO; /* the first is enough */
}

/* A query string on a path that reads none is refused, not ignored: a
 * misplaced "POST /quote?save=false" would otherwise store the quote. */
static enum MHD_Result refuse_query(struct http_request *request)
{
    const char *name = NULL;
    MHD_get_connection_values(request->connection, MHD_GET_ARGUMENT_KIND, note_first_name, &name);
    bool named = name != NULL && name[0] != '\0';
    /* The path as sent: decoded, it could hold spaces or a line break. */
    return reply_fail_msg(request, GQ_ERR_INVALID_PARAMETER, named ? name : NULL, MSG_NO_QUERY,
                          MSG_TEXT_CUT(request->method_name, 16), MSG_TEXT(request->raw_path));
}

static enum MHD_Result reply_unknown_path(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_RESOURCE,
                          MSG_TEXT(request->path));
}

static enum MHD_Result reply_body_too_large(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_BODY_TOO_LARGE, NULL, MSG_BODY_TOO_LARGE,
                          MSG_INT(request->app->config->body_limit_bytes));
}

/* The last call: everything has arrived; decide and answer. */
static enum MHD_Result decide_and_answer(struct http_request *request)
{
    if (request->replied)
        return MHD_YES;
    if (request->resume != NULL) {
        enum MHD_Result (*resume)(struct http_request *) = request->resume;
        request->resume = NULL;
        return resume(request);
    }
    if (clock_monotonic_us() > request->deadline_us)
        return reply_fail_msg(request, GQ_ERR_REQUEST_TIMEOUT, NULL, MSG_REQUEST_TIMEOUT,
                              MSG_INT(request->app->config->request_timeout_seconds));
    struct gq_error err;
    switch (policy_decide(request, &err)) {
    case POLICY_NOT_FOUND:
        return reply_unknown_path(request);
    case POLICY_OPTIONS:
        return reply_options(request);
    case POLICY_METHOD_NOT_ALLOWED:
        return reply_fail_msg(request, GQ_ERR_METHOD_NOT_ALLOWED, NULL, MSG_METHOD_NOT_ALLOWED,
                              MSG_TEXT_CUT(request->method_name, 16));
    case POLICY_BODY_TOO_LARGE:
        return reply_body_too_large(request);
    case POLICY_QUERY_REFUSED:
        return refuse_query(request);
    case POLICY_REFUSED:
        return reply_error(request, &err);
    case POLICY_SERVE:
        break;
    }
    /* Cannot happen: main.c publishes a catalog before the server listens
     * and keeps one until it has stopped. */
    if (request->snapshot == NULL && request->route->needs_catalog)
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "no catalog is loaded");
    enum MHD_Result result;
    if (request->route->body != BODY_NONE && !parse_json_body(request, &result))
        return result;
    if (request->route->authorize != NULL && request->route->authorize(request, &err) != GQ_OK)
        return reply_error(request, &err);
    return request->route->handler(request);
}

/* Answers a request that has arrived whole. It is handled without a
 * deadline; once its answer is queued, the client has the response
 * deadline to take it. */
static enum MHD_Result respond(struct http_request *request)
{
    slow_clients_request_arrived(request->watched);
    bool replied_before = request->replied;
    enum MHD_Result result = decide_and_answer(request);
    const struct connection_state *state = connection_state_of(request->connection);
    if (request->replied && !replied_before && state != NULL)
        slow_clients_answer_queued(state->watch, request->watched);
    return result;
}

static enum MHD_Result handle_access(void *context, struct MHD_Connection *connection,
                                     const char *path, const char *method, const char *version,
                                     const char *upload_data, size_t *upload_data_size,
                                     void **request_context)
{
    struct http_request *request = *request_context;
    if (request == NULL) /* note_request_target() had no memory */
        return MHD_NO;
    if (!request->begun) {
        if (!begin_request(request, context, connection, path, method))
            return MHD_NO;
        struct headers_seen seen = {.request = request};
        if (version[0] != '\0' && head_layout_known())
            seen.line_end = version + strlen(version);
        language_choice_init(&seen.languages);
        MHD_get_connection_values_n(connection, MHD_HEADER_KIND, note_header, &seen);
        assign_request_id(request, &seen);
        assign_client_address(request);
        request->lang = language_choice_result(&seen.languages);
        enum MHD_Result refused;
        if (!framing_is_sound(request, &seen, version, &refused))
            return refused;
        /* Refused before reading: an unknown path is 404 whatever its
         * body, a known one with a declared body over the cap is 413. */
        if (request->allowed_methods == 0 && declared_body_too_large(request))
            return reply_unknown_path(request);
        if (declared_body_too_large(request))
            return reply_body_too_large(request);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        enum MHD_Result result = receive_body(request, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return result;
    }
    return respond(request);
}

/* Why a request ended before its answer was sent whole, as the access log
 * names it; NULL when it was. */
static const char *interruption(enum MHD_RequestTerminationCode termination)
{
    switch (termination) {
    case MHD_REQUEST_TERMINATED_COMPLETED_OK:
        return NULL;
    case MHD_REQUEST_TERMINATED_CLIENT_ABORT:
        return "client_abort";
    case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED:
        return "timeout";
    case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN:
        return "shutdown";
    case MHD_REQUEST_TERMINATED_READ_ERROR:
        return "read_error";
    case MHD_REQUEST_TERMINATED_WITH_ERROR:
    default:
        return "error";
    }
}

static const char *client_address(struct MHD_Connection *connection)
{
    const struct connection_state *state = connection_state_of(connection);
    return state != NULL && state->client[0] != '\0' ? state->client : NULL;
}

/* The status of an answer libmicrohttpd queued itself (a 400, 413 or 431
 * it sends without calling the access handler, or in the middle of a
 * chunked body); 0 when none was queued. */
static unsigned status_queued_by_library(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
    return info != NULL ? info->http_status : 0;
}

/* libmicrohttpd ends the request it refused "with error" once its answer
 * has been sent whole: that is the refusal itself, not an interruption.
 * (0.9.75 reports a failure to send that answer the same way, so such a
 * failure is logged as a refusal too.) */
static const char *refusal_interruption(enum MHD_RequestTerminationCode termination)
{
    return termination == MHD_REQUEST_TERMINATED_WITH_ERROR ? NULL : interruption(termination);
}

/* Logs a request. One the access handler never saw, though libmicrohttpd
 * had read its request line, was refused by the library (header fields too
 * large, a Content-Length that is not a number) or ended unanswered (the
 * client gone before its headers were whole, a query with more parameters
 * than the connection's memory holds, the server stopping): it has no
 * method or request id, and its path is logged as sent. A request not
 * replied to is logged with the library's status if it queued one (its
 * own refusals, also of a malformed chunk of a body), else with 0 and why
 * it ended. */
static void log_request(const struct http_request *request, struct MHD_Connection *connection,
                        enum MHD_RequestTerminationCode termination)
{
    unsigned status = request->status;
    const char *interrupted = interruption(termination);
    if (interrupted != NULL && request->closed_because != NULL)
        interrupted = request->closed_because; /* more precise than MHD's "with error" */
    if (!request->replied) {
        status = status_queued_by_library(connection);
        if (status != 0)
            interrupted = refusal_interruption(termination);
    }
    struct access_entry entry = {
        .request_id = request->request_id,
        /* Behind a trusted proxy, the client it names; else the peer. */
        .client = request->client[0] != '\0' ? request->client : client_address(connection),
        .method = request->method_name,
        .path = request->path != NULL ? request->path : request->raw_path,
        .query = request->query,
        .status = status,
        /* An answer to HEAD has the GET's headers and no body. */
        .bytes = request->method == HTTP_HEAD ? 0 : request->response_bytes,
        .microseconds = clock_monotonic_us() - request->started_us,
        .interrupted = interrupted,
    };
    log_access(&entry);
    metrics_count_request(request->app->metrics, request->path_route, request->method, status,
                          entry.microseconds);
}

/* Logs a request and frees it with everything it holds. */
static void finish_request(struct http_request *request, struct MHD_Connection *connection,
                           enum MHD_RequestTerminationCode termination)
{
    if (request->closed_because == NULL && slow_clients_was_cut(request->watched))
        request->closed_because = "timeout"; /* it took too long to arrive */
    log_request(request, connection, termination);
    if (request->begun) {
        atomic_fetch_sub_explicit(&request->app->active_requests, 1, memory_order_relaxed);
        if (request->waiting != NULL)
            request->discard_waiting(request->waiting);
        json_decref(request->json);
        free(request->body);
        snapshot_release(request->snapshot);
    }
    free(request);
}

static void complete_request(void *context, struct MHD_Connection *connection,
                             void **request_context, enum MHD_RequestTerminationCode termination)
{
    (void)context;
    struct http_request *request = *request_context;
    if (request == NULL)
        return;
    *request_context = NULL;
    struct connection_state *state = connection_state_of(connection);
    assert(state != NULL); /* note_request_target() makes no request without it */
    state->open_request = NULL;
    slow_clients_awaiting_request(state->watch, &state->watched);
    finish_request(request, connection, termination);
}

/* Finishes the request whose completion libmicrohttpd never reported
 * (it closed the connection at once after failing to queue an answer).
 * By now it has freed the connection's memory, which holds the method and
 * the decoded path: the request is logged from its own copies only, the
 * path as sent and no method. */
static void finish_unreported_request(struct http_request *request,
                                      struct MHD_Connection *connection)
{
    request->method_name = NULL;
    request->path = request->raw_path;
    finish_request(request, connection, MHD_REQUEST_TERMINATED_WITH_ERROR);
}

/* Makes a connection's state when it opens, watched by `watch`; when it
 * closes, finishes a request libmicrohttpd left unreported and frees the
 * state. */
static void track_connection_on(struct slow_clients *watch, struct MHD_Connection *connection,
                                void **socket_context, enum MHD_ConnectionNotificationCode code)
{
    struct connection_state *state = *socket_context;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (state == NULL)
            return;
        /* libmicrohttpd closes the socket after this call returns */
        slow_clients_remove(watch, &state->watched);
        if (state->open_request != NULL)
            finish_unreported_request(state->open_request, connection);
        free(state);
        *socket_context = NULL;
        return;
    }
    state = calloc(1, sizeof *state);
    *socket_context = state; /* NULL: its requests are refused */
    if (state == NULL)
        return;
    const union MHD_ConnectionInfo *socket_info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (socket_info == NULL) { /* not in 0.9.75: a connection always has its socket */
        free(state);
        *socket_context = NULL;
        return;
    }
    state->watch = watch;
    slow_clients_add(watch, &state->watched, socket_info->connect_fd);
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *peer = info != NULL ? info->client_addr : NULL;
    const char *formatted = NULL;
    if (peer != NULL && peer->sa_family == AF_INET)
        formatted = inet_ntop(AF_INET, &((const struct sockaddr_in *)peer)->sin_addr, state->client,
                              sizeof state->client);
    else if (peer != NULL && peer->sa_family == AF_INET6)
        formatted = inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)peer)->sin6_addr,
                              state->client, sizeof state->client);
    if (formatted == NULL)
        state->client[0] = '\0'; /* not logged */
}

static void track_connection(void *context, struct MHD_Connection *connection,
                             void **socket_context, enum MHD_ConnectionNotificationCode code)
{
    const struct http_server *server = context;
    track_connection_on(server->slow_clients, connection, socket_context, code);
}

/* track_connection() for the metrics listener's connections, which have a
 * watch of their own (a scrape finds room whatever the main listener
 * holds) and whose requests are routed against its own table. */
static void track_metrics_connection(void *context, struct MHD_Connection *connection,
                                     void **socket_context,
                                     enum MHD_ConnectionNotificationCode code)
{
    const struct http_server *server = context;
    track_connection_on(server->metrics_clients, connection, socket_context, code);
    struct connection_state *state = *socket_context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED && state != NULL)
        state->metrics_only = true;
}

/* Decodes %HH in the path and in query names and values, in place, as
 * libmicrohttpd's own decoder does, except that "%00" is left as it is:
 * decoded, it would end the C string early, so that "/quote%00junk" were
 * routed as "/quote" and "gpu=V100%00junk" read as "gpu=V100". */
static size_t unescape_keeping_nul(void *context, struct MHD_Connection *connection, char *text)
{
    (void)context;
    (void)connection;
    return policy_unescape(text);
}

static void log_from_mhd(void *context, const char *format, va_list args)
    __attribute__((format(printf, 2, 0)));

static void log_from_mhd(void *context, const char *format, va_list args)
{
    (void)context;
    char message[256];
    vsnprintf(message, sizeof message, format, args);
    message[strcspn(message, "\n")] = '\0';
    log_error("http: %s", message);
}

/* The port `socket` is bound to; 0 when it cannot be read. */
static uint16_t bound_port(int socket)
{
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(socket, (struct sockaddr *)&address, &length) != 0)
        return 0;
    return ntohs(address.ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)&address)->sin6_port
                                               : ((const struct sockaddr_in *)&address)->sin_port);
}

/* The second daemon, on metrics_listen: one thread, a few connections,
 * the same request life as the main one (its connections are routed
 * against the metrics listener's table). False with `err` filled when it
 * cannot start. */
#define SHARED_OPTIONS 6

/* The options both daemons take alike, for MHD_OPTION_ARRAY: the idle
 * timeout, each connection's memory, and the callbacks that free a
 * request's state, keep the NULs of its target and note the target (a
 * callback as an intptr_t, its closure as the pointer). */
static void shared_options(struct MHD_OptionItem out[SHARED_OPTIONS], struct app *app,
                           unsigned idle_seconds)
{
    const struct MHD_OptionItem options[SHARED_OPTIONS] = {
        {MHD_OPTION_CONNECTION_TIMEOUT, idle_seconds, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)CONNECTION_MEMORY_BYTES, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)complete_request, NULL},
        {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)unescape_keeping_nul, NULL},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)note_request_target, app},
        {MHD_OPTION_END, 0, NULL},
    };
    memcpy(out, options, sizeof options);
}

static bool start_metrics_daemon(struct http_server *server, struct gq_error *err)
{
    const struct gq_config *config = server->app->config;
    int socket = http_metrics_listener_bind(config, err);
    if (socket < 0)
        return false;
    struct sockaddr_storage address;
    socklen_t address_length = sizeof address;
    if (getsockname(socket, (struct sockaddr *)&address, &address_length) != 0 ||
        listen(socket, LISTEN_BACKLOG) != 0) {
        gq_fail(err, GQ_ERR_NOT_READY, "metrics_listen", "cannot listen on %s: %s",
                config->metrics_listen, strerror(errno));
        close(socket);
        return false;
    }
    server->metrics_clients = slow_clients_start(&(struct slow_clients_limits){
        .idle_seconds = config->connection_timeout_seconds,
        .request_seconds = config->request_timeout_seconds,
        .response_seconds = config->response_timeout_seconds,
        .connection_limit = METRICS_CONNECTION_LIMIT,
    });
    if (server->metrics_clients == NULL) {
        gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "cannot start a thread");
        close(socket);
        return false;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | (address.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    struct MHD_OptionItem shared[SHARED_OPTIONS];
    shared_options(shared, server->app, config->connection_timeout_seconds);
    /* clang-format off */
    server->metrics_daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, handle_access, server->app,
        MHD_OPTION_EXTERNAL_LOGGER, log_from_mhd, NULL,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)socket,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CONNECTION_LIMIT,
        MHD_OPTION_ARRAY, shared,
        MHD_OPTION_NOTIFY_CONNECTION, track_metrics_connection, server,
        MHD_OPTION_END);
    /* clang-format on */
    if (server->metrics_daemon == NULL) {
        close(socket);
        gq_fail(err, GQ_ERR_NOT_READY, "metrics_listen", "cannot serve on %s",
                config->metrics_listen);
        return false;
    }
    server->metrics_port = bound_port(socket);
    log_info("metrics listening on %s port %u", config->metrics_listen,
             (unsigned)server->metrics_port);
    return true;
}

/* Stops the metrics daemon, if any, and its watch, and frees the
 * counters. */
static void stop_metrics(struct http_server *server)
{
    if (server->metrics_daemon != NULL)
        MHD_stop_daemon(server->metrics_daemon);
    server->metrics_daemon = NULL;
    slow_clients_stop(server->metrics_clients); /* every connection is closed */
    server->metrics_clients = NULL;
    metrics_free(server->app->metrics);
    server->app->metrics = NULL;
}

struct http_server *http_server_start(struct app *app, int listener, struct gq_error *err)
{
    const struct gq_config *config = app->config;
    struct sockaddr_storage address;
    socklen_t address_length = sizeof address;
    /* libmicrohttpd 0.9.75 closes the socket it is given on some failures
     * to start and not on others: it gets a duplicate, so that `listener`
     * is closed here on every path and never twice. (On a failure that
     * leaves the duplicate open, the process is about to exit.) */
    int given = -1;
    if (getsockname(listener, (struct sockaddr *)&address, &address_length) != 0 ||
        listen(listener, LISTEN_BACKLOG) != 0 ||
        (given = fcntl(listener, F_DUPFD_CLOEXEC, 0)) < 0) {
        gq_fail(err, GQ_ERR_NOT_READY, "listen", "cannot listen on %s port %u: %s", config->listen,
                (unsigned)config->port, strerror(errno));
        close(listener);
        return NULL;
    }
    close(listener);
    struct http_server *server = calloc(1, sizeof *server);
    if (server == NULL) {
        gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
        close(given);
        return NULL;
    }
    server->app = app;
    server->slow_clients = slow_clients_start(&(struct slow_clients_limits){
        .idle_seconds = config->connection_timeout_seconds,
        .request_seconds = config->request_timeout_seconds,
        .response_seconds = config->response_timeout_seconds,
        .connection_limit = config->connection_limit,
    });
    app->metrics = metrics_new();
    if (server->slow_clients == NULL || app->metrics == NULL) {
        gq_fail(err, GQ_ERR_NO_MEMORY, NULL,
                server->slow_clients == NULL ? "cannot start a thread" : "out of memory");
        slow_clients_stop(server->slow_clients);
        stop_metrics(server);
        free(server);
        close(given);
        return NULL;
    }
    /* Poll, not epoll: when epoll_wait returns exactly 128 events, 0.9.75
     * waits again with the blocking timeout before handling them, so with
     * a multiple of 128 ready sockets a thread stalls. ITC lets quiesce wake the
     * threads; suspend/resume lets a saved quote wait for the store's
     * group commit without holding its thread. The socket is ours
     * (listener.c), bound before the database was opened. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (address.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    /* A pool of one thread is no pool: libmicrohttpd then serves from its
     * one internal thread, and complains when given a size of 0 or 1. */
    struct MHD_OptionItem pool[] = {
        {config->threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, config->threads, NULL},
        {MHD_OPTION_END, 0, NULL}};
    struct MHD_OptionItem shared[SHARED_OPTIONS];
    shared_options(shared, app, config->connection_timeout_seconds);
    /* One option and its values a line. */
    /* clang-format off */
    server->daemon = MHD_start_daemon(
        flags, config->port, NULL, NULL, handle_access, app,
        MHD_OPTION_EXTERNAL_LOGGER, log_from_mhd, NULL,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)given,
        MHD_OPTION_ARRAY, pool,
        MHD_OPTION_CONNECTION_LIMIT, config->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, config->per_ip_connection_limit,
        MHD_OPTION_ARRAY, shared,
        MHD_OPTION_NOTIFY_CONNECTION, track_connection, server,
        MHD_OPTION_END);
    /* clang-format on */
    if (server->daemon == NULL) {
        /* libmicrohttpd has logged why (threads, memory) */
        gq_fail(err, GQ_ERR_NOT_READY, "listen", "cannot serve on %s port %u", config->listen,
                (unsigned)config->port);
        slow_clients_stop(server->slow_clients);
        stop_metrics(server);
        free(server);
        return NULL;
    }
    if (config->metrics_listen != NULL && !start_metrics_daemon(server, err)) {
        MHD_stop_daemon(server->daemon);
        slow_clients_stop(server->slow_clients);
        stop_metrics(server);
        free(server);
        return NULL;
    }
    server->port =
        ntohs(address.ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)&address)->sin6_port
                                            : ((const struct sockaddr_in *)&address)->sin_port);
    return server;
}

uint16_t http_server_port(const struct http_server *server)
{
    return server->port;
}

/* Waits up to `grace_ms` for the requests in flight to complete; returns
 * the milliseconds waited, by the clock (a sleep may last longer than
 * asked, and the stop must fit the orchestrator's budget). */
static int wait_for_requests(struct app *app, int grace_ms)
{
    struct timespec pause = {0, 10 * 1000 * 1000};
    int64_t started_us = clock_monotonic_us();
    int waited = 0;
    while (waited < grace_ms && atomic_load(&app->active_requests) != 0) {
        nanosleep(&pause, NULL);
        waited = (int)((clock_monotonic_us() - started_us) / 1000);
    }
    return waited;
}

void http_server_stop(struct http_server *server, int grace_ms)
{
    if (server == NULL)
        return;
    MHD_socket listener = MHD_quiesce_daemon(server->daemon);
    if (listener != MHD_INVALID_SOCKET)
        close(listener);
    if (server->metrics_daemon != NULL &&
        (listener = MHD_quiesce_daemon(server->metrics_daemon)) != MHD_INVALID_SOCKET)
        close(listener);
    atomic_store(&server->app->stopping, true);
    int waited = wait_for_requests(server->app, grace_ms);
    /* A connection kept alive may still begin a request while the daemon
     * stops, which would then cut it off with its work (a saved quote)
     * done and unanswered. From now on none begins (its connection is
     * closed unanswered, as a refused one would be); then wait for any
     * that began before this was seen. */
    atomic_store(&server->app->refusing, true);
    wait_for_requests(server->app, grace_ms - waited);
    /* A quote still with the store will resume its connection: the daemon
     * must outlive that call. From now on no quote is handed over (a request
     * still arriving after the grace gets 503), and the store answers each
     * one it has within twice its busy timeout, so this wait ends. */
    atomic_store(&server->app->closing_saves, true);
    struct timespec pause = {0, 1000 * 1000};
    while (atomic_load(&server->app->saves_in_flight) != 0)
        nanosleep(&pause, NULL);
    /* A quote handed back is committed but not yet answered: its request
     * runs again on its own thread to send the 201. Stopping the daemon now
     * would close those connections unanswered (the grace may be spent
     * already), so they get a short while of their own. */
    wait_for_requests(server->app, ANSWER_AFTER_STORE_MS);
    MHD_stop_daemon(server->daemon);
    stop_metrics(server);
    slow_clients_stop(server->slow_clients); /* every connection is closed */
    free(server);
}
