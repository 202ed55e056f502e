/*
 * GET /quote (scope quotes:read): an order system's view of its quotes,
 * newest first, a page at a time, as Stripe lists its objects:
 * ?status=&client_reference_id=&customer=&created_by=&created_gte=&created_lt=&limit=
 * &starting_after=
 * -> {"data": [quotes as GET /quote/{id} returns them], "has_more"}.
 * The next page starts after the last id of this one. A key bound to a
 * customer lists that customer's quotes alone (customer= naming another
 * finds none).
 */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "codec/list_query.h"
#include "codec/store_json.h"
#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "store/store.h"
#include "util/clock.h"

enum {
    PARAM_STATUS,
    PARAM_CLIENT_REFERENCE,
    PARAM_CREATED_GTE,
    PARAM_CREATED_LT,
    PARAM_LIMIT,
    PARAM_STARTING_AFTER,
    PARAM_CUSTOMER,
    PARAM_CREATED_BY,
    PARAM_COUNT
};

static const struct list_param quote_params[PARAM_COUNT] = {
    [PARAM_STATUS] = {"status", LIST_TEXT, NULL},
    [PARAM_CLIENT_REFERENCE] = {"client_reference_id", LIST_TEXT, NULL},
    [PARAM_CREATED_GTE] = {"created_gte", LIST_TIME, NULL},
    [PARAM_CREATED_LT] = {"created_lt", LIST_TIME, NULL},
    [PARAM_LIMIT] = {"limit", LIST_LIMIT, NULL},
    [PARAM_STARTING_AFTER] = {"starting_after", LIST_CURSOR, "q_"},
    [PARAM_CUSTOMER] = {"customer", LIST_TEXT, NULL},
    [PARAM_CREATED_BY] = {"created_by", LIST_TEXT, NULL},
};

static bool status_known(const char *status)
{
    static const char *const known[] = {"open", "accepted", "canceled", "expired"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(status, known[i]) == 0)
            return true;
    return false;
}

/* The page's quotes as GET /quote/{id} shows each. */
static json_t *render_page(const struct quote_page *page, int64_t now)
{
    json_t *data = json_array();
    for (size_t i = 0; data != NULL && i < page->count; i++) {
        json_t *quote = codec_quote_json(&page->items[i], now);
        if (quote == NULL || json_array_append_new(data, quote) != 0) {
            json_decref(data);
            data = NULL;
        }
    }
    return data;
}

enum MHD_Result quote_handle_list(struct http_request *request)
{
    struct list_query query;
    struct gq_error err = {0};
    if (request_list_query(request, quote_params, PARAM_COUNT, &query, &err) != GQ_OK)
        return reply_error(request, &err);
    const char *status = list_query_text(&query, PARAM_STATUS);
    if (status != NULL && !status_known(status))
        return reply_fail_msg(request, GQ_ERR_INVALID_PARAMETER, "status", MSG_FIELD_ONE_OF,
                              MSG_TEXT("status"), MSG_TEXT("open, accepted, canceled, expired"));
    char owner[STORE_OWNER_SIZE];
    quote_owner_of(request, owner, sizeof owner);
    const char *customer = list_query_text(&query, PARAM_CUSTOMER);
    if (request->key_customer[0] != '\0' && customer != NULL &&
        strcmp(customer, request->key_customer) != 0)
        return reply_page(request, json_array(), false);
    if (request->key_customer[0] != '\0')
        customer = request->key_customer;
    struct quote_filter filter = {
        .status = status,
        .client_reference_id = list_query_text(&query, PARAM_CLIENT_REFERENCE),
        .owner = owner,
        .created_gte = list_query_time(&query, PARAM_CREATED_GTE),
        .created_lt = list_query_time(&query, PARAM_CREATED_LT),
        .starting_after = list_query_text(&query, PARAM_STARTING_AFTER),
        .customer_id = customer,
        .created_by = list_query_text(&query, PARAM_CREATED_BY),
        .limit = query.limit,
        .now = clock_now_seconds(),
    };
    struct quote_page page;
    if (store_quotes_list(request->app->store, &filter, &page, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = render_page(&page, filter.now);
    bool has_more = page.has_more;
    store_quote_page_free(&page);
    return reply_page(request, data, has_more);
}
