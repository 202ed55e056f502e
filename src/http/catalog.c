/*
 * GET /catalog, /catalog/{id}, /catalog/billing-modes, /catalog/bundles.
 *
 * Bodies come from the snapshot, rendered once per catalog load. A filtered
 * listing is the snapshot's prefix, the matching SKUs' pre-rendered bodies
 * and a closing bracket, so no JSON is built per request; its ETag is
 * derived from the full catalog's tag and the canonical query.
 */
#include <stdlib.h>
#include <string.h>

#include "core/catalog_query.h"
#include "http/http.h"

/* ---- handlers --------------------------------------------------------- */

struct query_parse {
    struct catalog_query query;
    struct gq_error err;
};

static enum MHD_Result collect_parameter(void *context, enum MHD_ValueKind kind, const char *name,
                                         const char *value)
{
    (void)kind;
    struct query_parse *parse = context;
    if (name[0] == '\0' && value == NULL)
        return MHD_YES; /* "a=1&&b=2": an empty pair, like a trailing '&' */
    return catalog_query_set(&parse->query, name, value, &parse->err) == GQ_OK ? MHD_YES : MHD_NO;
}

/* The filtered listing's tag: the full catalog's tag and the query. */
static void filtered_etag(const struct snapshot *snapshot, const struct catalog_query *query,
                          char etag[48])
{
    char canonical[CATALOG_QUERY_CANONICAL_SIZE];
    catalog_query_canonical(query, canonical);
    snapshot_etag(snapshot->catalog_body.etag, strlen(snapshot->catalog_body.etag), canonical,
                  strlen(canonical), etag);
}

/* A listing is the snapshot's prefix, the chosen SKU bodies and "]}",
 * copied into one buffer that libmicrohttpd sends as it is. (Pointing an
 * iovec at the snapshot instead avoided the copy but is unsafe with 0.9.75:
 * it keeps the iovec array in the connection's 16 KB pool, and a listing of
 * 1,000 SKUs overflowed it and crashed the daemon destroying the response.) */
static struct MHD_Response *make_listing(const struct snapshot *snapshot, const size_t *indices,
                                         size_t count, size_t *length)
{
    char *body = snapshot_render_listing(snapshot, indices, count, length);
    struct MHD_Response *response =
        body ? MHD_create_response_from_buffer(*length, body, MHD_RESPMEM_MUST_FREE) : NULL;
    if (response == NULL)
        free(body);
    return response;
}

static enum MHD_Result reply_filtered(struct http_request *request,
                                      const struct catalog_query *query)
{
    const struct snapshot *snapshot = request->snapshot;
    char etag[48];
    filtered_etag(snapshot, query, etag);
    size_t *indices = malloc((snapshot->catalog->n_skus + 1) * sizeof *indices);
    if (indices == NULL)
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    size_t count = catalog_query_run(snapshot->catalog, query, indices);
    if (reply_etag_matches(request, etag)) {
        /* The query still runs: the 304 says how long the listing is. */
        size_t full_length = snapshot_listing_length(snapshot, indices, count);
        free(indices);
        return reply_not_modified(request, full_length, etag);
    }
    size_t length = 0;
    struct MHD_Response *response = make_listing(snapshot, indices, count, &length);
    free(indices);
    return reply_cacheable(request, response, JSON_CONTENT_TYPE, length, etag);
}

enum MHD_Result catalog_handle_list(struct http_request *request)
{
    struct query_parse parse;
    catalog_query_init(&parse.query);
    gq_error_clear(&parse.err);
    MHD_get_connection_values(request->connection, MHD_GET_ARGUMENT_KIND, collect_parameter,
                              &parse);
    if (parse.err.code != GQ_OK)
        return reply_error(request, &parse.err);
    const struct snapshot *snapshot = request->snapshot;
    if (catalog_query_is_empty(&parse.query))
        return reply_cached(request, JSON_CONTENT_TYPE, snapshot->catalog_body.body,
                            snapshot->catalog_body.length, snapshot->catalog_body.etag);
    return reply_filtered(request, &parse.query);
}

enum MHD_Result catalog_handle_sku(struct http_request *request)
{
    const struct snapshot *snapshot = request->snapshot;
    const struct sku *sku = catalog_find_sku(snapshot->catalog, request->path_id);
    if (sku == NULL)
        return reply_fail(request, GQ_ERR_NOT_FOUND, NULL, "no SKU '%.64s'", request->path_id);
    const struct rendered *body = &snapshot->skus[sku - snapshot->catalog->skus];
    return reply_cached(request, JSON_CONTENT_TYPE, body->body, body->length, body->etag);
}

enum MHD_Result catalog_handle_billing_modes(struct http_request *request)
{
    const struct rendered *body = &request->snapshot->billing_modes;
    return reply_cached(request, JSON_CONTENT_TYPE, body->body, body->length, body->etag);
}

enum MHD_Result catalog_handle_bundles(struct http_request *request)
{
    const struct rendered *body = &request->snapshot->bundles;
    return reply_cached(request, JSON_CONTENT_TYPE, body->body, body->length, body->etag);
}
