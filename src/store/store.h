/*
 * The store: the only code that talks to a database.
 *
 * Two backends sit behind it (backend.h): SQLite, the embedded default,
 * when `database` is a file path, and PostgreSQL, the shared store of
 * several replicas, when it is a libpq connection string
 * (`postgresql://…`, `postgres://…`, or `key=value …`). Nothing above this
 * header knows which one runs.
 *
 * The store applies migrations (each dialect has its own directory under
 * the migrations root), reads the catalog into a `struct catalog`, tells
 * the price-list version cheaply (for the catalog poller), and keeps
 * quotes. Every write is one transaction. A database that is busy or out of
 * reach gives GQ_ERR_RETRY_LATER; any other database failure is
 * GQ_ERR_INTERNAL with the database's message in err->message (never a
 * password). All functions are safe to call from several threads at once.
 */
#ifndef GQ_STORE_STORE_H
#define GQ_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/catalog.h"
#include "core/error.h"

struct store;

struct store_options {
    const char *database; /* a file path (SQLite) or a libpq connection string */
    int busy_timeout_ms;  /* how long a write waits for a lock */
    unsigned pool_size;   /* connections kept open, >= 1 */
    bool create;          /* SQLite: create the file when it is missing */
    bool listen;          /* PostgreSQL: LISTEN for catalog changes; off, the poll alone */
};

/* True when `database` is a libpq connection string rather than a path. */
bool store_database_is_postgres(const char *database);

/* True when `database` is a path at which there is no file (SQLite would
 * create one); false for a connection string or a file that exists. */
bool store_database_file_missing(const char *database);

/* `database` fit for a log line: a path as it is; a PostgreSQL connection
 * string as libpq's options, each secret one "***" (user=gq password=***
 * host=db), or none of it when libpq cannot parse it. */
void store_describe_database(const char *database, char *out, size_t size);

/* Opens the database with the backend `options->database` calls for.
 * Fails with GQ_ERR_NOT_READY and a message naming it (its password
 * masked) when it cannot be opened: a missing file (and !create), a
 * missing directory, a server that does not answer. The caller owns *out
 * and frees it with store_close(). */
enum gq_code store_open(const struct store_options *options, struct store **out,
                        struct gq_error *err);

/* Writes what the group commit has queued and closes. NULL is fine. */
void store_close(struct store *store);

/* "sqlite" or "postgres". */
const char *store_backend_name(const struct store *store);

/* ---- Migrations (migrations.c) ---- */

/* Applies, in order and each in its own transaction, every `NNNN_name.sql`
 * file of the store's dialect directory under `root` (root/sqlite,
 * root/postgres) that is not yet recorded in schema_migrations (version,
 * name, checksum, applied_at). A recorded migration whose file's checksum
 * changed stops everything with GQ_ERR_INVALID_VALUE naming the file.
 * *applied (may be NULL) receives the number applied now. */
enum gq_code store_migrate(struct store *store, const char *root, int *applied,
                           struct gq_error *err);

/* How many migrations recorded in the database are newer than the newest
 * file (the database was migrated by a newer version of the service, which
 * store_migrate() tolerates), and the name of the newest. */
enum gq_code store_unknown_migrations(struct store *store, const char *root, int *count,
                                      char *newest, size_t newest_size, struct gq_error *err);

/* How many migration files the database has not had, and the name of the
 * oldest: a server that does not migrate (auto_migrate off) must not serve
 * a schema older than its code. */
enum gq_code store_pending_migrations(struct store *store, const char *root, int *count,
                                      char *oldest, size_t oldest_size, struct gq_error *err);

/* Reads the migrations the backend of `database` would apply, without a
 * database: called before the database is created, so that a missing or
 * bad migrations directory leaves no empty database file behind. */
enum gq_code store_check_migrations(const char *database, const char *root, struct gq_error *err);

/* ---- Health ---- */

/* GQ_OK when the database can take a write now; GQ_ERR_NOT_READY with the
 * reason otherwise. */
enum gq_code store_check_writable(struct store *store, struct gq_error *err);

/* GQ_OK unless the database file was deleted, renamed or replaced under
 * the server, or writes have failed on the storage (a full disk, an I/O
 * error) and a probe write, tried now, fails too: GQ_ERR_NOT_READY with the
 * cause (for the log: it names files and SQL). A commit that writes clears
 * the storage failure. */
enum gq_code store_check_storage(struct store *store, struct gq_error *err);

/* True, without any I/O, when a call failed in a way a health check would
 * see since the last check that passed: a write failed on the storage or
 * found the database file gone (and none has succeeded since), or the
 * server was out of reach (and no ping has succeeded since). */
bool store_failed_since_check(struct store *store);

/* GQ_OK when a trivial query succeeds; GQ_ERR_NOT_READY with the cause
 * otherwise. Each call counts as a health check (store_counters_read). */
enum gq_code store_ping(struct store *store, struct gq_error *err);

/* ---- The catalog (catalog_load.c) ---- */

/* Reads the whole catalog in one snapshot. On success *out is a new
 * catalog that passed catalog_validate(); the caller frees it with
 * catalog_free(). */
enum gq_code store_load_catalog(struct store *store, struct catalog **out, struct gq_error *err);

/* The price-list version now: one small query, for the poller that keeps
 * every replica's catalog current. */
enum gq_code store_price_list_version(struct store *store, int64_t *version, struct gq_error *err);

/* Waits up to `timeout_ms`, less when the database announces a catalog
 * change or `wake_fd` becomes readable. Says nothing of what happened: the
 * caller asks store_price_list_version() afterwards. */
void store_wait_for_catalog_change(struct store *store, int timeout_ms, int wake_fd);

/* ---- Quotes ---- */

#define STORE_QUOTE_ID_SIZE 40

/* A caller's namespace of idempotency keys and client references:
 * "key:<key id>" or "anon:<client address>", and its NUL. */
#define STORE_OWNER_SIZE 64

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
    int64_t accepted_at;  /* 0 until accepted */
    int64_t canceled_at;  /* 0 unless canceled */
    int64_t expired_at;   /* 0 until the sweeper marks it expired */
    char *cancel_reason;  /* the cancel's reason; NULL when none */
    char *acceptance;     /* the accept's {"reference", "metadata"} as JSON text; NULL when none */
    char customer_id[40]; /* whom it is for, as read back; "": no customer */
};

/* What a quote's status is at `now`: "accepted", "canceled", "expired"
 * (marked so, or open past expires_at and not swept yet) or "open". */
const char *stored_quote_status(const struct stored_quote *quote, int64_t now);

void stored_quote_clear(struct stored_quote *quote);

/* A response as it is written: an LZ4 block (malloc'd) and the length of
 * the JSON it holds. */
struct packed_response {
    char *block;
    size_t block_size;
    int64_t size;
};

/* A quote to store through the group commit. The caller fills `quote`
 * (borrowed until on_done), `on_done` and `context`; the store fills the
 * results and calls on_done from its writer thread once the transaction that
 * holds the quote has committed or failed. on_done may free the save. */
struct quote_save {
    struct stored_quote quote;
    void (*on_done)(struct quote_save *save);
    void *context;
    enum gq_code code;             /* GQ_OK: stored, or replayed */
    struct gq_error err;           /* why, when code != GQ_OK */
    bool replayed;                 /* the key was used before: nothing written */
    struct stored_quote existing;  /* when replayed: the quote stored under the key */
    struct packed_response packed; /* the store's, while it writes */
    struct store_event *event;     /* the store's, while it writes: its quote.created */
    bool deliveries_due; /* the store's: its event fanned out to a webhook delivery (or may have) */
    struct quote_save *next; /* the store's queue */
    /* Whose namespace the idempotency key is in (STORE_OWNER_SIZE): a key is
     * replayed only to the owner that stored it. "" for none. */
    char owner[STORE_OWNER_SIZE];
    /* Whom it is for ("" for no customer) and who saved it: a key's id or
     * "anonymous" (STORE_ID_SIZE). */
    char customer_id[40];
    char created_by[40];
};

/* Queues `save`. One writer thread takes every queued save into one
 * transaction (a group commit): each is checked, then replayed when its
 * idempotency key is already stored (in the database, by any replica, or
 * earlier in the same transaction), else inserted. A quote the database
 * refuses fails alone; a transaction that cannot begin or commit fails
 * every save in it (GQ_ERR_RETRY_LATER when the database stays locked or
 * cannot be reached, and then the saves queued behind it fail at once too,
 * instead of one timeout per batch) and writes nothing.
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

/* Accepts an open quote at `now`, as one conditional write with its
 * quote.accepted event, and reads it back into *out. `acceptance` (JSON
 * text of {"reference", "metadata"}, or NULL) is kept with it.
 * GQ_ERR_NOT_FOUND for an unknown id, GQ_ERR_QUOTE_EXPIRED for a quote
 * whose expires_at <= now, GQ_ERR_QUOTE_NOT_OPEN for one accepted or
 * canceled already (by this or another replica): the quote is left as it
 * is, and only one of two accepts at once succeeds. */
enum gq_code store_quote_accept(struct store *store, const char *id, int64_t now,
                                const char *acceptance, struct stored_quote *out,
                                struct gq_error *err);

/* Cancels an open quote the same way, with `reason` (or NULL) and its
 * quote.canceled event; the same errors. */
enum gq_code store_quote_cancel(struct store *store, const char *id, int64_t now,
                                const char *reason, struct stored_quote *out, struct gq_error *err);

/* Marks at most `limit` open quotes whose expires_at <= now expired, each
 * with its quote.expired event, in one transaction; any replica may call
 * it, and each quote is marked once. *count: how many. */
enum gq_code store_quotes_expire(struct store *store, int64_t now, int limit, int *count,
                                 struct gq_error *err);

/* Deletes at most `limit` quotes that ended (canceled or expired) before
 * `ended_before`, and, when `accepted_before` > 0, accepted ones accepted
 * before it. *count: how many. */
enum gq_code store_quotes_delete_ended(struct store *store, int64_t ended_before,
                                       int64_t accepted_before, int limit, int *count,
                                       struct gq_error *err);

/* What retention deletes besides ended quotes. */
enum store_retention {
    STORE_RETAIN_EVENTS,           /* events written before the cut-off, with their deliveries */
    STORE_RETAIN_ANONYMOUS_QUOTES, /* keyless callers' quotes that ended before it */
    STORE_RETAIN_COUNT
};

/* Deletes at most `limit` rows of `kind` older than `before` (unix
 * seconds) in one short transaction; any replica may call it at once with
 * another (a row is deleted once). An event still being delivered (a
 * delivery pending to an enabled endpoint) is kept until it ends.
 * *count: how many events or quotes. */
enum gq_code store_retention_delete(struct store *store, enum store_retention kind, int64_t before,
                                    int limit, int *count, struct gq_error *err);

/* The sweeper thread (sweeper.c): expiry and retention every
 * config->quote_sweep_interval_ms. NULL when no thread can be made. */
struct gq_config;
struct quote_sweeper;
struct quote_sweeper *quote_sweeper_start(struct store *store, const struct gq_config *config);
void quote_sweeper_stop(struct quote_sweeper *sweeper);

/* Frees an idempotency key whose quote is older than the key's life
 * (idempotency_ttl_seconds): the quote stays, the key may make a new one.
 * *released false when the key is on another quote now, or none. */
enum gq_code store_quote_release_key(struct store *store, const char *quote_id, const char *key,
                                     bool *released, struct gq_error *err);

/* What GET /quote lists: each member NULL or 0 when not asked. */
struct quote_filter {
    const char *status;              /* "open", "accepted", "canceled", "expired" (at `now`) */
    const char *client_reference_id; /* looked up among `owner`'s only */
    const char *owner;               /* a quote_save's owner; NULL: "" */
    const char *customer_id;         /* quotes for this customer only */
    const char *created_by;          /* saved by this key id, or "anonymous" */
    int64_t created_gte, created_lt; /* unix seconds; 0: no bound */
    const char *starting_after;      /* a quote id: the page after it */
    size_t limit;                    /* 1..100 */
    int64_t now;
};

struct quote_page {
    struct stored_quote *items; /* newest first (created_at, then id, descending) */
    size_t count;
    bool has_more;
};

void store_quote_page_free(struct quote_page *page);

/* A page of quotes, newest first, after `starting_after` when given: the
 * cursor is that quote's (created_at, id), so quotes inserted meanwhile
 * (newer) never shift a later page, and none is skipped or repeated.
 * GQ_ERR_INVALID_PARAMETER (field starting_after) when it names no quote. */
enum gq_code store_quotes_list(struct store *store, const struct quote_filter *filter,
                               struct quote_page *out, struct gq_error *err);

/* The request bodies of the `limit` (1..100) newest stored quotes, newest
 * first: a new JSON array of strings (the caller decrefs). What a price
 * list's preview prices again. */
enum gq_code store_quotes_recent_requests(struct store *store, int limit, json_t **out,
                                          struct gq_error *err);

/* ---- API keys and the audit log (keys.c) ---- */

#define STORE_ID_SIZE 40
#define STORE_KEY_NAME_SIZE 104

/* A key as stored: never its secret, only the SHA-256 of it. */
struct stored_key {
    char id[STORE_ID_SIZE];         /* "key_" and 32 hex digits */
    char name[STORE_KEY_NAME_SIZE]; /* 1 to 100 bytes */
    char prefix[16];                /* the secret's first 12 characters */
    char hash[65];                  /* lower-case hex */
    unsigned scopes;                /* enum api_scope bits */
    int64_t created_at;             /* unix seconds */
    int64_t last_used_at;           /* 0: never (or not yet recorded) */
    int64_t revoked_at;             /* 0: in force */
    char customer_id[40];           /* the customer it acts for alone; "": none */
};

struct key_list {
    struct stored_key *items;
    size_t count;
};

void store_key_list_free(struct key_list *list);

/* One line of the audit log, as written: who (the key, or none for the
 * command line), from where, which request, what, on what, and the change
 * as a JSON object {"old": ..., "new": ...}. Strings are borrowed; the
 * store gives it its id and its time. */
struct audit_entry {
    const char *key_id;     /* NULL: not through a key */
    const char *key_name;   /* NULL with key_id */
    const char *client;     /* an address, or "command line" */
    const char *request_id; /* NULL: not through a request */
    const char *action;     /* "key.create", "key.revoke", ... */
    const char *target;     /* what it acted on: "key_0193..." */
    const char *change;     /* JSON text */
};

/* One line of the audit log, as read back; owned by its page. */
struct audit_record {
    char id[STORE_ID_SIZE];
    int64_t at;
    char *key_id, *key_name, *client, *request_id, *action, *target, *change;
};

struct audit_page {
    struct audit_record *items;
    size_t count;
    bool has_more;
};

void store_audit_page_free(struct audit_page *page);

/* A new key named `name` with `scopes`, made at `now`: its id, visible
 * prefix and hash into *key, its secret (API_KEY_SIZE = 50 bytes) into
 * `secret`, which is shown once and never stored. */
enum gq_code store_key_new(const char *name, unsigned scopes, int64_t now, struct stored_key *key,
                           char *secret, struct gq_error *err);

/* The version of the key list: it changes whenever a key is added,
 * revoked, renamed or given other scopes, on any replica. */
enum gq_code store_keys_version(struct store *store, int64_t *version, struct gq_error *err);

/* Every key (revoked ones when `with_revoked`), oldest first. */
enum gq_code store_keys_read(struct store *store, bool with_revoked, struct key_list *out,
                             struct gq_error *err);

/* One key by id; GQ_ERR_NOT_FOUND when there is none. */
enum gq_code store_key_get(struct store *store, const char *id, struct stored_key *out,
                           struct gq_error *err);

/* Stores a new key and its audit line in one transaction. */
enum gq_code store_key_create(struct store *store, const struct stored_key *key,
                              const struct audit_entry *audit, struct gq_error *err);

/* Revokes a key at `now` with its audit line, in one transaction, and
 * reads it back into *out. A key revoked already is left as it is (its
 * first revocation time, no second audit line): *was_revoked says so.
 * GQ_ERR_NOT_FOUND when there is no such key. */
enum gq_code store_key_revoke(struct store *store, const char *id, int64_t now,
                              const struct audit_entry *audit, struct stored_key *out,
                              bool *was_revoked, struct gq_error *err);

/* Records when each of `count` keys (their id and last_used_at) was last
 * used; a time earlier than the recorded one changes nothing. */
enum gq_code store_keys_touch(struct store *store, const struct stored_key *keys, size_t count,
                              struct gq_error *err);

/* Up to `limit` audit lines at or after `since` (unix seconds; 0: all),
 * after the line `starting_after` (NULL: from the first), oldest first;
 * has_more when more follow. */
enum gq_code store_audit_read(struct store *store, int64_t since, const char *starting_after,
                              size_t limit, struct audit_page *out, struct gq_error *err);

/* ---- Events, the outbox (events.c) ---- */

#define STORE_EVENT_TYPE_SIZE 48

/* The types of event the service writes. */
#define STORE_EVENT_QUOTE_CREATED "quote.created"
#define STORE_EVENT_QUOTE_ACCEPTED "quote.accepted"
#define STORE_EVENT_QUOTE_CANCELED "quote.canceled"
#define STORE_EVENT_QUOTE_EXPIRED "quote.expired"
#define STORE_EVENT_PRICE_LIST_PUBLISHED "price_list.published"
#define STORE_EVENT_PRICE_LIST_CANCELED "price_list.canceled"
#define STORE_EVENT_ENDPOINT_DISABLED "webhook_endpoint.disabled"
#define STORE_EVENT_CUSTOMER_CREATED "customer.created"
#define STORE_EVENT_CUSTOMER_UPDATED "customer.updated"
#define STORE_EVENT_CUSTOMER_DELETED "customer.deleted"

/* One event: its id ("evt_" and 32 hex digits, ordered by time), its type,
 * when it was made, and its JSON as the API returns it ({"id", "object":
 * "event", "type", "created_at", "data": {"object": ...}}). `body` and
 * `packed` are owned by the struct: store_event_clear() frees them. */
struct store_event {
    char id[STORE_ID_SIZE];
    char type[STORE_EVENT_TYPE_SIZE];
    int64_t created_at; /* unix seconds */
    int64_t created_ms; /* unix milliseconds: when its webhook deliveries are first due */
    char *body;
    struct packed_response packed; /* a new event's body as it is written; empty when read */
    char customer_id[40];          /* the customer it concerns, as written; "": none */
};

void store_event_clear(struct store_event *event);

/* A new event of `type` (one of STORE_EVENT_*) whose data.object is the
 * JSON text `object` (the service's own text, wrapped byte for byte: only
 * its braces are checked, not parsed again), made now: an ordered id, its
 * time and its body into *out (the caller clears it). GQ_ERR_INVALID_VALUE
 * when `object` is not a JSON object's text, GQ_ERR_INTERNAL when no id can be made. A backend
 * writes it inside a transaction of its own making with sqlite_event_append() or pg_event_append()
 * (which also fan it out to the webhook endpoints that take its type), or alone with
 * store_event_publish(). */
enum gq_code store_event_make(const char *type, const char *object, struct store_event *out,
                              struct gq_error *err);

/* Records that `event` concerns the customer `customer_id` (NULL or "":
 * none), for GET /events of a key bound to that customer. */
void store_event_concerns(struct store_event *event, const char *customer_id);

/* How the objects of the events the store makes inside its own
 * transactions (a quote accepted, canceled or expired, an endpoint
 * disabled, a price list published) are rendered: given from above
 * (codec/store_json.h's codec_store_render), so that the store stores the
 * API's bytes without knowing their shape. Each returns a new string for
 * the caller to free, NULL when the record is unreadable or memory runs
 * out. */
struct stored_endpoint;
struct price_list_info;
struct store_render {
    char *(*quote)(const struct stored_quote *quote, int64_t now);
    char *(*endpoint)(const struct stored_endpoint *endpoint);
    char *(*price_list)(const struct price_list_info *info);
};

/* Sets the renderer, once, before any store is opened; without one, those
 * events (and the writes that make them) fail with GQ_ERR_INTERNAL. */
void store_set_render(const struct store_render *render);

/* Calls `notify(context)` after each commit of this process that wrote an
 * event (a saved quote, an accept, a published event), from the thread
 * that committed: the webhook sender's wake-up, so that an event is sent at
 * once rather than at its next poll. Set before serving; NULL: none. */
void store_listen_for_events(struct store *store, void (*notify)(void *context), void *context);

/* Writes an event of `type` with data.object `object` in a transaction of
 * its own (for a change the store does not make itself). */
enum gq_code store_event_publish(struct store *store, const char *type, const char *object,
                                 struct gq_error *err);

struct event_page {
    struct store_event *items;
    size_t count;
    bool has_more;
};

void store_event_page_free(struct event_page *page);

/* Up to `limit` events of `type` (NULL: every type) concerning
 * `customer_id` (NULL: any or none) after the event `starting_after`
 * (NULL: from the first), oldest first; has_more when more follow. */
enum gq_code store_events_read(struct store *store, const char *type, const char *customer_id,
                               const char *starting_after, size_t limit, struct event_page *out,
                               struct gq_error *err);

/* One event by id; GQ_ERR_NOT_FOUND when there is none. */
enum gq_code store_event_get(struct store *store, const char *id, struct store_event *out,
                             struct gq_error *err);

/* ---- Webhook endpoints and their deliveries (webhooks.c) ---- */

/* An endpoint as stored. `events` holds the types it takes, each between
 * spaces (" quote.created quote.accepted "), or " * " for all. Strings are
 * owned: store_endpoint_clear() frees them. `secret` is read back only by
 * store_deliveries_claim(): elsewhere it is NULL. */
struct stored_endpoint {
    char id[STORE_ID_SIZE]; /* "we_" and 32 hex digits */
    char *url;
    char *description;
    char *events;
    char *secret; /* "whsec_" and base64 */
    bool enabled;
    int64_t created_at; /* unix seconds */
    int64_t updated_at;
};

void store_endpoint_clear(struct stored_endpoint *endpoint);

struct endpoint_list {
    struct stored_endpoint *items;
    size_t count;
};

void store_endpoint_list_free(struct endpoint_list *list);

/* Stores a new endpoint (its secret included) and its audit line in one
 * transaction. */
enum gq_code store_endpoint_create(struct store *store, const struct stored_endpoint *endpoint,
                                   const struct audit_entry *audit, struct gq_error *err);

/* Every endpoint, oldest first, or the one of `id` (NULL: all); without
 * their secrets. */
enum gq_code store_endpoints_read(struct store *store, const char *id, struct endpoint_list *out,
                                  struct gq_error *err);

/* One endpoint; GQ_ERR_NOT_FOUND when there is none. */
enum gq_code store_endpoint_get(struct store *store, const char *id, struct stored_endpoint *out,
                                struct gq_error *err);

/* Sets an endpoint's events, enabled and updated_at (from *endpoint, by its
 * id) with its audit line; GQ_ERR_NOT_FOUND when there is none. */
enum gq_code store_endpoint_update(struct store *store, const struct stored_endpoint *endpoint,
                                   const struct audit_entry *audit, struct gq_error *err);

/* Deletes an endpoint and its deliveries with its audit line;
 * GQ_ERR_NOT_FOUND when there is none. */
enum gq_code store_endpoint_delete(struct store *store, const char *id,
                                   const struct audit_entry *audit, struct gq_error *err);

/* One try of a delivery. */
struct stored_attempt {
    int attempt;     /* 1, 2, ... */
    int64_t at_ms;   /* unix milliseconds */
    int status_code; /* 0: no HTTP answer */
    char *error;     /* NULL when an answer came */
    int64_t duration_ms;
};

/* A delivery: one event for one endpoint, and its tries, owned by its
 * page. */
struct stored_delivery {
    char id[STORE_ID_SIZE]; /* "whd_" and 32 hex digits */
    char endpoint_id[STORE_ID_SIZE];
    char event_id[STORE_ID_SIZE];
    char status[16]; /* "pending", "succeeded", "failed" */
    int attempts;
    int64_t next_attempt_at; /* unix milliseconds */
    int64_t created_at;      /* unix milliseconds */
    struct stored_attempt *tries;
    size_t n_tries;
};

struct delivery_page {
    struct stored_delivery *items;
    size_t count;
    bool has_more;
};

void store_delivery_page_free(struct delivery_page *page);

/* Up to `limit` deliveries of an endpoint, newest first, after
 * `starting_after` (NULL: from the newest), each with its tries. */
enum gq_code store_deliveries_read(struct store *store, const char *endpoint_id,
                                   const char *starting_after, size_t limit,
                                   struct delivery_page *out, struct gq_error *err);

/* Makes a delivery of the endpoint pending again, due at `now_ms`, with its
 * audit line; GQ_ERR_NOT_FOUND when the endpoint has no such delivery. */
enum gq_code store_delivery_retry(struct store *store, const char *endpoint_id,
                                  const char *delivery_id, int64_t now_ms,
                                  const struct audit_entry *audit, struct gq_error *err);

struct secret_keyring;

/* Seals every endpoint's secret with the keyring's first key (util/
 * secret_box.h): clear ones (stored before a key was configured) and ones
 * sealed with another key of the ring; *resealed counts them. Run at start
 * and by `gpuquote migrate`, so that after a key is moved first every row
 * is sealed with it. GQ_ERR_NOT_READY, naming the endpoint and the key id,
 * when a secret does not open: sealed with a key the ring lacks (or with
 * an empty ring), or under an id whose key is not the one it was sealed
 * with. */
enum gq_code store_webhook_secrets_reseal(struct store *store, const struct secret_keyring *ring,
                                          size_t *resealed, struct gq_error *err);

/* The clear secret of endpoint `id` from `stored` (sealed or clear) into
 * `plain`; GQ_ERR_NOT_READY as above when it does not open. */
enum gq_code store_webhook_secret_open(const struct secret_keyring *ring, const char *id,
                                       const char *stored, char *plain, size_t size,
                                       struct gq_error *err);

/* A delivery claimed to be sent: what the sender needs, owned. */
struct claimed_delivery {
    char id[STORE_ID_SIZE];
    char event_id[STORE_ID_SIZE];
    char endpoint_id[STORE_ID_SIZE];
    int attempts; /* tries before this one */
    char *url;
    char *secret; /* as stored: sealed (store_webhook_secret_open) or clear */
    char *body;   /* the event's JSON */
};

void store_claimed_free(struct claimed_delivery *items, size_t count);

/* Claims up to `max` pending deliveries due at `now_ms` whose lease has run
 * out (of enabled endpoints), leasing each until now_ms + lease_ms, in one
 * write transaction that no other process can interleave with (SQLite:
 * BEGIN IMMEDIATE; PostgreSQL: FOR UPDATE SKIP LOCKED). *out (the caller
 * frees it with store_claimed_free) holds *count of them. */
enum gq_code store_deliveries_claim(struct store *store, int64_t now_ms, int64_t lease_ms,
                                    size_t max, struct claimed_delivery **out, size_t *count,
                                    struct gq_error *err);

/* Records a try of a claimed delivery and what comes next: `status`
 * "succeeded", "failed", or "pending" again at `next_attempt_at`; the lease
 * is released. A success clears its endpoint's failing streak; a failure
 * starts one (at the try's time) or extends it, and an endpoint failing
 * since `disable_before_ms` or earlier (0: never) is disabled, with its
 * webhook_endpoint.disabled event, in the same transaction: *disabled. */
enum gq_code store_delivery_finish(struct store *store, const char *id,
                                   const struct stored_attempt *attempt, const char *status,
                                   int64_t next_attempt_at, int64_t disable_before_ms,
                                   bool *disabled, struct gq_error *err);
/* ---- Price lists (price_lists.c) ---- */

/* A price list is a numbered, immutable version of the whole sellable
 * catalog (migration 0008). Its content, the "document", is a JSON object
 * with one array per catalog table ("gpu_models", "skus", "sku_prices",
 * "discount_rules", "bundles", "bundle_items", "sku_texts",
 * "bundle_texts", and the tables no list edits: "billing_modes", ...),
 * each row an object keyed by column name, money in integer fen
 * ("amount_fen"), times in unix seconds. The active list's content is the
 * catalog tables themselves. */
enum price_list_state {
    PRICE_LIST_DRAFT,
    PRICE_LIST_SCHEDULED,
    PRICE_LIST_ACTIVE,
    PRICE_LIST_SUPERSEDED,
    PRICE_LIST_CANCELED /* withdrawn before it took effect (migration 0015) */
};

/* "draft", "scheduled", "active", "superseded"; false when none. */
const char *price_list_state_name(enum price_list_state state);
bool price_list_state_parse(const char *text, enum price_list_state *out);

struct price_list_info {
    int64_t version;
    enum price_list_state state;
    int64_t based_on;      /* the list it was copied from; 0: none */
    int64_t created_at;    /* unix seconds */
    int64_t effective_at;  /* 0 for a draft */
    int64_t published_at;  /* 0 for a draft */
    int64_t superseded_at; /* 0 unless superseded */
    char *document;        /* owned; NULL when not read or not kept */
};

struct price_list_set {
    struct price_list_info *items; /* newest first */
    size_t count;
};

void store_price_list_set_free(struct price_list_set *set);

void store_price_list_info_clear(struct price_list_info *info);

/* Every list, newest first, without documents. */
enum gq_code store_price_lists_read(struct store *store, struct price_list_set *out,
                                    struct gq_error *err);

/* One list with its document (the active one's read from the catalog
 * tables). GQ_ERR_NOT_FOUND when there is none. The caller clears *out. */
enum gq_code store_price_list_get(struct store *store, int64_t version, struct price_list_info *out,
                                  struct gq_error *err);

/* A new draft, a copy of the active list, numbered one past every list
 * and the catalog's version, with its audit line ("price_list.create";
 * the store writes the target and the change). *version receives its
 * number. */
enum gq_code store_price_list_create(struct store *store, int64_t now, struct audit_entry *audit,
                                     int64_t *version, struct gq_error *err);

/* The document of list `version` (the active one's read from the catalog
 * tables) as a new JSON object with every table, and its list in *info
 * (the caller clears both). GQ_ERR_NOT_FOUND when there is none. */
enum gq_code store_price_list_document(struct store *store, int64_t version,
                                       struct price_list_info *info, json_t **document,
                                       struct gq_error *err);

/* store_price_list_document() without the list's info. */
enum gq_code store_price_list_document_only(struct store *store, int64_t version, json_t **document,
                                            struct gq_error *err);

/* The catalog tables' content, the active list's document, as a new
 * JSON object. */
enum gq_code store_price_list_live_document(struct store *store, json_t **document,
                                            struct gq_error *err);

/* The catalog of `document` (borrowed; its price_list row renumbered to
 * `version`, `updated_at`), passed through catalog_validate(); the caller
 * frees it with catalog_free(). */
enum gq_code store_price_list_document_catalog(json_t *document, int64_t version,
                                               int64_t updated_at, struct catalog **out,
                                               struct gq_error *err);

/* Edits `document`, draft `version`'s, with what `context` says, checking
 * the result; *change receives the audit's change text (malloc'd). On an
 * error nothing is written. */
typedef enum gq_code (*store_price_list_editor)(json_t *document, int64_t version,
                                                const void *context, char **change,
                                                struct gq_error *err);

/* Reads draft `version`, runs `editor` on its document and writes the
 * result with its audit line (the change the editor gives), in one call:
 * the store holds no rule of what an edit does. GQ_ERR_NOT_FOUND (no such
 * list), GQ_ERR_PRICE_LIST_NOT_DRAFT, or the editor's code with nothing
 * changed. */
enum gq_code store_price_list_edit(struct store *store, int64_t version,
                                   store_price_list_editor editor, const void *context,
                                   struct audit_entry *audit, struct gq_error *err);

/* Judges whether draft `info` (its `document`) may be published at
 * `effective_at`; any error stops the publishing with nothing changed. */
typedef enum gq_code (*store_price_list_publish_check)(struct store *store,
                                                       const struct price_list_info *info,
                                                       json_t *document, int64_t effective_at,
                                                       void *context, struct gq_error *err);

/* Publishes draft `version` to take effect at `effective_at` (at once
 * when <= now) once `check` passes: scheduled, or active at once (the
 * catalog tables rewritten, the active list superseded,
 * price_list.version = version), with its audit line. *activated says
 * which. */
enum gq_code store_price_list_publish(struct store *store, int64_t version, int64_t effective_at,
                                      int64_t now, store_price_list_publish_check check,
                                      void *context, struct audit_entry *audit, bool *activated,
                                      struct gq_error *err);

/* Withdraws draft or scheduled list `version`: canceled, never to take
 * effect, with its audit line and a price_list.canceled event.
 * GQ_ERR_PRICE_LIST_NOT_DRAFT for a list in any other state. */
enum gq_code store_price_list_cancel(struct store *store, int64_t version,
                                     struct audit_entry *audit, struct gq_error *err);

/* Merges list `version`'s own changes (`content` against its `base`)
 * onto `active` into *merged, checked; a conflict is an error with
 * *conflicts (a new array) listing them. */
typedef enum gq_code (*store_price_list_merger)(json_t *base, json_t *content, json_t *active,
                                                int64_t version, json_t **merged,
                                                json_t **conflicts, struct gq_error *err);

/* Re-applies draft or scheduled list `version`'s own changes (against the
 * list it was drafted from) onto the active list with `merge`: its
 * document and based_on rewritten, its state and instant kept, with its
 * audit line. On the merger's error (GQ_ERR_PRICE_LIST_REBASE_CONFLICT,
 * *conflicts listing them) nothing is changed. */
enum gq_code store_price_list_rebase(struct store *store, int64_t version,
                                     store_price_list_merger merge, struct audit_entry *audit,
                                     json_t **conflicts, struct gq_error *err);

/* Activates the latest scheduled list whose effective_at <= now, if any
 * (an earlier one it overtakes is superseded unseen); any replica may
 * call it, and only one activates a list. *activated: the version
 * activated now, 0 when none. */
enum gq_code store_price_lists_activate_due(struct store *store, int64_t now, int64_t *activated,
                                            struct gq_error *err);

/* The earliest effective_at of a scheduled list; 0 when none. */
enum gq_code store_price_list_next_due(struct store *store, int64_t *effective_at,
                                       struct gq_error *err);

/* The version of the list in effect at `at` (the latest effective_at <= at
 * among the published lists). GQ_ERR_NOT_FOUND before the first. */
enum gq_code store_price_list_at(struct store *store, int64_t at, int64_t *version,
                                 struct gq_error *err);

/* The catalog of list `version` (passed through catalog_validate()); the
 * caller frees it with catalog_free(). */
enum gq_code store_price_list_catalog(struct store *store, int64_t version, struct catalog **out,
                                      struct gq_error *err);

/* ---- Promotion codes (promotion_codes.c, migration 0014) ---- */

#define STORE_PROMOTION_CODE_SIZE 33 /* 3..32 of [A-Z0-9_-] and the NUL */
#define STORE_EVENT_PROMOTION_CODE_REDEEMED "promotion_code.redeemed"

/* A promotion code as stored. `discount` is the JSON text of the discount
 * rule's fields it gives; 0 in expires_at, max_redemptions and
 * per_customer_limit means none. */
struct stored_promotion_code {
    char code[STORE_PROMOTION_CODE_SIZE];
    char *discount;
    int64_t expires_at;
    int64_t max_redemptions;
    int64_t per_customer_limit;
    bool first_time_only;
    bool active;
    int64_t redemptions;
    int64_t created_at;
    int64_t updated_at;
};

/* ---- Customers (customers.c) ---- */

/* A customer as stored: its email in a column of its own (to be found by
 * it) and the rest of what was given as the API's JSON text. An erased
 * customer has `deleted`, no email and the document "{}". Strings are
 * owned: store_customer_clear() frees them. */
struct stored_customer {
    char id[STORE_ID_SIZE]; /* "cus_" and 32 hex digits */
    char *email;            /* NULL: none */
    char *document;
    bool deleted;
    int64_t created_at;
    int64_t updated_at;
};

struct promotion_code_list {
    struct stored_promotion_code *items;
    size_t count;
};

void store_promotion_code_clear(struct stored_promotion_code *code);
void store_promotion_code_list_free(struct promotion_code_list *list);

/* Every code, oldest first, or the one `code` (NULL: all); none is count 0. */
enum gq_code store_promotion_codes_read(struct store *store, const char *code,
                                        struct promotion_code_list *out, struct gq_error *err);

/* One code by name into *out (the caller clears it); GQ_ERR_NOT_FOUND when
 * there is none. */
enum gq_code store_promotion_code_get(struct store *store, const char *code,
                                      struct stored_promotion_code *out, struct gq_error *err);

/* Stores a new code with its audit line in one transaction;
 * GQ_ERR_PROMOTION_CODE_EXISTS (nothing written) when the name is taken. */
enum gq_code store_promotion_code_create(struct store *store,
                                         const struct stored_promotion_code *code,
                                         const struct audit_entry *audit, struct gq_error *err);

/* Deactivates `code` at `now` with its audit line (none when it was
 * inactive already) and reads it back into *out; GQ_ERR_NOT_FOUND when
 * there is no such code. */
enum gq_code store_promotion_code_deactivate(struct store *store, const char *code, int64_t now,
                                             const struct audit_entry *audit,
                                             struct stored_promotion_code *out,
                                             struct gq_error *err);

/* store_quote_accept for a quote priced with promotion code `code`: in the
 * same transaction, the code's redemptions counted by one if it is still
 * below max_redemptions, with its promotion_code.redeemed event; when it
 * is not, nothing is written (the quote stays open) and the answer is
 * GQ_ERR_PROMOTION_CODE_EXHAUSTED. */
enum gq_code store_quote_accept_with_code(struct store *store, const char *id, int64_t now,
                                          const char *acceptance, const char *code,
                                          struct stored_quote *out, struct gq_error *err);

void store_customer_clear(struct stored_customer *customer);

struct customer_page {
    struct stored_customer *items;
    size_t count;
    bool has_more;
};

void store_customer_page_free(struct customer_page *page);

/* Which customers to read: the one `id` (deleted or not), or a page of
 * at most `limit`, newest first, after `starting_after` (NULL: from the
 * newest), of those with `email` (NULL: any), erased ones only when
 * `include_deleted`. */
struct customer_filter {
    const char *id;
    const char *email;
    bool include_deleted;
    const char *starting_after;
    size_t limit;
};

enum gq_code store_customers_read(struct store *store, const struct customer_filter *filter,
                                  struct customer_page *out, struct gq_error *err);

/* GQ_OK when the customer `id` exists and is not erased; GQ_ERR_NOT_FOUND
 * when it is unknown or erased (or the store's error). */
enum gq_code store_customer_check_live(struct store *store, const char *id, struct gq_error *err);

/* The customer `id` into *out (the caller clears it); GQ_ERR_NOT_FOUND
 * when there is none. */
enum gq_code store_customer_get(struct store *store, const char *id, struct stored_customer *out,
                                struct gq_error *err);

/* Stores `customer`, new when `create`, else over the customer of its id
 * if that is not erased (GQ_ERR_NOT_FOUND otherwise, nothing written),
 * with the event `event_type` whose object is the JSON text `object`
 * and the audit line, all in one transaction. */
enum gq_code store_customer_write(struct store *store, bool create,
                                  const struct stored_customer *customer, const char *event_type,
                                  const char *object, const struct audit_entry *audit,
                                  struct gq_error *err);

#endif
