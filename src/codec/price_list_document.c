/*
 * The rules of a price list's document (store.h: one JSON array of rows
 * per catalog table), above the store: the edits of a draft (a GPU model,
 * a SKU, a price, a discount rule, a bundle, each with the rows that come
 * with it), the check of a whole list as it would be sold (references,
 * catalog_validate() and the core's price_list_check()), the diff between
 * two documents, what publishing a list would undo, and a rebase's merge
 * (price_list_merge.h). The store reads and writes documents; these
 * functions decide what goes into them, handed to the store's
 * read-modify-write calls as callbacks so that each edit still reads and
 * writes in one store call.
 */
#include "codec/price_list_document.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/price_list_merge.h"
#include "core/price_list.h"
#include "store/queries.h"
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

static enum gq_code no_memory(struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory handling a price list");
}

static json_t *doc_table(json_t *document, enum catalog_query query)
{
    return json_object_get(document, store_catalog_tables[query].name);
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

/* The references a deletion must not leave dangling: rows of `table`
 * whose `column` names the deleted entity, the first one named by its
 * `named_by` column in the refusal. */
static const struct reference {
    enum price_list_entity entity;
    enum catalog_write_table table;
    const char *column;
    const char *named_by;
    enum gq_msg refusal;
} references[] = {
    {PRICE_LIST_SKU, CATALOG_WRITE_BUNDLE_ITEMS, "sku_id", "bundle_id", MSG_SKU_IN_BUNDLE},
    {PRICE_LIST_GPU_MODEL, CATALOG_WRITE_SKUS, "gpu_model_id", "id", MSG_MODEL_IN_USE},
};

/* Refuses a deletion that would leave a reference dangling. */
static enum gq_code check_deletion(json_t *document, const struct price_list_edit *edit,
                                   struct gq_error *err)
{
    for (size_t i = 0; i < sizeof references / sizeof references[0]; i++) {
        const struct reference *reference = &references[i];
        if (edit->entity != reference->entity)
            continue;
        json_t *rows = write_table(document, reference->table);
        long row = find_row(rows, reference->column, edit->id);
        if (row >= 0)
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, NULL, reference->refusal,
                               MSG_TEXT_CUT(edit->id, 64),
                               MSG_TEXT(json_string_value(json_object_get(
                                   json_array_get(rows, (size_t)row), reference->named_by))));
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

/* A GPU model put without a compute capability keeps the one the draft
 * had for it (or none), as a SKU put without prices keeps its prices. */
static enum gq_code keep_unsent(json_t *row, const json_t *old, const struct price_list_edit *edit,
                                struct gq_error *err)
{
    const char *column = "compute_capability";
    json_t *kept = json_object_get(old, column);
    if (edit->entity != PRICE_LIST_GPU_MODEL || json_object_get(row, column) != NULL)
        return GQ_OK;
    return json_object_set_new(row, column, kept != NULL ? json_incref(kept) : json_null()) == 0
               ? GQ_OK
               : no_memory(err);
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
    code = keep_unsent(copy, *old, edit, err);
    if (code != GQ_OK) {
        json_decref(copy);
        return code;
    }
    if ((at >= 0 ? json_array_set_new(rows, (size_t)at, copy)
                 : json_array_append_new(rows, copy)) != 0)
        return no_memory(err);
    drop_dependents(document, edit, false);
    return add_children(document, edit, err);
}

enum gq_code price_list_document_check(json_t *document, int64_t version, struct gq_error *err)
{
    struct catalog *catalog = NULL;
    enum gq_code code = store_price_list_document_catalog(document, version, 0, &catalog, err);
    if (code == GQ_OK)
        code = price_list_check(catalog, err);
    catalog_free(catalog);
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

/* Appends to *all what `list` (its document `content`) would undo of
 * `active` when it takes effect, judged against its base. */
static enum gq_code add_reverts(struct store *store, const struct price_list_info *list,
                                json_t *content, json_t *active, json_t *all, struct gq_error *err)
{
    json_t *base = NULL;
    if (list->based_on == 0)
        return GQ_OK; /* drafted before lists knew their base */
    enum gq_code code = store_price_list_document_only(store, list->based_on, &base, err);
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
    code = store_price_list_live_document(store, &active, err);
    for (size_t i = 0; code == GQ_OK && i < set.count; i++) {
        const struct price_list_info *other = &set.items[i];
        if (other->state == PRICE_LIST_ACTIVE && other->version != info->based_on)
            code = add_reverts(store, info, content, active, all, err);
        if (other->state != PRICE_LIST_SCHEDULED || other->effective_at <= effective_at)
            continue;
        json_t *later = NULL;
        if (code == GQ_OK)
            code = store_price_list_document_only(store, other->version, &later, err);
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
/* ---- The diff. ---- */

static json_t *find_same(json_t *rows, const struct entity_spec *entity, const json_t *row)
{
    for (size_t i = 0; i < json_array_size(rows); i++)
        if (same_key(entity, json_array_get(rows, i), row))
            return json_array_get(rows, i);
    return NULL;
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
        price_list_merge_row_id(entity->keys, row, id);
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
        price_list_merge_row_id(entity->keys, row, id);
        append_change(diff, entity->entity, id, NULL, json_null(), api_row(row));
    }
}

json_t *price_list_document_diff(json_t *from, json_t *to)
{
    json_t *diff = json_array();
    for (int t = 0; diff != NULL && t < CATALOG_WRITE_COUNT; t++)
        diff_table(diff, &entities[t], doc_table(from, store_catalog_written_query[t]),
                   doc_table(to, store_catalog_written_query[t]));
    return diff;
}

enum gq_code price_list_document_diff_list(struct store *store, int64_t version, json_t **out,
                                           struct gq_error *err)
{
    json_t *document = NULL, *live = NULL;
    *out = NULL;
    enum gq_code code = store_price_list_document_only(store, version, &document, err);
    if (code == GQ_OK)
        code = store_price_list_live_document(store, &live, err);
    if (code == GQ_OK) {
        *out = price_list_document_diff(live, document);
        if (*out == NULL)
            code = no_memory(err);
    }
    json_decref(live);
    json_decref(document);
    return code;
}

/* ---- Edits, publishing and rebasing: the store's callbacks. ---- */

enum gq_code price_list_document_edit(json_t *document, int64_t version, const void *context,
                                      char **change, struct gq_error *err)
{
    const struct price_list_edit *edit = context;
    assert(edit != NULL && (unsigned)edit->entity <= PRICE_LIST_BUNDLE);
    json_t *old = NULL;
    *change = NULL;
    enum gq_code code = apply_edit(document, version, edit, &old, err);
    if (code == GQ_OK)
        code = price_list_document_check(document, version, err);
    if (code == GQ_OK) {
        *change = change_text(api_row(old), edit->record ? api_row(edit->record) : NULL);
        if (*change == NULL)
            code = no_memory(err);
    }
    json_decref(old);
    return code;
}

enum gq_code price_list_document_edit_list(struct store *store, int64_t version,
                                           const struct price_list_edit *edit,
                                           struct audit_entry *audit, struct gq_error *err)
{
    return store_price_list_edit(store, version, price_list_document_edit, edit, audit, err);
}

enum gq_code price_list_document_publish_check(struct store *store,
                                               const struct price_list_info *info, json_t *document,
                                               int64_t effective_at, void *context,
                                               struct gq_error *err)
{
    struct price_list_publish_check *publish = context;
    publish->reverts = NULL;
    enum gq_code code = price_list_document_check(document, info->version, err);
    if (code == GQ_OK && !publish->allow_revert)
        code = check_reverts(store, info, document, effective_at, &publish->reverts, err);
    return code;
}

enum gq_code price_list_document_merge(json_t *base, json_t *content, json_t *active,
                                       int64_t version, json_t **merged, json_t **conflicts,
                                       struct gq_error *err)
{
    json_t *found = NULL;
    *merged = NULL;
    if (!price_list_merge(base, content, active, merged, &found))
        return no_memory(err);
    if (*merged == NULL) {
        size_t index;
        json_t *entry;
        json_array_foreach(found, index, entry)
        {
            api_entry(entry, version);
        }
        *conflicts = found;
        return gq_fail_msg(err, GQ_ERR_PRICE_LIST_REBASE_CONFLICT, NULL,
                           MSG_PRICE_LIST_REBASE_CONFLICT, MSG_INT(version),
                           MSG_INT((int64_t)json_array_size(found)));
    }
    json_decref(found);
    enum gq_code code = price_list_document_check(*merged, version, err);
    if (code != GQ_OK) {
        json_decref(*merged);
        *merged = NULL;
    }
    return code;
}
