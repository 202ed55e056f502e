/*
 * GET /events and GET /events/{id}: the outbox for consumers that pull,
 * oldest first, a page at a time (type=, starting_after=, limit=), for keys
 * with the scope quotes:read. An event is returned as it was written, the
 * same JSON a webhook endpoint receives. A key bound to a customer sees
 * only the events that concern that customer.
 */
#include <string.h>

#include "api/api.h"
#include "codec/bodies.h"
#include "codec/list_query.h"
#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "store/store.h"
#include "store/verifications.h"
#include "util/ids.h"

enum { PARAM_TYPE, PARAM_STARTING_AFTER, PARAM_LIMIT };

static const struct list_param event_params[] = {
    [PARAM_TYPE] = {"type", LIST_TEXT, NULL},
    [PARAM_STARTING_AFTER] = {"starting_after", LIST_CURSOR, "evt_"},
    [PARAM_LIMIT] = {"limit", LIST_LIMIT, NULL},
};

static const char *const event_types[] = {STORE_EVENT_QUOTE_CREATED,
                                          STORE_EVENT_QUOTE_ACCEPTED,
                                          STORE_EVENT_QUOTE_CANCELED,
                                          STORE_EVENT_QUOTE_EXPIRED,
                                          STORE_EVENT_PRICE_LIST_PUBLISHED,
                                          STORE_EVENT_PRICE_LIST_CANCELED,
                                          STORE_EVENT_ENDPOINT_DISABLED,
                                          STORE_EVENT_PROMOTION_CODE_REDEEMED,
                                          STORE_EVENT_CUSTOMER_CREATED,
                                          STORE_EVENT_CUSTOMER_UPDATED,
                                          STORE_EVENT_CUSTOMER_DELETED,
                                          STORE_EVENT_VERIFICATION_CREATED,
                                          STORE_EVENT_VERIFICATION_REVOKED,
                                          STORE_EVENT_VERIFICATION_EXPIRED,
                                          NULL};

bool events_type_is_known(const char *type)
{
    for (size_t i = 0; event_types[i] != NULL; i++)
        if (strcmp(event_types[i], type) == 0)
            return true;
    return false;
}

void events_type_list(char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; event_types[i] != NULL; i++) {
        int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "", event_types[i]);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

/* An event as it was written. */
static json_t *render_event(const void *item)
{
    const struct store_event *event = item;
    return json_loads(event->body, 0, NULL);
}

enum MHD_Result events_handle_list(struct http_request *request)
{
    struct list_query query;
    struct gq_error err = {0};
    if (request_list_query(request, event_params, 3, &query, &err) != GQ_OK)
        return reply_error(request, &err);
    const char *type = list_query_text(&query, PARAM_TYPE);
    if (type != NULL && !events_type_is_known(type)) {
        char names[200];
        events_type_list(names, sizeof names);
        return reply_fail_msg(request, GQ_ERR_INVALID_PARAMETER, "type", MSG_FIELD_ONE_OF,
                              MSG_TEXT("type"), MSG_TEXT(names));
    }
    const char *after = list_query_text(&query, PARAM_STARTING_AFTER);
    struct event_page page;
    const char *customer = request->key_customer[0] != '\0' ? request->key_customer : NULL;
    if (store_events_read(request->app->store, type, customer, after, query.limit, &page, &err) !=
        GQ_OK)
        return reply_error(request, &err);
    json_t *data = render_each(page.items, page.count, sizeof *page.items, render_event);
    bool has_more = page.has_more;
    store_event_page_free(&page);
    return reply_page(request, data, has_more);
}

static enum MHD_Result reply_no_event(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_EVENT,
                          MSG_TEXT_CUT(request->path_id, 40));
}

enum MHD_Result events_handle_get(struct http_request *request)
{
    if (!ids_is_well_formed("evt_", request->path_id))
        return reply_no_event(request);
    struct store_event event;
    struct gq_error err;
    enum gq_code code = store_event_get(request->app->store, request->path_id, &event, &err);
    if (code == GQ_OK && quote_hidden_from(request, event.customer_id)) {
        store_event_clear(&event);
        code = GQ_ERR_NOT_FOUND;
    }
    if (code == GQ_ERR_NOT_FOUND)
        return reply_no_event(request);
    if (code != GQ_OK)
        return reply_error(request, &err);
    char *body = event.body;
    event.body = NULL;
    store_event_clear(&event);
    return reply_queue(request, MHD_HTTP_OK, reply_make_text(request, body));
}
