/*
 * The quote sweeper: a thread that, every quote_sweep_interval_ms, marks
 * open quotes past their expires_at expired (each with its quote.expired
 * event, store_quotes_expire), marks customers' verifications past their
 * expires_at expired the same way (store_verifications_expire), deletes quotes kept past their
 * retention (store_quotes_delete_ended), and deletes events (with their deliveries) and keyless
 * callers' quotes past theirs (store_retention_delete), saying in the log how many when any.
 * Every replica runs one; the store makes each quote's work
 * happen once (a conditional update; SKIP LOCKED on PostgreSQL). Work goes in small batches, each
 * its own short transaction, so that a backlog never holds the write lock for long: quotes being
 * saved wait at most one batch.
 */
#include <stdlib.h>

#include "store/store.h"
#include "store/verifications.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"
#include "util/worker.h"

enum {
    EXPIRE_BATCH = 100,
    EXPIRE_BATCHES_PER_SWEEP = 20, /* at most 2,000 a sweep; the rest at the next */
    DELETE_BATCH = 500,
    RETENTION_BATCH = 1000,
    RETENTION_BATCHES_PER_SWEEP = 10, /* at most 10,000 of each kind a sweep */
    SECONDS_PER_DAY = 86400
};

struct quote_sweeper {
    struct store *store;
    const struct gq_config *config;
    struct worker *worker;
};

/* What expires in batches: quotes (store_quotes_expire) and
 * verifications (store_verifications_expire), each with its event. */
typedef enum gq_code (*expire_batch)(struct store *store, int64_t now, int limit, int *count,
                                     struct gq_error *err);

static void expire_due(struct quote_sweeper *sweeper, int64_t now, expire_batch expire,
                       const char *what)
{
    for (int batch = 0; batch < EXPIRE_BATCHES_PER_SWEEP; batch++) {
        int count = 0;
        struct gq_error err;
        if (expire(sweeper->store, now, EXPIRE_BATCH, &count, &err) != GQ_OK) {
            log_warning("sweeper: expiring %s: %s", what, err.message);
            return;
        }
        if (count < EXPIRE_BATCH)
            return;
    }
}

static void delete_old(struct quote_sweeper *sweeper, int64_t now)
{
    const struct gq_config *config = sweeper->config;
    if (config->quote_retention_days == 0 && config->accepted_quote_retention_days == 0)
        return;
    /* 0 days keeps that kind: a cut-off before any quote. */
    int64_t ended_before = config->quote_retention_days > 0
                               ? now - (int64_t)config->quote_retention_days * SECONDS_PER_DAY
                               : 0;
    int64_t accepted_before =
        config->accepted_quote_retention_days > 0
            ? now - (int64_t)config->accepted_quote_retention_days * SECONDS_PER_DAY
            : 0;
    int count = 0;
    struct gq_error err;
    if (store_quotes_delete_ended(sweeper->store, ended_before, accepted_before, DELETE_BATCH,
                                  &count, &err) != GQ_OK)
        log_warning("sweeper: deleting old quotes: %s", err.message);
}

static void delete_past_retention(struct quote_sweeper *sweeper, int64_t now,
                                  enum store_retention kind, int days, const char *what)
{
    int64_t before = now - (int64_t)days * SECONDS_PER_DAY;
    int deleted = 0;
    for (int batch = 0; batch < RETENTION_BATCHES_PER_SWEEP; batch++) {
        int count = 0;
        struct gq_error err;
        if (store_retention_delete(sweeper->store, kind, before, RETENTION_BATCH, &count, &err) !=
            GQ_OK) {
            log_warning("sweeper: deleting %s: %s", what, err.message);
            break;
        }
        deleted += count;
        if (count < RETENTION_BATCH)
            break;
    }
    if (deleted > 0)
        log_info("sweeper: %s deleted past their retention: %d", what, deleted);
}

static void run(struct worker *worker, void *context)
{
    struct quote_sweeper *sweeper = context;
    while (worker_sleep(worker, sweeper->config->quote_sweep_interval_ms)) {
        int64_t now = clock_now_seconds();
        expire_due(sweeper, now, store_quotes_expire, "quotes");
        expire_due(sweeper, now, store_verifications_expire, "verifications");
        delete_old(sweeper, now);
        delete_past_retention(sweeper, now, STORE_RETAIN_EVENTS,
                              sweeper->config->event_retention_days, "events");
        delete_past_retention(sweeper, now, STORE_RETAIN_ANONYMOUS_QUOTES,
                              sweeper->config->anonymous_quote_retention_days, "anonymous quotes");
    }
}

struct quote_sweeper *quote_sweeper_start(struct store *store, const struct gq_config *config)
{
    struct quote_sweeper *sweeper = calloc(1, sizeof *sweeper);
    if (sweeper == NULL)
        return NULL;
    sweeper->store = store;
    sweeper->config = config;
    sweeper->worker = worker_start("gq-sweeper", run, sweeper);
    if (sweeper->worker == NULL) {
        free(sweeper);
        return NULL;
    }
    return sweeper;
}

void quote_sweeper_stop(struct quote_sweeper *sweeper)
{
    if (sweeper == NULL)
        return;
    worker_stop(sweeper->worker);
    free(sweeper);
}
