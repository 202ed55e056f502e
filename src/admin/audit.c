/*
 * GET /admin/audit: the audit log, oldest first, a page at a time
 * (since=, starting_after=, limit=), for keys with the scope
 * catalog:write. Nothing in the API changes or deletes a line.
 */
#include <stdio.h>
#include <string.h>

#include "admin/admin.h"
#include "codec/bodies.h"
#include "codec/list_query.h"
#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "store/store.h"
#include "util/clock.h"

enum { PARAM_SINCE, PARAM_STARTING_AFTER, PARAM_LIMIT };

static const struct list_param audit_params[] = {
    [PARAM_SINCE] = {"since", LIST_TIME, NULL},
    [PARAM_STARTING_AFTER] = {"starting_after", LIST_CURSOR, "aud_"},
    [PARAM_LIMIT] = {"limit", LIST_LIMIT, NULL},
};

static json_t *text_or_null(const char *text)
{
    return text != NULL ? json_string(text) : json_null();
}

/* One line as JSON; its change is the object it was written as. */
static json_t *render_record(const void *item)
{
    const struct audit_record *record = item;
    char at[CLOCK_RFC3339_SIZE];
    json_t *change = json_loads(record->change, 0, NULL);
    json_t *key = record->key_id != NULL ? json_pack("{s:s, s:o}", "id", record->key_id, "name",
                                                     text_or_null(record->key_name))
                                         : json_null();
    return json_pack(
        "{s:s, s:s, s:s, s:o, s:s, s:o, s:s, s:s, s:o}", "id", record->id, "object", "audit_entry",
        "at", clock_format_rfc3339(record->at, at), "key", key, "client",
        record->client ? record->client : "", "request_id", text_or_null(record->request_id),
        "action", record->action ? record->action : "", "target",
        record->target ? record->target : "", "change", change != NULL ? change : json_null());
}

enum MHD_Result audit_handle_list(struct http_request *request)
{
    struct list_query query;
    struct gq_error err = {0};
    if (request_list_query(request, audit_params, 3, &query, &err) != GQ_OK)
        return reply_error(request, &err);
    struct audit_page page;
    if (store_audit_read(request->app->store, list_query_time(&query, PARAM_SINCE),
                         list_query_text(&query, PARAM_STARTING_AFTER), query.limit, &page,
                         &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = render_each(page.items, page.count, sizeof *page.items, render_record);
    bool has_more = page.has_more;
    store_audit_page_free(&page);
    return reply_page(request, data, has_more);
}
