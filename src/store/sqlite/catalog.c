/*
 * The SQLite backend's catalog queries: each CATALOG_QUERY_* of backend.h
 * in SQLite's dialect, run in one read transaction and handed row by row to
 * the neutral loader (catalog_load.c); the price-list version for the
 * poller; and its wait, which is a plain sleep: SQLite cannot announce a
 * change made by another process, so the poll alone keeps each process
 * current.
 */
#include <poll.h>

#include "store/queries.h"
#include "store/sqlite/db.h"

static const char SQL_HAS_SCHEMA[] =
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'price_list'";

/* ---- A row of a statement, as the loader reads it. ---- */

static sqlite3_stmt *statement_of(const struct store_row *row)
{
    return row->impl;
}

static bool row_is_null(const struct store_row *row, int column)
{
    return sqlite3_column_type(statement_of(row), column) == SQLITE_NULL;
}

static const char *row_text(const struct store_row *row, int column)
{
    return (const char *)sqlite3_column_text(statement_of(row), column);
}

static int64_t row_integer(const struct store_row *row, int column)
{
    return sqlite3_column_int64(statement_of(row), column);
}

static double row_real(const struct store_row *row, int column)
{
    return sqlite3_column_double(statement_of(row), column);
}

static const struct store_row_ops row_ops = {row_is_null, row_text, row_integer, row_real};

/* ---- Reading. ---- */

static enum gq_code check_schema(struct sqlite_conn *conn, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_prepare(conn, SQL_HAS_SCHEMA, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    int rc = sqlite3_step(stmt);
    sqlite3_int64 tables = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    if (rc != SQLITE_ROW)
        return sqlite_db_fail(conn, rc, "reading the catalog", err);
    if (tables == 0)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "the database has no catalog (run 'gpuquote migrate')");
    return GQ_OK;
}

/* Runs one query and hands its rows, then its end, to the reader. */
static enum gq_code run_query(struct sqlite_conn *conn, enum catalog_query query,
                              struct catalog_reader *reader, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_prepare(conn, store_catalog_tables[query].sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    struct store_row row = {&row_ops, stmt};
    enum gq_code code = GQ_OK;
    int rc;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        code = reader->row(reader, query, &row, err);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading the catalog", err);
    sqlite3_finalize(stmt);
    return code == GQ_OK ? reader->end(reader, query, err) : code;
}

enum gq_code sqlite_read_catalog(struct store_backend *backend, struct catalog_reader *reader,
                                 struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    enum gq_code code = sqlite_db_begin_read(conn, err);
    if (code == GQ_OK)
        code = check_schema(conn, err);
    for (int query = 0; code == GQ_OK && query < CATALOG_QUERY_COUNT; query++)
        code = run_query(conn, (enum catalog_query)query, reader, err);
    if (code == GQ_OK)
        code = sqlite_db_commit(conn, err);
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    return code;
}

enum gq_code sqlite_price_list_version(struct store_backend *backend, int64_t *version,
                                       struct gq_error *err)
{
    static const struct sqlite_db_absent no_list = {GQ_ERR_NOT_READY,
                                                    "the database has no price list"};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_PRICE_LIST_VERSION), NULL, 0,
                                        "reading the price list version"};
    return sqlite_db_read_int64(backend, &call, &no_list, version, err);
}

void sqlite_wait_for_catalog_change(struct store_backend *backend, int timeout_ms, int wake_fd)
{
    (void)backend;
    struct pollfd wake = {.fd = wake_fd, .events = POLLIN};
    poll(&wake, wake_fd >= 0 ? 1 : 0, timeout_ms);
}
