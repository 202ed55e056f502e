/*
 * Operations: GET /healthz (the process answers), GET /readyz (the database
 * answers and takes writes; the catalog's version) and GET /openapi.yaml
 * (the contract).
 */
#include <string.h>

#include "http/http.h"

/* The embedded OpenAPI document and its length (openapi_blob.S). */
extern const char gq_openapi_yaml[];
extern const uint64_t gq_openapi_yaml_size;

enum MHD_Result health_handle_live(struct http_request *request)
{
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:s, s:s}", "status", "ok", "version", GQ_VERSION));
}

enum MHD_Result health_handle_ready(struct http_request *request)
{
    const struct snapshot *snapshot = request->snapshot;
    if (snapshot == NULL) /* cannot happen, see respond() in server.c */
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "no catalog is loaded");
    if (store_ping(request->app->store) != GQ_OK)
        return reply_fail_msg(request, GQ_ERR_NOT_READY, NULL, MSG_DATABASE_SILENT);
    /* Saves failing on a full disk: not ready, so that traffic goes to an
     * instance that can save, until a probe write succeeds again. */
    struct gq_error err;
    if (store_check_storage(request->app->store, &err) != GQ_OK)
        return reply_error(request, &err);
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:s, s:I, s:I}", "status", "ready", "price_list_version",
                                (json_int_t)snapshot->catalog->price_list_version, "skus",
                                (json_int_t)snapshot->catalog->n_skus));
}

static char openapi_etag[48];
static pthread_once_t openapi_etag_once = PTHREAD_ONCE_INIT;

static size_t openapi_length(void)
{
    return (size_t)gq_openapi_yaml_size;
}

static void compute_openapi_etag(void)
{
    snapshot_etag(gq_openapi_yaml, openapi_length(), "", 0, openapi_etag);
}

enum MHD_Result health_handle_openapi(struct http_request *request)
{
    pthread_once(&openapi_etag_once, compute_openapi_etag);
    return reply_cached(request, "application/yaml", gq_openapi_yaml, openapi_length(),
                        openapi_etag);
}
