/*
 * Rate limits (rate_limit.c): a token bucket per key in force, per client
 * address without one, and per address for keyless saved quotes.
 */
#ifndef GQ_HTTP_RATE_LIMIT_H
#define GQ_HTTP_RATE_LIMIT_H

#include <stdbool.h>

#include "core/error.h"
#include "http/request.h"
#include "util/config.h"

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

#endif
