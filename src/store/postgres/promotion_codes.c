/*
 * The PostgreSQL backend's promotion codes: read, inserted and
 * deactivated, each write with its audit line in one transaction (run
 * again on a serialization failure or a deadlock: pg_run), and the
 * redemption an accept counts inside its own transaction
 * (pg_promotion_code_redeem, called by quotes.c). Not hot paths: sent with
 * PQexecParams, text in and out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"

static PGresult *run(struct pg_conn *conn, enum store_sql sql, int n, const char *const *values,
                     ExecStatusType expected, const char *what, struct gq_error *err)
{
    PGresult *result = PQexecParams(conn->conn, pg_sql(conn, sql), n, NULL, values, NULL, NULL, 0);
    if (PQresultStatus(result) == expected)
        return result;
    pg_fail(conn, result, what, err);
    PQclear(result);
    return NULL;
}

static int64_t integer_at(const PGresult *result, int row, int column)
{
    return PQgetisnull(result, row, column) ? 0
                                            : strtoll(PQgetvalue(result, row, column), NULL, 10);
}

static bool read_row(const PGresult *result, int row, struct stored_promotion_code *code)
{
    snprintf(code->code, sizeof code->code, "%s", PQgetvalue(result, row, PROMO_COL_CODE));
    code->discount = strdup(PQgetvalue(result, row, PROMO_COL_DISCOUNT));
    code->expires_at = integer_at(result, row, PROMO_COL_EXPIRES_AT);
    code->max_redemptions = integer_at(result, row, PROMO_COL_MAX_REDEMPTIONS);
    code->per_customer_limit = integer_at(result, row, PROMO_COL_PER_CUSTOMER_LIMIT);
    code->first_time_only = integer_at(result, row, PROMO_COL_FIRST_TIME_ONLY) != 0;
    code->active = integer_at(result, row, PROMO_COL_ACTIVE) != 0;
    code->redemptions = integer_at(result, row, PROMO_COL_REDEMPTIONS);
    code->created_at = integer_at(result, row, PROMO_COL_CREATED_AT);
    code->updated_at = integer_at(result, row, PROMO_COL_UPDATED_AT);
    return code->discount != NULL;
}

struct codes_query {
    const char *name;
    struct promotion_code_list *out;
};

static enum gq_code select_codes(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct codes_query *query = context;
    const char *const values[] = {query->name};
    PGresult *result = run(conn, STORE_SQL_PROMOTION_CODES, 1, values, PGRES_TUPLES_OK,
                           "reading promotion codes", err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    int rows = PQntuples(result);
    struct promotion_code_list *out = query->out;
    out->items = rows > 0 ? calloc((size_t)rows, sizeof *out->items) : NULL;
    out->count = 0;
    bool whole = rows == 0 || out->items != NULL;
    for (int row = 0; whole && row < rows; row++, out->count++)
        whole = read_row(result, row, &out->items[row]);
    PQclear(result);
    if (whole)
        return GQ_OK;
    store_promotion_code_list_free(out);
    return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading promotion codes");
}

enum gq_code pg_promotion_codes_read(struct store_backend *backend, const char *name,
                                     struct promotion_code_list *out, struct gq_error *err)
{
    struct codes_query query = {name, out};
    return pg_run(pg_store_of(backend), select_codes, &query, err);
}

/* A limit of 0 (none) as NULL, else its decimal text in `buffer`. */
static const char *limit_text(int64_t value, char buffer[24])
{
    if (value <= 0)
        return NULL;
    snprintf(buffer, 24, "%lld", (long long)value);
    return buffer;
}

static const char *number_text(int64_t value, char buffer[24])
{
    snprintf(buffer, 24, "%lld", (long long)value);
    return buffer;
}

struct code_insert {
    const struct stored_promotion_code *code;
    const struct audit_line *audit;
    bool *inserted;
};

static enum gq_code write_insert(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct code_insert *insert = context;
    const struct stored_promotion_code *code = insert->code;
    char expires[24], max[24], per_customer[24], redemptions[24], created[24], updated[24];
    const char *const values[] = {code->code,
                                  code->discount,
                                  limit_text(code->expires_at, expires),
                                  limit_text(code->max_redemptions, max),
                                  limit_text(code->per_customer_limit, per_customer),
                                  code->first_time_only ? "1" : "0",
                                  code->active ? "1" : "0",
                                  number_text(code->redemptions, redemptions),
                                  number_text(code->created_at, created),
                                  number_text(code->updated_at, updated)};
    PGresult *result = run(conn, STORE_SQL_PROMOTION_CODE_INSERT, 10, values, PGRES_COMMAND_OK,
                           "storing a promotion code", err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    *insert->inserted = strcmp(PQcmdTuples(result), "1") == 0;
    PQclear(result);
    return *insert->inserted ? pg_audit_append(conn, insert->audit, err) : GQ_OK;
}

static enum gq_code insert_in_transaction(struct pg_conn *conn, void *context, struct gq_error *err)
{
    return pg_in_transaction(conn, write_insert, context, err);
}

enum gq_code pg_promotion_code_insert(struct store_backend *backend,
                                      const struct stored_promotion_code *code,
                                      const struct audit_line *audit, bool *inserted,
                                      struct gq_error *err)
{
    struct code_insert insert = {code, audit, inserted};
    *inserted = false;
    return pg_run(pg_store_of(backend), insert_in_transaction, &insert, err);
}

/* Runs one of the two updates of a code (code, now); *changed: whether it
 * changed the row. */
static enum gq_code update_code(struct pg_conn *conn, enum store_sql sql, const char *name,
                                int64_t now, bool *changed, const char *what, struct gq_error *err)
{
    char when[24];
    const char *const values[] = {name, number_text(now, when)};
    PGresult *result = run(conn, sql, 2, values, PGRES_COMMAND_OK, what, err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    *changed = strcmp(PQcmdTuples(result), "1") == 0;
    PQclear(result);
    return GQ_OK;
}

struct code_deactivate {
    const char *name;
    int64_t now;
    const struct audit_line *audit;
    struct stored_promotion_code *out;
    bool *found;
};

static enum gq_code write_deactivate(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct code_deactivate *deactivate = context;
    bool changed = false;
    struct promotion_code_list list = {0};
    struct codes_query query = {deactivate->name, &list};
    enum gq_code code =
        update_code(conn, STORE_SQL_PROMOTION_CODE_DEACTIVATE, deactivate->name, deactivate->now,
                    &changed, "deactivating a promotion code", err);
    if (code == GQ_OK)
        code = select_codes(conn, &query, err);
    if (code == GQ_OK && changed)
        code = pg_audit_append(conn, deactivate->audit, err);
    if (code == GQ_OK) {
        *deactivate->found = list.count == 1;
        if (*deactivate->found) {
            store_promotion_code_clear(deactivate->out); /* from a run that was retried */
            *deactivate->out = list.items[0];
            memset(&list.items[0], 0, sizeof list.items[0]);
        }
    }
    store_promotion_code_list_free(&list);
    return code;
}

static enum gq_code deactivate_in_transaction(struct pg_conn *conn, void *context,
                                              struct gq_error *err)
{
    return pg_in_transaction(conn, write_deactivate, context, err);
}

enum gq_code pg_promotion_code_deactivate(struct store_backend *backend, const char *name,
                                          int64_t now, const struct audit_line *audit,
                                          struct stored_promotion_code *out, bool *found,
                                          struct gq_error *err)
{
    struct code_deactivate deactivate = {name, now, audit, out, found};
    *found = false;
    memset(out, 0, sizeof *out);
    enum gq_code code = pg_run(pg_store_of(backend), deactivate_in_transaction, &deactivate, err);
    if (code != GQ_OK)
        store_promotion_code_clear(out);
    return code;
}

enum gq_code pg_promotion_code_redeem(struct pg_conn *conn, const char *name, int64_t now,
                                      bool *redeemed, struct gq_error *err)
{
    return update_code(conn, STORE_SQL_PROMOTION_CODE_REDEEM, name, now, redeemed,
                       "redeeming a promotion code", err);
}
