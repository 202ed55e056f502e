/*
 * GET /metrics: the service's counters in the Prometheus text exposition
 * format 0.0.4 (metrics.c). docs/operations.md's "Metrics" section lists every series.
 *
 * The request counters are keyed by the route table's pattern
 * ("/quote/{id}", never the path as sent, so that a client cannot make a
 * series per quote), the method and the status; a path no route has is
 * counted under route "other". Every count is a relaxed atomic add into
 * the counting thread's shard (util/metric.h): no lock and no allocation
 * per request.
 */
#ifndef GQ_HTTP_METRICS_H
#define GQ_HTTP_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "http/request.h"

struct app;
struct route;
struct metrics;

/* The Content-Type of the exposition format. */
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

enum metrics_quote_event {
    METRICS_QUOTE_SAVED,    /* a quote written by the store (201) */
    METRICS_QUOTE_REPLAYED, /* a retried POST /quote answered with the quote saved before */
    METRICS_QUOTE_ACCEPTED,
    METRICS_QUOTE_EVENT_COUNT
};

/* The counters of the routes router_routes() lists; NULL when memory runs
 * out. */
struct metrics *metrics_new(void);

/* NULL is fine. */
void metrics_free(struct metrics *metrics);

/* One request ended: answered `status` (0: none was sent) after
 * `microseconds`. `route` is the path's route whatever the method (NULL:
 * a path no route has); `method` an enum http_method (0: unknown). A NULL
 * `metrics` counts nothing. */
void metrics_count_request(struct metrics *metrics, const struct route *route, unsigned method,
                           unsigned status, int64_t microseconds);

void metrics_count_quote(struct metrics *metrics, enum metrics_quote_event event);

/* GET /metrics, on the main listener (with a key) or metrics_listen. */
http_handler metrics_handle;

/* The whole exposition for `app`, NUL-terminated, for the caller to free;
 * NULL when memory runs out. */
char *metrics_render(const struct app *app, size_t *length);

#endif
