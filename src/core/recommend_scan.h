/*
 * What the recommendation's search (recommend.c) hands to its wording
 * (recommend_reasons.c): the configurations tried, the rejections kept and
 * the nearest misses, all in one `struct scan`. Internal to those two
 * files; the rest of the server sees core/recommend.h alone.
 */
#ifndef GQ_CORE_RECOMMEND_SCAN_H
#define GQ_CORE_RECOMMEND_SCAN_H

#include "core/quote.h"
#include "core/recommend.h"

/* One configuration tried: a SKU, an instance count, its schedule and, once
 * priced, its plan. */
struct candidate {
    const struct sku *sku;
    int32_t instances;
    double hours;                      /* wall-clock hours of work or of use */
    bool too_long;                     /* would run past USAGE_MAX_DAYS */
    struct usage usage;                /* per instance; valid unless too_long */
    struct sizing_placement placement; /* the strategy and memory per GPU */
    struct plan plan;                  /* per instance */
    gq_money amount;
    gq_money discount;
    gq_money total;
};

/* A rejection before its text is written: the figures the detail cites. */
struct miss {
    const struct sku *sku;
    enum recommend_reject_reason reason;
    int32_t instances;
    double shortfall; /* needed ÷ available */
    double needed;    /* GB, tok/s or days, by reason */
    double available; /* GB, tok/s per replica */
    double replicas;  /* needed, uncapped (sizing caps its count at INT32_MAX) */
    double host_gb;   /* insufficient_memory: > 0 when the host, not the card, is short */
    gq_money total;
    enum gq_code code;
    enum gpu_feature feature;      /* unsupported_feature: what the card lacks */
    struct sizing_serving serving; /* inference: how one instance serves, or why not */
};

/* What the tries of one SKU left behind. */
struct sku_outcome {
    struct candidate best; /* feasible, best under the objective */
    bool has_best;
    struct candidate cheapest_over; /* on time, over budget, cheapest */
    bool has_over;
    struct candidate fastest_late; /* past the deadline or too long, fastest */
    bool has_late;
    enum gq_code price_code; /* last pricing failure, GQ_OK if none */
};

/* The state of one recommend_run(). */
struct scan {
    const struct catalog *catalog;
    const struct recommend_request *request;
    const struct sizing_estimate *estimate;
    int64_t now;
    enum gq_lang lang; /* of the reasons, details and hint */
    int32_t millihours_per_day;
    int32_t days; /* rental length; 0 for a training run */
    int32_t limit;
    int32_t max_instances;
    struct quote_result *quote; /* one buffer, reused by every try */
    struct candidate top[RECOMMEND_MAX_LIMIT];
    int n_top;
    struct miss misses[RECOMMEND_MAX_REJECTED];
    int n_misses;
    size_t n_rejected_total;
    size_t by_reason[RECOMMEND_REJECT_REASON_COUNT];
    /* The nearest misses over every SKU, for the hint. */
    struct candidate cheapest_over;
    bool has_over;
    struct candidate fastest_late;
    bool has_late;
    int32_t largest_memory_gb;
    struct miss fewest_replicas;
    bool has_replicas;
    struct miss fastest_request; /* inference: the fastest SKU below the per-request floor */
    bool has_slow;
    struct miss longest_context; /* inference: the longest context a SKU holds */
    bool has_context;
    struct miss lacking; /* the first SKU whose GPU lacks a feature the workload needs */
    bool has_lacking;
};

/* Variants of the workload that may serve it better, in the order their
 * ties are broken (the least change first). */
enum variant {
    VARIANT_FP16,                  /* fp16 instead of bf16 */
    VARIANT_SELECTIVE_CHECKPOINTS, /* selective instead of full recomputation */
    VARIANT_NO_CHECKPOINTS,        /* no recomputation */
    VARIANT_KV_INT8,               /* an int8 KV cache */
    VARIANT_WEIGHTS_INT8,
    VARIANT_WEIGHTS_INT4,
    VARIANT_COUNT
};

static inline int32_t recommend_cards_of(const struct candidate *c)
{
    return c->instances * c->sku->gpu_count;
}

static inline bool recommend_is_training_run(const struct scan *scan)
{
    return scan->estimate->flops > 0.0;
}

static inline double recommend_days_of(const struct scan *scan, const struct candidate *c)
{
    return c->hours * USAGE_MILLIHOURS_PER_HOUR / scan->millihours_per_day;
}

/* Fills `r` (cleared first) for configuration `c`, ranked `rank` from 1:
 * its figures and its reasons. */
void recommend_write_recommendation(const struct scan *scan, const struct candidate *c, int rank,
                                    struct recommendation *r);

/* Copies the rejections kept (already in their order) to `out`, each with
 * its detail, and the counts of all. */
void recommend_write_rejections(const struct scan *scan, struct recommend_result *out);

/* What to change when nothing fits, from the nearest miss, into `buf`. */
void recommend_write_hint(const struct scan *scan, char *buf, size_t size);

/* The hint of `variant`, whose best configuration is `better`, led by
 * fp16's (`lead`) when not NULL; when nothing serves, appended to what
 * `buf` holds. */
void recommend_write_variant_hint(const struct scan *scan, enum variant variant,
                                  const struct candidate *better, const struct candidate *lead,
                                  char *buf, size_t size);

/* Cuts `text` before a character its buffer cut short, so it stays UTF-8. */
void recommend_trim_partial_character(char *text);

#endif
