/*
 * The catalog snapshot (snapshot.c): an immutable catalog and every body
 * rendered from it once, shared by reference count between the threads
 * that answer from it, and replaced whole when the price list changes.
 */
#ifndef GQ_HTTP_SNAPSHOT_H
#define GQ_HTTP_SNAPSHOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/catalog.h"
#include "core/messages.h"

struct app;

/* A body rendered once per snapshot, with its entity tag. */
struct rendered {
    char *body;
    size_t length;
    char etag[48]; /* quoted, as sent: "\"3f9c...\"" */
};

/* An immutable catalog and everything rendered from it. Shared between
 * threads by reference count: a request holds one reference from its first
 * call to its completion, so a reload never frees what is being sent. */
struct snapshot {
    atomic_uint references;
    struct catalog *catalog;
    /* Every body once per language, each with its own entity tag. */
    struct snapshot_bodies {
        struct rendered catalog_body;  /* GET /catalog, no filters */
        struct rendered billing_modes; /* GET /catalog/billing-modes */
        struct rendered bundles;       /* GET /catalog/bundles */
        struct rendered *skus;         /* GET /catalog/{id}, one per SKU */
    } in[GQ_LANG_COUNT];
    char *catalog_prefix; /* {"currency":..,"price_list_version":..,"skus":[, in every language */
    size_t catalog_prefix_length;
};

/* Builds a snapshot that takes ownership of `catalog`. NULL (and the
 * catalog freed) when memory runs out. */
struct snapshot *snapshot_build(struct catalog *catalog);

/* The current snapshot with a reference taken, or NULL when none is loaded. */
struct snapshot *snapshot_acquire(struct app *app);

/* Drops a reference; frees the snapshot with the last one. NULL is fine. */
void snapshot_release(struct snapshot *snapshot);

/* The length of the listing snapshot_render_listing() would make, without
 * making it. */
size_t snapshot_listing_length(const struct snapshot *snapshot, enum gq_lang lang,
                               const size_t *indices, size_t count);

/* A catalog listing of `count` SKUs (their indices, or the first `count`
 * when `indices` is NULL) from the pre-rendered bodies. The caller frees
 * the result; NULL when memory runs out. */
char *snapshot_render_listing(const struct snapshot *snapshot, enum gq_lang lang,
                              const size_t *indices, size_t count, size_t *length);

/* A quoted entity tag from the SHA-256 of `first` then `second`. */
void snapshot_etag(const char *first, size_t first_length, const char *second, size_t second_length,
                   char etag[48]);

/* Makes `next` current (taking over the caller's reference) and releases
 * the previous one. */
void snapshot_publish(struct app *app, struct snapshot *next);

/* Loads the catalog from the store into a new snapshot and makes it
 * current, one reload at a time. False when loading fails: the snapshot
 * loaded before stays, and the error log says which version it serves.
 * Called at start, on SIGHUP and by the catalog watch. */
bool snapshot_reload(struct app *app);

#endif
