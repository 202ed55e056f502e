/*
 * The route table: every path the service answers, its method, its
 * handler and its policy (what body it reads, whether it reads a query,
 * the key scope it needs, a rule on the parsed body, CORS, whether it
 * answers from the catalog, a handler's argument), in one place; server.c
 * and policy.c check the policy before any handler runs. Exact
 * paths come before patterns with {...}, so /catalog/bundles is never
 * taken for the SKU "bundles".
 */
#include <stdio.h>
#include <string.h>

#include "admin/admin.h"
#include "api/api.h"
#include "codec/price_list_document.h"
#include "http/metrics.h"
#include "http/request.h"
#include "http/router.h"
#include "http/static.h"
#include "store/store.h"
#include "util/api_key.h"

/* May be called from a browser of a cors_origins origin (the storefront's
 * calls): the answer carries CORS headers. Whether a key is needed is
 * `.scope`'s business. */
#define BROWSER_CALLABLE .cors = true
#define CATALOG .needs_catalog = true

static const struct route routes[] = {
    {"/catalog", HTTP_GET, catalog_handle_list, .takes_query = true, BROWSER_CALLABLE, CATALOG},
    {"/catalog/billing-modes", HTTP_GET, catalog_handle_billing_modes, BROWSER_CALLABLE, CATALOG},
    {"/catalog/bundles", HTTP_GET, catalog_handle_bundles, BROWSER_CALLABLE, CATALOG},
    {"/catalog/{id}", HTTP_GET, catalog_handle_sku, BROWSER_CALLABLE, CATALOG},
    {"/quote", HTTP_POST, quote_handle_create, .body = BODY_JSON,
     .authorize = quote_authorize_customer, BROWSER_CALLABLE, CATALOG},
    {"/quote", HTTP_GET, quote_handle_list, .takes_query = true, .scope = SCOPE_QUOTES_READ},
    {"/quote/{id}", HTTP_GET, quote_handle_get, BROWSER_CALLABLE, CATALOG},
    {"/quote/{id}/pdf", HTTP_GET, quote_pdf_handle, .takes_query = true, BROWSER_CALLABLE, CATALOG},
    {"/quote/{id}/accept", HTTP_POST, quote_handle_accept, .body = BODY_OPTIONAL_JSON,
     .scope = SCOPE_QUOTES_ACCEPT, BROWSER_CALLABLE, CATALOG},
    {"/quote/{id}/cancel", HTTP_POST, quote_handle_cancel, .body = BODY_OPTIONAL_JSON,
     .scope = SCOPE_QUOTES_ACCEPT, BROWSER_CALLABLE, CATALOG},
    {"/recommend", HTTP_POST, recommend_handle, .body = BODY_JSON, BROWSER_CALLABLE, CATALOG},
    {"/admin/keys", HTTP_POST, keys_handle_create, .body = BODY_JSON, .scope = SCOPE_KEYS_WRITE},
    {"/admin/keys", HTTP_GET, keys_handle_list, .scope = SCOPE_KEYS_WRITE},
    {"/admin/keys/{id}", HTTP_GET, keys_handle_get, .scope = SCOPE_KEYS_WRITE},
    {"/admin/keys/{id}", HTTP_DELETE, keys_handle_revoke, .scope = SCOPE_KEYS_WRITE},
    {"/admin/promotion-codes", HTTP_POST, promotion_codes_handle_create, .body = BODY_JSON,
     .scope = SCOPE_CATALOG_WRITE},
    {"/admin/promotion-codes", HTTP_GET, promotion_codes_handle_list, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/promotion-codes/{id}", HTTP_GET, promotion_codes_handle_get,
     .scope = SCOPE_CATALOG_WRITE},
    {"/admin/promotion-codes/{id}", HTTP_PATCH, promotion_codes_handle_update, .body = BODY_JSON,
     .scope = SCOPE_CATALOG_WRITE},
    {"/admin/audit", HTTP_GET, audit_handle_list, .takes_query = true,
     .scope = SCOPE_CATALOG_WRITE},
    {"/events", HTTP_GET, events_handle_list, .takes_query = true, .scope = SCOPE_QUOTES_READ},
    {"/events/{id}", HTTP_GET, events_handle_get, .scope = SCOPE_QUOTES_READ},
    {"/admin/webhook-endpoints", HTTP_POST, webhook_endpoints_handle_create, .body = BODY_JSON,
     .scope = SCOPE_WEBHOOKS_WRITE},
    {"/admin/webhook-endpoints", HTTP_GET, webhook_endpoints_handle_list,
     .scope = SCOPE_WEBHOOKS_WRITE},
    {"/admin/webhook-endpoints/{id}", HTTP_GET, webhook_endpoints_handle_get,
     .scope = SCOPE_WEBHOOKS_WRITE},
    {"/admin/webhook-endpoints/{id}", HTTP_PATCH, webhook_endpoints_handle_update,
     .body = BODY_JSON, .scope = SCOPE_WEBHOOKS_WRITE},
    {"/admin/webhook-endpoints/{id}", HTTP_DELETE, webhook_endpoints_handle_delete,
     .scope = SCOPE_WEBHOOKS_WRITE},
    {"/admin/webhook-endpoints/{id}/deliveries", HTTP_GET, webhook_endpoints_handle_deliveries,
     .takes_query = true, .scope = SCOPE_WEBHOOKS_WRITE},
    {"/admin/webhook-endpoints/{id}/deliveries/{delivery}/retry", HTTP_POST,
     webhook_endpoints_handle_retry, .scope = SCOPE_WEBHOOKS_WRITE},
    {"/customers", HTTP_POST, customers_handle_create, .body = BODY_JSON,
     .scope = SCOPE_CUSTOMERS_WRITE},
    {"/customers", HTTP_GET, customers_handle_list, .takes_query = true,
     .scope = SCOPE_CUSTOMERS_READ},
    {"/customers/{id}", HTTP_GET, customers_handle_get, .scope = SCOPE_CUSTOMERS_READ},
    {"/customers/{id}", HTTP_PATCH, customers_handle_update, .body = BODY_JSON,
     .scope = SCOPE_CUSTOMERS_WRITE},
    {"/customers/{id}", HTTP_DELETE, customers_handle_delete, .scope = SCOPE_CUSTOMERS_WRITE},
    {"/customers/{id}/verifications", HTTP_POST, verifications_handle_create, .body = BODY_JSON,
     .scope = SCOPE_CUSTOMERS_VERIFY},
    {"/customers/{id}/verifications/{ver_id}", HTTP_DELETE, verifications_handle_revoke,
     .scope = SCOPE_CUSTOMERS_VERIFY},
    {"/customers/{id}/discount-rules", HTTP_GET, customer_rules_handle_list,
     .scope = SCOPE_CATALOG_WRITE},
    {"/customers/{id}/discount-rules/{rule_id}", HTTP_PUT, customer_rules_handle_put,
     .body = BODY_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/customers/{id}/discount-rules/{rule_id}", HTTP_DELETE, customer_rules_handle_delete,
     .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists", HTTP_POST, price_lists_handle_create, .body = BODY_OPTIONAL_JSON,
     .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists", HTTP_GET, price_lists_handle_list, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}", HTTP_GET, price_lists_handle_get,
     .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/diff", HTTP_GET, price_lists_handle_diff,
     .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/publish", HTTP_POST, price_lists_handle_publish,
     .body = BODY_OPTIONAL_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/cancel", HTTP_POST, price_lists_handle_cancel,
     .body = BODY_OPTIONAL_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/rebase", HTTP_POST, price_lists_handle_rebase,
     .body = BODY_OPTIONAL_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/prices/{sku}/{mode}", HTTP_PUT, price_lists_handle_put_price,
     .body = BODY_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/prices/{sku}/{mode}", HTTP_DELETE,
     price_lists_handle_delete_price, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/preview", HTTP_POST, price_lists_handle_preview, CATALOG,
     .body = BODY_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/gpu-models/{id}", HTTP_PUT, price_lists_handle_put_entity,
     .arg = PRICE_LIST_GPU_MODEL, .body = BODY_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/gpu-models/{id}", HTTP_DELETE, price_lists_handle_delete_entity,
     .arg = PRICE_LIST_GPU_MODEL, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/skus/{id}", HTTP_PUT, price_lists_handle_put_entity,
     .arg = PRICE_LIST_SKU, .body = BODY_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/skus/{id}", HTTP_DELETE, price_lists_handle_delete_entity,
     .arg = PRICE_LIST_SKU, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/discount-rules/{id}", HTTP_PUT, price_lists_handle_put_entity,
     .arg = PRICE_LIST_DISCOUNT_RULE, .body = BODY_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/discount-rules/{id}", HTTP_DELETE,
     price_lists_handle_delete_entity, .arg = PRICE_LIST_DISCOUNT_RULE,
     .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/bundles/{id}", HTTP_PUT, price_lists_handle_put_entity,
     .arg = PRICE_LIST_BUNDLE, .body = BODY_JSON, .scope = SCOPE_CATALOG_WRITE},
    {"/admin/price-lists/{version}/bundles/{id}", HTTP_DELETE, price_lists_handle_delete_entity,
     .arg = PRICE_LIST_BUNDLE, .scope = SCOPE_CATALOG_WRITE},
    {"/metrics", HTTP_GET, metrics_handle, .scope = SCOPE_METRICS_READ},
    /* Liveness reads nothing and answers a constant: a probe every few
     * seconds from the orchestrator must never meet a 429. Readiness
     * reaches for the store, so it is limited like any call. */
    {"/healthz", HTTP_GET, health_handle_live, BROWSER_CALLABLE, .unlimited = true},
    {"/readyz", HTTP_GET, health_handle_ready, BROWSER_CALLABLE, CATALOG},
    /* Bodies built into the binary, as cheap as a probe: not limited, so a
     * page's assets never count against its calls. */
    {"/openapi.yaml", HTTP_GET, health_handle_openapi, BROWSER_CALLABLE, .unlimited = true},
    {"/", HTTP_GET, static_handle_index, BROWSER_CALLABLE, .unlimited = true},
    {"/static/{id}", HTTP_GET, static_handle_asset, BROWSER_CALLABLE, .unlimited = true},
};

#define ROUTE_COUNT (sizeof routes / sizeof routes[0])

/* The metrics listener's table: what a scraper on the private address
 * needs, without a key (the address is the access control) or a limit. */
static const struct route metrics_listener_routes[] = {
    {"/metrics", HTTP_GET, metrics_handle, .unlimited = true},
};

const struct route *router_routes(size_t *count)
{
    *count = ROUTE_COUNT;
    return routes;
}

/* Matches `path` against `pattern`; each "{name}" matches one non-empty
 * segment, copied into params[]. */
static bool path_matches(const char *pattern, const char *path, char params[ROUTE_PARAMS_MAX][96],
                         size_t *n_params)
{
    *n_params = 0;
    while (*pattern != '\0') {
        if (*pattern == '{') {
            size_t length = strcspn(path, "/");
            if (length == 0 || length >= sizeof params[0] || *n_params == ROUTE_PARAMS_MAX)
                return false;
            memcpy(params[*n_params], path, length);
            params[*n_params][length] = '\0';
            (*n_params)++;
            path += length;
            pattern = strchr(pattern, '}') + 1;
            continue;
        }
        if (*pattern != *path)
            return false;
        pattern++;
        path++;
    }
    return *path == '\0';
}

/* GET routes answer HEAD too. */
static bool method_fits(const struct route *route, enum http_method method)
{
    return route->method == method || (route->method == HTTP_GET && method == HTTP_HEAD);
}

/* Matches `path` and `method` against `count` routes of `table`. */
static void match_in(const struct route *table, size_t count, const char *path,
                     enum http_method method, struct route_match *out)
{
    out->route = NULL;
    out->path_route = NULL;
    out->allowed = 0;
    out->cors = false;
    out->cors_methods = 0;
    out->n_params = 0;
    char params[ROUTE_PARAMS_MAX][96];
    size_t n_params;
    for (size_t i = 0; i < count; i++) {
        const struct route *route = &table[i];
        /* Most routes part from the path at its first letter (every
         * pattern starts with '/'). */
        bool first_differs =
            path[0] == '\0' || (route->pattern[1] != path[1] && route->pattern[1] != '{');
        if (first_differs || !path_matches(route->pattern, path, params, &n_params))
            continue;
        if (out->path_route == NULL)
            out->path_route = route;
        out->allowed |= (unsigned)route->method | HTTP_OPTIONS;
        if (route->method == HTTP_GET)
            out->allowed |= HTTP_HEAD;
        out->cors = out->cors || route->cors;
        if (route->cors)
            out->cors_methods |= (unsigned)route->method | HTTP_OPTIONS |
                                 (route->method == HTTP_GET ? (unsigned)HTTP_HEAD : 0u);
        if (out->route == NULL && method_fits(route, method)) {
            out->route = route;
            memcpy(out->params, params, sizeof params);
            out->n_params = n_params;
        }
    }
}

void router_match(const char *path, enum http_method method, struct route_match *out)
{
    match_in(routes, ROUTE_COUNT, path, method, out);
    /* A path no route has: its 404 may be read from a browser, as any
     * answer of the public API, but not under the admin API. */
    if (out->allowed == 0)
        out->cors = strncmp(path, "/admin/", 7) != 0 && strcmp(path, "/admin") != 0 &&
                    strcmp(path, "/metrics") != 0;
}

void router_match_metrics_listener(const char *path, enum http_method method,
                                   struct route_match *out)
{
    match_in(metrics_listener_routes,
             sizeof metrics_listener_routes / sizeof metrics_listener_routes[0], path, method, out);
}

void router_allow_header(unsigned methods, char *buf, size_t size)
{
    static const struct {
        unsigned method;
        const char *name;
    } names[] = {{HTTP_GET, "GET"},        {HTTP_HEAD, "HEAD"},   {HTTP_POST, "POST"},
                 {HTTP_PUT, "PUT"},        {HTTP_PATCH, "PATCH"}, {HTTP_DELETE, "DELETE"},
                 {HTTP_OPTIONS, "OPTIONS"}};
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(methods & names[i].method))
            continue;
        int written = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names[i].name);
        if (written < 0 || (size_t)written >= size - used)
            return;
        used += (size_t)written;
    }
}
