/*
 * API keys and the audit log, the part every backend shares: the wrappers
 * of store.h, which give each audit line its id and time and check what a
 * caller hands over, and the scopes' text as stored.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/backend.h"
#include "store/page.h"
#include "store/store.h"
#include "util/api_key.h"
#include "util/ids.h"

void store_key_list_free(struct key_list *list)
{
    if (list == NULL)
        return;
    free(list->items);
    memset(list, 0, sizeof *list);
}

static void free_record(struct audit_record *record)
{
    free(record->key_id);
    free(record->key_name);
    free(record->client);
    free(record->request_id);
    free(record->action);
    free(record->target);
    free(record->change);
    memset(record, 0, sizeof *record);
}

void store_audit_page_free(struct audit_page *page)
{
    STORE_LIST_FREE(page, free_record);
}

void store_audit_page_trim(struct audit_page *page, size_t limit)
{
    STORE_PAGE_TRIM(page, limit, free_record);
}

void store_scopes_text(unsigned scopes, char *out, size_t size)
{
    api_scopes_format(scopes, out, size);
}

bool store_scopes_parse(const char *text, unsigned *scopes)
{
    char bad[32];
    return api_scopes_parse(text, scopes, bad, sizeof bad);
}

/* The audit line of `entry`: a time-ordered id ("aud_...") and now. */
enum gq_code store_audit_line(const struct audit_entry *entry, struct audit_line *line,
                              struct gq_error *err)
{
    assert(entry != NULL && entry->client != NULL && entry->action != NULL &&
           entry->target != NULL && entry->change != NULL);
    line->entry = entry;
    line->at = (int64_t)time(NULL);
    if (!ids_generate_ordered("aud_", line->id))
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot make an audit line's id");
    return GQ_OK;
}

enum gq_code store_key_new(const char *name, unsigned scopes, int64_t now, struct stored_key *key,
                           char *secret, struct gq_error *err)
{
    memset(key, 0, sizeof *key);
    if (!api_key_generate(secret) || !ids_generate(API_KEY_ID_PREFIX, key->id))
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot make a key: no random bytes");
    snprintf(key->name, sizeof key->name, "%s", name);
    memcpy(key->prefix, secret, API_KEY_VISIBLE);
    key->prefix[API_KEY_VISIBLE] = '\0';
    api_key_hash(secret, strlen(secret), key->hash);
    key->scopes = scopes;
    key->created_at = now;
    return GQ_OK;
}

enum gq_code store_keys_version(struct store *store, int64_t *version, struct gq_error *err)
{
    return store_ops(store)->keys_version(store_backend(store), version, err);
}

enum gq_code store_keys_read(struct store *store, bool with_revoked, struct key_list *out,
                             struct gq_error *err)
{
    return store_ops(store)->keys_read(store_backend(store), with_revoked, NULL, out, err);
}

enum gq_code store_key_get(struct store *store, const char *id, struct stored_key *out,
                           struct gq_error *err)
{
    struct key_list list = {0};
    enum gq_code code = store_ops(store)->keys_read(store_backend(store), true, id, &list, err);
    if (code == GQ_OK && !store_items_take_first(list.items, list.count, sizeof *list.items, out))
        code = gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_KEY, MSG_TEXT_CUT(id, 40));
    store_key_list_free(&list);
    return code;
}

enum gq_code store_key_create(struct store *store, const struct stored_key *key,
                              const struct audit_entry *audit, struct gq_error *err)
{
    struct audit_line line;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code == GQ_OK)
        code = store_ops(store)->key_insert(store_backend(store), key, &line, err);
    return code;
}

enum gq_code store_key_revoke(struct store *store, const char *id, int64_t now,
                              const struct audit_entry *audit, struct stored_key *out,
                              bool *was_revoked, struct gq_error *err)
{
    struct audit_line line;
    bool found = false;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code == GQ_OK)
        code = store_ops(store)->key_revoke(store_backend(store), id, now, &line, out, &found,
                                            was_revoked, err);
    if (code == GQ_OK && !found)
        code = gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_KEY, MSG_TEXT_CUT(id, 40));
    return code;
}

enum gq_code store_keys_touch(struct store *store, const struct stored_key *keys, size_t count,
                              struct gq_error *err)
{
    if (count == 0)
        return GQ_OK;
    return store_ops(store)->keys_touch(store_backend(store), keys, count, err);
}

enum gq_code store_audit_read(struct store *store, int64_t since, const char *starting_after,
                              size_t limit, struct audit_page *out, struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    return store_ops(store)->audit_read(store_backend(store), since, starting_after, limit, out,
                                        err);
}
