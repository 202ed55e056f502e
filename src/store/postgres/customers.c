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

static enum gq_code link_event(struct pg_conn *conn, const struct customer_write *write,
                               struct gq_error *err)
{
    const char *const values[] = {write->event->id, write->customer->id};
    return pg_update(conn, STORE_SQL_CUSTOMER_EVENT_LINK, 2, values, NULL,
                     "linking a customer's event", err);
}

static enum gq_code replace_body(struct pg_conn *conn, const struct store_event *event,
                                 struct gq_error *err)
{
    char size[PG_NUMBER_SIZE];
    const char *const values[] = {event->id, event->packed.block,
                                  pg_number_text(event->packed.size, size)};
    /* The block goes as its bytes (binary), the rest as text. */
    const int lengths[] = {0, (int)event->packed.block_size, 0};
    const int formats[] = {0, 1, 0};
    const struct pg_call call = {STORE_SQL_EVENT_BODY_REPLACE, 3, values, lengths, formats,
                                 "erasing a customer's event"};
    return pg_change(conn, &call, NULL, err);
}

/* Every earlier event of the customer remade around the erased record. */
static enum gq_code erase_events(struct pg_conn *conn, const struct customer_write *write,
                                 struct gq_error *err)
{
    const char *const values[] = {write->customer->id, write->event->id};
    PGresult *result =
        pg_query(conn, STORE_SQL_CUSTOMER_EVENTS, 2, values, "reading a customer's events", err);
    if (result == NULL)
        return pg_failed(err);
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
    char created[PG_NUMBER_SIZE], updated[PG_NUMBER_SIZE];
    pg_number_text(customer->created_at, created);
    pg_number_text(customer->updated_at, updated);
    const char *deleted = customer->deleted ? "1" : "0";
    const char *const inserted[] = {customer->id,       customer->email, deleted,
                                    customer->document, created,         updated};
    const char *const updated_values[] = {customer->id, customer->email, deleted,
                                          customer->document, updated};
    *ctx->found = false;
    enum gq_code code = write->create
                            ? pg_update(conn, STORE_SQL_CUSTOMER_INSERT, 6, inserted, ctx->found,
                                        "storing a customer", err)
                            : pg_update(conn, STORE_SQL_CUSTOMER_UPDATE, 5, updated_values,
                                        ctx->found, "storing a customer", err);
    if (code != GQ_OK || !*ctx->found)
        return code;
    code = pg_audit_append(conn, write->audit, err);
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

enum gq_code pg_customer_write(struct store_backend *backend, const struct customer_write *write,
                               bool *found, struct gq_error *err)
{
    struct write_context ctx = {write, found};
    return pg_run_write(backend, write_customer, &ctx, err);
}

struct read_context {
    const struct customer_filter *filter;
    struct customer_page *out;
};

static enum gq_code read_customer(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct stored_customer *customer = item;
    snprintf(customer->id, sizeof customer->id, "%s", PQgetvalue(result, row, CUSTOMER_COL_ID));
    customer->deleted = strcmp(PQgetvalue(result, row, CUSTOMER_COL_DELETED), "0") != 0;
    customer->created_at = pg_integer_at(result, row, CUSTOMER_COL_CREATED_AT);
    customer->updated_at = pg_integer_at(result, row, CUSTOMER_COL_UPDATED_AT);
    customer->email = pg_copy_or_null(result, row, CUSTOMER_COL_EMAIL);
    customer->document = strdup(PQgetvalue(result, row, CUSTOMER_COL_DOCUMENT));
    bool whole = customer->document != NULL &&
                 (customer->email != NULL || PQgetisnull(result, row, CUSTOMER_COL_EMAIL));
    return whole ? GQ_OK : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading customers");
}

static enum gq_code read_customers(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct read_context *ctx = context;
    const struct customer_filter *filter = ctx->filter;
    char limit[PG_NUMBER_SIZE];
    const char *include = filter->include_deleted || filter->id != NULL ? "1" : "0";
    const char *const values[] = {filter->id, filter->email, include, filter->starting_after,
                                  pg_number_text((int64_t)filter->limit + 1, limit)};
    const struct pg_call call = {STORE_SQL_CUSTOMERS, 5, values, NULL, NULL, "reading customers"};
    enum gq_code code;
    PG_READ_PAGE(conn, &call, read_customer, ctx->out, store_customer_page_free, code, err);
    return code;
}

enum gq_code pg_customers_read(struct store_backend *backend, const struct customer_filter *filter,
                               struct customer_page *out, struct gq_error *err)
{
    struct read_context ctx = {filter, out};
    return pg_run(pg_store_of(backend), read_customers, &ctx, err);
}
