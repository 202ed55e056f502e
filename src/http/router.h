/*
 * The route table's entry and matching a path against it (router.c).
 */
#ifndef GQ_HTTP_ROUTER_H
#define GQ_HTTP_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "http/request.h"

/* What a route's request carries. */
enum route_body {
    BODY_NONE,         /* none is read */
    BODY_JSON,         /* a JSON object, required, parsed centrally */
    BODY_OPTIONAL_JSON /* a JSON object when one is sent; none is fine */
};

/* A route and its policy, which server.c checks in one place before the
 * handler runs (routes are written with designated initialisers, so a
 * column left out is the safe default: no body, no query, public, no
 * CORS, no catalog). */
struct route {
    const char *pattern; /* "/quote/{id}/accept": each {name} matches one segment */
    enum http_method method;
    http_handler *handler;
    enum route_body body;
    bool takes_query; /* query parameters are read; elsewhere any is refused */
    /* The key's scope the route needs (enum api_scope); SCOPE_NONE: none,
     * the route is public. */
    unsigned scope;
    /* A rule on the parsed body, run after every check above and before
     * the handler (POST /quote: a customer segment other than "individual"
     * needs a key's quotes:write). GQ_OK lets the request through; any
     * other code is answered with `err`. NULL: no rule. */
    enum gq_code (*authorize)(const struct http_request *request, struct gq_error *err);
    /* What the handler is told apart by, when one handler serves several
     * routes (which entity a price-list edit route edits). */
    int arg;
    bool cors;          /* may be called from a browser of a cors_origins origin */
    bool needs_catalog; /* answers from the catalog snapshot */
    bool unlimited;     /* no rate limit: liveness and the bodies built into the binary */
};

/* A path matched against the route table. */
struct route_match {
    const struct route *route; /* NULL: the path has no route for the method */
    unsigned allowed;          /* the methods the path has; 0: no such path */
    bool cors;                 /* a route of the path allows CORS (for OPTIONS too) */
    unsigned cors_methods;     /* the methods of the path whose routes allow CORS */
    /* The path's first route, whatever the method; NULL: no such path. */
    const struct route *path_route;
    char params[ROUTE_PARAMS_MAX][96]; /* the route's {...} segments, in order */
    size_t n_params;
};

/* Matches `path` and `method` against the route table. A segment longer
 * than a parameter's room cannot match anything. */
void router_match(const char *path, enum http_method method, struct route_match *out);

/* The same against the table of the metrics listener (metrics_listen),
 * which serves GET /metrics alone, without a key and never to a browser. */
void router_match_metrics_listener(const char *path, enum http_method method,
                                   struct route_match *out);

/* The route table, for tests and tools that walk it (the request fuzzer,
 * the metrics' route labels): *count routes. */
const struct route *router_routes(size_t *count);

/* "GET, HEAD, OPTIONS" for a set of methods. */
void router_allow_header(unsigned methods, char *buf, size_t size);

#endif
