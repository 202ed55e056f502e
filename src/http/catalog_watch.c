/*
 * Keeping the catalog current without a signal: a thread waits for the
 * store to announce a catalog change (PostgreSQL's NOTIFY) or for
 * catalog_poll_ms to pass, asks for the price-list version (one small
 * query), and reloads the snapshot when it is not the one served. Every
 * replica on a shared database, and every process on one SQLite file, so
 * serves a price change within a poll interval of its commit; with NOTIFY,
 * within milliseconds.
 *
 * While the database is out of reach the watch keeps the snapshot it has
 * (quotes are still priced from it) and says so once in the error log, and
 * once again when the database answers. The same watch keeps the keys in
 * force current, and writes when each was last used. A version that does not load (a
 * price list that breaks the catalog's rules) is tried again after 10 s,
 * then twice as long each time up to 5 minutes, not at every poll: each
 * try logs why it failed. A newer version is tried at once.
 */
#include <stdlib.h>
#include <time.h>

#include "core/catalog.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/catalog_watch.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/worker.h"

#define RETRY_FIRST_US (10 * 1000000LL)
#define RETRY_MOST_US (300 * 1000000LL)

struct catalog_watch {
    struct app *app;
    struct worker *worker;
    int64_t failed_version;   /* the last version that did not load; -1: none */
    int64_t retry_at_us;      /* monotonic: when to try it again */
    int64_t retry_pause_us;   /* the pause after its next failure */
    int64_t keys_version;     /* of the keys in force; -1: unknown */
    int64_t uses_recorded_us; /* monotonic: when keys' last uses were written */
};

/* The keys too: reloaded when their version moved (a key made, revoked or
 * changed on any replica), and their last uses written every
 * keys_last_used_seconds. */
static void keep_keys_current(struct catalog_watch *watch)
{
    struct app *app = watch->app;
    int64_t version;
    struct gq_error err;
    if (store_keys_version(app->store, &version, &err) == GQ_OK && version != watch->keys_version &&
        keyring_reload(app))
        watch->keys_version = version;
    int64_t now = clock_monotonic_us();
    if (now - watch->uses_recorded_us >= (int64_t)app->config->keys_last_used_seconds * 1000000) {
        keyring_record_uses(app);
        watch->uses_recorded_us = now;
    }
}

/* The version the snapshot in use was loaded at; -1 when none is. */
static int64_t served_version(struct app *app)
{
    struct snapshot *snapshot = snapshot_acquire(app);
    int64_t version = snapshot != NULL ? snapshot->catalog->price_list_version : -1;
    snapshot_release(snapshot);
    return version;
}

/* Loads `version`, unless it failed to load a moment ago. */
static void reload(struct catalog_watch *watch, int64_t version)
{
    int64_t now = clock_monotonic_us();
    if (version == watch->failed_version && now < watch->retry_at_us)
        return;
    if (snapshot_reload(watch->app)) {
        watch->failed_version = -1;
        return;
    }
    if (version != watch->failed_version)
        watch->retry_pause_us = RETRY_FIRST_US;
    watch->failed_version = version;
    watch->retry_at_us = now + watch->retry_pause_us;
    watch->retry_pause_us =
        watch->retry_pause_us * 2 < RETRY_MOST_US ? watch->retry_pause_us * 2 : RETRY_MOST_US;
}

/* How long to wait: a poll interval, or less when a scheduled price list
 * takes effect sooner, so that it is served from its effective_at (a
 * wake on the second's boundary, then the activation and the reload). */
static int wait_ms(struct app *app, int64_t *due)
{
    int poll_ms = (int)app->config->catalog_poll_ms;
    struct gq_error err;
    if (store_price_list_next_due(app->store, due, &err) != GQ_OK)
        *due = 0;
    if (*due == 0)
        return poll_ms;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t until_ms = *due * 1000 - ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000);
    if (until_ms <= 0)
        return 0;
    return until_ms < poll_ms ? (int)until_ms : poll_ms;
}

/* Activates a scheduled list whose time has come; any replica may, and
 * the store lets one do it (the others find it active and reload). */
static void activate_due(struct app *app)
{
    int64_t activated;
    struct gq_error err;
    if (store_price_lists_activate_due(app->store, clock_now_seconds(), &activated, &err) != GQ_OK)
        log_warning("catalog watch: activating a scheduled price list: %s", err.message);
    else if (activated != 0)
        log_info("catalog watch: price list %lld is active", (long long)activated);
}

static void keep_current(struct worker *worker, void *context)
{
    struct catalog_watch *watch = context;
    struct app *app = watch->app;
    bool failing = false;
    while (!worker_stopping(worker)) {
        int64_t due = 0;
        store_wait_for_catalog_change(app->store, wait_ms(app, &due), worker_wake_fd(worker));
        if (worker_stopping(worker))
            break;
        if (due != 0 && due <= clock_now_seconds())
            activate_due(app);
        int64_t version;
        struct gq_error err;
        if (store_price_list_version(app->store, &version, &err) != GQ_OK) {
            if (!failing)
                log_warning("catalog watch: %s; serving price list version %lld meanwhile",
                            err.message, (long long)served_version(app));
            failing = true;
            continue;
        }
        if (failing)
            log_info("catalog watch: the database answers again (price list version %lld)",
                     (long long)version);
        failing = false;
        if (version != served_version(app))
            reload(watch, version);
        keep_keys_current(watch);
    }
}

struct catalog_watch *catalog_watch_start(struct app *app)
{
    struct catalog_watch *watch_state = calloc(1, sizeof *watch_state);
    if (watch_state == NULL)
        return NULL;
    watch_state->app = app;
    watch_state->failed_version = -1;
    /* Unknown, so the first poll reloads the keys: a version read here
     * could be of a key committed (by another replica) after the keys in
     * force were read at start, and that key would never come into force. */
    watch_state->keys_version = -1;
    watch_state->uses_recorded_us = clock_monotonic_us();
    watch_state->worker = worker_start("gq-catalog", keep_current, watch_state);
    if (watch_state->worker == NULL) {
        free(watch_state);
        return NULL;
    }
    return watch_state;
}

void catalog_watch_stop(struct catalog_watch *watch_state)
{
    if (watch_state == NULL)
        return;
    worker_stop(watch_state->worker);
    free(watch_state);
}
