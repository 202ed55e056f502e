/*
 * The SQLite backend's private plumbing, shared by the files of
 * src/store/sqlite/ and by nothing else: its state, its connections and
 * their cached statements, transactions, and the mapping of SQLite result
 * codes to gq codes.
 *
 * A caller checks a connection out (sqlite_db_checkout), uses it alone, and
 * checks it back in (sqlite_db_checkin), which resets every cached
 * statement and rolls back a transaction left open, so a connection always
 * returns to the pool clean. Cached statements belong to their connection
 * and are never finalized by callers; statements from sqlite_db_prepare
 * are theirs to finalize.
 */
#ifndef GQ_STORE_SQLITE_DB_H
#define GQ_STORE_SQLITE_DB_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "store/backend.h"
#include "store/queries.h"

/* Most statements one connection caches; an assert guards it. */
#define SQLITE_DB_CACHE_SIZE 64

struct sqlite_db_cached {
    const char *sql; /* the key: the address of a static string */
    sqlite3_stmt *stmt;
};

struct sqlite_store;

struct sqlite_conn {
    sqlite3 *db;
    struct sqlite_store *store; /* its owner; NULL for a connection of its own */
    struct sqlite_db_cached cache[SQLITE_DB_CACHE_SIZE];
    unsigned n_cached;
    pthread_mutex_t *write_lock;  /* the store's: one writer at a time */
    int write_wait_ms;            /* how long to wait for it (the busy timeout) */
    bool writing;                 /* holds write_lock, in a write transaction */
    int64_t changes_at_begin;     /* sqlite3_total_changes64() when it began */
    atomic_bool *storage_failing; /* the store's: the last write hit the disk's limits */
};

struct sqlite_checkpointer;

/* The backend's state: what `struct store_backend *` points to. */
struct sqlite_store {
    char *path;
    struct store_pool *pool;
    struct sqlite_conn *conns;
    unsigned n_conns;           /* opened so far */
    pthread_mutex_t write_lock; /* one write transaction at a time */
    bool write_lock_ready;
    /* A write failed on the storage (full disk, I/O error, read-only
     * file): set by sqlite_db_fail(), cleared by the next commit that
     * writes. */
    atomic_bool storage_failing;
    /* The file at `path` is no longer the database open (deleted, renamed
     * or replaced): set and cleared by each write's commit and each health
     * check, which then refuse to write. */
    atomic_bool database_gone;
    /* The WAL file as it was at open (SQLite keeps no identity of it to
     * compare): st_ino 0 when there was none to record. */
    char *wal_path;
    dev_t wal_dev;
    ino_t wal_ino;
    struct sqlite_checkpointer *checkpointer;
};

/* Statement `id` of queries.h in SQLite's dialect. */
static inline const char *sqlite_sql(enum store_sql id)
{
    return store_sql[id].shared != NULL ? store_sql[id].shared : store_sql[id].sqlite;
}

static inline struct sqlite_store *sqlite_store_of(struct store_backend *backend)
{
    return (struct sqlite_store *)backend;
}

/* Waits for a free connection of the pool and returns it; never NULL. */
struct sqlite_conn *sqlite_db_checkout(struct sqlite_store *store);

/* Returns `conn` to the pool clean (statements reset, no transaction). */
void sqlite_db_checkin(struct sqlite_store *store, struct sqlite_conn *conn);

/* The statement for `sql` on `conn`, prepared once (persistent) and reused;
 * `sql` must be a string with static storage, since its address is the key.
 * Returns NULL with err filled when it does not prepare. The statement is
 * reset and its bindings cleared at check-in, or by sqlite_db_done(). */
sqlite3_stmt *sqlite_db_cached(struct sqlite_conn *conn, const char *sql, struct gq_error *err);

/* A one-off statement the caller finalizes. NULL with err filled on error. */
sqlite3_stmt *sqlite_db_prepare(struct sqlite_conn *conn, const char *sql, struct gq_error *err);

/* Resets `stmt` and clears its bindings, ready for the next use. */
void sqlite_db_done(sqlite3_stmt *stmt);

/* BEGIN IMMEDIATE (a write transaction, taking the write lock now, waiting
 * up to the busy timeout), BEGIN (a read transaction) and COMMIT.
 * Writers of this process first take the store's write mutex, so they queue
 * in order instead of meeting in SQLite's busy handler, which sleeps for
 * whole milliseconds; SQLite's busy handler then waits for other processes
 * only what is left of the busy timeout, so a write gives up after one busy
 * timeout in all. COMMIT releases the mutex, and rolls back if it fails.
 * Each returns GQ_OK, GQ_ERR_RETRY_LATER when the database stays busy, or
 * GQ_ERR_INTERNAL with SQLite's message. */
enum gq_code sqlite_db_begin_write(struct sqlite_conn *conn, struct gq_error *err);
enum gq_code sqlite_db_begin_read(struct sqlite_conn *conn, struct gq_error *err);
enum gq_code sqlite_db_commit(struct sqlite_conn *conn, struct gq_error *err);

/* Ends the connection's transaction however it went: rolls back what is
 * still open (nothing after a commit) and releases the write mutex if held.
 * Never fails visibly; called after every begin, committed or not. */
/* Runs `write` (with `context`) in one write transaction on a connection
 * of the pool (BEGIN IMMEDIATE), committed when it returns GQ_OK. */
enum gq_code sqlite_db_in_write_transaction(struct sqlite_store *store,
                                            enum gq_code (*write)(struct sqlite_conn *conn,
                                                                  void *context,
                                                                  struct gq_error *err),
                                            void *context, struct gq_error *err);
void sqlite_db_end(struct sqlite_conn *conn);

/* Turns SQLite result `rc` on `conn` into a gq code and fills err:
 * SQLITE_BUSY/SQLITE_LOCKED become GQ_ERR_RETRY_LATER ("database is busy,
 * retry"), SQLITE_NOMEM GQ_ERR_NO_MEMORY, anything else GQ_ERR_INTERNAL with
 * "<what>: <SQLite's message>". */
enum gq_code sqlite_db_fail(struct sqlite_conn *conn, int rc, const char *what,
                            struct gq_error *err);

/* True when `rc` (possibly an extended code) means another connection holds
 * the lock. */
bool sqlite_db_is_busy(int rc);

/* A copy of column `column` of the current row as a NUL-terminated string
 * (NULL stays NULL: *out = NULL). Returns false when out of memory. */
bool sqlite_db_column_strdup(sqlite3_stmt *stmt, int column, char **out);

/* The current row's compressed-or-text value (a quote's response, an
 * event's body) from its three columns: the text (rows stored before
 * compression), the LZ4 block and the JSON's length. Borrowed from the row,
 * for store_unpack_stored(). */
struct stored_response sqlite_db_column_stored(sqlite3_stmt *stmt, int text_column,
                                               int block_column, int size_column);

/* ---- Statements as values (calls.c) ---- */

/* Column `column` of the current row as text, "" for NULL. */
const char *sqlite_db_text(sqlite3_stmt *stmt, int column);

/* One parameter of a statement, made with the macros below. */
enum sqlite_db_kind { SQLITE_DB_TEXT, SQLITE_DB_INT64, SQLITE_DB_BLOB, SQLITE_DB_NULL };
struct sqlite_db_param {
    enum sqlite_db_kind kind;
    const void *data; /* text (NULL binds NULL) or the blob's bytes */
    int64_t value;    /* the integer, or the blob's size */
};
#define SQLITE_DB_TEXT_OF(text)                                                                    \
    {                                                                                              \
        SQLITE_DB_TEXT, (text), 0                                                                  \
    }
#define SQLITE_DB_INT64_OF(integer)                                                                \
    {                                                                                              \
        SQLITE_DB_INT64, NULL, (int64_t)(integer)                                                  \
    }
#define SQLITE_DB_BLOB_OF(bytes, size)                                                             \
    {                                                                                              \
        SQLITE_DB_BLOB, (bytes), (int64_t)(size)                                                   \
    }
#define SQLITE_DB_NULL_PARAM                                                                       \
    {                                                                                              \
        SQLITE_DB_NULL, NULL, 0                                                                    \
    }

/* A statement (`sql` of static storage: sqlite_db_cached's key) with its
 * `n` parameters, bound as ?1..?n; `what` names it in a failure. */
struct sqlite_db_call {
    const char *sql;
    const struct sqlite_db_param *params;
    int n;
    const char *what;
};

/* Runs `call`, which returns no rows; *changed (may be NULL): whether it
 * changed one row. GQ_OK or the failure, with err filled. */
enum gq_code sqlite_db_change(struct sqlite_conn *conn, const struct sqlite_db_call *call,
                              bool *changed, struct gq_error *err);

/* Fills `item` (zeroed) from the current row: GQ_OK, or the failure with
 * err filled (what it copied is the item's, freed with its list). */
typedef enum gq_code (*sqlite_db_row_reader)(sqlite3_stmt *stmt, void *item, struct gq_error *err);

/* A growing array of `size`-byte items, to be moved to a typed list; a
 * failed read counts the item that failed too. */
struct sqlite_db_rows {
    void *items;
    size_t count;
};

/* Runs the query `call` and appends one item a row to `rows`, read with
 * `read`. GQ_OK, or the failure with err filled and `rows` holding what
 * was read, for the list's own free. */
enum gq_code sqlite_db_read_rows(struct sqlite_conn *conn, const struct sqlite_db_call *call,
                                 size_t size, sqlite_db_row_reader read,
                                 struct sqlite_db_rows *rows, struct gq_error *err);

/* sqlite_db_read_rows() on a connection of the pool. */
enum gq_code sqlite_db_read_pooled(struct store_backend *backend, const struct sqlite_db_call *call,
                                   size_t size, sqlite_db_row_reader read,
                                   struct sqlite_db_rows *rows, struct gq_error *err);

/* What a query that finds no row fails with. */
struct sqlite_db_absent {
    enum gq_code code;
    const char *message;
};

/* The first column of the first row of `call`, on a connection of the
 * pool, in *value. GQ_OK, `absent` when there is no row, or the failure;
 * err filled. */
enum gq_code sqlite_db_read_int64(struct store_backend *backend, const struct sqlite_db_call *call,
                                  const struct sqlite_db_absent *absent, int64_t *value,
                                  struct gq_error *err);

/* `reader` (sqlite_db_read_rows or sqlite_db_read_pooled, on `source`)
 * appending to `list`, a struct with `items` and `count`; its outcome in
 * `code`. */
#define SQLITE_DB_READ_LIST(reader, source, call, read, list, code, err)                           \
    do {                                                                                           \
        struct sqlite_db_rows rows_ = {(list)->items, (list)->count};                              \
        (code) = reader((source), (call), sizeof *(list)->items, (read), &rows_, (err));           \
        (list)->items = rows_.items;                                                               \
        (list)->count = rows_.count;                                                               \
    } while (0)

/* SQLITE_DB_READ_LIST() of statement `sql` whose one parameter is the
 * text `text`; `what` names the read in a failure's message. */
#define SQLITE_DB_READ_LIST_BY_TEXT(reader, source, sql, text, what, read, list, code, err)        \
    do {                                                                                           \
        const struct sqlite_db_param by_text_[] = {SQLITE_DB_TEXT_OF(text)};                       \
        const struct sqlite_db_call by_text_call_ = {sqlite_sql(sql), by_text_, 1, (what)};        \
        SQLITE_DB_READ_LIST(reader, source, &by_text_call_, read, list, code, err);                \
    } while (0)

/* ---- Background WAL checkpoints (checkpoint.c) ---- */

/* Opens its own connection to `path` and starts the checkpoint thread,
 * which holds `write_lock` (the store's) while it restarts the WAL. */
enum gq_code sqlite_checkpointer_start(const char *path, pthread_mutex_t *write_lock,
                                       struct sqlite_checkpointer **out, struct gq_error *err);

/* Stops the thread, checkpoints once more and closes. NULL is fine. */
void sqlite_checkpointer_stop(struct sqlite_checkpointer *checkpointer);

/* The sqlite3_wal_hook of every pool connection, `argument` the
 * checkpointer: asks for a checkpoint once the WAL passes its threshold. */
int sqlite_checkpointer_on_commit(void *argument, sqlite3 *db, const char *name, int pages);

/* Writes an audit line inside the caller's write transaction (keys.c). */
enum gq_code sqlite_audit_append(struct sqlite_conn *conn, const struct audit_line *line,
                                 struct gq_error *err);

/* ---- The operations of the table, by file ---- */

/* db.c */
enum gq_code sqlite_open(const struct store_options *options, struct store_backend **out,
                         struct gq_error *err);
void sqlite_close(struct store_backend *backend);
enum gq_code sqlite_ping(struct store_backend *backend, struct gq_error *err);
enum gq_code sqlite_check_writable(struct store_backend *backend, struct gq_error *err);
enum gq_code sqlite_check_storage(struct store_backend *backend, struct gq_error *err);
bool sqlite_failed_since_check(struct store_backend *backend);

/* migrate.c */
enum gq_code sqlite_read_history(struct store_backend *backend, struct migration_history *out,
                                 struct gq_error *err);
enum gq_code sqlite_apply_migration(struct store_backend *backend,
                                    const struct migration *migration, bool *applied,
                                    struct gq_error *err);

/* catalog.c */
enum gq_code sqlite_read_catalog(struct store_backend *backend, struct catalog_reader *reader,
                                 struct gq_error *err);
enum gq_code sqlite_price_list_version(struct store_backend *backend, int64_t *version,
                                       struct gq_error *err);
void sqlite_wait_for_catalog_change(struct store_backend *backend, int timeout_ms, int wake_fd);

/* quotes.c */
enum gq_code sqlite_save_quotes(struct store_backend *backend, struct quote_save *batch);
enum gq_code sqlite_get_quote(struct store_backend *backend, const char *id,
                              struct stored_quote *out, bool *found, struct gq_error *err);
enum gq_code sqlite_end_quote(struct store_backend *backend, const struct quote_end *end,
                              struct stored_quote *out, enum accept_outcome *outcome,
                              struct gq_error *err);
enum gq_code sqlite_list_quotes(struct store_backend *backend, const struct quote_filter *filter,
                                int64_t after_created, const char *after_id, struct quote_page *out,
                                struct gq_error *err);
enum gq_code sqlite_expire_quotes(struct store_backend *backend, int64_t now, int limit, int *count,
                                  struct gq_error *err);
enum gq_code sqlite_delete_ended_quotes(struct store_backend *backend, int64_t ended_before,
                                        int64_t accepted_before, int limit, int *count,
                                        struct gq_error *err);
enum gq_code sqlite_delete_past_retention(struct store_backend *backend, enum store_retention kind,
                                          int64_t before, int limit, int *count,
                                          struct gq_error *err);
enum gq_code sqlite_release_key(struct store_backend *backend, const char *quote_id,
                                const char *key, bool *released, struct gq_error *err);
enum gq_code sqlite_recent_requests(struct store_backend *backend, int limit, json_t **out,
                                    struct gq_error *err);

/* keys.c */
enum gq_code sqlite_keys_version(struct store_backend *backend, int64_t *version,
                                 struct gq_error *err);
enum gq_code sqlite_keys_read(struct store_backend *backend, bool with_revoked, const char *id,
                              struct key_list *out, struct gq_error *err);
enum gq_code sqlite_key_insert(struct store_backend *backend, const struct stored_key *key,
                               const struct audit_line *audit, struct gq_error *err);
enum gq_code sqlite_key_revoke(struct store_backend *backend, const char *id, int64_t now,
                               const struct audit_line *audit, struct stored_key *out, bool *found,
                               bool *was_revoked, struct gq_error *err);
enum gq_code sqlite_keys_touch(struct store_backend *backend, const struct stored_key *keys,
                               size_t count, struct gq_error *err);
enum gq_code sqlite_audit_read(struct store_backend *backend, int64_t since,
                               const char *starting_after, size_t limit, struct audit_page *out,
                               struct gq_error *err);
/* Writes an audit line inside the caller's write transaction. */
enum gq_code sqlite_audit_append(struct sqlite_conn *conn, const struct audit_line *line,
                                 struct gq_error *err);

/* events.c */
/* Appends `event` inside the caller's write transaction on `conn` (begun
 * with sqlite_db_begin_write), with one pending delivery for each enabled
 * webhook endpoint that takes its type: what every change that tells of
 * itself calls (quote.canceled, quote.expired, price_list.published ...).
 * GQ_OK, or the failure with err filled (the caller rolls back). Its last
 * statement is the deliveries' INSERT: sqlite3_changes() then counts them. */
enum gq_code sqlite_event_append(struct sqlite_conn *conn, const struct store_event *event,
                                 struct gq_error *err);
enum gq_code sqlite_append_event(struct store_backend *backend, const struct store_event *event,
                                 struct gq_error *err);
enum gq_code sqlite_events_read(struct store_backend *backend, const char *type,
                                const char *customer_id, const char *id, const char *starting_after,
                                size_t limit, struct event_page *out, struct gq_error *err);
/* customers.c */
enum gq_code sqlite_customer_write(struct store_backend *backend,
                                   const struct customer_write *write, bool *found,
                                   struct gq_error *err);
enum gq_code sqlite_customers_read(struct store_backend *backend,
                                   const struct customer_filter *filter, struct customer_page *out,
                                   struct gq_error *err);
/* verifications.c; sqlite_verifications_erase clears a customer's evidence
 * inside the erasure's transaction. */
enum gq_code sqlite_verification_write(struct store_backend *backend,
                                       const struct verification_write *write, bool *done,
                                       struct gq_error *err);
enum gq_code sqlite_verifications_read(struct store_backend *backend, const char *customer_id,
                                       const char *id, int64_t live_at,
                                       struct verification_list *out, struct gq_error *err);
enum gq_code sqlite_expire_verifications(struct store_backend *backend, int64_t now, int limit,
                                         int *count, struct gq_error *err);
enum gq_code sqlite_verifications_erase(struct sqlite_conn *conn, const char *customer_id,
                                        struct gq_error *err);
enum gq_code sqlite_endpoint_insert(struct store_backend *backend,
                                    const struct stored_endpoint *endpoint,
                                    const struct audit_line *audit, struct gq_error *err);
enum gq_code sqlite_endpoints_read(struct store_backend *backend, const char *id,
                                   struct endpoint_list *out, struct gq_error *err);
enum gq_code sqlite_endpoint_secrets_read(struct store_backend *backend, struct endpoint_list *out,
                                          struct gq_error *err);
enum gq_code sqlite_endpoint_secret_replace(struct store_backend *backend, const char *id,
                                            const char *stored, const char *sealed, bool *found,
                                            struct gq_error *err);
enum gq_code sqlite_endpoint_update(struct store_backend *backend,
                                    const struct stored_endpoint *endpoint,
                                    const struct audit_line *audit, bool *found,
                                    struct gq_error *err);
enum gq_code sqlite_endpoint_delete(struct store_backend *backend, const char *id,
                                    const struct audit_line *audit, bool *found,
                                    struct gq_error *err);
enum gq_code sqlite_deliveries_read(struct store_backend *backend, const char *endpoint_id,
                                    const char *starting_after, size_t limit,
                                    struct delivery_page *out, struct gq_error *err);
enum gq_code sqlite_delivery_retry(struct store_backend *backend, const char *endpoint_id,
                                   const char *delivery_id, int64_t now_ms,
                                   const struct audit_line *audit, bool *found,
                                   struct gq_error *err);
enum gq_code sqlite_deliveries_claim(struct store_backend *backend, int64_t now_ms,
                                     int64_t lease_ms, size_t max, struct claimed_delivery **out,
                                     size_t *count, struct gq_error *err);
enum gq_code sqlite_delivery_finish(struct store_backend *backend, const struct delivery_end *end,
                                    bool *disabled, struct gq_error *err);

/* price_lists.c */
enum gq_code sqlite_price_lists_read(struct store_backend *backend, int64_t version,
                                     struct price_list_set *out, struct gq_error *err);
enum gq_code sqlite_price_list_write(struct store_backend *backend,
                                     const struct price_list_write *write,
                                     const struct audit_line *audit, bool *applied,
                                     struct gq_error *err);

/* customer_rules.c */
enum gq_code sqlite_customer_rules_read(struct store_backend *backend, const char *customer_id,
                                        struct customer_rule_list *out, struct gq_error *err);
enum gq_code sqlite_customer_rule_write(struct store_backend *backend,
                                        const struct customer_rule_write *write,
                                        struct gq_error *err);

/* promotion_codes.c */
enum gq_code sqlite_promotion_codes_read(struct store_backend *backend, const char *name,
                                         struct promotion_code_list *out, struct gq_error *err);
enum gq_code sqlite_promotion_code_insert(struct store_backend *backend,
                                          const struct stored_promotion_code *code,
                                          const struct audit_line *audit, bool *inserted,
                                          struct gq_error *err);
enum gq_code sqlite_promotion_code_deactivate(struct store_backend *backend, const char *name,
                                              int64_t now, const struct audit_line *audit,
                                              struct stored_promotion_code *out, bool *found,
                                              struct gq_error *err);
/* Inside an accept's write transaction: one more redemption of `name`
 * unless it has reached its limit (*redeemed false: nothing changed). */
enum gq_code sqlite_promotion_code_redeem(struct sqlite_conn *conn, const char *name, int64_t now,
                                          bool *redeemed, struct gq_error *err);

#endif
