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

static enum gq_code step_done(struct sqlite_conn *conn, sqlite3_stmt *stmt, const char *what,
                              struct gq_error *err)
{
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    return rc == SQLITE_DONE ? GQ_OK : sqlite_db_fail(conn, rc, what, err);
}

static enum gq_code link_event(struct sqlite_conn *conn, const struct customer_write *write,
                               struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_CUSTOMER_EVENT_LINK), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, write->event->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, write->customer->id, -1, SQLITE_STATIC);
    return step_done(conn, stmt, "linking a customer's event", err);
}

/* An earlier event of the customer, to be remade. */
struct event_ref {
    char id[STORE_ID_SIZE];
    char type[STORE_EVENT_TYPE_SIZE];
    int64_t created_at;
};

/* The customer's earlier events into a new array *out (the caller frees
 * it). */
static enum gq_code read_event_refs(struct sqlite_conn *conn, const struct customer_write *write,
                                    struct event_ref **out, size_t *count, struct gq_error *err)
{
    *out = NULL;
    *count = 0;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_CUSTOMER_EVENTS), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, write->customer->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, write->event->id, -1, SQLITE_STATIC);
    enum gq_code code = GQ_OK;
    int rc = SQLITE_DONE;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        struct event_ref *grown = realloc(*out, (*count + 1) * sizeof *grown);
        if (grown == NULL) {
            code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory erasing a customer");
            break;
        }
        *out = grown;
        struct event_ref *ref = &grown[(*count)++];
        const unsigned char *id = sqlite3_column_text(stmt, 0);
        const unsigned char *type = sqlite3_column_text(stmt, 1);
        snprintf(ref->id, sizeof ref->id, "%s", id ? (const char *)id : "");
        snprintf(ref->type, sizeof ref->type, "%s", type ? (const char *)type : "");
        ref->created_at = sqlite3_column_int64(stmt, 2);
    }
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading a customer's events", err);
    sqlite_db_done(stmt);
    return code;
}

static enum gq_code replace_body(struct sqlite_conn *conn, const struct store_event *event,
                                 struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_EVENT_BODY_REPLACE), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, event->id, -1, SQLITE_STATIC);
    sqlite3_bind_blob(stmt, 2, event->packed.block, (int)event->packed.block_size, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)event->packed.size);
    return step_done(conn, stmt, "erasing a customer's event", err);
}

/* Every earlier event of the customer remade around the erased record. */
static enum gq_code erase_events(struct sqlite_conn *conn, const struct customer_write *write,
                                 struct gq_error *err)
{
    struct event_ref *refs;
    size_t count;
    enum gq_code code = read_event_refs(conn, write, &refs, &count, err);
    for (size_t i = 0; code == GQ_OK && i < count; i++) {
        struct store_event remade;
        code = store_event_remake(refs[i].id, refs[i].type, refs[i].created_at, write->object,
                                  &remade, err);
        if (code == GQ_OK)
            code = replace_body(conn, &remade, err);
        store_event_clear(&remade);
    }
    free(refs);
    return code;
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
    if (code == GQ_OK)
        code = sqlite_event_append(conn, write->event, err);
    if (code == GQ_OK)
        code = link_event(conn, write, err);
    if (code == GQ_OK && customer->deleted)
        code = erase_events(conn, write, err);
    if (code == GQ_OK && customer->deleted)
        code = sqlite_verifications_erase(conn, customer->id, err);
    return code;
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
