/*
 * The SQLite backend's API keys and audit log: keys read, inserted,
 * revoked and touched, each write with its audit line in one BEGIN
 * IMMEDIATE transaction; the audit log read a page at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/db.h"

/* ---- Keys. ---- */

static const char *text_of(sqlite3_stmt *stmt, int column)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    return text != NULL ? (const char *)text : "";
}

static enum gq_code read_key(sqlite3_stmt *stmt, struct stored_key *key, struct gq_error *err)
{
    memset(key, 0, sizeof *key);
    snprintf(key->id, sizeof key->id, "%s", text_of(stmt, KEY_COL_ID));
    snprintf(key->name, sizeof key->name, "%s", text_of(stmt, KEY_COL_NAME));
    snprintf(key->prefix, sizeof key->prefix, "%s", text_of(stmt, KEY_COL_PREFIX));
    snprintf(key->hash, sizeof key->hash, "%s", text_of(stmt, KEY_COL_HASH));
    if (!store_scopes_parse(text_of(stmt, KEY_COL_SCOPES), &key->scopes))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "API key %s has an unknown scope in '%s'",
                       key->id, text_of(stmt, KEY_COL_SCOPES));
    key->created_at = sqlite3_column_int64(stmt, KEY_COL_CREATED_AT);
    key->last_used_at = sqlite3_column_int64(stmt, KEY_COL_LAST_USED_AT);
    key->revoked_at = sqlite3_column_int64(stmt, KEY_COL_REVOKED_AT);
    return GQ_OK;
}

static enum gq_code append_key(struct key_list *list, sqlite3_stmt *stmt, struct gq_error *err)
{
    struct stored_key *items = realloc(list->items, (list->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading keys");
    list->items = items;
    enum gq_code code = read_key(stmt, &items[list->count], err);
    if (code == GQ_OK)
        list->count++;
    return code;
}

static enum gq_code select_keys(struct sqlite_conn *conn, bool with_revoked, const char *id,
                                struct key_list *out, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_KEYS), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_int(stmt, 1, with_revoked ? 1 : 0);
    sqlite3_bind_text(stmt, 2, id, -1, SQLITE_STATIC); /* NULL binds NULL */
    enum gq_code code = GQ_OK;
    int rc;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        code = append_key(out, stmt, err);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading keys", err);
    sqlite_db_done(stmt);
    if (code != GQ_OK)
        store_key_list_free(out);
    return code;
}

enum gq_code sqlite_keys_version(struct store_backend *backend, int64_t *version,
                                 struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_KEYS_VERSION), err);
    enum gq_code code = stmt != NULL ? GQ_OK : (err != NULL ? err->code : GQ_ERR_INTERNAL);
    int rc = stmt != NULL ? sqlite3_step(stmt) : SQLITE_ERROR;
    if (code == GQ_OK && rc == SQLITE_ROW)
        *version = sqlite3_column_int64(stmt, 0);
    else if (code == GQ_OK)
        code = sqlite_db_fail(conn, rc, "reading the keys' version", err);
    sqlite_db_done(stmt);
    sqlite_db_checkin(store, conn);
    return code;
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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_AUDIT_INSERT), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    const struct audit_entry *entry = line->entry;
    sqlite3_bind_text(stmt, 1, line->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)line->at);
    sqlite3_bind_text(stmt, 3, entry->key_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 4, entry->key_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 5, entry->client, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 6, entry->request_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 7, entry->action, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 8, entry->target, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 9, entry->change, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    return rc == SQLITE_DONE ? GQ_OK : sqlite_db_fail(conn, rc, "writing the audit log", err);
}

static enum gq_code insert_key(struct sqlite_conn *conn, const struct stored_key *key,
                               struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_KEY_INSERT), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    char scopes[160];
    store_scopes_text(key->scopes, scopes, sizeof scopes);
    sqlite3_bind_text(stmt, 1, key->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, key->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, key->prefix, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 4, key->hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 5, scopes, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 6, (sqlite3_int64)key->created_at);
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    return rc == SQLITE_DONE ? GQ_OK : sqlite_db_fail(conn, rc, "storing a key", err);
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

struct key_revoke {
    const char *id;
    int64_t now;
    const struct audit_line *audit;
    struct stored_key *out;
    bool *found, *was_revoked;
};

static enum gq_code write_revoke(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct key_revoke *revoke = context;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_KEY_REVOKE), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, revoke->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)revoke->now);
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, "revoking a key", err);
    bool revoked_now = sqlite3_changes(conn->db) == 1;
    struct key_list list = {0};
    enum gq_code code = select_keys(conn, true, revoke->id, &list, err);
    if (code != GQ_OK)
        return code;
    *revoke->found = list.count == 1;
    *revoke->was_revoked = *revoke->found && !revoked_now;
    if (*revoke->found)
        *revoke->out = list.items[0];
    store_key_list_free(&list);
    return revoked_now ? sqlite_audit_append(conn, revoke->audit, err) : GQ_OK;
}

enum gq_code sqlite_key_revoke(struct store_backend *backend, const char *id, int64_t now,
                               const struct audit_line *audit, struct stored_key *out, bool *found,
                               bool *was_revoked, struct gq_error *err)
{
    struct key_revoke revoke = {id, now, audit, out, found, was_revoked};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_revoke, &revoke, err);
}

struct key_touch {
    const struct stored_key *keys;
    size_t count;
};

static enum gq_code write_touch(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct key_touch *touch = context;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_KEY_TOUCH), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    for (size_t i = 0; i < touch->count; i++) {
        sqlite3_bind_text(stmt, 1, touch->keys[i].id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)touch->keys[i].last_used_at);
        int rc = sqlite3_step(stmt);
        sqlite_db_done(stmt);
        if (rc != SQLITE_DONE)
            return sqlite_db_fail(conn, rc, "recording keys' last use", err);
    }
    return GQ_OK;
}

enum gq_code sqlite_keys_touch(struct store_backend *backend, const struct stored_key *keys,
                               size_t count, struct gq_error *err)
{
    struct key_touch touch = {keys, count};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_touch, &touch, err);
}

/* ---- The audit log. ---- */

static bool copy_column(sqlite3_stmt *stmt, int column, char **out)
{
    return sqlite_db_column_strdup(stmt, column, out);
}

static enum gq_code append_record(struct audit_page *page, sqlite3_stmt *stmt, struct gq_error *err)
{
    struct audit_record *items = realloc(page->items, (page->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading the audit log");
    page->items = items;
    struct audit_record *record = &items[page->count++];
    memset(record, 0, sizeof *record);
    snprintf(record->id, sizeof record->id, "%s", text_of(stmt, AUDIT_COL_ID));
    record->at = sqlite3_column_int64(stmt, AUDIT_COL_AT);
    char **columns[] = {&record->key_id, &record->key_name, &record->client, &record->request_id,
                        &record->action, &record->target,   &record->change};
    for (int i = 0; i < 7; i++)
        if (!copy_column(stmt, AUDIT_COL_KEY_ID + i, columns[i]))
            return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading the audit log");
    return GQ_OK;
}

enum gq_code sqlite_audit_read(struct store_backend *backend, int64_t since,
                               const char *starting_after, size_t limit, struct audit_page *out,
                               struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_AUDIT_PAGE), err);
    enum gq_code code = stmt != NULL ? GQ_OK : (err != NULL ? err->code : GQ_ERR_INTERNAL);
    if (stmt != NULL) {
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)since);
        sqlite3_bind_text(stmt, 2, starting_after, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 3, (sqlite3_int64)limit + 1); /* one more tells has_more */
        int rc;
        while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
            code = append_record(out, stmt, err);
        if (code == GQ_OK && rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "reading the audit log", err);
        sqlite_db_done(stmt);
    }
    sqlite_db_checkin(store, conn);
    if (code != GQ_OK) {
        store_audit_page_free(out);
        return code;
    }
    store_audit_page_trim(out, limit);
    return GQ_OK;
}
