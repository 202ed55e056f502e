/*
 * The SQLite backend's verifications: a write (a new one, or a revoke)
 * with its event and audit line in one write transaction, the
 * verifications of a customer, the sweeper's expiry (the due ones read
 * first, so that a sweep with nothing due takes no write lock, then each
 * marked by a conditional update that leaves one another process marked
 * meanwhile alone), and the erasure of a customer's evidence. The
 * statements are queries.c's, shared with PostgreSQL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/queries.h"
#include "store/sqlite/db.h"

static enum gq_code not_prepared(const struct gq_error *err)
{
    return err != NULL ? err->code : GQ_ERR_INTERNAL;
}

static void copy_text(sqlite3_stmt *stmt, int column, char *out, size_t size)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    snprintf(out, size, "%s", text ? (const char *)text : "");
}

/* The current row of `stmt` into *row. */
static bool copy_row(sqlite3_stmt *stmt, struct stored_verification *row)
{
    *row = (struct stored_verification){
        .created_at = sqlite3_column_int64(stmt, VERIFICATION_COL_CREATED_AT),
        .expires_at = sqlite3_column_int64(stmt, VERIFICATION_COL_EXPIRES_AT),
        .revoked_at = sqlite3_column_int64(stmt, VERIFICATION_COL_REVOKED_AT),
        .expired_at = sqlite3_column_int64(stmt, VERIFICATION_COL_EXPIRED_AT),
    };
    copy_text(stmt, VERIFICATION_COL_ID, row->id, sizeof row->id);
    copy_text(stmt, VERIFICATION_COL_CUSTOMER_ID, row->customer_id, sizeof row->customer_id);
    copy_text(stmt, VERIFICATION_COL_SEGMENT, row->segment, sizeof row->segment);
    return sqlite_db_column_strdup(stmt, VERIFICATION_COL_EVIDENCE, &row->evidence);
}

/* The current row appended to `list`. */
static enum gq_code append_row(struct verification_list *list, sqlite3_stmt *stmt,
                               struct gq_error *err)
{
    size_t grown = list->count + 1;
    struct stored_verification *items = realloc(list->items, grown * sizeof *items);
    if (items != NULL) {
        list->items = items;
        if (copy_row(stmt, &items[list->count]))
            list->count = grown;
        else
            items = NULL;
    }
    return items != NULL
               ? GQ_OK
               : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading verifications");
}

/* Every row of `stmt` (bound) into `list`; the statement is done after. */
static enum gq_code read_rows(struct sqlite_conn *conn, sqlite3_stmt *stmt,
                              struct verification_list *list, struct gq_error *err)
{
    enum gq_code code = GQ_OK;
    int rc = SQLITE_DONE;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        code = append_row(list, stmt, err);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading verifications", err);
    sqlite_db_done(stmt);
    return code;
}

enum gq_code sqlite_verifications_read(struct store_backend *backend, const char *customer_id,
                                       const char *id, int64_t live_at,
                                       struct verification_list *out, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_VERIFICATIONS), err);
    enum gq_code code = stmt != NULL ? GQ_OK : not_prepared(err);
    if (stmt != NULL) {
        sqlite3_bind_text(stmt, 1, customer_id, -1, SQLITE_STATIC);
        if (id != NULL)
            sqlite3_bind_text(stmt, 2, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 3, (sqlite3_int64)live_at);
        code = read_rows(conn, stmt, out, err);
    }
    sqlite_db_checkin(store, conn);
    return code;
}

/* Runs the bound `stmt`; *changed when it changed one row. */
static enum gq_code step_change(struct sqlite_conn *conn, sqlite3_stmt *stmt, const char *what,
                                bool *changed, struct gq_error *err)
{
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, what, err);
    *changed = sqlite3_changes(conn->db) == 1;
    return GQ_OK;
}

static enum gq_code insert_or_revoke(struct sqlite_conn *conn,
                                     const struct stored_verification *verification, bool create,
                                     bool *done, struct gq_error *err)
{
    enum store_sql sql = create ? STORE_SQL_VERIFICATION_INSERT : STORE_SQL_VERIFICATION_REVOKE;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(sql), err);
    if (stmt == NULL)
        return not_prepared(err);
    sqlite3_bind_text(stmt, 1, verification->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, verification->customer_id, -1, SQLITE_STATIC);
    if (create) {
        sqlite3_bind_text(stmt, 3, verification->segment, -1, SQLITE_STATIC);
        if (verification->evidence != NULL)
            sqlite3_bind_text(stmt, 4, verification->evidence, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 5, (sqlite3_int64)verification->created_at);
        sqlite3_bind_int64(stmt, 6, (sqlite3_int64)verification->expires_at);
    } else {
        sqlite3_bind_int64(stmt, 3, (sqlite3_int64)verification->revoked_at);
    }
    return step_change(conn, stmt, "storing a verification", done, err);
}

struct write_context {
    const struct verification_write *write;
    bool *done;
};

static enum gq_code write_verification(struct sqlite_conn *conn, void *context,
                                       struct gq_error *err)
{
    struct write_context *run = context;
    const struct verification_write *write = run->write;
    enum gq_code code = insert_or_revoke(conn, write->verification, write->create, run->done, err);
    if (code != GQ_OK || !*run->done)
        return code;
    code = sqlite_audit_append(conn, write->audit, err);
    if (code == GQ_OK)
        code = sqlite_event_append(conn, write->event, err);
    return code;
}

enum gq_code sqlite_verification_write(struct store_backend *backend,
                                       const struct verification_write *write, bool *done,
                                       struct gq_error *err)
{
    struct write_context run = {write, done};
    *done = false;
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_verification, &run, err);
}

/* Marks `verification` (read due) expired at `now` and appends its event,
 * in the transaction; *marked false when it no longer applied. */
static enum gq_code expire_one(struct sqlite_conn *conn, struct stored_verification *verification,
                               int64_t now, bool *marked, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_VERIFICATION_EXPIRE), err);
    if (stmt == NULL)
        return not_prepared(err);
    sqlite3_bind_text(stmt, 1, verification->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)now);
    enum gq_code code = step_change(conn, stmt, "expiring a verification", marked, err);
    if (code != GQ_OK || !*marked)
        return code;
    verification->expired_at = now;
    struct store_event event;
    code =
        store_verification_event(STORE_EVENT_VERIFICATION_EXPIRED, verification, now, &event, err);
    if (code == GQ_OK)
        code = sqlite_event_append(conn, &event, err);
    store_event_clear(&event);
    return code;
}

static enum gq_code read_due(struct sqlite_conn *conn, int64_t now, int limit,
                             struct verification_list *due, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_VERIFICATIONS_DUE), err);
    if (stmt == NULL)
        return not_prepared(err);
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)now);
    sqlite3_bind_int(stmt, 2, limit);
    return read_rows(conn, stmt, due, err);
}

enum gq_code sqlite_expire_verifications(struct store_backend *backend, int64_t now, int limit,
                                         int *count, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    struct verification_list due = {0};
    enum gq_code code = read_due(conn, now, limit, &due, err);
    if (code == GQ_OK && due.count > 0)
        code = sqlite_db_begin_write(conn, err);
    int marked_count = 0;
    for (size_t i = 0; code == GQ_OK && i < due.count; i++) {
        bool marked = false;
        code = expire_one(conn, &due.items[i], now, &marked, err);
        marked_count += marked;
    }
    if (code == GQ_OK && due.count > 0)
        code = sqlite_db_commit(conn, err);
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    store_verification_list_free(&due);
    *count = code == GQ_OK ? marked_count : 0;
    return code;
}

enum gq_code sqlite_verifications_erase(struct sqlite_conn *conn, const char *customer_id,
                                        struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_VERIFICATIONS_ERASE), err);
    if (stmt == NULL)
        return not_prepared(err);
    sqlite3_bind_text(stmt, 1, customer_id, -1, SQLITE_STATIC);
    bool changed;
    return step_change(conn, stmt, "erasing a customer's evidence", &changed, err);
}
