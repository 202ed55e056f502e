/*
 * POST /recommend: a workload in, ranked configurations with their
 * cheapest plans out, and the rejected ones with why.
 *
 * Parse -> recommend_run (core: sizing, enumeration, pricing through the
 * same quote_compute as POST /quote) -> render (parse and render are
 * codec/recommend_body.c). Nothing is stored. Reasons, details and the hint are
 * written in the language Accept-Language chose, which the answer's
 * Content-Language names.
 */
#include <stdlib.h>

#include "api/api.h"
#include "codec/bodies.h"
#include "core/catalog.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "util/clock.h"

enum MHD_Result recommend_handle(struct http_request *request)
{
    struct recommend_request parsed;
    struct gq_error err;
    if (recommend_body_parse(request->json, &parsed, &err) != GQ_OK)
        return reply_error(request, &err);
    parsed.lang = request->lang; /* the reasons', details' and hint's */
    struct recommend_result *result = malloc(sizeof *result);
    if (result == NULL)
        return reply_queue(request, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
    const struct catalog *catalog = request->snapshot->catalog;
    enum MHD_Result reply;
    if (recommend_run(catalog, &parsed, clock_now_seconds(), result, &err) != GQ_OK) {
        reply = reply_error(request, &err);
    } else {
        reply_in_language(request);
        reply = reply_queue(
            request, MHD_HTTP_OK,
            reply_make_text(request, recommend_body_render(catalog, &parsed, result, NULL)));
    }
    free(result);
    return reply;
}
