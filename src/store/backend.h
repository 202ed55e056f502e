/*
 * The store's backends, in the manner of a database plugin: each backend
 * (src/store/sqlite/, src/store/postgres/) fills one table of operations,
 * `struct store_backend_ops`, and holds every line of SQL of its dialect.
 * What is not SQL is written once, above the table, in src/store/: the
 * migration files and their checksums (migrations.c), turning catalog rows
 * into a `struct catalog` (catalog_load.c), the quote checks and the LZ4
 * packing of stored responses (quote_pack.c), the group commit's queue and
 * its thread (quote_batch.c), and the pool of connections (pool.c).
 *
 * Conventions for every operation: GQ_OK or an error code with `err`
 * filled; GQ_ERR_RETRY_LATER when the database is busy or unreachable and
 * the same call may succeed later (HTTP 503 retry_later);
 * GQ_ERR_NOT_READY when it is not usable at all (no schema, cannot be
 * opened); GQ_ERR_INTERNAL for anything else, with the database's message.
 * Every operation is safe to call from several threads at once.
 */
#ifndef GQ_STORE_BACKEND_H
#define GQ_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "store/store.h"
#include "store/customer_rules.h"
#include "store/verifications.h"

struct store_backend; /* a backend's own state */

/* ---- Rows (catalog reading) ---- */

struct store_row;

/* How the neutral code reads a column of a backend's row; columns count
 * from 0. A NULL reads as NULL text, 0 and 0.0. */
struct store_row_ops {
    bool (*is_null)(const struct store_row *row, int column);
    const char *(*text)(const struct store_row *row, int column);
    int64_t (*integer)(const struct store_row *row, int column);
    double (*real)(const struct store_row *row, int column);
};

struct store_row {
    const struct store_row_ops *ops;
    void *impl;
};

/* The queries that read the catalog, run in this order inside one read
 * transaction (one snapshot); their texts and columns are in queries.h
 * (one text for both backends). Rows may come in any order: catalog_load.c
 * sorts what it needs sorted. */
enum catalog_query {
    CATALOG_QUERY_PRICE_LIST, /* one row */
    CATALOG_QUERY_MODELS,
    CATALOG_QUERY_MODES,
    CATALOG_QUERY_MODE_SEGMENTS,
    CATALOG_QUERY_SKUS,    /* active SKUs */
    CATALOG_QUERY_PRICES,  /* of active SKUs */
    CATALOG_QUERY_RULES,   /* active rules */
    CATALOG_QUERY_BUNDLES, /* bundles of active SKUs only */
    CATALOG_QUERY_BUNDLE_ITEMS,
    /* What a person reads, one row per language (migration 0005); rows of
     * entries not read above (an inactive SKU) are skipped. */
    CATALOG_QUERY_SKU_TEXTS,
    CATALOG_QUERY_MODE_TEXTS,
    CATALOG_QUERY_BUNDLE_TEXTS,
    CATALOG_QUERY_CATALOG_TEXTS,
    CATALOG_QUERY_SKU_HOSTS,
    CATALOG_QUERY_REGION_TEXTS,
    CATALOG_QUERY_SHAPES,
    CATALOG_QUERY_COUNT
};

/* What a backend's read_catalog hands each row to, and tells when a query
 * has returned its last row (catalog_load.c). A non-GQ_OK return stops the
 * reading with that error. */
struct catalog_reader {
    enum gq_code (*row)(struct catalog_reader *reader, enum catalog_query query,
                        const struct store_row *row, struct gq_error *err);
    enum gq_code (*end)(struct catalog_reader *reader, enum catalog_query query,
                        struct gq_error *err);
};

/* Something that runs every CATALOG_QUERY_* into `reader`, in order: a
 * backend's read_catalog, or a price list's document (price_lists.c). */
typedef enum gq_code (*store_catalog_feed)(void *context, struct catalog_reader *reader,
                                           struct gq_error *err);

/* The catalog `feed` gives, passed through catalog_validate(); *out is
 * the caller's (catalog_free()), NULL on failure. */
enum gq_code store_build_catalog(store_catalog_feed feed, void *context, struct catalog **out,
                                 struct gq_error *err);

/* ---- Migrations (migrations.c) ---- */

/* One migration file, `NNNN_name.sql`, read whole. */
struct migration {
    int version;
    char *name; /* "0002_seed_catalog.sql" */
    char *sql;  /* the file's bytes, NUL-terminated */
    size_t size;
    char checksum[65]; /* SHA-256 of the bytes, lower-case hex */
};

/* One row of schema_migrations. */
struct recorded_migration {
    int version;
    char name[128];
    char checksum[65];
};

/* Every recorded migration, in version order; empty (count 0) for a
 * database that was never migrated. */
struct migration_history {
    struct recorded_migration *items;
    size_t count;
};

/* GQ_OK when `recorded`, the checksum schema_migrations holds for
 * `migration`, is its file's; else the failure that says the applied file
 * was changed. */
enum gq_code store_migration_check_recorded(const struct migration *migration, const char *recorded,
                                            struct gq_error *err);

/* Frees the items of `history` and empties it. */
void store_migration_history_free(struct migration_history *history);

/* ---- Quotes (quote_pack.c) ---- */

/* A stored response (or event body) as a backend reads it back: either the
 * text of a row stored before compression, or an LZ4 block and the length
 * of the JSON it holds. Borrowed from the backend's row. */
struct stored_response {
    const char *text;  /* NULL when stored compressed */
    const char *block; /* NULL when stored as text */
    size_t block_size;
    int64_t size; /* the JSON's length, as recorded */
};

/* The text as a new NUL-terminated string in *out. GQ_ERR_INTERNAL
 * naming the row ("quote q_…", "event evt_…": `kind` and `id`) when it is
 * damaged (a block that does not decompress to its recorded size or that
 * holds a NUL, neither form present), GQ_ERR_NO_MEMORY when memory runs
 * out. */
enum gq_code store_unpack_stored(const char *kind, const char *id,
                                 const struct stored_response *stored, char **out,
                                 struct gq_error *err);

/* `text` as an LZ4 block into *out (its block the caller's to free). */
enum gq_code store_pack_text(const char *text, struct packed_response *out, struct gq_error *err);

/* Fills save->packed from save->quote.response_json. */
enum gq_code store_pack_response(struct quote_save *save, struct gq_error *err);

/* The checks every quote passes before any backend sees it: an id of 1 to
 * STORE_QUOTE_ID_SIZE - 1 characters, a request and a response, no empty
 * idempotency key. GQ_ERR_INVALID_VALUE otherwise. */
enum gq_code store_check_quote(const struct stored_quote *quote, struct gq_error *err);

/* How an accept or a cancel ended, for the neutral code to word. */
enum accept_outcome {
    ACCEPT_DONE,      /* done now; the quote read back */
    ACCEPT_NOT_FOUND, /* no such quote */
    ACCEPT_EXPIRED,   /* expires_at <= now: left as it is; the quote read back */
    ACCEPT_NOT_OPEN,  /* accepted or canceled already: left as it is; the quote read back */
    ACCEPT_PROMOTION_EXHAUSTED /* its promotion code ran out: nothing written; the quote read back
                                */
};

/* A delivery's try recorded (store_delivery_finish). */
struct delivery_end {
    const char *id;
    const struct stored_attempt *attempt;
    const char *status;
    int64_t next_attempt_at;
    int64_t disable_before_ms; /* 0: never disable */
};

/* The renderer store_set_render() set, or NULL. */
const struct store_render *store_render(void);

/* The webhook_endpoint.disabled event of `endpoint` (as it is, disabled),
 * into *out (the caller clears it). */
enum gq_code store_event_endpoint_disabled(const struct stored_endpoint *endpoint,
                                           struct store_event *out, struct gq_error *err);

/* How an open quote ends by request. */
enum quote_ending { QUOTE_END_ACCEPT, QUOTE_END_CANCEL };

/* One ending: the quote, when, and what is kept with it (the acceptance's
 * JSON text, or the cancel's reason; NULL: none). */
struct quote_end {
    enum quote_ending ending;
    const char *id;
    int64_t now;
    const char *detail;
    /* ACCEPT: the promotion code whose redemption is counted with it
     * (NULL: none), and the event of that redemption to append. */
    const char *promotion_code;
    const struct store_event *promotion_event;
};

/* ---- Keys and audit (keys.c) ---- */

/* An audit line ready to be written: the entry, its id and its time. */
struct audit_line {
    const struct audit_entry *entry;
    char id[STORE_ID_SIZE];
    int64_t at;
};

/* The audit line of `entry`: a time-ordered id ("aud_...") and now. */
enum gq_code store_audit_line(const struct audit_entry *entry, struct audit_line *line,
                              struct gq_error *err);

/* A page read with one line more than `limit` (to tell whether more
 * follow): the extra lines are dropped and has_more set. */
void store_audit_page_trim(struct audit_page *page, size_t limit);

/* Text of a key's scopes as stored ("quotes:write quotes:read"), and back;
 * false when the stored text names an unknown scope (the key is refused). */
void store_scopes_text(unsigned scopes, char *out, size_t size);
bool store_scopes_parse(const char *text, unsigned *scopes);

/* ---- Events (events.c) ---- */

/* The event a save's quote makes (quote.created), filled into save->event
 * by the group commit before the backend writes the batch. */
enum gq_code store_event_for_save(struct quote_save *save, struct gq_error *err);

/* The event of type `type` (quote.accepted, quote.canceled,
 * quote.expired) of `quote` as it is just after that change at `now`, into
 * *out (the caller clears it): what a backend appends with the change. */
enum gq_code store_event_of_quote(const char *type, const struct stored_quote *quote, int64_t now,
                                  struct store_event *out, struct gq_error *err);

/* The event `id` of `type`, made at `created_at` (unix seconds), remade
 * around `object` into *out (the caller clears it): how a customer's
 * erasure rewrites the events that carried the person. */
enum gq_code store_event_remake(const char *id, const char *type, int64_t created_at,
                                const char *object, struct store_event *out, struct gq_error *err);

/* Event `type` around `object`, an object's text a renderer made, which
 * this frees, into *out (the caller clears it); NULL `object` (the
 * renderer ran out of memory) is GQ_ERR_NO_MEMORY. */
enum gq_code store_event_of_text(const char *type, char *object, struct store_event *out,
                                 struct gq_error *err);

/* Tells the store's event listener (store_listen_for_events) that events
 * were committed. */
void store_events_committed(struct store *store);

/* ---- Price lists (price_lists.c) ---- */

/* A value of a row written into the catalog tables. */
enum store_value_kind { STORE_VALUE_NULL, STORE_VALUE_INTEGER, STORE_VALUE_REAL, STORE_VALUE_TEXT };

struct store_value {
    enum store_value_kind kind;
    int64_t integer;
    double real;
    const char *text; /* borrowed */
};

/* The catalog tables a price list writes when it becomes active, each row
 * with the columns of its CATALOG_QUERY_* (backend.h above), in order. */
enum catalog_write_table {
    CATALOG_WRITE_MODELS,       /* CATALOG_QUERY_MODELS */
    CATALOG_WRITE_SKUS,         /* CATALOG_QUERY_SKUS */
    CATALOG_WRITE_PRICES,       /* CATALOG_QUERY_PRICES */
    CATALOG_WRITE_RULES,        /* CATALOG_QUERY_RULES */
    CATALOG_WRITE_BUNDLES,      /* CATALOG_QUERY_BUNDLES */
    CATALOG_WRITE_BUNDLE_ITEMS, /* CATALOG_QUERY_BUNDLE_ITEMS */
    CATALOG_WRITE_SKU_TEXTS,    /* CATALOG_QUERY_SKU_TEXTS */
    CATALOG_WRITE_BUNDLE_TEXTS, /* CATALOG_QUERY_BUNDLE_TEXTS */
    CATALOG_WRITE_COUNT
};

struct catalog_write_rows {
    const struct store_value *values; /* n_rows * n_columns */
    size_t n_rows;
    size_t n_columns;
};

/* One write of the price lists, each in one transaction with its audit
 * line; *applied false (nothing written, no audit line) when its
 * condition does not hold. */
enum price_list_write_kind {
    /* A draft numbered `version`, if that is above every list's and the
     * catalog's version; `document`, `based_on`, `now` (created_at). */
    PRICE_LIST_WRITE_INSERT,
    /* `document` of draft `version`, if it is a draft. */
    PRICE_LIST_WRITE_EDIT,
    /* Draft `version` scheduled at `effective_at` (published `now`). */
    PRICE_LIST_WRITE_SCHEDULE,
    /* Scheduled list `version` made active at `now`: the tables of `rows`
     * emptied and written (SKUs not in them marked inactive, GPU models
     * neither written nor used by a SKU deleted), every scheduled list
     * with an effective_at <= version's superseded, the active list
     * superseded with `document` (the tables' content before), and
     * price_list.version = version. */
    PRICE_LIST_WRITE_ACTIVATE,
    /* Draft or scheduled list `version` canceled, with `event`. */
    PRICE_LIST_WRITE_CANCEL,
    /* Draft or scheduled list `version` given `document` and `based_on`. */
    PRICE_LIST_WRITE_REBASE
};

struct price_list_write {
    enum price_list_write_kind kind;
    int64_t version;
    int64_t based_on;
    int64_t now;
    int64_t effective_at;
    const char *document;
    const char *old_document; /* EDIT: what the edit read; applied only while still there */
    const char *model_ids;    /* ACTIVATE: the models written, a JSON array of strings */
    /* SCHEDULE: price_list.published, appended in the same transaction
     * when the write applies (the outbox); NULL: none. */
    const struct store_event *event;
    struct catalog_write_rows rows[CATALOG_WRITE_COUNT];
};

/* ---- Customers (customers.c) ---- */

/* One write of a customer with its event and audit line (one
 * transaction): an insert when `create`, else an update of a customer
 * that is not erased. Each write links its event to the customer
 * (customer_events); an erasure (customer->deleted) also remakes every
 * earlier event of the customer around `object`, the erased record, so
 * that no stored event keeps the person. */
struct customer_write {
    bool create;
    const struct stored_customer *customer;
    const struct store_event *event;
    const char *object;
    const struct audit_line *audit;
};

/* ---- The table of operations ---- */

struct store_backend_ops {
    /* "sqlite", "postgres": also the subdirectory of the migrations root
     * that holds this dialect's migrations. */
    const char *name;

    /* Opens the database `options->database` names (creating it when
     * `options->create` and the backend can). The caller owns *out and
     * frees it with close(). */
    enum gq_code (*open)(const struct store_options *options, struct store_backend **out,
                         struct gq_error *err);
    void (*close)(struct store_backend *backend);

    /* Migrations: the recorded history (the caller frees items), and one
     * migration applied and recorded in one transaction, under a lock that
     * makes two processes migrating at once apply it once (*applied false
     * when another already had; a recorded checksum that differs from the
     * file's is GQ_ERR_INVALID_VALUE). */
    enum gq_code (*read_history)(struct store_backend *backend, struct migration_history *out,
                                 struct gq_error *err);
    enum gq_code (*apply_migration)(struct store_backend *backend,
                                    const struct migration *migration, bool *applied,
                                    struct gq_error *err);

    /* Health: a trivial query answers; the database takes a write now;
     * the database is still the one opened, and writes have not been
     * failing on the storage (a full disk), or a probe write succeeds.
     * Each GQ_ERR_NOT_READY with the cause. failed_since_check says,
     * without any I/O, that a call failed since in a way a check would
     * see (a full disk, the database file gone, the server out of reach),
     * so that a good outcome of the last check no longer holds. */
    enum gq_code (*ping)(struct store_backend *backend, struct gq_error *err);
    enum gq_code (*check_writable)(struct store_backend *backend, struct gq_error *err);
    enum gq_code (*check_storage)(struct store_backend *backend, struct gq_error *err);
    bool (*failed_since_check)(struct store_backend *backend);

    /* The catalog: every CATALOG_QUERY_* in order, in one read transaction
     * (GQ_ERR_NOT_READY when the database has no catalog tables); the
     * price-list version alone, cheaply; and a wait of up to `timeout_ms`
     * that ends early when the database announces a catalog change (a
     * NOTIFY) or `wake_fd` becomes readable. A backend with no way to be
     * told just waits: the caller polls the version after every wait. */
    enum gq_code (*read_catalog)(struct store_backend *backend, struct catalog_reader *reader,
                                 struct gq_error *err);
    enum gq_code (*price_list_version)(struct store_backend *backend, int64_t *version,
                                       struct gq_error *err);
    void (*wait_for_catalog_change)(struct store_backend *backend, int timeout_ms, int wake_fd);

    /* Quotes. save_quotes writes a batch (linked by `next`, each checked,
     * packed and with its quote.created in `event`: store_event_for_save)
     * in one transaction, each quote with its event (the outbox): each quote
     * is inserted, or replayed when its idempotency key is stored already (in
     * the database or earlier in the batch), and gets its own outcome; a
     * quote the database refuses fails alone; a transaction that cannot begin
     * or commit fails every save in it and writes nothing. Each save inserted
     * has `deliveries_due` set when its event fanned out to a webhook
     * delivery. Returns GQ_ERR_RETRY_LATER when nothing could be tried
     * because the database stayed busy or could not be reached (the saves
     * queued behind are failed too), else GQ_OK. */
    enum gq_code (*save_quotes)(struct store_backend *backend, struct quote_save *batch);
    /* *found false (and *out untouched) when there is no such quote. */
    enum gq_code (*get_quote)(struct store_backend *backend, const char *id,
                              struct stored_quote *out, bool *found, struct gq_error *err);
    /* Accepts or cancels the quote if it is open and expires after
     * `now`, as one conditional write with its event; *out holds the quote
     * as it is afterwards, except for ACCEPT_NOT_FOUND. */
    enum gq_code (*end_quote)(struct store_backend *backend, const struct quote_end *end,
                              struct stored_quote *out, enum accept_outcome *outcome,
                              struct gq_error *err);
    /* store.h: store_quotes_list, with the cursor resolved (after_created
     * and after_id; after_id NULL: from the newest), reading limit + 1
     * rows (the neutral code trims the extra one into has_more). */
    enum gq_code (*list_quotes)(struct store_backend *backend, const struct quote_filter *filter,
                                int64_t after_created, const char *after_id, struct quote_page *out,
                                struct gq_error *err);
    /* store.h: store_quotes_expire, store_quotes_delete_ended,
     * store_quote_release_key. */
    enum gq_code (*expire_quotes)(struct store_backend *backend, int64_t now, int limit, int *count,
                                  struct gq_error *err);
    enum gq_code (*delete_ended_quotes)(struct store_backend *backend, int64_t ended_before,
                                        int64_t accepted_before, int limit, int *count,
                                        struct gq_error *err);
    /* store.h: store_retention_delete. */
    enum gq_code (*delete_past_retention)(struct store_backend *backend, enum store_retention kind,
                                          int64_t before, int limit, int *count,
                                          struct gq_error *err);
    enum gq_code (*release_key)(struct store_backend *backend, const char *quote_id,
                                const char *key, bool *released, struct gq_error *err);
    /* The request bodies of the `limit` newest quotes, newest first, into
     * a new JSON array of strings. */
    enum gq_code (*recent_requests)(struct store_backend *backend, int limit, json_t **out,
                                    struct gq_error *err);

    /* API keys and the audit log (store.h says what each does). A write
     * and its audit line share one transaction; the audit line's id and
     * time are given (`audit_id`, `now`). key_revoke sets *found and
     * *was_revoked and reads the key back. */
    enum gq_code (*keys_version)(struct store_backend *backend, int64_t *version,
                                 struct gq_error *err);
    enum gq_code (*keys_read)(struct store_backend *backend, bool with_revoked, const char *id,
                              struct key_list *out, struct gq_error *err);
    enum gq_code (*key_insert)(struct store_backend *backend, const struct stored_key *key,
                               const struct audit_line *audit, struct gq_error *err);
    enum gq_code (*key_revoke)(struct store_backend *backend, const char *id, int64_t now,
                               const struct audit_line *audit, struct stored_key *out, bool *found,
                               bool *was_revoked, struct gq_error *err);
    enum gq_code (*keys_touch)(struct store_backend *backend, const struct stored_key *keys,
                               size_t count, struct gq_error *err);
    enum gq_code (*audit_read)(struct store_backend *backend, int64_t since,
                               const char *starting_after, size_t limit, struct audit_page *out,
                               struct gq_error *err);

    /* Events (store.h says what each does). append_event writes one in a
     * transaction of its own, with its deliveries; inside a transaction
     * of a backend's own, sqlite_event_append() and pg_event_append() do
     * the same. events_read with `id` reads that one event alone. */
    enum gq_code (*append_event)(struct store_backend *backend, const struct store_event *event,
                                 struct gq_error *err);
    enum gq_code (*events_read)(struct store_backend *backend, const char *type,
                                const char *customer_id, const char *id, const char *starting_after,
                                size_t limit, struct event_page *out, struct gq_error *err);

    /* Webhook endpoints and deliveries (store.h). A write and its audit
     * line share one transaction; *found false when there was no such
     * row (nothing written). */
    enum gq_code (*endpoint_insert)(struct store_backend *backend,
                                    const struct stored_endpoint *endpoint,
                                    const struct audit_line *audit, struct gq_error *err);
    enum gq_code (*endpoints_read)(struct store_backend *backend, const char *id,
                                   struct endpoint_list *out, struct gq_error *err);
    enum gq_code (*endpoint_update)(struct store_backend *backend,
                                    const struct stored_endpoint *endpoint,
                                    const struct audit_line *audit, bool *found,
                                    struct gq_error *err);
    enum gq_code (*endpoint_delete)(struct store_backend *backend, const char *id,
                                    const struct audit_line *audit, bool *found,
                                    struct gq_error *err);
    /* Every endpoint's id and stored secret alone (store_webhook_secrets_reseal);
     * the secret of `id` replaced by `sealed` if it is still `stored`
     * (*found false when it is not: changed or deleted meanwhile). */
    enum gq_code (*endpoint_secrets_read)(struct store_backend *backend, struct endpoint_list *out,
                                          struct gq_error *err);
    enum gq_code (*endpoint_secret_replace)(struct store_backend *backend, const char *id,
                                            const char *stored, const char *sealed, bool *found,
                                            struct gq_error *err);
    enum gq_code (*deliveries_read)(struct store_backend *backend, const char *endpoint_id,
                                    const char *starting_after, size_t limit,
                                    struct delivery_page *out, struct gq_error *err);
    enum gq_code (*delivery_retry)(struct store_backend *backend, const char *endpoint_id,
                                   const char *delivery_id, int64_t now_ms,
                                   const struct audit_line *audit, bool *found,
                                   struct gq_error *err);
    enum gq_code (*deliveries_claim)(struct store_backend *backend, int64_t now_ms,
                                     int64_t lease_ms, size_t max, struct claimed_delivery **out,
                                     size_t *count, struct gq_error *err);
    enum gq_code (*delivery_finish)(struct store_backend *backend, const struct delivery_end *end,
                                    bool *disabled, struct gq_error *err);
    /* Price lists (store.h): every list newest first (version 0, without
     * documents) or the one `version` (with its document; none: count 0);
     * and one write (above). */
    enum gq_code (*price_lists_read)(struct store_backend *backend, int64_t version,
                                     struct price_list_set *out, struct gq_error *err);
    enum gq_code (*price_list_write)(struct store_backend *backend,
                                     const struct price_list_write *write,
                                     const struct audit_line *audit, bool *applied,
                                     struct gq_error *err);
    /* Promotion codes (store.h): every code or the one `code`; a new code
     * (*inserted false when the name is taken: nothing written); a code
     * deactivated (*found false when there is none; the audit line only
     * when it changed), read back into *out. */
    enum gq_code (*promotion_codes_read)(struct store_backend *backend, const char *code,
                                         struct promotion_code_list *out, struct gq_error *err);
    enum gq_code (*promotion_code_insert)(struct store_backend *backend,
                                          const struct stored_promotion_code *code,
                                          const struct audit_line *audit, bool *inserted,
                                          struct gq_error *err);
    enum gq_code (*promotion_code_deactivate)(struct store_backend *backend, const char *code,
                                              int64_t now, const struct audit_line *audit,
                                              struct stored_promotion_code *out, bool *found,
                                              struct gq_error *err);
    /* Customers (store.h): one write (above; *found false when an update
     * found no customer to change: nothing written), and the customers
     * `filter` selects, reading limit + 1 rows of a page (the neutral
     * code trims the extra one into has_more). */
    enum gq_code (*customer_write)(struct store_backend *backend,
                                   const struct customer_write *write, bool *found,
                                   struct gq_error *err);
    enum gq_code (*customers_read)(struct store_backend *backend,
                                   const struct customer_filter *filter, struct customer_page *out,
                                   struct gq_error *err);
    /* Verifications (verifications.h): one write (*done false: nothing
     * written), those of a customer, and the sweeper's expiry. */
    enum gq_code (*verification_write)(struct store_backend *backend,
                                       const struct verification_write *write, bool *done,
                                       struct gq_error *err);
    enum gq_code (*verifications_read)(struct store_backend *backend, const char *customer_id,
                                       const char *id, int64_t live_at,
                                       struct verification_list *out, struct gq_error *err);
    enum gq_code (*expire_verifications)(struct store_backend *backend, int64_t now, int limit,
                                         int *count, struct gq_error *err);
    /* A customer's own discount rules (customer_rules.h): those of a
     * customer, and one put or delete with its audit line (*write->done
     * false: nothing written). */
    enum gq_code (*customer_rules_read)(struct store_backend *backend, const char *customer_id,
                                        struct customer_rule_list *out, struct gq_error *err);
    enum gq_code (*customer_rule_write)(struct store_backend *backend,
                                        const struct customer_rule_write *write,
                                        struct gq_error *err);
};

extern const struct store_backend_ops sqlite_backend_ops;
extern const struct store_backend_ops postgres_backend_ops;

/* A PostgreSQL connection string fit for a log line (store_describe_database):
 * libpq's options, each secret one "***"; a string libpq cannot parse is
 * described without any of it. */
void postgres_describe_database(const char *conninfo, char *out, size_t size);

/* libpq's `message` about `conninfo` into `out`, each secret value of the
 * string replaced by "***"; when libpq cannot parse the string, none of
 * the message (its parse errors quote the string). */
void postgres_mask_message(const char *conninfo, const char *message, char *out, size_t size);

/* For the neutral parts of the store (store.c): the operations and state
 * of an open store, and the backend a `database` setting calls for. */
const struct store_backend_ops *store_ops(const struct store *store);
struct store_backend *store_backend(const struct store *store);
const struct store_backend_ops *store_ops_for_database(const char *database);

/* ---- Promotion codes (promotion_codes.c) ---- */

/* The promotion_code.redeemed event of `code` redeemed by accepting quote
 * `quote_id` at `now`, into *out (the caller clears it). */
enum gq_code store_promotion_code_redeemed_event(const char *code, const char *quote_id,
                                                 int64_t now, struct store_event *out,
                                                 struct gq_error *err);

/* GQ_ERR_PROMOTION_CODE_EXHAUSTED worded with how often `code` was
 * redeemed (or the failure to read it). */
enum gq_code store_promotion_code_report_exhausted(struct store *store, const char *code,
                                                   struct gq_error *err);

/* ---- A pool of connections (pool.c) ---- */

/* A fixed set of connections, each used by one thread at a time: checkout
 * waits for a free one. The pool does not know what a connection is. */
struct store_pool;

/* NULL when memory runs out. */
struct store_pool *store_pool_new(unsigned capacity);
/* Adds an idle connection; at most `capacity` in all. */
void store_pool_add(struct store_pool *pool, void *connection);
/* Waits for an idle connection and returns it; never NULL once one was added. */
void *store_pool_checkout(struct store_pool *pool);
void store_pool_checkin(struct store_pool *pool, void *connection);
/* How many were added. */
unsigned store_pool_size(const struct store_pool *pool);
/* The i-th connection added, for closing them all (every one checked in). */
void *store_pool_connection(const struct store_pool *pool, unsigned i);
void store_pool_free(struct store_pool *pool);

#endif
