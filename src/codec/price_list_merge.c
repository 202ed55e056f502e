/*
 * The three-way comparison of price-list documents (see
 * price_list_merge.h): revert detection and the merge, field by field.
 */
#include "codec/price_list_merge.h"

#include <stdio.h>
#include <string.h>

const struct price_list_merge_table price_list_merge_tables[] = {
    {"gpu_models", "gpu_model", {"id", NULL}},
    {"skus", "sku", {"id", NULL}},
    {"sku_prices", "price", {"sku_id", "mode_id"}},
    {"discount_rules", "discount_rule", {"id", NULL}},
    {"bundles", "bundle", {"id", NULL}},
    {"bundle_items", "bundle_item", {"bundle_id", "sku_id"}},
    {"sku_texts", "sku_text", {"sku_id", "lang"}},
    {"bundle_texts", "bundle_text", {"bundle_id", "lang"}},
};
const size_t price_list_merge_table_count =
    sizeof price_list_merge_tables / sizeof price_list_merge_tables[0];

static bool same_key(const struct price_list_merge_table *spec, const json_t *a, const json_t *b)
{
    for (int k = 0; k < 2 && spec->keys[k] != NULL; k++) {
        const char *x = json_string_value(json_object_get(a, spec->keys[k]));
        const char *y = json_string_value(json_object_get(b, spec->keys[k]));
        if (x == NULL || y == NULL || strcmp(x, y) != 0)
            return false;
    }
    return true;
}

static json_t *find_row(const json_t *rows, const struct price_list_merge_table *spec,
                        const json_t *row)
{
    for (size_t i = 0; i < json_array_size(rows); i++)
        if (same_key(spec, json_array_get(rows, i), row))
            return json_array_get(rows, i);
    return NULL;
}

void price_list_merge_row_id(const char *const *keys, const json_t *row, char id[160])
{
    const char *first = json_string_value(json_object_get(row, keys[0]));
    const char *second = keys[1] ? json_string_value(json_object_get(row, keys[1])) : NULL;
    snprintf(id, 160, "%s%s%s", first ? first : "", second ? "/" : "", second ? second : "");
}

/* Two values (NULL: absent) alike. */
static bool alike(const json_t *a, const json_t *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return json_equal(a, b);
}

static json_t *copy_or_null(const json_t *value)
{
    return value != NULL ? json_deep_copy(value) : json_null();
}

static json_t *table_of(const json_t *document, const struct price_list_merge_table *spec)
{
    return json_object_get(document, spec->table);
}

/* Calls visit(row in any of the three, its rows in each) once per key. */
typedef bool (*visit_fn)(void *context, const struct price_list_merge_table *spec,
                         const json_t *base, const json_t *list, const json_t *active);

static bool each_key(const struct price_list_merge_table *spec, const json_t *base,
                     const json_t *list, const json_t *active, visit_fn visit, void *context)
{
    const json_t *tables[3] = {table_of(base, spec), table_of(list, spec), table_of(active, spec)};
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < json_array_size(tables[t]); i++) {
            const json_t *row = json_array_get(tables[t], i);
            bool seen = false;
            for (int earlier = 0; earlier < t && !seen; earlier++)
                seen = find_row(tables[earlier], spec, row) != NULL;
            if (!seen && !visit(context, spec, find_row(tables[0], spec, row),
                                find_row(tables[1], spec, row), find_row(tables[2], spec, row)))
                return false;
        }
    return true;
}

/* The columns of up to three rows, each once, into `names` (at most 32). */
static size_t columns_of(const json_t *rows[3], const char *names[32])
{
    size_t n = 0;
    for (int r = 0; r < 3; r++) {
        const char *column;
        json_t *value;
        json_object_foreach((json_t *)rows[r], column, value)
        {
            bool seen = false;
            for (size_t i = 0; i < n && !seen; i++)
                seen = strcmp(names[i], column) == 0;
            if (!seen && n < 32)
                names[n++] = column;
        }
    }
    return n;
}

static const json_t *field(const json_t *row, const char *column)
{
    return column == NULL ? row : json_object_get(row, column);
}

/* ---- Reverts. ---- */

static bool add_entry(json_t *out, const struct price_list_merge_table *spec, const json_t *row,
                      const char *column, const char *names[3], const json_t *values[3])
{
    char id[160];
    price_list_merge_row_id(spec->keys, row, id);
    json_t *entry = json_pack("{s:s, s:s, s:o}", "entity", spec->entity, "id", id, "field",
                              column ? json_string(column) : json_null());
    for (int i = 0; entry != NULL && i < 3 && names[i] != NULL; i++)
        json_object_set_new(entry, names[i], copy_or_null(values[i]));
    return entry != NULL && json_array_append_new(out, entry) == 0;
}

static bool revert_visit(void *context, const struct price_list_merge_table *spec,
                         const json_t *base, const json_t *list, const json_t *active)
{
    json_t *out = context;
    const json_t *any = active ? active : list ? list : base;
    const char *names[3] = {"now", "reverted_to", NULL};
    if (base == NULL || list == NULL || active == NULL) {
        /* a row added or removed: only the whole row can be reverted */
        if (!alike(active, base) && alike(list, base)) {
            const json_t *values[3] = {active, list, NULL};
            return add_entry(out, spec, any, NULL, names, values);
        }
        return true;
    }
    const json_t *rows[3] = {base, list, active};
    const char *columns[32] = {NULL};
    size_t n = columns_of(rows, columns);
    for (size_t c = 0; c < n; c++) {
        const json_t *b = field(base, columns[c]), *l = field(list, columns[c]),
                     *a = field(active, columns[c]);
        if (!alike(a, b) && alike(l, b)) {
            const json_t *values[3] = {a, l, NULL};
            if (!add_entry(out, spec, any, columns[c], names, values))
                return false;
        }
    }
    return true;
}

json_t *price_list_merge_reverts(const json_t *base, const json_t *list, const json_t *active)
{
    json_t *out = json_array();
    for (size_t t = 0; out != NULL && t < price_list_merge_table_count; t++)
        if (!each_key(&price_list_merge_tables[t], base, list, active, revert_visit, out)) {
            json_decref(out);
            out = NULL;
        }
    return out;
}

/* ---- The merge. ---- */

struct merge {
    json_t *rows;      /* the table being built (from active) */
    json_t *conflicts; /* every conflict found */
};

static bool conflict(struct merge *merge, const struct price_list_merge_table *spec,
                     const json_t *any, const char *column, const json_t *base, const json_t *list,
                     const json_t *active)
{
    const char *names[3] = {"base", "list", "active"};
    const json_t *values[3] = {base, list, active};
    return add_entry(merge->conflicts, spec, any, column, names, values);
}

/* Puts `row` (NULL: none) in the merged table where the active row was. */
static bool place(struct merge *merge, const struct price_list_merge_table *spec, const json_t *key,
                  json_t *row)
{
    for (size_t i = 0; i < json_array_size(merge->rows); i++)
        if (same_key(spec, json_array_get(merge->rows, i), key))
            return row != NULL ? json_array_set_new(merge->rows, i, row) == 0
                               : json_array_remove(merge->rows, i) == 0;
    return row == NULL || json_array_append_new(merge->rows, row) == 0;
}

static bool merge_visit(void *context, const struct price_list_merge_table *spec,
                        const json_t *base, const json_t *list, const json_t *active)
{
    struct merge *merge = context;
    const json_t *any = list ? list : active ? active : base;
    if (alike(list, base) || alike(list, active))
        return true; /* nothing of the list's own, or the same already */
    if (alike(active, base))
        return place(merge, spec, any, list ? json_deep_copy(list) : NULL);
    if (base == NULL || list == NULL || active == NULL)
        return conflict(merge, spec, any, NULL, base, list, active);
    json_t *row = json_deep_copy(active);
    const json_t *rows[3] = {base, list, active};
    const char *columns[32] = {NULL};
    size_t n = columns_of(rows, columns);
    bool ok = row != NULL;
    for (size_t c = 0; ok && c < n; c++) {
        const json_t *b = field(base, columns[c]), *l = field(list, columns[c]),
                     *a = field(active, columns[c]);
        if (alike(l, b) || alike(l, a))
            continue;
        if (!alike(a, b))
            ok = conflict(merge, spec, any, columns[c], b, l, a);
        else if (l == NULL)
            ok = json_object_del(row, columns[c]) == 0;
        else
            ok = json_object_set_new(row, columns[c], json_deep_copy(l)) == 0;
    }
    if (!ok) {
        json_decref(row);
        return false;
    }
    return place(merge, spec, any, row);
}

bool price_list_merge(const json_t *base, const json_t *list, const json_t *active, json_t **merged,
                      json_t **conflicts)
{
    *merged = NULL;
    *conflicts = json_array();
    json_t *document = json_deep_copy(active);
    bool ok = *conflicts != NULL && document != NULL;
    for (size_t t = 0; ok && t < price_list_merge_table_count; t++) {
        const struct price_list_merge_table *spec = &price_list_merge_tables[t];
        struct merge merge = {json_array(), *conflicts};
        json_t *from = table_of(active, spec); /* a table a document lacks is empty */
        ok = merge.rows != NULL && (from == NULL || json_array_extend(merge.rows, from) == 0) &&
             each_key(spec, base, list, active, merge_visit, &merge) &&
             json_object_set_new(document, spec->table, merge.rows) == 0;
        if (!ok)
            json_decref(merge.rows);
    }
    if (!ok) {
        json_decref(*conflicts);
        *conflicts = NULL;
        json_decref(document);
        return false;
    }
    if (json_array_size(*conflicts) == 0)
        *merged = document;
    else
        json_decref(document);
    return true;
}
