/*
 * The store's private plumbing, shared by its files and by nothing else: the
 * connection pool, per-connection cached statements, transactions, and the
 * mapping of SQLite result codes to gq codes.
 *
 * A caller checks a connection out (store_db_checkout), uses it alone, and
 * checks it back in (store_db_checkin), which resets every cached statement
 * and rolls back a transaction left open, so a connection always returns to
 * the pool clean. Cached statements belong to their connection and are never
 * finalized by callers; statements from store_db_prepare are theirs to
 * finalize.
 */
#ifndef GQ_STORE_DB_H
#define GQ_STORE_DB_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "store/store.h"

/* Most statements one connection caches; an assert guards it. */
#define STORE_DB_CACHE_SIZE 32

struct store_db_cached {
    const char *sql; /* the key: the address of a static string */
    sqlite3_stmt *stmt;
};

struct store_conn {
    sqlite3 *db;
    struct store_db_cached cache[STORE_DB_CACHE_SIZE];
    unsigned n_cached;
    pthread_mutex_t *write_lock; /* the store's: one writer at a time */
    int write_wait_ms;           /* how long to wait for it (the busy timeout) */
    bool writing;                /* holds write_lock, in a write transaction */
    int64_t changes_at_begin;    /* sqlite3_total_changes64() when it began */
    atomic_bool *storage_failing; /* the store's: the last write hit the disk's limits */
};

/* Waits for a free connection of the pool and returns it; never NULL. */
struct store_conn *store_db_checkout(struct store *store);

/* Returns `conn` to the pool clean (statements reset, no transaction). */
void store_db_checkin(struct store *store, struct store_conn *conn);

/* The statement for `sql` on `conn`, prepared once (persistent) and reused;
 * `sql` must be a string with static storage, since its address is the key.
 * Returns NULL with err filled when it does not prepare. The statement is
 * reset and its bindings cleared at check-in, or by store_db_done(). */
sqlite3_stmt *store_db_cached(struct store_conn *conn, const char *sql, struct gq_error *err);

/* A one-off statement the caller finalizes. NULL with err filled on error. */
sqlite3_stmt *store_db_prepare(struct store_conn *conn, const char *sql, struct gq_error *err);

/* Resets `stmt` and clears its bindings, ready for the next use. */
void store_db_done(sqlite3_stmt *stmt);

/* BEGIN IMMEDIATE (a write transaction, taking the write lock now, waiting
 * up to the busy timeout), BEGIN (a read transaction) and COMMIT.
 * Writers of this process first take the store's write mutex, so they queue
 * in order instead of meeting in SQLite's busy handler, which sleeps for
 * whole milliseconds; SQLite's busy handler then waits for other processes
 * only what is left of the busy timeout, so a write gives up after one busy
 * timeout in all. COMMIT releases the mutex, and rolls back if it fails.
 * Each returns GQ_OK, GQ_ERR_RETRY_LATER when the database stays busy, or
 * GQ_ERR_INTERNAL with SQLite's message. */
enum gq_code store_db_begin_write(struct store_conn *conn, struct gq_error *err);
enum gq_code store_db_begin_read(struct store_conn *conn, struct gq_error *err);
enum gq_code store_db_commit(struct store_conn *conn, struct gq_error *err);

/* Ends the connection's transaction however it went: rolls back what is
 * still open (nothing after a commit) and releases the write mutex if held.
 * Never fails visibly; called after every begin, committed or not. */
void store_db_end(struct store_conn *conn);

/* Turns SQLite result `rc` on `conn` into a gq code and fills err:
 * SQLITE_BUSY/SQLITE_LOCKED become GQ_ERR_RETRY_LATER ("database is busy,
 * retry"), SQLITE_NOMEM GQ_ERR_NO_MEMORY, anything else GQ_ERR_INTERNAL with
 * "<what>: <SQLite's message>". */
enum gq_code store_db_fail(struct store_conn *conn, int rc, const char *what, struct gq_error *err);

/* True when `rc` (possibly an extended code) means another connection holds
 * the lock. */
bool store_db_is_busy(int rc);

/* A copy of column `column` of the current row as a NUL-terminated string
 * (NULL stays NULL: *out = NULL). Returns false when out of memory. */
bool store_db_column_strdup(sqlite3_stmt *stmt, int column, char **out);

/* ---- Background WAL checkpoints (checkpoint.c) ---- */

struct store_checkpointer;

/* Opens its own connection to `path` and starts the checkpoint thread,
 * which holds `write_lock` (the store's) while it restarts the WAL. */
enum gq_code store_checkpointer_start(const char *path, pthread_mutex_t *write_lock,
                                      struct store_checkpointer **out, struct gq_error *err);

/* Stops the thread, checkpoints once more and closes. NULL is fine. */
void store_checkpointer_stop(struct store_checkpointer *checkpointer);

/* The sqlite3_wal_hook of every pool connection, `argument` the
 * checkpointer: asks for a checkpoint once the WAL passes its threshold. */
int store_checkpointer_on_commit(void *argument, sqlite3 *db, const char *name, int pages);

/* ---- Group commit of saved quotes (quote_batch.c) ---- */

struct store_quote_batcher;

/* Starts the writer thread, which checks connections out of `store`. */
enum gq_code store_quote_batcher_start(struct store *store, struct store_quote_batcher **out,
                                       struct gq_error *err);

/* Fails saves submitted from now on, finishes every queued one and stops
 * the thread. NULL is fine. */
void store_quote_batcher_stop(struct store_quote_batcher *batcher);

/* The store's batcher (db.c). */
struct store_quote_batcher *store_db_batcher(struct store *store);

/* Inside a write transaction on `conn`: checks one save and replays or
 * inserts it, filling its results (quotes.c). */
void store_quote_save_locked(struct store_conn *conn, struct quote_save *save);

#endif
