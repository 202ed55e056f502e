/*
 * A customer's own discount rules: PUT and DELETE
 * /customers/{id}/discount-rules/{rule_id} and GET
 * /customers/{id}/discount-rules. An enterprise contract's negotiated
 * prices are an operator's decision, not a shop's: the routes take
 * catalog:write, the scope that edits the price lists, and not
 * customers:write, which a storefront's backend holds for its own
 * customers.
 *
 * A rule has the shape of a price list's discount rule (name, segment,
 * billing, sku, min_quantity, basis_points | amount_off, priority,
 * stackable) plus valid_from and valid_until. It is checked when it is
 * put, stored as its normalised JSON, and turned back into a struct
 * discount_rule when a quote for the customer is priced: on a line that
 * one of the customer's rules covers, the customer's rules replace the
 * price list's (core/discounts.h). Each write is audited in its
 * transaction; no event is written, since an event would carry negotiated
 * terms to every webhook subscriber of customer.updated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "codec/bodies.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "store/customer_rules.h"
#include "util/clock.h"
#include "util/ids.h"

#define CUSTOMER_ID_PREFIX "cus_"
enum { RULE_ID_MAX = 64 };

/* A rule id in a path: 1..64 of [a-z0-9._-], as a price list's. */
static bool rule_id_ok(const char *id)
{
    size_t length = strlen(id);
    return length > 0 && length <= RULE_ID_MAX &&
           strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789._-") == length;
}

/* `body` as rule `id` (null members read as absent); the rule borrows
 * strings from `body`. */
static enum gq_code read_rule(json_t *body, const char *id, struct discount_rule *rule,
                              struct gq_error *err)
{
    if (!json_is_object(body))
        return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, NULL, MSG_BODY_NOT_OBJECT);
    json_t *present = json_copy(body); /* shallow: its strings are the body's */
    if (present == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    const char *key;
    json_t *value;
    void *at;
    json_object_foreach_safe(present, at, key, value)
    {
        if (json_is_null(value))
            json_object_del(present, key);
    }
    enum gq_code code = discount_rule_body_read(present, "", true, rule, err);
    rule->id = (char *)id;
    rule->from_customer = true;
    json_decref(present);
    return code;
}

static json_t *time_or_null(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return unix_seconds != 0 ? json_string(clock_format_rfc3339(unix_seconds, text)) : json_null();
}

static json_t *text_or_null(const char *text)
{
    return text != NULL ? json_string(text) : json_null();
}

/* The rule as it is stored and shown, without its id and customer; NULL
 * when memory runs out. */
static json_t *rule_document(json_t *body, const struct discount_rule *rule)
{
    char amount[MONEY_FORMAT_SIZE];
    bool fixed = rule->kind == DISCOUNT_FIXED;
    return json_pack(
        "{s:s, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:i, s:b}", "name", rule->name, "segment",
        text_or_null(json_string_value(json_object_get(body, "segment"))), "billing",
        text_or_null(json_string_value(json_object_get(body, "billing"))), "sku",
        text_or_null(rule->sku_id), "min_quantity", (int)rule->min_quantity, "basis_points",
        fixed ? json_null() : json_integer(rule->basis_points), "amount_off",
        fixed ? json_string(money_format(rule->fixed_amount, amount)) : json_null(), "valid_from",
        time_or_null(rule->valid_from), "valid_until", time_or_null(rule->valid_until), "priority",
        (int)rule->priority, "stackable", rule->stackable);
}

/* The API's object of a stored rule; NULL when memory runs out. */
static json_t *render_rule(const char *customer_id, const char *id, json_t *document)
{
    json_t *object = json_pack("{s:s, s:s, s:s}", "id", id, "object", "customer_discount_rule",
                               "customer", customer_id);
    if (object != NULL && json_object_update(object, document) != 0) {
        json_decref(object);
        return NULL;
    }
    return object;
}

/* The audit's change: {"customer", "rule", "new"} (new null: deleted);
 * NULL when memory runs out. */
static char *audit_change(const char *customer_id, const char *id, json_t *document)
{
    json_t *change =
        json_pack("{s:s, s:s, s:O?}", "customer", customer_id, "rule", id, "new", document);
    char *text = change != NULL ? json_dumps(change, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(change);
    return text;
}

static enum MHD_Result reply_no_customer(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_CUSTOMER,
                          MSG_TEXT_CUT(request->path_params[0], 40));
}

/* Writes `document` (NULL: deletes) as the path's rule; *done false when
 * nothing was written. */
static enum gq_code write_rule(struct http_request *request, json_t *document, bool *done,
                               struct gq_error *err)
{
    const char *customer_id = request->path_params[0], *id = request->path_params[1];
    char *change = audit_change(customer_id, id, document);
    char *text = document != NULL ? json_dumps(document, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    enum gq_code code = GQ_OK;
    if (change == NULL || (document != NULL && text == NULL))
        code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    const char *action =
        document != NULL ? "customer.discount_rule.put" : "customer.discount_rule.delete";
    struct audit_entry audit = auth_audit_entry(request, action, customer_id, change);
    if (code == GQ_OK)
        code = store_customer_rule_write(request->app->store, customer_id, id, text,
                                         clock_now_seconds(), &audit, done, err);
    free(change);
    free(text);
    return code;
}

enum MHD_Result customer_rules_handle_put(struct http_request *request)
{
    const char *customer_id = request->path_params[0], *id = request->path_params[1];
    if (!ids_is_well_formed(CUSTOMER_ID_PREFIX, customer_id) || !rule_id_ok(id))
        return reply_no_customer(request);
    struct discount_rule rule;
    struct gq_error err;
    if (read_rule(request->json, id, &rule, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *document = rule_document(request->json, &rule);
    bool done = false;
    enum gq_code code = document != NULL ? write_rule(request, document, &done, &err)
                                         : gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    enum MHD_Result reply;
    if (code != GQ_OK)
        reply = reply_error(request, &err);
    else if (!done)
        reply = reply_no_customer(request);
    else
        reply = reply_json(request, MHD_HTTP_OK, render_rule(customer_id, id, document));
    json_decref(document);
    return reply;
}

enum MHD_Result customer_rules_handle_delete(struct http_request *request)
{
    const char *customer_id = request->path_params[0], *id = request->path_params[1];
    struct gq_error err;
    bool done = false;
    enum gq_code code = GQ_OK;
    if (ids_is_well_formed(CUSTOMER_ID_PREFIX, customer_id) && rule_id_ok(id))
        code = write_rule(request, NULL, &done, &err);
    if (code != GQ_OK)
        return reply_error(request, &err);
    if (!done)
        return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_CUSTOMER_RULE,
                              MSG_TEXT_CUT(customer_id, 40), MSG_TEXT_CUT(id, 64));
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:s, s:s, s:s, s:b}", "id", id, "object",
                                "customer_discount_rule", "customer", customer_id, "deleted", 1));
}

/* The customer exists and is not erased: false when the 404 (or a store
 * failure) is queued. */
static bool customer_is_live(struct http_request *request, const char *customer_id,
                             enum MHD_Result *reply)
{
    struct stored_customer customer = {0};
    struct gq_error err;
    enum gq_code code = ids_is_well_formed(CUSTOMER_ID_PREFIX, customer_id)
                            ? store_customer_get(request->app->store, customer_id, &customer, &err)
                            : GQ_ERR_NOT_FOUND;
    bool live = code == GQ_OK && !customer.deleted;
    store_customer_clear(&customer);
    if (!live)
        *reply = code == GQ_OK || code == GQ_ERR_NOT_FOUND ? reply_no_customer(request)
                                                           : reply_error(request, &err);
    return live;
}

enum MHD_Result customer_rules_handle_list(struct http_request *request)
{
    const char *customer_id = request->path_params[0];
    enum MHD_Result reply;
    if (!customer_is_live(request, customer_id, &reply))
        return reply;
    struct customer_rule_list list;
    struct gq_error err;
    if (store_customer_rules_read(request->app->store, customer_id, &list, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = json_array();
    for (size_t i = 0; data != NULL && i < list.count; i++) {
        json_t *document = json_loads(list.items[i].document, 0, NULL);
        json_array_append_new(data, render_rule(customer_id, list.items[i].id, document));
        json_decref(document);
    }
    store_customer_rule_list_free(&list);
    return reply_json(request, MHD_HTTP_OK,
                      json_pack("{s:s, s:o, s:b}", "object", "list", "data", data, "has_more", 0));
}

void customer_rules_clear(struct customer_rules *rules)
{
    json_decref(rules->documents);
    free(rules->rules);
    *rules = (struct customer_rules){0};
}

/* The stored rules of `list` into `rules`: a rule stored by an earlier
 * version that no longer reads is skipped, not a failure of the quote. */
static enum gq_code parse_stored(struct customer_rule_list *list, struct customer_rules *rules,
                                 struct gq_error *err)
{
    rules->documents = json_array();
    rules->rules = calloc(list->count, sizeof *rules->rules);
    if (rules->documents == NULL || rules->rules == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading customer rules");
    for (size_t i = 0; i < list->count; i++) {
        json_t *pair = json_pack("{s:s, s:o}", "id", list->items[i].id, "document",
                                 json_loads(list->items[i].document, 0, NULL));
        struct gq_error ignored;
        if (pair == NULL || json_array_append_new(rules->documents, pair) != 0)
            return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading customer rules");
        const char *id = json_string_value(json_object_get(pair, "id"));
        if (read_rule(json_object_get(pair, "document"), id, &rules->rules[rules->count],
                      &ignored) == GQ_OK)
            rules->count++;
    }
    return GQ_OK;
}

enum gq_code customer_rules_for_quote(struct store *store, const char *customer_id,
                                      struct customer_rules *out, struct gq_error *err)
{
    struct customer_rule_list list;
    *out = (struct customer_rules){0};
    enum gq_code code = store_customer_rules_read(store, customer_id, &list, err);
    if (code == GQ_OK && list.count > 0)
        code = parse_stored(&list, out, err);
    store_customer_rule_list_free(&list);
    if (code != GQ_OK)
        customer_rules_clear(out);
    return code;
}
