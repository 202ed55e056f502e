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
 * Edits work on the document's rows (an entity and the rows that come with
 * it), and every edit is checked as a whole list before it is written:
 * references (a SKU's GPU model, a bundle's SKUs), catalog_validate() and
 * price_list_check() (the business's rules). Nothing is written when a
 * check fails.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/price_list.h"
#include "store/price_list_merge.h"
#include "store/backend.h"
#include "store/queries.h"
#include "store/store.h"
#include "util/clock.h"

/* ---- The document's tables. ---- */

/* What the diff and the audit call each written table's rows, and the
 * columns that tell one row from another. */
static const struct entity_spec {
    const char *entity;
    const char *keys[2];
} entities[CATALOG_WRITE_COUNT] = {
    [CATALOG_WRITE_MODELS] = {"gpu_model", {"id", NULL}},
    [CATALOG_WRITE_SKUS] = {"sku", {"id", NULL}},
    [CATALOG_WRITE_PRICES] = {"price", {"sku_id", "mode_id"}},
    [CATALOG_WRITE_RULES] = {"discount_rule", {"id", NULL}},
    [CATALOG_WRITE_BUNDLES] = {"bundle", {"id", NULL}},
    [CATALOG_WRITE_BUNDLE_ITEMS] = {"bundle_item", {"bundle_id", "sku_id"}},
    [CATALOG_WRITE_SKU_TEXTS] = {"sku_text", {"sku_id", "lang"}},
    [CATALOG_WRITE_BUNDLE_TEXTS] = {"bundle_text", {"bundle_id", "lang"}},
};

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
    for (unsigned i = 0; text != NULL && i < STATE_COUNT; i++)
        if (strcmp(text, state_names[i]) == 0) {
            *out = (enum price_list_state)i;
            return true;
        }
    return false;
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
    if (set == NULL)
        return;
    for (size_t i = 0; i < set->count; i++)
        free(set->items[i].document);
    free(set->items);
    set->items = NULL;
    set->count = 0;
}

/* price_list.published for draft `info` scheduled at `effective_at`,
 * published `now`, into *event. */
static enum gq_code published_event(const struct price_list_info *info, int64_t effective_at,
                                    int64_t now, struct store_event *event, struct gq_error *err)
{
    struct price_list_info published = *info;
    published.document = NULL;
    published.state = PRICE_LIST_SCHEDULED;
    published.effective_at = effective_at;
    published.published_at = now;
    const struct store_render *render = store_render();
    char *text = render != NULL ? render->price_list(&published) : NULL;
    memset(event, 0, sizeof *event);
    enum gq_code code = text != NULL
                            ? store_event_make(STORE_EVENT_PRICE_LIST_PUBLISHED, text, event, err)
                            : no_memory(err);
    free(text);
    return code;
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

/* The catalog tables' content as a new document in *out. */
static enum gq_code capture_live(struct store *store, json_t **out, struct gq_error *err)
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

/* The catalog of `document` (borrowed; its price_list row is renumbered). */
static enum gq_code document_catalog(json_t *document, int64_t version, int64_t updated_at,
                                     struct catalog **out, struct gq_error *err)
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
    code = capture_live(store, &live, err);
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

/* The document of `version` as JSON, and its list. */
static enum gq_code get_document(struct store *store, int64_t version, struct price_list_info *info,
                                 json_t **document, struct gq_error *err)
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
        code = document_catalog(document, version,
                                info.effective_at ? info.effective_at : info.created_at, out, err);
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

enum gq_code store_price_list_at(struct store *store, int64_t at, int64_t *version,
                                 struct gq_error *err)
{
    struct price_list_set set;
    enum gq_code code = store_price_lists_read(store, &set, err);
    const struct price_list_info *best = NULL;
    for (size_t i = 0; code == GQ_OK && i < set.count; i++) {
        const struct price_list_info *list = &set.items[i];
        if (list->state == PRICE_LIST_DRAFT || list->state == PRICE_LIST_CANCELED ||
            list->effective_at > at)
            continue;
        /* A list overtaken before it took effect never was in effect. */
        if (list->state == PRICE_LIST_SUPERSEDED && list->superseded_at <= list->effective_at)
            continue;
        if (best == NULL || list->effective_at > best->effective_at ||
            (list->effective_at == best->effective_at && list->version > best->version))
            best = list;
    }
    if (code == GQ_OK && best == NULL) {
        char when[CLOCK_RFC3339_SIZE];
        code = gq_fail_msg(err, GQ_ERR_NOT_FOUND, "at", MSG_NO_PRICE_LIST_AT,
                           MSG_TEXT(clock_format_rfc3339(at, when)));
    }
    if (code == GQ_OK)
        *version = best->version;
    store_price_list_set_free(&set);
    return code;
}

/* ---- Rows as the API shows them (the diff, the audit). ---- */

static bool ends_with(const char *text, const char *suffix)
{
    size_t length = strlen(text), suffix_length = strlen(suffix);
    return length >= suffix_length && strcmp(text + length - suffix_length, suffix) == 0;
}

/* A column's name and value in the API's words: "amount_fen": 228 is
 * "amount": "2.28"; valid_from and valid_until are RFC 3339 times. The
 * name goes into `name` (96 bytes); the value is a new reference. */
static json_t *api_value(const char *column, const json_t *value, char name[96])
{
    snprintf(name, 96, "%s", column);
    if (ends_with(column, "_fen")) {
        name[strlen(column) - 4] = '\0';
        if (json_is_integer(value)) {
            char money[MONEY_FORMAT_SIZE];
            return json_string(money_format((gq_money)json_integer_value(value), money));
        }
    } else if ((strcmp(column, "valid_from") == 0 || strcmp(column, "valid_until") == 0) &&
               json_is_integer(value) && json_integer_value(value) > 0) {
        char when[CLOCK_RFC3339_SIZE];
        return json_string(clock_format_rfc3339((int64_t)json_integer_value(value), when));
    }
    return value != NULL ? json_deep_copy(value) : json_null();
}

static json_t *api_row(const json_t *row)
{
    if (row == NULL)
        return json_null();
    json_t *out = json_object();
    const char *column;
    json_t *value;
    json_object_foreach((json_t *)row, column, value)
    {
        char name[96];
        json_object_set_new(out, name, api_value(column, value, name));
    }
    return out;
}

/* ---- Finding rows. ---- */

static bool row_has(const json_t *row, const char *column, const char *text)
{
    const char *value = json_string_value(json_object_get(row, column));
    return value != NULL && text != NULL && strcmp(value, text) == 0;
}

static bool same_key(const struct entity_spec *entity, const json_t *a, const json_t *b)
{
    for (int k = 0; k < 2 && entity->keys[k] != NULL; k++) {
        const char *value = json_string_value(json_object_get(a, entity->keys[k]));
        if (!row_has(b, entity->keys[k], value))
            return false;
    }
    return true;
}

/* The index of the first row of `rows` whose `column` is `text`, or -1. */
static long find_row(const json_t *rows, const char *column, const char *text)
{
    for (size_t i = 0; i < json_array_size(rows); i++)
        if (row_has(json_array_get(rows, i), column, text))
            return (long)i;
    return -1;
}

/* Removes every row of `rows` whose `column` is `text`. */
static void remove_rows(json_t *rows, const char *column, const char *text)
{
    for (size_t i = json_array_size(rows); i-- > 0;)
        if (row_has(json_array_get(rows, i), column, text))
            json_array_remove(rows, i);
}

/* ---- Applying an edit. ---- */

static const struct {
    enum catalog_write_table table;
    const char *noun; /* for a 404 */
} edited[] = {
    [PRICE_LIST_GPU_MODEL] = {CATALOG_WRITE_MODELS, "GPU model"},
    [PRICE_LIST_SKU] = {CATALOG_WRITE_SKUS, "SKU"},
    [PRICE_LIST_PRICE] = {CATALOG_WRITE_PRICES, "price"},
    [PRICE_LIST_DISCOUNT_RULE] = {CATALOG_WRITE_RULES, "discount rule"},
    [PRICE_LIST_BUNDLE] = {CATALOG_WRITE_BUNDLES, "bundle"},
};

static json_t *write_table(json_t *document, enum catalog_write_table table)
{
    return doc_table(document, store_catalog_written_query[table]);
}

/* The index of the entity's row in its table, or -1. */
static long find_entity(json_t *document, const struct price_list_edit *edit)
{
    json_t *rows = write_table(document, edited[edit->entity].table);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        const char *first = edit->entity == PRICE_LIST_PRICE ? "sku_id" : "id";
        if (row_has(row, first, edit->id) &&
            (edit->entity != PRICE_LIST_PRICE || row_has(row, "mode_id", edit->mode)))
            return (long)i;
    }
    return -1;
}

/* Refuses a deletion that would leave a reference dangling. */
static enum gq_code check_deletion(json_t *document, const struct price_list_edit *edit,
                                   struct gq_error *err)
{
    if (edit->entity == PRICE_LIST_SKU) {
        json_t *items = write_table(document, CATALOG_WRITE_BUNDLE_ITEMS);
        long item = find_row(items, "sku_id", edit->id);
        if (item >= 0)
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, NULL, MSG_SKU_IN_BUNDLE,
                               MSG_TEXT_CUT(edit->id, 64),
                               MSG_TEXT(json_string_value(json_object_get(
                                   json_array_get(items, (size_t)item), "bundle_id"))));
    }
    if (edit->entity == PRICE_LIST_GPU_MODEL) {
        json_t *skus = write_table(document, CATALOG_WRITE_SKUS);
        long sku = find_row(skus, "gpu_model_id", edit->id);
        if (sku >= 0)
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, NULL, MSG_MODEL_IN_USE,
                               MSG_TEXT_CUT(edit->id, 64),
                               MSG_TEXT(json_string_value(
                                   json_object_get(json_array_get(skus, (size_t)sku), "id"))));
    }
    return GQ_OK;
}

/* What goes with an entity: deleted with it, or replaced by `children`. */
static void drop_dependents(json_t *document, const struct price_list_edit *edit, bool deleting)
{
    const json_t *children = edit->children;
    if (edit->entity == PRICE_LIST_SKU) {
        if (deleting || json_object_get(children, "sku_prices") != NULL)
            remove_rows(write_table(document, CATALOG_WRITE_PRICES), "sku_id", edit->id);
        if (deleting || json_object_get(children, "sku_texts") != NULL)
            remove_rows(write_table(document, CATALOG_WRITE_SKU_TEXTS), "sku_id", edit->id);
        if (deleting) {
            remove_rows(write_table(document, CATALOG_WRITE_RULES), "sku_id", edit->id);
            remove_rows(doc_table(document, CATALOG_QUERY_SKU_HOSTS), "sku_id", edit->id);
        }
    }
    if (edit->entity == PRICE_LIST_BUNDLE) {
        if (deleting || json_object_get(children, "bundle_items") != NULL)
            remove_rows(write_table(document, CATALOG_WRITE_BUNDLE_ITEMS), "bundle_id", edit->id);
        if (deleting || json_object_get(children, "bundle_texts") != NULL)
            remove_rows(write_table(document, CATALOG_WRITE_BUNDLE_TEXTS), "bundle_id", edit->id);
    }
}

/* Appends `children`'s arrays to their tables, each row given its parent. */
static enum gq_code add_children(json_t *document, const struct price_list_edit *edit,
                                 struct gq_error *err)
{
    static const struct {
        enum price_list_entity entity;
        const char *name;
        enum catalog_write_table table;
        const char *parent;
    } kinds[] = {
        {PRICE_LIST_SKU, "sku_prices", CATALOG_WRITE_PRICES, "sku_id"},
        {PRICE_LIST_SKU, "sku_texts", CATALOG_WRITE_SKU_TEXTS, "sku_id"},
        {PRICE_LIST_BUNDLE, "bundle_items", CATALOG_WRITE_BUNDLE_ITEMS, "bundle_id"},
        {PRICE_LIST_BUNDLE, "bundle_texts", CATALOG_WRITE_BUNDLE_TEXTS, "bundle_id"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (kinds[k].entity != edit->entity)
            continue;
        json_t *rows = json_object_get(edit->children, kinds[k].name);
        size_t index;
        json_t *row;
        json_array_foreach(rows, index, row)
        {
            json_t *copy = json_deep_copy(row);
            if (copy == NULL ||
                json_object_set_new(copy, kinds[k].parent, json_string(edit->id)) != 0 ||
                json_array_append_new(write_table(document, kinds[k].table), copy) != 0)
                return no_memory(err);
        }
    }
    return GQ_OK;
}

/* The references a new row makes must hold in the list. */
static enum gq_code check_references(json_t *document, int64_t version,
                                     const struct price_list_edit *edit, struct gq_error *err)
{
    json_t *skus = write_table(document, CATALOG_WRITE_SKUS);
    if (edit->entity == PRICE_LIST_SKU) {
        const char *model = json_string_value(json_object_get(edit->record, "gpu_model_id"));
        if (find_row(write_table(document, CATALOG_WRITE_MODELS), "id", model) < 0)
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "gpu_model", MSG_NO_GPU_MODEL,
                               MSG_TEXT_CUT(model ? model : "", 64));
    }
    if (edit->entity == PRICE_LIST_PRICE && find_row(skus, "id", edit->id) < 0)
        return gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_LIST_ENTITY, MSG_INT(version),
                           MSG_TEXT("SKU"), MSG_TEXT_CUT(edit->id, 64));
    if (edit->entity == PRICE_LIST_DISCOUNT_RULE) {
        const char *sku = json_string_value(json_object_get(edit->record, "sku_id"));
        if (sku != NULL && find_row(skus, "id", sku) < 0)
            return gq_fail_msg(err, GQ_ERR_UNKNOWN_SKU, "sku", MSG_NO_SKU, MSG_TEXT_CUT(sku, 64));
    }
    if (edit->entity == PRICE_LIST_BUNDLE) {
        json_t *items = json_object_get(edit->children, "bundle_items");
        size_t index;
        json_t *item;
        json_array_foreach(items, index, item)
        {
            const char *sku = json_string_value(json_object_get(item, "sku_id"));
            if (find_row(skus, "id", sku) < 0) {
                char field[48];
                snprintf(field, sizeof field, "contents[%zu].sku", index);
                return gq_fail_msg(err, GQ_ERR_UNKNOWN_SKU, field, MSG_NO_SKU,
                                   MSG_TEXT_CUT(sku ? sku : "", 64));
            }
        }
    }
    return GQ_OK;
}

/* Applies `edit` to `document`; *old receives the entity's row before
 * (a new reference, or NULL when there was none). */
static enum gq_code apply_edit(json_t *document, int64_t version,
                               const struct price_list_edit *edit, json_t **old,
                               struct gq_error *err)
{
    json_t *rows = write_table(document, edited[edit->entity].table);
    long at = find_entity(document, edit);
    *old = at >= 0 ? json_incref(json_array_get(rows, (size_t)at)) : NULL;
    if (edit->record == NULL) {
        if (at < 0) {
            char id[140];
            snprintf(id, sizeof id, "%s%s%s", edit->id, edit->mode ? "/" : "",
                     edit->mode ? edit->mode : "");
            return gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_LIST_ENTITY, MSG_INT(version),
                               MSG_TEXT(edited[edit->entity].noun), MSG_TEXT_CUT(id, 80));
        }
        enum gq_code code = check_deletion(document, edit, err);
        if (code != GQ_OK)
            return code;
        json_array_remove(rows, (size_t)at);
        drop_dependents(document, edit, true);
        return GQ_OK;
    }
    enum gq_code code = check_references(document, version, edit, err);
    if (code != GQ_OK)
        return code;
    json_t *copy = json_deep_copy(edit->record);
    if (copy == NULL)
        return no_memory(err);
    if ((at >= 0 ? json_array_set_new(rows, (size_t)at, copy)
                 : json_array_append_new(rows, copy)) != 0)
        return no_memory(err);
    drop_dependents(document, edit, false);
    return add_children(document, edit, err);
}

/* The whole list checked as it would be sold: the catalog's invariants,
 * then the business's rules. */
static enum gq_code check_document(json_t *document, int64_t version, struct gq_error *err)
{
    struct catalog *catalog;
    enum gq_code code = document_catalog(document, version, 0, &catalog, err);
    if (code == GQ_OK)
        code = price_list_check(catalog, err);
    catalog_free(catalog);
    return code;
}

static enum gq_code not_draft(const struct price_list_info *info, struct gq_error *err)
{
    return gq_fail_msg(err, GQ_ERR_PRICE_LIST_NOT_DRAFT, NULL, MSG_PRICE_LIST_NOT_DRAFT,
                       MSG_INT(info->version), MSG_TEXT(price_list_state_name(info->state)));
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

static char *change_text(json_t *old, json_t *new_value)
{
    json_t *change = json_pack("{s:o, s:o}", "old", old ? old : json_null(), "new",
                               new_value ? new_value : json_null());
    char *text = change != NULL ? json_dumps(change, JSON_COMPACT) : NULL;
    json_decref(change);
    return text;
}

static void target_of(int64_t version, char target[40])
{
    snprintf(target, 40, "price_list_%lld", (long long)version);
}

enum gq_code store_price_list_create(struct store *store, int64_t now, struct audit_entry *audit,
                                     int64_t *version, struct gq_error *err)
{
    json_t *live = NULL;
    enum gq_code code = capture_live(store, &live, err);
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

enum gq_code store_price_list_edit(struct store *store, int64_t version,
                                   const struct price_list_edit *edit, struct audit_entry *audit,
                                   struct gq_error *err)
{
    assert(edit != NULL && (unsigned)edit->entity <= PRICE_LIST_BUNDLE);
    struct price_list_info info;
    json_t *document, *old = NULL;
    enum gq_code code = get_document(store, version, &info, &document, err);
    if (code != GQ_OK)
        return code;
    if (info.state != PRICE_LIST_DRAFT)
        code = not_draft(&info, err);
    if (code == GQ_OK)
        code = apply_edit(document, version, edit, &old, err);
    if (code == GQ_OK)
        code = check_document(document, version, err);
    char *text = code == GQ_OK ? json_dumps(document, JSON_COMPACT) : NULL;
    char *change = code == GQ_OK
                       ? change_text(api_row(old), edit->record ? api_row(edit->record) : NULL)
                       : NULL;
    if (code == GQ_OK && (text == NULL || change == NULL))
        code = no_memory(err);
    if (code == GQ_OK) {
        char target[40];
        target_of(version, target);
        audit->target = target;
        audit->change = change;
        struct price_list_write write = {
            .kind = PRICE_LIST_WRITE_EDIT, .version = version, .document = text};
        bool applied = false;
        code = write_with_audit(store, &write, audit, &applied, err);
        audit->target = audit->change = NULL;
        if (code == GQ_OK && !applied)
            code = not_draft(&info, err); /* published meanwhile */
    }
    free(text);
    free(change);
    json_decref(old);
    json_decref(document);
    store_price_list_info_clear(&info);
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
    enum gq_code code = get_document(store, version, &info, &document, err);
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
        code = capture_live(store, &live, err);
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

/* ---- What a list would undo. ---- */

/* An entry of the core's comparison in the API's words (amount_fen is
 * "amount": "8.80"), for list `version`. */
static void api_entry(json_t *entry, int64_t version)
{
    const char *column = json_string_value(json_object_get(entry, "field"));
    const char *key;
    json_t *value;
    void *tmp;
    json_object_foreach_safe(entry, tmp, key, value)
    {
        if (strcmp(key, "entity") == 0 || strcmp(key, "id") == 0 || strcmp(key, "field") == 0)
            continue;
        char name[96];
        json_object_set_new(entry, key, column ? api_value(column, value, name) : api_row(value));
    }
    if (column != NULL) {
        char name[96];
        json_decref(api_value(column, NULL, name));
        json_object_set_new(entry, "field", json_string(name));
    }
    json_object_set_new(entry, "version", json_integer(version));
}

/* The document of list `version` (the active one's from the tables). */
static enum gq_code document_of(struct store *store, int64_t version, json_t **document,
                                struct gq_error *err)
{
    struct price_list_info info;
    enum gq_code code = get_document(store, version, &info, document, err);
    store_price_list_info_clear(&info);
    return code;
}

/* Appends to *all what `list` (its document `content`) would undo of
 * `active` when it takes effect, judged against its base. */
static enum gq_code add_reverts(struct store *store, const struct price_list_info *list,
                                json_t *content, json_t *active, json_t *all, struct gq_error *err)
{
    json_t *base = NULL;
    if (list->based_on == 0)
        return GQ_OK; /* drafted before lists knew their base */
    enum gq_code code = document_of(store, list->based_on, &base, err);
    json_t *found = code == GQ_OK ? price_list_merge_reverts(base, content, active) : NULL;
    if (code == GQ_OK && found == NULL)
        code = no_memory(err);
    size_t index;
    json_t *entry;
    json_array_foreach(found, index, entry)
    {
        api_entry(entry, list->version);
    }
    if (code == GQ_OK && json_array_extend(all, found) != 0)
        code = no_memory(err);
    json_decref(found);
    json_decref(base);
    return code;
}

/* GQ_ERR_PRICE_LIST_WOULD_REVERT, *reverts listing them, when publishing
 * `info` (its document `content`) at `effective_at` lets a list undo
 * another's changes: a list scheduled after it undoing its own, or it
 * undoing the active list's (drafted from an older one). */
static enum gq_code check_reverts(struct store *store, const struct price_list_info *info,
                                  json_t *content, int64_t effective_at, json_t **reverts,
                                  struct gq_error *err)
{
    struct price_list_set set;
    json_t *all = json_array(), *active = NULL;
    enum gq_code code = all != NULL ? store_price_lists_read(store, &set, err) : no_memory(err);
    if (code != GQ_OK) {
        json_decref(all);
        return code;
    }
    code = capture_live(store, &active, err);
    for (size_t i = 0; code == GQ_OK && i < set.count; i++) {
        const struct price_list_info *other = &set.items[i];
        if (other->state == PRICE_LIST_ACTIVE && other->version != info->based_on)
            code = add_reverts(store, info, content, active, all, err);
        if (other->state != PRICE_LIST_SCHEDULED || other->effective_at <= effective_at)
            continue;
        json_t *later = NULL;
        if (code == GQ_OK)
            code = document_of(store, other->version, &later, err);
        if (code == GQ_OK)
            code = add_reverts(store, other, later, content, all, err);
        json_decref(later);
    }
    store_price_list_set_free(&set);
    json_decref(active);
    if (code == GQ_OK && json_array_size(all) > 0) {
        *reverts = all;
        return gq_fail_msg(err, GQ_ERR_PRICE_LIST_WOULD_REVERT, NULL, MSG_PRICE_LIST_WOULD_REVERT,
                           MSG_INT((int64_t)json_array_size(all)));
    }
    json_decref(all);
    return code;
}

enum gq_code store_price_list_publish(struct store *store, int64_t version, int64_t effective_at,
                                      int64_t now, bool allow_revert, json_t **reverts,
                                      struct audit_entry *audit, bool *activated,
                                      struct gq_error *err)
{
    struct price_list_info info;
    json_t *document;
    *activated = false;
    *reverts = NULL;
    if (effective_at < now)
        effective_at = now;
    enum gq_code code = get_document(store, version, &info, &document, err);
    if (code != GQ_OK)
        return code;
    if (info.state != PRICE_LIST_DRAFT)
        code = not_draft(&info, err);
    if (code == GQ_OK)
        code = check_document(document, version, err);
    if (code == GQ_OK && !allow_revert)
        code = check_reverts(store, &info, document, effective_at, reverts, err);
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
    struct price_list_set set;
    *activated = 0;
    enum gq_code code = store_price_lists_read(store, &set, err);
    const struct price_list_info *due = NULL;
    for (size_t i = 0; code == GQ_OK && i < set.count; i++) {
        const struct price_list_info *list = &set.items[i];
        if (list->state == PRICE_LIST_SCHEDULED && list->effective_at <= now &&
            (due == NULL || list->effective_at > due->effective_at ||
             (list->effective_at == due->effective_at && list->version > due->version)))
            due = list;
    }
    int64_t version = due != NULL ? due->version : 0;
    store_price_list_set_free(&set);
    if (code != GQ_OK || version == 0)
        return code;
    struct audit_entry audit = {.client = "catalog watch"};
    bool applied = false;
    code = activate(store, version, now, &audit, &applied, err);
    if (code == GQ_OK && applied)
        *activated = version;
    return code;
}

/* ---- The diff. ---- */

static json_t *find_same(json_t *rows, const struct entity_spec *entity, const json_t *row)
{
    for (size_t i = 0; i < json_array_size(rows); i++)
        if (same_key(entity, json_array_get(rows, i), row))
            return json_array_get(rows, i);
    return NULL;
}

static void entity_id(const struct entity_spec *entity, const json_t *row, char id[160])
{
    const char *first = json_string_value(json_object_get(row, entity->keys[0]));
    const char *second =
        entity->keys[1] ? json_string_value(json_object_get(row, entity->keys[1])) : NULL;
    snprintf(id, 160, "%s%s%s", first ? first : "", second ? "/" : "", second ? second : "");
}

static int append_change(json_t *diff, const char *entity, const char *id, const char *field,
                         json_t *old, json_t *new_value)
{
    return json_array_append_new(
        diff, json_pack("{s:s, s:s, s:o, s:o, s:o}", "entity", entity, "id", id, "field",
                        field ? json_string(field) : json_null(), "old", old, "new", new_value));
}

/* Rows of `from` changed or gone in `to` (and, with `added`, rows only in
 * `to`), into diff. */
static void diff_table(json_t *diff, const struct entity_spec *entity, json_t *active,
                       json_t *draft)
{
    size_t index;
    json_t *row;
    char id[160];
    json_array_foreach(active, index, row)
    {
        json_t *other = find_same(draft, entity, row);
        entity_id(entity, row, id);
        if (other == NULL) {
            append_change(diff, entity->entity, id, NULL, api_row(row), json_null());
            continue;
        }
        const char *column;
        json_t *value;
        json_object_foreach(row, column, value)
        {
            json_t *next = json_object_get(other, column);
            if (next != NULL && json_equal(value, next))
                continue;
            char name[96];
            json_t *old_value = api_value(column, value, name);
            append_change(diff, entity->entity, id, name, old_value, api_value(column, next, name));
        }
    }
    json_array_foreach(draft, index, row)
    {
        if (find_same(active, entity, row) != NULL)
            continue;
        entity_id(entity, row, id);
        append_change(diff, entity->entity, id, NULL, json_null(), api_row(row));
    }
}

enum gq_code store_price_list_diff(struct store *store, int64_t version, json_t **out,
                                   struct gq_error *err)
{
    struct price_list_info info;
    json_t *document, *live = NULL;
    *out = NULL;
    enum gq_code code = get_document(store, version, &info, &document, err);
    if (code != GQ_OK)
        return code;
    code = capture_live(store, &live, err);
    json_t *diff = code == GQ_OK ? json_array() : NULL;
    if (code == GQ_OK && diff == NULL)
        code = no_memory(err);
    for (int t = 0; code == GQ_OK && t < CATALOG_WRITE_COUNT; t++)
        diff_table(diff, &entities[t], doc_table(live, store_catalog_written_query[t]),
                   doc_table(document, store_catalog_written_query[t]));
    if (code == GQ_OK)
        *out = diff;
    else
        json_decref(diff);
    json_decref(live);
    json_decref(document);
    store_price_list_info_clear(&info);
    return code;
}

/* ---- Withdrawing and rebasing. ---- */

static enum gq_code canceled_event(const struct price_list_info *info, struct store_event *event,
                                   struct gq_error *err)
{
    struct price_list_info canceled = *info;
    canceled.document = NULL;
    canceled.state = PRICE_LIST_CANCELED;
    const struct store_render *render = store_render();
    char *text = render != NULL ? render->price_list(&canceled) : NULL;
    memset(event, 0, sizeof *event);
    enum gq_code code = text != NULL
                            ? store_event_make(STORE_EVENT_PRICE_LIST_CANCELED, text, event, err)
                            : no_memory(err);
    free(text);
    return code;
}

static bool withdrawable(const struct price_list_info *info)
{
    return info->state == PRICE_LIST_DRAFT || info->state == PRICE_LIST_SCHEDULED;
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
    enum gq_code code = check_document(merged, info->version, err);
    char *text = code == GQ_OK ? json_dumps(merged, JSON_COMPACT) : NULL;
    if (code == GQ_OK && text == NULL)
        code = no_memory(err);
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
                                     struct audit_entry *audit, json_t **conflicts,
                                     struct gq_error *err)
{
    struct price_list_info info;
    json_t *content = NULL, *base = NULL, *live = NULL, *merged = NULL;
    int64_t active = 0;
    *conflicts = NULL;
    enum gq_code code = get_document(store, version, &info, &content, err);
    if (code != GQ_OK)
        return code;
    if (!withdrawable(&info))
        code = not_draft(&info, err);
    if (code == GQ_OK)
        code = active_version(store, &active, err);
    if (code == GQ_OK)
        code = document_of(store, info.based_on ? info.based_on : active, &base, err);
    if (code == GQ_OK)
        code = capture_live(store, &live, err);
    json_t *found = NULL;
    if (code == GQ_OK && !price_list_merge(base, content, live, &merged, &found))
        code = no_memory(err);
    if (code == GQ_OK && merged == NULL) {
        size_t index;
        json_t *entry;
        json_array_foreach(found, index, entry)
        {
            api_entry(entry, version);
        }
        *conflicts = found;
        found = NULL;
        code = gq_fail_msg(err, GQ_ERR_PRICE_LIST_REBASE_CONFLICT, NULL,
                           MSG_PRICE_LIST_REBASE_CONFLICT, MSG_INT(version),
                           MSG_INT((int64_t)json_array_size(*conflicts)));
    }
    if (code == GQ_OK)
        code = write_rebase(store, &info, merged, active, audit, err);
    json_decref(found);
    json_decref(merged);
    json_decref(live);
    json_decref(base);
    json_decref(content);
    store_price_list_info_clear(&info);
    return code;
}
