/*
 * The PostgreSQL backend's events and webhooks: an event appended inside
 * the caller's transaction with its deliveries in one statement
 * (pg_event_append), the events read a page at a time, webhook endpoints
 * kept with their audit lines, and deliveries claimed and finished by the
 * sender. A claim is one statement that locks the due rows FOR UPDATE SKIP
 * LOCKED and leases them: two replicas claiming at once take different
 * deliveries. Not hot paths: statements go with PQexecParams, text in and
 * out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"
#include "store/queries.h"

/* ---- Events. ---- */

/* An event's body from the columns body, body_lz4 and body_size starting
 * at `column` of a text-format result: text for events written before
 * migration 0011, else the block (bytea, printed in hex) unescaped. */
static enum gq_code read_body(const PGresult *result, int row, int column, const char *id,
                              char **out, struct gq_error *err)
{
    struct stored_response stored = {0};
    unsigned char *block = NULL;
    if (PQgetisnull(result, row, column + 1)) {
        stored.text = PQgetisnull(result, row, column) ? NULL : PQgetvalue(result, row, column);
    } else {
        size_t length = 0;
        block =
            PQunescapeBytea((const unsigned char *)PQgetvalue(result, row, column + 1), &length);
        if (block == NULL)
            return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading events");
        stored.block = length > 0 ? (const char *)block : "";
        stored.block_size = length;
        stored.size = pg_integer_at(result, row, column + 2);
    }
    enum gq_code code = store_unpack_stored("event", id, &stored, out, err);
    PQfreemem(block);
    return code;
}

enum gq_code pg_event_append(struct pg_conn *conn, const struct store_event *event,
                             struct gq_error *err)
{
    char at[PG_NUMBER_SIZE], ms[PG_NUMBER_SIZE], size[PG_NUMBER_SIZE];
    const char *const values[] = {event->id,
                                  event->type,
                                  pg_number_text(event->created_at, at),
                                  event->packed.block,
                                  pg_number_text(event->created_ms, ms),
                                  pg_number_text(event->packed.size, size),
                                  event->customer_id[0] != '\0' ? event->customer_id : NULL};
    /* The body's block goes as its bytes (binary), the rest as text. */
    const int lengths[] = {0, 0, 0, (int)event->packed.block_size, 0, 0, 0};
    const int formats[] = {0, 0, 0, 1, 0, 0, 0};
    const struct pg_call call = {STORE_SQL_EVENT_APPEND, 7, values, lengths, formats,
                                 "writing an event"};
    return pg_change(conn, &call, NULL, err);
}

static enum gq_code append_on(struct pg_conn *conn, void *context, struct gq_error *err)
{
    return pg_event_append(conn, context, err);
}

enum gq_code pg_append_event(struct store_backend *backend, const struct store_event *event,
                             struct gq_error *err)
{
    return pg_run_write(backend, append_on, (void *)event, err);
}

struct events_query {
    const char *type, *customer_id, *id, *starting_after;
    size_t limit;
    struct event_page *out;
};

static enum gq_code read_event(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct store_event *event = item;
    snprintf(event->id, sizeof event->id, "%s", PQgetvalue(result, row, EVENT_COL_ID));
    snprintf(event->type, sizeof event->type, "%s", PQgetvalue(result, row, EVENT_COL_TYPE));
    event->created_at = pg_integer_at(result, row, EVENT_COL_CREATED_AT);
    snprintf(event->customer_id, sizeof event->customer_id, "%s",
             PQgetvalue(result, row, EVENT_COL_CUSTOMER_ID));
    return read_body(result, row, EVENT_COL_BODY, event->id, &event->body, err);
}

static enum gq_code read_events(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct events_query *query = context;
    char limit[PG_NUMBER_SIZE]; /* one more tells has_more */
    const char *const values[] = {query->type, query->id, query->starting_after,
                                  pg_number_text((int64_t)query->limit + 1, limit),
                                  query->customer_id};
    const struct pg_call call = {STORE_SQL_EVENTS_PAGE, 5, values, NULL, NULL, "reading events"};
    enum gq_code code;
    PG_READ_PAGE(conn, &call, read_event, query->out, store_event_page_free, code, err);
    return code;
}

enum gq_code pg_events_read(struct store_backend *backend, const char *type,
                            const char *customer_id, const char *id, const char *starting_after,
                            size_t limit, struct event_page *out, struct gq_error *err)
{
    struct events_query query = {type, customer_id, id, starting_after, limit, out};
    return pg_run(pg_store_of(backend), read_events, &query, err);
}

/* ---- Endpoints. ---- */

struct endpoint_write {
    const struct stored_endpoint *endpoint;
    const char *id;
    const struct audit_line *audit;
    bool *found;
};

static enum gq_code insert_endpoint(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct endpoint_write *write = context;
    const struct stored_endpoint *endpoint = write->endpoint;
    char created[PG_NUMBER_SIZE], updated[PG_NUMBER_SIZE];
    pg_number_text(endpoint->created_at, created);
    pg_number_text(endpoint->updated_at, updated);
    const char *const values[] = {
        endpoint->id,     endpoint->url,    endpoint->description ? endpoint->description : "",
        endpoint->events, endpoint->secret, endpoint->enabled ? "true" : "false",
        created,          updated};
    enum gq_code code = pg_update(conn, STORE_SQL_ENDPOINT_INSERT, 8, values, NULL,
                                  "storing a webhook endpoint", err);
    return code == GQ_OK ? pg_audit_append(conn, write->audit, err) : code;
}

enum gq_code pg_endpoint_insert(struct store_backend *backend,
                                const struct stored_endpoint *endpoint,
                                const struct audit_line *audit, struct gq_error *err)
{
    struct endpoint_write write = {endpoint, NULL, audit, NULL};
    return pg_run_write(backend, insert_endpoint, &write, err);
}

struct endpoints_query {
    const char *id;
    struct endpoint_list *out;
};

static enum gq_code read_endpoint(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct stored_endpoint *endpoint = item;
    snprintf(endpoint->id, sizeof endpoint->id, "%s", PQgetvalue(result, row, ENDPOINT_COL_ID));
    endpoint->url = strdup(PQgetvalue(result, row, ENDPOINT_COL_URL));
    endpoint->description = strdup(PQgetvalue(result, row, ENDPOINT_COL_DESCRIPTION));
    endpoint->events = strdup(PQgetvalue(result, row, ENDPOINT_COL_EVENTS));
    endpoint->enabled = strcmp(PQgetvalue(result, row, ENDPOINT_COL_ENABLED), "t") == 0;
    endpoint->created_at = pg_integer_at(result, row, ENDPOINT_COL_CREATED_AT);
    endpoint->updated_at = pg_integer_at(result, row, ENDPOINT_COL_UPDATED_AT);
    if (endpoint->url == NULL || endpoint->description == NULL || endpoint->events == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    return GQ_OK;
}

static enum gq_code read_secret(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct stored_endpoint *endpoint = item;
    snprintf(endpoint->id, sizeof endpoint->id, "%s", PQgetvalue(result, row, 0));
    endpoint->secret = strdup(PQgetvalue(result, row, 1));
    return endpoint->secret != NULL ? GQ_OK : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
}

/* The endpoints `call` selects, read with `read`, into `list`. */
static enum gq_code read_endpoint_list(struct pg_conn *conn, const struct pg_call *call,
                                       pg_row_reader read, struct endpoint_list *list,
                                       struct gq_error *err)
{
    enum gq_code code;
    PG_READ_PAGE(conn, call, read, list, store_endpoint_list_free, code, err);
    return code;
}

static enum gq_code read_endpoints(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct endpoints_query *query = context;
    const char *const values[] = {query->id};
    const struct pg_call call = {STORE_SQL_ENDPOINTS,        1, values, NULL, NULL,
                                 "reading webhook endpoints"};
    return read_endpoint_list(conn, &call, read_endpoint, query->out, err);
}

enum gq_code pg_endpoints_read(struct store_backend *backend, const char *id,
                               struct endpoint_list *out, struct gq_error *err)
{
    struct endpoints_query query = {id, out};
    return pg_run(pg_store_of(backend), read_endpoints, &query, err);
}

static enum gq_code read_secrets(struct pg_conn *conn, void *context, struct gq_error *err)
{
    const struct pg_call call = {STORE_SQL_ENDPOINT_SECRETS, 0, NULL, NULL, NULL,
                                 "reading webhook secrets"};
    return read_endpoint_list(conn, &call, read_secret, context, err);
}

enum gq_code pg_endpoint_secrets_read(struct store_backend *backend, struct endpoint_list *out,
                                      struct gq_error *err)
{
    return pg_run(pg_store_of(backend), read_secrets, out, err);
}

struct secret_replace {
    const char *id, *stored, *sealed;
    bool *found;
};

static enum gq_code replace_secret(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct secret_replace *replace = context;
    const char *const values[] = {replace->id, replace->stored, replace->sealed};
    return pg_update(conn, STORE_SQL_ENDPOINT_SECRET_REPLACE, 3, values, replace->found,
                     "sealing a webhook secret", err);
}

enum gq_code pg_endpoint_secret_replace(struct store_backend *backend, const char *id,
                                        const char *stored, const char *sealed, bool *found,
                                        struct gq_error *err)
{
    struct secret_replace replace = {id, stored, sealed, found};
    return pg_run(pg_store_of(backend), replace_secret, &replace, err);
}

static enum gq_code update_endpoint(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct endpoint_write *write = context;
    const struct stored_endpoint *endpoint = write->endpoint;
    char updated[PG_NUMBER_SIZE];
    pg_number_text(endpoint->updated_at, updated);
    const char *const values[] = {endpoint->id, endpoint->events,
                                  endpoint->enabled ? "true" : "false", updated};
    enum gq_code code = pg_update(conn, STORE_SQL_ENDPOINT_UPDATE, 4, values, write->found,
                                  "changing a webhook endpoint", err);
    return code == GQ_OK && *write->found ? pg_audit_append(conn, write->audit, err) : code;
}

enum gq_code pg_endpoint_update(struct store_backend *backend,
                                const struct stored_endpoint *endpoint,
                                const struct audit_line *audit, bool *found, struct gq_error *err)
{
    struct endpoint_write write = {endpoint, NULL, audit, found};
    return pg_run_write(backend, update_endpoint, &write, err);
}

static enum gq_code delete_endpoint(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct endpoint_write *write = context;
    const char *const values[] = {write->id};
    enum gq_code code = pg_update(conn, STORE_SQL_ENDPOINT_DELETE, 1, values, write->found,
                                  "deleting a webhook endpoint", err);
    return code == GQ_OK && *write->found ? pg_audit_append(conn, write->audit, err) : code;
}

enum gq_code pg_endpoint_delete(struct store_backend *backend, const char *id,
                                const struct audit_line *audit, bool *found, struct gq_error *err)
{
    struct endpoint_write write = {NULL, id, audit, found};
    return pg_run_write(backend, delete_endpoint, &write, err);
}

/* ---- Deliveries, as the admin API reads them. ---- */

struct deliveries_query {
    const char *endpoint_id, *starting_after;
    size_t limit;
    struct delivery_page *out;
};

static enum gq_code read_attempt(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct stored_attempt *attempt = item;
    attempt->attempt = (int)pg_integer_at(result, row, ATTEMPT_COL_ATTEMPT);
    attempt->at_ms = pg_integer_at(result, row, ATTEMPT_COL_AT);
    attempt->status_code = (int)pg_integer_at(result, row, ATTEMPT_COL_STATUS_CODE);
    attempt->error = pg_copy_or_null(result, row, ATTEMPT_COL_ERROR);
    attempt->duration_ms = pg_integer_at(result, row, ATTEMPT_COL_DURATION_MS);
    if (attempt->error == NULL && !PQgetisnull(result, row, ATTEMPT_COL_ERROR))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    return GQ_OK;
}

static enum gq_code read_attempts(struct pg_conn *conn, struct stored_delivery *delivery,
                                  struct gq_error *err)
{
    const char *const values[] = {delivery->id};
    const struct pg_call call = {STORE_SQL_ATTEMPTS, 1, values, NULL, NULL, "reading deliveries"};
    struct pg_rows rows;
    enum gq_code code =
        pg_read_rows(conn, &call, sizeof *delivery->tries, read_attempt, &rows, err);
    delivery->tries = rows.items;
    delivery->n_tries = rows.count;
    return code;
}

static enum gq_code read_delivery(const PGresult *result, int row, void *item, struct gq_error *err)
{
    (void)err;
    struct stored_delivery *delivery = item;
    snprintf(delivery->id, sizeof delivery->id, "%s", PQgetvalue(result, row, DELIVERY_COL_ID));
    snprintf(delivery->endpoint_id, sizeof delivery->endpoint_id, "%s",
             PQgetvalue(result, row, DELIVERY_COL_ENDPOINT_ID));
    snprintf(delivery->event_id, sizeof delivery->event_id, "%s",
             PQgetvalue(result, row, DELIVERY_COL_EVENT_ID));
    snprintf(delivery->status, sizeof delivery->status, "%s",
             PQgetvalue(result, row, DELIVERY_COL_STATUS));
    delivery->attempts = (int)pg_integer_at(result, row, DELIVERY_COL_ATTEMPTS);
    delivery->next_attempt_at = pg_integer_at(result, row, DELIVERY_COL_NEXT_ATTEMPT_AT);
    delivery->created_at = pg_integer_at(result, row, DELIVERY_COL_CREATED_AT);
    return GQ_OK;
}

static enum gq_code read_deliveries(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct deliveries_query *query = context;
    char limit[PG_NUMBER_SIZE];
    const char *const values[] = {query->endpoint_id, query->starting_after,
                                  pg_number_text((int64_t)query->limit + 1, limit)};
    const struct pg_call call = {STORE_SQL_DELIVERIES_PAGE, 3, values, NULL, NULL,
                                 "reading deliveries"};
    struct delivery_page *page = query->out;
    enum gq_code code;
    PG_READ_PAGE(conn, &call, read_delivery, page, store_delivery_page_free, code, err);
    for (size_t i = 0; code == GQ_OK && i < page->count && i < query->limit; i++)
        code = read_attempts(conn, &page->items[i], err);
    return code;
}

enum gq_code pg_deliveries_read(struct store_backend *backend, const char *endpoint_id,
                                const char *starting_after, size_t limit, struct delivery_page *out,
                                struct gq_error *err)
{
    struct deliveries_query query = {endpoint_id, starting_after, limit, out};
    return pg_run(pg_store_of(backend), read_deliveries, &query, err);
}

struct delivery_retry {
    const char *endpoint_id, *delivery_id;
    int64_t now_ms;
    const struct audit_line *audit;
    bool *found;
};

static enum gq_code retry_delivery(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct delivery_retry *retry = context;
    char now[PG_NUMBER_SIZE];
    pg_number_text(retry->now_ms, now);
    const char *const values[] = {retry->endpoint_id, retry->delivery_id, now};
    enum gq_code code = pg_update(conn, STORE_SQL_DELIVERY_RETRY, 3, values, retry->found,
                                  "retrying a delivery", err);
    return code == GQ_OK && *retry->found ? pg_audit_append(conn, retry->audit, err) : code;
}

enum gq_code pg_delivery_retry(struct store_backend *backend, const char *endpoint_id,
                               const char *delivery_id, int64_t now_ms,
                               const struct audit_line *audit, bool *found, struct gq_error *err)
{
    struct delivery_retry retry = {endpoint_id, delivery_id, now_ms, audit, found};
    return pg_run_write(backend, retry_delivery, &retry, err);
}

/* ---- The sender's claims. ---- */

struct claim {
    int64_t now_ms, lease_ms;
    size_t max;
    struct claimed_delivery *items;
    size_t count;
};

static enum gq_code read_claimed(const PGresult *result, int row, void *claimed,
                                 struct gq_error *err)
{
    struct claimed_delivery *item = claimed;
    snprintf(item->id, sizeof item->id, "%s", PQgetvalue(result, row, CLAIMED_COL_ID));
    snprintf(item->event_id, sizeof item->event_id, "%s",
             PQgetvalue(result, row, CLAIMED_COL_EVENT_ID));
    item->attempts = (int)pg_integer_at(result, row, CLAIMED_COL_ATTEMPTS);
    snprintf(item->endpoint_id, sizeof item->endpoint_id, "%s",
             PQgetvalue(result, row, CLAIMED_COL_ENDPOINT_ID));
    item->url = strdup(PQgetvalue(result, row, CLAIMED_COL_URL));
    item->secret = strdup(PQgetvalue(result, row, CLAIMED_COL_SECRET));
    if (item->url == NULL || item->secret == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    return read_body(result, row, CLAIMED_COL_BODY, item->event_id, &item->body, err);
}

static enum gq_code claim_due(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct claim *claim = context;
    char now[PG_NUMBER_SIZE], until[PG_NUMBER_SIZE], max[PG_NUMBER_SIZE];
    const char *const values[] = {pg_number_text(claim->now_ms, now),
                                  pg_number_text(claim->now_ms + claim->lease_ms, until),
                                  pg_number_text((int64_t)claim->max, max)};
    const struct pg_call call = {STORE_SQL_DELIVERIES_CLAIM, 3, values, NULL, NULL,
                                 "claiming deliveries"};
    store_claimed_free(claim->items, claim->count); /* a retried claim starts again */
    enum gq_code code;
    PG_READ_LIST(conn, &call, read_claimed, claim, code, err);
    return code;
}

enum gq_code pg_deliveries_claim(struct store_backend *backend, int64_t now_ms, int64_t lease_ms,
                                 size_t max, struct claimed_delivery **out, size_t *count,
                                 struct gq_error *err)
{
    struct claim claim = {now_ms, lease_ms, max, NULL, 0};
    enum gq_code code = pg_run(pg_store_of(backend), claim_due, &claim, err);
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
static enum gq_code disable_if_failing(struct pg_conn *conn, const struct delivery_end *end,
                                       bool *disabled, struct gq_error *err)
{
    char before[PG_NUMBER_SIZE], now[PG_NUMBER_SIZE];
    pg_number_text(end->disable_before_ms, before);
    pg_number_text(end->attempt->at_ms / 1000, now);
    const char *const values[] = {end->id, before, now};
    PGresult *result =
        pg_query(conn, STORE_SQL_ENDPOINT_DISABLE, 3, values, "disabling a webhook endpoint", err);
    if (result == NULL)
        return pg_failed(err);
    enum gq_code code = GQ_OK;
    if (PQntuples(result) == 1) {
        struct stored_endpoint endpoint = {0};
        snprintf(endpoint.id, sizeof endpoint.id, "%s", PQgetvalue(result, 0, ENDPOINT_COL_ID));
        endpoint.url = PQgetvalue(result, 0, ENDPOINT_COL_URL); /* borrowed until PQclear */
        endpoint.description = PQgetvalue(result, 0, ENDPOINT_COL_DESCRIPTION);
        endpoint.events = PQgetvalue(result, 0, ENDPOINT_COL_EVENTS);
        endpoint.created_at = pg_integer_at(result, 0, ENDPOINT_COL_CREATED_AT);
        endpoint.updated_at = pg_integer_at(result, 0, ENDPOINT_COL_UPDATED_AT);
        struct store_event event;
        code = store_event_endpoint_disabled(&endpoint, &event, err);
        if (code == GQ_OK)
            code = pg_event_append(conn, &event, err);
        store_event_clear(&event);
        *disabled = code == GQ_OK;
    }
    PQclear(result);
    return code;
}

static enum gq_code finish_delivery(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct finish *finish = context;
    const struct delivery_end *end = finish->end;
    const struct stored_attempt *attempt = end->attempt;
    char at[PG_NUMBER_SIZE], code_text[PG_NUMBER_SIZE], duration[PG_NUMBER_SIZE],
        next[PG_NUMBER_SIZE];
    pg_number_text(attempt->at_ms, at);
    pg_number_text(attempt->status_code, code_text);
    pg_number_text(attempt->duration_ms, duration);
    pg_number_text(end->next_attempt_at, next);
    const char *const values[] = {
        end->id,     at,  attempt->status_code > 0 ? code_text : NULL, attempt->error, duration,
        end->status, next};
    enum gq_code code =
        pg_update(conn, STORE_SQL_DELIVERY_FINISH, 7, values, NULL, "recording a delivery", err);
    bool succeeded = strcmp(end->status, "succeeded") == 0;
    const char *const health[] = {end->id, at};
    if (code == GQ_OK)
        code = pg_update(conn, succeeded ? STORE_SQL_ENDPOINT_SUCCEEDED : STORE_SQL_ENDPOINT_FAILED,
                         succeeded ? 1 : 2, health, NULL, "recording an endpoint's health", err);
    if (code == GQ_OK && !succeeded && end->disable_before_ms > 0)
        code = disable_if_failing(conn, end, finish->disabled, err);
    return code;
}

enum gq_code pg_delivery_finish(struct store_backend *backend, const struct delivery_end *end,
                                bool *disabled, struct gq_error *err)
{
    struct finish finish = {end, disabled};
    return pg_run_write(backend, finish_delivery, &finish, err);
}
