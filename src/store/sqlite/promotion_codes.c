/*
 * The SQLite backend's promotion codes: read, inserted and deactivated,
 * each write with its audit line in one BEGIN IMMEDIATE transaction, and
 * the redemption an accept counts inside its own transaction
 * (sqlite_promotion_code_redeem, called by quotes.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/db.h"

static enum gq_code read_code(sqlite3_stmt *stmt, struct stored_promotion_code *code,
                              struct gq_error *err)
{
    memset(code, 0, sizeof *code);
    const unsigned char *name = sqlite3_column_text(stmt, PROMO_COL_CODE);
    snprintf(code->code, sizeof code->code, "%s", name != NULL ? (const char *)name : "");
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

static enum gq_code append_code(struct promotion_code_list *list, sqlite3_stmt *stmt,
                                struct gq_error *err)
{
    struct stored_promotion_code *items = realloc(list->items, (list->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading promotion codes");
    list->items = items;
    enum gq_code code = read_code(stmt, &items[list->count], err);
    if (code == GQ_OK)
        list->count++;
    else
        store_promotion_code_clear(&items[list->count]);
    return code;
}

static enum gq_code select_codes(struct sqlite_conn *conn, const char *name,
                                 struct promotion_code_list *out, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_PROMOTION_CODES), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC); /* NULL binds NULL */
    enum gq_code code = GQ_OK;
    int rc;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        code = append_code(out, stmt, err);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading promotion codes", err);
    sqlite_db_done(stmt);
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
static void bind_limit(sqlite3_stmt *stmt, int index, int64_t value)
{
    if (value > 0)
        sqlite3_bind_int64(stmt, index, (sqlite3_int64)value);
    else
        sqlite3_bind_null(stmt, index);
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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_PROMOTION_CODE_INSERT), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, code->code, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, code->discount, -1, SQLITE_STATIC);
    bind_limit(stmt, 3, code->expires_at);
    bind_limit(stmt, 4, code->max_redemptions);
    bind_limit(stmt, 5, code->per_customer_limit);
    sqlite3_bind_int(stmt, 6, code->first_time_only ? 1 : 0);
    sqlite3_bind_int(stmt, 7, code->active ? 1 : 0);
    sqlite3_bind_int64(stmt, 8, (sqlite3_int64)code->redemptions);
    sqlite3_bind_int64(stmt, 9, (sqlite3_int64)code->created_at);
    sqlite3_bind_int64(stmt, 10, (sqlite3_int64)code->updated_at);
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, "storing a promotion code", err);
    *insert->inserted = sqlite3_changes(conn->db) == 1;
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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(sql), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)now);
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, what, err);
    *changed = sqlite3_changes(conn->db) == 1;
    return GQ_OK;
}

struct code_deactivate {
    const char *name;
    int64_t now;
    const struct audit_line *audit;
    struct stored_promotion_code *out;
    bool *found;
};

static enum gq_code write_deactivate(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct code_deactivate *deactivate = context;
    bool changed = false;
    enum gq_code code =
        update_code(conn, STORE_SQL_PROMOTION_CODE_DEACTIVATE, deactivate->name, deactivate->now,
                    &changed, "deactivating a promotion code", err);
    struct promotion_code_list list = {0};
    if (code == GQ_OK)
        code = select_codes(conn, deactivate->name, &list, err);
    if (code != GQ_OK)
        return code;
    *deactivate->found = list.count == 1;
    if (*deactivate->found) {
        *deactivate->out = list.items[0];
        memset(&list.items[0], 0, sizeof list.items[0]);
    }
    store_promotion_code_list_free(&list);
    return changed ? sqlite_audit_append(conn, deactivate->audit, err) : GQ_OK;
}

enum gq_code sqlite_promotion_code_deactivate(struct store_backend *backend, const char *name,
                                              int64_t now, const struct audit_line *audit,
                                              struct stored_promotion_code *out, bool *found,
                                              struct gq_error *err)
{
    struct code_deactivate deactivate = {name, now, audit, out, found};
    *found = false;
    enum gq_code code = sqlite_db_in_write_transaction(sqlite_store_of(backend), write_deactivate,
                                                       &deactivate, err);
    if (code != GQ_OK && *found)
        store_promotion_code_clear(out);
    return code;
}

enum gq_code sqlite_promotion_code_redeem(struct sqlite_conn *conn, const char *name, int64_t now,
                                          bool *redeemed, struct gq_error *err)
{
    return update_code(conn, STORE_SQL_PROMOTION_CODE_REDEEM, name, now, redeemed,
                       "redeeming a promotion code", err);
}
