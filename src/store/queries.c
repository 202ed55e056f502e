/*
 * The texts of queries.h's tables: the catalog's queries with their
 * documents' names and column types, the activation's statements, and the
 * rewrite of the shared `?N` parameters into PostgreSQL's `$N`.
 */
#include "store/queries.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const struct store_catalog_table store_catalog_tables[CATALOG_QUERY_COUNT] = {
    [CATALOG_QUERY_PRICE_LIST] = {STORE_SQL_PRICE_LIST,
                                  "price_list",
                                  "iti",
                                  {"version", "currency", "updated_at"}},
    [CATALOG_QUERY_MODELS] = {STORE_SQL_MODELS,
                              "gpu_models",
                              "ttitriirri",
                              {"id", "name", "memory_gb", "memory_type", "fp16_tflops",
                               "memory_bandwidth_gbps", "tdp_watts", "fp32_tflops", "bf16_tflops",
                               "compute_capability"}},
    [CATALOG_QUERY_MODES] = {STORE_SQL_MODES,
                             "billing_modes",
                             "tttiii",
                             {"id", "name", "description", "block_hours", "block_days",
                              "list_basis_points"}},
    [CATALOG_QUERY_MODE_SEGMENTS] = {STORE_SQL_MODE_SEGMENTS,
                                     "billing_mode_segments",
                                     "tt",
                                     {"mode_id", "segment_id"}},
    [CATALOG_QUERY_SKUS] = {STORE_SQL_SKUS,
                            "skus",
                            "tttiti",
                            {"id", "name", "gpu_model_id", "gpu_count", "interconnect",
                             "available"}},
    [CATALOG_QUERY_PRICES] = {STORE_SQL_PRICES,
                              "sku_prices",
                              "tti",
                              {"sku_id", "mode_id", "amount_fen"}},
    [CATALOG_QUERY_RULES] = {STORE_SQL_RULES,
                             "discount_rules",
                             "tttttiiiiiii",
                             {"id", "name", "segment", "billing", "sku_id", "min_quantity",
                              "basis_points", "fixed_amount_fen", "valid_from", "valid_until",
                              "priority", "stackable"}},
    [CATALOG_QUERY_BUNDLES] = {STORE_SQL_BUNDLES,
                               "bundles",
                               "tttiitii",
                               {"id", "name", "description", "list_price_fen", "price_fen",
                                "segment", "valid_from", "valid_until"}},
    [CATALOG_QUERY_BUNDLE_ITEMS] = {STORE_SQL_BUNDLE_ITEMS,
                                    "bundle_items",
                                    "ttii",
                                    {"bundle_id", "sku_id", "quantity", "hours"}},
    [CATALOG_QUERY_SKU_TEXTS] = {STORE_SQL_SKU_TEXTS,
                                 "sku_texts",
                                 "tttt",
                                 {"sku_id", "lang", "name", "description"}},
    [CATALOG_QUERY_MODE_TEXTS] = {STORE_SQL_MODE_TEXTS,
                                  "billing_mode_texts",
                                  "tttt",
                                  {"mode_id", "lang", "name", "description"}},
    [CATALOG_QUERY_BUNDLE_TEXTS] = {STORE_SQL_BUNDLE_TEXTS,
                                    "bundle_texts",
                                    "tttt",
                                    {"bundle_id", "lang", "name", "description"}},
    [CATALOG_QUERY_CATALOG_TEXTS] = {STORE_SQL_CATALOG_TEXTS,
                                     "catalog_texts",
                                     "tttt",
                                     {"subject", "lang", "name", "description"}},
    [CATALOG_QUERY_SKU_HOSTS] = {STORE_SQL_SKU_HOSTS,
                                 "sku_hosts",
                                 "ttiiirtiiiti",
                                 {"sku_id", "instance_type", "vcpus", "memory_gib",
                                  "system_disk_gb", "bandwidth_gbps", "region_id",
                                  "provisioning_min_minutes", "provisioning_max_minutes",
                                  "provisioning_average_minutes", "software", "ssh"}},
    [CATALOG_QUERY_REGION_TEXTS] = {STORE_SQL_REGION_TEXTS,
                                    "region_texts",
                                    "ttt",
                                    {"region_id", "lang", "name"}},
    [CATALOG_QUERY_SHAPES] = {STORE_SQL_SHAPES,
                              "model_shapes",
                              "ttiiiiiiiiti",
                              {"id", "name", "layers", "hidden", "heads", "kv_heads",
                               "intermediate", "vocab", "sliding_window", "params", "source",
                               "max_position_embeddings"}},
};

const enum catalog_query store_catalog_written_query[CATALOG_WRITE_COUNT] = {
    [CATALOG_WRITE_MODELS] = CATALOG_QUERY_MODELS,
    [CATALOG_WRITE_SKUS] = CATALOG_QUERY_SKUS,
    [CATALOG_WRITE_PRICES] = CATALOG_QUERY_PRICES,
    [CATALOG_WRITE_RULES] = CATALOG_QUERY_RULES,
    [CATALOG_WRITE_BUNDLES] = CATALOG_QUERY_BUNDLES,
    [CATALOG_WRITE_BUNDLE_ITEMS] = CATALOG_QUERY_BUNDLE_ITEMS,
    [CATALOG_WRITE_SKU_TEXTS] = CATALOG_QUERY_SKU_TEXTS,
    [CATALOG_WRITE_BUNDLE_TEXTS] = CATALOG_QUERY_BUNDLE_TEXTS,
};

const char *const store_catalog_clear_sql[STORE_CATALOG_CLEAR_COUNT] = {
    "DELETE FROM bundle_items",
    "DELETE FROM bundle_texts",
    "DELETE FROM bundles",
    "DELETE FROM discount_rules",
    "DELETE FROM sku_prices",
    "DELETE FROM sku_texts",
    "UPDATE skus SET active = 0 WHERE active = 1",
};

const char *const store_catalog_write_sql[CATALOG_WRITE_COUNT] = {
    [CATALOG_WRITE_MODELS] =
        "INSERT INTO gpu_models (id, name, memory_gb, memory_type, fp16_tflops,"
        " memory_bandwidth_gbps, tdp_watts, fp32_tflops, bf16_tflops, compute_capability)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (id) DO UPDATE SET"
        " name = excluded.name, memory_gb = excluded.memory_gb,"
        " memory_type = excluded.memory_type, fp16_tflops = excluded.fp16_tflops,"
        " memory_bandwidth_gbps = excluded.memory_bandwidth_gbps,"
        " tdp_watts = excluded.tdp_watts, fp32_tflops = excluded.fp32_tflops,"
        " bf16_tflops = excluded.bf16_tflops, compute_capability = excluded.compute_capability",
    [CATALOG_WRITE_SKUS] =
        "INSERT INTO skus (id, name, gpu_model_id, gpu_count, interconnect, available, active)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1) ON CONFLICT (id) DO UPDATE SET"
        " name = excluded.name, gpu_model_id = excluded.gpu_model_id,"
        " gpu_count = excluded.gpu_count, interconnect = excluded.interconnect,"
        " available = excluded.available, active = 1",
    [CATALOG_WRITE_PRICES] = "INSERT INTO sku_prices (sku_id, mode_id, amount_fen)"
                             " VALUES (?1, ?2, ?3)",
    [CATALOG_WRITE_RULES] =
        "INSERT INTO discount_rules (id, name, segment, billing, sku_id, min_quantity,"
        " basis_points, fixed_amount_fen, valid_from, valid_until, priority, stackable, active)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 1)",
    [CATALOG_WRITE_BUNDLES] =
        "INSERT INTO bundles (id, name, description, list_price_fen, price_fen, segment,"
        " valid_from, valid_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [CATALOG_WRITE_BUNDLE_ITEMS] = "INSERT INTO bundle_items (bundle_id, sku_id, quantity, hours)"
                                   " VALUES (?1, ?2, ?3, ?4)",
    [CATALOG_WRITE_SKU_TEXTS] = "INSERT INTO sku_texts (sku_id, lang, name, description)"
                                " VALUES (?1, ?2, ?3, ?4)",
    [CATALOG_WRITE_BUNDLE_TEXTS] = "INSERT INTO bundle_texts (bundle_id, lang, name, description)"
                                   " VALUES (?1, ?2, ?3, ?4)",
};

#define ENDPOINT_TAKES_QUOTE_CREATED                                                               \
    STORE_SQL_ENDPOINT_TAKES("strpos", "w.events", "'quote.created'")

const struct store_sql_text store_sql[STORE_SQL_COUNT] = {
    /* API keys and the audit log. PostgreSQL needs the parameters' types
     * where nothing else tells them; it also sorts ids byte by byte only
     * when asked to (COLLATE "C"), as SQLite always does. */
    [STORE_SQL_KEYS_VERSION] = {.shared = "SELECT version FROM api_key_changes WHERE id = 1"},
    [STORE_SQL_KEYS] = {.sqlite = "SELECT " STORE_SQL_KEY_COLUMNS " FROM api_keys"
                                  " WHERE (?1 OR revoked_at IS NULL) AND (?2 IS NULL OR id = ?2)"
                                  " ORDER BY created_at, id",
                        .postgres = "SELECT " STORE_SQL_KEY_COLUMNS " FROM api_keys"
                                    " WHERE ($1::boolean OR revoked_at IS NULL)"
                                    " AND ($2::text IS NULL OR id = $2) ORDER BY created_at, id"},
    [STORE_SQL_KEY_INSERT] = {.shared = "INSERT INTO api_keys (id, name, prefix, hash, scopes,"
                                        " created_at, customer_id)"
                                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"},
    [STORE_SQL_KEY_REVOKE] = {.shared = "UPDATE api_keys SET revoked_at = ?2"
                                        " WHERE id = ?1 AND revoked_at IS NULL"},
    [STORE_SQL_KEY_TOUCH] = {.shared = "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1"
                                       " AND (last_used_at IS NULL OR last_used_at < ?2)"},
    [STORE_SQL_AUDIT_INSERT] = {.shared = "INSERT INTO audit_log (" STORE_SQL_AUDIT_COLUMNS ")"
                                          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"},
    [STORE_SQL_AUDIT_PAGE] = {.sqlite = "SELECT " STORE_SQL_AUDIT_COLUMNS " FROM audit_log"
                                        " WHERE at >= ?1 AND (?2 IS NULL OR id > ?2)"
                                        " ORDER BY id LIMIT ?3",
                              .postgres = "SELECT " STORE_SQL_AUDIT_COLUMNS " FROM audit_log"
                                          " WHERE at >= $1 AND ($2::text IS NULL OR id > $2)"
                                          " ORDER BY id COLLATE \"C\" LIMIT $3"},

    /* Price lists (migration 0008). In PostgreSQL an activation locks the
     * list's row first (FOR UPDATE), so of two replicas one activates it. */
    [STORE_SQL_PRICE_LISTS] = {.sqlite = "SELECT version, state, based_on, created_at,"
                                         " effective_at, published_at, superseded_at,"
                                         " CASE WHEN ?1 = 0 THEN NULL ELSE document END"
                                         " FROM price_lists WHERE ?1 = 0 OR version = ?1"
                                         " ORDER BY version DESC",
                               .postgres = "SELECT version, state, based_on, created_at,"
                                           " effective_at, published_at, superseded_at,"
                                           " CASE WHEN $1::bigint = 0 THEN NULL ELSE document END"
                                           " FROM price_lists"
                                           " WHERE $1::bigint = 0 OR version = $1::bigint"
                                           " ORDER BY version DESC"},
    [STORE_SQL_PRICE_LIST_INSERT] =
        {.sqlite = "INSERT INTO price_lists (version, state, based_on, created_at, document)"
                   " SELECT ?1, 'draft', nullif(?2, 0), ?3, ?4"
                   " WHERE ?1 > (SELECT coalesce(max(version), 0) FROM price_lists)"
                   " AND ?1 > (SELECT version FROM price_list WHERE id = 1)",
         .postgres = "INSERT INTO price_lists (version, state, based_on, created_at, document)"
                     " SELECT $1::bigint, 'draft', nullif($2::bigint, 0), $3::bigint, $4::text"
                     " WHERE $1 > (SELECT coalesce(max(version), 0) FROM price_lists)"
                     " AND $1 > (SELECT version FROM price_list WHERE id = 1)"},
    /* Compare-and-set: written only over the document the edit read. */
    [STORE_SQL_PRICE_LIST_EDIT] = {.shared = "UPDATE price_lists SET document = ?2"
                                             " WHERE version = ?1 AND state = 'draft'"
                                             " AND document = ?3"},
    [STORE_SQL_PRICE_LIST_SCHEDULE] = {.shared = "UPDATE price_lists SET state = 'scheduled',"
                                                 " effective_at = ?2, published_at = ?3"
                                                 " WHERE version = ?1 AND state = 'draft'"},
    [STORE_SQL_PRICE_LIST_IS_SCHEDULED] =
        {.sqlite = "SELECT 1 FROM price_lists WHERE version = ?1 AND state = 'scheduled'",
         .postgres = "SELECT 1 FROM price_lists WHERE version = $1 AND state = 'scheduled'"
                     " FOR UPDATE"},
    /* Models no SKU names and the list does not keep (a JSON array of ids). */
    [STORE_SQL_PRICE_LIST_DROP_MODELS] =
        {.sqlite = "DELETE FROM gpu_models WHERE id NOT IN (SELECT gpu_model_id FROM skus)"
                   " AND id NOT IN (SELECT value FROM json_each(?1))",
         .postgres = "DELETE FROM gpu_models WHERE id NOT IN (SELECT gpu_model_id FROM skus)"
                     " AND id NOT IN (SELECT json_array_elements_text($1::json))"},
    [STORE_SQL_PRICE_LIST_OVERTAKEN] =
        {.shared =
             "UPDATE price_lists SET state = 'superseded', superseded_at = ?2"
             " WHERE state = 'scheduled' AND version <> ?1"
             " AND effective_at <= (SELECT effective_at FROM price_lists WHERE version = ?1)"},
    /* The same statement, its parameters numbered as each backend binds. */
    [STORE_SQL_PRICE_LIST_SUPERSEDE] =
        {.sqlite = "UPDATE price_lists SET state = 'superseded', superseded_at = ?2, document = ?3"
                   " WHERE state = 'active'",
         .postgres = "UPDATE price_lists SET state = 'superseded', superseded_at = $1,"
                     " document = $2 WHERE state = 'active'"},
    [STORE_SQL_PRICE_LIST_ACTIVATE] = {.shared = "UPDATE price_lists SET state = 'active'"
                                                 " WHERE version = ?1"},
    [STORE_SQL_PRICE_LIST_SET_VERSION] = {.shared = "UPDATE price_list SET version = ?1,"
                                                    " updated_at = ?2 WHERE id = 1"},
    /* Migration 0015: a list withdrawn, a list rebased. */
    [STORE_SQL_PRICE_LIST_CANCEL] = {.shared = "UPDATE price_lists SET state = 'canceled'"
                                               " WHERE version = ?1"
                                               " AND state IN ('draft', 'scheduled')"},
    [STORE_SQL_PRICE_LIST_REBASE] = {.shared = "UPDATE price_lists SET document = ?2,"
                                               " based_on = ?3 WHERE version = ?1"
                                               " AND state IN ('draft', 'scheduled')"},

    /* Webhook endpoints and their deliveries (migration 0009). */
    [STORE_SQL_ENDPOINT_INSERT] = {.shared = "INSERT INTO webhook_endpoints (id, url, description,"
                                             " events, secret, enabled, created_at, updated_at)"
                                             " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
    [STORE_SQL_ENDPOINTS] = {.sqlite =
                                 "SELECT " STORE_SQL_ENDPOINT_COLUMNS " FROM webhook_endpoints"
                                 " WHERE (?1 IS NULL OR id = ?1) ORDER BY created_at, id",
                             .postgres =
                                 "SELECT " STORE_SQL_ENDPOINT_COLUMNS " FROM webhook_endpoints"
                                 " WHERE ($1::text IS NULL OR id = $1)"
                                 " ORDER BY created_at, id"},
    [STORE_SQL_ENDPOINT_UPDATE] = {.shared = "UPDATE webhook_endpoints SET events = ?2,"
                                             " enabled = ?3, updated_at = ?4 WHERE id = ?1"},
    [STORE_SQL_ENDPOINT_SECRETS] = {.shared = "SELECT id, secret FROM webhook_endpoints"
                                              " ORDER BY created_at, id"},
    [STORE_SQL_ENDPOINT_SECRET_REPLACE] = {.shared = "UPDATE webhook_endpoints SET secret = ?3"
                                                     " WHERE id = ?1 AND secret = ?2"},
    [STORE_SQL_ENDPOINT_DELETE] = {.shared = "DELETE FROM webhook_endpoints WHERE id = ?1"},
    [STORE_SQL_DELIVERIES_PAGE] =
        {.sqlite = "SELECT id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at"
                   " FROM webhook_deliveries WHERE endpoint_id = ?1 AND (?2 IS NULL OR id < ?2)"
                   " ORDER BY id DESC LIMIT ?3",
         .postgres = "SELECT id, endpoint_id, event_id, status, attempts, next_attempt_at,"
                     " created_at FROM webhook_deliveries WHERE endpoint_id = $1"
                     " AND ($2::text IS NULL OR id COLLATE \"C\" < $2)"
                     " ORDER BY id COLLATE \"C\" DESC LIMIT $3"},
    [STORE_SQL_DELIVERY_RETRY] = {.shared = "UPDATE webhook_deliveries SET status = 'pending',"
                                            " next_attempt_at = ?3, lease_until = 0,"
                                            " updated_at = ?3 WHERE id = ?2 AND endpoint_id = ?1"},

    /* Promotion codes (migration 0014). A redemption is one conditional
     * update: of two accepts at once for the last redemption left, on any
     * replicas, the second finds the limit reached (PostgreSQL evaluates
     * the WHERE again on the row the first committed). */
    [STORE_SQL_PROMOTION_CODES] = {.sqlite = "SELECT " STORE_SQL_PROMOTION_CODE_COLUMNS
                                             " FROM promotion_codes WHERE ?1 IS NULL OR code = ?1"
                                             " ORDER BY created_at, code",
                                   .postgres =
                                       "SELECT " STORE_SQL_PROMOTION_CODE_COLUMNS
                                       " FROM promotion_codes WHERE $1::text IS NULL"
                                       " OR code = $1 ORDER BY created_at, code COLLATE \"C\""},
    [STORE_SQL_PROMOTION_CODE_INSERT] =
        {.shared = "INSERT INTO promotion_codes (" STORE_SQL_PROMOTION_CODE_COLUMNS ") VALUES (?1,"
                   " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
                   " ON CONFLICT (code) DO NOTHING"},
    [STORE_SQL_PROMOTION_CODE_DEACTIVATE] = {.shared = "UPDATE promotion_codes SET active = 0,"
                                                       " updated_at = ?2 WHERE code = ?1"
                                                       " AND active = 1"},
    [STORE_SQL_PROMOTION_CODE_REDEEM] = {.shared =
                                             "UPDATE promotion_codes SET redemptions ="
                                             " redemptions + 1, updated_at = ?2 WHERE code = ?1"
                                             " AND (max_redemptions IS NULL"
                                             " OR redemptions < max_redemptions)"},
    [STORE_SQL_CUSTOMER_INSERT] = {.shared = "INSERT INTO customers (" STORE_SQL_CUSTOMER_COLUMNS
                                             ") VALUES (?1, ?2, ?3, ?4, ?5, ?6)"},
    /* An erased customer is never written again. */
    [STORE_SQL_CUSTOMER_UPDATE] = {.shared = "UPDATE customers SET email = ?2, deleted = ?3,"
                                             " document = ?4, updated_at = ?5"
                                             " WHERE id = ?1 AND deleted = 0"},
    /* Ids are ordered by time: newest first is by id. */
    [STORE_SQL_CUSTOMERS] = {.sqlite = "SELECT " STORE_SQL_CUSTOMER_COLUMNS " FROM customers"
                                       " WHERE (?1 IS NULL OR id = ?1)"
                                       " AND (?2 IS NULL OR email = ?2)"
                                       " AND (?3 = 1 OR deleted = 0)"
                                       " AND (?4 IS NULL OR id < ?4)"
                                       " ORDER BY id DESC LIMIT ?5",
                             .postgres = "SELECT " STORE_SQL_CUSTOMER_COLUMNS " FROM customers"
                                         " WHERE ($1::text IS NULL OR id = $1)"
                                         " AND ($2::text IS NULL OR email = $2)"
                                         " AND ($3::integer = 1 OR deleted = 0)"
                                         " AND ($4::text IS NULL OR id < $4)"
                                         " ORDER BY id DESC LIMIT $5::bigint"},
    [STORE_SQL_CUSTOMER_EVENT_LINK] = {.shared = "INSERT INTO customer_events (event_id,"
                                                 " customer_id) VALUES (?1, ?2)"},
    /* The customer's events but the one of this write (?2). */
    [STORE_SQL_CUSTOMER_EVENTS] = {.shared = "SELECT e.id, e.type, e.created_at FROM events e"
                                             " JOIN customer_events c ON c.event_id = e.id"
                                             " WHERE c.customer_id = ?1 AND e.id <> ?2"},
    [STORE_SQL_EVENT_BODY_REPLACE] = {.shared = "UPDATE events SET body = NULL, body_lz4 = ?2,"
                                                " body_size = ?3 WHERE id = ?1"},

    /* Quotes, the hot path. A batch of quotes is one statement in
     * PostgreSQL: one array a column (the quote's ten, then its
     * quote.created event's five: $11 its id, $12 its time in seconds, $13
     * in milliseconds, $14 its JSON's LZ4 block, $15 the JSON's length, then
     * $16 the quote's owner, $17 its customer ('' for none) and $18 its creator),
     * with each event and its webhook deliveries in the same statement:
     * written only when the quote is (the outbox). A key already stored (by
     * any replica, or earlier in this batch: the first, ORDER BY n, is
     * inserted) inserts nothing, and the caller then reads the stored
     * quote; only the key's conflict is taken so, and a duplicate id stays
     * an error. Returns the ids of the quotes inserted, each with whether
     * its event fanned out to a delivery (quote_inserted_column). SQLite,
     * where one process writes at a time and a statement costs no round
     * trip, inserts each quote by itself after looking its key up, its
     * event and deliveries beside it (sqlite/events.c). */
    [STORE_SQL_QUOTE_INSERT] =
        {.sqlite = "INSERT INTO quotes (id, status, request_json, response_lz4, response_size, "
                   "idempotency_key,"
                   " price_list_version, created_at, expires_at, accepted_at, owner,"
                   " customer_id, created_by)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, nullif(?12, ''), ?13)",
         .postgres =
             "WITH r AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[],"
             " $5::int8[], $6::text[], $7::int8[], $8::int8[], $9::int8[], $10::int8[], "
             "$11::text[],"
             " $12::int8[], $13::int8[], $14::bytea[], $15::int8[], $16::text[], $17::text[],"
             " $18::text[]) WITH ORDINALITY "
             "AS r"
             " (id, "
             "status,"
             " request_json, response_lz4, response_size, idempotency_key, price_list_version,"
             " created_at, expires_at, accepted_at, event_id, event_at, event_ms, event_lz4,"
             " event_size, owner, customer_id, created_by, n)),"
             " q AS (INSERT INTO quotes (id, status, request_json, response_lz4, response_size,"
             " idempotency_key, price_list_version, created_at, expires_at, accepted_at, owner,"
             " customer_id, created_by)"
             " SELECT id, status, request_json, response_lz4, response_size, idempotency_key,"
             " price_list_version, created_at, expires_at, accepted_at, owner,"
             " nullif(customer_id, ''), created_by FROM r ORDER BY n"
             " ON CONFLICT (owner, idempotency_key) DO NOTHING RETURNING id),"
             " inserted AS (SELECT r.* FROM r JOIN q USING (id)),"
             " d AS (INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at,"
             " created_at, updated_at) SELECT 'whd_' || md5(random()::text || "
             "clock_timestamp()::text"
             " || w.id || i.event_id), w.id, i.event_id, i.event_ms, i.event_ms, i.event_ms"
             " FROM inserted i, webhook_endpoints w WHERE w.enabled"
             " AND " ENDPOINT_TAKES_QUOTE_CREATED " RETURNING event_id),"
             " e AS (INSERT INTO events (id, type, created_at, body_lz4, body_size, customer_id)"
             " SELECT event_id, 'quote.created', event_at, event_lz4, event_size,"
             " nullif(customer_id, '') FROM inserted)"
             " SELECT i.id, EXISTS (SELECT 1 FROM d WHERE d.event_id = i.event_id) FROM inserted "
             "i"},
    [STORE_SQL_QUOTE_BY_ID] = {.shared =
                                   "SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes WHERE id = ?1"},
    [STORE_SQL_QUOTE_BY_KEY] = {.shared = "SELECT " STORE_SQL_QUOTE_COLUMNS
                                          " FROM quotes WHERE idempotency_key = ?1"
                                          " AND owner = ?2"},
    /* One conditional write: of two replicas accepting at once, one
     * updates the row and the other finds it accepted. PostgreSQL returns
     * the row it wrote; SQLite reads it after, under its write lock. */
    [STORE_SQL_QUOTE_ACCEPT] =
        {.sqlite = "UPDATE quotes SET status = 'accepted', accepted_at = ?2, acceptance = ?3"
                   " WHERE id = ?1 AND status = 'open' AND expires_at > ?2",
         .postgres = "UPDATE quotes SET status = 'accepted', accepted_at = $2, acceptance = $3"
                     " WHERE id = $1 AND status = 'open' AND expires_at > $2"
                     " RETURNING " STORE_SQL_QUOTE_COLUMNS},
    [STORE_SQL_QUOTE_CANCEL] =
        {.sqlite = "UPDATE quotes SET status = 'canceled', canceled_at = ?2, cancel_reason = ?3"
                   " WHERE id = ?1 AND status = 'open' AND expires_at > ?2",
         .postgres = "UPDATE quotes SET status = 'canceled', canceled_at = $2,"
                     " cancel_reason = $3"
                     " WHERE id = $1 AND status = 'open' AND expires_at > $2"
                     " RETURNING " STORE_SQL_QUOTE_COLUMNS},
    /* GET /quote: every filter optional (NULL is "any"); "expired" is also
     * an open quote past expires_at that the sweeper has not marked yet.
     * PostgreSQL is told the types of the parameters only tested for NULL. */
    [STORE_SQL_QUOTES_LIST] =
        {.sqlite = "SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes"
                   " WHERE (?1 IS NULL OR (owner = coalesce(?9, '') AND client_reference_id = ?1))"
                   " AND (?2 IS NULL OR created_at >= ?2) AND (?3 IS NULL OR created_at < ?3)"
                   " AND (?4 IS NULL OR (?4 = 'open' AND status = 'open' AND expires_at > ?5)"
                   " OR (?4 = 'expired' AND (status = 'expired' OR (status = 'open' AND expires_at "
                   "<= ?5)))"
                   " OR (?4 IN ('accepted', 'canceled') AND status = ?4))"
                   " AND (?7 IS NULL OR (created_at, id) < (?6, ?7))"
                   " AND (?10 IS NULL OR customer_id = ?10) AND (?11 IS NULL OR created_by = ?11)"
                   " ORDER BY created_at DESC, id DESC LIMIT ?8",
         .postgres = "SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes"
                     " WHERE ($1::text IS NULL OR (owner = coalesce($9::text, '')"
                     " AND client_reference_id = $1))"
                     " AND ($2::bigint IS NULL OR created_at >= $2)"
                     " AND ($3::bigint IS NULL OR created_at < $3)"
                     " AND ($4::text IS NULL OR ($4 = 'open' AND status = 'open'"
                     " AND expires_at > $5::bigint) OR ($4 = 'expired' AND (status = 'expired'"
                     " OR (status = 'open' AND expires_at <= $5::bigint)))"
                     " OR ($4 IN ('accepted', 'canceled') AND status = $4))"
                     " AND ($7::text IS NULL OR (created_at, id) < ($6::bigint, $7))"
                     " AND ($10::text IS NULL OR customer_id = $10)"
                     " AND ($11::text IS NULL OR created_by = $11)"
                     " ORDER BY created_at DESC, id DESC LIMIT $8"},
    /* The sweeper. PostgreSQL marks a batch in one statement: each replica
     * locks the quotes it marks and skips those another holds, so a quote
     * is marked (and its event written) once. SQLite marks one quote at a
     * time, of those it read due, inside its write transaction. */
    [STORE_SQL_QUOTES_EXPIRE] = {.sqlite =
                                     "UPDATE quotes SET status = 'expired', expired_at = ?2"
                                     " WHERE id = ?1 AND status = 'open' AND expires_at <= ?2",
                                 .postgres =
                                     "UPDATE quotes SET status = 'expired', expired_at = $1"
                                     " WHERE id IN (SELECT id FROM quotes WHERE status = 'open'"
                                     " AND expires_at <= $1 ORDER BY expires_at LIMIT $2"
                                     " FOR UPDATE SKIP LOCKED)"
                                     " RETURNING " STORE_SQL_QUOTE_COLUMNS},
    /* Retention. SQLite's two arms each search their index; PostgreSQL
     * skips the rows another replica holds. */
    [STORE_SQL_QUOTES_DELETE_ENDED] =
        {.sqlite = "DELETE FROM quotes WHERE id IN (" QUOTES_ENDED_IDS " LIMIT ?3)",
         .postgres =
             "DELETE FROM quotes WHERE id IN (SELECT id FROM quotes"
             " WHERE (status IN ('canceled', 'expired') AND coalesce(canceled_at, expired_at) < $1)"
             " OR ($2::bigint > 0 AND status = 'accepted' AND accepted_at < $2::bigint)"
             " LIMIT $3 FOR UPDATE SKIP LOCKED)"},
    /* Retention of keyless callers' quotes and of events, ?1 the cut-off
     * and ?2 the batch. SQLite deletes an event's deliveries, its customer
     * link and the event with three statements of one transaction (the
     * same ids each time: deleting what refers to an event changes no
     * event's eligibility); PostgreSQL with one, skipping what another
     * replica holds. */
    [STORE_SQL_ANONYMOUS_QUOTES_DELETE] =
        {.sqlite = "DELETE FROM quotes WHERE id IN (" ANONYMOUS_QUOTES_ENDED_IDS " LIMIT ?2)",
         .postgres = "DELETE FROM quotes WHERE id IN (SELECT id FROM quotes"
                     " WHERE status <> 'open' AND substr(owner, 1, 5) = 'anon:'"
                     " AND coalesce(accepted_at, canceled_at, expired_at) < $1"
                     " LIMIT $2 FOR UPDATE SKIP LOCKED)"},
    [STORE_SQL_EVENT_DELIVERIES_DELETE] = {.shared = "DELETE FROM webhook_deliveries WHERE event_id"
                                                     " IN (" EVENTS_PAST_RETENTION_IDS ")"},
    [STORE_SQL_CUSTOMER_EVENTS_DELETE] = {.shared = "DELETE FROM customer_events WHERE event_id"
                                                    " IN (" EVENTS_PAST_RETENTION_IDS ")"},
    [STORE_SQL_EVENTS_DELETE] =
        {.sqlite = "DELETE FROM events WHERE id IN (" EVENTS_PAST_RETENTION_IDS ")",
         .postgres =
             "WITH old AS (SELECT id FROM events e WHERE created_at < $1 AND NOT EXISTS"
             " (SELECT 1 FROM webhook_deliveries d JOIN webhook_endpoints w"
             " ON w.id = d.endpoint_id WHERE d.event_id = e.id AND d.status = 'pending'"
             " AND w.enabled) ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED),"
             " d AS (DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM old)),"
             " c AS (DELETE FROM customer_events WHERE event_id IN (SELECT id FROM old))"
             " DELETE FROM events WHERE id IN (SELECT id FROM old)"},
    [STORE_SQL_QUOTE_RELEASE_KEY] = {.shared = "UPDATE quotes SET idempotency_key = NULL"
                                               " WHERE id = ?1 AND idempotency_key = ?2"},
    [STORE_SQL_RECENT_REQUESTS] = {.shared = "SELECT request_json FROM quotes"
                                             " ORDER BY created_at DESC, id DESC LIMIT ?1"},
    /* The catalog poller's check. */
    [STORE_SQL_PRICE_LIST_VERSION] = {.shared = "SELECT version FROM price_list WHERE id = 1"},

    /* Events and their webhook deliveries. An event is written with its
     * deliveries (the outbox): in PostgreSQL one statement; SQLite inserts
     * the event, then fans it out with a statement of its own
     * (sqlite/events.c), inside the caller's write transaction. */
    [STORE_SQL_EVENT_APPEND] =
        {.sqlite = "INSERT INTO events (id, type, created_at, body_lz4, body_size, customer_id)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
         .postgres = "WITH e AS (INSERT INTO events (id, type, created_at, body_lz4, body_size,"
                     " customer_id) VALUES ($1, $2, $3, $4, $6, $7) RETURNING id)"
                     " INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at,"
                     " created_at, updated_at) SELECT 'whd_' || md5(random()::text ||"
                     " clock_timestamp()::text || w.id), w.id, e.id, $5, $5, $5"
                     " FROM e, webhook_endpoints w WHERE w.enabled"
                     " AND " STORE_SQL_ENDPOINT_TAKES("strpos", "w.events", "$2")},
    /* PostgreSQL compares ids bytewise (COLLATE "C"), as SQLite does. */
    [STORE_SQL_EVENTS_PAGE] =
        {.sqlite = "SELECT id, type, created_at, body, body_lz4, body_size, customer_id FROM events"
                   " WHERE (?1 IS NULL OR type = ?1)"
                   " AND (?2 IS NULL OR id = ?2) AND (?3 IS NULL OR id > ?3)"
                   " AND (?5 IS NULL OR customer_id = ?5) ORDER BY id LIMIT ?4",
         .postgres =
             "SELECT id, type, created_at, body, body_lz4, body_size, customer_id FROM events"
             " WHERE ($1::text IS NULL OR type = $1) AND ($2::text IS NULL OR id = $2)"
             " AND ($3::text IS NULL OR id COLLATE \"C\" > $3)"
             " AND ($5::text IS NULL OR customer_id = $5)"
             " ORDER BY id COLLATE \"C\" LIMIT $4"},
    [STORE_SQL_ATTEMPTS] = {.shared =
                                "SELECT attempt, at, status_code, error, duration_ms"
                                " FROM webhook_attempts WHERE delivery_id = ?1 ORDER BY attempt"},
    /* The sender's claim. PostgreSQL locks and leases the due deliveries
     * in one statement, skipping those another replica holds; SQLite reads
     * them, then leases each (sqlite/events.c) in one write transaction.
     * Both return the same columns (claimed_column). */
    [STORE_SQL_DELIVERIES_CLAIM] =
        {.sqlite =
             "SELECT d.id, d.event_id, d.attempts, w.url, w.secret, e.body, e.body_lz4, "
             "e.body_size,"
             " w.id FROM webhook_deliveries d"
             " JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.id = d.event_id"
             " WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 AND d.lease_until <= ?1"
             " AND w.enabled = 1 ORDER BY d.next_attempt_at, d.id LIMIT ?2",
         .postgres =
             "WITH due AS (SELECT d.id FROM webhook_deliveries d"
             " JOIN webhook_endpoints w ON w.id = d.endpoint_id"
             " WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND d.lease_until <= $1"
             " AND w.enabled ORDER BY d.next_attempt_at, d.id LIMIT $3 FOR UPDATE OF d SKIP "
             "LOCKED),"
             " leased AS (UPDATE webhook_deliveries d SET lease_until = $2 FROM due"
             " WHERE d.id = due.id RETURNING d.id, d.event_id, d.attempts, d.endpoint_id)"
             " SELECT l.id, l.event_id, l.attempts, w.url, w.secret, e.body, e.body_lz4,"
             " e.body_size, w.id FROM leased l"
             " JOIN webhook_endpoints w ON w.id = l.endpoint_id JOIN events e ON e.id = "
             "l.event_id"},
    /* A delivery's attempt recorded: in PostgreSQL with its attempt row in
     * one statement; SQLite inserts the attempt first (sqlite/events.c). */
    [STORE_SQL_DELIVERY_FINISH] =
        {.sqlite = "UPDATE webhook_deliveries SET status = ?2, attempts = attempts + 1, "
                   "next_attempt_at = ?3,"
                   " lease_until = 0, updated_at = ?4 WHERE id = ?1",
         .postgres = "WITH a AS (INSERT INTO webhook_attempts (delivery_id, attempt, at,"
                     " status_code, error, duration_ms) SELECT id, attempts + 1, $2, $3::integer,"
                     " $4, $5 FROM webhook_deliveries WHERE id = $1 ON CONFLICT DO NOTHING)"
                     " UPDATE webhook_deliveries SET status = $6, attempts = attempts + 1,"
                     " next_attempt_at = $7, lease_until = 0, updated_at = $2 WHERE id = $1"},
    [STORE_SQL_ENDPOINT_SUCCEEDED] = {.shared =
                                          "UPDATE webhook_endpoints SET failing_since = NULL"
                                          " WHERE id = (SELECT endpoint_id FROM webhook_deliveries"
                                          " WHERE id = ?1) AND failing_since IS NOT NULL"},
    /* PostgreSQL is told ?2's type, which coalesce() alone does not give. */
    [STORE_SQL_ENDPOINT_FAILED] =
        {.sqlite = "UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?2)"
                   " WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = ?1)",
         .postgres = "UPDATE webhook_endpoints SET failing_since ="
                     " coalesce(failing_since, $2::bigint)"
                     " WHERE id = (SELECT endpoint_id FROM webhook_deliveries"
                     " WHERE id = $1)"},
    /* enabled is an integer in SQLite, a boolean in PostgreSQL. */
    [STORE_SQL_ENDPOINT_DISABLE] =
        {.sqlite = "UPDATE webhook_endpoints SET enabled = 0, updated_at = ?3"
                   " WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = ?1)"
                   " AND enabled = 1 AND failing_since <= ?2 RETURNING " STORE_SQL_ENDPOINT_COLUMNS,
         .postgres = "UPDATE webhook_endpoints SET enabled = false, updated_at = $3"
                     " WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = $1)"
                     " AND enabled AND failing_since <= $2"
                     " RETURNING id, url, description, events, enabled, created_at, updated_at"},

    /* The migration history. Its table is created by the code, before any
     * migration file runs, in each dialect's types: SQLite's INTEGER
     * PRIMARY KEY is the rowid, PostgreSQL's applied_at a bigint. */
    [STORE_SQL_MIGRATIONS_CREATE] = {.sqlite = "CREATE TABLE IF NOT EXISTS schema_migrations ("
                                               " version INTEGER PRIMARY KEY,"
                                               " name TEXT NOT NULL,"
                                               " checksum TEXT NOT NULL,"
                                               " applied_at INTEGER NOT NULL)",
                                     .postgres = "CREATE TABLE IF NOT EXISTS schema_migrations ("
                                                 " version integer PRIMARY KEY,"
                                                 " name text NOT NULL,"
                                                 " checksum text NOT NULL,"
                                                 " applied_at bigint NOT NULL)"},
    [STORE_SQL_MIGRATIONS] = {.shared = "SELECT " STORE_SQL_MIGRATION_COLUMNS
                                        " FROM schema_migrations ORDER BY version"},
    [STORE_SQL_MIGRATION_CHECKSUM] = {.shared = "SELECT checksum FROM schema_migrations"
                                                " WHERE version = ?1"},
    [STORE_SQL_MIGRATION_RECORD] = {.shared = "INSERT INTO schema_migrations (version, name,"
                                              " checksum, applied_at) VALUES (?1, ?2, ?3, ?4)"},
    /* Verifications (migration 0016). One is made only for a customer that
     * is not erased, revoked only while it applies. */
    [STORE_SQL_VERIFICATION_INSERT] = {.shared = "INSERT INTO customer_verifications ("
                                                 STORE_SQL_VERIFICATION_COLUMNS ") SELECT"
                                                 " CAST(?1 AS text), CAST(?2 AS text),"
                                                 " CAST(?3 AS text), CAST(?4 AS text),"
                                                 " CAST(?5 AS bigint), CAST(?6 AS bigint),"
                                                 " NULL, NULL WHERE EXISTS (SELECT 1 FROM"
                                                 " customers WHERE id = ?2 AND deleted = 0)"},
    [STORE_SQL_VERIFICATION_REVOKE] = {.shared = "UPDATE customer_verifications SET revoked_at = ?3"
                                                 " WHERE id = ?1 AND customer_id = ?2"
                                                 " AND revoked_at IS NULL AND expired_at IS NULL"
                                                 " AND expires_at > ?3"},
    [STORE_SQL_VERIFICATIONS] = {.sqlite = "SELECT " STORE_SQL_VERIFICATION_COLUMNS
                                           " FROM customer_verifications WHERE customer_id = ?1"
                                           " AND (?2 IS NULL OR id = ?2) AND (?3 = 0"
                                           " OR (revoked_at IS NULL AND expires_at > ?3))"
                                           " ORDER BY created_at, id",
                                 .postgres = "SELECT " STORE_SQL_VERIFICATION_COLUMNS
                                             " FROM customer_verifications WHERE customer_id = $1"
                                             " AND ($2::text IS NULL OR id = $2) AND ($3::bigint = 0"
                                             " OR (revoked_at IS NULL AND expires_at > $3::bigint))"
                                             " ORDER BY created_at, id"},
    /* The sweeper, as for quotes: SQLite reads the due ones and marks each
     * in its write transaction; PostgreSQL marks a batch in one statement,
     * skipping the rows another replica holds, so each is marked once. */
    [STORE_SQL_VERIFICATIONS_DUE] = {.shared = "SELECT " STORE_SQL_VERIFICATION_COLUMNS
                                               " FROM customer_verifications"
                                               " WHERE revoked_at IS NULL AND expired_at IS NULL"
                                               " AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2"},
    [STORE_SQL_VERIFICATION_EXPIRE] =
        {.sqlite = "UPDATE customer_verifications SET expired_at = ?2 WHERE id = ?1"
                   " AND revoked_at IS NULL AND expired_at IS NULL AND expires_at <= ?2",
         .postgres = "UPDATE customer_verifications SET expired_at = $1"
                     " WHERE id IN (SELECT id FROM customer_verifications"
                     " WHERE revoked_at IS NULL AND expired_at IS NULL AND expires_at <= $1"
                     " ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)"
                     " AND revoked_at IS NULL AND expired_at IS NULL"
                     " RETURNING " STORE_SQL_VERIFICATION_COLUMNS},
    [STORE_SQL_VERIFICATIONS_ERASE] = {.shared = "UPDATE customer_verifications SET evidence = NULL"
                                                 " WHERE customer_id = ?1"},
    /* A customer's own discount rules (migration 0022): written only for a
     * customer that is not erased. */
    [STORE_SQL_CUSTOMER_RULES] = {.shared = "SELECT " STORE_SQL_CUSTOMER_RULE_COLUMNS
                                            " FROM customer_discount_rules WHERE customer_id = ?1"
                                            " ORDER BY rule_id"},
    [STORE_SQL_CUSTOMER_RULE_PUT] = {.shared = "INSERT INTO customer_discount_rules (customer_id,"
                                               " rule_id, document, created_at, updated_at)"
                                               " SELECT CAST(?1 AS text), CAST(?2 AS text),"
                                               " CAST(?3 AS text), CAST(?4 AS bigint),"
                                               " CAST(?4 AS bigint) WHERE EXISTS (SELECT 1 FROM"
                                               " customers WHERE id = ?1 AND deleted = 0)"
                                               " ON CONFLICT (customer_id, rule_id) DO UPDATE"
                                               " SET document = excluded.document,"
                                               " updated_at = excluded.updated_at"},
    [STORE_SQL_CUSTOMER_RULE_DELETE] = {.shared = "DELETE FROM customer_discount_rules"
                                                  " WHERE customer_id = ?1 AND rule_id = ?2"},
};

/* A `?` followed by digits becomes `$`; inside '...' (where '' is a quote)
 * or "..." nothing changes. The result is never longer than `shared`. */
char *store_sql_for_postgres(const char *shared)
{
    char *out = strdup(shared);
    if (out == NULL)
        return NULL;
    char quote = 0;
    for (char *at = out; *at != '\0'; at++) {
        if (quote != 0) {
            if (*at == quote)
                quote = 0; /* a doubled quote closes and reopens: the same */
        } else if (*at == '\'' || *at == '"') {
            quote = *at;
        } else if (*at == '?' && isdigit((unsigned char)at[1])) {
            *at = '$';
        }
    }
    return out;
}
