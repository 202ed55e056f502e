/*
 * The admin API's price lists after they are drafted (scope
 * catalog:write, the route table says so): POST
 * /admin/price-lists/{version}/cancel withdraws a draft or a scheduled
 * list, POST .../rebase re-applies its changes onto the list in effect,
 * and the 409 of a publish that would let a scheduled list undo another
 * list's changes lists them ("reverts"), as a rebase's lists its
 * conflicts. The store decides, audits and writes the event.
 */
#include <string.h>

#include "codec/store_json.h"
#include "admin/admin.h"
#include "codec/bodies.h"
#include "codec/price_list_document.h"
#include "codec/list_query.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "store/store.h"

enum gq_code price_lists_read_revert(json_t *body, bool *allow, struct gq_error *err)
{
    json_t *value = json_object_get(body, "revert_scheduled");
    *allow = false;
    if (value == NULL)
        return GQ_OK;
    const char *text = json_string_value(value);
    if (text == NULL)
        return gq_fail(err, GQ_ERR_INVALID_TYPE, "revert_scheduled",
                       "revert_scheduled must be \"allow\" or \"refuse\"");
    if (strcmp(text, "allow") != 0 && strcmp(text, "refuse") != 0)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "revert_scheduled",
                       "revert_scheduled must be \"allow\" or \"refuse\"");
    *allow = strcmp(text, "allow") == 0;
    return GQ_OK;
}

/* The error envelope with `entries` (taken; may be NULL) as error.<key>. */
enum MHD_Result price_lists_reply_listing(struct http_request *request, const struct gq_error *err,
                                          const char *key, json_t *entries)
{
    if (entries == NULL)
        return reply_error(request, err);
    reply_in_language(request);
    json_t *body = json_pack("{s:{s:s, s:s, s:o}}", "error", "code", gq_code_name(err->code),
                             "message", gq_error_text(err, request->lang), key, entries);
    return reply_json(request, reply_status_for(err->code), body);
}

/* The path's version, for a request with no body or {} (nothing to
 * choose); false when the reply is queued. */
static bool read_target(struct http_request *request, int64_t *version, enum MHD_Result *reply)
{
    static const char *const allowed[] = {NULL};
    struct gq_error err;
    if (!price_lists_read_version(request, version)) {
        *reply = price_lists_reply_no_list(request);
        return false;
    }
    if (request->json != NULL && fields_only(request->json, allowed, "", &err) != GQ_OK) {
        *reply = reply_error(request, &err);
        return false;
    }
    return true;
}

enum MHD_Result price_lists_handle_cancel(struct http_request *request)
{
    int64_t version;
    enum MHD_Result reply;
    if (!read_target(request, &version, &reply))
        return reply;
    struct gq_error err;
    struct audit_entry audit = auth_audit_entry(request, "price_list.cancel", NULL, NULL);
    if (store_price_list_cancel(request->app->store, version, &audit, &err) != GQ_OK)
        return reply_error(request, &err);
    return price_lists_reply(request, MHD_HTTP_OK, version);
}

enum MHD_Result price_lists_handle_rebase(struct http_request *request)
{
    int64_t version;
    enum MHD_Result reply;
    if (!read_target(request, &version, &reply))
        return reply;
    struct gq_error err;
    struct audit_entry audit = auth_audit_entry(request, "price_list.rebase", NULL, NULL);
    json_t *conflicts = NULL;
    if (store_price_list_rebase(request->app->store, version, price_list_document_merge, &audit,
                                &conflicts, &err) != GQ_OK)
        return price_lists_reply_listing(request, &err, "conflicts", conflicts);
    return price_lists_reply(request, MHD_HTTP_OK, version);
}
