/*
 * Reading the catalog, the same for every backend: the backend runs the
 * CATALOG_QUERY_* queries (backend.h) in one read transaction, so the
 * snapshot and its price_list_version agree, and hands each row here; this
 * file turns rows into one `struct catalog`.
 *
 * Arrays grow as rows come. Rows may come in any order (a PostgreSQL
 * database sorts text by its collation, not by bytes): models, SKUs,
 * bundles and model shapes are sorted by id with strcmp() once their query
 * has returned, as the catalog's binary searches need, and rules by
 * priority then id. SKUs name their model and prices their SKU, so the
 * queries come in that order. The result is checked by catalog_validate() before it is handed
 * over. Loading 10,000 SKUs takes a few tens of milliseconds.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "store/backend.h"
#include "store/queries.h"
#include "store/store.h"

struct loader {
    struct catalog_reader reader; /* first: the backend calls back with it */
    struct catalog *catalog;
    size_t capacity; /* of the array the current query fills */
    bool has_price_list;
};

/* ---- Helpers. ---- */

static enum gq_code no_memory(struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory loading the catalog");
}

static bool row_is_null(const struct store_row *row, int column)
{
    return row->ops->is_null(row, column);
}

static const char *row_text(const struct store_row *row, int column)
{
    const char *text = row->ops->text(row, column);
    return text != NULL ? text : "";
}

static int64_t row_integer(const struct store_row *row, int column)
{
    return row->ops->integer(row, column);
}

static int32_t row_int32(const struct store_row *row, int column)
{
    return (int32_t)row->ops->integer(row, column);
}

static double row_real(const struct store_row *row, int column)
{
    return row->ops->real(row, column);
}

/* A copy of a text column; NULL (never expected for these) becomes "". */
static enum gq_code copy_text(const struct store_row *row, int column, char **out,
                              struct gq_error *err)
{
    *out = strdup(row_text(row, column));
    return *out != NULL ? GQ_OK : no_memory(err);
}

/* A copy of a nullable text column: NULL stays NULL. */
static enum gq_code copy_optional_text(const struct store_row *row, int column, char **out,
                                       struct gq_error *err)
{
    if (row_is_null(row, column)) {
        *out = NULL;
        return GQ_OK;
    }
    return copy_text(row, column, out, err);
}

/* Makes room for one more element in *array (of *count, `size` bytes
 * each), doubling the loader's capacity; the new element is zeroed. */
static void *append_element(struct loader *loader, void **array, size_t *count, size_t size,
                            struct gq_error *err)
{
    if (*count == loader->capacity) {
        size_t capacity = loader->capacity ? loader->capacity * 2 : 16;
        void *grown = realloc(*array, capacity * size);
        if (grown == NULL) {
            no_memory(err);
            return NULL;
        }
        *array = grown;
        loader->capacity = capacity;
    }
    void *element = (char *)*array + *count * size;
    memset(element, 0, size);
    (*count)++;
    return element;
}

/* Segment mask of a nullable segment column: NULL means every segment. */
static enum gq_code read_segment_mask(const struct store_row *row, int column, uint32_t *out,
                                      struct gq_error *err)
{
    if (row_is_null(row, column)) {
        *out = SEGMENT_MASK_ALL;
        return GQ_OK;
    }
    enum customer_segment segment;
    if (!segment_parse(row_text(row, column), &segment))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "unknown customer segment '%s'",
                       row_text(row, column));
    *out = SEGMENT_BIT(segment);
    return GQ_OK;
}

static enum gq_code parse_mode(const char *text, enum billing_mode *out, struct gq_error *err)
{
    if (!billing_mode_parse(text, out))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "unknown billing mode '%s'", text);
    return GQ_OK;
}

static int compare_ids(const char *a, const char *b)
{
    return strcmp(a, b);
}

/* ---- Price list. ---- */

static enum gq_code read_price_list(struct loader *loader, const struct store_row *row,
                                    struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    if (loader->has_price_list)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "the database has two price lists");
    loader->has_price_list = true;
    catalog->price_list_version = row_integer(row, PRICE_LIST_COL_VERSION);
    catalog->price_list_updated_at = row_integer(row, PRICE_LIST_COL_UPDATED_AT);
    return copy_text(row, PRICE_LIST_COL_CURRENCY, &catalog->currency, err);
}

/* ---- GPU models. ---- */

static enum gq_code read_model(struct loader *loader, const struct store_row *row,
                               struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    struct gpu_model *model =
        append_element(loader, (void **)&catalog->models, &catalog->n_models, sizeof *model, err);
    if (model == NULL)
        return GQ_ERR_NO_MEMORY;
    model->memory_gb = row_int32(row, MODEL_COL_MEMORY_GB);
    model->fp16_tflops = row_real(row, MODEL_COL_FP16_TFLOPS);
    model->memory_bandwidth_gbps = row_int32(row, MODEL_COL_MEMORY_BANDWIDTH_GBPS);
    model->tdp_watts = row_int32(row, MODEL_COL_TDP_WATTS);
    model->fp32_tflops = row_real(row, MODEL_COL_FP32_TFLOPS);
    model->bf16_tflops = row_real(row, MODEL_COL_BF16_TFLOPS);
    model->compute_capability = row_int32(row, MODEL_COL_COMPUTE_CAPABILITY);
    enum gq_code code = copy_text(row, MODEL_COL_ID, &model->id, err);
    if (code == GQ_OK)
        code = copy_text(row, MODEL_COL_NAME, &model->name, err);
    if (code == GQ_OK)
        code = copy_text(row, MODEL_COL_MEMORY_TYPE, &model->memory_type, err);
    /* Training in fp32 (and bf16 without BF16 tensor cores) is timed at it. */
    if (code == GQ_OK && !(model->fp32_tflops > 0.0))
        code = gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                       "GPU model '%s' has no fp32_tflops (its FP32 peak: UPDATE gpu_models SET "
                       "fp32_tflops = ... WHERE id = '%s')",
                       model->id, model->id);
    return code;
}

static int compare_models(const void *a, const void *b)
{
    return compare_ids(((const struct gpu_model *)a)->id, ((const struct gpu_model *)b)->id);
}

/* Binary search among the models, sorted by id once read. */
static const struct gpu_model *find_model(const struct catalog *catalog, const char *id)
{
    struct gpu_model key = {.id = (char *)id};
    return bsearch(&key, catalog->models, catalog->n_models, sizeof key, compare_models);
}

/* ---- Billing modes. ---- */

static enum gq_code read_mode(struct loader *loader, const struct store_row *row,
                              struct gq_error *err)
{
    enum billing_mode mode;
    enum gq_code code = parse_mode(row_text(row, MODE_COL_ID), &mode, err);
    if (code != GQ_OK)
        return code;
    struct billing_mode_info *info = &loader->catalog->modes[mode];
    if (info->name != NULL)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "billing mode '%s' is there twice",
                       row_text(row, MODE_COL_ID));
    info->block_hours = row_int32(row, MODE_COL_BLOCK_HOURS);
    info->block_days = row_int32(row, MODE_COL_BLOCK_DAYS);
    info->list_basis_points = row_int32(row, MODE_COL_LIST_BASIS_POINTS);
    code = copy_text(row, MODE_COL_NAME, &info->name, err);
    if (code == GQ_OK)
        code = copy_text(row, MODE_COL_DESCRIPTION, &info->description, err);
    return code;
}

static enum gq_code check_modes(struct loader *loader, struct gq_error *err)
{
    for (int mode = 0; mode < BILLING_MODE_COUNT; mode++)
        if (loader->catalog->modes[mode].name == NULL)
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                           "billing mode '%s' is missing from the database",
                           billing_mode_id((enum billing_mode)mode));
    return GQ_OK;
}

static enum gq_code read_mode_segment(struct loader *loader, const struct store_row *row,
                                      struct gq_error *err)
{
    enum billing_mode mode;
    enum gq_code code = parse_mode(row_text(row, MODE_SEGMENT_COL_MODE_ID), &mode, err);
    uint32_t mask = 0;
    if (code == GQ_OK)
        code = read_segment_mask(row, MODE_SEGMENT_COL_SEGMENT_ID, &mask, err);
    if (code == GQ_OK)
        loader->catalog->modes[mode].segment_mask |= mask;
    return code;
}

/* ---- SKUs and their prices. ---- */

static enum gq_code read_sku(struct loader *loader, const struct store_row *row,
                             struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    struct sku *sku =
        append_element(loader, (void **)&catalog->skus, &catalog->n_skus, sizeof *sku, err);
    if (sku == NULL)
        return GQ_ERR_NO_MEMORY;
    enum gq_code code = copy_text(row, SKU_COL_ID, &sku->id, err);
    if (code == GQ_OK)
        code = copy_text(row, SKU_COL_NAME, &sku->name, err);
    if (code != GQ_OK)
        return code;
    sku->gpu = find_model(catalog, row_text(row, SKU_COL_GPU_MODEL_ID));
    if (sku->gpu == NULL)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "SKU '%s' names unknown GPU model '%s'",
                       sku->id, row_text(row, SKU_COL_GPU_MODEL_ID));
    sku->gpu_count = row_int32(row, SKU_COL_GPU_COUNT);
    if (!interconnect_parse(row_text(row, SKU_COL_INTERCONNECT), &sku->interconnect))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "SKU '%s' has unknown interconnect '%s'",
                       sku->id, row_text(row, SKU_COL_INTERCONNECT));
    sku->available = row_integer(row, SKU_COL_AVAILABLE) != 0;
    return GQ_OK;
}

static int compare_skus(const void *a, const void *b)
{
    return compare_ids(((const struct sku *)a)->id, ((const struct sku *)b)->id);
}

static enum gq_code read_price(struct loader *loader, const struct store_row *row,
                               struct gq_error *err)
{
    /* The cast drops const: the catalog is still being built. */
    struct sku *sku =
        (struct sku *)catalog_find_sku(loader->catalog, row_text(row, PRICE_COL_SKU_ID));
    if (sku == NULL)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "a price names SKU '%s', which was not read",
                       row_text(row, PRICE_COL_SKU_ID));
    enum billing_mode mode;
    enum gq_code code = parse_mode(row_text(row, PRICE_COL_MODE_ID), &mode, err);
    if (code != GQ_OK)
        return code;
    sku->price[mode] = row_integer(row, PRICE_COL_AMOUNT_FEN);
    sku->priced[mode] = true;
    return GQ_OK;
}

/* ---- Discount rules. ---- */

/* Billing mask of a rule: NULL is every billing, 'mixed' a mixed plan. */
static enum gq_code read_billing_mask(const struct store_row *row, int column, uint32_t *out,
                                      struct gq_error *err)
{
    if (row_is_null(row, column)) {
        *out = DISCOUNT_BILLING_ALL;
        return GQ_OK;
    }
    const char *text = row_text(row, column);
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

static void read_rule_amount(const struct store_row *row, struct discount_rule *rule)
{
    if (!row_is_null(row, RULE_COL_BASIS_POINTS)) {
        rule->kind = DISCOUNT_PERCENT;
        rule->basis_points = row_int32(row, RULE_COL_BASIS_POINTS);
    } else {
        rule->kind = DISCOUNT_FIXED;
        rule->fixed_amount = row_integer(row, RULE_COL_FIXED_AMOUNT_FEN);
    }
}

static enum gq_code read_rule(struct loader *loader, const struct store_row *row,
                              struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    struct discount_rule *rule =
        append_element(loader, (void **)&catalog->rules, &catalog->n_rules, sizeof *rule, err);
    if (rule == NULL)
        return GQ_ERR_NO_MEMORY;
    enum gq_code code = copy_text(row, RULE_COL_ID, &rule->id, err);
    if (code == GQ_OK)
        code = copy_text(row, RULE_COL_NAME, &rule->name, err);
    if (code == GQ_OK)
        code = read_segment_mask(row, RULE_COL_SEGMENT, &rule->segment_mask, err);
    if (code == GQ_OK)
        code = read_billing_mask(row, RULE_COL_BILLING, &rule->billing_mask, err);
    if (code == GQ_OK)
        code = copy_optional_text(row, RULE_COL_SKU_ID, &rule->sku_id, err);
    if (code != GQ_OK)
        return code;
    rule->min_quantity = row_int32(row, RULE_COL_MIN_QUANTITY);
    read_rule_amount(row, rule);
    rule->valid_from = row_integer(row, RULE_COL_VALID_FROM);
    rule->valid_until = row_integer(row, RULE_COL_VALID_UNTIL);
    rule->priority = row_int32(row, RULE_COL_PRIORITY);
    rule->stackable = row_integer(row, RULE_COL_STACKABLE) != 0;
    return GQ_OK;
}

/* Stackable rules apply lowest priority first, ties by id. */
static int compare_rules(const void *a, const void *b)
{
    const struct discount_rule *left = a, *right = b;
    if (left->priority != right->priority)
        return left->priority < right->priority ? -1 : 1;
    return compare_ids(left->id, right->id);
}

/* ---- Bundles. ---- */

static enum gq_code read_bundle(struct loader *loader, const struct store_row *row,
                                struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    struct bundle *bundle = append_element(loader, (void **)&catalog->bundles, &catalog->n_bundles,
                                           sizeof *bundle, err);
    if (bundle == NULL)
        return GQ_ERR_NO_MEMORY;
    enum gq_code code = copy_text(row, BUNDLE_COL_ID, &bundle->id, err);
    if (code == GQ_OK)
        code = copy_text(row, BUNDLE_COL_NAME, &bundle->name, err);
    if (code == GQ_OK)
        code = copy_text(row, BUNDLE_COL_DESCRIPTION, &bundle->description, err);
    if (code == GQ_OK)
        code = read_segment_mask(row, BUNDLE_COL_SEGMENT, &bundle->segment_mask, err);
    bundle->list_price = row_integer(row, BUNDLE_COL_LIST_PRICE_FEN);
    bundle->price = row_integer(row, BUNDLE_COL_PRICE_FEN);
    bundle->valid_from = row_integer(row, BUNDLE_COL_VALID_FROM);
    bundle->valid_until = row_integer(row, BUNDLE_COL_VALID_UNTIL);
    return code;
}

static int compare_bundles(const void *a, const void *b)
{
    return compare_ids(((const struct bundle *)a)->id, ((const struct bundle *)b)->id);
}

static struct bundle *find_bundle(struct catalog *catalog, const char *id)
{
    struct bundle key = {.id = (char *)id};
    return bsearch(&key, catalog->bundles, catalog->n_bundles, sizeof key, compare_bundles);
}

static enum gq_code read_bundle_item(struct loader *loader, const struct store_row *row,
                                     struct gq_error *err)
{
    struct bundle *bundle = find_bundle(loader->catalog, row_text(row, ITEM_COL_BUNDLE_ID));
    if (bundle == NULL)
        return GQ_OK; /* left out: it contains an inactive SKU */
    const struct sku *sku = catalog_find_sku(loader->catalog, row_text(row, ITEM_COL_SKU_ID));
    if (sku == NULL)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "bundle '%s' names SKU '%s', not read",
                       bundle->id, row_text(row, ITEM_COL_SKU_ID));
    struct bundle_item *items = realloc(bundle->items, (bundle->n_items + 1) * sizeof *items);
    if (items == NULL)
        return no_memory(err);
    bundle->items = items;
    items[bundle->n_items].sku = sku;
    items[bundle->n_items].quantity = row_int32(row, ITEM_COL_QUANTITY);
    items[bundle->n_items].hours = row_int32(row, ITEM_COL_HOURS);
    bundle->n_items++;
    return GQ_OK;
}

/* Bundle items in a fixed order (by SKU id), whatever the database gave. */
static int compare_bundle_items(const void *a, const void *b)
{
    return compare_ids(((const struct bundle_item *)a)->sku->id,
                       ((const struct bundle_item *)b)->sku->id);
}

/* ---- Texts in each language, and hosts. ---- */

/* Fills text[lang] from a row's name and description columns (`column`,
 * `column` + 1; no description when `column` + 1 is -1). A language the
 * service does not speak is skipped. */
static enum gq_code read_text(const struct store_row *row, int lang_column, int name_column,
                              int description_column, struct catalog_text text[GQ_LANG_COUNT],
                              const char *what, struct gq_error *err)
{
    enum gq_lang lang;
    if (!catalog_lang_parse(row_text(row, lang_column), &lang))
        return GQ_OK;
    if (text[lang].name != NULL)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "%s has two %s texts", what,
                       row_text(row, lang_column));
    enum gq_code code = copy_text(row, name_column, &text[lang].name, err);
    if (code == GQ_OK && description_column >= 0)
        code = copy_text(row, description_column, &text[lang].description, err);
    return code;
}

static enum gq_code read_sku_text(struct loader *loader, const struct store_row *row,
                                  struct gq_error *err)
{
    /* The cast drops const: the catalog is still being built. */
    struct sku *sku =
        (struct sku *)catalog_find_sku(loader->catalog, row_text(row, TEXT_COL_OWNER));
    if (sku == NULL)
        return GQ_OK; /* an inactive SKU's */
    return read_text(row, TEXT_COL_LANG, TEXT_COL_NAME, TEXT_COL_DESCRIPTION, sku->text, sku->id,
                     err);
}

static enum gq_code read_mode_text(struct loader *loader, const struct store_row *row,
                                   struct gq_error *err)
{
    enum billing_mode mode;
    enum gq_code code = parse_mode(row_text(row, TEXT_COL_OWNER), &mode, err);
    if (code != GQ_OK)
        return code;
    return read_text(row, TEXT_COL_LANG, TEXT_COL_NAME, TEXT_COL_DESCRIPTION,
                     loader->catalog->modes[mode].text, billing_mode_id(mode), err);
}

static enum gq_code read_bundle_text(struct loader *loader, const struct store_row *row,
                                     struct gq_error *err)
{
    struct bundle *bundle = find_bundle(loader->catalog, row_text(row, TEXT_COL_OWNER));
    if (bundle == NULL)
        return GQ_OK; /* left out: it contains an inactive SKU */
    return read_text(row, TEXT_COL_LANG, TEXT_COL_NAME, TEXT_COL_DESCRIPTION, bundle->text,
                     bundle->id, err);
}

static enum gq_code read_catalog_text(struct loader *loader, const struct store_row *row,
                                      struct gq_error *err)
{
    if (strcmp(row_text(row, TEXT_COL_OWNER), "bundles") != 0)
        return GQ_OK; /* a subject this version shows nowhere */
    return read_text(row, TEXT_COL_LANG, TEXT_COL_NAME, TEXT_COL_DESCRIPTION,
                     loader->catalog->bundles_text, "the bundles", err);
}

static enum gq_code read_host(struct loader *loader, const struct store_row *row,
                              struct gq_error *err)
{
    struct sku *sku =
        (struct sku *)catalog_find_sku(loader->catalog, row_text(row, HOST_COL_SKU_ID));
    if (sku == NULL)
        return GQ_OK; /* an inactive SKU's */
    if (sku->host != NULL)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "SKU '%s' has two hosts", sku->id);
    struct sku_host *host = calloc(1, sizeof *host);
    if (host == NULL)
        return no_memory(err);
    sku->host = host; /* freed with the catalog from here on */
    host->vcpus = row_int32(row, HOST_COL_VCPUS);
    host->memory_gib = row_int32(row, HOST_COL_MEMORY_GIB);
    host->system_disk_gb = row_int32(row, HOST_COL_SYSTEM_DISK_GB);
    host->bandwidth_gbps = row_real(row, HOST_COL_BANDWIDTH_GBPS);
    host->provisioning_min_minutes = row_int32(row, HOST_COL_PROVISIONING_MIN_MINUTES);
    host->provisioning_max_minutes = row_int32(row, HOST_COL_PROVISIONING_MAX_MINUTES);
    host->provisioning_average_minutes = row_int32(row, HOST_COL_PROVISIONING_AVERAGE_MINUTES);
    host->ssh = row_integer(row, HOST_COL_SSH) != 0;
    enum gq_code code = copy_text(row, HOST_COL_INSTANCE_TYPE, &host->instance_type, err);
    if (code == GQ_OK)
        code = copy_text(row, HOST_COL_REGION_ID, &host->region_id, err);
    if (code == GQ_OK)
        code = copy_text(row, HOST_COL_SOFTWARE, &host->software, err);
    return code;
}

/* A region's name goes to every host in that region. */
static enum gq_code read_region_text(struct loader *loader, const struct store_row *row,
                                     struct gq_error *err)
{
    enum gq_lang lang;
    if (!catalog_lang_parse(row_text(row, REGION_TEXT_COL_LANG), &lang))
        return GQ_OK;
    struct catalog *catalog = loader->catalog;
    for (size_t i = 0; i < catalog->n_skus; i++) {
        struct sku_host *host = catalog->skus[i].host;
        if (host == NULL ||
            strcmp(host->region_id, row_text(row, REGION_TEXT_COL_REGION_ID)) != 0 ||
            host->region_name[lang] != NULL)
            continue;
        enum gq_code code = copy_text(row, REGION_TEXT_COL_NAME, &host->region_name[lang], err);
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

/* qsort() of `count` elements; none is no call, since an empty array is
 * NULL here and qsort's pointer may not be (UBSan stops there). */
static void sort_rows(void *rows, size_t count, size_t size,
                      int (*compare)(const void *, const void *))
{
    if (count > 1)
        qsort(rows, count, size, compare);
}

/* ---- Model shapes. ---- */

static enum gq_code read_shape(struct loader *loader, const struct store_row *row,
                               struct gq_error *err)
{
    struct catalog *catalog = loader->catalog;
    struct model_shape *shape =
        append_element(loader, (void **)&catalog->shapes, &catalog->n_shapes, sizeof *shape, err);
    if (shape == NULL)
        return GQ_ERR_NO_MEMORY;
    enum gq_code code = copy_text(row, SHAPE_COL_ID, &shape->id, err);
    if (code == GQ_OK)
        code = copy_text(row, SHAPE_COL_NAME, &shape->name, err);
    if (code == GQ_OK)
        code = copy_text(row, SHAPE_COL_SOURCE, &shape->source, err);
    shape->layers = row_int32(row, SHAPE_COL_LAYERS);
    shape->hidden = row_int32(row, SHAPE_COL_HIDDEN);
    shape->heads = row_int32(row, SHAPE_COL_HEADS);
    shape->kv_heads = row_int32(row, SHAPE_COL_KV_HEADS);
    shape->intermediate = row_int32(row, SHAPE_COL_INTERMEDIATE);
    shape->vocab = row_int32(row, SHAPE_COL_VOCAB);
    shape->sliding_window = row_int32(row, SHAPE_COL_SLIDING_WINDOW);
    shape->params = row_integer(row, SHAPE_COL_PARAMS);
    shape->max_position_embeddings = row_int32(row, SHAPE_COL_MAX_POSITION_EMBEDDINGS);
    return code;
}

static int compare_shapes(const void *a, const void *b)
{
    return compare_ids(((const struct model_shape *)a)->id, ((const struct model_shape *)b)->id);
}

/* ---- The reader the backend calls. ---- */

static enum gq_code handle_row(struct catalog_reader *reader, enum catalog_query query,
                               const struct store_row *row, struct gq_error *err)
{
    struct loader *loader = (struct loader *)reader;
    switch (query) {
    case CATALOG_QUERY_PRICE_LIST:
        return read_price_list(loader, row, err);
    case CATALOG_QUERY_MODELS:
        return read_model(loader, row, err);
    case CATALOG_QUERY_MODES:
        return read_mode(loader, row, err);
    case CATALOG_QUERY_MODE_SEGMENTS:
        return read_mode_segment(loader, row, err);
    case CATALOG_QUERY_SKUS:
        return read_sku(loader, row, err);
    case CATALOG_QUERY_PRICES:
        return read_price(loader, row, err);
    case CATALOG_QUERY_RULES:
        return read_rule(loader, row, err);
    case CATALOG_QUERY_BUNDLES:
        return read_bundle(loader, row, err);
    case CATALOG_QUERY_BUNDLE_ITEMS:
        return read_bundle_item(loader, row, err);
    case CATALOG_QUERY_SKU_TEXTS:
        return read_sku_text(loader, row, err);
    case CATALOG_QUERY_MODE_TEXTS:
        return read_mode_text(loader, row, err);
    case CATALOG_QUERY_BUNDLE_TEXTS:
        return read_bundle_text(loader, row, err);
    case CATALOG_QUERY_CATALOG_TEXTS:
        return read_catalog_text(loader, row, err);
    case CATALOG_QUERY_SKU_HOSTS:
        return read_host(loader, row, err);
    case CATALOG_QUERY_REGION_TEXTS:
        return read_region_text(loader, row, err);
    case CATALOG_QUERY_SHAPES:
        return read_shape(loader, row, err);
    case CATALOG_QUERY_COUNT:
    default:
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "unknown catalog query %d", (int)query);
    }
}

static enum gq_code handle_end(struct catalog_reader *reader, enum catalog_query query,
                               struct gq_error *err)
{
    struct loader *loader = (struct loader *)reader;
    struct catalog *catalog = loader->catalog;
    loader->capacity = 0; /* the next query fills another array */
    switch (query) {
    case CATALOG_QUERY_PRICE_LIST:
        if (!loader->has_price_list)
            return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                           "the database has no price list (run 'gpuquote migrate')");
        return GQ_OK;
    case CATALOG_QUERY_MODELS:
        sort_rows(catalog->models, catalog->n_models, sizeof *catalog->models, compare_models);
        return GQ_OK;
    case CATALOG_QUERY_MODES:
        return check_modes(loader, err);
    case CATALOG_QUERY_SKUS:
        sort_rows(catalog->skus, catalog->n_skus, sizeof *catalog->skus, compare_skus);
        return GQ_OK;
    case CATALOG_QUERY_RULES:
        sort_rows(catalog->rules, catalog->n_rules, sizeof *catalog->rules, compare_rules);
        return GQ_OK;
    case CATALOG_QUERY_BUNDLES:
        sort_rows(catalog->bundles, catalog->n_bundles, sizeof *catalog->bundles, compare_bundles);
        return GQ_OK;
    case CATALOG_QUERY_BUNDLE_ITEMS:
        for (size_t i = 0; i < catalog->n_bundles; i++)
            sort_rows(catalog->bundles[i].items, catalog->bundles[i].n_items,
                      sizeof *catalog->bundles[i].items, compare_bundle_items);
        return GQ_OK;
    case CATALOG_QUERY_SHAPES:
        sort_rows(catalog->shapes, catalog->n_shapes, sizeof *catalog->shapes, compare_shapes);
        return GQ_OK;
    default:
        return GQ_OK;
    }
}

/* See backend.h. */
enum gq_code store_build_catalog(store_catalog_feed feed, void *context, struct catalog **out,
                                 struct gq_error *err)
{
    assert(feed != NULL && out != NULL);
    *out = NULL;
    struct catalog *catalog = calloc(1, sizeof *catalog);
    if (catalog == NULL)
        return no_memory(err);
    struct loader loader = {.reader = {handle_row, handle_end}, .catalog = catalog};
    enum gq_code code = feed(context, &loader.reader, err);
    if (code == GQ_OK)
        code = catalog_validate(catalog, err);
    if (code != GQ_OK) {
        catalog_free(catalog);
        return code;
    }
    *out = catalog;
    return GQ_OK;
}

static enum gq_code feed_from_database(void *context, struct catalog_reader *reader,
                                       struct gq_error *err)
{
    struct store *store = context;
    return store_ops(store)->read_catalog(store_backend(store), reader, err);
}

/* See store.h. On failure *out is NULL and err says why: GQ_ERR_NOT_READY
 * for an unmigrated database, GQ_ERR_INVALID_VALUE for data that breaks the
 * catalog's invariants, GQ_ERR_RETRY_LATER/GQ_ERR_INTERNAL from the
 * database. */
enum gq_code store_load_catalog(struct store *store, struct catalog **out, struct gq_error *err)
{
    assert(store != NULL);
    return store_build_catalog(feed_from_database, store, out, err);
}
