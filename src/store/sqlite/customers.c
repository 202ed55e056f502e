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

static enum gq_code link_event(struct sqlite_conn *conn, const struct customer_write *write,
                               struct gq_error *err)
{
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(write->event->id),
                                             SQLITE_DB_TEXT_OF(write->customer->id)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_CUSTOMER_EVENT_LINK), params, 2,
                                        "linking a customer's event"};
    return sqlite_db_change(conn, &call, NULL, err);
}

/* An earlier event of the customer, to be remade. */
struct event_ref {
    char id[STORE_ID_SIZE];
    char type[STORE_EVENT_TYPE_SIZE];
    int64_t created_at;
};

/* The customer's earlier events into a new array *out (the caller frees
 * it). */
static enum gq_code read_event_ref(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    (void)err;
    struct event_ref *ref = item;
    snprintf(ref->id, sizeof ref->id, "%s", sqlite_db_text(stmt, 0));
    snprintf(ref->type, sizeof ref->type, "%s", sqlite_db_text(stmt, 1));
    ref->created_at = sqlite3_column_int64(stmt, 2);
    return GQ_OK;
}

/* The customer's earlier events into `refs` (the caller frees its items). */
static enum gq_code read_event_refs(struct sqlite_conn *conn, const struct customer_write *write,
                                    struct sqlite_db_rows *refs, struct gq_error *err)
{
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(write->customer->id),
                                             SQLITE_DB_TEXT_OF(write->event->id)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_CUSTOMER_EVENTS), params, 2,
                                        "reading a customer's events"};
    return sqlite_db_read_rows(conn, &call, sizeof(struct event_ref), read_event_ref, refs, err);
}

static enum gq_code replace_body(struct sqlite_conn *conn, const struct store_event *event,
                                 struct gq_error *err)
{
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(event->id),
        SQLITE_DB_BLOB_OF(event->packed.block, event->packed.block_size),
        SQLITE_DB_INT64_OF(event->packed.size)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_EVENT_BODY_REPLACE), params, 3,
                                        "erasing a customer's event"};
    return sqlite_db_change(conn, &call, NULL, err);
}

/* Every earlier event of the customer remade around the erased record. */
static enum gq_code erase_events(struct sqlite_conn *conn, const struct customer_write *write,
                                 struct gq_error *err)
{
    struct sqlite_db_rows rows = {0};
    enum gq_code code = read_event_refs(conn, write, &rows, err);
    const struct event_ref *refs = rows.items;
    for (size_t i = 0; code == GQ_OK && i < rows.count; i++) {
        struct store_event remade;
        code = store_event_remake(refs[i].id, refs[i].type, refs[i].created_at, write->object,
                                  &remade, err);
        if (code == GQ_OK)
            code = replace_body(conn, &remade, err);
        store_event_clear(&remade);
    }
    free(rows.items);
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
    /* An update sets updated_at alone: it takes the last parameter. */
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(customer->id),
        SQLITE_DB_TEXT_OF(customer->email),
        SQLITE_DB_INT64_OF(customer->deleted ? 1 : 0),
        SQLITE_DB_TEXT_OF(customer->document),
        SQLITE_DB_INT64_OF(write->create ? customer->created_at : customer->updated_at),
        SQLITE_DB_INT64_OF(customer->updated_at)};
    const struct sqlite_db_call call = {sqlite_sql(sql), params, write->create ? 6 : 5,
                                        "storing a customer"};
    enum gq_code code = sqlite_db_change(conn, &call, run->found, err);
    if (code != GQ_OK || !*run->found)
        return code; /* nothing else is written */
    code = sqlite_audit_append(conn, write->audit, err);
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

static enum gq_code read_customer(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct stored_customer *customer = item;
    snprintf(customer->id, sizeof customer->id, "%s", sqlite_db_text(stmt, CUSTOMER_COL_ID));
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
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(filter->id), SQLITE_DB_TEXT_OF(filter->email),
        SQLITE_DB_INT64_OF(filter->include_deleted || filter->id != NULL ? 1 : 0),
        SQLITE_DB_TEXT_OF(filter->starting_after), SQLITE_DB_INT64_OF(filter->limit + 1)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_CUSTOMERS), params, 5,
                                        "reading customers"};
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_pooled, backend, &call, read_customer, out, code, err);
    return code;
}
