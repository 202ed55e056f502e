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

#define JSON_TYPE "application/json"

/* ---- rendering (called once per snapshot) ----------------------------- */

static json_t *render_segments(uint32_t mask)
{
    json_t *segments = json_array();
    for (int s = 0; segments != NULL && s < SEGMENT_COUNT; s++)
        if (mask & SEGMENT_BIT(s))
            json_array_append_new(segments, json_string(segment_id((enum customer_segment)s)));
    return segments;
}

static json_t *render_gpu(const struct gpu_model *gpu)
{
    return json_pack("{s:s, s:i, s:s, s:f, s:i, s:i}", "model", gpu->name, "memory_gb",
                     (int)gpu->memory_gb, "memory_type", gpu->memory_type, "fp16_tflops",
                     gpu->fp16_tflops, "memory_bandwidth_gbps", (int)gpu->memory_bandwidth_gbps,
                     "tdp_watts", (int)gpu->tdp_watts);
}

/* {"amount", "per"} and, for blocks, what an hour of the block costs
 * ("hourly_equivalent": 1231.00 / 720 h = "1.71"), for comparison. */
static json_t *render_price(const struct catalog *catalog, const struct sku *sku,
                            enum billing_mode mode)
{
    json_t *price = json_pack("{s:o, s:s}", "amount", render_money(sku->price[mode]), "per",
                              billing_mode_unit(mode));
    const struct billing_mode_info *info = &catalog->modes[mode];
    gq_money per_hour;
    if (price != NULL && info->block_hours > 0 &&
        money_scale(sku->price[mode], 1, info->block_hours, &per_hour))
        json_object_set_new(price, "hourly_equivalent", render_money(per_hour));
    if (price != NULL && info->segment_mask != SEGMENT_MASK_ALL)
        json_object_set_new(price, "eligible_segments", render_segments(info->segment_mask));
    return price;
}

static json_t *render_prices(const struct catalog *catalog, const struct sku *sku)
{
    json_t *prices = json_object();
    for (int m = 0; prices != NULL && m < BILLING_MODE_COUNT; m++)
        if (sku->priced[m])
            json_object_set_new(prices, billing_mode_id((enum billing_mode)m),
                                render_price(catalog, sku, (enum billing_mode)m));
    return prices;
}

json_t *catalog_render_sku(const struct catalog *catalog, const struct sku *sku)
{
    return json_pack("{s:s, s:s, s:o, s:i, s:i, s:f, s:s, s:o}", "id", sku->id, "name", sku->name,
                     "gpu", render_gpu(sku->gpu), "gpu_count", (int)sku->gpu_count,
                     "total_memory_gb", (int)sku_total_memory_gb(sku), "total_fp16_tflops",
                     sku_total_fp16_tflops(sku), "interconnect", interconnect_id(sku->interconnect),
                     "prices", render_prices(catalog, sku));
}

json_t *catalog_render_billing_modes(const struct catalog *catalog)
{
    json_t *modes = json_array();
    for (int m = 0; modes != NULL && m < BILLING_MODE_COUNT; m++) {
        const struct billing_mode_info *info = &catalog->modes[m];
        json_array_append_new(
            modes, json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o}", "id",
                             billing_mode_id((enum billing_mode)m), "name", info->name,
                             "description", info->description, "per",
                             billing_mode_unit((enum billing_mode)m), "block_hours",
                             (int)info->block_hours, "block_days", (int)info->block_days,
                             "list_basis_points", (int)info->list_basis_points,
                             "eligible_segments", render_segments(info->segment_mask)));
    }
    return json_pack("{s:o}", "billing_modes", modes);
}

static json_t *render_bundle_contents(const struct bundle *bundle)
{
    json_t *contents = json_array();
    for (size_t i = 0; contents != NULL && i < bundle->n_items; i++)
        json_array_append_new(contents, json_pack("{s:s, s:i, s:i}", "sku",
                                                  bundle->items[i].sku->id, "quantity",
                                                  (int)bundle->items[i].quantity, "hours",
                                                  (int)bundle->items[i].hours));
    return contents;
}

static json_t *render_bundle(const struct bundle *bundle)
{
    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "id", bundle->id, "name",
                     bundle->name, "description", bundle->description, "list_price",
                     render_money(bundle->list_price), "price", render_money(bundle->price),
                     "saving", render_money(bundle->list_price - bundle->price),
                     "eligible_segments", render_segments(bundle->segment_mask), "contents",
                     render_bundle_contents(bundle));
}

json_t *catalog_render_bundles(const struct catalog *catalog)
{
    json_t *bundles = json_array();
    for (size_t i = 0; bundles != NULL && i < catalog->n_bundles; i++)
        json_array_append_new(bundles, render_bundle(&catalog->bundles[i]));
    return json_pack("{s:s, s:I, s:o}", "currency", catalog->currency, "price_list_version",
                     (json_int_t)catalog->price_list_version, "bundles", bundles);
}

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
    if (response == NULL)
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, JSON_TYPE);
    MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "public, max-age=60");
    request->response_bytes = length;
    return reply_queue(request, MHD_HTTP_OK, response);
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
        return reply_cached(request, JSON_TYPE, snapshot->catalog_body.body,
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
    return reply_cached(request, JSON_TYPE, body->body, body->length, body->etag);
}

enum MHD_Result catalog_handle_billing_modes(struct http_request *request)
{
    const struct rendered *body = &request->snapshot->billing_modes;
    return reply_cached(request, JSON_TYPE, body->body, body->length, body->etag);
}

enum MHD_Result catalog_handle_bundles(struct http_request *request)
{
    const struct rendered *body = &request->snapshot->bundles;
    return reply_cached(request, JSON_TYPE, body->body, body->length, body->etag);
}
