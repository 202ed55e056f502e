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

/* keys.c: POST and GET /admin/keys, GET and DELETE /admin/keys/{id}. */
http_handler keys_handle_create;
http_handler keys_handle_list;
http_handler keys_handle_get;
http_handler keys_handle_revoke;

/* audit.c: GET /admin/audit. */
http_handler audit_handle_list;

/* webhook_endpoints.c: /admin/webhook-endpoints, one endpoint
 * (/admin/webhook-endpoints/{id}: GET, PATCH, DELETE) ... */
http_handler webhook_endpoints_handle_create;
http_handler webhook_endpoints_handle_list;
http_handler webhook_endpoints_handle_get;
http_handler webhook_endpoints_handle_update;
http_handler webhook_endpoints_handle_delete;

/* ... and its deliveries (…/deliveries, …/deliveries/{delivery}/retry). */
http_handler webhook_endpoints_handle_deliveries;
http_handler webhook_endpoints_handle_retry;

/* price_lists.c: /admin/price-lists (POST a draft, GET the list), one
 * list's GET, diff and publish, and a draft's prices. */
http_handler price_lists_handle_create;
http_handler price_lists_handle_list;
http_handler price_lists_handle_get;
http_handler price_lists_handle_diff;
http_handler price_lists_handle_publish;

http_handler price_lists_handle_put_price;
http_handler price_lists_handle_delete_price;

/* price_list_preview.c: POST /admin/price-lists/{version}/preview. */
http_handler price_lists_handle_preview;

/* price_list_edits.c: PUT and DELETE of a draft's GPU model, SKU,
 * discount rule or bundle, as the route's `arg` (enum price_list_entity)
 * says. */
http_handler price_lists_handle_put_entity;
http_handler price_lists_handle_delete_entity;

/* Shared by the price-list files: the path's {version} (1 to 15 digits),
 * and the 404 for one that is not. */
bool price_lists_read_version(const struct http_request *request, int64_t *version);
http_handler price_lists_reply_no_list;

#endif
