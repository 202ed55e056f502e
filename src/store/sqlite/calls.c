/*
 * The SQLite backend's statements as values: a cached statement with its
 * parameters in an array (text, integer, blob or NULL) bound in one place,
 * run for the rows it changed or stepped through its rows with a reader
 * that fills one item of a growing array per row. What keys, customers,
 * promotion codes, price lists and webhooks would otherwise spell out
 * bind by bind and loop by loop.
 */
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/db.h"

/* The code a failed call left in err (GQ_ERR_INTERNAL without one). */
static enum gq_code failed(const struct gq_error *err)
{
    return err != NULL ? err->code : GQ_ERR_INTERNAL;
}

const char *sqlite_db_text(sqlite3_stmt *stmt, int column)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    return text != NULL ? (const char *)text : "";
}

static void bind(sqlite3_stmt *stmt, int index, const struct sqlite_db_param *param)
{
    switch (param->kind) {
    case SQLITE_DB_TEXT:
        sqlite3_bind_text(stmt, index, param->data, -1, SQLITE_STATIC); /* NULL binds NULL */
        break;
    case SQLITE_DB_INT64:
        sqlite3_bind_int64(stmt, index, (sqlite3_int64)param->value);
        break;
    case SQLITE_DB_BLOB:
        sqlite3_bind_blob(stmt, index, param->data, (int)param->value, SQLITE_STATIC);
        break;
    case SQLITE_DB_NULL:
        sqlite3_bind_null(stmt, index);
        break;
    }
}

/* `call`'s cached statement with its parameters bound, or NULL with err
 * filled. */
static sqlite3_stmt *bound(struct sqlite_conn *conn, const struct sqlite_db_call *call,
                           struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, call->sql, err);
    for (int i = 0; stmt != NULL && i < call->n; i++)
        bind(stmt, i + 1, &call->params[i]);
    return stmt;
}

/* Steps `stmt` to its end and readies it for the next use. */
static enum gq_code step_done(struct sqlite_conn *conn, sqlite3_stmt *stmt, const char *what,
                              struct gq_error *err)
{
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    return rc == SQLITE_DONE ? GQ_OK : sqlite_db_fail(conn, rc, what, err);
}

enum gq_code sqlite_db_change(struct sqlite_conn *conn, const struct sqlite_db_call *call,
                              bool *changed, struct gq_error *err)
{
    sqlite3_stmt *stmt = bound(conn, call, err);
    if (stmt == NULL)
        return failed(err);
    enum gq_code code = step_done(conn, stmt, call->what, err);
    if (code == GQ_OK && changed != NULL)
        *changed = sqlite3_changes(conn->db) == 1;
    return code;
}

/* One more zeroed item at the end of `rows`, or NULL when out of memory. */
static void *grow(struct sqlite_db_rows *rows, size_t size)
{
    char *items = realloc(rows->items, (rows->count + 1) * size);
    if (items == NULL)
        return NULL;
    rows->items = items;
    void *item = items + size * rows->count++;
    memset(item, 0, size);
    return item;
}

enum gq_code sqlite_db_read_rows(struct sqlite_conn *conn, const struct sqlite_db_call *call,
                                 size_t size, sqlite_db_row_reader read,
                                 struct sqlite_db_rows *rows, struct gq_error *err)
{
    sqlite3_stmt *stmt = bound(conn, call, err);
    if (stmt == NULL)
        return failed(err);
    enum gq_code code = GQ_OK;
    int rc = SQLITE_DONE;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        void *item = grow(rows, size);
        code = item != NULL ? read(stmt, item, err)
                            : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory: %s", call->what);
    }
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, call->what, err);
    sqlite_db_done(stmt);
    return code;
}

enum gq_code sqlite_db_read_pooled(struct store_backend *backend, const struct sqlite_db_call *call,
                                   size_t size, sqlite_db_row_reader read,
                                   struct sqlite_db_rows *rows, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    enum gq_code code = sqlite_db_read_rows(conn, call, size, read, rows, err);
    sqlite_db_checkin(store, conn);
    return code;
}

enum gq_code sqlite_db_read_int64(struct store_backend *backend, const struct sqlite_db_call *call,
                                  const struct sqlite_db_absent *absent, int64_t *value,
                                  struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = bound(conn, call, err);
    enum gq_code code = stmt != NULL ? GQ_OK : failed(err);
    int rc = stmt != NULL ? sqlite3_step(stmt) : SQLITE_ERROR;
    if (code == GQ_OK && rc == SQLITE_ROW)
        *value = sqlite3_column_int64(stmt, 0);
    else if (code == GQ_OK && rc == SQLITE_DONE)
        code = gq_fail(err, absent->code, NULL, "%s", absent->message);
    else if (code == GQ_OK)
        code = sqlite_db_fail(conn, rc, call->what, err);
    sqlite_db_done(stmt);
    sqlite_db_checkin(store, conn);
    return code;
}
