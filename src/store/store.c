/*
 * The store's front: picks the backend a `database` setting calls for,
 * opens it with the group commit's writer thread, and passes each call to
 * the backend's table of operations. Also the one place that knows how a
 * connection string is told from a path, and how its password is hidden.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/backend.h"
#include "store/counters.h"
#include "store/page.h"
#include "store/quote_batch.h"
#include "store/store.h"
#include "util/clock.h"

struct store {
    const struct store_backend_ops *ops;
    struct store_backend *backend;
    struct store_quote_batcher *batcher;
    void (*notify)(void *context); /* store_listen_for_events */
    void *notify_context;
};

void store_listen_for_events(struct store *store, void (*notify)(void *context), void *context)
{
    store->notify_context = context;
    store->notify = notify;
}

void store_events_committed(struct store *store)
{
    if (store != NULL && store->notify != NULL)
        store->notify(store->notify_context);
}

/* ---- Which backend ---- */

static bool starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* A libpq key=value string starts with a keyword and '=' ("host=db
 * dbname=gpuquote"); a path does not, unless a directory is named so
 * oddly that it can be written "./host=db" instead. */
static bool is_keyword_value(const char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    const char *keyword = text;
    while (islower((unsigned char)*text) || *text == '_')
        text++;
    if (text == keyword)
        return false;
    while (isspace((unsigned char)*text))
        text++;
    return *text == '=';
}

bool store_database_is_postgres(const char *database)
{
    if (database == NULL)
        return false;
    return starts_with(database, "postgresql://") || starts_with(database, "postgres://") ||
           is_keyword_value(database);
}

bool store_database_file_missing(const char *database)
{
    struct stat info;
    return database != NULL && !store_database_is_postgres(database) &&
           stat(database, &info) != 0 && errno == ENOENT;
}

static const struct store_backend_ops *backend_for(const char *database)
{
    return store_database_is_postgres(database) ? &postgres_backend_ops : &sqlite_backend_ops;
}

/* ---- Hiding a password ---- */

void store_describe_database(const char *database, char *out, size_t size)
{
    assert(out != NULL && size > 0);
    if (database == NULL)
        snprintf(out, size, "(none)");
    else if (store_database_is_postgres(database))
        postgres_describe_database(database, out, size);
    else
        snprintf(out, size, "%s", database);
}

/* ---- Open and close ---- */

enum gq_code store_open(const struct store_options *options, struct store **out,
                        struct gq_error *err)
{
    assert(options != NULL && out != NULL);
    *out = NULL;
    if (options->pool_size < 1 || options->pool_size > 1024)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                       "database pool size %u is out of range 1..1024", options->pool_size);
    struct store *store = calloc(1, sizeof *store);
    if (store == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory opening the database");
    store->ops = backend_for(options->database);
    enum gq_code code = store->ops->open(options, &store->backend, err);
    if (code == GQ_OK)
        code = store_quote_batcher_start(store, store->ops, store->backend, &store->batcher, err);
    if (code != GQ_OK) {
        store_close(store);
        return code;
    }
    *out = store;
    return GQ_OK;
}

void store_close(struct store *store)
{
    if (store == NULL)
        return;
    store_quote_batcher_stop(store->batcher); /* writes what is queued */
    if (store->backend != NULL)
        store->ops->close(store->backend);
    free(store);
}

const char *store_backend_name(const struct store *store)
{
    return store->ops->name;
}

const struct store_backend_ops *store_ops(const struct store *store)
{
    return store->ops;
}

struct store_backend *store_backend(const struct store *store)
{
    return store->backend;
}

const struct store_backend_ops *store_ops_for_database(const char *database)
{
    return backend_for(database);
}

/* ---- Health ---- */

enum gq_code store_check_writable(struct store *store, struct gq_error *err)
{
    return store->ops->check_writable(store->backend, err);
}

enum gq_code store_check_storage(struct store *store, struct gq_error *err)
{
    return store->ops->check_storage(store->backend, err);
}

bool store_failed_since_check(struct store *store)
{
    return store->ops->failed_since_check(store->backend);
}

enum gq_code store_ping(struct store *store, struct gq_error *err)
{
    store_count_health_check();
    return store->ops->ping(store->backend, err) == GQ_OK ? GQ_OK : GQ_ERR_NOT_READY;
}

/* ---- Catalog changes ---- */

enum gq_code store_price_list_version(struct store *store, int64_t *version, struct gq_error *err)
{
    return store->ops->price_list_version(store->backend, version, err);
}

void store_wait_for_catalog_change(struct store *store, int timeout_ms, int wake_fd)
{
    store->ops->wait_for_catalog_change(store->backend, timeout_ms, wake_fd);
}

/* ---- Quotes ---- */

void store_quote_submit(struct store *store, struct quote_save *save)
{
    store_quote_batcher_submit(store->batcher, save);
}

static enum gq_code report_unknown(const char *id, struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_NOT_FOUND, NULL, "no quote '%.64s'", id);
}

enum gq_code store_quote_get(struct store *store, const char *id, struct stored_quote *out,
                             struct gq_error *err)
{
    assert(store != NULL && id != NULL && out != NULL);
    bool found = false;
    enum gq_code code = store->ops->get_quote(store->backend, id, out, &found, err);
    if (code == GQ_OK && !found)
        return report_unknown(id, err);
    return code;
}

void store_quote_page_free(struct quote_page *page)
{
    STORE_LIST_FREE(page, stored_quote_clear);
}

enum gq_code store_quotes_list(struct store *store, const struct quote_filter *filter,
                               struct quote_page *out, struct gq_error *err)
{
    assert(store != NULL && filter != NULL && out != NULL);
    assert(filter->limit >= 1 && filter->limit <= 100);
    memset(out, 0, sizeof *out);
    struct stored_quote cursor = {0};
    bool found = false;
    if (filter->starting_after != NULL) {
        enum gq_code code =
            store->ops->get_quote(store->backend, filter->starting_after, &cursor, &found, err);
        if (code != GQ_OK)
            return code;
        if (!found)
            return gq_fail_msg(err, GQ_ERR_INVALID_PARAMETER, "starting_after", MSG_NO_QUOTE,
                               MSG_TEXT_CUT(filter->starting_after, 64));
    }
    enum gq_code code = store->ops->list_quotes(store->backend, filter, cursor.created_at,
                                                found ? cursor.id : NULL, out, err);
    stored_quote_clear(&cursor);
    STORE_PAGE_END(code, out, filter->limit, stored_quote_clear);
    return code;
}

enum gq_code store_quotes_recent_requests(struct store *store, int limit, json_t **out,
                                          struct gq_error *err)
{
    assert(store != NULL && out != NULL && limit >= 1 && limit <= 100);
    *out = NULL;
    return store->ops->recent_requests(store->backend, limit, out, err);
}

/* Accepts or cancels, and words what stood in the way. */
static enum gq_code end_quote(struct store *store, const struct quote_end *end,
                              struct stored_quote *out, struct gq_error *err)
{
    assert(store != NULL && end->id != NULL && out != NULL);
    struct stored_quote quote = {0};
    enum accept_outcome outcome = ACCEPT_NOT_FOUND;
    enum gq_code code = store->ops->end_quote(store->backend, end, &quote, &outcome, err);
    if (code != GQ_OK)
        return code;
    char when[CLOCK_RFC3339_SIZE];
    switch (outcome) {
    case ACCEPT_DONE:
        *out = quote;
        store_events_committed(store); /* its quote.accepted or quote.canceled */
        return GQ_OK;
    case ACCEPT_NOT_FOUND:
        return report_unknown(end->id, err);
    case ACCEPT_PROMOTION_EXHAUSTED:
        stored_quote_clear(&quote);
        return store_promotion_code_report_exhausted(store, end->promotion_code, err);
    case ACCEPT_EXPIRED:
        code = gq_fail_msg(err, GQ_ERR_QUOTE_EXPIRED, NULL, MSG_QUOTE_EXPIRED, MSG_TEXT(quote.id),
                           MSG_TEXT(clock_format_rfc3339(quote.expires_at, when)));
        break;
    case ACCEPT_NOT_OPEN:
    default:
        code = quote.accepted
                   ? gq_fail_msg(err, GQ_ERR_QUOTE_NOT_OPEN, NULL, MSG_QUOTE_NOT_OPEN,
                                 MSG_TEXT(quote.id),
                                 MSG_TEXT(clock_format_rfc3339(quote.accepted_at, when)))
                   : gq_fail_msg(err, GQ_ERR_QUOTE_NOT_OPEN, NULL, MSG_QUOTE_CANCELED,
                                 MSG_TEXT(quote.id),
                                 MSG_TEXT(clock_format_rfc3339(quote.canceled_at, when)));
        snprintf(err->state, sizeof err->state, "%s", quote.accepted ? "accepted" : "canceled");
        break;
    }
    if (outcome == ACCEPT_EXPIRED)
        snprintf(err->state, sizeof err->state, "expired");
    stored_quote_clear(&quote);
    return code;
}

enum gq_code store_quote_accept(struct store *store, const char *id, int64_t now,
                                const char *acceptance, struct stored_quote *out,
                                struct gq_error *err)
{
    struct quote_end end = {QUOTE_END_ACCEPT, id, now, acceptance, NULL, NULL};
    return end_quote(store, &end, out, err);
}

enum gq_code store_quote_accept_with_code(struct store *store, const char *id, int64_t now,
                                          const char *acceptance, const char *code,
                                          struct stored_quote *out, struct gq_error *err)
{
    struct store_event event;
    enum gq_code result = store_promotion_code_redeemed_event(code, id, now, &event, err);
    if (result != GQ_OK)
        return result;
    struct quote_end end = {QUOTE_END_ACCEPT, id, now, acceptance, code, &event};
    result = end_quote(store, &end, out, err);
    store_event_clear(&event);
    return result;
}

enum gq_code store_quote_cancel(struct store *store, const char *id, int64_t now,
                                const char *reason, struct stored_quote *out, struct gq_error *err)
{
    struct quote_end end = {QUOTE_END_CANCEL, id, now, reason, NULL, NULL};
    return end_quote(store, &end, out, err);
}

enum gq_code store_quotes_expire(struct store *store, int64_t now, int limit, int *count,
                                 struct gq_error *err)
{
    assert(store != NULL && count != NULL && limit > 0);
    *count = 0;
    enum gq_code code = store->ops->expire_quotes(store->backend, now, limit, count, err);
    if (code == GQ_OK && *count > 0)
        store_events_committed(store); /* their quote.expired */
    return code;
}

enum gq_code store_quotes_delete_ended(struct store *store, int64_t ended_before,
                                       int64_t accepted_before, int limit, int *count,
                                       struct gq_error *err)
{
    assert(store != NULL && count != NULL && limit > 0);
    *count = 0;
    return store->ops->delete_ended_quotes(store->backend, ended_before, accepted_before, limit,
                                           count, err);
}

enum gq_code store_retention_delete(struct store *store, enum store_retention kind, int64_t before,
                                    int limit, int *count, struct gq_error *err)
{
    assert(store != NULL && count != NULL && limit > 0 && kind < STORE_RETAIN_COUNT);
    *count = 0;
    return store->ops->delete_past_retention(store->backend, kind, before, limit, count, err);
}

enum gq_code store_quote_release_key(struct store *store, const char *quote_id, const char *key,
                                     bool *released, struct gq_error *err)
{
    assert(store != NULL && quote_id != NULL && key != NULL && released != NULL);
    *released = false;
    return store->ops->release_key(store->backend, quote_id, key, released, err);
}
