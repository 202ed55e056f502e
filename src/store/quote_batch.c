/*
 * Group commit: saved quotes are written by one thread, many to a
 * transaction.
 *
 * A quote committed on its own paid for a whole transaction: the write
 * lock, BEGIN and COMMIT, the WAL frames of the table and index pages it
 * touched (each page again for the next quote), and the context switches of
 * request threads taking turns at the lock (several times the CPU of a
 * quote in a transaction of many: bench/ANALYSIS.md). Here a
 * request queues its quote and goes on serving other connections; the
 * writer thread takes everything queued, writes it in one transaction and
 * reports each quote's outcome through its callback. Under load the queue
 * fills while a transaction commits, so batches grow with the load; alone,
 * a quote is written at once.
 *
 * Durability is the same as one transaction per quote: a quote's callback
 * runs only after the COMMIT that holds it.
 *
 * This file is the same for every backend: each quote is checked and
 * packed by the thread that submits it, and the writer hands each batch to
 * the backend's save_quotes(), which writes it in its dialect's one
 * transaction.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#include "store/counters.h"
#include "store/quote_batch.h"
#include "util/worker.h"

/* The most quotes one transaction takes: bounds how long the write lock is
 * held and how long the first quote of a batch waits for the last. */
#define BATCH_MAX 128

struct store_quote_batcher {
    struct store *store; /* whose event listener hears of each batch */
    const struct store_backend_ops *ops;
    struct store_backend *backend;
    struct worker *worker;
    pthread_mutex_t lock;    /* guards the queue and `stopping` */
    pthread_cond_t wake;     /* a quote queued while idle, or the stop */
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

/* Checks and packs a save, in the submitting thread: the writer thread,
 * through which every save passes one after another, is left the database
 * alone. */
static enum gq_code pack(struct quote_save *save)
{
    enum gq_code code = store_check_quote(&save->quote, &save->err);
    if (code == GQ_OK)
        code = store_pack_response(save, &save->err);
    if (code == GQ_OK) /* the outbox: its quote.created, in the same transaction */
        code = store_event_for_save(save, &save->err);
    return code;
}

/* What pack() allocated, once the save is written or failed. */
static void unpack(struct quote_save *save)
{
    free(save->packed.block);
    save->packed.block = NULL;
    store_event_clear(save->event);
    free(save->event);
    save->event = NULL;
}

/* Hands the batch, every save of it packed, to the backend, in one
 * transaction. Returns GQ_ERR_RETRY_LATER when the backend could try
 * nothing because the database stayed busy or out of reach. */
static enum gq_code write_batch(struct store_quote_batcher *batcher, struct quote_save *batch)
{
    size_t count = 0;
    for (struct quote_save *save = batch; save != NULL; save = save->next)
        count++;
    store_count_batch(count);
    enum gq_code code = batcher->ops->save_quotes(batcher->backend, batch);
    for (struct quote_save *save = batch; save != NULL; save = save->next)
        unpack(save);
    return code;
}

/* True when a quote of the batch was stored with an event that fanned out
 * to a webhook delivery: only then is the sender told at once (the saved
 * quotes of a shop with no endpoint would otherwise have it look in the
 * database after every batch, for nothing). */
static bool any_deliveries_due(const struct quote_save *batch)
{
    for (const struct quote_save *save = batch; save != NULL; save = save->next)
        if (save->code == GQ_OK && !save->replayed && save->deliveries_due)
            return true;
    return false;
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
    fail_all(queued, gq_fail_msg(&err, GQ_ERR_RETRY_LATER, NULL, MSG_DATABASE_BUSY), &err);
    for (struct quote_save *save = queued; save != NULL; save = save->next)
        unpack(save);
    return queued;
}

static void run_batches(struct worker *worker, void *context)
{
    (void)worker; /* it stops on batcher->stopping, set under the lock */
    struct store_quote_batcher *batcher = context;
    pthread_mutex_lock(&batcher->lock);
    for (;;) {
        while (batcher->head == NULL && !batcher->stopping)
            pthread_cond_wait(&batcher->wake, &batcher->lock);
        if (batcher->head == NULL) /* stopping, and everything written */
            break;
        struct quote_save *batch = take_batch(batcher);
        pthread_mutex_unlock(&batcher->lock);
        struct quote_save *failed_behind = NULL;
        if (write_batch(batcher, batch) == GQ_ERR_RETRY_LATER)
            failed_behind = fail_queued(batcher);
        else if (any_deliveries_due(batch))
            store_events_committed(batcher->store); /* their quote.created */
        report(batch);
        report(failed_behind);
        pthread_mutex_lock(&batcher->lock);
    }
    pthread_mutex_unlock(&batcher->lock);
}

/* The writer's waker: it writes what is queued, then returns; new saves
 * are refused. */
static void stop_batches(void *context)
{
    struct store_quote_batcher *batcher = context;
    pthread_mutex_lock(&batcher->lock);
    batcher->stopping = true;
    pthread_cond_signal(&batcher->wake);
    pthread_mutex_unlock(&batcher->lock);
}

void store_quote_batcher_submit(struct store_quote_batcher *batcher, struct quote_save *save)
{
    save->next = NULL;
    save->code = GQ_OK;
    save->replayed = false;
    save->packed.block = NULL;
    save->event = NULL;
    save->deliveries_due = false;
    save->code = pack(save);
    if (save->code != GQ_OK) { /* refused before it could wait for the writer */
        unpack(save);
        save->on_done(save);
        return;
    }
    pthread_mutex_lock(&batcher->lock);
    if (batcher->stopping) {
        pthread_mutex_unlock(&batcher->lock);
        unpack(save);
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

enum gq_code store_quote_batcher_start(struct store *store, const struct store_backend_ops *ops,
                                       struct store_backend *backend,
                                       struct store_quote_batcher **out, struct gq_error *err)
{
    struct store_quote_batcher *batcher = calloc(1, sizeof *batcher);
    if (batcher == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    batcher->store = store;
    batcher->ops = ops;
    batcher->backend = backend;
    batcher->tail = &batcher->head;
    pthread_mutex_init(&batcher->lock, NULL);
    pthread_cond_init(&batcher->wake, NULL);
    batcher->worker = worker_start_woken("gq-quote-writer", run_batches, stop_batches, batcher);
    if (batcher->worker == NULL) {
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
    worker_stop(batcher->worker);
    pthread_cond_destroy(&batcher->wake);
    pthread_mutex_destroy(&batcher->lock);
    free(batcher);
}

/* store_quote_insert() waits for its save here. */
struct waiting_save {
    struct quote_save save;
    pthread_mutex_t lock;
    pthread_cond_t done;
    bool finished;
};

static void wake_waiter(struct quote_save *save)
{
    struct waiting_save *waiting = save->context;
    pthread_mutex_lock(&waiting->lock);
    waiting->finished = true;
    pthread_cond_signal(&waiting->done);
    pthread_mutex_unlock(&waiting->lock);
}

/* See store.h. */
enum gq_code store_quote_insert(struct store *store, const struct stored_quote *quote,
                                bool *replayed, struct stored_quote *existing, struct gq_error *err)
{
    assert(store != NULL && quote != NULL && replayed != NULL && existing != NULL);
    struct waiting_save waiting = {.save = {.quote = *quote, .on_done = wake_waiter}};
    waiting.save.context = &waiting;
    pthread_mutex_init(&waiting.lock, NULL);
    pthread_cond_init(&waiting.done, NULL);
    store_quote_submit(store, &waiting.save);
    pthread_mutex_lock(&waiting.lock);
    while (!waiting.finished)
        pthread_cond_wait(&waiting.done, &waiting.lock);
    pthread_mutex_unlock(&waiting.lock);
    pthread_cond_destroy(&waiting.done);
    pthread_mutex_destroy(&waiting.lock);
    *replayed = waiting.save.replayed;
    if (waiting.save.replayed)
        *existing = waiting.save.existing;
    if (waiting.save.code != GQ_OK && err != NULL)
        *err = waiting.save.err;
    return waiting.save.code;
}
