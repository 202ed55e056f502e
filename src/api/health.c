/*
 * Operations: GET /healthz (the process answers), GET /readyz (the database
 * answers and takes writes; the catalog's version) and GET /openapi.yaml
 * (the contract).
 *
 * /readyz answers from the outcome of the last check of the database while
 * it is less than a second old, so that however often it is asked, the
 * database is asked at most about once a second. A write that failed since
 * (on a full disk, or to a database file that has gone) is seen at once:
 * the store says so without I/O, and a good outcome is then checked again
 * (also when a call found PostgreSQL out of reach).
 * The cause of a failure is logged under the request's id; the answer says
 * only that the database is unavailable.
 */
#include <stdatomic.h>
#include <string.h>

#include "api/api.h"
#include "core/catalog.h"
#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "util/clock.h"

/* The embedded OpenAPI document and its length (openapi_blob.S). */
extern const char gq_openapi_yaml[];
extern const uint64_t gq_openapi_yaml_size;

#define READINESS_MAX_AGE_US 1000000

/* The last check's outcome. One check at a time: those who wait for it
 * then share its outcome. A passed check is also published on its own, so
 * that the answer "ready" takes no lock. */
static struct {
    pthread_mutex_t lock;
    bool checked;
    int64_t checked_at_us;
    struct gq_error outcome;        /* GQ_OK, or the cause */
    _Atomic int64_t ready_until_us; /* a passed check holds until then; 0 after a failed one */
} readiness = {.lock = PTHREAD_MUTEX_INITIALIZER};

enum MHD_Result health_handle_live(struct http_request *request)
{
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:s, s:s}", "status", "ok", "version", GQ_VERSION));
}

/* The database answers a query, is still the file opened, and takes
 * writes if writes have been failing (a probe write). */
static void check_database(struct store *store, struct gq_error *outcome)
{
    gq_error_clear(outcome);
    if (store_ping(store, outcome) == GQ_OK)
        store_check_storage(store, outcome);
    if (outcome->code != GQ_OK) {
        outcome->code = GQ_ERR_NOT_READY;
        outcome->message_zh_cn[0] = '\0'; /* the cause, for the log alone */
    }
}

static bool outcome_still_holds(struct store *store, int64_t now_us)
{
    if (!readiness.checked || now_us - readiness.checked_at_us >= READINESS_MAX_AGE_US)
        return false;
    return readiness.outcome.code != GQ_OK || !store_failed_since_check(store);
}

/* Copies into `out` an outcome no older than a second, checking anew when
 * there is none. */
static void check_readiness(struct store *store, struct gq_error *out)
{
    if (clock_monotonic_us() < atomic_load(&readiness.ready_until_us) &&
        !store_failed_since_check(store)) {
        gq_error_clear(out);
        return;
    }
    pthread_mutex_lock(&readiness.lock);
    int64_t now_us = clock_monotonic_us();
    if (!outcome_still_holds(store, now_us)) {
        check_database(store, &readiness.outcome);
        readiness.checked = true;
        readiness.checked_at_us = clock_monotonic_us();
        bool passed = readiness.outcome.code == GQ_OK;
        atomic_store(&readiness.ready_until_us,
                     passed ? readiness.checked_at_us + READINESS_MAX_AGE_US : 0);
    }
    *out = readiness.outcome;
    pthread_mutex_unlock(&readiness.lock);
}

enum MHD_Result health_handle_ready(struct http_request *request)
{
    const struct snapshot *snapshot = request->snapshot;
    if (snapshot == NULL) /* cannot happen, see respond() in server.c */
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "no catalog is loaded");
    struct gq_error outcome;
    check_readiness(request->app->store, &outcome);
    if (outcome.code != GQ_OK)
        return reply_error(request, &outcome);
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
