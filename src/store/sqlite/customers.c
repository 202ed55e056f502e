/*
 * The SQLite backend's customers: a write (insert or update) with its
 * event and audit line in one write transaction, and the customers a
 * filter selects. The statements are queries.c's, shared with PostgreSQL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/queries.h"
#include "store/sqlite/db.h"

static enum gq_code prepare_failed(struct gq_error *err)
{
    return err != NULL ? err->code : GQ_ERR_INTERNAL;
}

static void bind_text_or_null(sqlite3_stmt *stmt, int index, const char *text)
{
    if (text != NULL)
        sqlite3_bind_text(stmt, index, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(stmt, index);
}

struct write_context {
    const struct customer_write *write;
    bool *found;
};

static enum gq_code write_customer(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct write_context *run = context;
    const struct customer_write *write = run->write;
    const struct stored_customer *customer = write->customer;
    enum store_sql sql = write->create ? STORE_SQL_CUSTOMER_INSERT : STORE_SQL_CUSTOMER_UPDATE;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(sql), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, customer->id, -1, SQLITE_STATIC);
    bind_text_or_null(stmt, 2, customer->email);
    sqlite3_bind_int(stmt, 3, customer->deleted ? 1 : 0);
    sqlite3_bind_text(stmt, 4, customer->document, -1, SQLITE_STATIC);
    if (write->create) {
        sqlite3_bind_int64(stmt, 5, (sqlite3_int64)customer->created_at);
        sqlite3_bind_int64(stmt, 6, (sqlite3_int64)customer->updated_at);
    } else {
        sqlite3_bind_int64(stmt, 5, (sqlite3_int64)customer->updated_at);
    }
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, "storing a customer", err);
    if (sqlite3_changes(conn->db) != 1)
        return GQ_OK; /* *found stays false: nothing else is written */
    *run->found = true;
    enum gq_code code = sqlite_audit_append(conn, write->audit, err);
    return code == GQ_OK ? sqlite_event_append(conn, write->event, err) : code;
}

enum gq_code sqlite_customer_write(struct store_backend *backend,
                                   const struct customer_write *write, bool *found,
                                   struct gq_error *err)
{
    struct write_context run = {write, found};
    *found = false;
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_customer, &run, err);
}

static enum gq_code append_customer_row(struct customer_page *page, sqlite3_stmt *stmt,
                                        struct gq_error *err)
{
    struct stored_customer *items = realloc(page->items, (page->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading customers");
    page->items = items;
    struct stored_customer *customer = &items[page->count++];
    memset(customer, 0, sizeof *customer);
    const unsigned char *id = sqlite3_column_text(stmt, CUSTOMER_COL_ID);
    snprintf(customer->id, sizeof customer->id, "%s", id ? (const char *)id : "");
    customer->deleted = sqlite3_column_int(stmt, CUSTOMER_COL_DELETED) != 0;
    customer->created_at = sqlite3_column_int64(stmt, CUSTOMER_COL_CREATED_AT);
    customer->updated_at = sqlite3_column_int64(stmt, CUSTOMER_COL_UPDATED_AT);
    bool copied = sqlite_db_column_strdup(stmt, CUSTOMER_COL_EMAIL, &customer->email) &&
                  sqlite_db_column_strdup(stmt, CUSTOMER_COL_DOCUMENT, &customer->document) &&
                  customer->document != NULL;
    return copied ? GQ_OK : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading customers");
}

enum gq_code sqlite_customers_read(struct store_backend *backend,
                                   const struct customer_filter *filter, struct customer_page *out,
                                   struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_CUSTOMERS), err);
    enum gq_code code = stmt != NULL ? GQ_OK : prepare_failed(err);
    if (stmt != NULL) {
        bind_text_or_null(stmt, 1, filter->id);
        bind_text_or_null(stmt, 2, filter->email);
        sqlite3_bind_int(stmt, 3, filter->include_deleted || filter->id != NULL ? 1 : 0);
        bind_text_or_null(stmt, 4, filter->starting_after);
        sqlite3_bind_int64(stmt, 5, (sqlite3_int64)filter->limit + 1);
        int rc = SQLITE_DONE;
        while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
            code = append_customer_row(out, stmt, err);
        if (code == GQ_OK && rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "reading customers", err);
        sqlite_db_done(stmt);
    }
    sqlite_db_checkin(store, conn);
    return code;
}
