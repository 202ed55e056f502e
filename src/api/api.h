/*
 * The public API's handlers, one file per endpoint or resource: catalog.c
 * (GET /catalog and below), quote.c (POST /quote, GET /quote/{id}, accept,
 * cancel), quote_pdf.c (GET /quote/{id}/pdf), quote_list.c (GET /quote),
 * recommend.c (POST /recommend), customers.c (/customers),
 * verifications.c (/customers/{id}/verifications),
 * events.c (GET /events, /events/{id}) and health.c (/healthz, /readyz,
 * /openapi.yaml). The route table (http/router.c) says each one's policy.
 */
#ifndef GQ_API_API_H
#define GQ_API_API_H

#include <stdbool.h>
#include <stddef.h>

#include "http/request.h"

/* catalog.c: GET /catalog, /catalog/{id}, /catalog/billing-modes and
 * /catalog/bundles, from the snapshot's bodies. */
http_handler catalog_handle_list;
http_handler catalog_handle_sku;
http_handler catalog_handle_billing_modes;
http_handler catalog_handle_bundles;

/* quote.c: POST /quote, GET /quote/{id}, POST /quote/{id}/accept and
 * /quote/{id}/cancel. */
http_handler quote_handle_create;
http_handler quote_handle_get;
http_handler quote_handle_accept;
http_handler quote_handle_cancel;

/* The caller's namespace of Idempotency-Keys and client_reference_ids into
 * `owner` (`size` bytes): "key:<key id>" for a key, else "anon:<client
 * address>". No caller sees or collides with another's. */
void quote_owner_of(const struct http_request *request, char *owner, size_t size);

/* True when the request's key is bound to a customer and `customer_id` (a
 * quote's or an event's; "" for none) is not that customer: the quote or
 * event is answered as if it did not exist. False at once for any other
 * caller. */
bool quote_hidden_from(const struct http_request *request, const char *customer_id);

/* POST /quote's rule on its body (the route's `authorize`): GQ_OK, or the
 * 401/403 in `err` for a body naming a customer without a key's
 * quotes:write. */
enum gq_code quote_authorize_customer(const struct http_request *request, struct gq_error *err);

/* quote_pdf.c: GET /quote/{id}/pdf, the quotation as an A4 PDF. */
http_handler quote_pdf_handle;

/* quote_list.c: GET /quote, the saved quotes a page at a time. */
http_handler quote_handle_list;

/* customers.c: POST and GET /customers, GET, PATCH and DELETE
 * /customers/{id}. */
http_handler customers_handle_create;
http_handler customers_handle_list;
http_handler customers_handle_get;
http_handler customers_handle_update;
http_handler customers_handle_delete;

/* verifications.c: POST /customers/{id}/verifications and DELETE
 * /customers/{id}/verifications/{ver_id}. */
http_handler verifications_handle_create;
http_handler verifications_handle_revoke;

/* Adds `segments` and `verifications` (those that apply now) to the
 * rendered `customer` (whose "id" names it). */
struct store;
enum gq_code verifications_add_to_customer(struct store *store, json_t *customer,
                                           struct gq_error *err);

/* customer_rules.c: PUT and DELETE /customers/{id}/discount-rules/{rule_id}
 * and GET /customers/{id}/discount-rules. */
http_handler customer_rules_handle_put;
http_handler customer_rules_handle_delete;
http_handler customer_rules_handle_list;

/* A customer's own rules as a quote applies them: `rules` borrow their
 * strings from `documents`. customer_rules_clear() frees both. */
struct customer_rules {
    struct discount_rule *rules;
    size_t count;
    json_t *documents;
};

/* The rules of `customer_id` into *out (none: count 0). */
enum gq_code customer_rules_for_quote(struct store *store, const char *customer_id,
                                      struct customer_rules *out, struct gq_error *err);
void customer_rules_clear(struct customer_rules *rules);

/* recommend.c: POST /recommend. */
http_handler recommend_handle;

/* events.c: GET /events and /events/{id}. */
http_handler events_handle_list;
http_handler events_handle_get;

/* The event types the service writes: whether `type` is one, and their
 * names for a message ("quote.created, quote.accepted, ..."). */
bool events_type_is_known(const char *type);
void events_type_list(char *out, size_t size);

/* health.c: GET /healthz (alive), /readyz (the store answers, a catalog
 * is loaded) and /openapi.yaml (the contract built into the binary). */
http_handler health_handle_live;
http_handler health_handle_ready;
http_handler health_handle_openapi;

#endif
