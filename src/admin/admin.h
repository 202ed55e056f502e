/*
 * The admin API's handlers, one file per resource: keys.c (/admin/keys),
 * audit.c (/admin/audit), webhook_endpoints.c (/admin/webhook-endpoints),
 * price_lists.c (/admin/price-lists: drafts, diff, publish, prices),
 * price_list_edits.c (a draft's GPU models, SKUs, discount rules and
 * bundles) and price_list_preview.c (a quote against a draft). Every route
 * needs a key's scope, which the route table (http/router.c) names.
 */
#ifndef GQ_ADMIN_ADMIN_H
#define GQ_ADMIN_ADMIN_H

#include <stdbool.h>
#include <stdint.h>

#include "http/request.h"

enum MHD_Result keys_handle_create(struct http_request *request);
enum MHD_Result keys_handle_list(struct http_request *request);
enum MHD_Result keys_handle_get(struct http_request *request);
enum MHD_Result keys_handle_revoke(struct http_request *request);
enum MHD_Result audit_handle_list(struct http_request *request);
enum MHD_Result webhook_endpoints_handle_create(struct http_request *request);
enum MHD_Result webhook_endpoints_handle_list(struct http_request *request);
enum MHD_Result webhook_endpoints_handle_get(struct http_request *request);
enum MHD_Result webhook_endpoints_handle_update(struct http_request *request);
enum MHD_Result webhook_endpoints_handle_delete(struct http_request *request);
enum MHD_Result webhook_endpoints_handle_deliveries(struct http_request *request);
enum MHD_Result webhook_endpoints_handle_retry(struct http_request *request);
enum MHD_Result price_lists_handle_create(struct http_request *request);
enum MHD_Result price_lists_handle_list(struct http_request *request);
enum MHD_Result price_lists_handle_get(struct http_request *request);
enum MHD_Result price_lists_handle_diff(struct http_request *request);
enum MHD_Result price_lists_handle_put_price(struct http_request *request);
enum MHD_Result price_lists_handle_delete_price(struct http_request *request);
enum MHD_Result price_lists_handle_preview(struct http_request *request);
/* A draft's GPU model, SKU, discount rule or bundle, as the route's `arg`
 * (enum price_list_entity) says. */
enum MHD_Result price_lists_handle_put_entity(struct http_request *request);
enum MHD_Result price_lists_handle_delete_entity(struct http_request *request);
enum MHD_Result price_lists_handle_publish(struct http_request *request);

/* Shared by the price-list files: the path's {version} (1 to 15 digits),
 * and the 404 for one that is not. */
bool price_lists_read_version(const struct http_request *request, int64_t *version);
enum MHD_Result price_lists_reply_no_list(struct http_request *request);

#endif
