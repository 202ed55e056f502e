/*
 * The PostgreSQL backend's quotes: a batch of saves in one transaction,
 * a quote read by id, and one accepted.
 *
 * A batch is sent as one pipeline (BEGIN, one INSERT of every quote of the
 * batch, its columns as binary arrays, COMMIT, one sync): a single round
 * trip, a single statement and a single commit, whatever the batch's size,
 * where a statement a quote cost the server its per-statement work for each
 * (bench/POSTGRES.md). An idempotency key already stored, by any replica,
 * makes its row insert nothing (ON CONFLICT on the key's unique index: a
 * second replica sending the same key at the same moment waits for the
 * first's transaction and then inserts nothing); such a quote is read back
 * after the commit and replayed.
 *
 * PostgreSQL aborts the whole statement when one row fails, where each
 * quote must fail alone: so when the pipeline fails, the batch runs again
 * with a statement and a savepoint for each quote. It runs again,
 * too, after a serialization failure or a deadlock (bounded), and once after
 * a connection the server dropped, on a fresh one: that second run may meet
 * quotes the first committed before the connection broke, which it takes
 * for stored rather than failing (a quote id is 128 random bits: only this
 * batch could have written it).
 *
 * Reads and accepts use prepared statements with binary results.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"

/* ---- Rows. ---- */

/* A copy of a text column of a binary result; NULL stays NULL. False when
 * memory runs out. */
static bool copy_value(const PGresult *result, int row, int column, char **out)
{
    *out = NULL;
    if (PQgetisnull(result, row, column))
        return true;
    size_t length = (size_t)PQgetlength(result, row, column);
    *out = malloc(length + 1);
    if (*out == NULL)
        return false;
    memcpy(*out, PQgetvalue(result, row, column), length);
    (*out)[length] = '\0';
    return true;
}

static enum gq_code read_quote(const PGresult *result, int row, struct stored_quote *out,
                               struct gq_error *err)
{
    struct stored_quote quote;
    memset(&quote, 0, sizeof quote);
    snprintf(quote.id, sizeof quote.id, "%s", PQgetvalue(result, row, QUOTE_COL_ID));
    quote.accepted = strcmp(PQgetvalue(result, row, QUOTE_COL_STATUS), "accepted") == 0;
    if (!copy_value(result, row, QUOTE_COL_REQUEST_JSON, &quote.request_json) ||
        !copy_value(result, row, QUOTE_COL_IDEMPOTENCY_KEY, &quote.idempotency_key) ||
        !copy_value(result, row, QUOTE_COL_CANCEL_REASON, &quote.cancel_reason) ||
        !copy_value(result, row, QUOTE_COL_ACCEPTANCE, &quote.acceptance)) {
        stored_quote_clear(&quote);
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading a quote");
    }
    struct stored_response stored = {0};
    if (PQgetisnull(result, row, QUOTE_COL_RESPONSE_LZ4)) {
        stored.text = PQgetisnull(result, row, QUOTE_COL_RESPONSE_JSON)
                          ? NULL
                          : PQgetvalue(result, row, QUOTE_COL_RESPONSE_JSON);
    } else {
        stored.block = PQgetvalue(result, row, QUOTE_COL_RESPONSE_LZ4);
        stored.block_size = (size_t)PQgetlength(result, row, QUOTE_COL_RESPONSE_LZ4);
        stored.size = pg_binary_int32(result, row, QUOTE_COL_RESPONSE_SIZE);
    }
    enum gq_code code = store_unpack_stored("quote", quote.id, &stored, &quote.response_json, err);
    if (code != GQ_OK) {
        stored_quote_clear(&quote);
        return code;
    }
    quote.price_list_version = pg_binary_int64(result, row, QUOTE_COL_PRICE_LIST_VERSION);
    quote.created_at = pg_binary_int64(result, row, QUOTE_COL_CREATED_AT);
    quote.expires_at = pg_binary_int64(result, row, QUOTE_COL_EXPIRES_AT);
    quote.accepted_at = pg_binary_int64(result, row, QUOTE_COL_ACCEPTED_AT);
    quote.canceled_at = pg_binary_int64(result, row, QUOTE_COL_CANCELED_AT);
    quote.expired_at = pg_binary_int64(result, row, QUOTE_COL_EXPIRED_AT);
    snprintf(quote.customer_id, sizeof quote.customer_id, "%s",
             PQgetvalue(result, row, QUOTE_COL_CUSTOMER_ID));
    *out = quote;
    return GQ_OK;
}

/* Runs a quote query of one parameter, or two (the key's owner, ignored by
 * a one-parameter statement); *found tells whether a row came back, and
 * *out is written only then. */
static enum gq_code select_owned(struct pg_conn *conn, enum pg_statement statement, const char *key,
                                 const char *owner, struct stored_quote *out, bool *found,
                                 struct gq_error *err)
{
    *found = false;
    const char *const values[] = {key, owner};
    PGresult *result = pg_execute(conn, statement, values, NULL, NULL, 1, err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    enum gq_code code = GQ_OK;
    if (PQntuples(result) == 1) {
        code = read_quote(result, 0, out, err);
        *found = code == GQ_OK;
    }
    PQclear(result);
    return code;
}

static enum gq_code select_quote(struct pg_conn *conn, enum pg_statement statement, const char *key,
                                 struct stored_quote *out, bool *found, struct gq_error *err)
{
    return select_owned(conn, statement, key, NULL, out, found, err);
}

/* ---- A batch. ---- */

/* PG_QUOTE_INSERT_BATCH's parameters: the quote's ten columns, then its
 * event's five, then the quote's owner, customer and creator. */
#define INSERT_PARAMS 18

/* How a run of the batch ended. */
enum batch_outcome {
    BATCH_COMMITTED,        /* every save has its outcome */
    BATCH_STATEMENT_FAILED, /* one quote's INSERT failed: nothing written */
    BATCH_RETRYABLE,        /* a serialization failure or deadlock: nothing written */
    BATCH_LOST              /* the connection broke: written or not, unknown */
};

static enum batch_outcome outcome_of_failure(const struct pg_conn *conn)
{
    switch (conn->last_failure) {
    case PG_FAILED_LOST:
        return BATCH_LOST;
    case PG_FAILED_RETRYABLE:
        return BATCH_RETRYABLE;
    case PG_FAILED:
    default:
        return BATCH_STATEMENT_FAILED;
    }
}

/* True when a COMMIT's result says the transaction committed (a COMMIT of
 * an aborted transaction answers "ROLLBACK"). */
static bool committed(PGresult *result)
{
    return PQresultStatus(result) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(result), "COMMIT") == 0;
}

/* The batch as PG_QUOTE_INSERT_BATCH's parameters: one array a column. */
struct batch_arrays {
    struct pg_array columns[INSERT_PARAMS];
};

static const uint32_t column_types[INSERT_PARAMS] = {
    PG_OID_TEXT, PG_OID_TEXT,  PG_OID_TEXT, PG_OID_BYTEA, PG_OID_INT8, PG_OID_TEXT,
    PG_OID_INT8, PG_OID_INT8,  PG_OID_INT8, PG_OID_INT8,  PG_OID_TEXT, PG_OID_INT8,
    PG_OID_INT8, PG_OID_BYTEA, PG_OID_INT8, PG_OID_TEXT,  PG_OID_TEXT, PG_OID_TEXT};

static void free_arrays(struct batch_arrays *arrays)
{
    for (int i = 0; i < INSERT_PARAMS; i++)
        pg_array_free(&arrays->columns[i]);
}

/* The arrays of up to `count` saves from `first` on (SIZE_MAX: to the end
 * of the batch). False when memory ran out (everything is freed then). */
static bool fill_arrays(struct batch_arrays *arrays, const struct quote_save *first, size_t count)
{
    struct pg_array *c = arrays->columns;
    for (int i = 0; i < INSERT_PARAMS; i++)
        pg_array_begin(&c[i], column_types[i]);
    size_t n = 0;
    for (const struct quote_save *save = first; save != NULL && n < count; save = save->next, n++) {
        const struct stored_quote *quote = &save->quote;
        const struct store_event *event = save->event;
        assert(event != NULL);
        pg_array_add_text(&c[0], quote->id);
        pg_array_add_text(&c[1], quote->accepted ? "accepted" : "open");
        pg_array_add_text(&c[2], quote->request_json);
        pg_array_add(&c[3], save->packed.block, save->packed.block_size);
        pg_array_add_int64(&c[4], (int64_t)save->packed.size);
        pg_array_add_text(&c[5], quote->idempotency_key); /* NULL: SQL NULL */
        pg_array_add_int64(&c[6], quote->price_list_version);
        pg_array_add_int64(&c[7], quote->created_at);
        pg_array_add_int64(&c[8], quote->expires_at);
        if (quote->accepted)
            pg_array_add_int64(&c[9], quote->accepted_at);
        else
            pg_array_add(&c[9], NULL, 0);
        pg_array_add_text(&c[10], event->id);
        pg_array_add_int64(&c[11], event->created_at);
        pg_array_add_int64(&c[12], event->created_ms);
        pg_array_add(&c[13], event->packed.block, event->packed.block_size);
        pg_array_add_int64(&c[14], (int64_t)event->packed.size);
        pg_array_add_text(&c[15], save->owner);
        pg_array_add_text(&c[16], save->customer_id);
        pg_array_add_text(&c[17], save->created_by[0] ? save->created_by : NULL);
    }
    bool complete = true;
    for (int i = 0; i < INSERT_PARAMS; i++)
        complete = pg_array_end(&c[i]) && complete;
    if (!complete)
        free_arrays(arrays);
    return complete;
}

/* The arrays as libpq's parameter vectors, every one binary. */
struct insert_parameters {
    const char *values[INSERT_PARAMS];
    int lengths[INSERT_PARAMS];
    int formats[INSERT_PARAMS];
};

static void parameters_of(const struct batch_arrays *arrays, struct insert_parameters *p)
{
    for (int i = 0; i < INSERT_PARAMS; i++) {
        p->values[i] = arrays->columns[i].data;
        p->lengths[i] = (int)arrays->columns[i].size;
        p->formats[i] = 1;
    }
}

/* Queues the pipeline: BEGIN, the batch's one INSERT, COMMIT, a sync. */
static bool send_pipeline(struct pg_conn *conn, const struct batch_arrays *arrays)
{
    PGconn *c = conn->conn;
    struct insert_parameters p;
    parameters_of(arrays, &p);
    return PQenterPipelineMode(c) && PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0) &&
           PQsendQueryPrepared(c, pg_statements[PG_QUOTE_INSERT_BATCH].name, INSERT_PARAMS,
                               p.values, p.lengths, p.formats, 0) &&
           PQsendQueryParams(c, "COMMIT", 0, NULL, NULL, NULL, NULL, 0) && PQpipelineSync(c);
}

/* The result of the next command of the pipeline (the caller clears it),
 * having read the NULL that ends it; NULL when the connection broke. */
static PGresult *next_result(PGconn *c)
{
    PGresult *result = PQgetResult(c);
    if (result == NULL)
        return NULL;
    PGresult *end = PQgetResult(c);
    if (end != NULL) { /* more than one result to a command: not ours */
        PQclear(end);
        PQclear(result);
        return NULL;
    }
    return result;
}

/* Marks `replayed` each of up to `count` saves from `first` on whose quote
 * the INSERT did not return: it met its key stored already, and is read
 * back after the commit. The others learn whether their event has a
 * delivery to send. */
static void mark_replays(struct quote_save *first, size_t count, const PGresult *inserted)
{
    int rows = PQntuples(inserted), next = 0;
    size_t n = 0;
    for (struct quote_save *save = first; save != NULL && n < count; save = save->next, n++) {
        save->replayed = true;
        /* The ids come back in the batch's order, as a rule: searched from
         * where the last was found, then from the start. */
        for (int tried = 0; tried < rows; tried++, next = (next + 1) % rows) {
            if (strcmp(PQgetvalue(inserted, next, QUOTE_INSERTED_COL_ID), save->quote.id) == 0) {
                save->replayed = false;
                save->deliveries_due =
                    PQgetvalue(inserted, next, QUOTE_INSERTED_COL_DELIVERIES_DUE)[0] == 't';
                next = (next + 1) % rows;
                break;
            }
        }
    }
}

/* Reads the pipeline's results in order: BEGIN, the INSERT, COMMIT, the
 * sync. */
static enum batch_outcome read_pipeline(struct pg_conn *conn, struct quote_save *batch,
                                        struct gq_error *err)
{
    PGconn *c = conn->conn;
    bool failed = false;
    enum batch_outcome outcome = BATCH_COMMITTED;
    PGresult *result = next_result(c);
    if (result == NULL || PQresultStatus(result) != PGRES_COMMAND_OK) {
        pg_fail(conn, result, "beginning a batch of quotes", err);
        outcome = outcome_of_failure(conn);
        failed = true;
    }
    PQclear(result);
    if (outcome == BATCH_LOST)
        return BATCH_LOST;
    result = next_result(c);
    ExecStatusType status = PQresultStatus(result);
    if (result != NULL && status == PGRES_TUPLES_OK) {
        mark_replays(batch, SIZE_MAX, result);
    } else if (result == NULL || status != PGRES_PIPELINE_ABORTED) {
        if (!failed) { /* the first failure is the cause; the rest were skipped */
            pg_fail(conn, result, "storing quotes", err);
            outcome = outcome_of_failure(conn);
        }
        failed = true;
        if (result == NULL)
            outcome = BATCH_LOST;
    }
    PQclear(result);
    if (outcome == BATCH_LOST)
        return BATCH_LOST;
    result = next_result(c);
    if (result == NULL) {
        pg_fail(conn, NULL, "committing quotes", err);
        return BATCH_LOST;
    }
    if (!failed && !committed(result)) {
        pg_fail(conn, result, "committing quotes", err);
        outcome = outcome_of_failure(conn);
        failed = true;
    }
    PQclear(result);
    result = PQgetResult(c); /* the sync */
    bool synced = result != NULL && PQresultStatus(result) == PGRES_PIPELINE_SYNC;
    PQclear(result);
    if (!synced) {
        pg_fail(conn, NULL, "ending a batch of quotes", err);
        return BATCH_LOST;
    }
    return outcome;
}

/* The fast way: the whole batch in one round trip. */
static enum batch_outcome run_pipelined(struct pg_conn *conn, struct quote_save *batch,
                                        struct gq_error *err)
{
    if (pg_prepare(conn, PG_QUOTE_INSERT_BATCH, err) != GQ_OK)
        return outcome_of_failure(conn);
    struct batch_arrays arrays = {0}; /* filled whole below; zeroed for cppcheck */
    if (!fill_arrays(&arrays, batch, SIZE_MAX)) {
        gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory storing quotes");
        return BATCH_STATEMENT_FAILED; /* nothing sent: the careful way may need less */
    }
    enum batch_outcome outcome;
    if (!send_pipeline(conn, &arrays)) {
        pg_fail(conn, NULL, "sending a batch of quotes", err);
        outcome = BATCH_LOST;
    } else {
        outcome = read_pipeline(conn, batch, err);
    }
    free_arrays(&arrays);
    if (conn->conn != NULL && !PQexitPipelineMode(conn->conn))
        pg_disconnect(conn); /* results left unread: the connection is of no use */
    return outcome;
}

/* One quote inside the savepoint run. A failure that ends the transaction
 * (a lost connection, a serialization failure) is returned; any other
 * failure is the quote's own. */
static enum batch_outcome insert_with_savepoint(struct pg_conn *conn, struct quote_save *save,
                                                bool after_lost, struct gq_error *err)
{
    struct batch_arrays arrays = {0}; /* filled whole below; zeroed for cppcheck */
    if (!fill_arrays(&arrays, save, 1)) {
        save->code = gq_fail(&save->err, GQ_ERR_NO_MEMORY, NULL, "out of memory storing a quote");
        return BATCH_COMMITTED; /* this quote's failure alone */
    }
    if (pg_command(conn, "SAVEPOINT quote", PGRES_COMMAND_OK, "storing a quote", err) != GQ_OK) {
        free_arrays(&arrays);
        return outcome_of_failure(conn);
    }
    struct insert_parameters p;
    parameters_of(&arrays, &p);
    PGresult *result = PQexecPrepared(conn->conn, pg_statements[PG_QUOTE_INSERT_BATCH].name,
                                      INSERT_PARAMS, p.values, p.lengths, p.formats, 0);
    free_arrays(&arrays);
    if (PQresultStatus(result) == PGRES_TUPLES_OK) {
        mark_replays(save, 1, result);
        PQclear(result);
        return pg_command(conn, "RELEASE SAVEPOINT quote", PGRES_COMMAND_OK, "storing a quote",
                          err) == GQ_OK
                   ? BATCH_COMMITTED
                   : outcome_of_failure(conn);
    }
    const char *constraint = PQresultErrorField(result, PG_DIAG_CONSTRAINT_NAME);
    bool stored_before = after_lost && strcmp(pg_state(result), "23505") == 0 &&
                         constraint != NULL && strcmp(constraint, "quotes_pkey") == 0;
    save->code = pg_fail(conn, result, "storing a quote", &save->err);
    PQclear(result);
    if (conn->last_failure != PG_FAILED) {
        *err = save->err;
        return outcome_of_failure(conn);
    }
    if (stored_before)
        save->code = GQ_OK;
    return pg_command(conn, "ROLLBACK TO SAVEPOINT quote", PGRES_COMMAND_OK, "storing a quote",
                      err) == GQ_OK
               ? BATCH_COMMITTED
               : outcome_of_failure(conn);
}

/* The careful way, after a failure: a savepoint around each quote, so that
 * one the database refuses fails alone. */
static enum batch_outcome run_with_savepoints(struct pg_conn *conn, struct quote_save *batch,
                                              bool after_lost, struct gq_error *err)
{
    if (pg_prepare(conn, PG_QUOTE_INSERT_BATCH, err) != GQ_OK ||
        pg_command(conn, "BEGIN", PGRES_COMMAND_OK, "beginning a batch of quotes", err) != GQ_OK)
        return outcome_of_failure(conn);
    for (struct quote_save *save = batch; save != NULL; save = save->next) {
        enum batch_outcome outcome = insert_with_savepoint(conn, save, after_lost, err);
        if (outcome != BATCH_COMMITTED)
            return outcome;
    }
    PGresult *result = PQexec(conn->conn, "COMMIT");
    enum batch_outcome outcome = BATCH_COMMITTED;
    if (!committed(result)) {
        pg_fail(conn, result, "committing quotes", err);
        outcome = outcome_of_failure(conn);
    }
    PQclear(result);
    return outcome;
}

/* After the commit: each quote whose key was stored already is read back,
 * to be replayed. */
static void read_replays(struct pg_conn *conn, struct quote_save *batch)
{
    for (struct quote_save *save = batch; save != NULL; save = save->next) {
        if (save->code != GQ_OK || !save->replayed)
            continue;
        bool found = false;
        save->code = select_owned(conn, PG_QUOTE_BY_KEY, save->quote.idempotency_key, save->owner,
                                  &save->existing, &found, &save->err);
        if (save->code == GQ_OK && !found)
            save->code = gq_fail(&save->err, GQ_ERR_INTERNAL, NULL,
                                 "the quote stored under idempotency key '%.40s' is gone",
                                 save->quote.idempotency_key);
        save->replayed = save->code == GQ_OK;
    }
}

/* Every save back to "not tried", before a run. */
static void reset(struct quote_save *batch)
{
    for (struct quote_save *save = batch; save != NULL; save = save->next) {
        save->code = GQ_OK;
        save->replayed = false;
        save->deliveries_due = false;
    }
}

static void fail_all(struct quote_save *batch, const struct gq_error *err)
{
    for (struct quote_save *save = batch; save != NULL; save = save->next) {
        save->replayed = false;
        save->code = err->code;
        save->err = *err;
    }
}

enum gq_code pg_save_quotes(struct store_backend *backend, struct quote_save *batch)
{
    struct pg_store *store = pg_store_of(backend);
    struct gq_error err;
    gq_fail_msg(&err, GQ_ERR_RETRY_LATER, NULL, MSG_DATABASE_BUSY);
    bool careful = false, after_lost = false;
    for (int attempt = 1; attempt <= PG_WRITE_ATTEMPTS; attempt++) {
        struct pg_conn *conn = pg_checkout(store, &err);
        if (conn == NULL)
            break; /* unreachable: nothing (more) can be tried */
        reset(batch);
        conn->last_failure = PG_FAILED;
        enum batch_outcome outcome = careful ? run_with_savepoints(conn, batch, after_lost, &err)
                                             : run_pipelined(conn, batch, &err);
        if (outcome == BATCH_COMMITTED)
            read_replays(conn, batch);
        pg_checkin(store, conn);
        if (outcome == BATCH_COMMITTED)
            return GQ_OK;
        if (outcome == BATCH_LOST && after_lost)
            break; /* lost twice: the database is going away */
        after_lost = after_lost || outcome == BATCH_LOST;
        careful = careful || outcome != BATCH_RETRYABLE;
    }
    fail_all(batch, &err);
    return err.code == GQ_ERR_RETRY_LATER ? GQ_ERR_RETRY_LATER : GQ_OK;
}

/* ---- Get. ---- */

struct get_context {
    const char *id;
    struct stored_quote *out;
    bool *found;
};

static enum gq_code get_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct get_context *get = context;
    return select_quote(conn, PG_QUOTE_BY_ID, get->id, get->out, get->found, err);
}

enum gq_code pg_get_quote(struct store_backend *backend, const char *id, struct stored_quote *out,
                          bool *found, struct gq_error *err)
{
    struct get_context get = {id, out, found};
    return pg_run(pg_store_of(backend), get_on, &get, err);
}

/* ---- A page of quotes. ---- */

struct list_context {
    const struct quote_filter *filter;
    int64_t after_created;
    const char *after_id;
    struct quote_page *out;
};

static const char *bound_text(int64_t value, char buffer[24])
{
    if (value == 0)
        return NULL;
    snprintf(buffer, 24, "%lld", (long long)value);
    return buffer;
}

static enum gq_code list_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct list_context *list = context;
    const struct quote_filter *filter = list->filter;
    char gte[24], lt[24], now[24], after[24], limit[24];
    snprintf(now, sizeof now, "%lld", (long long)filter->now);
    snprintf(after, sizeof after, "%lld", (long long)list->after_created);
    snprintf(limit, sizeof limit, "%zu", filter->limit + 1);
    const char *const values[] = {filter->client_reference_id,
                                  bound_text(filter->created_gte, gte),
                                  bound_text(filter->created_lt, lt),
                                  filter->status,
                                  now,
                                  after,
                                  list->after_id,
                                  limit,
                                  filter->owner,
                                  filter->customer_id,
                                  filter->created_by};
    store_quote_page_free(list->out); /* a retry starts again */
    PGresult *result = pg_execute(conn, PG_QUOTES_LIST, values, NULL, NULL, 1, err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    enum gq_code code = GQ_OK;
    int rows = PQntuples(result);
    list->out->items = calloc((size_t)rows + 1, sizeof *list->out->items);
    if (list->out->items == NULL)
        code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory listing quotes");
    for (int row = 0; code == GQ_OK && row < rows; row++)
        if ((code = read_quote(result, row, &list->out->items[row], err)) == GQ_OK)
            list->out->count++;
    PQclear(result);
    return code;
}

enum gq_code pg_list_quotes(struct store_backend *backend, const struct quote_filter *filter,
                            int64_t after_created, const char *after_id, struct quote_page *out,
                            struct gq_error *err)
{
    struct list_context list = {filter, after_created, after_id, out};
    return pg_run(pg_store_of(backend), list_on, &list, err);
}

/* ---- The newest requests. ---- */

struct recent_context {
    int limit;
    json_t *requests;
};

static enum gq_code recent_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct recent_context *recent = context;
    char limit[16];
    snprintf(limit, sizeof limit, "%d", recent->limit);
    const char *values[] = {limit};
    PGresult *result = PQexecParams(conn->conn, pg_sql(conn, STORE_SQL_RECENT_REQUESTS), 1, NULL,
                                    values, NULL, NULL, 0);
    enum gq_code code = GQ_OK;
    if (PQresultStatus(result) != PGRES_TUPLES_OK)
        code = pg_fail(conn, result, "reading the newest quotes", err);
    json_decref(recent->requests); /* a retry starts again */
    recent->requests = code == GQ_OK ? json_array() : NULL;
    for (int row = 0; code == GQ_OK && row < PQntuples(result); row++)
        if (json_array_append_new(recent->requests, json_string(PQgetvalue(result, row, 0))) != 0)
            code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading quotes");
    PQclear(result);
    return code;
}

enum gq_code pg_recent_requests(struct store_backend *backend, int limit, json_t **out,
                                struct gq_error *err)
{
    struct recent_context recent = {limit, NULL};
    enum gq_code code = pg_run(pg_store_of(backend), recent_on, &recent, err);
    if (code != GQ_OK)
        json_decref(recent.requests);
    else
        *out = recent.requests;
    return code;
}

/* ---- Accept and cancel. ---- */

struct end_context {
    const struct quote_end *end;
    struct stored_quote *out;
    enum accept_outcome *outcome;
};

/* The event of a quote that just changed, in the transaction. */
static enum gq_code append_quote_event(struct pg_conn *conn, const char *type,
                                       const struct stored_quote *quote, int64_t now,
                                       struct gq_error *err)
{
    struct store_event event;
    enum gq_code code = store_event_of_quote(type, quote, now, &event, err);
    if (code == GQ_OK)
        code = pg_event_append(conn, &event, err);
    store_event_clear(&event);
    return code;
}

/* The accept's promotion code redeemed once more, with its event; when it
 * has reached its limit, the outcome says so and the caller rolls back. */
static enum gq_code redeem(struct pg_conn *conn, const struct quote_end *end,
                           enum accept_outcome *outcome, struct gq_error *err)
{
    bool redeemed = false;
    enum gq_code code =
        pg_promotion_code_redeem(conn, end->promotion_code, end->now, &redeemed, err);
    if (code == GQ_OK && !redeemed)
        *outcome = ACCEPT_PROMOTION_EXHAUSTED;
    else if (code == GQ_OK)
        code = pg_event_append(conn, end->promotion_event, err);
    return code;
}

/* The conditional update; when it changed nothing, the quote as it is
 * tells why. In a transaction of its own, committed only once the row read
 * back is whole: a damaged quote is an error, and is not changed. */
static enum gq_code end_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct end_context *ending = context;
    const struct quote_end *end = ending->end;
    bool accept = end->ending == QUOTE_END_ACCEPT;
    char now[24];
    snprintf(now, sizeof now, "%lld", (long long)end->now);
    const char *const values[] = {end->id, now, end->detail};
    if (pg_command(conn, "BEGIN", PGRES_COMMAND_OK, "ending a quote", err) != GQ_OK)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    PGresult *result =
        pg_execute(conn, accept ? PG_QUOTE_ACCEPT : PG_QUOTE_CANCEL, values, NULL, NULL, 1, err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL; /* pg_checkin rolls back */
    enum gq_code code = GQ_OK;
    if (PQntuples(result) == 1) {
        code = read_quote(result, 0, ending->out, err);
        *ending->outcome = ACCEPT_DONE;
        if (code == GQ_OK)
            code = append_quote_event(
                conn, accept ? STORE_EVENT_QUOTE_ACCEPTED : STORE_EVENT_QUOTE_CANCELED, ending->out,
                end->now, err);
        if (code == GQ_OK && end->promotion_code != NULL)
            code = redeem(conn, end, ending->outcome, err);
    } else {
        bool found = false;
        code = select_quote(conn, PG_QUOTE_BY_ID, end->id, ending->out, &found, err);
        *ending->outcome = !found ? ACCEPT_NOT_FOUND
                           : ending->out->accepted || ending->out->canceled_at > 0 ? ACCEPT_NOT_OPEN
                                                                                   : ACCEPT_EXPIRED;
    }
    PQclear(result);
    if (code == GQ_OK)
        code =
            pg_command(conn, *ending->outcome == ACCEPT_PROMOTION_EXHAUSTED ? "ROLLBACK" : "COMMIT",
                       PGRES_COMMAND_OK, "ending a quote", err);
    if (code != GQ_OK && *ending->outcome != ACCEPT_NOT_FOUND)
        stored_quote_clear(ending->out);
    return code;
}

enum gq_code pg_end_quote(struct store_backend *backend, const struct quote_end *end,
                          struct stored_quote *out, enum accept_outcome *outcome,
                          struct gq_error *err)
{
    assert(end != NULL && out != NULL && outcome != NULL);
    struct end_context ending = {end, out, outcome};
    return pg_run(pg_store_of(backend), end_on, &ending, err);
}

/* ---- The sweeper's work. ---- */

struct expire_context {
    int64_t now;
    int limit;
    int *count;
};

static enum gq_code expire_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct expire_context *expire = context;
    char now[24], limit[16];
    snprintf(now, sizeof now, "%lld", (long long)expire->now);
    snprintf(limit, sizeof limit, "%d", expire->limit);
    const char *const values[] = {now, limit};
    *expire->count = 0;
    if (pg_command(conn, "BEGIN", PGRES_COMMAND_OK, "expiring quotes", err) != GQ_OK)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    PGresult *result = pg_execute(conn, PG_QUOTES_EXPIRE, values, NULL, NULL, 1, err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL; /* pg_checkin rolls back */
    enum gq_code code = GQ_OK;
    for (int row = 0; code == GQ_OK && row < PQntuples(result); row++) {
        struct stored_quote quote;
        code = read_quote(result, row, &quote, err);
        if (code == GQ_OK) {
            code = append_quote_event(conn, STORE_EVENT_QUOTE_EXPIRED, &quote, expire->now, err);
            stored_quote_clear(&quote);
        }
    }
    int marked = PQntuples(result);
    PQclear(result);
    if (code == GQ_OK)
        code = pg_command(conn, "COMMIT", PGRES_COMMAND_OK, "expiring quotes", err);
    if (code == GQ_OK)
        *expire->count = marked;
    return code;
}

enum gq_code pg_expire_quotes(struct store_backend *backend, int64_t now, int limit, int *count,
                              struct gq_error *err)
{
    struct expire_context expire = {now, limit, count};
    return pg_run(pg_store_of(backend), expire_on, &expire, err);
}

struct delete_context {
    int64_t ended_before, accepted_before;
    int limit;
    int *count;
};

static enum gq_code delete_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct delete_context *remove = context;
    char ended[24], accepted[24], limit[16];
    snprintf(ended, sizeof ended, "%lld", (long long)remove->ended_before);
    snprintf(accepted, sizeof accepted, "%lld", (long long)remove->accepted_before);
    snprintf(limit, sizeof limit, "%d", remove->limit);
    const char *const values[] = {ended, accepted, limit};
    const struct pg_call call = {STORE_SQL_QUOTES_DELETE_ENDED, 3, values, NULL, NULL,
                                 "deleting ended quotes"};
    return pg_change_count(conn, &call, remove->count, err);
}

enum gq_code pg_delete_ended_quotes(struct store_backend *backend, int64_t ended_before,
                                    int64_t accepted_before, int limit, int *count,
                                    struct gq_error *err)
{
    struct delete_context remove = {ended_before, accepted_before, limit, count};
    return pg_run(pg_store_of(backend), delete_on, &remove, err);
}

struct release_context {
    const char *quote_id, *key;
    bool *released;
};

static enum gq_code release_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct release_context *release = context;
    const char *const values[] = {release->quote_id, release->key};
    PGresult *result = PQexecParams(conn->conn, pg_sql(conn, STORE_SQL_QUOTE_RELEASE_KEY), 2, NULL,
                                    values, NULL, NULL, 0);
    enum gq_code code = GQ_OK;
    if (PQresultStatus(result) != PGRES_COMMAND_OK)
        code = pg_fail(conn, result, "releasing an idempotency key", err);
    else
        *release->released = atoi(PQcmdTuples(result)) == 1;
    PQclear(result);
    return code;
}

enum gq_code pg_release_key(struct store_backend *backend, const char *quote_id, const char *key,
                            bool *released, struct gq_error *err)
{
    struct release_context release = {quote_id, key, released};
    return pg_run(pg_store_of(backend), release_on, &release, err);
}
