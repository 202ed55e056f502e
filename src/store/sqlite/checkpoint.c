/*
 * WAL checkpoints off the request path.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that takes the WAL
 * past 1,000 pages, so one request in every few hundred paid for copying
 * the WAL into the database and an fdatasync of a few milliseconds
 * (bench/ANALYSIS.md, "POST /quote, saved"). Here the
 * pool's connections only report their WAL size after each commit
 * (sqlite3_wal_hook, which also turns the automatic checkpoint off), and a
 * thread with its own connection runs a PASSIVE checkpoint, which never
 * blocks a writer, once the WAL passes the same 1,000 pages. Durability is
 * unchanged: a committed transaction is in the WAL either way.
 *
 * Under a steady stream of writes a PASSIVE checkpoint never catches up
 * with the last frame, and SQLite only restarts the WAL from its beginning
 * once it has: the file would grow without end (bench/ANALYSIS.md has
 * the size it reached). So when the WAL is still past 2,000 pages after a passive
 * checkpoint, the thread takes the store's write mutex (this process's
 * writers wait a few milliseconds) and runs a RESTART checkpoint, after
 * which the next write starts the WAL over; journal_size_limit (set on the
 * pool's connections) then trims the file. The WAL is not capped while a
 * checkpoint copies and syncs: writers go on appending, so its peak is the
 * write rate times the checkpoint's time (bench/ANALYSIS.md), and it comes
 * back to journal_size_limit after the next restart.
 *
 * A RESTART also waits for every reader to leave the WAL. A reader in
 * another process (a backup, an sqlite3 shell with a transaction open) may
 * stay for minutes; waiting for it with the write mutex held would stall
 * every save in this process and fail them with 503 (saves would wait out
 * the whole busy timeout and fail). So the restart waits
 * at most RESTART_WAIT_MS, and after one that could not finish the next is
 * tried only after a pause that doubles with each failure, from
 * RESTART_BACKOFF_MIN_US (a reader of this process, between its commit and
 * the reset of its statements, is gone by then) to RESTART_BACKOFF_MAX_US
 * (a reader that stays then costs writers little: one short wait a pause).
 * Meanwhile the WAL grows, as SQLite must let it while a reader holds an
 * old snapshot.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "store/sqlite/db.h"
#include "util/worker.h"

/* SQLite's own default threshold (SQLITE_DEFAULT_WAL_AUTOCHECKPOINT). */
#define CHECKPOINT_PAGES 1000
/* Past this, the WAL is restarted with writers held back. A longer WAL
 * makes every page lookup search more of the WAL's index: a saved quote
 * costs more CPU the longer it is, and the latency
 * tail did not improve (it follows the kernel's writeback of the dirty
 * pages, not the restarts). */
#define RESTART_PAGES 2000
/* How long a restart, with the write mutex held, waits for readers and
 * other processes' writers: long enough for a read of this process to end. */
#define RESTART_WAIT_MS 20
/* The pause after a restart that could not finish: doubled after each
 * failure in a row, within these bounds. */
#define RESTART_BACKOFF_MIN_US 50000
#define RESTART_BACKOFF_MAX_US 2000000

struct sqlite_checkpointer {
    sqlite3 *db;
    pthread_mutex_t *write_lock; /* the store's */
    struct worker *worker;
    pthread_mutex_t lock; /* guards `wanted` and `stopping` */
    pthread_cond_t wake;  /* a checkpoint wanted, or the stop */
    bool wanted;
    bool stopping;
    int64_t restart_not_before_us; /* monotonic; 0: any time */
    int64_t restart_backoff_us;    /* the next pause after a failure */
};

static int64_t monotonic_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

/* A passive checkpoint, and a restart with writers held back when the WAL
 * stays long, unless the last restart found a reader in the way a moment
 * ago. Only this thread touches the restart_ fields. */
static void checkpoint(struct sqlite_checkpointer *checkpointer)
{
    int wal_pages = 0;
    sqlite3_wal_checkpoint_v2(checkpointer->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &wal_pages, NULL);
    if (wal_pages <= RESTART_PAGES || monotonic_us() < checkpointer->restart_not_before_us)
        return;
    pthread_mutex_lock(checkpointer->write_lock);
    int rc =
        sqlite3_wal_checkpoint_v2(checkpointer->db, NULL, SQLITE_CHECKPOINT_RESTART, NULL, NULL);
    pthread_mutex_unlock(checkpointer->write_lock);
    if (rc == SQLITE_OK) {
        checkpointer->restart_not_before_us = 0;
        checkpointer->restart_backoff_us = RESTART_BACKOFF_MIN_US;
        return;
    }
    checkpointer->restart_not_before_us = monotonic_us() + checkpointer->restart_backoff_us;
    checkpointer->restart_backoff_us = checkpointer->restart_backoff_us * 2 < RESTART_BACKOFF_MAX_US
                                           ? checkpointer->restart_backoff_us * 2
                                           : RESTART_BACKOFF_MAX_US;
}

static void run_checkpoints(struct worker *worker, void *context)
{
    (void)worker; /* it stops on checkpointer->stopping, set under the lock */
    struct sqlite_checkpointer *checkpointer = context;
    pthread_mutex_lock(&checkpointer->lock);
    for (;;) {
        while (!checkpointer->wanted && !checkpointer->stopping)
            pthread_cond_wait(&checkpointer->wake, &checkpointer->lock);
        if (checkpointer->stopping)
            break;
        checkpointer->wanted = false;
        pthread_mutex_unlock(&checkpointer->lock);
        checkpoint(checkpointer);
        pthread_mutex_lock(&checkpointer->lock);
    }
    pthread_mutex_unlock(&checkpointer->lock);
}

static void stop_checkpoints(void *context)
{
    struct sqlite_checkpointer *checkpointer = context;
    pthread_mutex_lock(&checkpointer->lock);
    checkpointer->stopping = true;
    pthread_cond_signal(&checkpointer->wake);
    pthread_mutex_unlock(&checkpointer->lock);
}

int sqlite_checkpointer_on_commit(void *argument, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    struct sqlite_checkpointer *checkpointer = argument;
    if (pages < CHECKPOINT_PAGES)
        return SQLITE_OK;
    pthread_mutex_lock(&checkpointer->lock);
    if (!checkpointer->wanted) {
        checkpointer->wanted = true;
        pthread_cond_signal(&checkpointer->wake);
    }
    pthread_mutex_unlock(&checkpointer->lock);
    return SQLITE_OK;
}

enum gq_code sqlite_checkpointer_start(const char *path, pthread_mutex_t *write_lock,
                                       struct sqlite_checkpointer **out, struct gq_error *err)
{
    struct sqlite_checkpointer *checkpointer = calloc(1, sizeof *checkpointer);
    if (checkpointer == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    checkpointer->write_lock = write_lock;
    checkpointer->restart_backoff_us = RESTART_BACKOFF_MIN_US;
    int rc =
        sqlite3_open_v2(path, &checkpointer->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    /* A connection opens the WAL when it first reads the database; until
     * then a checkpoint on it is a silent no-op. */
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(checkpointer->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_busy_timeout(checkpointer->db, RESTART_WAIT_MS);
    if (rc != SQLITE_OK) {
        enum gq_code code = gq_fail(err, GQ_ERR_NOT_READY, NULL, "cannot open database %s: %s",
                                    path, sqlite3_errmsg(checkpointer->db));
        sqlite3_close(checkpointer->db);
        free(checkpointer);
        return code;
    }
    pthread_mutex_init(&checkpointer->lock, NULL);
    pthread_cond_init(&checkpointer->wake, NULL);
    checkpointer->worker =
        worker_start_woken("gq-checkpoint", run_checkpoints, stop_checkpoints, checkpointer);
    if (checkpointer->worker == NULL) {
        pthread_cond_destroy(&checkpointer->wake);
        pthread_mutex_destroy(&checkpointer->lock);
        sqlite3_close(checkpointer->db);
        free(checkpointer);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot start the checkpoint thread");
    }
    *out = checkpointer;
    return GQ_OK;
}

void sqlite_checkpointer_stop(struct sqlite_checkpointer *checkpointer)
{
    if (checkpointer == NULL)
        return;
    worker_stop(checkpointer->worker);
    /* Leave a short WAL behind for the next start. */
    sqlite3_wal_checkpoint_v2(checkpointer->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    sqlite3_close(checkpointer->db);
    pthread_cond_destroy(&checkpointer->wake);
    pthread_mutex_destroy(&checkpointer->lock);
    free(checkpointer);
}
