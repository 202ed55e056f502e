/*
 * The catalog in memory: GPU models, SKUs with their price in every billing
 * mode, the billing modes themselves, discount rules and bundles.
 *
 * A `struct catalog` is built once (by the store, from SQLite) and is then
 * immutable: the HTTP layer shares one snapshot between threads without
 * locks. It owns every string and array it points to; catalog_free() releases
 * all of it, so whoever builds one must allocate with malloc/strdup.
 *
 * Invariants (checked by catalog_validate()): SKUs are sorted by id with no
 * duplicates, so lookups are binary searches; every SKU has an on-demand
 * price; every price is positive and at most MONEY_MAX.
 */
#ifndef GQ_CORE_CATALOG_H
#define GQ_CORE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/money.h"

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
    char *id;          /* "v100-16g" */
    char *name;        /* "V100" */
    int32_t memory_gb; /* per card */
    char *memory_type; /* "HBM2" */
    double fp16_tflops; /* FP16 tensor peak, per card */
    double fp32_tflops; /* FP32 peak (no tensor cores) */
    double bf16_tflops; /* BF16 tensor peak; 0: no BF16 tensor cores */
    int32_t memory_bandwidth_gbps;
    int32_t tdp_watts;
};

struct billing_mode_info {
    char *name;               /* human name, "Monthly" */
    char *description;        /* what it is for, from the seed */
    int32_t block_hours;      /* 0 for hourly modes, 720, 2160 */
    int32_t block_days;       /* 0 for hourly modes, 30, 90 */
    uint32_t segment_mask;    /* segments allowed to use it */
    int32_t list_basis_points; /* nominal price vs list, 10000 = 100 % */
};

struct sku {
    char *id;   /* "v100-16g-x1" */
    char *name; /* "V100 16GB × 1" */
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
};

struct bundle_item {
    const struct sku *sku;
    int32_t quantity; /* instances */
    int32_t hours;    /* hours per instance */
};

struct bundle {
    char *id;
    char *name;
    char *description;
    gq_money list_price; /* the bundle's own "list" figure, as published */
    gq_money price;
    uint32_t segment_mask;
    int64_t valid_from; /* as for discount rules */
    int64_t valid_until;
    struct bundle_item *items;
    size_t n_items;
};

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
};

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

/* "none", "pcie", "nvlink". */
const char *interconnect_id(enum interconnect interconnect);
bool interconnect_parse(const char *text, enum interconnect *out);

/* Memory and FP16 peak of the whole instance (all its cards). */
int32_t sku_total_memory_gb(const struct sku *sku);
double sku_total_fp16_tflops(const struct sku *sku);

/* Binary search by id; NULL when absent. */
const struct sku *catalog_find_sku(const struct catalog *catalog, const char *id);
/* Linear search by id (bundles are few); NULL when absent. */
const struct bundle *catalog_find_bundle(const struct catalog *catalog, const char *id);

/* True when `valid_from`/`valid_until` (0 = open) contain `now`. */
bool validity_contains(int64_t valid_from, int64_t valid_until, int64_t now);

/* Checks the invariants above. Returns GQ_OK or GQ_ERR_INVALID_VALUE with a
 * message naming the offending SKU or rule. */
enum gq_code catalog_validate(const struct catalog *catalog, struct gq_error *err);

/* Frees the catalog and everything it owns. NULL is allowed. */
void catalog_free(struct catalog *catalog);

#endif
