/*
 * The PostgreSQL backend's plumbing for the statements that are not hot
 * paths (keys, customers, promotion codes, price lists, events and
 * webhooks): a statement sent with PQexecParams, text in and out, its
 * result checked once; the values of a text-format result read as
 * integers or copies; a result's rows given their array; and a write run
 * in one transaction on a connection of the pool.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"

enum gq_code pg_failed(const struct gq_error *err)
{
    return err != NULL ? err->code : GQ_ERR_INTERNAL;
}

/* Runs `call` and wants `expected`: the result (the caller clears it), or
 * NULL with err filled (pg_fail). */
static PGresult *exec_call(struct pg_conn *conn, const struct pg_call *call,
                           ExecStatusType expected, struct gq_error *err)
{
    PGresult *result = PQexecParams(conn->conn, pg_sql(conn, call->sql), call->n, NULL,
                                    call->values, call->lengths, call->formats, 0);
    if (PQresultStatus(result) == expected)
        return result;
    pg_fail(conn, result, call->what, err);
    PQclear(result);
    return NULL;
}

PGresult *pg_query(struct pg_conn *conn, enum store_sql sql, int n, const char *const *values,
                   const char *what, struct gq_error *err)
{
    const struct pg_call call = {sql, n, values, NULL, NULL, what};
    return exec_call(conn, &call, PGRES_TUPLES_OK, err);
}

enum gq_code pg_change(struct pg_conn *conn, const struct pg_call *call, bool *changed,
                       struct gq_error *err)
{
    PGresult *result = exec_call(conn, call, PGRES_COMMAND_OK, err);
    if (result == NULL)
        return pg_failed(err);
    if (changed != NULL)
        *changed = strcmp(PQcmdTuples(result), "0") != 0;
    PQclear(result);
    return GQ_OK;
}

enum gq_code pg_change_count(struct pg_conn *conn, const struct pg_call *call, int *count,
                             struct gq_error *err)
{
    PGresult *result = exec_call(conn, call, PGRES_COMMAND_OK, err);
    if (result == NULL)
        return pg_failed(err);
    *count = atoi(PQcmdTuples(result));
    PQclear(result);
    return GQ_OK;
}

enum gq_code pg_update(struct pg_conn *conn, enum store_sql sql, int n, const char *const *values,
                       bool *changed, const char *what, struct gq_error *err)
{
    const struct pg_call call = {sql, n, values, NULL, NULL, what};
    return pg_change(conn, &call, changed, err);
}

int64_t pg_integer_at(const PGresult *result, int row, int column)
{
    return PQgetisnull(result, row, column) ? 0
                                            : strtoll(PQgetvalue(result, row, column), NULL, 10);
}

char *pg_copy_or_null(const PGresult *result, int row, int column)
{
    return PQgetisnull(result, row, column) ? NULL : strdup(PQgetvalue(result, row, column));
}

const char *pg_number_text(int64_t value, char out[PG_NUMBER_SIZE])
{
    snprintf(out, PG_NUMBER_SIZE, "%lld", (long long)value);
    return out;
}

/* A zeroed array of `size`-byte items, one a row of `result` (NULL when it
 * has none); *code GQ_ERR_NO_MEMORY with err filled when it cannot be had. */
static void *calloc_rows(const PGresult *result, size_t size, enum gq_code *code,
                         struct gq_error *err)
{
    int rows = PQntuples(result);
    void *items = rows > 0 ? calloc((size_t)rows, size) : NULL;
    *code =
        rows > 0 && items == NULL ? gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory") : GQ_OK;
    return items;
}

enum gq_code pg_read_rows(struct pg_conn *conn, const struct pg_call *call, size_t size,
                          pg_row_reader read, struct pg_rows *out, struct gq_error *err)
{
    out->items = NULL;
    out->count = 0;
    PGresult *result = exec_call(conn, call, PGRES_TUPLES_OK, err);
    if (result == NULL)
        return pg_failed(err);
    enum gq_code code;
    out->items = calloc_rows(result, size, &code, err);
    for (int row = 0; code == GQ_OK && row < PQntuples(result); row++)
        code = read(result, row, (char *)out->items + size * out->count++, err);
    PQclear(result);
    return code;
}

struct transaction {
    pg_operation write;
    void *context;
};

static enum gq_code run_transaction(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct transaction *transaction = context;
    return pg_in_transaction(conn, transaction->write, transaction->context, err);
}

enum gq_code pg_run_write(struct store_backend *backend, pg_operation write, void *context,
                          struct gq_error *err)
{
    struct transaction transaction = {write, context};
    return pg_run(pg_store_of(backend), run_transaction, &transaction, err);
}

struct rows_run {
    const struct pg_call *call;
    size_t size;
    pg_row_reader read;
    pg_item_clear clear;
    struct pg_rows *out;
};

static void rows_free(const struct rows_run *run)
{
    for (size_t i = 0; i < run->out->count; i++)
        run->clear((char *)run->out->items + run->size * i);
    free(run->out->items);
    run->out->items = NULL;
    run->out->count = 0;
}

static enum gq_code read_rows_once(struct pg_conn *conn, void *context, struct gq_error *err)
{
    const struct rows_run *run = context;
    enum gq_code code = pg_read_rows(conn, run->call, run->size, run->read, run->out, err);
    if (code != GQ_OK)
        rows_free(run);
    return code;
}

enum gq_code pg_run_read_rows(struct store_backend *backend, const struct pg_call *call,
                              size_t size, pg_row_reader read, pg_item_clear clear,
                              struct pg_rows *out, struct gq_error *err)
{
    struct rows_run run = {call, size, read, clear, out};
    out->items = NULL;
    out->count = 0;
    return pg_run(pg_store_of(backend), read_rows_once, &run, err);
}
