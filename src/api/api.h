/*
 * The public API's handlers, one file per endpoint or resource: catalog.c
 * (GET /catalog and below), quote.c (POST /quote, GET /quote/{id}, accept,
 * cancel), quote_list.c (GET /quote), recommend.c (POST /recommend),
 * events.c (GET /events, /events/{id}) and health.c (/healthz, /readyz,
 * /openapi.yaml). The route table (http/router.c) says each one's policy.
 */
#ifndef GQ_API_API_H
#define GQ_API_API_H

#include <stdbool.h>
#include <stddef.h>

#include "http/request.h"

enum MHD_Result catalog_handle_list(struct http_request *request);
enum MHD_Result catalog_handle_sku(struct http_request *request);
enum MHD_Result catalog_handle_billing_modes(struct http_request *request);
enum MHD_Result catalog_handle_bundles(struct http_request *request);
enum MHD_Result quote_handle_create(struct http_request *request);
enum MHD_Result quote_handle_get(struct http_request *request);
enum MHD_Result quote_handle_accept(struct http_request *request);
enum MHD_Result quote_handle_cancel(struct http_request *request);
enum MHD_Result quote_handle_list(struct http_request *request);

/* POST /quote's rule on its body (the route's `authorize`): GQ_OK, or the
 * 401/403 in `err` for a customer segment that needs a key's quotes:write. */
enum gq_code quote_authorize_segment(const struct http_request *request, struct gq_error *err);
enum MHD_Result recommend_handle(struct http_request *request);
enum MHD_Result events_handle_list(struct http_request *request);
enum MHD_Result events_handle_get(struct http_request *request);

/* The event types the service writes (events.c): whether `type` is one,
 * and their names for a message ("quote.created, quote.accepted, ..."). */
bool events_type_is_known(const char *type);
void events_type_list(char *out, size_t size);

enum MHD_Result health_handle_live(struct http_request *request);
enum MHD_Result health_handle_ready(struct http_request *request);
enum MHD_Result health_handle_openapi(struct http_request *request);

#endif
