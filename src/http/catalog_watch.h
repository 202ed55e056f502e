/*
 * Keeping every replica's catalog current (catalog_watch.c): a thread
 * that notices a new price-list version in the store and reloads the
 * snapshot.
 */
#ifndef GQ_HTTP_CATALOG_WATCH_H
#define GQ_HTTP_CATALOG_WATCH_H

struct app;

struct catalog_watch;

/* Starts a thread that checks the store's price-list version every
 * catalog_poll_ms (at once when the database announces a change) and
 * reloads the snapshot when it differs. NULL when no thread can be made. */
struct catalog_watch *catalog_watch_start(struct app *app);

/* Stops the thread. NULL is fine. */
void catalog_watch_stop(struct catalog_watch *watch);

#endif
