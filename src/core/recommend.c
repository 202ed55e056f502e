/*
 * The recommendation engine: try every SKU × instance count, keep the best
 * few and a bounded list of rejections, then have recommend_reasons.c
 * write the reasons, the details and the hint.
 *
 * Prices come from quote_compute() alone, called exactly as POST /quote
 * calls it for one item billed "cheapest", so a recommendation's total is a
 * quote's total to the fen. Text (reasons, details, the hint) is written
 * only for what is returned, after the scan, never per try.
 */
#include "core/recommend.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/quote.h"
#include "core/recommend_scan.h"
#include "core/names.h"

/* A run's hours become whole milli-hours rounded up; this much floating-
 * point noise above a whole milli-hour is not another milli-hour. */
#define MILLIHOUR_NOISE 1e-6

static const char *const objective_ids[RECOMMEND_OBJECTIVE_COUNT] = {
    [RECOMMEND_OBJECTIVE_COST] = "cost",
    [RECOMMEND_OBJECTIVE_TIME] = "time",
};

static const char *const reject_reason_ids[RECOMMEND_REJECT_REASON_COUNT] = {
    [RECOMMEND_REJECT_OVER_BUDGET] = "over_budget",
    [RECOMMEND_REJECT_MISSES_DEADLINE] = "misses_deadline",
    [RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL] = "exceeds_max_rental",
    [RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT] = "insufficient_throughput",
    [RECOMMEND_REJECT_INSUFFICIENT_MEMORY] = "insufficient_memory",
    [RECOMMEND_REJECT_UNSUPPORTED_FEATURE] = "unsupported_feature",
    [RECOMMEND_REJECT_NOT_PRICED] = "not_priced",
};

const struct names_table recommend_objective_names = {objective_ids, RECOMMEND_OBJECTIVE_COUNT, 0};

const char *recommend_objective_id(enum recommend_objective objective)
{
    return names_id(objective_ids, RECOMMEND_OBJECTIVE_COUNT, objective);
}

const char *recommend_reject_reason_id(enum recommend_reject_reason reason)
{
    return names_id(reject_reason_ids, RECOMMEND_REJECT_REASON_COUNT, reason);
}

void recommend_request_init(struct recommend_request *request)
{
    memset(request, 0, sizeof *request);
    request->workload.task = SIZING_TASK_INFERENCE;
    request->workload.precision = SIZING_PRECISION_FP16;
    request->segment = SEGMENT_INDIVIDUAL;
    request->objective = RECOMMEND_OBJECTIVE_COST;
}

/* ---- validation ---------------------------------------------------------- */

static enum gq_code check_int(int32_t value, int32_t max, const char *field, struct gq_error *err)
{
    if (value < 0 || value > max)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_REC_FROM_DEFAULT_TO,
                           MSG_TEXT(field), MSG_INT(max));
    return GQ_OK;
}

/* A rental's length: the request's days, or the default. */
static int32_t rental_days(const struct recommend_request *request)
{
    return request->days > 0 ? request->days : RECOMMEND_DEFAULT_DAYS;
}

/* A rental lasts its days on every SKU, so a deadline before they are up
 * can never be met: the request contradicts itself, which no SKU, instance
 * count or training setting can fix. */
static enum gq_code check_rental_deadline(const struct recommend_request *request,
                                          struct gq_error *err)
{
    int32_t days = rental_days(request);
    if (request->deadline_days == 0 || request->deadline_days >= days)
        return GQ_OK;
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "deadline_days",
                       request->days > 0 ? MSG_REC_RENTAL_DEADLINE
                                         : MSG_REC_DEFAULT_RENTAL_DEADLINE,
                       MSG_INT(days), MSG_INT(request->deadline_days));
}

static enum gq_code check_request(const struct recommend_request *request,
                                  const struct sizing_estimate *estimate, struct gq_error *err)
{
    if ((unsigned)request->segment >= SEGMENT_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "customer.segment", MSG_REC_UNKNOWN_SEGMENT);
    if ((unsigned)request->objective >= RECOMMEND_OBJECTIVE_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "objective", MSG_REC_OBJECTIVE);
    if (request->millihours_per_day < 0 ||
        request->millihours_per_day > USAGE_MAX_MILLIHOURS_PER_DAY)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "hours_per_day", MSG_HOURS_PER_DAY_RANGE);
    enum gq_code code = check_int(request->days, USAGE_MAX_DAYS, "days", err);
    if (code == GQ_OK)
        code = check_int(request->deadline_days, USAGE_MAX_DAYS, "deadline_days", err);
    if (code == GQ_OK)
        code = check_int(request->limit, RECOMMEND_MAX_LIMIT, "limit", err);
    if (code != GQ_OK)
        return code;
    if (request->budget < 0 || request->budget > MONEY_MAX)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "budget", MSG_REC_BUDGET_RANGE);
    if (request->days > 0 && estimate->flops > 0.0)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "days", MSG_REC_TRAINING_DAYS);
    if (estimate->flops <= 0.0)
        return check_rental_deadline(request, err);
    return GQ_OK;
}

/* ---- ordering ------------------------------------------------------------ */

static int order_of(double a, double b)
{
    return (a > b) - (a < b);
}

static int order_of_money(gq_money a, gq_money b)
{
    return (a > b) - (a < b);
}

/* < 0 when `a` ranks before `b`: the objective's figure, the other one,
 * fewer cards, then SKU id and instances so the order is total. Two free
 * answers (a run too small to cost a fen) tie on cost: there the fewer
 * cards win before the time, as more instances would buy nothing. */
static int compare_candidates(const struct candidate *a, const struct candidate *b,
                              enum recommend_objective objective)
{
    int by_cost = order_of_money(a->total, b->total);
    int by_time = order_of(a->hours, b->hours);
    int order = objective == RECOMMEND_OBJECTIVE_TIME ? (by_time ? by_time : by_cost)
                                                      : (by_cost ? by_cost : by_time);
    if (objective != RECOMMEND_OBJECTIVE_TIME && a->total == 0 && b->total == 0)
        order = 0;
    if (order == 0)
        order = order_of(recommend_cards_of(a), recommend_cards_of(b));
    if (order == 0)
        order = strcmp(a->sku->id, b->sku->id);
    if (order == 0)
        order = order_of(a->instances, b->instances);
    return order;
}

/* Nearest miss first: by reason, then by how far from feasible. */
static int compare_misses(const struct miss *a, const struct miss *b)
{
    int order = order_of(a->reason, b->reason);
    if (order == 0)
        order = order_of(a->shortfall, b->shortfall);
    if (order == 0)
        order = strcmp(a->sku->id, b->sku->id);
    return order;
}

static int compare_misses_qsort(const void *a, const void *b)
{
    return compare_misses(a, b);
}

/* Keeps `c` if it belongs among the top `limit`, in order. */
static void offer_top(struct scan *scan, const struct candidate *c)
{
    int position = scan->n_top;
    while (position > 0 &&
           compare_candidates(c, &scan->top[position - 1], scan->request->objective) < 0)
        position--;
    if (position >= scan->limit)
        return;
    int kept = scan->n_top < scan->limit ? scan->n_top : scan->limit - 1;
    memmove(&scan->top[position + 1], &scan->top[position],
            (size_t)(kept - position) * sizeof scan->top[0]);
    scan->top[position] = *c;
    if (scan->n_top < scan->limit)
        scan->n_top++;
}

/* Counts a rejection and lists it while there is room, or in place of the
 * least informative one listed. */
static void offer_miss(struct scan *scan, const struct miss *m)
{
    scan->n_rejected_total++;
    scan->by_reason[m->reason]++;
    if (scan->n_misses < RECOMMEND_MAX_REJECTED) {
        scan->misses[scan->n_misses++] = *m;
        return;
    }
    int worst = 0;
    for (int i = 1; i < scan->n_misses; i++)
        if (compare_misses(&scan->misses[i], &scan->misses[worst]) > 0)
            worst = i;
    if (compare_misses(m, &scan->misses[worst]) < 0)
        scan->misses[worst] = *m;
}

/* ---- one try --------------------------------------------------------------- */

/* The usage of a training run of c->hours at the requested hours per day:
 * ⌈H / h⌉ days at ⌈H / days⌉ per day, so no day is billed beyond the work. */
static void schedule_training(const struct scan *scan, struct candidate *c)
{
    c->hours =
        sizing_training_hours_as(scan->estimate, c->placement.strategy, c->sku, c->instances);
    double max_hours =
        (double)USAGE_MAX_DAYS * scan->millihours_per_day / USAGE_MILLIHOURS_PER_HOUR;
    c->too_long = !(c->hours <= max_hours);
    if (c->too_long)
        return;
    int64_t millihours = (int64_t)ceil(c->hours * USAGE_MILLIHOURS_PER_HOUR - MILLIHOUR_NOISE);
    if (millihours < 1)
        millihours = 1;
    int64_t days = (millihours + scan->millihours_per_day - 1) / scan->millihours_per_day;
    c->too_long = days > USAGE_MAX_DAYS; /* rounding at the very edge */
    if (c->too_long)
        return;
    c->usage.days = (int32_t)days;
    c->usage.millihours_per_day = (int32_t)((millihours + days - 1) / days);
}

static void schedule(const struct scan *scan, struct candidate *c)
{
    if (recommend_is_training_run(scan)) {
        schedule_training(scan, c);
        return;
    }
    c->usage.millihours_per_day = scan->millihours_per_day;
    c->usage.days = scan->days;
    c->hours = (double)usage_millihours(&c->usage) / USAGE_MILLIHOURS_PER_HOUR;
    c->too_long = false;
}

static bool misses_deadline(const struct scan *scan, const struct candidate *c)
{
    int32_t deadline = scan->request->deadline_days;
    return c->too_long || (deadline > 0 && c->usage.days > deadline);
}

/* Prices `c` as POST /quote prices one item billed "cheapest". */
static enum gq_code price(const struct scan *scan, struct candidate *c)
{
    struct quote_item_request item = {
        .sku = c->sku,
        .quantity = c->instances,
        .cheapest = true,
        .billing = BILLING_ON_DEMAND,
        .usage = c->usage,
    };
    struct quote_request request = {
        .segment = scan->request->segment,
        .items = &item,
        .n_items = 1,
        .now = scan->now,
    };
    enum gq_code code = quote_compute(scan->catalog, &request, scan->quote, NULL);
    if (code != GQ_OK)
        return code;
    const struct priced_option *billed = scan->quote->items[0].billed;
    c->plan = billed->plan;
    c->amount = billed->amount;
    c->discount = billed->discounts.total;
    c->total = billed->total;
    return GQ_OK;
}

static bool over_budget(const struct scan *scan, const struct candidate *c)
{
    return scan->request->budget > 0 && c->total > scan->request->budget;
}

/* The cheaper of two configurations over budget, ties broken as the cost
 * ranking breaks them (the faster first): the one a rejection and the
 * hint name is the one a higher budget would recommend. */
static bool cheaper_over_budget(const struct candidate *a, const struct candidate *b)
{
    return compare_candidates(a, b, RECOMMEND_OBJECTIVE_COST) < 0;
}

/* Schedules, checks and prices one instance count of a SKU. */
static void try_instances(struct scan *scan, const struct sku *sku, int32_t instances,
                          struct sku_outcome *outcome)
{
    struct candidate c = {.sku = sku, .instances = instances};
    if (!sizing_place(scan->estimate, sku, instances, &c.placement))
        return; /* the state is not yet sharded thinly enough */
    schedule(scan, &c);
    if (misses_deadline(scan, &c)) {
        if (!outcome->has_late || c.hours < outcome->fastest_late.hours)
            outcome->fastest_late = c;
        outcome->has_late = true;
        return;
    }
    enum gq_code code = price(scan, &c);
    if (code != GQ_OK) {
        outcome->price_code = code;
        return;
    }
    if (over_budget(scan, &c)) {
        if (!outcome->has_over || cheaper_over_budget(&c, &outcome->cheapest_over))
            outcome->cheapest_over = c;
        outcome->has_over = true;
        return;
    }
    if (!outcome->has_best || compare_candidates(&c, &outcome->best, scan->request->objective) < 0)
        outcome->best = c;
    outcome->has_best = true;
}

/* ---- one SKU --------------------------------------------------------------- */

static void note_for_hint(struct scan *scan, const struct sku_outcome *outcome)
{
    if (outcome->has_over &&
        (!scan->has_over || cheaper_over_budget(&outcome->cheapest_over, &scan->cheapest_over))) {
        scan->cheapest_over = outcome->cheapest_over;
        scan->has_over = true;
    }
    if (outcome->has_late &&
        (!scan->has_late || outcome->fastest_late.hours < scan->fastest_late.hours)) {
        scan->fastest_late = outcome->fastest_late;
        scan->has_late = true;
    }
}

/* A SKU that fits but has no feasible try: its most informative miss. */
static void reject_outcome(struct scan *scan, const struct sku *sku,
                           const struct sku_outcome *outcome)
{
    struct miss m = {.sku = sku, .instances = 1, .reason = RECOMMEND_REJECT_NOT_PRICED};
    if (outcome->has_over) {
        m.reason = RECOMMEND_REJECT_OVER_BUDGET;
        m.instances = outcome->cheapest_over.instances;
        m.total = outcome->cheapest_over.total;
        m.shortfall = (double)m.total / (double)scan->request->budget;
    } else if (outcome->has_late) {
        const struct candidate *late = &outcome->fastest_late;
        m.instances = late->instances;
        m.needed = recommend_days_of(scan, late);
        m.reason =
            late->too_long ? RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL : RECOMMEND_REJECT_MISSES_DEADLINE;
        m.available = late->too_long ? USAGE_MAX_DAYS : scan->request->deadline_days;
        m.shortfall = m.needed / m.available;
    } else {
        m.code = outcome->price_code;
        m.shortfall = HUGE_VAL;
    }
    note_for_hint(scan, outcome);
    offer_miss(scan, &m);
}

/* `least` is the placement that needs least (the most instances tried):
 * its per-GPU need over one instance's cards. */
static void reject_memory(struct scan *scan, const struct sku *sku,
                          const struct sizing_placement *least, int32_t instances)
{
    struct miss m = {
        .sku = sku, .instances = instances, .reason = RECOMMEND_REJECT_INSUFFICIENT_MEMORY};
    m.needed = least->memory_gb * sku->gpu_count;
    m.available = sku_total_memory_gb(sku);
    if (least->host_known && least->memory_gb <= sku->gpu->memory_gb)
        m.host_gb = least->host_gb; /* the card holds its share; the host does not */
    m.shortfall = m.available > 0 ? m.needed / m.available : HUGE_VAL;
    if (scan->estimate->task == SIZING_TASK_INFERENCE) {
        sizing_serve(scan->estimate, sku, &m.serving);
        if (m.serving.max_context_tokens > 0 &&
            (!scan->has_context ||
             m.serving.max_context_tokens > scan->longest_context.serving.max_context_tokens)) {
            scan->longest_context = m;
            scan->has_context = true;
        }
    }
    offer_miss(scan, &m);
}

/* A SKU whose GPU lacks `feature`; the first one also names it in the
 * hint. */
static void reject_unsupported(struct scan *scan, const struct sku *sku, enum gpu_feature feature)
{
    struct miss m = {.sku = sku, .instances = 1, .reason = RECOMMEND_REJECT_UNSUPPORTED_FEATURE};
    m.feature = feature;
    m.needed = gpu_feature_min_compute_capability(feature);
    m.available = sku->gpu->compute_capability;
    m.shortfall = m.available > 0 ? m.needed / m.available : HUGE_VAL;
    if (!scan->has_lacking) {
        scan->lacking = m;
        scan->has_lacking = true;
    }
    offer_miss(scan, &m);
}

/* A SKU that holds one request but cannot serve at the per-request floor
 * (or has no figures to decode with), or needs more replicas than
 * max_instances. */
static void reject_serving(struct scan *scan, const struct sku *sku,
                           const struct sizing_serving *serving)
{
    const struct sizing_estimate *e = scan->estimate;
    struct miss m = {.sku = sku, .reason = RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT};
    m.serving = *serving;
    m.instances = 1;
    if (serving->limit == SIZING_TOO_SLOW) {
        m.needed = e->per_request_floor;
        m.available = serving->best_tokens_per_second_per_request;
        m.shortfall = m.available > 0.0 ? m.needed / m.available : HUGE_VAL;
        if (!scan->has_slow || m.available > scan->fastest_request.available)
            scan->fastest_request = m;
        scan->has_slow = true;
    } else if (serving->limit == SIZING_NO_BANDWIDTH) {
        m.shortfall = HUGE_VAL;
    } else {
        m.instances = scan->max_instances;
        m.needed = e->concurrent_requests > 0 ? e->concurrent_requests : e->tokens_per_second;
        m.available = serving->replica_tokens_per_second;
        m.replicas = serving->replicas;
        m.shortfall = m.replicas / scan->max_instances;
        if (!scan->has_replicas || m.replicas < scan->fewest_replicas.replicas)
            scan->fewest_replicas = m;
        scan->has_replicas = true;
    }
    offer_miss(scan, &m);
}

/* The instance counts worth trying: 1 … max for a training run, the
 * replicas inference needs, else one. Returns false (after rejecting the
 * SKU) when inference cannot be served within max_instances. */
static bool instance_range(struct scan *scan, const struct sku *sku, int32_t *first, int32_t *last)
{
    *first = *last = 1;
    if (recommend_is_training_run(scan)) {
        *last = scan->max_instances;
        return true;
    }
    if (scan->estimate->task != SIZING_TASK_INFERENCE)
        return true;
    struct sizing_serving serving;
    sizing_serve(scan->estimate, sku, &serving);
    if (serving.limit != SIZING_SERVES || serving.replicas > scan->max_instances) {
        reject_serving(scan, sku, &serving);
        return false;
    }
    *first = *last = (int32_t)serving.replicas;
    return true;
}

/* A training run may shard its state over more instances; anything else
 * must fit one. Rejects the SKU when no instance count it may take fits. */
static bool fits_some_instances(struct scan *scan, const struct sku *sku)
{
    int32_t most = recommend_is_training_run(scan) ? scan->max_instances : 1;
    struct sizing_placement placement;
    if (sizing_place(scan->estimate, sku, 1, &placement) ||
        (most > 1 && sizing_place(scan->estimate, sku, most, &placement)))
        return true;
    reject_memory(scan, sku, &placement, most);
    return false;
}

static void scan_sku(struct scan *scan, const struct sku *sku)
{
    assert(sku->gpu != NULL && sku->gpu_count >= 1);
    if (sku_total_memory_gb(sku) > scan->largest_memory_gb)
        scan->largest_memory_gb = sku_total_memory_gb(sku);
    enum gpu_feature missing;
    if (sizing_gpu_lacks_feature(scan->estimate, sku->gpu, &missing)) {
        reject_unsupported(scan, sku, missing);
        return;
    }
    int32_t first, last;
    if (!fits_some_instances(scan, sku))
        return;
    if (!instance_range(scan, sku, &first, &last))
        return;
    struct sku_outcome outcome = {.price_code = GQ_OK};
    for (int32_t instances = first; instances <= last; instances++)
        try_instances(scan, sku, instances, &outcome);
    if (outcome.has_best)
        offer_top(scan, &outcome.best);
    else
        reject_outcome(scan, sku, &outcome);
}

/* ---- the cheapest change --------------------------------------------------- */

/* The workload with `variant` applied; false when it does not apply. */
static bool vary(const struct sizing_estimate *e, const struct sizing_workload *given,
                 enum variant variant, struct sizing_workload *out)
{
    bool quantisable = e->task == SIZING_TASK_INFERENCE || e->task == SIZING_TASK_LORA;
    bool holds = sizing_task_holds_activations(e->task);
    *out = *given;
    switch (variant) {
    case VARIANT_FP16:
        out->precision = SIZING_PRECISION_FP16;
        return e->precision == SIZING_PRECISION_BF16;
    case VARIANT_SELECTIVE_CHECKPOINTS:
        out->checkpointing = SIZING_CHECKPOINTING_SELECTIVE;
        return holds && e->checkpointing == SIZING_CHECKPOINTING_FULL;
    case VARIANT_NO_CHECKPOINTS:
        out->checkpointing = SIZING_CHECKPOINTING_NONE;
        return holds && e->checkpointing != SIZING_CHECKPOINTING_NONE;
    case VARIANT_KV_INT8:
        out->kv_precision = SIZING_KV_INT8;
        return e->task == SIZING_TASK_INFERENCE && e->kv_precision == SIZING_KV_FP16;
    case VARIANT_WEIGHTS_INT8:
        out->precision = SIZING_PRECISION_INT8;
        memset(&out->quantization, 0, sizeof out->quantization);
        return quantisable && sizing_bytes_per_param(e->precision) > 1.0;
    case VARIANT_WEIGHTS_INT4:
        out->precision = SIZING_PRECISION_INT4;
        memset(&out->quantization, 0, sizeof out->quantization);
        return quantisable && sizing_bytes_per_param(e->precision) > 0.5;
    default:
        return false;
    }
}

/* True when `a` is strictly better than `b` under the objective: cheaper
 * (or as cheap and faster) for cost, faster (or as fast and cheaper) for
 * time. Ties of both are not better: the change would buy nothing. */
static bool strictly_better(const struct candidate *a, const struct candidate *b,
                            enum recommend_objective objective)
{
    bool faster = a->hours < b->hours * (1.0 - 1e-9),
         as_fast = !(b->hours < a->hours * (1.0 - 1e-9));
    if (objective == RECOMMEND_OBJECTIVE_TIME)
        return faster || (as_fast && a->total < b->total);
    return a->total < b->total || (a->total == b->total && faster);
}

/* ---- the run --------------------------------------------------------------- */

/* The one allocation of a run: the scan, a variant's scan and estimate and
 * a quote buffer for one item, together too large for a server thread's
 * stack. */
struct workspace {
    struct scan scan;
    struct scan variant_scan;
    struct sizing_estimate variant_estimate;
    struct quote_result quote;
    struct quote_item_result quote_item;
};

static void resolve_settings(struct scan *scan, const struct recommend_request *request)
{
    bool learning = request->workload.task == SIZING_TASK_LEARNING;
    scan->lang = (unsigned)request->lang < GQ_LANG_COUNT ? request->lang : GQ_LANG_EN;
    scan->millihours_per_day = request->millihours_per_day;
    if (scan->millihours_per_day == 0)
        scan->millihours_per_day =
            learning ? RECOMMEND_LEARNING_MILLIHOURS_PER_DAY : RECOMMEND_DEFAULT_MILLIHOURS_PER_DAY;
    scan->days = 0;
    if (!recommend_is_training_run(scan))
        scan->days = rental_days(request);
    scan->limit = request->limit > 0 ? request->limit : RECOMMEND_DEFAULT_LIMIT;
    scan->max_instances = (int32_t)scan->estimate->assumptions[SIZING_MAX_INSTANCES];
}

/* Tries every SKU of the catalog for `estimate`. */
static void scan_catalog(struct scan *scan, const struct catalog *catalog,
                         const struct recommend_request *request,
                         const struct sizing_estimate *estimate, int64_t now,
                         struct quote_result *quote)
{
    memset(scan, 0, sizeof *scan);
    scan->catalog = catalog;
    scan->request = request;
    scan->estimate = estimate;
    scan->now = now;
    scan->quote = quote;
    resolve_settings(scan, request);
    for (size_t i = 0; i < catalog->n_skus; i++)
        scan_sku(scan, &catalog->skus[i]);
}

/* The variant of the workload that serves it best, when that beats the
 * answer or serves when nothing does: its hint, or nothing. Each variant
 * is a whole scan, keeping only its best configuration. */
static void write_better_variant(struct workspace *work, struct recommend_result *out)
{
    const struct scan *scan = &work->scan;
    enum recommend_objective objective = scan->request->objective;
    struct candidate best, fp16;
    enum variant chosen = VARIANT_COUNT;
    bool has_fp16 = false;
    for (int v = 0; v < VARIANT_COUNT; v++) {
        struct sizing_workload workload;
        if (!vary(scan->estimate, &scan->request->workload, (enum variant)v, &workload) ||
            sizing_estimate_workload(&workload, scan->catalog, &scan->request->assumptions,
                                     &work->variant_estimate, NULL) != GQ_OK)
            continue;
        struct scan *variant = &work->variant_scan;
        scan_catalog(variant, scan->catalog, scan->request, &work->variant_estimate, scan->now,
                     scan->quote);
        if (variant->n_top == 0)
            continue;
        const struct candidate *c = &variant->top[0];
        if (v == VARIANT_FP16 && gpu_model_supports(c->sku->gpu, GPU_FEATURE_BF16))
            continue; /* bf16 would have run as fast there */
        if (scan->n_top > 0 && !strictly_better(c, &scan->top[0], objective))
            continue;
        if (v == VARIANT_FP16) {
            fp16 = *c;
            has_fp16 = true;
        }
        if (chosen != VARIANT_COUNT && !strictly_better(c, &best, objective))
            continue;
        best = *c;
        chosen = (enum variant)v;
    }
    if (chosen != VARIANT_COUNT)
        recommend_write_variant_hint(scan, chosen, &best,
                                     has_fp16 && chosen != VARIANT_FP16 && scan->n_top > 0 ? &fp16
                                                                                           : NULL,
                                     out->hint, sizeof out->hint);
}

static void write_result(struct workspace *work, struct recommend_result *out)
{
    struct scan *scan = &work->scan;
    out->millihours_per_day = scan->millihours_per_day;
    out->days = scan->days;
    out->limit = scan->limit;
    out->n_recommendations = scan->n_top;
    for (int i = 0; i < scan->n_top; i++)
        recommend_write_recommendation(scan, &scan->top[i], i + 1, &out->recommendations[i]);
    qsort(scan->misses, (size_t)scan->n_misses, sizeof scan->misses[0], compare_misses_qsort);
    recommend_write_rejections(scan, out);
    out->hint[0] = '\0';
    if (scan->n_top == 0)
        recommend_write_hint(scan, out->hint, sizeof out->hint);
    if (scan->catalog->n_skus > 0)
        write_better_variant(work, out);
    recommend_trim_partial_character(out->hint);
}

enum gq_code recommend_run(const struct catalog *catalog, const struct recommend_request *request,
                           int64_t now, struct recommend_result *out, struct gq_error *err)
{
    assert(catalog != NULL && request != NULL && out != NULL);
    enum gq_code code = sizing_estimate_workload(&request->workload, catalog, &request->assumptions,
                                                 &out->estimate, err);
    if (code == GQ_OK)
        code = check_request(request, &out->estimate, err);
    if (code != GQ_OK)
        return code;
    struct workspace *work = malloc(sizeof *work);
    if (work == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    memset(&work->quote, 0, sizeof work->quote);
    work->quote.items = &work->quote_item;
    work->quote.capacity = 1;
    scan_catalog(&work->scan, catalog, request, &out->estimate, now, &work->quote);
    write_result(work, out);
    free(work);
    return GQ_OK;
}
