/*
 * The store: the only code that talks SQL.
 *
 * It owns a small pool of SQLite connections (WAL, busy_timeout, foreign
 * keys on), applies migrations, reads the catalog into a `struct catalog`,
 * and keeps quotes. Every write is one transaction; SQLITE_BUSY after the
 * busy timeout becomes GQ_ERR_RETRY_LATER, any other SQLite failure
 * GQ_ERR_INTERNAL with SQLite's message in err->message. All functions are
 * safe to call from several threads at once.
 */
#ifndef GQ_STORE_STORE_H
#define GQ_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/error.h"

struct store;

struct store_options {
    const char *path;    /* database file */
    int busy_timeout_ms; /* how long a write waits for a lock */
    unsigned pool_size;  /* connections kept open, >= 1 */
    bool create;         /* create the file when it is missing */
};

/* Opens the database. Fails with GQ_ERR_NOT_READY and a message naming the
 * path when the file is missing (and !create), its directory does not exist,
 * or it cannot be opened. The caller owns *out and frees it with
 * store_close(). */
enum gq_code store_open(const struct store_options *options, struct store **out,
                        struct gq_error *err);

void store_close(struct store *store);

/* Applies, in order and each in its own transaction, every
 * `NNNN_name.sql` file of `directory` that is not yet recorded in
 * schema_migrations (version, name, checksum, applied_at). A recorded
 * migration whose file's checksum changed stops everything with
 * GQ_ERR_INVALID_VALUE naming the file. *applied (may be NULL) receives the
 * number applied now. */
enum gq_code store_migrate(struct store *store, const char *directory, int *applied,
                           struct gq_error *err);

/* How many migrations recorded in the database are newer than the newest
 * file of `directory` (the database was migrated by a newer version of the
 * service, which store_migrate() tolerates), and the name of the newest. */
enum gq_code store_unknown_migrations(struct store *store, const char *directory, int *count,
                                      char *newest, size_t newest_size, struct gq_error *err);

/* How many migrations of `directory` the database has not had, and the
 * name of the oldest: a server that does not migrate (auto_migrate off)
 * must not serve a schema older than its code. */
enum gq_code store_pending_migrations(struct store *store, const char *directory, int *count,
                                      char *oldest, size_t oldest_size, struct gq_error *err);

/* Reads the migrations of `directory` as store_migrate() would, without a
 * database: called before the database is created, so that a missing or
 * bad migrations directory leaves no empty database file behind. */
enum gq_code store_check_migrations(const char *directory, struct gq_error *err);

/* GQ_OK when the database can take a write (starts and rolls back an
 * immediate transaction); GQ_ERR_NOT_READY with a message otherwise. */
enum gq_code store_check_writable(struct store *store, struct gq_error *err);

/* GQ_OK when a trivial query succeeds. */
/* GQ_OK unless a write has failed on the storage (a full disk, an I/O
 * error) and a probe write, tried now, fails too: GQ_ERR_NOT_READY with the
 * cause. A commit that succeeds clears the failure. */
enum gq_code store_check_storage(struct store *store, struct gq_error *err);

enum gq_code store_ping(struct store *store);

/* Reads the whole catalog. On success *out is a new catalog that passed
 * catalog_validate(); the caller frees it with catalog_free(). */
enum gq_code store_load_catalog(struct store *store, struct catalog **out, struct gq_error *err);

#define STORE_QUOTE_ID_SIZE 40

/* A quote as stored. Strings are owned by the struct: stored_quote_clear()
 * frees them. */
struct stored_quote {
    char id[STORE_QUOTE_ID_SIZE];
    bool accepted;
    char *request_json;    /* the body it was priced from, as sent (quotes stored
                              by earlier builds hold its canonical text) */
    char *response_json;   /* the quote as first rendered, status "open" */
    char *idempotency_key; /* NULL when none was given */
    int64_t price_list_version;
    int64_t created_at; /* unix seconds */
    int64_t expires_at;
    int64_t accepted_at; /* 0 until accepted */
};

void stored_quote_clear(struct stored_quote *quote);

/* A quote to store through the group commit. The caller fills `quote`
 * (borrowed until on_done), `on_done` and `context`; the store fills the
 * results and calls on_done from its writer thread once the transaction that
 * holds the quote has committed or failed. on_done may free the save. */
struct quote_save {
    struct stored_quote quote;
    void (*on_done)(struct quote_save *save);
    void *context;
    enum gq_code code;            /* GQ_OK: stored, or replayed */
    struct gq_error err;          /* why, when code != GQ_OK */
    bool replayed;                /* the key was used before: nothing written */
    struct stored_quote existing; /* when replayed: the quote stored under the key */
    struct quote_save *next;      /* the store's queue */
};

/* Queues `save`. One writer thread takes every queued save into one
 * transaction (a group commit): each is checked, then replayed when its
 * idempotency key is already stored (in the database or earlier in the same
 * transaction), else inserted. A statement that fails undoes only its own
 * quote; a transaction that cannot begin or commit fails every save in it
 * (GQ_ERR_RETRY_LATER when the database stays locked, and then the saves
 * queued behind it fail at once too, instead of one busy timeout per batch)
 * and writes nothing.
 * After store_close() has begun, saves fail with GQ_ERR_NOT_READY. */
void store_quote_submit(struct store *store, struct quote_save *save);

/* Stores `quote` and waits for it (store_quote_submit). When
 * quote->idempotency_key is set and a quote with that key already exists,
 * nothing is written, *replayed is set and the existing quote is copied into
 * *existing (which the caller clears). Otherwise *replayed is false and
 * *existing is untouched. */
enum gq_code store_quote_insert(struct store *store, const struct stored_quote *quote,
                                bool *replayed, struct stored_quote *existing,
                                struct gq_error *err);

/* Reads a quote by id into *out. GQ_ERR_NOT_FOUND when there is none. */
enum gq_code store_quote_get(struct store *store, const char *id, struct stored_quote *out,
                             struct gq_error *err);

/* Accepts an open quote at `now`, in one transaction, and reads it back into
 * *out. An accepted quote is returned unchanged (accepting twice is not an
 * error). GQ_ERR_NOT_FOUND for an unknown id, GQ_ERR_QUOTE_EXPIRED for an
 * open quote whose expires_at <= now (left as it is). */
enum gq_code store_quote_accept(struct store *store, const char *id, int64_t now,
                                struct stored_quote *out, struct gq_error *err);

#endif
