/*
 * Price lists, the part every backend shares (store.h, migration 0008).
 *
 * A list's content, its "document", is the rows of the catalog's queries
 * (backend.h, CATALOG_QUERY_*) as JSON: one array per table, each row an
 * object keyed by column name. The same reader that turns a backend's rows
 * into a `struct catalog` (catalog_load.c) reads a document's, so a draft
 * is checked, priced and served by exactly the code the live catalog is.
 * The active list's content is the catalog tables: a new draft copies them
 * (read through the backend's read_catalog), and activating a list writes
 * its rows back into them (the backend's PRICE_LIST_WRITE_ACTIVATE).
 *
 * What goes into a document is not decided here: an edit, the check
 * before publishing and a rebase's merge are callbacks (store.h; the
 * codec's price_list_document.c), run between reading a list and writing
 * it with its audit line, so that each reads and writes in one call.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "store/backend.h"
#include "store/page.h"
#include "store/queries.h"
#include "store/store.h"
#include "util/clock.h"

static size_t column_count(const struct store_catalog_table *spec)
{
    return strlen(spec->types);
}

static enum gq_code no_memory(struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory handling a price list");
}

static json_t *doc_table(json_t *document, enum catalog_query query)
{
    return json_object_get(document, store_catalog_tables[query].name);
}

/* ---- States and sets. ---- */

static const char *const state_names[] = {"draft", "scheduled", "active", "superseded", "canceled"};
#define STATE_COUNT (sizeof state_names / sizeof state_names[0])

const char *price_list_state_name(enum price_list_state state)
{
    return (unsigned)state < STATE_COUNT ? state_names[state] : "draft";
}

bool price_list_state_parse(const char *text, enum price_list_state *out)
{
    int index = names_find(state_names, STATE_COUNT, text);
    if (index < 0)
        return false;
    *out = (enum price_list_state)index;
    return true;
}

void store_price_list_info_clear(struct price_list_info *info)
{
    if (info == NULL)
        return;
    free(info->document);
    memset(info, 0, sizeof *info);
}

void store_price_list_set_free(struct price_list_set *set)
{
    STORE_LIST_FREE(set, store_price_list_info_clear);
}

/* Event `type` of list `info` as the change leaves it (its document not
 * shown), into *event. */
static enum gq_code list_event(const char *type, const struct price_list_info *info,
                               struct store_event *event, struct gq_error *err)
{
    struct price_list_info shown = *info;
    shown.document = NULL;
    const struct store_render *render = store_render();
    char *text = render != NULL ? render->price_list(&shown) : NULL;
    return store_event_of_text(type, text, event, err);
}

/* price_list.published for draft `info` scheduled at `effective_at`,
 * published `now`, into *event. */
static enum gq_code published_event(const struct price_list_info *info, int64_t effective_at,
                                    int64_t now, struct store_event *event, struct gq_error *err)
{
    struct price_list_info published = *info;
    published.state = PRICE_LIST_SCHEDULED;
    published.effective_at = effective_at;
    published.published_at = now;
    return list_event(STORE_EVENT_PRICE_LIST_PUBLISHED, &published, event, err);
}

/* ---- The catalog tables as a document. ---- */

struct capture {
    struct catalog_reader reader; /* first: the backend calls back with it */
    json_t *document;
};

static enum gq_code capture_row(struct catalog_reader *reader, enum catalog_query query,
                                const struct store_row *row, struct gq_error *err)
{
    struct capture *capture = (struct capture *)reader;
    const struct store_catalog_table *spec = &store_catalog_tables[query];
    json_t *object = json_object();
    if (object == NULL || json_array_append_new(doc_table(capture->document, query), object) != 0)
        return no_memory(err);
    for (size_t column = 0; column < column_count(spec); column++) {
        int c = (int)column;
        json_t *value;
        if (row->ops->is_null(row, c))
            value = json_null();
        else if (spec->types[column] == 'i')
            value = json_integer((json_int_t)row->ops->integer(row, c));
        else if (spec->types[column] == 'r')
            value = json_real(row->ops->real(row, c));
        else
            value = json_string(row->ops->text(row, c) ? row->ops->text(row, c) : "");
        if (json_object_set_new(object, spec->columns[column], value) != 0)
            return no_memory(err);
    }
    return GQ_OK;
}

static enum gq_code capture_end(struct catalog_reader *reader, enum catalog_query query,
                                struct gq_error *err)
{
    (void)reader;
    (void)query;
    (void)err;
    return GQ_OK;
}

static json_t *empty_document(void)
{
    json_t *document = json_object();
    for (int query = 0; document != NULL && query < CATALOG_QUERY_COUNT; query++)
        if (json_object_set_new(document, store_catalog_tables[query].name, json_array()) != 0) {
            json_decref(document);
            return NULL;
        }
    return document;
}

enum gq_code store_price_list_live_document(struct store *store, json_t **out, struct gq_error *err)
{
    struct capture capture = {{capture_row, capture_end}, empty_document()};
    if (capture.document == NULL)
        return no_memory(err);
    enum gq_code code = store_ops(store)->read_catalog(store_backend(store), &capture.reader, err);
    if (code != GQ_OK) {
        json_decref(capture.document);
        return code;
    }
    *out = capture.document;
    return GQ_OK;
}

/* ---- A document as the loader's rows. ---- */

struct doc_row {
    const json_t *object;
    const struct store_catalog_table *spec;
};

static const json_t *doc_value(const struct store_row *row, int column)
{
    const struct doc_row *doc = row->impl;
    return json_object_get(doc->object, doc->spec->columns[column]);
}

static bool doc_is_null(const struct store_row *row, int column)
{
    const json_t *value = doc_value(row, column);
    return value == NULL || json_is_null(value);
}

static const char *doc_text(const struct store_row *row, int column)
{
    return json_string_value(doc_value(row, column));
}

static int64_t doc_integer(const struct store_row *row, int column)
{
    const json_t *value = doc_value(row, column);
    return json_is_integer(value) ? (int64_t)json_integer_value(value) : 0;
}

static double doc_real(const struct store_row *row, int column)
{
    return json_number_value(doc_value(row, column));
}

static const struct store_row_ops doc_row_ops = {doc_is_null, doc_text, doc_integer, doc_real};

struct doc_feed {
    json_t *document;
    int64_t version;    /* the list's number, for its price_list row */
    int64_t updated_at; /* and its time */
};

static enum gq_code feed_document(void *context, struct catalog_reader *reader,
                                  struct gq_error *err)
{
    struct doc_feed *feed = context;
    for (int q = 0; q < CATALOG_QUERY_COUNT; q++) {
        enum catalog_query query = (enum catalog_query)q;
        json_t *rows = doc_table(feed->document, query);
        size_t index;
        json_t *object;
        json_array_foreach(rows, index, object)
        {
            if (query == CATALOG_QUERY_PRICE_LIST) {
                json_object_set_new(object, "version", json_integer(feed->version));
                json_object_set_new(object, "updated_at", json_integer(feed->updated_at));
            }
            struct doc_row doc = {object, &store_catalog_tables[query]};
            struct store_row row = {&doc_row_ops, &doc};
            enum gq_code code = reader->row(reader, query, &row, err);
            if (code != GQ_OK)
                return code;
        }
        enum gq_code code = reader->end(reader, query, err);
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

enum gq_code store_price_list_document_catalog(json_t *document, int64_t version,
                                               int64_t updated_at, struct catalog **out,
                                               struct gq_error *err)
{
    struct doc_feed feed = {document, version, updated_at};
    return store_build_catalog(feed_document, &feed, out, err);
}

static enum gq_code parse_document(const char *text, json_t **out, struct gq_error *err)
{
    *out = text != NULL ? json_loads(text, 0, NULL) : NULL;
    if (*out == NULL || !json_is_object(*out)) {
        json_decref(*out);
        *out = NULL;
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "a price list's document does not read");
    }
    for (int query = 0; query < CATALOG_QUERY_COUNT; query++)
        if (!json_is_array(doc_table(*out, (enum catalog_query)query)) &&
            json_object_set_new(*out, store_catalog_tables[query].name, json_array()) != 0)
            return no_memory(err);
    return GQ_OK;
}

/* ---- Reading lists. ---- */

static enum gq_code read_one(struct store *store, int64_t version, struct price_list_info *out,
                             struct gq_error *err)
{
    struct price_list_set set = {0};
    enum gq_code code =
        store_ops(store)->price_lists_read(store_backend(store), version, &set, err);
    if (code == GQ_OK && set.count == 0)
        code = gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_PRICE_LIST, MSG_INT(version));
    if (code == GQ_OK) {
        *out = set.items[0];
        set.items[0].document = NULL;
    }
    store_price_list_set_free(&set);
    return code;
}

enum gq_code store_price_lists_read(struct store *store, struct price_list_set *out,
                                    struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    return store_ops(store)->price_lists_read(store_backend(store), 0, out, err);
}

enum gq_code store_price_list_get(struct store *store, int64_t version, struct price_list_info *out,
                                  struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    enum gq_code code = read_one(store, version, out, err);
    if (code != GQ_OK || out->state != PRICE_LIST_ACTIVE)
        return code;
    json_t *live;
    code = store_price_list_live_document(store, &live, err);
    if (code == GQ_OK) {
        free(out->document);
        out->document = json_dumps(live, JSON_COMPACT);
        json_decref(live);
        if (out->document == NULL)
            code = no_memory(err);
    }
    if (code != GQ_OK)
        store_price_list_info_clear(out);
    return code;
}

enum gq_code store_price_list_document(struct store *store, int64_t version,
                                       struct price_list_info *info, json_t **document,
                                       struct gq_error *err)
{
    *document = NULL;
    enum gq_code code = store_price_list_get(store, version, info, err);
    if (code == GQ_OK)
        code = parse_document(info->document, document, err);
    if (code != GQ_OK)
        store_price_list_info_clear(info);
    return code;
}

enum gq_code store_price_list_catalog(struct store *store, int64_t version, struct catalog **out,
                                      struct gq_error *err)
{
    *out = NULL;
    struct price_list_info info;
    enum gq_code code = read_one(store, version, &info, err);
    if (code != GQ_OK)
        return code;
    if (info.state == PRICE_LIST_ACTIVE) {
        store_price_list_info_clear(&info);
        return store_load_catalog(store, out, err);
    }
    json_t *document = NULL;
    code = parse_document(info.document, &document, err);
    if (code == GQ_OK)
        code = store_price_list_document_catalog(
            document, version, info.effective_at ? info.effective_at : info.created_at, out, err);
    json_decref(document);
    store_price_list_info_clear(&info);
    return code;
}

enum gq_code store_price_list_next_due(struct store *store, int64_t *effective_at,
                                       struct gq_error *err)
{
    struct price_list_set set;
    *effective_at = 0;
    enum gq_code code = store_price_lists_read(store, &set, err);
    for (size_t i = 0; code == GQ_OK && i < set.count; i++)
        if (set.items[i].state == PRICE_LIST_SCHEDULED &&
            (*effective_at == 0 || set.items[i].effective_at < *effective_at))
            *effective_at = set.items[i].effective_at;
    store_price_list_set_free(&set);
    return code;
}

/* Whether `list` was ever in effect: neither a draft nor canceled, nor
 * overtaken before it took effect. */
static bool was_in_effect(const struct price_list_info *list)
{
    if (list->state == PRICE_LIST_DRAFT || list->state == PRICE_LIST_CANCELED)
        return false;
    return list->state != PRICE_LIST_SUPERSEDED || list->superseded_at > list->effective_at;
}

static bool is_scheduled(const struct price_list_info *list)
{
    return list->state == PRICE_LIST_SCHEDULED;
}

/* Into *version, the list that took effect last by `at` (of two at once,
 * the newer) among those `kept` keeps; 0 when there is none. */
static enum gq_code latest_by(struct store *store, int64_t at,
                              bool (*kept)(const struct price_list_info *list), int64_t *version,
                              struct gq_error *err)
{
    struct price_list_set set;
    enum gq_code code = store_price_lists_read(store, &set, err);
    const struct price_list_info *best = NULL;
    for (size_t i = 0; code == GQ_OK && i < set.count; i++) {
        const struct price_list_info *list = &set.items[i];
        if (list->effective_at <= at && kept(list) &&
            (best == NULL || list->effective_at > best->effective_at ||
             (list->effective_at == best->effective_at && list->version > best->version)))
            best = list;
    }
    *version = best != NULL ? best->version : 0;
    store_price_list_set_free(&set);
    return code;
}

enum gq_code store_price_list_at(struct store *store, int64_t at, int64_t *version,
                                 struct gq_error *err)
{
    enum gq_code code = latest_by(store, at, was_in_effect, version, err);
    if (code == GQ_OK && *version == 0) {
        char when[CLOCK_RFC3339_SIZE];
        code = gq_fail_msg(err, GQ_ERR_NOT_FOUND, "at", MSG_NO_PRICE_LIST_AT,
                           MSG_TEXT(clock_format_rfc3339(at, when)));
    }
    return code;
}

static enum gq_code not_draft(const struct price_list_info *info, struct gq_error *err)
{
    return gq_fail_msg(err, GQ_ERR_PRICE_LIST_NOT_DRAFT, NULL, MSG_PRICE_LIST_NOT_DRAFT,
                       MSG_INT(info->version), MSG_TEXT(price_list_state_name(info->state)));
}

static bool is_draft(const struct price_list_info *info)
{
    return info->state == PRICE_LIST_DRAFT;
}

static bool withdrawable(const struct price_list_info *info)
{
    return info->state == PRICE_LIST_DRAFT || info->state == PRICE_LIST_SCHEDULED;
}

/* List `version` and its document, into *info and *document (the caller
 * clears both), when `changeable` says it may change; else
 * GQ_ERR_PRICE_LIST_NOT_DRAFT, and nothing to clear. */
static enum gq_code read_changeable(struct store *store, int64_t version,
                                    bool (*changeable)(const struct price_list_info *info),
                                    struct price_list_info *info, json_t **document,
                                    struct gq_error *err)
{
    enum gq_code code = store_price_list_document(store, version, info, document, err);
    if (code != GQ_OK || changeable(info))
        return code;
    code = not_draft(info, err);
    json_decref(*document);
    *document = NULL;
    store_price_list_info_clear(info);
    return code;
}

/* Writes `write` with `audit` (its change and target as given). */
static enum gq_code write_with_audit(struct store *store, const struct price_list_write *write,
                                     const struct audit_entry *audit, bool *applied,
                                     struct gq_error *err)
{
    struct audit_line line;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code == GQ_OK)
        code = store_ops(store)->price_list_write(store_backend(store), write, &line, applied, err);
    return code;
}
static void target_of(int64_t version, char target[40])
{
    snprintf(target, 40, "price_list_%lld", (long long)version);
}

enum gq_code store_price_list_create(struct store *store, int64_t now, struct audit_entry *audit,
                                     int64_t *version, struct gq_error *err)
{
    json_t *live = NULL;
    enum gq_code code = store_price_list_live_document(store, &live, err);
    char *document = code == GQ_OK ? json_dumps(live, JSON_COMPACT) : NULL;
    json_decref(live);
    if (code == GQ_OK && document == NULL)
        code = no_memory(err);
    bool applied = false;
    /* Another replica may take the number first: try the next. */
    for (int attempt = 0; code == GQ_OK && !applied && attempt < 5; attempt++) {
        struct price_list_set set;
        int64_t live_version = 0, highest = 0, active = 0;
        code = store_price_list_version(store, &live_version, err);
        if (code == GQ_OK)
            code = store_price_lists_read(store, &set, err);
        if (code != GQ_OK)
            break;
        for (size_t i = 0; i < set.count; i++) {
            if (set.items[i].version > highest)
                highest = set.items[i].version;
            if (set.items[i].state == PRICE_LIST_ACTIVE)
                active = set.items[i].version;
        }
        store_price_list_set_free(&set);
        *version = (highest > live_version ? highest : live_version) + 1;
        char target[40], summary[96];
        target_of(*version, target);
        snprintf(summary, sizeof summary,
                 "{\"old\":null,\"new\":{\"version\":%lld,\"based_on\":%lld}}", (long long)*version,
                 (long long)active);
        audit->target = target;
        audit->change = summary;
        struct price_list_write write = {.kind = PRICE_LIST_WRITE_INSERT,
                                         .version = *version,
                                         .based_on = active,
                                         .now = now,
                                         .document = document};
        code = write_with_audit(store, &write, audit, &applied, err);
        audit->target = audit->change = NULL;
    }
    free(document);
    if (code == GQ_OK && !applied)
        code = gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "price list numbers are being taken");
    return code;
}

/* Edits of one draft that may be written between an edit's read and its
 * write before it gives up with retry_later: each lost race is another
 * edit that was taken. */
enum { EDIT_ATTEMPTS = 16 };

/* One read, edit and write of draft `version`; *applied false when
 * another edit wrote the draft after this one read it. */
static enum gq_code edit_once(struct store *store, int64_t version, store_price_list_editor editor,
                              const void *context, struct audit_entry *audit, bool *applied,
                              struct gq_error *err)
{
    struct price_list_info info;
    json_t *document;
    char *change = NULL;
    *applied = false;
    enum gq_code code = read_changeable(store, version, is_draft, &info, &document, err);
    if (code != GQ_OK)
        return code;
    code = editor(document, version, context, &change, err);
    char *text = code == GQ_OK ? json_dumps(document, JSON_COMPACT) : NULL;
    if (code == GQ_OK && (text == NULL || change == NULL))
        code = no_memory(err);
    if (code == GQ_OK) {
        char target[40];
        target_of(version, target);
        audit->target = target;
        audit->change = change;
        struct price_list_write write = {.kind = PRICE_LIST_WRITE_EDIT,
                                         .version = version,
                                         .document = text,
                                         .old_document = info.document};
        code = write_with_audit(store, &write, audit, applied, err);
        audit->target = audit->change = NULL;
    }
    free(text);
    free(change);
    json_decref(document);
    store_price_list_info_clear(&info);
    return code;
}

/* The edit is a callback rather than a document the caller hands back so
 * that the read, the edit and the write stay one store operation. The
 * write is a compare-and-set on the document read: when another edit (on
 * this replica or another) wrote the draft in between, the edit is run
 * again on what that one left, so that neither is lost; a list published
 * meanwhile answers price_list_not_draft on the next read. */
enum gq_code store_price_list_edit(struct store *store, int64_t version,
                                   store_price_list_editor editor, const void *context,
                                   struct audit_entry *audit, struct gq_error *err)
{
    assert(editor != NULL);
    bool applied = false;
    enum gq_code code = GQ_OK;
    for (int attempt = 0; code == GQ_OK && !applied && attempt < EDIT_ATTEMPTS; attempt++)
        code = edit_once(store, version, editor, context, audit, &applied, err);
    if (code == GQ_OK && !applied)
        code = gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "the price list is being edited meanwhile");
    return code;
}

/* ---- Activation. ---- */

struct written_rows {
    struct store_value *values[CATALOG_WRITE_COUNT];
};

static void written_rows_free(struct written_rows *rows)
{
    for (int t = 0; t < CATALOG_WRITE_COUNT; t++)
        free(rows->values[t]);
}

/* The document's written tables as rows of values (borrowing its text). */
static enum gq_code rows_of(json_t *document, struct written_rows *rows,
                            struct price_list_write *write, struct gq_error *err)
{
    for (int t = 0; t < CATALOG_WRITE_COUNT; t++) {
        const struct store_catalog_table *spec =
            &store_catalog_tables[store_catalog_written_query[t]];
        json_t *table = doc_table(document, store_catalog_written_query[t]);
        size_t n_rows = json_array_size(table), n_columns = column_count(spec);
        rows->values[t] = calloc(n_rows * n_columns + 1, sizeof *rows->values[t]);
        if (rows->values[t] == NULL)
            return no_memory(err);
        for (size_t r = 0; r < n_rows; r++)
            for (size_t c = 0; c < n_columns; c++) {
                json_t *value = json_object_get(json_array_get(table, r), spec->columns[c]);
                struct store_value *out = &rows->values[t][r * n_columns + c];
                if (value == NULL || json_is_null(value))
                    out->kind = STORE_VALUE_NULL;
                else if (spec->types[c] == 'i') {
                    out->kind = STORE_VALUE_INTEGER;
                    out->integer = (int64_t)json_integer_value(value);
                } else if (spec->types[c] == 'r') {
                    out->kind = STORE_VALUE_REAL;
                    out->real = json_number_value(value);
                } else {
                    out->kind = STORE_VALUE_TEXT;
                    out->text = json_string_value(value) ? json_string_value(value) : "";
                }
            }
        write->rows[t] = (struct catalog_write_rows){rows->values[t], n_rows, n_columns};
    }
    return GQ_OK;
}

/* The ids of the document's GPU models, a JSON array's text. */
static char *model_ids(json_t *document)
{
    json_t *ids = json_array();
    size_t index;
    json_t *row;
    json_t *models = doc_table(document, CATALOG_QUERY_MODELS);
    json_array_foreach(models, index, row)
    {
        json_array_append(ids, json_object_get(row, "id"));
    }
    char *text = ids != NULL ? json_dumps(ids, JSON_COMPACT) : NULL;
    json_decref(ids);
    return text;
}

/* Makes scheduled list `version` active now. *applied false when another
 * replica did first (or it is no longer scheduled). */
static enum gq_code activate(struct store *store, int64_t version, int64_t now,
                             const struct audit_entry *template, bool *applied,
                             struct gq_error *err)
{
    struct price_list_info info;
    json_t *document, *live = NULL;
    *applied = false;
    enum gq_code code = store_price_list_document(store, version, &info, &document, err);
    if (code != GQ_OK)
        return code;
    if (info.state != PRICE_LIST_SCHEDULED) {
        json_decref(document);
        store_price_list_info_clear(&info);
        return GQ_OK;
    }
    struct written_rows rows = {{0}};
    struct price_list_write write = {
        .kind = PRICE_LIST_WRITE_ACTIVATE, .version = version, .now = now};
    code = rows_of(document, &rows, &write, err);
    if (code == GQ_OK)
        code = store_price_list_live_document(store, &live, err);
    char *before = code == GQ_OK ? json_dumps(live, JSON_COMPACT) : NULL;
    char *models = code == GQ_OK ? model_ids(document) : NULL;
    if (code == GQ_OK && (before == NULL || models == NULL))
        code = no_memory(err);
    if (code == GQ_OK) {
        char target[40], change[128];
        target_of(version, target);
        snprintf(change, sizeof change,
                 "{\"old\":{\"state\":\"scheduled\"},\"new\":{\"state\":\"active\"}}");
        struct audit_entry audit = *template;
        audit.action = "price_list.activate";
        audit.target = target;
        audit.change = change;
        write.document = before;
        write.model_ids = models;
        code = write_with_audit(store, &write, &audit, applied, err);
    }
    free(before);
    free(models);
    json_decref(live);
    written_rows_free(&rows);
    json_decref(document);
    store_price_list_info_clear(&info);
    return code;
}

enum gq_code store_price_list_document_only(struct store *store, int64_t version, json_t **document,
                                            struct gq_error *err)
{
    struct price_list_info info;
    enum gq_code code = store_price_list_document(store, version, &info, document, err);
    store_price_list_info_clear(&info);
    return code;
}

/* ---- Publishing. ---- */

enum gq_code store_price_list_publish(struct store *store, int64_t version, int64_t effective_at,
                                      int64_t now, store_price_list_publish_check check,
                                      void *context, struct audit_entry *audit, bool *activated,
                                      struct gq_error *err)
{
    struct price_list_info info;
    json_t *document;
    *activated = false;
    if (effective_at < now)
        effective_at = now;
    enum gq_code code = read_changeable(store, version, is_draft, &info, &document, err);
    if (code != GQ_OK)
        return code;
    code = check(store, &info, document, effective_at, context, err);
    json_decref(document);
    char target[40], change[160], when[CLOCK_RFC3339_SIZE];
    target_of(version, target);
    snprintf(change, sizeof change,
             "{\"old\":{\"state\":\"draft\"},\"new\":{\"state\":\"scheduled\",\"effective_at\":"
             "\"%s\"}}",
             clock_format_rfc3339(effective_at, when));
    bool applied = false;
    struct store_event event = {0};
    if (code == GQ_OK)
        code = published_event(&info, effective_at, now, &event, err);
    if (code == GQ_OK) {
        audit->target = target;
        audit->change = change;
        struct price_list_write write = {.kind = PRICE_LIST_WRITE_SCHEDULE,
                                         .version = version,
                                         .now = now,
                                         .effective_at = effective_at,
                                         .event = &event};
        code = write_with_audit(store, &write, audit, &applied, err);
        if (code == GQ_OK && !applied)
            code = not_draft(&info, err);
        if (code == GQ_OK)
            store_events_committed(store);
    }
    store_event_clear(&event);
    if (code == GQ_OK && effective_at <= now)
        code = activate(store, version, now, audit, activated, err);
    audit->target = audit->change = NULL;
    store_price_list_info_clear(&info);
    return code;
}

enum gq_code store_price_lists_activate_due(struct store *store, int64_t now, int64_t *activated,
                                            struct gq_error *err)
{
    int64_t version;
    *activated = 0;
    enum gq_code code = latest_by(store, now, is_scheduled, &version, err);
    if (code != GQ_OK || version == 0)
        return code;
    struct audit_entry audit = {.client = "catalog watch"};
    bool applied = false;
    code = activate(store, version, now, &audit, &applied, err);
    if (code == GQ_OK && applied)
        *activated = version;
    return code;
}

static enum gq_code canceled_event(const struct price_list_info *info, struct store_event *event,
                                   struct gq_error *err)
{
    struct price_list_info canceled = *info;
    canceled.state = PRICE_LIST_CANCELED;
    return list_event(STORE_EVENT_PRICE_LIST_CANCELED, &canceled, event, err);
}

enum gq_code store_price_list_cancel(struct store *store, int64_t version,
                                     struct audit_entry *audit, struct gq_error *err)
{
    struct price_list_info info;
    enum gq_code code = read_one(store, version, &info, err);
    if (code != GQ_OK)
        return code;
    struct store_event event = {0};
    if (!withdrawable(&info))
        code = not_draft(&info, err);
    if (code == GQ_OK)
        code = canceled_event(&info, &event, err);
    if (code == GQ_OK) {
        char target[40], change[128];
        target_of(version, target);
        snprintf(change, sizeof change,
                 "{\"old\":{\"state\":\"%s\"},\"new\":{\"state\":\"canceled\"}}",
                 price_list_state_name(info.state));
        audit->target = target;
        audit->change = change;
        struct price_list_write write = {
            .kind = PRICE_LIST_WRITE_CANCEL, .version = version, .event = &event};
        bool applied = false;
        code = write_with_audit(store, &write, audit, &applied, err);
        audit->target = audit->change = NULL;
        if (code == GQ_OK && !applied)
            code = not_draft(&info, err); /* activated or canceled meanwhile */
        if (code == GQ_OK)
            store_events_committed(store);
    }
    store_event_clear(&event);
    store_price_list_info_clear(&info);
    return code;
}

/* The active list's number. */
static enum gq_code active_version(struct store *store, int64_t *version, struct gq_error *err)
{
    struct price_list_set set;
    *version = 0;
    enum gq_code code = store_price_lists_read(store, &set, err);
    for (size_t i = 0; code == GQ_OK && i < set.count; i++)
        if (set.items[i].state == PRICE_LIST_ACTIVE)
            *version = set.items[i].version;
    store_price_list_set_free(&set);
    return code;
}

/* The merged document written as list `info`'s, based on `active`. */
static enum gq_code write_rebase(struct store *store, const struct price_list_info *info,
                                 json_t *merged, int64_t active, struct audit_entry *audit,
                                 struct gq_error *err)
{
    char *text = json_dumps(merged, JSON_COMPACT);
    enum gq_code code = text != NULL ? GQ_OK : no_memory(err);
    if (code == GQ_OK) {
        char target[40], change[128];
        target_of(info->version, target);
        snprintf(change, sizeof change, "{\"old\":{\"based_on\":%lld},\"new\":{\"based_on\":%lld}}",
                 (long long)info->based_on, (long long)active);
        audit->target = target;
        audit->change = change;
        struct price_list_write write = {.kind = PRICE_LIST_WRITE_REBASE,
                                         .version = info->version,
                                         .based_on = active,
                                         .document = text};
        bool applied = false;
        code = write_with_audit(store, &write, audit, &applied, err);
        audit->target = audit->change = NULL;
        if (code == GQ_OK && !applied)
            code = not_draft(info, err);
    }
    free(text);
    return code;
}

enum gq_code store_price_list_rebase(struct store *store, int64_t version,
                                     store_price_list_merger merge, struct audit_entry *audit,
                                     json_t **conflicts, struct gq_error *err)
{
    struct price_list_info info;
    json_t *content = NULL, *base = NULL, *live = NULL, *merged = NULL;
    int64_t active = 0;
    *conflicts = NULL;
    enum gq_code code = read_changeable(store, version, withdrawable, &info, &content, err);
    if (code != GQ_OK)
        return code;
    code = active_version(store, &active, err);
    if (code == GQ_OK)
        code = store_price_list_document_only(store, info.based_on ? info.based_on : active, &base,
                                              err);
    if (code == GQ_OK)
        code = store_price_list_live_document(store, &live, err);
    if (code == GQ_OK)
        code = merge(base, content, live, version, &merged, conflicts, err);
    if (code == GQ_OK)
        code = write_rebase(store, &info, merged, active, audit, err);
    json_decref(merged);
    json_decref(live);
    json_decref(base);
    json_decref(content);
    store_price_list_info_clear(&info);
    return code;
}
