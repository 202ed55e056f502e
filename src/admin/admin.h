/*
 * The admin API's handlers, one file per resource: keys.c (/admin/keys),
 * audit.c (/admin/audit), webhook_endpoints.c (/admin/webhook-endpoints),
 * price_lists.c (/admin/price-lists: drafts, diff, publish, prices),
 * price_list_edits.c (a draft's GPU models, SKUs, discount rules and
 * bundles), price_list_preview.c (a quote against a draft),
 * price_list_lifecycle.c (cancel, rebase) and promotion_codes.c
 * (/admin/promotion-codes, and a code as a quote uses it). Every route
 * needs a key's scope, which the route table (http/router.c) names.
 */
#ifndef GQ_ADMIN_ADMIN_H
#define GQ_ADMIN_ADMIN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "core/catalog.h"
#include "http/request.h"
#include "store/store.h"

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
/* The list of `version` as JSON, with `status`; a 201 names it in Location. */
enum MHD_Result price_lists_reply(struct http_request *request, unsigned status, int64_t version);

/* price_list_lifecycle.c: POST .../cancel and .../rebase, and the 409
 * that lists what a publish or a rebase found. */
http_handler price_lists_handle_cancel;
http_handler price_lists_handle_rebase;
/* {"revert_scheduled": "allow" | "refuse"}: absent is refuse. */
enum gq_code price_lists_read_revert(json_t *body, bool *allow, struct gq_error *err);
enum MHD_Result price_lists_reply_listing(struct http_request *request, const struct gq_error *err,
                                          const char *key, json_t *entries);

/* promotion_codes.c: the admin API, and a code as a quote uses it. */
http_handler promotion_codes_handle_create;
http_handler promotion_codes_handle_list;
http_handler promotion_codes_handle_get;
http_handler promotion_codes_handle_update;

/* A promotion code a quote is priced with: its name and its rule, which
 * borrows from `discount`. */
struct promotion_use {
    char code[STORE_PROMOTION_CODE_SIZE];
    json_t *discount;
    struct discount_rule rule;
};

/* The code `typed` looked up and checked for a quote at `now` (422
 * promotion_code_invalid with the reason when it cannot be used); on
 * GQ_OK, *use holds it (promotion_use_clear() frees it). */
enum gq_code promotion_codes_for_quote(struct http_request *request, const char *typed, int64_t now,
                                       struct promotion_use *use, struct gq_error *err);
void promotion_use_clear(struct promotion_use *use);

/* The promotion code a stored request body names, upper-cased into `out`;
 * false when it names none. */
bool promotion_codes_of_request(const char *request_json, char out[STORE_PROMOTION_CODE_SIZE]);

#endif
