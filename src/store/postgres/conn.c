/*
 * The PostgreSQL backend: connections, prepared statements, errors, health,
 * and the backend's table of operations.
 *
 * pg_open() connects every connection of the pool once, so that a wrong
 * connection string or an unreachable server stops start-up with one clear
 * line (its password masked). Afterwards a connection the server dropped is
 * noticed when it is checked out (a non-blocking read finds the closed
 * socket) and connected again, no more than once a second per connection;
 * between tries a call fails at once with GQ_ERR_RETRY_LATER instead of
 * waiting for a connect timeout.
 *
 * Each connection sets lock_timeout to the configured busy timeout: a write
 * that waits for a row lock longer (another replica's transaction on the
 * same idempotency key) gives up with 503 retry_later, as SQLite's busy
 * timeout does.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/counters.h"
#include "store/postgres/pg.h"
#include "store/queries.h"
#include "util/clock.h"

/* Between two tries to connect one connection. */
#define RECONNECT_PAUSE_US 1000000
/* libpq waits this long for a server that does not answer, unless the
 * connection string says otherwise. */
#define CONNECT_TIMEOUT_SECONDS "5"

/* ---- Errors. ---- */

/* The first line of a libpq message, without its trailing newline. */
static void first_line(const char *message, char *out, size_t size)
{
    snprintf(out, size, "%.*s", (int)strcspn(message != NULL ? message : "", "\n"),
             message != NULL ? message : "");
}

/* The first line of libpq's message, every secret of the connection
 * string masked (before it is cut, so no part of one is left). */
static void masked_first_line(const struct pg_store *store, const char *message, char *out,
                              size_t size)
{
    char masked[1024];
    postgres_mask_message(store->conninfo, message != NULL ? message : "", masked, sizeof masked);
    first_line(masked, out, size);
    memset(masked, 0, sizeof masked);
}

static bool starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* Serialization failures and deadlocks: the transaction may run again. */
static bool is_retryable_state(const char *state)
{
    return starts_with(state, "40001") || starts_with(state, "40P01");
}

/* The server is busy, stopping or out of reach: the same call may work in
 * a moment. */
static bool is_transient_state(const char *state)
{
    return starts_with(state, "55P03") || starts_with(state, "57014") ||
           starts_with(state, "57P0") || starts_with(state, "08") || starts_with(state, "53300");
}

const char *pg_state(const PGresult *result)
{
    const char *state = result != NULL ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : NULL;
    return state != NULL ? state : "";
}

enum gq_code pg_fail(struct pg_conn *conn, const PGresult *result, const char *what,
                     struct gq_error *err)
{
    char message[200];
    const char *state = pg_state(result);
    const char *text = result != NULL ? PQresultErrorMessage(result) : NULL;
    if (text == NULL || text[0] == '\0')
        text = conn->conn != NULL ? PQerrorMessage(conn->conn) : "not connected";
    masked_first_line(conn->store, text, message, sizeof message);
    bool lost = conn->conn == NULL || PQstatus(conn->conn) == CONNECTION_BAD;
    conn->last_failure = PG_FAILED;
    if (lost)
        store_count_error(STORE_ERROR_UNREACHABLE);
    else if (is_retryable_state(state) || is_transient_state(state))
        store_count_error(STORE_ERROR_BUSY);
    else
        store_count_error(STORE_ERROR_OTHER);
    if (lost) {
        atomic_store(&conn->store->lost, true);
        pg_disconnect(conn);
        conn->last_failure = PG_FAILED_LOST;
        return gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "database %s is unreachable, retry (%s: %s)",
                       conn->store->described, what, message);
    }
    if (is_retryable_state(state)) {
        conn->last_failure = PG_FAILED_RETRYABLE;
        return gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "%s: %s", what, message);
    }
    if (is_transient_state(state))
        return gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "database is busy, retry (%s: %s)", what,
                       message);
    return gq_fail(err, GQ_ERR_INTERNAL, NULL, "%s: %s", what, message);
}

/* ---- Connections. ---- */

/* The server's notices (a FATAL before it drops an idle connection) are
 * not the client's business: the error that follows is reported. */
static void ignore_notice(void *argument, const char *message)
{
    (void)argument;
    (void)message;
}

void pg_disconnect(struct pg_conn *conn)
{
    if (conn->conn != NULL)
        PQfinish(conn->conn);
    conn->conn = NULL;
    conn->prepared = 0;
    if (conn == &conn->store->listener)
        conn->store->listening = false;
}

/* True when the connection is up and the server has not closed it while
 * it idled: a non-blocking read sees the end of a socket the server
 * closed. */
static bool is_alive(struct pg_conn *conn)
{
    if (conn->conn == NULL || PQstatus(conn->conn) != CONNECTION_OK)
        return false;
    if (!PQconsumeInput(conn->conn))
        return false;
    return PQstatus(conn->conn) == CONNECTION_OK && PQtransactionStatus(conn->conn) == PQTRANS_IDLE;
}

static enum gq_code configure_session(struct pg_conn *conn, struct gq_error *err)
{
    char sql[64];
    snprintf(sql, sizeof sql, "SET lock_timeout = %d", conn->store->lock_timeout_ms);
    return pg_command(conn, sql, PGRES_COMMAND_OK, "configuring the connection", err);
}

enum gq_code pg_connect(struct pg_conn *conn, struct gq_error *err)
{
    if (is_alive(conn))
        return GQ_OK;
    pg_disconnect(conn);
    int64_t now = clock_monotonic_us();
    if (now < conn->next_try_us)
        return gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "database %s is unreachable, retry",
                       conn->store->described);
    conn->next_try_us = now + RECONNECT_PAUSE_US;
    /* The connection string comes last, so what it says wins. */
    const char *const keywords[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *const values[] = {CONNECT_TIMEOUT_SECONDS, "gpuquote", conn->store->conninfo, NULL};
    PGconn *connection = PQconnectdbParams(keywords, values, 1);
    if (connection == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory connecting to the database");
    if (PQstatus(connection) != CONNECTION_OK) {
        char message[200];
        masked_first_line(conn->store, PQerrorMessage(connection), message, sizeof message);
        PQfinish(connection);
        return gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "cannot connect to database %s: %s",
                       conn->store->described, message);
    }
    PQsetNoticeProcessor(connection, ignore_notice, NULL);
    conn->conn = connection;
    conn->prepared = 0;
    enum gq_code code = configure_session(conn, err);
    if (code != GQ_OK)
        pg_disconnect(conn);
    return code;
}

struct pg_conn *pg_checkout(struct pg_store *store, struct gq_error *err)
{
    struct pg_conn *conn = store_pool_checkout(store->pool);
    if (pg_connect(conn, err) != GQ_OK) {
        bool no_memory = err != NULL && err->code == GQ_ERR_NO_MEMORY;
        store_count_error(no_memory ? STORE_ERROR_NO_MEMORY : STORE_ERROR_UNREACHABLE);
        if (!no_memory)
            atomic_store(&store->lost, true);
        store_pool_checkin(store->pool, conn);
        return NULL;
    }
    return conn;
}

void pg_checkin(struct pg_store *store, struct pg_conn *conn)
{
    if (conn == NULL)
        return;
    /* A transaction left open (a failure halfway) is rolled back, so a
     * connection always returns to the pool clean. */
    if (conn->conn != NULL && PQtransactionStatus(conn->conn) != PQTRANS_IDLE) {
        PGresult *result = PQexec(conn->conn, "ROLLBACK");
        if (PQresultStatus(result) != PGRES_COMMAND_OK)
            pg_disconnect(conn);
        PQclear(result);
    }
    store_pool_checkin(store->pool, conn);
}

enum gq_code pg_run(struct pg_store *store, pg_operation operation, void *context,
                    struct gq_error *err)
{
    for (int attempt = 1;; attempt++) {
        struct pg_conn *conn = pg_checkout(store, err);
        if (conn == NULL)
            return GQ_ERR_RETRY_LATER;
        conn->last_failure = PG_FAILED;
        enum gq_code code = operation(conn, context, err);
        enum pg_failure failure = conn->last_failure;
        pg_checkin(store, conn);
        bool again =
            code != GQ_OK && attempt < PG_WRITE_ATTEMPTS &&
            (failure == PG_FAILED_RETRYABLE || (failure == PG_FAILED_LOST && attempt == 1));
        if (!again)
            return code;
    }
}

/* ---- Statements. ---- */

enum gq_code pg_prepare(struct pg_conn *conn, enum pg_statement statement, struct gq_error *err)
{
    assert((unsigned)statement < PG_STATEMENT_COUNT);
    if (conn->prepared & (1u << statement))
        return GQ_OK;
    const struct pg_statement_text *text = &pg_statements[statement];
    PGresult *result =
        PQprepare(conn->conn, text->name, pg_sql(conn, text->sql), text->n_params, NULL);
    enum gq_code code = GQ_OK;
    if (PQresultStatus(result) != PGRES_COMMAND_OK)
        code = pg_fail(conn, result, "preparing a statement", err);
    else
        conn->prepared |= 1u << statement;
    PQclear(result);
    return code;
}

PGresult *pg_execute(struct pg_conn *conn, enum pg_statement statement, const char *const *values,
                     const int *lengths, const int *formats, int result_format,
                     struct gq_error *err)
{
    if (pg_prepare(conn, statement, err) != GQ_OK)
        return NULL;
    const struct pg_statement_text *text = &pg_statements[statement];
    PGresult *result = PQexecPrepared(conn->conn, text->name, text->n_params, values, lengths,
                                      formats, result_format);
    ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        return result;
    pg_fail(conn, result, text->name, err);
    PQclear(result);
    return NULL;
}

enum gq_code pg_command(struct pg_conn *conn, const char *sql, ExecStatusType expected,
                        const char *what, struct gq_error *err)
{
    PGresult *result = PQexec(conn->conn, sql);
    enum gq_code code = GQ_OK;
    if (PQresultStatus(result) != expected)
        code = pg_fail(conn, result, what, err);
    PQclear(result);
    return code;
}

int64_t pg_binary_int64(const PGresult *result, int row, int column)
{
    if (PQgetisnull(result, row, column) || PQgetlength(result, row, column) != 8)
        return 0;
    const unsigned char *bytes = (const unsigned char *)PQgetvalue(result, row, column);
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value = value << 8 | bytes[i];
    return (int64_t)value;
}

int32_t pg_binary_int32(const PGresult *result, int row, int column)
{
    if (PQgetisnull(result, row, column) || PQgetlength(result, row, column) != 4)
        return 0;
    const unsigned char *bytes = (const unsigned char *)PQgetvalue(result, row, column);
    uint32_t value =
        (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
    return (int32_t)value;
}

/* ---- Open and close. ---- */

static void init_connection(struct pg_store *store, struct pg_conn *conn)
{
    memset(conn, 0, sizeof *conn);
    conn->store = store;
}

/* The shared statements this backend runs, in its dialect; false when out
 * of memory (pg_close() frees what was made). */
static bool rewrite_shared_sql(struct pg_store *store)
{
    for (int table = 0; table < CATALOG_WRITE_COUNT; table++) {
        store->catalog_write_sql[table] = store_sql_for_postgres(store_catalog_write_sql[table]);
        if (store->catalog_write_sql[table] == NULL)
            return false;
    }
    for (int id = 0; id < STORE_SQL_COUNT; id++) {
        const struct store_sql_text *text = &store_sql[id];
        store->sql[id] =
            text->shared != NULL ? store_sql_for_postgres(text->shared) : strdup(text->postgres);
        if (store->sql[id] == NULL)
            return false;
    }
    return true;
}

enum gq_code pg_open(const struct store_options *options, struct store_backend **out,
                     struct gq_error *err)
{
    *out = NULL;
    struct pg_store *store = calloc(1, sizeof *store);
    if (store == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    store->conninfo = strdup(options->database);
    store_describe_database(options->database, store->described, sizeof store->described);
    store->lock_timeout_ms = options->busy_timeout_ms > 0 ? options->busy_timeout_ms : 1;
    store->listen = options->listen;
    store->pool = store_pool_new(options->pool_size);
    store->conns = calloc(options->pool_size, sizeof *store->conns);
    init_connection(store, &store->listener);
    if (store->conninfo == NULL || store->pool == NULL || store->conns == NULL ||
        !rewrite_shared_sql(store)) {
        pg_close((struct store_backend *)store);
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    }
    for (unsigned i = 0; i < options->pool_size; i++) {
        struct pg_conn *conn = &store->conns[i];
        init_connection(store, conn);
        store->n_conns = i + 1;
        store_pool_add(store->pool, conn);
        enum gq_code code = pg_connect(conn, err);
        if (code != GQ_OK) {
            pg_close((struct store_backend *)store);
            if (err != NULL)
                err->code = GQ_ERR_NOT_READY;
            return GQ_ERR_NOT_READY;
        }
    }
    *out = (struct store_backend *)store;
    return GQ_OK;
}

void pg_close(struct store_backend *backend)
{
    struct pg_store *store = pg_store_of(backend);
    if (store == NULL)
        return;
    for (unsigned i = 0; i < store->n_conns; i++)
        pg_disconnect(&store->conns[i]);
    pg_disconnect(&store->listener);
    store_pool_free(store->pool);
    free(store->conns);
    for (int table = 0; table < CATALOG_WRITE_COUNT; table++)
        free(store->catalog_write_sql[table]);
    for (int id = 0; id < STORE_SQL_COUNT; id++)
        free(store->sql[id]);
    if (store->conninfo != NULL) /* it may hold a password: not left in freed memory */
        memset(store->conninfo, 0, strlen(store->conninfo));
    free(store->conninfo);
    free(store);
}

/* ---- Health. ---- */

/* Runs `sql`, which returns one boolean, on a connection of the pool. */
static enum gq_code query_flag(struct pg_store *store, const char *sql, bool *flag,
                               struct gq_error *err)
{
    struct pg_conn *conn = pg_checkout(store, err);
    if (conn == NULL)
        return GQ_ERR_NOT_READY;
    PGresult *result = PQexec(conn->conn, sql);
    enum gq_code code = GQ_OK;
    if (PQresultStatus(result) != PGRES_TUPLES_OK || PQntuples(result) != 1)
        code = pg_fail(conn, result, "asking the database", err);
    else
        *flag = strcmp(PQgetvalue(result, 0, 0), "t") == 0;
    PQclear(result);
    pg_checkin(store, conn);
    return code;
}

enum gq_code pg_ping(struct store_backend *backend, struct gq_error *err)
{
    bool up = false;
    struct gq_error local;
    struct pg_store *store = pg_store_of(backend);
    if (query_flag(store, "SELECT true", &up, &local) != GQ_OK || !up)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL, "the database does not answer: %s",
                       local.message);
    atomic_store(&store->lost, false);
    return GQ_OK;
}

bool pg_failed_since_check(struct store_backend *backend)
{
    return atomic_load(&pg_store_of(backend)->lost);
}

/* A standby in recovery, or a database set read-only, takes no write. */
enum gq_code pg_check_writable(struct store_backend *backend, struct gq_error *err)
{
    struct pg_store *store = pg_store_of(backend);
    bool writable = false;
    struct gq_error local;
    if (query_flag(store,
                   "SELECT NOT pg_is_in_recovery()"
                   " AND current_setting('transaction_read_only') = 'off'",
                   &writable, &local) != GQ_OK)
        return gq_fail_msg(err, GQ_ERR_NOT_READY, NULL, MSG_DATABASE_NOT_WRITABLE,
                           MSG_TEXT(local.message));
    if (!writable)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "database is not writable: %s is a standby or read-only", store->described);
    return GQ_OK;
}

/* PostgreSQL that runs out of disk for its WAL stops taking connections,
 * which the ping sees; there is no storage state of our own to probe. */
enum gq_code pg_check_storage(struct store_backend *backend, struct gq_error *err)
{
    return pg_ping(backend, err);
}

/* See pg.h. */
enum gq_code pg_in_transaction(struct pg_conn *conn,
                               enum gq_code (*write)(struct pg_conn *conn, void *context,
                                                     struct gq_error *err),
                               void *context, struct gq_error *err)
{
    enum gq_code code = pg_command(conn, "BEGIN", PGRES_COMMAND_OK, "beginning a write", err);
    if (code == GQ_OK)
        code = write(conn, context, err);
    if (code == GQ_OK)
        code = pg_command(conn, "COMMIT", PGRES_COMMAND_OK, "committing a write", err);
    return code;
}

const struct store_backend_ops postgres_backend_ops = {
    .name = "postgres",
    .open = pg_open,
    .close = pg_close,
    .read_history = pg_read_history,
    .apply_migration = pg_apply_migration,
    .ping = pg_ping,
    .check_writable = pg_check_writable,
    .check_storage = pg_check_storage,
    .failed_since_check = pg_failed_since_check,
    .read_catalog = pg_read_catalog,
    .price_list_version = pg_price_list_version,
    .wait_for_catalog_change = pg_wait_for_catalog_change,
    .save_quotes = pg_save_quotes,
    .get_quote = pg_get_quote,
    .recent_requests = pg_recent_requests,
    .end_quote = pg_end_quote,
    .list_quotes = pg_list_quotes,
    .expire_quotes = pg_expire_quotes,
    .delete_ended_quotes = pg_delete_ended_quotes,
    .delete_past_retention = pg_delete_past_retention,
    .release_key = pg_release_key,
    .keys_version = pg_keys_version,
    .keys_read = pg_keys_read,
    .key_insert = pg_key_insert,
    .key_revoke = pg_key_revoke,
    .keys_touch = pg_keys_touch,
    .audit_read = pg_audit_read,
    .append_event = pg_append_event,
    .events_read = pg_events_read,
    .customer_write = pg_customer_write,
    .customers_read = pg_customers_read,
    .verification_write = pg_verification_write,
    .verifications_read = pg_verifications_read,
    .expire_verifications = pg_expire_verifications,
    .customer_rules_read = pg_customer_rules_read,
    .customer_rule_write = pg_customer_rule_write,
    .endpoint_insert = pg_endpoint_insert,
    .endpoints_read = pg_endpoints_read,
    .endpoint_update = pg_endpoint_update,
    .endpoint_secrets_read = pg_endpoint_secrets_read,
    .endpoint_secret_replace = pg_endpoint_secret_replace,
    .endpoint_delete = pg_endpoint_delete,
    .deliveries_read = pg_deliveries_read,
    .delivery_retry = pg_delivery_retry,
    .deliveries_claim = pg_deliveries_claim,
    .delivery_finish = pg_delivery_finish,
    .price_lists_read = pg_price_lists_read,
    .price_list_write = pg_price_list_write,
    .promotion_codes_read = pg_promotion_codes_read,
    .promotion_code_insert = pg_promotion_code_insert,
    .promotion_code_deactivate = pg_promotion_code_deactivate,
};
