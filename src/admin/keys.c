/*
 * The admin API's keys: POST /admin/keys (a new key, its secret shown this
 * once), GET /admin/keys and /admin/keys/{id}, DELETE /admin/keys/{id}
 * (revoke). Every route needs a key with the scope keys:write (the route
 * table says so); every change writes its audit line in the same
 * transaction. A key is never shown with its secret again, nor its hash.
 * A key made with `customer` acts for that customer alone, and holds no
 * scope of the business's own (SCOPE_CUSTOMER_KEY).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "codec/bodies.h"
#include "codec/key_json.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "store/store.h"
#include "util/api_key.h"
#include "util/clock.h"
#include "util/ids.h"

#define KEY_NAME_MAX 100

/* ---- Reading a new key's body. ---- */

/* The scopes' names, for a message: "quotes:write, quotes:read, ...". */
static void scope_list(char *out, size_t size)
{
    char spaced[160];
    api_scopes_format(SCOPE_ALL, spaced, sizeof spaced);
    size_t used = 0;
    for (const char *c = spaced; *c != '\0' && used + 2 < size; c++) {
        if (*c == ' ')
            out[used++] = ',';
        out[used++] = *c;
    }
    out[used] = '\0';
}

static enum gq_code parse_scopes(json_t *body, unsigned *scopes, struct gq_error *err)
{
    json_t *list;
    enum gq_code code = fields_array(body, "scopes", "", true, SCOPE_COUNT * 2, &list, err);
    if (code != GQ_OK)
        return code;
    *scopes = SCOPE_NONE;
    size_t index;
    json_t *item;
    json_array_foreach(list, index, item)
    {
        char path[32];
        fields_index_path(path, sizeof path, "scopes", index);
        unsigned scope = fields_is_text(item) ? api_scope_parse(json_string_value(item)) : 0;
        if (!json_is_string(item))
            return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, path, MSG_FIELD_WRONG_TYPE, MSG_TEXT(path),
                               MSG_SAY(MSG_TYPE_STRING), MSG_SAY(MSG_TYPE_NUMBER));
        if (scope == SCOPE_NONE) {
            char names[200];
            scope_list(names, sizeof names);
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, path, MSG_FIELD_ONE_OF, MSG_TEXT(path),
                               MSG_TEXT(names));
        }
        *scopes |= scope;
    }
    if (*scopes == SCOPE_NONE)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "scopes", MSG_SCOPES_NONE,
                           MSG_TEXT("scopes"));
    return GQ_OK;
}

/* The scopes a bound key may hold, for a message. */
static void customer_scope_list(char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < SCOPE_COUNT; i++) {
        unsigned scope = api_scope_at(i);
        if ((scope & SCOPE_CUSTOMER_KEY) == 0)
            continue;
        int n = snprintf(out + used, size - used, "%s%s", used ? ", " : "", api_scope_name(scope));
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

/* A key for `customer` holds none of the business's scopes; the customer
 * exists and is not erased (404 naming the field otherwise). */
static enum gq_code check_customer(struct http_request *request, const char *customer,
                                   unsigned scopes, struct gq_error *err)
{
    if ((scopes & ~(unsigned)SCOPE_CUSTOMER_KEY) != 0) {
        char names[80];
        customer_scope_list(names, sizeof names);
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "scopes", MSG_SCOPES_NOT_FOR_CUSTOMER,
                           MSG_TEXT(names));
    }
    enum gq_code code = ids_is_well_formed("cus_", customer)
                            ? store_customer_check_live(request->app->store, customer, err)
                            : GQ_ERR_NOT_FOUND;
    if (code == GQ_ERR_NOT_FOUND)
        return gq_fail_msg(err, GQ_ERR_NOT_FOUND, "customer", MSG_NO_CUSTOMER,
                           MSG_TEXT_CUT(customer, 64));
    return code;
}

static enum gq_code parse_new_key(json_t *body, const char **name, unsigned *scopes,
                                  const char **customer, struct gq_error *err)
{
    static const char *const allowed[] = {"name", "scopes", "customer", NULL};
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = fields_string(body, "name", "", true, name, err);
    if (code == GQ_OK && (strlen(*name) < 1 || strlen(*name) > KEY_NAME_MAX))
        code = gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "name", MSG_FIELD_TEXT_LENGTH,
                           MSG_TEXT("name"), MSG_INT(1), MSG_INT(KEY_NAME_MAX));
    if (code == GQ_OK)
        code = parse_scopes(body, scopes, err);
    *customer = NULL;
    if (code == GQ_OK)
        code = fields_string(body, "customer", "", false, customer, err);
    return code;
}

/* ---- Handlers. ---- */

enum MHD_Result keys_handle_create(struct http_request *request)
{
    const char *name, *customer;
    unsigned scopes;
    struct gq_error err;
    if (parse_new_key(request->json, &name, &scopes, &customer, &err) != GQ_OK ||
        (customer != NULL && check_customer(request, customer, scopes, &err) != GQ_OK))
        return reply_error(request, &err);
    struct stored_key key;
    char secret[API_KEY_SIZE];
    if (store_key_new(name, scopes, clock_now_seconds(), &key, secret, &err) != GQ_OK)
        return reply_error(request, &err);
    snprintf(key.customer_id, sizeof key.customer_id, "%s", customer ? customer : "");
    char *change = key_json_change(NULL, &key);
    struct audit_entry audit =
        auth_audit_entry(request, "key.create", key.id, change ? change : "{}");
    enum gq_code code = change != NULL ? store_key_create(request->app->store, &key, &audit, &err)
                                       : gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    free(change);
    if (code != GQ_OK) {
        memset(secret, 0, sizeof secret);
        return reply_error(request, &err);
    }
    keyring_reload(request->app); /* in force here at once; elsewhere within a poll */
    json_t *body = render_with_secret(key_json_render(&key), secret);
    memset(secret, 0, sizeof secret);
    return reply_created(request, body, true, "/admin/keys/%s", key.id);
}

static json_t *render_key(const void *key)
{
    return key_json_render(key);
}

enum MHD_Result keys_handle_list(struct http_request *request)
{
    struct key_list list = {0};
    struct gq_error err;
    if (store_keys_read(request->app->store, true, &list, &err) != GQ_OK)
        return reply_error(request, &err);
    json_t *data = render_each(list.items, list.count, sizeof *list.items, render_key);
    store_key_list_free(&list);
    return reply_page(request, data, false);
}

static bool is_key_id(const char *text)
{
    return ids_is_well_formed(API_KEY_ID_PREFIX, text);
}

static enum MHD_Result reply_no_key(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_KEY,
                          MSG_TEXT_CUT(request->path_id, 40));
}

enum MHD_Result keys_handle_get(struct http_request *request)
{
    if (!is_key_id(request->path_id))
        return reply_no_key(request);
    struct stored_key key;
    struct gq_error err;
    if (store_key_get(request->app->store, request->path_id, &key, &err) != GQ_OK)
        return reply_error(request, &err);
    return reply_json(request, MHD_HTTP_OK, key_json_render(&key));
}

enum MHD_Result keys_handle_revoke(struct http_request *request)
{
    if (!is_key_id(request->path_id))
        return reply_no_key(request);
    struct stored_key before, after;
    struct gq_error err;
    if (store_key_get(request->app->store, request->path_id, &before, &err) != GQ_OK)
        return reply_error(request, &err);
    int64_t now = clock_now_seconds();
    after = before;
    after.revoked_at = before.revoked_at ? before.revoked_at : now;
    char *change = key_json_change(&before, &after);
    struct audit_entry audit =
        auth_audit_entry(request, "key.revoke", request->path_id, change ? change : "{}");
    bool was_revoked = false;
    enum gq_code code = change != NULL ? store_key_revoke(request->app->store, request->path_id,
                                                          now, &audit, &after, &was_revoked, &err)
                                       : gq_fail(&err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    free(change);
    if (code != GQ_OK)
        return reply_error(request, &err);
    keyring_reload(request->app); /* out of force here at once */
    return reply_json(request, MHD_HTTP_OK, key_json_render(&after));
}
