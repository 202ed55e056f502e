/*
 * Verifications, the part every backend shares: their JSON (the API's and
 * their events' object), freeing what the backends read, and the wrappers
 * of verifications.h, which make each write's event and audit line.
 */
#include "store/verifications.h"

#include <stdlib.h>
#include <string.h>

#include "store/backend.h"
#include "util/clock.h"

void store_verification_clear(struct stored_verification *verification)
{
    if (verification != NULL) {
        free(verification->evidence);
        *verification = (struct stored_verification){0};
    }
}

void store_verification_list_free(struct verification_list *list)
{
    if (list != NULL) {
        while (list->count > 0)
            store_verification_clear(&list->items[--list->count]);
        free(list->items);
        list->items = NULL;
    }
}

const char *store_verification_status(const struct stored_verification *verification, int64_t now)
{
    if (verification->revoked_at != 0)
        return "revoked";
    if (verification->expired_at != 0 || verification->expires_at <= now)
        return "expired";
    return "active";
}

static json_t *time_or_null(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return unix_seconds != 0 ? json_string(clock_format_rfc3339(unix_seconds, text)) : json_null();
}

json_t *store_verification_json(const struct stored_verification *verification, int64_t now,
                                bool with_evidence)
{
    json_t *object =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "id", verification->id, "object",
                  "customer_verification", "customer", verification->customer_id, "segment",
                  verification->segment, "status", store_verification_status(verification, now),
                  "created_at", time_or_null(verification->created_at), "expires_at",
                  time_or_null(verification->expires_at), "revoked_at",
                  time_or_null(verification->revoked_at));
    if (object != NULL && with_evidence)
        json_object_set_new(object, "evidence",
                            verification->evidence != NULL ? json_string(verification->evidence)
                                                           : json_null());
    return object;
}

enum gq_code store_verification_event(const char *type,
                                      const struct stored_verification *verification, int64_t now,
                                      struct store_event *out, struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *object = store_verification_json(verification, now, false);
    char *text = object != NULL ? json_dumps(object, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(object);
    if (text == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory making an event");
    enum gq_code code = store_event_make(type, text, out, err);
    free(text);
    if (code == GQ_OK)
        store_event_concerns(out, verification->customer_id);
    return code;
}

enum gq_code store_verifications_read(struct store *store, const char *customer_id, const char *id,
                                      int64_t live_at, struct verification_list *out,
                                      struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    enum gq_code code = store_ops(store)->verifications_read(store_backend(store), customer_id, id,
                                                             live_at, out, err);
    if (code != GQ_OK)
        store_verification_list_free(out);
    return code;
}

/* The write of `verification` with its event `type` at `now` and its
 * audit line; *done false when the backend wrote nothing. */
static enum gq_code write_verification(struct store *store, bool create,
                                       const struct stored_verification *verification,
                                       const char *type, int64_t now,
                                       const struct audit_entry *audit, bool *done,
                                       struct gq_error *err)
{
    struct audit_line line;
    struct store_event event;
    *done = false;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code == GQ_OK)
        code = store_verification_event(type, verification, now, &event, err);
    if (code != GQ_OK)
        return code;
    struct verification_write write = {create, verification, &event, &line};
    code = store_ops(store)->verification_write(store_backend(store), &write, done, err);
    store_event_clear(&event);
    if (code == GQ_OK && *done)
        store_events_committed(store);
    return code;
}

enum gq_code store_verification_create(struct store *store,
                                       const struct stored_verification *verification,
                                       const struct audit_entry *audit, struct gq_error *err)
{
    bool done;
    enum gq_code code =
        write_verification(store, true, verification, STORE_EVENT_VERIFICATION_CREATED,
                           verification->created_at, audit, &done, err);
    if (code == GQ_OK && !done)
        return gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_CUSTOMER,
                           MSG_TEXT_CUT(verification->customer_id, 40));
    return code;
}

enum gq_code store_verification_revoke(struct store *store,
                                       const struct stored_verification *verification,
                                       const struct audit_entry *audit, bool *revoked,
                                       struct gq_error *err)
{
    return write_verification(store, false, verification, STORE_EVENT_VERIFICATION_REVOKED,
                              verification->revoked_at, audit, revoked, err);
}

enum gq_code store_verifications_expire(struct store *store, int64_t now, int limit, int *count,
                                        struct gq_error *err)
{
    *count = 0;
    enum gq_code code =
        store_ops(store)->expire_verifications(store_backend(store), now, limit, count, err);
    if (code == GQ_OK && *count > 0)
        store_events_committed(store);
    return code;
}
