/*
 * Opening the database and the connection pool.
 *
 * store_open() checks the path (a clear message for a missing directory or a
 * missing file), then opens `pool_size` connections, each with a busy
 * timeout, WAL journaling, synchronous=NORMAL and foreign keys on. The pool is
 * a stack of idle connections under a mutex; a thread that finds it empty
 * waits on a condition variable. A connection is used by one thread at a
 * time, so connections are opened without SQLite's own mutex (NOMUTEX).
 *
 * Each connection caches the statements of the hot paths (quotes,
 * transactions) as persistent prepared statements, keyed by the address of
 * their static SQL text. Check-in resets them all, so no statement keeps a
 * read snapshot open while the connection idles.
 */
#include "store/db.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "util/clock.h"

struct store {
    pthread_mutex_t lock;
    pthread_cond_t available;
    pthread_mutex_t write_lock; /* one write transaction at a time */
    /* A write failed on the storage (full disk, I/O error, read-only
     * file): set by store_db_fail(), cleared by the next commit. */
    atomic_bool storage_failing;
    struct store_checkpointer *checkpointer;
    struct store_quote_batcher *batcher;
    bool sync_ready; /* lock and available were initialised */
    struct store_conn *conns;
    unsigned n_conns;         /* opened so far */
    struct store_conn **idle; /* stack of idle connections */
    unsigned n_idle;
};

static const char SQL_BEGIN_WRITE[] = "BEGIN IMMEDIATE";
static const char SQL_BEGIN_READ[] = "BEGIN";
static const char SQL_COMMIT[] = "COMMIT";
static const char SQL_ROLLBACK[] = "ROLLBACK";
static const char SQL_PING[] = "SELECT 1";

bool store_db_is_busy(int rc)
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

enum gq_code store_db_fail(struct store_conn *conn, int rc, const char *what, struct gq_error *err)
{
    if (store_db_is_busy(rc))
        return gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "database is busy, retry");
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
    const char *path = options->path;
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
         * (store_check_writable() still asks SQLite itself.) */
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "database is not writable: %s is read-only to this process", path);
    }
    return GQ_OK;
}

/* ---- One connection. ---- */

static enum gq_code configure_connection(struct store_conn *conn, int busy_timeout_ms,
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

static void close_connection(struct store_conn *conn);

/* Opens and configures `conn`; on failure it is left closed. */
static enum gq_code open_connection(const struct store_options *options, struct store_conn *conn,
                                    struct gq_error *err)
{
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    if (options->create)
        flags |= SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(options->path, &conn->db, flags, NULL);
    if (rc != SQLITE_OK) {
        enum gq_code code =
            gq_fail(err, GQ_ERR_NOT_READY, NULL, "cannot open database %s: %s", options->path,
                    conn->db != NULL ? sqlite3_errmsg(conn->db) : sqlite3_errstr(rc));
        sqlite3_close(conn->db);
        conn->db = NULL;
        return code;
    }
    enum gq_code code = configure_connection(conn, options->busy_timeout_ms, options->path, err);
    if (code != GQ_OK)
        close_connection(conn);
    return code;
}

static void close_connection(struct store_conn *conn)
{
    for (unsigned i = 0; i < conn->n_cached; i++)
        sqlite3_finalize(conn->cache[i].stmt);
    conn->n_cached = 0;
    sqlite3_close(conn->db);
    conn->db = NULL;
}

/* ---- The pool. ---- */

static enum gq_code allocate_pool(unsigned pool_size, struct store **out, struct gq_error *err)
{
    struct store *store = calloc(1, sizeof *store);
    if (store == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    store->conns = calloc(pool_size, sizeof *store->conns);
    store->idle = calloc(pool_size, sizeof *store->idle);
    if (store->conns == NULL || store->idle == NULL) {
        store_close(store);
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    }
    if (pthread_mutex_init(&store->lock, NULL) != 0) {
        store_close(store);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot create the pool's mutex");
    }
    if (pthread_cond_init(&store->available, NULL) != 0) {
        pthread_mutex_destroy(&store->lock);
        store_close(store);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot create the pool's condition");
    }
    if (pthread_mutex_init(&store->write_lock, NULL) != 0) {
        pthread_cond_destroy(&store->available);
        pthread_mutex_destroy(&store->lock);
        store_close(store);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot create the write mutex");
    }
    store->sync_ready = true;
    *out = store;
    return GQ_OK;
}

enum gq_code store_open(const struct store_options *options, struct store **out,
                        struct gq_error *err)
{
    assert(options != NULL && out != NULL);
    *out = NULL;
    if (options->pool_size < 1 || options->pool_size > 1024)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                       "database pool size %u is out of range 1..1024", options->pool_size);
    enum gq_code code = check_path(options, err);
    if (code != GQ_OK)
        return code;
    struct store *store = NULL;
    code = allocate_pool(options->pool_size, &store, err);
    if (code != GQ_OK)
        return code;
    /* Connections open one after another: the first one switches the file
     * to WAL (creating it when allowed), the others find it so. */
    for (unsigned i = 0; i < options->pool_size; i++) {
        code = open_connection(options, &store->conns[i], err);
        if (code != GQ_OK) {
            store_close(store);
            return code;
        }
        store->n_conns = i + 1;
        store->idle[store->n_idle++] = &store->conns[i];
        store->conns[i].write_lock = &store->write_lock;
        store->conns[i].storage_failing = &store->storage_failing;
        store->conns[i].write_wait_ms = options->busy_timeout_ms;
    }
    code = store_checkpointer_start(options->path, &store->write_lock, &store->checkpointer, err);
    if (code != GQ_OK) {
        store_close(store);
        return code;
    }
    for (unsigned i = 0; i < store->n_conns; i++)
        sqlite3_wal_hook(store->conns[i].db, store_checkpointer_on_commit, store->checkpointer);
    code = store_quote_batcher_start(store, &store->batcher, err);
    if (code != GQ_OK) {
        store_close(store);
        return code;
    }
    *out = store;
    return GQ_OK;
}

/* Closes every connection. The caller makes sure no thread still uses the
 * store (all connections are checked in). NULL is allowed. */
void store_close(struct store *store)
{
    if (store == NULL)
        return;
    store_quote_batcher_stop(store->batcher); /* writes what is queued */
    assert(store->n_idle == store->n_conns); /* nothing checked out */
    for (unsigned i = 0; i < store->n_conns; i++)
        close_connection(&store->conns[i]);
    store_checkpointer_stop(store->checkpointer);
    if (store->sync_ready) {
        pthread_cond_destroy(&store->available);
        pthread_mutex_destroy(&store->lock);
        pthread_mutex_destroy(&store->write_lock);
    }
    free(store->conns);
    free(store->idle);
    free(store);
}

struct store_quote_batcher *store_db_batcher(struct store *store)
{
    return store->batcher;
}

struct store_conn *store_db_checkout(struct store *store)
{
    pthread_mutex_lock(&store->lock);
    while (store->n_idle == 0)
        pthread_cond_wait(&store->available, &store->lock);
    struct store_conn *conn = store->idle[--store->n_idle];
    pthread_mutex_unlock(&store->lock);
    return conn;
}

void store_db_checkin(struct store *store, struct store_conn *conn)
{
    for (unsigned i = 0; i < conn->n_cached; i++)
        store_db_done(conn->cache[i].stmt);
    store_db_end(conn);
    pthread_mutex_lock(&store->lock);
    assert(store->n_idle < store->n_conns);
    store->idle[store->n_idle++] = conn;
    pthread_cond_signal(&store->available);
    pthread_mutex_unlock(&store->lock);
}

/* ---- Statements. ---- */

sqlite3_stmt *store_db_cached(struct store_conn *conn, const char *sql, struct gq_error *err)
{
    for (unsigned i = 0; i < conn->n_cached; i++)
        if (conn->cache[i].sql == sql)
            return conn->cache[i].stmt;
    assert(conn->n_cached < STORE_DB_CACHE_SIZE);
    if (conn->n_cached >= STORE_DB_CACHE_SIZE) {
        gq_fail(err, GQ_ERR_INTERNAL, NULL, "statement cache is full");
        return NULL;
    }
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v3(conn->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
    if (rc != SQLITE_OK) {
        store_db_fail(conn, rc, "preparing a statement", err);
        return NULL;
    }
    conn->cache[conn->n_cached].sql = sql;
    conn->cache[conn->n_cached].stmt = stmt;
    conn->n_cached++;
    return stmt;
}

sqlite3_stmt *store_db_prepare(struct store_conn *conn, const char *sql, struct gq_error *err)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(conn->db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        store_db_fail(conn, rc, "preparing a statement", err);
        return NULL;
    }
    return stmt;
}

void store_db_done(sqlite3_stmt *stmt)
{
    if (stmt == NULL)
        return;
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
}

bool store_db_column_strdup(sqlite3_stmt *stmt, int column, char **out)
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
static enum gq_code run_cached(struct store_conn *conn, const char *sql, struct gq_error *err)
{
    sqlite3_stmt *stmt = store_db_cached(conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    int rc = sqlite3_step(stmt);
    store_db_done(stmt);
    if (rc != SQLITE_DONE)
        return store_db_fail(conn, rc, sql, err);
    return GQ_OK;
}

/* Takes the store's write mutex, waiting at most the busy timeout.
 * pthread_mutex_timedlock's deadline is on the wall clock, which a clock
 * step moves: a step forward would end the wait early, so the time waited
 * is measured on the monotonic clock and the wait resumed. (A step back
 * lengthens a wait only while another writer holds the lock.) */
static bool take_write_lock(struct store_conn *conn)
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

static void release_write_lock(struct store_conn *conn)
{
    if (!conn->writing)
        return;
    conn->writing = false;
    pthread_mutex_unlock(conn->write_lock);
}

enum gq_code store_db_begin_write(struct store_conn *conn, struct gq_error *err)
{
    if (conn->write_lock == NULL)
        return run_cached(conn, SQL_BEGIN_WRITE, err);
    int64_t started_us = clock_monotonic_us();
    if (!take_write_lock(conn))
        return gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "database is busy, retry");
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

enum gq_code store_db_begin_read(struct store_conn *conn, struct gq_error *err)
{
    return run_cached(conn, SQL_BEGIN_READ, err);
}

enum gq_code store_db_commit(struct store_conn *conn, struct gq_error *err)
{
    /* Only a commit that changed rows proves the storage takes writes: a
     * read (a catalog reload), a replayed quote or an accept of a quote
     * already accepted commits nothing. */
    bool wrote = conn->writing && sqlite3_total_changes64(conn->db) > conn->changes_at_begin;
    enum gq_code code = run_cached(conn, SQL_COMMIT, err);
    if (code != GQ_OK)
        store_db_end(conn);
    else if (wrote && conn->storage_failing != NULL)
        atomic_store(conn->storage_failing, false);
    release_write_lock(conn);
    return code;
}

void store_db_end(struct store_conn *conn)
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
enum gq_code store_check_writable(struct store *store, struct gq_error *err)
{
    struct store_conn *conn = store_db_checkout(store);
    if (sqlite3_db_readonly(conn->db, "main") == 1) {
        const char *path = sqlite3_db_filename(conn->db, "main");
        enum gq_code code = gq_fail(err, GQ_ERR_NOT_READY, NULL,
                                    "database is not writable: %s is read-only to this process",
                                    path != NULL && path[0] != '\0' ? path : "the file");
        store_db_checkin(store, conn);
        return code;
    }
    struct gq_error local;
    enum gq_code code = store_db_begin_write(conn, &local);
    store_db_end(conn);
    store_db_checkin(store, conn);
    if (code != GQ_OK)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL, "database is not writable: %s", local.message);
    return GQ_OK;
}

/* Rewrites the database header's user_version with its own value in a
 * write transaction: the smallest write that must reach the storage. */
static enum gq_code probe_write(struct store_conn *conn, struct gq_error *err)
{
    enum gq_code code = store_db_begin_write(conn, err);
    if (code != GQ_OK)
        return code;
    sqlite3_stmt *stmt = store_db_prepare(conn, "PRAGMA user_version", err);
    if (stmt == NULL) {
        store_db_end(conn);
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    }
    int rc = sqlite3_step(stmt);
    int version = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
    sqlite3_finalize(stmt);
    if (rc != SQLITE_ROW) { /* never write a version not read */
        code = store_db_fail(conn, rc, "reading the version", err);
        store_db_end(conn);
        return code;
    }
    char sql[48];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", version);
    rc = sqlite3_exec(conn->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        code = store_db_fail(conn, rc, "writing", err);
        store_db_end(conn);
        return code;
    }
    /* A pragma changes no row, so the commit does not count it as a write:
     * the probe says so itself. */
    code = store_db_commit(conn, err);
    if (code == GQ_OK && conn->storage_failing != NULL)
        atomic_store(conn->storage_failing, false);
    return code;
}

enum gq_code store_check_storage(struct store *store, struct gq_error *err)
{
    if (!atomic_load(&store->storage_failing))
        return GQ_OK;
    struct store_conn *conn = store_db_checkout(store);
    struct gq_error local;
    enum gq_code code = probe_write(conn, &local);
    store_db_checkin(store, conn);
    if (code == GQ_OK || code == GQ_ERR_RETRY_LATER) /* busy: another writer, so not the disk */
        return GQ_OK;
    return gq_fail(err, GQ_ERR_NOT_READY, NULL, "the database cannot be written: %s",
                   local.message);
}

/* GQ_OK when `SELECT 1` runs; GQ_ERR_NOT_READY otherwise. */
enum gq_code store_ping(struct store *store)
{
    struct store_conn *conn = store_db_checkout(store);
    sqlite3_stmt *stmt = store_db_cached(conn, SQL_PING, NULL);
    int rc = stmt != NULL ? sqlite3_step(stmt) : SQLITE_ERROR;
    store_db_done(stmt);
    store_db_checkin(store, conn);
    return rc == SQLITE_ROW ? GQ_OK : GQ_ERR_NOT_READY;
}
