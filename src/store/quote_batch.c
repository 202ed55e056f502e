/*
 * Group commit: saved quotes are written by one thread, many to a
 * transaction.
 *
 * A quote committed on its own paid for a whole transaction: the write
 * lock, BEGIN and COMMIT, the WAL frames of the table and index pages it
 * touched (each page again for the next quote), and the context switches of
 * request threads taking turns at the lock (measured: ~90 us of CPU per
 * saved quote, against ~12 us per quote in transactions of 16). Here a
 * request queues its quote and goes on serving other connections; the
 * writer thread takes everything queued, writes it in one transaction and
 * reports each quote's outcome through its callback. Under load the queue
 * fills while a transaction commits, so batches grow with the load; alone,
 * a quote is written at once.
 *
 * Durability is the same as one transaction per quote: a quote's callback
 * runs only after the COMMIT that holds it.
 */
#include <pthread.h>
#include <stdlib.h>

#include "store/db.h"

/* The most quotes one transaction takes: bounds how long the write lock is
 * held and how long the first quote of a batch waits for the last. */
#define BATCH_MAX 128

struct store_quote_batcher {
    struct store *store;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct quote_save *head; /* queued, oldest first */
    struct quote_save **tail;
    bool stopping;
};

static void fail_save(struct quote_save *save, enum gq_code code, const struct gq_error *err)
{
    if (save->replayed)
        stored_quote_clear(&save->existing);
    save->replayed = false;
    save->code = code;
    save->err = *err;
}

/* Runs the callbacks; each may free its save, so `next` is read first. */
static void report(struct quote_save *batch)
{
    while (batch != NULL) {
        struct quote_save *next = batch->next;
        batch->next = NULL;
        batch->on_done(batch);
        batch = next;
    }
}

/* Fails every save of the batch that had not failed on its own. */
static void fail_all(struct quote_save *batch, enum gq_code code, const struct gq_error *err)
{
    for (struct quote_save *save = batch; save != NULL; save = save->next)
        if (save->code == GQ_OK)
            fail_save(save, code, err);
}

/* One transaction for the whole batch. Returns GQ_ERR_RETRY_LATER when the
 * transaction could not begin because the database stayed locked. */
static enum gq_code write_batch(struct store *store, struct quote_save *batch)
{
    struct store_conn *conn = store_db_checkout(store);
    struct gq_error err;
    enum gq_code code = store_db_begin_write(conn, &err);
    if (code != GQ_OK) {
        fail_all(batch, code, &err); /* nothing was tried */
        store_db_checkin(store, conn);
        return code;
    }
    /* An I/O error, a full disk or running out of memory may roll the
     * whole transaction back, taking the quotes written before along; the
     * connection is then in autocommit mode, where each further insert
     * would commit on its own. So it is checked after every quote, and the
     * batch stops at the first rollback. */
    bool rolled_back = false;
    for (struct quote_save *save = batch; save != NULL && !rolled_back; save = save->next) {
        store_quote_save_locked(conn, save);
        rolled_back = sqlite3_get_autocommit(conn->db) != 0;
    }
    if (rolled_back) {
        gq_fail(&err, GQ_ERR_INTERNAL, NULL, "storing quotes: the transaction was rolled back");
        fail_all(batch, GQ_ERR_INTERNAL, &err);
    } else if ((code = store_db_commit(conn, &err)) != GQ_OK) {
        fail_all(batch, code, &err);
    }
    store_db_checkin(store, conn);
    return GQ_OK;
}

/* Unlinks up to BATCH_MAX saves from the front of the queue (locked). */
static struct quote_save *take_batch(struct store_quote_batcher *batcher)
{
    struct quote_save *batch = batcher->head;
    struct quote_save *last = batch;
    for (int taken = 1; taken < BATCH_MAX && last->next != NULL; taken++)
        last = last->next;
    batcher->head = last->next;
    if (batcher->head == NULL)
        batcher->tail = &batcher->head;
    last->next = NULL;
    return batch;
}

/* After a batch waited out the busy timeout: the saves queued while it
 * waited fail too, so that none waits one busy timeout per batch ahead of
 * it. They are taken before the batch's callbacks run: a save submitted
 * after a caller learnt of the failure did not wait behind it, and is
 * tried. */
static struct quote_save *fail_queued(struct store_quote_batcher *batcher)
{
    pthread_mutex_lock(&batcher->lock);
    struct quote_save *queued = batcher->head;
    batcher->head = NULL;
    batcher->tail = &batcher->head;
    pthread_mutex_unlock(&batcher->lock);
    struct gq_error err;
    fail_all(queued, gq_fail(&err, GQ_ERR_RETRY_LATER, NULL, "database is busy, retry"), &err);
    return queued;
}

static void *run_batches(void *argument)
{
    pthread_setname_np(pthread_self(), "gq-quote-writer"); /* seen in top -H and perf */
    struct store_quote_batcher *batcher = argument;
    pthread_mutex_lock(&batcher->lock);
    for (;;) {
        while (batcher->head == NULL && !batcher->stopping)
            pthread_cond_wait(&batcher->wake, &batcher->lock);
        if (batcher->head == NULL) /* stopping, and everything written */
            break;
        struct quote_save *batch = take_batch(batcher);
        pthread_mutex_unlock(&batcher->lock);
        struct quote_save *failed_behind = NULL;
        if (write_batch(batcher->store, batch) == GQ_ERR_RETRY_LATER)
            failed_behind = fail_queued(batcher);
        report(batch);
        report(failed_behind);
        pthread_mutex_lock(&batcher->lock);
    }
    pthread_mutex_unlock(&batcher->lock);
    return NULL;
}

void store_quote_submit(struct store *store, struct quote_save *save)
{
    struct store_quote_batcher *batcher = store_db_batcher(store);
    save->next = NULL;
    save->code = GQ_OK;
    save->replayed = false;
    pthread_mutex_lock(&batcher->lock);
    if (batcher->stopping) {
        pthread_mutex_unlock(&batcher->lock);
        struct gq_error err;
        fail_save(save, gq_fail(&err, GQ_ERR_NOT_READY, NULL, "the store is closing"), &err);
        save->on_done(save);
        return;
    }
    bool was_idle = batcher->head == NULL;
    *batcher->tail = save;
    batcher->tail = &save->next;
    if (was_idle)
        pthread_cond_signal(&batcher->wake);
    pthread_mutex_unlock(&batcher->lock);
}

enum gq_code store_quote_batcher_start(struct store *store, struct store_quote_batcher **out,
                                       struct gq_error *err)
{
    struct store_quote_batcher *batcher = calloc(1, sizeof *batcher);
    if (batcher == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    batcher->store = store;
    batcher->tail = &batcher->head;
    pthread_mutex_init(&batcher->lock, NULL);
    pthread_cond_init(&batcher->wake, NULL);
    if (pthread_create(&batcher->thread, NULL, run_batches, batcher) != 0) {
        pthread_cond_destroy(&batcher->wake);
        pthread_mutex_destroy(&batcher->lock);
        free(batcher);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot start the quote writer thread");
    }
    *out = batcher;
    return GQ_OK;
}

void store_quote_batcher_stop(struct store_quote_batcher *batcher)
{
    if (batcher == NULL)
        return;
    pthread_mutex_lock(&batcher->lock);
    batcher->stopping = true;
    pthread_cond_signal(&batcher->wake);
    pthread_mutex_unlock(&batcher->lock);
    pthread_join(batcher->thread, NULL);
    pthread_cond_destroy(&batcher->wake);
    pthread_mutex_destroy(&batcher->lock);
    free(batcher);
}
