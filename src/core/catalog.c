/*
 * Names of the catalog's enumerations, lookups, invariants and freeing.
 */
#include "core/catalog.h"

#include <stdlib.h>
#include <string.h>
#include "core/names.h"

static const char *const billing_mode_ids[BILLING_MODE_COUNT] = {
    [BILLING_ON_DEMAND] = "on_demand",
    [BILLING_MONTHLY] = "monthly",
    [BILLING_QUARTERLY] = "quarterly",
    [BILLING_STUDENT] = "student",
};

static const char *const billing_mode_units[BILLING_MODE_COUNT] = {
    [BILLING_ON_DEMAND] = "hour",
    [BILLING_MONTHLY] = "month",
    [BILLING_QUARTERLY] = "quarter",
    [BILLING_STUDENT] = "hour",
};

static const char *const segment_ids[SEGMENT_COUNT] = {
    [SEGMENT_INDIVIDUAL] = "individual",
    [SEGMENT_STUDENT] = "student",
    [SEGMENT_STARTUP] = "startup",
    [SEGMENT_ENTERPRISE] = "enterprise",
};

static const char *const interconnect_ids[] = {
    [INTERCONNECT_NONE] = "none",
    [INTERCONNECT_PCIE] = "pcie",
    [INTERCONNECT_NVLINK] = "nvlink",
};

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

const char *billing_mode_id(enum billing_mode mode)
{
    return names_id(billing_mode_ids, BILLING_MODE_COUNT, mode);
}

const char *billing_mode_unit(enum billing_mode mode)
{
    return names_id(billing_mode_units, BILLING_MODE_COUNT, mode);
}

bool billing_mode_is_hourly(enum billing_mode mode)
{
    return mode == BILLING_ON_DEMAND || mode == BILLING_STUDENT;
}

bool billing_mode_parse(const char *text, enum billing_mode *out)
{
    int index = names_find(billing_mode_ids, BILLING_MODE_COUNT, text);
    if (index < 0)
        return false;
    *out = (enum billing_mode)index;
    return true;
}

const char *segment_id(enum customer_segment segment)
{
    return names_id(segment_ids, SEGMENT_COUNT, segment);
}

const struct names_table segment_names = {segment_ids, SEGMENT_COUNT, 0};

bool segment_parse(const char *text, enum customer_segment *out)
{
    int index = names_find(segment_ids, SEGMENT_COUNT, text);
    if (index < 0)
        return false;
    *out = (enum customer_segment)index;
    return true;
}

const char *interconnect_id(enum interconnect interconnect)
{
    return names_id(interconnect_ids, COUNT_OF(interconnect_ids), interconnect);
}

bool interconnect_parse(const char *text, enum interconnect *out)
{
    int index = names_find(interconnect_ids, COUNT_OF(interconnect_ids), text);
    if (index < 0)
        return false;
    *out = (enum interconnect)index;
    return true;
}

/* Each feature's least compute capability (times ten), its id and its
 * name; docs/sizing.md ("The cards' limits") gives the source of each. */
static const struct {
    const char *id;
    const char *name;
    int32_t min_compute_capability;
} gpu_features[GPU_FEATURE_COUNT] = {
    [GPU_FEATURE_BF16] = {"bf16", "bf16 tensor cores", 80},
    [GPU_FEATURE_FLASH_ATTENTION_2] = {"flash_attention_2", "FlashAttention 2 kernels", 80},
    [GPU_FEATURE_MEMORY_EFFICIENT_ATTENTION] = {"memory_efficient_attention",
                                                "memory-efficient attention kernels", 70},
    [GPU_FEATURE_GPTQ] = {"gptq", "GPTQ kernels", 70},
    [GPU_FEATURE_AWQ] = {"awq", "AWQ kernels", 75},
    [GPU_FEATURE_MARLIN] = {"marlin", "Marlin kernels", 80},
    [GPU_FEATURE_BITSANDBYTES] = {"bitsandbytes", "bitsandbytes kernels", 70},
    [GPU_FEATURE_W8A8_INT8] = {"w8a8_int8", "W8A8 int8 kernels", 75},
    [GPU_FEATURE_W8A8_FP8] = {"w8a8_fp8", "W8A8 fp8 kernels", 89},
    [GPU_FEATURE_FP8_KV_CACHE] = {"fp8_kv_cache", "FP8 KV cache kernels", 89},
};

const char *gpu_feature_id(enum gpu_feature feature)
{
    return (unsigned)feature < GPU_FEATURE_COUNT ? gpu_features[feature].id : "unknown";
}

const char *gpu_feature_name(enum gpu_feature feature)
{
    return (unsigned)feature < GPU_FEATURE_COUNT ? gpu_features[feature].name : "unknown";
}

int32_t gpu_feature_min_compute_capability(enum gpu_feature feature)
{
    return (unsigned)feature < GPU_FEATURE_COUNT ? gpu_features[feature].min_compute_capability
                                                 : INT32_MAX;
}

bool gpu_model_supports(const struct gpu_model *gpu, enum gpu_feature feature)
{
    if (gpu->compute_capability <= 0)
        return feature != GPU_FEATURE_BF16 || gpu->bf16_tflops > 0.0;
    return gpu->compute_capability >= gpu_feature_min_compute_capability(feature);
}

int32_t sku_total_memory_gb(const struct sku *sku)
{
    return sku->gpu->memory_gb * sku->gpu_count;
}

double sku_total_fp16_tflops(const struct sku *sku)
{
    return sku->gpu->fp16_tflops * sku->gpu_count;
}

const struct sku *catalog_find_sku(const struct catalog *catalog, const char *id)
{
    size_t low = 0, high = catalog->n_skus;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int order = strcmp(id, catalog->skus[middle].id);
        if (order == 0)
            return &catalog->skus[middle];
        if (order < 0)
            high = middle;
        else
            low = middle + 1;
    }
    return NULL;
}

const struct bundle *catalog_find_bundle(const struct catalog *catalog, const char *id)
{
    for (size_t i = 0; i < catalog->n_bundles; i++)
        if (strcmp(catalog->bundles[i].id, id) == 0)
            return &catalog->bundles[i];
    return NULL;
}

const struct model_shape *catalog_find_shape(const struct catalog *catalog, const char *id)
{
    size_t low = 0, high = catalog->n_shapes;
    while (id != NULL && low < high) {
        size_t middle = low + (high - low) / 2;
        int order = strcmp(id, catalog->shapes[middle].id);
        if (order == 0)
            return &catalog->shapes[middle];
        if (order < 0)
            high = middle;
        else
            low = middle + 1;
    }
    return NULL;
}

static bool dimension_ok(int32_t value, int32_t min)
{
    return value >= min && value <= MODEL_SHAPE_MAX_DIMENSION;
}

enum gq_code model_shape_check(const struct model_shape *shape, struct gq_error *err)
{
    const char *id = shape->id != NULL ? shape->id : "";
    if (!dimension_ok(shape->layers, 1) || !dimension_ok(shape->hidden, 1) ||
        !dimension_ok(shape->heads, 1) || !dimension_ok(shape->kv_heads, 1) ||
        !dimension_ok(shape->intermediate, 1) || !dimension_ok(shape->vocab, 1) ||
        !dimension_ok(shape->sliding_window, 0) || !dimension_ok(shape->max_position_embeddings, 0))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                       "model shape '%s' has a dimension out of range (1 to %d)", id,
                       MODEL_SHAPE_MAX_DIMENSION);
    if (shape->hidden % shape->heads != 0 || shape->heads % shape->kv_heads != 0)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                       "model shape '%s': heads must divide hidden and kv_heads divide heads", id);
    if (shape->params < 1 || shape->params > MODEL_SHAPE_MAX_PARAMS)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                       "model shape '%s' has a parameter count out of range", id);
    return GQ_OK;
}

bool validity_contains(int64_t valid_from, int64_t valid_until, int64_t now)
{
    if (valid_from != 0 && now < valid_from)
        return false;
    if (valid_until != 0 && now >= valid_until)
        return false;
    return true;
}

static bool price_is_sane(gq_money price)
{
    return price > 0 && price <= MONEY_MAX;
}

static enum gq_code validate_sku(const struct sku *sku, struct gq_error *err)
{
    if (sku->gpu == NULL || sku->gpu_count < 1)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "SKU '%s' has no GPU", sku->id);
    if (!sku->priced[BILLING_ON_DEMAND])
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "SKU '%s' has no on-demand price", sku->id);
    for (int mode = 0; mode < BILLING_MODE_COUNT; mode++)
        if (sku->priced[mode] && !price_is_sane(sku->price[mode]))
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "SKU '%s' has a %s price out of range",
                           sku->id, billing_mode_id((enum billing_mode)mode));
    return GQ_OK;
}

static enum gq_code validate_rule(const struct discount_rule *rule, struct gq_error *err)
{
    bool percent_ok =
        rule->kind == DISCOUNT_PERCENT && rule->basis_points >= 1 && rule->basis_points <= 10000;
    bool fixed_ok = rule->kind == DISCOUNT_FIXED && price_is_sane(rule->fixed_amount);
    if (!percent_ok && !fixed_ok)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "discount rule '%s' has no valid amount",
                       rule->id);
    return GQ_OK;
}

/* Plans assume a month of 30 days (720 h) and a quarter of 90 days
 * (2160 h), the seed's definition; a catalog saying otherwise is refused
 * rather than priced inconsistently. */
static enum gq_code validate_modes(const struct catalog *catalog, struct gq_error *err)
{
    static const int32_t expected_days[BILLING_MODE_COUNT] = {[BILLING_ON_DEMAND] = 0,
                                                              [BILLING_MONTHLY] = 30,
                                                              [BILLING_QUARTERLY] = 90,
                                                              [BILLING_STUDENT] = 0};
    for (int mode = 0; mode < BILLING_MODE_COUNT; mode++) {
        const struct billing_mode_info *info = &catalog->modes[mode];
        if (info->block_days != expected_days[mode] || info->block_hours != 24 * info->block_days)
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "billing mode '%s' must cover %d days",
                           billing_mode_id((enum billing_mode)mode), (int)expected_days[mode]);
    }
    return GQ_OK;
}

enum gq_code catalog_validate(const struct catalog *catalog, struct gq_error *err)
{
    enum gq_code modes_code = validate_modes(catalog, err);
    if (modes_code != GQ_OK)
        return modes_code;
    for (size_t i = 0; i < catalog->n_skus; i++) {
        if (i > 0 && strcmp(catalog->skus[i - 1].id, catalog->skus[i].id) >= 0)
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                           "SKUs are not sorted by id or repeat at '%s'", catalog->skus[i].id);
        enum gq_code code = validate_sku(&catalog->skus[i], err);
        if (code != GQ_OK)
            return code;
    }
    for (size_t i = 0; i < catalog->n_rules; i++) {
        enum gq_code code = validate_rule(&catalog->rules[i], err);
        if (code != GQ_OK)
            return code;
    }
    for (size_t i = 0; i < catalog->n_bundles; i++)
        if (!price_is_sane(catalog->bundles[i].price) ||
            !price_is_sane(catalog->bundles[i].list_price))
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "bundle '%s' has a price out of range",
                           catalog->bundles[i].id);
    for (size_t i = 0; i < catalog->n_shapes; i++) {
        if (i > 0 && strcmp(catalog->shapes[i - 1].id, catalog->shapes[i].id) >= 0)
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                           "model shapes are not sorted by id or repeat at '%s'",
                           catalog->shapes[i].id);
        enum gq_code code = model_shape_check(&catalog->shapes[i], err);
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

const char *catalog_name(const struct catalog_text text[GQ_LANG_COUNT], enum gq_lang lang,
                         const char *fallback)
{
    if ((unsigned)lang < GQ_LANG_COUNT && text[lang].name != NULL)
        return text[lang].name;
    return text[GQ_LANG_EN].name != NULL ? text[GQ_LANG_EN].name : fallback;
}

const char *catalog_description(const struct catalog_text text[GQ_LANG_COUNT], enum gq_lang lang,
                                const char *fallback)
{
    if ((unsigned)lang < GQ_LANG_COUNT && text[lang].description != NULL)
        return text[lang].description;
    if (text[GQ_LANG_EN].description != NULL)
        return text[GQ_LANG_EN].description;
    return fallback != NULL ? fallback : "";
}

bool catalog_lang_parse(const char *tag, enum gq_lang *out)
{
    for (int lang = 0; lang < GQ_LANG_COUNT; lang++)
        if (strcmp(tag, gq_lang_tag((enum gq_lang)lang)) == 0) {
            *out = (enum gq_lang)lang;
            return true;
        }
    return false;
}

static void free_texts(struct catalog_text text[GQ_LANG_COUNT])
{
    for (int lang = 0; lang < GQ_LANG_COUNT; lang++) {
        free(text[lang].name);
        free(text[lang].description);
    }
}

static void free_host(struct sku_host *host)
{
    if (host == NULL)
        return;
    free(host->instance_type);
    free(host->region_id);
    for (int lang = 0; lang < GQ_LANG_COUNT; lang++)
        free(host->region_name[lang]);
    free(host->software);
    free(host);
}

void catalog_free(struct catalog *catalog)
{
    if (catalog == NULL)
        return;
    for (size_t i = 0; i < catalog->n_models; i++) {
        free(catalog->models[i].id);
        free(catalog->models[i].name);
        free(catalog->models[i].memory_type);
    }
    free(catalog->models);
    for (size_t i = 0; i < catalog->n_skus; i++) {
        free(catalog->skus[i].id);
        free(catalog->skus[i].name);
        free_texts(catalog->skus[i].text);
        free_host(catalog->skus[i].host);
    }
    free(catalog->skus);
    for (int mode = 0; mode < BILLING_MODE_COUNT; mode++) {
        free(catalog->modes[mode].name);
        free(catalog->modes[mode].description);
        free_texts(catalog->modes[mode].text);
    }
    for (size_t i = 0; i < catalog->n_rules; i++) {
        free(catalog->rules[i].id);
        free(catalog->rules[i].name);
        free(catalog->rules[i].sku_id);
    }
    free(catalog->rules);
    for (size_t i = 0; i < catalog->n_bundles; i++) {
        free(catalog->bundles[i].id);
        free(catalog->bundles[i].name);
        free(catalog->bundles[i].description);
        free_texts(catalog->bundles[i].text);
        free(catalog->bundles[i].items);
    }
    free(catalog->bundles);
    free_texts(catalog->bundles_text);
    for (size_t i = 0; i < catalog->n_shapes; i++) {
        free(catalog->shapes[i].id);
        free(catalog->shapes[i].name);
        free(catalog->shapes[i].source);
    }
    free(catalog->shapes);
    free(catalog->currency);
    free(catalog);
}
