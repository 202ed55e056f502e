/*
 * Customers: POST /customers (scope customers:write) makes one, GET
 * /customers and GET /customers/{id} (customers:read) read them, PATCH
 * changes the fields given (a field set to null is cleared; `company`
 * is replaced whole) and DELETE erases the person: name, email, phone,
 * company and metadata are removed while the record keeps its id and
 * says `deleted: true`. Every write stores its event (customer.created,
 * .updated, .deleted, whose object is the customer as it is after) and
 * its audit line in one transaction; the audit line names the fields that
 * changed, never their values.
 *
 * Stored, a customer is its email (a column, to be found by it) and the
 * rest of its fields as a JSON document of the keys that have a value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contact.h"
#include "core/tax_id.h"
#include "api/api.h"
#include "codec/bodies.h"
#include "codec/list_query.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/ids.h"

#define CUSTOMER_PREFIX "cus_"
#define NAME_MAX_BYTES 200
#define PHONE_MAX_BYTES 40
#define ADDRESS_MAX_BYTES 300

/* The fields of a customer, in the order the API shows them; all but
 * email live in the stored document. */
static const char *const customer_fields[] = {"name",    "email",    "phone", "language",
                                              "company", "metadata", NULL};
static const char *const company_fields[] = {"name", "tax_id",       "address",
                                             "bank", "invoice_type", NULL};

/* A customer being made or changed: its document (owned) and its email
 * (borrowed from the stored record or the request's body). */
struct customer_draft {
    json_t *document;
    const char *email;
};

/* ---- Checking what a person typed. ---- */

static enum gq_code check_email(const char *email, struct gq_error *err)
{
    return contact_email_is_valid(email)
               ? GQ_OK
               : gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "email", MSG_EMAIL_FORM, MSG_TEXT("email"));
}

static enum gq_code check_phone(const char *phone, struct gq_error *err)
{
    return contact_phone_is_valid(phone)
               ? GQ_OK
               : gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "phone", MSG_PHONE_FORM, MSG_TEXT("phone"));
}

static enum gq_code check_tax_id(const char *tax_id, struct gq_error *err)
{
    static const char field[] = "company.tax_id";
    switch (tax_id_check_uscc(tax_id)) {
    case TAX_ID_OK:
        return GQ_OK;
    case TAX_ID_LENGTH:
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_TAX_ID_LENGTH, MSG_TEXT(field));
    case TAX_ID_CHARACTER:
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_TAX_ID_CHARACTER, MSG_TEXT(field));
    case TAX_ID_DIVISION:
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_TAX_ID_DIVISION, MSG_TEXT(field));
    case TAX_ID_CHECK_CHARACTER:
    default:
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_TAX_ID_CHECK_CHARACTER,
                           MSG_TEXT(field));
    }
}

/* `key` of `object` as one of `choices` (NULL-terminated), the list shown
 * as `names` when it is not. Absent: *out = NULL. */
static enum gq_code read_choice(json_t *object, const char *key, const char *path,
                                const char *const *choices, const char *names, const char **out,
                                struct gq_error *err)
{
    enum gq_code code = fields_string(object, key, path, false, out, err);
    if (code != GQ_OK || *out == NULL)
        return code;
    for (size_t i = 0; choices[i] != NULL; i++)
        if (strcmp(*out, choices[i]) == 0)
            return GQ_OK;
    return fields_fail_one_of(path, key, names, err);
}

/* A special VAT invoice (专票) names the buyer's full details. */
static enum gq_code check_special_invoice(json_t *company, struct gq_error *err)
{
    static const char *const needed[] = {"name", "tax_id", "address", "bank"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (json_object_get(company, needed[i]) == NULL) {
            char field[32];
            fields_path(field, sizeof field, "company", needed[i]);
            return gq_fail_msg(err, GQ_ERR_MISSING_FIELD, field, MSG_SPECIAL_INVOICE_NEEDS,
                               MSG_TEXT(field));
        }
    return GQ_OK;
}

/* The body's "company" as a new object of its checked fields into *out. */
static enum gq_code read_company(json_t *body, json_t **out, struct gq_error *err)
{
    static const char *const invoice_types[] = {"normal", "special", NULL};
    /* A tax id's length is told by its own rule (check_tax_id), not here. */
    static const size_t max[] = {NAME_MAX_BYTES, 64, ADDRESS_MAX_BYTES, ADDRESS_MAX_BYTES};
    json_t *given;
    *out = NULL;
    enum gq_code code = fields_object(body, "company", "", true, &given, err);
    if (code == GQ_OK)
        code = fields_only(given, company_fields, "company", err);
    json_t *company = code == GQ_OK ? json_object() : NULL;
    for (size_t i = 0; code == GQ_OK && i < 4; i++) {
        const char *text = NULL;
        code = fields_text(given, company_fields[i], "company", max[i], &text, err);
        if (code == GQ_OK && text != NULL && i == 1)
            code = check_tax_id(text, err);
        if (code == GQ_OK && text != NULL)
            json_object_set_new(company, company_fields[i], json_string(text));
    }
    const char *invoice_type = NULL;
    if (code == GQ_OK)
        code = read_choice(given, "invoice_type", "company", invoice_types, "normal, special",
                           &invoice_type, err);
    if (code == GQ_OK && invoice_type != NULL) {
        json_object_set_new(company, "invoice_type", json_string(invoice_type));
        if (strcmp(invoice_type, "special") == 0)
            code = check_special_invoice(company, err);
    }
    if (code == GQ_OK && company == NULL)
        code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    if (code == GQ_OK)
        *out = company;
    else
        json_decref(company);
    return code;
}

/* The checked value of field `key` of `body` (not null) into *out: a new
 * reference, or for email the body's borrowed text in *email. */
static enum gq_code read_field(json_t *body, const char *key, json_t **out, const char **email,
                               struct gq_error *err)
{
    static const char *const languages[] = {"zh-CN", "en", NULL};
    const char *text = NULL;
    enum gq_code code = GQ_OK;
    *out = NULL;
    if (strcmp(key, "company") == 0)
        return read_company(body, out, err);
    if (strcmp(key, "metadata") == 0) {
        json_t *metadata;
        code = fields_metadata(body, key, "", &metadata, err);
        *out = code == GQ_OK ? json_deep_copy(metadata) : NULL;
    } else if (strcmp(key, "language") == 0) {
        code = read_choice(body, key, "", languages, "zh-CN, en", &text, err);
    } else {
        size_t max = strcmp(key, "email") == 0   ? CONTACT_EMAIL_MAX
                     : strcmp(key, "phone") == 0 ? PHONE_MAX_BYTES
                                                 : NAME_MAX_BYTES;
        code = fields_text(body, key, "", max, &text, err);
        if (code == GQ_OK && strcmp(key, "email") == 0)
            code = check_email(text, err);
        else if (code == GQ_OK && strcmp(key, "phone") == 0)
            code = check_phone(text, err);
    }
    if (code == GQ_OK && strcmp(key, "email") == 0)
        *email = text;
    else if (code == GQ_OK && text != NULL)
        *out = json_string(text);
    return code;
}

/* Applies the fields of `body` to `draft`: each given one replaces, null
 * clears it. */
static enum gq_code apply_body(json_t *body, struct customer_draft *draft, struct gq_error *err)
{
    enum gq_code code = fields_only(body, customer_fields, "", err);
    for (size_t i = 0; code == GQ_OK && customer_fields[i] != NULL; i++) {
        const char *key = customer_fields[i];
        json_t *given = json_object_get(body, key);
        bool is_email = strcmp(key, "email") == 0;
        if (given == NULL)
            continue;
        if (json_is_null(given)) {
            if (is_email)
                draft->email = NULL;
            else
                json_object_del(draft->document, key);
            continue;
        }
        json_t *value = NULL;
        code = read_field(body, key, &value, &draft->email, err);
        if (code == GQ_OK && !is_email)
            json_object_set_new(draft->document, key, value);
    }
    return code;
}

/* ---- As JSON. ---- */

static json_t *time_json(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return json_string(clock_format_rfc3339(unix_seconds, text));
}

static json_t *field_or_null(json_t *document, const char *key)
{
    json_t *value = json_object_get(document, key);
    return value != NULL ? json_incref(value) : json_null();
}

/* The API's customer from its id, times, email and document. */
static json_t *render_parts(const struct stored_customer *customer, const char *email,
                            json_t *document)
{
    json_t *metadata = json_object_get(document, "metadata");
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}", "id", customer->id,
                     "object", "customer", "name", field_or_null(document, "name"), "email",
                     email ? json_string(email) : json_null(), "phone",
                     field_or_null(document, "phone"), "language",
                     field_or_null(document, "language"), "company",
                     field_or_null(document, "company"), "metadata",
                     metadata ? json_incref(metadata) : json_object(), "deleted",
                     customer->deleted ? 1 : 0, "created_at", time_json(customer->created_at),
                     "updated_at", time_json(customer->updated_at));
}

/* The stored customer as the API shows it; NULL when its document is
 * unreadable or memory runs out. */
static json_t *render_customer(const struct stored_customer *customer)
{
    json_t *document = json_loads(customer->document, 0, NULL);
    json_t *rendered = document != NULL ? render_parts(customer, customer->email, document) : NULL;
    json_decref(document);
    return rendered;
}

/* ---- Writing. ---- */

static bool same_text(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The audit's change: {"fields": [...]}, the names of the fields that
 * differ between `before` (NULL: none) and `after`, never their values.
 * The caller frees it; NULL when memory runs out. */
static char *changed_fields(const struct customer_draft *before, const struct customer_draft *after)
{
    json_t *names = json_array();
    for (size_t i = 0; names != NULL && customer_fields[i] != NULL; i++) {
        const char *key = customer_fields[i];
        bool same = strcmp(key, "email") == 0
                        ? same_text(before ? before->email : NULL, after->email)
                        : json_equal(before ? json_object_get(before->document, key) : NULL,
                                     json_object_get(after->document, key)) ||
                              (before == NULL && json_object_get(after->document, key) == NULL);
        if (!same)
            json_array_append_new(names, json_string(key));
    }
    json_t *change = names != NULL ? json_pack("{s:o}", "fields", names) : NULL;
    char *text = change != NULL ? json_dumps(change, JSON_COMPACT) : NULL;
    json_decref(change);
    return text;
}

/* Stores `customer` (its id and times set) as `draft` says, with its
 * event and audit line, and answers with the customer (`status`). */
static enum MHD_Result write_customer(struct http_request *request, bool create,
                                      struct stored_customer *customer,
                                      const struct customer_draft *before,
                                      const struct customer_draft *draft, const char *event_type,
                                      const char *action)
{
    struct gq_error err;
    customer->email = (char *)draft->email;
    customer->document = json_dumps(draft->document, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *rendered =
        customer->document != NULL ? render_parts(customer, draft->email, draft->document) : NULL;
    char *object = rendered != NULL ? json_dumps(rendered, JSON_COMPACT) : NULL;
    char *change = changed_fields(before, draft);
    enum gq_code code = GQ_OK;
    if (object == NULL || change == NULL)
        code = gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    struct audit_entry audit = auth_audit_entry(request, action, customer->id, change);
    if (code == GQ_OK)
        code = store_customer_write(request->app->store, create, customer, event_type, object,
                                    &audit, &err);
    free(object);
    free(change);
    free(customer->document);
    customer->document = NULL;
    customer->email = NULL;
    if (code != GQ_OK) {
        json_decref(rendered);
        return reply_error(request, &err);
    }
    if (!create)
        return reply_json(request, MHD_HTTP_OK, rendered);
    return reply_created(request, rendered, false, "/customers/%s", customer->id);
}

enum MHD_Result customers_handle_create(struct http_request *request)
{
    struct gq_error err;
    struct customer_draft draft = {json_object(), NULL};
    if (draft.document == NULL)
        return reply_fail(request, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    if (!json_is_object(request->json)) {
        json_decref(draft.document);
        return reply_fail_msg(request, GQ_ERR_INVALID_TYPE, NULL, MSG_FIELD_WRONG_TYPE,
                              MSG_TEXT("body"), MSG_SAY(MSG_TYPE_OBJECT), MSG_SAY(MSG_TYPE_STRING));
    }
    if (apply_body(request->json, &draft, &err) != GQ_OK) {
        json_decref(draft.document);
        return reply_error(request, &err);
    }
    struct stored_customer customer = {.created_at = clock_now_seconds()};
    customer.updated_at = customer.created_at;
    enum MHD_Result reply;
    if (!ids_generate_ordered(CUSTOMER_PREFIX, customer.id)) /* lists are newest first by id */
        reply = reply_fail(request, GQ_ERR_INTERNAL, NULL, "cannot make a customer id");
    else
        reply = write_customer(request, true, &customer, NULL, &draft, STORE_EVENT_CUSTOMER_CREATED,
                               "customer.create");
    json_decref(draft.document);
    return reply;
}

static enum MHD_Result reply_no_customer(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_CUSTOMER,
                          MSG_TEXT_CUT(request->path_id, 40));
}

/* The customer of the path into *out; false when the reply is queued
 * (404 also for an erased customer when `live`). */
static bool read_customer(struct http_request *request, bool live, struct stored_customer *out,
                          enum MHD_Result *reply)
{
    struct gq_error err;
    if (!ids_is_well_formed(CUSTOMER_PREFIX, request->path_id)) {
        *reply = reply_no_customer(request);
        return false;
    }
    enum gq_code code = store_customer_get(request->app->store, request->path_id, out, &err);
    if (code == GQ_OK && live && out->deleted) {
        store_customer_clear(out);
        code = GQ_ERR_NOT_FOUND;
    }
    if (code == GQ_OK)
        return true;
    *reply = code == GQ_ERR_NOT_FOUND ? reply_no_customer(request) : reply_error(request, &err);
    return false;
}

enum MHD_Result customers_handle_get(struct http_request *request)
{
    struct stored_customer customer;
    enum MHD_Result reply;
    if (!read_customer(request, false, &customer, &reply))
        return reply;
    json_t *rendered = render_customer(&customer);
    store_customer_clear(&customer);
    struct gq_error err;
    if (rendered == NULL)
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "unreadable customer");
    if (verifications_add_to_customer(request->app->store, rendered, &err) != GQ_OK) {
        json_decref(rendered);
        return reply_error(request, &err);
    }
    return reply_json(request, MHD_HTTP_OK, rendered);
}

/* The stored customer as a draft (its document parsed, its email
 * borrowed); false when the document is unreadable. */
static bool draft_of(const struct stored_customer *customer, struct customer_draft *out)
{
    out->document = json_loads(customer->document, 0, NULL);
    out->email = customer->email;
    return json_is_object(out->document);
}

enum MHD_Result customers_handle_update(struct http_request *request)
{
    struct stored_customer stored;
    enum MHD_Result reply;
    if (!json_is_object(request->json))
        return reply_fail_msg(request, GQ_ERR_INVALID_TYPE, NULL, MSG_FIELD_WRONG_TYPE,
                              MSG_TEXT("body"), MSG_SAY(MSG_TYPE_OBJECT), MSG_SAY(MSG_TYPE_STRING));
    if (!read_customer(request, true, &stored, &reply))
        return reply;
    struct customer_draft before, after;
    struct gq_error err;
    if (!draft_of(&stored, &before) || !draft_of(&stored, &after)) {
        reply = reply_fail(request, GQ_ERR_INTERNAL, NULL, "unreadable customer");
    } else if (apply_body(request->json, &after, &err) != GQ_OK) {
        reply = reply_error(request, &err);
    } else {
        struct stored_customer customer = stored;
        customer.updated_at = clock_now_seconds();
        reply = write_customer(request, false, &customer, &before, &after,
                               STORE_EVENT_CUSTOMER_UPDATED, "customer.update");
    }
    json_decref(before.document);
    json_decref(after.document);
    store_customer_clear(&stored);
    return reply;
}

enum MHD_Result customers_handle_delete(struct http_request *request)
{
    struct stored_customer stored;
    enum MHD_Result reply;
    if (!read_customer(request, true, &stored, &reply))
        return reply;
    struct customer_draft before, erased = {json_object(), NULL};
    if (!draft_of(&stored, &before) || erased.document == NULL) {
        reply = reply_fail(request, GQ_ERR_INTERNAL, NULL, "unreadable customer");
    } else {
        struct stored_customer customer = stored;
        customer.deleted = true;
        customer.updated_at = clock_now_seconds();
        reply = write_customer(request, false, &customer, &before, &erased,
                               STORE_EVENT_CUSTOMER_DELETED, "customer.delete");
    }
    json_decref(before.document);
    json_decref(erased.document);
    store_customer_clear(&stored);
    return reply;
}

/* ---- The list. ---- */

enum { PARAM_STARTING_AFTER, PARAM_LIMIT, PARAM_EMAIL, PARAM_INCLUDE_DELETED };

static const struct list_param customer_params[] = {
    [PARAM_STARTING_AFTER] = {"starting_after", LIST_CURSOR, CUSTOMER_PREFIX},
    [PARAM_LIMIT] = {"limit", LIST_LIMIT, NULL},
    [PARAM_EMAIL] = {"email", LIST_TEXT, NULL},
    [PARAM_INCLUDE_DELETED] = {"include_deleted", LIST_TEXT, NULL},
};

static enum gq_code read_filter(struct http_request *request, struct list_query *query,
                                struct customer_filter *filter, struct gq_error *err)
{
    enum gq_code code = request_list_query(request, customer_params, 4, query, err);
    if (code != GQ_OK)
        return code;
    const char *include = query->text[PARAM_INCLUDE_DELETED];
    if (query->present[PARAM_INCLUDE_DELETED] && strcmp(include, "true") != 0 &&
        strcmp(include, "false") != 0)
        return gq_fail_msg(err, GQ_ERR_INVALID_PARAMETER, "include_deleted", MSG_FIELD_ONE_OF,
                           MSG_TEXT("include_deleted"), MSG_TEXT("true, false"));
    *filter = (struct customer_filter){
        .email = list_query_text(query, PARAM_EMAIL),
        .include_deleted = query->present[PARAM_INCLUDE_DELETED] && strcmp(include, "true") == 0,
        .starting_after = list_query_text(query, PARAM_STARTING_AFTER),
        .limit = query->limit,
    };
    return GQ_OK;
}

enum MHD_Result customers_handle_list(struct http_request *request)
{
    struct list_query query;
    struct customer_filter filter;
    struct customer_page page;
    struct gq_error err = {0};
    if (read_filter(request, &query, &filter, &err) != GQ_OK ||
        store_customers_read(request->app->store, &filter, &page, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = json_array();
    enum gq_code code = GQ_OK;
    for (size_t i = 0; code == GQ_OK && data != NULL && i < page.count; i++) {
        json_t *customer = render_customer(&page.items[i]);
        if (customer != NULL)
            code = verifications_add_to_customer(request->app->store, customer, &err);
        data = render_append(data, customer);
    }
    bool has_more = page.has_more;
    store_customer_page_free(&page);
    if (code != GQ_OK) {
        json_decref(data);
        return reply_error(request, &err);
    }
    return reply_page(request, data, has_more);
}
