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

static void copy_text(sqlite3_stmt *stmt, int column, char *out, size_t size)
{
    snprintf(out, size, "%s", sqlite_db_text(stmt, column));
}

static enum gq_code read_verification(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct stored_verification *row = item;
    *row = (struct stored_verification){
        .created_at = sqlite3_column_int64(stmt, VERIFICATION_COL_CREATED_AT),
        .expires_at = sqlite3_column_int64(stmt, VERIFICATION_COL_EXPIRES_AT),
        .revoked_at = sqlite3_column_int64(stmt, VERIFICATION_COL_REVOKED_AT),
        .expired_at = sqlite3_column_int64(stmt, VERIFICATION_COL_EXPIRED_AT),
    };
    copy_text(stmt, VERIFICATION_COL_ID, row->id, sizeof row->id);
    copy_text(stmt, VERIFICATION_COL_CUSTOMER_ID, row->customer_id, sizeof row->customer_id);
    copy_text(stmt, VERIFICATION_COL_SEGMENT, row->segment, sizeof row->segment);
    if (!sqlite_db_column_strdup(stmt, VERIFICATION_COL_EVIDENCE, &row->evidence))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading verifications");
    return GQ_OK;
}

enum gq_code sqlite_verifications_read(struct store_backend *backend, const char *customer_id,
                                       const char *id, int64_t live_at,
                                       struct verification_list *out, struct gq_error *err)
{
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(customer_id), SQLITE_DB_TEXT_OF(id),
                                             SQLITE_DB_INT64_OF(live_at)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_VERIFICATIONS), params, 3,
                                        "reading verifications"};
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_pooled, backend, &call, read_verification, out, code, err);
    return code;
}

static enum gq_code insert_or_revoke(struct sqlite_conn *conn,
                                     const struct stored_verification *verification, bool create,
                                     bool *done, struct gq_error *err)
{
    const struct sqlite_db_param inserted[] = {
        SQLITE_DB_TEXT_OF(verification->id),          SQLITE_DB_TEXT_OF(verification->customer_id),
        SQLITE_DB_TEXT_OF(verification->segment),     SQLITE_DB_TEXT_OF(verification->evidence),
        SQLITE_DB_INT64_OF(verification->created_at), SQLITE_DB_INT64_OF(verification->expires_at)};
    const struct sqlite_db_param revoked[] = {SQLITE_DB_TEXT_OF(verification->id),
                                              SQLITE_DB_TEXT_OF(verification->customer_id),
                                              SQLITE_DB_INT64_OF(verification->revoked_at)};
    const struct sqlite_db_call call =
        create ? (struct sqlite_db_call){sqlite_sql(STORE_SQL_VERIFICATION_INSERT), inserted, 6,
                                         "storing a verification"}
               : (struct sqlite_db_call){sqlite_sql(STORE_SQL_VERIFICATION_REVOKE), revoked, 3,
                                         "storing a verification"};
    return sqlite_db_change(conn, &call, done, err);
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
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(verification->id),
                                             SQLITE_DB_INT64_OF(now)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_VERIFICATION_EXPIRE), params, 2,
                                        "expiring a verification"};
    enum gq_code code = sqlite_db_change(conn, &call, marked, err);
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
    const struct sqlite_db_param params[] = {SQLITE_DB_INT64_OF(now), SQLITE_DB_INT64_OF(limit)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_VERIFICATIONS_DUE), params, 2,
                                        "reading verifications"};
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_rows, conn, &call, read_verification, due, code, err);
    return code;
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
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(customer_id)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_VERIFICATIONS_ERASE), params, 1,
                                        "erasing a customer's evidence"};
    return sqlite_db_change(conn, &call, NULL, err);
}
