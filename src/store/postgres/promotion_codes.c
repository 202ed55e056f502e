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

#include "store/readback.h"
#include "store/postgres/pg.h"

static enum gq_code read_row(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct stored_promotion_code *code = item;
    snprintf(code->code, sizeof code->code, "%s", PQgetvalue(result, row, PROMO_COL_CODE));
    code->discount = strdup(PQgetvalue(result, row, PROMO_COL_DISCOUNT));
    code->expires_at = pg_integer_at(result, row, PROMO_COL_EXPIRES_AT);
    code->max_redemptions = pg_integer_at(result, row, PROMO_COL_MAX_REDEMPTIONS);
    code->per_customer_limit = pg_integer_at(result, row, PROMO_COL_PER_CUSTOMER_LIMIT);
    code->first_time_only = pg_integer_at(result, row, PROMO_COL_FIRST_TIME_ONLY) != 0;
    code->active = pg_integer_at(result, row, PROMO_COL_ACTIVE) != 0;
    code->redemptions = pg_integer_at(result, row, PROMO_COL_REDEMPTIONS);
    code->created_at = pg_integer_at(result, row, PROMO_COL_CREATED_AT);
    code->updated_at = pg_integer_at(result, row, PROMO_COL_UPDATED_AT);
    return code->discount != NULL
               ? GQ_OK
               : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading promotion codes");
}

/* The codes named `name` (NULL: all) on `conn`, inside a transaction. */
static enum gq_code select_codes(struct pg_conn *conn, const char *name,
                                 struct promotion_code_list *out, struct gq_error *err)
{
    const char *const values[] = {name};
    const struct pg_call call = {STORE_SQL_PROMOTION_CODES, 1, values, NULL, NULL,
                                 "reading promotion codes"};
    enum gq_code code;
    PG_READ_LIST(conn, &call, read_row, out, code, err);
    return code;
}

static void clear_row(void *item)
{
    store_promotion_code_clear(item);
}

enum gq_code pg_promotion_codes_read(struct store_backend *backend, const char *name,
                                     struct promotion_code_list *out, struct gq_error *err)
{
    enum gq_code code;
    PG_RUN_READ_LIST_BY_TEXT(backend, STORE_SQL_PROMOTION_CODES, name, "reading promotion codes",
                             read_row, clear_row, out, code, err);
    return code;
}

/* A limit of 0 (none) as NULL, else its decimal text in `buffer`. */
static const char *limit_text(int64_t value, char buffer[24])
{
    if (value <= 0)
        return NULL;
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
    char expires[PG_NUMBER_SIZE], max[PG_NUMBER_SIZE], per_customer[PG_NUMBER_SIZE],
        redemptions[PG_NUMBER_SIZE], created[PG_NUMBER_SIZE], updated[PG_NUMBER_SIZE];
    const char *const values[] = {code->code,
                                  code->discount,
                                  limit_text(code->expires_at, expires),
                                  limit_text(code->max_redemptions, max),
                                  limit_text(code->per_customer_limit, per_customer),
                                  code->first_time_only ? "1" : "0",
                                  code->active ? "1" : "0",
                                  pg_number_text(code->redemptions, redemptions),
                                  pg_number_text(code->created_at, created),
                                  pg_number_text(code->updated_at, updated)};
    enum gq_code result = pg_update(conn, STORE_SQL_PROMOTION_CODE_INSERT, 10, values,
                                    insert->inserted, "storing a promotion code", err);
    if (result != GQ_OK)
        return result;
    return *insert->inserted ? pg_audit_append(conn, insert->audit, err) : GQ_OK;
}

enum gq_code pg_promotion_code_insert(struct store_backend *backend,
                                      const struct stored_promotion_code *code,
                                      const struct audit_line *audit, bool *inserted,
                                      struct gq_error *err)
{
    struct code_insert insert = {code, audit, inserted};
    *inserted = false;
    return pg_run_write(backend, write_insert, &insert, err);
}

/* Runs one of the two updates of a code (code, now); *changed: whether it
 * changed the row. */
static enum gq_code update_code(struct pg_conn *conn, enum store_sql sql, const char *name,
                                int64_t now, bool *changed, const char *what, struct gq_error *err)
{
    char when[PG_NUMBER_SIZE];
    const char *const values[] = {name, pg_number_text(now, when)};
    return pg_update(conn, sql, 2, values, changed, what, err);
}

static enum gq_code write_deactivate(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct store_code_deactivate *deactivate = context;
    bool changed = false;
    struct promotion_code_list list = {0};
    enum gq_code code =
        update_code(conn, STORE_SQL_PROMOTION_CODE_DEACTIVATE, deactivate->name, deactivate->now,
                    &changed, "deactivating a promotion code", err);
    if (code == GQ_OK)
        code = select_codes(conn, deactivate->name, &list, err);
    if (code != GQ_OK) {
        store_promotion_code_list_free(&list);
        return code;
    }
    store_code_deactivate_report(deactivate, &list);
    return changed ? pg_audit_append(conn, deactivate->audit, err) : GQ_OK;
}

enum gq_code pg_promotion_code_deactivate(struct store_backend *backend, const char *name,
                                          int64_t now, const struct audit_line *audit,
                                          struct stored_promotion_code *out, bool *found,
                                          struct gq_error *err)
{
    struct store_code_deactivate deactivate = {name, now, audit, out, found};
    store_code_deactivate_begin(&deactivate);
    return store_code_deactivate_end(&deactivate,
                                     pg_run_write(backend, write_deactivate, &deactivate, err));
}

enum gq_code pg_promotion_code_redeem(struct pg_conn *conn, const char *name, int64_t now,
                                      bool *redeemed, struct gq_error *err)
{
    return update_code(conn, STORE_SQL_PROMOTION_CODE_REDEEM, name, now, redeemed,
                       "redeeming a promotion code", err);
}
