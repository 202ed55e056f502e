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

#include "api/api.h"
#include "core/catalog.h"
#include "core/catalog_query.h"
#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "util/clock.h"

/* ---- handlers --------------------------------------------------------- */

struct query_parse {
    struct catalog_query query;
    struct gq_error err;
    const char *at; /* ?at=: the list in effect then; NULL: the one in force */
};

static enum MHD_Result collect_parameter(void *context, enum MHD_ValueKind kind, const char *name,
                                         const char *value)
{
    (void)kind;
    struct query_parse *parse = context;
    if (name[0] == '\0' && value == NULL)
        return MHD_YES; /* "a=1&&b=2": an empty pair, like a trailing '&' */
    if (strcmp(name, "at") == 0) {
        if (parse->at != NULL || value == NULL) {
            gq_fail_msg(&parse->err, GQ_ERR_INVALID_PARAMETER, "at", MSG_FORM_TIME);
            return MHD_NO;
        }
        parse->at = value;
        return MHD_YES;
    }
    return catalog_query_set(&parse->query, name, value, &parse->err) == GQ_OK ? MHD_YES : MHD_NO;
}

/* The filtered listing's tag: the full catalog's tag and the query. */
static void filtered_etag(const struct snapshot_bodies *bodies, const struct catalog_query *query,
                          char etag[48])
{
    char canonical[CATALOG_QUERY_CANONICAL_SIZE];
    catalog_query_canonical(query, canonical);
    snapshot_etag(bodies->catalog_body.etag, strlen(bodies->catalog_body.etag), canonical,
                  strlen(canonical), etag);
}

/* A listing is the snapshot's prefix, the chosen SKU bodies and "]}",
 * copied into one buffer that libmicrohttpd sends as it is. (Pointing an
 * iovec at the snapshot instead avoided the copy but is unsafe with 0.9.75:
 * it keeps the iovec array in the connection's 16 KB pool, and a listing of
 * 1,000 SKUs overflowed it and crashed the daemon destroying the response.) */
static struct MHD_Response *make_listing(const struct snapshot *snapshot, enum gq_lang lang,
                                         const size_t *indices, size_t count, size_t *length)
{
    char *body = snapshot_render_listing(snapshot, lang, indices, count, length);
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
    filtered_etag(&snapshot->in[request->lang], query, etag);
    size_t *indices = malloc((snapshot->catalog->n_skus + 1) * sizeof *indices);
    if (indices == NULL)
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    size_t count = catalog_query_run(snapshot->catalog, query, indices);
    if (reply_etag_matches(request, etag)) {
        /* The query still runs: the 304 says how long the listing is. */
        size_t full_length = snapshot_listing_length(snapshot, request->lang, indices, count);
        free(indices);
        return reply_not_modified(request, full_length, etag);
    }
    size_t length = 0;
    struct MHD_Response *response = make_listing(snapshot, request->lang, indices, count, &length);
    free(indices);
    return reply_cacheable(request, response, JSON_CONTENT_TYPE, length, etag);
}

/* Whole unix seconds: 1 to 15 digits. */
static bool read_unix_seconds(const char *text, int64_t *out)
{
    size_t length = strlen(text);
    if (length == 0 || length > 15 || strspn(text, "0123456789") != length)
        return false;
    *out = strtoll(text, NULL, 10);
    return true;
}

/* ?at=: the request is answered from the list in effect at that time (a
 * snapshot of its own, released with the request) when it is not the one
 * served. */
static enum gq_code use_list_at(struct http_request *request, const char *at, struct gq_error *err)
{
    int64_t when, version;
    if (!clock_parse_rfc3339(at, &when) && !read_unix_seconds(at, &when))
        return gq_fail_msg(err, GQ_ERR_INVALID_PARAMETER, "at", MSG_FORM_TIME);
    enum gq_code code = store_price_list_at(request->app->store, when, &version, err);
    if (code != GQ_OK || version == request->snapshot->catalog->price_list_version)
        return code;
    struct catalog *catalog;
    code = store_price_list_catalog(request->app->store, version, &catalog, err);
    if (code != GQ_OK)
        return code;
    struct snapshot *then = snapshot_build(catalog);
    if (then == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    snapshot_release(request->snapshot);
    request->snapshot = then;
    return GQ_OK;
}

enum MHD_Result catalog_handle_list(struct http_request *request)
{
    struct query_parse parse;
    catalog_query_init(&parse.query);
    gq_error_clear(&parse.err);
    parse.at = NULL;
    MHD_get_connection_values(request->connection, MHD_GET_ARGUMENT_KIND, collect_parameter,
                              &parse);
    if (parse.err.code == GQ_OK && parse.at != NULL)
        use_list_at(request, parse.at, &parse.err);
    if (parse.err.code != GQ_OK)
        return reply_error(request, &parse.err);
    reply_in_language(request);
    const struct snapshot_bodies *bodies = &request->snapshot->in[request->lang];
    if (catalog_query_is_empty(&parse.query))
        return reply_cached(request, JSON_CONTENT_TYPE, bodies->catalog_body.body,
                            bodies->catalog_body.length, bodies->catalog_body.etag);
    return reply_filtered(request, &parse.query);
}

enum MHD_Result catalog_handle_sku(struct http_request *request)
{
    const struct snapshot *snapshot = request->snapshot;
    const struct sku *sku = catalog_find_sku(snapshot->catalog, request->path_id);
    if (sku == NULL)
        return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_SKU,
                              MSG_TEXT_CUT(request->path_id, 64));
    reply_in_language(request);
    const struct rendered *body = &snapshot->in[request->lang].skus[sku - snapshot->catalog->skus];
    return reply_cached(request, JSON_CONTENT_TYPE, body->body, body->length, body->etag);
}

enum MHD_Result catalog_handle_billing_modes(struct http_request *request)
{
    reply_in_language(request);
    const struct rendered *body = &request->snapshot->in[request->lang].billing_modes;
    return reply_cached(request, JSON_CONTENT_TYPE, body->body, body->length, body->etag);
}

enum MHD_Result catalog_handle_bundles(struct http_request *request)
{
    reply_in_language(request);
    const struct rendered *body = &request->snapshot->in[request->lang].bundles;
    return reply_cached(request, JSON_CONTENT_TYPE, body->body, body->length, body->etag);
}
