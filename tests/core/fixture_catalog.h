/*
 * The seed catalog as a test fixture: the three GPU models, the five SKUs
 * with their exact list prices (the seed price list's), the four billing
 * modes and the model shapes of migration 0006 (docs/sizing.md cites each
 * one's config.json), built in memory with no database, so every core test
 * can price and size against the real figures.
 *
 * fixture_catalog_new() returns a catalog that owns everything it points
 * to, allocated as catalog_free() expects; the caller frees it with
 * catalog_free(). It aborts on allocation failure (a test cannot go on).
 * Add discount rules or SKUs with the helpers below before the first use.
 */
#ifndef GQ_TESTS_FIXTURE_CATALOG_H
#define GQ_TESTS_FIXTURE_CATALOG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"

enum fixture_model { FIXTURE_V100_16G, FIXTURE_V100_32G, FIXTURE_T4_16G, FIXTURE_MODEL_COUNT };

/* Everything a fixture SKU needs, in fen. */
struct fixture_sku {
    const char *id;
    const char *name;
    enum fixture_model model;
    int32_t gpu_count;
    gq_money on_demand;    /* per instance-hour */
    gq_money monthly;      /* per 720 h block */
    gq_money quarterly;    /* per 2160 h block */
    gq_money student;      /* per instance-hour */
    double network_gbit_s; /* the host's (migration 0005); 0: no host */
};

/* The seed price list, sorted by id as the catalog requires. */
static const struct fixture_sku fixture_seed_skus[] = {
    {"t4-16g-x1", "T4 16GB × 1", FIXTURE_T4_16G, 1, 990, 535000, 1432100, 650, 4.0},
    {"v100-16g-x1", "V100 16GB × 1", FIXTURE_V100_16G, 1, 228, 123100, 330500, 150, 2.5},
    {"v100-16g-x2", "V100 16GB × 2", FIXTURE_V100_16G, 2, 428, 231100, 619900, 280, 5.0},
    {"v100-32g-x4", "V100 32GB × 4", FIXTURE_V100_32G, 4, 968, 522700, 1401800, 638, 16.0},
    {"v100-32g-x8", "V100 32GB × 8", FIXTURE_V100_32G, 8, 1928, 1041100, 2790700, 1268, 32.0},
};
#define FIXTURE_SEED_SKU_COUNT (sizeof fixture_seed_skus / sizeof fixture_seed_skus[0])

/* Migration 0006's model shapes, sorted by id; tests/store checks that the
 * migration loads exactly these. */
struct fixture_shape {
    const char *id;
    const char *name;
    int32_t layers, hidden, heads, kv_heads, intermediate, vocab, sliding_window;
    int64_t params;
    const char *source;
    int32_t max_position_embeddings; /* migration 0018's */
};

#define FIXTURE_HF "https://huggingface.co/"
static const struct fixture_shape fixture_shapes[] = {
    {"deepseek-llm-7b", "DeepSeek-LLM 7B", 30, 4096, 32, 32, 11008, 102400, 0, 6910365696,
     FIXTURE_HF "deepseek-ai/deepseek-llm-7b-base/blob/main/config.json", 4096},
    {"llama-2-13b", "Llama-2 13B", 40, 5120, 40, 40, 13824, 32000, 0, 13015864320,
     FIXTURE_HF "meta-llama/Llama-2-13b-hf/blob/main/config.json", 4096},
    {"llama-2-70b", "Llama-2 70B", 80, 8192, 64, 8, 28672, 32000, 0, 68976648192,
     FIXTURE_HF "meta-llama/Llama-2-70b-hf/blob/main/config.json", 4096},
    {"llama-2-7b", "Llama-2 7B", 32, 4096, 32, 32, 11008, 32000, 0, 6738415616,
     FIXTURE_HF "meta-llama/Llama-2-7b-hf/blob/main/config.json", 4096},
    {"llama-3-70b", "Llama-3 70B", 80, 8192, 64, 8, 28672, 128256, 0, 70553706496,
     FIXTURE_HF "meta-llama/Meta-Llama-3-70B/blob/main/config.json", 8192},
    {"llama-3-8b", "Llama-3 8B", 32, 4096, 32, 8, 14336, 128256, 0, 8030261248,
     FIXTURE_HF "meta-llama/Meta-Llama-3-8B/blob/main/config.json", 8192},
    {"mistral-7b", "Mistral 7B", 32, 4096, 32, 8, 14336, 32000, 4096, 7241732096,
     FIXTURE_HF "mistralai/Mistral-7B-v0.1/blob/main/config.json", 32768},
    {"qwen2.5-14b", "Qwen2.5 14B", 48, 5120, 40, 8, 13824, 152064, 0, 14770033664,
     FIXTURE_HF "Qwen/Qwen2.5-14B/blob/main/config.json", 131072},
    {"qwen2.5-32b", "Qwen2.5 32B", 64, 5120, 40, 8, 27648, 152064, 0, 32763876352,
     FIXTURE_HF "Qwen/Qwen2.5-32B/blob/main/config.json", 131072},
    {"qwen2.5-72b", "Qwen2.5 72B", 80, 8192, 64, 8, 29568, 152064, 0, 72706203648,
     FIXTURE_HF "Qwen/Qwen2.5-72B/blob/main/config.json", 131072},
    {"qwen2.5-7b", "Qwen2.5 7B", 28, 3584, 28, 4, 18944, 152064, 0, 7615616512,
     FIXTURE_HF "Qwen/Qwen2.5-7B/blob/main/config.json", 131072},
};
#define FIXTURE_SHAPE_COUNT (sizeof fixture_shapes / sizeof fixture_shapes[0])

static inline void *fixture_alloc(size_t size)
{
    void *memory = calloc(1, size);
    if (memory == NULL) {
        fprintf(stderr, "fixture: out of memory\n");
        abort();
    }
    return memory;
}

static inline char *fixture_strdup(const char *text)
{
    char *copy = fixture_alloc(strlen(text) + 1);
    memcpy(copy, text, strlen(text) + 1);
    return copy;
}

static inline void fixture_set_model(struct gpu_model *model, const char *id, const char *name,
                                     int32_t memory_gb, const char *memory_type, double tflops,
                                     double fp32_tflops, int32_t bandwidth_gbps, int32_t tdp_watts)
{
    model->id = fixture_strdup(id);
    model->name = fixture_strdup(name);
    model->memory_gb = memory_gb;
    model->memory_type = fixture_strdup(memory_type);
    model->fp16_tflops = tflops;
    model->fp32_tflops = fp32_tflops;
    model->bf16_tflops = 0.0; /* none of these has BF16 tensor cores */
    model->memory_bandwidth_gbps = bandwidth_gbps;
    model->tdp_watts = tdp_watts;
}

static inline void fixture_set_mode(struct billing_mode_info *mode, const char *name,
                                    const char *description, int32_t block_days,
                                    uint32_t segment_mask, int32_t list_basis_points)
{
    mode->name = fixture_strdup(name);
    mode->description = fixture_strdup(description);
    mode->block_days = block_days;
    mode->block_hours = block_days * 24;
    mode->segment_mask = segment_mask;
    mode->list_basis_points = list_basis_points;
}

static inline void fixture_set_sku(struct sku *sku, const struct fixture_sku *spec,
                                   const struct gpu_model *models)
{
    sku->id = fixture_strdup(spec->id);
    sku->name = fixture_strdup(spec->name);
    sku->gpu = &models[spec->model];
    sku->gpu_count = spec->gpu_count;
    sku->interconnect = spec->gpu_count > 1 ? INTERCONNECT_NVLINK : INTERCONNECT_NONE;
    sku->available = true;
    if (spec->network_gbit_s > 0.0) {
        sku->host = calloc(1, sizeof *sku->host);
        if (sku->host == NULL) {
            fprintf(stderr, "fixture: out of memory\n");
            abort();
        }
        sku->host->bandwidth_gbps = spec->network_gbit_s;
    }
    const gq_money prices[BILLING_MODE_COUNT] = {[BILLING_ON_DEMAND] = spec->on_demand,
                                                 [BILLING_MONTHLY] = spec->monthly,
                                                 [BILLING_QUARTERLY] = spec->quarterly,
                                                 [BILLING_STUDENT] = spec->student};
    for (int mode = 0; mode < BILLING_MODE_COUNT; mode++) {
        sku->price[mode] = prices[mode];
        sku->priced[mode] = prices[mode] > 0;
    }
}

static inline void fixture_set_models(struct catalog *catalog)
{
    catalog->n_models = FIXTURE_MODEL_COUNT;
    catalog->models = fixture_alloc(FIXTURE_MODEL_COUNT * sizeof *catalog->models);
    fixture_set_model(&catalog->models[FIXTURE_V100_16G], "v100-16g", "V100", 16, "HBM2", 125.0,
                      15.7, 900, 300);
    fixture_set_model(&catalog->models[FIXTURE_V100_32G], "v100-32g", "V100", 32, "HBM2", 125.0,
                      15.7, 900, 300);
    fixture_set_model(&catalog->models[FIXTURE_T4_16G], "t4-16g", "T4", 16, "GDDR6", 65.0, 8.1, 320,
                      70);
    /* Migration 0018's compute capabilities. */
    catalog->models[FIXTURE_V100_16G].compute_capability = 70;
    catalog->models[FIXTURE_V100_32G].compute_capability = 70;
    catalog->models[FIXTURE_T4_16G].compute_capability = 75;
}

static inline void fixture_set_modes(struct catalog *catalog)
{
    fixture_set_mode(&catalog->modes[BILLING_ON_DEMAND], "On-demand",
                     "Billed by the hour, no commitment", 0, SEGMENT_MASK_ALL, 10000);
    fixture_set_mode(&catalog->modes[BILLING_MONTHLY], "Monthly", "A 720 h block over 30 days", 30,
                     SEGMENT_MASK_ALL, 7500);
    fixture_set_mode(&catalog->modes[BILLING_QUARTERLY], "Quarterly", "A 2160 h block over 90 days",
                     90, SEGMENT_MASK_ALL, 6700);
    fixture_set_mode(&catalog->modes[BILLING_STUDENT], "Student", "Hourly, students only", 0,
                     SEGMENT_BIT(SEGMENT_STUDENT), 6600);
}

static inline void fixture_set_shapes(struct catalog *catalog)
{
    catalog->n_shapes = FIXTURE_SHAPE_COUNT;
    catalog->shapes = fixture_alloc(FIXTURE_SHAPE_COUNT * sizeof *catalog->shapes);
    for (size_t i = 0; i < FIXTURE_SHAPE_COUNT; i++) {
        const struct fixture_shape *spec = &fixture_shapes[i];
        struct model_shape *shape = &catalog->shapes[i];
        shape->id = fixture_strdup(spec->id);
        shape->name = fixture_strdup(spec->name);
        shape->layers = spec->layers;
        shape->hidden = spec->hidden;
        shape->heads = spec->heads;
        shape->kv_heads = spec->kv_heads;
        shape->intermediate = spec->intermediate;
        shape->vocab = spec->vocab;
        shape->sliding_window = spec->sliding_window;
        shape->params = spec->params;
        shape->source = fixture_strdup(spec->source);
        shape->max_position_embeddings = spec->max_position_embeddings;
    }
}

/* Builds a catalog holding `n_skus` SKUs from `specs` (sorted by id, the
 * caller's duty) on the seed's GPU models, billing modes and model shapes. */
static inline struct catalog *fixture_catalog_from(const struct fixture_sku *specs, size_t n_skus)
{
    struct catalog *catalog = fixture_alloc(sizeof *catalog);
    catalog->currency = fixture_strdup("CNY");
    catalog->price_list_version = 1;
    catalog->price_list_updated_at = 1767225600; /* 2026-01-01 */
    fixture_set_models(catalog);
    fixture_set_modes(catalog);
    fixture_set_shapes(catalog);
    catalog->n_skus = n_skus;
    catalog->skus = fixture_alloc((n_skus ? n_skus : 1) * sizeof *catalog->skus);
    for (size_t i = 0; i < n_skus; i++)
        fixture_set_sku(&catalog->skus[i], &specs[i], catalog->models);
    return catalog;
}

/* Drops the context limit of shape `id`, so that a test can size a context
 * past it (the arithmetic, not the 422). */
static inline void fixture_forget_max_positions(struct catalog *catalog, const char *id)
{
    for (size_t i = 0; i < catalog->n_shapes; i++)
        if (strcmp(catalog->shapes[i].id, id) == 0)
            catalog->shapes[i].max_position_embeddings = 0;
}

/* The seed catalog: five SKUs, no discount rules, no bundles. */
static inline struct catalog *fixture_catalog_new(void)
{
    return fixture_catalog_from(fixture_seed_skus, FIXTURE_SEED_SKU_COUNT);
}

/* Appends a percentage discount rule (valid forever, stackable) and returns
 * it so a test can adjust the rest. `sku_id` may be NULL (every SKU). */
static inline struct discount_rule *
fixture_add_percent_rule(struct catalog *catalog, const char *id, uint32_t segment_mask,
                         uint32_t billing_mask, const char *sku_id, int32_t min_quantity,
                         int32_t basis_points)
{
    struct discount_rule *rules =
        realloc(catalog->rules, (catalog->n_rules + 1) * sizeof *catalog->rules);
    if (rules == NULL) {
        fprintf(stderr, "fixture: out of memory\n");
        abort();
    }
    catalog->rules = rules;
    struct discount_rule *rule = &rules[catalog->n_rules++];
    memset(rule, 0, sizeof *rule);
    rule->id = fixture_strdup(id);
    rule->name = fixture_strdup(id);
    rule->segment_mask = segment_mask;
    rule->billing_mask = billing_mask;
    rule->sku_id = sku_id ? fixture_strdup(sku_id) : NULL;
    rule->min_quantity = min_quantity;
    rule->kind = DISCOUNT_PERCENT;
    rule->basis_points = basis_points;
    rule->stackable = true;
    return rule;
}

#endif
