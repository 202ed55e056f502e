/*
 * Reading the catalog: every catalog table into one `struct catalog`, inside
 * one read transaction, so the snapshot and its price_list_version agree.
 *
 * Each array is sized by a count(*) in the same transaction, then filled by
 * one query. SKUs come ORDER BY id (the catalog's binary search relies on
 * it) and prices are attached to them by that search; only active SKUs and
 * rules are read. A bundle that contains an inactive SKU cannot be sold and
 * is left out. The result is checked by catalog_validate() before it is
 * handed over. Loading 10,000 SKUs takes a few tens of milliseconds.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "store/db.h"
#include "store/store.h"

/* What a row handler sees: the catalog being filled and room left. */
struct loader {
    struct store_conn *conn;
    struct catalog *catalog;
    size_t capacity; /* of the array the current query fills */
};

typedef enum gq_code (*row_handler)(struct loader *loader, sqlite3_stmt *stmt,
                                    struct gq_error *err);

static const char SQL_HAS_SCHEMA[] =
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'price_list'";
static const char SQL_PRICE_LIST[] =
    "SELECT version, currency, updated_at FROM price_list WHERE id = 1";
static const char SQL_COUNT_MODELS[] = "SELECT count(*) FROM gpu_models";
static const char SQL_MODELS[] =
    "SELECT id, name, memory_gb, memory_type, fp16_tflops, memory_bandwidth_gbps, tdp_watts,"
    " fp32_tflops, bf16_tflops FROM gpu_models ORDER BY id";
static const char SQL_MODES[] =
    "SELECT id, name, description, block_hours, block_days, list_basis_points"
    " FROM billing_modes";
static const char SQL_MODE_SEGMENTS[] = "SELECT mode_id, segment_id FROM billing_mode_segments";
static const char SQL_COUNT_SKUS[] = "SELECT count(*) FROM skus WHERE active = 1";
static const char SQL_SKUS[] = "SELECT id, name, gpu_model_id, gpu_count, interconnect"
                               " FROM skus WHERE active = 1 ORDER BY id";
static const char SQL_PRICES[] = "SELECT p.sku_id, p.mode_id, p.amount_fen"
                                 " FROM sku_prices p JOIN skus s ON s.id = p.sku_id"
                                 " WHERE s.active = 1";
static const char SQL_COUNT_RULES[] = "SELECT count(*) FROM discount_rules WHERE active = 1";
static const char SQL_RULES[] =
    "SELECT id, name, segment, billing, sku_id, min_quantity, basis_points, fixed_amount_fen,"
    " valid_from, valid_until, priority, stackable"
    " FROM discount_rules WHERE active = 1 ORDER BY priority, id";
#define SELLABLE_BUNDLE                                                                            \
    " NOT EXISTS (SELECT 1 FROM bundle_items i JOIN skus s ON s.id = i.sku_id"                     \
    " WHERE i.bundle_id = b.id AND s.active = 0)"
static const char SQL_COUNT_BUNDLES[] = "SELECT count(*) FROM bundles b WHERE" SELLABLE_BUNDLE;
static const char SQL_BUNDLES[] =
    "SELECT id, name, description, list_price_fen, price_fen, segment, valid_from, valid_until"
    " FROM bundles b WHERE" SELLABLE_BUNDLE " ORDER BY id";
static const char SQL_BUNDLE_ITEMS[] = "SELECT bundle_id, sku_id, quantity, hours"
                                       " FROM bundle_items ORDER BY bundle_id, sku_id";

/* ---- Helpers. ---- */

/* Runs `sql` and calls `handle` on each row. */
static enum gq_code for_each_row(struct loader *loader, const char *sql, row_handler handle,
                                 struct gq_error *err)
{
    sqlite3_stmt *stmt = store_db_prepare(loader->conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    enum gq_code code = GQ_OK;
    int rc;
    while (code == GQ_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        code = handle(loader, stmt, err);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = store_db_fail(loader->conn, rc, "reading the catalog", err);
    sqlite3_finalize(stmt);
    return code;
}

/* *out = the single integer `sql` returns. */
static enum gq_code query_count(struct loader *loader, const char *sql, size_t *out,
                                struct gq_error *err)
{
    sqlite3_stmt *stmt = store_db_prepare(loader->conn, sql, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    int rc = sqlite3_step(stmt);
    enum gq_code code = GQ_OK;
    if (rc == SQLITE_ROW)
        *out = (size_t)sqlite3_column_int64(stmt, 0);
    else
        code = store_db_fail(loader->conn, rc, "counting catalog rows", err);
    sqlite3_finalize(stmt);
    return code;
}

/* Allocates a zeroed array for the rows `count_sql` counts. */
static enum gq_code allocate_rows(struct loader *loader, const char *count_sql, size_t size,
                                  void **out, struct gq_error *err)
{
    size_t count;
    enum gq_code code = query_count(loader, count_sql, &count, err);
    if (code != GQ_OK)
        return code;
    *out = calloc(count > 0 ? count : 1, size);
    if (*out == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory loading the catalog");
    loader->capacity = count;
    return GQ_OK;
}

static enum gq_code no_memory(struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory loading the catalog");
}

static enum gq_code too_many_rows(struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_INTERNAL, NULL, "catalog changed while it was read");
}

/* A copy of a text column; NULL (never expected for these) becomes "". */
static enum gq_code copy_text(sqlite3_stmt *stmt, int column, char **out, struct gq_error *err)
{
    if (!store_db_column_strdup(stmt, column, out))
        return no_memory(err);
    if (*out == NULL && (*out = strdup("")) == NULL)
        return no_memory(err);
    return GQ_OK;
}

/* A copy of a nullable text column: NULL stays NULL. */
static enum gq_code copy_optional_text(sqlite3_stmt *stmt, int column, char **out,
                                       struct gq_error *err)
{
    return store_db_column_strdup(stmt, column, out) ? GQ_OK : no_memory(err);
}

static const char *column_text(sqlite3_stmt *stmt, int column)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    return text != NULL ? (const char *)text : "";
}

static int32_t column_int32(sqlite3_stmt *stmt, int column)
{
    return (int32_t)sqlite3_column_int64(stmt, column);
}

/* Segment mask of a nullable segment column: NULL means every segment. */
static enum gq_code read_segment_mask(sqlite3_stmt *stmt, int column, uint32_t *out,
                                      struct gq_error *err)
{
    if (sqlite3_column_type(stmt, column) == SQLITE_NULL) {
        *out = SEGMENT_MASK_ALL;
        return GQ_OK;
    }
    enum customer_segment segment;
    if (!segment_parse(column_text(stmt, column), &segment))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "unknown customer segment '%s'",
                       column_text(stmt, column));
    *out = SEGMENT_BIT(segment);
    return GQ_OK;
}

static enum gq_code parse_mode(const char *text, enum billing_mode *out, struct gq_error *err)
{
    if (!billing_mode_parse(text, out))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "unknown billing mode '%s'", text);
    return GQ_OK;
}

/* ---- Price list. ---- */

static enum gq_code check_schema(struct loader *loader, struct gq_error *err)
{
    size_t tables;
    enum gq_code code = query_count(loader, SQL_HAS_SCHEMA, &tables, err);
    if (code == GQ_OK && tables == 0)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "the database has no catalog (run 'gpuquote migrate')");
    return code;
}

static enum gq_code read_price_list(struct loader *loader, sqlite3_stmt *stmt, struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    if (catalog->currency != NULL)
        return too_many_rows(err);
    catalog->price_list_version = sqlite3_column_int64(stmt, 0);
    catalog->price_list_updated_at = sqlite3_column_int64(stmt, 2);
    return copy_text(stmt, 1, &catalog->currency, err);
}

static enum gq_code load_price_list(struct loader *loader, struct gq_error *err)
{
    enum gq_code code = for_each_row(loader, SQL_PRICE_LIST, read_price_list, err);
    if (code == GQ_OK && loader->catalog->currency == NULL)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "the database has no price list (run 'gpuquote migrate')");
    return code;
}

/* ---- GPU models. ---- */

static enum gq_code read_model(struct loader *loader, sqlite3_stmt *stmt, struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    if (catalog->n_models >= loader->capacity)
        return too_many_rows(err);
    struct gpu_model *model = &catalog->models[catalog->n_models++];
    model->memory_gb = column_int32(stmt, 2);
    model->fp16_tflops = sqlite3_column_double(stmt, 4);
    model->memory_bandwidth_gbps = column_int32(stmt, 5);
    model->tdp_watts = column_int32(stmt, 6);
    model->fp32_tflops = sqlite3_column_double(stmt, 7); /* NULL reads as 0 */
    model->bf16_tflops = sqlite3_column_double(stmt, 8);
    enum gq_code code = copy_text(stmt, 0, &model->id, err);
    if (code == GQ_OK)
        code = copy_text(stmt, 1, &model->name, err);
    if (code == GQ_OK)
        code = copy_text(stmt, 3, &model->memory_type, err);
    /* Training in fp32 (and bf16 without BF16 tensor cores) is timed at it. */
    if (code == GQ_OK && !(model->fp32_tflops > 0.0))
        code = gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                       "GPU model '%s' has no fp32_tflops (its FP32 peak: UPDATE gpu_models SET "
                       "fp32_tflops = ... WHERE id = '%s')",
                       model->id, model->id);
    return code;
}

static enum gq_code load_models(struct loader *loader, struct gq_error *err)
{
    enum gq_code code = allocate_rows(loader, SQL_COUNT_MODELS, sizeof(struct gpu_model),
                                      (void **)&loader->catalog->models, err);
    return code == GQ_OK ? for_each_row(loader, SQL_MODELS, read_model, err) : code;
}

/* Binary search among the models, which are sorted by id. */
static const struct gpu_model *find_model(const struct catalog *catalog, const char *id)
{
    size_t low = 0, high = catalog->n_models;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int order = strcmp(id, catalog->models[middle].id);
        if (order == 0)
            return &catalog->models[middle];
        if (order < 0)
            high = middle;
        else
            low = middle + 1;
    }
    return NULL;
}

/* ---- Billing modes. ---- */

static enum gq_code read_mode(struct loader *loader, sqlite3_stmt *stmt, struct gq_error *err)
{
    enum billing_mode mode;
    enum gq_code code = parse_mode(column_text(stmt, 0), &mode, err);
    if (code != GQ_OK)
        return code;
    struct billing_mode_info *info = &loader->catalog->modes[mode];
    if (info->name != NULL)
        return too_many_rows(err);
    info->block_hours = column_int32(stmt, 3);
    info->block_days = column_int32(stmt, 4);
    info->list_basis_points = column_int32(stmt, 5);
    code = copy_text(stmt, 1, &info->name, err);
    if (code == GQ_OK)
        code = copy_text(stmt, 2, &info->description, err);
    return code;
}

static enum gq_code read_mode_segment(struct loader *loader, sqlite3_stmt *stmt,
                                      struct gq_error *err)
{
    enum billing_mode mode;
    enum gq_code code = parse_mode(column_text(stmt, 0), &mode, err);
    uint32_t mask = 0;
    if (code == GQ_OK)
        code = read_segment_mask(stmt, 1, &mask, err);
    if (code == GQ_OK)
        loader->catalog->modes[mode].segment_mask |= mask;
    return code;
}

static enum gq_code load_modes(struct loader *loader, struct gq_error *err)
{
    enum gq_code code = for_each_row(loader, SQL_MODES, read_mode, err);
    for (int mode = 0; code == GQ_OK && mode < BILLING_MODE_COUNT; mode++)
        if (loader->catalog->modes[mode].name == NULL)
            code = gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                           "billing mode '%s' is missing from the database",
                           billing_mode_id((enum billing_mode)mode));
    if (code == GQ_OK)
        code = for_each_row(loader, SQL_MODE_SEGMENTS, read_mode_segment, err);
    return code;
}

/* ---- SKUs and their prices. ---- */

static enum gq_code read_sku(struct loader *loader, sqlite3_stmt *stmt, struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    if (catalog->n_skus >= loader->capacity)
        return too_many_rows(err);
    struct sku *sku = &catalog->skus[catalog->n_skus++];
    enum gq_code code = copy_text(stmt, 0, &sku->id, err);
    if (code == GQ_OK)
        code = copy_text(stmt, 1, &sku->name, err);
    if (code != GQ_OK)
        return code;
    sku->gpu = find_model(catalog, column_text(stmt, 2));
    if (sku->gpu == NULL)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "SKU '%s' names unknown GPU model '%s'",
                       sku->id, column_text(stmt, 2));
    sku->gpu_count = column_int32(stmt, 3);
    if (!interconnect_parse(column_text(stmt, 4), &sku->interconnect))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "SKU '%s' has unknown interconnect '%s'",
                       sku->id, column_text(stmt, 4));
    return GQ_OK;
}

static enum gq_code read_price(struct loader *loader, sqlite3_stmt *stmt, struct gq_error *err)
{
    /* The cast drops const: the catalog is still being built. */
    struct sku *sku = (struct sku *)catalog_find_sku(loader->catalog, column_text(stmt, 0));
    if (sku == NULL)
        return too_many_rows(err);
    enum billing_mode mode;
    enum gq_code code = parse_mode(column_text(stmt, 1), &mode, err);
    if (code != GQ_OK)
        return code;
    sku->price[mode] = sqlite3_column_int64(stmt, 2);
    sku->priced[mode] = true;
    return GQ_OK;
}

static enum gq_code load_skus(struct loader *loader, struct gq_error *err)
{
    enum gq_code code = allocate_rows(loader, SQL_COUNT_SKUS, sizeof(struct sku),
                                      (void **)&loader->catalog->skus, err);
    if (code == GQ_OK)
        code = for_each_row(loader, SQL_SKUS, read_sku, err);
    if (code == GQ_OK)
        code = for_each_row(loader, SQL_PRICES, read_price, err);
    return code;
}

/* ---- Discount rules. ---- */

/* Billing mask of a rule: NULL is every billing, 'mixed' a mixed plan. */
static enum gq_code read_billing_mask(sqlite3_stmt *stmt, int column, uint32_t *out,
                                      struct gq_error *err)
{
    if (sqlite3_column_type(stmt, column) == SQLITE_NULL) {
        *out = DISCOUNT_BILLING_ALL;
        return GQ_OK;
    }
    const char *text = column_text(stmt, column);
    if (strcmp(text, "mixed") == 0) {
        *out = DISCOUNT_BILLING_MIXED;
        return GQ_OK;
    }
    enum billing_mode mode;
    enum gq_code code = parse_mode(text, &mode, err);
    if (code == GQ_OK)
        *out = 1u << mode;
    return code;
}

static void read_rule_amount(sqlite3_stmt *stmt, struct discount_rule *rule)
{
    if (sqlite3_column_type(stmt, 6) != SQLITE_NULL) {
        rule->kind = DISCOUNT_PERCENT;
        rule->basis_points = column_int32(stmt, 6);
    } else {
        rule->kind = DISCOUNT_FIXED;
        rule->fixed_amount = sqlite3_column_int64(stmt, 7);
    }
}

static enum gq_code read_rule(struct loader *loader, sqlite3_stmt *stmt, struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    if (catalog->n_rules >= loader->capacity)
        return too_many_rows(err);
    struct discount_rule *rule = &catalog->rules[catalog->n_rules++];
    enum gq_code code = copy_text(stmt, 0, &rule->id, err);
    if (code == GQ_OK)
        code = copy_text(stmt, 1, &rule->name, err);
    if (code == GQ_OK)
        code = read_segment_mask(stmt, 2, &rule->segment_mask, err);
    if (code == GQ_OK)
        code = read_billing_mask(stmt, 3, &rule->billing_mask, err);
    if (code == GQ_OK)
        code = copy_optional_text(stmt, 4, &rule->sku_id, err);
    if (code != GQ_OK)
        return code;
    rule->min_quantity = column_int32(stmt, 5);
    read_rule_amount(stmt, rule);
    rule->valid_from = sqlite3_column_int64(stmt, 8); /* NULL reads as 0: open */
    rule->valid_until = sqlite3_column_int64(stmt, 9);
    rule->priority = column_int32(stmt, 10);
    rule->stackable = sqlite3_column_int(stmt, 11) != 0;
    return GQ_OK;
}

static enum gq_code load_rules(struct loader *loader, struct gq_error *err)
{
    enum gq_code code = allocate_rows(loader, SQL_COUNT_RULES, sizeof(struct discount_rule),
                                      (void **)&loader->catalog->rules, err);
    return code == GQ_OK ? for_each_row(loader, SQL_RULES, read_rule, err) : code;
}

/* ---- Bundles. ---- */

static enum gq_code read_bundle(struct loader *loader, sqlite3_stmt *stmt, struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    if (catalog->n_bundles >= loader->capacity)
        return too_many_rows(err);
    struct bundle *bundle = &catalog->bundles[catalog->n_bundles++];
    enum gq_code code = copy_text(stmt, 0, &bundle->id, err);
    if (code == GQ_OK)
        code = copy_text(stmt, 1, &bundle->name, err);
    if (code == GQ_OK)
        code = copy_text(stmt, 2, &bundle->description, err);
    if (code == GQ_OK)
        code = read_segment_mask(stmt, 5, &bundle->segment_mask, err);
    bundle->list_price = sqlite3_column_int64(stmt, 3);
    bundle->price = sqlite3_column_int64(stmt, 4);
    bundle->valid_from = sqlite3_column_int64(stmt, 6);
    bundle->valid_until = sqlite3_column_int64(stmt, 7);
    return code;
}

/* Binary search among the bundles, which are sorted by id. */
static struct bundle *find_bundle(struct catalog *catalog, const char *id)
{
    size_t low = 0, high = catalog->n_bundles;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int order = strcmp(id, catalog->bundles[middle].id);
        if (order == 0)
            return &catalog->bundles[middle];
        if (order < 0)
            high = middle;
        else
            low = middle + 1;
    }
    return NULL;
}

static enum gq_code read_bundle_item(struct loader *loader, sqlite3_stmt *stmt,
                                     struct gq_error *err)
{
    struct bundle *bundle = find_bundle(loader->catalog, column_text(stmt, 0));
    if (bundle == NULL)
        return GQ_OK; /* left out: it contains an inactive SKU */
    const struct sku *sku = catalog_find_sku(loader->catalog, column_text(stmt, 1));
    if (sku == NULL)
        return too_many_rows(err);
    struct bundle_item *items = realloc(bundle->items, (bundle->n_items + 1) * sizeof *items);
    if (items == NULL)
        return no_memory(err);
    bundle->items = items;
    items[bundle->n_items].sku = sku;
    items[bundle->n_items].quantity = column_int32(stmt, 2);
    items[bundle->n_items].hours = column_int32(stmt, 3);
    bundle->n_items++;
    return GQ_OK;
}

static enum gq_code load_bundles(struct loader *loader, struct gq_error *err)
{
    enum gq_code code = allocate_rows(loader, SQL_COUNT_BUNDLES, sizeof(struct bundle),
                                      (void **)&loader->catalog->bundles, err);
    if (code == GQ_OK)
        code = for_each_row(loader, SQL_BUNDLES, read_bundle, err);
    if (code == GQ_OK)
        code = for_each_row(loader, SQL_BUNDLE_ITEMS, read_bundle_item, err);
    return code;
}

/* ---- The whole catalog. ---- */

static enum gq_code load_everything(struct loader *loader, struct gq_error *err)
{
    enum gq_code code = check_schema(loader, err);
    if (code == GQ_OK)
        code = load_price_list(loader, err);
    if (code == GQ_OK)
        code = load_models(loader, err);
    if (code == GQ_OK)
        code = load_modes(loader, err);
    if (code == GQ_OK)
        code = load_skus(loader, err);
    if (code == GQ_OK)
        code = load_rules(loader, err);
    if (code == GQ_OK)
        code = load_bundles(loader, err);
    return code;
}

/* See store.h. On failure *out is NULL and err says why: GQ_ERR_NOT_READY
 * for an unmigrated database, GQ_ERR_INVALID_VALUE for data that breaks the
 * catalog's invariants, GQ_ERR_RETRY_LATER/GQ_ERR_INTERNAL from SQLite. */
enum gq_code store_load_catalog(struct store *store, struct catalog **out, struct gq_error *err)
{
    assert(store != NULL && out != NULL);
    *out = NULL;
    struct catalog *catalog = calloc(1, sizeof *catalog);
    if (catalog == NULL)
        return no_memory(err);
    struct store_conn *conn = store_db_checkout(store);
    struct loader loader = {conn, catalog, 0};
    enum gq_code code = store_db_begin_read(conn, err);
    if (code == GQ_OK)
        code = load_everything(&loader, err);
    if (code == GQ_OK)
        code = store_db_commit(conn, err);
    store_db_end(conn);
    store_db_checkin(store, conn);
    if (code == GQ_OK)
        code = catalog_validate(catalog, err);
    if (code != GQ_OK) {
        catalog_free(catalog);
        return code;
    }
    *out = catalog;
    return GQ_OK;
}
