/*
 * The SQLite backend's promotion codes: read, inserted and deactivated,
 * each write with its audit line in one BEGIN IMMEDIATE transaction, and
 * the redemption an accept counts inside its own transaction
 * (sqlite_promotion_code_redeem, called by quotes.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/readback.h"
#include "store/sqlite/db.h"

static enum gq_code read_code(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct stored_promotion_code *code = item;
    snprintf(code->code, sizeof code->code, "%s", sqlite_db_text(stmt, PROMO_COL_CODE));
    if (!sqlite_db_column_strdup(stmt, PROMO_COL_DISCOUNT, &code->discount))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading promotion codes");
    code->expires_at = sqlite3_column_int64(stmt, PROMO_COL_EXPIRES_AT);
    code->max_redemptions = sqlite3_column_int64(stmt, PROMO_COL_MAX_REDEMPTIONS);
    code->per_customer_limit = sqlite3_column_int64(stmt, PROMO_COL_PER_CUSTOMER_LIMIT);
    code->first_time_only = sqlite3_column_int64(stmt, PROMO_COL_FIRST_TIME_ONLY) != 0;
    code->active = sqlite3_column_int64(stmt, PROMO_COL_ACTIVE) != 0;
    code->redemptions = sqlite3_column_int64(stmt, PROMO_COL_REDEMPTIONS);
    code->created_at = sqlite3_column_int64(stmt, PROMO_COL_CREATED_AT);
    code->updated_at = sqlite3_column_int64(stmt, PROMO_COL_UPDATED_AT);
    return GQ_OK;
}

static enum gq_code select_codes(struct sqlite_conn *conn, const char *name,
                                 struct promotion_code_list *out, struct gq_error *err)
{
    enum gq_code code;
    SQLITE_DB_READ_LIST_BY_TEXT(sqlite_db_read_rows, conn, STORE_SQL_PROMOTION_CODES, name,
                                "reading promotion codes", read_code, out, code, err);
    if (code != GQ_OK)
        store_promotion_code_list_free(out);
    return code;
}

enum gq_code sqlite_promotion_codes_read(struct store_backend *backend, const char *name,
                                         struct promotion_code_list *out, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    enum gq_code code = select_codes(conn, name, out, err);
    sqlite_db_checkin(store, conn);
    return code;
}

/* A limit of 0 (none) is stored as NULL. */
static struct sqlite_db_param limit_param(int64_t value)
{
    const struct sqlite_db_param limit = SQLITE_DB_INT64_OF(value);
    const struct sqlite_db_param none = SQLITE_DB_NULL_PARAM;
    return value > 0 ? limit : none;
}

struct code_insert {
    const struct stored_promotion_code *code;
    const struct audit_line *audit;
    bool *inserted;
};

static enum gq_code write_insert(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct code_insert *insert = context;
    const struct stored_promotion_code *code = insert->code;
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(code->code),
                                             SQLITE_DB_TEXT_OF(code->discount),
                                             limit_param(code->expires_at),
                                             limit_param(code->max_redemptions),
                                             limit_param(code->per_customer_limit),
                                             SQLITE_DB_INT64_OF(code->first_time_only ? 1 : 0),
                                             SQLITE_DB_INT64_OF(code->active ? 1 : 0),
                                             SQLITE_DB_INT64_OF(code->redemptions),
                                             SQLITE_DB_INT64_OF(code->created_at),
                                             SQLITE_DB_INT64_OF(code->updated_at)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_PROMOTION_CODE_INSERT), params, 10,
                                        "storing a promotion code"};
    enum gq_code result = sqlite_db_change(conn, &call, insert->inserted, err);
    if (result != GQ_OK)
        return result;
    return *insert->inserted ? sqlite_audit_append(conn, insert->audit, err) : GQ_OK;
}

enum gq_code sqlite_promotion_code_insert(struct store_backend *backend,
                                          const struct stored_promotion_code *code,
                                          const struct audit_line *audit, bool *inserted,
                                          struct gq_error *err)
{
    struct code_insert insert = {code, audit, inserted};
    *inserted = false;
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_insert, &insert, err);
}

/* Runs one of the two updates of a code (code, now); *changed: whether it
 * changed the row. */
static enum gq_code update_code(struct sqlite_conn *conn, enum store_sql sql, const char *name,
                                int64_t now, bool *changed, const char *what, struct gq_error *err)
{
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(name), SQLITE_DB_INT64_OF(now)};
    const struct sqlite_db_call call = {sqlite_sql(sql), params, 2, what};
    return sqlite_db_change(conn, &call, changed, err);
}

static enum gq_code write_deactivate(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct store_code_deactivate *deactivate = context;
    bool changed = false;
    enum gq_code code =
        update_code(conn, STORE_SQL_PROMOTION_CODE_DEACTIVATE, deactivate->name, deactivate->now,
                    &changed, "deactivating a promotion code", err);
    struct promotion_code_list list = {0};
    if (code == GQ_OK)
        code = select_codes(conn, deactivate->name, &list, err);
    if (code != GQ_OK)
        return code;
    store_code_deactivate_report(deactivate, &list);
    return changed ? sqlite_audit_append(conn, deactivate->audit, err) : GQ_OK;
}

enum gq_code sqlite_promotion_code_deactivate(struct store_backend *backend, const char *name,
                                              int64_t now, const struct audit_line *audit,
                                              struct stored_promotion_code *out, bool *found,
                                              struct gq_error *err)
{
    struct store_code_deactivate deactivate = {name, now, audit, out, found};
    store_code_deactivate_begin(&deactivate);
    return store_code_deactivate_end(
        &deactivate, sqlite_db_in_write_transaction(sqlite_store_of(backend), write_deactivate,
                                                    &deactivate, err));
}

enum gq_code sqlite_promotion_code_redeem(struct sqlite_conn *conn, const char *name, int64_t now,
                                          bool *redeemed, struct gq_error *err)
{
    return update_code(conn, STORE_SQL_PROMOTION_CODE_REDEEM, name, now, redeemed,
                       "redeeming a promotion code", err);
}
