/*
 * The catalog in memory: GPU models, SKUs with their price in every billing
 * mode, the billing modes themselves, discount rules, bundles and the model
 * shapes /recommend sizes named models with.
 *
 * A `struct catalog` is built once (by the store, from SQLite) and is then
 * immutable: the HTTP layer shares one snapshot between threads without
 * locks. It owns every string and array it points to; catalog_free() releases
 * all of it, so whoever builds one must allocate with malloc/strdup.
 *
 * Invariants (checked by catalog_validate()): SKUs and model shapes are
 * sorted by id with no duplicates, so lookups are binary searches; every SKU
 * has an on-demand price; every price is positive and at most MONEY_MAX;
 * every shape is a transformer one can compute with (model_shape_check()).
 */
#ifndef GQ_CORE_CATALOG_H
#define GQ_CORE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/messages.h"
#include "core/money.h"
#include "core/names.h"

enum billing_mode {
    BILLING_ON_DEMAND, /* per hour, list price */
    BILLING_MONTHLY,   /* a 720 h block over 30 days */
    BILLING_QUARTERLY, /* a 2160 h block over 90 days */
    BILLING_STUDENT,   /* per hour, students only */
    BILLING_MODE_COUNT
};

/* A set of billing modes holds one bit per mode. */
#define BILLING_MODE_BIT(mode) (1u << (mode))
#define BILLING_MODE_MASK_ALL ((1u << BILLING_MODE_COUNT) - 1u)

enum customer_segment {
    SEGMENT_INDIVIDUAL,
    SEGMENT_STUDENT,
    SEGMENT_STARTUP,
    SEGMENT_ENTERPRISE,
    SEGMENT_COUNT
};

#define SEGMENT_BIT(segment) (1u << (segment))
#define SEGMENT_MASK_ALL ((1u << SEGMENT_COUNT) - 1u)

enum interconnect {
    INTERCONNECT_NONE, /* a single card: nothing to interconnect */
    INTERCONNECT_PCIE,
    INTERCONNECT_NVLINK
};

struct gpu_model {
    char *id;           /* "v100-16g" */
    char *name;         /* "V100" */
    int32_t memory_gb;  /* per card */
    char *memory_type;  /* "HBM2" */
    double fp16_tflops; /* FP16 tensor peak, per card */
    double fp32_tflops; /* FP32 peak (no tensor cores) */
    double bf16_tflops; /* BF16 tensor peak; 0: no BF16 tensor cores */
    int32_t memory_bandwidth_gbps;
    int32_t tdp_watts;
    int32_t compute_capability; /* NVIDIA's, times ten: 70 = 7.0; 0 = not known */
};

/* What a card may lack: each runs from a compute capability up
 * (gpu_feature_min_compute_capability(); docs/sizing.md, "The cards'
 * limits", cites each minimum). */
enum gpu_feature {
    GPU_FEATURE_BF16,                       /* bf16 tensor cores; vLLM refuses bf16 below */
    GPU_FEATURE_FLASH_ATTENTION_2,          /* FlashAttention 2 */
    GPU_FEATURE_MEMORY_EFFICIENT_ATTENTION, /* xformers, PyTorch SDPA */
    GPU_FEATURE_GPTQ,                       /* vLLM's GPTQ (exllama) kernel */
    GPU_FEATURE_AWQ,                        /* vLLM's AWQ kernel */
    GPU_FEATURE_MARLIN,                     /* vLLM's Marlin kernel (GPTQ, AWQ, FP8) */
    GPU_FEATURE_BITSANDBYTES,               /* nf4 and LLM.int8() */
    GPU_FEATURE_W8A8_INT8,                  /* int8 weights and activations */
    GPU_FEATURE_W8A8_FP8,                   /* fp8 weights and activations */
    GPU_FEATURE_FP8_KV_CACHE,               /* an FP8 KV cache */
    GPU_FEATURE_COUNT
};

/* What a person reads of a catalog entry in one language; NULLs where the
 * database has no row for that language (catalog_name() falls back). */
struct catalog_text {
    char *name;
    char *description;
};

/* The host behind a SKU, for a product page: the Alibaba Cloud instance
 * type it is, and what comes with it. */
struct sku_host {
    char *instance_type; /* "ecs.gn6v-c8g1.2xlarge" */
    int32_t vcpus;
    int32_t memory_gib;
    int32_t system_disk_gb;
    double bandwidth_gbps;            /* internal network */
    char *region_id;                  /* "cn-hangzhou" */
    char *region_name[GQ_LANG_COUNT]; /* NULL: no name in that language */
    int32_t provisioning_min_minutes;
    int32_t provisioning_max_minutes;
    int32_t provisioning_average_minutes;
    char *software; /* preinstalled, comma-separated: "CUDA,PyTorch" */
    bool ssh;
};

struct billing_mode_info {
    char *name;                              /* human name in English, "Monthly" */
    char *description;                       /* what it is for, from the seed */
    struct catalog_text text[GQ_LANG_COUNT]; /* name and description per language */
    int32_t block_hours;                     /* 0 for hourly modes, 720, 2160 */
    int32_t block_days;                      /* 0 for hourly modes, 30, 90 */
    uint32_t segment_mask;                   /* segments allowed to use it */
    int32_t list_basis_points;               /* nominal price vs list, 10000 = 100 % */
};

struct sku {
    char *id;   /* "v100-16g-x1" */
    char *name; /* "V100 16GB × 1": English, what the log and /recommend say */
    struct catalog_text text[GQ_LANG_COUNT]; /* name and description per language */
    bool available;        /* false: shown as sold out (still listed and priced) */
    struct sku_host *host; /* NULL: no host facts in the database */
    const struct gpu_model *gpu;
    int32_t gpu_count;
    enum interconnect interconnect;
    /* Price per unit of each mode: per hour for hourly modes, per block for
     * monthly and quarterly. Only meaningful where priced[mode]. */
    gq_money price[BILLING_MODE_COUNT];
    bool priced[BILLING_MODE_COUNT];
};

enum discount_kind {
    DISCOUNT_PERCENT, /* basis_points of the amount */
    DISCOUNT_FIXED    /* fixed_amount off the line */
};

/* A discount rule's billing_mask holds one bit per billing mode (1 << mode)
 * and this bit for a plan that mixes modes. */
#define DISCOUNT_BILLING_MIXED (1u << BILLING_MODE_COUNT)
#define DISCOUNT_BILLING_ALL ((1u << (BILLING_MODE_COUNT + 1)) - 1u)

struct discount_rule {
    char *id;
    char *name;
    uint32_t segment_mask; /* segments it applies to */
    uint32_t billing_mask; /* billing it applies to, see above */
    char *sku_id;          /* NULL: every SKU */
    int32_t min_quantity;  /* applies from this many instances */
    enum discount_kind kind;
    int32_t basis_points;  /* DISCOUNT_PERCENT: 1..10000 */
    gq_money fixed_amount; /* DISCOUNT_FIXED: > 0 */
    int64_t valid_from;    /* unix seconds, inclusive; 0 = no start */
    int64_t valid_until;   /* unix seconds, exclusive; 0 = no end */
    int32_t priority;      /* lower applies first */
    bool stackable;
    bool from_promotion_code; /* a promotion code's, not the price list's */
    bool from_customer;       /* a customer's own, not the price list's */
};

struct bundle_item {
    const struct sku *sku;
    int32_t quantity; /* instances */
    int32_t hours;    /* hours per instance */
};

struct bundle {
    char *id;
    char *name; /* English */
    char *description;
    struct catalog_text text[GQ_LANG_COUNT];
    gq_money list_price; /* the bundle's own "list" figure, as published */
    gq_money price;
    uint32_t segment_mask;
    int64_t valid_from; /* as for discount rules */
    int64_t valid_until;
    struct bundle_item *items;
    size_t n_items;
};

/* A transformer language model's shape, as its published config.json gives
 * it (docs/sizing.md cites each one). */
struct model_shape {
    char *id;               /* "llama-2-7b" */
    char *name;             /* "Llama-2 7B" */
    int32_t layers;         /* num_hidden_layers */
    int32_t hidden;         /* hidden_size */
    int32_t heads;          /* num_attention_heads */
    int32_t kv_heads;       /* num_key_value_heads: fewer than heads with grouped-query attention */
    int32_t intermediate;   /* intermediate_size of the MLP */
    int32_t vocab;          /* vocab_size */
    int32_t sliding_window; /* tokens a token attends to; 0 = the whole context */
    int64_t params;         /* parameter count */
    int32_t max_position_embeddings; /* the longest context; 0 = not known */
    char *source;                    /* where the figures come from: the config.json's URL */
};

/* Largest accepted figure of a shape: far above any published model, low
 * enough that every product sizing forms stays exact in a double. */
#define MODEL_SHAPE_MAX_DIMENSION 1000000
#define MODEL_SHAPE_MAX_PARAMS 100000000000000LL /* 10^14: SIZING_MAX_PARAMS_B */

struct catalog {
    char *currency;             /* "CNY" */
    int64_t price_list_version; /* bumped by every price change */
    int64_t price_list_updated_at;
    struct gpu_model *models;
    size_t n_models;
    struct sku *skus; /* sorted by id */
    size_t n_skus;
    struct billing_mode_info modes[BILLING_MODE_COUNT];
    struct discount_rule *rules;
    size_t n_rules;
    struct bundle *bundles;
    size_t n_bundles;
    struct catalog_text bundles_text[GQ_LANG_COUNT]; /* the bundles as one offer, 套餐礼包 */
    struct model_shape *shapes;                      /* sorted by id */
    size_t n_shapes;
};

/* The name in `lang`: text[lang], else English's text, else `fallback`
 * (the English name column). Never NULL when `fallback` is not. */
const char *catalog_name(const struct catalog_text text[GQ_LANG_COUNT], enum gq_lang lang,
                         const char *fallback);

/* The same for the description; "" when there is none at all. */
const char *catalog_description(const struct catalog_text text[GQ_LANG_COUNT], enum gq_lang lang,
                                const char *fallback);

/* A language's tag ("en", "zh-CN") as the database writes it; false when
 * it names none the service speaks. */
bool catalog_lang_parse(const char *tag, enum gq_lang *out);

/* "on_demand", "monthly", "quarterly", "student". */
const char *billing_mode_id(enum billing_mode mode);
/* The unit its price is per: "hour", "month", "quarter". */
const char *billing_mode_unit(enum billing_mode mode);
/* True for modes billed by the hour (on-demand, student). */
bool billing_mode_is_hourly(enum billing_mode mode);
/* Returns false when `text` names no mode. */
bool billing_mode_parse(const char *text, enum billing_mode *out);

/* "individual", "student", "startup", "enterprise". */
const char *segment_id(enum customer_segment segment);
bool segment_parse(const char *text, enum customer_segment *out);
/* The names a request may write for a segment. */
extern const struct names_table segment_names;

/* "none", "pcie", "nvlink". */
const char *interconnect_id(enum interconnect interconnect);
bool interconnect_parse(const char *text, enum interconnect *out);

/* "bf16", "flash_attention_2", "memory_efficient_attention", "gptq", "awq",
 * "marlin", "bitsandbytes", "w8a8_int8", "w8a8_fp8", "fp8_kv_cache". */
const char *gpu_feature_id(enum gpu_feature feature);
/* The feature as a person names it, in the plural: "AWQ kernels". */
const char *gpu_feature_name(enum gpu_feature feature);
/* The least compute capability (times ten) that runs `feature`. */
int32_t gpu_feature_min_compute_capability(enum gpu_feature feature);
/* True when `gpu` runs `feature`: its compute capability reaches the
 * feature's minimum. A card whose capability is not known is judged on
 * bf16 alone, by its BF16 peak, and taken to run the rest. */
bool gpu_model_supports(const struct gpu_model *gpu, enum gpu_feature feature);

/* Memory and FP16 peak of the whole instance (all its cards). */
int32_t sku_total_memory_gb(const struct sku *sku);
double sku_total_fp16_tflops(const struct sku *sku);

/* Binary search by id; NULL when absent. */
const struct sku *catalog_find_sku(const struct catalog *catalog, const char *id);
/* Linear search by id (bundles are few); NULL when absent. */
const struct bundle *catalog_find_bundle(const struct catalog *catalog, const char *id);
/* Binary search by id; NULL when absent (`id` NULL included). */
const struct model_shape *catalog_find_shape(const struct catalog *catalog, const char *id);

/* Checks one shape: every dimension from 1 to MODEL_SHAPE_MAX_DIMENSION
 * (the window from 0), the heads dividing the hidden size, the key/value
 * heads dividing the heads, 1 to MODEL_SHAPE_MAX_PARAMS parameters. Returns
 * GQ_OK or GQ_ERR_INVALID_VALUE with a message naming the shape. */
enum gq_code model_shape_check(const struct model_shape *shape, struct gq_error *err);

/* True when `valid_from`/`valid_until` (0 = open) contain `now`. */
bool validity_contains(int64_t valid_from, int64_t valid_until, int64_t now);

/* Checks the invariants above. Returns GQ_OK or GQ_ERR_INVALID_VALUE with a
 * message naming the offending SKU or rule. */
enum gq_code catalog_validate(const struct catalog *catalog, struct gq_error *err);

/* Frees the catalog and everything it owns. NULL is allowed. */
void catalog_free(struct catalog *catalog);

#endif
