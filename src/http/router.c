/*
 * The route table: every path the service answers, its method and its
 * handler, in one place. Exact paths come before patterns with {id}, so
 * /catalog/bundles is never taken for the SKU "bundles".
 */
#include <stdio.h>
#include <string.h>

#include "http/http.h"

/* pattern, method, handler, takes_json, takes_query */
static const struct route routes[] = {
    {"/catalog", HTTP_GET, catalog_handle_list, false, true},
    {"/catalog/billing-modes", HTTP_GET, catalog_handle_billing_modes, false, false},
    {"/catalog/bundles", HTTP_GET, catalog_handle_bundles, false, false},
    {"/catalog/{id}", HTTP_GET, catalog_handle_sku, false, false},
    {"/quote", HTTP_POST, quote_handle_create, true, false},
    {"/quote/{id}", HTTP_GET, quote_handle_get, false, false},
    {"/quote/{id}/accept", HTTP_POST, quote_handle_accept, false, false},
    {"/recommend", HTTP_POST, recommend_handle, true, false},
    {"/healthz", HTTP_GET, health_handle_live, false, false},
    {"/readyz", HTTP_GET, health_handle_ready, false, false},
    {"/openapi.yaml", HTTP_GET, health_handle_openapi, false, false},
};

#define ROUTE_COUNT (sizeof routes / sizeof routes[0])

/* Matches `path` against `pattern`; a "{id}" segment matches one non-empty
 * segment, copied into `id`. */
static bool path_matches(const char *pattern, const char *path, char *id, size_t id_size)
{
    while (*pattern != '\0') {
        if (*pattern == '{') { /* "{id}", the only placeholder */
            size_t length = strcspn(path, "/");
            if (length == 0 || length >= id_size)
                return false;
            memcpy(id, path, length);
            id[length] = '\0';
            path += length;
            pattern += 4;
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

const struct route *router_match(const char *path, enum http_method method, char *id,
                                 size_t id_size, unsigned *allowed)
{
    *allowed = 0;
    const struct route *found = NULL;
    char candidate_id[96];
    for (size_t i = 0; i < ROUTE_COUNT; i++) {
        candidate_id[0] = '\0';
        if (!path_matches(routes[i].pattern, path, candidate_id, sizeof candidate_id))
            continue;
        *allowed |= (unsigned)routes[i].method | HTTP_OPTIONS;
        if (routes[i].method == HTTP_GET)
            *allowed |= HTTP_HEAD;
        if (found == NULL && method_fits(&routes[i], method)) {
            found = &routes[i];
            size_t length = strnlen(candidate_id, id_size - 1);
            memcpy(id, candidate_id, length);
            id[length] = '\0';
        }
    }
    return found;
}

void router_allow_header(unsigned methods, char *buf, size_t size)
{
    static const struct {
        unsigned method;
        const char *name;
    } names[] = {
        {HTTP_GET, "GET"}, {HTTP_HEAD, "HEAD"}, {HTTP_POST, "POST"}, {HTTP_OPTIONS, "OPTIONS"}};
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
