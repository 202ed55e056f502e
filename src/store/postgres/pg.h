/*
 * The PostgreSQL backend's private plumbing, shared by the files of
 * src/store/postgres/ and by nothing else: its state, its connections with
 * their prepared statements, and the mapping of SQLSTATEs to gq codes.
 *
 * One connection per libmicrohttpd worker thread plus the group commit's
 * writer sits in the pool (pool.c); the catalog listener has one of its
 * own. A connection the server dropped (a restart, a failover) is found
 * when it is checked out and connected again, at most once a second, so a
 * database that comes back is used again without restarting anything; while
 * it is away, calls fail at once with GQ_ERR_RETRY_LATER.
 */
#ifndef GQ_STORE_POSTGRES_PG_H
#define GQ_STORE_POSTGRES_PG_H

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "store/backend.h"
#include "store/queries.h"

/* The statements prepared on each connection, by name, the first time a
 * connection runs them (postgres/quotes.c, postgres/catalog.c). */
enum pg_statement {
    PG_QUOTE_INSERT_BATCH,
    PG_QUOTE_BY_ID,
    PG_QUOTE_BY_KEY,
    PG_QUOTE_ACCEPT,
    PG_QUOTE_CANCEL,
    PG_QUOTES_EXPIRE,
    PG_QUOTES_LIST,
    PG_PRICE_LIST_VERSION,
    PG_STATEMENT_COUNT
};

struct pg_statement_text {
    const char *name;   /* the prepared statement's name on the server */
    enum store_sql sql; /* its text: pg_sql() */
    int n_params;
};

/* Defined by quotes.c and catalog.c; indexed by enum pg_statement. */
extern const struct pg_statement_text pg_statements[PG_STATEMENT_COUNT];

struct pg_store;

/* What the last pg_fail() on a connection found. */
enum pg_failure {
    PG_FAILED,           /* the statement failed: the connection is fine */
    PG_FAILED_RETRYABLE, /* a serialization failure or deadlock: run the transaction again */
    PG_FAILED_LOST       /* the connection was lost: it is dropped */
};

struct pg_conn {
    struct pg_store *store;
    PGconn *conn;        /* NULL while not connected */
    unsigned prepared;   /* bit (1 << statement) once prepared on this connection */
    int64_t next_try_us; /* monotonic: no reconnect before this */
    enum pg_failure last_failure;
};

/* The backend's state: what `struct store_backend *` points to. */
struct pg_store {
    char *conninfo;      /* as configured: never logged (it may hold a password) */
    char described[512]; /* for messages, the password masked */
    int lock_timeout_ms; /* how long a statement waits for a row lock */
    bool listen;
    struct store_pool *pool;
    struct pg_conn *conns;
    unsigned n_conns;
    struct pg_conn listener; /* LISTEN gpuquote_catalog; the poller's alone */
    bool listening;          /* LISTEN has been sent on `listener` */
    /* A call found the server out of reach since the last ping that
     * succeeded: /readyz then asks again at once. */
    atomic_bool lost;
    /* queries.h's store_catalog_write_sql in this dialect, rewritten once
     * at open. */
    char *catalog_write_sql[CATALOG_WRITE_COUNT];
    char *sql[STORE_SQL_COUNT]; /* queries.h's store_sql, likewise */
};

/* Statement `id` of queries.h in PostgreSQL's dialect. */
static inline const char *pg_sql(const struct pg_conn *conn, enum store_sql id)
{
    return conn->store->sql[id];
}

static inline struct pg_store *pg_store_of(struct store_backend *backend)
{
    return (struct pg_store *)backend;
}

/* A connection of the pool, connected, or NULL with err filled
 * (GQ_ERR_RETRY_LATER) when the server cannot be reached now; checked in
 * again with pg_checkin() either way (NULL is fine). */
struct pg_conn *pg_checkout(struct pg_store *store, struct gq_error *err);
void pg_checkin(struct pg_store *store, struct pg_conn *conn);

/* Connects `conn` (again) unless it is connected and alive, at most once a
 * second. GQ_ERR_RETRY_LATER when it cannot. */
enum gq_code pg_connect(struct pg_conn *conn, struct gq_error *err);

/* Drops the connection (the next checkout connects again). */
void pg_disconnect(struct pg_conn *conn);

/* An array parameter in binary format (arrays.c): begun with its element
 * type's OID, added to in order (NULL bytes or text: SQL NULL), ended
 * before it is sent (false when memory ran out), then freed. */
struct pg_array {
    char *data;
    size_t size, capacity;
    uint32_t count;
    bool failed;
};
#define PG_OID_BYTEA 17
#define PG_OID_INT8 20
#define PG_OID_TEXT 25
void pg_array_begin(struct pg_array *array, uint32_t element_oid);
void pg_array_add(struct pg_array *array, const void *bytes, size_t length);
void pg_array_add_text(struct pg_array *array, const char *text);
void pg_array_add_int64(struct pg_array *array, int64_t value);
bool pg_array_end(struct pg_array *array);
void pg_array_free(struct pg_array *array);

/* Prepares `statement` on `conn` unless it has been. */
enum gq_code pg_prepare(struct pg_conn *conn, enum pg_statement statement, struct gq_error *err);

/* Runs a prepared statement with text parameters (`lengths` and `formats`
 * may be NULL: all text) and `result_format` (0 text, 1 binary). Returns
 * the result, or NULL with err filled; the caller clears the result. */
PGresult *pg_execute(struct pg_conn *conn, enum pg_statement statement, const char *const *values,
                     const int *lengths, const int *formats, int result_format,
                     struct gq_error *err);

/* Runs `sql` (no parameters; several statements allowed) and wants
 * `expected`. GQ_OK or the failure, with err filled. */
enum gq_code pg_command(struct pg_conn *conn, const char *sql, ExecStatusType expected,
                        const char *what, struct gq_error *err);

/* The gq code for a failed result (NULL: the connection failed) on `conn`,
 * with err filled as "<what>: <server's message>", and conn->last_failure
 * set: 40001/40P01 (serialization failure, deadlock) GQ_ERR_RETRY_LATER and
 * PG_FAILED_RETRYABLE; a lost connection GQ_ERR_RETRY_LATER and
 * PG_FAILED_LOST (the connection is dropped); 55P03 (lock not available),
 * 57014 (statement timeout), 57P0x (shutdown), 08xxx (connection), 53300
 * (too many connections) GQ_ERR_RETRY_LATER; anything else
 * GQ_ERR_INTERNAL. */
enum gq_code pg_fail(struct pg_conn *conn, const PGresult *result, const char *what,
                     struct gq_error *err);

/* The SQLSTATE of a failed result, "" when there is none. */
const char *pg_state(const PGresult *result);

/* How many times a transaction runs: again after a serialization failure
 * or a deadlock, and once more after a connection the server dropped. */
#define PG_WRITE_ATTEMPTS 3

/* One unit of work on a connection, for pg_run(). */
typedef enum gq_code (*pg_operation)(struct pg_conn *conn, void *context, struct gq_error *err);

/* Runs `operation` on a connection of the pool, again (up to
 * PG_WRITE_ATTEMPTS in all) when it failed with a serialization failure or
 * a deadlock, and once more on a fresh connection when the first was
 * lost: for reads, and for writes that a second run cannot do twice. */
enum gq_code pg_run(struct pg_store *store, pg_operation operation, void *context,
                    struct gq_error *err);

/* ---- Statements sent with PQexecParams, text in and out (exec.c) ---- */

/* One statement of queries.h with its parameters: text, but those
 * `formats` marks 1 (binary, `lengths` bytes); both NULL: all text.
 * `what` names it in a failure's message. */
struct pg_call {
    enum store_sql sql;
    int n;
    const char *const *values;
    const int *lengths, *formats;
    const char *what;
};

/* The code a failed call left in err (GQ_ERR_INTERNAL without one). */
enum gq_code pg_failed(const struct gq_error *err);

/* A query with text parameters: its rows, or NULL with err filled. */
PGresult *pg_query(struct pg_conn *conn, enum store_sql sql, int n, const char *const *values,
                   const char *what, struct gq_error *err);

/* Runs a statement that returns no rows; *changed (may be NULL) tells
 * whether it changed any. GQ_OK or the failure, with err filled. */
enum gq_code pg_change(struct pg_conn *conn, const struct pg_call *call, bool *changed,
                       struct gq_error *err);

/* Runs `call`, which returns no rows: *count, how many rows it changed.
 * GQ_OK or the failure, with err filled. */
enum gq_code pg_change_count(struct pg_conn *conn, const struct pg_call *call, int *count,
                             struct gq_error *err);

/* pg_change() with text parameters. */
enum gq_code pg_update(struct pg_conn *conn, enum store_sql sql, int n, const char *const *values,
                       bool *changed, const char *what, struct gq_error *err);

/* A text-format value as an integer (NULL: 0), or as a copy the caller
 * frees (NULL: NULL, and NULL when out of memory). */
int64_t pg_integer_at(const PGresult *result, int row, int column);
char *pg_copy_or_null(const PGresult *result, int row, int column);

/* `value` in decimal in `out`, which it returns. */
#define PG_NUMBER_SIZE 24
const char *pg_number_text(int64_t value, char out[PG_NUMBER_SIZE]);

/* Fills `item` from row `row` of `result`: GQ_OK, or the failure with err
 * filled (what it copied so far is the item's, freed with it). */
typedef enum gq_code (*pg_row_reader)(const PGresult *result, int row, void *item,
                                      struct gq_error *err);

/* The items of a pg_read_rows(), `size` bytes each, to be moved to a
 * typed list: on a failure `count` counts the item that failed too. */
struct pg_rows {
    void *items;
    size_t count;
};

/* Runs the query `call` and reads each of its rows with `read` into a new
 * zeroed array. GQ_OK, or the failure with err filled and *out holding
 * what was read, for the list's own free. */
enum gq_code pg_read_rows(struct pg_conn *conn, const struct pg_call *call, size_t size,
                          pg_row_reader read, struct pg_rows *out, struct gq_error *err);

/* pg_read_rows() into `list`, a struct with `items` and `count`, its
 * outcome in `code`. */
#define PG_READ_LIST(conn, call, read, list, code, err)                                            \
    do {                                                                                           \
        struct pg_rows rows_;                                                                      \
        (code) = pg_read_rows((conn), (call), sizeof *(list)->items, (read), &rows_, (err));       \
        (list)->items = rows_.items;                                                               \
        (list)->count = rows_.count;                                                               \
    } while (0)

/* Frees what a row reader copied into `item` (of a zeroed array). */
typedef void (*pg_item_clear)(void *item);

/* pg_run() of pg_read_rows(): the rows of a failed attempt are cleared
 * with `clear` and freed, so that a retry starts again and a failure
 * leaves *out empty. */
enum gq_code pg_run_read_rows(struct store_backend *backend, const struct pg_call *call,
                              size_t size, pg_row_reader read, pg_item_clear clear,
                              struct pg_rows *out, struct gq_error *err);

/* pg_run_read_rows() of statement `sql` whose one parameter is the text
 * `text` into `list`, a struct with `items` and `count`; `what` names the
 * read in a failure's message. */
#define PG_RUN_READ_LIST_BY_TEXT(backend, sql, text, what, read, clear, list, code, err)           \
    do {                                                                                           \
        const char *const by_text_[] = {(text)};                                                   \
        const struct pg_call by_text_call_ = {(sql), 1, by_text_, NULL, NULL, (what)};             \
        struct pg_rows rows_ = {0};                                                                \
        (code) = pg_run_read_rows((backend), &by_text_call_, sizeof *(list)->items, (read),        \
                                  (clear), &rows_, (err));                                         \
        (list)->items = rows_.items;                                                               \
        (list)->count = rows_.count;                                                               \
    } while (0)

/* PG_READ_LIST() into a page that `page_free` empties first: a retried
 * read starts again. */
#define PG_READ_PAGE(conn, call, read, page, page_free, code, err)                                 \
    do {                                                                                           \
        page_free(page);                                                                           \
        PG_READ_LIST(conn, call, read, page, code, err);                                           \
    } while (0)

/* pg_run() of `write` inside pg_in_transaction(): one write transaction,
 * run again as pg_run says. */
enum gq_code pg_run_write(struct store_backend *backend, pg_operation write, void *context,
                          struct gq_error *err);

/* Big-endian integers of a binary result. */
int64_t pg_binary_int64(const PGresult *result, int row, int column);
int32_t pg_binary_int32(const PGresult *result, int row, int column);

/* ---- The operations of the table, by file ---- */

/* conn.c */
enum gq_code pg_open(const struct store_options *options, struct store_backend **out,
                     struct gq_error *err);
void pg_close(struct store_backend *backend);
enum gq_code pg_ping(struct store_backend *backend, struct gq_error *err);
enum gq_code pg_check_writable(struct store_backend *backend, struct gq_error *err);
enum gq_code pg_check_storage(struct store_backend *backend, struct gq_error *err);
bool pg_failed_since_check(struct store_backend *backend);

/* migrate.c */
enum gq_code pg_read_history(struct store_backend *backend, struct migration_history *out,
                             struct gq_error *err);
enum gq_code pg_apply_migration(struct store_backend *backend, const struct migration *migration,
                                bool *applied, struct gq_error *err);

/* catalog.c */
enum gq_code pg_read_catalog(struct store_backend *backend, struct catalog_reader *reader,
                             struct gq_error *err);
enum gq_code pg_price_list_version(struct store_backend *backend, int64_t *version,
                                   struct gq_error *err);
void pg_wait_for_catalog_change(struct store_backend *backend, int timeout_ms, int wake_fd);

/* quotes.c */
enum gq_code pg_save_quotes(struct store_backend *backend, struct quote_save *batch);
enum gq_code pg_get_quote(struct store_backend *backend, const char *id, struct stored_quote *out,
                          bool *found, struct gq_error *err);
enum gq_code pg_end_quote(struct store_backend *backend, const struct quote_end *end,
                          struct stored_quote *out, enum accept_outcome *outcome,
                          struct gq_error *err);
enum gq_code pg_list_quotes(struct store_backend *backend, const struct quote_filter *filter,
                            int64_t after_created, const char *after_id, struct quote_page *out,
                            struct gq_error *err);
enum gq_code pg_expire_quotes(struct store_backend *backend, int64_t now, int limit, int *count,
                              struct gq_error *err);
enum gq_code pg_delete_ended_quotes(struct store_backend *backend, int64_t ended_before,
                                    int64_t accepted_before, int limit, int *count,
                                    struct gq_error *err);
enum gq_code pg_delete_past_retention(struct store_backend *backend, enum store_retention kind,
                                      int64_t before, int limit, int *count, struct gq_error *err);
enum gq_code pg_release_key(struct store_backend *backend, const char *quote_id, const char *key,
                            bool *released, struct gq_error *err);
enum gq_code pg_recent_requests(struct store_backend *backend, int limit, json_t **out,
                                struct gq_error *err);

/* keys.c */
enum gq_code pg_keys_version(struct store_backend *backend, int64_t *version, struct gq_error *err);
enum gq_code pg_keys_read(struct store_backend *backend, bool with_revoked, const char *id,
                          struct key_list *out, struct gq_error *err);
enum gq_code pg_key_insert(struct store_backend *backend, const struct stored_key *key,
                           const struct audit_line *audit, struct gq_error *err);
enum gq_code pg_key_revoke(struct store_backend *backend, const char *id, int64_t now,
                           const struct audit_line *audit, struct stored_key *out, bool *found,
                           bool *was_revoked, struct gq_error *err);
enum gq_code pg_keys_touch(struct store_backend *backend, const struct stored_key *keys,
                           size_t count, struct gq_error *err);
enum gq_code pg_audit_read(struct store_backend *backend, int64_t since, const char *starting_after,
                           size_t limit, struct audit_page *out, struct gq_error *err);
/* BEGIN, `write(conn, context, err)`, COMMIT on `conn`: one write
 * transaction (pg_checkin rolls back what failed). GQ_OK or write's or the
 * commit's failure. */
enum gq_code pg_in_transaction(struct pg_conn *conn,
                               enum gq_code (*write)(struct pg_conn *conn, void *context,
                                                     struct gq_error *err),
                               void *context, struct gq_error *err);
/* Writes an audit line inside the caller's transaction. */
enum gq_code pg_audit_append(struct pg_conn *conn, const struct audit_line *line,
                             struct gq_error *err);

/* events.c */
/* Appends `event` inside the caller's transaction on `conn` (after BEGIN),
 * with one pending delivery for each enabled webhook endpoint that takes
 * its type, in one statement: what every change that tells of itself calls
 * (quote.canceled, quote.expired, price_list.published ...). GQ_OK, or the
 * failure with err filled (the transaction is then aborted). */
enum gq_code pg_event_append(struct pg_conn *conn, const struct store_event *event,
                             struct gq_error *err);
enum gq_code pg_append_event(struct store_backend *backend, const struct store_event *event,
                             struct gq_error *err);
enum gq_code pg_events_read(struct store_backend *backend, const char *type,
                            const char *customer_id, const char *id, const char *starting_after,
                            size_t limit, struct event_page *out, struct gq_error *err);
/* customers.c */
enum gq_code pg_customer_write(struct store_backend *backend, const struct customer_write *write,
                               bool *found, struct gq_error *err);
enum gq_code pg_customers_read(struct store_backend *backend, const struct customer_filter *filter,
                               struct customer_page *out, struct gq_error *err);
/* verifications.c; pg_verifications_erase clears a customer's evidence
 * inside the erasure's transaction. */
enum gq_code pg_verification_write(struct store_backend *backend,
                                   const struct verification_write *write, bool *done,
                                   struct gq_error *err);
enum gq_code pg_verifications_read(struct store_backend *backend, const char *customer_id,
                                   const char *id, int64_t live_at, struct verification_list *out,
                                   struct gq_error *err);
enum gq_code pg_expire_verifications(struct store_backend *backend, int64_t now, int limit,
                                     int *count, struct gq_error *err);
enum gq_code pg_verifications_erase(struct pg_conn *conn, const char *customer_id,
                                    struct gq_error *err);
enum gq_code pg_endpoint_insert(struct store_backend *backend,
                                const struct stored_endpoint *endpoint,
                                const struct audit_line *audit, struct gq_error *err);
enum gq_code pg_endpoints_read(struct store_backend *backend, const char *id,
                               struct endpoint_list *out, struct gq_error *err);
enum gq_code pg_endpoint_secrets_read(struct store_backend *backend, struct endpoint_list *out,
                                      struct gq_error *err);
enum gq_code pg_endpoint_secret_replace(struct store_backend *backend, const char *id,
                                        const char *stored, const char *sealed, bool *found,
                                        struct gq_error *err);
enum gq_code pg_endpoint_update(struct store_backend *backend,
                                const struct stored_endpoint *endpoint,
                                const struct audit_line *audit, bool *found, struct gq_error *err);
enum gq_code pg_endpoint_delete(struct store_backend *backend, const char *id,
                                const struct audit_line *audit, bool *found, struct gq_error *err);
enum gq_code pg_deliveries_read(struct store_backend *backend, const char *endpoint_id,
                                const char *starting_after, size_t limit, struct delivery_page *out,
                                struct gq_error *err);
enum gq_code pg_delivery_retry(struct store_backend *backend, const char *endpoint_id,
                               const char *delivery_id, int64_t now_ms,
                               const struct audit_line *audit, bool *found, struct gq_error *err);
enum gq_code pg_deliveries_claim(struct store_backend *backend, int64_t now_ms, int64_t lease_ms,
                                 size_t max, struct claimed_delivery **out, size_t *count,
                                 struct gq_error *err);
enum gq_code pg_delivery_finish(struct store_backend *backend, const struct delivery_end *end,
                                bool *disabled, struct gq_error *err);

/* Writes an audit line inside the caller's transaction (keys.c). */
enum gq_code pg_audit_append(struct pg_conn *conn, const struct audit_line *line,
                             struct gq_error *err);

/* price_lists.c */
enum gq_code pg_price_lists_read(struct store_backend *backend, int64_t version,
                                 struct price_list_set *out, struct gq_error *err);
enum gq_code pg_price_list_write(struct store_backend *backend,
                                 const struct price_list_write *write,
                                 const struct audit_line *audit, bool *applied,
                                 struct gq_error *err);

/* customer_rules.c */
enum gq_code pg_customer_rules_read(struct store_backend *backend, const char *customer_id,
                                    struct customer_rule_list *out, struct gq_error *err);
enum gq_code pg_customer_rule_write(struct store_backend *backend,
                                    const struct customer_rule_write *write, struct gq_error *err);

/* promotion_codes.c */
enum gq_code pg_promotion_codes_read(struct store_backend *backend, const char *name,
                                     struct promotion_code_list *out, struct gq_error *err);
enum gq_code pg_promotion_code_insert(struct store_backend *backend,
                                      const struct stored_promotion_code *code,
                                      const struct audit_line *audit, bool *inserted,
                                      struct gq_error *err);
enum gq_code pg_promotion_code_deactivate(struct store_backend *backend, const char *name,
                                          int64_t now, const struct audit_line *audit,
                                          struct stored_promotion_code *out, bool *found,
                                          struct gq_error *err);
/* Inside an accept's transaction: one more redemption of `name` unless it
 * has reached its limit (*redeemed false: nothing changed). */
enum gq_code pg_promotion_code_redeem(struct pg_conn *conn, const char *name, int64_t now,
                                      bool *redeemed, struct gq_error *err);

#endif
