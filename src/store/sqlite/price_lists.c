/*
 * The SQLite backend's price lists (migration 0008): the lists read, and
 * each write of backend.h's PRICE_LIST_WRITE_* in one BEGIN IMMEDIATE
 * transaction with its audit line. Activation rewrites the catalog tables
 * from the list's rows; their triggers bump price_list.version as any edit
 * does, and the last statement sets it to the list's number.
 */
#include <stdlib.h>
#include <string.h>

#include "store/queries.h"
#include "store/sqlite/db.h"

/* ---- Reading. ---- */

static enum gq_code append_list(struct price_list_set *out, sqlite3_stmt *stmt,
                                struct gq_error *err)
{
    struct price_list_info *items = realloc(out->items, (out->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading price lists");
    out->items = items;
    struct price_list_info *info = &items[out->count];
    memset(info, 0, sizeof *info);
    info->version = sqlite3_column_int64(stmt, 0);
    if (!price_list_state_parse((const char *)sqlite3_column_text(stmt, 1), &info->state))
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "price list %lld has an unknown state",
                       (long long)info->version);
    info->based_on = sqlite3_column_int64(stmt, 2);
    info->created_at = sqlite3_column_int64(stmt, 3);
    info->effective_at = sqlite3_column_int64(stmt, 4);
    info->published_at = sqlite3_column_int64(stmt, 5);
    info->superseded_at = sqlite3_column_int64(stmt, 6);
    if (!sqlite_db_column_strdup(stmt, 7, &info->document))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading price lists");
    out->count++;
    return GQ_OK;
}

enum gq_code sqlite_price_lists_read(struct store_backend *backend, int64_t version,
                                     struct price_list_set *out, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    out->items = NULL;
    out->count = 0;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_PRICE_LISTS), err);
    enum gq_code code = stmt != NULL ? GQ_OK : (err != NULL ? err->code : GQ_ERR_INTERNAL);
    int rc = SQLITE_DONE;
    if (code == GQ_OK)
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)version);
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        code = append_list(out, stmt, err);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading price lists", err);
    sqlite_db_done(stmt);
    sqlite_db_checkin(store, conn);
    if (code != GQ_OK)
        store_price_list_set_free(out);
    return code;
}

/* ---- Writing. ---- */

static void bind_value(sqlite3_stmt *stmt, int index, const struct store_value *value)
{
    switch (value->kind) {
    case STORE_VALUE_INTEGER:
        sqlite3_bind_int64(stmt, index, (sqlite3_int64)value->integer);
        break;
    case STORE_VALUE_REAL:
        sqlite3_bind_double(stmt, index, value->real);
        break;
    case STORE_VALUE_TEXT:
        sqlite3_bind_text(stmt, index, value->text, -1, SQLITE_STATIC);
        break;
    default:
        sqlite3_bind_null(stmt, index);
    }
}

/* Runs `sql` with up to three parameters: integers a and b, text c (NULL
 * binds NULL); *changes (may be NULL) receives the rows it changed. */
static enum gq_code run(struct sqlite_conn *conn, const char *sql, int64_t a, int64_t b,
                        const char *c, int *changes, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    int n = sqlite3_bind_parameter_count(stmt);
    if (n >= 1)
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)a);
    if (n >= 2)
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)b);
    if (n >= 3)
        sqlite3_bind_text(stmt, 3, c, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    if (changes != NULL)
        *changes = rc == SQLITE_ROW ? 1 : sqlite3_changes(sqlite3_db_handle(stmt));
    sqlite_db_done(stmt);
    return rc == SQLITE_DONE || rc == SQLITE_ROW
               ? GQ_OK
               : sqlite_db_fail(conn, rc, "writing a price list", err);
}

static enum gq_code run_text(struct sqlite_conn *conn, const char *sql, const char *text,
                             struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, text, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    return rc == SQLITE_DONE ? GQ_OK : sqlite_db_fail(conn, rc, "writing a price list", err);
}

static enum gq_code write_rows(struct sqlite_conn *conn, enum catalog_write_table table,
                               const struct catalog_write_rows *rows, struct gq_error *err)
{
    for (size_t r = 0; r < rows->n_rows; r++) {
        sqlite3_stmt *stmt = sqlite_db_cached(conn, store_catalog_write_sql[table], err);
        if (stmt == NULL)
            return err != NULL ? err->code : GQ_ERR_INTERNAL;
        for (size_t c = 0; c < rows->n_columns; c++)
            bind_value(stmt, (int)c + 1, &rows->values[r * rows->n_columns + c]);
        int rc = sqlite3_step(stmt);
        sqlite_db_done(stmt);
        if (rc != SQLITE_DONE)
            return sqlite_db_fail(conn, rc, "writing a price list into the catalog", err);
    }
    return GQ_OK;
}

static enum gq_code activate(struct sqlite_conn *conn, const struct price_list_write *write,
                             bool *applied, struct gq_error *err)
{
    int scheduled = 0;
    enum gq_code code = run(conn, sqlite_sql(STORE_SQL_PRICE_LIST_IS_SCHEDULED), write->version, 0,
                            NULL, &scheduled, err);
    *applied = code == GQ_OK && scheduled > 0;
    if (!*applied)
        return code;
    for (size_t i = 0; code == GQ_OK && i < STORE_CATALOG_CLEAR_COUNT; i++)
        code = run(conn, store_catalog_clear_sql[i], 0, 0, NULL, NULL, err);
    for (int t = 0; code == GQ_OK && t < CATALOG_WRITE_COUNT; t++)
        code = write_rows(conn, (enum catalog_write_table)t, &write->rows[t], err);
    if (code == GQ_OK)
        code = run_text(conn, sqlite_sql(STORE_SQL_PRICE_LIST_DROP_MODELS), write->model_ids, err);
    if (code == GQ_OK)
        code = run(conn, sqlite_sql(STORE_SQL_PRICE_LIST_OVERTAKEN), write->version, write->now,
                   NULL, NULL, err);
    if (code == GQ_OK)
        code = run(conn, sqlite_sql(STORE_SQL_PRICE_LIST_SUPERSEDE), 0, write->now, write->document,
                   NULL, err);
    if (code == GQ_OK)
        code = run(conn, sqlite_sql(STORE_SQL_PRICE_LIST_ACTIVATE), write->version, 0, NULL, NULL,
                   err);
    if (code == GQ_OK)
        code = run(conn, sqlite_sql(STORE_SQL_PRICE_LIST_SET_VERSION), write->version, write->now,
                   NULL, NULL, err);
    return code;
}

static enum gq_code write_list(struct sqlite_conn *conn, const struct price_list_write *write,
                               bool *applied, struct gq_error *err)
{
    int changes = 0;
    enum gq_code code = GQ_OK;
    switch (write->kind) {
    case PRICE_LIST_WRITE_INSERT: {
        sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_PRICE_LIST_INSERT), err);
        if (stmt == NULL)
            return err != NULL ? err->code : GQ_ERR_INTERNAL;
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)write->version);
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)write->based_on);
        sqlite3_bind_int64(stmt, 3, (sqlite3_int64)write->now);
        sqlite3_bind_text(stmt, 4, write->document, -1, SQLITE_STATIC);
        int rc = sqlite3_step(stmt);
        changes = sqlite3_changes(sqlite3_db_handle(stmt));
        sqlite_db_done(stmt);
        if (rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "storing a price list", err);
        break;
    }
    case PRICE_LIST_WRITE_EDIT: {
        sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_PRICE_LIST_EDIT), err);
        if (stmt == NULL)
            return err != NULL ? err->code : GQ_ERR_INTERNAL;
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)write->version);
        sqlite3_bind_text(stmt, 2, write->document, -1, SQLITE_STATIC);
        int rc = sqlite3_step(stmt);
        changes = sqlite3_changes(sqlite3_db_handle(stmt));
        sqlite_db_done(stmt);
        if (rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "editing a price list", err);
        break;
    }
    case PRICE_LIST_WRITE_SCHEDULE: {
        sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_PRICE_LIST_SCHEDULE), err);
        if (stmt == NULL)
            return err != NULL ? err->code : GQ_ERR_INTERNAL;
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)write->version);
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)write->effective_at);
        sqlite3_bind_int64(stmt, 3, (sqlite3_int64)write->now);
        int rc = sqlite3_step(stmt);
        changes = sqlite3_changes(sqlite3_db_handle(stmt));
        sqlite_db_done(stmt);
        if (rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "publishing a price list", err);
        break;
    }
    case PRICE_LIST_WRITE_ACTIVATE:
        return activate(conn, write, applied, err);
    case PRICE_LIST_WRITE_CANCEL:
        code = run(conn, sqlite_sql(STORE_SQL_PRICE_LIST_CANCEL), write->version, 0, NULL, &changes,
                   err);
        break;
    case PRICE_LIST_WRITE_REBASE: {
        sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_PRICE_LIST_REBASE), err);
        if (stmt == NULL)
            return err != NULL ? err->code : GQ_ERR_INTERNAL;
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)write->version);
        sqlite3_bind_text(stmt, 2, write->document, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 3, (sqlite3_int64)write->based_on);
        int rc = sqlite3_step(stmt);
        changes = sqlite3_changes(sqlite3_db_handle(stmt));
        sqlite_db_done(stmt);
        if (rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "rebasing a price list", err);
        break;
    }
    }
    *applied = code == GQ_OK && changes > 0;
    return code;
}

enum gq_code sqlite_price_list_write(struct store_backend *backend,
                                     const struct price_list_write *write,
                                     const struct audit_line *audit, bool *applied,
                                     struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    *applied = false;
    enum gq_code code = sqlite_db_begin_write(conn, err);
    if (code == GQ_OK)
        code = write_list(conn, write, applied, err);
    if (code == GQ_OK && *applied)
        code = sqlite_audit_append(conn, audit, err);
    if (code == GQ_OK && *applied && write->event != NULL)
        code = sqlite_event_append(conn, write->event, err);
    if (code == GQ_OK)
        code = sqlite_db_commit(conn, err);
    if (code != GQ_OK)
        *applied = false;
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    return code;
}
