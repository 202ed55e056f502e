/*
 * The SQLite backend's events and webhooks: an event appended inside the
 * caller's write transaction with its deliveries (sqlite_event_append), the
 * events read a page at a time, webhook endpoints kept with their audit
 * lines, and deliveries claimed and finished by the sender. A claim is one
 * BEGIN IMMEDIATE transaction: no other process writes between the read of
 * the due deliveries and their lease.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/queries.h"
#include "store/sqlite/db.h"

/* One delivery per enabled endpoint that takes the type, due at once. */
static const char SQL_EVENT_FAN_OUT[] =
    "INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at,"
    " updated_at) SELECT 'whd_' || lower(hex(randomblob(16))), id, ?1, ?2, ?2, ?2"
    " FROM webhook_endpoints WHERE enabled = 1"
    " AND " STORE_SQL_ENDPOINT_TAKES("instr", "events", "?3");

static const char SQL_LEASE[] = "UPDATE webhook_deliveries SET lease_until = ?2 WHERE id = ?1";
static const char SQL_ATTEMPT_INSERT[] =
    "INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, at, status_code, error,"
    " duration_ms) SELECT id, attempts + 1, ?2, ?3, ?4, ?5 FROM webhook_deliveries WHERE id = ?1";

/* ---- Events. ---- */

/* The current row's event body, from the columns body, body_lz4 and
 * body_size starting at `column`: text for events written before 0011. */
static enum gq_code read_body(sqlite3_stmt *stmt, int column, const char *id, char **out,
                              struct gq_error *err)
{
    struct stored_response stored = sqlite_db_column_stored(stmt, column, column + 1, column + 2);
    return store_unpack_stored("event", id, &stored, out, err);
}

enum gq_code sqlite_event_append(struct sqlite_conn *conn, const struct store_event *event,
                                 struct gq_error *err)
{
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(event->id),
        SQLITE_DB_TEXT_OF(event->type),
        SQLITE_DB_INT64_OF(event->created_at),
        SQLITE_DB_BLOB_OF(event->packed.block, event->packed.block_size),
        SQLITE_DB_INT64_OF(event->packed.size),
        SQLITE_DB_TEXT_OF(event->customer_id[0] != '\0' ? event->customer_id : NULL)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_EVENT_APPEND), params, 6,
                                        "writing an event"};
    const struct sqlite_db_param fan_out_params[] = {SQLITE_DB_TEXT_OF(event->id),
                                                     SQLITE_DB_INT64_OF(event->created_ms),
                                                     SQLITE_DB_TEXT_OF(event->type)};
    const struct sqlite_db_call fan_out = {SQL_EVENT_FAN_OUT, fan_out_params, 3,
                                           "writing an event's deliveries"};
    enum gq_code code = sqlite_db_change(conn, &call, NULL, err);
    return code == GQ_OK ? sqlite_db_change(conn, &fan_out, NULL, err) : code;
}

static enum gq_code write_event(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    return sqlite_event_append(conn, context, err);
}

enum gq_code sqlite_append_event(struct store_backend *backend, const struct store_event *event,
                                 struct gq_error *err)
{
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_event, (void *)event,
                                          err);
}

static enum gq_code read_event(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct store_event *event = item;
    snprintf(event->id, sizeof event->id, "%s", sqlite_db_text(stmt, EVENT_COL_ID));
    snprintf(event->type, sizeof event->type, "%s", sqlite_db_text(stmt, EVENT_COL_TYPE));
    event->created_at = sqlite3_column_int64(stmt, EVENT_COL_CREATED_AT);
    snprintf(event->customer_id, sizeof event->customer_id, "%s",
             sqlite_db_text(stmt, EVENT_COL_CUSTOMER_ID));
    return read_body(stmt, EVENT_COL_BODY, event->id, &event->body, err);
}

enum gq_code sqlite_events_read(struct store_backend *backend, const char *type,
                                const char *customer_id, const char *id, const char *starting_after,
                                size_t limit, struct event_page *out, struct gq_error *err)
{
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(type), SQLITE_DB_TEXT_OF(id), SQLITE_DB_TEXT_OF(starting_after),
        SQLITE_DB_INT64_OF(limit + 1), /* one more tells has_more */
        SQLITE_DB_TEXT_OF(customer_id)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_EVENTS_PAGE), params, 5,
                                        "reading events"};
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_pooled, backend, &call, read_event, out, code, err);
    return code;
}

/* ---- Endpoints. ---- */

/* Runs `call`; when it changed a row (*found), appends `audit`. */
static enum gq_code change_audited(struct sqlite_conn *conn, const struct sqlite_db_call *call,
                                   bool *found, const struct audit_line *audit,
                                   struct gq_error *err)
{
    enum gq_code code = sqlite_db_change(conn, call, found, err);
    return code == GQ_OK && *found ? sqlite_audit_append(conn, audit, err) : code;
}

struct endpoint_write {
    const struct stored_endpoint *endpoint;
    const char *id;
    const struct audit_line *audit;
    bool *found;
};

static enum gq_code insert_endpoint(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct endpoint_write *write = context;
    const struct stored_endpoint *endpoint = write->endpoint;
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(endpoint->id),
        SQLITE_DB_TEXT_OF(endpoint->url),
        SQLITE_DB_TEXT_OF(endpoint->description ? endpoint->description : ""),
        SQLITE_DB_TEXT_OF(endpoint->events),
        SQLITE_DB_TEXT_OF(endpoint->secret),
        SQLITE_DB_INT64_OF(endpoint->enabled ? 1 : 0),
        SQLITE_DB_INT64_OF(endpoint->created_at),
        SQLITE_DB_INT64_OF(endpoint->updated_at)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_ENDPOINT_INSERT), params, 8,
                                        "storing a webhook endpoint"};
    enum gq_code code = sqlite_db_change(conn, &call, NULL, err);
    return code == GQ_OK ? sqlite_audit_append(conn, write->audit, err) : code;
}

enum gq_code sqlite_endpoint_insert(struct store_backend *backend,
                                    const struct stored_endpoint *endpoint,
                                    const struct audit_line *audit, struct gq_error *err)
{
    struct endpoint_write write = {endpoint, NULL, audit, NULL};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), insert_endpoint, &write, err);
}

static enum gq_code read_endpoint(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct stored_endpoint *endpoint = item;
    snprintf(endpoint->id, sizeof endpoint->id, "%s", sqlite_db_text(stmt, ENDPOINT_COL_ID));
    bool copied = sqlite_db_column_strdup(stmt, ENDPOINT_COL_URL, &endpoint->url) &&
                  sqlite_db_column_strdup(stmt, ENDPOINT_COL_DESCRIPTION, &endpoint->description) &&
                  sqlite_db_column_strdup(stmt, ENDPOINT_COL_EVENTS, &endpoint->events);
    endpoint->enabled = sqlite3_column_int(stmt, ENDPOINT_COL_ENABLED) != 0;
    endpoint->created_at = sqlite3_column_int64(stmt, ENDPOINT_COL_CREATED_AT);
    endpoint->updated_at = sqlite3_column_int64(stmt, ENDPOINT_COL_UPDATED_AT);
    return copied ? GQ_OK
                  : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading webhook endpoints");
}

enum gq_code sqlite_endpoints_read(struct store_backend *backend, const char *id,
                                   struct endpoint_list *out, struct gq_error *err)
{
    enum gq_code code;
    SQLITE_DB_READ_LIST_BY_TEXT(sqlite_db_read_pooled, backend, STORE_SQL_ENDPOINTS, id,
                                "reading webhook endpoints", read_endpoint, out, code, err);
    return code;
}

static enum gq_code read_secret(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct stored_endpoint *endpoint = item;
    snprintf(endpoint->id, sizeof endpoint->id, "%s", sqlite_db_text(stmt, 0));
    return sqlite_db_column_strdup(stmt, 1, &endpoint->secret)
               ? GQ_OK
               : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading webhook secrets");
}

enum gq_code sqlite_endpoint_secrets_read(struct store_backend *backend, struct endpoint_list *out,
                                          struct gq_error *err)
{
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_ENDPOINT_SECRETS), NULL, 0,
                                        "reading webhook secrets"};
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_pooled, backend, &call, read_secret, out, code, err);
    return code;
}

struct secret_replace {
    const char *id, *stored, *sealed;
    bool *found;
};

static enum gq_code replace_secret(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct secret_replace *replace = context;
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(replace->id),
                                             SQLITE_DB_TEXT_OF(replace->stored),
                                             SQLITE_DB_TEXT_OF(replace->sealed)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_ENDPOINT_SECRET_REPLACE), params, 3,
                                        "sealing a webhook secret"};
    return sqlite_db_change(conn, &call, replace->found, err);
}

enum gq_code sqlite_endpoint_secret_replace(struct store_backend *backend, const char *id,
                                            const char *stored, const char *sealed, bool *found,
                                            struct gq_error *err)
{
    struct secret_replace replace = {id, stored, sealed, found};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), replace_secret, &replace, err);
}

static enum gq_code update_endpoint(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct endpoint_write *write = context;
    const struct stored_endpoint *endpoint = write->endpoint;
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(endpoint->id), SQLITE_DB_TEXT_OF(endpoint->events),
        SQLITE_DB_INT64_OF(endpoint->enabled ? 1 : 0), SQLITE_DB_INT64_OF(endpoint->updated_at)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_ENDPOINT_UPDATE), params, 4,
                                        "changing a webhook endpoint"};
    return change_audited(conn, &call, write->found, write->audit, err);
}

enum gq_code sqlite_endpoint_update(struct store_backend *backend,
                                    const struct stored_endpoint *endpoint,
                                    const struct audit_line *audit, bool *found,
                                    struct gq_error *err)
{
    struct endpoint_write write = {endpoint, NULL, audit, found};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), update_endpoint, &write, err);
}

static enum gq_code delete_endpoint(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct endpoint_write *write = context;
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(write->id)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_ENDPOINT_DELETE), params, 1,
                                        "deleting a webhook endpoint"};
    return change_audited(conn, &call, write->found, write->audit, err);
}

enum gq_code sqlite_endpoint_delete(struct store_backend *backend, const char *id,
                                    const struct audit_line *audit, bool *found,
                                    struct gq_error *err)
{
    struct endpoint_write write = {NULL, id, audit, found};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), delete_endpoint, &write, err);
}

/* ---- Deliveries, as the admin API reads them. ---- */

static enum gq_code read_attempt(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct stored_attempt *attempt = item;
    attempt->attempt = sqlite3_column_int(stmt, ATTEMPT_COL_ATTEMPT);
    attempt->at_ms = sqlite3_column_int64(stmt, ATTEMPT_COL_AT);
    attempt->status_code = sqlite3_column_int(stmt, ATTEMPT_COL_STATUS_CODE);
    attempt->duration_ms = sqlite3_column_int64(stmt, ATTEMPT_COL_DURATION_MS);
    if (!sqlite_db_column_strdup(stmt, ATTEMPT_COL_ERROR, &attempt->error))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading deliveries");
    return GQ_OK;
}

static enum gq_code read_attempts(struct sqlite_conn *conn, struct stored_delivery *delivery,
                                  struct gq_error *err)
{
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(delivery->id)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_ATTEMPTS), params, 1,
                                        "reading deliveries"};
    struct sqlite_db_rows rows = {delivery->tries, delivery->n_tries};
    enum gq_code code =
        sqlite_db_read_rows(conn, &call, sizeof *delivery->tries, read_attempt, &rows, err);
    delivery->tries = rows.items;
    delivery->n_tries = rows.count;
    return code;
}

static enum gq_code read_delivery(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    (void)err;
    struct stored_delivery *delivery = item;
    snprintf(delivery->id, sizeof delivery->id, "%s", sqlite_db_text(stmt, DELIVERY_COL_ID));
    snprintf(delivery->endpoint_id, sizeof delivery->endpoint_id, "%s",
             sqlite_db_text(stmt, DELIVERY_COL_ENDPOINT_ID));
    snprintf(delivery->event_id, sizeof delivery->event_id, "%s",
             sqlite_db_text(stmt, DELIVERY_COL_EVENT_ID));
    snprintf(delivery->status, sizeof delivery->status, "%s",
             sqlite_db_text(stmt, DELIVERY_COL_STATUS));
    delivery->attempts = sqlite3_column_int(stmt, DELIVERY_COL_ATTEMPTS);
    delivery->next_attempt_at = sqlite3_column_int64(stmt, DELIVERY_COL_NEXT_ATTEMPT_AT);
    delivery->created_at = sqlite3_column_int64(stmt, DELIVERY_COL_CREATED_AT);
    return GQ_OK;
}

enum gq_code sqlite_deliveries_read(struct store_backend *backend, const char *endpoint_id,
                                    const char *starting_after, size_t limit,
                                    struct delivery_page *out, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(endpoint_id),
                                             SQLITE_DB_TEXT_OF(starting_after),
                                             SQLITE_DB_INT64_OF(limit + 1)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_DELIVERIES_PAGE), params, 3,
                                        "reading deliveries"};
    enum gq_code code = sqlite_db_begin_read(conn, err);
    if (code == GQ_OK)
        SQLITE_DB_READ_LIST(sqlite_db_read_rows, conn, &call, read_delivery, out, code, err);
    for (size_t i = 0; code == GQ_OK && i < out->count && i < limit; i++)
        code = read_attempts(conn, &out->items[i], err);
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    return code;
}

struct delivery_retry {
    const char *endpoint_id, *delivery_id;
    int64_t now_ms;
    const struct audit_line *audit;
    bool *found;
};

static enum gq_code retry_delivery(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct delivery_retry *retry = context;
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(retry->endpoint_id),
                                             SQLITE_DB_TEXT_OF(retry->delivery_id),
                                             SQLITE_DB_INT64_OF(retry->now_ms)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_DELIVERY_RETRY), params, 3,
                                        "retrying a delivery"};
    return change_audited(conn, &call, retry->found, retry->audit, err);
}

enum gq_code sqlite_delivery_retry(struct store_backend *backend, const char *endpoint_id,
                                   const char *delivery_id, int64_t now_ms,
                                   const struct audit_line *audit, bool *found,
                                   struct gq_error *err)
{
    struct delivery_retry retry = {endpoint_id, delivery_id, now_ms, audit, found};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), retry_delivery, &retry, err);
}

/* ---- The sender's claims. ---- */

struct claim {
    int64_t now_ms, lease_ms;
    size_t max;
    struct claimed_delivery *items;
    size_t count;
};

static enum gq_code read_claimed(sqlite3_stmt *stmt, void *claimed, struct gq_error *err)
{
    struct claimed_delivery *item = claimed;
    snprintf(item->id, sizeof item->id, "%s", sqlite_db_text(stmt, CLAIMED_COL_ID));
    snprintf(item->event_id, sizeof item->event_id, "%s",
             sqlite_db_text(stmt, CLAIMED_COL_EVENT_ID));
    item->attempts = sqlite3_column_int(stmt, CLAIMED_COL_ATTEMPTS);
    snprintf(item->endpoint_id, sizeof item->endpoint_id, "%s",
             sqlite_db_text(stmt, CLAIMED_COL_ENDPOINT_ID));
    bool copied = sqlite_db_column_strdup(stmt, CLAIMED_COL_URL, &item->url) &&
                  sqlite_db_column_strdup(stmt, CLAIMED_COL_SECRET, &item->secret);
    return copied ? read_body(stmt, CLAIMED_COL_BODY, item->event_id, &item->body, err)
                  : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory claiming deliveries");
}

static enum gq_code claim_due(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct claim *claim = context;
    const struct sqlite_db_param params[] = {SQLITE_DB_INT64_OF(claim->now_ms),
                                             SQLITE_DB_INT64_OF(claim->max)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_DELIVERIES_CLAIM), params, 2,
                                        "claiming deliveries"};
    enum gq_code code;
    SQLITE_DB_READ_LIST(sqlite_db_read_rows, conn, &call, read_claimed, claim, code, err);
    for (size_t i = 0; code == GQ_OK && i < claim->count; i++) {
        const struct sqlite_db_param lease[] = {
            SQLITE_DB_TEXT_OF(claim->items[i].id),
            SQLITE_DB_INT64_OF(claim->now_ms + claim->lease_ms)};
        const struct sqlite_db_call lease_call = {SQL_LEASE, lease, 2, "leasing a delivery"};
        code = sqlite_db_change(conn, &lease_call, NULL, err);
    }
    return code;
}

enum gq_code sqlite_deliveries_claim(struct store_backend *backend, int64_t now_ms,
                                     int64_t lease_ms, size_t max, struct claimed_delivery **out,
                                     size_t *count, struct gq_error *err)
{
    struct claim claim = {now_ms, lease_ms, max, NULL, 0};
    enum gq_code code =
        sqlite_db_in_write_transaction(sqlite_store_of(backend), claim_due, &claim, err);
    if (code != GQ_OK) {
        store_claimed_free(claim.items, claim.count);
        claim.items = NULL;
        claim.count = 0;
    }
    *out = claim.items;
    *count = claim.count;
    return code;
}

struct finish {
    const struct delivery_end *end;
    bool *disabled;
};

/* Disables the delivery's endpoint when it has been failing since
 * disable_before_ms, and appends its webhook_endpoint.disabled. */
static enum gq_code disable_if_failing(struct sqlite_conn *conn, const struct delivery_end *end,
                                       bool *disabled, struct gq_error *err)
{
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(end->id),
                                             SQLITE_DB_INT64_OF(end->disable_before_ms),
                                             SQLITE_DB_INT64_OF(end->attempt->at_ms / 1000)};
    const struct sqlite_db_call call = {sqlite_sql(STORE_SQL_ENDPOINT_DISABLE), params, 3,
                                        "disabling a webhook endpoint"};
    struct endpoint_list list = {0};
    enum gq_code code; /* RETURNING: the update is done once stepped through */
    SQLITE_DB_READ_LIST(sqlite_db_read_rows, conn, &call, read_endpoint, &list, code, err);
    if (code == GQ_OK && list.count == 1) {
        struct store_event event;
        code = store_event_endpoint_disabled(&list.items[0], &event, err);
        if (code == GQ_OK)
            code = sqlite_event_append(conn, &event, err);
        store_event_clear(&event);
        *disabled = code == GQ_OK;
    }
    store_endpoint_list_free(&list);
    return code;
}

/* The endpoint's failing streak, after a try. */
static enum gq_code track_endpoint(struct sqlite_conn *conn, const struct delivery_end *end,
                                   bool *disabled, struct gq_error *err)
{
    bool succeeded = strcmp(end->status, "succeeded") == 0;
    const struct sqlite_db_param params[] = {SQLITE_DB_TEXT_OF(end->id),
                                             SQLITE_DB_INT64_OF(end->attempt->at_ms)};
    const struct sqlite_db_call call = {succeeded ? sqlite_sql(STORE_SQL_ENDPOINT_SUCCEEDED)
                                                  : sqlite_sql(STORE_SQL_ENDPOINT_FAILED),
                                        params, succeeded ? 1 : 2,
                                        "recording an endpoint's health"};
    enum gq_code code = sqlite_db_change(conn, &call, NULL, err);
    if (code == GQ_OK && !succeeded && end->disable_before_ms > 0)
        code = disable_if_failing(conn, end, disabled, err);
    return code;
}

static enum gq_code finish_delivery(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct finish *finish = context;
    const struct delivery_end *end = finish->end;
    const struct stored_attempt *attempt = end->attempt;
    const struct sqlite_db_param status = SQLITE_DB_INT64_OF(attempt->status_code);
    const struct sqlite_db_param no_status = SQLITE_DB_NULL_PARAM;
    const struct sqlite_db_param tried[] = {
        SQLITE_DB_TEXT_OF(end->id), SQLITE_DB_INT64_OF(attempt->at_ms),
        attempt->status_code > 0 ? status : no_status, SQLITE_DB_TEXT_OF(attempt->error),
        SQLITE_DB_INT64_OF(attempt->duration_ms)};
    const struct sqlite_db_call insert = {SQL_ATTEMPT_INSERT, tried, 5, "recording a delivery"};
    const struct sqlite_db_param finished[] = {
        SQLITE_DB_TEXT_OF(end->id), SQLITE_DB_TEXT_OF(end->status),
        SQLITE_DB_INT64_OF(end->next_attempt_at), SQLITE_DB_INT64_OF(attempt->at_ms)};
    const struct sqlite_db_call finish_call = {sqlite_sql(STORE_SQL_DELIVERY_FINISH), finished, 4,
                                               "recording a delivery"};
    enum gq_code code = sqlite_db_change(conn, &insert, NULL, err);
    if (code == GQ_OK)
        code = sqlite_db_change(conn, &finish_call, NULL, err);
    return code == GQ_OK ? track_endpoint(conn, end, finish->disabled, err) : code;
}

enum gq_code sqlite_delivery_finish(struct store_backend *backend, const struct delivery_end *end,
                                    bool *disabled, struct gq_error *err)
{
    struct finish finish = {end, disabled};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), finish_delivery, &finish, err);
}
