/*
 * GET /metrics: the registry of the HTTP layer's counters and the text
 * exposition (Prometheus 0.0.4) of everything the service counts: requests
 * by route, method and status; their durations per route; requests in
 * flight; quotes saved, replayed and accepted; the store's errors and
 * group-commit batches (store/counters.h); the catalog's version and age;
 * the build; the process (util/process_stats.h).
 *
 * The request counters are one block of sharded cells (util/metric.h),
 * sized once from the route table: [route label][method][status], then a
 * duration histogram per route label, then the quote events. Counting is
 * index arithmetic and a relaxed atomic add; only a scrape walks the
 * cells, and it prints the series that have counted something.
 */
#include "http/metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/router.h"
#include "http/snapshot.h"
#include "store/counters.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/metric.h"
#include "util/process_stats.h"

/* The statuses counted each under its own label; any other is "other". */
static const unsigned counted_statuses[] = {0,   200, 201, 204, 304, 400, 401, 403, 404, 405,
                                            408, 409, 413, 415, 422, 429, 431, 500, 503};
#define STATUS_SLOTS (sizeof counted_statuses / sizeof counted_statuses[0] + 1)
#define STATUS_OTHER (STATUS_SLOTS - 1)
#define STATUS_MAX 600

/* enum http_method's bits, in order; 0 (unknown) counts as OTHER. */
static const char *const method_names[] = {"GET",   "HEAD",   "POST",    "PUT",
                                           "PATCH", "DELETE", "OPTIONS", "OTHER"};
#define METHOD_SLOTS (sizeof method_names / sizeof method_names[0])

/* Request durations, in microseconds, and as Prometheus's le labels. */
static const uint64_t duration_bounds[] = {50,     100,     250,     500,    1000,   2500,
                                           5000,   10000,   25000,   50000,  100000, 250000,
                                           500000, 1000000, 2500000, 5000000};
static const char *const duration_labels[] = {
    "5e-05", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01",
    "0.025", "0.05",   "0.1",     "0.25",   "0.5",   "1",      "2.5",   "5"};
#define DURATION_BOUNDS (sizeof duration_bounds / sizeof duration_bounds[0])
_Static_assert(sizeof duration_labels / sizeof duration_labels[0] == DURATION_BOUNDS,
               "a label for each bound");

static const char *const quote_event_names[METRICS_QUOTE_EVENT_COUNT] = {
    [METRICS_QUOTE_SAVED] = "gpuquote_quotes_saved_total",
    [METRICS_QUOTE_REPLAYED] = "gpuquote_quotes_replayed_total",
    [METRICS_QUOTE_ACCEPTED] = "gpuquote_quotes_accepted_total",
};
static const char *const quote_event_help[METRICS_QUOTE_EVENT_COUNT] = {
    [METRICS_QUOTE_SAVED] = "Quotes written to the store.",
    [METRICS_QUOTE_REPLAYED] = "Retried POST /quote answered with the quote saved before.",
    [METRICS_QUOTE_ACCEPTED] = "Quotes accepted.",
};

struct metrics {
    const struct route *routes; /* the route table */
    size_t n_routes;
    size_t *label_of;    /* route index -> label index */
    const char **labels; /* the distinct patterns, then "other" */
    size_t n_labels;     /* with "other" */
    unsigned char status_slot[STATUS_MAX];
    struct metric_cells cells;
    size_t durations_first; /* the first histogram's first cell */
    size_t quotes_first;
};

/* ---- The registry. ---- */

/* Gives each route the label of the first route with its pattern. */
static bool assign_labels(struct metrics *metrics)
{
    metrics->label_of = calloc(metrics->n_routes, sizeof *metrics->label_of);
    metrics->labels = calloc(metrics->n_routes + 1, sizeof *metrics->labels);
    if (metrics->label_of == NULL || metrics->labels == NULL)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < metrics->n_routes; i++) {
        size_t label = 0;
        while (label < n && strcmp(metrics->labels[label], metrics->routes[i].pattern) != 0)
            label++;
        if (label == n)
            metrics->labels[n++] = metrics->routes[i].pattern;
        metrics->label_of[i] = label;
    }
    metrics->labels[n++] = "other";
    metrics->n_labels = n;
    return true;
}

static void assign_status_slots(struct metrics *metrics)
{
    memset(metrics->status_slot, STATUS_OTHER, sizeof metrics->status_slot);
    for (size_t i = 0; i < STATUS_SLOTS - 1; i++)
        metrics->status_slot[counted_statuses[i]] = (unsigned char)i;
}

struct metrics *metrics_new(void)
{
    struct metrics *metrics = calloc(1, sizeof *metrics);
    if (metrics == NULL)
        return NULL;
    metrics->routes = router_routes(&metrics->n_routes);
    if (!assign_labels(metrics)) {
        metrics_free(metrics);
        return NULL;
    }
    assign_status_slots(metrics);
    metrics->durations_first = metrics->n_labels * METHOD_SLOTS * STATUS_SLOTS;
    metrics->quotes_first =
        metrics->durations_first + metrics->n_labels * METRIC_HISTOGRAM_CELLS(DURATION_BOUNDS);
    if (!metric_cells_new(&metrics->cells, metrics->quotes_first + METRICS_QUOTE_EVENT_COUNT)) {
        metrics_free(metrics);
        return NULL;
    }
    return metrics;
}

void metrics_free(struct metrics *metrics)
{
    if (metrics == NULL)
        return;
    metric_cells_free(&metrics->cells);
    free(metrics->label_of);
    free(metrics->labels);
    free(metrics);
}

/* The label of `route`: by its place in the table, or, for a route of
 * another table (the metrics listener's), by its pattern. */
static size_t label_of_route(const struct metrics *metrics, const struct route *route)
{
    size_t other = metrics->n_labels - 1;
    if (route == NULL)
        return other;
    if (route >= metrics->routes && route < metrics->routes + metrics->n_routes)
        return metrics->label_of[route - metrics->routes];
    for (size_t label = 0; label < other; label++)
        if (strcmp(metrics->labels[label], route->pattern) == 0)
            return label;
    return other;
}

static size_t method_slot(unsigned method)
{
    if (method == 0 || method >= (1u << METHOD_SLOTS))
        return METHOD_SLOTS - 1;
    return (size_t)__builtin_ctz(method);
}

void metrics_count_request(struct metrics *metrics, const struct route *route, unsigned method,
                           unsigned status, int64_t microseconds)
{
    if (metrics == NULL)
        return;
    size_t label = label_of_route(metrics, route);
    size_t status_index = status < STATUS_MAX ? metrics->status_slot[status] : STATUS_OTHER;
    metric_add(&metrics->cells,
               (label * METHOD_SLOTS + method_slot(method)) * STATUS_SLOTS + status_index, 1);
    metric_observe(&metrics->cells,
                   metrics->durations_first + label * METRIC_HISTOGRAM_CELLS(DURATION_BOUNDS),
                   duration_bounds, DURATION_BOUNDS, microseconds > 0 ? (uint64_t)microseconds : 0);
}

void metrics_count_quote(struct metrics *metrics, enum metrics_quote_event event)
{
    if (metrics != NULL && (unsigned)event < METRICS_QUOTE_EVENT_COUNT)
        metric_add(&metrics->cells, metrics->quotes_first + (size_t)event, 1);
}

/* ---- The exposition. ---- */

/* A growing text; `failed` once memory ran out (everything after is dropped). */
struct text {
    char *data;
    size_t length, capacity;
    bool failed;
};

static void text_printf(struct text *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void text_printf(struct text *text, const char *format, ...)
{
    for (int attempt = 0; attempt < 2 && !text->failed; attempt++) {
        size_t room = text->capacity - text->length;
        va_list args;
        va_start(args, format);
        int written = vsnprintf(text->data + text->length, room, format, args);
        va_end(args);
        if (written < 0) {
            text->failed = true;
            return;
        }
        if ((size_t)written < room) {
            text->length += (size_t)written;
            return;
        }
        size_t capacity = text->capacity * 2 + (size_t)written + 1;
        char *grown = realloc(text->data, capacity);
        if (grown == NULL) {
            text->failed = true;
            return;
        }
        text->data = grown;
        text->capacity = capacity;
    }
}

static void describe(struct text *text, const char *name, const char *type, const char *help)
{
    text_printf(text, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void render_requests(struct text *text, const struct metrics *metrics)
{
    describe(text, "gpuquote_http_requests_total", "counter",
             "HTTP requests answered, by route pattern, method and status (0: none sent).");
    for (size_t label = 0; label < metrics->n_labels; label++)
        for (size_t method = 0; method < METHOD_SLOTS; method++)
            for (size_t status = 0; status < STATUS_SLOTS; status++) {
                uint64_t count = metric_read(
                    &metrics->cells, (label * METHOD_SLOTS + method) * STATUS_SLOTS + status);
                if (count == 0)
                    continue;
                char status_label[16];
                if (status == STATUS_OTHER)
                    snprintf(status_label, sizeof status_label, "other");
                else
                    snprintf(status_label, sizeof status_label, "%u", counted_statuses[status]);
                text_printf(text,
                            "gpuquote_http_requests_total{route=\"%s\",method=\"%s\","
                            "status=\"%s\"} %llu\n",
                            metrics->labels[label], method_names[method], status_label,
                            (unsigned long long)count);
            }
}

static void render_duration(struct text *text, const struct metrics *metrics, size_t label)
{
    uint64_t cumulative[DURATION_BOUNDS + 1], sum_us;
    metric_histogram_read(
        &metrics->cells, metrics->durations_first + label * METRIC_HISTOGRAM_CELLS(DURATION_BOUNDS),
        DURATION_BOUNDS, cumulative, &sum_us);
    uint64_t count = cumulative[DURATION_BOUNDS];
    if (count == 0)
        return;
    const char *route = metrics->labels[label];
    for (size_t i = 0; i < DURATION_BOUNDS; i++)
        text_printf(text,
                    "gpuquote_http_request_duration_seconds_bucket{route=\"%s\",le=\"%s\"} %llu\n",
                    route, duration_labels[i], (unsigned long long)cumulative[i]);
    text_printf(text,
                "gpuquote_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n",
                route, (unsigned long long)count);
    text_printf(text, "gpuquote_http_request_duration_seconds_sum{route=\"%s\"} %llu.%06llu\n",
                route, (unsigned long long)(sum_us / 1000000),
                (unsigned long long)(sum_us % 1000000));
    text_printf(text, "gpuquote_http_request_duration_seconds_count{route=\"%s\"} %llu\n", route,
                (unsigned long long)count);
}

static void render_durations(struct text *text, const struct metrics *metrics)
{
    describe(text, "gpuquote_http_request_duration_seconds", "histogram",
             "Time from a request's first line to the end of its answer, by route pattern.");
    for (size_t label = 0; label < metrics->n_labels; label++)
        render_duration(text, metrics, label);
}

static void render_in_flight(struct text *text, const struct app *app)
{
    describe(text, "gpuquote_http_requests_in_flight", "gauge",
             "Requests begun and not yet completed (this scrape among them).");
    text_printf(text, "gpuquote_http_requests_in_flight %d\n",
                atomic_load_explicit(&app->active_requests, memory_order_relaxed));
}

static void render_quotes(struct text *text, const struct metrics *metrics)
{
    for (size_t event = 0; event < METRICS_QUOTE_EVENT_COUNT; event++) {
        describe(text, quote_event_names[event], "counter", quote_event_help[event]);
        text_printf(
            text, "%s %llu\n", quote_event_names[event],
            (unsigned long long)metric_read(&metrics->cells, metrics->quotes_first + event));
    }
}

static void render_store(struct text *text)
{
    struct store_counters counters;
    store_counters_read(&counters);
    describe(text, "gpuquote_store_errors_total", "counter",
             "Database failures by kind (busy, unreachable, no_memory, storage, other).");
    for (size_t kind = 0; kind < STORE_ERROR_KIND_COUNT; kind++)
        text_printf(text, "gpuquote_store_errors_total{kind=\"%s\"} %llu\n",
                    store_error_kind_name((enum store_error_kind)kind),
                    (unsigned long long)counters.errors[kind]);
    describe(text, "gpuquote_store_health_checks_total", "counter",
             "Checks of the database made for /readyz (at most one a second).");
    text_printf(text, "gpuquote_store_health_checks_total %llu\n",
                (unsigned long long)counters.health_checks);
    describe(text, "gpuquote_quote_batch_size", "histogram",
             "Quotes written per group-commit transaction.");
    for (size_t i = 0; i < STORE_BATCH_BOUNDS; i++)
        text_printf(text, "gpuquote_quote_batch_size_bucket{le=\"%llu\"} %llu\n",
                    (unsigned long long)store_batch_bounds[i],
                    (unsigned long long)counters.batch_cumulative[i]);
    uint64_t batches = counters.batch_cumulative[STORE_BATCH_BOUNDS];
    text_printf(text, "gpuquote_quote_batch_size_bucket{le=\"+Inf\"} %llu\n",
                (unsigned long long)batches);
    text_printf(text, "gpuquote_quote_batch_size_sum %llu\n",
                (unsigned long long)counters.batch_sum);
    text_printf(text, "gpuquote_quote_batch_size_count %llu\n", (unsigned long long)batches);
}

static void render_catalog(struct text *text, const struct app *app)
{
    struct snapshot *snapshot = snapshot_acquire((struct app *)app);
    if (snapshot == NULL)
        return;
    const struct catalog *catalog = snapshot->catalog;
    describe(text, "gpuquote_catalog_version", "gauge", "The price-list version served.");
    text_printf(text, "gpuquote_catalog_version %lld\n", (long long)catalog->price_list_version);
    describe(text, "gpuquote_catalog_age_seconds", "gauge",
             "Seconds since the price list served was last changed.");
    int64_t age = clock_now_seconds() - catalog->price_list_updated_at;
    text_printf(text, "gpuquote_catalog_age_seconds %lld\n", (long long)(age > 0 ? age : 0));
    snapshot_release(snapshot);
}

static void render_build(struct text *text, const struct app *app)
{
    describe(text, "gpuquote_build_info", "gauge",
             "Always 1: the version running and the database backend it serves from.");
    text_printf(text, "gpuquote_build_info{version=\"%s\",backend=\"%s\"} 1\n", GQ_VERSION,
                app->store != NULL ? store_backend_name(app->store) : "none");
}

static void render_process(struct text *text)
{
    struct process_stats stats;
    if (!process_stats_read(&stats))
        return;
    describe(text, "process_cpu_seconds_total", "counter", "User and system CPU time spent.");
    text_printf(text, "process_cpu_seconds_total %.2f\n", stats.cpu_seconds);
    describe(text, "process_resident_memory_bytes", "gauge", "Resident memory size.");
    text_printf(text, "process_resident_memory_bytes %llu\n",
                (unsigned long long)stats.resident_bytes);
    describe(text, "process_virtual_memory_bytes", "gauge", "Virtual memory size.");
    text_printf(text, "process_virtual_memory_bytes %llu\n",
                (unsigned long long)stats.virtual_bytes);
    describe(text, "process_open_fds", "gauge", "Open file descriptors.");
    text_printf(text, "process_open_fds %llu\n", (unsigned long long)stats.open_fds);
    if (stats.max_fds > 0) {
        describe(text, "process_max_fds", "gauge", "The limit of open file descriptors.");
        text_printf(text, "process_max_fds %llu\n", (unsigned long long)stats.max_fds);
    }
    describe(text, "process_start_time_seconds", "gauge",
             "When the process started, in seconds since the epoch.");
    text_printf(text, "process_start_time_seconds %.2f\n", stats.start_time_seconds);
}

char *metrics_render(const struct app *app, size_t *length)
{
    struct text text = {.capacity = 16384};
    text.data = malloc(text.capacity);
    if (text.data == NULL)
        return NULL;
    text.data[0] = '\0';
    if (app->metrics != NULL) {
        render_requests(&text, app->metrics);
        render_durations(&text, app->metrics);
    }
    render_in_flight(&text, app);
    if (app->metrics != NULL)
        render_quotes(&text, app->metrics);
    render_store(&text);
    render_catalog(&text, app);
    render_build(&text, app);
    render_process(&text);
    if (text.failed) {
        free(text.data);
        return NULL;
    }
    *length = text.length;
    return text.data;
}

enum MHD_Result metrics_handle(struct http_request *request)
{
    size_t length = 0;
    char *body = metrics_render(request->app, &length);
    if (body == NULL)
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, body, MHD_RESPMEM_MUST_FREE);
    if (response == NULL) {
        free(body);
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    }
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, METRICS_CONTENT_TYPE);
    request->response_bytes = length;
    return reply_queue(request, MHD_HTTP_OK, response);
}
