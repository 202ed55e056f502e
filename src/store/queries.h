/*
 * The SQL both backends run with one text, and the catalog's columns by
 * name.
 *
 * Each catalog query (CATALOG_QUERY_* of backend.h) is written here once,
 * with the enum of its columns beside it: the loader (catalog_load.c) reads
 * a row by these names, a price list's document (price_lists.c) keys its
 * rows by store_catalog_tables[]' names in this order, and the activation's
 * INSERTs take a row's values in the same order. tests/store/check_queries.c
 * prepares every text on SQLite and checks its column names against the
 * table, so a column added to a SELECT and not here (or the reverse) fails.
 *
 * Parameters are written `?N`, SQLite's numbered form. PostgreSQL numbers
 * them `$N`; in SQLite `$1` would be a parameter NAMED "$1", numbered by
 * where it first appears, so the shared form is SQLite's and the PostgreSQL
 * backend rewrites it (store_sql_for_postgres(), once per statement when it
 * opens). A statement whose dialects differ in more than that is written
 * twice, side by side in store_sql (queries.c), so that a reader sees both.
 * A backend's statement with no twin in the other (SQLite's undo of a
 * failed quote, its due quotes read before each is marked) stays in the
 * backend's file.
 */
#ifndef GQ_STORE_QUERIES_H
#define GQ_STORE_QUERIES_H

#include <stddef.h>

#include "store/backend.h"

/* ---- The catalog, read (CATALOG_QUERY_*, in backend.h's order). ---- */

#define STORE_SQL_PRICE_LIST "SELECT version, currency, updated_at FROM price_list WHERE id = 1"
enum price_list_column {
    PRICE_LIST_COL_VERSION,
    PRICE_LIST_COL_CURRENCY,
    PRICE_LIST_COL_UPDATED_AT
};

#define STORE_SQL_MODELS                                                                           \
    "SELECT id, name, memory_gb, memory_type, fp16_tflops, memory_bandwidth_gbps, tdp_watts,"      \
    " fp32_tflops, bf16_tflops, compute_capability FROM gpu_models"
enum model_column {
    MODEL_COL_ID,
    MODEL_COL_NAME,
    MODEL_COL_MEMORY_GB,
    MODEL_COL_MEMORY_TYPE,
    MODEL_COL_FP16_TFLOPS,
    MODEL_COL_MEMORY_BANDWIDTH_GBPS,
    MODEL_COL_TDP_WATTS,
    MODEL_COL_FP32_TFLOPS, /* NULL reads as 0 */
    MODEL_COL_BF16_TFLOPS,
    MODEL_COL_COMPUTE_CAPABILITY, /* NULL reads as 0: not known */
};

#define STORE_SQL_MODES                                                                            \
    "SELECT id, name, description, block_hours, block_days, list_basis_points FROM billing_modes"
enum mode_column {
    MODE_COL_ID,
    MODE_COL_NAME,
    MODE_COL_DESCRIPTION,
    MODE_COL_BLOCK_HOURS,
    MODE_COL_BLOCK_DAYS,
    MODE_COL_LIST_BASIS_POINTS,
};

#define STORE_SQL_MODE_SEGMENTS "SELECT mode_id, segment_id FROM billing_mode_segments"
enum mode_segment_column { MODE_SEGMENT_COL_MODE_ID, MODE_SEGMENT_COL_SEGMENT_ID };

/* Active SKUs only. */
#define STORE_SQL_SKUS                                                                             \
    "SELECT id, name, gpu_model_id, gpu_count, interconnect, available FROM skus WHERE active = 1"
enum sku_column {
    SKU_COL_ID,
    SKU_COL_NAME,
    SKU_COL_GPU_MODEL_ID,
    SKU_COL_GPU_COUNT,
    SKU_COL_INTERCONNECT,
    SKU_COL_AVAILABLE,
};

#define STORE_SQL_PRICES                                                                           \
    "SELECT p.sku_id, p.mode_id, p.amount_fen FROM sku_prices p JOIN skus s ON s.id = p.sku_id"    \
    " WHERE s.active = 1"
enum price_column { PRICE_COL_SKU_ID, PRICE_COL_MODE_ID, PRICE_COL_AMOUNT_FEN };

/* Active rules only. */
#define STORE_SQL_RULES                                                                            \
    "SELECT id, name, segment, billing, sku_id, min_quantity, basis_points, fixed_amount_fen,"     \
    " valid_from, valid_until, priority, stackable FROM discount_rules WHERE active = 1"
enum rule_column {
    RULE_COL_ID,
    RULE_COL_NAME,
    RULE_COL_SEGMENT,
    RULE_COL_BILLING,
    RULE_COL_SKU_ID,
    RULE_COL_MIN_QUANTITY,
    RULE_COL_BASIS_POINTS,
    RULE_COL_FIXED_AMOUNT_FEN,
    RULE_COL_VALID_FROM, /* NULL reads as 0: open */
    RULE_COL_VALID_UNTIL,
    RULE_COL_PRIORITY,
    RULE_COL_STACKABLE,
};

/* Bundles whose SKUs are all active. */
#define STORE_SQL_BUNDLES                                                                          \
    "SELECT id, name, description, list_price_fen, price_fen, segment, valid_from, valid_until"    \
    " FROM bundles b WHERE NOT EXISTS (SELECT 1 FROM bundle_items i JOIN skus s"                   \
    " ON s.id = i.sku_id WHERE i.bundle_id = b.id AND s.active = 0)"
enum bundle_column {
    BUNDLE_COL_ID,
    BUNDLE_COL_NAME,
    BUNDLE_COL_DESCRIPTION,
    BUNDLE_COL_LIST_PRICE_FEN,
    BUNDLE_COL_PRICE_FEN,
    BUNDLE_COL_SEGMENT,
    BUNDLE_COL_VALID_FROM,
    BUNDLE_COL_VALID_UNTIL,
};

#define STORE_SQL_BUNDLE_ITEMS "SELECT bundle_id, sku_id, quantity, hours FROM bundle_items"
enum bundle_item_column {
    ITEM_COL_BUNDLE_ID,
    ITEM_COL_SKU_ID,
    ITEM_COL_QUANTITY,
    ITEM_COL_HOURS,
};

/* What a person reads, one row per language (migration 0005): the four
 * text queries share their columns; the first is the entry's id (for
 * catalog_texts, the subject: 'bundles'). */
#define STORE_SQL_SKU_TEXTS "SELECT sku_id, lang, name, description FROM sku_texts"
#define STORE_SQL_MODE_TEXTS "SELECT mode_id, lang, name, description FROM billing_mode_texts"
#define STORE_SQL_BUNDLE_TEXTS "SELECT bundle_id, lang, name, description FROM bundle_texts"
#define STORE_SQL_CATALOG_TEXTS "SELECT subject, lang, name, description FROM catalog_texts"
enum text_column { TEXT_COL_OWNER, TEXT_COL_LANG, TEXT_COL_NAME, TEXT_COL_DESCRIPTION };

#define STORE_SQL_SKU_HOSTS                                                                        \
    "SELECT sku_id, instance_type, vcpus, memory_gib, system_disk_gb, bandwidth_gbps, region_id,"  \
    " provisioning_min_minutes, provisioning_max_minutes, provisioning_average_minutes,"           \
    " software, ssh FROM sku_hosts"
enum host_column {
    HOST_COL_SKU_ID,
    HOST_COL_INSTANCE_TYPE,
    HOST_COL_VCPUS,
    HOST_COL_MEMORY_GIB,
    HOST_COL_SYSTEM_DISK_GB,
    HOST_COL_BANDWIDTH_GBPS,
    HOST_COL_REGION_ID,
    HOST_COL_PROVISIONING_MIN_MINUTES,
    HOST_COL_PROVISIONING_MAX_MINUTES,
    HOST_COL_PROVISIONING_AVERAGE_MINUTES,
    HOST_COL_SOFTWARE,
    HOST_COL_SSH,
};

#define STORE_SQL_REGION_TEXTS "SELECT region_id, lang, name FROM region_texts"
enum region_text_column { REGION_TEXT_COL_REGION_ID, REGION_TEXT_COL_LANG, REGION_TEXT_COL_NAME };

#define STORE_SQL_SHAPES                                                                           \
    "SELECT id, name, layers, hidden, heads, kv_heads, intermediate, vocab, sliding_window,"       \
    " params, source, max_position_embeddings FROM model_shapes"
enum shape_column {
    SHAPE_COL_ID,
    SHAPE_COL_NAME,
    SHAPE_COL_LAYERS,
    SHAPE_COL_HIDDEN,
    SHAPE_COL_HEADS,
    SHAPE_COL_KV_HEADS,
    SHAPE_COL_INTERMEDIATE,
    SHAPE_COL_VOCAB,
    SHAPE_COL_SLIDING_WINDOW,
    SHAPE_COL_PARAMS,
    SHAPE_COL_SOURCE,
    SHAPE_COL_MAX_POSITION_EMBEDDINGS, /* NULL reads as 0: not known */
};

/* Each catalog query's table as a price list's document names it, and its
 * columns in the SELECT's order: t text, i integer, r real (NULL allowed in
 * any). */
#define STORE_CATALOG_MAX_COLUMNS 13
struct store_catalog_table {
    const char *sql;
    const char *name;
    const char *types;
    const char *const columns[STORE_CATALOG_MAX_COLUMNS];
};

extern const struct store_catalog_table store_catalog_tables[CATALOG_QUERY_COUNT];

/* The catalog query whose columns each written table takes, in order. */
extern const enum catalog_query store_catalog_written_query[CATALOG_WRITE_COUNT];

/* Emptying what a list writes, first when it becomes active; SKUs are
 * kept (hosts and old rows name them) and marked inactive until the
 * list's own are written. */
#define STORE_CATALOG_CLEAR_COUNT 7
extern const char *const store_catalog_clear_sql[STORE_CATALOG_CLEAR_COUNT];

/* The INSERT of a row of each table a price list writes when it becomes
 * active (CATALOG_WRITE_*), its values ?1.. in its query's column order. */
extern const char *const store_catalog_write_sql[CATALOG_WRITE_COUNT];

/* ---- Statements by name. ---- */

/* A stored quote, as every backend reads it (its SELECTs and RETURNINGs:
 * sqlite/quotes.c, postgres/statements.c). */
#define STORE_SQL_QUOTE_COLUMNS                                                                    \
    "id, status, request_json, response_json, idempotency_key, price_list_version,"                \
    " created_at, expires_at, accepted_at, response_lz4, response_size, canceled_at,"              \
    " expired_at, cancel_reason, acceptance, customer_id"
enum quote_column {
    QUOTE_COL_ID,
    QUOTE_COL_STATUS,
    QUOTE_COL_REQUEST_JSON,
    QUOTE_COL_RESPONSE_JSON, /* the text of quotes stored before compression */
    QUOTE_COL_IDEMPOTENCY_KEY,
    QUOTE_COL_PRICE_LIST_VERSION,
    QUOTE_COL_CREATED_AT,
    QUOTE_COL_EXPIRES_AT,
    QUOTE_COL_ACCEPTED_AT, /* NULL reads as 0 */
    QUOTE_COL_RESPONSE_LZ4,
    QUOTE_COL_RESPONSE_SIZE,
    QUOTE_COL_CANCELED_AT,
    QUOTE_COL_EXPIRED_AT,
    QUOTE_COL_CANCEL_REASON,
    QUOTE_COL_ACCEPTANCE,
    QUOTE_COL_CUSTOMER_ID, /* NULL: for no customer */
    QUOTE_COL_COUNT
};

/* API keys (migration 0007), read by both backends with these columns. */
#define STORE_SQL_KEY_COLUMNS                                                                      \
    "id, name, prefix, hash, scopes, created_at, last_used_at, revoked_at, customer_id"
enum key_column {
    KEY_COL_ID,
    KEY_COL_NAME,
    KEY_COL_PREFIX,
    KEY_COL_HASH,
    KEY_COL_SCOPES,
    KEY_COL_CREATED_AT,
    KEY_COL_LAST_USED_AT, /* NULL reads as 0 */
    KEY_COL_REVOKED_AT,
    KEY_COL_CUSTOMER_ID, /* NULL: a key of no customer (0021) */
};

/* The audit log's page: the id, the time, then the texts (NULL allowed). */
#define STORE_SQL_AUDIT_COLUMNS                                                                    \
    "id, at, key_id, key_name, client, request_id, action, target, change"
enum audit_column {
    AUDIT_COL_ID,
    AUDIT_COL_AT,
    AUDIT_COL_KEY_ID, /* the first of the texts, through AUDIT_COL_CHANGE */
    AUDIT_COL_KEY_NAME,
    AUDIT_COL_CLIENT,
    AUDIT_COL_REQUEST_ID,
    AUDIT_COL_ACTION,
    AUDIT_COL_TARGET,
    AUDIT_COL_CHANGE,
};

/* A webhook endpoint, without its secret. */
#define STORE_SQL_ENDPOINT_COLUMNS "id, url, description, events, enabled, created_at, updated_at"
enum endpoint_column {
    ENDPOINT_COL_ID,
    ENDPOINT_COL_URL,
    ENDPOINT_COL_DESCRIPTION,
    ENDPOINT_COL_EVENTS,
    ENDPOINT_COL_ENABLED,
    ENDPOINT_COL_CREATED_AT,
    ENDPOINT_COL_UPDATED_AT,
};

/* A page of an endpoint's deliveries (STORE_SQL_DELIVERIES_PAGE). */
enum delivery_column {
    DELIVERY_COL_ID,
    DELIVERY_COL_ENDPOINT_ID,
    DELIVERY_COL_EVENT_ID,
    DELIVERY_COL_STATUS,
    DELIVERY_COL_ATTEMPTS,
    DELIVERY_COL_NEXT_ATTEMPT_AT,
    DELIVERY_COL_CREATED_AT,
};

/* A promotion code (migration 0014); NULL reads as 0. */
#define STORE_SQL_PROMOTION_CODE_COLUMNS                                                           \
    "code, discount, expires_at, max_redemptions, per_customer_limit, first_time_only, active,"    \
    " redemptions, created_at, updated_at"
enum promotion_code_column {
    PROMO_COL_CODE,
    PROMO_COL_DISCOUNT,
    PROMO_COL_EXPIRES_AT,
    PROMO_COL_MAX_REDEMPTIONS,
    PROMO_COL_PER_CUSTOMER_LIMIT,
    PROMO_COL_FIRST_TIME_ONLY,
    PROMO_COL_ACTIVE,
    PROMO_COL_REDEMPTIONS,
    PROMO_COL_CREATED_AT,
    PROMO_COL_UPDATED_AT,
};

/* A customer (store.h's struct stored_customer). */
#define STORE_SQL_CUSTOMER_COLUMNS "id, email, deleted, document, created_at, updated_at"
enum customer_column {
    CUSTOMER_COL_ID,
    CUSTOMER_COL_EMAIL,
    CUSTOMER_COL_DELETED,
    CUSTOMER_COL_DOCUMENT,
    CUSTOMER_COL_CREATED_AT,
    CUSTOMER_COL_UPDATED_AT,
};

/* A verification (verifications.h's struct stored_verification). */
#define STORE_SQL_VERIFICATION_COLUMNS                                                             \
    "id, customer_id, segment, evidence, created_at, expires_at, revoked_at, expired_at"
enum verification_column {
    VERIFICATION_COL_ID,
    VERIFICATION_COL_CUSTOMER_ID,
    VERIFICATION_COL_SEGMENT,
    VERIFICATION_COL_EVIDENCE,
    VERIFICATION_COL_CREATED_AT,
    VERIFICATION_COL_EXPIRES_AT,
    VERIFICATION_COL_REVOKED_AT,
    VERIFICATION_COL_EXPIRED_AT,
};

/* A customer's own discount rule (customer_rules.h). */
#define STORE_SQL_CUSTOMER_RULE_COLUMNS "rule_id, document, created_at, updated_at"
enum customer_rule_column {
    CUSTOMER_RULE_COL_ID,
    CUSTOMER_RULE_COL_DOCUMENT,
    CUSTOMER_RULE_COL_CREATED_AT,
    CUSTOMER_RULE_COL_UPDATED_AT,
};

/* What a batch's INSERT returns for each quote it wrote (PostgreSQL). */
enum quote_inserted_column { QUOTE_INSERTED_COL_ID, QUOTE_INSERTED_COL_DELIVERIES_DUE };

/* Retention's quotes: two arms, so that each searches its index (quotes_ended,
 * quotes_accepted_by_time) where one WHERE of two ORed terms scanned every
 * quote. */
#define QUOTES_ENDED_IDS                                                                           \
    "SELECT id FROM quotes WHERE coalesce(canceled_at, expired_at) < ?1"                           \
    " AND status IN ('canceled', 'expired')"                                                       \
    " UNION ALL SELECT id FROM quotes WHERE ?2 > 0 AND status = 'accepted' AND accepted_at < ?2"

/* The ids of at most ?2 events written before ?1 (unix seconds), oldest
 * first. An event with a delivery still pending to an enabled endpoint is
 * kept until that delivery ends: the sender is still retrying it. */
#define EVENTS_PAST_RETENTION_IDS                                                                  \
    "SELECT id FROM events e WHERE created_at < ?1 AND NOT EXISTS (SELECT 1"                       \
    " FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id"                  \
    " WHERE d.event_id = e.id AND d.status = 'pending' AND w.enabled)"                             \
    " ORDER BY created_at, id LIMIT ?2"

/* The ids of keyless callers' quotes that ended (accepted, canceled or
 * expired) before ?1; the condition is quotes_anonymous_ended's (0020). */
#define ANONYMOUS_QUOTES_ENDED_IDS                                                                 \
    "SELECT id FROM quotes WHERE status <> 'open' AND substr(owner, 1, 5) = 'anon:'"               \
    " AND coalesce(accepted_at, canceled_at, expired_at) < ?1"

/* An event as the events' page reads it; the body is the three columns
 * from EVENT_COL_BODY on (its text, or its LZ4 block and size). */
enum event_column {
    EVENT_COL_ID,
    EVENT_COL_TYPE,
    EVENT_COL_CREATED_AT,
    EVENT_COL_BODY,
    EVENT_COL_CUSTOMER_ID = EVENT_COL_BODY + 3 /* after the body's three; NULL: none */
};

/* A delivery's attempts, oldest first. */
enum attempt_column {
    ATTEMPT_COL_ATTEMPT,
    ATTEMPT_COL_AT,
    ATTEMPT_COL_STATUS_CODE,
    ATTEMPT_COL_ERROR,
    ATTEMPT_COL_DURATION_MS,
};

/* A delivery claimed, with what sending it needs; the event's body is
 * the three columns from CLAIMED_COL_BODY on. */
enum claimed_column {
    CLAIMED_COL_ID,
    CLAIMED_COL_EVENT_ID,
    CLAIMED_COL_ATTEMPTS,
    CLAIMED_COL_URL,
    CLAIMED_COL_SECRET,
    CLAIMED_COL_BODY,
    CLAIMED_COL_ENDPOINT_ID = CLAIMED_COL_BODY + 3,
};

/* The migration history (schema_migrations), as both backends read it. */
#define STORE_SQL_MIGRATION_COLUMNS "version, name, checksum"
enum migration_column { MIGRATION_COL_VERSION, MIGRATION_COL_NAME, MIGRATION_COL_CHECKSUM };

/* Each statement's text: `.shared` where the dialects agree (?N), else
 * `.sqlite` and `.postgres` side by side (store_sql in queries.c). A
 * backend reads its text through sqlite_sql() or pg_sql(). */
enum store_sql {
    STORE_SQL_KEYS_VERSION,
    STORE_SQL_KEYS,
    STORE_SQL_KEY_INSERT,
    STORE_SQL_KEY_REVOKE,
    STORE_SQL_KEY_TOUCH,
    STORE_SQL_AUDIT_INSERT,
    STORE_SQL_AUDIT_PAGE,
    STORE_SQL_PRICE_LISTS,
    STORE_SQL_PRICE_LIST_INSERT,
    STORE_SQL_PRICE_LIST_EDIT,
    STORE_SQL_PRICE_LIST_SCHEDULE,
    STORE_SQL_PRICE_LIST_IS_SCHEDULED,
    STORE_SQL_PRICE_LIST_DROP_MODELS,
    STORE_SQL_PRICE_LIST_OVERTAKEN,
    STORE_SQL_PRICE_LIST_SUPERSEDE,
    STORE_SQL_PRICE_LIST_ACTIVATE,
    STORE_SQL_PRICE_LIST_SET_VERSION,
    STORE_SQL_PRICE_LIST_CANCEL,
    STORE_SQL_PRICE_LIST_REBASE,
    STORE_SQL_ENDPOINT_INSERT,
    STORE_SQL_ENDPOINTS,
    STORE_SQL_ENDPOINT_UPDATE,
    STORE_SQL_ENDPOINT_SECRETS,
    STORE_SQL_ENDPOINT_SECRET_REPLACE,
    STORE_SQL_ENDPOINT_DELETE,
    STORE_SQL_DELIVERIES_PAGE,
    STORE_SQL_DELIVERY_RETRY,
    STORE_SQL_PROMOTION_CODES,
    STORE_SQL_PROMOTION_CODE_INSERT,
    STORE_SQL_PROMOTION_CODE_DEACTIVATE,
    STORE_SQL_PROMOTION_CODE_REDEEM,
    STORE_SQL_CUSTOMER_INSERT,
    STORE_SQL_CUSTOMER_UPDATE,
    STORE_SQL_CUSTOMERS,
    STORE_SQL_CUSTOMER_EVENT_LINK,
    STORE_SQL_CUSTOMER_EVENTS,
    STORE_SQL_EVENT_BODY_REPLACE,
    STORE_SQL_QUOTE_INSERT,
    STORE_SQL_QUOTE_BY_ID,
    STORE_SQL_QUOTE_BY_KEY,
    STORE_SQL_QUOTE_ACCEPT,
    STORE_SQL_QUOTE_CANCEL,
    STORE_SQL_QUOTES_LIST,
    STORE_SQL_QUOTES_EXPIRE,
    STORE_SQL_QUOTES_DELETE_ENDED,
    STORE_SQL_ANONYMOUS_QUOTES_DELETE,
    STORE_SQL_EVENT_DELIVERIES_DELETE,
    STORE_SQL_CUSTOMER_EVENTS_DELETE,
    STORE_SQL_EVENTS_DELETE,
    STORE_SQL_QUOTE_RELEASE_KEY,
    STORE_SQL_RECENT_REQUESTS,
    STORE_SQL_PRICE_LIST_VERSION,
    STORE_SQL_EVENT_APPEND,
    STORE_SQL_EVENTS_PAGE,
    STORE_SQL_ATTEMPTS,
    STORE_SQL_DELIVERIES_CLAIM,
    STORE_SQL_DELIVERY_FINISH,
    STORE_SQL_ENDPOINT_SUCCEEDED,
    STORE_SQL_ENDPOINT_FAILED,
    STORE_SQL_ENDPOINT_DISABLE,
    STORE_SQL_MIGRATIONS_CREATE,
    STORE_SQL_MIGRATIONS,
    STORE_SQL_MIGRATION_CHECKSUM,
    STORE_SQL_MIGRATION_RECORD,
    STORE_SQL_VERIFICATION_INSERT,
    STORE_SQL_VERIFICATION_REVOKE,
    STORE_SQL_VERIFICATIONS,
    STORE_SQL_VERIFICATIONS_DUE,
    STORE_SQL_VERIFICATION_EXPIRE,
    STORE_SQL_VERIFICATIONS_ERASE,
    STORE_SQL_CUSTOMER_RULES,
    STORE_SQL_CUSTOMER_RULE_PUT,
    STORE_SQL_CUSTOMER_RULE_DELETE,
    STORE_SQL_COUNT
};

struct store_sql_text {
    const char *shared;
    const char *sqlite;
    const char *postgres;
};

extern const struct store_sql_text store_sql[STORE_SQL_COUNT];

/* ---- Which endpoints receive an event. ---- */

/* An endpoint's `events` column is " * " (every type) or the types it takes
 * between spaces (" quote.created quote.accepted "). The condition that
 * `events` takes the type `type` (an SQL expression); `find` names the
 * dialect's substring search, which is instr() in SQLite and strpos() in
 * PostgreSQL, with the same arguments (haystack, needle). */
#define STORE_SQL_ENDPOINT_TAKES(find, events, type)                                               \
    "(" events " = ' * ' OR " find "(" events ", ' ' || " type " || ' ') > 0)"

/* ---- The dialects. ---- */

/* `shared` with each `?N` outside a quoted literal written `$N`, in new
 * memory (the caller's, free()), or NULL when out of memory. */
char *store_sql_for_postgres(const char *shared);

#endif
