/*
 * What a handler reads of its request beyond the body: the query of a list
 * endpoint, collected from libmicrohttpd's parsed arguments and checked by
 * the list codec (codec/list_query.c).
 */
#include "codec/list_query.h"
#include "http/request.h"

static enum MHD_Result collect(void *context, enum MHD_ValueKind kind, const char *name,
                               const char *value)
{
    (void)kind;
    return list_query_add(context, name, value) ? MHD_YES : MHD_NO;
}

enum gq_code request_list_query(struct http_request *request, const struct list_param *params,
                                size_t count, struct list_query *out, struct gq_error *err)
{
    struct list_query_parser parse;
    list_query_begin(&parse, params, count, out, err);
    MHD_get_connection_values(request->connection, MHD_GET_ARGUMENT_KIND, collect, &parse);
    return parse.failed ? err->code : GQ_OK;
}
