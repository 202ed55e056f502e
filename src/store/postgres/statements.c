/*
 * Every statement the PostgreSQL backend prepares on its connections, in
 * one table: the hot paths of POST /quote, GET /quote/{id}, accepting, and
 * the catalog poller's version check. (The catalog's own queries run once
 * per reload and are not prepared: postgres/catalog.c.)
 */
#include "store/postgres/pg.h"
#include "store/queries.h"

#define ENDPOINT_TAKES_QUOTE_CREATED                                                               \
    STORE_SQL_ENDPOINT_TAKES("strpos", "w.events", "'quote.created'")

const struct pg_statement_text pg_statements[PG_STATEMENT_COUNT] = {
    /* A batch of quotes, one array a column (the quote's ten, then its
     * quote.created event's five: $11 its id, $12 its time in seconds, $13
     * in milliseconds, $14 its JSON's LZ4 block, $15 the JSON's length),
     * with each event and its webhook deliveries in the same statement:
     * written only when the quote is (the outbox). A key already stored (by
     * any replica, or earlier in this batch: the first, ORDER BY n, is
     * inserted) inserts nothing, and the caller then reads the stored
     * quote; only the key's conflict is taken so, and a duplicate id stays
     * an error. Returns the ids of the quotes inserted, each with whether
     * its event fanned out to a delivery. */
    [PG_QUOTE_INSERT_BATCH] =
        {"gq_quote_insert_batch",
         "WITH r AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[],"
         " $5::int8[], $6::text[], $7::int8[], $8::int8[], $9::int8[], $10::int8[], $11::text[],"
         " $12::int8[], $13::int8[], $14::bytea[], $15::int8[]) WITH ORDINALITY AS r (id, status,"
         " request_json, response_lz4, response_size, idempotency_key, price_list_version,"
         " created_at, expires_at, accepted_at, event_id, event_at, event_ms, event_lz4,"
         " event_size, n)),"
         " q AS (INSERT INTO quotes (id, status, request_json, response_lz4, response_size,"
         " idempotency_key, price_list_version, created_at, expires_at, accepted_at)"
         " SELECT id, status, request_json, response_lz4, response_size, idempotency_key,"
         " price_list_version, created_at, expires_at, accepted_at FROM r ORDER BY n"
         " ON CONFLICT (idempotency_key) DO NOTHING RETURNING id),"
         " inserted AS (SELECT r.* FROM r JOIN q USING (id)),"
         " d AS (INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at,"
         " created_at, updated_at) SELECT 'whd_' || md5(random()::text || clock_timestamp()::text"
         " || w.id || i.event_id), w.id, i.event_id, i.event_ms, i.event_ms, i.event_ms"
         " FROM inserted i, webhook_endpoints w WHERE w.enabled"
         " AND " ENDPOINT_TAKES_QUOTE_CREATED " RETURNING event_id),"
         " e AS (INSERT INTO events (id, type, created_at, body_lz4, body_size)"
         " SELECT event_id, 'quote.created', event_at, event_lz4, event_size FROM inserted)"
         " SELECT i.id, EXISTS (SELECT 1 FROM d WHERE d.event_id = i.event_id) FROM inserted i",
         15},
    [PG_QUOTE_BY_ID] = {"gq_quote_by_id",
                        "SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes WHERE id = $1", 1},
    [PG_QUOTE_BY_KEY] = {"gq_quote_by_key",
                         "SELECT " STORE_SQL_QUOTE_COLUMNS
                         " FROM quotes WHERE idempotency_key = $1",
                         1},
    /* One conditional write: of two replicas accepting at once, one
     * updates the row and the other finds it accepted. */
    [PG_QUOTE_ACCEPT] = {"gq_quote_accept",
                         "UPDATE quotes SET status = 'accepted', accepted_at = $2, acceptance = $3"
                         " WHERE id = $1 AND status = 'open' AND expires_at > $2"
                         " RETURNING " STORE_SQL_QUOTE_COLUMNS,
                         3},
    [PG_QUOTE_CANCEL] = {"gq_quote_cancel",
                         "UPDATE quotes SET status = 'canceled', canceled_at = $2,"
                         " cancel_reason = $3"
                         " WHERE id = $1 AND status = 'open' AND expires_at > $2"
                         " RETURNING " STORE_SQL_QUOTE_COLUMNS,
                         3},
    /* GET /quote: every filter optional (NULL is "any"); "expired" is also
     * an open quote past expires_at that the sweeper has not marked yet. */
    [PG_QUOTES_LIST] = {"gq_quotes_list",
                        "SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes"
                        " WHERE ($1::text IS NULL OR client_reference_id = $1)"
                        " AND ($2::bigint IS NULL OR created_at >= $2)"
                        " AND ($3::bigint IS NULL OR created_at < $3)"
                        " AND ($4::text IS NULL OR ($4 = 'open' AND status = 'open'"
                        " AND expires_at > $5::bigint) OR ($4 = 'expired' AND (status = 'expired'"
                        " OR (status = 'open' AND expires_at <= $5::bigint)))"
                        " OR ($4 IN ('accepted', 'canceled') AND status = $4))"
                        " AND ($7::text IS NULL OR (created_at, id) < ($6::bigint, $7))"
                        " ORDER BY created_at DESC, id DESC LIMIT $8",
                        8},
    /* The sweeper: each replica locks the quotes it marks and skips those
     * another holds, so a quote is marked (and its event written) once. */
    [PG_QUOTES_EXPIRE] = {"gq_quotes_expire",
                          "UPDATE quotes SET status = 'expired', expired_at = $1"
                          " WHERE id IN (SELECT id FROM quotes WHERE status = 'open'"
                          " AND expires_at <= $1 ORDER BY expires_at LIMIT $2"
                          " FOR UPDATE SKIP LOCKED)"
                          " RETURNING " STORE_SQL_QUOTE_COLUMNS,
                          2},
    [PG_PRICE_LIST_VERSION] = {"gq_price_list_version",
                               "SELECT version FROM price_list WHERE id = 1", 0},
};
