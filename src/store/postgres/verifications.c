/*
 * The PostgreSQL backend's verifications: a write (a new one, or a
 * revoke) with its event and audit line in one transaction, the
 * verifications of a customer, the sweeper's expiry (one statement marks a
 * batch, skipping the rows another replica holds, so that each is marked
 * and its event written once), and the erasure of a customer's evidence.
 * Not hot paths: statements go with PQexecParams, text in and out; their
 * texts are queries.c's, shared with SQLite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"
#include "store/queries.h"

/* `sql` with the text `values`; the result when it is `expected`, else
 * NULL with err filled. */
static PGresult *exec_sql(struct pg_conn *conn, enum store_sql sql, int n,
                          const char *const *values, ExecStatusType expected, const char *what,
                          struct gq_error *err)
{
    PGresult *result = PQexecParams(conn->conn, pg_sql(conn, sql), n, NULL, values, NULL, NULL, 0);
    if (PQresultStatus(result) != expected) {
        pg_fail(conn, result, what, err);
        PQclear(result);
        result = NULL;
    }
    return result;
}

static enum gq_code failure(const struct gq_error *err)
{
    return err != NULL ? err->code : GQ_ERR_INTERNAL;
}

static int64_t integer_or_zero(const PGresult *result, int row, int column)
{
    return PQgetisnull(result, row, column) ? 0
                                            : strtoll(PQgetvalue(result, row, column), NULL, 10);
}

/* Row `row` of `result` into *out; false when memory runs out. */
static bool copy_row(const PGresult *result, int row, struct stored_verification *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", PQgetvalue(result, row, VERIFICATION_COL_ID));
    snprintf(out->customer_id, sizeof out->customer_id, "%s",
             PQgetvalue(result, row, VERIFICATION_COL_CUSTOMER_ID));
    snprintf(out->segment, sizeof out->segment, "%s",
             PQgetvalue(result, row, VERIFICATION_COL_SEGMENT));
    out->created_at = integer_or_zero(result, row, VERIFICATION_COL_CREATED_AT);
    out->expires_at = integer_or_zero(result, row, VERIFICATION_COL_EXPIRES_AT);
    out->revoked_at = integer_or_zero(result, row, VERIFICATION_COL_REVOKED_AT);
    out->expired_at = integer_or_zero(result, row, VERIFICATION_COL_EXPIRED_AT);
    if (PQgetisnull(result, row, VERIFICATION_COL_EVIDENCE))
        return true;
    out->evidence = strdup(PQgetvalue(result, row, VERIFICATION_COL_EVIDENCE));
    return out->evidence != NULL;
}

/* Every row of `result` into `list` (emptied first: a retried read starts
 * again). */
static enum gq_code copy_rows(const PGresult *result, struct verification_list *list,
                              struct gq_error *err)
{
    store_verification_list_free(list);
    int rows = PQntuples(result);
    list->items = rows > 0 ? calloc((size_t)rows, sizeof *list->items) : NULL;
    bool copied = rows == 0 || list->items != NULL;
    for (int row = 0; copied && row < rows; row++)
        copied = copy_row(result, row, &list->items[list->count++]);
    return copied ? GQ_OK
                  : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading verifications");
}

/* A read's parameters, as text: customer, id (NULL: any) and live_at. */
struct read_context {
    const char *values[3];
    struct verification_list *out;
};

static enum gq_code read_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct read_context *read = context;
    PGresult *result = exec_sql(conn, STORE_SQL_VERIFICATIONS, 3, read->values, PGRES_TUPLES_OK,
                                "reading verifications", err);
    if (result == NULL)
        return failure(err);
    enum gq_code code = copy_rows(result, read->out, err);
    PQclear(result);
    return code;
}

enum gq_code pg_verifications_read(struct store_backend *backend, const char *customer_id,
                                   const char *id, int64_t live_at, struct verification_list *out,
                                   struct gq_error *err)
{
    char live[24];
    snprintf(live, sizeof live, "%lld", (long long)live_at);
    struct read_context read = {{customer_id, id, live}, out};
    return pg_run(pg_store_of(backend), read_on, &read, err);
}

struct write_context {
    const struct verification_write *write;
    bool *done;
};

/* The insert or the revoke; *done when it changed a row. */
static enum gq_code insert_or_revoke(struct pg_conn *conn, const struct verification_write *write,
                                     bool *done, struct gq_error *err)
{
    const struct stored_verification *verification = write->verification;
    char created[24], expires[24], revoked[24];
    snprintf(created, sizeof created, "%lld", (long long)verification->created_at);
    snprintf(expires, sizeof expires, "%lld", (long long)verification->expires_at);
    snprintf(revoked, sizeof revoked, "%lld", (long long)verification->revoked_at);
    const char *const inserted[] = {verification->id,
                                    verification->customer_id,
                                    verification->segment,
                                    verification->evidence,
                                    created,
                                    expires};
    const char *const revoke[] = {verification->id, verification->customer_id, revoked};
    PGresult *result = write->create ? exec_sql(conn, STORE_SQL_VERIFICATION_INSERT, 6, inserted,
                                                PGRES_COMMAND_OK, "storing a verification", err)
                                     : exec_sql(conn, STORE_SQL_VERIFICATION_REVOKE, 3, revoke,
                                                PGRES_COMMAND_OK, "revoking a verification", err);
    if (result == NULL)
        return failure(err);
    *done = strcmp(PQcmdTuples(result), "1") == 0;
    PQclear(result);
    return GQ_OK;
}

static enum gq_code write_verification(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct write_context *run = context;
    *run->done = false;
    enum gq_code code = insert_or_revoke(conn, run->write, run->done, err);
    if (code != GQ_OK || !*run->done)
        return code;
    code = pg_audit_append(conn, run->write->audit, err);
    if (code == GQ_OK)
        code = pg_event_append(conn, run->write->event, err);
    return code;
}

static enum gq_code write_in_transaction(struct pg_conn *conn, void *context, struct gq_error *err)
{
    return pg_in_transaction(conn, write_verification, context, err);
}

enum gq_code pg_verification_write(struct store_backend *backend,
                                   const struct verification_write *write, bool *done,
                                   struct gq_error *err)
{
    struct write_context run = {write, done};
    *done = false;
    return pg_run(pg_store_of(backend), write_in_transaction, &run, err);
}

/* The sweeper's batch: its time and its size, as text, and how many it
 * marked. */
struct expire_context {
    int64_t now;
    const char *values[2];
    int *count;
};

/* Each marked verification's event appended. */
static enum gq_code append_expired(struct pg_conn *conn, const struct verification_list *marked,
                                   int64_t now, struct gq_error *err)
{
    enum gq_code code = GQ_OK;
    for (size_t i = 0; code == GQ_OK && i < marked->count; i++) {
        struct store_event event;
        code = store_verification_event(STORE_EVENT_VERIFICATION_EXPIRED, &marked->items[i], now,
                                        &event, err);
        if (code == GQ_OK)
            code = pg_event_append(conn, &event, err);
        store_event_clear(&event);
    }
    return code;
}

static enum gq_code expire_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct expire_context *expire = context;
    PGresult *result = exec_sql(conn, STORE_SQL_VERIFICATION_EXPIRE, 2, expire->values,
                                PGRES_TUPLES_OK, "expiring verifications", err);
    if (result == NULL)
        return failure(err);
    struct verification_list marked = {0};
    enum gq_code code = copy_rows(result, &marked, err);
    PQclear(result);
    if (code == GQ_OK)
        code = append_expired(conn, &marked, expire->now, err);
    if (code == GQ_OK)
        *expire->count = (int)marked.count;
    store_verification_list_free(&marked);
    return code;
}

static enum gq_code expire_in_transaction(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct expire_context *expire = context;
    *expire->count = 0;
    return pg_in_transaction(conn, expire_on, context, err);
}

enum gq_code pg_expire_verifications(struct store_backend *backend, int64_t now, int limit,
                                     int *count, struct gq_error *err)
{
    char at[24], batch[16];
    snprintf(at, sizeof at, "%lld", (long long)now);
    snprintf(batch, sizeof batch, "%d", limit);
    struct expire_context expire = {now, {at, batch}, count};
    return pg_run(pg_store_of(backend), expire_in_transaction, &expire, err);
}

enum gq_code pg_verifications_erase(struct pg_conn *conn, const char *customer_id,
                                    struct gq_error *err)
{
    const char *const values[] = {customer_id};
    PGresult *result = exec_sql(conn, STORE_SQL_VERIFICATIONS_ERASE, 1, values, PGRES_COMMAND_OK,
                                "erasing a customer's evidence", err);
    PQclear(result);
    return result != NULL ? GQ_OK : failure(err);
}
