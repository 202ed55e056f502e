/*
 * The SQLite backend's quotes: a batch inserted (with idempotency) in one
 * write transaction, a quote read by id, and one accepted.
 *
 * Every write happens inside a BEGIN IMMEDIATE transaction: the
 * idempotency-key lookup and the insert happen under the write lock, so two
 * requests with the same key, in this process or another, store one quote
 * and the second sees the first. Accepting reads and updates the row under
 * the same lock, so an open quote is accepted once. The statements are
 * cached per connection (this is the hot path of POST /quote) and every
 * text is bound, never spliced into SQL.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/db.h"

static const char SQL_UNDO_QUOTE[] = "DELETE FROM quotes WHERE id = ?1";
static const char SQL_UNDO_EVENT[] = "DELETE FROM events WHERE id = ?1";
static const char SQL_UNDO_DELIVERIES[] = "DELETE FROM webhook_deliveries WHERE event_id = ?1";
static const char SQL_QUOTES_DUE[] = "SELECT id FROM quotes WHERE status = 'open'"
                                     " AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2";
/* Whether retention has anything to delete, read before its write lock. */
static const char SQL_QUOTES_ANY_ENDED[] = QUOTES_ENDED_IDS " LIMIT (?3 > 0)";

/* ---- Rows. ---- */

/* The current row's response, in whichever form it was stored. */
static enum gq_code read_response(sqlite3_stmt *stmt, const char *id, char **out,
                                  struct gq_error *err)
{
    struct stored_response stored =
        sqlite_db_column_stored(stmt, QUOTE_COL_RESPONSE_JSON, QUOTE_COL_RESPONSE_LZ4,
                                QUOTE_COL_RESPONSE_SIZE); /* text: before 0004 */
    return store_unpack_stored("quote", id, &stored, out, err);
}

/* Fills *out from the current row of a STORE_SQL_QUOTE_COLUMNS query. */
static enum gq_code read_quote(sqlite3_stmt *stmt, struct stored_quote *out, struct gq_error *err)
{
    struct stored_quote quote;
    memset(&quote, 0, sizeof quote);
    const unsigned char *id = sqlite3_column_text(stmt, QUOTE_COL_ID);
    snprintf(quote.id, sizeof quote.id, "%s", id != NULL ? (const char *)id : "");
    const unsigned char *status = sqlite3_column_text(stmt, QUOTE_COL_STATUS);
    quote.accepted = status != NULL && strcmp((const char *)status, "accepted") == 0;
    bool copied =
        sqlite_db_column_strdup(stmt, QUOTE_COL_REQUEST_JSON, &quote.request_json) &&
        sqlite_db_column_strdup(stmt, QUOTE_COL_IDEMPOTENCY_KEY, &quote.idempotency_key) &&
        sqlite_db_column_strdup(stmt, QUOTE_COL_CANCEL_REASON, &quote.cancel_reason) &&
        sqlite_db_column_strdup(stmt, QUOTE_COL_ACCEPTANCE, &quote.acceptance);
    if (!copied) {
        stored_quote_clear(&quote);
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading a quote");
    }
    enum gq_code code = read_response(stmt, quote.id, &quote.response_json, err);
    if (code != GQ_OK) {
        stored_quote_clear(&quote);
        return code;
    }
    quote.price_list_version = sqlite3_column_int64(stmt, QUOTE_COL_PRICE_LIST_VERSION);
    quote.created_at = sqlite3_column_int64(stmt, QUOTE_COL_CREATED_AT);
    quote.expires_at = sqlite3_column_int64(stmt, QUOTE_COL_EXPIRES_AT);
    quote.accepted_at = sqlite3_column_int64(stmt, QUOTE_COL_ACCEPTED_AT);
    quote.canceled_at = sqlite3_column_int64(stmt, QUOTE_COL_CANCELED_AT);
    quote.expired_at = sqlite3_column_int64(stmt, QUOTE_COL_EXPIRED_AT);
    snprintf(quote.customer_id, sizeof quote.customer_id, "%s",
             sqlite_db_text(stmt, QUOTE_COL_CUSTOMER_ID));
    *out = quote;
    return GQ_OK;
}

/* Runs a STORE_SQL_QUOTE_COLUMNS query of one parameter, or two when
 * `owner` (the key's) is not NULL. *found tells whether a row came back;
 * *out is written only then. */
static enum gq_code select_owned(struct sqlite_conn *conn, const char *sql, const char *key,
                                 const char *owner, struct stored_quote *out, bool *found,
                                 struct gq_error *err)
{
    *found = false;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
    if (owner != NULL)
        sqlite3_bind_text(stmt, 2, owner, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    enum gq_code code = GQ_OK;
    if (rc == SQLITE_ROW) {
        code = read_quote(stmt, out, err);
        *found = code == GQ_OK;
    } else if (rc != SQLITE_DONE) {
        code = sqlite_db_fail(conn, rc, "reading a quote", err);
    }
    sqlite_db_done(stmt);
    return code;
}

static enum gq_code select_quote(struct sqlite_conn *conn, const char *sql, const char *id,
                                 struct stored_quote *out, bool *found, struct gq_error *err)
{
    return select_owned(conn, sql, id, NULL, out, found, err);
}

static void bind_optional_int64(sqlite3_stmt *stmt, int index, bool present, int64_t value)
{
    if (present)
        sqlite3_bind_int64(stmt, index, (sqlite3_int64)value);
    else
        sqlite3_bind_null(stmt, index);
}

static enum gq_code insert_row(struct sqlite_conn *conn, const struct quote_save *save,
                               struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_QUOTE_INSERT), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    const struct stored_quote *quote = &save->quote;
    sqlite3_bind_text(stmt, 1, quote->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, quote->accepted ? "accepted" : "open", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, quote->request_json, -1, SQLITE_STATIC);
    sqlite3_bind_blob(stmt, 4, save->packed.block, (int)save->packed.block_size, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 5, (sqlite3_int64)save->packed.size);
    sqlite3_bind_text(stmt, 6, quote->idempotency_key, -1, SQLITE_STATIC); /* NULL binds NULL */
    sqlite3_bind_int64(stmt, 7, (sqlite3_int64)quote->price_list_version);
    sqlite3_bind_int64(stmt, 8, (sqlite3_int64)quote->created_at);
    sqlite3_bind_int64(stmt, 9, (sqlite3_int64)quote->expires_at);
    bind_optional_int64(stmt, 10, quote->accepted, quote->accepted_at);
    sqlite3_bind_text(stmt, 11, save->owner, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 12, save->customer_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 13, save->created_by[0] ? save->created_by : NULL, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt); /* unbinds the block before the batcher frees it */
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, "storing a quote", err);
    return GQ_OK;
}

/* ---- Insert. ---- */

/* A quote whose event could not be written is taken out again, with what
 * was written of its event, so that neither stays without the other (a
 * failed statement undoes only itself). */
static void undo_save(struct sqlite_conn *conn, const struct quote_save *save)
{
    static const char *const undo[] = {SQL_UNDO_DELIVERIES, SQL_UNDO_EVENT, SQL_UNDO_QUOTE};
    const char *const keys[] = {save->event->id, save->event->id, save->quote.id};
    for (size_t i = 0; i < 3; i++) {
        struct gq_error ignored;
        sqlite3_stmt *stmt = sqlite_db_cached(conn, undo[i], &ignored);
        if (stmt == NULL)
            continue;
        sqlite3_bind_text(stmt, 1, keys[i], -1, SQLITE_STATIC);
        sqlite3_step(stmt);
        sqlite_db_done(stmt);
    }
}

/* Inside the write transaction: replay the quote stored under the key, or
 * insert this one. A failed statement undoes only itself: SQLite keeps the
 * transaction. */
static void save_locked(struct sqlite_conn *conn, struct quote_save *save)
{
    save->replayed = false;
    const char *key = save->quote.idempotency_key;
    if (key != NULL) {
        save->code = select_owned(conn, sqlite_sql(STORE_SQL_QUOTE_BY_KEY), key, save->owner,
                                  &save->existing, &save->replayed, &save->err);
        if (save->code != GQ_OK || save->replayed)
            return;
    }
    save->code = insert_row(conn, save, &save->err);
    if (save->code != GQ_OK || save->event == NULL)
        return;
    save->code = sqlite_event_append(conn, save->event, &save->err);
    if (save->code != GQ_OK)
        undo_save(conn, save);
    else
        save->deliveries_due = sqlite3_changes(conn->db) > 0; /* the append's fan-out */
}

/* Fails every save of the batch that had not failed on its own. */
static void fail_all(struct quote_save *batch, enum gq_code code, const struct gq_error *err)
{
    for (struct quote_save *save = batch; save != NULL; save = save->next) {
        if (save->code != GQ_OK)
            continue;
        if (save->replayed)
            stored_quote_clear(&save->existing);
        save->replayed = false;
        save->code = code;
        save->err = *err;
    }
}

enum gq_code sqlite_save_quotes(struct store_backend *backend, struct quote_save *batch)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    struct gq_error err;
    enum gq_code code = sqlite_db_begin_write(conn, &err);
    if (code != GQ_OK) {
        fail_all(batch, code, &err); /* nothing was tried */
        sqlite_db_checkin(store, conn);
        return code == GQ_ERR_RETRY_LATER ? code : GQ_OK;
    }
    /* An I/O error, a full disk or running out of memory may roll the
     * whole transaction back, taking the quotes written before along; the
     * connection is then in autocommit mode, where each further insert
     * would commit on its own. So it is checked after every quote, and the
     * batch stops at the first rollback. */
    bool rolled_back = false;
    for (struct quote_save *save = batch; save != NULL && !rolled_back; save = save->next) {
        save_locked(conn, save);
        rolled_back = sqlite3_get_autocommit(conn->db) != 0;
    }
    if (rolled_back) {
        gq_fail(&err, GQ_ERR_INTERNAL, NULL, "storing quotes: the transaction was rolled back");
        fail_all(batch, GQ_ERR_INTERNAL, &err);
    } else if ((code = sqlite_db_commit(conn, &err)) != GQ_OK) {
        fail_all(batch, code, &err);
    }
    sqlite_db_checkin(store, conn);
    return GQ_OK;
}

/* ---- Get. ---- */

enum gq_code sqlite_get_quote(struct store_backend *backend, const char *id,
                              struct stored_quote *out, bool *found, struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    enum gq_code code = select_quote(conn, sqlite_sql(STORE_SQL_QUOTE_BY_ID), id, out, found, err);
    sqlite_db_checkin(store, conn);
    return code;
}

/* ---- A page of quotes. ---- */

static void bind_optional_bound(sqlite3_stmt *stmt, int index, int64_t value)
{
    bind_optional_int64(stmt, index, value != 0, value);
}

enum gq_code sqlite_list_quotes(struct store_backend *backend, const struct quote_filter *filter,
                                int64_t after_created, const char *after_id, struct quote_page *out,
                                struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    out->items = calloc(filter->limit + 1, sizeof *out->items);
    if (out->items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory listing quotes");
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sqlite_sql(STORE_SQL_QUOTES_LIST), err);
    enum gq_code code = stmt != NULL ? GQ_OK : (err != NULL ? err->code : GQ_ERR_INTERNAL);
    if (code == GQ_OK) {
        sqlite3_bind_text(stmt, 1, filter->client_reference_id, -1, SQLITE_STATIC);
        bind_optional_bound(stmt, 2, filter->created_gte);
        bind_optional_bound(stmt, 3, filter->created_lt);
        sqlite3_bind_text(stmt, 4, filter->status, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 5, (sqlite3_int64)filter->now);
        sqlite3_bind_int64(stmt, 6, (sqlite3_int64)after_created);
        sqlite3_bind_text(stmt, 7, after_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 8, (sqlite3_int64)(filter->limit + 1));
        sqlite3_bind_text(stmt, 9, filter->owner, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 10, filter->customer_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 11, filter->created_by, -1, SQLITE_STATIC);
        int rc = SQLITE_DONE;
        while (code == GQ_OK && out->count <= filter->limit &&
               (rc = sqlite3_step(stmt)) == SQLITE_ROW)
            if ((code = read_quote(stmt, &out->items[out->count], err)) == GQ_OK)
                out->count++;
        if (code == GQ_OK && out->count <= filter->limit && rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "listing quotes", err);
        sqlite_db_done(stmt);
    }
    sqlite_db_checkin(store, conn);
    return code;
}

/* ---- The newest requests. ---- */

enum gq_code sqlite_recent_requests(struct store_backend *backend, int limit, json_t **out,
                                    struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_prepare(conn, sqlite_sql(STORE_SQL_RECENT_REQUESTS), err);
    enum gq_code code = stmt != NULL ? GQ_OK : err->code;
    json_t *requests = code == GQ_OK ? json_array() : NULL;
    if (code == GQ_OK && requests == NULL)
        code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading quotes");
    int rc = SQLITE_DONE;
    if (code == GQ_OK)
        sqlite3_bind_int(stmt, 1, limit);
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        if (json_array_append_new(requests,
                                  json_string((const char *)sqlite3_column_text(stmt, 0))) != 0)
            code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading quotes");
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading the newest quotes", err);
    sqlite3_finalize(stmt);
    sqlite_db_checkin(store, conn);
    if (code != GQ_OK)
        json_decref(requests);
    else
        *out = requests;
    return code;
}

/* ---- Accept and cancel. ---- */

static const char *event_type_of(enum quote_ending ending)
{
    return ending == QUOTE_END_ACCEPT ? STORE_EVENT_QUOTE_ACCEPTED : STORE_EVENT_QUOTE_CANCELED;
}

/* The event of a quote that just changed, in the transaction. */
static enum gq_code append_quote_event(struct sqlite_conn *conn, const char *type,
                                       const struct stored_quote *quote, int64_t now,
                                       struct gq_error *err)
{
    struct store_event event;
    enum gq_code code = store_event_of_quote(type, quote, now, &event, err);
    if (code == GQ_OK)
        code = sqlite_event_append(conn, &event, err);
    store_event_clear(&event);
    return code;
}

/* Runs a two- or three-parameter update of one quote (id, time, text);
 * *changed: whether it changed a row. */
static enum gq_code update_quote(struct sqlite_conn *conn, const char *sql, const char *id,
                                 int64_t now, const char *text, bool with_text, bool *changed,
                                 const char *what, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)now);
    if (with_text)
        sqlite3_bind_text(stmt, 3, text, -1, SQLITE_STATIC); /* NULL binds NULL */
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, what, err);
    *changed = sqlite3_changes(conn->db) == 1;
    return GQ_OK;
}

/* Inside the write transaction: the conditional update, then the quote as
 * it is now, which tells why when nothing was updated. */
static enum gq_code end_locked(struct sqlite_conn *conn, const struct quote_end *end,
                               struct stored_quote *quote, enum accept_outcome *outcome,
                               struct gq_error *err)
{
    bool accept = end->ending == QUOTE_END_ACCEPT, updated = false, found;
    enum gq_code code = update_quote(
        conn, accept ? sqlite_sql(STORE_SQL_QUOTE_ACCEPT) : sqlite_sql(STORE_SQL_QUOTE_CANCEL),
        end->id, end->now, end->detail, true, &updated,
        accept ? "accepting a quote" : "canceling a quote", err);
    if (code == GQ_OK)
        code = select_quote(conn, sqlite_sql(STORE_SQL_QUOTE_BY_ID), end->id, quote, &found, err);
    if (code != GQ_OK)
        return code;
    if (updated && found) /* the outbox: in the same transaction */
        code = append_quote_event(conn, event_type_of(end->ending), quote, end->now, err);
    if (code == GQ_OK && updated && found && end->promotion_code != NULL) {
        bool redeemed = false;
        code = sqlite_promotion_code_redeem(conn, end->promotion_code, end->now, &redeemed, err);
        if (code == GQ_OK && !redeemed) { /* the caller rolls back */
            *outcome = ACCEPT_PROMOTION_EXHAUSTED;
            return GQ_OK;
        }
        if (code == GQ_OK)
            code = sqlite_event_append(conn, end->promotion_event, err);
    }
    if (code != GQ_OK) {
        stored_quote_clear(quote);
        return code;
    }
    if (updated)
        *outcome = ACCEPT_DONE;
    else if (!found)
        *outcome = ACCEPT_NOT_FOUND;
    else if (quote->accepted || quote->canceled_at > 0)
        *outcome = ACCEPT_NOT_OPEN;
    else
        *outcome = ACCEPT_EXPIRED;
    return GQ_OK;
}

enum gq_code sqlite_end_quote(struct store_backend *backend, const struct quote_end *end,
                              struct stored_quote *out, enum accept_outcome *outcome,
                              struct gq_error *err)
{
    assert(end != NULL && out != NULL && outcome != NULL);
    struct sqlite_store *store = sqlite_store_of(backend);
    struct stored_quote quote;
    memset(&quote, 0, sizeof quote);
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    enum gq_code code = sqlite_db_begin_write(conn, err);
    if (code == GQ_OK)
        code = end_locked(conn, end, &quote, outcome, err);
    if (code == GQ_OK && *outcome != ACCEPT_PROMOTION_EXHAUSTED)
        code = sqlite_db_commit(conn, err);
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    if (code != GQ_OK) {
        stored_quote_clear(&quote);
        return code;
    }
    *out = quote;
    return GQ_OK;
}

/* ---- The sweeper's work. ---- */

/* The ids of at most `limit` open quotes due at `now`, into ids[]. */
static enum gq_code due_ids(struct sqlite_conn *conn, int64_t now, int limit,
                            char (*ids)[STORE_QUOTE_ID_SIZE], int *n, struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_cached(conn, SQL_QUOTES_DUE, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)now);
    sqlite3_bind_int(stmt, 2, limit);
    int rc = SQLITE_DONE;
    *n = 0;
    while (*n < limit && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const unsigned char *id = sqlite3_column_text(stmt, 0);
        snprintf(ids[(*n)++], STORE_QUOTE_ID_SIZE, "%s", id ? (const char *)id : "");
    }
    if (*n < limit && rc != SQLITE_DONE) {
        sqlite_db_done(stmt);
        return sqlite_db_fail(conn, rc, "finding quotes due to expire", err);
    }
    sqlite_db_done(stmt);
    return GQ_OK;
}

/* Marks one quote expired and appends its quote.expired, in the
 * transaction; *marked false when it was not open any more. */
static enum gq_code expire_one(struct sqlite_conn *conn, const char *id, int64_t now, bool *marked,
                               struct gq_error *err)
{
    enum gq_code code = update_quote(conn, sqlite_sql(STORE_SQL_QUOTES_EXPIRE), id, now, NULL,
                                     false, marked, "expiring a quote", err);
    if (code != GQ_OK || !*marked)
        return code;
    struct stored_quote quote;
    bool found = false;
    code = select_quote(conn, sqlite_sql(STORE_SQL_QUOTE_BY_ID), id, &quote, &found, err);
    if (code == GQ_OK && found)
        code = append_quote_event(conn, STORE_EVENT_QUOTE_EXPIRED, &quote, now, err);
    if (found)
        stored_quote_clear(&quote);
    return code;
}

enum gq_code sqlite_expire_quotes(struct store_backend *backend, int64_t now, int limit, int *count,
                                  struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    char(*ids)[STORE_QUOTE_ID_SIZE] = calloc((size_t)limit, sizeof *ids);
    if (ids == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory expiring quotes");
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    int n = 0, marked_count = 0;
    /* Read first, so that a sweep with nothing due takes no write lock;
     * each update is conditional, so a quote another process marked
     * meanwhile is left alone. */
    enum gq_code code = due_ids(conn, now, limit, ids, &n, err);
    if (code == GQ_OK && n > 0)
        code = sqlite_db_begin_write(conn, err);
    for (int i = 0; code == GQ_OK && i < n; i++) {
        bool marked = false;
        code = expire_one(conn, ids[i], now, &marked, err);
        marked_count += marked;
    }
    if (code == GQ_OK && n > 0)
        code = sqlite_db_commit(conn, err);
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    free(ids);
    *count = code == GQ_OK ? marked_count : 0;
    return code;
}

/* One statement of `sql` with its parameters bound by `bind`, in a write
 * transaction; *changes: the rows it changed. */
struct one_write {
    const char *sql;
    void (*bind)(sqlite3_stmt *stmt, const void *values);
    const void *values;
    const char *what;
    int *changes;
};

static enum gq_code run_one_write(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    struct one_write *write = context;
    sqlite3_stmt *stmt = sqlite_db_cached(conn, write->sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    write->bind(stmt, write->values);
    int rc = sqlite3_step(stmt);
    sqlite_db_done(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, write->what, err);
    *write->changes = sqlite3_changes(conn->db);
    return GQ_OK;
}

struct delete_values {
    int64_t ended_before, accepted_before;
    int limit;
};

static void bind_delete(sqlite3_stmt *stmt, const void *values)
{
    const struct delete_values *remove = values;
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)remove->ended_before);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)remove->accepted_before);
    sqlite3_bind_int(stmt, 3, remove->limit);
}

/* Whether anything is due for deletion: read first, so that a sweep with
 * nothing to delete (nearly all of them) takes no write lock. */
static enum gq_code any_to_delete(struct sqlite_store *store, const struct delete_values *values,
                                  bool *any, struct gq_error *err)
{
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    sqlite3_stmt *stmt = sqlite_db_cached(conn, SQL_QUOTES_ANY_ENDED, err);
    enum gq_code code = stmt != NULL ? GQ_OK : (err != NULL ? err->code : GQ_ERR_INTERNAL);
    if (stmt != NULL) {
        bind_delete(stmt, values);
        int rc = sqlite3_step(stmt);
        *any = rc == SQLITE_ROW;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            code = sqlite_db_fail(conn, rc, "finding ended quotes", err);
        sqlite_db_done(stmt);
    }
    sqlite_db_checkin(store, conn);
    return code;
}

enum gq_code sqlite_delete_ended_quotes(struct store_backend *backend, int64_t ended_before,
                                        int64_t accepted_before, int limit, int *count,
                                        struct gq_error *err)
{
    struct delete_values values = {ended_before, accepted_before, limit};
    bool any = false;
    enum gq_code code = any_to_delete(sqlite_store_of(backend), &values, &any, err);
    if (code != GQ_OK || !any)
        return code;
    struct one_write write = {sqlite_sql(STORE_SQL_QUOTES_DELETE_ENDED), bind_delete, &values,
                              "deleting ended quotes", count};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), run_one_write, &write, err);
}

struct release_values {
    const char *quote_id, *key;
};

static void bind_release(sqlite3_stmt *stmt, const void *values)
{
    const struct release_values *release = values;
    sqlite3_bind_text(stmt, 1, release->quote_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, release->key, -1, SQLITE_STATIC);
}

enum gq_code sqlite_release_key(struct store_backend *backend, const char *quote_id,
                                const char *key, bool *released, struct gq_error *err)
{
    struct release_values values = {quote_id, key};
    int changes = 0;
    struct one_write write = {sqlite_sql(STORE_SQL_QUOTE_RELEASE_KEY), bind_release, &values,
                              "releasing an idempotency key", &changes};
    enum gq_code code =
        sqlite_db_in_write_transaction(sqlite_store_of(backend), run_one_write, &write, err);
    *released = code == GQ_OK && changes == 1;
    return code;
}
