/*
 * Promotion codes: POST, GET and PATCH on /admin/promotion-codes (scope
 * catalog:write, the route table says so), and a code as POST /quote uses
 * it (promotion_codes_for_quote).
 *
 * A code is what a customer types, matched whatever its case and stored
 * upper-case. Its `discount` has the fields of a price list's discount
 * rule; a quote priced with the code gets that rule as one more rule of
 * the discount engine (core/discounts.c), named by the code and marked
 * with its source. Once created, a code changes only by being deactivated:
 * its redemptions are counted when quotes are accepted (the store counts
 * them in the accept's transaction, never past max_redemptions).
 */
#include <stdlib.h>
#include <string.h>

#include "core/promotions.h"
#include "admin/admin.h"
#include "codec/bodies.h"
#include "codec/list_query.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "util/clock.h"

/* ---- The discount, as a rule of the discount engine. ---- */

/* `discount` (a price list's discount rule's fields, without an id or a
 * validity window) as the rule of promotion code `code`; the rule borrows
 * strings from `discount` and `code`. */
static enum gq_code read_discount(json_t *discount, const char *code_name,
                                  struct discount_rule *rule, struct gq_error *err)
{
    enum gq_code code = discount_rule_body_read(discount, "discount", false, rule, err);
    rule->id = (char *)code_name;
    rule->from_promotion_code = true;
    return code;
}

/* ---- A code as JSON. ---- */

static json_t *time_or_null(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return unix_seconds > 0 ? json_string(clock_format_rfc3339(unix_seconds, text)) : json_null();
}

static json_t *limit_or_null(int64_t limit)
{
    return limit > 0 ? json_integer((json_int_t)limit) : json_null();
}

static json_t *render_code(const struct stored_promotion_code *code)
{
    json_t *discount = json_loads(code->discount, 0, NULL);
    if (discount == NULL)
        return NULL;
    return json_pack(
        "{s:s, s:s, s:o, s:o, s:o, s:o, s:b, s:b, s:I, s:o, s:o}", "object", "promotion_code",
        "code", code->code, "discount", discount, "expires_at", time_or_null(code->expires_at),
        "max_redemptions", limit_or_null(code->max_redemptions), "per_customer_limit",
        limit_or_null(code->per_customer_limit), "first_time_only", code->first_time_only, "active",
        code->active, "redemptions", (json_int_t)code->redemptions, "created_at",
        time_or_null(code->created_at), "updated_at", time_or_null(code->updated_at));
}

/* {"old": ..., "new": ...} for the audit log. */
static char *change_of(const struct stored_promotion_code *before,
                       const struct stored_promotion_code *after)
{
    json_t *change = json_pack("{s:o, s:o}", "old", before ? render_code(before) : json_null(),
                               "new", after ? render_code(after) : json_null());
    char *text = change != NULL ? json_dumps(change, JSON_COMPACT) : NULL;
    json_decref(change);
    return text;
}

/* ---- Reading a new code. ---- */

static enum gq_code read_name(json_t *body, char out[STORE_PROMOTION_CODE_SIZE],
                              struct gq_error *err)
{
    const char *typed = NULL;
    enum gq_code code = fields_string(body, "code", "", true, &typed, err);
    if (code == GQ_OK && !promotion_code_normalize(typed, out))
        code = gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "code", MSG_PROMO_FORM, MSG_TEXT("code"));
    return code;
}

static enum gq_code read_limits(json_t *body, struct stored_promotion_code *out,
                                struct gq_error *err)
{
    enum gq_code code = fields_time(body, "expires_at", "", false, &out->expires_at, err);
    if (code == GQ_OK)
        code = fields_integer(body, "max_redemptions", "", false, 1, INT32_MAX,
                              &out->max_redemptions, err);
    if (code == GQ_OK)
        code = fields_integer(body, "per_customer_limit", "", false, 1, INT32_MAX,
                              &out->per_customer_limit, err);
    if (code == GQ_OK)
        code = fields_boolean(body, "first_time_only", "", false, &out->first_time_only, err);
    out->active = true;
    if (code == GQ_OK)
        code = fields_boolean(body, "active", "", false, &out->active, err);
    return code;
}

static enum gq_code read_new_code(json_t *body, struct stored_promotion_code *out,
                                  struct gq_error *err)
{
    static const char *const allowed[] = {"code",
                                          "discount",
                                          "expires_at",
                                          "max_redemptions",
                                          "per_customer_limit",
                                          "first_time_only",
                                          "active",
                                          NULL};
    json_t *discount = NULL;
    struct discount_rule rule;
    memset(out, 0, sizeof *out);
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = read_name(body, out->code, err);
    if (code == GQ_OK)
        code = fields_object(body, "discount", "", true, &discount, err);
    if (code == GQ_OK)
        code = read_discount(discount, out->code, &rule, err);
    if (code == GQ_OK)
        code = read_limits(body, out, err);
    if (code == GQ_OK &&
        (out->discount = json_dumps(discount, JSON_COMPACT | JSON_SORT_KEYS)) == NULL)
        code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    return code;
}

/* ---- Handlers. ---- */

enum MHD_Result promotion_codes_handle_create(struct http_request *request)
{
    struct stored_promotion_code code;
    struct gq_error err;
    enum gq_code result = read_new_code(request->json, &code, &err);
    code.created_at = code.updated_at = clock_now_seconds();
    char *change = result == GQ_OK ? change_of(NULL, &code) : NULL;
    if (result == GQ_OK && change == NULL)
        result = gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    if (result == GQ_OK) {
        struct audit_entry audit =
            auth_audit_entry(request, "promotion_code.create", code.code, change);
        result = store_promotion_code_create(request->app->store, &code, &audit, &err);
    }
    free(change);
    enum MHD_Result reply = result == GQ_OK ? reply_created(request, render_code(&code), false,
                                                            "/admin/promotion-codes/%s", code.code)
                                            : reply_error(request, &err);
    store_promotion_code_clear(&code);
    return reply;
}

static json_t *render_code_item(const void *code)
{
    return render_code(code);
}

enum MHD_Result promotion_codes_handle_list(struct http_request *request)
{
    struct promotion_code_list list;
    struct gq_error err;
    if (store_promotion_codes_read(request->app->store, NULL, &list, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = render_each(list.items, list.count, sizeof *list.items, render_code_item);
    store_promotion_code_list_free(&list);
    return reply_page(request, data, false);
}

/* The path's code, upper-cased; a 404 when it cannot name one. */
static bool path_code(struct http_request *request, char out[STORE_PROMOTION_CODE_SIZE],
                      struct gq_error *err)
{
    if (promotion_code_normalize(request->path_id, out))
        return true;
    gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_PROMO_UNKNOWN, MSG_TEXT_CUT(request->path_id, 40));
    return false;
}

enum MHD_Result promotion_codes_handle_get(struct http_request *request)
{
    char name[STORE_PROMOTION_CODE_SIZE];
    struct stored_promotion_code code = {0};
    struct gq_error err;
    if (!path_code(request, name, &err) ||
        store_promotion_code_get(request->app->store, name, &code, &err) != GQ_OK)
        return reply_error(request, &err);
    enum MHD_Result reply = reply_json(request, MHD_HTTP_OK, render_code(&code));
    store_promotion_code_clear(&code);
    return reply;
}

/* {"active": false}: the one change a code takes. */
static enum gq_code read_update(json_t *body, struct gq_error *err)
{
    static const char *const allowed[] = {"active", NULL};
    bool active = true;
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = fields_boolean(body, "active", "", true, &active, err);
    if (code == GQ_OK && active)
        code = gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "active", MSG_PROMO_LOCKED);
    return code;
}

enum MHD_Result promotion_codes_handle_update(struct http_request *request)
{
    char name[STORE_PROMOTION_CODE_SIZE];
    struct stored_promotion_code code = {0};
    struct gq_error err;
    if (!path_code(request, name, &err) || read_update(request->json, &err) != GQ_OK)
        return reply_error(request, &err);
    char change[160];
    snprintf(change, sizeof change, "{\"old\":{\"active\":true},\"new\":{\"active\":false}}");
    struct audit_entry audit = auth_audit_entry(request, "promotion_code.deactivate", name, change);
    if (store_promotion_code_deactivate(request->app->store, name, clock_now_seconds(), &audit,
                                        &code, &err) != GQ_OK)
        return reply_error(request, &err);
    enum MHD_Result reply = reply_json(request, MHD_HTTP_OK, render_code(&code));
    store_promotion_code_clear(&code);
    return reply;
}

/* ---- A code in a quote. ---- */

void promotion_use_clear(struct promotion_use *use)
{
    json_decref(use->discount);
    memset(use, 0, sizeof *use);
}

static enum gq_code check_terms(const struct stored_promotion_code *code, int64_t now,
                                struct gq_error *err)
{
    char expiry[CLOCK_RFC3339_SIZE];
    struct promotion_terms terms = {
        .code = code->code,
        .active = code->active,
        .expires_at = code->expires_at,
        .expires_text = clock_format_rfc3339(code->expires_at, expiry),
        .max_redemptions = code->max_redemptions,
        .redemptions = code->redemptions,
        .needs_customer = code->per_customer_limit > 0 || code->first_time_only,
    };
    return promotion_check(&terms, now, err);
}

enum gq_code promotion_codes_for_quote(struct http_request *request, const char *typed, int64_t now,
                                       struct promotion_use *use, struct gq_error *err)
{
    memset(use, 0, sizeof *use);
    struct stored_promotion_code code = {0};
    enum gq_code result = GQ_OK;
    if (!promotion_code_normalize(typed, use->code)) {
        result = gq_fail_msg(err, GQ_ERR_PROMOTION_CODE_INVALID, "promotion_code",
                             MSG_PROMO_UNKNOWN, MSG_TEXT_CUT(typed, 40));
        snprintf(err->state, sizeof err->state, "unknown");
        return result;
    }
    result = store_promotion_code_get(request->app->store, use->code, &code, err);
    if (result == GQ_ERR_NOT_FOUND) {
        err->code = result = GQ_ERR_PROMOTION_CODE_INVALID;
        snprintf(err->field, sizeof err->field, "promotion_code");
        snprintf(err->state, sizeof err->state, "unknown");
    }
    if (result == GQ_OK)
        result = check_terms(&code, now, err);
    if (result == GQ_OK && (use->discount = json_loads(code.discount, 0, NULL)) == NULL)
        result = gq_fail(err, GQ_ERR_INTERNAL, NULL, "promotion code %s is unreadable", code.code);
    if (result == GQ_OK)
        result = read_discount(use->discount, use->code, &use->rule, err);
    store_promotion_code_clear(&code);
    if (result != GQ_OK)
        promotion_use_clear(use);
    return result;
}

bool promotion_codes_of_request(const char *request_json, char out[STORE_PROMOTION_CODE_SIZE])
{
    json_t *request = json_loads(request_json, 0, NULL);
    const char *typed = json_string_value(json_object_get(request, "promotion_code"));
    bool named = typed != NULL && promotion_code_normalize(typed, out);
    json_decref(request);
    return named;
}
