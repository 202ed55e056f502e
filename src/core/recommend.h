/*
 * Recommendation: from a workload, the configurations (SKU × instances) that
 * can run it, how long each takes and what each costs on its cheapest plan,
 * ranked by cost or time, with the figures that decided it — and, for every
 * SKU that cannot serve, why not.
 *
 * For each SKU of the catalog: its GPU must run what the workload needs
 * (sizing_gpu_lacks_feature: a quantisation kernel, an FP8 KV cache) and
 * the workload must fit the memory of each GPU (sizing_place: under the
 * request's strategy, or the first that fits). Training with tokens tries 1 …
 * max_instances instances running data-parallel; inference takes the replicas its concurrency or
 * tokens-per-second target needs (sizing_serve); any other workload (a rental) takes one instance,
 * since more would cost more and finish no sooner. Each try is scheduled at hours_per_day, checked
 * against the deadline, priced by quote_compute() exactly as POST /quote prices one item (billing
 * "cheapest"), and checked against the budget. A SKU's best try under the
 * objective competes for the top `limit`; a SKU with no feasible try becomes
 * one rejection with its most informative reason (docs/sizing.md, "Choosing").
 *
 * Then the cheapest change: the same scan for each variant of the workload
 * that could serve it better (fp16 for bf16 on GPUs without BF16 tensor
 * cores, less activation checkpointing, an int8 KV cache, int8 or int4
 * weights); the best one that beats the answer, or serves when nothing
 * does, becomes the hint.
 *
 * Cost: one quote_compute() per try, O(SKUs × max_instances) per scan and
 * at most one scan per variant (three for an fp16 inference, two for a
 * training run with full checkpointing); one heap allocation per call (the
 * scan states and the quote buffer) and none per try; only the top `limit`
 * and a bounded list of rejections are kept.
 */
#ifndef GQ_CORE_RECOMMEND_H
#define GQ_CORE_RECOMMEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/error.h"
#include "core/money.h"
#include "core/plans.h"
#include "core/sizing.h"

#define RECOMMEND_DEFAULT_LIMIT 3
#define RECOMMEND_MAX_LIMIT 20
/* Rental length when the request gives none: one month, the
 * shortest block the price list sells. */
#define RECOMMEND_DEFAULT_DAYS 30
/* Hours per day when the request gives none: around the clock, except a
 * learner's working day. */
#define RECOMMEND_DEFAULT_MILLIHOURS_PER_DAY (24 * USAGE_MILLIHOURS_PER_HOUR)
#define RECOMMEND_LEARNING_MILLIHOURS_PER_DAY (8 * USAGE_MILLIHOURS_PER_HOUR)
/* Rejections listed (nearest misses first); the rest are only counted. */
#define RECOMMEND_MAX_REJECTED 32
#define RECOMMEND_MAX_REASONS 7
#define RECOMMEND_TEXT_SIZE 256

enum recommend_objective {
    RECOMMEND_OBJECTIVE_COST, /* cheapest total, then fastest */
    RECOMMEND_OBJECTIVE_TIME, /* fastest, then cheapest */
    RECOMMEND_OBJECTIVE_COUNT
};

/* Why a SKU cannot serve, nearest miss first: the order ranks the list. */
enum recommend_reject_reason {
    RECOMMEND_REJECT_OVER_BUDGET,             /* fits and is on time, costs too much */
    RECOMMEND_REJECT_MISSES_DEADLINE,         /* fits, too slow even at its fastest */
    RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL,      /* would run past USAGE_MAX_DAYS */
    RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT, /* needs more replicas than max_instances */
    RECOMMEND_REJECT_INSUFFICIENT_MEMORY,     /* one instance cannot hold the workload */
    RECOMMEND_REJECT_UNSUPPORTED_FEATURE,     /* the card lacks a kernel the workload needs */
    RECOMMEND_REJECT_NOT_PRICED,              /* quote_compute could not price it */
    RECOMMEND_REJECT_REASON_COUNT
};

struct recommend_request {
    struct sizing_workload workload;
    int32_t millihours_per_day; /* 0 = default; else 1 .. USAGE_MAX_MILLIHOURS_PER_DAY */
    int32_t days;               /* rental length; 0 = default; not for training runs */
    int32_t deadline_days;      /* 0 = none; else 1 .. USAGE_MAX_DAYS */
    enum customer_segment segment;
    gq_money budget; /* 0 = none */
    enum recommend_objective objective;
    int32_t limit; /* 0 = RECOMMEND_DEFAULT_LIMIT; else 1 .. RECOMMEND_MAX_LIMIT */
    struct sizing_assumptions assumptions;
    /* The language of the reasons, details and hint: not part of the body,
     * but the HTTP layer's choice from Accept-Language. English by default. */
    enum gq_lang lang;
};

struct recommendation {
    int rank; /* 1-based */
    const struct sku *sku;
    int32_t quantity;            /* instances */
    struct usage usage;          /* per instance; POST /quote with it reproduces `total` */
    struct plan plan;            /* per instance, as the quote priced it */
    const char *billing;         /* billing_mode_id() of the plan, or "mixed"; static */
    gq_money amount;             /* all instances, before discounts */
    gq_money discount;           /* discounts the quote applied */
    gq_money total;              /* amount - discount: what POST /quote bills */
    double estimated_hours;      /* wall-clock hours of work (training) or of use */
    double estimated_days;       /* estimated_hours ÷ hours per day */
    double memory_gb_needed;     /* one instance: memory_per_gpu_gb × its cards */
    int32_t memory_gb_available; /* one instance, all its cards */
    /* The strategy (serving: tensor parallelism) and what one card needs,
     * reserve included (serving: one replica at its batch ÷ its cards). */
    struct sizing_placement placement;
    int32_t cards;                 /* quantity × gpu_count */
    double scaling_efficiency;     /* training: sizing_scaling_efficiency(); else 0 */
    struct sizing_scaling scaling; /* training: how that efficiency was computed; else zero */
    struct sizing_serving serving; /* inference: how each replica serves; else zero */
    char reasons[RECOMMEND_MAX_REASONS][RECOMMEND_TEXT_SIZE];
    int n_reasons;
};

struct recommend_rejection {
    const struct sku *sku;
    int32_t quantity; /* instances of the configuration the detail cites */
    enum recommend_reject_reason reason;
    /* needed ÷ available (> 1: how far from feasible): GB, cost ÷ budget,
     * days ÷ deadline, replicas ÷ max_instances; HUGE_VAL for not_priced. */
    double shortfall;
    char detail[RECOMMEND_TEXT_SIZE]; /* "needs 16.8 GB, has 16 GB" */
};

/* About 32 KB: allocate it rather than putting it on a small thread stack. */
struct recommend_result {
    struct sizing_estimate estimate;
    int32_t millihours_per_day; /* resolved */
    int32_t days;               /* resolved rental length; 0 for training runs */
    int32_t limit;              /* resolved */
    struct recommendation recommendations[RECOMMEND_MAX_LIMIT];
    int n_recommendations;
    struct recommend_rejection rejected[RECOMMEND_MAX_REJECTED];
    int n_rejected;          /* listed */
    size_t n_rejected_total; /* rejected SKUs, listed or not */
    size_t rejected_by_reason[RECOMMEND_REJECT_REASON_COUNT];
    /* "" unless there is no recommendation (what to change) or a change
     * of the workload would serve it better (the cheapest such change). */
    char hint[RECOMMEND_TEXT_SIZE * 2];
};

/* "cost", "time". */
const char *recommend_objective_id(enum recommend_objective objective);
/* The names a request may write for an objective. */
extern const struct names_table recommend_objective_names;

/* "over_budget", "misses_deadline", "exceeds_max_rental",
 * "insufficient_throughput", "insufficient_memory", "unsupported_feature",
 * "not_priced". */
const char *recommend_reject_reason_id(enum recommend_reject_reason reason);

/* Sets every field of `request` to its default: an fp16 inference preset
 * for an individual, objective cost, English, and 0 (= default) elsewhere. */
void recommend_request_init(struct recommend_request *request);

/* Runs the recommendation for `request` over `catalog` at time `now` (unix
 * seconds: discount validity) into `out` (caller-owned). A request nothing
 * can serve is a success: no recommendations, the rejections and a hint.
 * Returns GQ_OK; GQ_ERR_INVALID_VALUE or GQ_ERR_OUT_OF_RANGE with err->field
 * the JSON path of the offending field ("workload.precision", "limit",
 * "assumptions.mfu"); GQ_ERR_NO_MEMORY when the quote buffer cannot be
 * allocated. Reasons, details and the hint are written in request->lang
 * (messages.h), with the same figures in every language.
 * `out` is unspecified on failure. Its SKU pointers borrow from
 * `catalog`, which must outlive it. Thread-safe: it writes only `out`. */
enum gq_code recommend_run(const struct catalog *catalog, const struct recommend_request *request,
                           int64_t now, struct recommend_result *out, struct gq_error *err);

#endif
