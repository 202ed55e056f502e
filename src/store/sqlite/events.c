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

static const char *text_of(sqlite3_stmt *stmt, int column)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    return text != NULL ? (const char *)text : "";
}

static enum gq_code prepare_failed(struct gq_error *err)
{
    return err != NULL ? err->code : GQ_ERR_INTERNAL;
}

/* Steps a write statement to its end and resets it. */
static enum gq_code step_write(struct sqlite_conn *conn, sqlite3_stmt *stmt, const char *what,
                               struct gq_error *err)
{
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    return rc == SQLITE_DONE ? GQ_OK : sqlite_db_fail(conn, rc, what, err);
}

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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_EVENT_APPEND), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, event->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, event->type, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)event->created_at);
    sqlite3_bind_blob(stmt, 4, event->packed.block, (int)event->packed.block_size, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 5, (sqlite3_int64)event->packed.size);
    enum gq_code code = step_write(conn, stmt, "writing an event", err);
    if (code != GQ_OK)
        return code;
    stmt = sqlite_db_cached(conn, SQL_EVENT_FAN_OUT, err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, event->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)event->created_ms);
    sqlite3_bind_text(stmt, 3, event->type, -1, SQLITE_STATIC);
    return step_write(conn, stmt, "writing an event's deliveries", err);
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

static enum gq_code append_event_row(struct event_page *page, sqlite3_stmt *stmt,
                                     struct gq_error *err)
{
    struct store_event *items = realloc(page->items, (page->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading events");
    page->items = items;
    struct store_event *event = &items[page->count++];
    memset(event, 0, sizeof *event);
    snprintf(event->id, sizeof event->id, "%s", text_of(stmt, EVENT_COL_ID));
    snprintf(event->type, sizeof event->type, "%s", text_of(stmt, EVENT_COL_TYPE));
    event->created_at = sqlite3_column_int64(stmt, EVENT_COL_CREATED_AT);
    return read_body(stmt, EVENT_COL_BODY, event->id, &event->body, err);
}

enum gq_code sqlite_events_read(struct store_backend *backend, const char *type, const char *id,
                                const char *starting_after, size_t limit, struct event_page *out,
                                struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_EVENTS_PAGE), err);
    enum gq_code code = stmt != NULL ? GQ_OK : prepare_failed(err);
    if (stmt != NULL) {
        sqlite3_bind_text(stmt, 1, type, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 3, starting_after, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 4, (sqlite3_int64)limit + 1); /* one more tells has_more */
        int rc = SQLITE_DONE;
        while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
            code = append_event_row(out, stmt, err);
        if (code == GQ_OK && rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "reading events", err);
        sqlite_db_done(stmt);
    }
    sqlite_db_checkin(store, conn);
    return code;
}

/* ---- Endpoints. ---- */

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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_ENDPOINT_INSERT), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, endpoint->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, endpoint->url, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, endpoint->description ? endpoint->description : "", -1,
                      SQLITE_STATIC);
    sqlite3_bind_text(stmt, 4, endpoint->events, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 5, endpoint->secret, -1, SQLITE_STATIC);
    sqlite3_bind_int(stmt, 6, endpoint->enabled ? 1 : 0);
    sqlite3_bind_int64(stmt, 7, (sqlite3_int64)endpoint->created_at);
    sqlite3_bind_int64(stmt, 8, (sqlite3_int64)endpoint->updated_at);
    enum gq_code code = step_write(conn, stmt, "storing a webhook endpoint", err);
    return code == GQ_OK ? sqlite_audit_append(conn, write->audit, err) : code;
}

enum gq_code sqlite_endpoint_insert(struct store_backend *backend,
                                    const struct stored_endpoint *endpoint,
                                    const struct audit_line *audit, struct gq_error *err)
{
    struct endpoint_write write = {endpoint, NULL, audit, NULL};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), insert_endpoint, &write, err);
}

static enum gq_code append_endpoint_row(struct endpoint_list *list, sqlite3_stmt *stmt,
                                        struct gq_error *err)
{
    struct stored_endpoint *items = realloc(list->items, (list->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading webhook endpoints");
    list->items = items;
    struct stored_endpoint *endpoint = &items[list->count++];
    memset(endpoint, 0, sizeof *endpoint);
    snprintf(endpoint->id, sizeof endpoint->id, "%s", text_of(stmt, ENDPOINT_COL_ID));
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
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_ENDPOINTS), err);
    enum gq_code code = stmt != NULL ? GQ_OK : prepare_failed(err);
    if (stmt != NULL) {
        sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
        int rc = SQLITE_DONE;
        while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
            code = append_endpoint_row(out, stmt, err);
        if (code == GQ_OK && rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "reading webhook endpoints", err);
        sqlite_db_done(stmt);
    }
    sqlite_db_checkin(store, conn);
    return code;
}

static enum gq_code append_secret_row(struct endpoint_list *list, sqlite3_stmt *stmt,
                                      struct gq_error *err)
{
    struct stored_endpoint *items = realloc(list->items, (list->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading webhook secrets");
    list->items = items;
    struct stored_endpoint *endpoint = &items[list->count++];
    memset(endpoint, 0, sizeof *endpoint);
    snprintf(endpoint->id, sizeof endpoint->id, "%s", text_of(stmt, 0));
    return sqlite_db_column_strdup(stmt, 1, &endpoint->secret)
               ? GQ_OK
               : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading webhook secrets");
}

enum gq_code sqlite_endpoint_secrets_read(struct store_backend *backend, struct endpoint_list *out,
                                          struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_ENDPOINT_SECRETS), err);
    enum gq_code code = stmt != NULL ? GQ_OK : prepare_failed(err);
    if (stmt != NULL) {
        int rc = SQLITE_DONE;
        while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
            code = append_secret_row(out, stmt, err);
        if (code == GQ_OK && rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "reading webhook secrets", err);
        sqlite_db_done(stmt);
    }
    sqlite_db_checkin(store, conn);
    return code;
}

struct secret_replace {
    const char *id, *stored, *sealed;
    bool *found;
};

static enum gq_code replace_secret(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct secret_replace *replace = context;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_ENDPOINT_SECRET_REPLACE), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, replace->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, replace->stored, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, replace->sealed, -1, SQLITE_STATIC);
    enum gq_code code = step_write(conn, stmt, "sealing a webhook secret", err);
    if (code == GQ_OK)
        *replace->found = sqlite3_changes(conn->db) == 1;
    return code;
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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_ENDPOINT_UPDATE), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, endpoint->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, endpoint->events, -1, SQLITE_STATIC);
    sqlite3_bind_int(stmt, 3, endpoint->enabled ? 1 : 0);
    sqlite3_bind_int64(stmt, 4, (sqlite3_int64)endpoint->updated_at);
    enum gq_code code = step_write(conn, stmt, "changing a webhook endpoint", err);
    if (code != GQ_OK)
        return code;
    *write->found = sqlite3_changes(conn->db) == 1;
    return *write->found ? sqlite_audit_append(conn, write->audit, err) : GQ_OK;
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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_ENDPOINT_DELETE), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, write->id, -1, SQLITE_STATIC);
    enum gq_code code = step_write(conn, stmt, "deleting a webhook endpoint", err);
    if (code != GQ_OK)
        return code;
    *write->found = sqlite3_changes(conn->db) == 1;
    return *write->found ? sqlite_audit_append(conn, write->audit, err) : GQ_OK;
}

enum gq_code sqlite_endpoint_delete(struct store_backend *backend, const char *id,
                                    const struct audit_line *audit, bool *found,
                                    struct gq_error *err)
{
    struct endpoint_write write = {NULL, id, audit, found};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), delete_endpoint, &write, err);
}

/* ---- Deliveries, as the admin API reads them. ---- */

static enum gq_code read_attempts(struct sqlite_conn *conn, struct stored_delivery *delivery,
                                  struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_ATTEMPTS), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, delivery->id, -1, SQLITE_STATIC);
    enum gq_code code = GQ_OK;
    int rc = SQLITE_DONE;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        struct stored_attempt *tries =
            realloc(delivery->tries, (delivery->n_tries + 1) * sizeof *tries);
        if (tries == NULL) {
            code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading deliveries");
            break;
        }
        delivery->tries = tries;
        struct stored_attempt *attempt = &tries[delivery->n_tries++];
        memset(attempt, 0, sizeof *attempt);
        attempt->attempt = sqlite3_column_int(stmt, ATTEMPT_COL_ATTEMPT);
        attempt->at_ms = sqlite3_column_int64(stmt, ATTEMPT_COL_AT);
        attempt->status_code = sqlite3_column_int(stmt, ATTEMPT_COL_STATUS_CODE);
        if (!sqlite_db_column_strdup(stmt, ATTEMPT_COL_ERROR, &attempt->error))
            code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading deliveries");
        attempt->duration_ms = sqlite3_column_int64(stmt, ATTEMPT_COL_DURATION_MS);
    }
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading deliveries", err);
    sqlite_db_done(stmt);
    return code;
}

static enum gq_code append_delivery_row(struct delivery_page *page, sqlite3_stmt *stmt,
                                        struct gq_error *err)
{
    struct stored_delivery *items = realloc(page->items, (page->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading deliveries");
    page->items = items;
    struct stored_delivery *delivery = &items[page->count++];
    memset(delivery, 0, sizeof *delivery);
    snprintf(delivery->id, sizeof delivery->id, "%s", text_of(stmt, DELIVERY_COL_ID));
    snprintf(delivery->endpoint_id, sizeof delivery->endpoint_id, "%s",
             text_of(stmt, DELIVERY_COL_ENDPOINT_ID));
    snprintf(delivery->event_id, sizeof delivery->event_id, "%s",
             text_of(stmt, DELIVERY_COL_EVENT_ID));
    snprintf(delivery->status, sizeof delivery->status, "%s", text_of(stmt, DELIVERY_COL_STATUS));
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
    enum gq_code code = sqlite_db_begin_read(conn, err);
    sqlite3_stmt *stmt =
        code == GQ_OK ? sqlite_db_cached(conn, sqlite_sql(STORE_SQL_DELIVERIES_PAGE), err) : NULL;
    if (code == GQ_OK && stmt == NULL)
        code = prepare_failed(err);
    if (stmt != NULL) {
        sqlite3_bind_text(stmt, 1, endpoint_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, starting_after, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 3, (sqlite3_int64)limit + 1);
        int rc = SQLITE_DONE;
        while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
            code = append_delivery_row(out, stmt, err);
        if (code == GQ_OK && rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "reading deliveries", err);
        sqlite_db_done(stmt);
    }
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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_DELIVERY_RETRY), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, retry->endpoint_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, retry->delivery_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)retry->now_ms);
    enum gq_code code = step_write(conn, stmt, "retrying a delivery", err);
    if (code != GQ_OK)
        return code;
    *retry->found = sqlite3_changes(conn->db) == 1;
    return *retry->found ? sqlite_audit_append(conn, retry->audit, err) : GQ_OK;
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

static enum gq_code append_claim(struct claim *claim, sqlite3_stmt *stmt, struct gq_error *err)
{
    struct claimed_delivery *items = realloc(claim->items, (claim->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory claiming deliveries");
    claim->items = items;
    struct claimed_delivery *item = &items[claim->count++];
    memset(item, 0, sizeof *item);
    snprintf(item->id, sizeof item->id, "%s", text_of(stmt, CLAIMED_COL_ID));
    snprintf(item->event_id, sizeof item->event_id, "%s", text_of(stmt, CLAIMED_COL_EVENT_ID));
    item->attempts = sqlite3_column_int(stmt, CLAIMED_COL_ATTEMPTS);
    snprintf(item->endpoint_id, sizeof item->endpoint_id, "%s",
             text_of(stmt, CLAIMED_COL_ENDPOINT_ID));
    bool copied = sqlite_db_column_strdup(stmt, CLAIMED_COL_URL, &item->url) &&
                  sqlite_db_column_strdup(stmt, CLAIMED_COL_SECRET, &item->secret);
    return copied ? read_body(stmt, CLAIMED_COL_BODY, item->event_id, &item->body, err)
                  : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory claiming deliveries");
}

static enum gq_code claim_due(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct claim *claim = context;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_DELIVERIES_CLAIM), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)claim->now_ms);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)claim->max);
    enum gq_code code = GQ_OK;
    int rc = SQLITE_DONE;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        code = append_claim(claim, stmt, err);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "claiming deliveries", err);
    sqlite_db_done(stmt);
    for (size_t i = 0; code == GQ_OK && i < claim->count; i++) {
        stmt = sqlite_db_cached(conn, SQL_LEASE, err);
        if (stmt == NULL)
            return prepare_failed(err);
        sqlite3_bind_text(stmt, 1, claim->items[i].id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)(claim->now_ms + claim->lease_ms));
        code = step_write(conn, stmt, "leasing a delivery", err);
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
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_ENDPOINT_DISABLE), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, end->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)end->disable_before_ms);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)(end->attempt->at_ms / 1000));
    struct endpoint_list list = {0};
    enum gq_code code = GQ_OK;
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        code = append_endpoint_row(&list, stmt, err);
    while (rc == SQLITE_ROW)
        rc = sqlite3_step(stmt); /* RETURNING: the update is done once stepped through */
    sqlite_db_done(stmt);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "disabling a webhook endpoint", err);
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
    sqlite3_stmt *stmt = sqlite_db_cached(conn,
                                          succeeded ? sqlite_sql(STORE_SQL_ENDPOINT_SUCCEEDED)
                                                    : sqlite_sql(STORE_SQL_ENDPOINT_FAILED),
                                          err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, end->id, -1, SQLITE_STATIC);
    if (!succeeded)
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)end->attempt->at_ms);
    enum gq_code code = step_write(conn, stmt, "recording an endpoint's health", err);
    if (code == GQ_OK && !succeeded && end->disable_before_ms > 0)
        code = disable_if_failing(conn, end, disabled, err);
    return code;
}

static enum gq_code finish_delivery(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct finish *finish = context;
    const struct delivery_end *end = finish->end;
    const struct stored_attempt *attempt = end->attempt;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, SQL_ATTEMPT_INSERT, err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, end->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)attempt->at_ms);
    if (attempt->status_code > 0)
        sqlite3_bind_int(stmt, 3, attempt->status_code);
    sqlite3_bind_text(stmt, 4, attempt->error, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 5, (sqlite3_int64)attempt->duration_ms);
    enum gq_code code = step_write(conn, stmt, "recording a delivery", err);
    if (code != GQ_OK)
        return code;
    stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_DELIVERY_FINISH), err);
    if (stmt == NULL)
        return prepare_failed(err);
    sqlite3_bind_text(stmt, 1, end->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, end->status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)end->next_attempt_at);
    sqlite3_bind_int64(stmt, 4, (sqlite3_int64)attempt->at_ms);
    code = step_write(conn, stmt, "recording a delivery", err);
    return code == GQ_OK ? track_endpoint(conn, end, finish->disabled, err) : code;
}

enum gq_code sqlite_delivery_finish(struct store_backend *backend, const struct delivery_end *end,
                                    bool *disabled, struct gq_error *err)
{
    struct finish finish = {end, disabled};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), finish_delivery, &finish, err);
}
