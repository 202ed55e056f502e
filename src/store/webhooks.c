/*
 * Webhook endpoints and deliveries, the part every backend shares: freeing
 * what the backends read, and the wrappers of store.h, which give each
 * audit line its id and time and word a missing row.
 */
#include <stdlib.h>
#include <string.h>

#include "store/backend.h"
#include "store/page.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/secret_box.h"

void store_endpoint_clear(struct stored_endpoint *endpoint)
{
    if (endpoint == NULL)
        return;
    free(endpoint->url);
    free(endpoint->description);
    free(endpoint->events);
    if (endpoint->secret != NULL) {
        memset(endpoint->secret, 0, strlen(endpoint->secret));
        free(endpoint->secret);
    }
    memset(endpoint, 0, sizeof *endpoint);
}

void store_endpoint_list_free(struct endpoint_list *list)
{
    STORE_LIST_FREE(list, store_endpoint_clear);
}

static void delivery_clear(struct stored_delivery *delivery)
{
    for (size_t i = 0; i < delivery->n_tries; i++)
        free(delivery->tries[i].error);
    free(delivery->tries);
    memset(delivery, 0, sizeof *delivery);
}

void store_delivery_page_free(struct delivery_page *page)
{
    STORE_LIST_FREE(page, delivery_clear);
}

void store_claimed_free(struct claimed_delivery *items, size_t count)
{
    for (size_t i = 0; items != NULL && i < count; i++) {
        free(items[i].url);
        if (items[i].secret != NULL) {
            memset(items[i].secret, 0, strlen(items[i].secret));
            free(items[i].secret);
        }
        free(items[i].body);
    }
    free(items);
}

static enum gq_code no_endpoint(const char *id, struct gq_error *err)
{
    return gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_ENDPOINT, MSG_TEXT_CUT(id, 40));
}

enum gq_code store_endpoint_create(struct store *store, const struct stored_endpoint *endpoint,
                                   const struct audit_entry *audit, struct gq_error *err)
{
    struct audit_line line;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code == GQ_OK)
        code = store_ops(store)->endpoint_insert(store_backend(store), endpoint, &line, err);
    return code;
}

enum gq_code store_endpoints_read(struct store *store, const char *id, struct endpoint_list *out,
                                  struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    enum gq_code code = store_ops(store)->endpoints_read(store_backend(store), id, out, err);
    if (code != GQ_OK)
        store_endpoint_list_free(out);
    return code;
}

enum gq_code store_endpoint_get(struct store *store, const char *id, struct stored_endpoint *out,
                                struct gq_error *err)
{
    struct endpoint_list list;
    enum gq_code code = store_endpoints_read(store, id, &list, err);
    if (code == GQ_OK && !store_items_take_first(list.items, list.count, sizeof *list.items, out))
        code = no_endpoint(id, err);
    store_endpoint_list_free(&list);
    return code;
}

enum gq_code store_endpoint_update(struct store *store, const struct stored_endpoint *endpoint,
                                   const struct audit_entry *audit, struct gq_error *err)
{
    struct audit_line line;
    bool found = false;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code == GQ_OK)
        code =
            store_ops(store)->endpoint_update(store_backend(store), endpoint, &line, &found, err);
    return code == GQ_OK && !found ? no_endpoint(endpoint->id, err) : code;
}

enum gq_code store_endpoint_delete(struct store *store, const char *id,
                                   const struct audit_entry *audit, struct gq_error *err)
{
    struct audit_line line;
    bool found = false;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code == GQ_OK)
        code = store_ops(store)->endpoint_delete(store_backend(store), id, &line, &found, err);
    return code == GQ_OK && !found ? no_endpoint(id, err) : code;
}

enum gq_code store_deliveries_read(struct store *store, const char *endpoint_id,
                                   const char *starting_after, size_t limit,
                                   struct delivery_page *out, struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    enum gq_code code = store_ops(store)->deliveries_read(store_backend(store), endpoint_id,
                                                          starting_after, limit, out, err);
    STORE_PAGE_END(code, out, limit, delivery_clear);
    return code;
}

enum gq_code store_delivery_retry(struct store *store, const char *endpoint_id,
                                  const char *delivery_id, int64_t now_ms,
                                  const struct audit_entry *audit, struct gq_error *err)
{
    struct audit_line line;
    bool found = false;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code == GQ_OK)
        code = store_ops(store)->delivery_retry(store_backend(store), endpoint_id, delivery_id,
                                                now_ms, &line, &found, err);
    if (code == GQ_OK && !found)
        code = gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_DELIVERY,
                           MSG_TEXT_CUT(delivery_id, 40));
    else if (code == GQ_OK)
        store_events_committed(store); /* due now: the sender is woken */
    return code;
}

enum gq_code store_deliveries_claim(struct store *store, int64_t now_ms, int64_t lease_ms,
                                    size_t max, struct claimed_delivery **out, size_t *count,
                                    struct gq_error *err)
{
    *out = NULL;
    *count = 0;
    return store_ops(store)->deliveries_claim(store_backend(store), now_ms, lease_ms, max, out,
                                              count, err);
}

enum gq_code store_delivery_finish(struct store *store, const char *id,
                                   const struct stored_attempt *attempt, const char *status,
                                   int64_t next_attempt_at, int64_t disable_before_ms,
                                   bool *disabled, struct gq_error *err)
{
    struct delivery_end end = {id, attempt, status, next_attempt_at, disable_before_ms};
    *disabled = false;
    enum gq_code code =
        store_ops(store)->delivery_finish(store_backend(store), &end, disabled, err);
    if (code == GQ_OK && *disabled)
        store_events_committed(store); /* its webhook_endpoint.disabled */
    return code;
}

enum gq_code store_event_endpoint_disabled(const struct stored_endpoint *endpoint,
                                           struct store_event *out, struct gq_error *err)
{
    const struct store_render *render = store_render();
    char *text = render != NULL ? render->endpoint(endpoint) : NULL;
    return store_event_of_text(STORE_EVENT_ENDPOINT_DISABLED, text, out, err);
}

/* Opens `stored` of endpoint `id`; GQ_ERR_NOT_READY naming them when it
 * does not open with the ring. */
static enum gq_code open_stored(const struct secret_keyring *ring, const char *id,
                                const char *stored, char *plain, size_t size, bool *was_clear,
                                struct gq_error *err)
{
    char key_id[SECRET_BOX_ID_SIZE] = "";
    secret_box_is_sealed(stored, key_id);
    switch (secret_box_open(ring, id, stored, plain, size)) {
    case SECRET_BOX_OPENED:
        *was_clear = false;
        return GQ_OK;
    case SECRET_BOX_CLEAR:
        *was_clear = true;
        return GQ_OK;
    case SECRET_BOX_UNKNOWN_KEY:
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "the secret of webhook endpoint %s is sealed with key '%s', which the "
                       "secrets keyring lacks (%s)",
                       id, key_id,
                       ring->count == 0 ? "no secrets key is configured"
                                        : "add it back, after the first key");
    case SECRET_BOX_BAD:
    default:
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "the secret of webhook endpoint %s does not open with key '%s': the "
                       "keyring's key of that id is not the one it was sealed with",
                       id, key_id);
    }
}

enum gq_code store_webhook_secrets_reseal(struct store *store, const struct secret_keyring *ring,
                                          size_t *resealed, struct gq_error *err)
{
    *resealed = 0;
    struct endpoint_list list = {0};
    enum gq_code code = store_ops(store)->endpoint_secrets_read(store_backend(store), &list, err);
    for (size_t i = 0; code == GQ_OK && i < list.count; i++) {
        const struct stored_endpoint *endpoint = &list.items[i];
        char plain[SECRET_BOX_SEALED_SIZE], sealed[SECRET_BOX_SEALED_SIZE];
        char key_id[SECRET_BOX_ID_SIZE] = "";
        bool was_clear = false;
        code =
            open_stored(ring, endpoint->id, endpoint->secret, plain, sizeof plain, &was_clear, err);
        bool current = !was_clear && secret_box_is_sealed(endpoint->secret, key_id) &&
                       strcmp(key_id, ring->keys[0].id) == 0;
        if (code == GQ_OK && ring->count > 0 && !current) {
            bool found = false;
            if (!secret_box_seal(ring, endpoint->id, plain, sealed, sizeof sealed))
                code = gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot seal a webhook secret");
            else
                code = store_ops(store)->endpoint_secret_replace(
                    store_backend(store), endpoint->id, endpoint->secret, sealed, &found, err);
            *resealed += code == GQ_OK && found;
        }
        memset(plain, 0, sizeof plain);
    }
    store_endpoint_list_free(&list);
    return code;
}

enum gq_code store_webhook_secret_open(const struct secret_keyring *ring, const char *id,
                                       const char *stored, char *plain, size_t size,
                                       struct gq_error *err)
{
    bool was_clear;
    return open_stored(ring, id, stored, plain, size, &was_clear, err);
}
