/*
 * Stored quotes: insert (with idempotency), fetch by id, accept.
 *
 * Every write happens inside a BEGIN IMMEDIATE transaction: the
 * idempotency-key lookup and the insert happen under the write lock, so two
 * requests with the same key store one quote and the second sees the first.
 * Inserts are grouped, many to a transaction, by quote_batch.c. Accepting
 * reads and updates the row under the same lock, so an open quote is
 * accepted once.
 * The statements are cached per connection (this is the hot path of
 * POST /quote) and every text is bound, never spliced into SQL.
 *
 * A response is stored LZ4-compressed (migrations/0004 says why); quotes
 * stored before that migration keep their text, and both forms read back
 * the same. The compression runs on the writer thread, in insert_row().
 */
#include <assert.h>
#include <lz4.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"
#include "store/store.h"
#include "util/clock.h"

#define QUOTE_COLUMNS                                                                              \
    "id, status, request_json, response_json, idempotency_key, price_list_version,"                \
    " created_at, expires_at, accepted_at, response_lz4, response_size"

static const char SQL_QUOTE_BY_ID[] = "SELECT " QUOTE_COLUMNS " FROM quotes WHERE id = ?1";
static const char SQL_QUOTE_BY_KEY[] =
    "SELECT " QUOTE_COLUMNS " FROM quotes WHERE idempotency_key = ?1";
static const char SQL_QUOTE_INSERT[] =
    "INSERT INTO quotes (id, status, request_json, response_lz4, response_size, idempotency_key,"
    " price_list_version, created_at, expires_at, accepted_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
static const char SQL_QUOTE_ACCEPT[] =
    "UPDATE quotes SET status = 'accepted', accepted_at = ?2 WHERE id = ?1 AND status = 'open'";

/* Frees the quote's strings and zeroes it. */
void stored_quote_clear(struct stored_quote *quote)
{
    if (quote == NULL)
        return;
    free(quote->request_json);
    free(quote->response_json);
    free(quote->idempotency_key);
    memset(quote, 0, sizeof *quote);
}

/* ---- Rows. ---- */

/* The response of the current row, whichever form it was stored in, as a
 * new NUL-terminated string in *out. GQ_ERR_INTERNAL when the row is
 * damaged (a block that does not decompress to its recorded size, or holds
 * a NUL), GQ_ERR_NO_MEMORY when memory ran out. */
static enum gq_code read_response(sqlite3_stmt *stmt, const char *id, char **out,
                                  struct gq_error *err)
{
    if (sqlite3_column_type(stmt, 9) == SQLITE_NULL) { /* stored as text, before 0004 */
        if (sqlite3_column_type(stmt, 3) == SQLITE_NULL)
            return gq_fail(err, GQ_ERR_INTERNAL, NULL, "quote %s is stored damaged", id);
        if (!store_db_column_strdup(stmt, 3, out))
            return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading a quote");
        return GQ_OK;
    }
    const char *block = sqlite3_column_blob(stmt, 9);
    int block_size = sqlite3_column_bytes(stmt, 9);
    sqlite3_int64 size = sqlite3_column_int64(stmt, 10);
    /* LZ4 expands at most 255 to 1: a larger recorded size is damage, and
     * would cost an allocation of up to 2 GB before the block failed. */
    if (block == NULL || size < 1 || size > LZ4_MAX_INPUT_SIZE ||
        size > (sqlite3_int64)block_size * 255 + 16)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "quote %s is stored damaged", id);
    char *text = malloc((size_t)size + 1);
    if (text == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading a quote");
    int decompressed = LZ4_decompress_safe(block, text, block_size, (int)size);
    if (decompressed != size || memchr(text, '\0', (size_t)size) != NULL) {
        free(text);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "quote %s is stored damaged", id);
    }
    text[size] = '\0';
    *out = text;
    return GQ_OK;
}

/* Fills *out from the current row of a QUOTE_COLUMNS query. */
static enum gq_code read_quote(sqlite3_stmt *stmt, struct stored_quote *out, struct gq_error *err)
{
    struct stored_quote quote;
    memset(&quote, 0, sizeof quote);
    const unsigned char *id = sqlite3_column_text(stmt, 0);
    snprintf(quote.id, sizeof quote.id, "%s", id != NULL ? (const char *)id : "");
    const unsigned char *status = sqlite3_column_text(stmt, 1);
    quote.accepted = status != NULL && strcmp((const char *)status, "accepted") == 0;
    bool copied = store_db_column_strdup(stmt, 2, &quote.request_json) &&
                  store_db_column_strdup(stmt, 4, &quote.idempotency_key);
    if (!copied) {
        stored_quote_clear(&quote);
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading a quote");
    }
    enum gq_code code = read_response(stmt, quote.id, &quote.response_json, err);
    if (code != GQ_OK) {
        stored_quote_clear(&quote);
        return code;
    }
    quote.price_list_version = sqlite3_column_int64(stmt, 5);
    quote.created_at = sqlite3_column_int64(stmt, 6);
    quote.expires_at = sqlite3_column_int64(stmt, 7);
    quote.accepted_at = sqlite3_column_int64(stmt, 8); /* NULL reads as 0 */
    *out = quote;
    return GQ_OK;
}

/* Runs a one-parameter QUOTE_COLUMNS query. *found tells whether a row came
 * back; *out is written only then. */
static enum gq_code select_quote(struct store_conn *conn, const char *sql, const char *key,
                                 struct stored_quote *out, bool *found, struct gq_error *err)
{
    *found = false;
    sqlite3_stmt *stmt = store_db_cached(conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    enum gq_code code = GQ_OK;
    if (rc == SQLITE_ROW) {
        code = read_quote(stmt, out, err);
        *found = code == GQ_OK;
    } else if (rc != SQLITE_DONE) {
        code = store_db_fail(conn, rc, "reading a quote", err);
    }
    store_db_done(stmt);
    return code;
}

static void bind_optional_int64(sqlite3_stmt *stmt, int index, bool present, int64_t value)
{
    if (present)
        sqlite3_bind_int64(stmt, index, (sqlite3_int64)value);
    else
        sqlite3_bind_null(stmt, index);
}

/* A response as stored: its LZ4 block (malloc'd, the caller frees it) and
 * the JSON's length. */
struct packed_response {
    char *block;
    int block_size;
    int size;
};

static enum gq_code pack_response(const char *json, struct packed_response *out,
                                  struct gq_error *err)
{
    size_t length = strlen(json);
    if (length > LZ4_MAX_INPUT_SIZE) /* ~2 GB: no quote the server renders */
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "a response of %zu bytes is too large", length);
    int bound = LZ4_compressBound((int)length);
    out->block = malloc((size_t)bound);
    if (out->block == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory storing a quote");
    out->size = (int)length;
    out->block_size = LZ4_compress_default(json, out->block, out->size, bound);
    if (out->block_size <= 0) { /* cannot happen with a bound-sized block */
        free(out->block);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot compress a quote's response");
    }
    return GQ_OK;
}

static enum gq_code insert_row(struct store_conn *conn, const struct stored_quote *quote,
                               struct gq_error *err)
{
    sqlite3_stmt *stmt = store_db_cached(conn, SQL_QUOTE_INSERT, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    struct packed_response packed = {NULL, 0, 0};
    enum gq_code code = pack_response(quote->response_json, &packed, err);
    if (code != GQ_OK)
        return code;
    sqlite3_bind_text(stmt, 1, quote->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, quote->accepted ? "accepted" : "open", -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, quote->request_json, -1, SQLITE_STATIC);
    sqlite3_bind_blob(stmt, 4, packed.block, packed.block_size, SQLITE_STATIC);
    sqlite3_bind_int(stmt, 5, packed.size);
    sqlite3_bind_text(stmt, 6, quote->idempotency_key, -1, SQLITE_STATIC); /* NULL binds NULL */
    sqlite3_bind_int64(stmt, 7, (sqlite3_int64)quote->price_list_version);
    sqlite3_bind_int64(stmt, 8, (sqlite3_int64)quote->created_at);
    sqlite3_bind_int64(stmt, 9, (sqlite3_int64)quote->expires_at);
    bind_optional_int64(stmt, 10, quote->accepted, quote->accepted_at);
    int rc = sqlite3_step(stmt);
    store_db_done(stmt); /* unbinds the block before it is freed */
    free(packed.block);
    if (rc != SQLITE_DONE)
        return store_db_fail(conn, rc, "storing a quote", err);
    return GQ_OK;
}

static enum gq_code check_quote(const struct stored_quote *quote, struct gq_error *err)
{
    size_t id_length = strnlen(quote->id, sizeof quote->id);
    if (id_length == 0 || id_length >= sizeof quote->id)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "a quote id has 1 to %d characters",
                       STORE_QUOTE_ID_SIZE - 1);
    if (quote->request_json == NULL || quote->response_json == NULL ||
        quote->response_json[0] == '\0')
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "a quote needs its request and response");
    if (quote->idempotency_key != NULL && quote->idempotency_key[0] == '\0')
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "an idempotency key cannot be empty");
    return GQ_OK;
}

/* ---- Insert. ---- */

/* Inside the write transaction: replay the quote stored under the key, or
 * insert this one. */
static enum gq_code insert_or_replay(struct store_conn *conn, const struct stored_quote *quote,
                                     bool *replayed, struct stored_quote *existing,
                                     struct gq_error *err)
{
    if (quote->idempotency_key != NULL) {
        enum gq_code code =
            select_quote(conn, SQL_QUOTE_BY_KEY, quote->idempotency_key, existing, replayed, err);
        if (code != GQ_OK || *replayed)
            return code;
    }
    return insert_row(conn, quote, err);
}

/* See db.h. GQ_ERR_INVALID_VALUE for an empty or overlong id or missing
 * JSON, GQ_ERR_RETRY_LATER when the database is locked, GQ_ERR_INTERNAL
 * otherwise (a duplicate id included). A failed statement undoes only
 * itself: SQLite keeps the transaction. */
void store_quote_save_locked(struct store_conn *conn, struct quote_save *save)
{
    save->replayed = false;
    save->code = check_quote(&save->quote, &save->err);
    if (save->code == GQ_OK)
        save->code =
            insert_or_replay(conn, &save->quote, &save->replayed, &save->existing, &save->err);
    if (save->code != GQ_OK && save->replayed) {
        stored_quote_clear(&save->existing);
        save->replayed = false;
    }
}

/* store_quote_insert() waits for its save here. */
struct waiting_save {
    struct quote_save save;
    pthread_mutex_t lock;
    pthread_cond_t done;
    bool finished;
};

static void wake_waiter(struct quote_save *save)
{
    struct waiting_save *waiting = save->context;
    pthread_mutex_lock(&waiting->lock);
    waiting->finished = true;
    pthread_cond_signal(&waiting->done);
    pthread_mutex_unlock(&waiting->lock);
}

/* See store.h. */
enum gq_code store_quote_insert(struct store *store, const struct stored_quote *quote,
                                bool *replayed, struct stored_quote *existing, struct gq_error *err)
{
    assert(store != NULL && quote != NULL && replayed != NULL && existing != NULL);
    struct waiting_save waiting = {.save = {.quote = *quote, .on_done = wake_waiter}};
    waiting.save.context = &waiting;
    pthread_mutex_init(&waiting.lock, NULL);
    pthread_cond_init(&waiting.done, NULL);
    store_quote_submit(store, &waiting.save);
    pthread_mutex_lock(&waiting.lock);
    while (!waiting.finished)
        pthread_cond_wait(&waiting.done, &waiting.lock);
    pthread_mutex_unlock(&waiting.lock);
    pthread_cond_destroy(&waiting.done);
    pthread_mutex_destroy(&waiting.lock);
    *replayed = waiting.save.replayed;
    if (waiting.save.replayed)
        *existing = waiting.save.existing;
    if (waiting.save.code != GQ_OK && err != NULL)
        *err = waiting.save.err;
    return waiting.save.code;
}

/* ---- Get. ---- */

static enum gq_code report_unknown(const char *id, struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_NOT_FOUND, NULL, "no quote '%.64s'", id);
}

/* See store.h. *out is written only on success. */
enum gq_code store_quote_get(struct store *store, const char *id, struct stored_quote *out,
                             struct gq_error *err)
{
    assert(store != NULL && id != NULL && out != NULL);
    struct store_conn *conn = store_db_checkout(store);
    bool found;
    enum gq_code code = select_quote(conn, SQL_QUOTE_BY_ID, id, out, &found, err);
    store_db_checkin(store, conn);
    if (code == GQ_OK && !found)
        return report_unknown(id, err);
    return code;
}

/* ---- Accept. ---- */

static enum gq_code mark_accepted(struct store_conn *conn, const char *id, int64_t now,
                                  struct gq_error *err)
{
    sqlite3_stmt *stmt = store_db_cached(conn, SQL_QUOTE_ACCEPT, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)now);
    int rc = sqlite3_step(stmt);
    store_db_done(stmt);
    if (rc != SQLITE_DONE)
        return store_db_fail(conn, rc, "accepting a quote", err);
    if (sqlite3_changes(conn->db) != 1)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "quote '%.64s' changed while accepted", id);
    return GQ_OK;
}

/* Inside the write transaction: reads the quote into *quote and accepts it
 * when it is open and unexpired. */
static enum gq_code accept_locked(struct store_conn *conn, const char *id, int64_t now,
                                  struct stored_quote *quote, struct gq_error *err)
{
    bool found;
    enum gq_code code = select_quote(conn, SQL_QUOTE_BY_ID, id, quote, &found, err);
    if (code != GQ_OK)
        return code;
    if (!found)
        return report_unknown(id, err);
    if (quote->accepted)
        return GQ_OK;
    if (quote->expires_at <= now) {
        char expired_at[CLOCK_RFC3339_SIZE];
        code = gq_fail(err, GQ_ERR_QUOTE_EXPIRED, NULL, "quote '%s' expired at %s", quote->id,
                       clock_format_rfc3339(quote->expires_at, expired_at));
        stored_quote_clear(quote);
        return code;
    }
    code = mark_accepted(conn, id, now, err);
    if (code != GQ_OK) {
        stored_quote_clear(quote);
        return code;
    }
    quote->accepted = true;
    quote->accepted_at = now;
    return GQ_OK;
}

/* See store.h. *out is written only on success. */
enum gq_code store_quote_accept(struct store *store, const char *id, int64_t now,
                                struct stored_quote *out, struct gq_error *err)
{
    assert(store != NULL && id != NULL && out != NULL);
    struct stored_quote quote;
    memset(&quote, 0, sizeof quote);
    struct store_conn *conn = store_db_checkout(store);
    enum gq_code code = store_db_begin_write(conn, err);
    if (code == GQ_OK)
        code = accept_locked(conn, id, now, &quote, err);
    if (code == GQ_OK)
        code = store_db_commit(conn, err);
    store_db_end(conn);
    store_db_checkin(store, conn);
    if (code != GQ_OK) {
        stored_quote_clear(&quote);
        return code;
    }
    *out = quote;
    return GQ_OK;
}
