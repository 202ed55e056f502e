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
    return code == GQ_OK ? pg_event_append(conn, write->event, err) : code;
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
