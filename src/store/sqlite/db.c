/*
 * The SQLite backend: opening the database and its connections, cached
 * statements, transactions, health, and the backend's table of operations.
 *
 * sqlite_open() checks the path (a clear message for a missing directory or a
 * missing file), then opens `pool_size` connections, each with a busy
 * timeout, WAL journaling, synchronous=NORMAL and foreign keys on, into the
 * store's pool (pool.c). A connection is used by one thread at a time, so
 * connections are opened without SQLite's own mutex (NOMUTEX).
 *
 * Each connection caches the statements of the hot paths (quotes,
 * transactions) as persistent prepared statements, keyed by the address of
 * their static SQL text. Check-in resets them all, so no statement keeps a
 * read snapshot open while the connection idles.
 *
 * Every write transaction's commit, and every health check, first makes
 * sure that the file at the configured path is still the database open: a
 * database deleted or renamed under the server refuses writes rather than
 * acknowledge quotes that the next start would not find.
 */
#include "store/sqlite/db.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/counters.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"

static const char SQL_BEGIN_WRITE[] = "BEGIN IMMEDIATE";
static const char SQL_BEGIN_READ[] = "BEGIN";
static const char SQL_COMMIT[] = "COMMIT";
static const char SQL_ROLLBACK[] = "ROLLBACK";
static const char SQL_PING[] = "SELECT 1";

bool sqlite_db_is_busy(int rc)
{
    int primary = rc & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

/* The storage refused a write: full, failing, or not writable. (Not a
 * constraint, a busy lock or a bug in a statement.) */
static bool is_storage_failure(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return true;
    default:
        return false;
    }
}

enum gq_code sqlite_db_fail(struct sqlite_conn *conn, int rc, const char *what,
                            struct gq_error *err)
{
    store_count_error(sqlite_db_is_busy(rc)         ? STORE_ERROR_BUSY
                      : (rc & 0xff) == SQLITE_NOMEM ? STORE_ERROR_NO_MEMORY
                      : is_storage_failure(rc)      ? STORE_ERROR_STORAGE
                                                    : STORE_ERROR_OTHER);
    if (sqlite_db_is_busy(rc))
        return gq_fail_msg(err, GQ_ERR_RETRY_LATER, NULL, MSG_DATABASE_BUSY);
    if ((rc & 0xff) == SQLITE_NOMEM)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "%s: out of memory", what);
    if (conn != NULL && conn->storage_failing != NULL && is_storage_failure(rc))
        atomic_store(conn->storage_failing, true);
    const char *message = conn != NULL ? sqlite3_errmsg(conn->db) : sqlite3_errstr(rc);
    return gq_fail(err, GQ_ERR_INTERNAL, NULL, "%s: %s", what, message);
}

/* ---- The path: a clear message before SQLite gives a vague one. ---- */

/* Copies the directory part of `path` into `out` ("." when there is none). */
static void copy_directory_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(out, size, ".");
    else if (slash == path)
        snprintf(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

static enum gq_code check_path(const struct store_options *options, struct gq_error *err)
{
    const char *path = options->database;
    if (path == NULL || path[0] == '\0')
        return gq_fail(err, GQ_ERR_NOT_READY, NULL, "no database path is configured");
    char directory[4096];
    copy_directory_of(path, directory, sizeof directory);
    struct stat info;
    if (stat(directory, &info) != 0 || !S_ISDIR(info.st_mode))
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "directory %s of database %s does not exist (create it first)", directory,
                       path);
    /* SQLite would only say "unable to open database file", or, for a file
     * that is writable in a directory that is not, "attempt to write a
     * readonly database": in WAL mode it creates files beside the database. */
    if (access(directory, W_OK | X_OK) != 0)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "directory %s of database %s is not writable by this process (uid %u): "
                       "SQLite creates the database's -wal and -shm files there",
                       directory, path, (unsigned)getuid());
    if (stat(path, &info) != 0) {
        if (errno == ENOENT && !options->create)
            return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                           "database %s does not exist (run 'gpuquote migrate')", path);
        if (errno != ENOENT)
            return gq_fail(err, GQ_ERR_NOT_READY, NULL, "database %s: %s", path, strerror(errno));
    } else if (!S_ISREG(info.st_mode)) {
        return gq_fail(err, GQ_ERR_NOT_READY, NULL, "database %s is not a regular file", path);
    } else if (access(path, W_OK) != 0) {
        /* Checked before SQLite opens it: SQLite would first create the
         * -shm file with the database's read-only mode, which then breaks
         * the next start even once the database is made writable.
         * (sqlite_check_writable() still asks SQLite itself.) */
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "database is not writable: %s is read-only to this process", path);
    }
    return GQ_OK;
}

/* ---- One connection. ---- */

static enum gq_code configure_connection(struct sqlite_conn *conn, int busy_timeout_ms,
                                         const char *path, struct gq_error *err)
{
    /* journal_size_limit trims the WAL file back to 8 MB whenever the WAL
     * restarts (checkpoint.c). */
    static const char pragmas[] = "PRAGMA journal_mode=WAL;"
                                  "PRAGMA synchronous=NORMAL;"
                                  "PRAGMA foreign_keys=ON;"
                                  "PRAGMA journal_size_limit=8388608;";
    int rc = sqlite3_busy_timeout(conn->db, busy_timeout_ms > 0 ? busy_timeout_ms : 0);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(conn->db, pragmas, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL, "database %s: %s", path,
                       sqlite3_errmsg(conn->db));
    return GQ_OK;
}

static void close_connection(struct sqlite_conn *conn);

/* Opens and configures `conn`; on failure it is left closed. */
static enum gq_code open_connection(const struct store_options *options, struct sqlite_conn *conn,
                                    struct gq_error *err)
{
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    if (options->create)
        flags |= SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(options->database, &conn->db, flags, NULL);
    if (rc != SQLITE_OK) {
        enum gq_code code =
            gq_fail(err, GQ_ERR_NOT_READY, NULL, "cannot open database %s: %s", options->database,
                    conn->db != NULL ? sqlite3_errmsg(conn->db) : sqlite3_errstr(rc));
        sqlite3_close(conn->db);
        conn->db = NULL;
        return code;
    }
    enum gq_code code =
        configure_connection(conn, options->busy_timeout_ms, options->database, err);
    if (code != GQ_OK)
        close_connection(conn);
    return code;
}

static void close_connection(struct sqlite_conn *conn)
{
    for (unsigned i = 0; i < conn->n_cached; i++)
        sqlite3_finalize(conn->cache[i].stmt);
    conn->n_cached = 0;
    sqlite3_close(conn->db);
    conn->db = NULL;
}

/* ---- The backend: its connections in the pool. ---- */

/* Records the WAL file's identity, once every connection is open. */
static void record_wal(struct sqlite_store *store)
{
    struct stat info;
    size_t size = strlen(store->path) + sizeof "-wal";
    store->wal_path = malloc(size);
    if (store->wal_path == NULL)
        return; /* the database file alone is then watched */
    snprintf(store->wal_path, size, "%s-wal", store->path);
    if (stat(store->wal_path, &info) == 0) {
        store->wal_dev = info.st_dev;
        store->wal_ino = info.st_ino;
    }
}

enum gq_code sqlite_open(const struct store_options *options, struct store_backend **out,
                         struct gq_error *err)
{
    assert(options != NULL && out != NULL);
    *out = NULL;
    enum gq_code code = check_path(options, err);
    if (code != GQ_OK)
        return code;
    struct sqlite_store *store = calloc(1, sizeof *store);
    if (store == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    store->path = strdup(options->database);
    store->pool = store_pool_new(options->pool_size);
    store->conns = calloc(options->pool_size, sizeof *store->conns);
    if (store->path == NULL || store->pool == NULL || store->conns == NULL) {
        sqlite_close((struct store_backend *)store);
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    }
    if (pthread_mutex_init(&store->write_lock, NULL) != 0) {
        sqlite_close((struct store_backend *)store);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot create the write mutex");
    }
    store->write_lock_ready = true;
    /* Connections open one after another: the first one switches the file
     * to WAL (creating it when allowed), the others find it so. */
    for (unsigned i = 0; i < options->pool_size; i++) {
        struct sqlite_conn *conn = &store->conns[i];
        code = open_connection(options, conn, err);
        if (code != GQ_OK) {
            sqlite_close((struct store_backend *)store);
            return code;
        }
        store->n_conns = i + 1;
        conn->store = store;
        conn->write_lock = &store->write_lock;
        conn->storage_failing = &store->storage_failing;
        conn->write_wait_ms = options->busy_timeout_ms;
        store_pool_add(store->pool, conn);
    }
    code =
        sqlite_checkpointer_start(options->database, &store->write_lock, &store->checkpointer, err);
    if (code != GQ_OK) {
        sqlite_close((struct store_backend *)store);
        return code;
    }
    for (unsigned i = 0; i < store->n_conns; i++)
        sqlite3_wal_hook(store->conns[i].db, sqlite_checkpointer_on_commit, store->checkpointer);
    record_wal(store);
    *out = (struct store_backend *)store;
    return GQ_OK;
}

/* Closes every connection. The caller makes sure no thread still uses the
 * store (all connections are checked in). NULL is allowed. */
void sqlite_close(struct store_backend *backend)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    if (store == NULL)
        return;
    for (unsigned i = 0; i < store->n_conns; i++)
        close_connection(&store->conns[i]);
    sqlite_checkpointer_stop(store->checkpointer);
    if (store->write_lock_ready)
        pthread_mutex_destroy(&store->write_lock);
    store_pool_free(store->pool);
    free(store->conns);
    free(store->wal_path);
    free(store->path);
    free(store);
}

struct sqlite_conn *sqlite_db_checkout(struct sqlite_store *store)
{
    return store_pool_checkout(store->pool);
}

void sqlite_db_checkin(struct sqlite_store *store, struct sqlite_conn *conn)
{
    for (unsigned i = 0; i < conn->n_cached; i++)
        sqlite_db_done(conn->cache[i].stmt);
    sqlite_db_end(conn);
    store_pool_checkin(store->pool, conn);
}

/* ---- Statements. ---- */

sqlite3_stmt *sqlite_db_cached(struct sqlite_conn *conn, const char *sql, struct gq_error *err)
{
    for (unsigned i = 0; i < conn->n_cached; i++)
        if (conn->cache[i].sql == sql)
            return conn->cache[i].stmt;
    assert(conn->n_cached < SQLITE_DB_CACHE_SIZE);
    if (conn->n_cached >= SQLITE_DB_CACHE_SIZE) {
        gq_fail(err, GQ_ERR_INTERNAL, NULL, "statement cache is full");
        return NULL;
    }
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v3(conn->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
    if (rc != SQLITE_OK) {
        sqlite_db_fail(conn, rc, "preparing a statement", err);
        return NULL;
    }
    conn->cache[conn->n_cached].sql = sql;
    conn->cache[conn->n_cached].stmt = stmt;
    conn->n_cached++;
    return stmt;
}

/* Runs `write` (with `context`) in one write transaction on a connection of
 * the pool, committed when it succeeds. */
enum gq_code sqlite_db_in_write_transaction(struct sqlite_store *store,
                                            enum gq_code (*write)(struct sqlite_conn *conn,
                                                                  void *context,
                                                                  struct gq_error *err),
                                            void *context, struct gq_error *err)
{
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    enum gq_code code = sqlite_db_begin_write(conn, err);
    if (code == GQ_OK)
        code = write(conn, context, err);
    if (code == GQ_OK)
        code = sqlite_db_commit(conn, err);
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    return code;
}

sqlite3_stmt *sqlite_db_prepare(struct sqlite_conn *conn, const char *sql, struct gq_error *err)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(conn->db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        sqlite_db_fail(conn, rc, "preparing a statement", err);
        return NULL;
    }
    return stmt;
}

void sqlite_db_done(sqlite3_stmt *stmt)
{
    if (stmt == NULL)
        return;
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
}

struct stored_response sqlite_db_column_stored(sqlite3_stmt *stmt, int text_column,
                                               int block_column, int size_column)
{
    struct stored_response stored = {0};
    if (sqlite3_column_type(stmt, block_column) == SQLITE_NULL) {
        stored.text = (const char *)sqlite3_column_text(stmt, text_column);
    } else {
        const char *block = sqlite3_column_blob(stmt, block_column);
        stored.block = block != NULL ? block : ""; /* an empty blob reads as NULL */
        stored.block_size = (size_t)sqlite3_column_bytes(stmt, block_column);
        stored.size = sqlite3_column_int64(stmt, size_column);
    }
    return stored;
}

bool sqlite_db_column_strdup(sqlite3_stmt *stmt, int column, char **out)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    if (text == NULL) {
        *out = NULL;
        return sqlite3_column_type(stmt, column) == SQLITE_NULL;
    }
    size_t size = (size_t)sqlite3_column_bytes(stmt, column);
    char *copy = malloc(size + 1);
    if (copy == NULL)
        return false;
    memcpy(copy, text, size);
    copy[size] = '\0';
    *out = copy;
    return true;
}

/* ---- Transactions. ---- */

/* Runs one cached statement that returns no rows. */
static enum gq_code run_cached(struct sqlite_conn *conn, const char *sql, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, sql, err);
    return GQ_OK;
}

/* Takes the store's write mutex, waiting at most the busy timeout.
 * pthread_mutex_timedlock's deadline is on the wall clock, which a clock
 * step moves: a step forward would end the wait early, so the time waited
 * is measured on the monotonic clock and the wait resumed. (A step back
 * lengthens a wait only while another writer holds the lock.) */
static bool take_write_lock(struct sqlite_conn *conn)
{
    int64_t wait_us = (int64_t)conn->write_wait_ms * 1000;
    int64_t started_us = clock_monotonic_us();
    for (;;) {
        int64_t left_us = wait_us - (clock_monotonic_us() - started_us);
        struct timespec deadline = clock_after(CLOCK_REALTIME, left_us > 0 ? left_us * 1000 : 0);
        int rc = pthread_mutex_timedlock(conn->write_lock, &deadline);
        if (rc != ETIMEDOUT)
            return rc == 0;
        if (clock_monotonic_us() - started_us >= wait_us)
            return false;
    }
}

static void release_write_lock(struct sqlite_conn *conn)
{
    if (!conn->writing)
        return;
    conn->writing = false;
    pthread_mutex_unlock(conn->write_lock);
}

enum gq_code sqlite_db_begin_write(struct sqlite_conn *conn, struct gq_error *err)
{
    if (conn->write_lock == NULL)
        return run_cached(conn, SQL_BEGIN_WRITE, err);
    int64_t started_us = clock_monotonic_us();
    if (!take_write_lock(conn))
        return gq_fail_msg(err, GQ_ERR_RETRY_LATER, NULL, MSG_DATABASE_BUSY);
    conn->writing = true;
    /* SQLite may wait for another process only what is left of the busy
     * timeout after waiting for this one's writers: one timeout in all. */
    int64_t left_ms = conn->write_wait_ms - (clock_monotonic_us() - started_us) / 1000;
    sqlite3_busy_timeout(conn->db, left_ms > 0 ? (int)left_ms : 0);
    enum gq_code code = run_cached(conn, SQL_BEGIN_WRITE, err);
    sqlite3_busy_timeout(conn->db, conn->write_wait_ms > 0 ? conn->write_wait_ms : 0);
    if (code != GQ_OK)
        release_write_lock(conn);
    conn->changes_at_begin = sqlite3_total_changes64(conn->db);
    return code;
}

enum gq_code sqlite_db_begin_read(struct sqlite_conn *conn, struct gq_error *err)
{
    return run_cached(conn, SQL_BEGIN_READ, err);
}

/* True when the file at the database's path is no longer the one this
 * connection has open, or its WAL has gone: deleted, renamed or replaced.
 * SQLite goes on writing to the open files, so a commit would succeed and
 * be lost with the process (a new start would create an empty database).
 * SQLite's unix VFS answers SQLITE_FCNTL_HAS_MOVED with a stat() of the
 * path against the inode it opened. */
static bool files_have_moved(const struct sqlite_store *store, sqlite3 *db)
{
    int moved = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved)
        return true;
    /* The VFS answers that only for the database file itself: the WAL is
     * compared with what it was at open. (It stays while any connection
     * is open, and this process keeps its own open.) */
    struct stat info;
    return store != NULL && store->wal_ino != 0 &&
           (stat(store->wal_path, &info) != 0 || info.st_dev != store->wal_dev ||
            info.st_ino != store->wal_ino);
}

/* Looks at the files now and records the answer in the store; the change
 * is logged once each way. True when the database has gone. */
static bool database_has_gone(struct sqlite_conn *conn)
{
    struct sqlite_store *store = conn->store;
    bool gone = files_have_moved(store, conn->db);
    if (store == NULL || atomic_exchange(&store->database_gone, gone) == gone)
        return gone;
    if (gone)
        log_error("database %s or its -wal file was deleted, renamed or replaced while the "
                  "server runs: writes "
                  "are refused (503 retry_later) and /readyz answers 503 until the file is back "
                  "at that path; a restart would create an empty database there",
                  store->path);
    else
        log_info("database %s is back at its path: writes resume", store->path);
    return gone;
}

/* `code` with the cause, for the log: a write to a database that has gone
 * is never acknowledged. */
static enum gq_code fail_gone(struct sqlite_conn *conn, enum gq_code code, struct gq_error *err)
{
    return gq_fail(err, code, NULL,
                   "database %s or its -wal file was deleted, renamed or replaced while the "
                   "server runs",
                   conn->store != NULL ? conn->store->path : "?");
}

enum gq_code sqlite_db_commit(struct sqlite_conn *conn, struct gq_error *err)
{
    if (conn->writing && database_has_gone(conn)) {
        sqlite_db_end(conn);
        return fail_gone(conn, GQ_ERR_RETRY_LATER, err);
    }
    /* Only a commit that changed rows proves the storage takes writes: a
     * read (a catalog reload), a replayed quote or an accept of a quote
     * already accepted commits nothing. */
    bool wrote = conn->writing && sqlite3_total_changes64(conn->db) > conn->changes_at_begin;
    enum gq_code code = run_cached(conn, SQL_COMMIT, err);
    if (code != GQ_OK)
        sqlite_db_end(conn);
    else if (wrote && conn->storage_failing != NULL)
        atomic_store(conn->storage_failing, false);
    release_write_lock(conn);
    return code;
}

void sqlite_db_end(struct sqlite_conn *conn)
{
    if (!sqlite3_get_autocommit(conn->db) && run_cached(conn, SQL_ROLLBACK, NULL) != GQ_OK)
        sqlite3_exec(conn->db, SQL_ROLLBACK, NULL, NULL, NULL);
    release_write_lock(conn);
}

/* ---- Health. ---- */

/* Starts an immediate transaction and rolls it back: proof that this
 * process can take the write lock. GQ_ERR_NOT_READY with the reason when it
 * cannot. A file this process may only read (its mode, an immutable flag)
 * opens read-only without an error, and BEGIN IMMEDIATE still succeeds on
 * it, so that case is asked of SQLite first. */
enum gq_code sqlite_check_writable(struct store_backend *backend, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    if (sqlite3_db_readonly(conn->db, "main") == 1) {
        const char *path = sqlite3_db_filename(conn->db, "main");
        enum gq_code code =
            gq_fail_msg(err, GQ_ERR_NOT_READY, NULL, MSG_DATABASE_READ_ONLY,
                        MSG_TEXT(path != NULL && path[0] != '\0' ? path : "the file"));
        sqlite_db_checkin(store, conn);
        return code;
    }
    struct gq_error local;
    enum gq_code code = sqlite_db_begin_write(conn, &local);
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    if (code != GQ_OK)
        return gq_fail_msg(err, GQ_ERR_NOT_READY, NULL, MSG_DATABASE_NOT_WRITABLE,
                           MSG_TEXT(local.message));
    return GQ_OK;
}

/* Rewrites the database header's user_version with its own value in a
 * write transaction: the smallest write that must reach the storage. */
static enum gq_code probe_write(struct sqlite_conn *conn, struct gq_error *err)
{
    enum gq_code code = sqlite_db_begin_write(conn, err);
    if (code != GQ_OK)
        return code;
    sqlite3_stmt *stmt = sqlite_db_prepare(conn, "PRAGMA user_version", err);
    if (stmt == NULL) {
        sqlite_db_end(conn);
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    }
    int rc = sqlite3_step(stmt);
    int version = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
    sqlite3_finalize(stmt);
    if (rc != SQLITE_ROW) { /* never write a version not read */
        code = sqlite_db_fail(conn, rc, "reading the version", err);
        sqlite_db_end(conn);
        return code;
    }
    char sql[48];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", version);
    rc = sqlite3_exec(conn->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        code = sqlite_db_fail(conn, rc, "writing", err);
        sqlite_db_end(conn);
        return code;
    }
    /* A pragma changes no row, so the commit does not count it as a write:
     * the probe says so itself. */
    code = sqlite_db_commit(conn, err);
    if (code == GQ_OK && conn->storage_failing != NULL)
        atomic_store(conn->storage_failing, false);
    return code;
}

enum gq_code sqlite_check_storage(struct store_backend *backend, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    if (database_has_gone(conn)) {
        enum gq_code gone = fail_gone(conn, GQ_ERR_NOT_READY, err);
        sqlite_db_checkin(store, conn);
        return gone;
    }
    struct gq_error local;
    enum gq_code code = GQ_OK;
    if (atomic_load(&store->storage_failing))
        code = probe_write(conn, &local);
    sqlite_db_checkin(store, conn);
    if (code == GQ_OK || code == GQ_ERR_RETRY_LATER) /* busy: another writer, so not the disk */
        return GQ_OK;
    return gq_fail(err, GQ_ERR_NOT_READY, NULL, "the database cannot be written: %s",
                   local.message);
}

bool sqlite_failed_since_check(struct store_backend *backend)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    return atomic_load(&store->storage_failing) || atomic_load(&store->database_gone);
}

/* GQ_OK when `SELECT 1` runs; GQ_ERR_NOT_READY otherwise. */
enum gq_code sqlite_ping(struct store_backend *backend, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, SQL_PING, NULL);
    int rc = stmt != NULL ? sqlite3_step(stmt) : SQLITE_ERROR;
    sqlite_db_done(stmt);
    sqlite_db_checkin(store, conn);
    if (rc != SQLITE_ROW)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL, "the database does not answer");
    return GQ_OK;
}

const struct store_backend_ops sqlite_backend_ops = {
    .name = "sqlite",
    .open = sqlite_open,
    .close = sqlite_close,
    .read_history = sqlite_read_history,
    .apply_migration = sqlite_apply_migration,
    .ping = sqlite_ping,
    .check_writable = sqlite_check_writable,
    .check_storage = sqlite_check_storage,
    .failed_since_check = sqlite_failed_since_check,
    .read_catalog = sqlite_read_catalog,
    .price_list_version = sqlite_price_list_version,
    .wait_for_catalog_change = sqlite_wait_for_catalog_change,
    .save_quotes = sqlite_save_quotes,
    .get_quote = sqlite_get_quote,
    .recent_requests = sqlite_recent_requests,
    .end_quote = sqlite_end_quote,
    .list_quotes = sqlite_list_quotes,
    .expire_quotes = sqlite_expire_quotes,
    .delete_ended_quotes = sqlite_delete_ended_quotes,
    .delete_past_retention = sqlite_delete_past_retention,
    .release_key = sqlite_release_key,
    .keys_version = sqlite_keys_version,
    .keys_read = sqlite_keys_read,
    .key_insert = sqlite_key_insert,
    .key_revoke = sqlite_key_revoke,
    .keys_touch = sqlite_keys_touch,
    .audit_read = sqlite_audit_read,
    .append_event = sqlite_append_event,
    .events_read = sqlite_events_read,
    .customer_write = sqlite_customer_write,
    .customers_read = sqlite_customers_read,
    .verification_write = sqlite_verification_write,
    .verifications_read = sqlite_verifications_read,
    .expire_verifications = sqlite_expire_verifications,
    .customer_rules_read = sqlite_customer_rules_read,
    .customer_rule_write = sqlite_customer_rule_write,
    .endpoint_insert = sqlite_endpoint_insert,
    .endpoints_read = sqlite_endpoints_read,
    .endpoint_update = sqlite_endpoint_update,
    .endpoint_secrets_read = sqlite_endpoint_secrets_read,
    .endpoint_secret_replace = sqlite_endpoint_secret_replace,
    .endpoint_delete = sqlite_endpoint_delete,
    .deliveries_read = sqlite_deliveries_read,
    .delivery_retry = sqlite_delivery_retry,
    .deliveries_claim = sqlite_deliveries_claim,
    .delivery_finish = sqlite_delivery_finish,
    .price_lists_read = sqlite_price_lists_read,
    .price_list_write = sqlite_price_list_write,
    .promotion_codes_read = sqlite_promotion_codes_read,
    .promotion_code_insert = sqlite_promotion_code_insert,
    .promotion_code_deactivate = sqlite_promotion_code_deactivate,
};
