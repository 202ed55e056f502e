/*
 * The PostgreSQL backend's customers: a write (insert or update) with its
 * event and audit line in one transaction, and the customers a filter
 * selects. Not hot paths: statements go with PQexecParams, text in and
 * out; their texts are queries.c's, shared with SQLite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"
#include "store/queries.h"

static enum gq_code failed(struct gq_error *err)
{
    return err != NULL ? err->code : GQ_ERR_INTERNAL;
}

static PGresult *run(struct pg_conn *conn, const char *sql, int n, const char *const *values,
                     ExecStatusType expected, const char *what, struct gq_error *err)
{
    PGresult *result = PQexecParams(conn->conn, sql, n, NULL, values, NULL, NULL, 0);
    if (PQresultStatus(result) == expected)
        return result;
    pg_fail(conn, result, what, err);
    PQclear(result);
    return NULL;
}

static enum gq_code command(struct pg_conn *conn, enum store_sql sql, int n,
                            const char *const *values, const int *lengths, const int *formats,
                            const char *what, struct gq_error *err)
{
    PGresult *result =
        PQexecParams(conn->conn, pg_sql(conn, sql), n, NULL, values, lengths, formats, 0);
    if (PQresultStatus(result) != PGRES_COMMAND_OK) {
        pg_fail(conn, result, what, err);
        PQclear(result);
        return failed(err);
    }
    PQclear(result);
    return GQ_OK;
}

static enum gq_code link_event(struct pg_conn *conn, const struct customer_write *write,
                               struct gq_error *err)
{
    const char *const values[] = {write->event->id, write->customer->id};
    return command(conn, STORE_SQL_CUSTOMER_EVENT_LINK, 2, values, NULL, NULL,
                   "linking a customer's event", err);
}

static enum gq_code replace_body(struct pg_conn *conn, const struct store_event *event,
                                 struct gq_error *err)
{
    char size[24];
    snprintf(size, sizeof size, "%lld", (long long)event->packed.size);
    const char *const values[] = {event->id, event->packed.block, size};
    /* The block goes as its bytes (binary), the rest as text. */
    const int lengths[] = {0, (int)event->packed.block_size, 0};
    const int formats[] = {0, 1, 0};
    return command(conn, STORE_SQL_EVENT_BODY_REPLACE, 3, values, lengths, formats,
                   "erasing a customer's event", err);
}

/* Every earlier event of the customer remade around the erased record. */
static enum gq_code erase_events(struct pg_conn *conn, const struct customer_write *write,
                                 struct gq_error *err)
{
    const char *const values[] = {write->customer->id, write->event->id};
    PGresult *result = run(conn, pg_sql(conn, STORE_SQL_CUSTOMER_EVENTS), 2, values,
                           PGRES_TUPLES_OK, "reading a customer's events", err);
    if (result == NULL)
        return failed(err);
    enum gq_code code = GQ_OK;
    for (int row = 0; code == GQ_OK && row < PQntuples(result); row++) {
        struct store_event remade;
        code = store_event_remake(PQgetvalue(result, row, 0), PQgetvalue(result, row, 1),
                                  strtoll(PQgetvalue(result, row, 2), NULL, 10), write->object,
                                  &remade, err);
        if (code == GQ_OK)
            code = replace_body(conn, &remade, err);
        store_event_clear(&remade);
    }
    PQclear(result);
    return code;
}

struct write_context {
    const struct customer_write *write;
    bool *found;
};

static enum gq_code write_customer(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct write_context *ctx = context;
    const struct customer_write *write = ctx->write;
    const struct stored_customer *customer = write->customer;
    char created[24], updated[24];
    snprintf(created, sizeof created, "%lld", (long long)customer->created_at);
    snprintf(updated, sizeof updated, "%lld", (long long)customer->updated_at);
    const char *deleted = customer->deleted ? "1" : "0";
    const char *const inserted[] = {customer->id,       customer->email, deleted,
                                    customer->document, created,         updated};
    const char *const updated_values[] = {customer->id, customer->email, deleted,
                                          customer->document, updated};
    *ctx->found = false;
    PGresult *result = write->create
                           ? run(conn, pg_sql(conn, STORE_SQL_CUSTOMER_INSERT), 6, inserted,
                                 PGRES_COMMAND_OK, "storing a customer", err)
                           : run(conn, pg_sql(conn, STORE_SQL_CUSTOMER_UPDATE), 5, updated_values,
                                 PGRES_COMMAND_OK, "storing a customer", err);
    if (result == NULL)
        return failed(err);
    *ctx->found = strcmp(PQcmdTuples(result), "1") == 0;
    PQclear(result);
    if (!*ctx->found)
        return GQ_OK;
    enum gq_code code = pg_audit_append(conn, write->audit, err);
    if (code == GQ_OK)
        code = pg_event_append(conn, write->event, err);
    if (code == GQ_OK)
        code = link_event(conn, write, err);
    if (code == GQ_OK && customer->deleted)
        code = erase_events(conn, write, err);
    if (code == GQ_OK && customer->deleted)
        code = pg_verifications_erase(conn, customer->id, err);
    return code;
}

static enum gq_code write_in_transaction(struct pg_conn *conn, void *context, struct gq_error *err)
{
    return pg_in_transaction(conn, write_customer, context, err);
}

enum gq_code pg_customer_write(struct store_backend *backend, const struct customer_write *write,
                               bool *found, struct gq_error *err)
{
    struct write_context ctx = {write, found};
    return pg_run(pg_store_of(backend), write_in_transaction, &ctx, err);
}

struct read_context {
    const struct customer_filter *filter;
    struct customer_page *out;
};

static enum gq_code copy_row(const PGresult *result, int row, struct stored_customer *customer)
{
    snprintf(customer->id, sizeof customer->id, "%s", PQgetvalue(result, row, CUSTOMER_COL_ID));
    customer->deleted = strcmp(PQgetvalue(result, row, CUSTOMER_COL_DELETED), "0") != 0;
    customer->created_at = strtoll(PQgetvalue(result, row, CUSTOMER_COL_CREATED_AT), NULL, 10);
    customer->updated_at = strtoll(PQgetvalue(result, row, CUSTOMER_COL_UPDATED_AT), NULL, 10);
    bool has_email = !PQgetisnull(result, row, CUSTOMER_COL_EMAIL);
    customer->email = has_email ? strdup(PQgetvalue(result, row, CUSTOMER_COL_EMAIL)) : NULL;
    customer->document = strdup(PQgetvalue(result, row, CUSTOMER_COL_DOCUMENT));
    return customer->document != NULL && (customer->email != NULL || !has_email) ? GQ_OK
                                                                                 : GQ_ERR_NO_MEMORY;
}

static enum gq_code read_customers(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct read_context *ctx = context;
    const struct customer_filter *filter = ctx->filter;
    char limit[24];
    snprintf(limit, sizeof limit, "%zu", filter->limit + 1);
    const char *include = filter->include_deleted || filter->id != NULL ? "1" : "0";
    const char *const values[] = {filter->id, filter->email, include, filter->starting_after,
                                  limit};
    PGresult *result = run(conn, pg_sql(conn, STORE_SQL_CUSTOMERS), 5, values, PGRES_TUPLES_OK,
                           "reading customers", err);
    if (result == NULL)
        return failed(err);
    store_customer_page_free(ctx->out); /* a retried read starts again */
    struct customer_page *page = ctx->out;
    int rows = PQntuples(result);
    page->items = rows > 0 ? calloc((size_t)rows, sizeof *page->items) : NULL;
    enum gq_code code = rows > 0 && page->items == NULL ? GQ_ERR_NO_MEMORY : GQ_OK;
    for (int row = 0; code == GQ_OK && row < rows; row++)
        code = copy_row(result, row, &page->items[page->count++]);
    PQclear(result);
    return code == GQ_OK ? GQ_OK
                         : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading customers");
}

enum gq_code pg_customers_read(struct store_backend *backend, const struct customer_filter *filter,
                               struct customer_page *out, struct gq_error *err)
{
    struct read_context ctx = {filter, out};
    return pg_run(pg_store_of(backend), read_customers, &ctx, err);
}
