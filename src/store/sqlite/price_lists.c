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

static enum gq_code read_list(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct price_list_info *info = item;
    info->version = sqlite3_column_int64(stmt, 0);
    if (!price_list_state_parse(sqlite_db_text(stmt, 1), &info->state))
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "price list %lld has an unknown state",
                       (long long)info->version);
    info->based_on = sqlite3_column_int64(stmt, 2);
    info->created_at = sqlite3_column_int64(stmt, 3);
    info->effective_at = sqlite3_column_int64(stmt, 4);
    info->published_at = sqlite3_column_int64(stmt, 5);
    info->superseded_at = sqlite3_column_int64(stmt, 6);
    if (!sqlite_db_column_strdup(stmt, 7, &info->document))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading price lists");
    return GQ_OK;
}

enum gq_code sqlite_price_lists_read(struct store_backend *backend, int64_t version,
                                     struct price_list_set *out, struct gq_error *err)
{
    const struct sqlite_db_param params[] = {SQLITE_DB_INT64_OF(version)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_PRICE_LISTS), params, 1,
                                        "reading price lists"};
    out->items = NULL;
    out->count = 0;
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_pooled, backend, &call, read_list, out, code, err);
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

/* A value of a write, a parameter of its statement. */
enum list_value { LIST_BASED_ON, LIST_NOW, LIST_DOCUMENT, LIST_OLD_DOCUMENT, LIST_EFFECTIVE_AT };

/* Each write but an activation: its statement, which takes the list's
 * version as ?1 and `values` as ?2.. */
static const struct list_statement {
    enum store_sql sql;
    int n_values;
    enum list_value values[3];
    const char *what;
} list_statements[] = {
    [PRICE_LIST_WRITE_INSERT] = {STORE_SQL_PRICE_LIST_INSERT,
                                 3,
                                 {LIST_BASED_ON, LIST_NOW, LIST_DOCUMENT},
                                 "storing a price list"},
    [PRICE_LIST_WRITE_EDIT] = {STORE_SQL_PRICE_LIST_EDIT,
                               2,
                               {LIST_DOCUMENT, LIST_OLD_DOCUMENT},
                               "editing a price list"},
    [PRICE_LIST_WRITE_SCHEDULE] = {STORE_SQL_PRICE_LIST_SCHEDULE,
                                   2,
                                   {LIST_EFFECTIVE_AT, LIST_NOW},
                                   "publishing a price list"},
    [PRICE_LIST_WRITE_CANCEL] = {STORE_SQL_PRICE_LIST_CANCEL, 0, {0}, "writing a price list"},
    [PRICE_LIST_WRITE_REBASE] = {STORE_SQL_PRICE_LIST_REBASE,
                                 2,
                                 {LIST_DOCUMENT, LIST_BASED_ON},
                                 "rebasing a price list"},
};

static struct sqlite_db_param list_param(const struct price_list_write *write,
                                         enum list_value value)
{
    const struct sqlite_db_param document = SQLITE_DB_TEXT_OF(write->document);
    const struct sqlite_db_param old_document = SQLITE_DB_TEXT_OF(write->old_document);
    const struct sqlite_db_param based_on = SQLITE_DB_INT64_OF(write->based_on);
    const struct sqlite_db_param now = SQLITE_DB_INT64_OF(write->now);
    const struct sqlite_db_param effective_at = SQLITE_DB_INT64_OF(write->effective_at);
    switch (value) {
    case LIST_BASED_ON:
        return based_on;
    case LIST_NOW:
        return now;
    case LIST_DOCUMENT:
        return document;
    case LIST_OLD_DOCUMENT:
        return old_document;
    default:
        return effective_at;
    }
}

static enum gq_code write_list(struct sqlite_conn *conn, const struct price_list_write *write,
                               bool *applied, struct gq_error *err)
{
    if (write->kind == PRICE_LIST_WRITE_ACTIVATE)
        return activate(conn, write, applied, err);
    const struct list_statement *statement = &list_statements[write->kind];
    struct sqlite_db_param params[4] = {SQLITE_DB_INT64_OF(write->version)};
    for (int i = 0; i < statement->n_values; i++)
        params[i + 1] = list_param(write, statement->values[i]);
    const struct sqlite_db_call call = {sqlite_sql(statement->sql), params, statement->n_values + 1,
                                        statement->what};
    return sqlite_db_change(conn, &call, applied, err);
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
