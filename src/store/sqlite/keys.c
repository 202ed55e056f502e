/*
 * The SQLite backend's API keys and audit log: keys read, inserted,
 * revoked and touched, each write with its audit line in one BEGIN
 * IMMEDIATE transaction; the audit log read a page at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/readback.h"
#include "store/sqlite/db.h"

/* ---- Keys. ---- */

static enum gq_code read_key(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct stored_key *key = item;
    snprintf(key->id, sizeof key->id, "%s", sqlite_db_text(stmt, KEY_COL_ID));
    snprintf(key->name, sizeof key->name, "%s", sqlite_db_text(stmt, KEY_COL_NAME));
    snprintf(key->prefix, sizeof key->prefix, "%s", sqlite_db_text(stmt, KEY_COL_PREFIX));
    snprintf(key->hash, sizeof key->hash, "%s", sqlite_db_text(stmt, KEY_COL_HASH));
    if (!store_scopes_parse(sqlite_db_text(stmt, KEY_COL_SCOPES), &key->scopes))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "API key %s has an unknown scope in '%s'",
                       key->id, sqlite_db_text(stmt, KEY_COL_SCOPES));
    key->created_at = sqlite3_column_int64(stmt, KEY_COL_CREATED_AT);
    key->last_used_at = sqlite3_column_int64(stmt, KEY_COL_LAST_USED_AT);
    key->revoked_at = sqlite3_column_int64(stmt, KEY_COL_REVOKED_AT);
    snprintf(key->customer_id, sizeof key->customer_id, "%s",
             sqlite_db_text(stmt, KEY_COL_CUSTOMER_ID));
    return GQ_OK;
}

static enum gq_code select_keys(struct sqlite_conn *conn, bool with_revoked, const char *id,
                                struct key_list *out, struct gq_error *err)
{
    const struct sqlite_db_param params[] = {SQLITE_DB_INT64_OF(with_revoked ? 1 : 0),
                                             SQLITE_DB_TEXT_OF(id)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_KEYS), params, 2, "reading keys"};
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_rows, conn, &call, read_key, out, code, err);
    if (code != GQ_OK)
        store_key_list_free(out);
    return code;
}

enum gq_code sqlite_keys_version(struct store_backend *backend, int64_t *version,
                                 struct gq_error *err)
{
    static const struct sqlite_db_absent no_row = {GQ_ERR_INTERNAL, "the keys' version is missing"};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_KEYS_VERSION), NULL, 0,
                                        "reading the keys' version"};
    return sqlite_db_read_int64(backend, &call, &no_row, version, err);
}

enum gq_code sqlite_keys_read(struct store_backend *backend, bool with_revoked, const char *id,
                              struct key_list *out, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    out->items = NULL;
    out->count = 0;
    enum gq_code code = select_keys(conn, with_revoked, id, out, err);
    sqlite_db_checkin(store, conn);
    return code;
}

/* ---- Writes, each with its audit line. ---- */

/* Inside a write transaction (db.h). */
enum gq_code sqlite_audit_append(struct sqlite_conn *conn, const struct audit_line *line,
                                 struct gq_error *err)
{
    const struct audit_entry *entry = line->entry;
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(line->id),      SQLITE_DB_INT64_OF(line->at),
        SQLITE_DB_TEXT_OF(entry->key_id), SQLITE_DB_TEXT_OF(entry->key_name),
        SQLITE_DB_TEXT_OF(entry->client), SQLITE_DB_TEXT_OF(entry->request_id),
        SQLITE_DB_TEXT_OF(entry->action), SQLITE_DB_TEXT_OF(entry->target),
        SQLITE_DB_TEXT_OF(entry->change)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_AUDIT_INSERT), params, 9,
                                        "writing the audit log"};
    return sqlite_db_change(conn, &call, NULL, err);
}

static enum gq_code insert_key(struct sqlite_conn *conn, const struct stored_key *key,
                               struct gq_error *err)
{
    char scopes[160];
    store_scopes_text(key->scopes, scopes, sizeof scopes);
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(key->id),
        SQLITE_DB_TEXT_OF(key->name),
        SQLITE_DB_TEXT_OF(key->prefix),
        SQLITE_DB_TEXT_OF(key->hash),
        SQLITE_DB_TEXT_OF(scopes),
        SQLITE_DB_INT64_OF(key->created_at),
        SQLITE_DB_TEXT_OF(key->customer_id[0] != '\0' ? key->customer_id : NULL)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_KEY_INSERT), params, 7,
                                        "storing a key"};
    return sqlite_db_change(conn, &call, NULL, err);
}

struct key_insert {
    const struct stored_key *key;
    const struct audit_line *audit;
};

static enum gq_code write_key(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct key_insert *insert = context;
    enum gq_code code = insert_key(conn, insert->key, err);
    return code == GQ_OK ? sqlite_audit_append(conn, insert->audit, err) : code;
}

enum gq_code sqlite_key_insert(struct store_backend *backend, const struct stored_key *key,
                               const struct audit_line *audit, struct gq_error *err)
{
    struct key_insert insert = {key, audit};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_key, &insert, err);
}

static enum gq_code write_revoke(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct store_key_revoke *revoke = context;
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(revoke->id),
                                             SQLITE_DB_INT64_OF(revoke->now)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_KEY_REVOKE), params, 2,
                                        "revoking a key"};
    bool revoked_now = false;
    struct key_list list = {0};
    enum gq_code code = sqlite_db_change(conn, &call, &revoked_now, err);
    if (code == GQ_OK)
        code = select_keys(conn, true, revoke->id, &list, err);
    if (code != GQ_OK)
        return code;
    store_key_revoke_report(revoke, &list, revoked_now);
    return revoked_now ? sqlite_audit_append(conn, revoke->audit, err) : GQ_OK;
}

enum gq_code sqlite_key_revoke(struct store_backend *backend, const char *id, int64_t now,
                               const struct audit_line *audit, struct stored_key *out, bool *found,
                               bool *was_revoked, struct gq_error *err)
{
    struct store_key_revoke revoke = {id, now, audit, out, found, was_revoked};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_revoke, &revoke, err);
}

struct key_touch {
    const struct stored_key *keys;
    size_t count;
};

static enum gq_code write_touch(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct key_touch *touch = context;
    enum gq_code code = GQ_OK;
    for (size_t i = 0; code == GQ_OK && i < touch->count; i++) {
        const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(touch->keys[i].id),
                                                 SQLITE_DB_INT64_OF(touch->keys[i].last_used_at)};
        const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_KEY_TOUCH), params, 2,
                                            "recording keys' last use"};
        code = sqlite_db_change(conn, &call, NULL, err);
    }
    return code;
}

enum gq_code sqlite_keys_touch(struct store_backend *backend, const struct stored_key *keys,
                               size_t count, struct gq_error *err)
{
    struct key_touch touch = {keys, count};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_touch, &touch, err);
}

/* ---- The audit log. ---- */

static enum gq_code read_record(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct audit_record *record = item;
    snprintf(record->id, sizeof record->id, "%s", sqlite_db_text(stmt, AUDIT_COL_ID));
    record->at = sqlite3_column_int64(stmt, AUDIT_COL_AT);
    char **columns[] = {&record->key_id, &record->key_name, &record->client, &record->request_id,
                        &record->action, &record->target,   &record->change};
    for (int i = 0; i < 7; i++)
        if (!sqlite_db_column_strdup(stmt, AUDIT_COL_KEY_ID + i, columns[i]))
            return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading the audit log");
    return GQ_OK;
}

enum gq_code sqlite_audit_read(struct store_backend *backend, int64_t since,
                               const char *starting_after, size_t limit, struct audit_page *out,
                               struct gq_error *err)
{
    const struct sqlite_db_param params[] = {
        SQLITE_DB_INT64_OF(since), SQLITE_DB_TEXT_OF(starting_after),
        SQLITE_DB_INT64_OF(limit + 1)}; /* one more tells has_more */
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_AUDIT_PAGE), params, 3,
                                        "reading the audit log"};
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_pooled, backend, &call, read_record, out, code, err);
    if (code != GQ_OK) {
        store_audit_page_free(out);
        return code;
    }
    store_audit_page_trim(out, limit);
    return GQ_OK;
}
